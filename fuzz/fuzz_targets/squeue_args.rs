//! squeue's command line and environment (`spur_cli_query::squeue::parse`;
//! words split on NUL, `\x01NAME=VALUE` an environment entry), then its
//! output for a small cluster: the format engine, the sort, the filters and
//! the `--json`/`--yaml` documents.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_cli_query::{json, squeue};

fuzz_target!(|data: &[u8]| {
    let (args, env) = spur_fuzz::command_line(data);
    let Ok(o) = squeue::parse(&args, &env) else { return };
    // (a field is as wide as asked, as Slurm's: `%2147483647i` is 2 GB of
    // spaces per line, by design; the widths rendered stay under a million)
    if wide(&args) || env.values().any(|v| wide(std::slice::from_ref(v))) {
        return;
    }
    let view = spur_fuzz::view();
    match spur_cli_base::data::mime(&args) {
        Some(m) => {
            if spur_cli_base::data::check_version("squeue", &m).is_ok() {
                let _ = json::squeue(&o, &m, &args, &view, 1000);
            }
        }
        None => {
            let _ = squeue::render(&o, &view, 1000, "user");
        }
    }
});

/// A run of seven digits or more: a field width of a million or more.
fn wide(words: &[String]) -> bool {
    words.iter().any(|w| w.as_bytes().windows(7).any(|d| d.iter().all(u8::is_ascii_digit)))
}
