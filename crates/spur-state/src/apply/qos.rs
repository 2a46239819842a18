//! QOS records: `QosCreate`, `QosUpdate`, `QosDelete` (the leader has
//! resolved `sacctmgr`'s settings into whole records and given new ones
//! their ids).

use crate::{Applied, ApplyResult, State, ASSOC_VERSION, QOS_VERSION};
use spur_core::errors::*;
use spur_core::qos::Qos;

impl State {
    /// The accounts, users and associations (`root` alone until the first
    /// change).
    pub fn assocs(&self) -> std::borrow::Cow<'_, spur_core::assoc::Assocs> {
        match &self.assocs {
            Some(a) => std::borrow::Cow::Borrowed(a),
            None => std::borrow::Cow::Owned(Default::default()),
        }
    }

    /// `sacctmgr add|modify account|user`: every account has a parent that
    /// exists (or comes with it), every association an account.
    pub(crate) fn assoc_put(
        &mut self,
        accounts: &[spur_core::assoc::Account],
        users: &[spur_core::assoc::User],
        links: &[spur_core::assoc::Link],
    ) -> ApplyResult {
        if self.write_format_version() < ASSOC_VERSION {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        let mut all = self.assocs().into_owned();
        all.put(accounts, users, links);
        let known = |n: &str| all.accounts.iter().any(|a| a.name == n);
        if accounts.iter().any(|a| a.name.is_empty() || (a.name != "root" && !known(&a.parent)))
            || links.iter().any(|l| l.user.is_empty() || !known(&l.account))
            || accounts.iter().any(|a| a.name != "root" && all.is_within(&a.parent, &a.name))
        {
            return Err(ESLURM_INVALID_ACCOUNT);
        }
        self.assocs = Some(all);
        Ok(Applied::Ok)
    }

    /// `sacctmgr delete account|user`: an account goes with every account
    /// below it; `root` stays.
    pub(crate) fn assoc_delete(
        &mut self,
        accounts: &[String],
        users: &[String],
        links: &[(String, String)],
    ) -> ApplyResult {
        if self.write_format_version() < ASSOC_VERSION {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        let mut all = self.assocs().into_owned();
        if accounts.iter().any(|a| a == "root") {
            return Err(ESLURM_INVALID_ACCOUNT);
        }
        // (an account goes with the accounts below it)
        let mut gone: Vec<String> = vec![];
        for a in accounts {
            for sub in all.subtree(a) {
                if !gone.contains(&sub) {
                    gone.push(sub);
                }
            }
        }
        all.delete(&gone, users, links);
        self.assocs = Some(all);
        Ok(Applied::Ok)
    }

    /// A job stops running (it ended or was requeued): its association is
    /// charged its billed CPUs for the time it ran (from format version 12).
    pub(crate) fn charge_usage(&mut self, job_id: u32, now: i64) {
        if self.write_format_version() < ASSOC_VERSION {
            return;
        }
        let Some(j) = self.jobs.get(&job_id) else { return };
        let secs = spur_core::assoc::run_secs(j, now);
        let Some(account) = j.desc.account.clone() else { return };
        let factor = spur_core::qos::of_job(&self.qos(), j).map(|q| q.usage_factor).unwrap_or(1.0);
        // (its billing from format version 13; its CPUs before, as the
        // members that wrote the earlier records charged)
        let billed = if self.write_format_version() >= crate::ASSOC_LIMITS_VERSION {
            spur_core::priority::job_billing(j, self.partition(&j.partition)) as f64
        } else {
            f64::from(j.num_cpus)
        };
        let cpus = billed * factor;
        let user = j.user_name.clone();
        let hl = self.half_life;
        self.assocs.get_or_insert_with(Default::default).charge(&user, &account, cpus, secs, now, hl);
    }

    /// The QOS records (`normal` alone until the first change).
    pub fn qos(&self) -> std::borrow::Cow<'_, [Qos]> {
        match &self.qos {
            Some(q) => std::borrow::Cow::Borrowed(q.as_slice()),
            None => std::borrow::Cow::Owned(vec![Qos::normal()]),
        }
    }

    fn qos_check(&self, qos: &[Qos]) -> Result<Vec<Qos>, i32> {
        if self.write_format_version() < QOS_VERSION {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        let all = self.qos().into_owned();
        // a record's preempt list names records that exist (or come with it)
        for q in qos {
            if q.name.is_empty() || q.preempt.iter().any(|id| !all.iter().chain(qos).any(|o| o.id == *id)) {
                return Err(ESLURM_INVALID_QOS);
            }
        }
        Ok(all)
    }

    pub(crate) fn qos_create(&mut self, qos: &[Qos]) -> ApplyResult {
        let mut all = self.qos_check(qos)?;
        for (i, q) in qos.iter().enumerate() {
            let dup = |o: &Qos| o.id == q.id || o.name.eq_ignore_ascii_case(&q.name);
            if all.iter().any(dup) || qos[..i].iter().any(dup) {
                return Err(ESLURM_INVALID_QOS);
            }
        }
        all.extend(qos.iter().cloned());
        self.qos = Some(all);
        Ok(Applied::Ok)
    }

    pub(crate) fn qos_update(&mut self, qos: &[Qos]) -> ApplyResult {
        let mut all = self.qos_check(qos)?;
        for q in qos {
            match all.iter_mut().find(|o| o.id == q.id && o.name == q.name) {
                Some(o) => *o = q.clone(),
                None => return Err(ESLURM_INVALID_QOS),
            }
        }
        self.qos = Some(all);
        Ok(Applied::Ok)
    }

    pub(crate) fn qos_delete(&mut self, names: &[String]) -> ApplyResult {
        let mut all = self.qos_check(&[])?;
        let mut gone = vec![];
        for n in names {
            match all.iter().position(|o| o.name.eq_ignore_ascii_case(n)) {
                Some(i) => gone.push(all.remove(i).id),
                None => return Err(ESLURM_INVALID_QOS),
            }
        }
        for q in &mut all {
            q.preempt.retain(|id| !gone.contains(id));
        }
        // the jobs not finished that ran in one of them are left without
        // (a job that named none ran in `normal`)
        let ids: Vec<u32> = self.queue_ids().into_iter().collect();
        for id in ids {
            if let Some(j) = self.jobs.get_mut(&id) {
                let name = j.desc.qos.as_deref().unwrap_or("normal");
                if !j.state.is_finished() && names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                    j.desc.qos = Some(spur_core::qos::DELETED.to_string());
                    self.sync_queue(id);
                }
            }
        }
        self.qos = Some(all);
        Ok(Applied::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use crate::Command;
    use spur_core::errors::*;
    use spur_core::qos::Qos;

    /// A job that ends charges its association its billing: its CPUs, or
    /// from format version 13 its TRES weighted by its partition's
    /// TRESBillingWeights (1 CPU and 500 MB at `CPU=1.0,Mem=4G`: 2.95,
    /// truncated to 2 a second).
    #[test]
    fn usage_charged_is_the_billing() {
        for (version, per_sec) in [(12u16, 1.0), (13, 2.0)] {
            let mut s = cluster();
            s.apply(&Command::SetFormatVersion { version }).unwrap();
            let mut a = spur_core::assoc::Assocs::default();
            a.put(&[], &[], &[spur_core::assoc::Link::new("u", "root", 1)]);
            s.apply(&Command::AssocPut {
                accounts: a.accounts.clone(),
                users: a.users.clone(),
                links: a.links.clone(),
            })
            .unwrap();
            let mut parts = s.partitions().to_vec();
            parts[0].more.tres_billing_weights = Some("CPU=1.0,Mem=4G".into());
            let nodes = s.nodes().to_vec();
            s.set_config("c".into(), nodes, parts);
            let mut j = job();
            j.user_name = "u".into();
            j.desc.account = Some("root".into());
            let id = submit(&mut s, j);
            s.apply(&Command::Start {
                job_id: id,
                task: None,
                allocs: vec![alloc("n1", 1, 500)],
                now: 10,
                pass_ms: 10_000,
                extern_step: false,
                backfill: false,
            })
            .unwrap();
            s.apply(&Command::Complete { job_id: id, exit_status: 0, launch_failed: false, now: 110 }).unwrap();
            let usage = s.assocs().link("u", "root").map(|l| l.usage).unwrap_or(-1.0);
            assert!((usage - 100.0 * per_sec).abs() < 1e-6, "version {version}: {usage}");
        }
    }

    #[test]
    fn qos_records_are_created_updated_and_deleted() {
        let mut s = cluster();
        assert_eq!(s.qos().iter().map(|q| q.name.as_str()).collect::<Vec<_>>(), ["normal"]);
        let mut high = Qos::new(2, "high", "high");
        high.preempt = vec![1];
        // not before the cluster writes version 11
        s.apply(&Command::SetFormatVersion { version: 10 }).unwrap();
        refused(&mut s, Command::QosCreate { qos: vec![high.clone()] }, ESLURM_NOT_SUPPORTED);
        s.apply(&Command::SetFormatVersion { version: 11 }).unwrap();
        s.apply(&Command::QosCreate { qos: vec![high.clone()] }).unwrap();
        refused(&mut s, Command::QosCreate { qos: vec![Qos::new(3, "HIGH", "")] }, ESLURM_INVALID_QOS);
        let mut bad = Qos::new(3, "x", "");
        bad.preempt = vec![9];
        refused(&mut s, Command::QosCreate { qos: vec![bad] }, ESLURM_INVALID_QOS);
        high.priority = 100;
        s.apply(&Command::QosUpdate { qos: vec![high.clone()] }).unwrap();
        assert_eq!(s.qos()[1].priority, 100);
        refused(&mut s, Command::QosUpdate { qos: vec![Qos::new(7, "nope", "")] }, ESLURM_INVALID_QOS);
        // jobs of a deleted QOS are left without one; others keep theirs
        let mut in_high = job();
        in_high.desc.qos = Some("high".into());
        let (a, b) = (submit(&mut s, job()), submit(&mut s, in_high));
        s.apply(&Command::QosDelete { names: vec!["normal".into()] }).unwrap();
        assert_eq!((s.qos().len(), s.qos()[0].preempt.len()), (1, 0));
        let qos_of = |id: u32| s.jobs().get(&id).and_then(|j| j.desc.qos.clone());
        assert_eq!((qos_of(a), qos_of(b)), (Some(spur_core::qos::DELETED.into()), Some("high".into())));
        refused(&mut s, Command::QosDelete { names: vec!["normal".into()] }, ESLURM_INVALID_QOS);
    }
}
