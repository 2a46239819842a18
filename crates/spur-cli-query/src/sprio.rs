//! `sprio`: the factors of each pending job's priority under
//! `PriorityType=priority/multifactor`, as Slurm 22.05's sprio prints them
//! (measured in `crates/spur-core/tests/priority-22.05.md`): the default
//! columns of the weights that are set, `-l`, `-n` (normalised), `-w` (the
//! weights), `-o` (`%i %r %u %Y %y %S %A %a %B %b %F %f %J %j %P %p %Q %q
//! %N %c %T %t`), `-S`, and the filters `-j`, `-p`, `-u`, `-h`.
//!
//! The factors come from [`spur_core::priority`], the function the
//! controller sets priorities with, over the jobs, nodes and partitions of
//! one query and the weights of slurm.conf.

use spur_cli_base::format::{parse_short, render_line, Cell, FieldDef, Item, ItemKind};
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::output::Output;
use spur_cli_base::process::{client, emit, load_error, runtime};
use spur_core::model::{ClusterView, Job, Node, Partition};
use spur_core::priority::{Factors, Weights};
use spur_core::request::Query as QueryRequest;
use std::collections::HashMap;

pub const SPECS: &[OptSpec] = &[
    OptSpec::new(Some('h'), "noheader", None_, "noheader"),
    OptSpec::new(Some('j'), "jobs", Optional, "jobs"),
    OptSpec::new(Some('l'), "long", None_, "long"),
    OptSpec::new(Some('M'), "cluster", Required, "cluster"),
    OptSpec::new(None, "clusters", Required, "cluster"),
    OptSpec::new(Some('n'), "norm", None_, "norm"),
    OptSpec::new(Some('o'), "format", Required, "format"),
    OptSpec::new(Some('S'), "sort", Required, "sort"),
    OptSpec::new(Some('p'), "partition", Required, "partition"),
    OptSpec::new(Some('u'), "user", Required, "user"),
    OptSpec::new(None, "users", Required, "user"),
    OptSpec::new(Some('v'), "verbose", None_, "verbose"),
    OptSpec::new(Some('V'), "version", None_, "version"),
    OptSpec::new(Some('w'), "weights", None_, "weights"),
    OptSpec::new(None, "federation", None_, "federation"),
    OptSpec::new(None, "help", None_, "help"),
    OptSpec::new(None, "local", None_, "local"),
    OptSpec::new(None, "sib", None_, "sibling"),
    OptSpec::new(None, "sibling", None_, "sibling"),
    OptSpec::new(None, "usage", None_, "usage"),
    // 24.11's
    OptSpec::new(None, "helpformat", None_, "helpformat"),
    OptSpec::new(None, "autocomplete", Required, "autocomplete"),
];

/// Whether this imitates 22.05's sprio (no ACCOUNT or QOSNAME field, no
/// `--helpformat`).
fn v22() -> bool {
    spur_core::compat::profile().usage_texts_22_05
}

const USAGE: &str = "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";

const HELP: &str = "Usage: sprio [OPTIONS]
      --federation                display jobs in federation if a member of one
  -h, --noheader                  no headers on output
  -j, --jobs                      comma separated list of jobs
                                  to view, default is all
      --local                     display jobs on local cluster only
  -l, --long                      long report
  -M, --cluster=cluster_name      cluster to issue commands to.  Default is
                                  current cluster.  cluster with no name will
                                  reset to default.
                                  NOTE: SlurmDBD must be up.
  -n, --norm                      display normalized values
  -o, --format=format             format specification
      --sibling                   display job records separately for each federation cluster
  -p, --partition=partition_name  comma separated list of partitions
  -u, --user=user_name            comma separated list of users to view
  -v, --verbose                   verbosity level
  -V, --version                   output version information and exit
  -w, --weights                   show the weights for each priority factor

Help options:
  --help                          show this help message
  --usage                         display a brief summary of sprio options
";

/// The help: 24.11's lists `--helpformat` besides.
fn help(v22: bool) -> String {
    if v22 {
        return HELP.to_string();
    }
    HELP.replace(
        "  --usage ",
        "  --helpformat                    print a list of fields that can be specified\n                                  with '--format=' option\n  --usage ",
    )
}

