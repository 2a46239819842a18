//! `squeue`: options, filtering, sorting and printing as Slurm 24.11 does
//! (src/squeue/opts.c, print.c, sort.c, squeue.c).
//!
//! The order of `ClusterView.jobs` is taken to be slurmctld's job list order
//! (record creation order: when an array task is split off the pending
//! meta-record, the started task keeps the old record's place and the
//! meta-record moves to the end). Ties in every sort key keep that order.

use crate::json;
use spur_cli_base::data;
use spur_cli_base::format::{self, Cell, FieldDef, Item};
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::{caller, client, emit, load_error, runtime};
use spur_cli_base::records::{
    array_job_id, array_task_id, dependency_text, exit_pair, fname_format, job_nodes, reason_text, time_used, tres_str,
};
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_core::model::{ClusterView, Job, JobState};
use spur_core::request::Query as QueryRequest;
use spur_grammar::jobref::{parse_squeue_jobs, Tasks};
use spur_grammar::num::{atoi, strtol};
use std::collections::{BTreeSet, HashMap};

/// squeue's `params` as its `-v` prints them (opts.c `_print_options`):
/// the texts of the options as given (or from their `SQUEUE_*` variables).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub all: bool,
    pub federation: bool,
    pub local: bool,
    pub sibling: bool,
    pub job_flag: bool,
    pub start_flag: bool,
    pub step_flag: bool,
    pub format: Option<String>,
    pub jobs: Option<String>,
    pub licenses: Option<String>,
    pub names: Option<String>,
    pub partitions: Option<String>,
    pub reservation: Option<String>,
    pub sort: Option<String>,
    pub states: Option<String>,
    pub steps: Option<String>,
    pub users: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SqueueOpts {
    /// `-j` list as squeue reads it: (job id, array task id).
    pub job_list: Vec<(u32, Option<u32>)>,
    /// `-u`/`--me`: uids (Some(empty) when every name was invalid).
    pub users: Option<Vec<u32>>,
    /// `--me` was given: resolve to the caller's uid at render time.
    pub me: bool,
    pub accounts: Option<Vec<String>>,
    pub qos: Option<Vec<String>>,
    pub names: Option<Vec<String>>,
    pub partitions: Option<Vec<String>>,
    /// `-t` list; None = default (active jobs only).
    pub states: Option<Vec<JobState>>,
    pub all_states: bool,
    /// `-w` host names, expanded.
    pub nodes: Option<Vec<String>>,
    pub reservation: Option<String>,
    pub licenses: Option<Vec<String>>,
    pub array: bool,
    pub no_header: bool,
    pub long: bool,
    pub format: Option<String>,
    pub format_long: Option<String>,
    pub sort: Option<String>,
    pub start: bool,
    pub steps: bool,
    /// `-s LIST`: the steps named (`job.step`, ...).
    pub step_list: Option<String>,
    pub priority: bool,
    pub notme: bool,
    pub verbose: usize,
    pub expand_patterns: bool,
    /// `-i N`: print the report every N seconds, each after a date line
    /// (0: once).
    pub iterate: u32,
    /// `--noconvert`: memory in MB, never scaled to G or T.
    pub noconvert: bool,
    /// `--only-job-state`: the default layout is the id and the state.
    pub only_job_state: bool,
    /// The settings `-v` prints, as squeue keeps them (the option texts as
    /// given: its `params`).
    pub settings: Settings,
    /// `SLURM_BITSTR_LEN` as libslurm reads it: the buffer a pending array's
    /// task string is cut to (64 when unset or negative, at most 4096; 0:
    /// whole, as `-r` sets it).
    pub bitstr_len: usize,
    /// Diagnostics printed while parsing (e.g. `Invalid user`); render
    /// prints them first on stderr.
    pub warnings: String,
}

/// The options of the imitated release (those added after 22.05 only
/// when it has them: `Profile::query_options_after_22_05`).
pub fn specs() -> Vec<OptSpec> {
    if spur_core::compat::profile().query_options_after_22_05 {
        SPECS.to_vec()
    } else {
        opts::without(SPECS, &["notme", "only-job-state", "expand-patterns"])
    }
}

pub const SPECS: &[OptSpec] = &[
    OptSpec::new(None, "autocomplete", Required, "autocomplete"),
    OptSpec::new(Some('A'), "accounts", Required, "A"),
    OptSpec::new(Some('a'), "all", None_, "a"),
    OptSpec::new(Some('r'), "array", None_, "r"),
    OptSpec::new(None, "expand-patterns", None_, "expand-patterns"),
    OptSpec::new(Some('O'), "Format", Required, "O"),
    OptSpec::new(Some('o'), "format", Required, "o"),
    OptSpec::new(None, "federation", None_, "federation"),
    OptSpec::new(None, "help", None_, "help"),
    OptSpec::new(None, "helpstate", None_, "helpstate"),
    OptSpec::new(None, "helpformat", None_, "helpformat"),
    OptSpec::new(None, "helpFormat", None_, "helpFormat"),
    OptSpec::new(None, "hide", None_, "hide"),
    OptSpec::new(Some('i'), "iterate", Required, "i"),
    OptSpec::new(Some('j'), "jobs", Optional, "j"),
    OptSpec::new(None, "local", None_, "local"),
    OptSpec::new(Some('l'), "long", None_, "l"),
    OptSpec::new(Some('L'), "licenses", Required, "L"),
    OptSpec::new(Some('M'), "cluster", Required, "M"),
    OptSpec::new(Some('M'), "clusters", Required, "M"),
    OptSpec::new(None, "me", None_, "me"),
    OptSpec::new(Some('n'), "name", Required, "n"),
    OptSpec::new(None, "noconvert", None_, "noconvert"),
    OptSpec::new(Some('w'), "node", Required, "w"),
    OptSpec::new(Some('w'), "nodes", Required, "w"),
    OptSpec::new(Some('w'), "nodelist", Required, "w"),
    OptSpec::new(Some('h'), "noheader", None_, "h"),
    OptSpec::new(None, "notme", None_, "notme"),
    OptSpec::new(None, "only-job-state", None_, "only-job-state"),
    OptSpec::new(Some('p'), "partitions", Required, "p"),
    OptSpec::new(Some('P'), "priority", None_, "P"),
    OptSpec::new(Some('q'), "qos", Required, "q"),
    OptSpec::new(Some('R'), "reservation", Required, "R"),
    OptSpec::new(None, "sib", None_, "sibling"),
    OptSpec::new(None, "sibling", None_, "sibling"),
    OptSpec::new(Some('S'), "sort", Required, "S"),
    OptSpec::new(None, "start", None_, "start"),
    OptSpec::new(Some('s'), "steps", Optional, "s"),
    OptSpec::new(Some('t'), "states", Required, "t"),
    OptSpec::new(None, "usage", None_, "usage"),
    OptSpec::new(Some('u'), "user", Required, "u"),
    OptSpec::new(Some('u'), "users", Required, "u"),
    OptSpec::new(Some('U'), "", Required, "A"),
    OptSpec::new(Some('v'), "verbose", None_, "v"),
    OptSpec::new(Some('V'), "version", None_, "V"),
    OptSpec::new(None, "json", Optional, "json"),
    OptSpec::new(None, "yaml", Optional, "yaml"),
];

fn err1(msg: &str) -> Output {
    Output::err(format!("squeue: error: {}\n", msg), 1)
}

fn str_list(s: &str) -> Vec<String> {
    s.split(',').filter(|t| !t.is_empty()).map(|t| t.to_string()).collect()
}

/// squeue's `_build_job_list` (spur_grammar::jobref::parse_squeue_jobs):
/// (job id, task) pairs.
fn build_job_list(s: &str) -> Result<Vec<(u32, Option<u32>)>, Output> {
    let refs = parse_squeue_jobs(s).map_err(|tok| err1(&format!("Invalid job id: {}", tok)))?;
    Ok(refs
        .into_iter()
        .map(|r| match r.tasks {
            Tasks::One(t) => (r.job_id, Some(t)),
            _ => (r.job_id, None),
        })
        .collect())
}

/// Slurm's lower-case job state list for error messages and `--helpstate`.
const JOB_STATE_LIST: &str = "pending,running,suspended,completed,cancelled,failed,timeout,node_fail,preempted,boot_fail,deadline,out_of_memory,completing,configuring,resizing,resv_del_hold,requeued,requeue_fed,requeue_hold,revoked,signaling,special_exit,stage_out,stopped";

/// Extra state names `job_state_num` knows that Spur never reports.
const FLAG_STATES: &[&str] = &[
    "CONFIGURING",
    "CF",
    "RESIZING",
    "RS",
    "RESV_DEL_HOLD",
    "RD",
    "REQUEUED",
    "RQ",
    "REQUEUE_FED",
    "RF",
    "REQUEUE_HOLD",
    "RH",
    "REVOKED",
    "RV",
    "SIGNALING",
    "SI",
    "SPECIAL_EXIT",
    "SE",
    "STAGE_OUT",
    "SO",
    "STOPPED",
    "ST",
    "COMPLETE",
    "CD",
    "END",
    "LAUNCH_FAILED",
    "POWER_UP_NODE",
    "UPDATE_DB",
    "RECONFIG_FAIL",
];

fn build_state_list(s: &str, o: &mut SqueueOpts) -> Result<(), Output> {
    if s.eq_ignore_ascii_case("all") {
        o.all_states = true;
        o.states = None;
        return Ok(());
    }
    o.all_states = false;
    let mut v = Vec::new();
    for tok in s.split(',').filter(|t| !t.is_empty()) {
        match JobState::parse(tok) {
            Some(st) => v.push(st),
            None if tok.eq_ignore_ascii_case("COMPLETE") => v.push(JobState::Completed),
            None if FLAG_STATES.iter().any(|f| f.eq_ignore_ascii_case(tok)) => {}
            None => {
                return Err(Output::err(
                    format!(
                        "squeue: error: Invalid job state specified: {}\nsqueue: error: Valid job states include: {}\n\n",
                        tok,
                        // 22.05 lists them in upper case
                        if spur_core::compat::profile().job_state_list_upper_case { JOB_STATE_LIST.to_ascii_uppercase() } else { JOB_STATE_LIST.to_string() }
                    ),
                    1,
                ));
            }
        }
    }
    o.states = Some(v);
    Ok(())
}

/// uid_from_string: a user name, else a number naming an existing user.
pub fn uid_from_string(s: &str) -> Option<u32> {
    if let Ok(Some(u)) = nix::unistd::User::from_name(s) {
        return Some(u.uid.as_raw());
    }
    let c = strtol(s, 10);
    let v = c.value;
    if c.rest(s).is_empty() && !s.is_empty() && v >= 0 && v <= u32::MAX as i64 {
        if let Ok(Some(u)) = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(v as u32)) {
            return Some(u.uid.as_raw());
        }
    }
    None
}

fn build_user_list(s: &str, warnings: &mut String) -> Vec<u32> {
    let mut v = Vec::new();
    for tok in s.split(',').filter(|t| !t.is_empty()) {
        match uid_from_string(tok) {
            Some(u) => v.push(u),
            None => warnings.push_str(&format!("squeue: error: Invalid user: {}\n\n", tok)),
        }
    }
    v
}

