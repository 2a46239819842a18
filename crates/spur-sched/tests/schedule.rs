//! The scheduler through its public API: what one pass decides for a given
//! queue and cluster, rule by rule, as Slurm decides it (slurmctld's builtin
//! order, select/cons_tres's node choice with the default topology).

use spur_core::model::{ArrayInfo, Job, JobDesc, JobState, Node, NodeBase, PartState, Partition, Reason, Reservation};
use spur_sched::backfill::BackfillParams;
use spur_sched::{
    schedule, schedule_depth, schedule_pass, schedule_resv, schedule_with, Decision, Params, PreemptMode,
    DEFAULT_QUEUE_DEPTH,
};

const NOW: i64 = 1_000_000;

/// An idle node: `cpus` CPUs, 500 MB per CPU, weight 1.
fn node(name: &str, cpus: u32) -> Node {
    Node {
        name: name.into(),
        cpus,
        boards: 1,
        sockets: 1,
        cores_per_socket: cpus,
        threads_per_core: 1,
        real_memory: 500 * cpus as u64,
        weight: 1,
        base: NodeBase::Idle,
        ..Default::default()
    }
}

/// `node` with `used` CPUs (and their memory) given to running jobs.
fn busy(name: &str, cpus: u32, used: u32) -> Node {
    Node { alloc_cpus: used, alloc_mem: 500 * used as u64, base: NodeBase::Allocated, ..node(name, cpus) }
}

fn part(name: &str, nodes: &[&Node]) -> Partition {
    Partition {
        name: name.into(),
        nodes: nodes.iter().map(|n| n.name.clone()).collect(),
        priority_tier: 1,
        priority_job_factor: 1,
        ..Default::default()
    }
}

/// A pending one-CPU job in partition `p`, submitted at second `id`, eligible.
fn job(id: u32) -> Job {
    Job {
        job_id: id,
        desc: JobDesc { name: format!("j{}", id), ..Default::default() },
        user_name: "u".into(),
        state: JobState::Pending,
        priority: 1,
        partition: "p".into(),
        submit_time: id as i64,
        eligible_time: id as i64,
        num_nodes: 1,
        num_tasks: 1,
        num_cpus: 1,
        batch_flag: 1,
        ..Default::default()
    }
}

/// A job of `tasks` one-CPU tasks on exactly `nodes` nodes (`-N nodes -n tasks`).
fn wide(id: u32, nodes: u32, tasks: u32) -> Job {
    let mut j = job(id);
    j.desc.min_nodes = Some(nodes);
    j.num_nodes = nodes;
    j.num_tasks = tasks;
    j.num_cpus = tasks;
    j
}

fn running(mut j: Job) -> Job {
    j.state = JobState::Running;
    j
}

fn finished(mut j: Job, state: JobState) -> Job {
    j.state = state;
    j
}

fn pass(jobs: &[&Job], nodes: &[&Node], parts: &[&Partition]) -> Vec<Decision> {
    schedule(NOW, jobs, nodes, parts)
}

/// The starts of a pass: (job, task, nodes) in decision order.
fn starts(d: &[Decision]) -> Vec<(u32, Option<u32>, Vec<String>)> {
    d.iter()
        .filter_map(|x| match x {
            Decision::Start { job_id, task, allocs, .. } => {
                Some((*job_id, *task, allocs.iter().map(|a| a.node.clone()).collect()))
            }
            _ => None,
        })
        .collect()
}

fn started(d: &[Decision]) -> Vec<u32> {
    starts(d).into_iter().map(|s| s.0).collect()
}

/// Where job `id` starts (its nodes), if it does.
fn nodes_of(d: &[Decision], id: u32) -> Option<Vec<String>> {
    starts(d).into_iter().find(|s| s.0 == id).map(|s| s.2)
}

