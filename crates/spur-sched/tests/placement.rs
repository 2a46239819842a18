//! Random job shapes on random clusters: a pass never panics (nor has a
//! placement fault caught and set aside) and never gives a node more CPUs,
//! memory or GRES than it has, nor a job nodes it may not use.
//!
//! Clusters: up to six nodes of 1-16 CPUs, 0-32,000 MB, GPUs of two types or
//! none, idle, partly used or down, in one partition (all or some of them,
//! perhaps with MaxNodes). Jobs: `-N min[-max]` or none, 1-40 tasks, 1-4
//! CPUs per task, `--overcommit`, `--exclusive`, `--mem` or `--mem-per-cpu`,
//! `--gres=gpu[:type]:n`, `--nodelist` and `--exclude` of any nodes (in the
//! partition or not), as the controller records them. The pass includes the
//! backfill phase (`sched/backfill`).

use proptest::prelude::*;
use spur_core::model::{AcceptedOptions, Job, JobDesc, JobState, Node, NodeBase, Partition};
use spur_sched::backfill::BackfillParams;
use spur_sched::{schedule_pass, Decision, Params};
use std::collections::{HashMap, HashSet};

const NOW: i64 = 1_000_000;
const TYPES: [Option<&str>; 3] = [None, Some("a"), Some("b")];

#[derive(Clone, Debug)]
struct NodeSpec {
    cpus: u32,
    mem: u64,
    weight: u32,
    /// GPUs of type a and b
    gpus: (u64, u64),
    /// 0 idle, 1 partly used, 2 down
    state: u8,
    /// fraction used (of 8ths) when partly used
    used: u32,
}

fn node_spec() -> impl Strategy<Value = NodeSpec> {
    (
        1u32..=16,
        prop_oneof![1 => Just(0u64), 6 => 1u64..=32_000],
        1u32..=3,
        (0u64..=4, 0u64..=2),
        prop_oneof![6 => Just(0u8), 3 => Just(1u8), 1 => Just(2u8)],
        0u32..=8,
    )
        .prop_map(|(cpus, mem, weight, gpus, state, used)| NodeSpec { cpus, mem, weight, gpus, state, used })
}

#[derive(Clone, Debug)]
struct JobSpec {
    nodes: Option<(u32, Option<u32>)>,
    tasks: Option<u32>,
    cpt: Option<u32>,
    overcommit: bool,
    exclusive: bool,
    /// 0 none, 1 --mem, 2 --mem-per-cpu
    mem: (u8, u64),
    gres: Option<(usize, u64)>,
    nodelist: Vec<usize>,
    exclude: Vec<usize>,
}

fn job_spec() -> impl Strategy<Value = JobSpec> {
    (
        prop_oneof![1 => Just(None), 2 => (1u32..=4, prop::option::of(0u32..=3)).prop_map(Some)],
        prop::option::of(1u32..=40),
        prop::option::of(1u32..=4),
        any::<bool>(),
        prop_oneof![4 => Just(false), 1 => Just(true)],
        (0u8..=2, 0u64..=20_000),
        prop::option::of((0usize..3, 1u64..=4)),
        prop_oneof![3 => Just(vec![]), 1 => prop::collection::vec(0usize..7, 1..3)],
        prop_oneof![3 => Just(vec![]), 1 => prop::collection::vec(0usize..7, 1..3)],
    )
        .prop_map(|(nodes, tasks, cpt, overcommit, exclusive, mem, gres, nodelist, exclude)| JobSpec {
            nodes,
            tasks,
            cpt,
            overcommit,
            exclusive,
            mem,
            gres,
            nodelist,
            exclude,
        })
}

fn name(i: usize) -> String {
    format!("n{}", i + 1)
}

fn build_node(i: usize, s: &NodeSpec) -> Node {
    let mut gres = vec![];
    if s.gpus.0 > 0 {
        gres.push(("gpu".to_string(), Some("a".to_string()), s.gpus.0));
    }
    if s.gpus.1 > 0 {
        gres.push(("gpu".to_string(), Some("b".to_string()), s.gpus.1));
    }
    let mut n = Node {
        name: name(i),
        cpus: s.cpus,
        boards: 1,
        sockets: 1,
        cores_per_socket: s.cpus,
        threads_per_core: 1,
        real_memory: s.mem,
        weight: s.weight,
        gres,
        base: NodeBase::Idle,
        ..Default::default()
    };
    match s.state {
        1 => {
            n.base = NodeBase::Allocated;
            n.alloc_cpus = (s.cpus * s.used / 8).max(1);
            n.alloc_mem = s.mem * s.used as u64 / 8;
            n.alloc_gres = n.gres.iter().map(|(g, t, c)| (g.clone(), t.clone(), c * s.used as u64 / 8)).collect();
        }
        2 => n.base = NodeBase::Down,
        _ => {}
    }
    n
}

