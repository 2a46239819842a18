//! `sacct`: accounting records of jobs and their steps, as Slurm 24.11's
//! sacct prints them (src/sacct/options.c, print.c, sacct.c; the print
//! routines of src/common/print_fields.c are `acctprint`).
//!
//! What happens, in Slurm's order: the options are read (an option error,
//! a bad `-S`/`-E` time, state, unit or user ends it there); then the
//! window is settled (`slurmdb_job_cond_def_start_end`: with `-s`, from now
//! (or the epoch with `-j`) to the start; with `-j` alone from the epoch;
//! else from midnight today; to now by default); then, in `run`, sacct
//! needs accounting: without `AccountingStorageType` in slurm.conf it says
//! `Slurm accounting storage is disabled` (even for `--help`); then the
//! field list is checked, the help texts printed, the header, and the rows.
//!
//! Rows: the jobs sorted by submit time (then array id, task, job id); a
//! job's row unless only some of its steps were named (`-j 5.batch`); then
//! its steps (not with `-X`) in the record's order. A job's TotalCPU,
//! UserCPU and SystemCPU sum those of its ended steps.

use crate::acctprint::{
    self, parse_fields, usage_value, Field, Kind, Layout, Parsable, Selected, Stats, Units, Val, UF,
};
use crate::squeue::uid_from_string;
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::{caller, client, emit, runtime};
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_core::acct::{AcctJob, AcctQuery, AcctState, AcctStep};
use spur_core::compat::Release;
use std::collections::HashMap;

/// Whether the imitated release is 22.05.
fn v22() -> bool {
    spur_core::compat::release() == Release::V22_05
}

/// What the command line asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SacctOpts {
    /// The controller's filters (users settled, window settled).
    pub query: AcctQuery,
    /// `-j` as given.
    pub selected: Vec<Selected>,
    /// The field list as built (`-o`, `-b`, `-l`, `SACCT_FORMAT`), ending
    /// with `,`.
    pub field_list: String,
    pub parsable: Parsable,
    pub delimiter: Option<String>,
    pub header: bool,
    /// `-X`.
    pub no_steps: bool,
    /// `--array`.
    pub array: bool,
    pub units: Units,
    /// `-M`: None for this cluster, Some(empty) for all.
    pub clusters: Option<Vec<String>>,
    /// `--json`/`--yaml`.
    pub mime: Option<spur_cli_base::data::Mime>,
    /// `-h`, `-e`, `--usage`, `--helpstate`, `--helpreason`: printed once
    /// accounting is known to be there.
    pub help: Option<String>,
    /// `-c`/`-f`: job completion data (disabled).
    pub completion: bool,
    /// Operands: `Unknown arguments`.
    pub operands: Vec<String>,
    /// `-q` names.
    pub qos: Vec<String>,
    /// `-C` constraints.
    pub constraints: Vec<String>,
    /// `-W`: no job of Spur has a WCKey.
    pub wckeys: bool,
    /// `-k`/`-K` (minutes).
    pub timelimit: Option<(u32, u32)>,
    /// `-i`/`-I`: (min, max) nodes and CPUs.
    pub nnodes: Option<(u32, u32)>,
    pub ncpus: Option<(u32, u32)>,
    /// A state asked that no record of Spur's can be in (RESIZING,
    /// REVOKED) and none else: nothing matches.
    pub no_state_matches: bool,
    /// Lines for stderr before anything else (`-v`, `Already asked ...`).
    pub stderr: String,
    /// `-B`/`--env-vars`: the script or environment instead of rows.
    pub script: Option<bool>,
    /// `-T`: a job's start and end cut to the window.
    pub truncate: bool,
}

const SPECS: &[OptSpec] = &[
    OptSpec::new(None, "autocomplete", Required, "autocomplete"),
    OptSpec::new(Some('a'), "allusers", None_, "a"),
    OptSpec::new(Some('A'), "accounts", Required, "A"),
    OptSpec::new(Some('X'), "allocations", None_, "X"),
    OptSpec::new(None, "array", None_, "array"),
    OptSpec::new(Some('b'), "brief", None_, "b"),
    OptSpec::new(Some('B'), "batch-script", None_, "B"),
    OptSpec::new(Some('c'), "completion", None_, "c"),
    OptSpec::new(Some('C'), "constraints", Required, "C"),
    OptSpec::new(None, "delimiter", Required, "delimiter"),
    OptSpec::new(Some('D'), "duplicates", None_, "D"),
    OptSpec::new(None, "federation", None_, "federation"),
    OptSpec::new(Some('e'), "helpformat", None_, "e"),
    OptSpec::new(Some('e'), "help-fields", None_, "e"),
    OptSpec::new(None, "helpreason", None_, "helpreason"),
    OptSpec::new(None, "helpstate", None_, "helpstate"),
    OptSpec::new(Some('E'), "endtime", Required, "E"),
    OptSpec::new(None, "env-vars", None_, "env-vars"),
    OptSpec::new(None, "expand-patterns", None_, "expand-patterns"),
    OptSpec::new(Some('f'), "file", Required, "f"),
    OptSpec::new(Some('F'), "flags", Required, "F"),
    OptSpec::new(Some('g'), "gid", Required, "g"),
    OptSpec::new(Some('g'), "group", Required, "g"),
    OptSpec::new(Some('h'), "help", None_, "h"),
    OptSpec::new(None, "local", None_, "local"),
    OptSpec::new(None, "name", Required, "name"),
    OptSpec::new(Some('i'), "nnodes", Required, "i"),
    OptSpec::new(Some('I'), "ncpus", Required, "I"),
    OptSpec::new(Some('j'), "jobs", Required, "j"),
    OptSpec::new(Some('k'), "timelimit-min", Required, "k"),
    OptSpec::new(Some('K'), "timelimit-max", Required, "K"),
    OptSpec::new(Some('l'), "long", None_, "l"),
    OptSpec::new(Some('L'), "allclusters", None_, "L"),
    OptSpec::new(Some('M'), "cluster", Required, "M"),
    OptSpec::new(Some('M'), "clusters", Required, "M"),
    OptSpec::new(Some('N'), "nodelist", Required, "N"),
    OptSpec::new(None, "noconvert", None_, "noconvert"),
    OptSpec::new(None, "units", Required, "units"),
    OptSpec::new(Some('n'), "noheader", None_, "n"),
    OptSpec::new(Some('o'), "fields", Required, "o"),
    OptSpec::new(Some('o'), "format", Required, "o"),
    OptSpec::new(Some('p'), "parsable", None_, "p"),
    OptSpec::new(Some('P'), "parsable2", None_, "P"),
    OptSpec::new(Some('q'), "qos", Required, "q"),
    OptSpec::new(Some('r'), "partition", Required, "r"),
    OptSpec::new(Some('R'), "reason", Required, "R"),
    OptSpec::new(Some('s'), "state", Required, "s"),
    OptSpec::new(Some('S'), "starttime", Required, "S"),
    OptSpec::new(Some('T'), "truncate", None_, "T"),
    OptSpec::new(Some('u'), "uid", Required, "u"),
    OptSpec::new(None, "use-local-uid", None_, "use-local-uid"),
    OptSpec::new(Some('U'), "usage", None_, "U"),
    OptSpec::new(Some('u'), "user", Required, "u"),
    OptSpec::new(Some('v'), "verbose", None_, "v"),
    OptSpec::new(Some('V'), "version", None_, "V"),
    OptSpec::new(Some('W'), "wckeys", Required, "W"),
    OptSpec::new(None, "whole-hetjob", Optional, "whole-hetjob"),
    OptSpec::new(Some('x'), "associations", Required, "x"),
    OptSpec::new(Some('t'), "", None_, "X"),
    OptSpec::new(None, "json", Optional, "json"),
    OptSpec::new(None, "yaml", Optional, "yaml"),
];