/// Parse squeue's command line (`args` without `argv[0]`) and environment.
pub fn parse(args: &[String], env: &HashMap<String, String>) -> Result<SqueueOpts, Output> {
    let mut o = SqueueOpts::default();
    let mut all_flag = false;
    if env.contains_key("SQUEUE_ALL") {
        all_flag = true;
    }
    if env.contains_key("SQUEUE_ARRAY") {
        o.array = true;
    }
    if let Some(v) = env.get("SQUEUE_SORT") {
        o.sort = Some(v.clone());
    }
    if env.contains_key("SQUEUE_PRIORITY") {
        o.priority = true;
    }
    o.bitstr_len = match env.get("SLURM_BITSTR_LEN").map(|v| atoi(v)) {
        Some(n) if n >= 0 => n.min(4096) as usize,
        _ => 64,
    };
    if let Some(v) = env.get("SLURM_CLUSTERS") {
        return Err(spur_cli_base::clusters::unreachable("squeue", v, true));
    }
    let p = opts::parse("squeue", &specs(), args, Mode::Permute);
    let mut override_format_env = false;
    let mut job_flag = false;
    for (id, val) in &p.opts {
        let v = val.clone().unwrap_or_default();
        match *id {
            "A" => o.accounts = Some(str_list(&v)),
            "a" => all_flag = true,
            "h" => o.no_header = true,
            // atoi, as squeue reads it
            "i" if atoi(&v) <= 0 => return Err(err1(&format!("--iterate={}\n", v))),
            "i" => o.iterate = atoi(&v) as u32,
            "M" => return Err(spur_cli_base::clusters::unreachable("squeue", &v, false)),
            "noconvert" => o.noconvert = true,
            "j" => {
                if val.is_some() {
                    o.job_list = build_job_list(&v)?;
                }
                job_flag = true;
            }
            "l" => {
                o.long = true;
                override_format_env = true;
            }
            "L" => o.licenses = Some(str_list(&v)),
            "n" => o.names = Some(str_list(&v)),
            "O" => {
                if o.format.is_some() {
                    return Err(err1("-O (--Format) is incompatible with -o (--format)"));
                }
                o.format_long = Some(v);
                override_format_env = true;
            }
            "o" => {
                if o.format_long.is_some() {
                    return Err(err1("-o (--format) is incompatible with -O (--Format)"));
                }
                o.format = Some(v);
                override_format_env = true;
            }
            "p" => {
                o.partitions = Some(str_list(&v));
                all_flag = true;
            }
            "P" => o.priority = true,
            "q" => o.qos = Some(str_list(&v)),
            "R" => o.reservation = Some(v),
            "r" => {
                o.array = true;
                o.bitstr_len = 0; // squeue -r sets SLURM_BITSTR_LEN=0
            }
            "s" => {
                // a step list names `job.step`; a bare job id is refused as
                // squeue does (recorded/24.11/query_surface/053)
                if let Some(list) = val {
                    if let Some(bad) = list.split(',').find(|t| !t.is_empty() && !t.contains('.')) {
                        return Err(err1(&format!("Invalid job_step id: {}.??", bad)));
                    }
                    o.step_list = Some(list.to_string());
                }
                o.steps = true;
                override_format_env = true;
            }
            "only-job-state" => o.only_job_state = true,
            "S" => o.sort = Some(v),
            "t" => build_state_list(&v, &mut o)?,
            "u" => {
                o.me = false;
                o.users = Some(build_user_list(&v, &mut o.warnings));
            }
            "v" => o.verbose += 1,
            "V" => return Err(Output::ok(version_line())),
            "w" => match spur_grammar::hostlist::expand(&v) {
                Ok(h) => o.nodes = Some(h),
                Err(_) => return Err(err1(&format!("'{}' invalid entry for --nodelist", v))),
            },
            "help" => {
                // 22.05's text: recorded/22.05/query_surface (squeue 037, sinfo 107)
                return Err(Output::ok(if spur_core::compat::profile().usage_texts_22_05 {
                    include_str!("text/squeue_help_22_05.txt")
                } else {
                    include_str!("text/squeue_help.txt")
                }));
            }
            "usage" => return Err(Output::ok(usage_text())),
            "expand-patterns" => o.expand_patterns = true,
            "hide" => all_flag = false,
            "me" => {
                o.me = true;
                o.users = Some(Vec::new());
            }
            "notme" => o.notme = true,
            "start" => {
                o.start = true;
                override_format_env = true;
            }
            "helpstate" => return Err(Output::ok(format!("{}\n", JOB_STATE_LIST.replace(',', "\n")))),
            "helpformat" => return Err(Output::ok(help_format())),
            "helpFormat" => return Err(Output::ok(help_format2())),
            "autocomplete" => return Err(Output::ok("")),
            _ => {}
        }
    }
    let _ = all_flag;
    if let Some(e) = p.error {
        let mut out = e.into_output("squeue", 1);
        out.stderr = format!("{}{}", o.warnings, out.stderr);
        return Err(out);
    }
    if o.long && o.format.is_some() {
        return Err(Output::err(
            "squeue: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n",
            1,
        ));
    }
    if !override_format_env {
        if let Some(v) = env.get("SQUEUE_FORMAT") {
            o.format = Some(v.clone());
        } else if let Some(v) = env.get("SQUEUE_FORMAT2") {
            o.format_long = Some(v.clone());
        }
    }
    let mut operands = p.operands.iter();
    if let Some(first) = operands.next() {
        if job_flag {
            o.job_list = build_job_list(first)?;
        } else if o.steps {
            // `squeue -s J.S`: the step list as an operand
            // (recorded/24.11/steps/10)
            if o.step_list.is_none() && first.contains('.') {
                o.step_list = Some(first.clone());
            }
        } else {
            // the error goes to stderr, the usage text to stdout
            return Err(Output {
                stdout: usage_text().to_string(),
                stderr: format!("{}squeue: error: Unrecognized option: {}\n", o.warnings, first),
                code: 1,
            });
        }
        if let Some(next) = operands.next() {
            // the error goes to stderr, the usage text to stdout
            return Err(Output {
                stdout: usage_text().to_string(),
                stderr: format!("{}squeue: error: Unrecognized option: {}\n", o.warnings, next),
                code: 1,
            });
        }
    }
    if o.accounts.is_none() {
        if let Some(v) = env.get("SQUEUE_ACCOUNT") {
            o.accounts = Some(str_list(v));
        }
    }
    if o.names.is_none() {
        if let Some(v) = env.get("SQUEUE_NAMES") {
            o.names = Some(str_list(v));
        }
    }
    if o.partitions.is_none() {
        if let Some(v) = env.get("SQUEUE_PARTITION") {
            o.partitions = Some(str_list(v));
        }
    }
    if o.licenses.is_none() {
        if let Some(v) = env.get("SQUEUE_LICENSES") {
            o.licenses = Some(str_list(v));
        }
    }
    if o.qos.is_none() {
        if let Some(v) = env.get("SQUEUE_QOS") {
            o.qos = Some(str_list(v));
        }
    }
    if o.states.is_none() && !o.all_states {
        if let Some(v) = env.get("SQUEUE_STATES") {
            build_state_list(&v.clone(), &mut o)?;
        }
    }
    if o.users.is_none() {
        if let Some(v) = env.get("SQUEUE_USERS") {
            o.users = Some(build_user_list(&v.clone(), &mut o.warnings));
        }
    }
    o.settings = settings(&p, env);
    if o.start && !o.steps {
        if o.format.is_none() {
            o.format = Some("%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R".into());
        }
        if o.sort.is_none() {
            o.sort = Some("S".into());
        }
        if o.states.is_none() && !o.all_states {
            o.states = Some(vec![JobState::Pending]);
        }
    }
    Ok(o)
}

// ---------------------------------------------------------------- fields

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JF {
    Account,
    AccrueTime,
    AdminComment,
    AllocNodes,
    AllocSid,
    ArrayJobId,
    ArrayTaskId,
    AssocId,
    BatchFlag,
    BatchHost,
    BoardsPerNode,
    BurstBuffer,
    BurstBufferState,
    Cluster,
    ClusterFeature,
    Command,
    Comment,
    Container,
    ContainerId,
    Contiguous,
    Cores,
    CoreSpec,
    CpusPerTask,
    CpusPerTres,
    Deadline,
    DelayBoot,
    Dependency,
    DerivedEc,
    EligibleTime,
    EndTime,
    ExcNodes,
    ExitCode,
    Feature,
    Gres,
    GroupId,
    GroupName,
    HetJobId,
    HetJobIdSet,
    HetJobOffset,
    JobArrayId,
    JobId,
    LastSchedEval,
    Licenses,
    MaxCpus,
    MaxNodes,
    MemPerTres,
    McsLabel,
    MinCpus,
    MinMemory,
    MinTime,
    MinTmpDisk,
    Name,
    Network,
    Nice,
    NodeList,
    NtPerCore,
    NtPerNode,
    NtPerSocket,
    NtPerBoard,
    NumCpus,
    NumNodes,
    NumTasks,
    Origin,
    OriginRaw,
    OverSubscribe,
    Partition,
    PendingTime,
    PreemptTime,
    Prefer,
    Priority,
    PriorityLong,
    Profile,
    Qos,
    Reason,
    ReasonList,
    Reboot,
    ReqNodes,
    ReqSwitch,
    Requeue,
    Reservation,
    ResizeTime,
    RestartCnt,
    SchedNodes,
    Sct,
    SiblingsActive,
    SiblingsActiveRaw,
    SiblingsViable,
    SiblingsViableRaw,
    Sockets,
    SPerBoard,
    StartTime,
    State,
    StateCompact,
    StdErr,
    StdIn,
    StdOut,
    SubmitTime,
    SystemComment,
    Threads,
    TimeLeft,
    TimeLimit,
    TimeUsed,
    TresAlloc,
    TresBind,
    TresFreq,
    TresPerJob,
    TresPerNode,
    TresPerSocket,
    TresPerTask,
    UserId,
    UserName,
    Wait4Switch,
    WcKey,
    WorkDir,
}

macro_rules! f {
    ($n:expr, $c:expr, $k:ident) => {
        FieldDef { name: $n, letter: $c, key: JF::$k }
    };
}

/// squeue's field table, in Slurm's order (the `-o` letter lookup takes the
/// first entry with the letter, the `-O` lookup the first with the name).
/// squeue's usage text (22.05's lacks the options added since).
fn usage_text() -> &'static str {
    if spur_core::compat::profile().usage_texts_22_05 {
        include_str!("text/squeue_usage_22_05.txt")
    } else {
        include_str!("text/squeue_usage.txt")
    }
}

