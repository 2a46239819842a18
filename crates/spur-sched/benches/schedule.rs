//! Cost of one scheduling pass as the cluster and the queue grow:
//! nodes × pending jobs, from 100 × 1,000 up to 10,000 × 100,000.
//! `cargo bench -p spur-sched` prints the time per pass for each size, for a
//! whole pass and for a pass cut at the default queue depth (what spurctld runs).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use spur_core::model::*;

fn node(i: usize) -> Node {
    Node {
        name: format!("n{:05}", i),
        addr: "127.0.0.1".into(),
        hostname: format!("n{:05}", i),
        cpus: 64,
        boards: 1,
        sockets: 2,
        cores_per_socket: 32,
        threads_per_core: 1,
        real_memory: 256_000,
        weight: 1,
        gres: vec![("gpu".into(), None, 8)],
        base: NodeBase::Idle,
        ..Default::default()
    }
}

fn job(id: u32, nodes: u32) -> Job {
    let desc = JobDesc { name: "bench".into(), min_nodes: Some(nodes), ..Default::default() };
    Job {
        job_id: id,
        desc,
        user_id: 1000,
        group_id: 1000,
        user_name: "u".into(),
        group_name: "g".into(),
        priority: 1_000_000 - id,
        partition: "batch".into(),
        submit_time: id as i64,
        eligible_time: id as i64,
        num_nodes: nodes,
        num_tasks: nodes * 64,
        num_cpus: nodes * 64,
        batch_flag: 1,
        ..Default::default()
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("schedule_pass");
    g.sample_size(10);
    for &(n_nodes, n_jobs) in &[(100usize, 1_000u32), (1_000, 10_000), (10_000, 100_000)] {
        let nodes: Vec<Node> = (0..n_nodes).map(node).collect();
        let part = Partition {
            name: "batch".into(),
            nodes: nodes.iter().map(|n| n.name.clone()).collect(),
            nodes_expr: String::new(),
            default: true,
            oversubscribe: "NO".into(),
            priority_tier: 1,
            priority_job_factor: 1,
            ..Default::default()
        };
        // Whole-node jobs of 1-4 nodes: the queue is far longer than the
        // cluster, so most of them stay pending (the worst case for a pass).
        let jobs: Vec<Job> = (1..=n_jobs).map(|i| job(i, 1 + i % 4)).collect();
        let jr: Vec<&Job> = jobs.iter().collect();
        let nr: Vec<&Node> = nodes.iter().collect();
        let pr = vec![&part];
        g.bench_with_input(BenchmarkId::from_parameter(format!("{}nodes_{}jobs", n_nodes, n_jobs)), &(), |b, _| {
            b.iter(|| spur_sched::schedule(0, &jr, &nr, &pr))
        });
        // what the controller runs: a pass cut at Slurm's default queue depth
        g.bench_with_input(
            BenchmarkId::from_parameter(format!(
                "{}nodes_{}jobs_depth{}",
                n_nodes,
                n_jobs,
                spur_sched::DEFAULT_QUEUE_DEPTH
            )),
            &(),
            |b, _| b.iter(|| spur_sched::schedule_depth(0, &jr, &nr, &pr, spur_sched::DEFAULT_QUEUE_DEPTH)),
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
