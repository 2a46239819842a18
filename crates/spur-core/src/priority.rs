//! `PriorityType=priority/multifactor`: a pending job's priority as the sum
//! of weighted factors, each between 0 and 1 (slurmctld's
//! priority_multifactor plugin; measured on 22.05 in
//! `crates/spur-core/tests/priority-22.05.md`):
//!
//! - age: the time since the job became eligible (since its submission
//!   with `PriorityFlags=ACCRUE_ALWAYS`) over `PriorityMaxAge` (at most 1),
//!   as of the last `PriorityCalcPeriod` boundary;
//! - job size: (the job's nodes over the cluster's + its CPUs over the
//!   cluster's) / 2, or 1 minus that with `PriorityFavorSmall=YES`; with
//!   `PriorityFlags=SMALL_RELATIVE_TO_TIME`, its CPUs per minute of its time
//!   limit over the cluster's CPUs (1 minus that when favouring small);
//! - partition: the partition's `PriorityJobFactor` over the largest of any
//!   partition;
//! - fair-share: with accounting, the Fair Tree factor of the job's
//!   association (`spur_core::assoc`: its rank among the user associations
//!   by the usage each ran up against its shares; 0 for a job without
//!   one); without accounting, 1.0 (no usage recorded);
//! - QOS: the job's QOS's priority over the largest of any QOS
//!   (`sacctmgr add|modify qos ... Priority=`; `spur_core::qos`);
//! - association: the priority of the job's association (`sacctmgr ...
//!   set Priority=`, its own or its account's) over the largest of any
//!   association;
//! - TRES: for each TRES `PriorityWeightTRES` names, the job's count over
//!   its partition's, times the weight;
//! - `PriorityFlags` `NO_NORMAL_PART`, `NO_NORMAL_QOS`, `NO_NORMAL_ASSOC`,
//!   `NO_NORMAL_TRES` (`NO_NORMAL_ALL`): those factors not normalised;
//!   `CALCULATE_RUNNING`: running jobs' priorities are computed too;
//!   `NO_FAIR_TREE`, `DEPTH_OBLIVIOUS`: the classic fair-share; `INCR_ONLY`: the controller only
//!   raises a job's priority (`Ctld::recalc_priorities`).
//!
//! The sum is truncated and the nice value subtracted; a job's priority is
//! at least 1 (0 means held). The controller sets it with these functions
//! and `sprio` shows the same factors.

use crate::config::SlurmConf;
use crate::model::{Job, Node, Partition};

/// The `PriorityWeight*` keys and the settings the factors use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Weights {
    pub age: u32,
    pub assoc: u32,
    pub fairshare: u32,
    pub jobsize: u32,
    pub partition: u32,
    pub qos: u32,
    /// `PriorityWeightTRES` as written (`sprio -w` shows it).
    pub tres: Option<String>,
    /// `PriorityWeightTRES` read against the cluster's TRES: (name, weight),
    /// in the TRES's order ([`tres_names`]); empty when it does not read
    /// (slurmctld will not start then: [`tres_weights`]).
    pub tres_weights: Vec<(String, f64)>,
    /// `PriorityFlags=NO_NORMAL_TRES`: a TRES factor is the job's count
    /// itself, not over its partition's.
    pub no_normal_tres: bool,
    /// `PriorityFlags=CALCULATE_RUNNING`: running jobs' priorities are
    /// computed too, and sprio lists them.
    pub calculate_running: bool,
    /// How the fair-share factor is computed.
    pub algo: FairShareAlgo,
    /// `PriorityMaxAge` in seconds (default 7 days).
    pub max_age: i64,
    /// `PriorityCalcPeriod` in seconds (default 5 minutes).
    pub calc_period: i64,
    pub favor_small: bool,
    /// `PriorityDecayHalfLife` in seconds (usage's decay).
    pub half_life: i64,
    /// `PriorityFlags=ACCRUE_ALWAYS`: age counts from submission, whatever
    /// held the job back (slurmctld's accrue time is then the submit time).
    pub accrue_always: bool,
    /// `PriorityFlags=SMALL_RELATIVE_TO_TIME`: the job size factor is the
    /// job's CPUs (at least its nodes' share of the cluster's) per minute
    /// of its time limit, over the cluster's CPUs.
    pub size_relative: bool,
    /// `PriorityFlags=NO_NORMAL_PART` (or `NO_NORMAL_ALL`): the partition
    /// factor is its `PriorityJobFactor` itself, not over the largest.
    pub no_normal_part: bool,
    /// `PriorityFlags=NO_NORMAL_QOS` (or `NO_NORMAL_ALL`): the QOS factor is
    /// its priority itself.
    pub no_normal_qos: bool,
    /// `PriorityFlags=INCR_ONLY`: a job's priority is only ever raised.
    pub incr_only: bool,
    /// `PriorityFlags=NO_NORMAL_ASSOC` (or `NO_NORMAL_ALL`): the association
    /// factor is its priority itself.
    pub no_normal_assoc: bool,
}

