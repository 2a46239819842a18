//! `scancel`: options (Slurm 24.11 src/scancel/opt.c) and how per-job results
//! become Slurm's stderr lines and exit code (src/scancel/scancel.c).
//!
//! Flow the caller follows:
//! 1. [`parse`] → [`ScancelOpts`] (or the `Output` to print: usage errors,
//!    invalid ids, unknown signals/states/users, all exit 1).
//! 2. If [`ScancelOpts::by_id_only`] (only job ids, no filters, no
//!    `--signal`, no steps), Slurm sends one kill per id string
//!    (`ids_text`) and stays silent about jobs that are unknown or already
//!    done (exit 0). Otherwise it loads the job list, reports each requested
//!    id not among the active jobs ([`Phase::Verify`], exit 1), applies the
//!    filters, and signals each matching job.
//! 3. [`report`] turns the results into stderr and the exit code
//!    (`exit(rc)`: a Slurm error code such as 2002 exits 2002 & 0xff = 210).

use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::{client, emit, runtime};
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_core::errors::{strerror, ESLURM_ALREADY_DONE, ESLURM_INVALID_JOB_ID};
use spur_core::model::JobState;
use spur_core::request::{CancelRequest, JobResult as CtldJobResult, Query as QueryRequest};
use spur_grammar::jobref::{parse_scancel_args, JobRef, Tasks};
use std::collections::HashMap;

pub const SIGKILL: i32 = 9;

/// An id as scancel names it in messages: `123`, `123_*`, `123_4` (the job
/// part of a reference; a step is printed by the caller).
pub fn job_part(r: &JobRef) -> String {
    JobRef { step: None, het: None, step_het: None, ..r.clone() }.to_string()
}

/// The numbered step a reference names (scancel reads only numbers).
pub fn step_of(r: &JobRef) -> Option<u32> {
    r.step.map(|s| s.raw())
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScancelOpts {
    /// Parsed ids, in order (`123_[1-3]` gives one per task).
    pub ids: Vec<JobRef>,
    /// The id words after comma splitting, as given (what Slurm sends in the
    /// by-id path, e.g. `123_[1-3]`).
    pub ids_text: Vec<String>,
    pub account: Option<String>,
    pub batch: bool,
    pub cron: bool,
    pub ctld: bool,
    pub full: bool,
    pub hurry: bool,
    pub interactive: bool,
    pub clusters: Option<String>,
    pub name: Option<String>,
    pub nodelist: Option<String>,
    pub partition: Option<String>,
    pub qos: Option<String>,
    pub reservation: Option<String>,
    pub sibling: Option<String>,
    /// `--signal`, as a number; None = not given (SIGKILL is sent).
    pub signal: Option<i32>,
    pub state: Option<JobState>,
    /// `-u` as given, or the caller's uid for `--me`.
    pub user: Option<String>,
    pub user_id: Option<u32>,
    pub wckey: Option<String>,
    /// -1 for `-Q`, else the `-v` count.
    pub verbose: i32,
    /// Errors about `SCANCEL_*` values printed before anything else; scancel
    /// goes on without the value (recorded/22.05/query_surface/189, 191).
    pub warnings: String,
}

impl ScancelOpts {
    /// Slurm's `has_default_opt() && !has_job_steps()`.
    pub fn by_id_only(&self) -> bool {
        self.account.is_none()
            && !self.batch
            && !self.ctld
            && !self.interactive
            && self.name.is_none()
            && self.partition.is_none()
            && self.qos.is_none()
            && self.reservation.is_none()
            && self.signal.is_none()
            && self.state.is_none()
            && self.user.is_none()
            && self.wckey.is_none()
            && self.nodelist.is_none()
            && self.ids.iter().all(|i| i.step.is_none())
    }
    /// The signal actually sent.
    pub fn effective_signal(&self) -> i32 {
        self.signal.unwrap_or(SIGKILL)
    }
}

/// The options of the imitated release (those added after 22.05 only
/// when it has them: `Profile::query_options_after_22_05`).
pub fn specs() -> Vec<OptSpec> {
    if spur_core::compat::profile().query_options_after_22_05 {
        SPECS.to_vec()
    } else {
        opts::without(SPECS, &["cron"])
    }
}

pub const SPECS: &[OptSpec] = &[
    OptSpec::new(None, "autocomplete", Required, "autocomplete"),
    OptSpec::new(Some('A'), "account", Required, "account"),
    OptSpec::new(Some('b'), "batch", None_, "batch"),
    OptSpec::new(None, "ctld", None_, "ctld"),
    OptSpec::new(Some('c'), "cron", None_, "cron"),
    OptSpec::new(Some('f'), "full", None_, "full"),
    OptSpec::new(None, "help", None_, "help"),
    OptSpec::new(Some('H'), "hurry", None_, "hurry"),
    OptSpec::new(Some('i'), "interactive", None_, "interactive"),
    OptSpec::new(Some('M'), "cluster", Required, "clusters"),
    OptSpec::new(None, "clusters", Required, "clusters"),
    OptSpec::new(Some('n'), "jobname", Required, "name"),
    OptSpec::new(None, "me", None_, "me"),
    OptSpec::new(None, "name", Required, "name"),
    OptSpec::new(Some('w'), "nodelist", Required, "nodelist"),
    OptSpec::new(Some('p'), "partition", Required, "partition"),
    OptSpec::new(Some('q'), "qos", Required, "qos"),
    OptSpec::new(Some('Q'), "quiet", None_, "quiet"),
    OptSpec::new(Some('R'), "reservation", Required, "reservation"),
    OptSpec::new(None, "sibling", Required, "sibling"),
    OptSpec::new(Some('s'), "signal", Required, "signal"),
    OptSpec::new(Some('t'), "state", Required, "state"),
    OptSpec::new(None, "usage", None_, "usage"),
    OptSpec::new(Some('u'), "user", Required, "user"),
    OptSpec::new(Some('v'), "verbose", None_, "verbose"),
    OptSpec::new(Some('V'), "version", None_, "version"),
    OptSpec::new(None, "wckey", Required, "wckey"),
];

fn fail_env(stderr: &str, mut e: Output) -> Output {
    e.stderr = format!("{}{}", stderr, e.stderr);
    e
}

fn err1(msg: impl AsRef<str>) -> Output {
    Output::err(format!("scancel: error: {}\n", msg.as_ref()), 1)
}

fn tf(v: &str) -> Option<bool> {
    if v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("T") {
        Some(true)
    } else if v.eq_ignore_ascii_case("false") || v.eq_ignore_ascii_case("F") {
        Some(false)
    } else {
        None
    }
}

fn state(v: &str, env: bool) -> Result<JobState, Output> {
    JobState::parse(v).ok_or_else(|| {
        let first = if env {
            format!("Unrecognized SCANCEL_STATE value: {}\n", v)
        } else {
            format!("Invalid job state specified: {}\n", v)
        };
        Output::err(format!("{}Valid job states are PENDING, RUNNING, and SUSPENDED\n", first), 1)
    })
}

fn uid_from_string(s: &str) -> Option<u32> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().ok();
    }
    nix::unistd::User::from_name(s).ok().flatten().map(|u| u.uid.as_raw())
}

