//! Job references against Slurm 24.11's readers (tests/data/jobref.txt).
mod common;
use spur_grammar::jobref::{
    parse, parse_job_str, parse_scancel_args, parse_scontrol_job, parse_squeue_jobs, split_list, JobRef, StepId, Tasks,
};

#[test]
fn table_from_slurm() {
    common::check("jobref.txt", |op, input| match op {
        "known" => "pending array".into(),
        "unfmt" => match parse(input, None) {
            Ok(_) => "ok".into(),
            Err(e) => format!("err {}", e),
        },
        "scancel" => match parse_scancel_args(&[input.to_string()]) {
            Ok(ids) => {
                let v: Vec<String> = ids.iter().flat_map(|i| &i.jobs).map(|j| j.to_string()).collect();
                format!("ok {}", v.join(" "))
            }
            Err(b) => {
                let log = b.log.map(|l| format!("scancel: error: {} / ", l)).unwrap_or_default();
                format!("err 1 {}scancel: error: Invalid job id {}", log, b.word).trim_end().to_string()
            }
        },
        "squeue" => match parse_squeue_jobs(input) {
            Ok(_) => "ok".into(),
            Err(t) => format!("err 1 squeue: error: Invalid job id: {}", t),
        },
        "scontrol" => match parse_scontrol_job(input) {
            Some(_) => "ok".into(),
            None => "err 1 scontrol_print_job error: Invalid job id specified".into(),
        },
        _ => panic!("unknown op {op}"),
    });
}

/// What the readers give, beyond accepting (each as the Slurm function
/// named in spur_grammar::jobref reads it).
#[test]
fn values() {
    let r = parse("5_3.batch", None).unwrap();
    assert_eq!((r.job_id, r.tasks, r.step), (5, Tasks::One(3), Some(StepId::Batch)));
    let r = parse("5.2+1", None).unwrap();
    assert_eq!((r.step, r.step_het), (Some(StepId::Num(2)), Some(1)));
    assert_eq!(parse("5+1", None).unwrap().het, Some(1));
    assert_eq!(parse("5_[1-3,5]", Some(1001)).unwrap().tasks, Tasks::Set(vec![1, 2, 3, 5]));
    assert_eq!(parse("5_[1-3,5]", Some(1001)).unwrap().to_string(), "5_[1-3,5]");
    assert_eq!(parse("5.extern", None).unwrap().step.map(StepId::raw), Some(0xffff_fffc));
    // job_str_signal
    let j = |s: &str| parse_job_str(s, 1001);
    assert_eq!(j("5"), Some(JobRef::job(5)));
    assert_eq!(j("5_*").unwrap().tasks, Tasks::All);
    assert_eq!(j("5_1-3").unwrap().tasks, Tasks::Set(vec![1, 2, 3]));
    assert_eq!(j("5_[1,3]").unwrap().tasks, Tasks::Set(vec![1, 3]));
    assert_eq!(j("5+").unwrap().het, Some(0));
    assert_eq!(j("4294967301"), Some(JobRef::job(5)));
    for bad in ["0", "-1", "5x", "5_", "5_*x", "5+x", "5+-1", "5_1001", "abc", "", " "] {
        assert_eq!(j(bad), None, "{bad:?}");
    }
    // squeue's ints
    let q = parse_squeue_jobs("4294967297,5_-1").unwrap();
    assert_eq!((q[0].job_id, &q[1].tasks), (1, &Tasks::One(u32::MAX)));
    assert_eq!(split_list(&["1,2,5_[1,3]".into(), ",x,".into()]), vec!["1", "2", "5_[1,3]", "x"]);
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("jobref.txt");
    for s in common::garbage(23, &seeds, "0123456789_[]-,.+*% xbatchexternTBD\u{e9}", 20_000) {
        for max in [None, Some(0), Some(1001)] {
            if let Ok(r) = parse(&s, max) {
                // what is printed reads back the same
                assert_eq!(parse(&r.to_string(), Some(1001)), Ok(r));
            }
        }
        if let Some(r) = parse_job_str(&s, 1001) {
            assert!(r.job_id != 0 || s.trim_start().starts_with(|c: char| c.is_ascii_digit() || c == '+'));
        }
        let _ = parse_scancel_args(&[s.clone(), s.clone()]);
        let _ = parse_squeue_jobs(&s);
        let _ = parse_scontrol_job(&s);
        let _ = split_list(&[s]);
    }
}
