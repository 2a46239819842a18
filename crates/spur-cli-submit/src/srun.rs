//! `srun`: run a parallel job step. Inside an allocation (`SLURM_JOB_ID`, or
//! `--jobid`) it creates a step there; otherwise it first gets an
//! allocation of its own (`srun: job N queued and waiting for resources`,
//! `has been allocated resources`), runs the step in it and gives it back.
//!
//! [`parse`] is pure: the command line and the environment (`SLURM_*` input
//! variables, below the command line) into [`SrunOpts`]. [`run`] is the
//! process: allocation, step creation through spur-client (retrying while
//! the job's other steps hold what it needs: `srun: Job N step creation
//! temporarily disabled, retrying`), the I/O of the step's tasks
//! (`spur_client::step`), signals, and the end: srun's exit status is the
//! highest task exit code, or 128 + the signal that killed a task, with
//! Slurm's `srun: error: NODE: task(s) LIST: Exited with exit code N` lines.

use crate::alloc;
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::emit;
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_client::blocking::Client;
use spur_client::step::{Event, StepIo};
use spur_client::ClientError;
use spur_core::errors;
use spur_core::launch::{StepCreate, StepIo as IoSpec};
use spur_core::model::{Job, JobDesc, JobState, Step};
use spur_core::request::StepRequest;
use spur_grammar::num::strtol;
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

pub const SPECS: &[OptSpec] = &[
    OptSpec::new(Some('A'), "account", Required, "account"),
    OptSpec::new(Some('c'), "cpus-per-task", Required, "cpus-per-task"),
    OptSpec::new(Some('C'), "constraint", Required, "constraint"),
    OptSpec::new(Some('d'), "dependency", Required, "dependency"),
    OptSpec::new(Some('D'), "chdir", Required, "chdir"),
    OptSpec::new(Some('e'), "error", Required, "error"),
    OptSpec::new(Some('E'), "preserve-env", None_, "preserve-env"),
    OptSpec::new(Some('G'), "gpus", Required, "gpus"),
    OptSpec::new(Some('h'), "help", None_, "help"),
    OptSpec::new(Some('H'), "hold", None_, "hold"),
    OptSpec::new(Some('i'), "input", Required, "input"),
    OptSpec::new(Some('I'), "immediate", Optional, "immediate"),
    OptSpec::new(Some('J'), "job-name", Required, "job-name"),
    OptSpec::new(Some('k'), "no-kill", Optional, "no-kill"),
    OptSpec::new(Some('K'), "kill-on-bad-exit", Optional, "kill-on-bad-exit"),
    OptSpec::new(Some('l'), "label", None_, "label"),
    OptSpec::new(Some('m'), "distribution", Required, "distribution"),
    OptSpec::new(Some('n'), "ntasks", Required, "ntasks"),
    OptSpec::new(Some('N'), "nodes", Required, "nodes"),
    OptSpec::new(Some('o'), "output", Required, "output"),
    OptSpec::new(Some('O'), "overcommit", None_, "overcommit"),
    OptSpec::new(Some('p'), "partition", Required, "partition"),
    OptSpec::new(Some('q'), "qos", Required, "qos"),
    OptSpec::new(Some('Q'), "quiet", None_, "quiet"),
    OptSpec::new(Some('r'), "relative", Required, "relative"),
    OptSpec::new(Some('s'), "oversubscribe", None_, "oversubscribe"),
    OptSpec::new(Some('t'), "time", Required, "time"),
    OptSpec::new(Some('u'), "unbuffered", None_, "unbuffered"),
    OptSpec::new(Some('v'), "verbose", None_, "verbose"),
    OptSpec::new(Some('V'), "version", None_, "version"),
    OptSpec::new(Some('w'), "nodelist", Required, "nodelist"),
    OptSpec::new(Some('W'), "wait", Required, "wait"),
    OptSpec::new(Some('x'), "exclude", Required, "exclude"),
    OptSpec::new(Some('X'), "disable-status", None_, "disable-status"),
    OptSpec::new(Some('Z'), "no-allocate", None_, "no-allocate"),
    OptSpec::new(None, "comment", Required, "comment"),
    OptSpec::new(None, "contiguous", None_, "contiguous"),
    OptSpec::new(None, "exact", None_, "exact"),
    OptSpec::new(None, "exclusive", Optional, "exclusive"),
    OptSpec::new(None, "export", Required, "export"),
    OptSpec::new(None, "gres", Required, "gres"),
    OptSpec::new(None, "het-group", Required, "het-group"),
    OptSpec::new(None, "external-launcher", None_, "external-launcher"),
    OptSpec::new(None, "interactive", None_, "interactive"),
    OptSpec::new(None, "jobid", Required, "jobid"),
    OptSpec::new(None, "mem", Required, "mem"),
    OptSpec::new(None, "mem-per-cpu", Required, "mem-per-cpu"),
    OptSpec::new(None, "mincpus", Required, "mincpus"),
    OptSpec::new(None, "mpi", Required, "mpi"),
    OptSpec::new(None, "multi-prog", None_, "multi-prog"),
    OptSpec::new(None, "nice", Optional, "nice"),
    OptSpec::new(None, "ntasks-per-core", Required, "ntasks-per-core"),
    OptSpec::new(None, "ntasks-per-node", Required, "ntasks-per-node"),
    OptSpec::new(None, "open-mode", Required, "open-mode"),
    OptSpec::new(None, "overlap", None_, "overlap"),
    OptSpec::new(None, "propagate", Optional, "propagate"),
    OptSpec::new(None, "pty", None_, "pty"),
    OptSpec::new(None, "quit-on-interrupt", None_, "quit-on-interrupt"),
    OptSpec::new(None, "reservation", Required, "reservation"),
    OptSpec::new(None, "signal", Required, "signal"),
    OptSpec::new(None, "task-epilog", Required, "task-epilog"),
    OptSpec::new(None, "task-prolog", Required, "task-prolog"),
    OptSpec::new(None, "tmp", Required, "tmp"),
    OptSpec::new(None, "usage", None_, "usage"),
    OptSpec::new(None, "wckey", Required, "wckey"),
    // accepted, not acted on
    OptSpec::new(Some('B'), "extra-node-info", Required, "accepted"),
    OptSpec::new(Some('S'), "core-spec", Required, "accepted"),
    OptSpec::new(Some('T'), "threads", Required, "accepted"),
    OptSpec::new(None, "cpu-bind", Required, "accepted"),
    OptSpec::new(None, "cpu-freq", Required, "accepted"),
    OptSpec::new(None, "gpu-bind", Required, "accepted"),
    OptSpec::new(None, "gpus-per-node", Required, "accepted"),
    OptSpec::new(None, "gpus-per-task", Required, "accepted"),
    OptSpec::new(None, "hint", Required, "accepted"),
    OptSpec::new(None, "mem-bind", Required, "accepted"),
    OptSpec::new(None, "acctg-freq", Required, "accepted"),
    OptSpec::new(None, "slurmd-debug", Required, "accepted"),
    OptSpec::new(None, "threads-per-core", Required, "accepted"),
];

/// srun's input variables (`man srun`, INPUT ENVIRONMENT VARIABLES): each
/// as the option it stands for, below the command line.
pub const ENV_VARS: &[(&str, &str)] = &[
    ("SLURM_ACCOUNT", "account"),
    ("SLURM_CPUS_PER_TASK", "cpus-per-task"),
    ("SLURM_DEPENDENCY", "dependency"),
    ("SLURM_DISTRIBUTION", "distribution"),
    ("SLURM_EXACT", "exact"),
    ("SLURM_EXCLUSIVE", "exclusive"),
    ("SLURM_EXPORT_ENV", "export"),
    ("SLURM_GRES", "gres"),
    ("SLURM_IMMEDIATE", "immediate"),
    ("SLURM_JOB_ID", "jobid"),
    ("SLURM_JOB_NAME", "job-name"),
    ("SLURM_KILL_BAD_EXIT", "kill-on-bad-exit"),
    ("SLURM_LABELIO", "label"),
    ("SLURM_MEM_PER_CPU", "mem-per-cpu"),
    ("SLURM_MEM_PER_NODE", "mem"),
    ("SLURM_MPI_TYPE", "mpi"),
    ("SLURM_NNODES", "nodes"),
    ("SLURM_JOB_NUM_NODES", "nodes"),
    ("SLURM_NTASKS", "ntasks"),
    ("SLURM_NPROCS", "ntasks"),
    ("SLURM_NTASKS_PER_NODE", "ntasks-per-node"),
    ("SLURM_OPEN_MODE", "open-mode"),
    ("SLURM_OVERCOMMIT", "overcommit"),
    ("SLURM_OVERLAP", "overlap"),
    ("SLURM_PARTITION", "partition"),
    ("SLURM_QOS", "qos"),
    ("SLURM_RESERVATION", "reservation"),
    ("SLURM_SIGNAL", "signal"),
    ("SLURM_STDERRMODE", "error"),
    ("SLURM_STDINMODE", "input"),
    ("SLURM_STDOUTMODE", "output"),
    ("SLURM_TASK_EPILOG", "task-epilog"),
    ("SLURM_TASK_PROLOG", "task-prolog"),
    ("SLURM_TIMELIMIT", "time"),
    ("SLURM_UNBUFFEREDIO", "unbuffered"),
    ("SLURM_WAIT", "wait"),
    ("SLURM_WCKEY", "wckey"),
    ("SLURM_WORKING_DIR", "chdir"),
];

