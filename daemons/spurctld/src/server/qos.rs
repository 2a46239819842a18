//! sacctmgr's QOS RPC: `Qos` adds, modifies or deletes QOS records. The
//! leader applies the settings to the records as they stand (sacctmgr has
//! already checked them against the records it read, and printed its
//! errors), and commits the whole new records.

use super::{st, Service, R};
use crate::audit::Audit;
use crate::validate::{self, Action};
use spur_auth::Identity;
use spur_core::errors::*;
use spur_core::qos::{self, Qos};
use spur_proto::*;
use spur_state::Command;
use tonic::{Request, Response};

/// The command a QOS request makes of the records `all`, and the names it
/// touches (none: nothing to do), or the Slurm error.
pub(crate) fn plan(all: &[Qos], r: &QosRequest) -> Result<(Option<Command>, Vec<String>), i32> {
    let named = |n: &str| r.names.iter().any(|x| x.eq_ignore_ascii_case(n));
    let settle = |q: &mut Qos, all: &[Qos]| -> Result<(), i32> {
        for s in &r.settings {
            let op = s.op.chars().next().unwrap_or('=');
            qos::set(q, &s.key, op, &s.value, all).map_err(|_| ESLURM_INVALID_QOS)?;
        }
        Ok(())
    };
    match qos_request::Op::try_from(r.op).map_err(|_| SLURM_ERROR_ANY)? {
        qos_request::Op::Add => {
            let mut next = all.iter().map(|q| q.id).max().unwrap_or(0);
            let mut new: Vec<Qos> = vec![];
            for n in &r.names {
                if n.is_empty() || n.len() > 1024 {
                    return Err(ESLURM_INVALID_QOS);
                }
                if qos::find(all, n).is_some() || new.iter().any(|q| q.name.eq_ignore_ascii_case(n)) {
                    continue;
                }
                next += 1;
                let mut q = Qos::new(next, &n.to_ascii_lowercase(), &n.to_ascii_lowercase());
                settle(&mut q, all)?;
                new.push(q);
            }
            if qos::preempt_loop(all, &new) {
                return Err(ESLURM_QOS_PREEMPTION_LOOP);
            }
            let names = new.iter().map(|q| q.name.clone()).collect();
            Ok(((!new.is_empty()).then_some(Command::QosCreate { qos: new }), names))
        }
        qos_request::Op::Modify => {
            let mut changed = vec![];
            for q in all.iter().filter(|q| named(&q.name)) {
                let mut m = q.clone();
                settle(&mut m, all)?;
                if m != *q {
                    changed.push(m);
                }
            }
            if qos::preempt_loop(all, &changed) {
                return Err(ESLURM_QOS_PREEMPTION_LOOP);
            }
            let names = all.iter().filter(|q| named(&q.name)).map(|q| q.name.clone()).collect();
            Ok(((!changed.is_empty()).then_some(Command::QosUpdate { qos: changed }), names))
        }
        qos_request::Op::Delete => {
            let names: Vec<String> = all.iter().filter(|q| named(&q.name)).map(|q| q.name.clone()).collect();
            Ok(((!names.is_empty()).then(|| Command::QosDelete { names: names.clone() }), names))
        }
    }
}

impl Service {
    pub(super) async fn qos_as(&self, id: Identity, req: Request<QosRequest>) -> R<QosReply> {
        let refused = |code| Ok(Response::new(QosReply { status: st(code), names: vec![] }));
        let caller = self.caller(&id);
        if let Err(code) = validate::authorize(&caller, Action::ManageQos, None) {
            return refused(code);
        }
        if !self.ctld.conf.accounting_enabled() {
            return refused(ESLURM_DB_CONNECTION);
        }
        let r = req.into_inner();
        let planned = {
            let g = self.ctld.read();
            if g.state.write_format_version() < spur_state::QOS_VERSION {
                Err(ESLURM_NOT_SUPPORTED)
            } else {
                plan(&g.state.qos(), &r)
            }
        };
        let (cmd, names) = match planned {
            Ok(p) => p,
            Err(code) => return refused(code),
        };
        if let Some(cmd) = cmd {
            if let Some(Err(code)) = self.ctld.commit(vec![cmd]).await?.into_iter().next() {
                return refused(code);
            }
            self.ctld.sched_wake.notify_one();
        }
        Ok(Response::new(QosReply { status: st(0), names }))
    }

