//! GRES requests against sbatch 24.11 (tests/data/gres.txt).
mod common;
use spur_grammar::gres::{parse_gres_list, parse_request, GresRequestError};

#[test]
fn table_from_slurm() {
    let types: Vec<String> = ["gpu", "mps", "shard"].iter().map(|s| s.to_string()).collect();
    common::check("gres.txt", |op, input| {
        assert_eq!(op, "sbatch");
        let submit_failed = "err 1 sbatch: error: Batch job submission failed:";
        match parse_request(input, Some(&types)) {
            Err(e) => format!("err 1 sbatch: error: {}", e),
            // sbatch took it; the test cluster's slurmctld has no GRES on its nodes
            Ok(r) if !r.items.is_empty() => {
                format!("{} {}", submit_failed, GresRequestError::InvalidGres)
            }
            Ok(r) if r.bare_count => format!("{} {}", submit_failed, GresRequestError::InvalidTres),
            Ok(_) => "ok".into(),
        }
    });
}

#[test]
fn values() {
    let r = parse_request("gres/gpu:a100:2k,mps:0,shard=3", None).unwrap();
    let v: Vec<(String, Option<String>, u64)> = r.items.into_iter().map(|g| (g.name, g.type_, g.count)).collect();
    assert_eq!(v, vec![("gpu".into(), Some("a100".into()), 2048), ("shard".into(), None, 3)]);
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("gres.txt");
    let types: Vec<String> = vec!["gpu".into(), "mps".into()];
    for s in common::garbage(19, &seeds, "gpumsrd:=,/0123456789kKbBiImMpP() -x\u{e9}", 20_000) {
        for t in [None, Some(&types[..])] {
            if let Ok(r) = parse_request(&s, t) {
                assert!(r.items.iter().all(|g| g.count != 0 && !g.name.is_empty()));
            }
        }
        let _ = parse_gres_list(&s);
    }
}