impl Weights {
    /// The weights of a slurm.conf when its `PriorityType` (or the
    /// release's default) is priority/multifactor.
    pub fn from_conf(conf: &SlurmConf) -> Option<Weights> {
        let ty = crate::compat::priority_type(conf.get("PriorityType"));
        if !ty.eq_ignore_ascii_case("priority/multifactor") {
            return None;
        }
        let w = |k: &str| conf.get(k).and_then(|v| v.trim().parse::<u32>().ok()).unwrap_or(0);
        let secs = |k: &str, default: i64, unit: i64| {
            conf.get(k)
                .and_then(|v| spur_grammar::time::parse_time_limit(v).ok().flatten())
                .map(|m| i64::from(m) * unit)
                .unwrap_or(default)
        };
        Some(Weights {
            age: w("PriorityWeightAge"),
            assoc: w("PriorityWeightAssoc"),
            fairshare: w("PriorityWeightFairshare"),
            jobsize: w("PriorityWeightJobSize"),
            partition: w("PriorityWeightPartition"),
            qos: w("PriorityWeightQOS"),
            tres: conf.get("PriorityWeightTRES").filter(|t| !t.is_empty()).map(str::to_string),
            tres_weights: conf
                .get("PriorityWeightTRES")
                .and_then(|t| tres_weights(t, &tres_names(conf)).ok())
                .unwrap_or_default(),
            no_normal_tres: flag(conf, "NO_NORMAL_TRES") || flag(conf, "NO_NORMAL_ALL"),
            calculate_running: flag(conf, "CALCULATE_RUNNING"),
            // (read_config.c: DEPTH_OBLIVIOUS, else NO_FAIR_TREE, leaves Fair Tree)
            algo: if flag(conf, "DEPTH_OBLIVIOUS") {
                FairShareAlgo::DepthOblivious
            } else if flag(conf, "NO_FAIR_TREE") {
                FairShareAlgo::Classic
            } else {
                FairShareAlgo::FairTree
            },
            max_age: secs("PriorityMaxAge", 7 * 86400, 60),
            calc_period: secs("PriorityCalcPeriod", 300, 60).max(1),
            favor_small: conf
                .get("PriorityFavorSmall")
                .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "yes" | "true" | "1")),
            half_life: crate::assoc::half_life(conf),
            // (read_config.c looks for each name anywhere in the value)
            accrue_always: flag(conf, "ACCRUE_ALWAYS"),
            size_relative: flag(conf, "SMALL_RELATIVE_TO_TIME"),
            no_normal_part: flag(conf, "NO_NORMAL_PART") || flag(conf, "NO_NORMAL_ALL"),
            no_normal_qos: flag(conf, "NO_NORMAL_QOS") || flag(conf, "NO_NORMAL_ALL"),
            incr_only: flag(conf, "INCR_ONLY"),
            no_normal_assoc: flag(conf, "NO_NORMAL_ASSOC") || flag(conf, "NO_NORMAL_ALL"),
        })
    }

    /// Whether any factor counts (with none, every job keeps priority 1).
    pub fn any(&self) -> bool {
        self.age | self.assoc | self.fairshare | self.jobsize | self.partition | self.qos > 0
            || self.tres_weights.iter().any(|(_, w)| *w != 0.0)
    }
}

/// The fair-share algorithm `PriorityFlags` chooses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FairShareAlgo {
    /// Fair Tree (the default since 19.05): a user's rank.
    #[default]
    FairTree,
    /// `NO_FAIR_TREE`: the classic factor, 2^-(effective usage / shares).
    Classic,
    /// `DEPTH_OBLIVIOUS`: the classic factor with the effective usage of
    /// priority_multifactor's depth-oblivious variant.
    DepthOblivious,
}

/// The TRES slurmctld always counts, in its order (their ids 1 to 8).
pub const BASE_TRES: [&str; 8] = ["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"];

/// The TRES the cluster counts: [`BASE_TRES`], then those
/// `AccountingStorageTRES` adds (`gres/gpu`, `gres/gpu:mi300x`, ...), in its
/// order; names as slurmctld prints them (type lower-case).
pub fn tres_names(conf: &SlurmConf) -> Vec<String> {
    let mut names: Vec<String> = BASE_TRES.iter().map(|s| s.to_string()).collect();
    for item in conf.get("AccountingStorageTRES").unwrap_or("").split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let name = match item.split_once('/') {
            Some((ty, rest)) => format!("{}/{}", ty.to_ascii_lowercase(), rest),
            None => item.to_ascii_lowercase(),
        };
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            names.push(name);
        }
    }
    names
}