    pub(super) async fn qos_rpc(&self, req: Request<QosRequest>) -> R<QosReply> {
        let mut audit = Audit::begin(&req);
        let id = audit.identity(self.who(&req))?;
        audit.finish(self.qos_as(id, req).await)
    }
}

impl Service {
    /// A submission's QOS, with accounting: the one it names must exist
    /// (`Invalid qos specification`; Spur keeps no associations, so any
    /// QOS that exists is allowed), and is kept as the record spells it; a
    /// job naming none runs in `normal` (and keeps `desc.qos` unset, as
    /// slurmctld keeps that it used the default: `USING_DEFAULT_QOS`).
    pub(super) fn qos_admits(&self, desc: &mut spur_core::model::JobDesc, _uid: u32) -> Result<(), i32> {
        if self.ctld.qos.is_none() {
            return Ok(());
        }
        let g = self.ctld.read();
        let all = g.state.qos();
        let Some(q) = qos::find(&all, desc.qos.as_deref().unwrap_or("normal")) else {
            return Err(ESLURM_INVALID_QOS);
        };
        if desc.qos.is_some() {
            desc.qos = Some(q.name.clone());
        }
        Ok(())
    }

    /// A new job's QOS from its association (with accounting): a job that
    /// named none runs in the association's default QOS (its own, else
    /// its account's), or its one QOS, else `normal`; under
    /// `AccountingStorageEnforce=qos` its QOS must be in the association's
    /// list (`Invalid qos specification`, as slurmctld; fairshare-22.05.md
    /// L3, L10).
    pub(super) fn assoc_qos(&self, job: &mut spur_core::model::Job) -> Result<(), i32> {
        if self.ctld.qos.is_none() {
            return Ok(());
        }
        let g = self.ctld.read();
        let a = g.state.assocs();
        let acct = job.desc.account.clone().unwrap_or_default();
        let Some(l) = a.link(&job.user_name, &acct) else { return Ok(()) };
        let (list, def) = a.link_qos(l);
        let all = g.state.qos();
        if job.desc.qos.is_none() {
            let chosen = def.or_else(|| (list.len() == 1).then(|| list[0].clone()));
            if let Some(q) = chosen.and_then(|n| qos::find(&all, &n)).filter(|q| q.name != "normal") {
                job.desc.qos = Some(q.name.clone());
            }
        }
        let name = job.desc.qos_name().unwrap_or("normal").to_string();
        if self.ctld.enforce_qos && !list.iter().any(|q| q.eq_ignore_ascii_case(&name)) {
            return Err(ESLURM_INVALID_QOS);
        }
        Ok(())
    }

