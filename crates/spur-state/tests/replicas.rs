//! Two replicas fed the same random commands end in the same state, and no
//! command panics the state machine.
//!
//! Commands are drawn from every `Command` variant with the ids, names,
//! numbers and strings a confused or hostile leader could log: ids that do not
//! exist (and `u32::MAX`), nodes and partitions that do not exist, empty and
//! non-ASCII names, times and counts at the ends of their types. Replica A
//! applies them one by one; a Raft state machine on disk (`raft::open`)
//! applies them in log entries, and part way through its snapshot is built
//! and installed on a member that starts from nothing, which applies the
//! rest. Both must answer every command alike and end byte for byte equal; a
//! command that fails must leave the state exactly as it was.

use openraft::storage::{RaftSnapshotBuilder, RaftStateMachine};
use openraft::{CommittedLeaderId, Entry, EntryPayload, LogId};
use proptest::prelude::*;
use spur_core::model::*;
use spur_state::raft::{apply_batch, Batch, TypeConfig};
use spur_state::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::LazyLock;

static RT: LazyLock<tokio::runtime::Runtime> = LazyLock::new(runtime);

// ----------------------------------------------------------------------------- values

fn job_id() -> impl Strategy<Value = u32> {
    prop_oneof![8 => 0u32..14, 1 => Just(u32::MAX), 1 => Just(u32::MAX - 1), 1 => any::<u32>()]
}

fn time() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => 0i64..1_000,
        1 => Just(i64::MAX),
        1 => Just(i64::MIN),
        1 => Just(-1i64),
        1 => any::<i64>(),
    ]
}

fn count32() -> impl Strategy<Value = u32> {
    prop_oneof![6 => 0u32..4, 1 => Just(u32::MAX), 1 => Just(u32::MAX / 2 + 1), 1 => any::<u32>()]
}

fn count64() -> impl Strategy<Value = u64> {
    prop_oneof![6 => 0u64..600, 1 => Just(u64::MAX), 1 => Just(i64::MAX as u64 + 1), 1 => any::<u64>()]
}

fn node_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["n1", "n2", "n3", "n1", "n2", "", "nx", "ñ"]).prop_map(String::from)
}

fn text() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["", "a", "b", "ñé", "Not responding", "x,y", "0"]).prop_map(String::from)
}

fn opt<S: Strategy>(s: S) -> impl Strategy<Value = Option<S::Value>> {
    prop::option::weighted(0.4, s)
}

fn job_state() -> impl Strategy<Value = JobState> {
    prop::sample::select(vec![
        JobState::Pending,
        JobState::Running,
        JobState::Suspended,
        JobState::Completing,
        JobState::Completed,
        JobState::Cancelled,
        JobState::Failed,
        JobState::Timeout,
        JobState::NodeFail,
        JobState::Preempted,
        JobState::BootFail,
        JobState::Deadline,
        JobState::OutOfMemory,
    ])
}

fn reason() -> impl Strategy<Value = Reason> {
    prop_oneof![
        Just(Reason::None),
        Just(Reason::JobHeldUser),
        Just(Reason::JobHeldAdmin),
        Just(Reason::DependencyNeverSatisfied),
        Just(Reason::Resources),
        text().prop_map(Reason::Other),
    ]
}

fn gres() -> impl Strategy<Value = GresAlloc> {
    (prop::sample::select(vec!["gpu", "mps", ""]), opt(Just("a".to_string())), count64())
        .prop_map(|(n, t, c)| GresAlloc { name: n.into(), gtype: t, count: c, indexes: vec![] })
}

fn alloc() -> impl Strategy<Value = NodeAlloc> {
    (node_name(), count32(), count64(), prop::collection::vec(gres(), 0..3))
        .prop_map(|(node, cpus, mem_mb, gres)| NodeAlloc { node, cpus, mem_mb, gres })
}