/// `PriorityWeightTRES` (`CPU=1000,Mem=2000,GRES/gpu=3000`) read against
/// the cluster's TRES `names`: (name, weight) in the TRES's order. A TRES
/// the cluster does not count, or an item that does not read, is slurmctld's
/// fatal error (its text is the `Err`). A unit after a weight divides it
/// (`Mem=1G`: per GB of a count in MB), as slurmctld reads it.
pub fn tres_weights(text: &str, names: &[String]) -> Result<Vec<(String, f64)>, String> {
    let fatal = |why: String| Err(format!("{why}\nfailed to parse tres weights str '{text}'"));
    let mut found: Vec<(usize, f64)> = vec![];
    for item in text.split(',').filter(|i| !i.is_empty()) {
        let (key, value) = match item.split_once('=') {
            Some((k, v)) if !k.is_empty() && !v.is_empty() => (k, v),
            _ => return fatal(format!("\"{item}\" is an invalid TRES weight entry")),
        };
        let (ty, name) = match key.split_once('/') {
            Some((t, n)) => (t, Some(n)),
            None => (key, None),
        };
        let want = match name {
            Some(n) => format!("{}/{}", ty.to_ascii_lowercase(), n.to_ascii_lowercase()),
            None => ty.to_ascii_lowercase(),
        };
        let Some(pos) = names.iter().position(|n| n.to_ascii_lowercase() == want) else {
            let shown = match name {
                Some(n) => format!("{ty}:{n}"),
                None => ty.to_string(),
            };
            return fatal(format!("TRES weight '{shown}' is not a configured TRES type."));
        };
        let num_end = value.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(value.len());
        let Ok(mut weight) = value[..num_end].parse::<f64>() else {
            return fatal(format!("\"{item}\" is an invalid TRES weight entry"));
        };
        if let Some(unit) = value[num_end..].chars().next() {
            // (the count's own unit: MB for mem, none for the others)
            let base = if want == "mem" { 2 } else { 0 };
            let Some(at) = spur_grammar::size::Unit::of_letter(unit) else {
                return fatal(format!("\"{item}\" is an invalid TRES weight entry"));
            };
            if at as i32 > base {
                weight /= 1024f64.powi(at as i32 - base);
            }
        }
        found.retain(|(p, _)| *p != pos);
        found.push((pos, weight));
    }
    found.sort_by_key(|(p, _)| *p);
    Ok(found.into_iter().map(|(p, w)| (names[p].clone(), w)).collect())
}

/// TRES counts by name (`cpu`, `mem` in MB, `node`, `billing`, `gres/gpu`,
/// `gres/gpu:TYPE`).
pub type TresCounts = Vec<(String, f64)>;

fn count_of(c: &[(String, f64)], name: &str) -> f64 {
    c.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v).unwrap_or(0.0)
}

/// Whether slurm.conf's `PriorityFlags` names `MAX_TRES`.
pub fn max_tres(conf: &SlurmConf) -> bool {
    flag(conf, "MAX_TRES")
}

/// `TRESBillingWeights` (`CPU=1.0,Mem=0.25G,GRES/gpu=2.0`: a memory weight
/// per GB, TB, ..., per MB without a unit) applied to TRES `counts` (memory
/// in MB), as slurmctld's assoc_mgr_tres_weighted: the weighted sum, or
/// with `PriorityFlags=MAX_TRES` the largest weighted node TRES (`cpu`,
/// `mem`, `node`, `gres/...`) plus the sum of the others; truncated. No
/// weights: the CPU count.
pub fn billing(weights: Option<&str>, counts: &[(String, f64)], max_tres: bool) -> u64 {
    let Some(w) = weights.filter(|w| !w.trim().is_empty()) else {
        return count_of(counts, "cpu") as u64;
    };
    let (mut node, mut global) = (0f64, 0f64);
    for item in w.split(',') {
        let Some((t, v)) = item.split_once('=') else { continue };
        let t = t.trim().to_ascii_lowercase();
        let v = v.trim();
        let unit = v.chars().last().filter(|c| c.is_ascii_alphabetic());
        let num: f64 = v.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap_or(0.0);
        // (a memory weight per unit: MB without one)
        let per = match unit.and_then(spur_grammar::size::Unit::of_letter) {
            Some(u) if t == "mem" => 1024f64.powi(u as i32 - 2),
            _ => 1.0,
        };
        let value = num * counts.iter().find(|(n, _)| n.eq_ignore_ascii_case(&t)).map_or(0.0, |(_, c)| *c) / per;
        if max_tres && (matches!(t.as_str(), "cpu" | "mem" | "node") || t.starts_with("gres/")) {
            node = node.max(value);
        } else if t != "billing" {
            global += value;
        }
    }
    (node + global) as u64
}

/// A partition's billing TRES (`TRES=...,billing=N`) over `nodes` (all the
/// cluster's: its own are picked).
pub fn partition_billing(part: &Partition, nodes: &[&Node]) -> u64 {
    part.more.billing(&partition_counts(part, nodes))
}

/// A job's billing TRES in its partition `part`: what it holds or asks for,
/// weighted by the partition's `TRESBillingWeights` (its CPUs without).
pub fn job_billing(job: &Job, part: Option<&Partition>) -> u64 {
    let counts: TresCounts = job_tres(job).into_iter().filter(|(n, _)| n != "billing").collect();
    match part {
        Some(p) => billing(p.more.tres_billing_weights.as_deref(), &counts, p.more.max_tres),
        None => u64::from(job.num_cpus),
    }
}

/// A partition's TRES (slurmctld's `part_ptr->tres_cnt`, `TRES=` of `scontrol
/// show partition`): its nodes' CPUs, memory, count, billing and GRES.
pub fn partition_tres(part: &Partition, nodes: &[&Node]) -> TresCounts {
    let mut c = partition_counts(part, nodes);
    let b = part.more.billing(&c) as f64;
    c.insert(3, ("billing".into(), b));
    c
}

