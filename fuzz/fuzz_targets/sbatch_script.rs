//! A batch script's `#SBATCH` lines (sbatch reads the script given on stdin):
//! `spur_cli_submit::sbatch::parse_at`, then the job description through
//! its wire record, as sbatch sends it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let script = spur_fuzz::text(data);
    let env = HashMap::new();
    let no_file = |_: &str| Err(std::io::Error::from(std::io::ErrorKind::NotFound));
    let Ok(req) = spur_cli_submit::sbatch::parse_at(&[], &env, "/tmp", Some(script), &no_file, 1_700_000_000) else {
        return;
    };
    spur_fuzz::sent_as_sbatch_sends(&req.desc);
});