/// Slurm's `_xlate_job_step_ids` (spur_grammar::jobref::parse_scancel_args):
/// the ids and the words sent for them.
fn parse_ids(words: &[String]) -> Result<(Vec<JobRef>, Vec<String>), Output> {
    let ids = parse_scancel_args(words).map_err(|b| {
        let log = b.log.map(|l| format!("scancel: error: {}\n", l)).unwrap_or_default();
        Output::err(format!("{}scancel: error: Invalid job id {}\n", log, b.word), 1)
    })?;
    let texts = ids.iter().map(|i| i.text.clone()).collect();
    Ok((ids.into_iter().flat_map(|i| i.jobs).collect(), texts))
}

/// Parse scancel's command line (`args` without `argv[0]`) and `SCANCEL_*`
/// variables. `Err` is what scancel prints and its exit code (also for
/// `--help`/`--usage`/`--version`, exit 0).
pub fn parse(args: &[String], env: &HashMap<String, String>) -> Result<ScancelOpts, Output> {
    let mut o = ScancelOpts::default();
    let mut stderr = String::new();
    // environment first (_opt_env), then the command line
    if let Some(v) = env.get("SCANCEL_ACCOUNT") {
        o.account = Some(v.to_ascii_lowercase());
    }
    for (var, field) in [("SCANCEL_BATCH", 0), ("SCANCEL_FULL", 1), ("SCANCEL_INTERACTIVE", 2)] {
        if let Some(v) = env.get(var) {
            match tf(v) {
                Some(b) => match field {
                    0 => o.batch = b,
                    1 => o.full = b,
                    _ => o.interactive = b,
                },
                None => stderr.push_str(&format!("scancel: error: Unrecognized {} value: {}\n", var, v)),
            }
        }
    }
    if env.contains_key("SCANCEL_CTLD") {
        o.ctld = true;
    }
    if env.contains_key("SCANCEL_CRON") {
        o.cron = true;
    }
    if env.contains_key("SCANCEL_HURRY") {
        o.hurry = true;
    }
    if let Some(v) = env.get("SCANCEL_NAME") {
        o.name = Some(v.clone());
    }
    if let Some(v) = env.get("SCANCEL_PARTITION") {
        o.partition = Some(v.clone());
    }
    if let Some(v) = env.get("SCANCEL_QOS") {
        o.qos = Some(v.to_ascii_lowercase());
    }
    if let Some(v) = env.get("SCANCEL_STATE") {
        o.state = Some(state(v, true).map_err(|mut e| {
            e.stderr = format!("{}{}", stderr, e.stderr);
            e
        })?);
    }
    if let Some(v) = env.get("SCANCEL_USER") {
        o.user = Some(v.clone());
    }
    if let Some(v) = env.get("SCANCEL_VERBOSE") {
        match tf(v) {
            Some(b) => o.verbose = b as i32,
            None => stderr.push_str(&format!("scancel: error: Unrecognized SCANCEL_VERBOSE value: {}\n", v)),
        }
    }
    if let Some(v) = env.get("SCANCEL_WCKEY") {
        o.wckey = Some(v.clone());
    }
    if let Some(v) = env.get("SLURM_CLUSTERS") {
        // scancel names --cluster for the variable too (opt.c _opt_clusters)
        return Err(fail_env(&stderr, spur_cli_base::clusters::unreachable("scancel", v, false)));
    }

    let p = opts::parse("scancel", &specs(), args, Mode::Permute);
    let fail = |stderr: &str, mut e: Output| {
        e.stderr = format!("{}{}", stderr, e.stderr);
        e
    };
    for (id, v) in &p.opts {
        let v = v.clone().unwrap_or_default();
        match *id {
            "account" => o.account = Some(v.to_ascii_lowercase()),
            "batch" => o.batch = true,
            "ctld" => o.ctld = true,
            "cron" => o.cron = true,
            "full" => o.full = true,
            "hurry" => o.hurry = true,
            "interactive" => o.interactive = true,
            "clusters" => return Err(fail(&stderr, spur_cli_base::clusters::unreachable("scancel", &v, false))),
            "me" => o.user = Some(nix::unistd::getuid().to_string()),
            "name" => o.name = Some(v),
            "partition" => o.partition = Some(v),
            "quiet" => o.verbose = -1,
            "qos" => o.qos = Some(v.to_ascii_lowercase()),
            "reservation" => o.reservation = Some(v),
            "signal" => {
                // scancel keeps `(uint16_t) sig_name2num(...)`
                let n = spur_grammar::signal::sig_name2num(&v, spur_core::compat::profile().signal_names) as u16;
                if n == 0 {
                    return Err(fail(&stderr, Output::err(format!("Unknown job signal: {}\n", v), 1)));
                }
                o.signal = Some(n as i32);
            }
            "state" => o.state = Some(state(&v, false).map_err(|e| fail(&stderr, e))?),
            "user" => o.user = Some(v),
            "verbose" => o.verbose += 1,
            "version" => return Err(Output::ok(version_line())),
            "wckey" => o.wckey = Some(v),
            "nodelist" => o.nodelist = Some(v),
            "sibling" => o.sibling = Some(v),
            // 22.05's texts have no --ctld or -c (recorded/22.05/query_surface/132, 133)
            "help" if spur_core::compat::profile().usage_texts_22_05 => {
                return Err(Output::ok(include_str!("text/scancel_help_22_05.txt")))
            }
            "usage" if spur_core::compat::profile().usage_texts_22_05 => {
                return Err(Output::ok(include_str!("text/scancel_usage_22_05.txt")))
            }
            "help" => return Err(Output::ok(HELP)),
            "usage" => return Err(Output::ok(USAGE)),
            "autocomplete" => return Err(Output::ok("")),
            _ => {}
        }
    }
    if let Some(e) = p.error {
        return Err(fail(&stderr, e.into_output("scancel", 1)));
    }
    let (ids, texts) = parse_ids(&p.operands).map_err(|e| fail(&stderr, e))?;
    o.warnings = stderr.clone();
    o.ids = ids;
    o.ids_text = texts;
    if let Some(u) = &o.user {
        match uid_from_string(u) {
            Some(uid) => o.user_id = Some(uid),
            None => return Err(fail(&stderr, err1(format!("Invalid user name: {}", u)))),
        }
    }
    if o.account.is_none()
        && o.ids.is_empty()
        && o.name.is_none()
        && o.nodelist.is_none()
        && o.partition.is_none()
        && o.qos.is_none()
        && o.reservation.is_none()
        && o.state.is_none()
        && o.user.is_none()
        && o.wckey.is_none()
    {
        return Err(fail(&stderr, err1("No job identification provided")));
    }
    Ok(o)
}

