//! The controller's state directories written by earlier builds
//! (`tests/fixtures/vN/state`, made by `tests/fixtures/make.sh`, see there)
//! open with this build and give back the state that build had, field by
//! field: version 0 (bincode, before versioned formats), versions 1, 2 and 3.
//! A record of a version newer than this build reads is a clear error.

use openraft::storage::{RaftLogStorage, RaftStateMachine};
use openraft::{RaftLogReader, Vote};
use spur_core::model::*;
use spur_state::raft::{self, Opened};
use spur_state::State;
use std::path::{Path, PathBuf};

fn fixture(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(version).join("state")
}

/// A private copy of a fixture directory (opening writes to it).
fn copy(version: &str, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spur-fixture-{}-{}-{}", version, tag, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for f in ["raft.log", "raft.meta", "raft.committed", "raft.snapshot"] {
        std::fs::copy(fixture(version).join(f), d.join(f)).unwrap();
    }
    d
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
}

/// Open as spurctld does at start and apply the committed log after the
/// snapshot, as openraft does before it serves.
fn recover(dir: &Path) -> (Opened, u64, usize) {
    let mut o = raft::open(dir, |s| s.expect("a state from the snapshot")).unwrap_or_else(|e| panic!("open: {}", e));
    let snap_index = o.shared.lock().unwrap().last_applied.map(|l| l.index).expect("the snapshot's last log id");
    let replayed = rt().block_on(async {
        let committed = o.log.read_committed().await.unwrap().expect("a committed index").index;
        let es = o.log.try_get_log_entries(snap_index + 1..=committed).await.unwrap();
        let n = es.len();
        o.sm.apply(es).await.unwrap();
        n
    });
    (o, snap_index, replayed)
}

fn job<'a>(st: &'a State, name: &str) -> &'a Job {
    let mut it = st.jobs().values().filter(|j| j.desc.name == name && !j.is_array_task());
    let j = it.next().unwrap_or_else(|| panic!("no job {}", name));
    j
}

/// The scenario of make.sh, as its build's own `squeue`/`scontrol show job`
/// printed it (tests/fixtures/vN/squeue.txt, show-job.txt).
fn check_scenario(st: &State) {
    check_scenario_with(st, false)
}

