//! Dependencies and --kill-on-invalid-dep against Slurm 24.11
//! (tests/data/dependency.txt).
mod common;
use spur_grammar::dependency::{parse, parse_kill_on_invalid_dep, DepKind, DepTask, DependencyError};

const FAILED: &str = "err 1 sbatch: error: Batch job submission failed:";

#[test]
fn table_from_slurm() {
    // the jobs that existed when the table was recorded: (pending, array)
    let known = common::cases("dependency.txt")
        .into_iter()
        .find(|c| c.op == "known")
        .map(|c| {
            let v: Vec<u32> = c.input.split(' ').map(|x| x.parse().unwrap()).collect();
            (v[0], v[1])
        })
        .expect("a known line");
    common::check("dependency.txt", |op, input| match op {
        "known" => "pending array".into(),
        "kill-on-invalid-dep" => match parse_kill_on_invalid_dep(input) {
            Ok(_) => "ok".into(),
            Err(e) => format!("err 255 sbatch: error: {}", e),
        },
        "sbatch" => match parse(input, 1001, false) {
            Ok(None) => "ok Dependency=(null)".into(),
            Err(e) => format!("{} {}", FAILED, e),
            Ok(Some(mut d)) => {
                // slurmctld 24.11's checks against the jobs it has: afterok and
                // afternotok need a job it knows; a whole array shows as JOB_*
                for it in &mut d.items {
                    // (the array's tasks are 1-3)
                    let exists = match it.task {
                        DepTask::Job | DepTask::All => it.job_id == known.0 || it.job_id == known.1,
                        DepTask::One(t) => it.job_id == known.1 && (1..=3).contains(&t),
                    };
                    if matches!(it.kind, DepKind::AfterOk | DepKind::AfterNotOk) && !exists {
                        return format!("{} {}", FAILED, DependencyError::Invalid);
                    }
                    if it.job_id == known.1 && it.task == DepTask::Job {
                        it.task = DepTask::All;
                    }
                }
                format!("ok Dependency={}", d.display("unfulfilled"))
            }
        },
        _ => panic!("unknown op {op}"),
    });
}

#[test]
fn expansion_when_permitted() {
    let d = parse("expand:5", 1001, true).unwrap().unwrap();
    assert_eq!(d.items[0].kind, DepKind::Expand);
    assert_eq!(parse("expand:5", 1001, false), Err(DependencyError::ExpandNotPermitted));
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("dependency.txt");
    let alphabet = "afterokanyburstbuffercorsingleton:,?+()_*[]-0123456789 \u{e9}";
    for s in common::garbage(17, &seeds, alphabet, 20_000) {
        for max in [0, 4, 1001] {
            if let Ok(Some(d)) = parse(&s, max, true) {
                let _ = d.display("unfulfilled");
                assert!(d.items.iter().all(|i| (i.job_id == 0) == (i.kind == DepKind::Singleton)));
            }
        }
        let _ = parse_kill_on_invalid_dep(&s);
    }
}

/// Issue 9, point 3: a dependency of slurmctld's largest size (128 KiB, some
/// 23,700 distinct items) reads in linear time. Each item was compared with
/// every item kept before it, and the rest of the text searched for `(` (as
/// slurmctld's strchr does): 2.5 s for one read in a debug build (60 ms
/// now), and the
/// controller's scheduler reads every pending job's dependency at each pass,
/// under the state lock.
#[test]
fn the_largest_dependency_reads_in_linear_time() {
    let mut d = String::from("after:1");
    let mut n = 1;
    while d.len() < 128 * 1024 - 16 {
        n += 1;
        d.push_str(&format!(":{}", n));
    }
    let started = std::time::Instant::now();
    let dep = parse(&d, 1001, false).unwrap().unwrap();
    let took = started.elapsed();
    assert_eq!(dep.items.len(), n as usize);
    assert!(dep.items.iter().all(|i| i.kind == DepKind::After && i.task == DepTask::Job));
    // duplicates are still kept once, the first in place
    let dup = parse("after:3:2:3,afterok:2,after:2", 1001, false).unwrap().unwrap();
    let ids: Vec<(DepKind, u32)> = dup.items.iter().map(|i| (i.kind, i.job_id)).collect();
    assert_eq!(ids, [(DepKind::After, 3), (DepKind::After, 2), (DepKind::AfterOk, 2)]);
    // (times are printed, not asserted: speed belongs in benchmarks)
    eprintln!("{} items read in {:?}", n, took);
    // the old format (job ids meaning afterany), which looked for a `:` in
    // the whole rest at each id
    let old: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let started = std::time::Instant::now();
    assert_eq!(parse(&old.join(","), 1001, false).unwrap().unwrap().items.len(), n as usize);
    eprintln!("{} ids read in {:?}", n, started.elapsed());
}

/// Issue 9, point 3: task lists (`5_[0-1000]`) are written out task by task
/// (slurmctld's `_xlate_array_dep`); a 128 KiB dependency of such lists named
/// 9.4 million tasks and took 12 s to read in a release build, at submission
/// and at every scheduling pass. They name at most 8 x MaxArraySize tasks in
/// all; past that the dependency does not read (`Job dependency problem`).
/// A stepped task list far past MaxArraySize is refused before its tasks
/// are listed (the dependency fuzz target ran out of memory on this one).
#[test]
fn a_huge_stepped_task_list_is_refused_without_listing_it() {
    assert_eq!(parse("afterok:15_[1-377777777:2]", 1001, false), Err(DependencyError::Invalid));
    let ok = parse("afterok:15_[1-9:2]", 1001, false).unwrap().unwrap();
    assert_eq!(ok.items.iter().map(|i| i.task).collect::<Vec<_>>().len(), 4);
}

#[test]
fn task_lists_name_a_bounded_number_of_tasks() {
    let lists = |n: u32| (1..=n).map(|i| format!("{}_[0-1000]", i)).collect::<Vec<_>>().join(":");
    let eight = parse(&format!("after:{}", lists(8)), 1001, false).unwrap().unwrap();
    assert_eq!(eight.items.len(), 8 * 1001);
    assert_eq!(parse(&format!("after:{}", lists(9)), 1001, false), Err(DependencyError::Invalid));
    // one list repeating its range counts each time
    let repeated = format!("after:5_[{}]", ["0-1000"; 9].join(","));
    assert_eq!(parse(&repeated, 1001, false), Err(DependencyError::Invalid));
    // the largest text of lists is refused at once
    let mut d = String::from("after:1_[0-1000]");
    let mut n = 1;
    while d.len() < 128 * 1024 - 24 {
        n += 1;
        d.push_str(&format!(":{}_[0-1000]", n));
    }
    let started = std::time::Instant::now();
    assert_eq!(parse(&d, 1001, false), Err(DependencyError::Invalid));
    eprintln!("refused in {:?}", started.elapsed());
}