/// A partition's TRES without its billing.
fn partition_counts(part: &Partition, nodes: &[&Node]) -> TresCounts {
    let mine: Vec<&&Node> = nodes.iter().filter(|n| part.nodes.iter().any(|p| **p == n.name)).collect();
    let cpus: u64 = mine.iter().map(|n| u64::from(n.cpus)).sum();
    let mem: u64 = mine.iter().map(|n| n.real_memory).sum();
    let mut c: TresCounts =
        vec![("cpu".into(), cpus as f64), ("mem".into(), mem as f64), ("node".into(), mine.len() as f64)];
    for n in &mine {
        for (name, ty, count) in &n.gres {
            add(&mut c, &format!("gres/{name}"), *count as f64);
            if let Some(t) = ty {
                add(&mut c, &format!("gres/{name}:{t}"), *count as f64);
            }
        }
    }
    c
}

fn add(c: &mut TresCounts, name: &str, v: f64) {
    match c.iter_mut().find(|(n, _)| n == name) {
        Some(e) => e.1 += v,
        None => c.push((name.to_string(), v)),
    }
}

/// A job's TRES as the TRES factor counts them: what it was given when it
/// runs, else what it asks for (CPUs, memory, nodes, billing as its CPUs,
/// and its GRES on every node or its `--gpus`).
pub fn job_tres(job: &Job) -> TresCounts {
    let mut c: TresCounts = vec![];
    if !job.allocs.is_empty() {
        add(&mut c, "cpu", job.allocs.iter().map(|a| f64::from(a.cpus)).sum());
        add(&mut c, "mem", job.allocs.iter().map(|a| a.mem_mb as f64).sum());
        add(&mut c, "node", job.allocs.len() as f64);
        for g in job.allocs.iter().flat_map(|a| &a.gres) {
            add(&mut c, &format!("gres/{}", g.name), g.count as f64);
            if let Some(t) = &g.gtype {
                add(&mut c, &format!("gres/{}:{t}", g.name), g.count as f64);
            }
        }
    } else {
        let mem = if job.mem_per_cpu > 0 {
            job.mem_per_cpu * u64::from(job.num_cpus)
        } else {
            job.mem_per_node * u64::from(job.num_nodes)
        };
        add(&mut c, "cpu", f64::from(job.num_cpus));
        add(&mut c, "mem", mem as f64);
        add(&mut c, "node", f64::from(job.num_nodes.max(1)));
        let nodes = job.num_nodes.max(1) as f64;
        let per_node = job.desc.gres.as_deref().and_then(|g| spur_grammar::gres::parse_request(g, None).ok());
        for g in per_node.map(|r| r.items).unwrap_or_default() {
            add(&mut c, &format!("gres/{}", g.name), g.count as f64 * nodes);
            if let Some(t) = &g.type_ {
                add(&mut c, &format!("gres/{}:{t}", g.name), g.count as f64 * nodes);
            }
        }
        if let Some(g) =
            job.desc.gpus.as_deref().and_then(|g| spur_grammar::gres::parse_request(&format!("gpu:{g}"), None).ok())
        {
            for g in g.items {
                add(&mut c, "gres/gpu", g.count as f64);
                if let Some(t) = &g.type_ {
                    add(&mut c, &format!("gres/gpu:{t}"), g.count as f64);
                }
            }
        }
    }
    let cpus = count_of(&c, "cpu");
    add(&mut c, "billing", cpus);
    c
}

/// Whether slurm.conf's `PriorityFlags` names `name` (case-insensitive,
/// anywhere in the value, as slurmctld reads it).
fn flag(conf: &SlurmConf, name: &str) -> bool {
    conf.get("PriorityFlags").is_some_and(|v| v.to_ascii_uppercase().contains(name))
}

/// What the factors need of the cluster.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub nodes: u32,
    pub cpus: u64,
    /// The largest `PriorityJobFactor` of any partition.
    pub max_part_factor: u32,
    /// The largest priority of any QOS.
    pub max_qos_priority: u32,
}

impl Totals {
    pub fn of(nodes: &[&Node], parts: &[&Partition]) -> Totals {
        Totals {
            nodes: nodes.len() as u32,
            cpus: nodes.iter().map(|n| u64::from(n.cpus)).sum(),
            max_part_factor: parts.iter().map(|p| p.priority_job_factor).max().unwrap_or(0),
            max_qos_priority: 0,
        }
    }

    /// With the QOS records' largest priority.
    pub fn with_qos(self, qos: &[crate::qos::Qos]) -> Totals {
        Totals { max_qos_priority: crate::qos::max_priority(qos), ..self }
    }
}

/// One job's factors, weighted (each factor times its weight, as sprio
/// prints them), and its nice value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Factors {
    pub age: f64,
    pub assoc: f64,
    pub fairshare: f64,
    pub jobsize: f64,
    pub partition: f64,
    pub qos: f64,
    /// The weighted TRES factors that are not 0: (TRES, value).
    pub tres: Vec<(String, f64)>,
    pub site: i64,
    pub nice: i64,
}

impl Factors {
    /// The sum as sprio shows it: the factors and the site factor, less
    /// nice, at least 1; not truncated.
    pub fn sum(&self) -> f64 {
        let tres: f64 = self.tres.iter().map(|(_, v)| v).sum();
        let p =
            self.age + self.assoc + self.fairshare + self.jobsize + self.partition + self.qos + tres + self.site as f64
                - self.nice as f64;
        p.max(1.0)
    }

