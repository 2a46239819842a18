//! srun's steps: `StepCreate` lays a step out in its job (a committed
//! `Command::StepCreate`) and starts it on its nodes through the launch tree;
//! `StepComplete` frees a step's resources, or ends an allocation that has
//! no batch script (srun's or salloc's own) with srun's exit status.

use super::{st, Service};
use crate::ctld::now;
use crate::validate::{self, Action};
use spur_auth::Identity;
use spur_core::errors::*;
use spur_core::launch::StepLaunch;
use spur_proto::*;
use spur_state::{Applied, Command};
use tonic::{Request, Response};

type R<T> = Result<Response<T>, tonic::Status>;

/// A request names at most this many nodes (`--nodelist`, `--exclude`).
const MAX_STEP_NODES: u64 = 100_000;

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
            Err(e) => {
                tracing::warn!("step request refused: {}", e);
                return reply(SLURM_UNEXPECTED_MSG_ERROR, vec![], String::new());
            }
        };
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
        // srun's address as this controller sees it, when it did not say
        let peer = peer.map(|p| p.to_string()).unwrap_or_default();
        c.req.srun_addr = peer.clone();
        if c.req.srun_host.is_empty() {
            c.req.srun_host = peer.clone();
        }
        if let Some(port) = c.io.io_addr.strip_prefix(':') {
            c.io.io_addr = format!("{}:{}", peer, port);
        }
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
            let mut j = job.clone();
            j.steps.clear();
            let launch = StepLaunch {
                uid: j.user_id,
                gid: j.group_id,
                user_name: j.user_name.clone(),
                job: j,
                step,
                io: c.io,
                cluster_name: self.ctld.conf.cluster_name.clone(),
                ctld_host: self.ctld.conf.controllers.first().map(|c| c.name.clone()).unwrap_or_default(),
                ctld_port: self.ctld.conf.slurmctld_port,
                kill_wait: self.ctld.conf.kill_wait as u32,
            };
            (launch, g.state.write_format_version())
        };
        let step_bytes = spur_core::records::encode_step(&launch.step, version).unwrap_or_default();
        let spec = match spur_core::records::encode_step_launch(&launch, write_version) {
            Ok(b) => b,
            Err(_) => return reply(SLURM_ERROR_ANY, vec![], String::new()),
        };
        let nodes = launch.step.node_names();
        match self.ctld.launch_step(spec, &nodes).await {
            Ok(()) => reply(0, step_bytes, String::new()),
            Err((node, code, msg)) => {
                tracing::warn!("step {}.{} did not start on {}: {}", launch.job.job_id, step_id, node, msg);
                // what did start ends, and the step's resources are free again
                self.ctld.signal_steps(launch.job.job_id, step_id, &nodes, libc::SIGKILL, true).await;
                let _ = self.ctld.commit(vec![Command::StepComplete { job_id: launch.job.job_id, step_id }]).await;
                reply(code, step_bytes, node)
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
            let all = {
                let mut ends = self.ctld.step_ends.lock().unwrap_or_else(|e| e.into_inner());
                let done = ends.entry((r.job_id, r.step_id)).or_default();
                done.insert(r.node.clone());
                let all = nodes.iter().all(|n| done.contains(n));
                if all {
                    ends.remove(&(r.job_id, r.step_id));
                }
                all
            };
            if !all {
                return reply(0);
            }
        }
        if !r.release {
            self.ctld.step_ends.lock().unwrap_or_else(|e| e.into_inner()).remove(&(r.job_id, r.step_id));
            let res = self.ctld.commit(vec![Command::StepComplete { job_id: r.job_id, step_id: r.step_id }]).await?;
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
                    Command::Kill { job_id: r.job_id, task: None, state: spur_core::model::JobState::Failed, now: t },
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
