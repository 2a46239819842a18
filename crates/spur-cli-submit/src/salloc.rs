//! `salloc`: get an allocation, run a command in it (the user's shell by
//! default, or `SallocDefaultCommand`), give the allocation back when the
//! command ends: `salloc: Granted job allocation N` ... `salloc:
//! Relinquishing job allocation N` on stderr, and the command's exit status.
//!
//! While the command runs salloc ignores SIGINT and SIGQUIT (they are the
//! terminal's, for the command), and ends the allocation on SIGTERM or
//! SIGHUP. An allocation revoked from outside (scancel, its time limit) ends
//! the command: `salloc: Job allocation N has been revoked.`

use crate::alloc;
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::process::emit;
use spur_cli_base::version::version_line;
use spur_cli_base::Output;
use spur_client::ClientError;
use spur_core::model::{JobDesc, JobState};
use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::time::Duration;

pub const SPECS: &[OptSpec] = &[
    OptSpec::new(Some('A'), "account", Required, "account"),
    OptSpec::new(Some('c'), "cpus-per-task", Required, "cpus-per-task"),
    OptSpec::new(Some('C'), "constraint", Required, "constraint"),
    OptSpec::new(Some('d'), "dependency", Required, "dependency"),
    OptSpec::new(Some('D'), "chdir", Required, "chdir"),
    OptSpec::new(Some('G'), "gpus", Required, "gpus"),
    OptSpec::new(Some('h'), "help", None_, "help"),
    OptSpec::new(Some('H'), "hold", None_, "hold"),
    OptSpec::new(Some('I'), "immediate", Optional, "immediate"),
    OptSpec::new(Some('J'), "job-name", Required, "job-name"),
    OptSpec::new(Some('n'), "ntasks", Required, "ntasks"),
    OptSpec::new(Some('N'), "nodes", Required, "nodes"),
    OptSpec::new(Some('p'), "partition", Required, "partition"),
    OptSpec::new(Some('q'), "qos", Required, "qos"),
    OptSpec::new(Some('Q'), "quiet", None_, "quiet"),
    OptSpec::new(Some('t'), "time", Required, "time"),
    OptSpec::new(Some('v'), "verbose", None_, "verbose"),
    OptSpec::new(Some('V'), "version", None_, "version"),
    OptSpec::new(Some('w'), "nodelist", Required, "nodelist"),
    OptSpec::new(Some('x'), "exclude", Required, "exclude"),
    OptSpec::new(None, "comment", Required, "comment"),
    OptSpec::new(None, "contiguous", None_, "contiguous"),
    OptSpec::new(None, "exclusive", Optional, "exclusive"),
    OptSpec::new(None, "gres", Required, "gres"),
    OptSpec::new(None, "mem", Required, "mem"),
    OptSpec::new(None, "mem-per-cpu", Required, "mem-per-cpu"),
    OptSpec::new(None, "mincpus", Required, "mincpus"),
    OptSpec::new(None, "nice", Optional, "nice"),
    OptSpec::new(None, "no-shell", None_, "no-shell"),
    OptSpec::new(None, "ntasks-per-node", Required, "ntasks-per-node"),
    OptSpec::new(None, "reservation", Required, "reservation"),
    OptSpec::new(None, "tmp", Required, "tmp"),
    OptSpec::new(None, "usage", None_, "usage"),
];

/// The signals salloc takes itself (see `run`).
fn salloc_signals() -> nix::sys::signal::SigSet {
    use nix::sys::signal::Signal::*;
    let mut s = nix::sys::signal::SigSet::empty();
    for sig in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
        s.add(sig);
    }
    s
}

/// salloc's input variables (`man salloc`), below the command line.
pub const ENV_VARS: &[(&str, &str)] = &[
    ("SALLOC_ACCOUNT", "account"),
    ("SALLOC_CONSTRAINT", "constraint"),
    ("SALLOC_DEBUG", "verbose"),
    ("SALLOC_EXCLUSIVE", "exclusive"),
    ("SALLOC_GPUS", "gpus"),
    ("SALLOC_GRES", "gres"),
    ("SALLOC_IMMEDIATE", "immediate"),
    ("SALLOC_MEM_PER_CPU", "mem-per-cpu"),
    ("SALLOC_MEM_PER_NODE", "mem"),
    ("SALLOC_NO_SHELL", "no-shell"),
    ("SALLOC_PARTITION", "partition"),
    ("SALLOC_QOS", "qos"),
    ("SALLOC_RESERVATION", "reservation"),
    ("SALLOC_TIMELIMIT", "time"),
];

