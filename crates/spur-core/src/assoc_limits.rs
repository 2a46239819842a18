//! The limits and priority of an association (`sacctmgr add|modify
//! account|user ... GrpJobs=2 MaxJobs=1 MaxWall=10 GrpTRES=cpu=8
//! Priority=100`), as slurmdbd keeps them and slurmctld enforces them under
//! `AccountingStorageEnforce=limits`:
//!
//! - `Max*` limits and `Priority` set on an account hold for every
//!   association below it that sets none of its own (slurmdbd passes them
//!   down: `sacctmgr show assoc` prints them on each), [`Limits::inherit`];
//!   `MaxJobs`, `MaxSubmitJobs`, `MaxWall` and `MaxTRES` then count a user
//!   association's own jobs.
//! - `Grp*` limits are not passed down: one on an account counts the jobs of
//!   every association below it, one on a user association that
//!   association's jobs.
//!
//! A job over a submit limit (`MaxSubmitJobs`, `GrpSubmitJobs`) is refused
//! (`Job violates accounting/QOS policy`); one over another limit waits with
//! the limit's reason (`AssocMaxJobsLimit`, `AssocGrpCpuLimit`, ...); a job
//! that gives no time limit gets `MaxWall` as its own.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An association's limits; `None` (or no TRES entry) when not set here.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// `Priority=`: the association factor of priority/multifactor.
    pub priority: Option<u32>,
    pub grp_jobs: Option<u32>,
    pub grp_submit: Option<u32>,
    /// `GrpWall`, minutes.
    pub grp_wall: Option<u32>,
    pub max_jobs: Option<u32>,
    pub max_submit: Option<u32>,
    /// `MaxWallDurationPerJob`, minutes.
    pub max_wall: Option<u32>,
    /// `GrpTRES`, `GrpTRESMins`, `GrpTRESRunMins`, `MaxTRES` (per job),
    /// `MaxTRESPerNode`, `MaxTRESMins`: `cpu=8,mem=1000M,node=2`.
    pub tres: BTreeMap<String, String>,
}

