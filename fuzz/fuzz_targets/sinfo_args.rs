//! sinfo's command line and environment (`spur_cli_query::sinfo::parse`;
//! words split on NUL, `\x01NAME=VALUE` an environment entry), then its
//! output for a small cluster.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_cli_query::{json, sinfo};

fuzz_target!(|data: &[u8]| {
    let (args, env) = spur_fuzz::command_line(data);
    let Ok(o) = sinfo::parse(&args, &env) else { return };
    // (a field is as wide as asked, as Slurm's: `%2147483647i` is 2 GB of
    // spaces per line, by design; the widths rendered stay under a million)
    if wide(&args) || env.values().any(|v| wide(std::slice::from_ref(v))) {
        return;
    }
    let view = spur_fuzz::view();
    match spur_cli_base::data::mime(&args) {
        Some(m) => {
            if spur_cli_base::data::check_version("sinfo", &m).is_ok() {
                let _ = json::sinfo(&m, &args, &view);
            }
        }
        None => {
            let _ = sinfo::render(&o, &view);
        }
    }
});

/// A run of seven digits or more: a field width of a million or more.
fn wide(words: &[String]) -> bool {
    words.iter().any(|w| w.as_bytes().windows(7).any(|d| d.iter().all(u8::is_ascii_digit)))
}
