//! What the Raft state costs as the queue grows: building a snapshot (the
//! whole state serialised, done under the state lock), installing one on a
//! member that lags (deserialise and re-index), and applying a batch of 100
//! submissions (and the same with the accounting records each entry's
//! changed jobs get, built under the state lock as the state machine does).
//! `cargo bench -p spur-state` prints the time for 1,000, 10,000 and 100,000
//! jobs.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use spur_core::model::*;
use spur_state::{Command, State};

fn job(i: u32) -> Job {
    let desc = JobDesc {
        name: format!("job{}", i),
        script: "#!/bin/bash\nsrun ./a.out\n".into(),
        work_dir: "/home/u/run".into(),
        env: (0..40).map(|k| (format!("VAR{}", k), format!("value{}", k))).collect(),
        ..Default::default()
    };
    Job {
        desc,
        user_id: 1000,
        group_id: 1000,
        user_name: "u".into(),
        group_name: "g".into(),
        partition: "batch".into(),
        submit_time: i as i64,
        num_nodes: 1,
        num_tasks: 1,
        num_cpus: 1,
        ..Default::default()
    }
}

fn state(n: u32) -> State {
    let mut st = State::new("c".into(), vec![], vec![], 1, u32::MAX - 1);
    for i in 0..n {
        st.apply(&Command::Submit { job: Box::new(job(i)) }).expect("submit");
    }
    st
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("raft_state");
    g.sample_size(10);
    for n in [1_000u32, 10_000, 100_000] {
        let st = state(n);
        // the snapshot as spurctld writes it (MessagePack in a spur_format
        // envelope), and bincode (format version 0) beside it for comparison
        let v = spur_format::FORMAT_VERSION;
        let bytes = st.encode_at(v).unwrap();
        let legacy = bincode::serialize(&st).unwrap();
        println!("{} jobs: snapshot {} bytes (bincode {} bytes)", n, bytes.len(), legacy.len());
        g.bench_with_input(BenchmarkId::new("build_snapshot", n), &st, |b, st| b.iter(|| st.encode_at(v).unwrap()));
        g.bench_with_input(BenchmarkId::new("install_snapshot", n), &bytes, |b, bytes| {
            b.iter(|| State::decode(bytes).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("build_snapshot_bincode", n), &st, |b, st| {
            b.iter(|| bincode::serialize(st).unwrap())
        });
        // (without the re-indexing that installing does after either)
        g.bench_with_input(BenchmarkId::new("install_snapshot_bincode", n), &legacy, |b, bytes| {
            b.iter(|| bincode::deserialize::<State>(bytes).unwrap())
        });
        let batch: Vec<Command> = (0..100).map(|i| Command::Submit { job: Box::new(job(n + i)) }).collect();
        g.bench_with_input(BenchmarkId::new("apply_100_submits", n), &st, |b, st| {
            b.iter_batched(
                || st.clone(),
                |mut s| {
                    for cmd in &batch {
                        s.apply(cmd).unwrap();
                    }
                    s
                },
                criterion::BatchSize::LargeInput,
            )
        });
        g.bench_with_input(BenchmarkId::new("apply_100_submits_with_records", n), &st, |b, st| {
            b.iter_batched(
                || st.clone(),
                |mut s| {
                    let mut recs = Vec::with_capacity(batch.len());
                    for cmd in &batch {
                        let r = s.apply(cmd);
                        for id in spur_state::acct::touched(cmd, &r) {
                            recs.extend(s.acct_record(id));
                        }
                    }
                    (s, recs)
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
