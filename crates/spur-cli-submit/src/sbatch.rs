//! `sbatch` command-line handling: options, `#SBATCH` directives, `SBATCH_*`
//! variables, the script, validation with Slurm 24.11's messages and exit
//! codes, and the submit response. [`parse`] turns what the user typed into
//! a [`SbatchRequest`] without network or side effects; [`run`] is the
//! process that reads the script, submits and waits.
//!
//! Order of work, as Slurm 24.11's sbatch does it (src/sbatch/sbatch.c, opt.c):
//! 1. first pass over the command line with getopt (`+` mode: the first
//!    operand is the script, the rest its arguments). getopt errors print
//!    glibc's line + `Try "sbatch --help" for more information`, exit 255.
//!    Only `--help --usage --version -v -Q --wrap` (and `SBATCH_DEBUG`) act now.
//! 2. the script: `--wrap` text, the file, or stdin; sanity checks (exit 1).
//! 3. second pass, later wins: `#SBATCH` directives (until the first line
//!    that is not a comment or blank), then `SBATCH_*` variables, then the
//!    command line. So the precedence is command line > environment >
//!    script, as `man sbatch` says ("Environment variables will override any
//!    options set in a batch script").
//! 4. verification (`_opt_verify`), then the job's environment (`--export`).
//!
//! Exit codes: an option rejected by its setter exits 255 (`exit(-1)`);
//! `parse_int` failures (`-n 0`) exit 1; script and verification errors exit 1.

use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::{client, emit, runtime};
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_client::{Client, ClientError};
use spur_core::model::{AcceptedOptions, ExclusiveKind, JobDesc, JobState};
use spur_core::request::Query as QueryRequest;
use spur_grammar::gres::{parse_request, GresRequestError};
use spur_grammar::num::strtol;
use spur_grammar::signal::parse_signal_opts;
use std::collections::HashMap;
use std::io::{Read, Write};

/// What `sbatch` will submit, with the client-side switches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SbatchRequest {
    pub desc: JobDesc,
    pub parsable: bool,
    pub wait: bool,
    pub test_only: bool,
    /// `-Q` on the command line (the only place it counts).
    pub quiet: bool,
    /// `-v` count (or `SBATCH_DEBUG`).
    pub verbose: u32,
    /// `-M/--clusters` as given (affects the response line).
    pub clusters: Option<String>,
    /// Non-fatal diagnostics Slurm prints on stderr while parsing
    /// (e.g. `sbatch: error: Change from #SLURM to #SBATCH ...`), in order.
    pub stderr: String,
    /// What `-v`/`SBATCH_DEBUG` make sbatch log before it submits (the
    /// options as parsed, the values it propagates), printed after `stderr`.
    pub log: String,
}

macro_rules! o {
    ($s:expr, $l:expr, $a:ident) => {
        OptSpec::new($s, $l, $a, $l)
    };
}

/// sbatch's options in Slurm 24.11's table order (the order glibc lists
/// ambiguous possibilities in). `tasks-per-node` is an alias of
/// `ntasks-per-node`.
pub const SPECS: &[OptSpec] = &[
    o!(Some('A'), "account", Required),
    o!(None, "acctg-freq", Required),
    o!(Some('a'), "array", Required),
    o!(None, "autocomplete", Required),
    o!(None, "batch", Required),
    o!(Some('b'), "begin", Required),
    o!(None, "bb", Required),
    o!(None, "bbf", Required),
    o!(None, "cluster-constraint", Required),
    o!(Some('D'), "chdir", Required),
    o!(None, "cluster", Required),
    o!(Some('M'), "clusters", Required),
    o!(None, "comment", Required),
    o!(None, "container", Required),
    o!(None, "container-id", Required),
    o!(None, "context", Required),
    o!(None, "contiguous", None_),
    o!(Some('C'), "constraint", Required),
    o!(Some('S'), "core-spec", Required),
    o!(None, "cores-per-socket", Required),
    o!(None, "cpu-freq", Required),
    o!(None, "cpus-per-gpu", Required),
    o!(Some('c'), "cpus-per-task", Required),
    o!(None, "deadline", Required),
    o!(None, "delay-boot", Required),
    o!(Some('d'), "dependency", Required),
    o!(Some('m'), "distribution", Required),
    o!(Some('e'), "error", Required),
    o!(Some('x'), "exclude", Required),
    o!(None, "exclusive", Optional),
    o!(None, "export", Required),
    o!(None, "export-file", Required),
    o!(None, "extra", Required),
    o!(Some('B'), "extra-node-info", Required),
    o!(None, "get-user-env", Optional),
    o!(None, "gid", Required),
    o!(None, "gpu-bind", Required),
    o!(None, "gpu-freq", Required),
    o!(Some('G'), "gpus", Required),
    o!(None, "gpus-per-node", Required),
    o!(None, "gpus-per-socket", Required),
    o!(None, "gpus-per-task", Required),
    o!(None, "gres", Required),
    o!(None, "gres-flags", Required),
    o!(Some('h'), "help", None_),
    o!(None, "hint", Required),
    o!(Some('H'), "hold", None_),
    o!(None, "ignore-pbs", None_),
    o!(Some('i'), "input", Required),
    o!(Some('J'), "job-name", Required),
    o!(None, "kill-on-invalid-dep", Required),
    o!(Some('L'), "licenses", Required),
    o!(None, "mail-type", Required),
    o!(None, "mail-user", Required),
    o!(None, "mcs-label", Required),
    o!(None, "mem", Required),
    o!(None, "mem-bind", Required),
    o!(None, "mem-per-cpu", Required),
    o!(None, "mem-per-gpu", Required),
    o!(None, "mincpus", Required),
    o!(None, "network", Required),
    o!(None, "nice", Optional),
    o!(Some('k'), "no-kill", Optional),
    o!(None, "no-requeue", None_),
    o!(Some('F'), "nodefile", Required),
    o!(Some('w'), "nodelist", Required),
    o!(Some('N'), "nodes", Required),
    o!(Some('n'), "ntasks", Required),
    o!(None, "ntasks-per-core", Required),
    o!(None, "ntasks-per-gpu", Required),
    o!(None, "ntasks-per-node", Required),
    o!(None, "ntasks-per-socket", Required),
    o!(None, "ntasks-per-tres", Required),
    o!(None, "oom-kill-step", Optional),
    o!(None, "open-mode", Required),
    o!(Some('o'), "output", Required),
    o!(Some('O'), "overcommit", None_),
    o!(Some('s'), "oversubscribe", None_),
    o!(None, "parsable", None_),
    o!(Some('p'), "partition", Required),
    o!(None, "prefer", Required),
    o!(None, "priority", Required),
    o!(None, "profile", Required),
    o!(None, "propagate", Optional),
    o!(Some('q'), "qos", Required),
    o!(Some('Q'), "quiet", None_),
    o!(None, "reboot", None_),
    o!(None, "requeue", None_),
    o!(None, "reservation", Required),
    o!(None, "resv-ports", Optional),
    o!(None, "segment", Required),
    o!(None, "signal", Required),
    o!(None, "sockets-per-node", Required),
    o!(None, "spread-job", None_),
    o!(None, "stepmgr", None_),
    o!(None, "switches", Required),
    OptSpec::new(None, "tasks-per-node", Required, "ntasks-per-node"),
    o!(None, "test-only", None_),
    o!(None, "thread-spec", Required),
    o!(None, "threads-per-core", Required),
    o!(Some('t'), "time", Required),
    o!(None, "time-min", Required),
    o!(None, "tmp", Required),
    o!(None, "tres-bind", Required),
    o!(None, "tres-per-task", Required),
    o!(None, "uid", Required),
    o!(None, "use-min-nodes", None_),
    o!(Some('v'), "verbose", None_),
    o!(Some('V'), "version", None_),
    o!(None, "usage", None_),
    o!(Some('W'), "wait", None_),
    o!(None, "wait-all-nodes", Required),
    o!(None, "wckey", Required),
    o!(None, "wrap", Required),
];

/// Options Slurm 22.05's sbatch does not have (getopt_long rejects them,
/// and `--extra` is then an abbreviation of `--extra-node-info`).
const NOT_IN_22_05: &[&str] =
    &["container-id", "extra", "oom-kill-step", "resv-ports", "segment", "stepmgr", "tres-bind", "tres-per-task"];

/// The option table of the release Spur imitates.
pub fn release_specs() -> &'static [OptSpec] {
    static OLD: std::sync::OnceLock<Vec<OptSpec>> = std::sync::OnceLock::new();
    if spur_core::compat::profile().sbatch_22_05 {
        OLD.get_or_init(|| SPECS.iter().filter(|s| !NOT_IN_22_05.contains(&s.long)).copied().collect())
    } else {
        SPECS
    }
}

/// Options acted on in the first pass only (`sbatch_early_pass`); they are
/// ignored in `#SBATCH` lines.
const EARLY: &[&str] = &["help", "quiet", "verbose", "version", "usage", "wrap"];

/// `SBATCH_*` input variables in the order Slurm 24.11 reads them.
pub const ENV_VARS: &[(&str, &str)] = &[
    ("SBATCH_ACCOUNT", "account"),
    ("SBATCH_ARRAY_INX", "array"),
    ("SBATCH_ACCTG_FREQ", "acctg-freq"),
    ("SBATCH_BATCH", "batch"),
    ("SBATCH_BURST_BUFFER", "bb"),
    ("SBATCH_CLUSTER_CONSTRAINT", "cluster-constraint"),
    ("SBATCH_CLUSTERS", "clusters"),
    ("SLURM_CLUSTERS", "clusters"),
    ("SBATCH_CONTAINER", "container"),
    ("SBATCH_CONTAINER_ID", "container-id"),
    ("SBATCH_CONSTRAINT", "constraint"),
    ("SBATCH_CORE_SPEC", "core-spec"),
    ("SBATCH_CPU_FREQ_REQ", "cpu-freq"),
    ("SBATCH_CPUS_PER_GPU", "cpus-per-gpu"),
    ("SBATCH_DELAY_BOOT", "delay-boot"),
    ("SBATCH_DISTRIBUTION", "distribution"),
    ("SBATCH_EXCLUSIVE", "exclusive"),
    ("SBATCH_EXPORT", "export"),
    ("SBATCH_GET_USER_ENV", "get-user-env"),
    ("SBATCH_GRES", "gres"),
    ("SBATCH_GRES_FLAGS", "gres-flags"),
    ("SBATCH_GPUS", "gpus"),
    ("SBATCH_GPU_BIND", "gpu-bind"),
    ("SBATCH_GPU_FREQ", "gpu-freq"),
    ("SBATCH_GPUS_PER_NODE", "gpus-per-node"),
    ("SBATCH_GPUS_PER_SOCKET", "gpus-per-socket"),
    ("SBATCH_GPUS_PER_TASK", "gpus-per-task"),
    ("SLURM_HINT", "hint"),
    ("SBATCH_HINT", "hint"),
    ("SBATCH_JOB_NAME", "job-name"),
    ("SBATCH_MEM_BIND", "mem-bind"),
    ("SBATCH_MEM_PER_CPU", "mem-per-cpu"),
    ("SBATCH_MEM_PER_GPU", "mem-per-gpu"),
    ("SBATCH_MEM_PER_NODE", "mem"),
    ("SBATCH_NETWORK", "network"),
    ("SBATCH_NO_KILL", "no-kill"),
    ("SBATCH_NO_REQUEUE", "no-requeue"),
    ("SBATCH_OPEN_MODE", "open-mode"),
    ("SBATCH_OVERCOMMIT", "overcommit"),
    ("SBATCH_PARTITION", "partition"),
    ("SBATCH_POWER", "power"),
    ("SBATCH_PROFILE", "profile"),
    ("SBATCH_QOS", "qos"),
    ("SBATCH_REQ_SWITCH", "switches"),
    ("SBATCH_REQUEUE", "requeue"),
    ("SBATCH_RESERVATION", "reservation"),
    ("SBATCH_SIGNAL", "signal"),
    ("SBATCH_SPREAD_JOB", "spread-job"),
    ("SBATCH_THREAD_SPEC", "thread-spec"),
    ("SBATCH_THREADS_PER_CORE", "threads-per-core"),
    ("SBATCH_TIMELIMIT", "time"),
    ("SBATCH_TRES_BIND", "tres-bind"),
    ("SBATCH_TRES_PER_TASK", "tres-per-task"),
    ("SBATCH_USE_MIN_NODES", "use-min-nodes"),
    ("SBATCH_WAIT", "wait"),
    ("SBATCH_WAIT_ALL_NODES", "wait-all-nodes"),
    ("SBATCH_WAIT4SWITCH", "switch-wait"),
    ("SBATCH_WCKEY", "wckey"),
    ("SBATCH_ERROR", "error"),
    ("SBATCH_INPUT", "input"),
    ("SBATCH_OUTPUT", "output"),
];

const NICE_LIMIT: i64 = 0x8000_0000 - 3;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Src {
    Cli,
    Script,
    Env,
}

/// Option state while the passes run.
#[derive(Default)]
struct St {
    d: JobDesc,
    parsable: bool,
    wait: bool,
    test_only: bool,
    quiet: u32,
    verbose: u32,
    verbose_by_cli: bool,
    wrap: Option<String>,
    clusters: Option<String>,
    chdir: String,
    nodes_set: bool,
    ntasks_set: bool,
    ntasks_per_node_set: bool,
    mem_per_gpu: Option<u64>,
    export_file: Option<String>,
    get_user_env: bool,
    /// (option id, set by environment?) for mem options.
    set_by: HashMap<&'static str, Src>,
    /// The last text each option was given (what `-v` lists for options
    /// whose value sbatch shows as given).
    raw: HashMap<&'static str, String>,
    /// `#PBS -W umask=` (octal).
    umask: Option<u32>,
    /// Whether `--thread-spec` came after `--core-spec` (they share a field).
    spec_last_thread: bool,
    /// Log lines met while parsing, with their level (1 verbose, 3 debug2).
    logs: Vec<(u32, String)>,
    stderr: String,
    now: i64,
}

fn e255(msg: impl AsRef<str>) -> Output {
    Output::err(format!("sbatch: error: {}\n", msg.as_ref()), 255)
}
fn e1(msg: impl AsRef<str>) -> Output {
    Output::err(format!("sbatch: error: {}\n", msg.as_ref()), 1)
}
fn fatal(msg: impl AsRef<str>) -> Output {
    Output::err(format!("sbatch: fatal: {}\n", msg.as_ref()), 1)
}

/// Slurm's `parse_int(name, val, positive)`: exits 1 on error.
fn parse_int(name: &str, val: &str, positive: bool) -> Result<i32, Output> {
    let n = strtol(val, 10);
    let r = n.value;
    if !n.rest(val).is_empty() || r < 0 || (positive && r <= 0) {
        return Err(e1(format!("Invalid numeric value \"{}\" for {}.", val, name)));
    }
    if r >= i32::MAX as i64 {
        return Err(e1(format!("Numeric argument ({}) too large for {}.", r, name)));
    }
    Ok(r as i32)
}

/// Slurm's `verify_node_count` (spur_grammar::num::node_count): (min, max).
fn node_count(arg: &str) -> Result<(u32, u32), Output> {
    spur_grammar::num::node_count(arg).map_err(|e| e255(e.to_string()))
}