/// What srun was asked.
#[derive(Clone, Debug, Default)]
pub struct SrunOpts {
    /// The allocation's description when srun makes its own.
    pub desc: JobDesc,
    pub step: StepRequest,
    /// `--exact` came from `-c` (srun -v says so).
    pub implied_exact: bool,
    pub io: IoSpec,
    pub jobid: Option<u32>,
    /// The job id came from `SLURM_JOB_ID` (not `--jobid`).
    pub jobid_from_env: bool,
    pub label: bool,
    pub verbose: u32,
    pub quiet: bool,
    pub immediate: Option<u64>,
    pub wait: Option<u64>,
    pub no_allocate: bool,
    pub quit_on_interrupt: bool,
    /// `-N` given on the command line (not from the environment).
    pub nodes_on_command_line: bool,
    pub ntasks_on_command_line: bool,
    pub export: Option<String>,
    /// `--propagate[=rlimits]` (`ALL` without a value).
    pub propagate: Option<String>,
    /// The `SLURM_RLIMIT_*` variables srun sends ([`rlimit_env`]).
    pub rlimits: Vec<(String, String)>,
    /// The options given, for `-v`'s block (name, value).
    pub set: Vec<(String, String)>,
}

fn fatal(msg: impl AsRef<str>, code: i32) -> Output {
    Output::err(format!("srun: fatal: {}\n", msg.as_ref()), code)
}

fn error(msg: impl AsRef<str>, code: i32) -> Output {
    Output::err(format!("srun: error: {}\n", msg.as_ref()), code)
}

fn flag_on(v: Option<&str>) -> bool {
    !matches!(v.map(|s| s.to_ascii_lowercase()).as_deref(), Some("0") | Some("no") | Some("false"))
}

/// The command line and environment, as srun reads them.
pub fn parse(args: &[String], env: &HashMap<String, String>, cwd: &str) -> Result<(SrunOpts, Vec<String>), Output> {
    let p = opts::parse("srun", SPECS, args, Mode::StopAtFirstOperand);
    if let Some(e) = p.error {
        return Err(e.into_output("srun", 255));
    }
    let mut o = SrunOpts { desc: alloc::base_desc(cwd), ..Default::default() };
    o.desc.submit_line = alloc::submit_line("srun", args);
    o.step.cpus_per_task = 1;
    o.io.cwd = cwd.to_string();
    // environment first, then the command line (later wins)
    let mut all: Vec<(&'static str, Option<String>, bool)> = Vec::new();
    for (var, id) in ENV_VARS {
        if let Some(v) = env.get(*var) {
            all.push((id, Some(v.clone()), false));
        }
    }
    for (id, v) in p.opts {
        if id == "help" {
            return Err(Output::ok(help()));
        }
        if id == "usage" {
            return Err(Output::ok(usage()));
        }
        if id == "version" {
            return Err(Output::ok(version_line()));
        }
        all.push((id, v, true));
    }
    for (id, v, cli) in all {
        let val = v.as_deref().unwrap_or("");
        if !matches!(id, "verbose" | "jobid" | "accepted") {
            o.set.push((id.to_string(), val.to_string()));
        }
        match id {
            "nodes" => {
                let (lo, hi) = alloc::node_range(val).map_err(|(m, code)| error(m, code))?;
                o.desc.min_nodes = Some(lo);
                o.desc.max_nodes = hi;
                o.step.min_nodes = Some(lo);
                o.step.max_nodes = hi;
                o.nodes_on_command_line |= cli;
            }
            "ntasks" => {
                let n = strtol(val, 10);
                if n.end != val.len() || n.value <= 0 || n.value > i32::MAX as i64 {
                    return Err(error(format!("Invalid numeric value \"{}\" for --ntasks.", val), 1));
                }
                o.desc.num_tasks = Some(n.value as u32);
                o.step.num_tasks = Some(n.value as u32);
                o.ntasks_on_command_line |= cli;
            }
            "cpus-per-task" => {
                let n = strtol(val, 10);
                if n.end != val.len() || n.value <= 0 || n.value > i32::MAX as i64 {
                    return Err(error(format!("Invalid numeric value \"{}\" for --cpus-per-task.", val), 1));
                }
                o.desc.cpus_per_task = Some(n.value as u32);
                o.step.cpus_per_task = n.value as u32;
            }
            "ntasks-per-node" => {
                let n = strtol(val, 10);
                if n.end != val.len() || n.value <= 0 {
                    return Err(error(format!("Invalid numeric value \"{}\" for --ntasks-per-node.", val), 1));
                }
                o.desc.ntasks_per_node = Some(n.value as u32);
                o.step.ntasks_per_node = Some(n.value as u32);
            }
            "job-name" => {
                // SLURM_JOB_NAME names an allocation, never a step
                o.desc.name = val.to_string();
                if cli {
                    o.step.name = val.to_string();
                }
            }
            "nodelist" => {
                o.desc.req_nodes = Some(val.to_string());
                o.step.node_list = Some(val.to_string());
            }
            "exclude" => {
                o.desc.exc_nodes = Some(val.to_string());
                o.step.exclude = Some(val.to_string());
            }
            "mem" => {
                let m = alloc::mem_mb(val).ok_or_else(|| fatal("--mem: invalid memory specification", 1))?;
                o.desc.mem_per_node = Some(m);
                o.step.mem_per_node = Some(m);
            }
            "mem-per-cpu" => {
                let m = alloc::mem_mb(val).ok_or_else(|| fatal("--mem-per-cpu: invalid memory specification", 1))?;
                o.desc.mem_per_cpu = Some(m);
                o.step.mem_per_cpu = Some(m);
            }
            "time" => {
                let m = spur_grammar::time::parse_job_time_limit(val)
                    .map_err(|_| error("Invalid --time specification", 255))?;
                o.desc.time_limit = Some(m.unwrap_or(u32::MAX));
                o.step.time_limit = m;
            }
            "relative" => {
                let n = strtol(val, 10);
                if n.end != val.len() || n.value < 0 {
                    return Err(error(format!("Invalid numeric value \"{}\" for --relative.", val), 1));
                }
                o.step.relative = Some(n.value as u32);
            }
            "distribution" => {
                let first = val.split([':', ',']).next().unwrap_or("");
                if !matches!(first, "block" | "cyclic" | "arbitrary" | "*") && !first.starts_with("plane") {
                    return Err(error("Invalid --distribution specification", 255));
                }
                o.step.distribution = if first == "*" { "block".into() } else { first.to_string() };
                if let Some(n) = val.strip_prefix("plane=") {
                    o.step.distribution = format!("plane={}", n);
                }
            }
            "overlap" => o.step.overlap = flag_on(v.as_deref()),
            // 24.11's: an MPI launcher's own daemons (Open MPI's mpirun
            // starts its orted with it, from OMPI_MCA_plm_slurm_args), a
            // step that shares the allocation's resources as --overlap does
            "external-launcher" => {
                if spur_core::compat::profile().release == spur_core::compat::Release::V22_05 {
                    return Err(Output {
                        stdout: String::new(),
                        stderr: "srun: unrecognized option '--external-launcher'\nTry \"srun --help\" for more information\n"
                            .into(),
                        code: 1,
                    });
                }
                o.step.overlap = true;
            }
            "exact" => o.step.exact = true,
            // salloc's `InteractiveStepOptions`: the job's interactive step
            "interactive" => o.step.interactive = true,
            "exclusive" => {
                o.step.exclusive = true;
                o.desc.exclusive = true;
            }
            "overcommit" => o.step.overcommit = true,
            "label" => o.label = flag_on(v.as_deref()),
            "unbuffered" => o.io.unbuffered = true,
            "kill-on-bad-exit" => o.io.kill_on_bad_exit = v.as_deref().map(|s| s != "0").unwrap_or(true),
            "multi-prog" => o.io.multi_prog = Some(String::new()),
            "task-prolog" => o.io.task_prolog = Some(val.to_string()),
            "task-epilog" => o.io.task_epilog = Some(val.to_string()),
            "pty" => {
                // task 0 on a terminal: unbuffered, the others' output and
                // input to /dev/null (`man srun`)
                o.io.pty = true;
                o.io.unbuffered = true;
                o.io.stdin_task = Some(0);
                o.io.stdout_task = Some(0);
                o.io.stderr_task = Some(0);
            }
            "open-mode" => o.io.open_mode_append = val.starts_with('a'),
            "chdir" => {
                let d = if val.starts_with('/') { val.to_string() } else { format!("{}/{}", cwd, val) };
                o.io.cwd = d.clone();
                o.desc.work_dir = d;
            }
            "output" => set_stream(val, &mut o.io.stdout_file, &mut o.io.stdout_task, None),
            "error" => set_stream(val, &mut o.io.stderr_file, &mut o.io.stderr_task, None),
            "input" => {
                let mut t = None;
                set_stream(val, &mut o.io.stdin_file, &mut t, Some(&mut o.io.stdin_task));
            }
            "jobid" => {
                // 24.11 reads the id with atoi (`abc` is job 0); 22.05 refuses it
                let n = strtol(val, 10);
                let v22 = spur_core::compat::profile().release == spur_core::compat::Release::V22_05;
                if v22 && (n.end == 0 || n.value <= 0) {
                    return Err(error(format!("Invalid numeric value \"{}\" for --jobid.", val), 1));
                }
                o.jobid = Some(n.value.clamp(0, u32::MAX as i64) as u32);
                o.jobid_from_env = !cli;
            }
            "verbose" => o.verbose += 1,
            "quiet" => o.quiet = true,
            "immediate" => o.immediate = Some(v.as_deref().map(|s| strtol(s, 10).value.max(1) as u64).unwrap_or(1)),
            "wait" => o.wait = Some(strtol(val, 10).value.max(0) as u64),
            "no-allocate" => o.no_allocate = true,
            "quit-on-interrupt" => o.quit_on_interrupt = true,
            "mpi" => {
                if val == "list" {
                    return Err(Output::ok(mpi_list()));
                }
                if !MPI_TYPES.contains(&val) {
                    return Err(error(
                        format!(
                            "Couldn't find the specified plugin name for mpi/{v} looking at all files\n\
                             srun: error: cannot find mpi plugin for mpi/{v}\n\
                             srun: error: MPI: Cannot create context for mpi/{v}\n\
                             srun: error: MPI: Unable to load any plugin\n\
                             srun: error: Invalid MPI type '{v}', --mpi=list for acceptable types",
                            v = val
                        ),
                        1,
                    ));
                }
                o.step.mpi = val.to_string();
            }
            "export" => o.export = Some(val.to_string()),
            "het-group" => {
                return Err(error("Heterogeneous job steps are not supported (--het-group)", 1));
            }
            "propagate" => {
                o.propagate = Some(v.clone().unwrap_or_else(|| "ALL".into()));
                let _ = alloc::apply_job_option(&mut o.desc, id, val);
            }
            "signal" => {
                // a job option: it acts on srun's own allocation only (B: is sbatch's)
                let names = spur_core::compat::profile().signal_names;
                if spur_grammar::signal::parse_signal_opts(val, false, names).is_err() {
                    return Err(error("Invalid --signal specification", 255));
                }
                o.desc.signal = Some(val.to_string());
            }
            "accepted" | "preserve-env" | "disable-status" | "no-kill" | "ntasks-per-core" | "oversubscribe"
            | "dependency" | "hold" | "nice" => {
                let _ = alloc::apply_job_option(&mut o.desc, id, val);
            }
            other => {
                if let Err((m, code)) = alloc::apply_job_option(&mut o.desc, other, val) {
                    return Err(error(m, code));
                }
            }
        }
    }
    if o.verbose > 0 {
        o.set.push(("verbose".into(), o.verbose.to_string()));
    }
    // -c (or SLURM_CPUS_PER_TASK) gives a step exactly its CPUs, not the
    // whole allocation (launch.c), unless --overcommit
    if o.desc.cpus_per_task.is_some() && !o.step.overcommit {
        o.implied_exact = !o.step.exact;
        o.step.exact = true;
    }
    if p.operands.is_empty() {
        return Err(fatal("No command given to execute.", 1));
    }
    if o.no_allocate && o.step.node_list.is_none() {
        return Err(error("must specify a node list with -Z, --no-allocate.", 1));
    }
    if o.no_allocate && o.step.exclude.is_some() {
        return Err(error("can not specify --exclude list with -Z, --no-allocate.", 1));
    }
    if o.no_allocate && o.step.relative.is_some() {
        return Err(error("do not specify -r,--relative with -Z,--no-allocate.", 1));
    }
    node_list_and_hostfile(&mut o, env, cwd)?;
    if let Some(p) = &o.propagate {
        // (srun's _set_rlimit_env; recorded/24.11/srun_stepopts/17-19)
        if let Err(m) = alloc::parse_rlimits(p, true, &mut [false; 10]) {
            return Err(Output::err(format!("srun: error: {}\nsrun: error: --propagate={} is not valid.\n", m, p), 1));
        }
    }
    let mut argv = p.operands.clone();
    if o.io.multi_prog.is_some() {
        let path = &argv[0];
        let full = if path.starts_with('/') { path.clone() } else { format!("{}/{}", cwd, path) };
        match std::fs::read_to_string(&full) {
            Ok(t) => {
                check_multi_prog(&t, path, o.step.num_tasks.unwrap_or(1)).map_err(|m| error(m, 1))?;
                o.io.multi_prog = Some(t);
            }
            Err(_) => return Err(error(format!("Could not open multi_prog config file {}", path), 1)),
        }
    }
    if o.desc.name.is_empty() {
        o.desc.name = argv[0].rsplit('/').next().unwrap_or(&argv[0]).to_string();
    }
    if o.step.name.is_empty() {
        o.step.name = argv[0].rsplit('/').next().unwrap_or(&argv[0]).to_string();
    }
    o.step.work_dir = o.io.cwd.clone();
    o.step.submit_line = o.desc.submit_line.clone();
    o.io.argv = std::mem::take(&mut argv);
    o.io.label = o.label;
    Ok((o, p.operands))
}

/// The node list as srun reads it: `SLURM_HOSTFILE` when no `-w` is given
/// (a file, `./NAME` when it has no `/`, and the `arbitrary` distribution);
/// a list naming a file (a `/` in it) is the file's hosts
/// (`verify_node_list`, `slurm_read_hostfile`). With `arbitrary` the list
/// names each task's node in task order (read up to `-n` names), and the
/// task count is its length (recorded/24.11/srun_stepopts/31-38).
fn node_list_and_hostfile(o: &mut SrunOpts, env: &HashMap<String, String>, cwd: &str) -> Result<(), Output> {
    let mut from_env = false;
    if o.step.node_list.is_none() {
        if let Some(h) = env.get("SLURM_HOSTFILE").filter(|h| !h.is_empty()) {
            o.step.node_list = Some(if h.contains('/') { h.clone() } else { format!("./{}", h) });
            o.step.distribution = "arbitrary".into();
            from_env = true;
        }
    }
    let arbitrary = o.step.distribution == "arbitrary";
    if arbitrary && o.nodes_on_command_line {
        return Err(error("--nodes is incompatible with --distribution=arbitrary", 1));
    }
    let Some(list) = o.step.node_list.clone() else { return Ok(()) };
    let fail = |m: String| {
        let more = if from_env { "\nsrun: error: Failure getting NodeNames from hostfile" } else { "" };
        error(format!("{}{}", m, more), 1)
    };
    let hosts: Vec<String> = if list.contains('/') {
        let full = if list.starts_with('/') { list.clone() } else { format!("{}/{}", cwd, list) };
        let text = std::fs::read_to_string(&full).map_err(|e| {
            let e = nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(libc::EIO)).desc();
            fail(format!("slurm_allocate_resources error opening file {}, {}", list, e))
        })?;
        let count = if arbitrary && o.ntasks_on_command_line { o.step.num_tasks.map(|n| n as usize) } else { None };
        spur_grammar::hostlist::read_hostfile(&list, &text, count).map_err(fail)?
    } else if arbitrary {
        spur_grammar::hostlist::expand_bounded(&list, 1 << 20).map_err(|_| error("Invalid node list specified", 1))?
    } else {
        return Ok(());
    };
    let mut unique: Vec<String> = Vec::new();
    for h in &hosts {
        if !unique.contains(h) {
            unique.push(h.clone());
        }
    }
    o.desc.req_nodes = Some(unique.join(","));
    if arbitrary {
        // each task's node, in order: the step's layout follows it
        o.step.node_list = Some(hosts.join(","));
        if !o.ntasks_on_command_line {
            o.step.num_tasks = Some(hosts.len() as u32);
        }
        o.step.min_nodes = None;
        o.step.max_nodes = None;
        // srun's own allocation holds each node's tasks: the scheduler
        // spreads a job's tasks evenly, so it asks for the most any node
        // runs on every node (slurmctld lays the job out by the list itself)
        let most = unique.iter().map(|u| hosts.iter().filter(|h| *h == u).count()).max().unwrap_or(1) as u32;
        o.desc.min_nodes = Some(unique.len() as u32);
        o.desc.max_nodes = None;
        o.desc.ntasks_per_node = Some(most);
        o.desc.num_tasks = Some(most.saturating_mul(unique.len() as u32));
    } else {
        o.step.node_list = o.desc.req_nodes.clone();
    }
    Ok(())
}

