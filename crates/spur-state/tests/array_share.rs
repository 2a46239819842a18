//! Issue 9, point 3: the tasks of an array share their job's description
//! (script and environment) instead of copying it: a 1 MiB script with
//! `--array=0-999` is held once in memory, written once in the log (the
//! submission) and once in a snapshot, however many tasks have split off.
//! Run with `--nocapture` for the figures.

use openraft::storage::{RaftSnapshotBuilder, RaftStateMachine};
use openraft::{CommittedLeaderId, Entry, EntryPayload, LogId};
use spur_core::model::*;
use spur_state::raft::{self, Batch};
use spur_state::{Applied, Command, State};
use std::collections::HashSet;
use std::time::Instant;

const SCRIPT: usize = 1 << 20;
const TASKS: u32 = 1000;

fn array_job() -> Job {
    let mut script = String::from("#!/bin/sh\n");
    while script.len() < SCRIPT {
        script.push_str("# a long comment line to make the script large, as a generated one would be\n");
    }
    let env: Vec<(String, String)> = (0..100).map(|i| (format!("VAR{}", i), "x".repeat(100))).collect();
    Job {
        desc: JobDesc { name: "big".into(), script: script.into(), env: env.into(), ..Default::default() },
        array: Some(ArrayInfo { pending_tasks: (0..TASKS).collect(), spec: "0-999".into(), ..Default::default() }),
        user_name: "root".into(),
        group_name: "root".into(),
        priority: 1,
        partition: "p".into(),
        num_nodes: 1,
        num_tasks: 1,
        num_cpus: 1,
        batch_flag: 1,
        ..Default::default()
    }
}

fn cluster() -> State {
    let part = Partition { name: "p".into(), nodes: vec![], default: true, ..Default::default() };
    State::new("c".into(), vec![], vec![part], 1, 100_000)
}

/// The submission, then every task split off: half started, half cancelled
/// while pending (each a record of its own).
/// (The cluster at the newest format version, as its controllers raise it.)
fn commands() -> Vec<Command> {
    let mut cmds = vec![
        Command::SetFormatVersion { version: spur_format::FORMAT_VERSION },
        Command::Submit { job: Box::new(array_job()) },
    ];
    for t in 0..TASKS {
        cmds.push(if t % 2 == 0 {
            Command::Start {
                job_id: 1,
                task: Some(t),
                allocs: vec![],
                now: 10,
                pass_ms: 0,
                extern_step: false,
                backfill: false,
            }
        } else {
            Command::Kill { job_id: 1, task: Some(t), state: JobState::Cancelled, now: 10, uid: None }
        });
    }
    cmds
}

/// Bytes of script and environment the records hold, each buffer once.
fn held(st: &State) -> usize {
    let mut seen = HashSet::new();
    let mut n = 0;
    for j in st.jobs().values() {
        if seen.insert(j.desc.script.as_ptr() as usize) {
            n += j.desc.script.len();
        }
        if seen.insert(j.desc.env.as_ptr() as usize) {
            n += j.desc.env.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
        }
    }
    n
}

#[test]
fn array_tasks_share_their_description_in_memory_log_and_snapshot() {
    let mut st = cluster();
    for c in commands() {
        assert!(matches!(
            st.apply(&c),
            Ok(Applied::Ok | Applied::Submitted(_) | Applied::Started(_) | Applied::Ended(_))
        ));
    }
    assert_eq!(st.jobs().len(), TASKS as usize);
    let mem = held(&st);
    let t = Instant::now();
    let snap = st.encode().unwrap();
    let took = t.elapsed();
    eprintln!(
        "{} tasks of a {} byte script: held in memory {} bytes, snapshot {} bytes (encoded in {:?})",
        TASKS,
        SCRIPT,
        mem,
        snap.len(),
        took
    );
    let one = SCRIPT + 100 * 105;
    assert!(mem < 2 * one, "the description is held once: {} bytes", mem);
    assert!(snap.len() < 2 * one, "the description is written once: snapshot of {} bytes", snap.len());
    // read back: the same state, the description shared again
    let back = State::decode(&snap).unwrap();
    assert!(back.encode().unwrap() == snap);
    assert!(held(&back) < 2 * one, "shared after decoding: {} bytes", held(&back));
    for j in back.jobs().values() {
        assert_eq!(j.desc.script.len(), array_job().desc.script.len());
        assert_eq!(j.desc.env.len(), 100);
    }

    // the Raft storage on disk: the log holds the description once (the
    // submission), the snapshot once
    let dir = std::env::temp_dir().join(format!("spur-array-share-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let mut o = raft::open(&dir, |s| s.unwrap_or_else(cluster)).unwrap();
    rt.block_on(async {
        use openraft::storage::RaftLogStorageExt;
        let es: Vec<Entry<raft::TypeConfig>> = commands()
            .into_iter()
            .enumerate()
            .map(|(i, c)| Entry {
                log_id: LogId::new(CommittedLeaderId::new(1, 1), i as u64 + 1),
                payload: EntryPayload::Normal(Batch { cmds: vec![c] }),
            })
            .collect();
        o.log.blocking_append(es.clone()).await.unwrap();
        o.sm.apply(es).await.unwrap();
        let mut b = o.sm.get_snapshot_builder().await;
        b.build_snapshot().await.unwrap();
    });
    let size = |f: &str| std::fs::metadata(dir.join(f)).unwrap().len();
    let (log, snapshot) = (size("raft.log"), size("raft.snapshot"));
    eprintln!("raft.log {} bytes, raft.snapshot {} bytes", log, snapshot);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(log < 2 * one as u64, "raft.log of {} bytes", log);
    assert!(snapshot < 2 * one as u64, "raft.snapshot of {} bytes", snapshot);
}