/// The options of the imitated release (22.05 lacks five, and its
/// `--json`/`--yaml` take no argument).
pub fn specs() -> Vec<OptSpec> {
    if !v22() {
        return SPECS.to_vec();
    }
    let mut v = opts::without(SPECS, &["array", "autocomplete", "expand-patterns", "helpreason", "helpstate"]);
    for s in v.iter_mut() {
        if s.id == "json" || s.id == "yaml" {
            s.arg = None_;
        }
    }
    v
}

pub const DEFAULT_FIELDS: &str = "jobid,jobname,partition,account,alloccpus,state,exitcode";
pub const BRIEF_FIELDS: &str = "jobid,state,exitcode";
pub const LONG_FIELDS: &str = "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn,tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,tresusageoutave,tresusageouttot";

fn fatal(msg: &str) -> Output {
    Output::err(format!("sacct: fatal: {}\n", msg), 1)
}
fn error(msg: &str) -> Output {
    Output::err(format!("sacct: error: {}\n", msg), 1)
}

fn char_list(s: &str, into: &mut Vec<String>) {
    for t in s.split(',').filter(|t| !t.is_empty()) {
        if !into.iter().any(|x| x == t) {
            into.push(t.to_string());
        }
    }
}

/// `job_state_num` for sacct's `-s`: Slurm's names and short names; the
/// states sacct can select (REQUEUED/RQ too), `Err` with the fatal text.
fn state_of(tok: &str) -> Result<Option<AcctState>, String> {
    for s in AcctState::ALL {
        if tok.eq_ignore_ascii_case(s.name()) || tok.eq_ignore_ascii_case(s.short()) {
            return Ok(Some(s));
        }
    }
    // flags job_state_num knows: RESIZING and REVOKED are accounted
    // (no record of Spur's is in them), the rest are refused
    if ["RESIZING", "RS", "REVOKED", "RV"].iter().any(|f| f.eq_ignore_ascii_case(tok)) {
        return Ok(None);
    }
    const FLAGS: &[&str] = &[
        "COMPLETING",
        "CG",
        "CONFIGURING",
        "CF",
        "REQUEUE_FED",
        "RF",
        "REQUEUE_HOLD",
        "RH",
        "SPECIAL_EXIT",
        "SE",
        "STOPPED",
        "ST",
        "RESV_DEL_HOLD",
        "RD",
        "SIGNALING",
        "SI",
        "STAGE_OUT",
        "SO",
        "UPDATE_DB",
        "LAUNCH_FAILED",
        "POWER_UP_NODE",
        "RECONFIG_FAIL",
    ];
    if FLAGS.iter().any(|f| f.eq_ignore_ascii_case(tok)) {
        return Err(format!("job state {} is not supported / accounted", tok));
    }
    Err(format!("unrecognized job state value '{}'", tok))
}

/// `get_resource_arg_range`: `N` or `N-M` (`Err` on anything else).
fn range(s: &str) -> Option<(u32, u32)> {
    let num = |t: &str| t.parse::<u32>().ok();
    match s.split_once('-') {
        Some((a, b)) => Some((num(a)?, num(b)?)),
        None => num(s).map(|n| (n, n)),
    }
}

/// `time_str2mins` for `-k`/`-K`: minutes, `u32::MAX` for UNLIMITED.
fn time_mins(s: &str) -> Option<u32> {
    if ["-1", "INFINITE", "UNLIMITED"].iter().any(|w| s.eq_ignore_ascii_case(w)) {
        return Some(u32::MAX);
    }
    match spur_grammar::time::parse_duration_secs(s) {
        Ok(Some(secs)) if secs > 0 => Some(((secs as i64 + 59) / 60) as u32),
        _ => None,
    }
}