pub static FIELDS: &[FieldDef<JF>] = &[
    f!(Some("Account"), Some('a'), Account),
    f!(Some("AccrueTime"), None, AccrueTime),
    f!(Some("admin_comment"), None, AdminComment),
    f!(Some("AllocNodes"), None, AllocNodes),
    f!(Some("AllocSID"), None, AllocSid),
    f!(Some("ArrayJobId"), Some('F'), ArrayJobId),
    f!(Some("ArrayTaskId"), Some('K'), ArrayTaskId),
    f!(Some("AssocId"), None, AssocId),
    f!(Some("BatchFlag"), None, BatchFlag),
    f!(Some("BatchHost"), Some('B'), BatchHost),
    f!(Some("BoardsPerNode"), None, BoardsPerNode),
    f!(Some("BurstBuffer"), None, BurstBuffer),
    f!(Some("BurstBufferState"), None, BurstBufferState),
    f!(Some("Cluster"), None, Cluster),
    f!(Some("ClusterFeature"), None, ClusterFeature),
    f!(Some("Command"), Some('o'), Command),
    f!(Some("Comment"), Some('k'), Comment),
    f!(Some("Container"), None, Container),
    f!(Some("ContainerId"), None, ContainerId),
    f!(Some("Contiguous"), Some('O'), Contiguous),
    f!(Some("Cores"), Some('I'), Cores),
    f!(Some("CoreSpec"), Some('X'), CoreSpec),
    f!(Some("CPUsPerTask"), None, CpusPerTask),
    f!(Some("cpus-per-task"), None, CpusPerTask),
    f!(Some("cpus-per-tres"), None, CpusPerTres),
    f!(Some("Deadline"), None, Deadline),
    f!(Some("DelayBoot"), None, DelayBoot),
    f!(Some("Dependency"), Some('E'), Dependency),
    f!(Some("DerivedEC"), None, DerivedEc),
    f!(Some("EligibleTime"), None, EligibleTime),
    f!(Some("EndTime"), Some('e'), EndTime),
    f!(Some("ExcNodes"), Some('x'), ExcNodes),
    f!(Some("exit_code"), None, ExitCode),
    f!(Some("Feature"), Some('f'), Feature),
    f!(Some("Gres"), Some('b'), Gres),
    f!(Some("GroupId"), Some('G'), GroupId),
    f!(Some("GroupName"), Some('g'), GroupName),
    f!(Some("HetJobId"), None, HetJobId),
    f!(Some("HetJobIdSet"), None, HetJobIdSet),
    f!(Some("HetJobOffset"), None, HetJobOffset),
    f!(Some("JobArrayId"), Some('i'), JobArrayId),
    f!(Some("JobId"), Some('A'), JobId),
    f!(Some("LastSchedEval"), None, LastSchedEval),
    f!(Some("Licenses"), Some('W'), Licenses),
    f!(Some("MaxCPUs"), None, MaxCpus),
    f!(Some("MaxNodes"), None, MaxNodes),
    f!(Some("mem-per-tres"), None, MemPerTres),
    f!(Some("MCSLabel"), None, McsLabel),
    f!(Some("MinCPUs"), Some('c'), MinCpus),
    f!(Some("MinMemory"), Some('m'), MinMemory),
    f!(Some("MinTime"), None, MinTime),
    f!(Some("MinTmpDisk"), Some('d'), MinTmpDisk),
    f!(Some("Name"), Some('j'), Name),
    f!(Some("Network"), None, Network),
    f!(Some("Nice"), Some('y'), Nice),
    f!(Some("NodeList"), Some('N'), NodeList),
    f!(Some("NTPerCore"), None, NtPerCore),
    f!(Some("NTPerNode"), None, NtPerNode),
    f!(Some("NTPerSocket"), None, NtPerSocket),
    f!(Some("NTPerBoard"), None, NtPerBoard),
    f!(Some("NumCPUs"), Some('C'), NumCpus),
    f!(Some("NumNodes"), Some('D'), NumNodes),
    f!(Some("NumTasks"), None, NumTasks),
    f!(Some("Origin"), None, Origin),
    f!(Some("OriginRaw"), None, OriginRaw),
    f!(Some("OverSubscribe"), Some('h'), OverSubscribe),
    f!(Some("PackJobId"), None, HetJobId),
    f!(Some("PackJobIdSet"), None, HetJobIdSet),
    f!(Some("PackJobOffset"), None, HetJobOffset),
    f!(Some("Partition"), Some('P'), Partition),
    f!(Some("PendingTime"), None, PendingTime),
    f!(Some("PreemptTime"), None, PreemptTime),
    f!(Some("Prefer"), None, Prefer),
    f!(Some("Priority"), Some('p'), Priority),
    f!(Some("PriorityLong"), Some('Q'), PriorityLong),
    f!(Some("Profile"), None, Profile),
    f!(Some("QOS"), Some('q'), Qos),
    f!(Some("Reason"), Some('r'), Reason),
    f!(Some("ReasonList"), Some('R'), ReasonList),
    f!(Some("Reboot"), None, Reboot),
    f!(Some("ReqNodes"), Some('n'), ReqNodes),
    f!(Some("ReqSwitch"), None, ReqSwitch),
    f!(Some("Requeue"), None, Requeue),
    f!(Some("Reservation"), Some('v'), Reservation),
    f!(Some("ResizeTime"), None, ResizeTime),
    f!(Some("RestartCnt"), None, RestartCnt),
    f!(Some("SchedNodes"), Some('Y'), SchedNodes),
    f!(Some("SCT"), Some('z'), Sct),
    f!(Some("SiblingsActive"), None, SiblingsActive),
    f!(Some("SiblingsActiveRaw"), None, SiblingsActiveRaw),
    f!(Some("SiblingsViable"), None, SiblingsViable),
    f!(Some("SiblingsViableRaw"), None, SiblingsViableRaw),
    f!(Some("Shared"), Some('h'), OverSubscribe),
    f!(Some("Sockets"), Some('H'), Sockets),
    f!(Some("SPerBoard"), None, SPerBoard),
    f!(Some("StartTime"), Some('S'), StartTime),
    f!(Some("State"), Some('T'), State),
    f!(Some("StateCompact"), Some('t'), StateCompact),
    f!(Some("StdErr"), None, StdErr),
    f!(Some("StdIn"), None, StdIn),
    f!(Some("StdOut"), None, StdOut),
    f!(Some("SubmitTime"), Some('V'), SubmitTime),
    f!(Some("system_comment"), None, SystemComment),
    f!(Some("Threads"), Some('J'), Threads),
    f!(Some("TimeLeft"), Some('L'), TimeLeft),
    f!(Some("TimeLimit"), Some('l'), TimeLimit),
    f!(Some("TimeUsed"), Some('M'), TimeUsed),
    f!(Some("Tres"), None, TresAlloc),
    f!(Some("tres-alloc"), None, TresAlloc),
    f!(Some("tres-bind"), None, TresBind),
    f!(Some("tres-freq"), None, TresFreq),
    f!(Some("tres-per-job"), None, TresPerJob),
    f!(Some("tres-per-node"), None, TresPerNode),
    f!(Some("tres-per-socket"), None, TresPerSocket),
    f!(Some("tres-per-task"), None, TresPerTask),
    f!(Some("UserId"), Some('U'), UserId),
    f!(Some("UserName"), Some('u'), UserName),
    f!(Some("Wait4Switch"), None, Wait4Switch),
    f!(Some("WCKey"), Some('w'), WcKey),
    f!(Some("WorkDir"), Some('Z'), WorkDir),
];

/// Fields hidden from `--helpformat`/`--helpFormat`.
fn hidden(name: &str) -> bool {
    matches!(name, "Gres" | "PackJobId" | "PackJobIdSet" | "PackJobOffset" | "Shared" | "Tres" | "tres-per-node")
}

fn help_format() -> String {
    let mut out = String::new();
    let mut cnt = 0;
    for d in FIELDS {
        let (Some(c), Some(n)) = (d.letter, d.name) else { continue };
        if hidden(n) {
            continue;
        }
        if cnt & 8 != 0 {
            cnt = 0;
            out.push('\n');
        }
        cnt += 1;
        out.push_str(&format!("%{:<5}", c));
    }
    out.push('\n');
    out
}

fn help_format2() -> String {
    let mut out = String::new();
    let mut cnt = 0;
    for d in FIELDS {
        let Some(n) = d.name else { continue };
        if hidden(n) {
            continue;
        }
        if cnt & 4 != 0 {
            cnt = 0;
            out.push('\n');
        }
        cnt += 1;
        out.push_str(&format!("{:<20}", n));
    }
    out.push('\n');
    out
}

fn header(f: JF) -> Cell {
    use JF::*;
    let h = match f {
        Account => "ACCOUNT",
        AccrueTime => "ACCRUE_TIME",
        AdminComment => "ADMIN_COMMENT",
        AllocNodes => "ALLOC_NODES",
        AllocSid => "ALLOC_SID",
        ArrayJobId => "ARRAY_JOB_ID",
        ArrayTaskId => "ARRAY_TASK_ID",
        AssocId => "ASSOC_ID",
        BatchFlag => "BATCH_FLAG",
        BatchHost => "EXEC_HOST",
        BoardsPerNode => "BOARDS_PER_NODE",
        BurstBuffer => "BURST_BUFFER",
        BurstBufferState => "BURST_BUFFER_STATE",
        Cluster => "CLUSTER",
        ClusterFeature => "CLUSTER_FEATURES",
        Command => "COMMAND",
        Comment => "COMMENT",
        Container => "CONTAINER",
        ContainerId => "CONTAINERID",
        Contiguous => "CONTIGUOUS",
        Cores => "CORES_PER_SOCKET",
        CoreSpec => "CORE_SPEC",
        CpusPerTask => "CPUS_PER_TASK",
        CpusPerTres => "CPUS_PER_TRES",
        Deadline => "DEADLINE",
        DelayBoot => "DELAY_BOOT",
        Dependency => "DEPENDENCY",
        DerivedEc => "DERIVED_EC",
        EligibleTime => "ELIGIBLE_TIME",
        EndTime => "END_TIME",
        ExcNodes => "EXC_NODES",
        ExitCode => "EXIT_CODE",
        Feature => "FEATURES",
        Gres => "TRES_PER_NODE",
        GroupId => "GROUP",
        GroupName => "GROUP",
        HetJobId => "HET_JOB_ID",
        HetJobIdSet => "HET_JOB_ID_SET",
        HetJobOffset => "HET_JOB_OFFSET",
        JobArrayId => "JOBID",
        JobId => "JOBID",
        LastSchedEval => "LAST_SCHED_EVAL",
        Licenses => "LICENSES",
        MaxCpus => "MAX_CPUS",
        MaxNodes => "MAX_NODES",
        MemPerTres => "MEM_PER_TRES",
        McsLabel => "MCSLABEL",
        MinCpus => "MIN_CPUS",
        MinMemory => "MIN_MEMORY",
        MinTime => "TIME_MIN",
        MinTmpDisk => "MIN_TMP_DISK",
        Name => "NAME",
        Network => "NETWORK",
        Nice => "NICE",
        NodeList => "NODELIST",
        NtPerCore => "NTASKS_PER_CORE",
        NtPerNode => "NTASKS_PER_NODE",
        NtPerSocket => "NTASKS_PER_SOCKET",
        NtPerBoard => "NTASKS_PER_BOARD",
        NumCpus => "CPUS",
        NumNodes => "NODES",
        NumTasks => "TASKS",
        Origin => "ORIGIN",
        OriginRaw => "ORIGIN_RAW",
        OverSubscribe => "OVER_SUBSCRIBE",
        Partition => "PARTITION",
        PendingTime => "PENDING_TIME",
        PreemptTime => "PREEMPT_TIME",
        Prefer => "PREFER",
        Priority => "PRIORITY",
        PriorityLong => "PRIORITY",
        Profile => "PROFILE",
        Qos => "QOS",
        Reason => "REASON",
        ReasonList => "NODELIST(REASON)",
        Reboot => "REBOOT",
        ReqNodes => "REQ_NODES",
        ReqSwitch => "REQ_SWITCH",
        Requeue => "REQUEUE",
        Reservation => "RESERVATION",
        ResizeTime => "RESIZE_TIME",
        RestartCnt => "RESTART_COUNT",
        SchedNodes => "SCHEDNODES",
        Sct => "S:C:T",
        SiblingsActive => "ACTIVE_SIBLINGS",
        SiblingsActiveRaw => "ACTIVE_SIBLINGS_RAW",
        SiblingsViable => "VIABLE_SIBLINGS",
        SiblingsViableRaw => "VIALBLE_SIBLINGS_RAW",
        Sockets => "SOCKETS_PER_NODE",
        SPerBoard => "SOCKETS_PER_BOARD",
        StartTime => "START_TIME",
        State => "STATE",
        StateCompact => "ST",
        StdErr => "STDERR",
        StdIn => "STDIN",
        StdOut => "STDOUT",
        SubmitTime => "SUBMIT_TIME",
        SystemComment => "SYSTEM_COMMENT",
        Threads => "THREADS_PER_CORE",
        TimeLeft => "TIME_LEFT",
        TimeLimit => "TIME_LIMIT",
        TimeUsed => "TIME",
        TresAlloc => "TRES_ALLOC",
        TresBind => "TRES_BIND",
        TresFreq => "TRES_FREQ",
        TresPerJob => "TRES_PER_JOB",
        TresPerNode => "TRES_PER_NODE",
        TresPerSocket => "TRES_PER_SOCKET",
        TresPerTask => "TRES_PER_TASK",
        UserId => "UID",
        UserName => "USER",
        Wait4Switch => "WAIT4SWITCH",
        WcKey => "WCKEY",
        WorkDir => "WORK_DIR",
    };
    match f {
        NodeList | SchedNodes | ReasonList => Cell::uncut(h),
        _ => Cell::s(h),
    }
}

// ---------------------------------------------------------------- job data

/// One row to print: a job record plus squeue's per-row adjustments.
#[derive(Clone)]
struct Rec<'a> {
    job: &'a Job,
    /// `array_task_str` of a pending meta-record (after combining).
    task_str: Option<String>,
    /// Task id of this row (set for split tasks and for `-r` expansion).
    task_id: Option<u32>,
    /// Combined reason text (`state_desc`).
    reason: Option<String>,
    /// Pending task set (meta-records), for `-r` and partial `-j`.
    tasks: Vec<u32>,
}

fn is_meta(j: &Job) -> bool {
    j.array.as_ref().map(|a| a.task_id.is_none()).unwrap_or(false)
}

/// The job's minimum memory as `%m` shows it (per CPU or per node).
pub fn min_memory_mb(j: &Job) -> u64 {
    if j.mem_per_cpu > 0 {
        j.mem_per_cpu
    } else {
        j.mem_per_node
    }
}

fn opt_cell(s: &Option<String>) -> Cell {
    Cell::opt(s.as_deref())
}

fn time_cell(t: i64) -> Cell {
    if t != 0 {
        Cell::s(format::time_str(t))
    } else {
        Cell::s("N/A")
    }
}

