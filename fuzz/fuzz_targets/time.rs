//! Time limits, durations and dates (`spur_grammar::time`): a limit printed
//! as scontrol prints it reads back as the same limit.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::time::*;

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    let _ = parse_duration_secs(&s);
    if let Ok(m) = parse_time_limit(&s) {
        let _ = (fmt_limit_squeue(m), fmt_limit_sinfo(m));
        let printed = fmt_limit_scontrol(m);
        // (past i32 seconds the C int arithmetic wraps, as Slurm's does)
        if m.is_none_or(|m| (m as i64) * 60 <= i32::MAX as i64 - 59) {
            assert_eq!(parse_time_limit(&printed), Ok(m), "{s:?} printed as {printed:?}");
        }
    }
    let _ = parse_job_time_limit(&s);
    for past in [false, true] {
        if let Ok(t) = parse_time(&s, 1_700_000_000, past) {
            let _ = fmt_timestamp(t);
        }
    }
    // the printers take any number
    if data.len() >= 8 {
        let n = i64::from_le_bytes(data[..8].try_into().unwrap());
        let _ = (fmt_secs_squeue(n), fmt_secs_scontrol(n), fmt_timestamp(n));
        if let Some(tm) = localtime(n) {
            let _ = mktime(&tm);
        }
    }
});