/// What a `Key=value` of sacctmgr did to [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Set {
    /// A limit, set (or cleared with `-1`).
    Done,
    /// Not a limit's key.
    NotALimit,
    /// A limit's key whose value does not read: the key as sacctmgr names
    /// it.
    Bad(&'static str),
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        *self == Limits::default()
    }

    /// The count of `tres` (`cpu`, `node`, `mem` in MB, `gres/gpu`) in the
    /// TRES limit `limit` (`GrpTRES`, `MaxTRES`, `MaxTRESPerNode`).
    pub fn tres_count(&self, limit: &str, tres: &str) -> Option<u64> {
        crate::qos::tres_count(&self.tres, limit, tres)
    }

    /// Apply sacctmgr's `key=value` (`-1` clears a limit).
    pub fn set(&mut self, key: &str, value: &str) -> Set {
        let is = |full: &str, min: usize| spur_grammar::keyword::abbrev(key, full, min);
        let num = |v: &str| -> Result<Option<u32>, ()> {
            match v.trim() {
                "-1" => Ok(None),
                t => t.parse::<u32>().map(Some).map_err(|_| ()),
            }
        };
        let field = |slot: &mut Option<u32>, name: &'static str| match num(value) {
            Ok(v) => {
                *slot = v;
                Set::Done
            }
            Err(()) => Set::Bad(name),
        };
        let wall = |slot: &mut Option<u32>, name: &'static str| match crate::qos::mins(value) {
            Some(v) => {
                *slot = v;
                Set::Done
            }
            None => Set::Bad(name),
        };
        // (the single-TRES spellings of older sacctmgr)
        let single = [
            ("GrpCPUs", 6, "GrpTRES", "cpu"),
            ("GrpNodes", 4, "GrpTRES", "node"),
            ("GrpMemory", 4, "GrpTRES", "mem"),
            ("MaxCPUsPerJob", 7, "MaxTRES", "cpu"),
            ("MaxNodesPerJob", 4, "MaxTRES", "node"),
        ];
        if is("Priority", 3) {
            field(&mut self.priority, "Priority")
        } else if is("GrpJobs", 4) && !is("GrpJobsAccrue", 8) {
            field(&mut self.grp_jobs, "GrpJobs")
        } else if is("GrpSubmitJobs", 4) {
            field(&mut self.grp_submit, "GrpSubmitJobs")
        } else if is("MaxJobs", 4) && !is("MaxJobsAccrue", 8) {
            field(&mut self.max_jobs, "MaxJobs")
        } else if is("MaxSubmitJobs", 4) {
            field(&mut self.max_submit, "MaxSubmitJobs")
        } else if is("GrpWall", 4) {
            wall(&mut self.grp_wall, "GrpWall")
        } else if is("MaxWallDurationPerJob", 4) {
            wall(&mut self.max_wall, "MaxWall")
        } else if let Some((_, _, col, tres)) = single.iter().find(|(k, min, _, _)| is(k, *min)) {
            match crate::qos::tres_set(&mut self.tres, col, &format!("{tres}={value}")) {
                Ok(()) => Set::Done,
                Err(()) => Set::Bad(col),
            }
        } else if let Some((col, _)) = crate::qos::tres_key(key).filter(|(c, _)| {
            matches!(*c, "GrpTRES" | "GrpTRESMins" | "GrpTRESRunMins" | "MaxTRES" | "MaxTRESPerNode" | "MaxTRESMins")
        }) {
            match crate::qos::tres_set(&mut self.tres, col, value) {
                Ok(()) => Set::Done,
                Err(()) => Set::Bad(col),
            }
        } else {
            Set::NotALimit
        }
    }

    /// These limits with what `parent` (the effective limits of the account
    /// above) passes down where these set none: `Priority` and the `Max*`
    /// limits, not the `Grp*` ones.
    pub fn inherit(&self, parent: &Limits) -> Limits {
        let mut l = self.clone();
        l.priority = l.priority.or(parent.priority);
        l.max_jobs = l.max_jobs.or(parent.max_jobs);
        l.max_submit = l.max_submit.or(parent.max_submit);
        l.max_wall = l.max_wall.or(parent.max_wall);
        for col in ["MaxTRES", "MaxTRESPerNode", "MaxTRESMins"] {
            if !l.tres.contains_key(col) {
                if let Some(v) = parent.tres.get(col) {
                    l.tres.insert(col.to_string(), v.clone());
                }
            }
        }
        l
    }

    /// The limit of these `Max*` ones a job with `cpus` CPUs on `nodes`
    /// nodes, `mem` MB and a time limit of `minutes` is over by itself, as
    /// slurmctld names it (it then waits, whatever else runs).
    pub fn job_over(&self, cpus: u64, nodes: u64, mem: u64, minutes: Option<u32>) -> Option<&'static str> {
        if let (Some(max), Some(lim)) = (self.max_wall, minutes) {
            if lim > max {
                return Some("AssocMaxWallDurationPerJobLimit");
            }
        }
        if self.tres_count("MaxTRES", "cpu").is_some_and(|m| cpus > m) {
            return Some("AssocMaxCpuPerJobLimit");
        }
        if self.tres_count("MaxTRES", "mem").is_some_and(|m| mem > m) {
            return Some("AssocMaxMemPerJob");
        }
        if self.tres_count("MaxTRES", "node").is_some_and(|m| nodes > m) {
            return Some("AssocMaxNodePerJobLimit");
        }
        if self.tres_count("MaxTRESPerNode", "cpu").is_some_and(|m| cpus.div_ceil(nodes.max(1)) > m) {
            return Some("AssocMaxCpuPerNode");
        }
        None
    }
}