fn job() -> impl Strategy<Value = Job> {
    let shape = (
        opt(prop::collection::vec(prop_oneof![0u32..5, Just(u32::MAX)], 0..4)),
        prop::sample::select(vec![0u32, 1, 1, 1, 7, u32::MAX]),
        opt(prop_oneof![0u32..100, Just(u32::MAX)]),
        opt(prop::sample::select(vec!["r1", "r2", ""]).prop_map(String::from)),
        opt(prop_oneof![-20i32..20, Just(i32::MIN), Just(i32::MAX)]),
    );
    let sizes = (count32(), count32(), count32(), opt(count32()), opt(count32()));
    let life = (
        prop_oneof![3 => Just(JobState::Pending), 1 => job_state()],
        prop::collection::vec(alloc(), 0..2),
        time(),
        opt(reason()),
    );
    (shape, sizes, life).prop_map(
        |(
            (array, priority, time_limit, request_id, nice),
            (nodes, tasks, cpus, dtasks, cpt),
            (state, allocs, t, held),
        )| Job {
            array: array.map(|t| ArrayInfo { pending_tasks: t, ..Default::default() }),
            desc: JobDesc {
                name: "wrap".into(),
                script: "#!/bin/sh\ntrue\n".into(),
                env: vec![("A".into(), "1".into())].into(),
                request_id,
                nice,
                num_tasks: dtasks,
                cpus_per_task: cpt,
                ..Default::default()
            },
            user_name: "u".into(),
            group_name: "g".into(),
            state,
            held,
            priority,
            partition: "p".into(),
            time_limit,
            submit_time: t,
            eligible_time: t,
            allocs,
            num_nodes: nodes,
            num_tasks: tasks,
            num_cpus: cpus,
            batch_flag: 1,
            ..Default::default()
        },
    )
}

fn job_update() -> impl Strategy<Value = JobUpdate> {
    let a = (
        opt(opt(prop_oneof![0u32..100, Just(u32::MAX)])),
        opt(text()),
        opt(prop::sample::select(vec!["p", "q", ""]).prop_map(String::from)),
        opt(count32()),
        opt(prop_oneof![-20i32..20, Just(i32::MIN), Just(i32::MAX)]),
        opt(text()),
        opt(time()),
        opt(count32()),
        opt(count32()),
        opt(text()),
    );
    let b = (
        opt(count32()),
        opt(count64()),
        opt(count64()),
        opt(opt(text())),
        opt(opt(text())),
        opt(opt(text())),
        opt(text()),
        opt(any::<bool>()),
        opt(text()),
        any::<bool>(),
    );
    // format version 3's keys
    let c = (
        opt(text()),
        opt(count32()),
        opt(count32()),
        opt(count32()),
        opt(count64()),
        opt(text()),
        opt(any::<bool>()),
        opt(any::<bool>()),
        opt(time()),
        any::<bool>(),
    );
    (a, b, c).prop_map(
        |(
            (time_limit, name, partition, priority, nice, comment, begin_time, num_nodes, num_tasks, dependency),
            (time_min, mem_per_node, mem_per_cpu, exc_nodes, req_nodes, features, work_dir, requeue, std_out, refused),
            (text3, min_cpus_node, cpus_per_task, num_cpus, tmp_disk, prefer, shared, contiguous, deadline, reset_nice),
        )| JobUpdate {
            admin_comment: text3.clone(),
            extra: text3.clone(),
            min_cpus_node,
            cpus_per_task,
            num_cpus,
            ntasks_per_node: min_cpus_node,
            tmp_disk,
            sockets_per_node: cpus_per_task,
            cores_per_socket: num_cpus,
            threads_per_core: min_cpus_node,
            prefer: prefer.clone(),
            reservation: prefer,
            wckey: text3.clone(),
            deadline,
            contiguous,
            shared,
            mail_type: text3.clone(),
            mail_user: text3.clone(),
            switches: text3,
            reboot: shared,
            delay_boot: num_cpus,
            reset_nice,
            // (format version 10's: varied by two of the other draws)
            by_operator: reset_nice != refused,
            // (format version 11's: a QOS name, empty, or none)
            qos: partition.clone().filter(|_| refused),
            time_limit,
            name,
            partition,
            priority,
            nice,
            comment,
            begin_time,
            num_nodes,
            num_tasks,
            dependency,
            time_min,
            mem_per_node,
            mem_per_cpu,
            exc_nodes,
            req_nodes,
            features,
            work_dir,
            requeue,
            std_out: std_out.clone(),
            std_err: std_out.clone(),
            std_in: std_out,
            refused,
            // any count, on arrays and other jobs alike
            array_throttle: num_tasks,
        },
    )
}

