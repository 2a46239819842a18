//! Quality of service records (slurmdbd's QOS table, which Spur keeps in
//! its replicated state): what `sacctmgr add|modify|delete|show qos` reads
//! and writes, and what the scheduler reads of a job's QOS (its priority,
//! whom it may preempt and how, its limits).
//!
//! A cluster starts with one QOS, `normal` (id 1), as slurmdbd creates it
//! with a cluster; a job asks for another with `--qos`, else it runs in
//! `normal`. Measured on 22.05 in `crates/spur-sched/tests/qos.md`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A QOS's flags, in the order sacctmgr prints them (slurmdb's
/// `slurmdb_qos_flags_str`); bit `i` of [`Qos::flags`] is the `i`th.
pub const QOS_FLAGS: [&str; 10] = [
    "DenyOnLimit",
    "EnforceUsageThreshold",
    "NoReserve",
    "PartitionMaxNodes",
    "PartitionMinNodes",
    "OverPartQOS",
    "PartitionTimeLimit",
    "RequiresReservation",
    "NoDecay",
    "UsageFactorSafe",
];

/// The TRES limits a QOS holds as strings (`cpu=8,node=2`), by sacctmgr's
/// column name.
pub const TRES_LIMITS: [&str; 8] =
    ["GrpTRES", "GrpTRESMins", "GrpTRESRunMins", "MaxTRES", "MaxTRESPerNode", "MaxTRESMins", "MaxTRESPU", "MaxTRESPA"];

/// One QOS. Limits are `None` when unset (sacctmgr shows nothing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Qos {
    pub id: u32,
    pub name: String,
    pub description: String,
    pub priority: u32,
    /// Bits of [`QOS_FLAGS`].
    #[serde(default)]
    pub flags: u32,
    /// Seconds a preempted job of this QOS runs on (preempt/qos).
    #[serde(default)]
    pub grace_time: u32,
    /// Ids of the QOS this one may preempt.
    #[serde(default)]
    pub preempt: Vec<u32>,
    /// `PreemptMode` (`None`: the cluster's).
    #[serde(default)]
    pub preempt_mode: Option<String>,
    #[serde(default)]
    pub preempt_exempt_time: Option<u32>,
    pub usage_factor: f64,
    #[serde(default)]
    pub usage_thres: Option<f64>,
    #[serde(default)]
    pub grp_jobs: Option<u32>,
    #[serde(default)]
    pub grp_submit: Option<u32>,
    /// Minutes.
    #[serde(default)]
    pub grp_wall: Option<u32>,
    #[serde(default)]
    pub max_jobs_pu: Option<u32>,
    #[serde(default)]
    pub max_submit_pu: Option<u32>,
    #[serde(default)]
    pub max_jobs_pa: Option<u32>,
    #[serde(default)]
    pub max_submit_pa: Option<u32>,
    /// `MaxWall`, minutes.
    #[serde(default)]
    pub max_wall: Option<u32>,
    /// The TRES limits of [`TRES_LIMITS`] that are set, and `MinTRES`.
    #[serde(default)]
    pub tres: BTreeMap<String, String>,
}

impl Qos {
    /// The QOS every cluster starts with.
    pub fn normal() -> Qos {
        Qos::new(1, "normal", "Normal QOS default")
    }

    /// A new QOS with sacctmgr's defaults (its description is its name).
    pub fn new(id: u32, name: &str, description: &str) -> Qos {
        Qos {
            id,
            name: name.to_string(),
            description: description.to_string(),
            priority: 0,
            flags: 0,
            grace_time: 0,
            preempt: vec![],
            preempt_mode: None,
            preempt_exempt_time: None,
            usage_factor: 1.0,
            usage_thres: None,
            grp_jobs: None,
            grp_submit: None,
            grp_wall: None,
            max_jobs_pu: None,
            max_submit_pu: None,
            max_jobs_pa: None,
            max_submit_pa: None,
            max_wall: None,
            tres: BTreeMap::new(),
        }
    }

    pub fn has_flag(&self, name: &str) -> bool {
        QOS_FLAGS.iter().position(|f| f.eq_ignore_ascii_case(name)).is_some_and(|i| self.flags & (1 << i) != 0)
    }