/// 24.11's `--helpformat`: its field letters, eight to a line.
fn help_format() -> String {
    let letters = "aAbBcfFijJnNopPrSqQuyYtT";
    let mut out = String::new();
    for (k, c) in letters.chars().enumerate() {
        if k > 0 && k % 8 == 0 {
            out.push('\n');
        }
        out.push_str(&format!("%{c:<5}"));
    }
    out.push('\n');
    out
}

/// sprio's options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SprioOpts {
    pub no_header: bool,
    /// `-j` given (with or without a list).
    pub job_flag: bool,
    pub jobs: Option<Vec<u32>>,
    pub long: bool,
    pub norm: bool,
    pub format: Option<String>,
    pub sort: Option<String>,
    pub parts: Option<Vec<String>>,
    pub users: Option<Vec<String>>,
    pub weights: bool,
    pub sibling: bool,
    pub local: bool,
    /// 22.05's fields and layouts (else 24.11's: ACCOUNT and QOSNAME).
    pub v22: bool,
}

/// Options and `SPRIO_FORMAT` into [`SprioOpts`]; `Err`: what to print and
/// the exit code (usage, help, version, errors).
pub fn parse(args: &[String], env: &HashMap<String, String>) -> Result<SprioOpts, Output> {
    let specs = if v22() { opts::without(SPECS, &["helpformat", "autocomplete"]) } else { SPECS.to_vec() };
    let p = opts::parse("sprio", &specs, args, Mode::Permute);
    if let Some(e) = p.error {
        return Err(e.into_output("sprio", 1));
    }
    let mut o = SprioOpts { v22: v22(), ..Default::default() };
    let mut format_given = false;
    for (id, v) in p.opts {
        match id {
            "noheader" => o.no_header = true,
            "jobs" => {
                o.job_flag = true;
                if let Some(v) = v {
                    o.jobs = Some(job_list(&v));
                }
            }
            "long" => {
                o.long = true;
                format_given = true;
            }
            "norm" => o.norm = true,
            "format" => {
                o.format = v;
                format_given = true;
            }
            "sort" => o.sort = v,
            "partition" => o.parts = v.map(|v| v.split(',').map(str::to_string).collect()),
            "user" => o.users = v.map(|v| v.split(',').map(str::to_string).collect()),
            "weights" => o.weights = true,
            "sibling" => o.sibling = true,
            "local" | "cluster" => o.local = true,
            "version" => return Err(Output::ok(spur_cli_base::version::version_line())),
            "help" => return Err(Output::ok(help(v22()))),
            "helpformat" => return Err(Output::ok(help_format())),
            "autocomplete" => return Err(Output::ok("")),
            "usage" => return Err(Output::ok(USAGE)),
            _ => {}
        }
    }
    if o.long && o.format.is_some() {
        return Err(Output::err(
            "sprio: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n",
            1,
        ));
    }
    if !format_given {
        if let Some(f) = env.get("SPRIO_FORMAT") {
            o.format = Some(f.clone());
        }
    }
    let mut rest = p.operands.into_iter();
    if o.job_flag {
        if let Some(j) = rest.next() {
            o.jobs = Some(job_list(&j));
        }
    }
    if let Some(extra) = rest.next() {
        return Err(Output {
            stdout: USAGE.into(),
            stderr: format!("sprio: error: Unrecognized option: {extra}\n"),
            code: 1,
        });
    }
    Ok(o)
}