fn node_update() -> impl Strategy<Value = NodeUpdate> {
    let st = prop::sample::select(vec![
        "drain", "fail", "down", "resume", "undrain", "idle", "noresp", "future", "DRAIN", "Resume", "bogus", "",
    ]);
    (
        (opt(st.prop_map(String::from)), opt(text()), opt(count32()), opt(prop::collection::vec(text(), 0..3))),
        (any::<bool>(), opt(text()), opt(text()), opt(count32()), opt(text()), opt(time()), opt(text())),
    )
        .prop_map(
            |(
                (state, reason, weight, features),
                (fail_flag, comment, extra, cpu_bind, gres_text, resume_after, addr),
            )| {
                NodeUpdate {
                    state,
                    reason,
                    weight,
                    features,
                    fail_flag,
                    comment,
                    extra,
                    cpu_bind,
                    gres_text,
                    resume_after,
                    hostname: addr.clone(),
                    addr,
                }
            },
        )
}

fn part_update() -> impl Strategy<Value = PartUpdate> {
    let ps = prop::sample::select(vec![PartState::Up, PartState::Down, PartState::Drain, PartState::Inactive]);
    (
        (opt(opt(count32())), opt(opt(count32())), opt(opt(count32())), opt(count32()), opt(ps)),
        (opt(any::<bool>()), opt(any::<bool>()), opt(count32()), opt(count32()), opt(text())),
        prop::collection::vec(
            (
                (1u32..=spur_core::request::PartKey::ALL.len() as u32)
                    .prop_map(|c| spur_core::request::PartKey::from_code(c).unwrap()),
                prop_oneof![text(), Just("YES".to_string()), Just("2".to_string()), Just("n1".to_string())],
            ),
            0..3,
        ),
    )
        .prop_map(
            |(
                (max_time, default_time, max_nodes, min_nodes, state),
                (default, hidden, priority_tier, priority_job_factor, oversubscribe),
                settings,
            )| {
                PartUpdate {
                    max_time,
                    default_time,
                    max_nodes,
                    min_nodes,
                    state,
                    default,
                    hidden,
                    priority_tier,
                    priority_job_factor,
                    oversubscribe,
                    settings,
                }
            },
        )
}

fn resv() -> impl Strategy<Value = Reservation> {
    (
        prop::sample::select(vec!["r", "s", ""]),
        time(),
        time(),
        prop::collection::vec(node_name(), 0..3),
        prop::collection::vec(prop::sample::select(vec!["MAINT", "OVERLAP", "x"]).prop_map(String::from), 0..2),
    )
        .prop_map(|(name, start_time, end_time, nodes, flags)| Reservation {
            name: name.into(),
            start_time,
            end_time,
            nodes,
            flags,
            ..Default::default()
        })
}

fn node_reg() -> impl Strategy<Value = NodeReg> {
    (count32(), count64(), time(), text(), prop::collection::vec(job_id(), 0..3)).prop_map(
        |(cpus, real_memory, t, os, running_jobs)| NodeReg {
            cpus,
            real_memory,
            boot_time: t,
            start_time: t,
            os: os.clone(),
            arch: os.clone(),
            version: os,
            running_jobs,
        },
    )
}