fn full_path(cwd: &str, p: &str) -> String {
    if p.starts_with('/') {
        p.to_string()
    } else {
        format!("{}/{}", cwd.trim_end_matches('/'), p)
    }
}

/// Set an option's value (`slurm_process_option`).
fn apply(st: &mut St, id: &'static str, arg: Option<&str>, src: Src) -> Result<(), Output> {
    let spec = SPECS.iter().find(|s| s.id == id);
    let mut arg = arg;
    // Environment values for flags and optional options (slurm_process_option).
    if src == Src::Env {
        if let (Some(spec), Some(a)) = (spec, arg) {
            match spec.arg {
                None_ => {
                    let n = strtol(a, 10);
                    let set = a.is_empty() || a.eq_ignore_ascii_case("yes") || (n.value != 0 && n.rest(a).is_empty());
                    if !set {
                        reset(st, id);
                        return Ok(());
                    }
                    // SBATCH_DEBUG=2 is two -v (recorded/24.11/sbatch_surface/008)
                    if id != "verbose" {
                        arg = None;
                    }
                }
                Optional if a.is_empty() => arg = None,
                _ => {}
            }
        }
    }
    st.set_by.insert(id, src);
    match id {
        "thread-spec" => st.spec_last_thread = true,
        "core-spec" => st.spec_last_thread = false,
        _ => {}
    }
    let v = arg.unwrap_or("");
    st.raw.insert(id, v.to_string());
    let d = &mut st.d;
    match id {
        "account" => d.account = Some(v.into()),
        "array" => d.array = Some(v.into()),
        "begin" => match spur_grammar::time::parse_time(v, st.now, false) {
            Ok(t) if t != 0 => d.begin_time = t,
            r => {
                let mut o = e255("Invalid --begin specification");
                if let Err(e) = r {
                    o.stderr = format!("{}\n{}", e, o.stderr);
                }
                return Err(o);
            }
        },
        "deadline" => match spur_grammar::time::parse_time(v, st.now, false) {
            Ok(t) if t != 0 => d.deadline = t,
            r => {
                let mut o = e255("Invalid --deadline specification");
                if let Err(e) = r {
                    o.stderr = format!("{}\n{}", e, o.stderr);
                }
                return Err(o);
            }
        },
        "chdir" => st.chdir = full_path(&st.chdir.clone(), v),
        "clusters" => st.clusters = Some(v.into()),
        "comment" => d.comment = Some(v.into()),
        "constraint" => d.constraint = Some(v.into()),
        "cpus-per-task" => d.cpus_per_task = Some(parse_int("--cpus-per-task", v, true)? as u32),
        "dependency" => d.dependency = Some(v.into()),
        "error" => d.std_err = Some(if v.eq_ignore_ascii_case("none") { "/dev/null".into() } else { v.into() }),
        "output" => d.std_out = Some(if v.eq_ignore_ascii_case("none") { "/dev/null".into() } else { v.into() }),
        "input" => d.std_in = Some(if v.eq_ignore_ascii_case("none") { "/dev/null".into() } else { v.into() }),
        "exclude" => d.exc_nodes = Some(v.into()),
        "nodelist" => d.req_nodes = Some(v.into()),
        "exclusive" => match arg {
            None => d.exclusive = true,
            Some(a) if a.eq_ignore_ascii_case("exclusive") => d.exclusive = true,
            Some(a) if ["oversubscribe", "user", "mcs", "topo"].iter().any(|k| k.eq_ignore_ascii_case(a)) => {
                d.exclusive = false;
                d.exclusive_kind = Some(match a.to_ascii_lowercase().as_str() {
                    "user" => ExclusiveKind::User,
                    "mcs" => ExclusiveKind::Mcs,
                    "topo" => ExclusiveKind::Topo,
                    _ => ExclusiveKind::Oversubscribe,
                });
            }
            _ => return Err(e255("Invalid --exclusive specification")),
        },
        "export" => d.export = Some(v.into()),
        "export-file" => st.export_file = Some(v.into()),
        "get-user-env" => {
            if let Some(a) = arg {
                let rest = strtol(a, 10).rest(a);
                if !(rest.is_empty() || rest.starts_with(['s', 'S', 'l', 'L'])) {
                    return Err(e255("Invalid --get-user-env specification"));
                }
                d.get_user_env = Some(a.into());
            } else {
                d.get_user_env = Some(String::new());
            }
            st.get_user_env = true;
        }
        "uid" | "gid" => {
            if !nix::unistd::getuid().is_root() {
                return Err(e255(format!("--{} only permitted by root user", id)));
            }
            let known = if id == "uid" {
                v.parse::<u32>().is_ok() || nix::unistd::User::from_name(v).ok().flatten().is_some()
            } else {
                v.parse::<u32>().is_ok() || nix::unistd::Group::from_name(v).ok().flatten().is_some()
            };
            if v.is_empty() || !known {
                return Err(e255(format!("Invalid --{} specification", id)));
            }
            if id == "uid" {
                d.run_as_user = Some(v.into());
            } else {
                d.run_as_group = Some(v.into());
            }
        }
        "gres" => d.gres = Some(v.into()),
        "hold" => d.hold = true,
        "job-name" => d.name = v.into(),
        "mail-type" => {
            if !spur_cli_base::records::valid_mail_type(v) {
                return Err(e255("Invalid --mail-type specification"));
            }
            d.mail_type = Some(v.into())
        }
        "mail-user" => d.mail_user = Some(v.into()),
        "mem" => {
            d.mem_per_node = Some(spur_grammar::size::parse_mem_mb(v).map_err(|_| e255("Invalid --mem specification"))?)
        }
        "mem-per-cpu" => {
            d.mem_per_cpu =
                Some(spur_grammar::size::parse_mem_mb(v).map_err(|_| e255("Invalid --mem-per-cpu specification"))?)
        }
        "mem-per-gpu" => {
            st.mem_per_gpu =
                Some(spur_grammar::size::parse_mem_mb(v).map_err(|_| e255("Invalid --mem-per-gpu specification"))?);
            d.mem_per_gpu = st.mem_per_gpu;
        }
        "nice" => {
            let n = match arg {
                None => 100,
                Some(a) => strtol(a, 10).value,
            };
            if n.unsigned_abs() > NICE_LIMIT as u64 {
                return Err(e255(format!("Invalid --nice value, out of range (+/- {})", NICE_LIMIT)));
            }
            d.nice = Some(n as i32);
        }
        "nodes" => {
            let (lo, hi) = node_count(v)?;
            d.min_nodes = Some(lo);
            d.max_nodes = if hi == 0 { None } else { Some(hi) };
            st.nodes_set = true;
        }
        "ntasks" => {
            d.num_tasks = Some(parse_int("--ntasks", v, true)? as u32);
            st.ntasks_set = true;
        }
        "ntasks-per-node" => {
            d.ntasks_per_node = Some(parse_int("--ntasks-per-node", v, true)? as u32);
            st.ntasks_per_node_set = true;
        }
        "cores-per-socket" | "sockets-per-node" | "threads-per-core" | "ntasks-per-core" | "ntasks-per-socket"
        | "ntasks-per-gpu" | "ntasks-per-tres" | "mincpus" | "cpus-per-gpu" => {
            let n = parse_int(&format!("--{}", id), v, true)? as u32;
            *layout_field(d, id).expect("a task layout option") = Some(n);
        }
        "open-mode" => {
            d.open_mode_append = match v.chars().next() {
                Some('a') | Some('A') => Some(true),
                Some('t') | Some('T') => Some(false),
                _ => return Err(e255("Invalid --open-mode specification")),
            }
        }
        "parsable" => st.parsable = true,
        "partition" => d.partition = Some(v.into()),
        "priority" => {
            if !v.eq_ignore_ascii_case("TOP") {
                let n = strtol(v, 10).value;
                if n < 0 {
                    return Err(e255("Priority must be >= 0"));
                }
                if n >= 0xffff_fffe {
                    return Err(e255(format!("Priority must be < {}", 0xffff_fffeu32)));
                }
                d.priority = Some(n as u32);
            } else {
                d.priority = Some(spur_core::model::PRIORITY_TOP);
            }
        }
        "qos" => d.qos = Some(v.into()),
        // yes/no set flags that add up: once yes, the dependant is killed
        "kill-on-invalid-dep" => {
            let yes = spur_grammar::dependency::parse_kill_on_invalid_dep(v).map_err(|e| e255(e.to_string()))?;
            if yes || d.kill_on_invalid_dependency != Some(true) {
                d.kill_on_invalid_dependency = Some(yes);
            }
        }
        // kept in MB, the unit Slurm stores (`MinTmpDiskNode=100M`)
        "tmp" => {
            let mb = spur_grammar::size::parse_mem_mb(v).map_err(|_| e255("Invalid --tmp specification"))?;
            d.tmp_mb = Some(mb);
        }
        "requeue" => d.requeue = Some(true),
        "no-requeue" => d.requeue = Some(false),
        "signal" => {
            if let Err(e) = parse_signal_opts(v, true, spur_core::compat::profile().signal_names) {
                return Err(e255(e.to_string()));
            }
            d.signal = Some(v.into())
        }
        "test-only" => st.test_only = true,
        "time" => match spur_grammar::time::parse_job_time_limit(v) {
            Ok(m) => d.time_limit = Some(m.unwrap_or(u32::MAX)),
            Err(_) => return Err(e255("Invalid --time specification")),
        },
        "time-min" => match spur_grammar::time::parse_job_time_limit(v) {
            Ok(m) => d.time_min = Some(m.unwrap_or(u32::MAX)),
            Err(_) => return Err(e255("Invalid --time-min specification")),
        },
        "wait" => st.wait = true,
        "verbose" => {
            if arg.is_none() {
                st.verbose += 1;
                st.verbose_by_cli = true;
            } else if !st.verbose_by_cli {
                st.verbose = strtol(v, 10).value.clamp(0, 255) as u32;
            }
        }
        "quiet" => st.quiet += 1,
        "wrap" => st.wrap = Some(v.into()),
        "contiguous" => d.contiguous_nodes = true,
        "oversubscribe" => d.oversubscribe_ok = true,
        "reservation" => d.reservation = Some(v.into()),
        "gpus" => d.gpus = Some(v.into()),
        // acted on in the first pass (or by a shell's completion)
        "help" | "usage" | "version" | "autocomplete" => {}
        "extra-node-info" => {
            let [s, c, t] = extra_node_info(v)?;
            (d.sockets_per_node, d.cores_per_socket, d.threads_per_core) =
                (s.or(d.sockets_per_node), c.or(d.cores_per_socket), t.or(d.threads_per_core));
            keep_accepted(d.accepted.get_or_insert_with(Default::default), id, Some(v));
        }
        _ => {
            check_accepted(id, arg)?;
            let kept = keep_accepted(d.accepted.get_or_insert_with(Default::default), id, Some(v));
            debug_assert!(kept, "sbatch option {} is kept nowhere", id);
        }
    }
    Ok(())
}

/// The checks sbatch makes of values Spur keeps without acting on them
/// (their setters in Slurm's option table), with Slurm's texts and exit
/// codes (recorded/24.11/sbatch_surface/055-146).
fn check_accepted(id: &str, arg: Option<&str>) -> Result<(), Output> {
    let v = arg.unwrap_or("");
    let ci = |w: &str| v.eq_ignore_ascii_case(w);
    let list_ok = |ok: &dyn Fn(&str) -> bool| !v.is_empty() && v.split(',').all(ok);
    match id {
        "no-kill" if !(arg.is_none() || ci("set") || ci("off") || ci("no")) => {
            Err(e255("Invalid --no-kill specification"))
        }
        "core-spec" => parse_int("--core-spec", v, false).map(|_| ()),
        "thread-spec" => parse_int("--thread-spec", v, true).map(|_| ()),
        "mem-bind" if !list_ok(&valid_mem_bind) => Err(e255(format!("unrecognized --mem-bind argument \"{}\"", v))),
        "cpu-freq" if !valid_cpu_freq(v) => Err(Output::err(
            format!(
                "sbatch: error: unrecognized --cpu-freq argument \"{}\"\nsbatch: error: Invalid --cpu-freq argument\n",
                v
            ),
            255,
        )),
        "distribution" if !valid_distribution(v) => Err(e255("Invalid --distribution specification")),
        "hint"
            if !list_ok(&|h: &str| {
                ["compute_bound", "memory_bound", "multithread", "nomultithread", "help"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(h))
            }) =>
        {
            Err(e1(format!("unrecognized --hint argument \"{}\", see --hint=help", v)))
        }
        "profile"
            if !list_ok(&|p: &str| {
                ["all", "none", "energy", "lustre", "network", "task"].iter().any(|k| k.eq_ignore_ascii_case(p))
            }) =>
        {
            Err(e255(format!("invalid --profile={} option", v)))
        }
        "acctg-freq" if !list_ok(&valid_acctg_freq) => Err(e255(format!("Invalid --acctg-freq specification: {}", v))),
        "delay-boot" if spur_grammar::time::parse_time_limit(v).is_err() => {
            Err(e255("Invalid --delay-boot specification"))
        }
        "extra-node-info" => extra_node_info(v).map(|_| ()),
        "propagate" => {
            const NAMES: &[&str] =
                &["ALL", "NONE", "AS", "CORE", "CPU", "DATA", "FSIZE", "MEMLOCK", "NOFILE", "NPROC", "RSS", "STACK"];
            for n in v.split(',') {
                let name = n.strip_prefix("RLIMIT_").unwrap_or(n);
                if arg.is_some() && !NAMES.iter().any(|k| k.eq_ignore_ascii_case(name)) {
                    return Err(Output::err(
                        format!(
                            "sbatch: error: Bad rlimit name: {}\nsbatch: error: --propagate={} is not valid.\n",
                            n, v
                        ),
                        1,
                    ));
                }
            }
            Ok(())
        }
        "wait-all-nodes" if !(v == "0" || v == "1") => Err(e255("Invalid --wait-all-nodes specification")),
        "oom-kill-step" if !(arg.is_none() || v == "0" || v == "1") => {
            Err(e255("Invalid --oom-kill-step specification"))
        }
        "gres-flags"
            if !list_ok(&|f: &str| {
                ["enforce-binding", "disable-binding", "one-task-per-sharing", "multiple-tasks-per-sharing"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(f))
            }) =>
        {
            // 24.11 names the value, 22.05 does not (recorded/*/sbatch_surface/160)
            Err(e255(if spur_core::compat::profile().sbatch_22_05 {
                "Invalid --gres-flags specification".to_string()
            } else {
                format!("Invalid --gres-flags specification: {}", v)
            }))
        }
        _ => Ok(()),
    }
}

/// `-B S[:C[:T]]`: sockets per node, cores per socket, threads per core,
/// each a number or `*` (none); `Invalid numeric value` names the first
/// word that is neither (recorded/24.11/sbatch_surface/110).
fn extra_node_info(v: &str) -> Result<[Option<u32>; 3], Output> {
    let mut out = [None; 3];
    for (k, w) in v.split(':').take(3).enumerate() {
        if w == "*" {
            continue;
        }
        let n = strtol(w, 10);
        if w.is_empty() || !n.rest(w).is_empty() || n.value <= 0 || n.value > u16::MAX as i64 {
            let nth = ["first", "second", "third"][k];
            return Err(e1(format!("Invalid numeric value \"{}\" for {} arg of -B.", w, nth)));
        }
        out[k] = Some(n.value as u32);
    }
    Ok(out)
}

