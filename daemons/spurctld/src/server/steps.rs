//! srun's steps: `StepCreate` lays a step out in its job (a committed
//! `Command::StepCreate`) and starts it on its nodes through the launch tree;
//! `StepComplete` frees a step's resources, or ends an allocation that has
//! no batch script (srun's or salloc's own) with srun's exit status.

use super::{st, Service};
use crate::ctld::now;
use crate::validate::{self, Action};
use spur_auth::Identity;
use spur_core::errors::*;
use spur_proto::*;
use spur_state::{Applied, Command};
use tonic::{Request, Response};

type R<T> = Result<Response<T>, tonic::Status>;

/// A request names at most this many nodes (`--nodelist`, `--exclude`).
const MAX_STEP_NODES: u64 = 100_000;

/// srun's address as this controller sees it, when it did not say.
fn srun_address(c: &mut spur_core::launch::StepCreate, peer: Option<std::net::IpAddr>) {
    let peer = peer.map(|p| p.to_string()).unwrap_or_default();
    c.req.srun_addr = peer.clone();
    if c.req.srun_host.is_empty() {
        c.req.srun_host = peer.clone();
    }
    if let Some(port) = c.io.io_addr.strip_prefix(':') {
        c.io.io_addr = format!("{}:{}", peer, port);
    }
}

impl Service {
    pub(super) async fn step_create_as(&self, id: Identity, req: Request<StepCreateRequest>) -> R<StepCreateReply> {
        let peer = req.remote_addr().map(|a| a.ip());
        let r = req.into_inner();
        let version = spur_format::version_for(r.max_format_version);
        let reply = |code: i32, step: Vec<u8>, node: String| {
            Ok(Response::new(StepCreateReply { status: st(code), step, failed_node: node }))
        };
        let mut c = match spur_core::records::decode_step_create(&r.create, &"step request") {
            Ok(c) => c,
            // a newer srun than this controller, as for a submission: say so
            // (controllers are upgraded first)
            Err(e @ spur_format::FormatError::TooNew { .. }) => {
                tracing::warn!("{}", e);
                let status = Some(Status { code: SLURM_PROTOCOL_VERSION_ERROR, message: e.to_string() });
                return Ok(Response::new(StepCreateReply { status, step: vec![], failed_node: String::new() }));
            }
            Err(e) => {
                tracing::warn!("step request refused: {}", e);
                return reply(SLURM_UNEXPECTED_MSG_ERROR, vec![], String::new());
            }
        };
        if spur_core::launch::NOALLOC_JOB_IDS.contains(&c.req.job_id) {
            return self.step_launch_noalloc(id, c, peer, version).await;
        }
        let owner = self.ctld.read().state.jobs().get(&c.req.job_id).map(|j| j.user_id);
        let Some(owner) = owner else {
            return reply(ESLURM_INVALID_JOB_ID, vec![], String::new());
        };
        if let Err(code) = validate::authorize(&self.caller(&id), Action::CreateStep, Some(owner)) {
            return reply(code, vec![], String::new());
        }
        for list in [&mut c.req.node_list, &mut c.req.exclude] {
            if let Some(expr) = list.as_mut() {
                match spur_grammar::hostlist::expand_bounded(expr, MAX_STEP_NODES) {
                    Ok(v) => *expr = v.join(","),
                    Err(_) => return reply(ESLURM_INVALID_NODE_NAME, vec![], String::new()),
                }
            }
        }
        srun_address(&mut c, peer);
        // `MpiParams=ports=` is the controller's, not srun's, to say
        c.req.resv_port_range = self.ctld.conf.get("MpiParams").and_then(spur_core::request::mpi_params_ports);
        let t = now();
        let res = self.ctld.commit(vec![Command::StepCreate { req: Box::new(c.req.clone()), now: t }]).await?;
        let step_id = match res.into_iter().next() {
            Some(Ok(Applied::StepCreated(n))) => n,
            Some(Err(code)) => return reply(code, vec![], String::new()),
            _ => return reply(SLURM_ERROR_ANY, vec![], String::new()),
        };
        let (launch, write_version) = {
            let g = self.ctld.read();
            let Some(job) = g.state.jobs().get(&c.req.job_id) else {
                return reply(ESLURM_ALREADY_DONE, vec![], String::new());
            };
            let Some(step) = job.steps.iter().find(|s| s.step_id == step_id).cloned() else {
                return reply(ESLURM_ALREADY_DONE, vec![], String::new());
            };
            let launch = self.ctld.step_launch(job, step, c.io);
            (launch, g.state.write_format_version())
        };
        match self.start(&launch, write_version, version).await {
            Ok(step_bytes) => reply(0, step_bytes, String::new()),
            Err((code, step_bytes, node)) => {
                // the step's resources are free again
                let done = Command::StepComplete { job_id: launch.job.job_id, step_id, exit_status: None, now: now() };
                let _ = self.ctld.commit(vec![done]).await;
                reply(code, step_bytes, node)
            }
        }
    }