    /// slurmctld's priority: [`sum`](Self::sum) truncated.
    pub fn priority(&self) -> u32 {
        self.sum().min(f64::from(u32::MAX - 1)) as u32
    }
}

/// The last `PriorityCalcPeriod` boundary at or before `now`: the factors
/// change only there.
pub fn calc_time(w: &Weights, now: i64) -> i64 {
    now - now.rem_euclid(w.calc_period.max(1))
}

/// The weighted factors of `job` (in partition `part_factor`'s partition,
/// of a QOS of priority `qos_priority`, with fair-share factor
/// `fair_share`) as of `now`.
pub fn factors(
    job: &Job,
    part_factor: u32,
    qos_priority: u32,
    fair_share: f64,
    totals: &Totals,
    w: &Weights,
    now: i64,
) -> Factors {
    let at = calc_time(w, now);
    let accrue = if w.accrue_always { job.submit_time } else { job.eligible_time };
    // (a running job's, with CALCULATE_RUNNING, goes on growing: 22.05
    // keeps its accrue time; priority-tres-fairshare-22.05.md 2b)
    let age = if accrue > 0 && w.max_age > 0 && at > accrue {
        ((at - accrue) as f64 / w.max_age as f64).min(1.0)
    } else {
        0.0
    };
    let size = if totals.nodes > 0 && totals.cpus > 0 && w.size_relative {
        // (priority_multifactor.c: CPUs, at least the nodes' average share,
        // per minute of the time limit, INFINITE when unlimited)
        let share = f64::from(job.num_nodes.max(1)) * totals.cpus as f64 / f64::from(totals.nodes);
        let minutes = f64::from(job.time_limit.unwrap_or(u32::MAX - 1).max(1));
        let js = share.max(f64::from(job.num_cpus.max(1))) / minutes / totals.cpus as f64;
        (if w.favor_small { 1.0 - js } else { js }).clamp(0.0, 1.0)
    } else if totals.nodes > 0 && totals.cpus > 0 {
        let nodes = f64::from(job.num_nodes.max(1)) / f64::from(totals.nodes);
        let cpus = f64::from(job.num_cpus.max(1)) / totals.cpus as f64;
        let big = ((nodes + cpus) / 2.0).min(1.0);
        if w.favor_small {
            1.0 - big
        } else {
            big
        }
    } else {
        0.0
    };
    let part = if w.no_normal_part {
        f64::from(part_factor)
    } else if totals.max_part_factor > 0 {
        f64::from(part_factor) / f64::from(totals.max_part_factor)
    } else {
        0.0
    };
    Factors {
        age: age * f64::from(w.age),
        assoc: 0.0,
        fairshare: fair_share * f64::from(w.fairshare),
        jobsize: size * f64::from(w.jobsize),
        partition: part * f64::from(w.partition),
        qos: if w.no_normal_qos {
            f64::from(qos_priority) * f64::from(w.qos)
        } else if totals.max_qos_priority > 0 {
            f64::from(qos_priority) / f64::from(totals.max_qos_priority) * f64::from(w.qos)
        } else {
            0.0
        },
        tres: vec![],
        site: 0,
        nice: i64::from(job.desc.nice.unwrap_or(0)),
    }
}

/// The weighted TRES factors of `job` in a partition of TRES `part`: each
/// TRES the weights name, the job's count over the partition's (the count
/// itself with `NO_NORMAL_TRES`) times its weight; those that are 0 left out.
pub fn tres_factors(job: &Job, part: &TresCounts, w: &Weights) -> Vec<(String, f64)> {
    if w.tres_weights.is_empty() {
        return vec![];
    }
    let mine = job_tres(job);
    w.tres_weights
        .iter()
        .filter_map(|(name, weight)| {
            let v = count_of(&mine, name);
            let total = count_of(part, name);
            let f = if w.no_normal_tres {
                v
            } else if v > 0.0 && total > 0.0 {
                v / total
            } else {
                0.0
            };
            let f = f * weight;
            (f != 0.0).then(|| (name.clone(), f))
        })
        .collect()
}

/// Everything a job's factors take from the cluster: its size, each
/// partition's factor and TRES, the QOS and the fair-share factors. One is
/// made per pass (the controller's recalculation, sprio's report) and asked
/// for each job.
pub struct Context<'a> {
    pub totals: Totals,
    parts: std::collections::HashMap<&'a str, (u32, TresCounts)>,
    qos: &'a [crate::qos::Qos],
    fair_share: Option<&'a crate::assoc::Factors>,
    /// Each user association's priority (its own or passed down) and the
    /// largest of any association, with an association weight.
    assoc_prio: Option<(AssocPriorities, u32)>,
}

/// Each user association's priority, by (user, account).
type AssocPriorities = std::collections::HashMap<(String, String), u32>;