/// Every variant, with the commands that act on jobs drawn more often.
fn command() -> impl Strategy<Value = Command> {
    let part = prop::sample::select(vec!["p", "q", ""]).prop_map(String::from);
    prop_oneof![
        6 => job().prop_map(|j| Command::Submit { job: Box::new(j) }),
        6 => (job_id(), opt(prop_oneof![0u32..5, Just(u32::MAX)]), prop::collection::vec(alloc(), 0..3), time(), time(), any::<bool>(), any::<bool>())
            .prop_map(|(job_id, task, allocs, now, pass_ms, extern_step, backfill)| Command::Start { job_id, task, allocs, now, pass_ms, extern_step, backfill }),
        1 => prop::collection::vec((job_id(), reason()), 0..3).prop_map(|changes| Command::Reasons { changes }),
        4 => (job_id(), prop::sample::select(vec![0i32, 256, 9, 15, 0x7f, 0x17f, -1, i32::MIN]), any::<bool>(), time())
            .prop_map(|(job_id, exit_status, launch_failed, now)| Command::Complete { job_id, exit_status, launch_failed, now }),
        4 => (job_id(), opt(prop_oneof![0u32..5, Just(u32::MAX)]), job_state(), time())
            .prop_map(|(job_id, task, state, now)| Command::Kill { job_id, task, state, now, uid: None }),
        2 => (job_id(), reason()).prop_map(|(job_id, reason)| Command::Hold { job_id, reason }),
        2 => job_id().prop_map(|job_id| Command::Release { job_id }),
        2 => (job_id(), any::<bool>(), time()).prop_map(|(job_id, hold, now)| Command::Requeue { job_id, hold, now }),
        3 => (job_id(), job_update()).prop_map(|(job_id, update)| Command::UpdateJob { job_id, update: Box::new(update) }),
        1 => (node_name(), node_reg(), time()).prop_map(|(name, reg, now)| Command::NodeRegistered { name, reg, now }),
        1 => (node_name(), count32(), count64(), time())
            .prop_map(|(name, cpu_load, free_mem, now)| Command::NodeHeartbeat { name, cpu_load, free_mem, now }),
        1 => (node_name(), time()).prop_map(|(name, now)| Command::NodeNotResponding { name, now }),
        1 => (node_name(), text(), count32(), time()).prop_map(|(name, reason, uid, now)| Command::NodeDown { name, reason, uid, now }),
        2 => (node_name(), node_update(), count32(), time()).prop_map(|(name, update, uid, now)| Command::NodeUpdate { name, update, uid, now }),
        2 => prop::collection::vec(job_id(), 0..4).prop_map(|job_ids| Command::Purge { job_ids }),
        1 => (prop::collection::vec(job_id(), 0..4), time()).prop_map(|(job_ids, now)| Command::Eligible { job_ids, now }),
        1 => Just(Command::ConsumeJobId),
        1 => (job_id(), time()).prop_map(|(job_id, now)| Command::CancelNeverSatisfied { job_id, now }),
        2 => (job_id(), time(), any::<bool>()).prop_map(|(job_id, now, preempted)| Command::Suspend { job_id, now, preempted }),
        2 => (job_id(), time()).prop_map(|(job_id, now)| Command::Resume { job_id, now }),
        1 => (part, part_update()).prop_map(|(name, update)| Command::PartitionUpdate { name, update }),
        1 => Just(Command::ConsumeBasicPriority),
        1 => resv().prop_map(|resv| Command::ResvCreate { resv }),
        1 => resv().prop_map(|resv| Command::ResvUpdate { resv }),
        1 => prop::sample::select(vec!["r", "s", ""]).prop_map(|n| Command::ResvDelete { name: n.into() }),
        2 => (job_id(), prop::collection::vec(prop_oneof![0u32..5, Just(u32::MAX)], 0..4), time())
            .prop_map(|(job_id, tasks, now)| Command::CancelPendingTasks { job_id, tasks, now }),
        2 => (job_id(), prop_oneof![0u32..5, Just(u32::MAX)]).prop_map(|(job_id, task)| Command::SplitPendingTask { job_id, task }),
        3 => (job_id(), step_request(), time()).prop_map(|(job_id, mut req, now)| {
            req.job_id = job_id;
            Command::StepCreate { req: Box::new(req), now }
        }),
        2 => (job_id(), prop_oneof![0u32..4, Just(u32::MAX)], proptest::option::of(0i32..0x10000), 0i64..100)
            .prop_map(|(job_id, step_id, exit_status, now)| Command::StepComplete { job_id, step_id, exit_status, now }),
        2 => (job_id(), prop_oneof![0u32..4, Just(u32::MAX)], prop::sample::select(vec!["n1", "n2", "zz", ""]), any::<u64>())
            .prop_map(|(job_id, step_id, node, rss)| {
                let usage = spur_core::usage::NodeUsage { node: node.into(), ntasks: 1, max_rss_kb: rss, tot_rss_kb: rss, ..Default::default() };
                Command::StepUsage { job_id, step_id, usage: Box::new(usage) }
            }),
        1 => prop::collection::vec(qos_record(), 0..3).prop_map(|qos| Command::QosCreate { qos }),
        1 => prop::collection::vec(qos_record(), 0..3).prop_map(|qos| Command::QosUpdate { qos }),
        1 => prop::collection::vec(prop::sample::select(vec!["normal", "q2", "Q2", ""]), 0..3)
            .prop_map(|n| Command::QosDelete { names: n.into_iter().map(String::from).collect() }),
        1 => (prop::collection::vec(account_record(), 0..3), prop::collection::vec(link_record(), 0..3))
            .prop_map(|(accounts, links)| {
                let users = links
                    .iter()
                    .map(|l| spur_core::assoc::User { name: l.user.clone(), default_account: l.account.clone() })
                    .collect();
                Command::AssocPut { accounts, users, links }
            }),
        1 => (
            prop::collection::vec(prop::sample::select(vec!["root", "a1", "a2", ""]), 0..3),
            prop::collection::vec(prop::sample::select(vec!["root", "u1", ""]), 0..2),
        )
            .prop_map(|(a, u)| Command::AssocDelete {
                accounts: a.iter().map(|s| s.to_string()).collect(),
                users: u.iter().map(|s| s.to_string()).collect(),
                links: a.iter().zip(u.iter()).map(|(a, u)| (u.to_string(), a.to_string())).collect(),
            }),
    ]
}