/// srun's `SLURM_RLIMIT_<NAME>` variables (`_set_rlimit_env`): the limits
/// slurm.conf's `PropagateResourceLimitsExcept` does not name, or
/// `PropagateResourceLimits` names (default `ALL`), unless `--propagate`
/// names others; a limit `--propagate` asked for is marked `U` (the task
/// sets it even above the node's hard limit, or fails). `limits` are srun's
/// own soft limits.
pub fn rlimit_env(
    conf_propagate: Option<&str>,
    conf_except: Option<&str>,
    opt: Option<&str>,
    limits: &[(&'static str, u64)],
) -> Vec<(String, String)> {
    let mut flags = [true; 10];
    // (a bad configured list: slurmctld would not start; srun keeps ALL)
    let _ = match conf_except.filter(|e| !e.is_empty()) {
        Some(e) => alloc::parse_rlimits(e, false, &mut flags),
        None => alloc::parse_rlimits(conf_propagate.unwrap_or("ALL"), true, &mut flags),
    };
    if let Some(p) = opt {
        let _ = alloc::parse_rlimits(p, true, &mut flags);
    }
    let mut out = Vec::new();
    for ((name, _), on) in alloc::RLIMITS.iter().zip(flags) {
        if let Some((_, v)) = limits.iter().find(|(n, _)| n == name).filter(|_| on) {
            let u = if opt.is_some() { "U" } else { "" };
            out.push((format!("SLURM_RLIMIT_{}", name), format!("{}{}", u, v)));
        }
    }
    out
}

/// The MPI plugins srun knows (`--mpi`): `none` runs tasks without any.
const MPI_TYPES: &[&str] = &["none", "pmix", "pmix_v4", "pmix_v5", "pmi2", "cray_shasta"];

/// The step's MPI type: `--mpi` (or `SLURM_MPI_TYPE`), else slurm.conf's
/// `MpiDefault`; `none` is no type at all (the tasks get no
/// `SLURM_MPI_TYPE`: recorded/24.11/mpi_pmi2/03).
fn mpi_type(given: &str, default: Option<&str>) -> String {
    let t = if given.is_empty() { default.unwrap_or("") } else { given };
    if t.eq_ignore_ascii_case("none") {
        String::new()
    } else {
        t.to_string()
    }
}

/// `srun --mpi=list`, as each release prints it.
fn mpi_list() -> String {
    if spur_core::compat::profile().release == spur_core::compat::Release::V22_05 {
        "MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n"
            .into()
    } else {
        "MPI plugin types are...\n\tnone\n\tpmix\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v5\n"
            .into()
    }
}

/// srun's checks of a `--multi-prog` configuration for `ntasks` tasks
/// (`verify_multi_name`): every task id named is below the task count, and
/// every task has a line.
pub fn check_multi_prog(conf: &str, name: &str, ntasks: u32) -> Result<(), String> {
    let mut covered = vec![false; ntasks.min(1 << 20) as usize];
    for (i, line) in conf.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let ranks = line.split_whitespace().next().unwrap_or("");
        let bad = || format!("Line {} of configuration file {} invalid", i + 1, name);
        if ranks == "*" {
            covered.iter_mut().for_each(|c| *c = true);
            continue;
        }
        for r in ranks.split(',') {
            let (lo, hi) = match r.split_once('-') {
                Some((a, b)) => (a.parse::<u32>().map_err(|_| bad())?, b.parse::<u32>().map_err(|_| bad())?),
                None => {
                    let v = r.parse::<u32>().map_err(|_| bad())?;
                    (v, v)
                }
            };
            for t in lo..=hi {
                match covered.get_mut(t as usize) {
                    Some(c) => *c = true,
                    None => return Err(format!("Invalid task id, {} >= ntasks\nsrun: error: {}", t, bad())),
                }
            }
        }
    }
    match covered.iter().position(|c| !c) {
        Some(t) => Err(format!("Configuration file {} invalid, no record for task id {}", name, t)),
        None => Ok(()),
    }
}

/// `--output`/`--error`/`--input`: `all`, `none`, a task number, or a file pattern.
fn set_stream(v: &str, file: &mut Option<String>, task: &mut Option<u32>, stdin_task: Option<&mut Option<u32>>) {
    let numeric = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    match v {
        // a name beginning with `all` is srun's `all` mode (recorded/24.11/srun_basic/067)
        _ if v.starts_with("all") || v == "a" || v == "A" => {}
        "none" | "n" | "N" => match stdin_task {
            Some(t) => *t = Some(u32::MAX),
            None => *file = Some("/dev/null".into()),
        },
        _ if numeric => {
            let n: u32 = v.parse().unwrap_or(0);
            match stdin_task {
                Some(t) => *t = Some(n),
                None => *task = Some(n),
            }
        }
        _ => *file = Some(v.to_string()),
    }
}

/// The lines srun prints for tasks that did not end well, one per node and
/// outcome: `srun: error: node1: tasks 0,2-3: Exited with exit code 3`.
pub fn exit_lines(step: &Step, exits: &BTreeMap<u32, i32>) -> String {
    let mut out = String::new();
    for (k, a) in step.allocs.iter().enumerate() {
        let mut by: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        for t in step.task_ids.get(k).cloned().unwrap_or_default() {
            let Some(&st) = exits.get(&t) else { continue };
            let what = if st & 0x7f != 0 {
                let sig = st & 0x7f;
                let mut s = errors::signal_text(sig);
                if st & 0x80 != 0 {
                    s.push_str(" (core dumped)");
                }
                s
            } else if (st >> 8) & 0xff != 0 {
                format!("Exited with exit code {}", (st >> 8) & 0xff)
            } else {
                continue;
            };
            if !by.contains_key(&what) {
                order.push(what.clone());
            }
            by.entry(what).or_default().push(t);
        }
        for what in order {
            let tasks = &by[&what];
            let list = spur_core::model::ranges(tasks);
            out.push_str(&format!(
                "srun: error: {}: task{} {}: {}\n",
                a.node,
                if tasks.len() > 1 { "s" } else { "" },
                list,
                what
            ));
        }
    }
    out
}

/// srun's exit status from its tasks' wait statuses.
pub fn exit_code(exits: &BTreeMap<u32, i32>) -> i32 {
    let mut code = 0;
    for &st in exits.values() {
        let c = if st & 0x7f != 0 { 128 + (st & 0x7f) } else { (st >> 8) & 0xff };
        code = code.max(c);
    }
    code
}

/// The environment the tasks start from: srun's own, or as `--export` says.
fn base_env(o: &SrunOpts, env: &HashMap<String, String>) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    all.sort();
    match o.export.as_deref() {
        None | Some("ALL") | Some("") => all,
        Some(spec) => {
            let mut out = Vec::new();
            let items: Vec<&str> = spec.split(',').collect();
            let keep_all = items.first() == Some(&"ALL");
            for (k, v) in &all {
                if keep_all || k.starts_with("SLURM_") || items.contains(&k.as_str()) {
                    out.push((k.clone(), v.clone()));
                }
            }
            for it in items {
                if let Some((k, v)) = it.split_once('=') {
                    // with ALL the caller's own value stays (recorded/24.11/srun_basic/129)
                    if keep_all && out.iter().any(|(x, _)| x == k) {
                        continue;
                    }
                    out.retain(|(x, _)| x != k);
                    out.push((k.to_string(), v.to_string()));
                }
            }
            out
        }
    }
}

