//! Memory sizes (`spur_grammar::size`): what is printed exactly reads back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::size::*;

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    if let Ok(mb) = parse_mem_mb(&s) {
        let printed = mbytes_to_str(mb);
        let _ = (fmt_mem_exact(mb), fmt_mem_squeue(mb));
        // (Slurm's unit table ends in `?` past P, and for 0; `P` is printed
        // but not read, by Slurm too)
        if !printed.ends_with(['?', 'P']) {
            assert_eq!(parse_mem_mb(&printed), Ok(mb), "{s:?} printed as {printed:?}");
        }
    }
    if data.len() >= 8 {
        let n = u64::from_le_bytes(data[..8].try_into().unwrap());
        let _ = (mbytes_to_str(n), fmt_mem_exact(n), fmt_mem_squeue(n));
        let _ = convert_num_unit(n as f64, Unit::Kilo, data.len().is_multiple_of(2));
    }
});