/// `released`: job 4 (held by its user) was released since.
fn check_scenario_with(st: &State, released: bool) {
    // version 4's scenario also has an allocation with a running step (job 11, on node2)
    let alloc = st.jobs().contains_key(&11);
    assert_eq!(st.cluster_name(), "spur");
    assert_eq!(st.next_job_id(), if alloc { 12 } else { 11 });
    let done = job(st, "done");
    assert_eq!((done.job_id, done.state, done.exit_status, &done.reason), (1, JobState::Completed, 0, &Reason::None));
    assert!(done.end_time >= done.start_time && done.start_time > 0);
    assert_eq!(done.allocs.len(), 1);
    let fail = job(st, "fail");
    assert_eq!(
        (fail.job_id, fail.state, fail.exit_status, &fail.reason),
        (2, JobState::Failed, 3 << 8, &Reason::NonZeroExitCode)
    );
    let run = job(st, "run");
    assert_eq!((run.job_id, run.state, run.time_limit, run.restart_count), (3, JobState::Running, Some(100), 0));
    assert_eq!(run.allocs[0].cpus, 1);
    assert_eq!(run.allocs[0].mem_mb, 500);
    assert_eq!(run.end_time, run.start_time + 6000);
    assert!(run.desc.script.contains("sleep 3600"), "{:?}", run.desc.script);
    assert!(run.desc.env.iter().any(|(k, v)| k == "USER" && v == "root"), "{:?}", run.desc.env);
    assert_eq!(run.desc.std_out.as_deref(), Some("/dev/null"));
    // held by its user, then updated (TimeLimit=30 Comment=fixture-comment)
    let held = job(st, "held");
    if released {
        assert_eq!((held.job_id, held.state, held.priority, &held.held), (4, JobState::Pending, 1, &None));
    } else {
        assert_eq!((held.job_id, held.state, held.priority), (4, JobState::Pending, 0));
        assert_eq!((&held.held, &held.reason), (&Some(Reason::JobHeldUser), &Reason::JobHeldUser));
    }
    assert_eq!((held.time_limit, held.desc.comment.as_deref()), (Some(30), Some("fixture-comment")));
    assert!(held.desc.hold);
    let admin = job(st, "adminheld");
    assert_eq!((admin.job_id, admin.state), (5, JobState::Pending));
    assert_eq!((&admin.held, &admin.reason), (&Some(Reason::JobHeldAdmin), &Reason::JobHeldAdmin));
    assert!(admin.desc.begin_time > admin.submit_time + 3000, "--begin now+1hour");
    let canc = job(st, "cancelled");
    assert_eq!((canc.job_id, canc.state, &canc.reason), (6, JobState::Cancelled, &Reason::JobHeldUser));
    assert!(canc.end_time > 0 && canc.end_time == canc.start_time);
    // the array: task 1 split off and running, 2-3 pending behind the %1 throttle
    let meta = job(st, "arr");
    assert_eq!((meta.job_id, meta.state, &meta.reason), (7, JobState::Pending, &Reason::JobArrayTaskLimit));
    let a = meta.array.as_ref().expect("array info");
    assert_eq!(
        (a.array_job_id, a.task_id, &a.pending_tasks[..], a.max_running, a.spec.as_str()),
        (7, None, &[2, 3][..], 1, "1-3%1")
    );
    let task = &st.jobs()[&8];
    let ta = task.array.as_ref().unwrap();
    assert_eq!(
        (task.state, ta.array_job_id, ta.task_id, task.desc.name.as_str()),
        (JobState::Running, 7, Some(1), "arr")
    );
    assert_eq!(task.display_id(), "7_1");
    assert_eq!(meta.display_id(), "7_[2-3%1]");
    // the task shares the array's description (version 3 writes it once)
    assert!(task.desc.script.contains("sleep 3600"), "{:?}", task.desc.script);
    assert!(Shared::ptr_eq(&task.desc.script, &meta.desc.script) && Shared::ptr_eq(&task.desc.env, &meta.desc.env));
    let dep = job(st, "dep");
    assert_eq!(
        (dep.job_id, dep.state, &dep.reason, dep.desc.dependency.as_deref()),
        (9, JobState::Pending, &Reason::Dependency, Some("afterok:3"))
    );
    let resv = job(st, "resv");
    assert_eq!((resv.job_id, resv.state, &resv.reason), (10, JobState::Pending, &Reason::BeginTime));
    assert_eq!(resv.desc.reservation.as_deref(), Some("fixres"));
    // the reservation itself
    assert_eq!(st.reservations().len(), 1);
    let r = &st.reservations()[0];
    assert_eq!(
        (r.name.as_str(), &r.nodes[..], &r.users[..], r.end_time - r.start_time),
        ("fixres", &["node2".to_string()][..], &["root".to_string()][..], 3600)
    );
    assert!(r.spec_nodes);
    // nodes: node2 drained with a reason, node1's weight updated, both registered
    let n1 = st.node("node1").unwrap();
    let n2 = st.node("node2").unwrap();
    assert_eq!((n1.weight, n1.base, n1.alloc_cpus, n1.alloc_mem), (5, NodeBase::Allocated, 2, 1000));
    assert_eq!((n2.flags.drain, n2.reason.as_deref(), n2.reason_uid), (true, Some("fixture drain"), 0));
    assert_eq!((n1.cpus, n1.real_memory, n2.base), (2, 2000, if alloc { NodeBase::Allocated } else { NodeBase::Idle }));
    assert!(n1.boot_time > 0 && !n1.os.is_empty());
    // the partition's MaxTime updated to 120 minutes
    let p = st.partition("debug").unwrap();
    assert_eq!(
        (p.max_time, p.default, p.state, &p.nodes[..]),
        (Some(120), true, PartState::Up, &["node1".to_string(), "node2".to_string()][..])
    );
    // squeue lists the queue in slurmctld's job list order, rebuilt or kept
    let queue: Vec<u32> = st.queue_in_order().into_iter().filter(|&id| id != 11).collect();
    assert_eq!(queue, vec![3, 4, 5, 8, 7, 9, 10]);
}