/// Parse sacct's command line. `now` is the time of the call, `uid` the
/// caller's (root sees every user's jobs without `-a`).
pub fn parse(args: &[String], env: &HashMap<String, String>, now: i64, uid: u32) -> Result<SacctOpts, Output> {
    let mut o = SacctOpts { header: true, ..Default::default() };
    let mut all_users = false;
    let mut users: Option<Vec<u32>> = None;
    let (mut brief, mut long) = (false, false);
    let mut fields = String::new();
    let mut verbosity = 0;
    let mut states_given = false;
    let mut start = 0i64;
    let mut end = 0i64;
    let mut all_clusters = false;
    let mut nodes_given = false;
    let p = opts::parse("sacct", &specs(), args, Mode::Permute);
    for (id, val) in &p.opts {
        let v = val.clone().unwrap_or_default();
        match *id {
            "a" => all_users = true,
            "A" => char_list(&v, &mut o.query.accounts),
            "array" => o.array = true,
            "b" => brief = true,
            "B" => o.script = Some(true),
            "env-vars" => o.script = Some(false),
            "c" => o.completion = true,
            "delimiter" => o.delimiter = Some(v),
            "C" => char_list(&v, &mut o.constraints),
            "M" => {
                if v.eq_ignore_ascii_case("all") || v == "-1" {
                    all_clusters = true;
                } else {
                    all_clusters = false;
                    let mut c = o.clusters.take().unwrap_or_default();
                    char_list(&v, &mut c);
                    o.clusters = Some(c);
                }
            }
            "L" => all_clusters = true,
            "federation" | "local" => all_clusters = false,
            "D" => o.query.duplicates = true,
            "e" => o.help = Some(help_fields()),
            "E" | "S" => {
                let t = match spur_grammar::time::parse_time(&v, now, true) {
                    Ok(t) => t,
                    Err(e) => return Err(Output::err(format!("{}\n", e), 1)),
                };
                if *id == "E" {
                    end = t;
                } else {
                    start = t;
                }
            }
            "T" => o.truncate = true,
            "expand-patterns" | "F" | "use-local-uid" | "x" => {}
            "f" => {
                if !std::fs::metadata(&v).map(|m| m.is_file()).unwrap_or(false) {
                    return Err(Output::err(format!("{} is not a valid file\n", v), 1));
                }
                o.completion = true;
            }
            "g" => {
                for t in v.split(',').filter(|t| !t.is_empty()) {
                    let gid = nix::unistd::Group::from_name(t).ok().flatten().map(|g| g.gid.as_raw()).or_else(|| {
                        t.parse::<u32>().ok().filter(|g| {
                            nix::unistd::Group::from_gid(nix::unistd::Gid::from_raw(*g)).ok().flatten().is_some()
                        })
                    });
                    match gid {
                        Some(g) if !o.query.group_ids.contains(&g) => o.query.group_ids.push(g),
                        Some(_) => {}
                        None => return Err(error(&format!("Invalid group id: {}", t))),
                    }
                }
            }
            "h" => o.help = Some(help_text().to_string()),
            "i" | "I" => match range(&v) {
                Some(r) if *id == "i" => o.nnodes = Some(r),
                Some(r) => o.ncpus = Some(r),
                None => {
                    return Err(error(&format!("invalid {} range -i '{}'", if *id == "i" { "node" } else { "cpu" }, v)))
                }
            },
            "j" => {
                let sel = acctprint::parse_selected(&v).map_err(|e| fatal(&e))?;
                for s in sel {
                    if !o.selected.contains(&s) {
                        o.selected.push(s);
                    }
                }
            }
            "k" | "K" => {
                let m = time_mins(&v).ok_or_else(|| fatal("Invalid time limit specification"))?;
                let (lo, hi) = o.timelimit.unwrap_or((0, 0));
                o.timelimit = Some(if *id == "k" { (m, hi) } else { (lo, m) });
            }
            "l" => long = true,
            "noconvert" => o.units.no_convert = true,
            "units" => {
                let c = v.chars().next().map(|c| c.to_ascii_uppercase());
                match c.and_then(|c| "KMGTP".find(c)) {
                    Some(i) => o.units.spec = Some(i as u32 + 1),
                    None => {
                        return Err(Output::err(
                            format!(
                                "sacct: error: Invalid unit type '{}'. Possible options are 'KMGTP'\nsacct: fatal: Invalid unit type\n",
                                v.chars().next().map(String::from).unwrap_or_default()
                            ),
                            1,
                        ))
                    }
                }
            }
            "n" => o.header = false,
            "N" => {
                if nodes_given {
                    o.stderr
                        .push_str(&format!("sacct: error: Already asked for nodes '{}'\n", o.query.nodes.join(",")));
                    continue;
                }
                nodes_given = true;
                o.query.nodes = spur_grammar::hostlist::expand(&v).unwrap_or_else(|_| vec![v.clone()]);
            }
            "name" => char_list(&v, &mut o.query.names),
            "o" => {
                fields.push_str(&v);
                fields.push(',');
            }
            "p" => o.parsable = Parsable::Ending,
            "P" => o.parsable = Parsable::NoEnding,
            "q" => char_list(&v, &mut o.qos),
            "r" => char_list(&v, &mut o.query.partitions),
            "R" => {}
            "s" => {
                states_given = true;
                for t in v.split(',').filter(|t| !t.is_empty()) {
                    match state_of(t) {
                        Ok(Some(s)) if !o.query.states.contains(&s) => o.query.states.push(s),
                        Ok(_) => {}
                        Err(e) => return Err(fatal(&e)),
                    }
                }
            }
            "U" => o.help = Some("Usage: sacct [options]\n\tUse --help for help\n".into()),
            "u" => {
                if v == "-1" {
                    all_users = true;
                    continue;
                }
                all_users = false;
                let mut list = users.take().unwrap_or_default();
                let mut added = 0;
                for t in v.split(',').filter(|t| !t.is_empty()) {
                    match uid_from_string(t) {
                        Some(u) => {
                            added += 1;
                            if !list.contains(&u) {
                                list.push(u);
                            }
                        }
                        None => o.stderr.push_str(&format!("sacct: error: Invalid user id: {}\n", t)),
                    }
                }
                if added < 1 {
                    return Err(Output::err(std::mem::take(&mut o.stderr), 1));
                }
                users = Some(list);
            }
            "v" => verbosity += 1,
            "V" => return Err(Output::ok(version_line())),
            "W" => o.wckeys = true,
            "whole-hetjob" => match val.as_deref() {
                None => {}
                Some(w) if ["yes", "y", "no", "n"].iter().any(|x| w.eq_ignore_ascii_case(x)) => {}
                Some(w) => {
                    return Err(error(&format!("Invalid --whole-hetjob value \"{}\". Valid values: [yes|no].", w)))
                }
            },
            "X" => o.no_steps = true,
            "json" | "yaml" => {
                o.mime = Some(spur_cli_base::data::Mime { yaml: *id == "yaml", version: val.clone() });
            }
            "autocomplete" => return Err(Output::ok("")),
            "helpstate" => o.help = Some(help_states()),
            "helpreason" => o.help = Some(String::new()),
            _ => {}
        }
    }
    if let Some(e) = p.error {
        // getopt's line alone: sacct exits without a `Try` line
        return Err(Output::err(format!("{}{}", o.stderr, e.message), 1));
    }
    o.operands = p.operands.clone();
    if o.selected.is_empty() {
        if let Some(batch) = o.script {
            return Err(fatal(&format!(
                "When requesting {} you must also request specific jobs with the '-j' option.",
                if batch { "job scripts" } else { "job environment" }
            )));
        }
    }
    if long && !fields.is_empty() {
        return Err(fatal("Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry."));
    }
    // the window (slurmdb_job_cond_def_start_end)
    let jobs_given = !o.selected.is_empty();
    if states_given {
        if start == 0 && !jobs_given {
            start = now;
        }
        if start != 0 && end == 0 {
            end = start;
        }
    } else if !jobs_given && start == 0 {
        start = midnight(now);
    }
    if end == 0 {
        end = now;
    }
    if end == start || end == now {
        end += 1;
    }
    if end != 0 && start > end {
        return Err(error(&format!(
            "Start time ({}) requested is after end time ({}).",
            spur_cli_base::format::time_str(start),
            spur_cli_base::format::time_str(end)
        )));
    }
    if verbosity > 0 {
        let what = if o.query.states.is_empty() {
            "Eligible".to_string()
        } else {
            o.query.states.iter().map(|s| s.name()).collect::<Vec<_>>().join(",")
        };
        let from = if start == 0 { "Epoch 0".to_string() } else { ctime(start) };
        let to = ctime(end);
        if from != to {
            o.stderr.push_str(&format!("sacct: Jobs {} in the time window from {} to {}\n", what, from, to));
        } else {
            o.stderr.push_str(&format!("sacct: Jobs {} at the time instant {}\n", what, from));
        }
    }
    o.no_state_matches = states_given && o.query.states.is_empty();
    o.query.start = start;
    o.query.end = end;
    o.query.jobs = o.selected.iter().map(|s| (s.job_id, s.task)).collect();
    o.query.no_steps = o.no_steps;
    o.clusters = if all_clusters { Some(vec![]) } else { o.clusters.take() };
    // users: all for -a, for -j and -N without -u, and for root without -u
    if users.as_ref().is_none_or(|u| u.is_empty()) && (jobs_given || nodes_given) {
        all_users = true;
    }
    if users.is_none() && uid == 0 {
        all_users = true;
    }
    o.query.user_ids = if all_users { vec![] } else { users.filter(|u| !u.is_empty()).unwrap_or_else(|| vec![uid]) };
    // the fields
    if brief {
        fields.push_str(BRIEF_FIELDS);
        fields.push(',');
    }
    if long {
        fields.push_str(LONG_FIELDS);
        fields.push(',');
    }
    if fields.is_empty() {
        fields = format!("{},", env.get("SACCT_FORMAT").map(String::as_str).unwrap_or(DEFAULT_FIELDS));
    }
    o.field_list = fields;
    Ok(o)
}

/// Midnight today (local time).
fn midnight(now: i64) -> i64 {
    match spur_grammar::time::localtime(now) {
        Some(mut t) => {
            t.hour = 0;
            t.min = 0;
            t.sec = 0;
            spur_grammar::time::mktime(&t).unwrap_or(now)
        }
        None => now,
    }
}

/// `slurm_ctime2_r`: `Wed Dec 02 11:51:49 2026`.
fn ctime(t: i64) -> String {
    crate::squeue::ctime_line(t)
}