/// What srun's environment additions depend on ([`spur_core::launch::srun_env`]).
fn srun_env_input(o: &SrunOpts, working_cluster: String) -> spur_core::launch::SrunEnv {
    spur_core::launch::SrunEnv {
        own_allocation: o.jobid.is_none(),
        export_limited: !matches!(o.export.as_deref(), None | Some("ALL") | Some(""))
            && !o.export.as_deref().is_some_and(|e| e.starts_with("ALL,")),
        distribution: o.step.distribution.clone(),
        num_tasks: o.step.num_tasks,
        min_nodes: o.step.min_nodes,
        cpus_per_task: o.desc.cpus_per_task,
        ntasks_per_node: o.step.ntasks_per_node,
        mem_per_node: o.step.mem_per_node,
        mem_per_cpu: o.step.mem_per_cpu,
        verbose: o.verbose,
        quiet: o.quiet,
        step_name: o.step.name.clone(),
        working_cluster,
    }
}

/// Print a task's output as it comes: whole lines (labelled `N: ` with
/// `--label`), or bytes as they come with `--unbuffered`.
struct Printer {
    label: bool,
    width: usize,
    unbuffered: bool,
    partial: HashMap<(u32, bool), Vec<u8>>,
}

impl Printer {
    fn write(&mut self, task: u32, stderr: bool, data: &[u8]) {
        if self.unbuffered && !self.label {
            out(stderr, data);
            return;
        }
        let buf = self.partial.entry((task, stderr)).or_default();
        buf.extend_from_slice(data);
        let mut text = Vec::new();
        while let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).collect();
            if self.label {
                text.extend_from_slice(format!("{:>w$}: ", task, w = self.width).as_bytes());
            }
            text.extend_from_slice(&line);
        }
        if !text.is_empty() {
            out(stderr, &text);
        }
    }

    /// What is left of a task's last line, when it ends.
    fn flush(&mut self, task: u32) {
        for stderr in [false, true] {
            if let Some(rest) = self.partial.remove(&(task, stderr)).filter(|r| !r.is_empty()) {
                let mut text = Vec::new();
                if self.label {
                    text.extend_from_slice(format!("{:>w$}: ", task, w = self.width).as_bytes());
                }
                text.extend_from_slice(&rest);
                out(stderr, &text);
            }
        }
    }
}

fn out(stderr: bool, data: &[u8]) {
    if stderr {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(data);
        let _ = e.flush();
    } else {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(data);
        let _ = o.flush();
    }
}

/// The signals srun takes itself (blocked, then taken with sigwait).
fn srun_signals() -> nix::sys::signal::SigSet {
    use nix::sys::signal::Signal::*;
    let mut s = nix::sys::signal::SigSet::empty();
    for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGTSTP, SIGALRM] {
        s.add(sig);
    }
    s
}

enum Msg {
    Io(Event),
    Signal(i32),
}

pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let cwd = std::env::current_dir().map(|p| p.to_string_lossy().to_string()).unwrap_or_else(|_| "/".into());
    let (mut o, _) = match parse(args, env, &cwd) {
        Ok(r) => r,
        Err(out) => return emit(&out),
    };
    if o.verbose > 0 {
        eprint!("{}", alloc::defined_options("srun", &o.set));
        if o.implied_exact {
            eprintln!("srun: Implicitly setting --exact, because -c/--cpus-per-task given.");
        }
    }
    if o.io.pty {
        // --pty needs a terminal on srun's stdin; without one srun goes on
        // without (salloc's interactive step with its input from a pipe)
        let mut ws = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: TIOCGWINSZ writes one winsize into `ws`.
        if unsafe { libc::ioctl(0, libc::TIOCGWINSZ, &mut ws) } != 0 {
            eprintln!("srun: error: ioctl(TIOCGWINSZ): {}", errno_text(std::io::Error::last_os_error()));
            eprintln!("srun: error: Not using a pseudo-terminal, disregarding --pty option");
            o.io.pty = false;
        }
    }
    // signals are srun's from the start: the threads started below inherit the mask
    let waited = srun_signals();
    let _ = waited.thread_block();
    // one thread takes srun's signals for its whole life: while it waits
    // for its allocation a terminating one gives the allocation up
    let aborted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (sig_tx, sig_rx) = std::sync::mpsc::channel::<i32>();
    {
        let aborted = aborted.clone();
        std::thread::spawn(move || loop {
            if let Ok(sig) = waited.wait() {
                use nix::sys::signal::Signal::*;
                if matches!(sig, SIGINT | SIGTERM | SIGHUP | SIGQUIT) {
                    aborted.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                if sig_tx.send(sig as i32).is_err() {
                    return;
                }
            }
        });
    }
    let c = match spur_cli_base::process::client("srun") {
        Ok(c) => spur_client::blocking::Client::new(c.conf().clone(), &spur_client::conf_path()),
        Err(out) => return emit(&out),
    };
    o.step.mpi = mpi_type(&o.step.mpi, c.conf().get("MpiDefault"));
    o.rlimits = rlimit_env(
        c.conf().get("PropagateResourceLimits"),
        c.conf().get("PropagateResourceLimitsExcept"),
        o.propagate.as_deref(),
        &alloc::current_rlimits(),
    );
    if o.verbose > 1 {
        // (srun's debug lines: recorded/24.11/srun_stepopts/37)
        let mut t = String::new();
        for (k, v) in &o.rlimits {
            t.push_str(&format!("srun: debug:  propagating {}={}\n", &k["SLURM_".len()..], v.trim_start_matches('U')));
        }
        t.push_str(&format!("srun: debug:  propagating SLURM_PRIO_PROCESS={}\n", nix_priority()));
        t.push_str(&format!("srun: debug:  propagating UMASK={:04o}\n", o.desc.umask));
        eprint!("{}", t);
    }
    // srun itself may open as many files as it can (rlimits_use_max_nofile)
    if let Ok((_, max)) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE) {
        let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, max, max);
    }

    // the allocation: none (--no-allocate), the one srun runs in, or its own
    let mut own = false;
    if o.no_allocate {
        if !o.quiet {
            eprintln!("srun: do not allocate resources");
        }
        let job = noalloc_job(&o);
        o.step.job_id = job.job_id;
        o.jobid = Some(job.job_id);
        return run_step(&c, &mut o, &job, env, sig_rx);
    }
    let job = match o.jobid {
        Some(id) => match alloc::job(&c, id) {
            Some(j) if j.state == JobState::Running => j,
            Some(j) if j.state == JobState::Pending => {
                eprintln!(
                    "srun: error: Unable to create step for job {}: {}",
                    id,
                    errors::strerror(errors::ESLURM_JOB_PENDING)
                );
                return 1;
            }
            _ => {
                eprintln!(
                    "srun: error: Unable to confirm allocation for job {}: {}",
                    id,
                    errors::strerror(errors::ESLURM_INVALID_JOB_ID)
                );
                eprintln!("srun: Check SLURM_JOB_ID environment variable. Expired or invalid job {}", id);
                return 1;
            }
        },
        None => {
            own = true;
            match allocate(&c, &o, &aborted) {
                Ok(j) => j,
                Err(code) => return code,
            }
        }
    };
    o.step.job_id = job.job_id;
    if !own {
        if let Some(n) = o.step.min_nodes.filter(|&n| n as usize > job.allocs.len()) {
            eprintln!("srun: error: Only allocated {} nodes asked for {}", job.allocs.len(), n);
            return 1;
        }
    }
    let code = run_step(&c, &mut o, &job, env, sig_rx);
    if own {
        let _ = c.release_allocation(job.job_id, if code > 128 { code - 128 } else { code << 8 });
    }
    code
}

/// The job `--no-allocate` runs its step as (srun's `job_create_noalloc`):
/// a random id of Slurm's no-allocation range, the nodes named, each with
/// the tasks' share of CPUs, the caller's identity. The controller lays the
/// step out on the same terms.
fn noalloc_job(o: &SrunOpts) -> Job {
    let nodes = o
        .step
        .node_list
        .as_deref()
        .and_then(|l| spur_grammar::hostlist::expand_bounded(l, 1 << 20).ok())
        .unwrap_or_default();
    let nn = nodes.len().max(1) as u32;
    let ntasks = o.step.num_tasks.unwrap_or(nn).max(1);
    let cpn = ntasks.div_ceil(nn).saturating_mul(o.step.cpus_per_task.max(1));
    let seed =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0)
            ^ std::process::id().wrapping_mul(2_654_435_761);
    let ids = spur_core::launch::NOALLOC_JOB_IDS;
    Job {
        job_id: ids.start() + seed % (ids.end() - ids.start() + 1),
        user_id: nix::unistd::getuid().as_raw(),
        group_id: nix::unistd::getgid().as_raw(),
        state: JobState::Running,
        allocs: nodes
            .into_iter()
            .map(|node| spur_core::model::NodeAlloc { node, cpus: cpn, ..Default::default() })
            .collect(),
        desc: o.desc.clone(),
        ..Default::default()
    }
}

/// srun's own allocation: submitted, then waited for.
fn allocate(c: &Client, o: &SrunOpts, aborted: &std::sync::atomic::AtomicBool) -> Result<Job, i32> {
    let mut desc = o.desc.clone();
    desc.request_id = spur_auth::random_hex(12).ok();
    desc.command = o.io.argv.first().cloned();
    // (22.05 shows an allocation's Command= for srun's, not salloc's)
    desc.argv = o.io.argv.first().cloned().into_iter().collect();
    let id = match c.submit(&desc, false) {
        Ok(r) => r.job_id,
        Err(ClientError::Rejected { message, user_msg, .. }) => {
            for l in user_msg.lines().filter(|l| !l.is_empty()) {
                eprintln!("srun: error: {}", l);
            }
            eprintln!("srun: error: Unable to allocate resources: {}", message);
            return Err(1);
        }
        Err(e) => {
            eprintln!("srun: error: Unable to allocate resources: {}", e);
            return Err(1);
        }
    };
    if o.verbose > 1 {
        // (srun's allocation message thread; its port line is left out: Spur has no such listener)
        eprintln!("srun: debug:  Entering slurm_allocation_msg_thr_create()\nsrun: debug:  Entering _msg_thr_internal");
        if spur_core::compat::release() == spur_core::compat::Release::V22_05 {
            // (recorded/22.05/srun_stepopts/39)
            eprintln!(
                "srun: debug:  auth/munge: init: Munge authentication plugin loaded\n\
                 srun: debug:  hash/k12: init: init: KangarooTwelve hash plugin loaded"
            );
        }
    }
    let quiet = o.quiet;
    let immediate = o.immediate.is_some();
    let mut waited = false;
    let job = alloc::wait_running(c, id, o.immediate.map(Duration::from_secs), aborted, |j| {
        if !quiet && !immediate {
            waited = true;
            eprint!("{}", alloc::partition_config_line("srun", j));
            eprintln!("srun: job {} queued and waiting for resources", id);
        }
    });
    if aborted.load(std::sync::atomic::Ordering::SeqCst) && job.as_ref().is_some_and(|j| j.state == JobState::Pending) {
        // a signal while waiting: the allocation is given up
        let _ = c.cancel(&spur_core::request::CancelRequest { job_ids: vec![id.to_string()], ..Default::default() });
        return Err(1);
    }
    match job {
        Some(j) if j.state == JobState::Running => {
            if waited {
                eprintln!("srun: job {} has been allocated resources", id);
            }
            if o.verbose > 0 {
                eprint!("{}", alloc::nodes_ready_line("srun", &j, false));
            }
            Ok(j)
        }
        Some(j) if j.state == JobState::Pending => {
            // --immediate: the job fails, as slurmctld fails an allocation it cannot start at once
            let _ = c.release_allocation(id, 1 << 8);
            eprintln!("srun: error: Unable to allocate resources: Requested nodes are busy");
            Err(1)
        }
        _ => {
            eprintln!("srun: error: Unable to allocate resources: Job/step already completing or completed");
            Err(1)
        }
    }
}