fn check_version(version: &str, format_version: u16) {
    let d = copy(version, "read");
    let (o, snap_index, replayed) = recover(&d);
    // the fixture holds a snapshot and records after it
    assert!(snap_index > 10, "snapshot at {}", snap_index);
    assert!(replayed >= 3, "{} records replayed after the snapshot", replayed);
    {
        let g = o.shared.lock().unwrap();
        check_scenario(&g.state);
        assert_eq!(g.state.format_version(), format_version);
        assert_eq!(g.state.write_format_version(), format_version.max(spur_format::MIN_VERSION));
        let members: Vec<u64> = g.membership.membership().voter_ids().collect();
        assert_eq!(members, vec![1]);
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn version_0_state_directory_reads() {
    check_version("v0", 0);
}

#[test]
fn version_1_state_directory_reads() {
    check_version("v1", 1);
}

#[test]
fn version_2_state_directory_reads() {
    check_version("v2", 2);
}

/// Version 3's snapshot writes the array's split-off task (job 8) without
/// the description it shares with the meta-record (job 7).
#[test]
fn version_3_state_directory_reads() {
    check_version("v3", 3);
    let snap = std::fs::read(fixture("v3").join("raft.snapshot")).unwrap();
    let copies = snap.windows(b"sleep 3600".len()).filter(|w| *w == b"sleep 3600").count();
    assert_eq!(copies, 2, "jobs 3 and 7: job 8's script is job 7's");
}

/// Version 4: an allocation without a script (salloc --no-shell) and its
/// running srun step.
#[test]
fn version_4_state_directory_reads() {
    check_version("v4", 4);
    check_steps("v4");
}

/// The fixture's allocation without a script and its running step.
fn check_steps(version: &str) {
    let d = copy(version, "steps");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let a = &g.state.jobs()[&11];
    assert_eq!(
        (a.desc.name.as_str(), a.state, a.batch_flag, a.desc.script.is_empty()),
        ("alloc", JobState::Running, 0, true)
    );
    assert_eq!((a.steps.len(), a.next_step_id), (1, 1));
    let s = &a.steps[0];
    assert_eq!(
        (s.step_id, s.name.as_str(), s.num_tasks, s.node_names(), s.tasks_per_node.clone(), s.task_ids.clone()),
        (0, "step", 1, vec!["node2".to_string()], vec![1], vec![vec![0]])
    );
    assert!(s.start_time >= a.start_time && s.srun_pid > 0 && !s.srun_host.is_empty());
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 5: the allocation's ended step (11.1) kept with its node's use,
/// beside its running one, and a batch script's use in its job's record.
#[test]
fn version_5_state_directory_reads() {
    check_version("v5", 5);
    let d = copy("v5", "usage");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let a = &g.state.jobs()[&11];
    assert_eq!((a.steps.len(), a.done_steps.len(), a.next_step_id), (1, 1, 2));
    assert_eq!((a.steps[0].step_id, a.steps[0].usage.len()), (0, 0));
    let s = &a.done_steps[0];
    assert_eq!((s.step_id, s.name.as_str(), s.overlap), (1, "ended", true));
    assert_eq!(s.exit_status, Some(0));
    assert!(s.end_time >= s.start_time && s.start_time > 0, "{:?}", s);
    assert_eq!(s.usage.len(), 1, "{:?}", s.usage);
    let u = &s.usage[0];
    assert_eq!((u.node.as_str(), u.ntasks, u.max_rss_task), ("node2", 1, 0));
    assert!(u.max_rss_kb > 0 && u.tot_rss_kb == u.max_rss_kb, "{:?}", u);
    // a finished batch job's script use, its batch step's
    let done = &g.state.jobs()[&1];
    let b = done.batch_usage.as_ref().expect("job 1's batch usage");
    assert_eq!((b.node.as_str(), b.ntasks), ("node1", 1), "{:?}", b);
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 6: the steps' reserved ports (`MpiParams=ports=12000-12099`):
/// the running step's, and the ended step's, taken beside it.
#[test]
fn version_6_state_directory_reads() {
    check_version("v6", 6);
    let d = copy("v6", "ports");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let a = &g.state.jobs()[&11];
    assert_eq!((a.steps.len(), a.done_steps.len()), (1, 1));
    assert_eq!(a.steps[0].resv_ports, "12000-12001");
    assert_eq!(a.done_steps[0].resv_ports, "12002-12003");
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 7: who cancelled a job (sacct's `CANCELLED by UID`) and each
/// job's submission line (`SubmitLine`).
#[test]
fn version_7_state_directory_reads() {
    check_version("v7", 7);
    let d = copy("v7", "acct");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let cancelled = g.state.jobs().values().find(|j| j.desc.name == "cancelled").expect("the cancelled job");
    assert_eq!(cancelled.cancelled_by, Some(0));
    assert!(
        cancelled.desc.submit_line.starts_with("sbatch --parsable -o /dev/null -J cancelled --hold --wrap"),
        "{}",
        cancelled.desc.submit_line
    );
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 8: a job records whether the backfill scheduler started it
/// (none of the scenario's: they start at once, `Scheduler=Main`).
#[test]
fn version_8_state_directory_reads() {
    check_version("v8", 8);
    let d = copy("v8", "backfill");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let started: Vec<&Job> = g.state.jobs().values().filter(|j| j.start_time > 0).collect();
    assert!(started.len() >= 4, "{}", started.len());
    assert!(started.iter().all(|j| !j.sched_backfill));
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 9: a job records whether preemption suspended it (none of the
/// scenario's: no preemption there).
#[test]
fn version_9_state_directory_reads() {
    check_version("v9", 9);
    let d = copy("v9", "preempt-suspend");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let started: Vec<&Job> = g.state.jobs().values().filter(|j| j.start_time > 0).collect();
    assert!(started.len() >= 4, "{}", started.len());
    assert!(g.state.jobs().values().all(|j| !j.preempt_suspended));
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 10: the dependent job's priority, set by an operator, stays
/// (its record's `desc.priority`, as `sbatch --priority` keeps one).
#[test]
fn version_10_state_directory_reads() {
    check_version("v10", 10);
    let d = copy("v10", "direct-priority");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let dep = g.state.jobs().values().find(|j| j.desc.name == "dep").expect("the dependent job");
    assert_eq!((dep.priority, dep.desc.priority), (77, Some(77)));
    assert!(g.state.jobs().values().filter(|j| j.desc.name != "dep").all(|j| j.desc.priority.is_none()));
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 11: the cluster kept accounting, and a QOS record added with
/// sacctmgr (`fixqos`: Priority=5, Preempt=normal, MaxJobsPerUser=4)
/// comes back beside `normal`; the jobs run in `normal`, which they did not
/// name.
#[test]
fn version_11_state_directory_reads() {
    check_version("v11", 11);
    let d = copy("v11", "qos");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let qos = g.state.qos();
    assert_eq!(qos.iter().map(|q| (q.id, q.name.as_str())).collect::<Vec<_>>(), [(1, "normal"), (2, "fixqos")]);
    let f = &qos[1];
    assert_eq!((f.priority, f.preempt.clone(), f.max_jobs_pu), (5, vec![1], Some(4)));
    // (a job that names none runs in `normal` and keeps that it named none)
    assert!(g.state.jobs().values().all(|j| j.desc.qos.is_none() && j.desc.qos_shown(true) == Some("normal")));
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 12: the cluster keeps accounts, users and associations: the
/// account `fixacct` (Fairshare=2, QOS fixqos and normal, default fixqos)
/// added with sacctmgr, below `root`, and root's association with it (QOS
/// fixqos), come back beside root's own (the jobs that ended ran less than a
/// second: nothing was charged).
#[test]
fn version_12_state_directory_reads() {
    check_version("v12", 12);
    let d = copy("v12", "assoc");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let a = g.state.assocs();
    let accts: Vec<(u32, &str, &str, u32)> =
        a.accounts.iter().map(|x| (x.id, x.name.as_str(), x.parent.as_str(), x.shares)).collect();
    assert_eq!(accts, [(1, "root", "", 1), (3, "fixacct", "root", 2)]);
    let links: Vec<(u32, &str, &str)> = a.links.iter().map(|l| (l.id, l.user.as_str(), l.account.as_str())).collect();
    assert_eq!(links, [(2, "root", "root"), (4, "root", "fixacct")]);
    assert_eq!(a.default_account("root"), Some("root"));
    assert!(a.links.iter().all(|l| l.usage == 0.0));
    let fix = a.account("fixacct").unwrap();
    assert_eq!((fix.qos.join(","), fix.def_qos.as_deref()), ("fixqos,normal".into(), Some("fixqos")));
    assert_eq!(a.links[1].qos, ["fixqos"]);
    assert_eq!(a.links[0].qos, Vec::<String>::new());
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// Version 13: an association's limits and priority (`fixacct`: MaxJobs=3,
/// GrpTRES=cpu=8, Priority=2) come back, and root's association below it
/// gets the ones passed down.
#[test]
fn version_13_state_directory_reads() {
    check_version("v13", 13);
    let d = copy("v13", "assoc-limits");
    let (o, _, _) = recover(&d);
    let g = o.shared.lock().unwrap();
    let a = g.state.assocs();
    let fix = a.account("fixacct").unwrap();
    assert_eq!((fix.limits.max_jobs, fix.limits.priority), (Some(3), Some(2)));
    assert_eq!(fix.limits.tres_count("GrpTRES", "cpu"), Some(8));
    let root_link = a.link("root", "fixacct").unwrap();
    assert!(root_link.limits.is_empty());
    let eff = a.link_limits(root_link);
    assert_eq!((eff.max_jobs, eff.priority, eff.tres_count("GrpTRES", "cpu")), (Some(3), Some(2), None));
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// The new code keeps using an old directory: appends to the old log, saves
/// its vote and a snapshot in the current format, and reads it all back.
#[test]
fn version_0_directory_is_written_in_the_current_format_and_reads_back() {
    let d = copy("v0", "write");
    let (mut o, _, _) = recover(&d);
    let before = o.shared.lock().unwrap().state.clone();
    let last = rt().block_on(async {
        use openraft::storage::RaftLogStorageExt;
        let last = o.log.get_log_state().await.unwrap().last_log_id.unwrap();
        let next = openraft::Entry {
            log_id: openraft::LogId::new(openraft::CommittedLeaderId::new(last.leader_id.term + 1, 1), last.index + 1),
            payload: openraft::EntryPayload::Normal(raft::Batch {
                cmds: vec![spur_state::Command::Release { job_id: 4 }],
            }),
        };
        o.log.blocking_append(vec![next]).await.unwrap();
        o.log.save_vote(&Vote::new(last.leader_id.term + 1, 1)).await.unwrap();
        o.log
            .save_committed(Some(openraft::LogId::new(
                openraft::CommittedLeaderId::new(last.leader_id.term + 1, 1),
                last.index + 1,
            )))
            .await
            .unwrap();
        last.index + 1
    });
    drop(o);
    // the log now holds version-0 records followed by one of the current version
    let log = std::fs::read(d.join("raft.log")).unwrap();
    assert!(log.windows(4).any(|w| w == spur_format::MAGIC));
    assert!(spur_format::is_enveloped(&std::fs::read(d.join("raft.meta")).unwrap()[4..]));
    let (o, _, _) = recover(&d);
    {
        let g = o.shared.lock().unwrap();
        assert_eq!(g.last_applied.map(|l| l.index), Some(last));
        let held = &g.state.jobs()[&4];
        assert_eq!((held.held.clone(), held.priority), (None, 1));
        assert_eq!(g.state.jobs().len(), before.jobs().len());
    }
    // a snapshot of it, in the current format, reads back whole
    rt().block_on(async {
        let mut o = o;
        let mut b = o.sm.get_snapshot_builder().await;
        openraft::RaftSnapshotBuilder::build_snapshot(&mut b).await.unwrap();
    });
    let snap = std::fs::read(d.join("raft.snapshot")).unwrap();
    assert!(spur_format::is_enveloped(&snap[20..]));
    let o = raft::open(&d, |s| s.expect("state")).unwrap();
    let g = o.shared.lock().unwrap();
    check_scenario_with(&g.state, true);
    drop(g);
    let _ = std::fs::remove_dir_all(&d);
}

/// A file written by a newer build: the error names the file and both versions.
#[test]
fn a_newer_format_version_is_refused_naming_the_file() {
    let d = copy("v0", "newer");
    {
        let mut o = raft::open(&d, |s| s.unwrap_or_default()).unwrap();
        rt().block_on(o.log.save_vote(&Vote::new(9, 1))).unwrap();
    }
    let p = d.join("raft.meta");
    let mut b = std::fs::read(&p).unwrap();
    // [crc32][magic kind version ...]
    assert!(spur_format::is_enveloped(&b[4..]));
    let newer = spur_format::FORMAT_VERSION + 1;
    b[9..11].copy_from_slice(&newer.to_le_bytes());
    let crc = crc32fast::hash(&b[4..]);
    b[..4].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&p, &b).unwrap();
    let e = match raft::open(&d, |s| s.unwrap_or_default()) {
        Err(e) => e,
        Ok(_) => panic!("a newer raft.meta was read"),
    };
    assert_eq!(
        e,
        format!(
            "{}: raft meta is in format version {}, newer than this build of spur reads (versions {} to {}): upgrade spur",
            p.display(),
            newer,
            spur_format::MIN_VERSION,
            spur_format::FORMAT_VERSION
        )
    );
    let _ = std::fs::remove_dir_all(&d);
}