/// sacct's field keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SF {
    Account,
    AdminComment,
    AllocCpus,
    AllocNodes,
    AllocTres,
    AssocId,
    BlockId,
    Cluster,
    Comment,
    Constraints,
    Container,
    CpuTime,
    CpuTimeRaw,
    DbIndex,
    DerivedExitCode,
    Elapsed,
    ElapsedRaw,
    Eligible,
    End,
    ExitCode,
    Extra,
    FailedNode,
    Flags,
    Gid,
    Group,
    JobId,
    JobIdRaw,
    JobName,
    Layout,
    Licenses,
    McsLabel,
    NNodes,
    NodeList,
    NTasks,
    Partition,
    Planned,
    PlannedCpu,
    PlannedCpuRaw,
    Priority,
    Qos,
    QosRaw,
    QosReq,
    Reason,
    ReqCpus,
    ReqMem,
    ReqNodes,
    ReqTres,
    Reservation,
    ReservationId,
    Restarts,
    Sluid,
    Start,
    State,
    StdErr,
    StdIn,
    StdOut,
    Submit,
    SubmitLine,
    Suspended,
    SystemComment,
    SystemCpu,
    Timelimit,
    TimelimitRaw,
    TotalCpu,
    Uid,
    User,
    UserCpu,
    WcKey,
    WcKeyId,
    WorkDir,
    /// A usage field (sacct's and sstat's).
    U(UF),
}

/// sacct 24.11's field table, in its order.
pub static FIELDS: &[Field<SF>] = &[
    Field::new(10, "Account", Kind::Str, SF::Account),
    Field::new(15, "AdminComment", Kind::Str, SF::AdminComment),
    Field::new(10, "AllocCPUS", Kind::Uint, SF::AllocCpus),
    Field::new(10, "AllocNodes", Kind::Str, SF::AllocNodes),
    Field::new(10, "AllocTRES", Kind::Str, SF::AllocTres),
    Field::new(7, "AssocID", Kind::Uint, SF::AssocId),
    Field::new(10, "AveCPU", Kind::Str, SF::U(UF::AveCpu)),
    Field::new(10, "AveCPUFreq", Kind::Str, SF::U(UF::AveCpuFreq)),
    Field::new(14, "AveDiskRead", Kind::Str, SF::U(UF::AveDiskRead)),
    Field::new(14, "AveDiskWrite", Kind::Str, SF::U(UF::AveDiskWrite)),
    Field::new(10, "AvePages", Kind::Str, SF::U(UF::AvePages)),
    Field::new(10, "AveRSS", Kind::Str, SF::U(UF::AveRss)),
    Field::new(10, "AveVMSize", Kind::Str, SF::U(UF::AveVmSize)),
    Field::new(16, "BlockID", Kind::Str, SF::BlockId),
    Field::new(10, "Cluster", Kind::Str, SF::Cluster),
    Field::new(14, "Comment", Kind::Str, SF::Comment),
    Field::new(19, "Constraints", Kind::Str, SF::Constraints),
    Field::new(14, "ConsumedEnergy", Kind::Str, SF::U(UF::ConsumedEnergy)),
    Field::new(17, "ConsumedEnergyRaw", Kind::Uint64, SF::U(UF::ConsumedEnergyRaw)),
    Field::new(19, "Container", Kind::Str, SF::Container),
    Field::new(10, "CPUTime", Kind::Secs, SF::CpuTime),
    Field::new(10, "CPUTimeRAW", Kind::Uint64, SF::CpuTimeRaw),
    Field::new(-21, "DBIndex", Kind::Uint64, SF::DbIndex),
    Field::new(15, "DerivedExitCode", Kind::Str, SF::DerivedExitCode),
    Field::new(10, "Elapsed", Kind::Secs, SF::Elapsed),
    Field::new(10, "ElapsedRaw", Kind::Uint, SF::ElapsedRaw),
    Field::new(19, "Eligible", Kind::Date, SF::Eligible),
    Field::new(19, "End", Kind::Date, SF::End),
    Field::new(8, "ExitCode", Kind::Str, SF::ExitCode),
    Field::new(14, "Extra", Kind::Str, SF::Extra),
    Field::new(8, "FailedNode", Kind::Str, SF::FailedNode),
    Field::new(19, "Flags", Kind::Str, SF::Flags),
    Field::new(6, "GID", Kind::Uint, SF::Gid),
    Field::new(9, "Group", Kind::Str, SF::Group),
    Field::new(-12, "JobID", Kind::Str, SF::JobId),
    Field::new(-12, "JobIDRaw", Kind::Str, SF::JobIdRaw),
    Field::new(10, "JobName", Kind::Str, SF::JobName),
    Field::new(9, "Layout", Kind::Str, SF::Layout),
    Field::new(10, "Licenses", Kind::Str, SF::Licenses),
    Field::new(12, "MaxDiskRead", Kind::Str, SF::U(UF::MaxDiskRead)),
    Field::new(15, "MaxDiskReadNode", Kind::Str, SF::U(UF::MaxDiskReadNode)),
    Field::new(15, "MaxDiskReadTask", Kind::Uint, SF::U(UF::MaxDiskReadTask)),
    Field::new(12, "MaxDiskWrite", Kind::Str, SF::U(UF::MaxDiskWrite)),
    Field::new(16, "MaxDiskWriteNode", Kind::Str, SF::U(UF::MaxDiskWriteNode)),
    Field::new(16, "MaxDiskWriteTask", Kind::Uint, SF::U(UF::MaxDiskWriteTask)),
    Field::new(8, "MaxPages", Kind::Str, SF::U(UF::MaxPages)),
    Field::new(12, "MaxPagesNode", Kind::Str, SF::U(UF::MaxPagesNode)),
    Field::new(14, "MaxPagesTask", Kind::Uint, SF::U(UF::MaxPagesTask)),
    Field::new(10, "MaxRSS", Kind::Str, SF::U(UF::MaxRss)),
    Field::new(10, "MaxRSSNode", Kind::Str, SF::U(UF::MaxRssNode)),
    Field::new(10, "MaxRSSTask", Kind::Uint, SF::U(UF::MaxRssTask)),
    Field::new(10, "MaxVMSize", Kind::Str, SF::U(UF::MaxVmSize)),
    Field::new(14, "MaxVMSizeNode", Kind::Str, SF::U(UF::MaxVmSizeNode)),
    Field::new(14, "MaxVMSizeTask", Kind::Uint, SF::U(UF::MaxVmSizeTask)),
    Field::new(12, "McsLabel", Kind::Str, SF::McsLabel),
    Field::new(10, "MinCPU", Kind::Str, SF::U(UF::MinCpu)),
    Field::new(10, "MinCPUNode", Kind::Str, SF::U(UF::MinCpuNode)),
    Field::new(10, "MinCPUTask", Kind::Uint, SF::U(UF::MinCpuTask)),
    Field::new(10, "NCPUS", Kind::Uint, SF::AllocCpus),
    Field::new(8, "NNodes", Kind::Uint, SF::NNodes),
    Field::new(15, "NodeList", Kind::Str, SF::NodeList),
    Field::new(8, "NTasks", Kind::Uint, SF::NTasks),
    Field::new(10, "Partition", Kind::Str, SF::Partition),
    Field::new(10, "Planned", Kind::Secs, SF::Planned),
    Field::new(10, "PlannedCPU", Kind::Secs, SF::PlannedCpu),
    Field::new(13, "PlannedCPURAW", Kind::Uint, SF::PlannedCpuRaw),
    Field::new(10, "Priority", Kind::Uint, SF::Priority),
    Field::new(10, "QOS", Kind::Str, SF::Qos),
    Field::new(6, "QOSRAW", Kind::Uint, SF::QosRaw),
    Field::new(10, "QOSREQ", Kind::Str, SF::QosReq),
    Field::new(22, "Reason", Kind::Str, SF::Reason),
    Field::new(10, "ReqCPUFreq", Kind::Str, SF::U(UF::ReqCpuFreqMax)),
    Field::new(13, "ReqCPUFreqGov", Kind::Str, SF::U(UF::ReqCpuFreqGov)),
    Field::new(13, "ReqCPUFreqMax", Kind::Str, SF::U(UF::ReqCpuFreqMax)),
    Field::new(13, "ReqCPUFreqMin", Kind::Str, SF::U(UF::ReqCpuFreqMin)),
    Field::new(8, "ReqCPUS", Kind::Uint, SF::ReqCpus),
    Field::new(10, "ReqMem", Kind::Str, SF::ReqMem),
    Field::new(8, "ReqNodes", Kind::Str, SF::ReqNodes),
    Field::new(10, "ReqTRES", Kind::Str, SF::ReqTres),
    Field::new(20, "Reservation", Kind::Str, SF::Reservation),
    Field::new(8, "ReservationId", Kind::Uint, SF::ReservationId),
    Field::new(8, "Restarts", Kind::Uint16, SF::Restarts),
    Field::new(14, "SLUID", Kind::Str, SF::Sluid),
    Field::new(19, "Start", Kind::Date, SF::Start),
    Field::new(10, "State", Kind::Str, SF::State),
    Field::new(20, "StdErr", Kind::Str, SF::StdErr),
    Field::new(20, "StdIn", Kind::Str, SF::StdIn),
    Field::new(20, "StdOut", Kind::Str, SF::StdOut),
    Field::new(19, "Submit", Kind::Date, SF::Submit),
    Field::new(20, "SubmitLine", Kind::Str, SF::SubmitLine),
    Field::new(10, "Suspended", Kind::Secs, SF::Suspended),
    Field::new(15, "SystemComment", Kind::Str, SF::SystemComment),
    Field::new(10, "SystemCPU", Kind::Str, SF::SystemCpu),
    Field::new(10, "Timelimit", Kind::Str, SF::Timelimit),
    Field::new(10, "TimelimitRaw", Kind::Str, SF::TimelimitRaw),
    Field::new(10, "TotalCPU", Kind::Str, SF::TotalCpu),
    Field::new(14, "TRESUsageInAve", Kind::Str, SF::U(UF::TresUsageInAve)),
    Field::new(14, "TRESUsageInMax", Kind::Str, SF::U(UF::TresUsageInMax)),
    Field::new(18, "TRESUsageInMaxNode", Kind::Str, SF::U(UF::TresUsageInMaxNode)),
    Field::new(18, "TRESUsageInMaxTask", Kind::Str, SF::U(UF::TresUsageInMaxTask)),
    Field::new(14, "TRESUsageInMin", Kind::Str, SF::U(UF::TresUsageInMin)),
    Field::new(18, "TRESUsageInMinNode", Kind::Str, SF::U(UF::TresUsageInMinNode)),
    Field::new(18, "TRESUsageInMinTask", Kind::Str, SF::U(UF::TresUsageInMinTask)),
    Field::new(14, "TRESUsageInTot", Kind::Str, SF::U(UF::TresUsageInTot)),
    Field::new(15, "TRESUsageOutAve", Kind::Str, SF::U(UF::TresUsageOutAve)),
    Field::new(15, "TRESUsageOutMax", Kind::Str, SF::U(UF::TresUsageOutMax)),
    Field::new(19, "TRESUsageOutMaxNode", Kind::Str, SF::U(UF::TresUsageOutMaxNode)),
    Field::new(19, "TRESUsageOutMaxTask", Kind::Str, SF::U(UF::TresUsageOutMaxTask)),
    Field::new(15, "TRESUsageOutMin", Kind::Str, SF::U(UF::TresUsageOutMin)),
    Field::new(19, "TRESUsageOutMinNode", Kind::Str, SF::U(UF::TresUsageOutMinNode)),
    Field::new(19, "TRESUsageOutMinTask", Kind::Str, SF::U(UF::TresUsageOutMinTask)),
    Field::new(15, "TRESUsageOutTot", Kind::Str, SF::U(UF::TresUsageOutTot)),
    Field::new(6, "UID", Kind::Uint, SF::Uid),
    Field::new(9, "User", Kind::Str, SF::User),
    Field::new(10, "UserCPU", Kind::Str, SF::UserCpu),
    Field::new(10, "WCKey", Kind::Str, SF::WcKey),
    Field::new(10, "WCKeyID", Kind::Uint, SF::WcKeyId),
    Field::new(20, "WorkDir", Kind::Str, SF::WorkDir),
];