    /// Under `AccountingStorageEnforce=limits`, a new job's QOS's submit
    /// limits (`MaxSubmitJobsPerUser`, `MaxSubmitJobsPerAccount`,
    /// `GrpSubmitJobs`, counting the job records not yet finished, an
    /// array's pending tasks each) and, with
    /// `Flags=DenyOnLimit`, the limits it could never run within (its time
    /// limit over `MaxWall`, its CPUs over `MaxTRESPerJob` or
    /// `MaxTRESPerUser`): slurmctld's refusal (`Job violates accounting/QOS
    /// policy`) with the limit's name as the line before it.
    pub(super) fn qos_limits(&self, job: &spur_core::model::Job) -> Result<(), (i32, String)> {
        let Some((_, true)) = self.ctld.qos else { return Ok(()) };
        let g = self.ctld.read();
        let all = g.state.qos();
        let Some(q) = qos::of_job(&all, job) else { return Ok(()) };
        let refuse = |what: &str| Err((ESLURM_ACCOUNTING_POLICY, what.to_string()));
        if let Some(r) = q.job_over(job).filter(|_| q.has_flag("DenyOnLimit")) {
            return refuse(r);
        }
        if q.max_submit_pu.is_none() && q.max_submit_pa.is_none() && q.grp_submit.is_none() {
            return Ok(());
        }
        let account = job.desc.account.clone().unwrap_or_default();
        let (mut user, mut acct, mut grp) = (0u32, 0u32, 0u32);
        // (the state's counts by QOS, user and account: what the distinct
        // keys cost, not the queue)
        for ((qname, uid, a), n) in g.state.queued_counts().iter() {
            if qos::find(&all, qname).is_none_or(|x| x.id != q.id) {
                continue;
            }
            grp = grp.saturating_add(*n);
            if *uid == job.user_id {
                user = user.saturating_add(*n);
            }
            if *a == account {
                acct = acct.saturating_add(*n);
            }
        }
        let over = |m: Option<u32>, n: u32| m.is_some_and(|m| n >= m);
        if over(q.grp_submit, grp) {
            return refuse("QOSGrpSubmitJobsLimit");
        }
        if over(q.max_submit_pa, acct) {
            return refuse("QOSMaxSubmitJobsPerAccountLimit");
        }
        if over(q.max_submit_pu, user) {
            return refuse("QOSMaxSubmitJobPerUserLimit");
        }
        Ok(())
    }

    /// Under `AccountingStorageEnforce=limits`, a new job's association
    /// limits at submission (`spur_core::assoc_limits`): a job that gives
    /// no time limit, in a partition without `DefaultTime`, gets its
    /// association's `MaxWall` (its partition's `MaxTime` if lower); the
    /// submit limits
    /// (`GrpSubmitJobs` of its association and of each account above it,
    /// its association's `MaxSubmitJobs`), counting the records not yet
    /// finished and the new job's (an array's tasks each), refuse it as
    /// slurmctld does (`Job violates accounting/QOS policy` after the
    /// limit's name). Every other limit makes the job wait.
    pub(super) fn assoc_limits(&self, job: &mut spur_core::model::Job, records: u64) -> Result<(), (i32, String)> {
        let Some((_, true)) = self.ctld.qos else { return Ok(()) };
        let g = self.ctld.read();
        let a = g.state.assocs();
        if !a.any_limits() {
            return Ok(());
        }
        let acct = job.desc.account.clone().unwrap_or_default().to_ascii_lowercase();
        let Some(link) = a.link(&job.user_name, &acct) else { return Ok(()) };
        let l = a.link_limits(link);
        // (a partition's DefaultTime comes first: a job given one over
        // MaxWall waits; assoc-limits-22.05.md 4)
        let default_time = g.state.partition(&job.partition).and_then(|p| p.default_time);
        if job.desc.time_limit.is_none() && default_time.is_none() {
            if let Some(max) = l.max_wall {
                job.time_limit = Some(job.time_limit.map_or(max, |t| t.min(max)));
            }
        }
        let new = u32::try_from(records).unwrap_or(u32::MAX);
        let counts = g.state.queued_counts();
        let count = |within: &dyn Fn(u32, &str) -> bool| -> u32 {
            counts
                .iter()
                .filter(|((_, uid, acc), _)| within(*uid, &acc.to_ascii_lowercase()))
                .fold(0u32, |n, (_, c)| n.saturating_add(*c))
        };
        let over = |max: Option<u32>, used: u32| max.is_some_and(|m| used.saturating_add(new) > m);
        let refuse = |what: &str| Err((ESLURM_ACCOUNTING_POLICY, what.to_string()));
        let mine = count(&|uid, acc| uid == job.user_id && acc == acct);
        if over(link.limits.grp_submit, mine) {
            return refuse("AssocGrpSubmitJobsLimit");
        }
        if over(l.max_submit, mine) {
            return refuse("AssocMaxSubmitJobLimit");
        }
        for up in a.ancestry(&acct) {
            if up.limits.grp_submit.is_some() && over(up.limits.grp_submit, count(&|_, acc| a.is_within(acc, &up.name)))
            {
                return refuse("AssocGrpSubmitJobsLimit");
            }
        }
        Ok(())
    }
}