/// A job as the controller records it (server.rs build_job).
fn build_job(id: u32, s: &JobSpec) -> Job {
    let mut d = JobDesc { name: format!("j{}", id), ..Default::default() };
    if let Some((min, extra)) = s.nodes {
        d.min_nodes = Some(min);
        d.max_nodes = extra.map(|e| min + e);
    }
    d.num_tasks = s.tasks;
    d.cpus_per_task = s.cpt;
    d.exclusive = s.exclusive;
    match s.mem.0 {
        1 => d.mem_per_node = Some(s.mem.1),
        2 => d.mem_per_cpu = Some(s.mem.1 / 4),
        _ => {}
    }
    d.gres = s.gres.map(|(t, n)| match TYPES[t] {
        Some(t) => format!("gpu:{}:{}", t, n),
        None => format!("gpu:{}", n),
    });
    let list = |v: &[usize]| (!v.is_empty()).then(|| v.iter().map(|i| name(*i)).collect::<Vec<_>>().join(","));
    d.req_nodes = list(&s.nodelist);
    d.exc_nodes = list(&s.exclude);
    if s.overcommit {
        d.accepted = Some(Box::new(AcceptedOptions { overcommit: true, ..Default::default() }));
    }
    let cpt = s.cpt.unwrap_or(1).max(1);
    let nodes = d.min_nodes.unwrap_or(1).max(1);
    let tasks = s.tasks.unwrap_or(nodes);
    let num_cpus = if s.overcommit { nodes * cpt } else { (tasks * cpt).max(nodes) };
    let mem_per_cpu = d.mem_per_cpu.unwrap_or(0);
    Job {
        job_id: id,
        desc: d,
        user_name: "u".into(),
        state: JobState::Pending,
        priority: 1 + (id % 3),
        partition: "p".into(),
        submit_time: id as i64,
        eligible_time: id as i64,
        num_nodes: nodes,
        num_tasks: tasks,
        num_cpus,
        mem_per_cpu,
        batch_flag: 1,
        ..Default::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn a_pass_never_panics_nor_over_allocates(
        nspecs in prop::collection::vec(node_spec(), 1..=6),
        members in prop::collection::vec(any::<bool>(), 6),
        part_max in prop::option::of(1u32..=4),
        jspecs in prop::collection::vec(job_spec(), 1..=8),
    ) {
        let nodes: Vec<Node> = nspecs.iter().enumerate().map(|(i, s)| build_node(i, s)).collect();
        let mut in_part: Vec<String> =
            nodes.iter().enumerate().filter(|(i, _)| members[*i]).map(|(_, n)| n.name.clone()).collect();
        if in_part.is_empty() {
            in_part = nodes.iter().map(|n| n.name.clone()).collect();
        }
        let part = Partition {
            name: "p".into(),
            nodes: in_part.clone(),
            max_nodes: part_max,
            priority_tier: 1,
            priority_job_factor: 1,
            ..Default::default()
        };
        let jobs: Vec<Job> = jspecs.iter().enumerate().map(|(i, s)| build_job(i as u32 + 1, s)).collect();
        let nr: Vec<&Node> = nodes.iter().collect();
        let jr: Vec<&Job> = jobs.iter().collect();
        // with the backfill phase: its starts must hold to the same rules
        let lookup = |id: u32| jobs.get(id as usize - 1);
        let params = Params { depth: usize::MAX, backfill: Some(BackfillParams::default()), preempt: None, ending: vec![], topology: None, qos: None };
        let d = schedule_pass(NOW, &jr, &lookup, &nr, &[&part], &[], &params).0;

        let by_name: HashMap<&str, &Node> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
        // what this pass gives each node: cpus, memory, GPUs by type (None: untyped)
        let mut cpus: HashMap<&str, u64> = HashMap::new();
        let mut mem: HashMap<&str, u64> = HashMap::new();
        let mut gpus: HashMap<(&str, Option<String>), u64> = HashMap::new();
        let mut jobs_on: HashMap<&str, Vec<u32>> = HashMap::new();
        for x in &d {
            match x {
                Decision::SetAside { job_id, error } => {
                    prop_assert!(false, "placing job {} panicked: {}", job_id, error);
                }
                Decision::Start { job_id, allocs, .. } => {
                    let j = &jobs[*job_id as usize - 1];
                    let s = &jspecs[*job_id as usize - 1];
                    let names: HashSet<&str> = allocs.iter().map(|a| a.node.as_str()).collect();
                    prop_assert_eq!(names.len(), allocs.len(), "job {} twice on a node: {:?}", job_id, allocs);
                    prop_assert!(allocs.len() as u32 >= j.num_nodes, "job {} on too few nodes: {:?}", job_id, allocs);
                    if j.desc.min_nodes.is_some() {
                        // (a --nodelist of more nodes wins, as when the controller accepted it)
                        let listed = s.nodelist.iter().collect::<HashSet<_>>().len() as u32;
                        let max = j.desc.max_nodes.unwrap_or(j.num_nodes).max(j.num_nodes).max(listed);
                        prop_assert!(allocs.len() as u32 <= max, "job {} on too many nodes: {:?}", job_id, allocs);
                    }
                    for i in &s.nodelist {
                        prop_assert!(names.contains(name(*i).as_str()), "job {} without its --nodelist", job_id);
                    }
                    for i in &s.exclude {
                        prop_assert!(!names.contains(name(*i).as_str()), "job {} on an excluded node", job_id);
                    }
                    let cpt = s.cpt.unwrap_or(1).max(1) as u64;
                    let total: u64 = allocs.iter().map(|a| a.cpus as u64).sum();
                    if !s.overcommit {
                        prop_assert!(total >= j.num_tasks as u64 * cpt, "job {}: {} CPUs for its tasks", job_id, total);
                    }
                    for a in allocs {
                        let n = by_name[a.node.as_str()];
                        prop_assert!(in_part.contains(&n.name), "job {} outside its partition", job_id);
                        prop_assert!(n.is_usable(), "job {} on an unusable node", job_id);
                        prop_assert!(a.cpus as u64 >= cpt, "job {}: less than one task's CPUs on {}", job_id, n.name);
                        if s.exclusive {
                            prop_assert_eq!(n.alloc_cpus, 0, "exclusive job {} on a used node", job_id);
                        }
                        *cpus.entry(&n.name).or_default() += a.cpus as u64;
                        *mem.entry(&n.name).or_default() += a.mem_mb;
                        jobs_on.entry(&n.name).or_default().push(*job_id);
                        for g in &a.gres {
                            *gpus.entry((&n.name, g.gtype.clone())).or_default() += g.count;
                        }
                    }
                }
                _ => {}
            }
        }
        for n in &nodes {
            let nm = n.name.as_str();
            prop_assert!(
                n.alloc_cpus as u64 + cpus.get(nm).copied().unwrap_or(0) <= n.cpus as u64,
                "{}: CPUs over its {}: {:?}", nm, n.cpus, d
            );
            prop_assert!(
                n.alloc_mem + mem.get(nm).copied().unwrap_or(0) <= n.real_memory,
                "{}: memory over its {}: {:?}", nm, n.real_memory, d
            );
            let have = |t: Option<&str>| -> u64 {
                n.gres.iter().filter(|g| t.is_none() || g.1.as_deref() == t).map(|g| g.2).sum()
            };
            let used = |t: Option<&str>| -> u64 {
                n.alloc_gres.iter().filter(|g| t.is_none() || g.1.as_deref() == t).map(|g| g.2).sum()
            };
            let given = |t: Option<&str>| -> u64 {
                gpus.iter()
                    .filter(|((x, gt), _)| *x == nm && (t.is_none() || gt.as_deref() == t))
                    .map(|(_, c)| *c)
                    .sum()
            };
            prop_assert!(used(None) + given(None) <= have(None), "{}: GPUs over its {}: {:?}", nm, have(None), d);
            for t in ["a", "b"] {
                prop_assert!(
                    used(Some(t)) + given(Some(t)) <= have(Some(t)),
                    "{}: GPUs of type {} over its {}: {:?}", nm, t, have(Some(t)), d
                );
            }
            // an exclusive job has its node to itself
            if let Some(on) = jobs_on.get(nm) {
                if on.iter().any(|id| jspecs[*id as usize - 1].exclusive) {
                    prop_assert_eq!(on.len(), 1, "{}: an exclusive job shares it: {:?}", nm, on);
                }
            }
        }
    }
}