/// One `--mem-bind` word (`slurm_verify_mem_bind`).
fn valid_mem_bind(w: &str) -> bool {
    let l = w.to_ascii_lowercase();
    ["help", "none", "no", "rank", "local", "q", "quiet", "v", "verbose", "sort", "nosort", "prefer"]
        .contains(&l.as_str())
        || ["map_mem:", "mask_mem:", "map_ldom:", "mask_ldom:"].iter().any(|p| l.starts_with(p) && l.len() > p.len())
}

/// `--cpu-freq`: `FREQ`, `LOW-HIGH`, either with `:GOVERNOR`, or a governor.
fn valid_cpu_freq(v: &str) -> bool {
    const GOV: &[&str] = &["conservative", "ondemand", "performance", "powersave", "userspace", "schedutil"];
    const WORDS: &[&str] = &["low", "medium", "high", "highm1"];
    let freq = |f: &str| {
        WORDS.iter().any(|w| w.eq_ignore_ascii_case(f))
            || (!f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) && f.parse::<u64>().is_ok_and(|n| n > 0))
    };
    let gov = |g: &str| GOV.iter().any(|w| w.eq_ignore_ascii_case(g));
    let (range, g) = match v.split_once(':') {
        Some((r, g)) => (r, Some(g)),
        None => (v, None),
    };
    if g.is_some_and(|g| !gov(g)) {
        return false;
    }
    if g.is_none() && gov(range) {
        return true;
    }
    match range.split_once('-') {
        Some((lo, hi)) => freq(lo) && freq(hi),
        None => freq(range),
    }
}

/// `-m/--distribution`: up to three levels of `block|cyclic|fcyclic|*`
/// (`arbitrary` and `plane=N` alone), then `,Pack` or `,NoPack`.
fn valid_distribution(v: &str) -> bool {
    let (dist, pack) = match v.split_once(',') {
        Some((d, p)) => (d, Some(p)),
        None => (v, None),
    };
    if pack.is_some_and(|p| !p.eq_ignore_ascii_case("pack") && !p.eq_ignore_ascii_case("nopack")) {
        return false;
    }
    if dist.is_empty() {
        return pack.is_some();
    }
    let l = dist.to_ascii_lowercase();
    if l == "arbitrary" {
        return true;
    }
    if let Some(n) = l.strip_prefix("plane=") {
        return n.parse::<u32>().is_ok_and(|n| n > 0);
    }
    let levels: Vec<&str> = l.split(':').collect();
    levels.len() <= 3 && levels.iter().all(|w| ["block", "cyclic", "fcyclic", "*"].contains(w))
}

/// One `--acctg-freq` item: seconds, or `task|energy|network|filesystem=N`.
fn valid_acctg_freq(w: &str) -> bool {
    let num = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    match w.split_once('=') {
        Some((k, n)) => ["task", "energy", "network", "filesystem"].contains(&k) && num(n),
        None => num(w),
    }
}

/// sbatch's option state as the `#PBS`/`#BSUB` translation sees it.
struct Xlate<'a> {
    st: &'a mut St,
}

impl crate::wrapper::Target for Xlate<'_> {
    fn set(&mut self, id: &'static str, value: Option<&str>) -> Result<(), Output> {
        let id = SPECS.iter().find(|s| s.id == id).map(|s| s.id).unwrap_or(id);
        apply(self.st, id, value, Src::Script)
    }
    fn get(&self, id: &str) -> Option<String> {
        let d = &self.st.d;
        match id {
            "export" => d.export.clone(),
            "constraint" => d.constraint.clone(),
            "gres" => d.gres.clone(),
            "mincpus" => d.min_cpus.map(|n| n.to_string()),
            "ntasks-per-node" => d.ntasks_per_node.map(|n| n.to_string()),
            _ => None,
        }
    }
    fn set_umask(&mut self, value: &str) -> Result<(), Output> {
        let n = strtol(value, 8).value;
        if !(0..=0o777).contains(&n) {
            return Err(e1("Invalid -W umask= specification"));
        }
        self.st.umask = Some(n as u32);
        Ok(())
    }
    fn log(&mut self, level: u32, line: String) {
        self.st.logs.push((level, line));
    }
}

/// The order `sbatch -v` lists the options it was given in (Slurm's option
/// table, `slurm_print_set_options`; 22.05's `power` in its place).
pub const LISTED: &[&str] = &[
    "account",
    "acctg-freq",
    "array",
    "autocomplete",
    "batch",
    "begin",
    "bb",
    "bbf",
    "cluster-constraint",
    "chdir",
    "cluster",
    "clusters",
    "comment",
    "container",
    "container-id",
    "context",
    "contiguous",
    "constraint",
    "core-spec",
    "cores-per-socket",
    "cpu-freq",
    "cpus-per-gpu",
    "cpus-per-task",
    "deadline",
    "delay-boot",
    "dependency",
    "distribution",
    "error",
    "exclude",
    "exclusive",
    "export",
    "export-file",
    "extra",
    "extra-node-info",
    "get-user-env",
    "gid",
    "gpu-bind",
    "gpu-freq",
    "gpus",
    "gpus-per-node",
    "gpus-per-socket",
    "gpus-per-task",
    "gres",
    "gres-flags",
    "help",
    "hint",
    "hold",
    "ignore-pbs",
    "input",
    "job-name",
    "kill-on-invalid-dep",
    "licenses",
    "mail-type",
    "mail-user",
    "mcs-label",
    "mem",
    "mem-bind",
    "mem-per-cpu",
    "mem-per-gpu",
    "mincpus",
    "network",
    "nice",
    "no-kill",
    "no-requeue",
    "nodefile",
    "nodelist",
    "nodes",
    "ntasks",
    "ntasks-per-core",
    "ntasks-per-gpu",
    "ntasks-per-node",
    "ntasks-per-socket",
    "ntasks-per-tres",
    "oom-kill-step",
    "open-mode",
    "output",
    "overcommit",
    "oversubscribe",
    "parsable",
    "partition",
    "power",
    "prefer",
    "priority",
    "profile",
    "propagate",
    "qos",
    "quiet",
    "reboot",
    "requeue",
    "reservation",
    "resv-ports",
    "segment",
    "signal",
    "sockets-per-node",
    "spread-job",
    "stepmgr",
    "switches",
    "test-only",
    "thread-spec",
    "threads-per-core",
    "time",
    "time-min",
    "tmp",
    "tres-bind",
    "tres-per-task",
    "uid",
    "use-min-nodes",
    "verbose",
    "version",
    "umask",
    "usage",
    "wait",
    "wait-all-nodes",
    "wckey",
    "wrap",
];

/// Slurm's `mbytes_to_str`: megabytes, in the largest unit that divides them.
fn mbytes_text(mut n: u64) -> String {
    let mut unit = 0;
    while n != 0 && n.is_multiple_of(1024) && unit < 4 {
        n /= 1024;
        unit += 1;
    }
    format!("{}{}", n, ["", "G", "T", "P", "E"][unit])
}

/// The value `sbatch -v` shows for an option (its `get_func`).
fn shown_value(st: &St, id: &str) -> String {
    let d = &st.d;
    let raw = st.raw.get(id).cloned().unwrap_or_default();
    let flag = SPECS.iter().find(|s| s.id == id).is_some_and(|s| s.arg == None_);
    let limit = |m: Option<u32>| spur_grammar::time::fmt_limit_scontrol(m.filter(|m| *m != u32::MAX));
    let num = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or(raw.clone());
    match id {
        "time" => limit(d.time_limit),
        "time-min" => limit(d.time_min),
        "mem" => d.mem_per_node.map(mbytes_text).unwrap_or(raw),
        "mem-per-cpu" => d.mem_per_cpu.map(mbytes_text).unwrap_or(raw),
        "mem-per-gpu" => d.mem_per_gpu.map(mbytes_text).unwrap_or(raw),
        "tmp" => d.tmp_mb.map(mbytes_text).unwrap_or(raw),
        "nodes" => match (d.min_nodes, d.max_nodes) {
            (Some(lo), Some(hi)) if lo != hi => format!("{}-{}", lo, hi),
            (Some(lo), _) => lo.to_string(),
            _ => raw,
        },
        "ntasks" => num(d.num_tasks),
        "cpus-per-task" => num(d.cpus_per_task),
        "ntasks-per-node" => num(d.ntasks_per_node),
        "mincpus" => num(d.min_cpus),
        "nice" => d.nice.map(|n| n.to_string()).unwrap_or(raw),
        "verbose" => st.verbose.to_string(),
        "job-name" => d.name.clone(),
        "output" => d.std_out.clone().unwrap_or(raw),
        "error" => d.std_err.clone().unwrap_or(raw),
        "input" => d.std_in.clone().unwrap_or(raw),
        "chdir" => st.chdir.clone(),
        "begin" => spur_grammar::time::fmt_timestamp(d.begin_time),
        "deadline" => spur_grammar::time::fmt_timestamp(d.deadline),
        "open-mode" => match d.open_mode_append {
            Some(true) => "a".into(),
            _ => "t".into(),
        },
        "requeue" | "no-requeue" => match d.requeue {
            Some(true) => "requeue".into(),
            Some(false) => "no-requeue".into(),
            None => "unset".into(),
        },
        "exclusive" => match (d.exclusive, d.exclusive_kind) {
            (true, _) => "exclusive".into(),
            (_, Some(ExclusiveKind::User)) => "user".into(),
            (_, Some(ExclusiveKind::Mcs)) => "mcs".into(),
            (_, Some(ExclusiveKind::Topo)) => "topo".into(),
            (_, Some(ExclusiveKind::Oversubscribe)) => "oversubscribe".into(),
            _ => "unset".into(),
        },
        "kill-on-invalid-dep" => match d.kill_on_invalid_dependency {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => "unset".into(),
        },
        // 24.11 names each GRES `gres/NAME`, 22.05 `gres:NAME`
        "gres" => {
            let pre = if spur_core::compat::profile().sbatch_22_05 { "gres:" } else { "gres/" };
            raw.split(',')
                .map(|g| {
                    if g.starts_with("gres/") || g.starts_with("gres:") {
                        g.to_string()
                    } else {
                        format!("{}{}", pre, g)
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        }
        _ if flag => "set".into(),
        _ => raw,
    }
}

/// What sbatch logs before it submits, at log level `level` (0 = none):
/// the options it was given (`sbatch -v`: `defined options`), then at
/// debug level the limits and values it propagates, and 22.05's plugin
/// lines (recorded/*/sbatch_surface/001-013).
fn verbose_lines(st: &St, level: u32, listed: bool, propagated: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut line = |l: &str| {
        out.push_str("sbatch: ");
        out.push_str(l);
        out.push('\n');
    };
    for (lv, l) in &st.logs {
        if *lv <= level {
            line(l);
        }
    }
    if listed {
        line("defined options");
        line("-------------------- --------------------");
        for id in LISTED {
            // `#PBS -W umask=` sets an option with no name
            // (recorded/24.11/sbatch_surface/192)
            if *id == "umask" {
                if let Some(m) = st.umask {
                    line(&format!("{:<20}: 0{:o}", "(null)", m));
                }
            } else if st.set_by.contains_key(id) {
                line(&format!("{:<20}: {}", id, shown_value(st, id)));
            }
        }
        line("-------------------- --------------------");
        line("end of defined options");
    }
    if level >= 2 {
        for (k, v) in propagated {
            line(&format!("debug:  propagating {}={}", k, v));
        }
    }
    if spur_core::compat::profile().sbatch_22_05 && level >= 1 {
        line("select/cons_tres: common_init: select/cons_tres loaded");
        line("select/cray_aries: init: Cray/Aries node selection plugin loaded");
        line("select/linear: init: Linear node selection plugin loaded with argument 20");
        line("select/cons_res: common_init: select/cons_res loaded");
        if level >= 2 {
            line("debug:  auth/munge: init: Munge authentication plugin loaded");
            line("debug:  hash/k12: init: init: KangarooTwelve hash plugin loaded");
        }
    }
    out
}

/// The field of a task layout option (`--mincpus`, `--ntasks-per-core`, ...).
fn layout_field<'a>(d: &'a mut JobDesc, id: &str) -> Option<&'a mut Option<u32>> {
    Some(match id {
        "mincpus" => &mut d.min_cpus,
        "cpus-per-gpu" => &mut d.cpus_per_gpu,
        "sockets-per-node" => &mut d.sockets_per_node,
        "cores-per-socket" => &mut d.cores_per_socket,
        "threads-per-core" => &mut d.threads_per_core,
        "ntasks-per-core" => &mut d.ntasks_per_core,
        "ntasks-per-socket" => &mut d.ntasks_per_socket,
        "ntasks-per-gpu" => &mut d.ntasks_per_gpu,
        "ntasks-per-tres" => &mut d.ntasks_per_tres,
        _ => return None,
    })
}

/// Keep (`Some(value)`) or forget (`None`) an option Spur accepts without
/// acting on it; false when `id` is not one of them.
fn keep_accepted(a: &mut AcceptedOptions, id: &str, v: Option<&str>) -> bool {
    let flag = |f: &mut bool| *f = v.is_some();
    let text: &mut Option<String> = match id {
        "ignore-pbs" => {
            return {
                flag(&mut a.ignore_pbs);
                true
            }
        }
        "overcommit" => {
            return {
                flag(&mut a.overcommit);
                true
            }
        }
        "reboot" => {
            return {
                flag(&mut a.reboot);
                true
            }
        }
        "spread-job" => {
            return {
                flag(&mut a.spread_job);
                true
            }
        }
        "stepmgr" => {
            return {
                flag(&mut a.stepmgr);
                true
            }
        }
        "use-min-nodes" => {
            return {
                flag(&mut a.use_min_nodes);
                true
            }
        }
        "acctg-freq" => &mut a.acctg_freq,
        "batch" => &mut a.batch_features,
        "bb" => &mut a.burst_buffer,
        "bbf" => &mut a.burst_buffer_file,
        "cluster-constraint" => &mut a.cluster_features,
        "cluster" => &mut a.cluster,
        "container" => &mut a.container,
        "container-id" => &mut a.container_id,
        "context" => &mut a.selinux_context,
        "core-spec" => &mut a.core_spec,
        "cpu-freq" => &mut a.cpu_freq,
        "delay-boot" => &mut a.delay_boot,
        "distribution" => &mut a.distribution,
        "extra" => &mut a.extra,
        "extra-node-info" => &mut a.extra_node_info,
        "gpu-bind" => &mut a.gpu_bind,
        "gpu-freq" => &mut a.gpu_freq,
        "gpus-per-node" => &mut a.gpus_per_node,
        "gpus-per-socket" => &mut a.gpus_per_socket,
        "gpus-per-task" => &mut a.gpus_per_task,
        "gres-flags" => &mut a.gres_flags,
        "hint" => &mut a.hint,
        "licenses" => &mut a.licenses,
        "mcs-label" => &mut a.mcs_label,
        "mem-bind" => &mut a.mem_bind,
        "network" => &mut a.network,
        "no-kill" => &mut a.no_kill,
        "nodefile" => &mut a.nodefile,
        "oom-kill-step" => &mut a.oom_kill_step,
        "power" => &mut a.power,
        "prefer" => &mut a.prefer,
        "profile" => &mut a.profile,
        "propagate" => &mut a.propagate,
        "resv-ports" => &mut a.resv_ports,
        "segment" => &mut a.segment,
        "switches" => &mut a.switches,
        "switch-wait" => &mut a.switch_wait,
        "thread-spec" => &mut a.thread_spec,
        "tres-bind" => &mut a.tres_bind,
        "tres-per-task" => &mut a.tres_per_task,
        "wait-all-nodes" => &mut a.wait_all_nodes,
        "wckey" => &mut a.wckey,
        _ => return false,
    };
    *text = v.map(String::from);
    true
}

/// `reset_func`: an environment flag variable set to something false.
fn reset(st: &mut St, id: &str) {
    let d = &mut st.d;
    match id {
        "hold" => d.hold = false,
        "requeue" | "no-requeue" => d.requeue = None,
        "wait" => st.wait = false,
        "parsable" => st.parsable = false,
        "test-only" => st.test_only = false,
        "contiguous" => d.contiguous_nodes = false,
        "oversubscribe" => d.oversubscribe_ok = false,
        _ => {
            if let Some(a) = d.accepted.as_deref_mut() {
                keep_accepted(a, id, None);
                if *a == AcceptedOptions::default() {
                    d.accepted = None;
                }
            }
        }
    }
}

/// Slurm's `get_argument`: split a directive line into words (quotes,
/// backslash-space, `#` starts a comment).
fn directive_words(file: &str, lineno: usize, line: &str) -> Result<Vec<String>, Output> {
    let mut words = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    loop {
        while i < chars.len() && chars[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < chars.len() && chars[i] == ':' {
            return Err(fatal(format!("{}: line {}: Unexpected `:` in [{}]", file, lineno, line)));
        }
        if i >= chars.len() {
            return Ok(words);
        }
        let mut w = String::new();
        let mut any = false;
        let mut quote: Option<char> = None;
        let mut escape = false;
        while i < chars.len() && (quote.is_some() || !chars[i].is_ascii_whitespace()) && chars[i] != '\n' {
            let c = chars[i];
            if escape {
                escape = false;
            } else if c == '\\' {
                i += 1;
                if i < chars.len() && chars[i] == ' ' {
                    w.push(' ');
                    any = true;
                    i += 1;
                } else {
                    escape = true;
                }
                continue;
            } else if let Some(q) = quote {
                if c == q {
                    quote = None;
                    i += 1;
                    continue;
                }
            } else if c == '"' || c == '\'' {
                quote = Some(c);
                i += 1;
                continue;
            } else if c == '#' {
                i = chars.len();
                break;
            }
            w.push(c);
            any = true;
            i += 1;
        }
        if let Some(q) = quote {
            return Err(fatal(format!("{}: line {}: Unmatched `{}` in [{}]", file, lineno, q, line)));
        }
        if any {
            words.push(w);
        } else if i >= chars.len() {
            return Ok(words);
        }
    }
}

/// Words of the `#SBATCH` directives of the first job component.
fn script_directives(file: &str, body: &str, stderr: &mut String) -> Result<Vec<String>, Output> {
    let mut words = Vec::new();
    let mut warned = false;
    let mut comp = 0;
    for (n, line) in body.split('\n').enumerate() {
        let rest = if let Some(r) = line.strip_prefix("#SBATCH") {
            r
        } else if let Some(r) = line.strip_prefix("#SLURM") {
            if !warned {
                stderr.push_str(
                    "sbatch: error: Change from #SLURM to #SBATCH in your script and verify the options are valid in sbatch\n",
                );
                warned = true;
            }
            r
        } else {
            match line.trim_start_matches(|c: char| c.is_ascii_whitespace()).chars().next() {
                None | Some('#') => continue,
                Some(_) => break,
            }
        };
        let t = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
        let lower = t.to_ascii_lowercase();
        let sep = |w: &str| lower.starts_with(w) && t[w.len()..].chars().next().is_none_or(|c| c.is_ascii_whitespace());
        let rest_owned;
        let rest = if sep("hetjob") || sep("packjob") {
            comp += 1;
            rest_owned = t[if sep("hetjob") { 6 } else { 7 }..].to_string();
            rest_owned.as_str()
        } else {
            rest
        };
        if comp > 0 {
            break; // later heterogeneous components are not supported
        }
        words.extend(directive_words(file, n + 1, rest)?);
    }
    Ok(words)
}

fn hostname() -> String {
    nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default()
}

fn current_umask() -> u32 {
    // umask(2) can only be read by setting it: the old value is put back at once
    let m = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o022));
    nix::sys::stat::umask(m);
    m.bits() as u32
}

