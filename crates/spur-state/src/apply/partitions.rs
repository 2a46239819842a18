//! Partitions: `PartitionUpdate`.

use crate::{Applied, ApplyResult, PartUpdate, State};
use spur_core::errors::*;

impl State {
    pub(crate) fn partition_update(&mut self, name: &str, update: &PartUpdate) -> ApplyResult {
        let i = self.partitions.iter().position(|p| p.name == name).ok_or(ESLURM_INVALID_PARTITION_NAME)?;
        if update.min_format_version() > self.write_format_version() {
            // a snapshot at the older version could not hold the new keys
            // (the controller refuses such an update before logging it)
            return Err(ESLURM_NOT_SUPPORTED);
        }
        if !update.settings.is_empty() {
            // all or nothing, before any other change
            let names: Vec<String> = self.nodes.iter().map(|n| n.name.clone()).collect();
            if let Some(p) = self.partitions.get_mut(i) {
                p.set_keys(&update.settings, &names)?;
            }
        }
        if update.default == Some(true) {
            for p in &mut self.partitions {
                p.default = false;
            }
        }
        let Some(p) = self.partitions.get_mut(i) else {
            return Err(ESLURM_INVALID_PARTITION_NAME);
        };
        if let Some(t) = update.max_time {
            p.max_time = t;
        }
        if let Some(t) = update.default_time {
            p.default_time = t;
        }
        if let Some(n) = update.max_nodes {
            p.max_nodes = n;
        }
        if let Some(n) = update.min_nodes {
            p.min_nodes = n;
        }
        if let Some(st) = update.state {
            p.state = st;
        }
        if let Some(d) = update.default {
            p.default = d;
        }
        if let Some(h) = update.hidden {
            p.hidden = h;
        }
        if let Some(t) = update.priority_tier {
            p.priority_tier = t;
        }
        if let Some(f) = update.priority_job_factor {
            p.priority_job_factor = f;
        }
        if let Some(o) = &update.oversubscribe {
            p.oversubscribe = o.clone();
        }
        Ok(Applied::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use crate::{Applied, Command, PartUpdate};
    use spur_core::errors::*;
    use spur_core::model::*;

    #[test]
    fn partition_update_changes_limits_and_the_default() {
        let mut s = cluster();
        let u = PartUpdate {
            max_time: Some(Some(60)),
            state: Some(PartState::Down),
            default: Some(true),
            ..Default::default()
        };
        assert_eq!(s.apply(&Command::PartitionUpdate { name: "q".into(), update: u }), Ok(Applied::Ok));
        let q = s.partition("q").unwrap();
        assert_eq!((q.max_time, q.state, q.default), (Some(60), PartState::Down, true));
        // one default partition
        assert_eq!(s.default_partition().map(|p| p.name.as_str()), Some("q"));
        assert_eq!(s.partition("p").map(|p| p.default), Some(false));
        let u = PartUpdate { max_nodes: Some(None), oversubscribe: Some("YES".into()), ..Default::default() };
        s.apply(&Command::PartitionUpdate { name: "p".into(), update: u }).unwrap();
        assert_eq!(s.partition("p").map(|p| (p.max_nodes, p.oversubscribe.as_str())), Some((None, "YES")));
        let u = PartUpdate { default: Some(true), ..Default::default() };
        refused(&mut s, Command::PartitionUpdate { name: "x".into(), update: u }, ESLURM_INVALID_PARTITION_NAME);
    }

    /// The keys of format version 3: stored in order, all or nothing
    /// (a bad one changes nothing, not even the keys before it).
    #[test]
    fn partition_update_sets_the_other_keys_all_or_nothing() {
        use spur_core::request::PartKey::*;
        let mut s = cluster();
        let set = |kv: &[(spur_core::request::PartKey, &str)]| PartUpdate {
            settings: kv.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            max_time: Some(Some(5)),
            ..Default::default()
        };
        let u = set(&[
            (RootOnly, "YES"),
            (GraceTime, "10"),
            (DefMemPerCpu, "400"),
            (MaxCpusPerNode, "2"),
            (OverTimeLimit, "UNLIMITED"),
            (AllowGroups, "root,wheel"),
            (PreemptMode, "REQUEUE,GANG"),
            (Nodes, "n2"),
        ]);
        assert_eq!(u.min_format_version(), 3);
        // not while the cluster writes an older version
        refused(&mut s, Command::PartitionUpdate { name: "p".into(), update: u.clone() }, ESLURM_NOT_SUPPORTED);
        s.apply(&Command::SetFormatVersion { version: 3 }).unwrap();
        assert_eq!(s.apply(&Command::PartitionUpdate { name: "p".into(), update: u }), Ok(Applied::Ok));
        let p = s.partition("p").unwrap();
        assert!(p.more.root_only && !p.more.disable_root_jobs);
        assert_eq!(
            (p.more.grace_time, p.more.max_cpus_per_node, p.more.over_time_limit),
            (10, Some(2), Some(u16::MAX))
        );
        assert_eq!(p.more.def_mem, MemLimit { mb: 400, per_cpu: true });
        assert_eq!(p.allow_groups, Some(vec!["root".to_string(), "wheel".to_string()]));
        assert_eq!(p.more.preempt_mode.as_deref(), Some("REQUEUE"));
        assert_eq!((p.nodes.clone(), p.nodes_expr.as_str(), p.max_time), (vec!["n2".to_string()], "n2", Some(5)));
        // an unknown node, a bad JobDefaults or billing weight, a QOS: nothing changes
        for (bad, code) in [
            (Nodes, ESLURM_INVALID_NODE_NAME),
            (JobDefaults, ESLURM_INVALID_JOB_DEFAULTS),
            (TresBillingWeights, ESLURM_INVALID_TRES_BILLING_WEIGHTS),
            (Qos, ESLURM_INVALID_QOS),
        ] {
            let u = set(&[(RootOnly, "NO"), (bad, "bogus=1")]);
            refused(&mut s, Command::PartitionUpdate { name: "p".into(), update: u }, code);
        }
        assert!(s.partition("p").unwrap().more.root_only);
        // ALL: every node, and NodeSets=ALL
        let u = set(&[(Nodes, "ALL"), (AllowGroups, "ALL"), (JobDefaults, "defcpupergpu=2")]);
        s.apply(&Command::PartitionUpdate { name: "p".into(), update: u }).unwrap();
        let p = s.partition("p").unwrap();
        assert_eq!(
            (p.nodes_expr.as_str(), p.more.nodesets.as_deref(), p.allow_groups.as_ref()),
            ("n[1-2]", Some("ALL"), None)
        );
        assert_eq!(p.more.job_defaults.as_deref(), Some("DefCpuPerGPU=2"));
        assert_eq!(PartUpdate::default().min_format_version(), spur_format::MIN_VERSION);
    }
}
