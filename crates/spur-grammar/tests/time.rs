//! Time limits against sbatch 24.11 (tests/data/time.txt).
mod common;
use spur_grammar::time::{fmt_limit_scontrol, parse_job_time_limit, parse_time, parse_time_limit};

#[test]
fn table_from_slurm() {
    common::check("time.txt", |op, input| {
        assert_eq!(op, "sbatch");
        match parse_job_time_limit(input) {
            Ok(m) => format!("ok {}", fmt_limit_scontrol(m)),
            Err(_) => "err 255 sbatch: error: Invalid --time specification".into(),
        }
    });
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("time.txt");
    for s in common::garbage(31, &seeds, "0123456789:-+/.Tnowdayupm \t\u{e9}x", 20_000) {
        let _ = parse_time_limit(&s);
        if let Ok(m) = parse_job_time_limit(&s) {
            let _ = fmt_limit_scontrol(m);
        }
        let _ = parse_time(&s, 1_700_000_000, false);
        let _ = parse_time(&s, 1_700_000_000, true);
    }
}