/// `-j 3,5`: the numbers of the list (others are skipped).
fn job_list(v: &str) -> Vec<u32> {
    v.split(',').filter_map(|s| s.trim().parse().ok()).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum F {
    JobId,
    Partition,
    User,
    Cluster,
    Prio,
    PrioNorm,
    Site,
    Age,
    AgeNorm,
    Assoc,
    AssocNorm,
    Fs,
    FsNorm,
    Js,
    JsNorm,
    Part,
    PartNorm,
    Qos,
    QosNorm,
    Nice,
    Tres,
    TresNorm,
    Account,
    QosName,
}

const FIELDS: &[FieldDef<F>] = &[
    FieldDef { name: None, letter: Some('i'), key: F::JobId },
    FieldDef { name: None, letter: Some('r'), key: F::Partition },
    FieldDef { name: None, letter: Some('u'), key: F::User },
    FieldDef { name: None, letter: Some('c'), key: F::Cluster },
    FieldDef { name: None, letter: Some('Y'), key: F::Prio },
    FieldDef { name: None, letter: Some('y'), key: F::PrioNorm },
    FieldDef { name: None, letter: Some('S'), key: F::Site },
    FieldDef { name: None, letter: Some('A'), key: F::Age },
    FieldDef { name: None, letter: Some('a'), key: F::AgeNorm },
    FieldDef { name: None, letter: Some('B'), key: F::Assoc },
    FieldDef { name: None, letter: Some('b'), key: F::AssocNorm },
    FieldDef { name: None, letter: Some('F'), key: F::Fs },
    FieldDef { name: None, letter: Some('f'), key: F::FsNorm },
    FieldDef { name: None, letter: Some('J'), key: F::Js },
    FieldDef { name: None, letter: Some('j'), key: F::JsNorm },
    FieldDef { name: None, letter: Some('P'), key: F::Part },
    FieldDef { name: None, letter: Some('p'), key: F::PartNorm },
    FieldDef { name: None, letter: Some('Q'), key: F::Qos },
    FieldDef { name: None, letter: Some('q'), key: F::QosNorm },
    FieldDef { name: None, letter: Some('N'), key: F::Nice },
    FieldDef { name: None, letter: Some('T'), key: F::Tres },
    FieldDef { name: None, letter: Some('t'), key: F::TresNorm },
];

/// 24.11's letters besides.
const FIELDS_24: &[FieldDef<F>] = &[
    FieldDef { name: None, letter: Some('o'), key: F::Account },
    FieldDef { name: None, letter: Some('n'), key: F::QosName },
];

/// The format sprio uses without `-o`: the columns of the weights set.
fn default_format(o: &SprioOpts, w: &Weights) -> String {
    let (long, cols): (&str, [(u32, &str); 6]) = if o.norm {
        (
            if o.v22 {
                "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
            } else {
                "%.15i %9r %.8u %.8o %10y %10a %10b %10f %10j %10p %10n %10q %20t"
            },
            [
                (w.age, " %10a"),
                (w.assoc, " %10b"),
                (w.fairshare, " %10f"),
                (w.jobsize, " %10j"),
                (w.partition, " %10p"),
                (w.qos, " %10q"),
            ],
        )
    } else {
        (
            if o.v22 {
                "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T"
            } else {
                "%.15i %9r %.8u %.8o %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10n %.10Q %.11N %.20T"
            },
            [
                (w.age, " %.10A"),
                (w.assoc, " %.10B"),
                (w.fairshare, " %.10F"),
                (w.jobsize, " %.10J"),
                (w.partition, " %.10P"),
                (w.qos, " %.10Q"),
            ],
        )
    };
    if o.long {
        return long.to_string();
    }
    let mut f = String::from("%.15i %9r");
    if o.sibling && !o.local {
        f.push_str(" %.8c");
    }
    if o.users.is_some() {
        f.push_str(" %.8u");
    }
    f.push_str(if o.norm { " %10y" } else { " %.10Y %.10S" });
    for (weight, col) in cols {
        if weight > 0 {
            f.push_str(col);
        }
    }
    if w.tres.is_some() {
        f.push_str(if o.norm { " %20t" } else { " %.20T" });
    }
    f
}

/// One row: a job in one partition and its factors.
struct Row<'a> {
    job: &'a Job,
    f: Factors,
    /// The cluster keeps accounting (a job that named no QOS is in `normal`).
    accounting: bool,
}

impl Row<'_> {
    /// sprio's priority: the sum of the factors, not truncated (`%y`
    /// shows the fraction; `%Y` its whole part), or the one set outright.
    fn priority(&self) -> f64 {
        match self.job.desc.priority {
            Some(_) => f64::from(self.job.priority),
            None => self.f.sum(),
        }
    }
}

/// `%.0f` of a value.
fn int(v: f64) -> String {
    format!("{v:.0}")
}