/// `SLURM_RLIMIT_*` as sbatch propagates them (PropagateResourceLimits=ALL).
fn rlimit_env() -> Vec<(String, String)> {
    crate::alloc::current_rlimits().into_iter().map(|(n, v)| (format!("SLURM_RLIMIT_{}", n), v.to_string())).collect()
}

fn split_export(s: &str) -> Vec<String> {
    // find_quote_token: commas inside quotes do not split
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut q: Option<char> = None;
    for c in s.chars() {
        match (q, c) {
            (None, ',') => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            (None, '"') | (None, '\'') => {
                q = Some(c);
                cur.push(c);
            }
            (Some(x), _) if x == c => {
                q = None;
                cur.push(c);
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn env_set(env: &mut Vec<(String, String)>, k: &str, v: &str) {
    if let Some(e) = env.iter_mut().find(|(n, _)| n == k) {
        e.1 = v.to_string();
    } else {
        env.push((k.to_string(), v.to_string()));
    }
}

/// sbatch's check of the GRES the job asks for (`--gres`, `--gpus`) against
/// this slurm.conf's `GresTypes` (`gres_job_state_validate` in
/// `slurm_opt_create_job_desc`), before submitting: the error is what sbatch
/// prints.
pub fn check_gres(d: &JobDesc, gres_types: &[String]) -> Result<(), GresRequestError> {
    if let Some(g) = d.gres.as_deref() {
        parse_request(g, Some(gres_types))?;
    }
    if let Some(n) = &d.gpus {
        parse_request(&format!("gpu:{}", n), Some(gres_types))?;
    }
    Ok(())
}

/// The per-node, per-task and per-GPU GPU options ask for GRES `gpu`, which
/// this slurm.conf's `GresTypes` must name (`gres_job_state_validate`,
/// recorded/24.11/sbatch_surface/074-077, 152-157). Err: what sbatch prints.
pub fn check_gpu_options(d: &JobDesc, gres_types: &[String]) -> Result<(), String> {
    let a = d.accepted.as_deref();
    let per = a.is_some_and(|a| a.gpus_per_node.is_some() || a.gpus_per_task.is_some() || a.gpus_per_socket.is_some());
    let any_gpu = per || d.gpus.is_some() || d.gres.as_deref().is_some_and(|g| g.contains("gpu"));
    let invalid = "sbatch: error: Invalid generic resource (gres) specification\n";
    if d.ntasks_per_gpu.is_some() && !any_gpu && d.min_nodes.is_none() && d.num_tasks.is_none() {
        return Err(format!(
            "sbatch: error: gres_job_state_validate: --ntasks-per-tres needs either a GRES GPU specification or a node/ntask specification\n{}",
            invalid
        ));
    }
    let wants = per || d.cpus_per_gpu.is_some() || d.mem_per_gpu.is_some() || d.ntasks_per_gpu.is_some();
    if wants && !gres_types.iter().any(|t| t == "gpu") {
        return Err(invalid.to_string());
    }
    Ok(())
}

/// Parse an sbatch command line. `args` excludes `argv[0]`. `env` is the
/// caller's environment, `cwd` its working directory, `stdin_script` the
/// script when none is named (None = stdin empty), `read_file` reads a file.
/// `Err(Output)` is what sbatch prints and its exit code (also for
/// `--help`/`--usage`/`--version`, exit 0).
pub fn parse(
    args: &[String],
    env: &HashMap<String, String>,
    cwd: &str,
    stdin_script: Option<String>,
    read_file: &dyn Fn(&str) -> std::io::Result<String>,
) -> Result<SbatchRequest, Output> {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    parse_at(args, env, cwd, stdin_script, read_file, now)
}

/// [`parse`] with an explicit "now" (epoch seconds) for `--begin`.
pub fn parse_at(
    args: &[String],
    env: &HashMap<String, String>,
    cwd: &str,
    stdin_script: Option<String>,
    read_file: &dyn Fn(&str) -> std::io::Result<String>,
    now: i64,
) -> Result<SbatchRequest, Output> {
    let mut st = St { chdir: cwd.to_string(), now, ..Default::default() };

    // ---- first pass
    // _opt_early_env
    if let Some(v) = env.get("SBATCH_IGNORE_PBS") {
        apply(&mut st, "ignore-pbs", Some(v), Src::Env)?;
    }
    if let Some(v) = env.get("SBATCH_DEBUG") {
        apply(&mut st, "verbose", Some(v), Src::Env)?;
    }
    let local: Vec<String> = args.iter().filter(|a| *a != ":").cloned().collect();
    let first = opts::parse("sbatch", release_specs(), &local, Mode::StopAtFirstOperand);
    for (id, v) in &first.opts {
        match *id {
            "help" => return Err(Output::ok(help_text(false))), // TaskPlugin=task/none
            "usage" => {
                // 22.05's ends before the options added since
                let u = if spur_core::compat::profile().usage_texts_22_05 {
                    USAGE
                        .replace(" [--tres-bind=...] [--tres-per-task=list]\n              [--oom-kill-step[=0|1]]", "")
                } else {
                    USAGE.to_string()
                };
                return Err(Output::ok(u));
            }
            "version" => return Err(Output::ok(version_line())),
            "verbose" | "quiet" | "wrap" => apply(&mut st, id, v.as_deref(), Src::Cli)?,
            _ => {}
        }
    }
    if let Some(e) = first.error {
        return Err(e.into_output("sbatch", 255));
    }
    let operands = first.operands.clone();
    if !operands.is_empty() && st.wrap.is_some() {
        return Err(e1("Script arguments not permitted with --wrap option"));
    }
    let quiet = st.quiet > 0;

    // ---- the script
    let mut script_path: Option<String> = None;
    let body: String = if let Some(w) = &st.wrap {
        format!("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{}\n", w)
    } else {
        let text = if let Some(name) = operands.first() {
            let resolved = resolve_script(name, cwd, env, read_file);
            let text = match read_file(&resolved) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    // not text: Slurm would find no usable shebang / a NUL
                    String::from("\0")
                }
                Err(_) => return Err(e1(format!("Unable to open file {}", resolved))),
            };
            script_path = Some(resolved);
            text
        } else {
            stdin_script.unwrap_or_default()
        };
        check_script(&text)?;
        text
    };

    // ---- second pass: script, environment, command line
    let file_label =
        script_path.as_deref().map(|p| p.rsplit('/').next().unwrap_or(p).to_string()).unwrap_or_else(|| "stdin".into());
    let mut stderr = String::new();
    let words = script_directives(&file_label, &body, &mut stderr)?;
    st.stderr = stderr;
    let sp = opts::parse("sbatch", release_specs(), &words, Mode::StopAtFirstOperand);
    for (id, v) in &sp.opts {
        if !EARLY.contains(id) {
            apply(&mut st, id, v.as_deref(), Src::Script)?;
        }
    }
    if let Some(e) = sp.error {
        let mut o = e.into_output("sbatch", 255);
        o.stderr = format!("{}{}", st.stderr, o.stderr);
        return Err(o);
    }
    if let Some(w) = sp.operands.first() {
        return Err(e255(format!("Invalid directive found in batch script: {}", w)));
    }
    // #BSUB / #PBS lines (recorded/24.11/sbatch_surface/014-046)
    let ignore_pbs =
        st.d.accepted.as_deref().is_some_and(|a| a.ignore_pbs) || first.opts.iter().any(|(id, _)| *id == "ignore-pbs");
    if !ignore_pbs {
        let mut x = Xlate { st: &mut st };
        if let Err(mut o) = crate::wrapper::translate(&file_label, &body, &directive_words, &mut x) {
            o.stderr = format!("{}{}", st.stderr, o.stderr);
            return Err(o);
        }
    }
    for (var, id) in ENV_VARS {
        if let Some(v) = env.get(*var) {
            // 24.11 has no --power: its variable ends sbatch, silently
            // (recorded/24.11/sbatch_surface/096; 22.05 takes it)
            if *id == "power" && !spur_core::compat::profile().sbatch_22_05 {
                return Err(Output::err(st.stderr.clone(), 255));
            }
            // nor does 22.05 read the variables of options it does not have
            // (recorded/22.05/sbatch_surface/148)
            if spur_core::compat::profile().sbatch_22_05 && NOT_IN_22_05.contains(id) {
                continue;
            }
            let id: &'static str = SPECS.iter().find(|s| s.id == *id).map(|s| s.id).unwrap_or(id);
            apply(&mut st, id, Some(v), Src::Env)?;
        }
    }
    for (id, v) in &first.opts {
        if !EARLY.contains(id) {
            apply(&mut st, id, v.as_deref(), Src::Cli)?;
        }
    }

    // --bbf names a file of burst buffer directives that must be readable
    // (recorded/24.11/sbatch_surface/165)
    if let Some(f) = st.d.accepted.as_deref().and_then(|a| a.burst_buffer_file.clone()) {
        if read_file(&full_path(cwd, &f)).is_err() {
            return Err(Output::err(format!("{}sbatch: error: Invalid --bbf specification\n", st.stderr), 1));
        }
    }
    // -F/--nodefile: the node names in the file are the node list
    // (recorded/24.11/sbatch_surface/175-177)
    if let Some(f) = st.d.accepted.as_deref().and_then(|a| a.nodefile.clone()) {
        let text = read_file(&full_path(cwd, &f)).map_err(|e| {
            let why = if e.kind() == std::io::ErrorKind::NotFound {
                "No such file or directory".to_string()
            } else {
                e.to_string()
            };
            Output::err(
                format!(
                    "{}sbatch: error: slurm_allocate_resources error opening file {}, {}\nsbatch: error: Invalid --nodefile node file\n",
                    st.stderr, f, why
                ),
                255,
            )
        })?;
        let mut hl = spur_grammar::hostlist::Hostlist::new();
        for name in text.split(|c: char| c.is_ascii_whitespace() || c == ',').filter(|n| !n.is_empty()) {
            hl.push_host(name);
        }
        st.d.req_nodes = Some(hl.ranged_string());
    }

    // ---- verification (_opt_verify)
    let by_cli = |st: &St, id: &str| matches!(st.set_by.get(id), Some(Src::Cli) | Some(Src::Script));
    let by_env = |st: &St, id: &str| matches!(st.set_by.get(id), Some(Src::Env));
    let mems = ["mem", "mem-per-cpu", "mem-per-gpu"];
    let n_cli = mems.iter().filter(|m| by_cli(&st, m)).count();
    if n_cli > 1 {
        return Err(fatal("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."));
    } else if n_cli == 1 {
        if !by_cli(&st, "mem") {
            st.d.mem_per_node = None;
        }
        if !by_cli(&st, "mem-per-cpu") {
            st.d.mem_per_cpu = None;
        }
        if !by_cli(&st, "mem-per-gpu") {
            st.mem_per_gpu = None;
            st.d.mem_per_gpu = None;
        }
    } else if mems.iter().filter(|m| by_env(&st, m)).count() > 1 {
        return Err(fatal("SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive."));
    }
    // _validate_spec_cores_options
    let spec_src = |id| st.set_by.get(id).copied();
    let (cs, ts) = (spec_src("core-spec"), spec_src("thread-spec"));
    if cs.is_some() || ts.is_some() {
        let by = |s: Option<Src>, w: Src| (s == Some(w)) as u8;
        if by(cs, Src::Env) + by(ts, Src::Env) > 1 && by(cs, Src::Cli) + by(ts, Src::Cli) == 0 {
            return Err(fatal(
                "Both --core-spec and --thread-spec set using environment variables. Those options are mutually exclusive.",
            ));
        }
        // the last one given wins (one field in Slurm); this cluster has
        // AllowSpecResourcesUsage=No, Slurm's default
        let thread = match (cs, ts) {
            (Some(_), Some(_)) => st.spec_last_thread,
            (_, t) => t.is_some(),
        };
        st.stderr.push_str(&format!(
            "sbatch: error: Ignoring {} since it's not allowed by configuration (AllowSpecResourcesUsage = No)\n",
            if thread { "--thread-spec" } else { "-S" }
        ));
    }
    if st.d.accepted.as_deref().is_some_and(|a| a.resv_ports.is_some()) {
        return Err(e1("Slurmstepd step management must be enabled to use --resv-ports for job allocations"));
    }
    // --hint=nomultithread asks for one thread per core
    // (recorded/24.11/sbatch_surface/067: ReqB:S:C:T=0:0:*:1)
    if st.d.threads_per_core.is_none()
        && st
            .d
            .accepted
            .as_deref()
            .and_then(|a| a.hint.as_deref())
            .is_some_and(|h| h.eq_ignore_ascii_case("nomultithread"))
    {
        st.d.threads_per_core = Some(1);
    }
    if st.quiet > 0 && st.verbose > 0 {
        return Err(Output::err(
            format!("{}sbatch: error: don't specify both --verbose (-v) and --quiet (-Q)\n", st.stderr),
            1,
        ));
    }
    let chdir = st.chdir.clone();
    let d = &mut st.d;
    if d.std_in.is_none() {
        d.std_in = Some("/dev/null".into());
    }
    for f in [&mut d.std_err, &mut d.std_in, &mut d.std_out].into_iter().flatten() {
        *f = full_path(&chdir, f);
    }
    if let Some(nl) = d.req_nodes.clone() {
        if !st.nodes_set && !nl.contains('{') && !nl.contains('/') {
            let mut hl =
                spur_grammar::hostlist::Hostlist::parse(&nl).map_err(|_| fatal("Invalid node list specified"))?;
            hl.uniq();
            d.min_nodes = Some(hl.count().min(u32::MAX as u64) as u32);
            st.nodes_set = true;
        }
    }
    if d.name.is_empty() {
        d.name = if st.wrap.is_some() {
            "wrap".into()
        } else if let Some(p) = &script_path {
            p.rsplit('/').next().unwrap_or(p).to_string()
        } else {
            "sbatch".into()
        };
    }
    if st.nodes_set && st.ntasks_set {
        let nt = d.num_tasks.unwrap_or(1);
        if let Some(mx) = d.max_nodes {
            if nt < mx {
                d.max_nodes = Some(nt);
            }
        }
        if let Some(mn) = d.min_nodes {
            if nt < mn {
                st.stderr.push_str(&format!(
                    "sbatch: warning: can't run {} processes on {} nodes, setting nnodes to {}\n",
                    nt, mn, nt
                ));
                d.min_nodes = Some(nt);
                d.max_nodes = Some(nt);
            }
        }
    }
    if d.deadline != 0 && d.begin_time != 0 && d.deadline < d.begin_time {
        return Err(e1("Incompatible begin and deadline time specification"));
    }
    // `-N 0` is left to the controller, which refuses it ("Node count
    // specification invalid") after taking a job id, as slurmctld does
    // (recorded/24.11/job_ids/12-13). So is `--array`: sbatch sends it as
    // given and slurmctld decides (spur_grammar::array), without using an id.

    // ---- the job's environment (sbatch's own environ after its setenv calls)
    let mut environ: Vec<(String, String)> = {
        let mut v: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        v.sort();
        v
    };
    if let Some(dep) = &d.dependency {
        env_set(&mut environ, "SLURM_JOB_DEPENDENCY", dep);
    }
    if let Some(x) = &d.export {
        if !x.eq_ignore_ascii_case("ALL") && !environ.iter().any(|(k, _)| k == "SLURM_EXPORT_ENV") {
            environ.push(("SLURM_EXPORT_ENV".into(), x.clone()));
        }
    }
    let mut from_file: Vec<(String, String)> = Vec::new();
    if let Some(f) = &st.export_file {
        let text = read_file(&full_path(cwd, f)).map_err(|_| {
            Output::err(format!("{}sbatch: error: Could not open user environment file {}\n", st.stderr, f), 1)
        })?;
        // entries end at NUL bytes only (env_array_from_file): a text file
        // is one variable, newlines and all (recorded/24.11/sbatch_surface/181)
        for ent in text.split('\0').take_while(|e| !e.is_empty()) {
            if let Some((k, v)) = ent.split_once('=') {
                if !k.is_empty() {
                    env_set(&mut from_file, k, v);
                }
            }
        }
        environ.clear(); // env_unset_environment()
    }
    let get_user_env_neg = !st.get_user_env;
    let mut propagated: Vec<(String, String)> = Vec::new();
    if get_user_env_neg {
        for (k, v) in rlimit_env() {
            env_set(&mut environ, &k, &v);
            propagated.push((k.trim_start_matches("SLURM_").to_string(), v));
        }
    }
    // SAFETY: getpriority has no memory-safety preconditions.
    let prio = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    env_set(&mut environ, "SLURM_PRIO_PROCESS", &prio.to_string());
    propagated.push(("SLURM_PRIO_PROCESS".into(), prio.to_string()));
    env_set(&mut environ, "SLURM_SUBMIT_DIR", cwd);
    let host = hostname();
    env_set(&mut environ, "SLURM_SUBMIT_HOST", &host);
    d.umask = st.umask.unwrap_or_else(current_umask);
    if st.umask.is_some() || !environ.iter().any(|(k, _)| k == "SLURM_UMASK") {
        let m = d.umask;
        let text = format!("0{}{}{}", (m >> 6) & 7, (m >> 3) & 7, m & 7);
        env_set(&mut environ, "SLURM_UMASK", &text);
        propagated.push(("UMASK".into(), text));
    }
    let slurm_only = |environ: &[(String, String)]| -> Vec<(String, String)> {
        environ
            .iter()
            .filter(|(k, _)| k.starts_with("SLURM") || k.starts_with("_SLURM_SPANK_OPTION_"))
            .cloned()
            .collect()
    };
    let mut job_env = from_file;
    let mut user_env = st.get_user_env;
    match d.export.as_deref() {
        None => environ.iter().for_each(|(k, v)| env_set(&mut job_env, k, v)),
        Some(x) if x.eq_ignore_ascii_case("ALL") => environ.iter().for_each(|(k, v)| env_set(&mut job_env, k, v)),
        Some(x) if x.eq_ignore_ascii_case("NIL") => job_env = slurm_only(&environ),
        Some(x) if x.eq_ignore_ascii_case("NONE") => {
            job_env = slurm_only(&environ);
            user_env = true;
        }
        Some(list) => {
            for tok in split_export(list) {
                if tok.eq_ignore_ascii_case("ALL") {
                    environ.iter().for_each(|(k, v)| env_set(&mut job_env, k, v));
                } else if let Some((k, v)) = tok.split_once('=') {
                    env_set(&mut job_env, k, v);
                } else if let Some((_, v)) = environ.iter().find(|(k, _)| *k == tok) {
                    env_set(&mut job_env, &tok, v);
                }
            }
            for (k, v) in slurm_only(&environ) {
                env_set(&mut job_env, &k, &v);
            }
            user_env = true;
        }
    }
    if user_env {
        env_set(&mut job_env, "SLURM_GET_USER_ENV", "1");
    }
    d.env = job_env.into();

    d.script = body.into();
    d.wrapped = st.wrap.is_some();
    d.command = if d.wrapped { None } else { script_path.clone() };
    d.argv = if d.wrapped { Vec::new() } else { operands.clone() };
    if let Some(p) = &script_path {
        if let Some(a0) = d.argv.first_mut() {
            *a0 = p.clone();
        }
    }
    d.work_dir = chdir;
    d.submit_host = host.clone();
    d.alloc_node = host;
    d.alloc_sid = std::process::id();
    d.submit_line = crate::alloc::submit_line("sbatch", args);
    // sbatch's log level: every -v (and, since 23.02, SBATCH_DEBUG); the
    // list of options whenever the option `verbose` is set
    // (recorded/22.05/sbatch_surface/003 and 008 against 24.11's)
    let level = if spur_core::compat::profile().sbatch_22_05 && !st.verbose_by_cli { 0 } else { st.verbose };
    let log = verbose_lines(&st, level, st.verbose > 0, &propagated);
    Ok(SbatchRequest {
        log,
        desc: st.d,
        parsable: st.parsable,
        wait: st.wait,
        test_only: st.test_only,
        quiet,
        verbose: st.verbose,
        clusters: st.clusters,
        stderr: st.stderr,
    })
}

/// Slurm's `search_path(cwd, cmd, false, R_OK, false)`: `./x` and `/x` are
/// kept; a bare or relative name is looked up in cwd, then in `$PATH`.
fn resolve_script(
    name: &str,
    cwd: &str,
    env: &HashMap<String, String>,
    read_file: &dyn Fn(&str) -> std::io::Result<String>,
) -> String {
    if name.starts_with('.') || name.starts_with('/') {
        return name.to_string();
    }
    let exists = |p: &str| match read_file(p) {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::InvalidData,
    };
    let mut dirs = vec![cwd.to_string()];
    if let Some(path) = env.get("PATH") {
        dirs.extend(path.split(':').filter(|s| !s.is_empty()).map(|s| s.to_string()));
    }
    for d in dirs {
        let cand = if d.starts_with('.') { format!("{}/{}/{}", cwd, d, name) } else { format!("{}/{}", d, name) };
        if exists(&cand) {
            return cand;
        }
    }
    name.to_string()
}

/// `_get_script_buffer`'s sanity checks (exit 1).
fn check_script(text: &str) -> Result<(), Output> {
    if text.is_empty() {
        return Err(e1("Batch script is empty!"));
    }
    if text.chars().all(|c| c.is_ascii_whitespace()) {
        return Err(e1("Batch script contains only whitespace!"));
    }
    if !text.starts_with("#!") {
        return Err(Output::err(
            "sbatch: error: This does not look like a batch script.  The first\n\
             sbatch: error: line must start with #! followed by the path to an interpreter.\n\
             sbatch: error: For instance: #!/bin/sh\n",
            1,
        ));
    }
    if text.contains('\0') {
        return Err(Output::err(
            "sbatch: error: The Slurm controller does not allow scripts that\n\
             sbatch: error: contain a NULL character '\\0'.\n",
            1,
        ));
    }
    if text.contains("\r\n") {
        return Err(Output::err(
            "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n\
             sbatch: error: instead of expected UNIX line breaks (\\n).\n",
            1,
        ));
    }
    Ok(())
}

/// The line sbatch prints after a successful submission: `Submitted batch
/// job N` (`on cluster C` with `-M`), `N` (`N;C`) with `--parsable`,
/// nothing with `-Q`.
pub fn format_submit_response(req: &SbatchRequest, job_id: u32, cluster: &str) -> String {
    if req.quiet {
        return String::new();
    }
    let multi = req.clusters.is_some() && !cluster.is_empty();
    match (req.parsable, multi) {
        (false, false) => format!("Submitted batch job {}\n", job_id),
        (false, true) => format!("Submitted batch job {} on cluster {}\n", job_id, cluster),
        (true, false) => format!("{}\n", job_id),
        (true, true) => format!("{};{}\n", job_id, cluster),
    }
}

/// `sbatch --wait`'s exit code for one finished job record: the script's
/// exit code if it exited, 1 if it was killed by a signal (cancel, time
/// limit, ...). For an unfinished job, 0.
pub fn wait_exit_code(state: JobState, exit_status: i32) -> i32 {
    if !state.is_finished() {
        return 0;
    }
    if exit_status & 0x7f == 0 {
        (exit_status >> 8) & 0xff
    } else {
        1
    }
}

/// For a job with several records (an array): `None` while any is
/// unfinished, else the largest [`wait_exit_code`], as Slurm's `_job_wait`.
pub fn wait_exit_code_all(records: &[(JobState, i32)]) -> Option<i32> {
    if records.iter().any(|(s, _)| !s.is_finished()) {
        return None;
    }
    Some(records.iter().map(|(s, e)| wait_exit_code(*s, *e)).max().unwrap_or(0))
}

/// `sbatch --usage` (24.11).
pub const USAGE: &str = r#"Usage: sbatch [-N nnodes] [-n ntasks]
              [-c ncpus] [-r n] [-p partition] [--hold] [--parsable] [-t minutes]
              [-D path] [--no-kill] [--overcommit]
              [--input file] [--output file] [--error file]
              [--time-min=minutes] [--licenses=names] [--clusters=cluster_names]
              [--chdir=directory] [--oversubscribe] [-m dist] [-J jobname]
              [--verbose] [--gid=group] [--uid=user]
              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]
              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]
              [--mail-type=type] [--mail-user=user] [--nice[=value]] [--wait]
              [--requeue] [--no-requeue] [--ntasks-per-node=n] [--propagate]
              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]
              [--network=type] [--mem-per-cpu=MB] [--qos=qos] [--gres=list]
              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]
              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--gres-flags=opts]
              [--switches=max-switches{@max-time-to-wait}] [--reboot]
              [--core-spec=cores] [--thread-spec=threads]
              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]
              [--array=index_values] [--profile=...] [--ignore-pbs] [--spread-job]
              [--export[=names]] [--export-file=file|fd] [--delay-boot=mins]
              [--use-min-nodes]
              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]
              [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]
              [--mem-per-gpu=MB] [--tres-bind=...] [--tres-per-task=list]
              [--oom-kill-step[=0|1]]
              executable [args...]