fn run_step(
    c: &Client,
    o: &mut SrunOpts,
    job: &Job,
    env: &HashMap<String, String>,
    signals: std::sync::mpsc::Receiver<i32>,
) -> i32 {
    // inside an allocation, its task count applies unless -n says otherwise;
    // -N (given or the allocation's) gives way to a smaller -n (srun's opt.c)
    let old = spur_core::compat::profile().srun_warnings_22_05;
    let warning = if old { "Warning" } else { "warning" };
    if let (Some(n), Some(nn)) = (o.step.num_tasks, o.step.min_nodes) {
        if n < nn {
            eprintln!("srun: {}: can't run {} processes on {} nodes, setting nnodes to {}", warning, n, nn, n);
            o.step.min_nodes = Some(n);
            o.step.max_nodes = None;
        }
    }
    if let Some(npn) = o.step.ntasks_per_node {
        let nodes_from_env = o.step.min_nodes.is_some() && !o.nodes_on_command_line;
        if o.step.num_tasks.is_some() && !o.ntasks_on_command_line && !nodes_from_env {
            // an inherited task count gives way to --ntasks-per-node
            o.step.num_tasks = None;
        } else if let (Some(n), Some(max)) = (o.step.num_tasks, o.step.max_nodes.or(o.step.min_nodes)) {
            // only a step's (an allocation's request would be refused)
            if n > max * npn && o.jobid.is_some() {
                eprintln!(
                    "srun: {}: can't honor --ntasks-per-node set to {} which doesn't match the requested tasks {} \
                     with the {}number of requested nodes {}. Ignoring --ntasks-per-node.",
                    warning,
                    npn,
                    n,
                    if old { "" } else { "maximum " },
                    max
                );
                o.step.ntasks_per_node = None;
            }
        }
    }
    let (io, events) = match StepIo::listen() {
        Ok(io) => io,
        Err(e) => {
            eprintln!("srun: error: Unable to create I/O listener: {}", e);
            return 1;
        }
    };
    o.io.io_addr = format!(":{}", io.port());
    o.io.io_key = io.key().to_vec();
    o.step.srun_pid = std::process::id();
    // a retry after a lost reply gets the same step
    o.step.request_id = spur_auth::random_hex(12).ok();
    o.step.srun_host = alloc::hostname();
    let mut base = base_env(o, env);
    // what srun adds for its tasks (the step's layout is added on each node)
    // (an MPI type of `none` leaves no SLURM_MPI_TYPE, even one srun was
    // given: recorded/24.11/mpi_pmi2/04; the step's own is added on each node)
    base.retain(|(k, _)| {
        !matches!(k.as_str(), "SLURM_UMASK" | "SLURM_PRIO_PROCESS" | "SLURM_LABELIO" | "SLURM_MPI_TYPE")
            && !k.starts_with("SLURM_RLIMIT_")
    });
    base.extend(o.rlimits.iter().cloned());
    base.push(("SLURM_UMASK".into(), format!("{:04o}", o.desc.umask)));
    base.push(("SLURM_PRIO_PROCESS".into(), nix_priority().to_string()));
    if o.label {
        base.push(("SLURM_LABELIO".into(), "1".into()));
    }
    let working_cluster = spur_core::launch::working_cluster(c.conf());
    spur_core::launch::srun_env(&mut base, &srun_env_input(o, working_cluster), job);
    if o.no_allocate {
        // as srun's own allocation's (recorded/24.11/srun_stepopts/42, 22.05/42)
        base.retain(|(k, _)| k != "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0");
        if spur_core::compat::profile().env_24_11_variables {
            if let Some(g) = spur_auth::users::group_name(job.group_id) {
                spur_core::launch::env_set(&mut base, "SLURM_JOB_GROUP", g);
            }
        }
    }
    // the step's variables depend on its layout: create it first with the
    // base environment, which the step daemons extend per node and task
    // srun's step creation loop (launch.c): a step the job's other steps
    // leave no room for waits until one of them ends, or for
    // (pid % 10) + SlurmctldTimeout (60 to 300) seconds, and tries again;
    // 24.11 says so only after a wait that timed out, 22.05 at once
    let v22 = spur_core::compat::profile().release == spur_core::compat::Release::V22_05;
    let started = Instant::now();
    let mut tries = 0u32;
    let step = loop {
        let mut create = StepCreate { req: o.step.clone(), io: o.io.clone() };
        create.io.env = base.clone();
        match c.step_create(&create) {
            Ok(s) => {
                if tries > 0 {
                    if v22 {
                        eprintln!("srun: Step created for job {}", job.job_id);
                    } else {
                        eprintln!("srun: Step created for StepId={}.{}", job.job_id, s.step_id);
                    }
                }
                break s;
            }
            Err(spur_client::StepError { error: e, .. }) if e.code() == errors::ESLURM_NODES_BUSY => {
                let reason = errors::strerror(errors::ESLURM_NODES_BUSY);
                let say = |first: bool| {
                    let how = if first { "temporarily" } else { "still" };
                    eprintln!("srun: Job {} step creation {} disabled, retrying ({})", job.job_id, how, reason);
                };
                if let Some(t) = o.immediate {
                    if t <= 1 || started.elapsed() >= Duration::from_secs(t) {
                        eprintln!("srun: error: Unable to create step for job {}: {}", job.job_id, reason);
                        return 1;
                    }
                }
                if v22 && tries == 0 {
                    say(true);
                }
                let wait = match o.immediate {
                    Some(t) => Duration::from_secs(t.saturating_sub(started.elapsed().as_secs()).max(1)),
                    None => {
                        let timeout =
                            c.conf().get("SlurmctldTimeout").and_then(|v| v.parse::<u64>().ok()).unwrap_or(120);
                        Duration::from_secs(std::process::id() as u64 % 10 + timeout.clamp(60, 300))
                    }
                };
                let timed_out = wait_for_a_step_end(c, job.job_id, wait);
                if v22 && tries > 0 || !v22 && timed_out {
                    say(tries == 0);
                }
                tries += 1;
            }
            Err(spur_client::StepError { error: e, node, step_id }) => {
                let msg = match e {
                    ClientError::Slurm(code, _) | ClientError::Rejected { code, .. } => errors::strerror(code),
                    other => other.to_string(),
                };
                match node {
                    // the step was created and could not start on a node
                    Some(n) => {
                        eprintln!(
                            "srun: error: Task launch for StepId={}.{} failed on node {}: {}",
                            job.job_id,
                            step_id.unwrap_or(0),
                            n,
                            msg
                        );
                        eprintln!("srun: error: Application launch failed: {}", msg);
                    }
                    None => eprintln!("srun: error: Unable to create step for job {}: {}", job.job_id, msg),
                }
                return 1;
            }
        }
    };
    if o.verbose > 0 {
        let v22 = spur_core::compat::profile().release == spur_core::compat::Release::V22_05;
        let mut t = format!(
            "srun: jobid {}: nodes({}):`{}', cpu counts: {}\n",
            job.job_id,
            step.allocs.len(),
            spur_grammar::hostlist::compress(&step.node_names()),
            cpu_counts(&step.allocs.iter().map(|a| a.cpus).collect::<Vec<_>>())
        );
        let debug = o.verbose > 1;
        if debug {
            // (24.11's opt.uid is SLURM_AUTH_NOBODY, 99, 22.05's the caller's;
            // `relative` NO_VAL16 when not asked: recorded/24.11/srun_stepopts/39)
            let uid = if v22 { nix::unistd::getuid().as_raw() } else { 99 };
            t.push_str(&format!(
                "srun: debug:  requesting job {}, user {}, nodes {} including ({})\n\
                 srun: debug:  cpus {}, tasks {}, name {}, relative {}\n",
                job.job_id,
                uid,
                step.allocs.len(),
                o.step.node_list.as_deref().unwrap_or("(null)"),
                step.num_tasks.saturating_mul(step.cpus_per_task.max(1)),
                step.num_tasks,
                step.name,
                o.step.relative.unwrap_or(65534)
            ));
        }
        t.push_str(if v22 {
            "srun: launch/slurm: launch_p_step_launch: CpuBindType=(null type)\n"
        } else {
            "srun: CpuBindType=(null type)\n"
        });
        if debug {
            t.push_str("srun: debug:  Entering slurm_step_launch\n");
            if v22 {
                t.push_str("srun: debug:  mpi/none: mpi_p_client_prelaunch: Using mpi/none\n");
            }
            t.push_str(&format!(
                "srun: debug:  Entering _msg_thr_create()\n\
                 srun: debug:  initialized stdio listening socket, port {}\nsrun: debug:  Started IO server thread\n\
                 srun: debug:  Entering _launch_tasks\n",
                io.port()
            ));
        }
        for (a, ids) in step.allocs.iter().zip(&step.task_ids) {
            t.push_str(&format!(
                "srun: launching StepId={}.{} on host {}, {} tasks: {}\n",
                job.job_id,
                step.step_id,
                a.node,
                ids.len(),
                spur_core::model::ranges(ids)
            ));
        }
        t.push_str(if v22 {
            "srun: route/default: init: route default plugin loaded\n"
        } else {
            "srun: topology/default: init: topology Default plugin loaded\n"
        });
        if debug {
            for _ in &step.allocs {
                t.push_str("srun: debug:  launch returned msg_rc=0 err=0 type=8001\n");
            }
        }
        eprint!("{}", t);
    }
    stream(c, o, job, &step, io, events, signals)
}