/// sprio's `%.7lf`.
fn norm(v: f64) -> String {
    format!("{v:.7}")
}

fn cell(k: F, r: &Row, w: &Weights) -> Cell {
    let ratio = |v: f64, weight: u32| if weight > 0 { v / f64::from(weight) } else { 0.0 };
    Cell::s(match k {
        F::JobId => r.job.job_id.to_string(),
        F::Partition => r.job.partition.clone(),
        F::User => r.job.user_name.clone(),
        F::Cluster => return Cell::null(),
        F::Prio => format!("{}", r.priority() as i64),
        F::PrioNorm => format!("{:16.14}", r.priority() / f64::from(u32::MAX)),
        F::Site => int(r.f.site as f64),
        F::Age => int(r.f.age),
        F::AgeNorm => norm(ratio(r.f.age, w.age)),
        F::Assoc => int(r.f.assoc),
        F::AssocNorm => norm(ratio(r.f.assoc, w.assoc)),
        F::Fs => int(r.f.fairshare),
        F::FsNorm => norm(ratio(r.f.fairshare, w.fairshare)),
        F::Js => int(r.f.jobsize),
        F::JsNorm => norm(ratio(r.f.jobsize, w.jobsize)),
        F::Part => int(r.f.partition),
        F::PartNorm => norm(ratio(r.f.partition, w.partition)),
        F::Qos => int(r.f.qos),
        F::QosNorm => norm(ratio(r.f.qos, w.qos)),
        F::Nice => int(r.f.nice as f64),
        // (sprio: each TRES that is not 0, weighted `%.0f` or over its
        // weight `%.2f`)
        F::Tres => tres_text(&r.f.tres, |_, v| format!("{v:.0}")),
        F::TresNorm => tres_text(&r.f.tres, |n, v| {
            let weight = w.tres_weights.iter().find(|(t, _)| t == n).map(|(_, x)| *x).unwrap_or(1.0);
            format!("{:.2}", v / weight)
        }),
        F::Account => return Cell::opt(r.job.desc.account.as_deref()),
        F::QosName => return Cell::opt(r.job.desc.qos_shown(r.accounting)),
    })
}

/// `name=value,...` of the TRES factors.
fn tres_text(tres: &[(String, f64)], value: impl Fn(&str, f64) -> String) -> String {
    tres.iter().map(|(n, v)| format!("{n}={}", value(n, *v))).collect::<Vec<_>>().join(",")
}

fn header(k: F) -> &'static str {
    match k {
        F::JobId => "JOBID",
        F::Partition => "PARTITION",
        F::User => "USER",
        F::Cluster => "CLUSTER",
        F::Prio | F::PrioNorm => "PRIORITY",
        F::Site => "SITE",
        F::Age | F::AgeNorm => "AGE",
        F::Assoc | F::AssocNorm => "ASSOC",
        F::Fs | F::FsNorm => "FAIRSHARE",
        F::Js | F::JsNorm => "JOBSIZE",
        F::Part | F::PartNorm => "PARTITION",
        F::Qos | F::QosNorm => "QOS",
        F::Nice => "NICE",
        F::Tres | F::TresNorm => "TRES",
        F::Account => "ACCOUNT",
        F::QosName => "QOSNAME",
    }
}

/// The `-w` row: each factor's weight (`SITE` 1; the others empty).
fn weight_cell(k: F, w: &Weights) -> Cell {
    Cell::s(match k {
        F::JobId => "Weights".to_string(),
        F::Site => "1".into(),
        F::Age | F::AgeNorm => w.age.to_string(),
        F::Assoc | F::AssocNorm => w.assoc.to_string(),
        F::Fs | F::FsNorm => w.fairshare.to_string(),
        F::Js | F::JsNorm => w.jobsize.to_string(),
        F::Part | F::PartNorm => w.partition.to_string(),
        F::Qos | F::QosNorm => w.qos.to_string(),
        // (the weights as slurm.conf writes them; none in `%t`)
        F::Tres => w.tres.clone().unwrap_or_default(),
        F::Cluster => return Cell::null(),
        _ => String::new(),
    })
}