fn value(r: &Rec, f: JF, view: &ClusterView, o: &SqueueOpts) -> Cell {
    use JF::*;
    let expand = o.expand_patterns;
    // --noconvert: megabytes as they are (`1024M`), never scaled
    let mem =
        |mb: u64| if o.noconvert && mb != 0 { format!("{}M", mb) } else { format::convert_num_unit(mb as f64, 2) };
    let j = r.job;
    let now = view.now;
    match f {
        Account => opt_cell(&j.desc.account),
        Reservation => opt_cell(&j.desc.reservation_name().map(String::from)),
        AccrueTime => time_cell(j.eligible_time),
        AdminComment | BurstBuffer | BurstBufferState | ClusterFeature | Container | ContainerId | Network | Prefer
        | Licenses | WcKey | SystemComment | McsLabel => Cell::null(),
        // the nodes the backfill scheduler plans for a pending job
        SchedNodes => match view.plans.get(&j.job_id).and_then(|p| p.sched_nodes.clone()) {
            Some(n) if j.state == JobState::Pending => Cell::uncut(n),
            _ => Cell::null(),
        },
        // the job record carries the controller's ClusterName
        Cluster => Cell::s(view.cluster_name.clone()),
        // no heterogeneous jobs: het_job_id is 0
        HetJobIdSet => Cell::s("N/A"),
        AllocNodes => Cell::s(j.desc.alloc_node.clone()),
        AllocSid => Cell::s(j.desc.alloc_sid.to_string()),
        ArrayJobId => Cell::s(if j.array.is_some() { array_job_id(j) } else { j.job_id }.to_string()),
        ArrayTaskId => match (&r.task_str, r.task_id) {
            (Some(s), _) => Cell::s(s.clone()),
            (None, Some(t)) => Cell::s(t.to_string()),
            _ => Cell::s("N/A"),
        },
        AssocId => Cell::s("0"),
        BatchFlag => Cell::s(j.batch_flag.min(1).to_string()),
        BatchHost => {
            if j.batch_flag > 0 {
                Cell::s(j.allocs.first().map(|a| a.node.clone()).unwrap_or_else(|| "n/a".into()))
            } else {
                Cell::s(j.desc.alloc_node.clone())
            }
        }
        // slurmctld packs 0, not NO_VAL16, when the job asked for nothing
        BoardsPerNode => Cell::s("0"),
        Command => {
            if j.desc.wrapped {
                Cell::null()
            } else {
                opt_cell(&j.desc.command)
            }
        }
        Comment => opt_cell(&j.desc.comment),
        Contiguous => Cell::s(if j.desc.contiguous() { "1" } else { "0" }),
        Cores | Sockets | Threads => Cell::s("*"),
        CoreSpec => Cell::s("N/A"),
        CpusPerTask => Cell::s(j.desc.cpus_per_task.unwrap_or(1).to_string()),
        CpusPerTres | MemPerTres | TresBind | TresFreq | TresPerJob | TresPerSocket => Cell::s("N/A"),
        // sbatch turns an explicit -c N into tres_per_task "cpu=N"
        // (22.05's sbatch does not turn -c into a TRES per task)
        TresPerTask if !spur_core::compat::profile().cpus_per_task_as_tres => Cell::s("N/A"),
        TresPerTask => match j.submitted_cpus_per_task() {
            Some(n) => Cell::s(format!("cpu={}", n)),
            None => Cell::s("N/A"),
        },
        Deadline => time_cell(j.desc.deadline),
        DelayBoot => Cell::s(format::secs_squeue(0)),
        Dependency => Cell::opt(dependency_text(j).as_deref()),
        // 22.05 prints the raw wait status
        DerivedEc if spur_core::compat::profile().exit_codes_raw => Cell::s(j.derived_exit_code.to_string()),
        DerivedEc => Cell::s(exit_pair(j.derived_exit_code)),
        EligibleTime => time_cell(j.eligible_time),
        EndTime => {
            // a started job without a limit ends "in a year" on Slurm (end_time > now)
            let endless = j.end_time > now
                || (j.end_time == 0 && j.start_time != 0 && (j.state.is_active() || j.state == JobState::Suspended));
            if j.time_limit.is_none() && endless {
                Cell::s("NONE")
            } else {
                time_cell(j.end_time)
            }
        }
        ExcNodes => Cell::uncut(j.desc.exc_nodes.as_deref().map(sorted_hosts).unwrap_or_default()),
        ExitCode if spur_core::compat::profile().exit_codes_raw => Cell::s(j.exit_status.to_string()),
        ExitCode => Cell::s(exit_pair(j.exit_status)),
        Feature => opt_cell(&j.desc.constraint),
        Gres | TresPerNode => match &j.desc.gres {
            Some(g) => Cell::s(if g.starts_with("gres/") { g.clone() } else { format!("gres/{}", g) }),
            None => Cell::s("N/A"),
        },
        GroupId => Cell::s(j.group_id.to_string()),
        GroupName => Cell::s(j.group_name.clone()),
        HetJobId | HetJobOffset => Cell::s("N/A"),
        JobArrayId => Cell::s(match (&j.array, &r.task_str, r.task_id) {
            (Some(a), Some(s), _) => format!("{}_[{}]", a.array_job_id, s),
            (Some(a), None, Some(t)) => format!("{}_{}", a.array_job_id, t),
            _ => j.job_id.to_string(),
        }),
        JobId => Cell::s(j.job_id.to_string()),
        LastSchedEval => time_cell(if j.start_time != 0 { j.start_time } else { j.submit_time }),
        MaxCpus => Cell::s(j.num_cpus.to_string()),
        MaxNodes => Cell::s(j.desc.max_nodes.filter(|m| *m > 0).unwrap_or(j.num_nodes).to_string()),
        MinCpus => Cell::s(format::convert_num_unit(j.min_cpus_node() as f64, 0)),
        MinMemory => Cell::s(mem(min_memory_mb(j))),
        MinTime => Cell::s(format::secs_squeue(j.desc.time_min.unwrap_or(0) as i64 * 60)),
        MinTmpDisk => Cell::s(mem(j.desc.tmp_disk_mb())),
        Name => Cell::s(j.desc.name.clone()),
        Nice => Cell::s(j.desc.nice.unwrap_or(0).to_string()),
        NodeList => Cell::uncut(job_nodes(j)),
        NtPerCore | NtPerSocket => Cell::s("N/A"),
        NtPerBoard => Cell::s("0"),
        NtPerNode => Cell::s(j.desc.ntasks_per_node.unwrap_or(0).to_string()),
        NumCpus => Cell::s(j.num_cpus.to_string()),
        NumNodes => Cell::s(j.num_nodes.to_string()),
        NumTasks => Cell::s(num_tasks_packed(j).to_string()),
        Origin | SiblingsActive | SiblingsActiveRaw | SiblingsViable | SiblingsViableRaw | OriginRaw => Cell::s("NA"),
        OverSubscribe => Cell::s(j.desc.oversubscribe_in(
            view.partitions.iter().find(|p| p.name == j.partition).map(|p| p.oversubscribe.as_str()),
        )),
        Partition => Cell::s(j.partition.clone()),
        PendingTime => {
            let v = if j.start_time != 0 && j.start_time < now {
                j.start_time - j.submit_time
            } else {
                now - j.submit_time
            };
            Cell::s((v as i32).to_string())
        }
        PreemptTime => Cell::s("N/A"),
        Priority => Cell::s(format!("{:16.14}", j.priority as f64 / 4294967295.0)),
        PriorityLong => Cell::s(j.priority.to_string()),
        Profile => Cell::s("NotSet"),
        Qos => Cell::opt(j.desc.qos_shown(!view.qos.is_empty())),
        Reason => Cell::s(r.reason.clone().unwrap_or_else(|| reason_text(j))),
        ReasonList => {
            let st = j.state;
            if st == JobState::Pending
                || matches!(st, JobState::Timeout | JobState::OutOfMemory | JobState::Deadline | JobState::Failed)
            {
                Cell::s(format!("({})", r.reason.clone().unwrap_or_else(|| reason_text(j))))
            } else {
                Cell::uncut(job_nodes(j))
            }
        }
        Reboot | ReqSwitch => Cell::s("0"),
        ReqNodes => Cell::uncut(j.desc.req_nodes.as_deref().map(sorted_hosts).unwrap_or_default()),
        Requeue => Cell::s(if j.desc.requeue.unwrap_or(true) { "1" } else { "0" }),
        ResizeTime => Cell { text: Some("N/A".into()), cut: false },
        RestartCnt => Cell::s(j.restart_count.to_string()),
        Sct => Cell::s("*:*:*"),
        SPerBoard => Cell::s("0"),
        StartTime => time_cell(j.start_time),
        State => Cell::s(j.state.name()),
        StateCompact => Cell::s(j.state.short()),
        StdErr | StdIn | StdOut => {
            let p = match f {
                // squeue shows only an explicit -e (scontrol fills in StdOut)
                // 22.05: else the output file, else slurm-<id>.out
                StdErr if spur_core::compat::profile().squeue_stderr_falls_back_to_output && j.batch_flag > 0 => Some(
                    j.desc
                        .std_err
                        .clone()
                        .or_else(|| j.desc.std_out.clone())
                        .unwrap_or_else(|| format!("{}/slurm-{}.out", j.desc.work_dir, j.job_id)),
                ),
                StdErr => j.desc.std_err.clone(),
                StdIn => j.desc.std_in.clone(),
                _ => j.desc.std_out.clone(),
            };
            let p = match (f, p) {
                (_, Some(p)) => Some(p),
                (StdIn, None) => None,
                (StdOut, None) if j.batch_flag > 0 => Some(if j.array.is_some() {
                    format!("{}/slurm-%A_%a.out", j.desc.work_dir)
                } else {
                    format!("{}/slurm-%j.out", j.desc.work_dir)
                }),
                _ => None,
            };
            match p {
                Some(p) if expand => Cell::s(fname_format(&p, j, r.task_id)),
                other => Cell::opt(other.as_deref()),
            }
        }
        SubmitTime => time_cell(j.submit_time),
        TimeLeft => match j.time_limit {
            None => Cell::s("UNLIMITED"),
            Some(m) => Cell { text: Some(format::secs_squeue(m as i64 * 60 - time_used(j, now))), cut: false },
        },
        TimeLimit => match j.time_limit {
            None => Cell::s("UNLIMITED"),
            Some(m) => Cell { text: Some(format::secs_squeue(m as i64 * 60)), cut: false },
        },
        TimeUsed => Cell { text: Some(format::secs_squeue(time_used(j, now))), cut: false },
        TresAlloc => Cell::s(tres_str(j, &view.partitions)),
        UserId => Cell::s(j.user_id.to_string()),
        UserName => Cell::s(j.user_name.clone()),
        Wait4Switch => Cell::s(format::secs_squeue(0)),
        WorkDir => Cell::s(j.desc.work_dir.clone()),
    }
}

/// The task count slurmctld packs: the requested count, else the node count
/// (requested while pending, allocated after), else NO_VAL for a job that
/// ended without ever getting nodes.
fn num_tasks_packed(j: &Job) -> u32 {
    if let Some(n) = j.desc.num_tasks.filter(|n| *n > 0) {
        return n;
    }
    if j.state == JobState::Pending {
        return j.desc.min_nodes.unwrap_or(j.num_nodes).max(1);
    }
    if !j.allocs.is_empty() {
        return j.allocs.len() as u32;
    }
    0xfffffffe
}

fn sorted_hosts(expr: &str) -> String {
    match spur_grammar::hostlist::expand(expr) {
        Ok(h) => spur_grammar::hostlist::compress_unique(&h),
        Err(_) => expr.to_string(),
    }
}

// ---------------------------------------------------------------- sorting