"#;

/// `sbatch --help` (24.11), before the task/affinity block.
pub const HELP_MAIN: &str = r#"Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]

Parallel run options:
  -a, --array=indexes         job array index values
  -A, --account=name          charge job to specified account
      --bb=<spec>             burst buffer specifications
      --bbf=<file_name>       burst buffer specification file
  -b, --begin=time            defer job until HH:MM MM/DD/YY
      --comment=name          arbitrary comment
      --cpu-freq=min[-max[:gov]] requested cpu frequency (and governor)
  -c, --cpus-per-task=ncpus   number of cpus required per task
  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied
      --deadline=time         remove the job if no ending possible before
                              this deadline (start > (deadline - time[-min]))
      --delay-boot=mins       delay boot for desired node features
  -D, --chdir=directory       set working directory for batch script
  -e, --error=err             file for batch script's standard error
      --export[=names]        specify environment variables to export
      --export-file=file|fd   specify environment variables file or file
                              descriptor to export
      --get-user-env          load environment from local cluster
      --gid=group_id          group ID to run job as (user root only)
      --gres=list             required generic resources
      --gres-flags=opts       flags related to GRES management
  -H, --hold                  submit job in held state
      --ignore-pbs            Ignore #PBS and #BSUB options in the batch script
  -i, --input=in              file for batch script's standard input
  -J, --job-name=jobname      name of job
  -k, --no-kill               do not kill job on node failure
  -L, --licenses=names        required license, comma separated
  -M, --clusters=names        Comma separated list of clusters to issue
                              commands to.  Default is current cluster.
                              Name of 'all' will submit to run on all clusters.
                              NOTE: SlurmDBD must up.
      --container             Path to OCI container bundle
      --container-id          OCI container ID
  -m, --distribution=type     distribution method for processes to nodes
                              (type = block|cyclic|arbitrary)
      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL
      --mail-user=user        who to send email notification for job state
                              changes
      --mcs-label=mcs         mcs label if mcs plugin mcs/group is used
  -n, --ntasks=ntasks         number of tasks to run
      --nice[=value]          decrease scheduling priority by value
      --no-requeue            if set, do not permit the job to be requeued
      --ntasks-per-node=n     number of tasks to invoke on each node
  -N, --nodes=N               number of nodes on which to run (N = min[-max])
      --oom-kill-step[=0|1]   set the OOMKillStep behaviour
  -o, --output=out            file for batch script's standard output
  -O, --overcommit            overcommit resources
  -p, --partition=partition   partition requested
      --parsable              outputs only the jobid and cluster name (if present),
                              separated by semicolon, only on successful submission.
      --power=flags           power management options
      --priority=value        set the priority of the job to value
      --profile=value         enable acct_gather_profile for detailed data
                              value is all or none or any combination of
                              energy, lustre, network or task
      --propagate[=rlimits]   propagate all [or specific list of] rlimits
  -q, --qos=qos               quality of service
  -Q, --quiet                 quiet mode (suppress informational messages)
      --reboot                reboot compute nodes before starting job
      --requeue               if set, permit the job to be requeued
  -s, --oversubscribe         over subscribe resources with other jobs
  -S, --core-spec=cores       count of reserved cores
      --signal=[[R][B]:]num[@time] send signal when time limit within time seconds
      --spread-job            spread job across as many nodes as possible
      --switches=max-switches{@max-time-to-wait}
                              Optimum switches and max time to wait for optimum
      --thread-spec=threads   count of reserved threads
  -t, --time=minutes          time limit
      --time-min=minutes      minimum time limit (if distinct)
      --tres-bind=...         task to tres binding options
      --tres-per-task=list    list of tres required per task
      --uid=user_id           user ID to run job as (user root only)
      --use-min-nodes         if a range of node counts is given, prefer the
                              smaller count
  -v, --verbose               verbose mode (multiple -v's increase verbosity)
  -W, --wait                  wait for completion of submitted job
      --wckey=wckey           wckey to run job under
      --wrap[=command string] wrap command string in a sh script and submit

Constraint options:
      --cluster-constraint=[!]list specify a list of cluster constraints
      --contiguous            demand a contiguous range of nodes
  -C, --constraint=list       specify a list of constraints
  -F, --nodefile=filename     request a specific list of hosts
      --mem=MB                minimum amount of real memory
      --mincpus=n             minimum number of logical processors (threads)
                              per node
      --reservation=name      allocate resources from named reservation
      --tmp=MB                minimum amount of temporary disk
  -w, --nodelist=hosts...     request a specific list of hosts
  -x, --exclude=hosts...      exclude a specific list of hosts

Consumable resources related options:
      --exclusive[=user]      allocate nodes in exclusive mode when
                              cpu consumable resource is enabled
      --exclusive[=mcs]       allocate nodes in exclusive mode when
                              cpu consumable resource is enabled
                              and mcs plugin is enabled
      --mem-per-cpu=MB        maximum amount of real memory per allocated
                              cpu required by the job.
                              --mem >= --mem-per-cpu if --mem is specified.
      --resv-ports            reserve communication ports

Affinity/Multi-core options: (when the task/affinity plugin is enabled)
                              For the following 4 options, you are
                              specifying the minimum resources available for
                              the node(s) allocated to the job.
      --sockets-per-node=S    number of sockets per node to allocate
      --cores-per-socket=C    number of cores per socket to allocate
      --threads-per-core=T    number of threads per core to allocate
  -B, --extra-node-info=S[:C[:T]]  combine request of sockets per node,
                              cores per socket and threads per core.
                              Specify an asterisk (*) as a placeholder,
                              a minimum value, or a min-max range.

      --ntasks-per-core=n     number of tasks to invoke on each core
      --ntasks-per-socket=n   number of tasks to invoke on each socket
"#;
/// Printed after [`HELP_MAIN`] when `TaskPlugin` includes `affinity`.
pub const HELP_AFFINITY: &str = r#"      --hint=                 Bind tasks according to application hints
                              (see "--hint=help" for options)
      --mem-bind=             Bind memory to locality domains (ldom)
                              (see "--mem-bind=help" for options)
"#;
/// The end of `sbatch --help` (after SPANK plugin options, none in Spur).
pub const HELP_TAIL: &str = r#"
GPU scheduling options:
      --cpus-per-gpu=n        number of CPUs required per allocated GPU
  -G, --gpus=n                count of GPUs required for the job
      --gpu-bind=...          task to gpu binding options
      --gpu-freq=...          frequency and voltage of GPUs
      --gpus-per-node=n       number of GPUs required per allocated node
      --gpus-per-socket=n     number of GPUs required per allocated socket
      --gpus-per-task=n       number of GPUs required per spawned task
      --mem-per-gpu=n         real memory required per allocated GPU

Help options:
  -h, --help                  show this help message
      --usage                 display brief usage message

Other options:
  -V, --version               output version information and exit

"#;

/// `sbatch --help` for a cluster whose TaskPlugin does (not) include affinity.
pub fn help_text(task_affinity: bool) -> String {
    let mut s = String::from(HELP_MAIN);
    if task_affinity {
        s.push_str(HELP_AFFINITY);
    }
    s.push_str(HELP_TAIL);
    if spur_core::compat::profile().sbatch_22_05 {
        // 22.05's help has no lines for the options added since, and writes
        // `-B  --extra-node-info` (recorded/22.05/sbatch_surface/183)
        let newer = ["--container-id", "--oom-kill-step", "--tres-bind", "--tres-per-task", "--resv-ports"];
        s = s
            .lines()
            .filter(|l| !newer.iter().any(|o| l.trim_start().starts_with(o)))
            .map(|l| format!("{}\n", l))
            .collect::<String>()
            .replace("  -B, --extra-node-info", "  -B  --extra-node-info");
    }
    s
}

// ---------------------------------------------------------------- the process

/// sbatch as a process: parse (reading the script, or stdin when no script
/// is named), submit through spur-client, print the answer; with `--wait`,
/// wait for the job's end and return its exit code. Warnings are written as
/// they come, the job id before the wait.
pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let cwd = std::env::current_dir().map(|p| p.to_string_lossy().to_string()).unwrap_or_else(|_| "/".into());
    // stdin is read only when no script file is named (sbatch reads it then).
    let stdin_reader = || {
        let mut s = String::new();
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            let _ = std::io::stdin().read_to_string(&mut s);
        }
        s
    };
    let read_file = |p: &str| std::fs::read_to_string(p);
    let needs_stdin = sbatch_needs_stdin(args);
    let stdin_script = if needs_stdin { Some(stdin_reader()) } else { None };
    let mut req = match parse(args, env, &cwd, stdin_script, &read_file) {
        Ok(r) => r,
        Err(o) => return emit(&o),
    };
    if !req.stderr.is_empty() || !req.log.is_empty() {
        eprint!("{}{}", req.stderr, req.log);
    }
    // a retried submission carries the same id, so it is queued once
    req.desc.request_id = match spur_auth::random_hex(12) {
        Ok(id) => Some(id),
        Err(e) => {
            eprintln!("sbatch: error: {}", e);
            return 1;
        }
    };
    let c = match client("sbatch") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    // like sbatch (slurm_opt.c), check the GRES names against this slurm.conf's
    // GresTypes unless --clusters sends the job elsewhere: no job id is used
    // (recorded/24.11/job_ids/22)
    // -M names clusters slurmdbd knows; this cluster has no accounting
    // database, so any other name is refused (recorded/24.11/sbatch_surface/087)
    if let Some(cl) = req.clusters.as_deref() {
        if cl.split(',').any(|n| n != c.conf().cluster_name) {
            eprint!(
                "sbatch: error: Problem talking to database\nsbatch: error: '{}' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr list clusters' to see available clusters.\n",
                cl
            );
            return 1;
        }
    }
    if req.clusters.is_none() {
        if let Err(e) = check_gres(&req.desc, &c.conf().gres_types) {
            eprintln!("sbatch: error: {}", e);
            return 1;
        }
        if let Err(text) = check_gpu_options(&req.desc, &c.conf().gres_types) {
            eprint!("{}", text);
            return 1;
        }
    }
    let rt = runtime();
    // sbatch's --test-only asks once (slurm_job_will_run, no retries)
    let res = if req.test_only {
        rt.block_on(c.submit(&req.desc, true))
    } else {
        let mut stderr = std::io::stderr();
        submit_with_retries(
            || rt.block_on(c.submit(&req.desc, false)),
            |s| std::thread::sleep(std::time::Duration::from_secs(s)),
            &mut stderr,
        )
    };
    if let Err(ClientError::Rejected { user_msg, .. }) = &res {
        for line in user_msg.lines().filter(|l| !l.is_empty()) {
            eprintln!("sbatch: error: {}", line);
        }
    }
    match res {
        Ok(r) => {
            if req.test_only {
                let when = spur_grammar::time::fmt_timestamp(r.start_time);
                eprintln!(
                    "sbatch: Job {} to start at {} using {} processors on nodes {} in partition {}",
                    r.job_id,
                    when,
                    if r.cpus > 0 { r.cpus } else { req.desc.num_tasks.unwrap_or(1) },
                    r.nodes,
                    r.partition
                );
                return 0;
            }
            print!("{}", format_submit_response(&req, r.job_id, &c.conf().cluster_name));
            let _ = std::io::stdout().flush();
            if req.wait {
                return rt.block_on(wait_for_job(&c, r.job_id));
            }
            0
        }
        // sbatch's will-run test reports a refusal with perror's layout
        // (recorded/24.11/sbatch_options/141)
        Err(e) if req.test_only => {
            eprintln!("allocation failure: {}", e);
            1
        }
        // SLURM_EXIT_ERROR replaces the exit code of a refused submission
        // (recorded/24.11/sbatch_surface/100)
        Err(e) => {
            eprintln!("sbatch: error: Batch job submission failed: {}", e);
            env.get("SLURM_EXIT_ERROR").map(|v| strtol(v, 10).value as i32).filter(|n| *n != 0).unwrap_or(1)
        }
    }
}