    /// The flags as slurmdb.h's `QOS_FLAG_*` bits (libslurmdb's
    /// `slurmdb_qos_rec_t.flags`).
    pub fn flags_bits(&self) -> u32 {
        // slurmdb.h: QOS_FLAG_PART_MIN_NODE 0x1, PART_MAX_NODE 0x2,
        // PART_TIME_LIMIT 0x4, ENFORCE_USAGE_THRES 0x8, NO_RESERVE 0x10,
        // REQ_RESV 0x20, DENY_LIMIT 0x40, OVER_PART_QOS 0x80, NO_DECAY
        // 0x100, USAGE_FACTOR_SAFE 0x200
        const BITS: [u32; 10] = [0x40, 0x8, 0x10, 0x2, 0x1, 0x80, 0x4, 0x20, 0x100, 0x200];
        (0..QOS_FLAGS.len()).filter(|i| self.flags & (1 << i) != 0).map(|i| BITS[i]).fold(0, |a, b| a | b)
    }

    /// The flags as sacctmgr prints them (comma-separated, in bit order).
    pub fn flags_str(&self) -> String {
        QOS_FLAGS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.flags & (1 << i) != 0)
            .map(|(_, f)| *f)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The names of the QOS this one preempts, as sacctmgr lists them
    /// (sorted by name).
    pub fn preempt_names(&self, all: &[Qos]) -> String {
        let mut names: Vec<&str> =
            self.preempt.iter().filter_map(|id| all.iter().find(|q| q.id == *id)).map(|q| q.name.as_str()).collect();
        names.sort_unstable();
        names.join(",")
    }

    /// A `cpu=N` limit of a TRES string (`MaxTRESPU=cpu=8`).
    pub fn tres_count(&self, limit: &str, tres: &str) -> Option<u64> {
        tres_count(&self.tres, limit, tres)
    }
}

impl Qos {
    /// The limit of this QOS that `job` is over by itself, whatever else
    /// runs (its time limit over `MaxWall`, its CPUs or nodes over
    /// `MaxTRES`, its CPUs over `MaxTRESPerUser`), as slurmctld names it
    /// (a pending job's reason, or with `DenyOnLimit` the refusal's line).
    pub fn job_over(&self, job: &crate::model::Job) -> Option<&'static str> {
        if let (Some(max), Some(lim)) = (self.max_wall, job.time_limit) {
            if lim > max {
                return Some("QOSMaxWallDurationPerJobLimit");
            }
        }
        let cpus = u64::from(job.num_cpus.max(1));
        if self.tres_count("MaxTRES", "cpu").is_some_and(|m| cpus > m) {
            return Some("QOSMaxCpuPerJobLimit");
        }
        if self.tres_count("MaxTRES", "node").is_some_and(|m| u64::from(job.num_nodes.max(1)) > m) {
            return Some("QOSMaxNodePerJobLimit");
        }
        if self.tres_count("MaxTRESPU", "cpu").is_some_and(|m| cpus > m) {
            return Some("QOSMaxCpuPerUserLimit");
        }
        None
    }
}

/// What slurm.conf says of preemption, for the line `scontrol show job`
/// prints of a started job that may be preempted (`PreemptEligibleTime=`,
/// `PreemptTime=`; slurmctld packs it when the cluster's `PreemptMode` and
/// the job's are not OFF).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PreemptConf {
    /// `PreemptType=preempt/qos` (else `preempt/partition_prio`).
    pub by_qos: bool,
    /// slurm.conf's `PreemptMode`.
    pub mode: String,
    /// `PreemptExemptTime`, seconds.
    pub exempt: u32,
}

/// Whether a `PreemptMode` value preempts (CANCEL, REQUEUE or SUSPEND;
/// GANG and WITHIN alone do not).
pub fn mode_preempts(m: &str) -> bool {
    m.split(',').any(|w| matches!(w.trim().to_ascii_uppercase().as_str(), "CANCEL" | "REQUEUE" | "SUSPEND"))
}

impl PreemptConf {
    /// `None` without preemption (`PreemptType` none, or `PreemptMode`
    /// OFF).
    pub fn from_conf(conf: &crate::config::SlurmConf) -> Option<PreemptConf> {
        let ty = conf.get("PreemptType")?.trim().to_ascii_lowercase();
        let by_qos = match ty.as_str() {
            "preempt/qos" => true,
            "preempt/partition_prio" => false,
            _ => return None,
        };
        let mode = conf.get("PreemptMode").unwrap_or("OFF").to_string();
        if !mode_preempts(&mode) {
            return None;
        }
        let exempt = conf.get("PreemptExemptTime").and_then(secs).unwrap_or(0);
        Some(PreemptConf { by_qos, mode, exempt })
    }