/// sprio's sort keys (`-S`, default `i`), applied from the last to the first.
fn sort_rows(rows: &mut [Row], spec: &str) {
    let b: Vec<char> = spec.chars().collect();
    for i in (0..b.len()).rev() {
        let c = b[i];
        if matches!(c, ',' | '-' | '+') {
            continue;
        }
        let desc = i > 0 && b[i - 1] == '-';
        let key = |r: &Row| -> f64 {
            match c {
                'i' => f64::from(r.job.job_id),
                'N' => r.f.nice as f64,
                'A' | 'a' => r.f.age,
                'F' | 'f' => r.f.fairshare,
                'J' | 'j' => r.f.jobsize,
                'P' | 'p' => r.f.partition,
                'Q' | 'q' => r.f.qos,
                'Y' | 'y' => r.priority(),
                _ => 0.0,
            }
        };
        match c {
            'r' | 'u' | 'c' => {
                let s = |r: &Row| if c == 'r' { r.job.partition.clone() } else { r.job.user_name.clone() };
                rows.sort_by(|x, y| {
                    let o = s(x).cmp(&s(y));
                    if desc {
                        o.reverse()
                    } else {
                        o
                    }
                });
            }
            _ => rows.sort_by(|x, y| {
                let o = key(x).partial_cmp(&key(y)).unwrap_or(std::cmp::Ordering::Equal);
                if desc {
                    o.reverse()
                } else {
                    o
                }
            }),
        }
    }
}

/// The report for a view and the weights of slurm.conf.
pub fn render(o: &SprioOpts, view: &ClusterView, w: &Weights) -> Output {
    let format = o.format.clone().unwrap_or_else(|| default_format(o, w));
    let table: Vec<FieldDef<F>> = FIELDS
        .iter()
        .chain(if o.v22 { &[][..] } else { FIELDS_24 })
        .map(|d| FieldDef { name: d.name, letter: d.letter, key: d.key })
        .collect();
    let parsed = parse_short(&format, &table);
    let mut stderr = String::new();
    for bad in &parsed.invalid {
        stderr.push_str(&format!("sprio: error: Invalid job format specification: {bad}\n"));
    }
    // an unknown letter prints nothing (sprio drops it)
    let items: Vec<Item<F>> = parsed.items.into_iter().filter(|i| !matches!(i.kind, ItemKind::Invalid)).collect();
    let nodes: Vec<&Node> = view.nodes.iter().collect();
    let parts: Vec<&Partition> = view.partitions.iter().collect();
    // (with accounting, as the controller computed them at the last
    // PriorityCalcPeriod boundary; without, the whole weight)
    let fs = view.assocs.as_ref().filter(|_| !view.qos.is_empty()).map(|_| &view.fair_share);
    let assocs = view.assocs.as_ref().filter(|_| !view.qos.is_empty());
    let cx = spur_core::priority::Context::new(&nodes, &parts, &view.qos, fs, assocs, w);
    let mut rows: Vec<Row> = view
        .jobs
        .iter()
        .filter(|j| {
            // (ACCRUE_ALWAYS: from submission, so a job waiting on a
            // dependency is listed too; priority-flags-22.05.md C)
            let since = if w.accrue_always { j.submit_time } else { j.eligible_time };
            spur_core::priority::listed(j, w) && since > 0 && since <= view.now
        })
        .filter(|j| o.jobs.as_ref().is_none_or(|l| l.contains(&j.job_id)))
        .filter(|j| o.users.as_ref().is_none_or(|u| u.iter().any(|n| *n == j.user_name || *n == j.user_id.to_string())))
        .filter(|j| o.parts.as_ref().is_none_or(|p| p.contains(&j.partition)))
        .map(|j| {
            let mut f = cx.factors(j, w, view.now);
            if j.desc.priority.is_some() {
                // set outright: SITE and NICE print 0
                f.nice = 0;
            }
            Row { job: j, f, accounting: !view.qos.is_empty() }
        })
        .collect();
    let mut out = String::new();
    if !o.no_header {
        out.push_str(&render_line(&items, |k| Cell::s(header(*k))));
    }
    if o.weights {
        out.push_str(&render_line(&items, |k| weight_cell(*k, w)));
        return Output { stdout: out, stderr, code: 0 };
    }
    if o.job_flag && rows.is_empty() {
        return Output { stdout: "Unable to find jobs matching user/id(s) specified\n".into(), stderr, code: 0 };
    }
    sort_rows(&mut rows, o.sort.as_deref().unwrap_or("i"));
    for r in &rows {
        out.push_str(&render_line(&items, |k| cell(*k, r, w)));
    }
    Output { stdout: out, stderr, code: 0 }
}