/// scancel's `_verify_job_ids` (every path but the by-id one): each
/// requested id that names no unfinished job among `jobs` gives a
/// [`Phase::Verify`] result (`Invalid job id specified`, exit 1), in request
/// order. An array id counts when any of its tasks is unfinished, a task id
/// when that task runs or is still pending in the array's record.
pub fn verify_ids(opts: &ScancelOpts, jobs: &[spur_core::model::Job]) -> Vec<JobResult> {
    let active: Vec<&spur_core::model::Job> = jobs.iter().filter(|j| !j.state.is_finished()).collect();
    let array_of = |j: &spur_core::model::Job| j.array.as_ref().map(|a| a.array_job_id);
    let mut out = Vec::new();
    for spec in &opts.ids {
        let id = spec.job_id;
        let task = |t: u32| {
            active.iter().any(|j| match &j.array {
                Some(a) if a.array_job_id == id => {
                    a.task_id == Some(t) || (a.task_id.is_none() && a.pending_tasks.contains(&t))
                }
                _ => false,
            })
        };
        let found = match &spec.tasks {
            Tasks::Job => active.iter().any(|j| j.job_id == id || array_of(j) == Some(id)),
            Tasks::All => active.iter().any(|j| array_of(j) == Some(id)),
            Tasks::One(t) => task(*t),
            // (scancel gives one id per task; kept for completeness)
            Tasks::Set(ts) => ts.iter().any(|t| task(*t)),
        };
        if !found {
            out.push(JobResult { id: job_part(spec), step: step_of(spec), phase: Phase::Verify, code: 0 });
        }
    }
    out
}

