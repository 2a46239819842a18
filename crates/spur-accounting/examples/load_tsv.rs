//! Load the benchmark's generated job records (bench/gen_jobs.py: OUT.tsv
//! and OUT.steps.tsv) into a controller's accounting store, for
//! bench/sacct.sh:
//!
//!     load_tsv STATE_DIR OUT.tsv CLUSTER
//!
//! The records are written as records copied from a peer (index 0), so the
//! store's own log position is left alone and the controller started on the
//! directory feeds it as usual.

use spur_core::acct::{AcctJob, AcctState, AcctStep};
use spur_core::model::BATCH_STEP;
use spur_core::usage::NodeUsage;
use std::io::BufRead;

fn state(s: &str) -> AcctState {
    match s {
        "COMPLETED" => AcctState::Completed,
        "FAILED" => AcctState::Failed,
        "CANCELLED" => AcctState::Cancelled,
        "TIMEOUT" => AcctState::Timeout,
        _ => AcctState::Completed,
    }
}

fn status(code: &str, sig: &str) -> i32 {
    let c: i32 = code.parse().unwrap_or(0);
    let s: i32 = sig.parse().unwrap_or(0);
    if s != 0 {
        s
    } else {
        c << 8
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 4 {
        eprintln!("usage: load_tsv STATE_DIR OUT.tsv CLUSTER");
        std::process::exit(2);
    }
    let dir = std::path::Path::new(&a[1]);
    let jobs_path = &a[2];
    let steps_path = jobs_path.strip_suffix(".tsv").map(|p| format!("{}.steps.tsv", p)).unwrap_or_default();
    let cluster = &a[3];
    let store = spur_accounting::Store::open(dir).unwrap_or_else(|e| {
        eprintln!("{}", e);
        std::process::exit(1)
    });
    let jobs = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(jobs_path).expect("jobs file"));
    let steps = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(&steps_path).expect("steps file"));
    let mut steps = steps.lines().skip(1).map_while(Result::ok).peekable();
    let t0 = std::time::Instant::now();
    let mut batch: Vec<(u64, AcctJob)> = Vec::with_capacity(20_000);
    let mut n = 0u64;
    for line in jobs.lines().skip(1).map_while(Result::ok) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 20 {
            continue;
        }
        let num = |i: usize| f[i].parse::<i64>().unwrap_or(0);
        let nodes = spur_grammar::hostlist::expand(f[18]).unwrap_or_default();
        let mut j = AcctJob {
            job_id: num(0) as u32,
            cluster: cluster.clone(),
            name: f[1].into(),
            user_name: f[2].into(),
            user_id: num(3) as u32,
            group_name: f[2].into(),
            group_id: num(4) as u32,
            account: f[5].into(),
            partition: f[6].into(),
            state: state(f[7]),
            exit_status: status(f[8], f[9]),
            submit: num(10),
            eligible: num(11),
            start: num(12),
            end: num(13),
            time_limit: Some(num(14) as u32),
            req_nodes: num(15) as u32,
            req_cpus: num(16) as u32,
            alloc_cpus: num(16) as u32,
            req_mem_mb: num(17) as u64,
            alloc_mem_mb: num(17) as u64,
            nodes,
            work_dir: f[19].into(),
            reason: "None".into(),
            ..Default::default()
        };
        while let Some(s) = steps.peek() {
            let g: Vec<&str> = s.split('\t').collect();
            if g.len() < 18 || g[0] != f[0] {
                break;
            }
            let sn = |i: usize| g[i].parse::<u64>().unwrap_or(0);
            let ntasks = sn(9).max(1) as u32;
            let step_nodes = spur_grammar::hostlist::expand(g[12]).unwrap_or_default();
            let (user_us, sys_us) = (sn(16), sn(17));
            j.steps.push(AcctStep {
                step_id: if g[1] == "batch" { BATCH_STEP } else { g[1].parse().unwrap_or(0) },
                name: g[2].into(),
                state: state(g[3]),
                exit_status: Some(status(g[4], g[5])),
                start: sn(6) as i64,
                end: sn(7) as i64,
                ntasks,
                cpus: sn(10) as u32,
                mem_mb: sn(11),
                usage: vec![NodeUsage {
                    node: step_nodes.first().cloned().unwrap_or_default(),
                    ntasks,
                    user_us,
                    sys_us,
                    min_cpu_us: (user_us + sys_us) / u64::from(ntasks),
                    max_rss_kb: sn(13),
                    tot_rss_kb: sn(14) * u64::from(ntasks),
                    ..Default::default()
                }],
                nodes: step_nodes,
                ..Default::default()
            });
            steps.next();
        }
        batch.push((0, j));
        n += 1;
        if batch.len() == batch.capacity() {
            store.merge(&batch).expect("write");
            batch.clear();
        }
    }
    store.merge(&batch).expect("write");
    eprintln!("loaded {} jobs in {:.1} s", n, t0.elapsed().as_secs_f64());
}
