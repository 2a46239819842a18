//! Array specifications against slurmctld 24.11 (tests/data/array.txt).
mod common;
use spur_grammar::array::{parse, ArraySpec, DEFAULT_MAX_ARRAY_SIZE, MAX_MAX_ARRAY_SIZE};

/// The task list as scontrol prints ArrayTaskId (`bit_fmt`: `1-3,5`).
fn bit_fmt(tasks: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tasks.len() {
        let mut j = i;
        while j + 1 < tasks.len() && tasks[j + 1] == tasks[j] + 1 {
            j += 1;
        }
        out.push(if i == j { tasks[i].to_string() } else { format!("{}-{}", tasks[i], tasks[j]) });
        i = j + 1;
    }
    out.join(",")
}

fn render(r: Result<ArraySpec, spur_grammar::array::ArrayError>) -> String {
    match r {
        Ok(a) if a.tasks.is_empty() => "ok no array".into(),
        Ok(a) => format!("ok tasks={} throttle={}", bit_fmt(&a.tasks), a.throttle),
        Err(e) => format!("err 1 sbatch: error: Batch job submission failed: {}", e),
    }
}

#[test]
fn table_from_slurm() {
    common::check("array.txt", |op, input| {
        assert_eq!(op, "array");
        render(parse(input, DEFAULT_MAX_ARRAY_SIZE))
    });
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("array.txt");
    for s in common::garbage(11, &seeds, "0123456789-:%,[] +x\u{e9}", 20_000) {
        for max in [0, 1, DEFAULT_MAX_ARRAY_SIZE, MAX_MAX_ARRAY_SIZE] {
            if let Ok(a) = parse(&s, max) {
                assert!(a.tasks.windows(2).all(|w| w[0] < w[1]));
                assert!(a.tasks.iter().all(|t| *t < max));
                // what slurmctld accepted reads the same with the largest bound
                assert_eq!(parse(&s, MAX_MAX_ARRAY_SIZE).map(|b| b.tasks), Ok(a.tasks.clone()));
            }
        }
    }
}
