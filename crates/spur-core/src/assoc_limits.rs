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

/// The limit a sacctmgr key names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Priority,
    GrpJobs,
    GrpSubmit,
    GrpWall,
    MaxJobs,
    MaxSubmit,
    MaxWall,
    /// A TRES limit, and the one TRES an older spelling names (`GrpCPUs`:
    /// `GrpTRES`'s `cpu`).
    Tres(&'static str, Option<&'static str>),
}

impl Slot {
    fn of(key: &str) -> Option<Slot> {
        let is = |full: &str, min: usize| spur_grammar::keyword::abbrev(key, full, min);
        // (the single-TRES spellings of older sacctmgr)
        let single = [
            ("GrpCPUs", 6, "GrpTRES", "cpu"),
            ("GrpNodes", 4, "GrpTRES", "node"),
            ("GrpMemory", 4, "GrpTRES", "mem"),
            ("MaxCPUsPerJob", 7, "MaxTRES", "cpu"),
            ("MaxNodesPerJob", 4, "MaxTRES", "node"),
        ];
        Some(if is("Priority", 3) {
            Slot::Priority
        } else if is("GrpJobs", 4) && !is("GrpJobsAccrue", 8) {
            Slot::GrpJobs
        } else if is("GrpSubmitJobs", 4) {
            Slot::GrpSubmit
        } else if is("MaxJobs", 4) && !is("MaxJobsAccrue", 8) {
            Slot::MaxJobs
        } else if is("MaxSubmitJobs", 4) {
            Slot::MaxSubmit
        } else if is("GrpWall", 4) {
            Slot::GrpWall
        } else if is("MaxWallDurationPerJob", 4) {
            Slot::MaxWall
        } else if let Some((_, _, col, tres)) = single.iter().find(|(k, min, _, _)| is(k, *min)) {
            Slot::Tres(col, Some(tres))
        } else {
            let (col, _) = crate::qos::tres_key(key).filter(|(c, _)| {
                matches!(
                    *c,
                    "GrpTRES" | "GrpTRESMins" | "GrpTRESRunMins" | "MaxTRES" | "MaxTRESPerNode" | "MaxTRESMins"
                )
            })?;
            Slot::Tres(col, None)
        })
    }

