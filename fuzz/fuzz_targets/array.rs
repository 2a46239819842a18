//! `--array` specifications (`spur_grammar::array`): the tasks are sorted,
//! unique and under the bound.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::array::*;

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    for max in [0, 1, 1001, MAX_MAX_ARRAY_SIZE] {
        if let Ok(a) = parse(&s, max) {
            assert!(a.tasks.windows(2).all(|w| w[0] < w[1]), "{s:?}");
            assert!(a.tasks.iter().all(|t| *t < max), "{s:?}");
            let _ = a.bounds();
        }
        for tasks in [Some(0), Some(10), None] {
            if let Ok(a) = parse_limited(&s, max, tasks) {
                assert!(tasks.is_none_or(|n| a.tasks.len() as u64 <= n as u64), "{s:?}");
            }
        }
    }
});