    /// When `job` (started, in partition `part`) may first be preempted
    /// (its start plus the exempt time of its QOS or slurm.conf), or 0
    /// when its preempt mode is OFF or it has not started.
    pub fn preemptable_time(
        &self,
        job: &crate::model::Job,
        part: Option<&crate::model::Partition>,
        all: &[Qos],
    ) -> i64 {
        if job.start_time == 0 || job.state == crate::model::JobState::Pending {
            return 0;
        }
        let q = of_job(all, job);
        let mode = if self.by_qos {
            q.and_then(|q| q.preempt_mode.as_deref()).unwrap_or(&self.mode)
        } else {
            part.and_then(|p| p.more.preempt_mode.as_deref()).unwrap_or(&self.mode)
        };
        if !mode_preempts(mode) {
            return 0;
        }
        let exempt = q.and_then(|q| q.preempt_exempt_time).unwrap_or(self.exempt);
        job.start_time + i64::from(exempt)
    }
}

/// The largest priority of any QOS (the QOS factor's denominator).
pub fn max_priority(all: &[Qos]) -> u32 {
    all.iter().map(|q| q.priority).max().unwrap_or(0)
}

/// A job's QOS name once `sacctmgr delete qos` deleted its QOS: a pending
/// job then waits with `InvalidQOS`, a running one runs on, and both show
/// `QOS=(null)` (measured on 22.05).
pub const DELETED: &str = "";

/// The QOS a job runs in: the one it asked for, else `normal` (the
/// default QOS: Spur keeps no associations to give another).
pub fn of_job<'a>(all: &'a [Qos], job: &crate::model::Job) -> Option<&'a Qos> {
    find(all, job.desc.qos.as_deref().unwrap_or("normal"))
}

/// The QOS named `name` (case-insensitive, as slurmdbd compares them).
pub fn find<'a>(all: &'a [Qos], name: &str) -> Option<&'a Qos> {
    all.iter().find(|q| q.name.eq_ignore_ascii_case(name))
}

