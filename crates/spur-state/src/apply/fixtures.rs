//! Test fixtures: a small cluster, jobs, and the check that a command failed
//! without changing anything.

use crate::{Applied, Command, State};
use spur_core::model::*;

pub fn job() -> Job {
    Job {
        desc: JobDesc { name: "wrap".into(), ..Default::default() },
        user_name: "root".into(),
        group_name: "root".into(),
        priority: 1,
        partition: "p".into(),
        submit_time: 1,
        eligible_time: 1,
        num_nodes: 1,
        num_tasks: 1,
        num_cpus: 1,
        batch_flag: 1,
        ..Default::default()
    }
}

pub fn array(tasks: &[u32]) -> Job {
    Job { array: Some(ArrayInfo { pending_tasks: tasks.to_vec(), ..Default::default() }), ..job() }
}

pub fn node(name: &str) -> Node {
    Node {
        name: name.into(),
        addr: "127.0.0.1".into(),
        hostname: name.into(),
        cpus: 2,
        boards: 1,
        sockets: 1,
        cores_per_socket: 2,
        threads_per_core: 1,
        real_memory: 2000,
        weight: 1,
        base: NodeBase::Idle,
        ..Default::default()
    }
}

/// Nodes n1 and n2 (2 CPUs, 2000 MB), partition `p` (default) and `q`.
pub fn cluster() -> State {
    let part = |name: &str, default: bool| Partition {
        name: name.into(),
        nodes: vec!["n1".into(), "n2".into()],
        nodes_expr: "n[1-2]".into(),
        default,
        ..Default::default()
    };
    State::new("c".into(), vec![node("n1"), node("n2")], vec![part("p", true), part("q", false)], 1, 1000)
}

pub fn alloc(node: &str, cpus: u32, mem_mb: u64) -> NodeAlloc {
    NodeAlloc { node: node.into(), cpus, mem_mb, gres: vec![] }
}

pub fn submit(s: &mut State, job: Job) -> u32 {
    match s.apply(&Command::Submit { job: Box::new(job) }) {
        Ok(Applied::Submitted(id)) => id,
        other => panic!("submit: {:?}", other),
    }
}

/// A job running on `node` with 1 CPU and 500 MB, started at 10.
pub fn running(s: &mut State, node: &str) -> u32 {
    let id = submit(s, job());
    let r = s.apply(&Command::Start {
        job_id: id,
        task: None,
        allocs: vec![alloc(node, 1, 500)],
        now: 10,
        pass_ms: 10_000,
        extern_step: false,
        backfill: false,
    });
    assert_eq!(r, Ok(Applied::Started(id)));
    id
}

/// `cmd` fails with `code` and the state is byte for byte as it was.
#[track_caller]
pub fn refused(s: &mut State, cmd: Command, code: i32) {
    let before = s.encode().unwrap();
    let queue = s.queue_ids();
    assert_eq!(s.apply(&cmd), Err(code), "{:?}", cmd);
    assert!(s.encode().unwrap() == before, "{:?} failed but changed the state", cmd);
    assert_eq!(s.queue_ids(), queue);
}