/// Slurm's `_has_filter_opt`: a filter that selects jobs from the list.
pub fn has_filter(o: &ScancelOpts) -> bool {
    o.account.is_some()
        || o.name.is_some()
        || o.nodelist.is_some()
        || o.partition.is_some()
        || o.qos.is_some()
        || o.reservation.is_some()
        || o.state.is_some()
        || o.user.is_some()
        || o.wckey.is_some()
}

/// The filters as scancel's `-v` names them when none matched
/// (`_filters2str`, with its trailing space): `account=x job_name=y `.
pub fn filters_text(o: &ScancelOpts) -> String {
    let mut s = String::new();
    let mut add = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            s.push_str(&format!("{}={} ", k, v));
        }
    };
    add("account", &o.account);
    add("job_name", &o.name);
    add("nodelist", &o.nodelist);
    add("partition", &o.partition);
    add("qos", &o.qos);
    add("reservation", &o.reservation);
    add("state", &o.state.map(|st| st.name().to_string()));
    add("user_name", &o.user);
    add("wckey", &o.wckey);
    s
}

/// Slurm's `_filter_job_records` on the job list (scancel filters on the
/// client: the controller is sent the ids of the jobs that pass): the id
/// of each unfinished job (`123`, `123_4`, `123_[5-9]`) whose account,
/// name, partition, QOS, reservation, state (pending, running or
/// suspended), owner, nodes (any in `--nodelist`) and wckey match the
/// given filters, newest first as slurmctld lists them. With job ids on
/// the command line only the jobs they name are considered.
pub fn filter_jobs(o: &ScancelOpts, jobs: &[spur_core::model::Job]) -> Vec<String> {
    let nodelist: Option<Vec<String>> =
        o.nodelist.as_ref().map(|n| spur_grammar::hostlist::expand(n).unwrap_or_default());
    let passes = |j: &spur_core::model::Job| -> bool {
        if !matches!(j.state, JobState::Pending | JobState::Running | JobState::Suspended) {
            return false;
        }
        let eq = |want: &Option<String>, have: Option<&str>| want.as_deref().is_none_or(|w| have == Some(w));
        if !eq(&o.account, j.desc.account.as_deref())
            || !eq(&o.name, Some(j.desc.name.as_str()))
            || !eq(&o.partition, Some(j.partition.as_str()))
            || !eq(&o.qos, j.desc.qos.as_deref())
            || !eq(&o.reservation, j.desc.reservation_name())
        {
            return false;
        }
        if o.state.is_some_and(|st| st != j.state) || o.user_id.is_some_and(|u| u != j.user_id) {
            return false;
        }
        if let Some(want) = &nodelist {
            if !j.allocs.iter().any(|a| want.contains(&a.node)) {
                return false;
            }
        }
        if let Some(w) = &o.wckey {
            let have = j.desc.accepted.as_ref().and_then(|a| a.wckey.as_deref()).map(|k| {
                if !w.starts_with('*') {
                    k.strip_prefix('*').unwrap_or(k)
                } else {
                    k
                }
            });
            if have != Some(w.as_str()) {
                return false;
            }
        }
        true
    };
    if o.ids.is_empty() {
        // every job that passes, by the id squeue shows (without a task
        // throttle), newest first
        return jobs
            .iter()
            .rev()
            .filter(|j| passes(j))
            .map(|j| match &j.array {
                Some(a) if a.task_id.is_none() => {
                    format!("{}_[{}]", a.array_job_id, spur_core::model::ranges(&a.pending_tasks))
                }
                _ => j.display_id(),
            })
            .collect();
    }
    // each reference (one per task) that names a job that passes, as given
    let names = |r: &JobRef, j: &spur_core::model::Job| {
        let array_id = j.array.as_ref().map(|a| a.array_job_id);
        let has_task = |t: &u32| {
            j.array
                .as_ref()
                .is_some_and(|a| a.task_id == Some(*t) || (a.task_id.is_none() && a.pending_tasks.contains(t)))
        };
        match &r.tasks {
            Tasks::Job => r.job_id == j.job_id || array_id == Some(r.job_id),
            Tasks::All => array_id == Some(r.job_id),
            Tasks::One(t) => array_id == Some(r.job_id) && has_task(t),
            Tasks::Set(ts) => array_id == Some(r.job_id) && ts.iter().any(has_task),
        }
    };
    let mut out: Vec<String> = Vec::new();
    for r in &o.ids {
        let id = job_part(r);
        if !out.contains(&id) && jobs.iter().any(|j| names(r, j) && passes(j)) {
            out.push(id);
        }
    }
    out
}