/// The table of the imitated release: 22.05's lacks the fields added
/// since, has `Reserved`/`ResvCPU`/`ResvCPURAW` for the `Planned` ones,
/// and a DBIndex of width -10.
pub fn table() -> Vec<Field<SF>> {
    let copy = |f: &Field<SF>| Field { name: f.name, len: f.len, kind: f.kind, key: f.key };
    if !v22() {
        return FIELDS.iter().map(copy).collect();
    }
    let mut v = Vec::new();
    for f in FIELDS {
        match f.name {
            "Extra" | "FailedNode" | "Licenses" | "QOSREQ" | "SLUID" | "StdErr" | "StdIn" | "StdOut" | "Restarts"
            | "Planned" | "PlannedCPU" | "PlannedCPURAW" => continue,
            "DBIndex" => v.push(Field { len: -10, ..copy(f) }),
            "Reservation" => {
                v.push(copy(f));
            }
            "ReservationId" => {
                v.push(copy(f));
                v.push(Field::new(10, "Reserved", Kind::Secs, SF::Planned));
                v.push(Field::new(10, "ResvCPU", Kind::Secs, SF::PlannedCpu));
                v.push(Field::new(10, "ResvCPURAW", Kind::Uint64, SF::PlannedCpuRaw));
            }
            _ => v.push(copy(f)),
        }
    }
    v
}

/// `--helpformat`.
pub fn help_fields() -> String {
    acctprint::help_names(table().iter().map(|f| f.name))
}

/// `--helpstate`: the base states.
fn help_states() -> String {
    acctprint::help_names(AcctState::ALL.iter().take(12).map(|s| s.name()))
}

fn help_text() -> &'static str {
    if v22() {
        include_str!("text/sacct_help_22_05.txt")
    } else {
        include_str!("text/sacct_help.txt")
    }
}

// ---------------------------------------------------------------- rows

const NO_VAL: u32 = 0xffff_fffe;

/// A state with its canceller (`CANCELLED by 0`).
fn state_text(s: AcctState, by: Option<u32>) -> String {
    match by {
        Some(u) if s == AcctState::Cancelled => format!("{} by {}", s.name(), u),
        _ => s.name().to_string(),
    }
}

/// `rc:signal` of a wait status as sacct shows it (an exit status above
/// 127 loses 128).
fn exit_text(status: i32) -> String {
    let (mut rc, sg) = spur_cli_base::records::exit_parts(status);
    if rc >= 128 {
        rc -= 128;
    }
    format!("{}:{}", rc, sg)
}

/// A TRES string as sacct prints it: the names sorted (`billing=1,cpu=1,
/// mem=1000M,node=1`), memory through `convert_num_unit`.
fn tres_text(items: &[(&str, u64)], u: Units) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let mut v: Vec<String> = items
        .iter()
        .map(|(k, n)| {
            if *k == "mem" {
                format!("mem={}", acctprint::units(*n as f64, acctprint::UNIT_MEGA, u))
            } else {
                format!("{}={}", k, n)
            }
        })
        .collect();
    v.sort();
    Some(v.join(","))
}

