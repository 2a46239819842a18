//! Partitions: `PartitionUpdate`.

use crate::{Applied, ApplyResult, PartUpdate, State};
use spur_core::errors::*;

impl State {
    pub(crate) fn partition_update(&mut self, name: &str, update: &PartUpdate) -> ApplyResult {
        let i = self.partitions.iter().position(|p| p.name == name).ok_or(ESLURM_INVALID_PARTITION_NAME)?;
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
}
