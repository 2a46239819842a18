//! Job references (`spur_grammar::jobref`): what is printed reads back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::jobref::*;

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    for max in [None, Some(0), Some(1001)] {
        if let Ok(r) = parse(&s, max) {
            assert_eq!(parse(&r.to_string(), Some(1001)), Ok(r), "{s:?}");
        }
    }
    let _ = parse_job_str(&s, 1001);
    let words: Vec<String> = s.split('\0').map(String::from).collect();
    let _ = parse_scancel_args(&words);
    let _ = split_list(&words);
    let _ = parse_squeue_jobs(&s);
    let _ = parse_scontrol_job(&s);
});