    /// The key as sacctmgr names it in an error.
    fn name(self) -> &'static str {
        match self {
            Slot::Priority => "Priority",
            Slot::GrpJobs => "GrpJobs",
            Slot::GrpSubmit => "GrpSubmitJobs",
            Slot::GrpWall => "GrpWall",
            Slot::MaxJobs => "MaxJobs",
            Slot::MaxSubmit => "MaxSubmitJobs",
            Slot::MaxWall => "MaxWall",
            Slot::Tres(col, _) => col,
        }
    }
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
        let Some(slot) = Slot::of(key) else { return Set::NotALimit };
        let num = |v: &str| -> Result<Option<u32>, ()> {
            match v.trim() {
                "-1" => Ok(None),
                t => t.parse::<u32>().map(Some).map_err(|_| ()),
            }
        };
        let (target, wall) = match slot {
            Slot::Tres(col, Some(tres)) => return self.tres_limit(col, &format!("{tres}={value}")),
            Slot::Tres(col, None) => return self.tres_limit(col, value),
            Slot::GrpWall => (&mut self.grp_wall, true),
            Slot::MaxWall => (&mut self.max_wall, true),
            Slot::Priority => (&mut self.priority, false),
            Slot::GrpJobs => (&mut self.grp_jobs, false),
            Slot::GrpSubmit => (&mut self.grp_submit, false),
            Slot::MaxJobs => (&mut self.max_jobs, false),
            Slot::MaxSubmit => (&mut self.max_submit, false),
        };
        let v = if wall { crate::qos::mins(value).ok_or(()) } else { num(value) };
        match v {
            Ok(v) => {
                *target = v;
                Set::Done
            }
            Err(()) => Set::Bad(slot.name()),
        }
    }

    /// Whether these limits set their own value of the limit `key` names.
    pub fn sets(&self, key: &str) -> bool {
        match Slot::of(key) {
            Some(Slot::Tres(col, _)) => self.tres.contains_key(col),
            Some(Slot::GrpWall) => self.grp_wall.is_some(),
            Some(Slot::MaxWall) => self.max_wall.is_some(),
            Some(Slot::Priority) => self.priority.is_some(),
            Some(Slot::GrpJobs) => self.grp_jobs.is_some(),
            Some(Slot::GrpSubmit) => self.grp_submit.is_some(),
            Some(Slot::MaxJobs) => self.max_jobs.is_some(),
            Some(Slot::MaxSubmit) => self.max_submit.is_some(),
            None => false,
        }
    }

    /// Whether the limit `key` names is passed down to the associations
    /// below that set none (`Priority` and the `Max*` limits).
    pub fn passes_down(key: &str) -> bool {
        matches!(
            Slot::of(key),
            Some(
                Slot::Priority
                    | Slot::MaxJobs
                    | Slot::MaxSubmit
                    | Slot::MaxWall
                    | Slot::Tres("MaxTRES" | "MaxTRESPerNode" | "MaxTRESMins", _)
            )
        )
    }

    /// A TRES limit `col` changed by `value`, kept in the order sacctmgr
    /// lists an association's (by name: `cpu=8,gres/gpu=2,mem=8000M`;
    /// assoc-limits-22.05.md 8).
    fn tres_limit(&mut self, col: &'static str, value: &str) -> Set {
        if crate::qos::tres_set(&mut self.tres, col, value).is_err() {
            return Set::Bad(col);
        }
        if let Some(v) = self.tres.get_mut(col) {
            let mut items: Vec<&str> = v.split(',').collect();
            items.sort_by_key(|i| i.split('=').next().unwrap_or_default().to_string());
            *v = items.join(",");
        }
        Set::Done
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

    /// The limit of these `Max*` ones a job holding or asking for `t` (its
    /// CPUs, nodes, MB and GPUs) with a time limit of `minutes` is over by
    /// itself, as slurmctld names it (it then waits, whatever else runs).
    pub fn job_over(&self, t: &Tally, minutes: Option<u32>) -> Option<&'static str> {
        let (cpus, nodes, mem) = (t.cpus, t.nodes, t.mem);
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
        if t.gpus > 0 && self.tres_count("MaxTRES", "gres/gpu").is_some_and(|m| t.gpus > m) {
            return Some("AssocMaxGRESPerJob");
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
    pub gpus: u64,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.jobs = self.jobs.saturating_add(o.jobs);
        self.cpus = self.cpus.saturating_add(o.cpus);
        self.nodes = self.nodes.saturating_add(o.nodes);
        self.mem = self.mem.saturating_add(o.mem);
        self.gpus = self.gpus.saturating_add(o.gpus);
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
        if add.gpus > 0 && l.tres_count("GrpTRES", "gres/gpu").is_some_and(|m| self.gpus.saturating_add(add.gpus) > m) {
            return Some("AssocGrpGRES");
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
        // listed by name, as sacctmgr lists them (assoc-limits-22.05.md 8)
        let mut g = Limits::default();
        g.set("GrpTRES", "cpu=8,mem=8000,gres/gpu=2");
        assert_eq!(g.tres.get("GrpTRES").map(String::as_str), Some("cpu=8,gres/gpu=2,mem=8000M"));
        // which limits pass down, and which a record sets itself
        assert!(Limits::passes_down("MaxJobs") && Limits::passes_down("maxtres") && Limits::passes_down("Priority"));
        assert!(
            !Limits::passes_down("GrpJobs") && !Limits::passes_down("GrpTRES") && !Limits::passes_down("Fairshare")
        );
        assert!(g.sets("GrpTRES") && !g.sets("MaxTRES") && !g.sets("MaxJobs"));
        assert_eq!(g.set("MaxWall", "abc"), Set::Bad("MaxWall"));
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
        let t = |cpus: u64, gpus: u64| Tally { jobs: 1, cpus, nodes: 1, mem: 0, gpus };
        assert_eq!(e.job_over(&t(8, 0), None), Some("AssocMaxCpuPerJobLimit"));
        assert_eq!(e.job_over(&t(4, 0), None), None);
        let mut w = Limits::default();
        w.set("MaxWall", "10");
        assert_eq!(w.job_over(&t(1, 0), Some(20)), Some("AssocMaxWallDurationPerJobLimit"));
        assert_eq!(w.job_over(&t(1, 0), Some(10)), None);
        // GPUs (assoc-limits-22.05.md 6e, 6g)
        let mut g = Limits::default();
        g.set("MaxTRES", "gres/gpu=1");
        g.set("GrpTRES", "gres/gpu=2");
        assert_eq!(g.job_over(&t(1, 2), None), Some("AssocMaxGRESPerJob"));
        assert_eq!(t(1, 2).over_grp(&g, &t(1, 1)), Some("AssocGrpGRES"));
        assert_eq!(t(1, 1).over_grp(&g, &t(1, 1)), None);
    }

    #[test]
    fn group_limits_count_what_runs() {
        let mut l = Limits::default();
        l.set("GrpJobs", "1");
        let one = Tally { jobs: 1, cpus: 4, nodes: 1, mem: 0, gpus: 0 };
        assert_eq!(Tally::default().over_grp(&l, &one), None);
        assert_eq!(one.over_grp(&l, &one), Some("AssocGrpJobsLimit"));
        let mut c = Limits::default();
        c.set("GrpTRES", "cpu=8");
        assert_eq!(one.over_grp(&c, &one), None);
        let six = Tally { jobs: 1, cpus: 6, nodes: 1, mem: 0, gpus: 0 };
        assert_eq!(six.over_grp(&c, &one), Some("AssocGrpCpuLimit"));
    }
}