/// glibc's `msort` (merge sort, left element first on ties), reproduced so
/// that Slurm's comparators, some of them inconsistent, give the same order.
pub fn glibc_msort<T>(v: &mut Vec<T>, cmp: &dyn Fn(&T, &T) -> i32) {
    // The merges move indices through one scratch buffer; the elements move
    // once, at the end.
    fn rec<T>(b: &mut [usize], tmp: &mut [usize], v: &[T], cmp: &dyn Fn(&T, &T) -> i32) {
        let n = b.len();
        if n <= 1 {
            return;
        }
        let n1 = n / 2;
        rec(&mut b[..n1], tmp, v, cmp);
        rec(&mut b[n1..], tmp, v, cmp);
        let (mut i, mut k, mut o) = (0, n1, 0);
        while i < n1 && k < n {
            if cmp(&v[b[i]], &v[b[k]]) <= 0 {
                tmp[o] = b[i];
                i += 1;
            } else {
                tmp[o] = b[k];
                k += 1;
            }
            o += 1;
        }
        let rest = if i < n1 { &b[i..n1] } else { &b[k..n] };
        let len = rest.len();
        tmp[o..o + len].copy_from_slice(rest);
        b.copy_from_slice(&tmp[..n]);
    }
    let n = v.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut tmp = vec![0usize; n];
    rec(&mut order, &mut tmp, v, cmp);
    let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

fn cmp_num<T: PartialOrd>(a: T, b: T) -> i32 {
    if a > b {
        1
    } else if a < b {
        -1
    } else {
        0
    }
}

fn cmp_str(a: &str, b: &str) -> i32 {
    match a.cmp(b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}

fn first_host(nodes: &str) -> String {
    spur_grammar::hostlist::expand(nodes)
        .ok()
        .and_then(|mut h| {
            h.sort_by(|a, b| spur_grammar::hostlist::strnatcmp(a, b));
            h.into_iter().next()
        })
        .unwrap_or_default()
}

/// Start times as squeue compares them (`_get_start_time`: a pending job's
/// past start counts as now). Equal seconds are told apart by the scheduling
/// pass that started each job: Slurm never starts jobs in two passes within
/// one second (`batch_sched_delay`), Spur can.
fn cmp_start(a: &Job, b: &Job, now: i64) -> i32 {
    let key = |j: &Job| -> (i64, i64) {
        if j.state == JobState::Pending && j.start_time < now {
            (now, 0)
        } else {
            (j.start_time, j.start_pass_ms)
        }
    };
    let (ka, kb) = (key(a), key(b));
    if ka.0 != kb.0 {
        cmp_num(ka.0, kb.0)
    } else {
        cmp_num(ka.1, kb.1)
    }
}

fn sort_recs(recs: &mut Vec<Rec>, sort: &str, now: i64) -> Result<(), Output> {
    // sort_jobs_by_start_time (reverse), then each key from last to first.
    glibc_msort(recs, &|a: &Rec, b: &Rec| {
        if a.job.start_time == 0 {
            return 1;
        }
        if b.job.start_time == 0 {
            return -1;
        }
        -cmp_start(a.job, b.job, now)
    });
    let s: Vec<char> = sort.chars().collect();
    let mut i = s.len() as isize - 1;
    while i >= 0 {
        let c = s[i as usize];
        if c == ',' || c == '+' || c == '-' {
            i -= 1;
            continue;
        }
        let mut rev = i > 0 && s[(i - 1) as usize] == '-';
        let start = (i + 1 - 7).max(0) as usize;
        let is_cluster =
            i + 1 >= 7 && s[start..=(i as usize)].iter().collect::<String>().eq_ignore_ascii_case("cluster");
        type Cmp<'x> = Box<dyn Fn(&Rec, &Rec) -> i32 + 'x>;
        let cmp: Option<Cmp> = if is_cluster {
            if i >= 7 && s[(i - 7) as usize] == '-' {
                rev = true;
            }
            i -= 6;
            None
        } else {
            match c {
                'B' => Some(Box::new(|a: &Rec, b: &Rec| {
                    let ha = a.job.allocs.first().map(|x| x.node.as_str()).unwrap_or("");
                    let hb = b.job.allocs.first().map(|x| x.node.as_str()).unwrap_or("");
                    cmp_str(ha, hb)
                })),
                'b' | 'c' | 'f' | 'h' | 'n' | 'O' => None,
                'C' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.num_cpus, b.job.num_cpus))),
                'd' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.desc.tmp_disk_mb(), b.job.desc.tmp_disk_mb()))),
                'H' | 'I' | 'J' | 'z' | 'v' => Some(Box::new(|_: &Rec, _: &Rec| 0)),
                'D' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.num_nodes, b.job.num_nodes))),
                'e' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.end_time, b.job.end_time))),
                'g' => Some(Box::new(|a: &Rec, b: &Rec| cmp_str(&a.job.group_name, &b.job.group_name))),
                'G' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.group_id, b.job.group_id))),
                'i' => Some(Box::new(|a: &Rec, b: &Rec| {
                    let key = |r: &Rec| -> (u32, u32) {
                        let j = r.job;
                        match (&j.array, r.task_id) {
                            (Some(x), Some(t)) => (x.array_job_id, t),
                            (Some(_), None) if is_meta(j) => (j.job_id, u32::MAX - 1),
                            _ => (j.job_id, u32::MAX - 1),
                        }
                    };
                    let (a1, a2) = key(a);
                    let (b1, b2) = key(b);
                    if a1 == b1 {
                        cmp_num(a2, b2)
                    } else {
                        cmp_num(a1, b1)
                    }
                })),
                'j' => Some(Box::new(|a: &Rec, b: &Rec| cmp_str(&a.job.desc.name, &b.job.desc.name))),
                'l' => Some(Box::new(|a: &Rec, b: &Rec| {
                    let l = |j: &Job| j.time_limit.unwrap_or(u32::MAX);
                    cmp_num(l(a.job), l(b.job))
                })),
                'L' => Some(Box::new(move |a: &Rec, b: &Rec| {
                    let l = |j: &Job| match j.time_limit {
                        None => u32::MAX as i64,
                        Some(m) => m as i64 * 60 - time_used(j, now),
                    };
                    cmp_num(l(a.job), l(b.job))
                })),
                'm' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(min_memory_mb(a.job), min_memory_mb(b.job)))),
                'M' => Some(Box::new(move |a: &Rec, b: &Rec| cmp_num(time_used(a.job, now), time_used(b.job, now)))),
                'N' => Some(Box::new(|a: &Rec, b: &Rec| {
                    // Slurm compares the first host ranges; a job without
                    // nodes has none and counts as greater than anything,
                    // itself included (so two such jobs swap).
                    let (ha, hb) = (first_host(&job_nodes(a.job)), first_host(&job_nodes(b.job)));
                    if ha.is_empty() {
                        return 1;
                    }
                    if hb.is_empty() {
                        return -1;
                    }
                    spur_grammar::hostlist::strnatcmp(&ha, &hb) as i32
                })),
                'p' | 'Q' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.priority, b.job.priority))),
                'P' => Some(Box::new(|a: &Rec, b: &Rec| cmp_str(&a.job.partition, &b.job.partition))),
                'S' => Some(Box::new(move |a: &Rec, b: &Rec| {
                    if a.job.start_time == 0 {
                        return 1;
                    }
                    if b.job.start_time == 0 {
                        return -1;
                    }
                    cmp_start(a.job, b.job, now)
                })),
                't' => Some(Box::new(|a: &Rec, b: &Rec| cmp_str(a.job.state.short(), b.job.state.short()))),
                'T' => Some(Box::new(|a: &Rec, b: &Rec| cmp_str(a.job.state.name(), b.job.state.name()))),
                'u' => Some(Box::new(|a: &Rec, b: &Rec| cmp_str(&a.job.user_name, &b.job.user_name))),
                'U' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.user_id, b.job.user_id))),
                'V' => Some(Box::new(|a: &Rec, b: &Rec| cmp_num(a.job.submit_time, b.job.submit_time))),
                other => {
                    return Err(Output::err(format!("squeue: error: Invalid sort specification: {}\n", other), 1));
                }
            }
        };
        if is_cluster {
            // every job is on the local cluster: sorting changes nothing
        } else if let Some(cmp) = cmp {
            // The start-time comparators return before reversing for 0.
            let start_special = c == 'S';
            glibc_msort(recs, &|a: &Rec, b: &Rec| {
                let d = cmp(a, b);
                if start_special && (a.job.start_time == 0 || b.job.start_time == 0) {
                    return d;
                }
                if rev {
                    -d
                } else {
                    d
                }
            });
        }
        i -= 1;
    }
    Ok(())
}

// ---------------------------------------------------------------- render

fn job_state_matches(list: &[JobState], st: JobState) -> bool {
    list.contains(&st)
}

/// (`accounting`: the cluster keeps QOS records, and a job that named no
/// QOS is in `normal` for `-q`.)
fn filter_job(
    o: &SqueueOpts,
    users: &Option<Vec<u32>>,
    j: &Job,
    caller_uid: u32,
    accounting: bool,
) -> Option<Option<Vec<u32>>> {
    // returns None = filtered out; Some(partial task set) = keep
    let mut partial: Option<Vec<u32>> = None;
    if !o.job_list.is_empty() {
        let ajid = array_job_id(j);
        let tid = array_task_id(j);
        let mut keep = false;
        for (id, task) in &o.job_list {
            if (task.is_none() && (*id == ajid || *id == j.job_id))
                || (task.is_some() && *task == tid && *id == ajid && tid.is_some())
            {
                keep = true;
                break;
            }
            if let (Some(t), true) = (task, *id == ajid) {
                if is_meta(j) && j.array.as_ref().map(|a| a.pending_tasks.contains(t)).unwrap_or(false) {
                    keep = true;
                    let mut set: Vec<u32> = o
                        .job_list
                        .iter()
                        .filter(|(i2, t2)| *i2 == ajid && t2.is_some())
                        .filter_map(|(_, t2)| *t2)
                        .filter(|t2| j.array.as_ref().map(|a| a.pending_tasks.contains(t2)).unwrap_or(false))
                        .collect();
                    set.sort_unstable();
                    set.dedup();
                    partial = Some(set);
                    break;
                }
            }
        }
        if !keep {
            return None;
        }
    }
    if let Some(acc) = &o.accounts {
        let a = j.desc.account.as_deref();
        if !acc.iter().any(|x| a.map(|a| a.eq_ignore_ascii_case(x)).unwrap_or(false)) {
            return None;
        }
    }
    if let Some(q) = &o.qos {
        let a = j.desc.qos_shown(accounting);
        if !q.iter().any(|x| a.map(|a| a.eq_ignore_ascii_case(x)).unwrap_or(false)) {
            return None;
        }
    }
    if o.licenses.is_some() {
        return None; // Spur jobs hold no licenses
    }
    if o.all_states {
    } else if let Some(list) = &o.states {
        if !job_state_matches(list, j.state) {
            return None;
        }
    } else if !matches!(j.state, JobState::Pending | JobState::Running | JobState::Suspended | JobState::Completing) {
        return None;
    }
    if let Some(nodes) = &o.nodes {
        let names = j.node_names();
        if names.is_empty() || !names.iter().any(|n| nodes.contains(n)) {
            return None;
        }
    }
    if o.notme && j.user_id == caller_uid {
        return None;
    }
    if let Some(u) = users {
        if !u.contains(&j.user_id) {
            return None;
        }
    }
    if let Some(r) = &o.reservation {
        if j.desc.reservation.as_ref() != Some(r) {
            return None;
        }
    }
    if let Some(names) = &o.names {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&j.desc.name)) {
            return None;
        }
    }
    Some(partial)
}

/// squeue's `params` for `-v`, from the parsed options in their order, the
/// operand and the `SQUEUE_*` variables, in opts.c's order.
fn settings(p: &opts::Parsed, env: &HashMap<String, String>) -> Settings {
    let mut s = Settings {
        all: env.contains_key("SQUEUE_ALL"),
        sort: env.get("SQUEUE_SORT").cloned(),
        federation: env.contains_key("SQUEUE_FEDERATION"),
        local: env.contains_key("SQUEUE_LOCAL"),
        sibling: env.contains_key("SQUEUE_SIB") || env.contains_key("SQUEUE_SIBLING"),
        ..Settings::default()
    };
    let mut format_long = false;
    for (id, val) in &p.opts {
        let v = val.clone();
        match *id {
            "a" => s.all = true,
            "j" => {
                if v.is_some() {
                    s.jobs = v;
                }
                s.job_flag = true;
            }
            "L" => s.licenses = v,
            "local" => s.local = true,
            "n" => s.names = v,
            "O" if s.format.is_none() => format_long = true,
            "o" => {
                s.format = None;
                if !format_long {
                    s.format = v;
                }
            }
            "p" => {
                s.partitions = v;
                s.all = true;
            }
            "R" => s.reservation = v,
            "s" => {
                if v.is_some() {
                    s.steps = v;
                }
                s.step_flag = true;
            }
            "S" => s.sort = v,
            "t" => s.states = v,
            "u" => s.users = v,
            "federation" => s.federation = true,
            "hide" => s.all = false,
            "me" => s.users = Some(nix::unistd::geteuid().to_string()),
            "sibling" => s.sibling = true,
            "start" => s.start_flag = true,
            _ => {}
        }
    }
    // SQUEUE_FORMAT, unless -o, -O, -l, -s or --start was given
    if !p.opts.iter().any(|(id, _)| matches!(*id, "l" | "O" | "o" | "s" | "start")) {
        if let Some(v) = env.get("SQUEUE_FORMAT") {
            s.format = Some(v.clone());
        }
    }
    if let Some(first) = p.operands.first() {
        if s.job_flag {
            s.jobs = Some(first.clone());
        } else if s.step_flag {
            s.steps = Some(first.clone());
        }
    }
    if s.names.is_none() {
        s.names = env.get("SQUEUE_NAMES").cloned();
    }
    if s.partitions.is_none() {
        if let Some(v) = env.get("SQUEUE_LICENSES") {
            s.licenses = Some(v.clone());
        }
        if let Some(v) = env.get("SQUEUE_PARTITION") {
            s.partitions = Some(v.clone());
            s.all = true;
        }
    }
    if s.states.is_none() {
        s.states = env.get("SQUEUE_STATES").cloned();
    }
    if s.users.is_none() {
        s.users = env.get("SQUEUE_USERS").cloned();
    }
    if s.start_flag && !s.step_flag {
        s.format.get_or_insert_with(|| "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R".into());
        s.sort.get_or_insert_with(|| "S".into());
        s.states.get_or_insert_with(|| "PD".into());
    }
    s
}