/// One `Key=value` (or `Key+=value`, `Key-=value`) of `sacctmgr add|modify
/// qos`, applied to `q`. `all` are the QOS that exist (for `Preempt=`).
/// `Ok`: the setting's name as sacctmgr echoes it (`MaxJobsPerUser` for
/// `MaxJobsPU`); `Err` is what sacctmgr prints for it: `(text, to_stdout)`.
pub fn set(q: &mut Qos, key: &str, op: char, value: &str, all: &[Qos]) -> Result<&'static str, (String, bool)> {
    let k = key.to_ascii_lowercase();
    let is = |full: &str, min: usize| spur_grammar::keyword::abbrev(&k, full, min);
    let arg = format!("{}{}={}", key, if op == '=' { String::new() } else { op.to_string() }, value);
    let invalid = |what: &str| (format!("sacctmgr: error: Invalid value for {} ({})\n", what, value), false);
    // sacctmgr's get_uint: -1 clears; else a whole number
    let num = |what: &str| -> Result<Option<u32>, (String, bool)> {
        let v = value.trim();
        if v == "-1" {
            return Ok(None);
        }
        v.parse::<u32>().map(Some).map_err(|_| invalid(what))
    };
    let float = |what: &str| -> Result<f64, (String, bool)> {
        value.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| invalid(what))
    };
    Ok(if is("Description", 1) {
        q.description = value.trim_matches(|c| c == '"' || c == '\'').to_string();
        "Description"
    } else if is("Flags", 2) {
        let mut bits = 0;
        for f in value.split(',').filter(|f| !f.is_empty()) {
            match QOS_FLAGS.iter().position(|n| f.to_ascii_lowercase().contains(&n.to_ascii_lowercase())) {
                Some(i) => bits |= 1 << i,
                None if f == "-1" => {}
                None => {
                    return Err((
                        format!(
                            " Unknown QOS flag used in:\n  '{}'\n Valid QOS flags are\n  '{}'\n",
                            value,
                            QOS_FLAGS.join(",")
                        ),
                        true,
                    ))
                }
            }
        }
        q.flags = match op {
            '+' => q.flags | bits,
            '-' => q.flags & !bits,
            _ => bits,
        };
        "Flags"
    } else if is("GraceTime", 3) {
        // (get_uint: the leading whole number, in seconds; `1:30` is 1)
        let v = value.trim();
        let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
        q.grace_time = if v == "-1" { 0 } else { digits.parse::<u32>().map_err(|_| invalid("GraceTime"))? };
        "GraceTime"
    } else if is("GrpJobs", 4) && !is("GrpJobsAccrue", 8) {
        q.grp_jobs = num("GrpJobs")?;
        "GrpJobs"
    } else if is("GrpSubmitJobs", 4) {
        q.grp_submit = num("GrpSubmitJobs")?;
        "GrpSubmitJobs"
    } else if is("GrpWall", 4) {
        q.grp_wall = mins(value).ok_or((format!(" Bad GrpWall time format: {}\n", arg), false))?;
        "GrpWall"
    } else if is("MaxJobsPerAccount", 11) || is("MaxJobsPA", 9) {
        q.max_jobs_pa = num("MaxJobsPA")?;
        "MaxJobsPerAccount"
    } else if is("MaxJobsPerUser", 4) || is("MaxJobsPU", 4) {
        q.max_jobs_pu = num("MaxJobsPU")?;
        "MaxJobsPerUser"
    } else if is("MaxSubmitJobsPerAccount", 17) || is("MaxSubmitJobsPA", 15) {
        q.max_submit_pa = num("MaxSubmitJobsPA")?;
        "MaxSubmitJobsPerAccount"
    } else if is("MaxSubmitJobsPerUser", 4) || is("MaxSubmitJobsPU", 4) {
        q.max_submit_pu = num("MaxSubmitJobsPU")?;
        "MaxSubmitJobsPerUser"
    } else if is("MaxWallDurationPerJob", 4) {
        q.max_wall = mins(value).ok_or((format!(" Bad MaxWall time format: {}\n", arg), false))?;
        "MaxWall"
    } else if let Some((col, echo)) = tres_key(&k) {
        tres_set(&mut q.tres, col, value).map_err(|_| (format!(" Bad TRES format: {}\n", value), false))?;
        echo
    } else if is("PreemptMode", 8) {
        let mut words = vec![];
        for w in value.trim().split(',') {
            let w = w.trim().to_ascii_uppercase();
            if !matches!(w.as_str(), "OFF" | "CLUSTER" | "CANCEL" | "REQUEUE" | "SUSPEND" | "GANG" | "WITHIN") {
                return Err((format!(" Bad Preempt Mode given: {}\n", arg), false));
            }
            words.push(w);
        }
        // as slurmdb's preempt_mode_string writes them: GANG, the mode, WITHIN
        let has = |w: &str| words.iter().any(|x| x == w);
        let mode = ["SUSPEND", "REQUEUE", "CANCEL"].into_iter().find(|m| has(m));
        let mut out: Vec<&str> = vec![];
        if has("GANG") {
            out.push("GANG");
        }
        out.extend(mode);
        if has("WITHIN") {
            out.push("WITHIN");
        }
        // OFF (and `cluster`): the cluster's mode
        q.preempt_mode = (!out.is_empty()).then(|| out.join(","));
        "PreemptMode"
    } else if is("PreemptExemptTime", 8) {
        q.preempt_exempt_time = Some(secs(value).ok_or((format!(" Bad PreemptExemptTime format: {}\n", arg), false))?);
        "PreemptExemptTime"
    } else if is("Preempt", 7) {
        let mut ids = if op == '=' { vec![] } else { q.preempt.clone() };
        let bad = |n: &str| {
            let names: Vec<&str> = all.iter().map(|q| q.name.as_str()).collect();
            (format!("sacctmgr: error: You gave a bad qos '{}'. Valid QOS's are {}\n", n, names.join(",")), false)
        };
        for n in value.trim_matches(|c| c == '"' || c == '\'').split(',').filter(|n| !n.is_empty()) {
            let (n, sign) = match n.as_bytes()[0] {
                b'+' | b'-' => (&n[1..], n.as_bytes()[0] as char),
                _ => (n, op),
            };
            let Some(other) = find(all, n) else { return Err(bad(n)) };
            ids.retain(|i| *i != other.id);
            if sign != '-' {
                ids.push(other.id);
            }
        }
        ids.sort_unstable();
        q.preempt = ids;
        "Preempt"
    } else if is("Priority", 3) {
        q.priority = num("Priority")?.unwrap_or(0);
        "Priority"
    } else if is("UsageFactor", 6) {
        let v = float("UsageFactor")?;
        q.usage_factor = if v == -1.0 { 1.0 } else { v };
        "UsageFactor"
    } else if is("UsageThreshold", 6) {
        let v = float("UsageThreshold")?;
        q.usage_thres = (v >= 0.0).then_some(v);
        "UsageThreshold"
    } else {
        return Err((format!(" Unknown option: {}\n Use keyword 'where' to modify condition\n", arg), true));
    })
}