/// Where a per-job result came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// A requested id that is not among the active jobs ([`verify_ids`];
    /// not used in the by-id path).
    Verify,
    /// The controller's answer to the kill request (0 = success).
    Kill,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobResult {
    /// The job as scancel names it: `123`, `123_4`, `123_*`, or the id string
    /// sent (by-id path); for steps `123.4` (Kill) or the job part (Verify).
    pub id: String,
    /// Set when the request was for a step.
    pub step: Option<u32>,
    pub phase: Phase,
    /// 0 or a Slurm error code (spur_core::errors).
    pub code: i32,
}

/// Anything that can list per-job results (implement it for the RPC reply
/// type next to the RPC call, e.g. `CancelReply` in main.rs).
pub trait KillResults {
    fn job_results(&self) -> Vec<JobResult>;
}
impl KillResults for [JobResult] {
    fn job_results(&self) -> Vec<JobResult> {
        self.to_vec()
    }
}
impl<const N: usize> KillResults for [JobResult; N] {
    fn job_results(&self) -> Vec<JobResult> {
        self.to_vec()
    }
}
impl KillResults for Vec<JobResult> {
    fn job_results(&self) -> Vec<JobResult> {
        self.clone()
    }
}

/// Slurm's stderr lines and exit code for the per-job results. Also the
/// `-v` lines (`scancel: Terminating job 123`, `scancel: Signal 10 to job
/// 123`, with `batch ` for `-b`).
pub fn report<R: KillResults + ?Sized>(opts: &ScancelOpts, results: &R) -> Output {
    let results = results.job_results();
    let mut err = String::new();
    let mut rc: i32 = 0;
    let sig = opts.effective_signal();
    let job_type = if opts.batch { "batch " } else { "" };
    for r in &results {
        match r.phase {
            Phase::Verify => {
                rc = rc.max(1);
                if opts.verbose < 0 {
                    continue;
                }
                match r.step {
                    None => err.push_str(&format!(
                        "scancel: error: Kill job error on job id {}: {}\n",
                        r.id,
                        strerror(ESLURM_INVALID_JOB_ID)
                    )),
                    Some(s) => err.push_str(&format!(
                        "scancel: error: Kill job error on job step id {}.{}: {}\n",
                        r.id,
                        s,
                        strerror(ESLURM_INVALID_JOB_ID)
                    )),
                }
            }
            Phase::Kill => {
                if opts.verbose > 0 {
                    match (r.step, opts.signal) {
                        (None, None) => err.push_str(&format!("scancel: Terminating {}job {}\n", job_type, r.id)),
                        (None, Some(_)) => {
                            err.push_str(&format!("scancel: Signal {} to {}job {}\n", sig, job_type, r.id))
                        }
                        (Some(_), None) => err.push_str(&format!("scancel: Terminating step {}\n", r.id)),
                        (Some(_), Some(_)) => err.push_str(&format!("scancel: Signal {} to step {}\n", sig, r.id)),
                    }
                }
                if r.code == 0 {
                    continue;
                }
                let mut code = r.code;
                if r.step.is_none() {
                    if opts.verbose > 0 || (code != ESLURM_ALREADY_DONE && code != ESLURM_INVALID_JOB_ID) {
                        err.push_str(&format!(
                            "scancel: error: Kill job error on job id {}: {}\n",
                            r.id,
                            strerror(code)
                        ));
                    }
                    if (code == ESLURM_ALREADY_DONE || code == ESLURM_INVALID_JOB_ID) && sig == SIGKILL {
                        code = 0;
                    }
                } else {
                    if opts.verbose > 0 || code != ESLURM_ALREADY_DONE {
                        err.push_str(&format!(
                            "scancel: error: Kill job error on job step id {}: {}\n",
                            r.id,
                            strerror(code)
                        ));
                    }
                    if code == ESLURM_ALREADY_DONE && sig == SIGKILL {
                        code = 0;
                    }
                }
                rc = rc.max(code);
            }
        }
    }
    Output { stdout: String::new(), stderr: err, code: rc & 0xff }
}

/// `scancel --usage` (24.11).
pub const USAGE: &str = r#"Usage: scancel [-A account] [--batch] [--ctld] [--full] [--interactive] [-n job_name]
               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]
               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]
               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]
               [job_id[_array_id][.step_id]]
"#;

