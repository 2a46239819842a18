//! scancel's command line and environment (`spur_cli_control::scancel::parse`;
//! words split on NUL, `\x01NAME=VALUE` an environment entry), its checks of
//! the ids against a small cluster's jobs, its report, and the request it
//! sends as the controller reads it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_cli_control::scancel;

fuzz_target!(|data: &[u8]| {
    let (args, env) = spur_fuzz::command_line(data);
    let Ok(o) = scancel::parse(&args, &env) else { return };
    let invalid = scancel::verify_ids(&o, &spur_fuzz::view().jobs);
    let _ = scancel::report(&o, &invalid[..]);
    spur_fuzz::controller::cancel((&scancel::cancel_request(&o)).into());
});