/// Running (or submitted) jobs and what they hold, as the `Grp*` and
/// `MaxJobs` limits count them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub jobs: u32,
    pub cpus: u64,
    pub nodes: u64,
    pub mem: u64,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.jobs = self.jobs.saturating_add(o.jobs);
        self.cpus = self.cpus.saturating_add(o.cpus);
        self.nodes = self.nodes.saturating_add(o.nodes);
        self.mem = self.mem.saturating_add(o.mem);
    }

    /// The `Grp*` limit of `l` a job of `add` would go over, counting what
    /// this tally holds, as slurmctld names it for an association.
    pub fn over_grp(&self, l: &Limits, add: &Tally) -> Option<&'static str> {
        if l.grp_jobs.is_some_and(|m| self.jobs.saturating_add(add.jobs) > m) {
            return Some("AssocGrpJobsLimit");
        }
        if l.tres_count("GrpTRES", "cpu").is_some_and(|m| self.cpus.saturating_add(add.cpus) > m) {
            return Some("AssocGrpCpuLimit");
        }
        if l.tres_count("GrpTRES", "mem").is_some_and(|m| self.mem.saturating_add(add.mem) > m) {
            return Some("AssocGrpMemLimit");
        }
        if l.tres_count("GrpTRES", "node").is_some_and(|m| self.nodes.saturating_add(add.nodes) > m) {
            return Some("AssocGrpNodeLimit");
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_as_sacctmgr_gives_them() {
        let mut l = Limits::default();
        for (k, v) in [
            ("MaxJobs", "1"),
            ("maxsubmit", "3"),
            ("GrpJobs", "2"),
            ("GrpTRES", "cpu=8,node=1"),
            ("MaxTRES", "cpu=4"),
            ("MaxWall", "10:00"),
            ("Priority", "100"),
            ("GrpMemory", "2G"),
        ] {
            assert_eq!(l.set(k, v), Set::Done, "{k}");
        }
        assert_eq!(
            (l.max_jobs, l.max_submit, l.grp_jobs, l.max_wall, l.priority),
            (Some(1), Some(3), Some(2), Some(10), Some(100))
        );
        assert_eq!(l.tres.get("GrpTRES").map(String::as_str), Some("cpu=8,mem=2048M,node=1"));
        assert_eq!((l.tres_count("GrpTRES", "mem"), l.tres_count("MaxTRES", "cpu")), (Some(2048), Some(4)));
        assert_eq!(l.set("MaxJobs", "abc"), Set::Bad("MaxJobs"));
        assert_eq!(l.set("Fairshare", "2"), Set::NotALimit);
        assert_eq!(l.set("MaxJobs", "-1"), Set::Done);
        assert_eq!(l.max_jobs, None);
        assert_eq!(l.set("GrpTRES", "cpu=-1"), Set::Done);
        assert_eq!(l.tres.get("GrpTRES").map(String::as_str), Some("mem=2048M,node=1"));
    }

    #[test]
    fn max_limits_and_priority_pass_down_grp_ones_do_not() {
        let mut parent = Limits::default();
        parent.set("MaxJobs", "2");
        parent.set("GrpJobs", "5");
        parent.set("MaxTRES", "cpu=4");
        parent.set("Priority", "7");
        let mut own = Limits::default();
        own.set("MaxJobs", "1");
        let e = own.inherit(&parent);
        assert_eq!((e.max_jobs, e.grp_jobs, e.priority), (Some(1), None, Some(7)));
        assert_eq!(e.tres_count("MaxTRES", "cpu"), Some(4));
        assert_eq!(e.job_over(8, 1, 0, None), Some("AssocMaxCpuPerJobLimit"));
        assert_eq!(e.job_over(4, 1, 0, None), None);
        let mut w = Limits::default();
        w.set("MaxWall", "10");
        assert_eq!(w.job_over(1, 1, 0, Some(20)), Some("AssocMaxWallDurationPerJobLimit"));
        assert_eq!(w.job_over(1, 1, 0, Some(10)), None);
    }

    #[test]
    fn group_limits_count_what_runs() {
        let mut l = Limits::default();
        l.set("GrpJobs", "1");
        let one = Tally { jobs: 1, cpus: 4, nodes: 1, mem: 0 };
        assert_eq!(Tally::default().over_grp(&l, &one), None);
        assert_eq!(one.over_grp(&l, &one), Some("AssocGrpJobsLimit"));
        let mut c = Limits::default();
        c.set("GrpTRES", "cpu=8");
        assert_eq!(one.over_grp(&c, &one), None);
        let six = Tally { jobs: 1, cpus: 6, nodes: 1, mem: 0 };
        assert_eq!(six.over_grp(&c, &one), Some("AssocGrpCpuLimit"));
    }
}