/// What `squeue -v` prints before its report (opts.c `_print_options`, the
/// first level; recorded/24.11/query_surface/040). `only_job_state` is a
/// line of 24.11's only.
pub fn settings_text(o: &SqueueOpts) -> String {
    let s = &o.settings;
    let b = |x: bool| if x { "true" } else { "false" };
    let n = |x: &Option<String>| x.clone().unwrap_or_else(|| "(null)".into());
    let mut t = String::from("-----------------------------\n");
    t.push_str(&format!("all         = {}\n", b(s.all)));
    t.push_str(&format!("array       = {}\n", b(o.array)));
    t.push_str(&format!("federation  = {}\n", b(s.federation)));
    t.push_str(&format!("format      = {}\n", n(&s.format)));
    t.push_str(&format!("iterate     = {}\n", o.iterate));
    t.push_str(&format!("job_flag    = {}\n", s.job_flag as u8));
    t.push_str(&format!("jobs        = {}\n", n(&s.jobs)));
    t.push_str(&format!("licenses    = {}\n", n(&s.licenses)));
    t.push_str(&format!("local       = {}\n", b(s.local)));
    t.push_str(&format!("names       = {}\n", n(&s.names)));
    let nodes = o.nodes.as_ref().map(|h| spur_grammar::hostlist::compress_sorted(h)).unwrap_or_default();
    t.push_str(&format!("nodes       = {}\n", nodes));
    if spur_core::compat::profile().query_options_after_22_05 {
        t.push_str(&format!("only_job_state = {}\n", b(o.only_job_state)));
    }
    t.push_str(&format!("partitions  = {}\n", n(&s.partitions)));
    t.push_str(&format!("priority    = {}\n", b(o.priority)));
    t.push_str(&format!("reservation = {}\n", n(&s.reservation)));
    t.push_str(&format!("sibling      = {}\n", b(s.sibling)));
    t.push_str(&format!("sort        = {}\n", n(&s.sort)));
    t.push_str(&format!("start_flag  = {}\n", s.start_flag as u8));
    t.push_str(&format!("states      = {}\n", n(&s.states)));
    t.push_str(&format!("step_flag   = {}\n", s.step_flag as u8));
    t.push_str(&format!("steps       = {}\n", n(&s.steps)));
    t.push_str(&format!("users       = {}\n", n(&s.users)));
    t.push_str(&format!("verbose     = {}\n", o.verbose));
    t.push_str("-----------------------------\n\n\n");
    t
}

/// The fields of `squeue -s` (squeue's `fmt_data_step`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SF {
    StepId,
    Name,
    Partition,
    UserName,
    UserId,
    Nodes,
    NumTasks,
    NumCpus,
    TimeLimit,
    TimeUsed,
    StartTime,
    JobId,
    ArrayJobId,
    ArrayTaskId,
    State,
    Network,
    ResvPorts,
    Cluster,
    TresPerNode,
    Null,
}

macro_rules! sf {
    ($name:expr, $letter:expr, $key:ident) => {
        FieldDef { name: $name, letter: $letter, key: SF::$key }
    };
}

pub const STEP_FIELDS: &[FieldDef<SF>] = &[
    sf!(Some("ArrayJobId"), None, ArrayJobId),
    sf!(Some("ArrayTaskId"), None, ArrayTaskId),
    sf!(Some("Cluster"), None, Cluster),
    sf!(Some("Container"), None, Null),
    sf!(Some("ContainerId"), None, Null),
    sf!(Some("CPUFreq"), None, Null),
    sf!(Some("cpus-per-tres"), None, Null),
    sf!(Some("JobId"), None, JobId),
    sf!(Some("mem-per-tres"), None, Null),
    sf!(Some("Network"), None, Network),
    sf!(Some("Nodes"), Some('N'), Nodes),
    sf!(Some("NumCPUs"), None, NumCpus),
    sf!(Some("NumTasks"), Some('A'), NumTasks),
    sf!(Some("Partition"), Some('P'), Partition),
    sf!(Some("ResvPorts"), None, ResvPorts),
    sf!(Some("StartTime"), Some('S'), StartTime),
    sf!(Some("StepId"), Some('i'), StepId),
    sf!(Some("StepName"), Some('j'), Name),
    sf!(Some("StepState"), None, State),
    sf!(Some("TimeLimit"), Some('l'), TimeLimit),
    sf!(Some("TimeUsed"), Some('M'), TimeUsed),
    sf!(Some("tres-bind"), None, Null),
    sf!(Some("tres-freq"), None, Null),
    sf!(Some("tres-per-job"), Some('b'), TresPerNode),
    sf!(Some("tres-per-socket"), None, Null),
    sf!(Some("tres-per-step"), None, Null),
    sf!(Some("tres-per-task"), None, Null),
    sf!(Some("UserId"), Some('U'), UserId),
    sf!(Some("UserName"), Some('u'), UserName),
];

fn step_header(f: SF) -> &'static str {
    match f {
        SF::StepId => "STEPID",
        SF::Name => "NAME",
        SF::Partition => "PARTITION",
        SF::UserName => "USER",
        SF::UserId => "UID",
        SF::Nodes => "NODELIST",
        SF::NumTasks => "TASKS",
        SF::NumCpus => "CPUS",
        SF::TimeLimit => "TIME_LIMIT",
        SF::TimeUsed => "TIME",
        SF::StartTime => "START_TIME",
        SF::JobId => "JOBID",
        SF::ArrayJobId => "ARRAY_JOB_ID",
        SF::ArrayTaskId => "ARRAY_TASK_ID",
        SF::State => "STATE",
        SF::Network => "NETWORK",
        SF::ResvPorts => "RESV_PORTS",
        SF::Cluster => "CLUSTER",
        SF::TresPerNode => "TRES_PER_JOB",
        SF::Null => "",
    }
}

/// `squeue -s` rows: each running job's steps, its srun steps in number
/// order and then its batch step (`1.batch`, named `batch`, on the batch
/// host, as old as the job: recorded/24.11/query_surface/051), by partition
/// and job id, for the jobs `-j`, `-u` and `-p` select, or the steps a
/// `-s J.S` list names.
fn step_rows(o: &SqueueOpts, view: &ClusterView, items: &[Item<SF>]) -> String {
    let wanted: Option<Vec<String>> =
        o.step_list.as_ref().map(|l| l.split(',').filter(|x| !x.is_empty()).map(String::from).collect());
    let mut jobs: Vec<&Job> = view
        .jobs
        .iter()
        .filter(|j| matches!(j.state, JobState::Running | JobState::Suspended))
        .filter(|j| j.batch_flag > 0 || !j.steps.is_empty())
        .filter(|j| !j.allocs.is_empty())
        .filter(|j| o.job_list.is_empty() || o.job_list.iter().any(|(id, _)| *id == j.job_id || array_job_id(j) == *id))
        .filter(|j| o.users.as_ref().is_none_or(|u| u.contains(&j.user_id)))
        .filter(|j| o.partitions.as_ref().is_none_or(|p| p.contains(&j.partition)))
        .collect();
    jobs.sort_by(|a, b| (&a.partition, a.job_id).cmp(&(&b.partition, b.job_id)));
    let mut out = String::new();
    for j in jobs {
        // in step id order: numbered, interactive, batch, extern
        let mut steps: Vec<spur_core::model::Step> = j.steps_shown();
        steps.sort_by_key(|s| s.step_id);
        for st in steps {
            let label = spur_core::model::step_label(&j.display_id(), st.step_id);
            if let Some(w) = &wanted {
                // squeue reads the step part as strtol does: `J.extern` is step 0
                let named = |x: &String| {
                    let (job, step) = x.split_once('.').unwrap_or((x.as_str(), ""));
                    let digits: String = step.chars().take_while(|c| c.is_ascii_digit()).collect();
                    (job == j.display_id() || job == j.job_id.to_string())
                        && digits.parse::<u32>().unwrap_or(0) == st.step_id
                };
                if !w.iter().any(named) {
                    continue;
                }
            }
            let batch = st.step_id == spur_core::model::BATCH_STEP;
            out.push_str(&format::render_line(items, |k| match *k {
                SF::StepId => Cell::s(label.clone()),
                SF::Name => Cell::s(st.name.clone()),
                SF::Partition => Cell::s(j.partition.clone()),
                SF::UserName => Cell::s(j.user_name.clone()),
                SF::UserId => Cell::s(j.user_id.to_string()),
                SF::Nodes => Cell::s(spur_grammar::hostlist::compress(&st.node_names())),
                SF::NumTasks => Cell::s(st.num_tasks.to_string()),
                SF::NumCpus => Cell::s(if batch { "0".to_string() } else { st.num_cpus().to_string() }),
                SF::TimeLimit => Cell::s(spur_grammar::time::fmt_limit_squeue(st.time_limit)),
                SF::TimeUsed => Cell {
                    text: Some(format::secs_squeue(if batch {
                        time_used(j, view.now)
                    } else {
                        (view.now - st.start_time).max(0)
                    })),
                    cut: false,
                },
                SF::StartTime => Cell::s(spur_cli_base::format::time_str(st.start_time)),
                SF::JobId => Cell::s(j.job_id.to_string()),
                SF::ArrayJobId => Cell::s(array_job_id(j).to_string()),
                SF::ArrayTaskId => Cell::s(
                    j.array.as_ref().and_then(|a| a.task_id).map(|t| t.to_string()).unwrap_or_else(|| "N/A".into()),
                ),
                SF::State => Cell::s("RUNNING"),
                SF::Network | SF::ResvPorts | SF::TresPerNode => Cell::s("(null)"),
                SF::Cluster => Cell::s(view.cluster_name.clone()),
                SF::Null => Cell::s("(null)"),
            }));
        }
    }
    out
}

/// A pending array's task string as libslurm hands it over
/// (slurm_protocol_defs.c): written into a buffer of `len` bytes (bitstring.c
/// `bit_fmt`, which snprintf cuts), and when it fills the buffer's last
/// three places they become dots at `len-2`, `len-3` and `len-4` (for
/// `len` 3: `..`, recorded/24.11/query_surface/087). `len` 0: whole.
pub fn cut_bitstr(full: &str, len: usize) -> String {
    if len == 0 || full.len() + 3 <= len {
        return full.to_string();
    }
    let keep = len.saturating_sub(4).min(full.len());
    let dots = len.saturating_sub(1) - keep;
    format!("{}{}", &full[..keep], ".".repeat(dots.min(3)))
}

/// `Sun Nov 29 23:04:43 2026` (`print_date`).
pub fn ctime_line(t: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    match spur_grammar::time::localtime(t) {
        Some(tm) => {
            let y = tm.year as i64 + 1900;
            let m = tm.mon as i64 + 1;
            let d = tm.mday as i64;
            // days from civil (Howard Hinnant), 1970-01-01 was a Thursday
            let yy = if m <= 2 { y - 1 } else { y };
            let era = if yy >= 0 { yy } else { yy - 399 } / 400;
            let yoe = yy - era * 400;
            let mp = (m + 9) % 12;
            let doy = (153 * mp + 2) / 5 + d - 1;
            let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
            let days = era * 146097 + doe - 719468;
            let wd = ((days % 7 + 7 + 4) % 7) as usize;
            format!(
                "{} {} {:02} {:02}:{:02}:{:02} {}",
                DAYS[wd],
                MONS[(tm.mon.clamp(0, 11)) as usize],
                tm.mday,
                tm.hour,
                tm.min,
                tm.sec,
                y
            )
        }
        None => String::new(),
    }
}