/// sprio as a process.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let opts = match parse(args, env) {
        Ok(o) => o,
        Err(o) => return emit(&o),
    };
    let c = match client("sprio") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let Some(w) = Weights::from_conf(c.conf()) else {
        let ty = spur_core::compat::priority_type(c.conf().get("PriorityType")).to_string();
        return emit(&Output::err(
            format!(
                "You are not running a supported priority plugin\n({ty}).\nOnly 'priority/multifactor' is supported.\n"
            ),
            1,
        ));
    };
    let q = QueryRequest { jobs: true, partitions: true, nodes: true, with_fair_share: true, ..Default::default() };
    match runtime().block_on(c.query(&q)) {
        Ok(view) => emit(&render(&opts, &view, &w)),
        Err(e) => emit(&load_error("Couldn't get priority factors from controller", &e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::{JobDesc, JobState, Node, Partition};

    /// The measured cluster (6 nodes, 64 CPUs; partitions cpu and pj with
    /// PriorityJobFactor 1 and 2) and its pending jobs 3-6.
    fn view() -> ClusterView {
        let node = |n: &str, cpus: u32| Node { name: n.into(), cpus, ..Default::default() };
        let mut nodes: Vec<Node> = ["cn01", "cn02", "cn03", "cn04"].iter().map(|n| node(n, 8)).collect();
        nodes.push(node("gn01", 16));
        nodes.push(node("gn02", 16));
        let part = |n: &str, f: u32| Partition { name: n.into(), priority_job_factor: f, ..Default::default() };
        let job = |id: u32, p: &str, nodes: u32, cpus: u32, nice: i32, prio: u32| Job {
            job_id: id,
            partition: p.into(),
            num_nodes: nodes,
            num_cpus: cpus,
            state: JobState::Pending,
            priority: prio,
            user_name: "root".into(),
            eligible_time: 1000,
            desc: JobDesc { nice: Some(nice), ..Default::default() },
            ..Default::default()
        };
        ClusterView {
            now: 1030,
            nodes,
            partitions: vec![part("cpu", 1), part("gpu", 1), part("pj", 2)],
            jobs: vec![
                job(2, "cpu", 1, 1, 0, 0),
                job(3, "cpu", 2, 16, 0, 1791),
                job(4, "cpu", 1, 1, 100, 1491),
                job(5, "pj", 1, 1, 0, 2091),
                job(6, "cpu", 1, 4, 0, 1614),
            ],
            ..Default::default()
        }
    }

    fn weights() -> Weights {
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

    /// 22.05's output (what was measured).
    fn out(args: &[&str]) -> String {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let o = parse(&a, &HashMap::new()).expect("options");
        render(&SprioOpts { v22: true, ..o }, &view(), &weights()).stdout
    }

    /// 24.11's `-l` adds ACCOUNT and QOSNAME (its source: sprio.c's long
    /// formats); `-o %o %n` print them.
    #[test]
    fn the_24_11_long_format() {
        let a: Vec<String> = ["-l", "-h", "-j", "4"].iter().map(|s| s.to_string()).collect();
        let o = parse(&a, &HashMap::new()).expect("options");
        let l = render(&SprioOpts { v22: false, ..o }, &view(), &weights()).stdout;
        assert_eq!(
            l,
            "              4 cpu           root   (null)       1491          0          0          0       1000         91        500     (null)          0         100                     \n"
        );
        assert_eq!(help_format().lines().next(), Some("%a    %A    %b    %B    %c    %f    %F    %i    "));
        assert!(help(false).ends_with(
            "  --help                          show this help message\n  --helpformat                    print a list of fields that can be specified\n                                  with '--format=' option\n  --usage                         display a brief summary of sprio options\n"
        ));
        assert_eq!(help(true), HELP);
    }

    #[test]
    fn the_measured_outputs() {
        assert_eq!(
            out(&[]),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION        QOS\n\
             \x20             3 cpu             1791          0          0       1000        292        500          0\n\
             \x20             4 cpu             1491          0          0       1000         91        500          0\n\
             \x20             5 pj              2091          0          0       1000         91       1000          0\n\
             \x20             6 cpu             1614          0          0       1000        115        500          0\n"
        );
        assert_eq!(
            out(&["-w"]),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION        QOS\n\
             \x20       Weights                               1       1000       1000       1000       1000       1000\n"
        );
        let l = out(&["-l"]);
        assert_eq!(
            l.lines().take(3).collect::<Vec<_>>(),
            [
                "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES",
                "              3 cpu           root       1791          0          0          0       1000        292        500          0           0                     ",
                "              4 cpu           root       1491          0          0          0       1000         91        500          0         100                     ",
            ]
        );
        assert_eq!(
            out(&["-n"]).lines().take(2).collect::<Vec<_>>(),
            [
                "          JOBID PARTITION PRIORITY   AGE        FAIRSHARE  JOBSIZE    PARTITION  QOS       ",
                "              3 cpu       0.00000041 0.0000000  1.0000000  0.2916667  0.5000000  0.0000000 ",
            ]
        );
        assert_eq!(
            out(&["-o", "%i|%Y|%A|%F|%J|%P|%Q|%N|%u|%r|%S|%c|%T|%B|%y|%a"]).lines().take(3).collect::<Vec<_>>(),
            [
                "JOBID|PRIORITY|AGE|FAIRSHARE|JOBSIZE|PARTITION|QOS|NICE|USER|PARTITION|SITE|CLUSTER|TRES|ASSOC|PRIORITY|AGE",
                "3|1791|0|1000|292|500|0|0|root|cpu|0|(null)||0|0.00000041715490|0.0000000",
                "4|1491|0|1000|91|500|0|100|root|cpu|0|(null)||0|0.00000034718444|0.0000000",
            ]
        );
    }

    #[test]
    fn sorting_filters_and_messages() {
        let ids =
            |s: String| s.lines().map(|l| l.split_whitespace().next().unwrap_or("").to_string()).collect::<Vec<_>>();
        assert_eq!(ids(out(&["-h", "-S", "y"])), ["4", "6", "3", "5"]);
        assert_eq!(ids(out(&["-h", "-S", "-y"])), ["5", "3", "6", "4"]);
        assert_eq!(ids(out(&["-h", "-j", "3"])), ["3"]);
        assert_eq!(ids(out(&["-h", "-p", "pj"])), ["5"]);
        assert_eq!(ids(out(&["-h", "-u", "root"])).len(), 4);
        assert_eq!(out(&["-j", "999"]), "Unable to find jobs matching user/id(s) specified\n");
        let a: Vec<String> = ["--usage"].iter().map(|s| s.to_string()).collect();
        assert_eq!(parse(&a, &HashMap::new()).err().map(|o| o.stdout), Some(USAGE.to_string()));
        let a: Vec<String> = ["-l", "-o", "%i"].iter().map(|s| s.to_string()).collect();
        assert_eq!(parse(&a, &HashMap::new()).err().map(|o| o.code), Some(1));
    }

    /// A job waiting on a dependency is listed only under ACCRUE_ALWAYS,
    /// its age from submission (priority-flags-22.05.md A job 9, C job 27).
    #[test]
    fn accrue_always_lists_a_dependent_job() {
        let mut v = view();
        for j in &mut v.jobs {
            j.submit_time = 1000;
        }
        v.jobs[1].eligible_time = 0;
        let opts = parse(&["-h".to_string()], &HashMap::new()).unwrap();
        let ids = |w: &Weights| {
            render(&opts, &v, w)
                .stdout
                .lines()
                .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&weights()), ["4", "5", "6"]);
        assert_eq!(ids(&Weights { accrue_always: true, ..weights() }), ["3", "4", "5", "6"]);
    }
}
