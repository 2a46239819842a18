//! Starting and reaping step daemons (`spurstepd JOBDIR`, daemons/spurstepd).
//!
//! The agent starts one per job step, detached: stdin and stdout on
//! /dev/null, its stderr (its log lines, each naming its pid) the agent's
//! log, working directory `/`. No code runs between fork and exec, so std
//! spawns it with posix_spawn (no copy of the agent's address space). The
//! step daemon makes itself a session leader at once, so it outlives the
//! agent; the agent reaps the ones it started when they end (on SIGCHLD).

use std::io;
use std::path::{Path, PathBuf};

/// Step daemons started by this agent and not yet reaped.
static SPAWNED: std::sync::Mutex<Vec<std::process::Child>> = std::sync::Mutex::new(Vec::new());

/// `spurstepd` beside the agent's own binary (an installation puts the two
/// daemons in one directory, as cargo does).
pub fn stepd_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("spurd"));
    exe.with_file_name("spurstepd")
}

/// Start `stepd jobdir` as a process of its own.
pub fn spawn(stepd: &Path, jobdir: &Path) -> io::Result<()> {
    start(std::process::Command::new(stepd).arg(jobdir))
}

/// Start `stepd --step stepdir node` (an srun step's part on this node).
pub fn spawn_step(stepd: &Path, stepdir: &Path, node: &str) -> io::Result<()> {
    start(std::process::Command::new(stepd).arg("--step").arg(stepdir).arg(node))
}

fn start(cmd: &mut std::process::Command) -> io::Result<()> {
    let child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .current_dir("/")
        .spawn()?;
    SPAWNED.lock().unwrap_or_else(|e| e.into_inner()).push(child);
    Ok(())
}

/// Reap the step daemons that have ended; how many are still running.
pub fn reap() -> usize {
    let mut v = SPAWNED.lock().unwrap_or_else(|e| e.into_inner());
    v.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
    v.len()
}