/// Whether preempt lists (`all` with `changed` in place of their own
/// records) form a loop: a QOS that preempts itself, directly or through
/// others (slurmdbd's `QOS Preemption loop detected`).
pub fn preempt_loop(all: &[Qos], changed: &[Qos]) -> bool {
    let rec = |id: u32| changed.iter().find(|q| q.id == id).or_else(|| all.iter().find(|q| q.id == id));
    let ids: Vec<u32> = all.iter().chain(changed).map(|q| q.id).collect();
    ids.iter().any(|&start| {
        let mut seen = vec![];
        let mut todo: Vec<u32> = rec(start).map(|q| q.preempt.clone()).unwrap_or_default();
        while let Some(id) = todo.pop() {
            if id == start {
                return true;
            }
            if !seen.contains(&id) {
                seen.push(id);
                todo.extend(rec(id).map(|q| q.preempt.clone()).unwrap_or_default());
            }
        }
        false
    })
}

/// The TRES column a key sets (`MaxTRESPerUser` is `MaxTRESPU`) and the
/// name sacctmgr echoes.
pub(crate) fn tres_key(k: &str) -> Option<(&'static str, &'static str)> {
    let is = |full: &str, min: usize| spur_grammar::keyword::abbrev(k, full, min);
    Some(if is("MaxTRESPerUser", 11) || is("MaxTRESPU", 9) {
        ("MaxTRESPU", "MaxTRESPerUser")
    } else if is("MaxTRESPerAccount", 11) || is("MaxTRESPA", 9) {
        ("MaxTRESPA", "MaxTRESPerAccount")
    } else if is("MaxTRESPerNode", 11) {
        ("MaxTRESPerNode", "MaxTRESPerNode")
    } else if is("MaxTRESMinsPerJob", 8) {
        ("MaxTRESMins", "MaxTRESMins")
    } else if is("MaxTRESPerJob", 7) {
        ("MaxTRES", "MaxTRESPerJob")
    } else if is("GrpTRESRunMins", 8) {
        ("GrpTRESRunMins", "GrpTRESRunMins")
    } else if is("GrpTRESMins", 8) {
        ("GrpTRESMins", "GrpTRESMins")
    } else if is("GrpTRES", 7) {
        ("GrpTRES", "GrpTRES")
    } else if is("MinTRESPerJob", 7) {
        ("MinTRES", "MinTRESPerJob")
    } else {
        return None;
    })
}

/// Combine `cpu=8,mem=1G` into the TRES limit `col` of `tres` (`-1`
/// removes one).
pub(crate) fn tres_set(tres: &mut BTreeMap<String, String>, col: &str, value: &str) -> Result<(), ()> {
    let mut cur: Vec<(String, String)> = tres
        .get(col)
        .map(|s| s.split(',').filter_map(|t| t.split_once('=')).map(|(a, b)| (a.to_string(), b.to_string())).collect())
        .unwrap_or_default();
    for t in value.split(',').filter(|t| !t.is_empty()) {
        let (k, v) = t.split_once('=').ok_or(())?;
        let k = k.trim().to_ascii_lowercase();
        if !matches!(k.as_str(), "cpu" | "mem" | "node" | "energy" | "billing" | "fs/disk" | "vmem" | "pages")
            && !k.starts_with("gres/")
            && !k.starts_with("license/")
        {
            return Err(());
        }
        let v = v.trim();
        let v = if v == "-1" {
            None
        } else if k == "mem" {
            Some(spur_grammar::size::parse_mem_mb(v).map_err(|_| ())?.to_string() + "M")
        } else {
            Some(v.parse::<u64>().map_err(|_| ())?.to_string())
        };
        cur.retain(|(a, _)| *a != k);
        if let Some(v) = v {
            cur.push((k, v));
        }
    }
    let order = |k: &str| match k {
        "cpu" => 1,
        "mem" => 2,
        "energy" => 3,
        "node" => 4,
        "billing" => 5,
        "fs/disk" => 6,
        "vmem" => 7,
        "pages" => 8,
        _ => 9,
    };
    cur.sort_by(|a, b| order(&a.0).cmp(&order(&b.0)).then(a.0.cmp(&b.0)));
    if cur.is_empty() {
        tres.remove(col);
    } else {
        tres.insert(col.to_string(), cur.iter().map(|(a, b)| format!("{}={}", a, b)).collect::<Vec<_>>().join(","));
    }
    Ok(())
}

