//! Signal names and `--signal` against Slurm 24.11 (tests/data/signal.txt).
mod common;
use spur_grammar::signal::{parse_signal_opts, sig_name2num, sig_num2name, Names};

#[test]
fn table_from_slurm() {
    common::check("signal.txt", |op, input| match op {
        // scancel keeps `(uint16_t) sig_name2num(...)` and refuses 0
        "scancel" => match sig_name2num(input, Names::V24_11) as u16 {
            0 => format!("err 1 Unknown job signal: {}", input).trim_end().to_string(),
            n => format!("ok {}", n),
        },
        "sbatch" => match parse_signal_opts(input, true, Names::V24_11) {
            // the cluster runs PreemptMode=OFF: slurmctld refuses R after sbatch took it
            Ok(o) if o.resv => "err 1 sbatch: error: Batch job submission failed: \
                                Preemption is required but is disabled on this system"
                .into(),
            Ok(_) => "ok".into(),
            Err(e) => format!("err 255 sbatch: error: {}", e),
        },
        _ => panic!("unknown op {op}"),
    });
}

/// 22.05's table lacks CHLD and PIPE (proc_args.c of slurm-22-05-8-1).
#[test]
fn names_of_22_05() {
    assert_eq!(sig_name2num("CHLD", Names::V22_05), 0);
    assert_eq!(sig_name2num("SIGPIPE", Names::V22_05), 0);
    assert_eq!(sig_name2num("XCPU", Names::V22_05), 24);
    assert_eq!(sig_num2name(17, Names::V22_05), "17");
    assert_eq!(sig_num2name(17, Names::V24_11), "CHLD");
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("signal.txt");
    for s in common::garbage(13, &seeds, "RrBb:@0123456789-+ SIGUSRKILTERMsigx\u{e9}\t", 20_000) {
        for names in [Names::V22_05, Names::V24_11] {
            let n = sig_name2num(&s, names);
            let _ = sig_num2name(n, names);
            for sbatch in [true, false] {
                if let Ok(o) = parse_signal_opts(&s, sbatch, names) {
                    assert!(o.signal != 0 && (sbatch || !o.batch));
                }
            }
        }
    }
}
