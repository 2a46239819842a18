//! Signal names and `--signal` (`spur_grammar::signal`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::signal::*;

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    for names in [Names::V22_05, Names::V24_11] {
        let n = sig_name2num(&s, names);
        let _ = sig_num2name(n, names);
        for sbatch in [true, false] {
            if let Ok(o) = parse_signal_opts(&s, sbatch, names) {
                assert!(o.signal != 0 && (sbatch || !o.batch), "{s:?}");
            }
        }
    }
});