/// The count of `tres` in the TRES limit `limit` of `map` (`mem` in MB).
pub(crate) fn tres_count(map: &BTreeMap<String, String>, limit: &str, tres: &str) -> Option<u64> {
    map.get(limit)?.split(',').find_map(|t| {
        let (k, v) = t.split_once('=')?;
        k.eq_ignore_ascii_case(tres).then(|| v.trim_end_matches('M').parse().ok()).flatten()
    })
}

/// sacctmgr's `time_str2secs` (`-1` and `UNLIMITED`: 0 here).
fn secs(v: &str) -> Option<u32> {
    let v = v.trim();
    if v == "-1" || v.eq_ignore_ascii_case("unlimited") {
        return Some(0);
    }
    spur_grammar::time::parse_duration_secs(v).ok().map(|s| s.unwrap_or(0).max(0) as u32)
}

/// sacctmgr's `time_str2mins`: `Some(None)` clears the limit.
pub(crate) fn mins(v: &str) -> Option<Option<u32>> {
    let v = v.trim();
    if v == "-1" || v.eq_ignore_ascii_case("unlimited") {
        return Some(None);
    }
    spur_grammar::time::parse_time_limit(v).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_apply_as_sacctmgr_reads_them() {
        let all = vec![Qos::normal(), Qos::new(2, "low", "low")];
        let mut q = Qos::new(3, "high", "high");
        for (k, op, v) in [
            ("Priority", '=', "100"),
            ("preempt", '=', "normal,low"),
            ("PreemptMode", '=', "requeue"),
            ("GraceTime", '=', "10"),
            ("MaxJobsPU", '=', "2"),
            ("MaxWall", '=', "1:00:00"),
            ("flags", '=', "DenyOnLimit,NoDecay"),
            ("MaxTRESPerUser", '=', "cpu=8,node=2"),
        ] {
            set(&mut q, k, op, v, &all).unwrap();
        }
        assert_eq!(
            (q.priority, q.preempt_names(&all), q.preempt_mode.as_deref()),
            (100, "low,normal".into(), Some("REQUEUE"))
        );
        // (GraceTime is whole seconds, as get_uint reads it)
        assert_eq!((q.grace_time, q.max_jobs_pu, q.max_wall), (10, Some(2), Some(60)));
        assert_eq!(set(&mut q, "MaxJobsPU", '=', "2", &all), Ok("MaxJobsPerUser"));
        set(&mut q, "GraceTime", '=', "1:30", &all).unwrap();
        assert_eq!(q.grace_time, 1);
        set(&mut q, "PreemptMode", '=', "suspend,gang", &all).unwrap();
        assert_eq!(q.preempt_mode.as_deref(), Some("GANG,SUSPEND"));
        set(&mut q, "PreemptMode", '=', "off", &all).unwrap();
        assert_eq!(q.preempt_mode, None);
        // a loop: high preempts low, low high
        let mut low = all[1].clone();
        low.preempt = vec![3];
        let mut high = q.clone();
        high.preempt = vec![2];
        assert!(preempt_loop(&[all[0].clone(), low.clone()], &[high.clone()]));
        high.preempt = vec![1];
        assert!(!preempt_loop(&[all[0].clone(), low], &[high]));
        assert_eq!(q.flags_str(), "DenyOnLimit,NoDecay");
        assert_eq!((q.tres["MaxTRESPU"].as_str(), q.tres_count("MaxTRESPU", "cpu")), ("cpu=8,node=2", Some(8)));
        set(&mut q, "Preempt", '-', "low", &all).unwrap();
        assert_eq!(q.preempt_names(&all), "normal");
        set(&mut q, "MaxJobsPerUser", '=', "-1", &all).unwrap();
        assert_eq!(q.max_jobs_pu, None);
        assert!(set(&mut q, "Preempt", '=', "nosuch", &all).is_err());
        assert!(set(&mut q, "Foo", '=', "1", &all).is_err());
        assert!(set(&mut q, "Flags", '=', "Bogus", &all).is_err());
        assert!(set(&mut q, "Priority", '=', "x", &all).is_err());
        // (no panic on a multi-byte first character)
        assert!(set(&mut q, "Preempt", '=', "é", &all).is_err());
    }
}