/// An account, its name and parent clashing with others (loops included).
fn account_record() -> impl Strategy<Value = spur_core::assoc::Account> {
    (
        prop::sample::select(vec!["root", "a1", "a2", ""]),
        prop::sample::select(vec!["root", "a1", "a2", "", "zz"]),
        any::<u32>(),
    )
        .prop_map(|(name, parent, shares)| spur_core::assoc::Account::new(name, parent, shares))
}

/// A user's association with an account that may not exist.
fn link_record() -> impl Strategy<Value = spur_core::assoc::Link> {
    (prop::sample::select(vec!["root", "u1", ""]), prop::sample::select(vec!["root", "a1", "a2", "zz"]), any::<u32>())
        .prop_map(|(user, account, shares)| spur_core::assoc::Link::new(user, account, shares))
}

/// A QOS record, ids and names clashing with others and preempting any id.
fn qos_record() -> impl Strategy<Value = spur_core::qos::Qos> {
    (
        prop_oneof![0u32..4, Just(u32::MAX)],
        prop::sample::select(vec!["normal", "q2", "Q2", ""]),
        any::<u32>(),
        prop::collection::vec(prop_oneof![0u32..4, Just(u32::MAX)], 0..3),
        opt(any::<u32>()),
    )
        .prop_map(|(id, name, priority, preempt, max_jobs_pu)| {
            let mut q = spur_core::qos::Qos::new(id, name, name);
            q.priority = priority;
            q.preempt = preempt;
            q.max_jobs_pu = max_jobs_pu;
            q
        })
}

/// A step request of any shape, sizes included that no job can hold.
fn step_request() -> impl Strategy<Value = spur_core::request::StepRequest> {
    let small = || opt(prop_oneof![0u32..6, Just(u32::MAX)]);
    let names = || opt(prop::sample::select(vec!["n1", "n2", "n1,n3", "zz", ""]).prop_map(String::from));
    (
        (small(), small(), small(), prop_oneof![0u32..4, Just(u32::MAX)], small(), names(), names(), small()),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), opt(count64()), opt(count64())),
        prop::sample::select(vec!["block", "cyclic", "plane=2", "plane=0", "arbitrary", ""]),
        (any::<bool>(), opt(prop::sample::select(vec!["r1", "r2"]).prop_map(String::from))),
    )
        .prop_map(
            |(
                (min_nodes, max_nodes, num_tasks, cpus_per_task, ntasks_per_node, node_list, exclude, relative),
                (overlap, exact, exclusive, overcommit, mem_per_node, mem_per_cpu),
                dist,
                (interactive, request_id),
            )| {
                spur_core::request::StepRequest {
                    min_nodes,
                    max_nodes,
                    num_tasks,
                    cpus_per_task,
                    ntasks_per_node,
                    node_list,
                    exclude,
                    relative,
                    overlap,
                    exact,
                    exclusive,
                    overcommit,
                    mem_per_node,
                    mem_per_cpu,
                    distribution: dist.to_string(),
                    interactive,
                    request_id,
                    ..Default::default()
                }
            },
        )
}

