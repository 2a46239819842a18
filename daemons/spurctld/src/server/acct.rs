//! sacct's and sstat's RPCs: `Accounting` answers from this member's
//! accounting store (spur-accounting), `StepStat` asks a running step's
//! agents for what its tasks use now.

use super::{sees_job, st, Service, R};
use crate::validate::{self, Action};
use spur_auth::Identity;
use spur_core::acct::{AcctJob, AcctQuery};
use spur_core::errors::*;
use spur_format::Kind;
use spur_proto::*;
use tonic::{Request, Response};

impl Service {
    pub(super) async fn accounting_as(&self, id: Identity, req: Request<AccountingRequest>) -> R<AccountingReply> {
        let r = req.into_inner();
        let fail = |code: i32, msg: String| {
            Ok(Response::new(AccountingReply { status: Some(Status { code, message: msg }), records: vec![] }))
        };
        let q: AcctQuery = match spur_format::decode(Kind::ACCT_QUERY, &r.query, &"an accounting query") {
            Ok((q, _)) => q,
            Err(e) => return fail(SLURM_PROTOCOL_VERSION_ERROR, e.to_string()),
        };
        let Some(store) = self.ctld.acct.get().cloned() else {
            return fail(ESLURM_DB_CONNECTION, "Slurm accounting storage is disabled".into());
        };
        let caller = self.caller(&id);
        let private = self.ctld.conf.private_data().jobs;
        // off the request threads: a query may read many records
        let found = tokio::task::spawn_blocking(move || store.query(&q)).await;
        let mut recs: Vec<AcctJob> = match found {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => return fail(ESLURM_DB_CONNECTION, e.to_string()),
            Err(e) => return fail(SLURM_ERROR_ANY, e.to_string()),
        };
        // PrivateData=jobs: another user's records are not shown
        recs.retain(|j| validate::authorize(&caller, Action::SeeJob { private }, Some(j.user_id)).is_ok());
        let version = spur_format::version_for(r.max_format_version);
        match spur_format::encode(Kind::ACCT_JOB, version, &recs) {
            Ok(records) => Ok(Response::new(AccountingReply { status: st(0), records })),
            Err(e) => fail(SLURM_ERROR_ANY, e.to_string()),
        }
    }

    pub(super) async fn step_stat_as(&self, id: Identity, req: Request<StepStatRequest>) -> R<StepStatReply> {
        let r = req.into_inner();
        let fail = |code: i32| Ok(Response::new(StepStatReply { status: st(code), ..Default::default() }));
        let caller = self.caller(&id);
        let private = self.ctld.conf.private_data().jobs;
        let found = {
            let g = self.ctld.read();
            match g.state.jobs().get(&r.job_id) {
                None => Err(ESLURM_INVALID_JOB_ID),
                Some(j) if !sees_job(&caller, private, j) => Err(ESLURM_INVALID_JOB_ID),
                Some(j) if j.state.is_finished() => Err(ESLURM_ALREADY_DONE),
                // seen, but not the caller's: slurmd refuses the stat
                // (recorded/24.11/sstat/21: `rc = Invalid user id`)
                Some(j) if !sees_job(&caller, true, j) => Err(ESLURM_USER_ID_MISSING),
                Some(j) => {
                    let rec = g.state.acct_record(j.job_id);
                    match rec.and_then(|rec| rec.steps.into_iter().find(|s| s.step_id == r.step_id && s.end == 0)) {
                        Some(s) => Ok(s),
                        None => Err(ESLURM_INVALID_JOB_ID),
                    }
                }
            }
        };
        let step = match found {
            Ok(s) => s,
            Err(code) => return fail(code),
        };
        let mut calls = tokio::task::JoinSet::new();
        for (i, n) in step.nodes.iter().enumerate() {
            let me = self.ctld.clone();
            let n = n.clone();
            let (job_id, step_id, with_pids) = (r.job_id, r.step_id, r.with_pids);
            calls.spawn(async move {
                let mut a = me.agent(&n).await?;
                let req = AgentStepStatRequest { job_id, step_id, with_pids };
                let reply = a.step_stat(me.signed(req)).await.ok()?.into_inner();
                let ok = reply.status.as_ref().map(|s| s.code == 0).unwrap_or(true);
                ok.then_some((i, reply.usage, StepNodePids { node: n, pids: reply.pids, tasks: reply.tasks }))
            });
        }
        let mut answers = vec![];
        while let Some(done) = calls.join_next().await {
            if let Ok(Some(u)) = done {
                answers.push(u);
            }
        }
        // in the step's node order
        answers.sort_by_key(|(i, _, _)| *i);
        let (usage, pids): (Vec<_>, Vec<_>) = answers.into_iter().map(|(i, u, p)| ((i, u), p)).unzip();
        let pids = if r.with_pids { pids } else { vec![] };
        let version = spur_format::FORMAT_VERSION;
        match spur_format::encode(Kind::ACCT_JOB, version, &step) {
            Ok(bytes) => Ok(Response::new(StepStatReply {
                status: st(0),
                usage: usage.into_iter().map(|(_, u)| u).filter(|u: &String| !u.is_empty()).collect(),
                step: bytes,
                pids,
            })),
            Err(_) => fail(SLURM_ERROR_ANY),
        }
    }
}