/// The TRES a job asked for and was given.
fn job_tres(j: &AcctJob, alloc: bool) -> Vec<(&'static str, u64)> {
    let mut v = Vec::new();
    let (cpus, mem, nodes) = if alloc {
        if j.start == 0 || j.nodes.is_empty() {
            return v;
        }
        (j.alloc_cpus as u64, j.alloc_mem_mb, j.nodes.len() as u64)
    } else {
        (j.req_cpus as u64, j.req_mem_mb, j.req_nodes.max(1) as u64)
    };
    v.push(("billing", cpus));
    v.push(("cpu", cpus));
    if mem > 0 {
        v.push(("mem", mem));
    }
    v.push(("node", nodes));
    if let Some(g) = gpu_count(&j.gres) {
        v.push(("gres/gpu", g * nodes));
    }
    v
}

/// GPUs per node of a `--gres` request (`gpu:2`, `gpu:a100:1`).
fn gpu_count(gres: &str) -> Option<u64> {
    gres.split(',').find_map(|g| {
        let mut parts = g.split(':');
        if parts.next()? != "gpu" {
            return None;
        }
        let last = parts.next_back();
        Some(last.and_then(|n| n.parse().ok()).unwrap_or(1))
    })
}

/// A step's TRES: the job's for its extern step, else its CPUs, memory
/// and nodes.
fn step_tres(j: &AcctJob, s: &AcctStep) -> Vec<(&'static str, u64)> {
    if s.step_id == spur_core::model::EXTERN_STEP {
        return job_tres(j, true);
    }
    let mut v = vec![("cpu", s.cpus as u64)];
    if s.mem_mb > 0 {
        v.push(("mem", s.mem_mb));
    }
    v.push(("node", s.nodes.len() as u64));
    v
}

/// `Timelimit`: `UNLIMITED`, or `[D-]HH:MM:SS`.
fn limit_text(l: Option<u32>, raw: bool) -> Val {
    match l {
        None | Some(u32::MAX) => Val::s("UNLIMITED"),
        Some(0) => Val::null(),
        Some(m) if raw => Val::s(m.to_string()),
        Some(m) => Val::s(spur_grammar::time::fmt_limit_scontrol(Some(m))),
    }
}

/// CPU time of a job's ended steps (its TotalCPU etc.): (user, system) µs.
fn job_cpu(j: &AcctJob) -> (u64, u64) {
    let (mut user, mut sys) = (0u64, 0u64);
    for s in j.steps.iter().filter(|s| !s.state.is_live()) {
        for u in &s.usage {
            user = user.saturating_add(u.user_us);
            sys = sys.saturating_add(u.sys_us);
        }
    }
    (user, sys)
}

fn cpu_text(us: u64) -> Val {
    Val::s(acctprint::elapsed_time(us / 1_000_000, us % 1_000_000))
}

fn user_name(uid: u32, name: &str) -> String {
    if !name.is_empty() {
        return name.to_string();
    }
    spur_client::users::user_name(uid).unwrap_or_else(|| uid.to_string())
}

fn group_name(gid: u32, name: &str) -> String {
    if !name.is_empty() {
        return name.to_string();
    }
    nix::unistd::Group::from_gid(nix::unistd::Gid::from_raw(gid))
        .ok()
        .flatten()
        .map(|g| g.name)
        .unwrap_or_else(|| gid.to_string())
}

fn elapsed_of(start: i64, end: i64, suspended: i64, now: i64) -> u64 {
    if start == 0 {
        return 0;
    }
    let e = if end != 0 { end } else { now };
    (e - start - suspended).max(0) as u64
}

/// A job row's value.
fn job_value(f: SF, j: &AcctJob, o: &SacctOpts, now: i64, id: &str) -> Val {
    let u = o.units;
    let elapsed = j.elapsed(now).max(0) as u64;
    let cpus = if j.start != 0 {
        j.alloc_cpus
    } else if v22() {
        j.req_cpus
    } else {
        0
    } as u64;
    match f {
        SF::Account => Val::opt(&j.account),
        SF::AdminComment => Val::opt(&j.admin_comment),
        SF::AllocCpus => Val::n(cpus),
        SF::AllocNodes => Val::s(if j.start != 0 { j.nodes.len() } else { 0 }.to_string()),
        SF::AllocTres => Val::Str(tres_text(&job_tres(j, true), u)),
        SF::AssocId => Val::n(0),
        SF::BlockId | SF::Container | SF::Extra | SF::FailedNode | SF::Licenses | SF::McsLabel | SF::SystemComment => {
            Val::null()
        }
        SF::WcKey => Val::null(),
        SF::WcKeyId => Val::n(0),
        SF::Cluster => Val::opt(&j.cluster),
        SF::Comment => Val::opt(&j.comment),
        SF::Constraints => Val::opt(&j.constraints),
        SF::CpuTime => Val::Secs(Some(elapsed.saturating_mul(cpus))),
        SF::CpuTimeRaw => Val::n(elapsed.saturating_mul(cpus)),
        SF::DbIndex => Val::n(j.job_id as u64),
        SF::Sluid => Val::s("0"),
        SF::DerivedExitCode => Val::s(exit_text(j.derived_exit_code)),
        SF::Elapsed => Val::Secs(Some(elapsed)),
        SF::ElapsedRaw => Val::n(elapsed.min(u32::MAX as u64 - 2)),
        SF::Eligible => Val::Date(j.eligible),
        SF::End => Val::Date(j.end),
        SF::ExitCode => Val::s(exit_text(j.exit_status)),
        // the scheduler that started it, and that slurmdbd got its start
        // (recorded/24.11/sacct/063: `SchedMain,StartReceived`)
        SF::Flags => Val::s(if j.start == 0 && j.end == 0 {
            "SchedNotSet"
        } else if j.start == 0 {
            "SchedNotSet,StartReceived"
        } else if j.sched_backfill {
            "SchedBackfill,StartReceived"
        } else {
            "SchedMain,StartReceived"
        }),
        SF::Gid => Val::n(j.group_id as u64),
        SF::Group => Val::s(group_name(j.group_id, &j.group_name)),
        SF::JobId => Val::s(id),
        SF::JobIdRaw => Val::s(j.job_id.to_string()),
        SF::JobName => Val::opt(&j.name),
        SF::Layout => Val::null(),
        SF::SubmitLine => Val::opt(&j.submit_line),
        SF::NNodes => {
            Val::n(if j.start != 0 && !j.nodes.is_empty() { j.nodes.len() as u64 } else { j.req_nodes as u64 })
        }
        SF::NodeList => Val::s(if j.nodes.is_empty() {
            "None assigned".to_string()
        } else {
            spur_grammar::hostlist::compress_unique(&j.nodes)
        }),
        SF::NTasks => Val::Num(None),
        SF::Partition => Val::opt(&j.partition),
        SF::Planned | SF::PlannedCpu | SF::PlannedCpuRaw => {
            let wait = if j.eligible == 0 {
                0
            } else if j.start == 0 && j.end != 0 {
                (j.end - j.eligible).max(0) as u64
            } else if j.start != 0 {
                (j.start - j.eligible).max(0) as u64
            } else {
                (now - j.eligible).max(0) as u64
            };
            match f {
                SF::Planned => Val::Secs(Some(wait)),
                SF::PlannedCpu => Val::Secs(Some(wait.saturating_mul(j.req_cpus as u64))),
                _ => Val::n(wait.saturating_mul(j.req_cpus as u64)),
            }
        }
        SF::Priority => Val::n(j.priority as u64),
        SF::Qos | SF::QosReq => Val::s(if j.qos.is_empty() { "normal" } else { &j.qos }),
        SF::QosRaw => Val::n(1),
        SF::Reason => Val::s(if j.reason.is_empty() { "None" } else { &j.reason }),
        SF::ReqCpus => Val::n(j.req_cpus as u64),
        SF::ReqMem => Val::s(acctprint::units(j.req_mem_mb as f64, acctprint::UNIT_MEGA, u)),
        SF::ReqNodes => Val::s(acctprint::units(j.req_nodes.max(1) as f64, acctprint::UNIT_NONE, u)),
        SF::ReqTres => Val::Str(tres_text(&job_tres(j, false), u)),
        SF::Reservation => Val::opt(&j.reservation),
        SF::ReservationId => Val::Num(None),
        SF::Restarts => Val::n(j.restarts as u64),
        // a job ended before it started: `None` (22.05's slurmctld gives
        // it its end: recorded/22.05/sacct/058)
        SF::Start if j.start == 0 && j.end != 0 => {
            Val::Date(if v22() { j.end } else { spur_grammar::time::NO_VAL_TIME })
        }
        SF::Start => Val::Date(j.start),
        SF::State => Val::s(state_text(j.state, j.cancelled_by)),
        SF::StdErr => Val::opt(&j.std_err),
        SF::StdIn => Val::opt(&j.std_in),
        SF::StdOut => Val::opt(&j.std_out),
        SF::Submit => Val::Date(j.submit),
        SF::Suspended => Val::Secs(Some(j.suspended.max(0) as u64)),
        SF::SystemCpu => cpu_text(job_cpu(j).1),
        SF::UserCpu => cpu_text(job_cpu(j).0),
        SF::TotalCpu => {
            let (a, b) = job_cpu(j);
            cpu_text(a.saturating_add(b))
        }
        // a job that never ran has no limit of its own yet
        // (recorded/24.11/sacct/058: `Partition_Limit`)
        SF::Timelimit | SF::TimelimitRaw if j.start == 0 && j.time_limit.is_none() => Val::s("Partition_Limit"),
        SF::Timelimit => limit_text(j.time_limit, false),
        SF::TimelimitRaw => limit_text(j.time_limit, true),
        SF::Uid => Val::n(j.user_id as u64),
        SF::User => Val::s(user_name(j.user_id, &j.user_name)),
        SF::WorkDir => Val::opt(&j.work_dir),
        SF::U(x) => usage_value(x, None, u),
    }
}