/// How many times sbatch submits again after a refusal that says "later"
/// (sbatch.c `MAX_RETRIES`).
const MAX_RETRIES: u64 = 15;

/// What sbatch says when the controller cannot take a job now, and whether it
/// says it as an error (else as information): sbatch.c's retry loop, the same
/// in 22.05 and 24.11.
fn retry_message(code: i32) -> Option<(&'static str, bool)> {
    use spur_core::errors::*;
    match code {
        ESLURM_ERROR_ON_DESC_TO_RECORD_COPY => Some(("Slurm job queue full, sleeping and retrying", true)),
        ESLURM_NODES_BUSY | ESLURM_PORTS_BUSY => Some(("Job creation temporarily disabled, retrying", false)),
        EAGAIN => Some(("Slurm temporarily unable to accept job, sleeping and retrying", true)),
        _ => None,
    }
}

/// sbatch's submission loop (sbatch.c, `while (true)` around
/// `slurm_submit_batch_job`): a refusal that says "later" (MaxJobCount
/// reached, no job id left: `EAGAIN`) is reported once (later ones at debug
/// level, not shown), then the job is submitted again after 1, 2, ... 15
/// seconds; the 16th refusal is the answer. A retried submission carries the
/// same request id, and a refused one recorded nothing, so the job is queued
/// once.
fn submit_with_retries<T>(
    mut submit: impl FnMut() -> Result<T, ClientError>,
    mut sleep: impl FnMut(u64),
    stderr: &mut dyn Write,
) -> Result<T, ClientError> {
    let mut retries = 0u64;
    loop {
        let e = match submit() {
            Ok(r) => return Ok(r),
            Err(e) => e,
        };
        let Some((msg, is_error)) = retry_message(e.code()) else {
            return Err(e);
        };
        if retries >= MAX_RETRIES {
            return Err(e);
        }
        if retries == 0 {
            let _ =
                if is_error { writeln!(stderr, "sbatch: error: {}", msg) } else { writeln!(stderr, "sbatch: {}", msg) };
        }
        retries += 1;
        sleep(retries);
    }
}

/// Whether sbatch will read its script from stdin: no script operand, no
/// `--wrap`, and nothing (help, version, a bad option) that ends sbatch
/// first. Uses sbatch's own option table, so it agrees with `parse`.
fn sbatch_needs_stdin(args: &[String]) -> bool {
    let local: Vec<String> = args.iter().filter(|a| *a != ":").cloned().collect();
    let p = opts::parse("sbatch", release_specs(), &local, opts::Mode::StopAtFirstOperand);
    if p.error.is_some() {
        return false;
    }
    if p.opts.iter().any(|(id, _)| matches!(*id, "wrap" | "help" | "usage" | "version")) {
        return false;
    }
    p.operands.is_empty()
}

