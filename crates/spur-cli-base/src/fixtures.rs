//! Records for the commands' tests: the jobs, nodes and partition of the
//! recorded `basic` scenario (conformance/recorded/24.11/basic), as the
//! controller answers a query.

use spur_core::model::*;

/// A pending `--wrap` job of root's in `debug`, as the basic scenario submits it.
pub fn base_job(id: u32, state: JobState) -> Job {
    Job {
        job_id: id,
        desc: JobDesc {
            name: "wrap".into(),
            work_dir: "/tmp/spur-conf-work".into(),
            wrapped: true,
            alloc_node: "localhost".into(),
            alloc_sid: 4057,
            ..Default::default()
        },
        user_name: "root".into(),
        group_name: "root".into(),
        state,
        priority: 1,
        partition: "debug".into(),
        submit_time: 1000,
        eligible_time: 1000,
        num_nodes: 1,
        num_tasks: 1,
        num_cpus: 1,
        mem_per_cpu: 500,
        batch_flag: 1,
        ..Default::default()
    }
}

/// `base_job` running on `nodes` since `start`, a CPU and 500 MB on each.
pub fn running(id: u32, start: i64, nodes: &[&str]) -> Job {
    let mut j = base_job(id, JobState::Running);
    j.start_time = start;
    j.allocs = nodes.iter().map(|n| NodeAlloc { node: n.to_string(), cpus: 1, mem_mb: 500, gres: vec![] }).collect();
    j.num_nodes = nodes.len() as u32;
    j.num_cpus = nodes.len() as u32;
    j.num_tasks = nodes.len() as u32;
    j
}

/// An array task, running on `node`.
pub fn task(id: u32, arr: u32, t: u32, start: i64, node: &str) -> Job {
    let mut j = running(id, start, &[node]);
    j.array = Some(ArrayInfo { array_job_id: arr, task_id: Some(t), ..Default::default() });
    j
}

/// The cluster of the recorded `basic` scenario at its first `squeue`.
pub fn basic_view() -> ClusterView {
    let now = 10_013;
    let j1 = running(1, 10_000, &["node1"]);
    let mut j2 = running(2, 10_003, &["node1"]);
    j2.desc.name = "myname".into();
    let mut j3 = base_job(3, JobState::Pending);
    j3.priority = 0;
    j3.reason = Reason::JobHeldUser;
    let j4 = running(4, 10_006, &["node2", "node3"]);
    let j7 = task(7, 6, 1, 10_012, "node2");
    let j8 = task(8, 6, 2, 10_012, "node3");
    let j6 = task(6, 6, 3, 10_012, "node4");
    let mut j9 = base_job(9, JobState::Pending);
    j9.desc.name = "dep".into();
    j9.reason = Reason::Dependency;
    j9.desc.dependency = Some("afterok:1".into());
    ClusterView { now, jobs: vec![j1, j2, j3, j4, j7, j8, j6, j9], ..Default::default() }
}

/// `node{i}` of the test cluster (2 CPUs, 2000 MB), `alloc` CPUs allocated.
pub fn node(i: u32, alloc: u32) -> Node {
    Node {
        name: format!("node{}", i),
        addr: "127.0.0.1".into(),
        hostname: format!("node{}", i),
        port: 47800 + i as u16,
        cpus: 2,
        boards: 1,
        sockets: 1,
        cores_per_socket: 2,
        threads_per_core: 1,
        real_memory: 2000,
        weight: 1,
        base: if alloc > 0 { NodeBase::Allocated } else { NodeBase::Idle },
        alloc_cpus: alloc,
        alloc_mem: 500 * alloc as u64,
        os: "Linux".into(),
        arch: "x86_64".into(),
        version: "24.11.5".into(),
        cpu_load: 44,
        free_mem: 22908,
        ..Default::default()
    }
}

/// The test cluster's only partition, `debug` (node[1-4]), the default.
pub fn debug_part() -> Partition {
    Partition {
        name: "debug".into(),
        nodes: (1..=4).map(|i| format!("node{}", i)).collect(),
        nodes_expr: "node[1-4]".into(),
        default: true,
        oversubscribe: "NO".into(),
        priority_tier: 1,
        priority_job_factor: 1,
        ..Default::default()
    }
}