    /// `srun --no-allocate` (root and SlurmUser only): the step runs on the
    /// nodes srun names, as srun's job of its own id (`NOALLOC_JOB_IDS`), each
    /// node holding the tasks' share of CPUs (srun's `job_create_noalloc`);
    /// nothing is committed, so no job or step record shows it.
    async fn step_launch_noalloc(
        &self,
        id: Identity,
        mut c: spur_core::launch::StepCreate,
        peer: Option<std::net::IpAddr>,
        version: u16,
    ) -> R<StepCreateReply> {
        let reply = |code: i32, step: Vec<u8>, node: String| {
            Ok(Response::new(StepCreateReply { status: st(code), step, failed_node: node }))
        };
        let nodes: Vec<String> =
            match c.req.node_list.as_deref().map(|l| spur_grammar::hostlist::expand_bounded(l, MAX_STEP_NODES)) {
                Some(Ok(v)) if !v.is_empty() => v,
                _ => return reply(ESLURM_INVALID_NODE_NAME, vec![], String::new()),
            };
        let known = {
            let g = self.ctld.read();
            nodes.iter().all(|n| g.state.node(n).is_some())
        };
        if !known {
            return reply(ESLURM_INVALID_NODE_NAME, vec![], String::new());
        }
        // slurmd refuses a launch without an allocation from any other user
        if !self.caller(&id).slurm_user {
            return reply(ESLURM_ACCESS_DENIED, vec![], nodes[0].clone());
        }
        srun_address(&mut c, peer);
        let t = now();
        let ntasks = c.req.num_tasks.unwrap_or(nodes.len() as u32).max(1);
        let cpn = ntasks.div_ceil(nodes.len() as u32).saturating_mul(c.req.cpus_per_task.max(1));
        let user_name = spur_auth::users::user_name(id.uid).unwrap_or_else(|| id.uid.to_string());
        let job = spur_core::model::Job {
            job_id: c.req.job_id,
            user_id: id.uid,
            group_id: id.gid,
            user_name,
            state: spur_core::model::JobState::Running,
            start_time: t,
            // srun's random step id (lrand48 there)
            next_step_id: (t as u32 ^ c.req.srun_pid.wrapping_mul(2_654_435_761)) & 0x7fff_ffff,
            allocs: nodes
                .iter()
                .map(|n| spur_core::model::NodeAlloc { node: n.clone(), cpus: cpn, mem_mb: 0, gres: vec![] })
                .collect(),
            desc: spur_core::model::JobDesc {
                name: c.req.name.clone(),
                work_dir: c.req.work_dir.clone(),
                ..Default::default()
            },
            ..Default::default()
        };
        let mut req = c.req.clone();
        // the tasks go where srun says, on CPUs nobody accounts for
        req.node_list = Some(nodes.join(","));
        req.overcommit = true;
        req.overlap = true;
        let (write_version, step) = {
            let g = self.ctld.read();
            let v = g.state.write_format_version();
            (v, spur_state::step_layout(&job, &req, t, v))
        };
        let step = match step {
            Ok(s) => s,
            Err(code) => return reply(code, vec![], String::new()),
        };
        let launch = self.ctld.step_launch(&job, step, c.io);
        match self.start(&launch, write_version, version).await {
            Ok(step_bytes) => reply(0, step_bytes, String::new()),
            Err((code, step_bytes, node)) => reply(code, step_bytes, node),
        }
    }

    /// Start the step on its nodes: its record for srun (at srun's
    /// `version`), or the error, that record and the node that failed (what
    /// did start is killed).
    async fn start(
        &self,
        launch: &spur_core::launch::StepLaunch,
        write_version: u16,
        version: u16,
    ) -> Result<Vec<u8>, (i32, Vec<u8>, String)> {
        let step_bytes = spur_core::records::encode_step(&launch.step, version).unwrap_or_default();
        let Ok(spec) = spur_core::records::encode_step_launch(launch, write_version) else {
            return Err((SLURM_ERROR_ANY, vec![], String::new()));
        };
        let (job_id, step_id) = (launch.job.job_id, launch.step.step_id);
        let nodes = launch.step.node_names();
        match self.ctld.launch_step(spec, &nodes).await {
            Ok(()) => Ok(step_bytes),
            Err((node, code, msg)) => {
                tracing::warn!("step {}.{} did not start on {}: {}", job_id, step_id, node, msg);
                self.ctld.signal_steps(job_id, step_id, &nodes, libc::SIGKILL, true).await;
                Err((code, step_bytes, node))
            }
        }
    }

