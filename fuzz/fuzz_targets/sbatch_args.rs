//! sbatch's command line and `SBATCH_*` variables
//! (`spur_cli_submit::sbatch::parse_at`; words split on NUL, `\x01NAME=VALUE`
//! an environment entry), then the job description through its wire record.
#![no_main]
use libfuzzer_sys::fuzz_target;

const SCRIPT: &str = "#!/bin/sh\n#SBATCH -N1\ntrue\n";

fuzz_target!(|data: &[u8]| {
    let (args, env) = spur_fuzz::command_line(data);
    // every file exists and is the script (the script named, --export-file)
    let read = |_: &str| Ok(SCRIPT.to_string());
    let Ok(req) = spur_cli_submit::sbatch::parse_at(&args, &env, "/tmp", Some(SCRIPT.into()), &read, 1_700_000_000)
    else {
        return;
    };
    let _ = spur_cli_submit::sbatch::format_submit_response(&req, 12, "cluster");
    spur_fuzz::sent_as_sbatch_sends(&req.desc);
});