/// `scancel --help` (24.11).
pub const HELP: &str = r#"Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]
  -A, --account=account           act only on jobs charging this account
  -b, --batch                     signal batch shell for specified job
      --ctld                      send request directly to slurmctld
  -c, --cron                      cancel an scrontab job
  -f, --full                      signal batch shell and all steps for specified job
  -H, --hurry                     avoid burst buffer stage out
  -i, --interactive               require response from user for each job
  -M, --clusters                  clusters to issue commands to.
                                  NOTE: SlurmDBD must be up.
  -n, --name=job_name             act only on jobs with this name
  -p, --partition=partition       act only on jobs in this partition
  -Q, --quiet                     disable warnings
  -q, --qos=qos                   act only on jobs with this quality of service
  -R, --reservation=reservation   act only on jobs with this reservation
      --sibling=cluster_name      remove an active sibling job from a federated job
  -s, --signal=name | integer     signal to send to job, default is SIGKILL
  -t, --state=states              act only on jobs in this state.  Valid job
                                  states are PENDING, RUNNING and SUSPENDED
  -u, --user=user_name            act only on jobs of this user
  -V, --version                   output version information and exit
  -v, --verbose                   verbosity level
  -w, --nodelist                  act only on jobs on these nodes
      --wckey=wckey               act only on jobs with this workload
                                  charactization key

Help options:
  --help                          show this help message
  --usage                         display brief usage message
"#;

// ---------------------------------------------------------------- the process

/// scancel as a process: parse, check the ids against the queue (every
/// path but signalling by id alone), cancel through spur-client, report as
/// scancel does; returns the exit status.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let opts = match parse(args, env) {
        Ok(o) => o,
        Err(o) => return emit(&o),
    };
    let c = match client("scancel") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let rt = runtime();
    emit(&Output::err(opts.warnings.clone(), 0));
    // Every path but the by-id one loads the jobs first and names the
    // requested ids that are not (or no longer) in the queue.
    let mut invalid = Vec::new();
    let mut req = cancel_request(&opts);
    if !opts.by_id_only() {
        // the jobs of `JOB.STEP` ids are loaded as jobs
        let ids: Vec<String> = opts
            .ids_text
            .iter()
            .map(|t| t.split_once('.').map(|(j, _)| j.to_string()).unwrap_or_else(|| t.clone()))
            .collect();
        let q = QueryRequest { jobs: true, job_ids: ids, ..Default::default() };
        let view = match rt.block_on(c.query(&q)) {
            Ok(view) => view,
            Err(e) => return emit(&Output::err(format!("scancel: error: {}\n", e), 1)),
        };
        // 22.05 loaded its select plugins with the job list, and said so at -v
        if opts.verbose > 0 && spur_core::compat::profile().verbose_logs_select_plugins {
            emit(&Output::err(spur_cli_base::version::select_plugin_lines_22_05("scancel"), 0));
        }
        if !opts.ids.is_empty() {
            invalid = verify_ids(&opts, &view.jobs);
        }
        if has_filter(&opts) {
            // the filters are scancel's own: the controller is sent the ids
            // of the jobs that pass them
            let ids = filter_jobs(&opts, &view.jobs);
            if ids.is_empty() {
                let mut out = report(&opts, &invalid);
                if opts.verbose > 0 {
                    out.stderr.push_str(&format!(
                        "scancel: error: No active jobs match ALL job filters, including: {}\n",
                        filters_text(&opts)
                    ));
                }
                return emit(&out);
            }
            req = CancelRequest { job_ids: ids, ..CancelRequest::default() };
            req.signal = opts.signal.unwrap_or(0);
            req.batch = opts.batch;
            req.full = opts.full;
            req.interactive = opts.interactive;
        } else if invalid.len() == opts.ids.len() {
            // nothing left to signal (and no id must not mean "all jobs")
            return emit(&report(&opts, &invalid));
        }
    }
    match rt.block_on(c.cancel(&req)) {
        Ok(r) => {
            let mut results = invalid.clone();
            results.extend(
                KillResults::job_results(&CancelResults(r))
                    .into_iter()
                    .filter(|k| !invalid.iter().any(|v| v.id == k.id)),
            );
            emit(&report(&opts, &results))
        }
        Err(e) => emit(&Output::err(format!("scancel: error: {}\n", e), 1)),
    }
}

/// The controller request for scancel's options.
pub fn cancel_request(o: &ScancelOpts) -> CancelRequest {
    let given = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
    CancelRequest {
        job_ids: o.ids_text.clone(),
        signal: o.signal.unwrap_or(0),
        batch: o.batch,
        full: o.full,
        user: given(&o.user),
        name: given(&o.name),
        partition: given(&o.partition),
        states: o.state.into_iter().collect(),
        nodelist: given(&o.nodelist),
        account: given(&o.account),
        interactive: o.interactive,
    }
}

struct CancelResults(Vec<CtldJobResult>);