async fn wait_for_job(c: &Client, id: u32) -> i32 {
    let mut delay = 2u64;
    loop {
        tokio::time::sleep(
            std::time::Duration::from_secs(delay.min(10)).min(std::time::Duration::from_millis(500 * delay)),
        )
        .await;
        delay = (delay + 1).min(10);
        let q = QueryRequest { jobs: true, job_ids: vec![id.to_string()], ..Default::default() };
        match c.query(&q).await {
            Ok(v) => {
                let recs: Vec<(spur_core::model::JobState, i32)> = v
                    .jobs
                    .iter()
                    .filter(|j| j.job_id == id || j.array.as_ref().map(|a| a.array_job_id == id).unwrap_or(false))
                    .map(|j| (j.state, j.exit_status))
                    .collect();
                if recs.is_empty() {
                    return 0;
                }
                if let Some(code) = wait_exit_code_all(&recs) {
                    return code;
                }
            }
            Err(_) => continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(code: i32) -> ClientError {
        ClientError::Rejected { code, message: spur_core::errors::strerror(code), user_msg: String::new() }
    }

    #[test]
    fn a_refusal_saying_later_is_reported_once_and_retried_fifteen_times() {
        use spur_core::errors::{EAGAIN, ESLURM_INVALID_PARTITION_NAME, ESLURM_NODES_BUSY};
        // refused twice, then accepted
        let (mut calls, mut slept, mut err) = (0, Vec::new(), Vec::new());
        let r = submit_with_retries(
            || {
                calls += 1;
                if calls <= 2 {
                    Err(refusal(EAGAIN))
                } else {
                    Ok(7)
                }
            },
            |s| slept.push(s),
            &mut err,
        );
        assert_eq!(r.ok(), Some(7));
        assert_eq!(slept, vec![1, 2]);
        assert_eq!(
            String::from_utf8_lossy(&err),
            "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n"
        );
        // always refused: 16 tries, 1+2+...+15 seconds, then the refusal is the answer
        let (mut calls, mut slept, mut err) = (0, Vec::new(), Vec::new());
        let r: Result<u32, _> = submit_with_retries(
            || {
                calls += 1;
                Err(refusal(EAGAIN))
            },
            |s| slept.push(s),
            &mut err,
        );
        assert_eq!(calls, 16);
        assert_eq!(slept, (1..=15).collect::<Vec<u64>>());
        assert_eq!(r.err().map(|e| e.to_string()), Some("Resource temporarily unavailable".to_string()));
        assert_eq!(err.len(), "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n".len());
        // busy nodes: said as information
        let mut err = Vec::new();
        let mut first = true;
        let _ = submit_with_retries(
            || if std::mem::take(&mut first) { Err(refusal(ESLURM_NODES_BUSY)) } else { Ok(1) },
            |_| {},
            &mut err,
        );
        assert_eq!(String::from_utf8_lossy(&err), "sbatch: Job creation temporarily disabled, retrying\n");
        // any other refusal: at once, nothing said
        let (mut calls, mut err) = (0, Vec::new());
        let r: Result<u32, _> = submit_with_retries(
            || {
                calls += 1;
                Err(refusal(ESLURM_INVALID_PARTITION_NAME))
            },
            |_| panic!("no sleep"),
            &mut err,
        );
        assert!(r.is_err() && calls == 1 && err.is_empty());
    }

    fn a(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }
    fn files(name: &str) -> std::io::Result<String> {
        match name {
            "/w/job.sh" => Ok("#!/bin/bash\n#SBATCH -J fromscript\n#SBATCH --time=10 -p scriptpart\n\n# comment\n#SBATCH --mem=2G\necho hi\n#SBATCH -N 5\n".into()),
            "/w/plain.sh" => Ok("#!/bin/sh\necho\n".into()),
            "/w/noshebang.sh" => Ok("echo hi\n".into()),
            "/w/dos.sh" => Ok("#!/bin/sh\r\necho\r\n".into()),
            "/w/empty.sh" => Ok(String::new()),
            "/w/ws.sh" => Ok("  \n\n".into()),
            "/w/nul.sh" => Ok("#!/bin/sh\n\0".into()),
            "/w/bogus.sh" => Ok("#!/bin/sh\n#SBATCH --bogus\n".into()),
            "/w/dir.sh" => Ok("#!/bin/sh\n#SBATCH foo\n".into()),
            "/w/quiet.sh" => Ok("#!/bin/sh\n#SBATCH -Q --parsable\n#SLURM -n 2\n".into()),
            "/w/quote.sh" => Ok("#!/bin/sh\n#SBATCH -J \"a b\" --comment='x y' # trailing\n".into()),
            "/w/unmatched.sh" => Ok("#!/bin/sh\n#SBATCH -J \"ab\n".into()),
            "/w/envfile" => Ok("A=1\nB=2\n".into()),
            "/w/envfile0" => Ok("A=1\0B=2\0".into()),
            "/usr/bin/inpath.sh" => Ok("#!/bin/sh\n".into()),
            _ => Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no")),
        }
    }
    fn env(v: &[(&str, &str)]) -> HashMap<String, String> {
        let mut m: HashMap<String, String> = v.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        m.entry("PATH".into()).or_insert("/usr/bin".into());
        m
    }
    fn run(args: &[&str], e: &[(&str, &str)]) -> Result<SbatchRequest, Output> {
        parse_at(&a(args), &env(e), "/w", None, &files, 1_700_000_000)
    }
    fn ok(args: &[&str]) -> SbatchRequest {
        run(args, &[]).unwrap_or_else(|o| panic!("{:?}", o))
    }
    fn err(args: &[&str]) -> Output {
        run(args, &[]).unwrap_err()
    }

    /// Every option of the table and every `SBATCH_*` variable lands in a
    /// typed field of the request (none is kept under its option name).
    #[test]
    fn every_option_has_a_typed_home() {
        let ids = SPECS.iter().map(|s| s.id).chain(ENV_VARS.iter().map(|(_, id)| *id));
        for id in ids {
            let mut st = St { now: 1_700_000_000, ..Default::default() };
            // (a value may be refused; reaching no field panics in debug builds)
            let _ = apply(&mut st, id, Some("1"), Src::Cli);
        }
        let r = ok(&[
            "--wckey=w",
            "--overcommit",
            "-L",
            "lic:2",
            "--exclusive=user",
            "--priority=TOP",
            "--mincpus=3",
            "--wrap=x",
        ]);
        assert_eq!(r.desc.accepted.as_ref().unwrap().wckey.as_deref(), Some("w"));
        assert!(r.desc.accepted.as_ref().unwrap().overcommit);
        assert_eq!(r.desc.accepted.as_ref().unwrap().licenses.as_deref(), Some("lic:2"));
        assert_eq!(r.desc.exclusive_kind, Some(ExclusiveKind::User));
        assert_eq!(r.desc.priority, Some(spur_core::model::PRIORITY_TOP));
        assert_eq!(r.desc.min_cpus, Some(3));
        let r = run(&["--wrap=x"], &[("SBATCH_OVERCOMMIT", "no"), ("SBATCH_RESERVATION", "r1")]).unwrap();
        assert!(!r.desc.accepted.as_ref().is_some_and(|a| a.overcommit));
        assert_eq!(r.desc.reservation_name(), Some("r1"));
    }

    #[test]
    fn verbose_lists_the_options() {
        // recorded/24.11/sbatch_surface/001-002
        let r = ok(&["-v", "--hold", "-J", "v1", "-t", "5", "--wrap", "true"]);
        assert_eq!(
            r.log,
            "sbatch: defined options\n\
             sbatch: -------------------- --------------------\n\
             sbatch: hold                : set\n\
             sbatch: job-name            : v1\n\
             sbatch: time                : 00:05:00\n\
             sbatch: verbose             : 1\n\
             sbatch: wrap                : true\n\
             sbatch: -------------------- --------------------\n\
             sbatch: end of defined options\n"
        );
        let r = ok(&["--verbose", "-N", "2", "-n", "3", "--mem=100", "-o", "v2-%j.out", "--wrap", "true"]);
        assert!(r.log.contains("sbatch: mem                 : 100\n"));
        assert!(r.log.contains("sbatch: nodes               : 2\n"));
        assert!(r.log.contains("sbatch: output              : /w/v2-%j.out\n"));
        // -vv: what sbatch propagates, at debug level
        let r = ok(&["-vv", "--wrap", "true"]);
        assert!(r.log.contains("sbatch: debug:  propagating SLURM_PRIO_PROCESS="));
        assert!(r.log.contains("sbatch: debug:  propagating RLIMIT_CORE="));
        // SBATCH_DEBUG=N is N times -v; a word that is no number is none
        let r = run(&["--wrap", "true"], &[("SBATCH_DEBUG", "2")]).unwrap();
        assert!(r.log.contains("sbatch: verbose             : 2\n"));
        let r = run(&["--wrap", "true"], &[("SBATCH_DEBUG", "abc")]).unwrap();
        assert_eq!(r.log, "");
        assert_eq!(ok(&["--wrap", "true"]).log, "");
    }

    #[test]
    fn pbs_lines_between_sbatch_lines_and_environment() {
        let script =
            "#!/bin/bash\n#SBATCH -J fromsbatch\n#SBATCH -t 20\n#PBS -N frompbs\n#PBS -l walltime=30:00\necho\n";
        let rf = |_: &str| Ok(script.to_string());
        let p = |args: &[&str], e: &[(&str, &str)]| parse_at(&a(args), &env(e), "/w", None, &rf, 0).unwrap();
        // recorded/24.11/sbatch_surface/018-027
        let r = p(&["s.sh"], &[]);
        assert_eq!((r.desc.name.as_str(), r.desc.time_limit), ("frompbs", Some(30)));
        assert_eq!(p(&["-J", "fromcli", "s.sh"], &[]).desc.name, "fromcli");
        assert_eq!(p(&["s.sh"], &[("SBATCH_TIMELIMIT", "40")]).desc.time_limit, Some(40));
        assert_eq!(p(&["s.sh"], &[("SBATCH_IGNORE_PBS", "1")]).desc.name, "fromsbatch");
        assert_eq!(p(&["--ignore-pbs", "s.sh"], &[]).desc.name, "fromsbatch");
    }

    #[test]
    fn values_of_options_kept_without_effect_are_checked() {
        // recorded/24.11/sbatch_surface/055-146
        let e = |args: &[&str], code: i32, text: &str| {
            let o = err(args);
            assert_eq!((o.code, o.stderr.as_str()), (code, text), "{:?}", args);
        };
        e(&["--no-kill=bogus", "--wrap=x"], 255, "sbatch: error: Invalid --no-kill specification\n");
        e(&["--mem-bind=bogus", "--wrap=x"], 255, "sbatch: error: unrecognized --mem-bind argument \"bogus\"\n");
        e(&["-m", "bogus", "--wrap=x"], 255, "sbatch: error: Invalid --distribution specification\n");
        e(&["--hint=bogus", "--wrap=x"], 1, "sbatch: error: unrecognized --hint argument \"bogus\", see --hint=help\n");
        e(&["--delay-boot=abc", "--wrap=x"], 255, "sbatch: error: Invalid --delay-boot specification\n");
        e(&["--core-spec=abc", "--wrap=x"], 1, "sbatch: error: Invalid numeric value \"abc\" for --core-spec.\n");
        e(&["--wait-all-nodes=2", "--wrap=x"], 255, "sbatch: error: Invalid --wait-all-nodes specification\n");
        e(
            &["--propagate=BOGUS", "--wrap=x"],
            1,
            "sbatch: error: Bad rlimit name: BOGUS\nsbatch: error: --propagate=BOGUS is not valid.\n",
        );
        for good in [
            &["--cpu-freq=Low-High:OnDemand"][..],
            &["--cpu-freq=2000000"],
            &["-m", "cyclic:block"],
            &["--no-kill=off"],
        ] {
            let mut v = good.to_vec();
            v.push("--wrap=x");
            ok(&v);
        }
    }

    #[test]
    fn wrap_script_and_defaults() {
        let r = ok(&["--wrap", "sleep 300"]);
        assert_eq!(r.desc.script, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nsleep 300\n");
        assert!(r.desc.wrapped);
        assert_eq!(r.desc.name, "wrap");
        assert_eq!(r.desc.work_dir, "/w");
        assert_eq!(r.desc.std_in.as_deref(), Some("/dev/null"));
        assert_eq!(r.desc.command, None);
        assert!(!r.parsable && !r.quiet && !r.wait);
        let r = ok(&["--parsable", "-J", "myname", "--wrap=true"]);
        assert!(r.parsable);
        assert_eq!(r.desc.name, "myname");
    }

    #[test]
    fn precedence_cli_env_script() {
        let r = ok(&["job.sh", "x", "y"]);
        assert_eq!(r.desc.name, "fromscript");
        assert_eq!(r.desc.time_limit, Some(10));
        assert_eq!(r.desc.partition.as_deref(), Some("scriptpart"));
        assert_eq!(r.desc.mem_per_node, Some(2048));
        // directives after the first command are ignored
        assert_eq!(r.desc.min_nodes, None);
        assert_eq!(r.desc.argv, vec!["/w/job.sh", "x", "y"]);
        assert_eq!(r.desc.command.as_deref(), Some("/w/job.sh"));
        // environment beats the script, command line beats both
        let r = run(&["job.sh"], &[("SBATCH_PARTITION", "envpart"), ("SBATCH_JOB_NAME", "envname")]).unwrap();
        assert_eq!(r.desc.partition.as_deref(), Some("envpart"));
        assert_eq!(r.desc.name, "envname");
        let r = run(&["-p", "clipart", "job.sh"], &[("SBATCH_PARTITION", "envpart")]).unwrap();
        assert_eq!(r.desc.partition.as_deref(), Some("clipart"));
        // options after the script are script arguments
        let r = ok(&["plain.sh", "-N", "2"]);
        assert_eq!(r.desc.min_nodes, None);
        assert_eq!(r.desc.argv, vec!["/w/plain.sh", "-N", "2"]);
        assert_eq!(r.desc.name, "plain.sh");
    }

    #[test]
    fn env_flags() {
        // 24.11 has no SBATCH_HOLD (not in its man page nor its table)
        let r = run(&["--wrap=x"], &[("SBATCH_HOLD", "1"), ("SBATCH_WAIT", "yes"), ("SBATCH_REQUEUE", "")]).unwrap();
        assert!(!r.desc.hold && r.wait);
        assert_eq!(r.desc.requeue, Some(true));
        let r = run(&["--wrap=x"], &[("SBATCH_WAIT", "no")]).unwrap();
        assert!(!r.wait);
        let r = run(&["--wrap=x"], &[("SBATCH_TIMELIMIT", "1:00:00"), ("SBATCH_ARRAY_INX", "1-3")]).unwrap();
        assert_eq!(r.desc.time_limit, Some(60));
        assert_eq!(r.desc.array.as_deref(), Some("1-3"));
        let o = run(&["--wrap=x"], &[("SBATCH_TIMELIMIT", "abc")]).unwrap_err();
        assert_eq!(o.stderr, "sbatch: error: Invalid --time specification\n");
        assert_eq!(o.code, 255);
    }

    #[test]
    fn getopt_errors() {
        let o = err(&["--bogus"]);
        assert_eq!(o.stderr, "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n");
        assert_eq!(o.code, 255);
        let o = err(&["--pa", "x"]);
        assert_eq!(
            o.stderr,
            "sbatch: option '--pa' is ambiguous; possibilities: '--parsable' '--partition'\nTry \"sbatch --help\" for more information\n"
        );
        let o = err(&["--cpus"]);
        assert!(o
            .stderr
            .starts_with("sbatch: option '--cpus' is ambiguous; possibilities: '--cpus-per-gpu' '--cpus-per-task'\n"));
        assert_eq!(err(&["-J"]).stderr.lines().next().unwrap(), "sbatch: option requires an argument -- 'J'");
        assert_eq!(
            err(&["--hold=1"]).stderr.lines().next().unwrap(),
            "sbatch: option '--hold' doesn't allow an argument"
        );
        // --help before a bad option wins; after it, the error
        let o = err(&["--help", "--bogus"]);
        assert_eq!(o.code, 0);
        assert!(o.stdout.starts_with("Usage: sbatch [OPTIONS(0)...]"));
        assert_eq!(err(&["--bogus", "--help"]).code, 255);
        let o = err(&["--usage"]);
        assert_eq!(o.code, 0);
        assert!(o.stdout.ends_with("              executable [args...]\n"));
    }

    #[test]
    fn script_errors() {
        let o = err(&["nosuch.sh"]);
        assert_eq!((o.stderr.as_str(), o.code), ("sbatch: error: Unable to open file nosuch.sh\n", 1));
        let o = err(&["noshebang.sh"]);
        assert_eq!(o.stderr, "sbatch: error: This does not look like a batch script.  The first\nsbatch: error: line must start with #! followed by the path to an interpreter.\nsbatch: error: For instance: #!/bin/sh\n");
        assert_eq!(o.code, 1);
        let o = err(&["dos.sh"]);
        assert_eq!(o.stderr, "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\nsbatch: error: instead of expected UNIX line breaks (\\n).\n");
        assert_eq!(err(&["empty.sh"]).stderr, "sbatch: error: Batch script is empty!\n");
        assert_eq!(err(&["ws.sh"]).stderr, "sbatch: error: Batch script contains only whitespace!\n");
        assert!(err(&["nul.sh"]).stderr.contains("NULL character"));
        let o = err(&["bogus.sh"]);
        assert_eq!(
            (o.stderr.as_str(), o.code),
            ("sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n", 255)
        );
        let o = err(&["dir.sh"]);
        assert_eq!((o.stderr.as_str(), o.code), ("sbatch: error: Invalid directive found in batch script: foo\n", 255));
        let o = err(&["--wrap=x", "a"]);
        assert_eq!(
            (o.stderr.as_str(), o.code),
            ("sbatch: error: Script arguments not permitted with --wrap option\n", 1)
        );
        // stdin
        let o = parse_at(&a(&[]), &env(&[]), "/w", None, &files, 0).unwrap_err();
        assert_eq!(o.stderr, "sbatch: error: Batch script is empty!\n");
        let r = parse_at(&a(&["-N2"]), &env(&[]), "/w", Some("#!/bin/sh\n#SBATCH -n 4\n".into()), &files, 0).unwrap();
        assert_eq!(r.desc.name, "sbatch");
        assert_eq!(r.desc.num_tasks, Some(4));
        assert_eq!(r.desc.min_nodes, Some(2));
        let o = err(&["unmatched.sh"]);
        assert_eq!(o.stderr, "sbatch: fatal: unmatched.sh: line 2: Unmatched `\"` in [ -J \"ab]\n");
    }

    #[test]
    fn directives() {
        let r = ok(&["quote.sh"]);
        assert_eq!(r.desc.name, "a b");
        assert_eq!(r.desc.comment.as_deref(), Some("x y"));
        // -Q is ignored in the script; #SLURM warns
        let r = ok(&["quiet.sh"]);
        assert!(!r.quiet && r.parsable);
        assert_eq!(r.desc.num_tasks, Some(2));
        assert!(r.stderr.contains("Change from #SLURM to #SBATCH"));
        // PATH lookup
        assert_eq!(ok(&["inpath.sh"]).desc.command.as_deref(), Some("/usr/bin/inpath.sh"));
    }

    #[test]
    fn value_errors() {
        let chk = |args: &[&str], line: &str, code: i32| {
            let o = err(args);
            assert_eq!((o.stderr.as_str(), o.code), (line, code), "{:?}", args);
        };
        chk(&["--time=abc", "--wrap=x"], "sbatch: error: Invalid --time specification\n", 255);
        chk(&["--time-min=abc", "--wrap=x"], "sbatch: error: Invalid --time-min specification\n", 255);
        chk(&["--mem=abc", "--wrap=x"], "sbatch: error: Invalid --mem specification\n", 255);
        chk(&["--mem-per-cpu=1Q", "--wrap=x"], "sbatch: error: Invalid --mem-per-cpu specification\n", 255);
        chk(&["-n", "0", "--wrap=x"], "sbatch: error: Invalid numeric value \"0\" for --ntasks.\n", 1);
        chk(&["-n", "abc", "--wrap=x"], "sbatch: error: Invalid numeric value \"abc\" for --ntasks.\n", 1);
        chk(&["-c", "0", "--wrap=x"], "sbatch: error: Invalid numeric value \"0\" for --cpus-per-task.\n", 1);
        chk(&["-N", "abc", "--wrap=x"], "sbatch: error: \"abc\" is not a valid node count\n", 255);
        chk(&["-N", "3-2", "--wrap=x"], "sbatch: error: Maximum node count 2 is less than minimum node count 3\n", 255);
        chk(
            &["--begin=xyz", "--wrap=x"],
            "Invalid time specification (pos=0): xyz\nsbatch: error: Invalid --begin specification\n",
            255,
        );
        chk(&["--signal=FOO", "--wrap=x"], "sbatch: error: Invalid --signal specification\n", 255);
        chk(&["--mail-type=bar", "--wrap=x"], "sbatch: error: Invalid --mail-type specification\n", 255);
        chk(&["--open-mode=x", "--wrap=x"], "sbatch: error: Invalid --open-mode specification\n", 255);
        chk(&["--exclusive=x", "--wrap=x"], "sbatch: error: Invalid --exclusive specification\n", 255);
        chk(
            &["--kill-on-invalid-dep=maybe", "--wrap=x"],
            "sbatch: error: Invalid --kill-on-invalid-dep specification\n",
            255,
        );
        chk(&["--tmp=abc", "--wrap=x"], "sbatch: error: Invalid --tmp specification\n", 255);
        chk(&["-v", "-Q", "--wrap=x"], "sbatch: error: don't specify both --verbose (-v) and --quiet (-Q)\n", 1);
        chk(
            &["--nice=2147483646", "--wrap=x"],
            "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)\n",
            255,
        );
        chk(
            &["--deadline=now", "--begin=now+1hour", "--wrap=x"],
            "sbatch: error: Incompatible begin and deadline time specification\n",
            1,
        );
        chk(
            &["--mem=1G", "--mem-per-cpu=1G", "--wrap=x"],
            "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.\n",
            1,
        );
        // the script is read before second-pass option errors
        chk(&["--time=abc", "nosuch.sh"], "sbatch: error: Unable to open file nosuch.sh\n", 1);
    }

    #[test]
    fn values() {
        // refused by the controller, not here (it uses up a job id: recorded/24.11/job_ids/12)
        assert_eq!(ok(&["-N", "0", "--wrap=x"]).desc.min_nodes, Some(0));
        assert_eq!(ok(&["--array=1-3%abc", "--wrap=x"]).desc.array.as_deref(), Some("1-3%abc"));
        // (a bad one too: slurmctld refuses it)
        assert_eq!(ok(&["--array=abc", "--wrap=x"]).desc.array.as_deref(), Some("abc"));
        let o = err(&["--time=1-00:00:00:00", "--wrap=x"]);
        assert_eq!((o.stderr.as_str(), o.code), ("sbatch: error: Invalid --time specification\n", 255));
        let o = err(&["--bogus-option", "--wrap", "true"]);
        assert_eq!(
            (o.stderr.as_str(), o.code),
            ("sbatch: unrecognized option '--bogus-option'\nTry \"sbatch --help\" for more information\n", 255)
        );
        let r = ok(&["-N", "2-4", "-n", "3", "--wrap=x"]);
        assert_eq!((r.desc.min_nodes, r.desc.max_nodes), (Some(2), Some(3)));
        let r = ok(&["-N", "4", "-n", "2", "--wrap=x"]);
        assert_eq!((r.desc.min_nodes, r.desc.max_nodes), (Some(2), Some(2)));
        assert!(r.stderr.contains("sbatch: warning: can't run 2 processes on 4 nodes, setting nnodes to 2"));
        let r = ok(&["-t", "0", "--wrap=x"]);
        assert_eq!(r.desc.time_limit, Some(u32::MAX));
        let r = ok(&["-t", "1-00:00:00", "--wrap=x"]);
        assert_eq!(r.desc.time_limit, Some(1440));
        let r = ok(&["--nice", "--wrap=x"]);
        assert_eq!(r.desc.nice, Some(100));
        let r = ok(&["--nice=-5", "--open-mode=append", "--requeue", "--no-requeue", "--exclusive", "--wrap=x"]);
        assert_eq!(r.desc.nice, Some(-5));
        assert_eq!(r.desc.open_mode_append, Some(true));
        assert_eq!(r.desc.requeue, Some(false));
        assert!(r.desc.exclusive);
        let r = ok(&["-o", "out-%j.txt", "-e", "none", "-D", "sub", "--wrap=x"]);
        assert_eq!(r.desc.work_dir, "/w/sub");
        assert_eq!(r.desc.std_out.as_deref(), Some("/w/sub/out-%j.txt"));
        assert_eq!(r.desc.std_err.as_deref(), Some("/dev/null"));
        let r = ok(&["-w", "node[1-3]", "--wrap=x"]);
        assert_eq!(r.desc.min_nodes, Some(3));
        let r = ok(&["--begin=uts1700003600", "--signal=B:USR1@30", "--mail-type=END,fail", "--wrap=x"]);
        assert_eq!(r.desc.begin_time, 1_700_003_600);
        assert_eq!(r.desc.signal.as_deref(), Some("B:USR1@30"));
        let r = ok(&["--gres=gpu:2", "-G", "4", "--tmp=10", "--wrap=x"]);
        assert_eq!(r.desc.gres.as_deref(), Some("gpu:2"));
        assert_eq!(r.desc.gpus.as_deref(), Some("4"));
        assert_eq!(r.desc.tmp_mb, Some(10));
        // --tmp is kept in MB; --kill-on-invalid-dep takes yes/no, and yes stays
        assert_eq!(ok(&["--tmp=2G", "--wrap=x"]).desc.tmp_disk_mb(), 2048);
        let k = |a: &[&str]| ok(a).desc.kill_on_invalid_dep();
        assert_eq!(k(&["--kill-on-invalid-dep=YES", "--wrap=x"]), Some(true));
        assert_eq!(k(&["--kill-on-invalid-dep=no", "--wrap=x"]), Some(false));
        assert_eq!(k(&["--kill-on-invalid-dep=yes", "--kill-on-invalid-dep=no", "--wrap=x"]), Some(true));
        let r = ok(&["-vvv", "-W", "--test-only", "-H", "--wrap=x"]);
        assert_eq!(r.verbose, 3);
        assert!(r.wait && r.test_only && r.desc.hold);
        // --tasks-per-node is --ntasks-per-node
        assert_eq!(ok(&["--tasks-per-node=3", "--wrap=x"]).desc.ntasks_per_node, Some(3));
        // every option in the table is accepted somewhere
        for s in SPECS {
            let _ = run(&[&format!("--{}", s.long), "1", "--wrap=x"], &[]);
        }
    }

    #[test]
    fn export_handling() {
        let e = [("HOME", "/root"), ("FOO", "bar"), ("SLURM_CONF", "/etc/slurm.conf")];
        let get = |r: &SbatchRequest, k: &str| r.desc.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let r = run(&["--wrap=x"], &e).unwrap();
        assert_eq!(get(&r, "FOO").as_deref(), Some("bar"));
        assert_eq!(get(&r, "SLURM_SUBMIT_DIR").as_deref(), Some("/w"));
        assert!(get(&r, "SLURM_UMASK").unwrap().starts_with('0'));
        assert_eq!(get(&r, "SLURM_EXPORT_ENV"), None);
        assert_eq!(get(&r, "SLURM_GET_USER_ENV"), None);
        let r = run(&["--export=NONE", "--wrap=x"], &e).unwrap();
        assert_eq!(get(&r, "FOO"), None);
        assert_eq!(get(&r, "SLURM_CONF").as_deref(), Some("/etc/slurm.conf"));
        assert_eq!(get(&r, "SLURM_EXPORT_ENV").as_deref(), Some("NONE"));
        assert_eq!(get(&r, "SLURM_GET_USER_ENV").as_deref(), Some("1"));
        let r = run(&["--export=FOO,NEW=1", "--wrap=x"], &e).unwrap();
        assert_eq!(get(&r, "FOO").as_deref(), Some("bar"));
        assert_eq!(get(&r, "NEW").as_deref(), Some("1"));
        assert_eq!(get(&r, "HOME"), None);
        let r = run(&["--export=ALL,NEW=1", "--wrap=x"], &e).unwrap();
        assert_eq!(get(&r, "HOME").as_deref(), Some("/root"));
        let r = run(&["--export=NIL", "--wrap=x"], &e).unwrap();
        assert_eq!(get(&r, "FOO"), None);
        assert_eq!(get(&r, "SLURM_GET_USER_ENV"), None);
        // NUL bytes end entries, newlines do not: a text file is one
        // variable (recorded/24.11/sbatch_surface/181)
        let r = run(&["--export-file=envfile", "--wrap=x"], &e).unwrap();
        assert_eq!(get(&r, "A").as_deref(), Some("1\nB=2\n"));
        assert_eq!(get(&r, "B"), None);
        assert_eq!(get(&r, "FOO"), None);
        let r = run(&["--export-file=envfile0", "--wrap=x"], &e).unwrap();
        assert_eq!((get(&r, "A").as_deref(), get(&r, "B").as_deref()), (Some("1"), Some("2")));
        let r = run(&["--wrap=x"], &[("SBATCH_EXPORT", "NONE")]).unwrap();
        assert_eq!(r.desc.export.as_deref(), Some("NONE"));
    }

    #[test]
    fn responses_and_wait() {
        let mut r = ok(&["--wrap=x"]);
        assert_eq!(format_submit_response(&r, 42, "c"), "Submitted batch job 42\n");
        r.parsable = true;
        assert_eq!(format_submit_response(&r, 42, "c"), "42\n");
        r.clusters = Some("c".into());
        assert_eq!(format_submit_response(&r, 42, "c"), "42;c\n");
        r.parsable = false;
        assert_eq!(format_submit_response(&r, 42, "c"), "Submitted batch job 42 on cluster c\n");
        r.quiet = true;
        assert_eq!(format_submit_response(&r, 42, "c"), "");
        assert!(ok(&["-Q", "--wrap=x"]).quiet);
        assert_eq!(wait_exit_code(JobState::Completed, 0), 0);
        assert_eq!(wait_exit_code(JobState::Failed, 3 << 8), 3);
        assert_eq!(wait_exit_code(JobState::Cancelled, 15), 1);
        assert_eq!(wait_exit_code(JobState::Timeout, 9), 1);
        assert_eq!(wait_exit_code_all(&[(JobState::Completed, 0), (JobState::Running, 0)]), None);
        assert_eq!(wait_exit_code_all(&[(JobState::Completed, 0), (JobState::Failed, 2 << 8)]), Some(2));
    }

    #[test]
    fn garbage_never_panics() {
        let words = [
            "-N",
            "--mem",
            "é",
            "",
            "-",
            "--",
            "1-",
            "-1",
            "x.sh",
            "job.sh",
            "--wrap",
            "::",
            "%",
            "--begin",
            "--array",
            "--signal",
            "@",
            "B:",
            "--nice=",
            "-t",
            "ü-ü",
            "--export",
            "a,b=\"c",
            "9999999999999999999999",
        ];
        let mut seed: u64 = 3;
        for _ in 0..3000 {
            let mut v = Vec::new();
            for _ in 0..(seed % 7) {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                v.push(words[(seed >> 33) as usize % words.len()].to_string());
            }
            let _ = parse_at(&v, &env(&[]), "/w", Some("#!/bin/sh\n#SBATCH \"\n".into()), &files, 0);
            seed = seed.wrapping_add(1);
        }
        for body in [
            "#!",
            "#!\n#SBATCH",
            "#!\n#SBATCH :",
            "#!\n#SBATCH \\",
            "#!\n#SBATCH hetjob -N1\n#SBATCH -N2",
            "#!\n#SBATCH -J é\\",
        ] {
            let _ = parse_at(&a(&[]), &env(&[]), "/w", Some(body.into()), &files, 0);
        }
    }
}
