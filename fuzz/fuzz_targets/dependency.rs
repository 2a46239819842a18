//! `--dependency` and `--kill-on-invalid-dep` (`spur_grammar::dependency`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::dependency::*;

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    for max in [0, 4, 1001] {
        for expand in [true, false] {
            if let Ok(Some(d)) = parse(&s, max, expand) {
                let _ = d.display("unfulfilled");
                assert!(d.items.iter().all(|i| (i.job_id == 0) == (i.kind == DepKind::Singleton)), "{s:?}");
            }
        }
    }
    let _ = parse_kill_on_invalid_dep(&s);
});