impl KillResults for CancelResults {
    /// One result per id sent, as slurmctld answers (the controller answers
    /// per record: `4_[2-3]` names two; the first error counts).
    fn job_results(&self) -> Vec<JobResult> {
        let mut out: Vec<JobResult> = Vec::new();
        for r in &self.0 {
            match out.iter_mut().find(|o| o.id == r.job_id && o.step.is_none()) {
                Some(o) if o.code == 0 => o.code = r.code,
                Some(_) => {}
                None => {
                    // `J.S`: the result of a step (its job's id and the step)
                    let (id, step) = match r.job_id.split_once('.') {
                        Some((j, st)) => (j.to_string(), st.parse::<u32>().ok()),
                        None => (r.job_id.clone(), None),
                    };
                    out.push(JobResult { id, step, phase: Phase::Kill, code: r.code })
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::errors::ESLURM_ACCESS_DENIED;

    fn a(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }
    fn p(s: &[&str]) -> Result<ScancelOpts, Output> {
        parse(&a(s), &HashMap::new())
    }
    fn e(s: &[&str]) -> (String, i32) {
        let o = p(s).unwrap_err();
        (o.stderr, o.code)
    }

    #[test]
    fn ids() {
        let o = p(&["123", "123_4", "123_[1-3]", "5_*", "7.2", "8,9_1"]).unwrap();
        let d: Vec<String> = o.ids.iter().map(job_part).collect();
        assert_eq!(d, vec!["123", "123_4", "123_1", "123_2", "123_3", "5_*", "7", "8", "9_1"]);
        assert_eq!(step_of(&o.ids[6]), Some(2));
        assert_eq!(o.ids_text, vec!["123", "123_4", "123_[1-3]", "5_*", "7.2", "8", "9_1"]);
        assert!(!o.by_id_only()); // a step
        assert!(p(&["1", "2"]).unwrap().by_id_only());
        assert!(!p(&["-s", "USR1", "1"]).unwrap().by_id_only());
    }

    #[test]
    fn errors_match_slurm() {
        assert_eq!(e(&[]), ("scancel: error: No job identification provided\n".into(), 1));
        assert_eq!(e(&["abc"]), ("scancel: error: Invalid job id abc\n".into(), 1));
        assert_eq!(e(&["0"]), ("scancel: error: Invalid job id 0\n".into(), 1));
        assert_eq!(e(&["12x"]), ("scancel: error: Invalid job id 12x\n".into(), 1));
        assert_eq!(e(&["1_[x"]), ("scancel: error: Invalid job id 1_[x\n".into(), 1));
        assert_eq!(e(&["-s", "FOO", "1"]), ("Unknown job signal: FOO\n".into(), 1));
        assert_eq!(
            e(&["-t", "bogus", "1"]),
            ("Invalid job state specified: bogus\nValid job states are PENDING, RUNNING, and SUSPENDED\n".into(), 1)
        );
        assert_eq!(
            e(&["--bogus"]),
            ("scancel: unrecognized option '--bogus'\nTry \"scancel --help\" for more information\n".into(), 1)
        );
        assert_eq!(
            e(&["-Z"]),
            ("scancel: invalid option -- 'Z'\nTry \"scancel --help\" for more information\n".into(), 1)
        );
        assert_eq!(
            e(&["--signal"]),
            (
                "scancel: option '--signal' requires an argument\nTry \"scancel --help\" for more information\n".into(),
                1
            )
        );
        assert_eq!(e(&["-u", "nosuchuser-xyz"]), ("scancel: error: Invalid user name: nosuchuser-xyz\n".into(), 1));
    }

    #[test]
    fn options_and_env() {
        let o = p(&[
            "-s", "SIGUSR1", "-b", "-f", "-H", "-i", "-vv", "-p", "debug", "-A", "ACC", "-q", "Normal", "--me", "-t",
            "pd", "-w", "n1", "1",
        ])
        .unwrap();
        assert_eq!(o.signal, Some(10));
        assert!(o.batch && o.full && o.hurry && o.interactive);
        assert_eq!(o.verbose, 2);
        assert_eq!(o.account.as_deref(), Some("acc"));
        assert_eq!(o.qos.as_deref(), Some("normal"));
        assert_eq!(o.state, Some(JobState::Pending));
        assert!(o.user_id.is_some());
        assert_eq!(p(&["-s", "9", "1"]).unwrap().signal, Some(9));
        assert_eq!(p(&["--signal=kill", "1"]).unwrap().signal, Some(9));
        assert_eq!(p(&["-Q", "1"]).unwrap().verbose, -1);
        assert_eq!(p(&["-u", "root"]).unwrap().user_id, Some(0));
        // permuted options
        assert_eq!(p(&["1", "-p", "x"]).unwrap().partition.as_deref(), Some("x"));
        let mut env = HashMap::new();
        env.insert("SCANCEL_PARTITION".to_string(), "envp".to_string());
        env.insert("SCANCEL_BATCH".to_string(), "maybe".to_string());
        let o = parse(&a(&[]), &env).unwrap();
        assert_eq!(o.partition.as_deref(), Some("envp"));
        env.insert("SCANCEL_STATE".to_string(), "xx".to_string());
        let out = parse(&a(&["1"]), &env).unwrap_err();
        assert_eq!(
            out.stderr,
            "scancel: error: Unrecognized SCANCEL_BATCH value: maybe\nUnrecognized SCANCEL_STATE value: xx\nValid job states are PENDING, RUNNING, and SUSPENDED\n"
        );
    }

    #[test]
    fn reporting() {
        let o = p(&["123"]).unwrap();
        let kill = |id: &str, code| JobResult { id: id.into(), step: None, phase: Phase::Kill, code };
        // by id: unknown and finished jobs are silent and exit 0
        let out = report(&o, &[kill("123", ESLURM_INVALID_JOB_ID), kill("124", ESLURM_ALREADY_DONE)]);
        assert_eq!((out.stderr.as_str(), out.code), ("", 0));
        let out = report(&o, &[kill("123", ESLURM_ACCESS_DENIED)]);
        assert_eq!(out.stderr, "scancel: error: Kill job error on job id 123: Access/permission denied\n");
        assert_eq!(out.code, 2002 & 0xff);
        // verify phase
        let out = report(&o, &[JobResult { id: "999".into(), step: None, phase: Phase::Verify, code: 0 }]);
        assert_eq!(
            (out.stderr.as_str(), out.code),
            ("scancel: error: Kill job error on job id 999: Invalid job id specified\n", 1)
        );
        let q = p(&["-Q", "999"]).unwrap();
        let out = report(&q, &[JobResult { id: "999".into(), step: None, phase: Phase::Verify, code: 0 }]);
        assert_eq!((out.stderr.as_str(), out.code), ("", 1));
        // verbose
        let v = p(&["-v", "123"]).unwrap();
        let out = report(&v, &[kill("123", 0), kill("124", ESLURM_ALREADY_DONE)]);
        assert_eq!(out.stderr, "scancel: Terminating job 123\nscancel: Terminating job 124\nscancel: error: Kill job error on job id 124: Job/step already completing or completed\n");
        assert_eq!(out.code, 0);
        // a non-KILL signal to a finished job is an error
        let s = p(&["-s", "USR1", "123"]).unwrap();
        let out = report(&s, &[kill("123", ESLURM_ALREADY_DONE)]);
        assert_eq!(out.code, ESLURM_ALREADY_DONE & 0xff);
        assert_eq!(out.stderr, "");
    }

    #[test]
    fn garbage_never_panics() {
        let words = [
            "",
            "-",
            "--",
            "1",
            "1_",
            "1_[",
            "1_[]",
            "1_[1-",
            "1.",
            "1,",
            ",",
            "_*",
            "-s",
            "SIG",
            "é",
            "1_[é]",
            "4294967296",
            "-t",
            "-u",
            "1+2",
            "1_[1-3]x",
            "99999999999999999999",
        ];
        let mut seed: u64 = 11;
        for _ in 0..3000 {
            let mut v = Vec::new();
            for _ in 0..(seed % 5) {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                v.push(words[(seed >> 33) as usize % words.len()].to_string());
            }
            let _ = parse(&v, &HashMap::new());
            seed = seed.wrapping_add(1);
        }
    }

    /// Every filter selects (a filter the controller was not sent once
    /// matched every job: `scancel -q nosuch` cancelled the caller's jobs).
    #[test]
    fn filters_select_on_the_client() {
        use spur_cli_base::fixtures::{base_job, running};
        let mut held = base_job(3, JobState::Pending);
        held.desc.name = "gamma".into();
        held.desc.qos = Some("normal".into());
        let mut r1 = running(1, 10, &["node1"]);
        r1.desc.qos = Some("normal".into());
        let jobs = vec![r1, held];
        let f = |args: &[&str]| filter_jobs(&p(args).unwrap(), &jobs);
        assert_eq!(f(&["-q", "nosuch"]), Vec::<String>::new());
        assert_eq!(f(&["-R", "nosuch"]), Vec::<String>::new());
        assert_eq!(f(&["--wckey=nosuch"]), Vec::<String>::new());
        assert_eq!(f(&["-w", "node4"]), Vec::<String>::new());
        assert_eq!(f(&["-w", "node[1-2]"]), vec!["1"]);
        assert_eq!(f(&["-q", "normal"]), vec!["3", "1"]);
        assert_eq!(f(&["-n", "gamma"]), vec!["3"]);
        assert_eq!(f(&["-t", "PD", "-q", "normal"]), vec!["3"]);
        assert_eq!(f(&["-q", "normal", "1"]), vec!["1"]);
        assert_eq!(f(&["-q", "normal", "1", "3", "2"]), vec!["1", "3"]);
        // a task of a pending array: only that task is named
        let mut arr = base_job(4, JobState::Pending);
        arr.array =
            Some(spur_core::model::ArrayInfo { array_job_id: 4, pending_tasks: vec![1, 2, 3], ..Default::default() });
        let jobs = vec![arr];
        let f = |args: &[&str]| filter_jobs(&p(args).unwrap(), &jobs);
        assert_eq!(f(&["-t", "PD", "4_2"]), vec!["4_2"]);
        assert_eq!(f(&["-t", "PD"]), vec!["4_[1-3]"]);
        assert_eq!(f(&["-t", "R", "4_2"]), Vec::<String>::new());
        let o = p(&["-n", "x", "-t", "R", "-u", "root"]).unwrap();
        assert_eq!(filters_text(&o), "job_name=x state=RUNNING user_name=root ");
    }
}