/// The step runs: output, stdin, signals, exits.
fn stream(
    c: &Client,
    o: &SrunOpts,
    job: &Job,
    step: &Step,
    io: StepIo,
    events: std::sync::mpsc::Receiver<Event>,
    signals: std::sync::mpsc::Receiver<i32>,
) -> i32 {
    let nnodes = step.allocs.len() as u32;
    let (tx, rx) = std::sync::mpsc::channel::<Msg>();
    let io = std::sync::Arc::new(io);
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            while let Ok(sig) = signals.recv() {
                if tx.send(Msg::Signal(sig)).is_err() {
                    return;
                }
            }
        });
    }
    // stdin: to every task, one task, or none
    if o.io.stdin_file.is_none() && o.io.stdin_task != Some(u32::MAX) {
        let io = io.clone();
        let task = o.io.stdin_task;
        let node = task.and_then(|t| step.task_ids.iter().position(|ids| ids.contains(&t)).map(|n| n as u32));
        let nnodes = nnodes as usize;
        std::thread::spawn(move || {
            // the step daemons must be there to take it
            let t0 = Instant::now();
            while io.connected() < nnodes && t0.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(5));
            }
            let mut buf = vec![0u8; 64 * 1024];
            let mut stdin = std::io::stdin().lock();
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => io.stdin(node, task, &buf[..n]),
                }
            }
            io.stdin_eof();
        });
    }
    // the events of the step daemons, through one channel with the signals
    let etx = tx.clone();
    std::thread::spawn(move || {
        while let Ok(ev) = events.recv() {
            if etx.send(Msg::Io(ev)).is_err() {
                return;
            }
        }
    });
    drop(tx);
    // --pty: the local terminal passes every key through while the step runs
    let _raw = if o.io.pty { RawTerminal::enter() } else { None };
    let width = if o.label { step.num_tasks.saturating_sub(1).to_string().len() } else { 0 };
    let mut pr = Printer { label: o.label, width, unbuffered: o.io.unbuffered, partial: HashMap::new() };
    let mut exits: BTreeMap<u32, i32> = BTreeMap::new();
    let mut done_nodes = 0u32;
    let mut last_int: Option<Instant> = None;
    let mut aborted = false;
    let mut terminating = false;
    let mut first_exit: Option<Instant> = None;
    let mut fences: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut names: HashMap<String, String> = HashMap::new();
    // a PMIx abort's status, which Slurm's srun exits with
    let mut mpi_rc = 0;
    // an MPI step's tree
    let mpi_step = step.uses_pmi();
    let tree_width = spur_core::stepio::tree_width(
        std::env::var("SLURM_PMI2_TREE_WIDTH").ok().as_deref(),
        c.conf().get("TreeWidth"),
    );
    let roots = spur_core::stepio::tree_roots(nnodes, tree_width);
    let mut tree_addrs: HashMap<u32, String> = HashMap::new();
    let mut started: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let label = format!("{}.{}", job.job_id, step.step_id);
    let connect_deadline = Instant::now() + Duration::from_secs(60);
    while done_nodes < nnodes {
        let msg = match rx.recv_timeout(Duration::from_millis(500)) {
            Ok(m) => m,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if io.connected() == 0 && done_nodes == 0 && exits.is_empty() && Instant::now() > connect_deadline {
                    eprintln!("srun: error: no step daemon of step {} connected", label);
                    break;
                }
                if let (Some(w), Some(t)) = (o.wait, first_exit) {
                    if w > 0 && t.elapsed() >= Duration::from_secs(w) {
                        eprintln!("srun: error: First task exited {}s ago", w);
                        eprintln!("srun: StepId={} tasks {}: running", label, running_tasks(step, &exits));
                        eprintln!("srun: Terminating StepId={}", label);
                        io.signal(libc::SIGKILL);
                        first_exit = None;
                    }
                }
                continue;
            }
            Err(_) => break,
        };
        match msg {
            Msg::Io(Event::Output { task, stderr, data }) => pr.write(task, stderr, &data),
            Msg::Io(Event::Exit { task, exit }) => {
                pr.flush(task);
                exits.insert(task, exit.status);
                first_exit.get_or_insert_with(Instant::now);
                if o.verbose > 0 {
                    let node = node_of(step, task);
                    eprintln!(
                        "srun: {}Received task exit notification for 1 task of StepId={} (status=0x{:04x}).",
                        launch_prefix("_task_finish"),
                        label,
                        exit.status
                    );
                    if exit.status == 0 {
                        eprintln!("srun: {}{}: task {}: Completed", launch_prefix("_task_finish"), node, task);
                    }
                    if o.verbose > 1 {
                        eprintln!("srun: debug:  task {} done", task);
                    }
                }
                if o.io.kill_on_bad_exit && exit.status != 0 && !terminating {
                    // --kill-on-bad-exit: the whole step ends
                    terminating = true;
                    eprintln!("srun: {}Terminating StepId={}", launch_prefix("_step_signal"), label);
                    io.cancel(libc::SIGTERM);
                }
            }
            Msg::Io(Event::Message(m)) => out(true, &m),
            Msg::Io(Event::Aborted { end_step, memory, mpi_status }) => {
                if let Some(s) = mpi_status.filter(|&s| s != 0) {
                    mpi_rc = s;
                }
                if memory && o.jobid.is_none() {
                    // over its memory (`OverMemoryKill`): the allocation's
                    // owner, srun here, is told (in a batch job, the step's
                    // stderr says it; in salloc's, salloc would)
                    eprintln!("srun: Exceeded job memory limit");
                }
                if !aborted {
                    aborted = true;
                    eprintln!(
                        "srun: Job step aborted: Waiting up to {} seconds for job step to finish.",
                        c.conf().kill_wait + 2
                    );
                }
                if end_step && !terminating {
                    // a node ended the step (over its memory limit, a PMI
                    // abort): as the controller's step cancel would, on every
                    // node
                    terminating = true;
                    io.cancel(libc::SIGKILL);
                }
            }
            Msg::Io(Event::PmiFence { node, data }) => {
                // an MPI step's fence: srun is the root of the tree, its
                // nodes below it each bring their subtree's data; once all
                // have, the answer goes back down through them
                fences.insert(node, data);
                if fences.len() == roots.len() {
                    let all: Vec<u8> = std::mem::take(&mut fences).into_values().flatten().collect();
                    for n in roots.clone() {
                        io.pmi_fence_done_to(n, &all);
                    }
                }
            }
            Msg::Io(Event::TreeAddr { node, addr }) => {
                // where a node's children in the tree reach it
                for c in spur_core::stepio::tree_children(node, nnodes, tree_width) {
                    if started.contains(&c) {
                        io.tree_parent(c, &addr);
                    }
                }
                tree_addrs.insert(node, addr);
            }
            Msg::Io(Event::PmixDmodex { rank, data }) => {
                // `--mpi=pmix`: to the node holding the rank
                if let Some(n) = step.task_ids.iter().position(|ids| ids.contains(&rank)) {
                    io.pmix_dmodex(n as u32, rank, &data);
                }
            }
            Msg::Io(Event::PmiName { node, data }) => {
                // `--mpi=pmi2`'s name service: srun keeps the step's names
                let r = spur_core::stepio::decode_puts(&data).unwrap_or_default();
                let get = |k: &str| r.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str()).unwrap_or("");
                let (name, port) = (get("name"), get("port"));
                let op = spur_core::stepio::NameOp::parse(get("op")).unwrap_or(spur_core::stepio::NameOp::Lookup);
                let found = spur_core::stepio::name_service(&mut names, op, name, port);
                let answer = [
                    ("id".to_string(), get("id").to_string()),
                    ("found".to_string(), if found.is_some() { "1" } else { "0" }.to_string()),
                    ("port".to_string(), found.unwrap_or_default()),
                ];
                io.pmi_name_answer(node, &spur_core::stepio::encode_puts(&answer));
            }
            Msg::Io(Event::PmixDmodexResp { data }) => {
                if let Some(n) = data.get(0..4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes) {
                    io.pmix_dmodex_answer(n, &data);
                }
            }
            Msg::Io(Event::NodeStarted(n)) => {
                if mpi_step {
                    let above = spur_core::stepio::tree_parent(n, tree_width).and_then(|p| tree_addrs.get(&p));
                    if let Some(addr) = above {
                        io.tree_parent(n, addr);
                    }
                    started.insert(n);
                }
                if o.verbose > 0 {
                    if let (Some(a), Some(ids)) = (step.allocs.get(n as usize), step.task_ids.get(n as usize)) {
                        eprintln!("srun: {}Node {}, {} tasks started", launch_prefix("_task_start"), a.node, ids.len());
                    }
                }
            }
            Msg::Io(Event::NodeDone(_)) => done_nodes += 1,
            Msg::Io(Event::NodeLost(n)) => {
                done_nodes += 1;
                let node = step.allocs.get(n as usize).map(|a| a.node.clone()).unwrap_or_default();
                eprintln!("srun: error: {}: lost the connection to its step daemon", node);
            }
            Msg::Signal(sig) if sig == libc::SIGINT => {
                if o.quit_on_interrupt || last_int.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
                    eprintln!("srun: sending Ctrl-C to StepId={}", label);
                    eprintln!("srun: forcing job termination");
                    eprintln!("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.");
                    io.signal(libc::SIGKILL);
                } else {
                    last_int = Some(Instant::now());
                    // both lines in one write: a second Ctrl-C makes the
                    // terminal drop what it has not yet shown, and a line
                    // written in pieces (stderr is unbuffered) lost its end
                    let text = format!(
                        "srun: interrupt (one more within 1 sec to abort)\nsrun: StepId={} tasks {}: running\n",
                        label,
                        running_tasks(step, &exits)
                    );
                    eprint!("{}", text);
                }
            }
            Msg::Signal(sig) if sig == libc::SIGTERM => {
                eprintln!("srun: forcing job termination");
                io.signal(sig);
            }
            Msg::Signal(sig) if sig == libc::SIGCONT => {
                eprintln!("srun: got SIGCONT");
                io.signal(sig);
            }
            Msg::Signal(sig) => io.signal(sig),
        }
    }
    for t in 0..step.num_tasks {
        pr.flush(t);
    }
    if o.verbose > 1 {
        eprintln!("srun: debug:  IO thread exiting");
        if o.jobid.is_none() {
            eprintln!("srun: debug:  Leaving _msg_thr_internal");
        }
    }
    // (the step's exit status: its tasks' highest raw wait status)
    let _ = c.step_complete(job.job_id, step.step_id, exits.values().copied().max().unwrap_or(0));
    eprint!("{}", exit_lines(step, &exits));
    // tasks that died by a signal srun was not told of
    if !aborted && exits.values().any(|&st| st & 0x7f != 0) {
        eprintln!("srun: Force Terminated StepId={}", label);
    }
    if mpi_rc != 0 {
        // (mpi/pmix's abort code, over the signal that ended the tasks)
        return mpi_rc & 0xff;
    }
    exit_code(&exits)
}

/// `srun -v`'s `cpu counts: 1(x1)`: every run with its count.
fn cpu_counts(v: &[u32]) -> String {
    let parts: Vec<String> = spur_core::launch::runs(v).into_iter().map(|(x, n)| format!("{}(x{})", x, n)).collect();
    parts.join(",")
}