/// A step row's value.
fn step_value(f: SF, j: &AcctJob, s: &AcctStep, stats: Option<&Stats>, o: &SacctOpts, now: i64, id: &str) -> Val {
    let u = o.units;
    let end = if s.end != 0 { s.end } else { j.end };
    let elapsed = elapsed_of(s.start, end, 0, now);
    let cpus = s.cpus as u64;
    let (user, sys) =
        s.usage.iter().fold((0u64, 0u64), |(a, b), x| (a.saturating_add(x.user_us), b.saturating_add(x.sys_us)));
    match f {
        SF::Account => Val::opt(&j.account),
        SF::AllocCpus | SF::ReqCpus => Val::n(cpus),
        SF::AllocNodes | SF::ReqNodes => Val::s(s.nodes.len().to_string()),
        SF::NNodes => Val::n(s.nodes.len() as u64),
        SF::AllocTres => Val::Str(tres_text(&step_tres(j, s), u)),
        SF::AssocId => Val::n(0),
        SF::Cluster => Val::opt(&j.cluster),
        SF::CpuTime => Val::Secs(Some(elapsed.saturating_mul(cpus))),
        SF::CpuTimeRaw => Val::n(elapsed.saturating_mul(cpus)),
        SF::DbIndex => Val::n(j.job_id as u64),
        SF::Sluid => Val::s("0"),
        SF::DerivedExitCode => Val::s(""),
        SF::Elapsed => Val::Secs(Some(elapsed)),
        SF::ElapsedRaw => Val::n(elapsed.min(u32::MAX as u64 - 2)),
        SF::Eligible | SF::Submit | SF::Start => Val::Date(s.start),
        SF::End => Val::Date(end),
        SF::ExitCode => Val::s(exit_text(s.exit_status.unwrap_or(0))),
        SF::JobId => Val::s(id),
        SF::JobIdRaw => Val::s(format!("{}.{}", j.job_id, acctprint::step_name(s.step_id))),
        SF::JobName => Val::opt(&s.name),
        SF::Layout => Val::s(acctprint::layout_name(&s.distribution)),
        SF::NodeList => Val::s(spur_grammar::hostlist::compress_unique(&s.nodes)),
        SF::NTasks => Val::n(s.ntasks as u64),
        SF::State => Val::s(state_text(s.state, s.cancelled_by)),
        SF::SubmitLine => Val::opt(&s.submit_line),
        SF::Suspended => Val::Secs(Some(0)),
        SF::SystemCpu => cpu_text(sys),
        SF::UserCpu => cpu_text(user),
        SF::TotalCpu => cpu_text(user.saturating_add(sys)),
        SF::Gid | SF::Uid | SF::Priority | SF::QosRaw | SF::ReservationId | SF::WcKeyId | SF::PlannedCpuRaw => {
            Val::Num(None)
        }
        SF::Restarts => Val::Num(None),
        SF::Planned | SF::PlannedCpu => Val::Secs(None),
        SF::McsLabel => Val::null(),
        SF::ReqMem => Val::s(""),
        // the batch and extern steps carry frequencies of 0, srun's steps
        // none (recorded/24.11/sacct/048-049)
        SF::U(UF::ReqCpuFreqMin | UF::ReqCpuFreqMax | UF::ReqCpuFreqGov) if acctprint::is_special(s.step_id) => {
            Val::s("0")
        }
        SF::U(UF::AveCpuFreq) => Val::s("0"),
        SF::U(x) => usage_value(x, stats, u),
        _ => Val::null(),
    }
}

/// Jobs in sacct's order: submit time, array id, task, job id.
fn sort_jobs(jobs: &mut [&AcctJob]) {
    jobs.sort_by_key(|j| (j.submit, j.array_job_id, j.array_task_id.unwrap_or(NO_VAL), j.job_id));
}

/// Whether a selection names this job (and, for an array task, this task).
fn selects(s: &Selected, j: &AcctJob) -> bool {
    if let Some(t) = s.task {
        if j.array_job_id != s.job_id || (j.array_task_id != Some(t) && j.array_task_id.is_some()) {
            return false;
        }
        return true;
    }
    s.job_id == j.job_id || s.job_id == j.array_job_id
}

/// The filters the controller does not apply: `-q`, `-C`, `-W`, `-k/-K`,
/// `-i`, `-I`, `-M`, and the states no record can be in.
fn keep(o: &SacctOpts, j: &AcctJob) -> bool {
    if o.no_state_matches || o.wckeys {
        return false;
    }
    if !o.qos.is_empty() && !o.qos.iter().any(|q| q == if j.qos.is_empty() { "normal" } else { &j.qos }) {
        return false;
    }
    if !o.constraints.is_empty() && !o.constraints.iter().any(|c| c == &j.constraints) {
        return false;
    }
    if let Some(c) = &o.clusters {
        if !c.is_empty() && !c.iter().any(|x| x == &j.cluster) {
            return false;
        }
    }
    if let Some((lo, hi)) = o.timelimit {
        let l = j.time_limit.unwrap_or(u32::MAX);
        if hi == 0 && l != lo || hi != 0 && (l < lo || l > hi) {
            return false;
        }
    }
    let nodes = j.nodes.len() as u32;
    if let Some((lo, hi)) = o.nnodes {
        if nodes < lo || nodes > hi {
            return false;
        }
    }
    if let Some((lo, hi)) = o.ncpus {
        if j.alloc_cpus < lo || j.alloc_cpus > hi {
            return false;
        }
    }
    true
}