/// Render squeue's output for the view.
/// The job records squeue selects (`-j`, `-u`, `-t`, `-p`, ... filters), in
/// list order, for `--json`/`--yaml` (crate::json).
pub fn selected_jobs<'a>(o: &SqueueOpts, view: &'a ClusterView, caller_uid: u32) -> Vec<&'a Job> {
    let users: Option<Vec<u32>> = if o.me { Some(vec![caller_uid]) } else { o.users.clone() };
    view.jobs
        .iter()
        .filter(|j| filter_job(o, &users, j, caller_uid, !view.qos.is_empty()).is_some())
        .filter(|j| match &o.partitions {
            Some(parts) => j.partition.split(',').any(|p| parts.iter().any(|x| x == p)),
            None => true,
        })
        .collect()
}

pub fn render(o: &SqueueOpts, view: &ClusterView, caller_uid: u32, caller_name: &str) -> Output {
    let _ = caller_name;
    let mut out = Output { stdout: String::new(), stderr: o.warnings.clone(), code: 0 };
    let users: Option<Vec<u32>> = if o.me { Some(vec![caller_uid]) } else { o.users.clone() };

    // -w: map names (node names or their hosts' names; localhost is this
    // host) to node names, as squeue does with the node table it loads
    let mapped_opts;
    let o = if let Some(nodes) = &o.nodes {
        let mut names = Vec::new();
        for n in nodes {
            let want =
                if n.eq_ignore_ascii_case("localhost") { spur_client::users::short_hostname() } else { n.clone() };
            match view.nodes.iter().find(|x| x.name == want || x.hostname == want) {
                Some(x) => names.push(x.name.clone()),
                None => {
                    out.stderr.push_str(&format!("squeue: error: Invalid node name {}\n", n));
                    out.code = 1;
                    return out;
                }
            }
        }
        let mut c = o.clone();
        c.nodes = Some(names);
        mapped_opts = c;
        &mapped_opts
    } else {
        o
    };

    let fmt_long;
    let (fmt, long): (&str, bool) = if let Some(f) = &o.format {
        (f.as_str(), false)
    } else if let Some(f) = &o.format_long {
        (f.as_str(), true)
    } else if o.steps {
        ("%.15i %.8j %.9P %.8u %.9M %N", false)
    } else {
        // --only-job-state: the id and the state (recorded/24.11/query_surface/055)
        fmt_long = if o.only_job_state {
            "jobarrayid:.18 ,statecompact:.2"
        } else if o.long {
            "jobarrayid:.18 ,partition:.9 ,name:.8 ,username:.8 ,state:.8 ,timeused:.10 ,timelimit:.9 ,numnodes:.6 ,reasonlist:0"
        } else {
            "jobarrayid:.18 ,partition:.9 ,name:.8 ,username:.8 ,statecompact:.2 ,timeused:.10 ,numnodes:.6 ,reasonlist:0"
        };
        (fmt_long, true)
    };
    if o.steps {
        // steps have a field table of their own (squeue's fmt_data_step)
        let parsed = if long { format::parse_long(fmt, STEP_FIELDS) } else { format::parse_short(fmt, STEP_FIELDS) };
        for bad in &parsed.invalid {
            out.stderr.push_str(&format!("squeue: error: Invalid job step format specification: {}\n", bad));
        }
        if !o.no_header && (o.long || o.iterate > 0 || o.verbose > 0) {
            out.stdout.push_str(&ctime_line(view.now));
            out.stdout.push('\n');
        }
        if !o.no_header {
            out.stdout.push_str(&format::render_line(&parsed.items, |k| Cell::s(step_header(*k))));
        }
        out.stdout.push_str(&step_rows(o, view, &parsed.items));
        return out;
    }
    let table_22_05: Vec<FieldDef<JF>>;
    let table: &[FieldDef<JF>] = if !spur_core::compat::profile().squeue_newer_fields {
        // fields 22.05's squeue does not know
        // (ExcNodes only as `%x`)
        table_22_05 = FIELDS
            .iter()
            .filter(|d| !matches!(d.key, JF::ContainerId))
            .map(|d| FieldDef {
                name: if matches!(d.key, JF::ExcNodes) { None } else { d.name },
                letter: d.letter,
                key: d.key,
            })
            .collect();
        &table_22_05
    } else {
        FIELDS
    };
    let parsed = if long { format::parse_long(fmt, table) } else { format::parse_short(fmt, table) };
    for bad in &parsed.invalid {
        out.stderr.push_str(&format!("squeue: error: Invalid job format specification: {}\n", bad));
    }
    let items: &[Item<JF>] = &parsed.items;

    // Load: a single job id (slurm_load_job) or everything.
    let single = if o.job_list.len() == 1 { Some(o.job_list[0].0) } else { None };
    let jobs: Vec<&Job> = match single {
        Some(id) => {
            let head = view.jobs.iter().find(|j| j.job_id == id);
            let mut v: Vec<&Job> = Vec::new();
            let is_array = head.map(|h| h.array.is_some()).unwrap_or(true);
            if let Some(h) = head {
                v.push(h);
            }
            if is_array {
                let mut rest: Vec<&Job> =
                    view.jobs.iter().filter(|j| j.job_id != id && array_job_id(j) == id).collect();
                rest.sort_by_key(|j| std::cmp::Reverse(j.job_id));
                v.extend(rest);
            }
            if v.is_empty() {
                out.stderr.push_str("slurm_load_jobs error: Invalid job id specified\n");
                out.code = 1;
                return out;
            }
            v
        }
        None => view.jobs.iter().collect(),
    };

    // print_date: squeue -l, -i and -v reports start with the date
    if !o.no_header && (o.long || o.iterate > 0 || o.verbose > 0) {
        out.stdout.push_str(&ctime_line(view.now));
        out.stdout.push('\n');
    }
    // -v: what was loaded (the time normalised by the recordings' rule R2)
    if o.verbose > 0 {
        out.stdout.push_str(&format!("last_update_time={} records={}\n", view.now, view.jobs.len()));
    }
    if !o.no_header {
        out.stdout.push_str(&format::render_line(items, |k| header(*k)));
    }

    let mut recs: Vec<Rec> = Vec::new();
    for j in jobs {
        let Some(partial) = filter_job(o, &users, j, caller_uid, !view.qos.is_empty()) else { continue };
        if let Some(parts) = &o.partitions {
            if !j.partition.split(',').any(|p| parts.iter().any(|x| x == p)) {
                continue;
            }
        }
        let mut rec = Rec { job: j, task_str: None, task_id: array_task_id(j), reason: None, tasks: vec![] };
        if let Some(a) = &j.array {
            if a.task_id.is_none() {
                let tasks = partial.unwrap_or_else(|| a.pending_tasks.clone());
                if tasks.len() == 1 && o.job_list.iter().any(|(i, t)| *i == a.array_job_id && t.is_some()) {
                    rec.task_id = Some(tasks[0]);
                } else if tasks.is_empty() {
                    // no task left (the whole array ended while pending):
                    // slurmctld sends no task string, squeue shows the plain id
                } else {
                    let mut s = cut_bitstr(&spur_core::model::ranges(&tasks), o.bitstr_len);
                    if a.max_running > 0 {
                        s.push_str(&format!("%{}", a.max_running));
                    }
                    rec.task_str = Some(s);
                }
                rec.tasks = tasks;
            }
        }
        recs.push(rec);
    }

    // combine pending split tasks into their meta-record
    if !o.array {
        let mut i = 0;
        while i < recs.len() {
            if recs[i].job.state == JobState::Pending && recs[i].task_str.is_some() {
                let ajid = array_job_id(recs[i].job);
                let mut k = 0;
                let mut merged = false;
                while k < recs.len() {
                    let t = &recs[k];
                    if k != i
                        && t.job.state == JobState::Pending
                        && array_job_id(t.job) == ajid
                        && t.task_id.is_some()
                        && t.job.desc.name == recs[i].job.desc.name
                        && t.job.partition == recs[i].job.partition
                    {
                        let tid = t.task_id.unwrap_or(0);
                        let tr = reason_text(t.job);
                        let head_reason = recs[i].reason.clone().unwrap_or_else(|| reason_text(recs[i].job));
                        if tr != reason_text(recs[i].job) && !head_reason.contains(&tr) {
                            recs[i].reason = Some(format!("{},{}", head_reason, tr));
                        }
                        recs[i].tasks.push(tid);
                        merged = true;
                        recs.remove(k);
                        if k < i {
                            i -= 1;
                        }
                        continue;
                    }
                    k += 1;
                }
                if merged {
                    let mut t = recs[i].tasks.clone();
                    t.sort_unstable();
                    t.dedup();
                    recs[i].tasks = t.clone();
                    let mut s = spur_core::model::ranges(&t);
                    if let Some(a) = &recs[i].job.array {
                        if a.max_running > 0 {
                            s.push_str(&format!("%{}", a.max_running));
                        }
                    }
                    recs[i].task_str = Some(s);
                }
            }
            i += 1;
        }
    }

    let sort = o.sort.clone().unwrap_or_else(|| "P,t,-p".into());
    if let Err(e) = sort_recs(&mut recs, &sort, view.now) {
        // Slurm prints the header first, then fails.
        return Output { stdout: out.stdout, stderr: format!("{}{}", out.stderr, e.stderr), code: 1 };
    }

    for r in &recs {
        if o.array && r.task_str.is_some() {
            let tasks: BTreeSet<u32> = r.tasks.iter().copied().collect();
            for t in tasks {
                let mut x = r.clone();
                x.task_str = None;
                x.task_id = Some(t);
                out.stdout.push_str(&format::render_line(items, |k| value(&x, *k, view, o)));
            }
        } else {
            out.stdout.push_str(&format::render_line(items, |k| value(r, *k, view, o)));
        }
    }
    out
}

