//! Memory sizes against sbatch 24.11 (tests/data/size.txt).
mod common;
use spur_grammar::size::{fmt_mem_exact, fmt_mem_squeue, mbytes_to_str, parse_mem_mb};

#[test]
fn table_from_slurm() {
    common::check("size.txt", |op, input| {
        assert_eq!(op, "sbatch");
        match parse_mem_mb(input) {
            Ok(mb) => format!("ok {}", mbytes_to_str(mb)),
            Err(_) => "err 255 sbatch: error: Invalid --mem specification".into(),
        }
    });
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("size.txt");
    for s in common::garbage(37, &seeds, "0123456789KMGTPBkmgtpb+- .x\u{e9}", 20_000) {
        if let Ok(mb) = parse_mem_mb(&s) {
            let _ = (mbytes_to_str(mb), fmt_mem_exact(mb), fmt_mem_squeue(mb));
        }
    }
}