/// The records sacct shows, in its order (the `--json` document's jobs).
pub fn selected<'a>(o: &SacctOpts, jobs: &'a [AcctJob]) -> Vec<&'a AcctJob> {
    let mut list: Vec<&AcctJob> = jobs.iter().filter(|j| keep(o, j)).collect();
    sort_jobs(&mut list);
    list
}

/// `-T`: a job's start and end inside the window, as slurmdbd cuts them
/// when asked (a start before it is its start, a later or no end its end).
fn truncated(o: &SacctOpts, j: &AcctJob) -> AcctJob {
    let mut t = j.clone();
    let (ws, we) = (o.query.start, o.query.end);
    if ws != 0 && t.start != 0 && t.start < ws {
        t.start = ws;
    }
    if we != 0 && t.start != 0 && (t.end == 0 || t.end > we) {
        t.end = we;
    }
    t
}

/// Print the header and rows of `jobs` (as the controller answered the
/// query) at `now`; `Err` is a field list Slurm refuses.
pub fn render(o: &SacctOpts, jobs: &[AcctJob], now: i64) -> Output {
    let table = table();
    let mut layout: Layout = match parse_fields(&o.field_list, &table, true, true) {
        Ok(l) => l,
        Err(bad) => {
            let msg = if bad.0.eq_ignore_ascii_case("AllocGRES") {
                "sacct: fatal: AllocGRES has been removed, please use AllocTRES\n".to_string()
            } else if bad.0.eq_ignore_ascii_case("ReqGRES") {
                "sacct: fatal: ReqGRES has been removed, please use ReqTRES\n".to_string()
            } else {
                format!("sacct: error: Invalid field requested: \"{}\"\n", bad.0)
            };
            return Output::err(format!("{}{}", o.stderr, msg), 1);
        }
    };
    if !o.operands.is_empty() {
        let mut e = format!("{}sacct: error: Unknown arguments:\n", o.stderr);
        for a in &o.operands {
            e.push_str(&format!("sacct: error:  {}\n", a));
        }
        return Output::err(e, 1);
    }
    let mut out = Output { stdout: String::new(), stderr: o.stderr.clone(), code: 0 };
    if let Some(h) = &o.help {
        out.stdout = h.clone();
        return out;
    }
    layout.parsable = o.parsable;
    layout.delimiter = o.delimiter.clone();
    layout.header = o.header;
    if o.script.is_none() {
        out.stdout.push_str(&layout.header_text(&table));
    }
    for j in selected(o, jobs) {
        let sels: Vec<&Selected> = o.selected.iter().filter(|s| selects(s, j)).collect();
        let show_full = sels.is_empty() || sels.iter().any(|s| s.step.is_none());
        let only: Vec<u32> = sels.iter().filter_map(|s| s.step).collect();
        if let Some(batch) = o.script {
            if show_full || !only.is_empty() {
                if o.header {
                    out.stdout.push_str(&format!(
                        "{} for {}\n{}\n",
                        if batch { "Batch Script" } else { "Environment used" },
                        j.display_id(),
                        "-".repeat(80)
                    ));
                    if !batch {
                        let l = out.stdout.len();
                        out.stdout.insert_str(l - 82, " (must be batch to display)");
                    }
                }
                out.stdout.push_str("NONE\n");
            }
            continue;
        }
        let ids: Vec<(String, &AcctJob)> = if o.array && j.array_task_id.is_none() && !j.array_tasks.is_empty() {
            spur_grammar::jobref::expand_ranges(&j.array_tasks)
                .into_iter()
                .map(|t| (format!("{}_{}", j.array_job_id, t), j))
                .collect()
        } else {
            vec![(j.display_id(), j)]
        };
        if show_full {
            for (id, j) in &ids {
                let cut;
                let j = if o.truncate {
                    cut = truncated(o, j);
                    &cut
                } else {
                    *j
                };
                out.stdout.push_str(&layout.row(&table, |k| job_value(*k, j, o, now, id)));
            }
        }
        if o.no_steps {
            continue;
        }
        for s in &j.steps {
            if !only.is_empty() && !show_full && !only.contains(&s.step_id) {
                continue;
            }
            // with -s, the steps in those states (recorded/24.11/sacct/127)
            if !o.query.states.is_empty() && !o.query.states.contains(&s.state) {
                continue;
            }
            let id = format!("{}.{}", j.display_id(), acctprint::step_name(s.step_id));
            let stats = Stats::of(&s.usage);
            out.stdout.push_str(&layout.row(&table, |k| step_value(*k, j, s, stats.as_ref(), o, now, &id)));
        }
    }
    out
}

/// sacct as a process: parse, check accounting, query the controller,
/// print; returns the exit status.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    let (uid, _) = caller();
    let mut o = match parse(args, env, now, uid) {
        Ok(o) => o,
        Err(e) => return emit(&e),
    };
    // what parsing logged (`-v`'s window, `Invalid user id`) comes first,
    // as sacct writes it while it reads its options
    emit(&Output::err(std::mem::take(&mut o.stderr), 0));
    let c = match client("sacct") {
        Ok(c) => c,
        Err(e) => return emit(&e),
    };
    if o.completion {
        if c.conf().get("JobCompType").is_none() {
            return emit(&Output::err(format!("{}Slurm job completion is disabled\n", o.stderr), 1));
        }
        return emit(&Output::err(format!("{}Slurm unable to initialize jobcomp plugin\n", o.stderr), 1));
    }
    if !c.conf().accounting_enabled() {
        return emit(&Output::err(format!("{}Slurm accounting storage is disabled\n", o.stderr), 1));
    }
    if let Some(m) = &o.mime {
        if let Err(e) = spur_cli_base::data::check_version("sacct", m) {
            return emit(&e);
        }
    }
    // the help texts and a bad field list need no records
    let probe = render(&o, &[], now);
    if probe.code != 0 || o.help.is_some() {
        return emit(&probe);
    }
    // 22.05's --json lists every run of a requeued job
    if o.mime.is_some() && v22() {
        o.query.duplicates = true;
    }
    let rt = runtime();
    let jobs = if o.no_state_matches || o.wckeys { Ok(vec![]) } else { rt.block_on(c.accounting(&o.query)) };
    match jobs {
        Ok(jobs) => {
            if let Some(m) = &o.mime {
                let cluster = c.conf().get("ClusterName").unwrap_or("").to_string();
                return emit(&crate::json::sacct(m, args, &selected(&o, &jobs), &cluster, now));
            }
            emit(&render(&o, &jobs, now))
        }
        // slurmdbd unreachable: sacct stops before its header, with the
        // connection's errno text
        Err(e) => {
            let why = match e {
                spur_client::ClientError::Unreachable => "Connection refused".to_string(),
                other => other.to_string(),
            };
            emit(&Output::err(format!("{}sacct: error: Problem talking to the database: {}\n", o.stderr, why), 1))
        }
    }
}

#[cfg(test)]
mod tests;