impl<'a> Context<'a> {
    /// `fair_share`: the factors with accounting (`None`: every job gets
    /// the whole weight, no usage being recorded).
    pub fn new(
        nodes: &[&'a Node],
        parts: &[&'a Partition],
        qos: &'a [crate::qos::Qos],
        fair_share: Option<&'a crate::assoc::Factors>,
        assocs: Option<&crate::assoc::Assocs>,
        w: &Weights,
    ) -> Context<'a> {
        let with_tres = !w.tres_weights.is_empty();
        let assoc_prio = assocs.filter(|_| w.assoc > 0).map(|a| {
            let by: AssocPriorities = a
                .links
                .iter()
                .filter_map(|l| Some(((l.user.clone(), l.account.clone()), a.link_limits(l).priority?)))
                .collect();
            let accounts = a.accounts.iter().filter_map(|x| a.account_limits(&x.name).priority);
            let max = by.values().copied().chain(accounts).max().unwrap_or(0);
            (by, max)
        });
        Context {
            totals: Totals::of(nodes, parts).with_qos(qos),
            parts: parts
                .iter()
                .map(|p| {
                    let tres = if with_tres { partition_tres(p, nodes) } else { vec![] };
                    (p.name.as_str(), (p.priority_job_factor, tres))
                })
                .collect(),
            qos,
            fair_share,
            assoc_prio,
        }
    }

    /// The weighted factors of `job` as of `now`.
    pub fn factors(&self, job: &Job, w: &Weights, now: i64) -> Factors {
        let (pf, tres) = match self.parts.get(job.partition.as_str()) {
            Some((f, t)) => (*f, Some(t)),
            None => (0, None),
        };
        let qp = crate::qos::of_job(self.qos, job).map(|q| q.priority).unwrap_or(0);
        let fs = self.fair_share.map(|f| crate::assoc::job_factor(f, job)).unwrap_or(1.0);
        let mut f = factors(job, pf, qp, fs, &self.totals, w, now);
        if let Some(t) = tres {
            f.tres = tres_factors(job, t, w);
        }
        if let Some((by, max)) = &self.assoc_prio {
            let acct = job.desc.account.as_deref().unwrap_or_default().to_ascii_lowercase();
            let p = by.get(&(job.user_name.clone(), acct)).copied().unwrap_or(0);
            // (the association's priority over the largest of any, or
            // itself with NO_NORMAL_ASSOC)
            let v = if w.no_normal_assoc {
                f64::from(p)
            } else if *max > 0 {
                f64::from(p) / f64::from(*max)
            } else {
                0.0
            };
            f.assoc = v * f64::from(w.assoc);
        }
        f
    }
}

/// Whether the controller computes `job`'s priority: pending (or, with
/// `CALCULATE_RUNNING`, in any state, as 22.05 recomputes every job it
/// still holds: priority-tres-fairshare-22.05.md 2b), not held, not set by
/// an operator.
pub fn computed(job: &Job, w: &Weights) -> bool {
    listed(job, w) && job.held.is_none() && job.desc.priority.is_none()
}

/// Whether sprio lists `job` (as far as its state and priority go):
/// pending, or any job with `CALCULATE_RUNNING`, but not one of priority
/// 0 (held).
pub fn listed(job: &Job, w: &Weights) -> bool {
    (job.state == crate::model::JobState::Pending || w.calculate_running) && job.priority > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured_weights() -> Weights {
        Weights {
            age: 1000,
            fairshare: 1000,
            jobsize: 1000,
            partition: 1000,
            qos: 1000,
            max_age: 86400,
            calc_period: 300,
            ..Default::default()
        }
    }

    fn job(nodes: u32, cpus: u32, nice: i32) -> Job {
        let mut j = Job { num_nodes: nodes, num_cpus: cpus, eligible_time: 1_000_000, ..Default::default() };
        j.desc.nice = Some(nice);
        j
    }

    /// The sprio figures of priority-22.05.md: 6 nodes, 64 CPUs, partition
    /// factors 1 and 2.
    #[test]
    fn the_measured_priorities() {
        let w = measured_weights();
        let t = Totals { nodes: 6, cpus: 64, max_part_factor: 2, max_qos_priority: 0 };
        let now = 1_000_030;
        let f3 = factors(&job(2, 16, 0), 1, 0, 1.0, &t, &w, now);
        assert_eq!((f3.jobsize.round(), f3.partition, f3.fairshare, f3.age), (292.0, 500.0, 1000.0, 0.0));
        assert_eq!(f3.priority(), 1791);
        assert_eq!(factors(&job(1, 1, 100), 1, 0, 1.0, &t, &w, now).priority(), 1491);
        assert_eq!(factors(&job(1, 1, 0), 2, 0, 1.0, &t, &w, now).priority(), 2091);
        assert_eq!(factors(&job(1, 4, 0), 1, 0, 1.0, &t, &w, now).priority(), 1614);
        // the running job -N4 -n32 when it was submitted
        assert_eq!(factors(&job(4, 32, 0), 1, 0, 1.0, &t, &w, now).priority(), 2083);
    }

    #[test]
    fn age_counts_from_eligibility_at_calc_boundaries() {
        let w = measured_weights();
        let t = Totals { nodes: 6, cpus: 64, max_part_factor: 2, max_qos_priority: 0 };
        let j = job(1, 1, 0);
        // within the period it became eligible in: nothing yet
        assert_eq!(factors(&j, 1, 0, 1.0, &t, &w, 1_000_100).age, 0.0);
        // half a day on: half the weight, then at most the weight
        let later = calc_time(&w, 1_000_000 + 43_200) + 300;
        let a = factors(&j, 1, 0, 1.0, &t, &w, later).age;
        assert!(a > 500.0 && a < 510.0, "{a}");
        assert_eq!(factors(&j, 1, 0, 1.0, &t, &w, 1_000_000 + 10 * 86400).age, 1000.0);
    }

    #[test]
    fn priority_flags_accrue_always_and_small_relative_to_time() {
        let t = Totals { nodes: 6, cpus: 64, max_part_factor: 1, max_qos_priority: 0 };
        // held back two days after submission: no age, unless ACCRUE_ALWAYS
        let mut j = job(1, 1, 0);
        j.submit_time = 1_000_000 - 2 * 86_400;
        let w = measured_weights();
        assert_eq!(factors(&j, 1, 0, 1.0, &t, &w, 1_000_000).age, 0.0);
        let w = Weights { accrue_always: true, ..measured_weights() };
        assert_eq!(factors(&j, 1, 0, 1.0, &t, &w, 1_000_000).age, 1000.0);
        // CPUs per minute of the limit over the cluster's CPUs: 16 CPUs for
        // 10 minutes; 2 nodes (at least 2 x 64/6 CPUs) for 60; unlimited
        let w = Weights { size_relative: true, ..measured_weights() };
        let mut a = job(1, 16, 0);
        a.time_limit = Some(10);
        assert!((factors(&a, 1, 0, 1.0, &t, &w, 1_000_000).jobsize - 25.0).abs() < 1e-9);
        let mut b = job(2, 4, 0);
        b.time_limit = Some(60);
        let want = 2.0 * 64.0 / 6.0 / 60.0 / 64.0 * 1000.0;
        assert!((factors(&b, 1, 0, 1.0, &t, &w, 1_000_000).jobsize - want).abs() < 1e-9);
        let u = job(1, 1, 0);
        assert!(factors(&u, 1, 0, 1.0, &t, &w, 1_000_000).jobsize < 1e-6);
        let w = Weights { favor_small: true, ..w };
        assert!((factors(&a, 1, 0, 1.0, &t, &w, 1_000_000).jobsize - 975.0).abs() < 1e-9);
        // 22.05's `sprio -n` on 6 nodes of 64 CPUs (priority-flags-22.05.md
        // B, jobs 11-16): nodes, CPUs, time limit -> the normalised factor
        let w = Weights { size_relative: true, ..measured_weights() };
        for (n, c, limit, want) in [
            (1, 1, Some(10), 0.0166667),
            (1, 1, Some(100), 0.0016667),
            (1, 8, Some(10), 0.0166667),
            (2, 16, Some(60), 0.0055556),
            (1, 4, None, 0.0),
            (1, 4, Some(60), 0.0027778),
        ] {
            let mut j = job(n, c, 0);
            j.time_limit = limit;
            let got = factors(&j, 1, 0, 1.0, &t, &w, 1_000_000).jobsize / 1000.0;
            assert_eq!(format!("{:.7}", got), format!("{:.7}", want), "{n} {c} {limit:?}");
        }
        // NO_NORMAL_PART, NO_NORMAL_QOS: the factors themselves
        let t = Totals { max_part_factor: 4, max_qos_priority: 100, ..t };
        let w = Weights { no_normal_part: true, no_normal_qos: true, partition: 2, qos: 3, ..measured_weights() };
        let f = factors(&job(1, 1, 0), 4, 10, 1.0, &t, &w, 1_000_000);
        assert_eq!((f.partition, f.qos), (8.0, 30.0));
    }

    #[test]
    fn tres_weights_read_against_the_configured_tres() {
        let base: Vec<String> = BASE_TRES.iter().map(|s| s.to_string()).collect();
        let mut with_gpu = base.clone();
        with_gpu.push("gres/gpu".into());
        // in the TRES's order, whatever the order written; names as slurmctld's
        assert_eq!(
            tres_weights("GRES/gpu=3000,CPU=1000,Mem=2000", &with_gpu),
            Ok(vec![("cpu".into(), 1000.0), ("mem".into(), 2000.0), ("gres/gpu".into(), 3000.0)])
        );
        // a unit divides the weight: per GB of a count in MB
        assert_eq!(tres_weights("mem=2048G", &base), Ok(vec![("mem".into(), 2.0)]));
        // a TRES the cluster does not count stops slurmctld
        assert_eq!(
            tres_weights("CPU=1000,GRES/gpu=3000", &base),
            Err("TRES weight 'GRES:gpu' is not a configured TRES type.\n\
                 failed to parse tres weights str 'CPU=1000,GRES/gpu=3000'"
                .into())
        );
        assert!(tres_weights("cpu", &base).unwrap_err().starts_with("\"cpu\" is an invalid TRES weight entry"));
        assert!(tres_weights("cpu=x", &base).is_err());
    }

    #[test]
    fn tres_factors_over_the_partition() {
        let part: TresCounts =
            vec![("cpu".into(), 32.0), ("mem".into(), 64000.0), ("node".into(), 4.0), ("gres/gpu".into(), 16.0)];
        let w = Weights {
            tres_weights: vec![("cpu".into(), 1000.0), ("mem".into(), 2000.0), ("gres/gpu".into(), 3000.0)],
            ..measured_weights()
        };
        let mut j = job(2, 8, 0);
        j.mem_per_node = 4000;
        j.desc.gres = Some("gpu:2".into());
        // 8/32 CPUs, 2x4000/64000 MB, 2x2/16 GPUs
        let f = tres_factors(&j, &part, &w);
        assert_eq!(f, vec![("cpu".into(), 250.0), ("mem".into(), 250.0), ("gres/gpu".into(), 750.0)]);
        // --gpus counts once; none asked: left out
        let mut g = job(1, 1, 0);
        g.desc.gpus = Some("mi300x:3".into());
        assert_eq!(tres_factors(&g, &part, &w), vec![("cpu".into(), 31.25), ("gres/gpu".into(), 562.5)]);
        // NO_NORMAL_TRES: the counts themselves
        let raw = Weights { no_normal_tres: true, ..w.clone() };
        assert_eq!(tres_factors(&g, &part, &raw), vec![("cpu".into(), 1000.0), ("gres/gpu".into(), 9000.0)]);
        // and the sum counts them
        let t = Totals { nodes: 4, cpus: 32, max_part_factor: 1, max_qos_priority: 0 };
        let mut f = factors(&j, 1, 0, 1.0, &t, &w, 1_000_000);
        let without = f.priority();
        f.tres = tres_factors(&j, &part, &w);
        assert_eq!(f.priority(), without + 1250);
    }

    #[test]
    fn running_jobs_with_calculate_running() {
        let w = measured_weights();
        let mut j = job(1, 1, 0);
        assert!(!computed(&j, &w), "priority 0: held");
        j.priority = 100;
        assert!(computed(&j, &w));
        j.state = crate::model::JobState::Running;
        assert!(!computed(&j, &w));
        let cr = Weights { calculate_running: true, ..measured_weights() };
        assert!(computed(&j, &cr));
        // its age goes on growing (measured: job 26's AGE 227, then 327)
        let t = Totals { nodes: 6, cpus: 64, max_part_factor: 1, max_qos_priority: 0 };
        assert_eq!(factors(&j, 1, 0, 1.0, &t, &cr, 1_000_000 + 2 * 86400).age, 1000.0);
        // and an ended job still held in memory is listed and computed too
        j.state = crate::model::JobState::Cancelled;
        assert!(computed(&j, &cr) && listed(&j, &cr) && !listed(&j, &w));
        j.held = Some(crate::model::Reason::Other("x".into()));
        assert!(!computed(&j, &cr));
    }

    /// 22.05's billing with `TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0"`,
    /// summed and with `MAX_TRES` (priority-tres-fairshare-22.05.md 1e, 1f):
    /// the partitions' `TRES=...,billing=` and jobs 16-19 and 22-25.
    #[test]
    fn billing_as_measured() {
        let w = Some("CPU=1.0,Mem=0.25G,GRES/gpu=2.0");
        let c = |cpu: f64, mem: f64, node: f64, gpu: f64| -> Vec<(String, f64)> {
            vec![("cpu".into(), cpu), ("mem".into(), mem), ("node".into(), node), ("gres/gpu".into(), gpu)]
        };
        for (counts, sum, max) in [
            (c(32.0, 64000.0, 4.0, 0.0), 47, 32),
            (c(32.0, 128000.0, 2.0, 16.0), 95, 32),
            (c(16.0, 16384.0, 2.0, 0.0), 20, 16),
            (c(2.0, 2048.0, 1.0, 2.0), 6, 4),
            (c(1.0, 32000.0, 1.0, 8.0), 24, 16),
            (c(1.0, 1024.0, 1.0, 3.0), 7, 6),
        ] {
            assert_eq!((billing(w, &counts, false), billing(w, &counts, true)), (sum, max), "{counts:?}");
        }
        // no weights: the CPUs
        assert_eq!(billing(None, &c(3.0, 1.0, 1.0, 1.0), true), 3);
        // a job's own: its GPUs asked for with --gres count on every node
        let mut j = job(2, 16, 0);
        j.mem_per_cpu = 1024;
        let mut part = Partition { name: "cpu".into(), ..Default::default() };
        part.more.tres_billing_weights = w.map(str::to_string);
        assert_eq!(job_billing(&j, Some(&part)), 20);
        part.more.max_tres = true;
        assert_eq!(job_billing(&j, Some(&part)), 16);
        assert_eq!(job_billing(&j, None), 16);
    }

    #[test]
    fn favor_small_and_floor() {
        let w = Weights { jobsize: 1000, favor_small: true, ..measured_weights() };
        let t = Totals { nodes: 6, cpus: 64, max_part_factor: 1, max_qos_priority: 0 };
        let f = factors(&job(1, 1, 0), 1, 0, 1.0, &t, &w, 1_000_000);
        assert!((f.jobsize - 908.854).abs() < 0.01, "{}", f.jobsize);
        let zero = Weights { calc_period: 300, ..Default::default() };
        assert!(!zero.any());
        assert_eq!(factors(&job(1, 1, 500), 1, 0, 1.0, &t, &zero, 1_000_000).priority(), 1);
    }
}