/// squeue as a process: parse, load the jobs through spur-client, print
/// the table (or the `--json`/`--yaml` document); returns the exit status.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let opts = match parse(args, env) {
        Ok(o) => o,
        Err(o) => return emit(&o),
    };
    let c = match client("squeue") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let rt = runtime();
    let finished = opts.all_states || opts.states.as_ref().map(|v| v.iter().any(|s| s.is_finished())).unwrap_or(false);
    // -w needs the node table to map names (squeue loads it too)
    // squeue loads whole jobs (`123` for `123_7`) and picks the tasks itself
    let job_ids: Vec<String> = opts.job_list.iter().map(|(id, _)| id.to_string()).collect();
    let mime = data::mime(args);
    if let Some(m) = &mime {
        if let Err(o) = data::check_version("squeue", m) {
            return emit(&o);
        }
    }
    // 22.05 loads every job for --json/--yaml (it applies no filter)
    let dump_all = mime.is_some() && spur_core::compat::profile().json_v0_0_38;
    let job_ids = if dump_all { Vec::new() } else { job_ids };
    let finished = finished || dump_all;
    // one user (and not one job): only that user's jobs are asked for, as
    // squeue's slurm_load_job_user (root's uid 0 loads every job, as there)
    let (caller_uid, _) = caller();
    let users = if opts.me { Some(vec![caller_uid]) } else { opts.users.clone() };
    let user_id = match users.as_deref() {
        Some([u]) if *u != 0 && opts.job_list.len() != 1 && !dump_all => Some(*u),
        _ => None,
    };
    let q = QueryRequest {
        jobs: true,
        partitions: true,
        nodes: opts.nodes.is_some() || mime.is_some(),
        job_ids,
        all_finished: finished,
        user_id,
        ..Default::default()
    };
    if opts.verbose > 0 && mime.is_none() {
        let mut o = Output::ok(settings_text(&opts));
        if spur_core::compat::profile().verbose_logs_select_plugins {
            o.stderr = spur_cli_base::version::select_plugin_lines_22_05("squeue");
        }
        emit(&o);
    }
    // -i N: the report, an empty line, N seconds' sleep, until killed (an
    // error ends no iteration; the exit status is that of the last one)
    loop {
        let out = match rt.block_on(c.query(&q)) {
            Ok(view) => {
                let (uid, name) = caller();
                if let Some(m) = &mime {
                    json::squeue(&opts, m, args, &view, uid)
                } else {
                    render(&opts, &view, uid, &name)
                }
            }
            Err(e) => load_error("slurm_load_jobs error", &e),
        };
        let rc = emit(&out);
        if opts.iterate == 0 {
            return rc;
        }
        emit(&Output::ok("\n"));
        std::thread::sleep(std::time::Duration::from_secs(opts.iterate.into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_cli_base::fixtures::{base_job, basic_view, node, running, task};
    use spur_core::model::*;

    fn run(args: &[&str]) -> Output {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&args, &HashMap::new()) {
            Ok(o) => render(&o, &basic_view(), 0, "root"),
            Err(e) => e,
        }
    }

    const DEFAULT: &str = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
                 9     debug      dep     root PD       0:00      1 (Dependency)
                 3     debug     wrap     root PD       0:00      1 (JobHeldUser)
               6_1     debug     wrap     root  R       0:01      1 node2
               6_2     debug     wrap     root  R       0:01      1 node3
               6_3     debug     wrap     root  R       0:01      1 node4
                 4     debug     wrap     root  R       0:07      2 node[2-3]
                 2     debug   myname     root  R       0:10      1 node1
                 1     debug     wrap     root  R       0:13      1 node1
";

    #[test]
    fn default_layout_matches_recording() {
        let o = run(&[]);
        assert_eq!(o.stdout, DEFAULT);
        assert_eq!(o.code, 0);
    }

    #[test]
    fn sort_by_id_and_reverse() {
        let o = run(&["--sort=i"]);
        let ids: Vec<&str> = o.stdout.lines().skip(1).map(|l| l.split_whitespace().next().unwrap()).collect();
        assert_eq!(ids, ["1", "2", "3", "4", "6_1", "6_2", "6_3", "9"]);
        let o = run(&["--sort=-i"]);
        let ids: Vec<&str> = o.stdout.lines().skip(1).map(|l| l.split_whitespace().next().unwrap()).collect();
        assert_eq!(ids, ["9", "6_3", "6_2", "6_1", "4", "3", "2", "1"]);
    }

    #[test]
    fn single_job_array_order() {
        let o = run(&["-j", "6"]);
        let ids: Vec<&str> = o.stdout.lines().skip(1).map(|l| l.split_whitespace().next().unwrap()).collect();
        assert_eq!(ids, ["6_3", "6_2", "6_1"]);
    }

    #[test]
    fn long_format_and_named_fields() {
        let o = run(&["-O", "JobID,Name,State,Reason"]);
        let first = o.stdout.lines().next().unwrap();
        assert_eq!(first, "JOBID               NAME                STATE               REASON              ");
        assert!(o
            .stdout
            .contains("\n7                   wrap                RUNNING             None                \n"));
        let o = run(&["-O", "JobID:10,UserName:12,Partition,NumNodes,NumCPUs,MinMemory,TimeLimit,Command:30"]);
        assert_eq!(o.stdout.lines().nth(1).unwrap(), "9         root        debug               1                   1                   500M                UNLIMITED           (null)                        ");
    }

    #[test]
    fn short_format_letters() {
        let o = run(&["-o", "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R %C %m %l %a %g %c"]);
        assert_eq!(o.stdout.lines().next().unwrap(), "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON) CPUS MIN_MEMORY TIME_LIMIT ACCOUNT GROUP MIN_CPUS");
        assert_eq!(o.stdout.lines().nth(1).unwrap(), "                 9     debug      dep     root PD       0:00      1 (Dependency) 1 500M UNLIMITED (null) root 1");
        assert_eq!(o.stdout.lines().nth(6).unwrap(), "                 4     debug     wrap     root  R       0:07      2 node[2-3] 2 500M UNLIMITED (null) root 1");
        let o = run(&["-h", "-o", "%i %T %j"]);
        assert_eq!(o.stdout.lines().next().unwrap(), "9 PENDING dep");
        let o = run(&["-h", "-o", "%A %F %K %P %q %S %Z %o"]);
        assert_eq!(o.stdout.lines().next().unwrap(), "9 9 N/A debug (null) N/A /tmp/spur-conf-work (null)");
        assert!(o.stdout.contains("\n7 6 1 debug (null) "));
    }

    #[test]
    fn filters() {
        assert_eq!(run(&["-t", "PD"]).stdout.lines().count(), 3);
        assert_eq!(run(&["-t", "R"]).stdout.lines().count(), 7);
        assert_eq!(run(&["-n", "myname"]).stdout.lines().count(), 2);
        assert_eq!(run(&["-u", "root"]).stdout, DEFAULT);
        let mut v = basic_view();
        v.nodes = (1..=4).map(|i| node(i, 2)).collect();
        let o = parse(&["-w".to_string(), "node1".to_string()], &HashMap::new()).unwrap();
        assert_eq!(render(&o, &v, 0, "root").stdout.lines().count(), 3);
        let o = parse(&["-w".to_string(), "nodeX".to_string()], &HashMap::new()).unwrap();
        assert_eq!(render(&o, &v, 0, "root").stderr, "squeue: error: Invalid node name nodeX\n");
        let e = run(&["-t", "bogus"]);
        assert_eq!(e.code, 1);
        assert!(e.stderr.starts_with("squeue: error: Invalid job state specified: bogus\n"));
    }

    #[test]
    fn unknown_job_id() {
        let o = run(&["-j", "999"]);
        assert_eq!(o.stdout, "");
        assert_eq!(o.stderr, "slurm_load_jobs error: Invalid job id specified\n");
        assert_eq!(o.code, 1);
        let o = run(&["-j", "abc"]);
        assert_eq!(o.stderr, "squeue: error: Invalid job id: abc\n");
    }

    #[test]
    fn pending_array_and_expansion() {
        let mut v = basic_view();
        let mut meta = base_job(10, JobState::Pending);
        meta.reason = Reason::Resources;
        meta.array =
            Some(ArrayInfo { array_job_id: 10, task_id: None, pending_tasks: vec![2, 3, 4, 5], ..Default::default() });
        v.jobs.push(meta);
        let args: Vec<String> = vec!["-h".into(), "-o".into(), "%i %r".into(), "-t".into(), "PD".into()];
        let o = render(&parse(&args, &HashMap::new()).unwrap(), &v, 0, "root");
        assert!(o.stdout.contains("10_[2-5] Resources\n"));
        let args: Vec<String> = vec!["-r".into(), "-h".into(), "-o".into(), "%i".into(), "-t".into(), "PD".into()];
        let o = render(&parse(&args, &HashMap::new()).unwrap(), &v, 0, "root");
        assert!(o.stdout.contains("10_2\n10_3\n10_4\n10_5\n"));
    }

    #[test]
    fn option_errors() {
        let e = run(&["--bogus"]);
        assert_eq!(e.stderr, "squeue: unrecognized option '--bogus'\nTry \"squeue --help\" for more information\n");
        assert_eq!(e.code, 1);
        let e = run(&["-o", "%i", "-O", "JobID"]);
        assert_eq!(e.stderr, "squeue: error: -O (--Format) is incompatible with -o (--format)\n");
        let e = run(&["--sort=Z"]);
        assert_eq!(e.code, 1);
        assert!(e.stderr.contains("Invalid sort specification: Z"));
        assert_eq!(run(&["--version"]).stdout, spur_cli_base::version::SLURM_VERSION_LINE);
    }

    #[test]
    fn msort_matches_glibc_on_inconsistent_cmp() {
        let mut v = vec![1, 2, 3, 4];
        glibc_msort(&mut v, &|_: &i32, _: &i32| 1);
        assert_eq!(v, vec![4, 3, 2, 1]);
    }

    #[test]
    fn long_header_has_date() {
        let o = run(&["-l"]);
        let mut lines = o.stdout.lines();
        let date = lines.next().unwrap();
        assert_eq!(date.len(), 24);
        assert_eq!(
            lines.next().unwrap(),
            "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES NODELIST(REASON)"
        );
        assert_eq!(
            lines.next().unwrap(),
            "                 9     debug      dep     root  PENDING       0:00 UNLIMITED      1 (Dependency)"
        );
    }

    fn ids_of(o: &Output) -> Vec<String> {
        o.stdout.lines().skip(1).map(|l| l.split_whitespace().next().unwrap_or("").to_string()).collect()
    }

    fn render_view(args: &[&str], view: &ClusterView) -> Output {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&args, &HashMap::new()) {
            Ok(o) => render(&o, view, 0, "root"),
            Err(e) => e,
        }
    }

    #[test]
    fn same_second_starts_are_ordered_by_pass() {
        // 1 and 2 started in the same second by two passes: the later pass
        // lists first (as on Slurm, whose passes are seconds apart); the
        // tasks of one pass keep the job list order
        let mut j1 = running(1, 500, &["node1"]);
        j1.start_pass_ms = 500_100;
        let mut j2 = running(2, 500, &["node2"]);
        j2.start_pass_ms = 500_700;
        let mut t1 = task(3, 3, 1, 500, "node3");
        t1.start_pass_ms = 500_700;
        let mut t2 = task(4, 3, 2, 500, "node3");
        t2.start_pass_ms = 500_700;
        let view = ClusterView { now: 510, jobs: vec![j1, t1, t2, j2], ..Default::default() };
        assert_eq!(ids_of(&render_view(&[], &view)), ["3_1", "3_2", "2", "1"]);
    }

    #[test]
    fn node_sort_puts_jobs_without_nodes_last_and_swaps_them() {
        let mut view = basic_view();
        view.jobs.retain(|j| [1, 3, 4, 9].contains(&j.job_id));
        assert_eq!(ids_of(&render_view(&["--sort=N,i"], &view)), ["1", "4", "9", "3"]);
        assert_eq!(ids_of(&render_view(&["--sort=-N,i"], &view)), ["3", "9", "4", "1"]);
    }

    #[test]
    fn array_ended_without_tasks_shows_plain_id() {
        let mut j = base_job(10, JobState::Cancelled);
        j.array = Some(ArrayInfo {
            array_job_id: 10,
            task_id: None,
            pending_tasks: vec![],
            max_running: 2,
            spec: "0-5%2".into(),
        });
        j.start_time = 900;
        j.end_time = 900;
        let view = ClusterView { now: 1000, jobs: vec![j], ..Default::default() };
        let o = render_view(&["-t", "all", "-h", "-o", "%i %K %S"], &view);
        assert_eq!(o.stdout.split(' ').next(), Some("10"));
        assert!(o.stdout.starts_with("10 N/A 19"));
    }

    #[test]
    fn field_values_as_slurm_packs_them() {
        let mut view = basic_view();
        view.cluster_name = "spur".into();
        let o = render_view(&["-h", "-j", "1", "-O", "JobID:4,ExcNodes:4,ReqNodes:4,EndTime:6,Cluster:6,HetJobIdSet:5,BoardsPerNode:2,NTPerNode:2,NTPerBoard:2,StdErr:8,NumTasks"], &view);
        assert_eq!(o.stdout, "1           NONE  spur  N/A  0 0 0 (null)  1                   \n");
        // a job that never got nodes and ended: NumTasks is NO_VAL
        let mut j = base_job(12, JobState::Cancelled);
        j.start_time = 900;
        j.end_time = 900;
        j.desc.cpus_per_task = Some(2);
        let view = ClusterView { now: 1000, jobs: vec![j], ..Default::default() };
        let o = render_view(&["-h", "-t", "all", "-O", "NumTasks,tres-per-task"], &view);
        assert_eq!(o.stdout, "4294967294          cpu=2               \n");
    }

    #[test]
    fn repeated_job_option_is_a_usage_error() {
        let e = run(&["-j", "3", "-j", "4"]);
        assert_eq!(e.code, 1);
        assert_eq!(e.stderr, "squeue: error: Unrecognized option: 4\n");
        assert!(e.stdout.starts_with("Usage: squeue"));
    }

    #[test]
    fn array_task_strings_are_cut_as_libslurm_cuts_them() {
        assert_eq!(cut_bitstr("1-10", 3), "..");
        assert_eq!(cut_bitstr("1-10", 0), "1-10");
        assert_eq!(cut_bitstr("1-10", 7), "1-10");
        assert_eq!(cut_bitstr("1-10", 6), "1-...");
        assert_eq!(cut_bitstr("1,3,5,7,9,11", 8), "1,3,...");
        assert_eq!(cut_bitstr("1-10", 1), "");
    }

    /// `squeue -v`'s settings block is the recorded one (24.11, no other
    /// option: recorded/24.11/query_surface/040).
    #[test]
    fn verbose_settings_are_the_recorded_ones() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/recorded/24.11/query_surface/040.out");
        let recorded = std::fs::read_to_string(path).expect("recording of squeue -v");
        let o = parse(&["-v".to_string()], &HashMap::new()).unwrap();
        let text = settings_text(&o);
        assert!(recorded.starts_with(&text), "{}", text);
        let o = parse(&["-v", "-p", "debug", "-t", "PD", "--start", "-u", "root"].map(String::from), &HashMap::new())
            .unwrap();
        let text = settings_text(&o);
        assert!(text.contains("all         = true\n"));
        assert!(text.contains("partitions  = debug\n"));
        assert!(text.contains("states      = PD\n"));
        assert!(text.contains("start_flag  = 1\n"));
        assert!(text.contains("format      = %.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R\n"));
        assert!(text.contains("users       = root\n"));
    }
}