/// Wait until a step of job `job_id` ends (or the job does), for at most
/// `timeout`: whether the time ran out (slurmctld tells a waiting srun when
/// a step ends; here srun watches the job's steps).
fn wait_for_a_step_end(c: &Client, job_id: u32, timeout: Duration) -> bool {
    let ids = |j: &Job| j.steps.iter().map(|s| s.step_id).collect::<Vec<_>>();
    let before = match alloc::job(c, job_id) {
        Some(j) if j.state == JobState::Running => ids(&j),
        _ => return false,
    };
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100).min(end.saturating_duration_since(Instant::now())));
        match alloc::job(c, job_id) {
            Some(j) if j.state == JobState::Running => {
                let now = ids(&j);
                if before.iter().any(|id| !now.contains(id)) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// The node of the step that runs `task`.
fn node_of(step: &Step, task: u32) -> String {
    step.task_ids
        .iter()
        .position(|ids| ids.contains(&task))
        .and_then(|k| step.allocs.get(k))
        .map(|a| a.node.clone())
        .unwrap_or_default()
}

/// 22.05 names the launch plugin's function in srun's messages.
fn launch_prefix(func: &str) -> String {
    if spur_core::compat::profile().release == spur_core::compat::Release::V22_05 {
        format!("launch/slurm: {}: ", func)
    } else {
        String::new()
    }
}

/// An OS error's text as strerror(3) gives it (`Inappropriate ioctl for device`).
fn errno_text(e: std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The local terminal in raw mode (`--pty`), restored when dropped.
struct RawTerminal(nix::sys::termios::Termios);

impl RawTerminal {
    fn enter() -> Option<RawTerminal> {
        use nix::sys::termios;
        let stdin = std::io::stdin();
        let saved = termios::tcgetattr(&stdin).ok()?;
        let mut raw = saved.clone();
        termios::cfmakeraw(&mut raw);
        termios::tcsetattr(&stdin, termios::SetArg::TCSANOW, &raw).ok()?;
        Some(RawTerminal(saved))
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        let _ = nix::sys::termios::tcsetattr(std::io::stdin(), nix::sys::termios::SetArg::TCSANOW, &self.0);
    }
}

/// srun's scheduling priority (`SLURM_PRIO_PROCESS`).
fn nix_priority() -> i32 {
    // SAFETY: getpriority has no memory effects; errno is not consulted.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

fn running_tasks(step: &Step, exits: &BTreeMap<u32, i32>) -> String {
    let running: Vec<u32> = (0..step.num_tasks).filter(|t| !exits.contains_key(t)).collect();
    spur_core::model::ranges(&running)
}

/// `srun --usage` and `srun --help`, as each release prints them.
fn usage() -> &'static str {
    alloc::by_release(include_str!("text/srun-usage-22.05.txt"), include_str!("text/srun-usage-24.11.txt"))
}

fn help() -> &'static str {
    alloc::by_release(include_str!("text/srun-help-22.05.txt"), include_str!("text/srun-help-24.11.txt"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(v: &[(&str, &str)]) -> HashMap<String, String> {
        v.iter().map(|(k, x)| (k.to_string(), x.to_string())).collect()
    }

    fn a(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    // recorded/24.11/srun_stepopts/35
    #[test]
    fn node_list_from_a_file() {
        let text = "node3\n# a comment\n\nnode1,node3 # more\nnode2*2\n";
        let hosts = spur_grammar::hostlist::read_hostfile("h", text, None).unwrap();
        assert_eq!(hosts, ["node3", "node1", "node3", "node2", "node2"]);
        assert_eq!(spur_grammar::hostlist::read_hostfile("h", text, Some(2)).unwrap(), ["node3", "node1"]);
        assert_eq!(
            spur_grammar::hostlist::read_hostfile("h", text, Some(9)),
            Err("Too few NodeNames in Slurm Hostfile".into())
        );
        assert_eq!(spur_grammar::hostlist::read_hostfile("h", "# none\n", None), Err("Hostlist is empty!".into()));
        assert_eq!(
            spur_grammar::hostlist::read_hostfile("h", "n1\n-x\n", None),
            Err("Invalid hostfile h contents on line 2".into())
        );
        let dir = std::env::temp_dir().join(format!("srun-hostfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("hosts"), "node3\nnode1\nnode3\n").unwrap();
        let cwd = dir.to_string_lossy();
        let (o, _) = parse(&a(&["-w", "./hosts", "true"]), &env(&[]), &cwd).unwrap();
        assert_eq!(o.step.node_list.as_deref(), Some("node3,node1"));
        let e = parse(&a(&["-w", "./nohosts", "true"]), &env(&[]), &cwd).err().unwrap();
        assert_eq!(
            (e.stderr.as_str(), e.code),
            ("srun: error: slurm_allocate_resources error opening file ./nohosts, No such file or directory\n", 1)
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    // recorded/24.11/srun_stepopts/10-20
    #[test]
    fn propagated_limits() {
        let limits: Vec<(&'static str, u64)> = alloc::RLIMITS.iter().map(|(n, _)| (*n, 7)).collect();
        let names = |v: Vec<(String, String)>| v.into_iter().map(|(k, v)| format!("{}={}", k, v)).collect::<Vec<_>>();
        assert_eq!(names(rlimit_env(None, None, None, &limits)).len(), 10);
        assert_eq!(
            names(rlimit_env(None, None, Some("RLIMIT_NOFILE,CORE"), &limits)),
            ["SLURM_RLIMIT_CORE=U7", "SLURM_RLIMIT_NOFILE=U7"]
        );
        assert!(rlimit_env(None, None, Some("NONE"), &limits).is_empty());
        assert_eq!(names(rlimit_env(Some("NONE"), None, None, &limits)), Vec::<String>::new());
        let except = names(rlimit_env(None, Some("CPU AS"), None, &limits));
        assert_eq!((except.len(), except[0].as_str()), (8, "SLURM_RLIMIT_FSIZE=7"));
        assert_eq!(names(rlimit_env(Some("STACK"), None, None, &limits)), ["SLURM_RLIMIT_STACK=7"]);
        let bad = |p: &str| {
            parse(&a(&[&format!("--propagate={}", p), "true"]), &env(&[]), "/w").err().map(|o| (o.stderr, o.code))
        };
        assert_eq!(
            bad("core"),
            Some(("srun: error: Bad rlimit name: core\nsrun: error: --propagate=core is not valid.\n".into(), 1))
        );
        assert_eq!(
            bad("ALL,CORE").map(|e| e.0),
            Some("srun: error: Bad rlimit name: ALL\nsrun: error: --propagate=ALL,CORE is not valid.\n".into())
        );
        assert_eq!(bad("RLIMIT_CORE,AS"), None);
        let (o, _) = parse(&a(&["--propagate", "true"]), &env(&[]), "/w").unwrap();
        assert_eq!(o.propagate.as_deref(), Some("ALL"));
    }

    #[test]
    fn options_and_environment() {
        let (o, argv) = parse(&a(&["-N2", "-n4", "-l", "hostname", "-v"]), &env(&[]), "/tmp").unwrap();
        assert_eq!((o.step.min_nodes, o.step.num_tasks, o.label), (Some(2), Some(4), true));
        assert_eq!(argv, a(&["hostname", "-v"]));
        assert_eq!(o.io.argv, a(&["hostname", "-v"]));
        assert_eq!(o.desc.name, "hostname");
        // the allocation's variables, below the command line
        let (o, _) = parse(&a(&["-n1", "true"]), &env(&[("SLURM_JOB_ID", "7"), ("SLURM_NTASKS", "4")]), "/").unwrap();
        assert_eq!((o.jobid, o.jobid_from_env, o.step.num_tasks), (Some(7), true, Some(1)));
        let e = parse(&a(&["-N"]), &env(&[]), "/").unwrap_err();
        assert_eq!(e.code, 255);
        let e = parse(&a(&[]), &env(&[]), "/").unwrap_err();
        assert_eq!(e.stderr, "srun: fatal: No command given to execute.\n");
    }

    #[test]
    fn mpi_type_from_option_or_mpi_default() {
        assert_eq!(mpi_type("", Some("pmi2")), "pmi2");
        assert_eq!(mpi_type("none", Some("pmi2")), "");
        assert_eq!(mpi_type("pmix", Some("pmi2")), "pmix");
        assert_eq!(mpi_type("", Some("none")), "");
        assert_eq!(mpi_type("", None), "");
    }

    #[test]
    fn streams_and_exits() {
        let (o, _) = parse(&a(&["--input=none", "-o", "out-%t", "--error=1", "x"]), &env(&[]), "/").unwrap();
        assert_eq!(
            (o.io.stdin_task, o.io.stdout_file.as_deref(), o.io.stderr_task),
            (Some(u32::MAX), Some("out-%t"), Some(1))
        );
        let step = Step {
            allocs: vec![spur_core::model::NodeAlloc { node: "n1".into(), cpus: 4, ..Default::default() }],
            task_ids: vec![vec![0, 1, 2, 3]],
            num_tasks: 4,
            ..Default::default()
        };
        let exits: BTreeMap<u32, i32> = [(0, 0), (1, 3 << 8), (2, 9), (3, 3 << 8)].into_iter().collect();
        assert_eq!(
            exit_lines(&step, &exits),
            "srun: error: n1: tasks 1,3: Exited with exit code 3\nsrun: error: n1: task 2: Killed\n"
        );
        assert_eq!(exit_code(&exits), 137);
    }
}