// ----------------------------------------------------------------------------- replicas

fn node(name: &str) -> Node {
    Node { name: name.into(), cpus: 4, real_memory: 2000, weight: 1, base: NodeBase::Idle, ..Default::default() }
}

/// A configured state: three nodes, two partitions, a job id range that is
/// sometimes small enough to run out, and sometimes a MaxJobCount.
fn initial(max_job_id: u32, max_job_count: Option<u32>, basic: bool, v22: bool) -> State {
    let part = |name: &str, default: bool| Partition {
        name: name.into(),
        nodes: vec!["n1".into(), "n2".into(), "n3".into()],
        default,
        ..Default::default()
    };
    let mut s = State::new(
        "c".into(),
        vec![node("n1"), node("n2"), node("n3")],
        vec![part("p", true), part("q", false)],
        1,
        max_job_id,
    );
    s.set_priority_basic(basic);
    s.set_max_job_count(max_job_count);
    s.set_release(if v22 { spur_core::compat::Release::V22_05 } else { spur_core::compat::Release::V24_11 });
    s
}

fn bytes(s: &State) -> Vec<u8> {
    s.encode().expect("a state encodes")
}

/// Everything a reader sees, beyond the replicated bytes: the indexes kept
/// beside the state must agree with the ones rebuilt from a snapshot.
/// The queue, its order, the job list, the view's checksum, the job count,
/// each array's records, and the unfinished records by QOS, user and
/// account.
type Reads = (Vec<u32>, Vec<u32>, Vec<u32>, u32, u64, Vec<(u32, Vec<u32>)>, Vec<(spur_state::QueueKey, u32)>);

fn reads(s: &State) -> Reads {
    let order: Vec<u32> = s.jobs_in_order().map(|j| j.job_id).collect();
    let view = bincode::serialize(&s.view(500)).expect("a view encodes");
    // each array's records through the index, against a scan of every job
    let mut arrays: Vec<(u32, Vec<u32>)> = Vec::new();
    for j in s.jobs().values() {
        if let Some(a) = &j.array {
            let scan: Vec<u32> = s
                .jobs()
                .values()
                .filter(|x| x.array.as_ref().is_some_and(|b| b.array_job_id == a.array_job_id))
                .map(|x| x.job_id)
                .collect();
            let indexed: Vec<u32> = s.array_records(a.array_job_id).map(|x| x.job_id).collect();
            assert_eq!(indexed, scan, "array {}", a.array_job_id);
            arrays.push((a.array_job_id, indexed));
        }
    }
    // the submit limits' counts as kept, against a scan of every job
    let mut counted: Vec<(spur_state::QueueKey, u32)> =
        s.queued_counts().iter().map(|(k, n)| (k.clone(), *n)).collect();
    counted.sort();
    let mut scan: std::collections::BTreeMap<spur_state::QueueKey, u32> = Default::default();
    for j in s.jobs().values().filter(|j| !j.state.is_finished()) {
        let k = (
            j.desc.qos.as_deref().unwrap_or("normal").to_ascii_lowercase(),
            j.user_id,
            j.desc.account.clone().unwrap_or_default(),
        );
        *scan.entry(k).or_default() += j.array.as_ref().map(|a| a.pending_tasks.len().max(1) as u32).unwrap_or(1);
    }
    assert_eq!(counted, scan.into_iter().collect::<Vec<_>>(), "queued counts");
    (s.queue_ids(), s.queue_in_order(), order, crc32fast::hash(&view), s.job_count(), arrays, counted)
}

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A member's state directory, removed afterwards.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let n = SEQ.fetch_add(1, Ordering::SeqCst);
        let d = std::env::temp_dir().join(format!("spur-replicas-{}-{}-{}", tag, std::process::id(), n));
        let _ = std::fs::remove_dir_all(&d);
        Dir(d)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn entry(index: u64, cmds: &[Command]) -> Entry<TypeConfig> {
    Entry {
        log_id: LogId::new(CommittedLeaderId::new(1, 1), index),
        payload: EntryPayload::Normal(Batch { cmds: cmds.to_vec() }),
    }
}