    pub(super) async fn step_complete_as(
        &self,
        id: Identity,
        req: Request<StepCompleteRequest>,
    ) -> R<StepCompleteReply> {
        let r = req.into_inner();
        let reply = |code: i32| Ok(Response::new(StepCompleteReply { status: st(code) }));
        let found = self.ctld.read().state.jobs().get(&r.job_id).map(|j| {
            (j.user_id, j.desc.script.is_empty(), j.node_names(), j.state.is_active(), !j.steps.is_empty(), j.state)
        });
        let Some((owner, alloc_only, nodes, active, has_steps, state)) = found else {
            return reply(ESLURM_INVALID_JOB_ID);
        };
        if let Err(code) = validate::authorize(&self.caller(&id), Action::CreateStep, Some(owner)) {
            return reply(code);
        }
        if !r.release && !r.node.is_empty() {
            // what the step used there goes into its record (running or
            // ended), once the cluster writes it; only an agent reports it
            // (a user's own numbers are not accounting)
            if let Some(u) = r.usage.as_ref().filter(|_| id.kind == spur_auth::Kind::Agent) {
                if self.ctld.read().state.write_format_version() >= spur_state::STEP_USAGE_VERSION {
                    let usage = Box::new(spur_proto::convert::node_usage(&r.node, u));
                    let _ = self
                        .ctld
                        .commit(vec![Command::StepUsage { job_id: r.job_id, step_id: r.step_id, usage }])
                        .await;
                }
            }
            // one node's step daemon is done: wait for the step's others
            let nodes: Vec<String> = self
                .ctld
                .read()
                .state
                .jobs()
                .get(&r.job_id)
                .and_then(|j| j.steps.iter().find(|s| s.step_id == r.step_id))
                .map(|s| s.node_names())
                .unwrap_or_default();
            // (with the highest exit status of the nodes' tasks so far)
            let all = {
                let mut ends = self.ctld.step_ends.lock().unwrap_or_else(|e| e.into_inner());
                let done = ends.entry((r.job_id, r.step_id)).or_default();
                done.0.insert(r.node.clone());
                done.1 = done.1.max(r.exit_status);
                let all = nodes.iter().all(|n| done.0.contains(n));
                if all {
                    ends.remove(&(r.job_id, r.step_id)).map(|d| d.1)
                } else {
                    None
                }
            };
            let Some(exit) = all else {
                return reply(0);
            };
            let done =
                Command::StepComplete { job_id: r.job_id, step_id: r.step_id, exit_status: Some(exit), now: now() };
            let res = self.ctld.commit(vec![done]).await?;
            return reply(match res.into_iter().next() {
                Some(Err(c)) if c != ESLURM_ALREADY_DONE => c,
                _ => 0,
            });
        }
        if !r.release {
            // srun's report: its tasks' highest exit status
            self.ctld.step_ends.lock().unwrap_or_else(|e| e.into_inner()).remove(&(r.job_id, r.step_id));
            let done = Command::StepComplete {
                job_id: r.job_id,
                step_id: r.step_id,
                exit_status: Some(r.exit_status),
                now: now(),
            };
            let res = self.ctld.commit(vec![done]).await?;
            return reply(match res.into_iter().next() {
                Some(Err(c)) if c != ESLURM_ALREADY_DONE => c,
                _ => 0,
            });
        }
        if !alloc_only {
            // a batch job ends when its script does
            return reply(ESLURM_NOT_SUPPORTED);
        }
        if state == spur_core::model::JobState::Pending {
            // an allocation given up before it started (`--immediate`): it
            // fails, as slurmctld fails an immediate allocation it cannot start
            let t = now();
            self.ctld
                .commit(vec![
                    Command::Reasons { changes: vec![(r.job_id, spur_core::model::Reason::BadConstraints)] },
                    Command::Kill {
                        job_id: r.job_id,
                        task: None,
                        state: spur_core::model::JobState::Failed,
                        now: t,
                        uid: None,
                    },
                ])
                .await?;
            return reply(0);
        }
        if !active {
            return reply(0);
        }
        if has_steps {
            self.ctld.signal_steps(r.job_id, u32::MAX, &nodes, libc::SIGKILL, true).await;
        }
        let res = self
            .ctld
            .commit(vec![Command::Complete {
                job_id: r.job_id,
                exit_status: r.exit_status,
                launch_failed: false,
                now: now(),
            }])
            .await?;
        self.ctld.sched_wake.notify_one();
        reply(match res.into_iter().next() {
            Some(Err(c)) if c != ESLURM_INVALID_JOB_ID => c,
            _ => 0,
        })
    }
}