#[derive(Clone, Debug, Default)]
pub struct SallocOpts {
    pub desc: JobDesc,
    pub command: Vec<String>,
    pub no_shell: bool,
    pub immediate: Option<u64>,
    pub quiet: bool,
    pub verbose: u32,
    /// The options given, for `-v`'s block (name, value).
    pub set: Vec<(String, String)>,
    /// `--chdir`: where the command runs.
    pub chdir: Option<String>,
}

fn error(msg: impl AsRef<str>, code: i32) -> Output {
    Output::err(format!("salloc: error: {}\n", msg.as_ref()), code)
}

pub fn parse(args: &[String], env: &HashMap<String, String>, cwd: &str) -> Result<SallocOpts, Output> {
    let p = opts::parse("salloc", SPECS, args, Mode::StopAtFirstOperand);
    if let Some(e) = p.error {
        return Err(e.into_output("salloc", 255));
    }
    let mut o = SallocOpts { desc: alloc::base_desc(cwd), ..Default::default() };
    o.desc.submit_line = alloc::submit_line("salloc", args);
    let mut all: Vec<(&'static str, Option<String>)> = Vec::new();
    for (var, id) in ENV_VARS {
        if let Some(v) = env.get(*var) {
            all.push((id, Some(v.clone())));
        }
    }
    all.extend(p.opts);
    for (id, v) in all {
        let val = v.as_deref().unwrap_or("");
        if !matches!(id, "verbose" | "help" | "usage" | "version") {
            o.set.push((id.to_string(), val.to_string()));
        }
        match id {
            "help" => return Err(Output::ok(help())),
            "usage" => return Err(Output::ok(usage())),
            "version" => return Err(Output::ok(version_line())),
            "no-shell" => o.no_shell = true,
            "quiet" => o.quiet = true,
            "verbose" => o.verbose += 1,
            "immediate" => o.immediate = Some(v.as_deref().map(|s| s.parse::<u64>().unwrap_or(1).max(1)).unwrap_or(1)),
            "exclusive" => {
                // `--exclusive[=user|mcs|topo]`; SALLOC_EXCLUSIVE=1 is no such word
                if v.as_deref().is_some_and(|w| !matches!(w, "user" | "mcs" | "topo" | "")) {
                    return Err(error("Invalid --exclusive specification", 255));
                }
                o.desc.exclusive = true;
            }
            "chdir" => {
                let d = if val.starts_with('/') { val.to_string() } else { format!("{}/{}", cwd, val) };
                o.desc.work_dir = d.clone();
                o.chdir = Some(d);
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
    o.command = p.operands;
    if o.desc.name.is_empty() {
        // not the command's name (recorded/24.11/salloc/33, srun_env/37)
        o.desc.name = "interactive".to_string();
    }
    Ok(o)
}

pub fn run(args: &[String], env: &HashMap<String, String>) -> i32 {
    let cwd = std::env::current_dir().map(|p| p.to_string_lossy().to_string()).unwrap_or_else(|_| "/".into());
    let o = match parse(args, env, &cwd) {
        Ok(o) => o,
        Err(out) => return emit(&out),
    };
    if o.verbose > 0 {
        eprint!("{}", alloc::defined_options("salloc", &o.set));
        if spur_core::compat::profile().verbose_logs_select_plugins {
            eprint!("{}", spur_cli_base::version::select_plugin_lines_22_05("salloc"));
        }
    }
    // salloc's signals, from here on taken by a thread of its own (the
    // command gets an empty mask): while waiting, SIGINT/TERM/HUP/QUIT give
    // the allocation up; while the command runs, SIGTERM/HUP end it and
    // SIGINT/QUIT are the terminal's, for the command
    let signals = salloc_signals();
    let _ = signals.thread_block();
    let aborted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let child_pid = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(0));
    {
        let aborted = aborted.clone();
        let child_pid = child_pid.clone();
        std::thread::spawn(move || loop {
            let Ok(sig) = signals.wait() else { continue };
            let pid = child_pid.load(std::sync::atomic::Ordering::SeqCst);
            if pid == 0 {
                aborted.store(true, std::sync::atomic::Ordering::SeqCst);
            } else if matches!(sig, nix::sys::signal::Signal::SIGTERM | nix::sys::signal::Signal::SIGHUP) {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), sig);
            }
        });
    }
    let c = match spur_cli_base::process::client("salloc") {
        Ok(c) => spur_client::blocking::Client::new(c.conf().clone(), &spur_client::conf_path()),
        Err(out) => return emit(&out),
    };
    let cluster = c.conf().cluster_name.clone();
    let mut desc = o.desc.clone();
    desc.request_id = spur_auth::random_hex(12).ok();
    desc.command = o.command.first().cloned();
    let id = match c.submit(&desc, false) {
        Ok(r) => r.job_id,
        Err(ClientError::Rejected { message, user_msg, .. }) => {
            for l in user_msg.lines().filter(|l| !l.is_empty()) {
                eprintln!("salloc: error: {}", l);
            }
            eprintln!("salloc: error: Job submit/allocate failed: {}", message);
            return 1;
        }
        Err(e) => {
            eprintln!("salloc: error: Job submit/allocate failed: {}", e);
            return 1;
        }
    };
    let quiet = o.quiet;
    let mut waited = false;
    let immediate = o.immediate.is_some();
    let job = alloc::wait_running(&c, id, o.immediate.map(Duration::from_secs), &aborted, |j| {
        waited = true;
        if !quiet && !immediate {
            eprint!("{}", alloc::partition_config_line("salloc", j));
            eprintln!("salloc: Pending job allocation {}", id);
            eprintln!("salloc: job {} queued and waiting for resources", id);
        }
    });
    if aborted.load(std::sync::atomic::Ordering::SeqCst) && job.as_ref().is_some_and(|j| j.state == JobState::Pending) {
        let _ = c.cancel(&spur_core::request::CancelRequest { job_ids: vec![id.to_string()], ..Default::default() });
        eprintln!("salloc: Job aborted due to signal");
        return 1;
    }
    let job = match job {
        Some(j) if j.state == JobState::Running => j,
        Some(j) if j.state == JobState::Pending => {
            // --immediate: the job fails, as slurmctld fails an allocation it cannot start at once
            let _ = c.release_allocation(id, 1 << 8);
            eprintln!("salloc: error: Unable to allocate resources: Requested nodes are busy");
            return 1;
        }
        _ => {
            eprintln!("salloc: error: Unable to allocate resources: Job/step already completing or completed");
            return 1;
        }
    };
    if waited && !quiet {
        eprintln!("salloc: job {} has been allocated resources", id);
    }
    if !quiet {
        eprintln!("salloc: Granted job allocation {}", id);
        eprint!("{}", alloc::nodes_ready_line("salloc", &job, c.conf().prolog_alloc()));
    }
    if o.no_shell {
        return 0;
    }
    let command: Vec<String> = if o.command.is_empty() {
        if c.conf().use_interactive_step() {
            // the shell runs as the job's interactive step on its first node:
            // `srun InteractiveStepOptions`, the srun beside this salloc
            let dir =
                std::env::args().next().and_then(|a| a.rfind('/').map(|i| a[..=i].to_string())).unwrap_or_default();
            let cmd = format!("{}srun {}", dir, c.conf().interactive_step_options());
            vec!["/bin/sh".into(), "-c".into(), cmd]
        } else {
            match c.conf().get("SallocDefaultCommand") {
                Some(cmd) => vec!["/bin/sh".into(), "-c".into(), cmd.to_string()],
                None => vec![env.get("SHELL").cloned().unwrap_or_else(|| "/bin/sh".into())],
            }
        }
    } else {
        o.command.clone()
    };
    let Some(exe) = alloc::find_command(&command[0], env.get("PATH").map(String::as_str)) else {
        eprintln!("salloc: error: _fork_command: Unable to find command \"{}\"", command[0]);
        if !quiet {
            eprintln!("salloc: Relinquishing job allocation {}", id);
        }
        let _ = c.release_allocation(id, 1 << 8);
        return 1;
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.arg0(&command[0]);
    cmd.args(&command[1..]);
    if let Some(d) = &o.chdir {
        cmd.current_dir(d);
    }
    let mut vars = alloc::allocation_env(&job, &cluster);
    if spur_core::compat::profile().env_24_11_variables {
        // salloc's own MPI launcher variables, as the caller's allow
        let mut own: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        spur_core::launch::add_mpi_launcher_vars(&mut own);
        vars.extend(own.into_iter().filter(|(k, v)| env.get(k) != Some(v)));
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    // the command starts with no signal blocked
    // SAFETY: sigprocmask is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            let _ = nix::sys::signal::sigprocmask(
                nix::sys::signal::SigmaskHow::SIG_SETMASK,
                Some(&nix::sys::signal::SigSet::empty()),
                None,
            );
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(ch) => ch,
        Err(e) => {
            eprintln!("salloc: error: {}: {}", command[0], e);
            eprintln!("salloc: Relinquishing job allocation {}", id);
            let _ = c.release_allocation(id, 1 << 8);
            return 1;
        }
    };
    let pid = child.id() as i32;
    child_pid.store(pid, std::sync::atomic::Ordering::SeqCst);
    // an allocation ended from outside ends the command
    let revoked = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let c = c.clone();
        let revoked = revoked.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_secs(1));
            let alive = alloc::job(&c, id).map(|j| j.state == JobState::Running).unwrap_or(true);
            if !alive {
                revoked.store(true, std::sync::atomic::Ordering::SeqCst);
                eprintln!("salloc: Job allocation {} has been revoked.", id);
                // SAFETY: kill(2) with a pid salloc started.
                unsafe {
                    libc::kill(pid, libc::SIGHUP);
                }
                return;
            }
        });
    }
    let status = child.wait();
    use std::os::unix::process::ExitStatusExt;
    let raw = status.as_ref().map(|s| s.into_raw()).unwrap_or(1 << 8);
    // the command's exit code; killed by HUP, INT, QUIT or KILL (most
    // likely the user's doing) 0; by another signal 1 (salloc.c)
    let code = match status {
        Ok(s) => match (s.code(), s.signal()) {
            (Some(c), _) => c,
            (None, Some(libc::SIGHUP | libc::SIGINT | libc::SIGQUIT | libc::SIGKILL)) => 0,
            _ => 1,
        },
        Err(_) => 1,
    };
    if !revoked.load(std::sync::atomic::Ordering::SeqCst) {
        if !quiet {
            eprintln!("salloc: Relinquishing job allocation {}", id);
        }
        let _ = c.release_allocation(id, raw);
    }
    code
}

/// `salloc --usage` and `salloc --help`, as each release prints them.
fn usage() -> &'static str {
    alloc::by_release(include_str!("text/salloc-usage-22.05.txt"), include_str!("text/salloc-usage-24.11.txt"))
}

fn help() -> &'static str {
    alloc::by_release(include_str!("text/salloc-help-22.05.txt"), include_str!("text/salloc-help-24.11.txt"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_command_and_name() {
        let a: Vec<String> = ["-N2", "-t", "5", "sh", "-c", "exit 7"].iter().map(|s| s.to_string()).collect();
        let o = parse(&a, &HashMap::new(), "/tmp").unwrap();
        assert_eq!((o.desc.min_nodes, o.desc.time_limit), (Some(2), Some(5)));
        assert_eq!(o.command, vec!["sh", "-c", "exit 7"]);
        assert_eq!(o.desc.name, "interactive");
        let env: HashMap<String, String> = [("SALLOC_PARTITION".to_string(), "p2".to_string())].into_iter().collect();
        let o = parse(&[], &env, "/").unwrap();
        assert_eq!((o.desc.partition.as_deref(), o.desc.name.as_str()), (Some("p2"), "interactive"));
    }
}