fn reason(d: &[Decision], id: u32) -> Option<Reason> {
    d.iter().find_map(|x| match x {
        Decision::Reason { job_id, reason } if *job_id == id => Some(reason.clone()),
        _ => None,
    })
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

// ------------------------------------------------------------------ priority order

#[test]
fn the_higher_priority_job_gets_the_last_cpu() {
    let n = busy("n1", 2, 1);
    let p = part("p", &[&n]);
    let low = Job { priority: 10, ..job(1) };
    let high = Job { priority: 20, ..job(2) };
    let d = pass(&[&low, &high], &[&n], &[&p]);
    assert_eq!(started(&d), [2]);
    // the first job that cannot start waits for resources
    assert_eq!(reason(&d, 1), Some(Reason::Resources));
}

#[test]
fn equal_priorities_go_by_submit_time_then_id() {
    let n = busy("n1", 3, 1);
    let p = part("p", &[&n]);
    let a = Job { submit_time: 50, ..job(1) };
    let b = Job { submit_time: 40, ..job(2) };
    let c = Job { submit_time: 40, ..job(3) };
    let d = pass(&[&a, &c, &b], &[&n], &[&p]);
    assert_eq!(started(&d), [2, 3]);
    assert_eq!(reason(&d, 1), Some(Reason::Resources));
}

#[test]
fn a_higher_priority_tier_goes_first_whatever_the_job_priority() {
    let n = busy("n1", 2, 1);
    let low = Partition { priority_tier: 1, ..part("low", &[&n]) };
    let high = Partition { priority_tier: 5, ..part("high", &[&n]) };
    let a = Job { priority: 1000, partition: "low".into(), ..job(1) };
    let b = Job { priority: 1, partition: "high".into(), ..job(2) };
    let d = pass(&[&a, &b], &[&n], &[&low, &high]);
    assert_eq!(started(&d), [2]);
}

#[test]
fn a_blocked_job_holds_back_its_partition_only() {
    // n1 is in both partitions; n2 only in `other`
    let n1 = busy("n1", 2, 1);
    let n2 = node("n2", 2);
    let p = part("p", &[&n1]);
    let other = part("other", &[&n1, &n2]);
    let big = Job { priority: 30, ..wide(1, 1, 2) };
    let small = Job { priority: 20, ..job(2) };
    let elsewhere = Job { priority: 10, partition: "other".into(), ..job(3) };
    let d = pass(&[&big, &small, &elsewhere], &[&n1, &n2], &[&p, &other]);
    // the small job would fit on n1, but the bigger one before it waits there
    assert_eq!(reason(&d, 1), Some(Reason::Resources));
    assert_eq!(reason(&d, 2), Some(Reason::Priority));
    assert!(nodes_of(&d, 2).is_none());
    // another partition is not held back
    assert_eq!(nodes_of(&d, 3), Some(names(&["n1"])));
}

#[test]
fn a_reason_already_set_is_not_decided_again() {
    let n = busy("n1", 1, 1);
    let p = part("p", &[&n]);
    let j = Job { reason: Reason::Resources, ..job(1) };
    assert!(pass(&[&j], &[&n], &[&p]).is_empty());
}

// ------------------------------------------------------------------ node choice (cons_tres)

#[test]
fn lower_weight_nodes_are_taken_first() {
    let heavy = Node { weight: 10, ..node("n1", 2) };
    let light = Node { weight: 1, ..node("n2", 2) };
    let p = part("p", &[&heavy, &light]);
    let d = pass(&[&job(1)], &[&heavy, &light], &[&p]);
    assert_eq!(nodes_of(&d, 1), Some(names(&["n2"])));
    // and a job wider than the light nodes spills onto the heavy ones
    let d = pass(&[&wide(2, 2, 2)], &[&heavy, &light], &[&p]);
    assert_eq!(nodes_of(&d, 2), Some(names(&["n1", "n2"])));
}

#[test]
fn a_one_node_job_takes_the_node_with_fewest_free_cpus_that_fit() {
    // recorded/24.11/basic/106: a one-CPU job goes to the half-used node3,
    // not to the idle node1
    let ns = [node("node1", 2), busy("node2", 2, 2), busy("node3", 2, 1), busy("node4", 2, 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let d = pass(&[&job(10)], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 10), Some(names(&["node3"])));
    // a two-CPU job does not fit there: the idle node
    let d = pass(&[&wide(11, 1, 2)], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 11), Some(names(&["node1"])));
}

#[test]
fn jobs_of_one_pass_fill_nodes_as_the_basic_recording_shows() {
    // recorded/24.11/basic: jobs 1 and 2 share node1, -N2 gets node[2-3],
    // then the array tasks go to node2, node3 and node4
    let ns: Vec<Node> = (1..=4).map(|i| node(&format!("node{}", i), 2)).collect();
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let arr = Job {
        array: Some(ArrayInfo {
            array_job_id: 6,
            task_id: None,
            pending_tasks: vec![1, 2, 3],
            max_running: 0,
            spec: "1-3".into(),
        }),
        ..job(6)
    };
    let (j1, j2, j4) = (job(1), job(2), wide(4, 2, 2));
    let d = pass(&[&j1, &j2, &j4, &arr], &nr, &[&p]);
    assert_eq!(
        starts(&d),
        [
            (1, None, names(&["node1"])),
            (2, None, names(&["node1"])),
            (4, None, names(&["node2", "node3"])),
            (6, Some(1), names(&["node2"])),
            (6, Some(2), names(&["node3"])),
            (6, Some(3), names(&["node4"])),
        ]
    );
}

#[test]
fn a_multi_node_job_takes_the_tightest_run_of_consecutive_nodes() {
    // two runs of idle nodes split by a drained one: the smaller run that
    // is large enough wins, wherever it is
    let drained = |n: &str| {
        let mut x = node(n, 2);
        x.flags.drain = true;
        x
    };
    let ns = [node("n1", 2), node("n2", 2), node("n3", 2), drained("n4"), node("n5", 2), node("n6", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let d = pass(&[&wide(1, 2, 2)], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 1), Some(names(&["n5", "n6"])));
    // a run too small is passed over
    let ns = [node("n1", 2), drained("n2"), node("n3", 2), node("n4", 2), node("n5", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let d = pass(&[&wide(2, 2, 2)], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 2), Some(names(&["n3", "n4"])));
}

#[test]
fn memory_gres_and_exclusivity_rule_nodes_out() {
    // n1 has the CPUs but not the memory
    let n1 = Node { real_memory: 100, ..node("n1", 4) };
    let n2 = node("n2", 4);
    let p = part("p", &[&n1, &n2]);
    let hungry = Job { mem_per_cpu: 500, ..job(1) };
    assert_eq!(nodes_of(&pass(&[&hungry], &[&n1, &n2], &[&p]), 1), Some(names(&["n2"])));
    // only n2 has a GPU
    let g = Node { gres: vec![("gpu".into(), None, 1)], ..node("n2", 4) };
    let p = part("p", &[&n1, &g]);
    let mut gpu = job(2);
    gpu.desc.gres = Some("gpu:1".into());
    let d = pass(&[&gpu], &[&n1, &g], &[&p]);
    assert_eq!(nodes_of(&d, 2), Some(names(&["n2"])));
    assert_eq!(starts(&d)[0].2.len(), 1);
    // a GPU in use is not free
    let used = Node { alloc_gres: vec![("gpu".into(), None, 1)], ..g.clone() };
    let d = pass(&[&gpu], &[&n1, &used], &[&p]);
    assert_eq!(reason(&d, 2), Some(Reason::Resources));
    // --exclusive: only a node nobody uses, and all of its CPUs
    let half = busy("n1", 4, 1);
    let p = part("p", &[&half, &n2]);
    let mut excl = job(3);
    excl.desc.exclusive = true;
    let d = pass(&[&excl], &[&half, &n2], &[&p]);
    assert_eq!(nodes_of(&d, 3), Some(names(&["n2"])));
    let Decision::Start { allocs, .. } = &d[0] else { panic!("{:?}", d) };
    assert_eq!(allocs[0].cpus, 4);
}

#[test]
fn nodelist_exclude_and_unusable_nodes() {
    let ns = [node("n1", 2), node("n2", 2), node("n3", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let mut want = job(1);
    want.desc.req_nodes = Some("n3".into());
    assert_eq!(nodes_of(&pass(&[&want], &nr, &[&p]), 1), Some(names(&["n3"])));
    let mut avoid = job(2);
    avoid.desc.exc_nodes = Some("n[1-2]".into());
    assert_eq!(nodes_of(&pass(&[&avoid], &nr, &[&p]), 2), Some(names(&["n3"])));
    // a down or not-responding node is never chosen
    let mut down = node("n1", 2);
    down.base = NodeBase::Down;
    let mut silent = node("n2", 2);
    silent.flags.not_responding = true;
    let nr = [&down, &silent, &ns[2]];
    assert_eq!(nodes_of(&pass(&[&job(3)], &nr, &[&p]), 3), Some(names(&["n3"])));
}

#[test]
fn an_oversized_node_list_is_not_expanded_and_holds_back_no_one() {
    // lists the controller now refuses, still in an old log: sixty ranges of
    // 64K names, or a bad range; the job waits (BadConstraints), the next runs
    let ns = [node("n1", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let huge = vec!["n[0-65535]"; 60].join(",");
    let mut exc = job(1);
    exc.desc.exc_nodes = Some(huge.clone());
    let mut req = job(2);
    req.desc.req_nodes = Some(huge);
    let mut bad = job(3);
    bad.desc.req_nodes = Some("n[0000000000-9999999999]".into());
    let d = pass(&[&exc, &req, &bad, &job(4)], &nr, &[&p]);
    for id in [1, 2, 3] {
        assert_eq!(reason(&d, id), Some(Reason::BadConstraints), "job {id}");
    }
    assert_eq!(nodes_of(&d, 4), Some(names(&["n1"])));
}

// ------------------------------------------------------------------ holds, begin times, partitions

#[test]
fn held_and_future_jobs_wait_with_their_reason() {
    let n = node("n1", 4);
    let p = part("p", &[&n]);
    let held = Job { held: Some(Reason::JobHeldUser), ..job(1) };
    let admin = Job { held: Some(Reason::JobHeldAdmin), ..job(2) };
    let mut later = job(3);
    later.desc.begin_time = NOW + 60;
    let mut now = job(4);
    now.desc.begin_time = NOW;
    let run = Job { state: JobState::Running, ..job(5) };
    // waiting on a running job and on its begin time: Dependency first, as
    // slurmctld's job_independent tests them; once the dependency is met, BeginTime
    let mut both = job(6);
    both.desc.begin_time = NOW + 60;
    both.desc.dependency = Some("afterok:5".into());
    let mut met = both.clone();
    met.job_id = 7;
    let done = Job { state: JobState::Completed, ..job(8) };
    met.desc.dependency = Some("afterany:8".into());
    let d = pass(&[&held, &admin, &later, &now, &run, &both, &met, &done], &[&n], &[&p]);
    assert_eq!(reason(&d, 1), Some(Reason::JobHeldUser));
    assert_eq!(reason(&d, 2), Some(Reason::JobHeldAdmin));
    assert_eq!(reason(&d, 3), Some(Reason::BeginTime));
    assert_eq!(reason(&d, 6), Some(Reason::Dependency));
    assert_eq!(reason(&d, 7), Some(Reason::BeginTime));
    assert_eq!(started(&d), [4], "a begin time that has come does not hold a job back");
}

#[test]
fn a_job_becoming_eligible_is_said_so_once() {
    let n = node("n1", 1);
    let p = part("p", &[&n]);
    let fresh = Job { eligible_time: 0, ..job(1) };
    let d = pass(&[&fresh], &[&n], &[&p]);
    assert_eq!(d[0], Decision::Eligible { job_id: 1 });
    assert_eq!(started(&d), [1]);
    // already eligible: no second decision
    assert!(!pass(&[&job(2)], &[&n], &[&p]).contains(&Decision::Eligible { job_id: 2 }));
}

#[test]
fn partition_limits_and_states() {
    let ns = [node("n1", 2), node("n2", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let limited = Partition { max_time: Some(60), max_nodes: Some(1), ..part("p", &nr) };
    let long = Job { time_limit: Some(61), ..job(1) };
    let fine = Job { time_limit: Some(60), ..job(2) };
    let d = pass(&[&long, &fine], &nr, &[&limited]);
    assert_eq!(reason(&d, 1), Some(Reason::PartitionTimeLimit));
    assert_eq!(started(&d), [2]);
    let d = pass(&[&wide(3, 2, 2)], &nr, &[&limited]);
    assert_eq!(reason(&d, 3), Some(Reason::PartitionNodeLimit));
    let d = pass(&[&wide(4, 3, 3)], &nr, &[&part("p", &nr)]);
    assert_eq!(reason(&d, 4), Some(Reason::PartitionNodeLimit), "more nodes than the partition has");
    for (state, why) in [(PartState::Down, Reason::PartitionDown), (PartState::Inactive, Reason::PartitionInactive)] {
        let p = Partition { state, ..part("p", &nr) };
        let d = pass(&[&job(5)], &nr, &[&p]);
        assert_eq!((started(&d), reason(&d, 5)), (vec![], Some(why)));
    }
}

// ------------------------------------------------------------------ dependencies

fn dep(id: u32, on: &str) -> Job {
    let mut j = job(id);
    j.desc.dependency = Some(on.into());
    j
}

#[test]
fn dependencies_wait_start_or_can_never_be_satisfied() {
    let n = node("n1", 8);
    let p = part("p", &[&n]);
    let run = running(job(1));
    let ok = finished(job(2), JobState::Completed);
    let failed = finished(job(3), JobState::Failed);
    let cases: &[(&str, Option<Reason>)] = &[
        ("afterok:1", Some(Reason::Dependency)),
        ("afterany:1", Some(Reason::Dependency)),
        ("after:1", None), // after: once it has started
        ("afterok:2", None),
        ("afterok:3", Some(Reason::DependencyNeverSatisfied)),
        ("afternotok:2", Some(Reason::DependencyNeverSatisfied)),
        ("afternotok:3", None),
        ("afterany:3", None),
        ("afterok:2:3", Some(Reason::DependencyNeverSatisfied)),
        ("afterok:2,afterany:3", None),
        // `?`: any one term is enough
        ("afterok:3?afterok:2", None),
        ("afterok:3?afterok:1", Some(Reason::Dependency)),
        // a job no longer known (purged) counts as done
        ("afterok:99", None),
    ];
    for (i, (on, want)) in cases.iter().enumerate() {
        let id = 100 + i as u32;
        let j = dep(id, on);
        let d = pass(&[&run, &ok, &failed, &j], &[&n], &[&p]);
        assert_eq!(reason(&d, id), *want, "--dependency={}", on);
        assert_eq!(started(&d).contains(&id), want.is_none(), "--dependency={}", on);
    }
}

#[test]
fn singleton_waits_for_the_same_users_job_of_that_name() {
    let n = node("n1", 8);
    let p = part("p", &[&n]);
    let mut other = running(job(1));
    other.desc.name = "same".into();
    let mut single = dep(2, "singleton");
    single.desc.name = "same".into();
    assert_eq!(reason(&pass(&[&other, &single], &[&n], &[&p]), 2), Some(Reason::Dependency));
    // another user's job of that name does not count
    other.user_id = 7;
    assert_eq!(started(&pass(&[&other, &single], &[&n], &[&p])), [2]);
    // nor does a finished one
    other.user_id = 0;
    other.state = JobState::Completed;
    assert_eq!(started(&pass(&[&other, &single], &[&n], &[&p])), [2]);
}

#[test]
fn a_dependency_on_a_finished_job_is_found_through_the_lookup() {
    // the controller hands a pass only the unfinished jobs, and a lookup for
    // the ones dependencies name
    let n = node("n1", 2);
    let p = part("p", &[&n]);
    let done = finished(job(1), JobState::Failed);
    let j = dep(2, "afterok:1");
    let lookup = |id: u32| if id == 1 { Some(&done) } else { None };
    let (d, _) = schedule_with(NOW, &[&j], &lookup, &[&n], &[&p], &[], usize::MAX);
    assert_eq!(reason(&d, 2), Some(Reason::DependencyNeverSatisfied));
}

#[test]
fn kill_on_invalid_dep_cancels_only_when_asked() {
    let n = node("n1", 2);
    let p = part("p", &[&n]);
    let failed = finished(job(1), JobState::Failed);
    let mut kill = dep(2, "afterok:1");
    kill.desc.kill_on_invalid_dependency = Some(true);
    let stay = dep(3, "afterok:1");
    let d = pass(&[&failed, &kill, &stay], &[&n], &[&p]);
    assert!(d.contains(&Decision::CancelNeverSatisfied { job_id: 2 }));
    assert!(!d.contains(&Decision::CancelNeverSatisfied { job_id: 3 }));
}

// ------------------------------------------------------------------ arrays

fn array(id: u32, tasks: &[u32], max_running: u32) -> Job {
    Job {
        array: Some(ArrayInfo {
            array_job_id: id,
            task_id: None,
            pending_tasks: tasks.to_vec(),
            max_running,
            spec: String::new(),
        }),
        ..job(id)
    }
}

fn task(array_id: u32, id: u32, t: u32) -> Job {
    let mut j = running(job(id));
    j.array = Some(ArrayInfo {
        array_job_id: array_id,
        task_id: Some(t),
        pending_tasks: vec![],
        max_running: 0,
        spec: String::new(),
    });
    j
}

#[test]
fn array_tasks_start_in_order_up_to_the_throttle() {
    let n = node("n1", 8);
    let p = part("p", &[&n]);
    let a = array(5, &[1, 2, 3, 4, 5], 2);
    let d = pass(&[&a], &[&n], &[&p]);
    assert_eq!(starts(&d).iter().map(|s| s.1).collect::<Vec<_>>(), [Some(1), Some(2)]);
    // one task already running: one more may start
    let a = array(5, &[2, 3, 4, 5], 2);
    let t1 = task(5, 6, 1);
    let d = pass(&[&a, &t1], &[&n], &[&p]);
    assert_eq!(starts(&d).iter().map(|s| s.1).collect::<Vec<_>>(), [Some(2)]);
    // at the limit: the rest wait with Slurm's reason
    let t2 = task(5, 7, 2);
    let a = array(5, &[3, 4, 5], 2);
    let d = pass(&[&a, &t1, &t2], &[&n], &[&p]);
    assert!(started(&d).is_empty());
    assert_eq!(reason(&d, 5), Some(Reason::JobArrayTaskLimit));
    // no throttle: as many as fit
    let a = array(5, &[1, 2, 3], 0);
    let small = node("n1", 2);
    let p = part("p", &[&small]);
    let d = pass(&[&a], &[&small], &[&p]);
    assert_eq!(starts(&d).iter().map(|s| s.1).collect::<Vec<_>>(), [Some(1), Some(2)]);
    assert_eq!(reason(&d, 5), None, "some tasks started: the reason stays");
}

// ------------------------------------------------------------------ reservations

fn resv(name: &str, nodes: &[&str], start: i64, flags: &[&str]) -> Reservation {
    Reservation {
        name: name.into(),
        start_time: start,
        end_time: start + 3600,
        nodes: names(nodes),
        users: vec!["u".into()],
        flags: names(flags),
        ..Default::default()
    }
}

#[test]
fn a_reservations_nodes_are_for_its_jobs_only() {
    let ns = [node("n1", 2), node("n2", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let r = resv("r", &["n1"], NOW - 10, &[]);
    let mut inside = wide(1, 1, 2);
    inside.desc.reservation = Some("r".into());
    let outside = wide(2, 1, 2);
    let (d, _) = schedule_resv(NOW, &[&inside, &outside], &nr, &[&p], &[&r], usize::MAX);
    assert_eq!(nodes_of(&d, 1), Some(names(&["n1"])));
    assert_eq!(nodes_of(&d, 2), Some(names(&["n2"])));
    // a job of the reservation gets none but its nodes
    let mut more = wide(3, 1, 2);
    more.desc.reservation = Some("r".into());
    let (d, _) = schedule_resv(NOW, &[&inside, &more], &nr, &[&p], &[&r], usize::MAX);
    assert_eq!(nodes_of(&d, 1), Some(names(&["n1"])));
    assert_eq!(reason(&d, 3), Some(Reason::Resources));
}

#[test]
fn a_job_may_use_reserved_nodes_only_if_it_ends_before_the_reservation() {
    let ns = [node("n1", 2), node("n2", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let later = resv("later", &["n1"], NOW + 3600, &[]);
    let short = Job { time_limit: Some(30), ..job(1) };
    let (d, _) = schedule_resv(NOW, &[&short], &nr, &[&p], &[&later], usize::MAX);
    assert_eq!(nodes_of(&d, 1), Some(names(&["n1"])));
    // an unlimited job would run into it
    let (d, _) = schedule_resv(NOW, &[&job(2)], &nr, &[&p], &[&later], usize::MAX);
    assert_eq!(nodes_of(&d, 2), Some(names(&["n2"])));
}

#[test]
fn reservation_reasons() {
    let ns = [node("n1", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let mut waits = job(1);
    waits.desc.reservation = Some("future".into());
    let mut gone = job(2);
    gone.desc.reservation = Some("deleted".into());
    let future = resv("future", &["n1"], NOW + 600, &[]);
    let (d, _) = schedule_resv(NOW, &[&waits, &gone], &nr, &[&p], &[&future], usize::MAX);
    assert_eq!(reason(&d, 1), Some(Reason::Other("Reservation".into())));
    assert_eq!(reason(&d, 2), Some(Reason::Other("ReservationDeleted".into())));
    // every node in a MAINT reservation (recorded/24.11/reservations/39)
    let maint = resv("all", &["n1"], NOW - 1, &["MAINT"]);
    let (d, _) = schedule_resv(NOW, &[&job(3)], &nr, &[&p], &[&maint], usize::MAX);
    assert_eq!(reason(&d, 3), Some(Reason::Other("ReqNodeNotAvail, Reserved for maintenance".into())));
}

// ------------------------------------------------------------------ queue depth

#[test]
fn a_pass_stops_after_the_queue_depth_and_says_so() {
    let n = node("n1", 200);
    let p = part("p", &[&n]);
    let jobs: Vec<Job> = (1..=150).map(job).collect();
    let jr: Vec<&Job> = jobs.iter().collect();
    let (d, cut) = schedule_depth(NOW, &jr, &[&n], &[&p], DEFAULT_QUEUE_DEPTH);
    assert!(cut);
    assert_eq!(started(&d), (1..=100).collect::<Vec<_>>(), "the first 100 in priority order");
    let (d, cut) = schedule_depth(NOW, &jr[100..], &[&n], &[&p], DEFAULT_QUEUE_DEPTH);
    assert!(!cut);
    assert_eq!(started(&d).len(), 50);
    // jobs that only get a reason cost no placement attempt
    let held: Vec<Job> = (1..=150).map(|i| Job { held: Some(Reason::JobHeldUser), ..job(i) }).collect();
    let mut all: Vec<&Job> = held.iter().collect();
    let last = job(151);
    all.push(&last);
    let (d, cut) = schedule_depth(NOW, &all, &[&n], &[&p], DEFAULT_QUEUE_DEPTH);
    assert!(!cut);
    assert_eq!(started(&d), [151]);
}

// ------------------------------------------------------------------ more tasks than CPUs

/// `sbatch -n tasks -N1` on nodes of 8 CPUs and 16,000 MB (issue 9).
fn ten_tasks_on_one_node(id: u32, overcommit: bool) -> Job {
    let mut j = wide(id, 1, 10);
    j.desc.max_nodes = Some(1);
    if overcommit {
        j.desc.accepted = Some(Box::new(spur_core::model::AcceptedOptions { overcommit: true, ..Default::default() }));
        j.num_cpus = 1;
    }
    j
}

fn big_node(name: &str) -> Node {
    Node { real_memory: 16_000, ..node(name, 8) }
}

#[test]
fn overcommit_runs_more_tasks_than_cpus_on_one_cpu_of_one_node() {
    // Slurm 22.05 (cn nodes of 8 CPUs): `sbatch -n10 -O -N1` runs on one node
    // with NumCPUs=1 NumTasks=10; this used to divide by zero
    let ns = [big_node("n1"), big_node("n2")];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let over = ten_tasks_on_one_node(1, true);
    let after = job(2);
    let d = pass(&[&over, &after], &nr, &[&p]);
    let allocs = d
        .iter()
        .find_map(|x| match x {
            Decision::Start { job_id: 1, allocs, .. } => Some(allocs.clone()),
            _ => None,
        })
        .expect("the overcommitted job starts");
    assert_eq!(allocs.len(), 1);
    assert_eq!(allocs[0].cpus, 1);
    assert!(started(&d).contains(&2), "{:?}", d);
    // with its node's CPUs all in use by others it waits (and blocks nothing else)
    let full = [busy("n1", 8, 8), busy("n2", 8, 8)];
    let fr: Vec<&Node> = full.iter().collect();
    let d = pass(&[&over], &fr, &[&p]);
    assert_eq!(reason(&d, 1), Some(Reason::Resources));
}

#[test]
fn a_job_that_can_never_fit_is_set_aside_and_others_go_on() {
    // without --overcommit, 10 tasks on one 8-CPU node never fit: Slurm
    // refuses it at submission; one in the log from before that check was
    // made gets slurmctld's BadConstraints and does not hold back the
    // partition (it used to panic the pass, whether nodes were free or not)
    for used in [0, 4, 8] {
        let ns = [busy("n1", 8, used), Node { real_memory: 16_000, ..busy("n2", 8, used) }];
        let nr: Vec<&Node> = ns.iter().collect();
        let p = part("p", &nr);
        let never = Job { priority: 100, ..ten_tasks_on_one_node(1, false) };
        let plain = job(2);
        let d = pass(&[&never, &plain], &nr, &[&p]);
        assert_eq!(reason(&d, 1), Some(Reason::BadConstraints), "used {}: {:?}", used, d);
        assert!(nodes_of(&d, 1).is_none());
        assert_eq!(started(&d).contains(&2), used < 8, "used {}: {:?}", used, d);
    }
}

// ------------------------------------------------------------------ backfill

/// One pass of `SchedulerType=sched/backfill` with Slurm's default parameters.
fn bf_pass(jobs: &[&Job], nodes: &[&Node], parts: &[&Partition]) -> Vec<Decision> {
    let by_id: std::collections::HashMap<u32, &Job> = jobs.iter().map(|j| (j.job_id, *j)).collect();
    let lookup = |id: u32| by_id.get(&id).copied();
    let params = Params {
        depth: DEFAULT_QUEUE_DEPTH,
        backfill: Some(BackfillParams::default()),
        preempt: None,
        ending: vec![],
        topology: None,
        qos: None,
    };
    schedule_pass(NOW, jobs, &lookup, nodes, parts, &[], &params).0
}

/// The backfill phase's plan for job `id`: (expected start, nodes).
fn plan(d: &[Decision], id: u32) -> Option<(i64, Vec<String>)> {
    d.iter().find_map(|x| match x {
        Decision::Plan { job_id, start_time, nodes } if *job_id == id => Some((*start_time, nodes.clone())),
        _ => None,
    })
}

/// The end of a window held for a planned job: rounded down to
/// `bf_resolution` (60 s), as slurmctld's (measured on 22.05: a job behind
/// one planned to end at 07:15:28 is planned at 07:15:00).
fn grain(t: i64) -> i64 {
    t / 60 * 60
}

fn backfilled(d: &[Decision], id: u32) -> bool {
    d.iter().any(|x| matches!(x, Decision::Start { job_id, backfill: true, .. } if *job_id == id))
}

/// `job` with a time limit in minutes.
fn limited(mut j: Job, minutes: u32) -> Job {
    j.time_limit = Some(minutes);
    j
}

/// A job running on `node` with `cpus` CPUs since `start`, with a limit.
fn running_on(id: u32, node: &str, cpus: u32, start: i64, minutes: u32) -> Job {
    let mut j = limited(running(job(id)), minutes);
    j.num_cpus = cpus;
    j.num_tasks = cpus;
    j.start_time = start;
    j.end_time = start + minutes as i64 * 60;
    j.allocs = vec![spur_core::model::NodeAlloc { node: node.into(), cpus, mem_mb: 500 * cpus as u64, gres: vec![] }];
    j
}

#[test]
fn backfill_fills_a_hole_without_delaying_the_top_job() {
    // two 4-CPU nodes; job 1 holds all of n1 for 9 more minutes; job 2 needs
    // both nodes; job 3 (5 minutes) fits on n2 before job 2 can start, job 4
    // (30 minutes) would delay it
    let n1 = busy("n1", 4, 4);
    let n2 = node("n2", 4);
    let p = part("p", &[&n1, &n2]);
    let j1 = running_on(1, "n1", 4, NOW - 60, 10);
    let j2 = limited(wide(2, 2, 2), 10);
    let j3 = limited(job(3), 5);
    let j4 = limited(job(4), 30);
    let j5 = job(5);
    let jobs = [&j1, &j2, &j3, &j4, &j5];
    let d = bf_pass(&jobs, &[&n1, &n2], &[&p]);
    assert_eq!(reason(&d, 2), Some(Reason::Resources));
    assert_eq!(nodes_of(&d, 3), Some(vec!["n2".to_string()]));
    assert!(backfilled(&d, 3), "{:?}", d);
    assert_eq!(nodes_of(&d, 4), None);
    assert_eq!(reason(&d, 4), Some(Reason::Priority));
    // job 2 starts when job 1 reaches its limit, on both nodes; job 4 once
    // job 2's window is over
    assert_eq!(plan(&d, 2), Some((NOW + 540, vec!["n1".into(), "n2".into()])));
    // (as Slurm 22.05 planned them, /tmp/bfprobe scenario A: job 4 where
    // there is room now, n2; job 5, without a limit, on n1 at the same time)
    assert_eq!(plan(&d, 4), Some((grain(NOW + 540 + 600), vec!["n2".into()])));
    assert_eq!(plan(&d, 5), Some((grain(NOW + 540 + 600), vec!["n1".into()])));
    // sched/builtin: strict priority order, job 3 waits
    let d = pass(&jobs, &[&n1, &n2], &[&p]);
    assert_eq!(started(&d), Vec::<u32>::new());
    assert_eq!(reason(&d, 3), Some(Reason::Priority));
    assert!(d.iter().all(|x| !matches!(x, Decision::Plan { .. })));
}

/// One pass of `SchedulerType=sched/builtin` with its agent's estimates.
fn builtin_pass(jobs: &[&Job], nodes: &[&Node], parts: &[&Partition]) -> Vec<Decision> {
    let by_id: std::collections::HashMap<u32, &Job> = jobs.iter().map(|j| (j.job_id, *j)).collect();
    let lookup = |id: u32| by_id.get(&id).copied();
    let params = Params {
        depth: DEFAULT_QUEUE_DEPTH,
        backfill: Some(BackfillParams::builtin(Some("interval=5"))),
        preempt: None,
        ending: vec![],
        topology: None,
        qos: None,
    };
    schedule_pass(NOW, jobs, &lookup, nodes, parts, &[], &params).0
}

#[test]
fn builtin_estimates_start_times_and_starts_nothing_out_of_order() {
    // the scenario of backfill_fills_a_hole: job 1 holds n1 for 9 more
    // minutes; job 2 needs both nodes, jobs 3-5 one CPU each
    let n1 = busy("n1", 4, 4);
    let n2 = node("n2", 4);
    let p = part("p", &[&n1, &n2]);
    let j1 = running_on(1, "n1", 4, NOW - 60, 10);
    let j2 = limited(wide(2, 2, 2), 10);
    let j3 = limited(job(3), 5);
    let j4 = limited(job(4), 30);
    let j5 = job(5);
    let jobs = [&j1, &j2, &j3, &j4, &j5];
    let d = builtin_pass(&jobs, &[&n1, &n2], &[&p]);
    // nothing starts past job 2 (strict priority order)
    assert_eq!(started(&d), Vec::<u32>::new());
    assert_eq!(reason(&d, 3), Some(Reason::Priority));
    // job 2 when job 1 ends; no node list (sched/builtin sets none)
    assert_eq!(plan(&d, 2), Some((NOW + 540, vec![])));
    // job 3 fits now on n2 by itself (a will-run test holds no room for
    // job 2), but its node overlaps job 2's, estimated to start no earlier
    // than job 2's expected end; job 4 no earlier than job 3's; job 5 (no
    // limit) no earlier than job 4's
    assert_eq!(plan(&d, 3), Some((NOW + 540 + 600, vec![])));
    assert_eq!(plan(&d, 4), Some((NOW + 540 + 600 + 300, vec![])));
    assert_eq!(plan(&d, 5), Some((NOW + 540 + 600 + 300 + 1800, vec![])));
    assert!(d.iter().all(|x| !matches!(x, Decision::Considered { .. })));
    // its parameters, found anywhere in SchedulerParameters
    let b = BackfillParams::builtin(Some("bf_interval=7,max_job_bf=3"));
    assert_eq!((b.interval, b.max_job_test, b.builtin), (7, 3, true));
    assert_eq!(BackfillParams::builtin(None).interval, 30);
}

#[test]
fn backfill_plans_in_priority_order_and_respects_every_plan() {
    // n1: 2 of 4 CPUs free until job 1 ends in 10 minutes; n2 busy for an
    // hour. Job 2 needs a whole node (4 CPUs): planned on n1 at +10 min.
    // Job 3 (2 CPUs, 5 minutes) fits n1's free half before that: started.
    // Job 4 (2 CPUs, 60 minutes) would run into job 2's window on n1: not
    // started, planned after it.
    let n1 = busy("n1", 4, 2);
    let n2 = busy("n2", 4, 4);
    let p = part("p", &[&n1, &n2]);
    let j1 = running_on(1, "n1", 2, NOW, 10);
    let j0 = running_on(9, "n2", 4, NOW, 60);
    let mut j2 = limited(wide(2, 1, 4), 10);
    j2.num_cpus = 4;
    let mut j3 = limited(job(3), 5);
    j3.num_tasks = 2;
    j3.num_cpus = 2;
    let mut j4 = limited(job(4), 60);
    j4.num_tasks = 2;
    j4.num_cpus = 2;
    let d = bf_pass(&[&j0, &j1, &j2, &j3, &j4], &[&n1, &n2], &[&p]);
    assert_eq!(plan(&d, 2), Some((NOW + 600, vec!["n1".into()])));
    assert!(backfilled(&d, 3));
    assert_eq!(nodes_of(&d, 3), Some(vec!["n1".into()]));
    assert_eq!(nodes_of(&d, 4), None);
    // n1 is held for job 2 from +10 to +20 min, n2 busy to +60: job 4's
    // earliest hour without a conflict starts when job 2's window ends
    assert_eq!(plan(&d, 4), Some((grain(NOW + 1200), vec!["n1".into()])));
}

#[test]
fn backfill_leaves_a_job_without_a_start_in_the_window_unplanned() {
    // a running job without a time limit never gives its node back
    let n1 = busy("n1", 4, 4);
    let p = part("p", &[&n1]);
    let mut j1 = running_on(1, "n1", 4, NOW, 10);
    j1.time_limit = None;
    j1.end_time = 0;
    let j2 = limited(job(2), 10);
    let j3 = limited(job(3), 10);
    let d = bf_pass(&[&j1, &j2, &j3], &[&n1], &[&p]);
    assert_eq!(plan(&d, 2), None);
    assert_eq!(plan(&d, 3), None);
    assert!(started(&d).is_empty());
    // with bf_window=5 (minutes), a job ending in 9 minutes is out of sight too
    let j1 = running_on(1, "n1", 4, NOW - 60, 10);
    let by_id: std::collections::HashMap<u32, &Job> = [(1, &j1), (2, &j2)].into_iter().collect();
    let lookup = |id: u32| by_id.get(&id).copied();
    let bf = BackfillParams::from_scheduler_parameters(Some("bf_window=5"));
    let params = Params {
        depth: DEFAULT_QUEUE_DEPTH,
        backfill: Some(bf),
        preempt: None,
        ending: vec![],
        topology: None,
        qos: None,
    };
    let d = schedule_pass(NOW, &[&j1, &j2], &lookup, &[&n1], &[&p], &[], &params).0;
    assert_eq!(plan(&d, 2), None);
    let d = bf_pass(&[&j1, &j2], &[&n1], &[&p]);
    assert_eq!(plan(&d, 2), Some((NOW + 540, vec!["n1".into()])));
}

#[test]
fn backfill_tests_at_most_bf_max_job_test_jobs() {
    let n1 = busy("n1", 4, 4);
    let n2 = node("n2", 1);
    let p = part("p", &[&n1, &n2]);
    let j1 = running_on(1, "n1", 4, NOW, 10);
    let j2 = limited(wide(2, 2, 2), 10);
    let j3 = limited(job(3), 5);
    let by_id: std::collections::HashMap<u32, &Job> = [(1, &j1), (2, &j2), (3, &j3)].into_iter().collect();
    let lookup = |id: u32| by_id.get(&id).copied();
    // one job tested: the top one, planned; job 3 is not looked at
    let bf = BackfillParams::from_scheduler_parameters(Some("bf_max_job_test=1"));
    let params = Params {
        depth: DEFAULT_QUEUE_DEPTH,
        backfill: Some(bf),
        preempt: None,
        ending: vec![],
        topology: None,
        qos: None,
    };
    let d = schedule_pass(NOW, &[&j1, &j2, &j3], &lookup, &[&n1, &n2], &[&p], &[], &params).0;
    assert!(plan(&d, 2).is_some());
    assert!(started(&d).is_empty());
    let d = bf_pass(&[&j1, &j2, &j3], &[&n1, &n2], &[&p]);
    assert_eq!(started(&d), vec![3]);
}

#[test]
fn backfill_gives_typed_gpus_back_at_the_end_of_an_untyped_request() {
    // n1 has two GPUs of type a, n2 is busy for an hour; job 2 needs both
    // nodes (Resources, planned at +60). Job 3 (--gres=gpu:2, 10 minutes)
    // is backfilled onto n1's GPUs; job 4 (gpu:2 too, 10 minutes) gets them
    // when job 3 ends, before job 2's window: planned at +10 on n1.
    let gpus = |mut n: Node| {
        n.gres = vec![("gpu".into(), Some("a".into()), 2)];
        n
    };
    let n1 = gpus(node("n1", 4));
    let n2 = gpus(busy("n2", 4, 4));
    let p = part("p", &[&n1, &n2]);
    let j1 = running_on(1, "n2", 4, NOW, 60);
    let j2 = limited(wide(2, 2, 2), 10);
    let gpu_job = |id: u32| {
        let mut j = limited(job(id), 10);
        j.desc.gres = Some("gpu:2".into());
        j
    };
    let (j3, j4) = (gpu_job(3), gpu_job(4));
    let d = bf_pass(&[&j1, &j2, &j3, &j4], &[&n1, &n2], &[&p]);
    assert_eq!(plan(&d, 2), Some((NOW + 3600, vec!["n1".into(), "n2".into()])));
    assert!(backfilled(&d, 3), "{:?}", d);
    assert_eq!(nodes_of(&d, 3), Some(vec!["n1".into()]));
    assert_eq!(plan(&d, 4), Some((NOW + 600, vec!["n1".into()])), "{:?}", d);
}

#[test]
fn the_backfill_phase_names_the_pending_jobs_it_considered() {
    // slurmctld marks each job its backfill loop takes up (BACKFILL_SCHED,
    // LastSchedEval): the blocked top job and the one behind it, in queue
    // order, not a held job nor one waiting on a dependency, nor a job the
    // main phase started
    let n1 = busy("n1", 4, 4);
    let n2 = node("n2", 4);
    let p = part("p", &[&n1, &n2]);
    let j1 = running_on(1, "n1", 4, NOW, 60);
    let j2 = limited(wide(2, 2, 2), 10);
    let j3 = limited(job(3), 120);
    let j4 = Job { held: Some(Reason::JobHeldUser), ..job(4) };
    let mut j5 = job(5);
    j5.desc.dependency = Some("afterok:1".into());
    let d = bf_pass(&[&j1, &j2, &j3, &j4, &j5], &[&n1, &n2], &[&p]);
    let considered: Vec<&Vec<u32>> = d
        .iter()
        .filter_map(|x| match x {
            Decision::Considered { job_ids } => Some(job_ids),
            _ => None,
        })
        .collect();
    assert_eq!(considered, [&vec![2, 3]], "{:?}", d);
    // without backfill (sched/builtin) no job is considered
    let by_id: std::collections::HashMap<u32, &Job> = [&j1, &j2, &j3].iter().map(|j| (j.job_id, *j)).collect();
    let lookup = |id: u32| by_id.get(&id).copied();
    let params =
        Params { depth: DEFAULT_QUEUE_DEPTH, backfill: None, preempt: None, ending: vec![], topology: None, qos: None };
    let d = schedule_pass(NOW, &[&j1, &j2, &j3], &lookup, &[&n1, &n2], &[&p], &[], &params).0;
    assert!(!d.iter().any(|x| matches!(x, Decision::Considered { .. })), "{:?}", d);
}

#[test]
fn max_cpus_per_node_caps_what_a_partitions_jobs_hold_on_a_node() {
    // measured on 22.05 (partition lim MaxCPUsPerNode=4 over 8-CPU nodes):
    // with 4, 4, 4 and 3 of lim's CPUs in use on cn01-04, a 3-CPU lim job
    // waits with Resources and a 1-CPU one behind it with Priority, while
    // another partition's jobs still get the nodes' other CPUs
    let held = [4u32, 4, 4, 3];
    let nodes: Vec<Node> = (1..=4).map(|i| busy(&format!("n{}", i), 8, held[i - 1])).collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    let mut lim = part("lim", &refs);
    lim.more.max_cpus_per_node = Some(4);
    let other = part("p", &refs);
    let run: Vec<Job> = (0..4)
        .map(|i| {
            let mut j = running_on(10 + i as u32, &format!("n{}", i + 1), held[i], NOW, 60);
            j.partition = "lim".into();
            j
        })
        .collect();
    let mut three = job(1);
    three.partition = "lim".into();
    three.desc.cpus_per_task = Some(3);
    three.num_cpus = 3;
    let mut one = job(2);
    one.partition = "lim".into();
    let mut jobs: Vec<&Job> = run.iter().collect();
    jobs.push(&three);
    jobs.push(&one);
    let d = pass(&jobs, &refs, &[&lim, &other]);
    assert_eq!(started(&d), Vec::<u32>::new(), "{:?}", d);
    assert_eq!((reason(&d, 1), reason(&d, 2)), (Some(Reason::Resources), Some(Reason::Priority)));
    // alone, the 1-CPU job gets the last CPU the cap leaves (n4); a job of
    // the other partition takes 4 CPUs of n1
    let mut big = job(3);
    big.desc.cpus_per_task = Some(4);
    big.num_cpus = 4;
    let mut jobs: Vec<&Job> = run.iter().collect();
    jobs.push(&one);
    jobs.push(&big);
    let d = pass(&jobs, &refs, &[&lim, &other]);
    assert_eq!(nodes_of(&d, 2), Some(names(&["n4"])), "{:?}", d);
    assert!(nodes_of(&d, 3).is_some(), "{:?}", d);
    // two 1-CPU lim jobs in one pass: the second finds n4 at the cap
    let mut one_more = job(4);
    one_more.partition = "lim".into();
    let mut jobs: Vec<&Job> = run.iter().collect();
    jobs.push(&one);
    jobs.push(&one_more);
    let d = pass(&jobs, &refs, &[&lim, &other]);
    assert_eq!((started(&d), reason(&d, 4)), (vec![2], Some(Reason::Resources)), "{:?}", d);
}

#[test]
fn unavailable_nodes_give_req_node_not_avail_and_hold_back_no_one() {
    // measured on 22.05 (cn01 drained; later every node of gpu drained):
    // `-w cn01` waits with `ReqNodeNotAvail, UnavailableNodes:cn01`, a job
    // of a partition whose nodes are all drained with the partition's
    // drained nodes; neither holds back the jobs behind it
    let drained = |n: &str| {
        let mut x = node(n, 2);
        x.flags.drain = true;
        x
    };
    let ns = [drained("n1"), node("n2", 2), drained("n3"), drained("n4")];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr[..2]);
    let g = part("g", &nr[2..]);
    let mut on_n1 = job(1);
    on_n1.desc.req_nodes = Some("n1".into());
    let behind = job(2);
    let mut in_g = job(3);
    in_g.partition = "g".into();
    let d = pass(&[&on_n1, &behind, &in_g], &nr, &[&p, &g]);
    let not_avail = |s: &str| Some(Reason::Other(format!("ReqNodeNotAvail, UnavailableNodes:{}", s)));
    assert_eq!(reason(&d, 1), not_avail("n1"), "{:?}", d);
    assert_eq!(nodes_of(&d, 2), Some(names(&["n2"])), "{:?}", d);
    assert_eq!(reason(&d, 3), not_avail("n[3-4]"), "{:?}", d);
    // a job whose required node is busy waits with Resources and keeps
    // the jobs behind it off that node only (slurmctld's job_scheduler)
    let ns = [busy("n1", 2, 2), node("n2", 2)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let r1 = running_on(9, "n1", 2, NOW, 60);
    let mut on_n1 = job(1);
    on_n1.desc.req_nodes = Some("n1".into());
    let d = pass(&[&r1, &on_n1, &behind], &nr, &[&p]);
    assert_eq!((reason(&d, 1), nodes_of(&d, 2)), (Some(Reason::Resources), Some(names(&["n2"]))), "{:?}", d);
    // a two-node job on one busy and one idle node: Resources, and the rest
    // of the partition waits behind it (Priority)
    let d = pass(&[&r1, &wide(1, 2, 2), &behind], &nr, &[&p]);
    assert_eq!((reason(&d, 1), reason(&d, 2)), (Some(Reason::Resources), Some(Reason::Priority)), "{:?}", d);
}

/// A pass with `PreemptType=preempt/partition_prio` and slurm.conf's `mode`.
fn preempt_pass(jobs: &[&Job], nodes: &[&Node], parts: &[&Partition], mode: PreemptMode) -> Vec<Decision> {
    pass_with(jobs, nodes, parts, Some(mode), None)
}

/// A pass with backfill, slurm.conf's `PreemptMode` and the QOS records.
fn pass_with(
    jobs: &[&Job],
    nodes: &[&Node],
    parts: &[&Partition],
    preempt: Option<PreemptMode>,
    qos: Option<spur_sched::qos::QosPolicy>,
) -> Vec<Decision> {
    let by_id: std::collections::HashMap<u32, &Job> = jobs.iter().map(|j| (j.job_id, *j)).collect();
    let lookup = |id: u32| by_id.get(&id).copied();
    let params = Params {
        depth: DEFAULT_QUEUE_DEPTH,
        backfill: Some(BackfillParams::default()),
        preempt,
        ending: vec![],
        topology: None,
        qos: qos.map(std::sync::Arc::new),
    };
    schedule_pass(NOW, jobs, &lookup, nodes, parts, &[], &params).0
}

fn preempts(d: &[Decision]) -> Vec<(u32, bool)> {
    d.iter()
        .filter_map(|x| match x {
            Decision::Preempt { job_id, requeue, suspend: false } => Some((*job_id, *requeue)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_higher_tier_job_preempts_the_fewest_lower_tier_jobs() {
    // measured on 22.05 (crates/spur-sched/tests/preempt-22.05.md): low
    // (PriorityTier=1) jobs fill cn01 and cn02; a high (PriorityTier=10) job
    // of 4 CPUs preempts the one on cn01 only, and starts there later
    let ns = [busy("n1", 8, 8), busy("n2", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let mut low = part("low", &nr);
    low.priority_tier = 1;
    let mut high = part("high", &nr);
    high.priority_tier = 10;
    high.more.preempt_mode = Some("OFF".into());
    let lowjob = |id: u32, n: &str| {
        let mut j = running_on(id, n, 8, NOW - 10, 60);
        j.partition = "low".into();
        j
    };
    let (l1, mut l2) = (lowjob(1, "n1"), lowjob(2, "n2"));
    let mut h = job(3);
    h.partition = "high".into();
    h.desc.cpus_per_task = Some(4);
    h.num_cpus = 4;
    let d = preempt_pass(&[&l1, &l2, &h], &nr, &[&low, &high], PreemptMode::Cancel);
    assert_eq!(preempts(&d), vec![(1, false)], "{:?}", d);
    assert_eq!(started(&d), Vec::<u32>::new());
    // REQUEUE: requeued, unless it may not be (--no-requeue: cancelled)
    let d = preempt_pass(&[&l1, &l2, &h], &nr, &[&low, &high], PreemptMode::Requeue);
    assert_eq!(preempts(&d), vec![(1, true)], "{:?}", d);
    let mut wide = wide(4, 2, 16);
    wide.partition = "high".into();
    l2.desc.requeue = Some(false);
    let d = preempt_pass(&[&l1, &l2, &wide], &nr, &[&low, &high], PreemptMode::Requeue);
    let mut p = preempts(&d);
    p.sort();
    assert_eq!(p, vec![(1, true), (2, false)], "{:?}", d);
    // while the preempted job ends (completing) nothing more is preempted
    let mut ending = l1.clone();
    ending.state = JobState::Completing;
    let d = preempt_pass(&[&ending, &l2, &h], &nr, &[&low, &high], PreemptMode::Cancel);
    assert_eq!(preempts(&d), vec![], "{:?}", d);
    // a partition's own PreemptMode=OFF, or the same tier: no preemption
    let mut off = low.clone();
    off.more.preempt_mode = Some("OFF".into());
    let d = preempt_pass(&[&l1, &l2, &h], &nr, &[&off, &high], PreemptMode::Cancel);
    assert_eq!(preempts(&d), vec![], "{:?}", d);
    let mut same = high.clone();
    same.priority_tier = 1;
    let d = preempt_pass(&[&l1, &l2, &h], &nr, &[&low, &same], PreemptMode::Cancel);
    assert_eq!(preempts(&d), vec![], "{:?}", d);
    // SUSPEND: suspended instead (measured on 22.05, preempt-22.05.md)
    let d = preempt_pass(&[&l1, &l2, &h], &nr, &[&low, &high], PreemptMode::Suspend);
    let suspended: Vec<u32> = d
        .iter()
        .filter_map(|x| match x {
            Decision::Preempt { job_id, suspend: true, requeue: false } => Some(*job_id),
            _ => None,
        })
        .collect();
    assert_eq!(suspended, vec![1], "{:?}", d);
    // its CPUs are free at once: the high job starts in the same pass
    assert_eq!(nodes_of(&d, 3), Some(names(&["n1"])), "{:?}", d);
}

/// A job preempted in its partition's GraceTime (`Params::ending`) runs on
/// but counts as leaving: no other job is preempted in its place.
#[test]
fn a_job_in_its_grace_time_is_not_replaced_by_another_victim() {
    let ns = [busy("n1", 8, 8), busy("n2", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let mut low = part("low", &nr);
    low.priority_tier = 1;
    let mut high = part("high", &nr);
    high.priority_tier = 10;
    let lowjob = |id: u32, n: &str| {
        let mut j = running_on(id, n, 8, NOW - 10, 60);
        j.partition = "low".into();
        j
    };
    let (l1, l2) = (lowjob(1, "n1"), lowjob(2, "n2"));
    let mut h = job(3);
    h.partition = "high".into();
    h.desc.cpus_per_task = Some(4);
    h.num_cpus = 4;
    let by_id: std::collections::HashMap<u32, &Job> = [&l1, &l2, &h].iter().map(|j| (j.job_id, *j)).collect();
    let lookup = |id: u32| by_id.get(&id).copied();
    let params = Params {
        depth: DEFAULT_QUEUE_DEPTH,
        backfill: None,
        preempt: Some(PreemptMode::Cancel),
        ending: vec![1],
        topology: None,
        qos: None,
    };
    let d = schedule_pass(NOW, &[&l1, &l2, &h], &lookup, &nr, &[&low, &high], &[], &params).0;
    assert_eq!(preempts(&d), vec![], "{:?}", d);
    assert_eq!(reason(&d, 3), Some(Reason::Resources));
}

/// A job suspended by preemption resumes once its CPUs are free (its
/// preemptor ended), before any pending job takes them; one an operator
/// suspended stays suspended.
#[test]
fn a_job_suspended_by_preemption_resumes_when_its_cpus_are_free() {
    // n1's 8 CPUs: the suspended job's (free in the node's count while it
    // is suspended); n2 full
    let ns = [node("n1", 8), busy("n2", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let mut low = part("low", &nr);
    low.priority_tier = 1;
    let mut s = running_on(1, "n1", 8, NOW - 10, 60);
    s.partition = "low".into();
    s.state = JobState::Suspended;
    s.preempt_suspended = true;
    let mut waiting = job(5);
    waiting.partition = "low".into();
    waiting.priority = 1000;
    let d = preempt_pass(&[&s, &waiting], &nr, &[&low], PreemptMode::Suspend);
    assert!(d.contains(&Decision::Resume { job_id: 1 }), "{:?}", d);
    assert_eq!(started(&d), Vec::<u32>::new(), "the resumed job's CPUs are taken");
    // the preemptor still runs on n1: nothing to resume
    let ns = [busy("n1", 8, 4), busy("n2", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let d = preempt_pass(&[&s], &nr, &[&low], PreemptMode::Suspend);
    assert!(!d.iter().any(|x| matches!(x, Decision::Resume { .. })), "{:?}", d);
    // an operator's suspension stays
    let ns = [node("n1", 8), busy("n2", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    s.preempt_suspended = false;
    let d = preempt_pass(&[&s], &nr, &[&low], PreemptMode::Suspend);
    assert!(!d.iter().any(|x| matches!(x, Decision::Resume { .. })), "{:?}", d);
}

// ------------------------------------------------------------------ --constraint

/// The measured cluster of constraints.md: cn01-02 `intel,ib`, cn03
/// `amd`, cn04 `amd,ib`, 8 CPUs each.
fn featured() -> Vec<Node> {
    let f = |n: &str, feats: &[&str]| Node { features: names(feats), ..node(n, 8) };
    vec![f("cn01", &["intel", "ib"]), f("cn02", &["intel", "ib"]), f("cn03", &["amd"]), f("cn04", &["amd", "ib"])]
}

fn constrained(id: u32, expr: &str, nodes: Option<u32>, tasks: u32) -> Job {
    let mut j = match nodes {
        Some(n) => wide(id, n, tasks),
        None => {
            let mut j = job(id);
            j.num_tasks = tasks;
            j.num_cpus = tasks;
            j
        }
    };
    j.desc.constraint = Some(expr.into());
    j
}

/// Each accepted job of the measurement, alone on the idle cluster, goes
/// where 22.05 put it when the cluster was in the same state.
#[test]
fn each_measured_constraint_gets_its_nodes() {
    let ns = featured();
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    for (expr, n, t, want) in [
        ("intel&", None, 1, vec!["cn01"]),
        ("amd", Some(1), 1, vec!["cn03"]),
        ("intel&ib", Some(2), 2, vec!["cn01", "cn02"]),
        ("[intel|amd]", Some(2), 2, vec!["cn01", "cn02"]),
        ("[intel*1&amd*1]", Some(2), 2, vec!["cn01", "cn03"]),
        ("ib&[amd|intel]", Some(1), 1, vec!["cn04"]),
    ] {
        let j = constrained(1, expr, n, t);
        assert_eq!(nodes_of(&pass(&[&j], &nr, &[&p]), 1), Some(names(&want)), "{expr}");
    }
}

/// The measured sequence, in one queue: what each job got with the jobs
/// before it running (`intel|amd -N1 -n8` finds only cn04 whole; `[intel|amd]
/// -N2` the intel pair; the counts one intel and one amd node, each the
/// tightest; `(intel|amd)&ib` the tightest of cn01-02 with cn04 full;
/// `ib -N1 -n8` waits).
#[test]
fn the_measured_queue_in_order() {
    let ns = featured();
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let mut ran: Vec<Job> = vec![];
    let queue = [
        (constrained(2, "intel&", None, 1), Some(vec!["cn01"])),
        (constrained(7, "amd", Some(1), 1), Some(vec!["cn03"])),
        (constrained(8, "intel&ib", Some(2), 2), Some(vec!["cn01", "cn02"])),
        (constrained(9, "intel|amd", Some(1), 8), Some(vec!["cn04"])),
        (constrained(10, "[intel|amd]", Some(2), 2), Some(vec!["cn01", "cn02"])),
        (constrained(11, "[intel*1&amd*1]", Some(2), 2), Some(vec!["cn01", "cn03"])),
        (constrained(12, "(intel|amd)&ib", Some(1), 1), Some(vec!["cn01"])),
    ];
    for (j, want) in queue {
        let all: Vec<&Job> = ran.iter().chain([&j]).collect();
        // the nodes as the jobs before left them
        let used =
            |n: &str| -> u32 { ran.iter().flat_map(|r| &r.allocs).filter(|a| a.node == n).map(|a| a.cpus).sum() };
        let now: Vec<Node> = ns
            .iter()
            .map(|n| Node { alloc_cpus: used(&n.name), alloc_mem: 500 * used(&n.name) as u64, ..n.clone() })
            .collect();
        let nr: Vec<&Node> = now.iter().collect();
        let d = pass(&all, &nr, &[&p]);
        assert_eq!(nodes_of(&d, j.job_id), want.map(|w| names(&w)), "job {}", j.job_id);
        let mut r = running(j.clone());
        if let Some(Decision::Start { allocs, .. }) =
            d.into_iter().find(|x| matches!(x, Decision::Start { job_id, .. } if *job_id == j.job_id))
        {
            r.allocs = allocs;
        }
        ran.push(r);
    }
    // `ib -N1 -n8`: no ib node has 8 idle CPUs now
    let j = constrained(13, "ib", Some(1), 8);
    let used = |n: &str| -> u32 { ran.iter().flat_map(|r| &r.allocs).filter(|a| a.node == n).map(|a| a.cpus).sum() };
    let now: Vec<Node> = ns
        .iter()
        .map(|n| Node { alloc_cpus: used(&n.name), alloc_mem: 500 * used(&n.name) as u64, ..n.clone() })
        .collect();
    let nr: Vec<&Node> = now.iter().collect();
    let all: Vec<&Job> = ran.iter().chain([&j]).collect();
    let d = pass(&all, &nr, &[&p]);
    assert_eq!(nodes_of(&d, 13), None);
    assert_eq!(reason(&d, 13), Some(Reason::Resources));
}

/// With cn03 drained, `-C amd -N2` waits with ReqNodeNotAvail naming only
/// the drained node it could use, and holds back no one.
#[test]
fn a_drained_feature_node_is_the_unavailable_one() {
    let mut ns = featured();
    ns[2].flags.drain = true;
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let a = constrained(1, "amd", Some(2), 2);
    let b = constrained(2, "intel", Some(1), 1);
    let d = pass(&[&a, &b], &nr, &[&p]);
    assert_eq!(reason(&d, 1), Some(Reason::Other("ReqNodeNotAvail, UnavailableNodes:cn03".into())));
    assert_eq!(nodes_of(&d, 2), Some(names(&["cn01"])));
    // as measured, with cn04 full of an 8-CPU job: the same (a node in use
    // is not busy to slurmctld's test; one it may not share is)
    ns[3].alloc_cpus = 8;
    ns[3].alloc_mem = 4000;
    let mut full = running(constrained(3, "amd", Some(1), 8));
    full.allocs = vec![spur_core::model::NodeAlloc { node: "cn04".into(), cpus: 8, mem_mb: 4000, gres: vec![] }];
    let nr: Vec<&Node> = ns.iter().collect();
    let d = pass(&[&full, &a], &nr, &[&p]);
    assert_eq!(reason(&d, 1), Some(Reason::Other("ReqNodeNotAvail, UnavailableNodes:cn03".into())));
    full.desc.exclusive = true;
    let d = pass(&[&full, &a], &nr, &[&p]);
    assert_eq!(reason(&d, 1), Some(Reason::Resources));
}

/// A constraint no node of the partition meets (accepted before the nodes
/// changed) can never be placed: BadConstraints, holding back no one.
#[test]
fn a_constraint_no_node_meets_blocks_no_one() {
    let ns = featured();
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let a = constrained(1, "intel&amd", None, 1);
    let d = pass(&[&a, &job(2)], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 1), None);
    assert_eq!(nodes_of(&d, 2), Some(names(&["cn01"])));
}

/// cons_tres's choose_nodes leaves out the nodes with the fewest free CPUs
/// when the first pick fails (measured on 22.05: cn01 with 2 of 8 CPUs
/// free, `-N2 -n16` got cn[02-03], then `-N2 -n10` cn[01,04]).
#[test]
fn a_fixed_node_count_skips_the_nodes_too_small_for_it() {
    let ns = [busy("cn01", 8, 6), node("cn02", 8), node("cn03", 8), node("cn04", 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let a = wide(2, 2, 16);
    let b = wide(3, 2, 10);
    let d = pass(&[&a, &b], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 2), Some(names(&["cn02", "cn03"])));
    assert_eq!(nodes_of(&d, 3), Some(names(&["cn01", "cn04"])));
}

/// `--contiguous` takes one run of consecutive nodes or waits (22.05: cn02
/// and cn04 full, `-N2 --contiguous` waits with Resources and the `-N2`
/// job behind it with Priority; with only cn02 full, cn[03-04]).
#[test]
fn contiguous_takes_one_run_of_nodes() {
    let ns = [node("cn01", 8), busy("cn02", 8, 8), node("cn03", 8), busy("cn04", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let mut c = wide(1, 2, 2);
    c.desc.contiguous_nodes = true;
    let d = pass(&[&c, &wide(2, 2, 2)], &nr, &[&p]);
    assert_eq!((nodes_of(&d, 1), reason(&d, 1)), (None, Some(Reason::Resources)));
    assert_eq!((nodes_of(&d, 2), reason(&d, 2)), (None, Some(Reason::Priority)));
    let ns = [node("cn01", 8), busy("cn02", 8, 8), node("cn03", 8), node("cn04", 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    assert_eq!(nodes_of(&pass(&[&c], &nr, &[&p]), 1), Some(names(&["cn03", "cn04"])));
}

/// `--spread-job`: as many nodes as tasks (22.05 on four idle 8-CPU nodes:
/// `-n4` got cn[01-04] with 4 CPUs; `-n6 -N2-3` cn[01-03] with 6).
#[test]
fn spread_job_uses_as_many_nodes_as_it_may() {
    let ns = [node("cn01", 8), node("cn02", 8), node("cn03", 8), node("cn04", 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let spread = |mut j: Job| {
        j.desc.accepted = Some(Box::new(spur_core::model::AcceptedOptions { spread_job: true, ..Default::default() }));
        j
    };
    let mut a = spread(job(1));
    a.num_tasks = 4;
    a.num_cpus = 4;
    let d = pass(&[&a], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 1), Some(names(&["cn01", "cn02", "cn03", "cn04"])));
    let mut b = spread(wide(2, 2, 6));
    b.desc.max_nodes = Some(3);
    let d = pass(&[&b], &nr, &[&p]);
    assert_eq!(nodes_of(&d, 2), Some(names(&["cn01", "cn02", "cn03"])));
    let cpus: Vec<u32> = match d.iter().find(|x| matches!(x, Decision::Start { job_id: 2, .. })) {
        Some(Decision::Start { allocs, .. }) => allocs.iter().map(|a| a.cpus).collect(),
        _ => vec![],
    };
    assert_eq!(cpus, [2, 2, 2]);
}

/// A pass with accounting's QOS records: `PreemptType=preempt/qos` (with
/// slurm.conf's `mode`) when `preempt`, `AccountingStorageEnforce=limits`
/// when `limits`.
fn qos_pass(
    jobs: &[&Job],
    nodes: &[&Node],
    parts: &[&Partition],
    qos: Vec<spur_core::qos::Qos>,
    mode: Option<PreemptMode>,
    limits: bool,
) -> Vec<Decision> {
    let policy = spur_sched::qos::QosPolicy { qos, preempt: mode.is_some(), limits, exempt: 0, assocs: None };
    pass_with(jobs, nodes, parts, mode, Some(policy))
}

/// `normal` (id 1), `low` (id 2, priority 10) and `high` (id 3, priority
/// 100, preempting both, requeue).
fn qos_records() -> Vec<spur_core::qos::Qos> {
    use spur_core::qos::Qos;
    let mut low = Qos::new(2, "low", "low");
    low.priority = 10;
    let mut high = Qos::new(3, "high", "high");
    high.priority = 100;
    high.preempt = vec![1, 2];
    vec![Qos::normal(), low, high]
}

fn in_qos(mut j: Job, q: &str) -> Job {
    j.desc.qos = Some(q.into());
    j
}

#[test]
fn preempt_qos_takes_the_jobs_of_the_qos_it_lists_lowest_qos_priority_first() {
    // two full 8-CPU nodes: a normal job on n1, a low one on n2; a high job
    // of 4 CPUs preempts one of them: the lower QOS priority (normal, 0) goes
    let ns = [busy("n1", 8, 8), busy("n2", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let normal = running_on(1, "n1", 8, NOW - 10, 60);
    let low = in_qos(running_on(2, "n2", 8, NOW - 10, 60), "low");
    let mut h = in_qos(job(3), "high");
    h.num_cpus = 4;
    h.desc.cpus_per_task = Some(4);
    let d = qos_pass(&[&normal, &low, &h], &nr, &[&p], qos_records(), Some(PreemptMode::Requeue), false);
    assert_eq!(preempts(&d), vec![(1, true)], "{:?}", d);
    // a QOS's own PreemptMode wins over slurm.conf's: normal cancels
    let mut q = qos_records();
    q[0].preempt_mode = Some("CANCEL".into());
    let d = qos_pass(&[&normal, &low, &h], &nr, &[&p], q, Some(PreemptMode::Requeue), false);
    assert_eq!(preempts(&d), vec![(1, false)], "{:?}", d);
    // a job of a QOS no one lists is never preempted, whatever its partition
    let mut hl = in_qos(job(4), "low");
    hl.num_cpus = 4;
    hl.desc.cpus_per_task = Some(4);
    let d = qos_pass(&[&normal, &low, &hl], &nr, &[&p], qos_records(), Some(PreemptMode::Requeue), false);
    assert_eq!((preempts(&d), reason(&d, 4)), (vec![], Some(Reason::Resources)), "{:?}", d);
    // and without preempt/qos nothing is
    let d = qos_pass(&[&normal, &low, &h], &nr, &[&p], qos_records(), None, false);
    assert_eq!(preempts(&d), vec![], "{:?}", d);
    // a job within its QOS's PreemptExemptTime (normal's: 60 s; it ran 10)
    // is passed over: the low job goes
    let mut q = qos_records();
    q[0].preempt_exempt_time = Some(60);
    let d = qos_pass(&[&normal, &low, &h], &nr, &[&p], q, Some(PreemptMode::Requeue), false);
    assert_eq!(preempts(&d), vec![(2, true)], "{:?}", d);
}

#[test]
fn qos_limits_hold_jobs_with_their_reasons_and_hold_back_no_one() {
    let ns = [node("n1", 8), node("n2", 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let mut q = qos_records();
    q[0].max_jobs_pu = Some(1);
    q[1].max_wall = Some(10);
    q[2].grp_jobs = Some(1);
    let r1 = running_on(1, "n1", 1, NOW - 10, 60);
    // normal: one running already, the next waits (the same user's)
    let j2 = job(2);
    // another user's normal job runs
    let mut j3 = job(3);
    j3.user_id = 7;
    // low: over MaxWall
    let j4 = limited(in_qos(job(4), "low"), 30);
    // high: the first runs, the second waits on GrpJobs
    let (j5, j6) = (in_qos(job(5), "high"), in_qos(job(6), "high"));
    let d = qos_pass(&[&r1, &j2, &j3, &j4, &j5, &j6], &nr, &[&p], q.clone(), None, true);
    assert_eq!(started(&d), vec![3, 5], "{:?}", d);
    let other = |s: &str| Some(Reason::Other(s.into()));
    assert_eq!(reason(&d, 2), other("QOSMaxJobsPerUserLimit"));
    assert_eq!(reason(&d, 4), other("QOSMaxWallDurationPerJobLimit"));
    assert_eq!(reason(&d, 6), other("QOSGrpJobsLimit"));
    // without AccountingStorageEnforce=limits they all run
    let d = qos_pass(&[&r1, &j2, &j3, &j4, &j5, &j6], &nr, &[&p], q, None, false);
    assert_eq!(started(&d).len(), 5, "{:?}", d);
}

#[test]
fn preempt_qos_takes_the_oldest_job_wherever_it_runs() {
    // measured on 22.05 (qos.md, "Victim choice"): four 4-CPU normal jobs,
    // two on each 8-CPU node; a 4-CPU high job preempts the oldest, also
    // when it runs on the second node
    let ns = [busy("n1", 8, 8), busy("n2", 8, 8)];
    let nr: Vec<&Node> = ns.iter().collect();
    let p = part("p", &nr);
    let j = |id: u32, n: &str, start: i64| running_on(id, n, 4, start, 60);
    let (a, b, c, d) = (j(20, "n2", NOW - 40), j(21, "n1", NOW - 30), j(22, "n1", NOW - 20), j(23, "n2", NOW - 10));
    let mut h = in_qos(job(24), "high");
    h.num_cpus = 4;
    h.desc.cpus_per_task = Some(4);
    let dec = qos_pass(&[&a, &b, &c, &d, &h], &nr, &[&p], qos_records(), Some(PreemptMode::Requeue), false);
    assert_eq!(preempts(&dec), vec![(20, true)], "{:?}", dec);
}