/// Replica A applies `cmds` command by command (each failure must leave it
/// unchanged). Replica B is a Raft state machine on disk that applies them in
/// entries of `batch`; after `cut` entries it builds a snapshot, which is
/// installed on C, a member that starts from nothing (a lost disk), and C
/// applies the rest. A and C must answer alike and end equal.
fn run(
    rt: &tokio::runtime::Runtime,
    init: &State,
    cmds: &[Command],
    batch: usize,
    cut: usize,
) -> Result<(), TestCaseError> {
    let (db, dc) = (Dir::new("b"), Dir::new("c"));
    rt.block_on(async {
        let mut a = init.clone();
        let mut b = raft::open(&db.0, |_| init.clone()).expect("open b").sm;
        // (a member with the same slurm.conf: its MaxJobCount is its own,
        // kept when it installs the snapshot)
        let c = raft::open(&dc.0, |_| {
            let mut s = State::default();
            s.set_max_job_count(init.max_job_count());
            s
        })
        .expect("open c");
        let (mut c, c_state) = (c.sm, c.shared);
        let chunks: Vec<&[Command]> = cmds.chunks(batch.max(1)).collect();
        let cut = cut.min(chunks.len());
        let mut index = 0u64;
        for (i, chunk) in chunks.iter().enumerate() {
            if i == cut {
                let snap = b.get_snapshot_builder().await.build_snapshot().await.expect("build");
                c.install_snapshot(&snap.meta, snap.snapshot).await.expect("install");
            }
            index += 1;
            let mut ra = Vec::new();
            for cmd in chunk.iter() {
                let before = bytes(&a);
                let r = a.apply(cmd);
                if r.is_err() {
                    prop_assert_eq!(&before, &bytes(&a), "{:?} failed with {:?} but changed the state", cmd, r);
                }
                ra.push(r);
            }
            let member = if i < cut { &mut b } else { &mut c };
            let rb = member.apply(vec![entry(index, chunk)]).await.expect("apply");
            prop_assert_eq!(&rb, &vec![ra]);
        }
        if cut == chunks.len() {
            let snap = b.get_snapshot_builder().await.build_snapshot().await.expect("build");
            c.install_snapshot(&snap.meta, snap.snapshot).await.expect("install");
        }
        // A's position in the log is set by the batch apply only
        apply_batch(&mut a, index, &Batch { cmds: vec![] });
        let c = c_state.lock().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(bytes(&a), bytes(&c.state));
        // (every record whole: an array's later records, written without
        // their description from version 3, took the right one when read)
        prop_assert_eq!(a.encode_at(2).expect("encodes"), c.state.encode_at(2).expect("encodes"));
        prop_assert_eq!(reads(&a), reads(&c.state));
        // and a state decoded afresh reads the same as the live one
        let fresh = State::decode(&bytes(&c.state)).expect("decode");
        prop_assert_eq!(reads(&fresh), reads(&c.state));
        Ok(())
    })
}

fn runtime() -> tokio::runtime::Runtime {
    // (the storage blocks in place: a multi-threaded runtime)
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("runtime")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn replicas_agree_and_nothing_panics(
        cmds in prop::collection::vec(command(), 0..80),
        batch in 1usize..5,
        cut in 0usize..20,
        max_job_id in prop::sample::select(vec![6u32, 20, 1000, u32::MAX - 1, u32::MAX]),
        max_job_count in prop::sample::select(vec![None, Some(0u32), Some(4), Some(12)]),
        basic in any::<bool>(),
        v22 in any::<bool>(),
        newest in any::<bool>(),
    ) {
        let mut init = initial(max_job_id, max_job_count, basic, v22);
        if newest {
            // a cluster at the newest format version: B's snapshot (once B
            // has applied an entry) is written at it
            init.apply(&Command::SetFormatVersion { version: spur_format::FORMAT_VERSION }).expect("set");
        }
        run(&RT, &init, &cmds, batch, cut)?;
    }
}
