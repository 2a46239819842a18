//! The job spool: the one definition of what a node's spool directory holds.
//! It is the contract between the agent (`spurd -N NODE`), the step
//! daemon (`spurstepd JOBDIR`, a process of its own that outlives the agent;
//! agents before it ran `spurd supervise JOBDIR`) and `spur cluster down`; none of them names a spool file except
//! through this crate.
//!
//! `SlurmdSpoolDir` (one per node, `%n`/`%h` expanded) holds:
//!
//! | path | written by | read by | content |
//! |---|---|---|---|
//! | `job%05u/` | agent | all | one job's run ([`job_dir`]; a `job<ID>` of an earlier spurd is still found) |
//! | `job%05u/spec.bin` | agent | supervisor, agent | the `LaunchSpec` in its `spur_format` envelope, as the controller sent it ([`encode_spec`]; bincode from a build before versioned formats), written whole, then renamed into place |
//! | `job%05u/supervisor.proc` | supervisor | agent, `cluster down` | appended as the facts become known: the version line `spur-proc 1`, then the supervisor's pid, the script's pid (= its process group), then the job's stderr path, a NUL and the start times of the supervisor and of the script ([`start_time`]) to the end of the file (a build before the start times reads the path up to the end, the pids the same); a line counts once the newline after it is there ([`read_proc`]; a file without the version line is one of a build before versioned formats, read the same) |
//! | `job%05u/slurm_script` | supervisor | the job | the script, owned by the user, 0700 |
//! | `job%05u/pending.TIME.PID.N` | agent | supervisor, agent | a signal or cancel for the job's processes ([`Pending`]: `signal SIG BATCHONLY` or `terminate KILLWAIT NOTE`), posted before the agent looks for them; whoever unlinks it carries it out: the agent when the script runs, else the supervisor once it has started it ([`take_pending`]) |
//! | `job%05u/usage` | supervisor | agent | the batch script's use so far, as a step's `usage` file (one line of `key=value` words), replaced whole at each sample and last once the script is reaped (its rusage merged); the agent sends it with the job's end ([`read_step_usage`]) |
//! | `job%05u/tasks` | supervisor | `scontrol listpids` | the batch step's processes, as a step's `tasks` file: the supervisor, its cgroup, and the script as task 0; the job owner's, 0600 |
//! | `job%05u/status` | supervisor | agent | the script's `wait(2)` status, decimal; written last, whole, then renamed |
//! | `spurd.sock` | agent | supervisor | Unix socket; the supervisor writes `done ID\n` once `status` is there |
//! | `done.log` | agent | agent | `ID RESTART EPOCH` per run that ended and was reported ([`DoneLog`]) |
//! | `step%05u.%u/` | agent | step daemon, agent, `cluster down` | one step's part on this node ([`step_dir`]) |
//! | `step%05u.%u/spec.bin` | agent | step daemon | the `StepLaunch` in its `spur_format` envelope, written whole, then renamed |
//! | `step%05u.%u/stepd.proc` | step daemon | agent, `cluster down` | `PID START` of the step daemon ([`stepd_pid`]: counted while its command line names the directory and its start time is this one) |
//! | `step%05u.%u/cancel` | agent | step daemon | present when the agent's SIGTERM ends the step (`KILLWAIT SIGNAL`, decimal: the signal the tasks get first), rather than being a signal for its tasks |
//! | `step%05u.%u/tasks` | step daemon | `scontrol listpids` | once the tasks started: `stepd PID START` (the step daemon), `cgroup PATH` when the step has a cgroup (v2), then `task PID LOCALID GLOBALID` per task ([`read_step_tasks`]); written whole, then renamed; the job owner's, 0600 (the step daemon makes the step directory 0711 so that the owner reaches it, and nothing else there) |
//! | `step%05u.%u/usage` | step daemon | agent, `sstat` (coming) | the step's use on this node so far, one line of `key=value` words (`spur_core::usage::NodeUsage::to_line`), replaced whole at each sample ([`step_usage`]) |
//!
//! Read but never written any more (a job started by an earlier spurd keeps
//! running across an upgrade in place and must still be found, signalled and
//! reported): `job*/supervisor.pid`, `job*/job.pgid` and `job*/stderr.path`
//! (one fact per file, instead of `supervisor.proc`), and `done/ID.RESTART`
//! (one empty file per mark), folded into `done.log` when the agent starts.
//!
//! **Modes.** `spec.bin` holds the job's environment and script, so nothing
//! of the spool is readable by others from its first byte: the agent creates
//! the spool directory 0755 (slurmd's `_set_slurmd_spooldir`: the job's owner
//! must pass through it to run its script) and each job directory 0700
//! ([`create_spool_dir`], [`write_spec`]), and every file this crate writes
//! is created 0600 (a leftover temporary file is removed first, never
//! reused with its old mode). The supervisor then makes the job directory
//! root's, mode 0750, group the job's group (as Slurm's `job%05u`, made by
//! slurmstepd's `_make_batch_dir`): the user can run the script (its own,
//! 0700) but read nothing else there and write nothing the agent trusts. When the script cannot be started, `status` holds
//! Slurm's error code as the raw status, as slurmstepd reports it (see
//! spurd's supervisor).
//!
//! **Nothing that runs as root opens a path the user chose.** The job's
//! output files are opened by the script's process once it is the user; the
//! one line the node writes into them, slurmstepd's cancel line
//! ([`cancel_line`]), the agent asks the supervisor for with a signal
//! ([`request_cancel_note`]: [`NOTE_CANCELLED`], [`NOTE_TIME_LIMIT`]), and the
//! supervisor writes it through the descriptor of the job's stderr the
//! script's process sent it before execve. The stderr path at the end of
//! `supervisor.proc` is a record, never opened.
//!
//! **The job's processes** ([`job_processes`]) are every descendant of the
//! supervisor (a child subreaper: what the script leaves behind stays its
//! descendant) and the script's process group; once the supervisor is gone,
//! the script and its descendants. A pid read from `supervisor.proc` counts as
//! the supervisor only while its command line names this very directory
//! (`/proc/PID/cmdline`: `spurstepd DIR`, or `spurd supervise DIR`) and its
//! start time is the recorded one; the script's pid, once the supervisor is
//! gone, only while its start time is the recorded one (a file of a build
//! before the start times: while the process is the job owner's). So a pid
//! given to another process after the job's ended is never taken for the
//! job's, and every process is signalled through a pidfd opened before its
//! start time is checked again: the process checked is the one signalled.
//!
//! Costs: a job is one directory and four files; directories come and go at
//! the job rate, and each new inode costs an allocation (on ext4 without a
//! journal, one that scans past every recently deleted inode), so facts are
//! appended to one file rather than written one per file.

use nix::errno::Errno;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use spur_core::launch::LaunchSpec;
use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const SPEC_FILE: &str = "spec.bin";
pub const PROC_FILE: &str = "supervisor.proc";
pub const SCRIPT_FILE: &str = "slurm_script";
pub const STATUS_FILE: &str = "status";
/// The agent's notification socket, in the spool directory.
pub const SOCKET_NAME: &str = "spurd.sock";
/// The marks of finished runs, in the spool directory.
pub const DONE_LOG: &str = "done.log";

/// Files of earlier spurd versions, read so that their jobs are still found.
pub mod legacy {
    /// The supervisor's pid.
    pub const SUPERVISOR_PID: &str = "supervisor.pid";
    /// The script's pid (and process group).
    pub const JOB_PGID: &str = "job.pgid";
    /// Where the job's stderr goes.
    pub const STDERR_PATH: &str = "stderr.path";
    /// One empty file `ID.RESTART` per finished run, in the spool directory.
    pub const DONE_DIR: &str = "done";
}

// ------------------------------------------------------------------ spec.bin

/// The bytes of `spec.bin` for `spec`: its `spur_format` envelope at the
/// newest version this build writes (`spur_core::records`). The agent writes
/// a launch's payload as it came, which the controller wrote at the newest
/// version this agent reads.
pub fn encode_spec(spec: &LaunchSpec) -> io::Result<Vec<u8>> {
    spur_core::records::encode_launch(spec, spur_format::FORMAT_VERSION)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The `LaunchSpec` in the bytes of a `spec.bin` of any format version this
/// build reads (0 included); `InvalidData` for anything else, and for a newer
/// version (the error names both).
pub fn decode_spec(bytes: &[u8]) -> io::Result<LaunchSpec> {
    decode_spec_from(bytes, &SPEC_FILE)
}

fn decode_spec_from(bytes: &[u8], source: &dyn std::fmt::Display) -> io::Result<LaunchSpec> {
    spur_core::records::decode_launch(bytes, source).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The mode of every file the spool's writers create: the owner's only.
pub const FILE_MODE: u32 = 0o600;
/// The mode a job directory is created with (the supervisor opens it to the
/// job's group afterwards, 0750).
pub const JOB_DIR_MODE: u32 = 0o700;
/// The mode of the spool directory itself, slurmd's (the job's owner passes
/// through it to its script).
pub const SPOOL_DIR_MODE: u32 = 0o755;

/// Create `path` afresh for writing, mode [`FILE_MODE`] from its first byte:
/// a file left there (a crash between write and rename, an older build's) is
/// removed first, so its mode is never inherited; a symbolic link is not
/// followed.
pub fn create_private(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    fs::OpenOptions::new().write(true).create_new(true).mode(FILE_MODE).custom_flags(nix::libc::O_NOFOLLOW).open(path)
}

/// Create directory `dir` with `mode` (its parents with the default mode when
/// missing); one that exists is left as it is.
fn create_dir_with(dir: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    match fs::DirBuilder::new().mode(mode).create(dir) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        r => r,
    }
}

/// Create the node's spool directory with slurmd's mode, [`SPOOL_DIR_MODE`],
/// and set that mode whatever the umask or an earlier mode (slurmd's
/// `_set_slurmd_spooldir`: mkdir 0755, then chmod 0755): jobs' owners must
/// pass through it to their scripts. It holds no secret itself.
pub fn create_spool_dir(spool: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    create_dir_with(spool, SPOOL_DIR_MODE)?;
    fs::set_permissions(spool, fs::Permissions::from_mode(SPOOL_DIR_MODE))
}

/// Write `spec.bin` into `jobdir` (created 0700 when missing): to a temporary
/// name, mode 0600, then renamed, so a reader sees all of it or nothing and
/// no one else ever sees any of it.
pub fn write_spec(jobdir: &Path, spec: &LaunchSpec) -> io::Result<()> {
    let bytes = encode_spec(spec)?;
    create_dir_with(jobdir, JOB_DIR_MODE)?;
    let tmp = jobdir.join(format!("{}.tmp", SPEC_FILE));
    create_private(&tmp)?.write_all(&bytes)?;
    fs::rename(&tmp, jobdir.join(SPEC_FILE))
}

pub fn read_spec(jobdir: &Path) -> io::Result<LaunchSpec> {
    let path = jobdir.join(SPEC_FILE);
    decode_spec_from(&fs::read(&path)?, &path.display())
}

/// The directory holds a launch (possibly of an earlier run of the job).
pub fn has_spec(jobdir: &Path) -> bool {
    jobdir.join(SPEC_FILE).exists()
}

// ------------------------------------------------------------------ directories

/// `job%05u`, as slurmd names a job's spool directory (the script path shows
/// in error messages: `.../job00018/slurm_script: 4: ...`,
/// recorded/24.11/errors/89); an existing `job<ID>` made before this naming
/// keeps being found.
pub fn job_dir(spool: &Path, id: u32) -> PathBuf {
    let padded = spool.join(format!("job{:05}", id));
    let plain = spool.join(format!("job{}", id));
    if !padded.exists() && plain.exists() {
        return plain;
    }
    padded
}

/// The job id a directory is named for (`job<ID>`, any zero padding).
pub fn job_id_of(dir: &Path) -> Option<u32> {
    let name = dir.file_name()?.to_str()?;
    let digits = name.strip_prefix("job")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The job directories under `spool`, in job id order.
pub fn job_dirs(spool: &Path) -> Vec<(u32, PathBuf)> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(spool) else {
        return out;
    };
    for e in rd.flatten() {
        let dir = e.path();
        if !dir.is_dir() {
            continue;
        }
        if let Some(id) = job_id_of(&dir) {
            out.push((id, dir));
        }
    }
    out.sort();
    out
}

pub fn script_path(jobdir: &Path) -> PathBuf {
    jobdir.join(SCRIPT_FILE)
}

pub fn socket_path(spool: &Path) -> PathBuf {
    spool.join(SOCKET_NAME)
}

/// What the agent finds in one job directory after a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobDirState {
    pub job_id: u32,
    pub dir: PathBuf,
    /// The supervisor process is alive.
    pub running: bool,
    /// The script's wait status, once it ended.
    pub status: Option<i32>,
}

/// Every job directory under `spool` with its state, in job id order.
pub fn scan(spool: &Path) -> Vec<JobDirState> {
    job_dirs(spool)
        .into_iter()
        .map(|(job_id, dir)| {
            let status = read_status(&dir);
            let running = status.is_none() && supervisor_pid(&dir).is_some();
            JobDirState { job_id, dir, running, status }
        })
        .collect()
}

/// Remove a finished job's directory. A missing one is fine.
pub fn cleanup(jobdir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(jobdir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        r => r,
    }
}

// ------------------------------------------------------------------ status

/// Write `status` (the raw wait status), whole and flushed to disk, then
/// renamed into place: the agent never reads half of it.
pub fn write_status(jobdir: &Path, status: i32) -> io::Result<()> {
    let path = jobdir.join(STATUS_FILE);
    let tmp = jobdir.join(format!("{}.tmp", STATUS_FILE));
    {
        let mut f = create_private(&tmp)?;
        f.write_all(format!("{}\n", status).as_bytes())?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)
}

pub fn read_status(jobdir: &Path) -> Option<i32> {
    read_num(&jobdir.join(STATUS_FILE))
}

/// The script has ended (and the supervisor said how).
pub fn has_status(jobdir: &Path) -> bool {
    jobdir.join(STATUS_FILE).exists()
}

fn read_num<T: std::str::FromStr>(path: &Path) -> Option<T> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

// ------------------------------------------------------------------ supervisor.proc

/// What `supervisor.proc` says, as far as it is written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcInfo {
    pub supervisor: Option<i32>,
    /// The script's pid, also its process group.
    pub script: Option<i32>,
    pub stderr: Option<String>,
    /// The start times ([`start_time`]) of the supervisor and of the script,
    /// written with the script's pid since this build: what tells them from
    /// later processes given the same pids. `None` in a file of an earlier
    /// build.
    pub started: Option<(u64, u64)>,
}

/// The layout of `supervisor.proc` this build writes and the newest it reads:
/// the format version (`spur_format`) that last changed it.
pub const PROC_VERSION: u32 = 1;
const PROC_TAG: &str = "spur-proc ";

/// `supervisor.proc` (or, for a job of an earlier spurd, its one-fact files).
/// One of a newer layout than this build reads says nothing (and the reason,
/// naming both versions, goes to stderr: the agent's log).
pub fn read_proc(jobdir: &Path) -> ProcInfo {
    let path = jobdir.join(PROC_FILE);
    let Ok(text) = fs::read_to_string(&path) else {
        return ProcInfo {
            supervisor: read_num(&jobdir.join(legacy::SUPERVISOR_PID)),
            script: read_num(&jobdir.join(legacy::JOB_PGID)),
            stderr: fs::read_to_string(jobdir.join(legacy::STDERR_PATH))
                .ok()
                .map(|p| p.trim_end_matches('\n').to_string()),
            started: None,
        };
    };
    let text = match text.strip_prefix(PROC_TAG) {
        // version 1 on: the version line first
        Some(rest) => {
            let Some((v, rest)) = rest.split_once('\n') else { return ProcInfo::default() };
            match v.trim().parse::<u32>() {
                Ok(v) if v <= PROC_VERSION => rest,
                _ => {
                    eprintln!(
                        "{}: supervisor.proc is in format version {}, newer than this build of spur reads (up to {}): upgrade spur",
                        path.display(),
                        v.trim(),
                        PROC_VERSION
                    );
                    return ProcInfo::default();
                }
            }
        }
        // a file of a build before versioned formats: no version line
        None => text.as_str(),
    };
    let mut parts = text.splitn(3, '\n');
    let first = parts.next();
    let second = parts.next();
    let rest = parts.next();
    // the start times after the stderr path and a NUL (no path holds one),
    // whole with their newline
    let (stderr, started) = match rest.and_then(|r| r.rsplit_once('\0')) {
        Some((path, times)) => (Some(path), times.strip_suffix('\n').and_then(parse_started)),
        None => (rest, None),
    };
    // a number counts only with its newline after it
    ProcInfo {
        supervisor: second.and(first).and_then(|l| l.trim().parse().ok()),
        script: rest.and(second).and_then(|l| l.trim().parse().ok()),
        stderr: stderr.map(|r| r.to_string()),
        started,
    }
}

/// `SUPERVISOR_START SCRIPT_START`.
fn parse_started(s: &str) -> Option<(u64, u64)> {
    let (a, b) = s.split_once(' ')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The supervisor's side of `supervisor.proc`: created with its own pid,
/// completed once the script runs.
pub struct ProcWriter(fs::File, Option<u64>);

impl ProcWriter {
    /// Create (or truncate) `supervisor.proc` holding this process's pid.
    pub fn create(jobdir: &Path) -> io::Result<ProcWriter> {
        let mut f = create_private(&jobdir.join(PROC_FILE))?;
        let me = std::process::id();
        f.write_all(format!("{}{}\n{}\n", PROC_TAG, PROC_VERSION, me).as_bytes())?;
        Ok(ProcWriter(f, start_time(me as i32)))
    }

    /// Append the script's pid, the stderr path, and after a NUL the start
    /// times of the supervisor and of the script (`pid`, this process's
    /// child, not yet reaped), in one write: a reader sees the pid line whole
    /// or not at all. (A reader of the layout before the start times takes
    /// them for the end of the stderr path, which is a record only: the
    /// pids read the same.)
    pub fn script_started(mut self, pid: i32, stderr: &[u8]) -> io::Result<()> {
        let mut b = format!("{}\n", pid).into_bytes();
        b.extend_from_slice(stderr);
        if let (Some(me), Some(script)) = (self.1, start_time(pid)) {
            b.extend_from_slice(format!("\0{} {}\n", me, script).as_bytes());
        }
        self.0.write_all(&b)
    }
}

// ------------------------------------------------------------------ the job's processes

/// A process as found in `/proc`: its pid and its start time, which tells it
/// from a later process given the same pid once it has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Proc {
    pid: i32,
    start: u64,
}

/// `/proc/PID/stat`'s state, parent pid and start time.
fn stat_of(pid: i32) -> Option<(char, i32, u64)> {
    let stat = fs::read_to_string(format!("/proc/{}/stat", pid)).ok()?;
    // The command may contain spaces and parentheses: split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    // fields 3 (state), 4 (ppid) ... 22 (starttime)
    let f: Vec<&str> = rest.split_whitespace().collect();
    let state = f.first()?.chars().next()?;
    Some((state, f.get(1)?.parse().ok()?, f.get(19)?.parse().ok()?))
}

/// When process `pid` started, in clock ticks after boot (`/proc/PID/stat`'s
/// 22nd field, 10 ms): with the pid, it names one process for the machine's
/// uptime (the kernel hands pids out in a cycle of `pid_max`, so one comes
/// round again only many ticks later).
pub fn start_time(pid: i32) -> Option<u64> {
    stat_of(pid).map(|(_, _, t)| t)
}

/// Every process: `(pid, ppid, start time)`.
fn process_table() -> Vec<(i32, i32, u64)> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir("/proc") else {
        return out;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Some((_, ppid, start)) = stat_of(pid) {
            out.push((pid, ppid, start));
        }
    }
    out
}

/// All descendants of `root` (not `root` itself), as found.
fn descendant_procs(root: i32) -> Vec<Proc> {
    let table = process_table();
    let mut found = vec![Proc { pid: root, start: 0 }];
    let mut i = 0;
    while i < found.len() {
        let p = found[i].pid;
        for &(c, pp, start) in &table {
            if pp == p && !found.iter().any(|f| f.pid == c) {
                found.push(Proc { pid: c, start });
            }
        }
        i += 1;
    }
    found.remove(0);
    found
}

/// All descendants of `root` (not `root` itself).
pub fn descendants(root: i32) -> Vec<i32> {
    descendant_procs(root).into_iter().map(|p| p.pid).collect()
}

/// Send `sig` to every descendant of `root`, each only while it is the
/// process found ([`signal_exact`]); how many were found.
pub fn signal_descendants(root: i32, sig: Signal) -> usize {
    let procs = descendant_procs(root);
    for p in &procs {
        let _ = signal_exact(*p, sig);
    }
    procs.len()
}

/// Whether a descendant of `root` is in process group `pgid`. While one is,
/// the group's id is given to no other process, so `killpg(pgid)` reaches
/// that group only; once the group is empty, the id may be anyone's.
pub fn group_among_descendants(root: i32, pgid: i32) -> bool {
    descendant_procs(root).iter().any(|p| process_group(p.pid) == Some(pgid))
}

/// The process group of `pid` (`/proc/PID/stat`'s 5th field).
fn process_group(pid: i32) -> Option<i32> {
    let stat = fs::read_to_string(format!("/proc/{}/stat", pid)).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().nth(2)?.parse().ok()
}

/// The process exists and has not ended (a zombie has).
pub fn pid_alive(pid: i32) -> bool {
    pid > 0 && signal::kill(Pid::from_raw(pid), None).is_ok() && !is_zombie(pid)
}

fn is_zombie(pid: i32) -> bool {
    stat_of(pid).map(|(state, _, _)| state == 'Z').unwrap_or(true)
}

/// The supervisor of `jobdir` while it runs: the pid `supervisor.proc`
/// names, while its command line names this very directory and (when the
/// file has it) its start time is the one recorded, so a reused pid does not
/// count.
fn supervisor_of(jobdir: &Path, info: &ProcInfo) -> Option<Proc> {
    let pid = info.supervisor?;
    let (state, _, start) = stat_of(pid)?;
    if state == 'Z' || info.started.is_some_and(|(sup, _)| sup != start) {
        return None;
    }
    let cmdline = fs::read(format!("/proc/{}/cmdline", pid)).ok()?;
    let want = jobdir.as_os_str().as_bytes();
    let canon = fs::canonicalize(jobdir).ok();
    let matches = cmdline
        .split(|&b| b == 0)
        .any(|a| a == want || canon.as_ref().map(|c| c.as_os_str().as_bytes() == a).unwrap_or(false));
    matches.then_some(Proc { pid, start })
}

/// The pid of the supervisor of `jobdir` while it runs (its command line
/// names this very directory and its start time is the recorded one, so a
/// reused pid does not count).
pub fn supervisor_pid(jobdir: &Path) -> Option<i32> {
    supervisor_of(jobdir, &read_proc(jobdir)).map(|p| p.pid)
}

/// The script's process once its supervisor is gone, while it is the one
/// the supervisor started: its start time the recorded one. A file of an
/// earlier build records none: there the process must at least be the job
/// owner's (`spec.bin`), never another user's that was given the pid.
fn script_of(jobdir: &Path, info: &ProcInfo) -> Option<Proc> {
    let pid = info.script.filter(|&p| p > 0)?;
    let (state, _, start) = stat_of(pid)?;
    if state == 'Z' {
        return None;
    }
    let same = match info.started {
        Some((_, recorded)) => recorded == start,
        None => {
            let owner = read_spec(jobdir).ok()?.job.user_id;
            let status = fs::read_to_string(format!("/proc/{}/status", pid)).ok()?;
            let uid = status.lines().find_map(|l| l.strip_prefix("Uid:"))?.split_whitespace().next()?.parse().ok();
            uid == Some(owner)
        }
    };
    same.then_some(Proc { pid, start })
}

/// The job's processes as found, the supervisor not among them, with the
/// script's pid as `supervisor.proc` names it.
fn job_procs(jobdir: &Path) -> (Option<i32>, Vec<Proc>) {
    let info = read_proc(jobdir);
    let sup = supervisor_of(jobdir, &info);
    let mut procs = match sup {
        Some(s) => descendant_procs(s.pid),
        None => match script_of(jobdir, &info) {
            Some(p) => {
                let mut v = vec![p];
                v.extend(descendant_procs(p.pid));
                v
            }
            None => Vec::new(),
        },
    };
    procs.retain(|p| Some(p.pid) != sup.map(|s| s.pid) && !is_zombie(p.pid));
    (info.script, procs)
}

/// The job's processes (see the module doc), the supervisor not among them,
/// with the script's pid as `supervisor.proc` names it.
pub fn job_processes(jobdir: &Path) -> (Option<i32>, Vec<i32>) {
    let (script, procs) = job_procs(jobdir);
    (script, procs.into_iter().map(|p| p.pid).collect())
}

/// Send `sig` to process `p` only if it is still the process found (the
/// same start time), never to a later one given its pid: through a pidfd,
/// opened before the start time is checked again, so the process checked is
/// the one signalled (`pidfd_open`, `pidfd_send_signal`: Linux 5.3; on an
/// older kernel the check is made just before `kill`). Whether it was
/// signalled: a process that has ended is not an error.
fn signal_exact(p: Proc, sig: Signal) -> io::Result<bool> {
    use nix::libc;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    // SAFETY: pidfd_open(2) takes a pid and flags and returns a new file
    // descriptor or -1; it touches no memory of this process.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, p.pid, 0) };
    if fd < 0 {
        return match Errno::last() {
            Errno::ENOSYS if start_time(p.pid) == Some(p.start) => match signal::kill(Pid::from_raw(p.pid), sig) {
                Ok(()) => Ok(true),
                Err(Errno::ESRCH) => Ok(false),
                Err(e) => Err(e.into()),
            },
            Errno::ESRCH | Errno::ENOSYS => Ok(false),
            e => Err(e.into()),
        };
    }
    // SAFETY: `fd` is the descriptor pidfd_open(2) just returned, owned by
    // no one else; OwnedFd closes it once.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    if start_time(p.pid) != Some(p.start) {
        // the pid is another process's now (or ended): nothing to signal
        return Ok(false);
    }
    // SAFETY: pidfd_send_signal(2) with a valid pidfd, a signal number, no
    // siginfo (a null pointer, as the call allows) and no flags.
    let r = unsafe {
        libc::syscall(libc::SYS_pidfd_send_signal, fd.as_raw_fd(), sig as libc::c_int, std::ptr::null::<u8>(), 0)
    };
    if r < 0 {
        return match Errno::last() {
            Errno::ESRCH => Ok(false),
            e => Err(e.into()),
        };
    }
    Ok(true)
}

// ------------------------------------------------------------------ pending requests

/// A request of the agent's for a job's processes, posted in the job
/// directory (`pending.*`) before the agent looks for them, so that one
/// arriving before the script runs is not lost: the supervisor takes what
/// is posted once the script has started ([`take_pending`]), the agent what
/// it finds the script running for; each request is claimed by unlinking
/// its file, so exactly one of the two carries it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// A signal to the job's processes, or to the script alone.
    Signal { sig: i32, batch_only: bool },
    /// A cancel, time-limit or preemption kill ([`deliver_terminate`]), with
    /// slurmstepd's cancel line first when `note` says which one.
    Terminate { kill_wait: u32, note: Option<Note> },
}

const PENDING_PREFIX: &str = "pending.";

impl Pending {
    fn to_line(self) -> String {
        match self {
            Pending::Signal { sig, batch_only } => format!("signal {} {}\n", sig, batch_only as u8),
            Pending::Terminate { kill_wait, note } => {
                let n = match note {
                    None => "-",
                    Some(Note::Cancelled) => "c",
                    Some(Note::TimeLimit) => "t",
                    Some(Note::Preemption) => "p",
                };
                format!("terminate {} {}\n", kill_wait, n)
            }
        }
    }

    fn parse(line: &str) -> Option<Pending> {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["signal", sig, b] => Some(Pending::Signal { sig: sig.parse().ok()?, batch_only: *b == "1" }),
            ["terminate", kw, n] => Some(Pending::Terminate {
                kill_wait: kw.parse().ok()?,
                note: match *n {
                    "c" => Some(Note::Cancelled),
                    "t" => Some(Note::TimeLimit),
                    "p" => Some(Note::Preemption),
                    _ => None,
                },
            }),
            _ => None,
        }
    }
}

/// Post `req` in the job directory: written whole under a temporary name,
/// then renamed to `pending.TIME.PID.N` (names sort in posting order).
fn post_pending(jobdir: &Path, req: Pending) -> io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let me = std::process::id();
    let tmp = jobdir.join(format!(".pending.tmp.{}.{}", me, n));
    let path = jobdir.join(format!("{}{:020}.{}.{}", PENDING_PREFIX, now, me, n));
    create_private(&tmp)?.write_all(req.to_line().as_bytes())?;
    fs::rename(&tmp, &path)?;
    Ok(path)
}

/// Whether this caller is the one to carry out the request posted at `path`.
fn claim(path: &Path) -> bool {
    fs::remove_file(path).is_ok()
}

/// The supervisor's side: every request posted so far, claimed, oldest
/// first. Called once the script runs and its pid is in `supervisor.proc`,
/// after which the agent carries out what it posts itself.
pub fn take_pending(jobdir: &Path) -> Vec<Pending> {
    let mut names: Vec<PathBuf> = fs::read_dir(jobdir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(PENDING_PREFIX)))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter_map(|p| {
            let text = fs::read_to_string(&p).ok()?;
            claim(&p).then(|| Pending::parse(&text)).flatten()
        })
        .collect()
}

/// Post `req`, then decide who carries it out: `true` when the caller must
/// (it claimed it), `false` when the supervisor will (the script has not
/// started yet and the supervisor, or one about to start, is there to take
/// it) or already has.
fn post_and_claim(jobdir: &Path, req: Pending) -> bool {
    let Ok(path) = post_pending(jobdir, req) else { return true };
    let info = read_proc(jobdir);
    let supervisor_to_come = info.supervisor.is_none() || supervisor_of(jobdir, &info).is_some();
    if info.script.is_none() && supervisor_to_come && !has_status(jobdir) {
        return false;
    }
    claim(&path)
}

/// Send `sig` to the job: its whole process tree, or only the script process
/// when `batch_only`. Nothing left to signal is not an error. A signal that
/// arrives before the script runs is left for the supervisor to send once it
/// does ([`Pending`]).
pub fn signal_job(jobdir: &Path, sig: i32, batch_only: bool) -> io::Result<()> {
    Signal::try_from(sig).map_err(io::Error::from)?;
    if has_status(jobdir) || !post_and_claim(jobdir, Pending::Signal { sig, batch_only }) {
        return Ok(());
    }
    deliver_signal(jobdir, sig, batch_only)
}

/// [`signal_job`]'s delivery, to the processes there now. Every process is
/// signalled only while it is the one found (pid and start time,
/// [`signal_exact`]); the script's process group only while its leader is
/// the job's script.
pub fn deliver_signal(jobdir: &Path, sig: i32, batch_only: bool) -> io::Result<()> {
    let signal = Signal::try_from(sig).map_err(io::Error::from)?;
    if has_status(jobdir) {
        return Ok(());
    }
    let (script, procs) = job_procs(jobdir);
    let leader = script.and_then(|s| procs.iter().find(|p| p.pid == s).copied());
    if batch_only {
        return match leader {
            Some(p) => signal_exact(p, signal).map(|_| ()),
            None => Ok(()),
        };
    }
    if let Some(p) = leader {
        // (a group's id is not given to a new process while the group has
        // members; the leader is checked just before)
        if start_time(p.pid) == Some(p.start) {
            ignore_esrch(signal::killpg(Pid::from_raw(p.pid), signal))?;
        }
    }
    for p in procs {
        let _ = signal_exact(p, signal);
    }
    Ok(())
}

fn ignore_esrch(r: nix::Result<()>) -> io::Result<()> {
    match r {
        Ok(()) | Err(Errno::ESRCH) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Cancel or time-limit kill: SIGCONT and SIGTERM to everything, up to
/// `kill_wait_secs` for it to end, then SIGKILL. Blocking; returns once no
/// process of the job is left (or after 5 s of SIGKILL).
/// `note`: slurmstepd's cancel line first ([`request_cancel_note`], with
/// its cause). One that arrives before the script runs is left for the
/// supervisor to carry out once it does ([`Pending`]).
pub fn terminate_job(jobdir: &Path, kill_wait_secs: u32, note: Option<Note>) {
    if has_status(jobdir) && job_procs(jobdir).1.is_empty() {
        return;
    }
    if !post_and_claim(jobdir, Pending::Terminate { kill_wait: kill_wait_secs, note }) {
        return;
    }
    if let Some(n) = note {
        let _ = request_cancel_note(jobdir, n);
    }
    deliver_terminate(jobdir, kill_wait_secs)
}

/// [`terminate_job`]'s delivery, to the processes there now.
pub fn deliver_terminate(jobdir: &Path, kill_wait_secs: u32) {
    let _ = deliver_signal(jobdir, Signal::SIGCONT as i32, false);
    let _ = deliver_signal(jobdir, Signal::SIGTERM as i32, false);
    let deadline = Instant::now() + Duration::from_secs(kill_wait_secs as u64);
    loop {
        if job_processes(jobdir).1.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    for _ in 0..50 {
        if job_procs(jobdir).1.is_empty() {
            return;
        }
        let _ = deliver_signal(jobdir, Signal::SIGKILL as i32, false);
        // Also what is no longer in the table walk (e.g. status written).
        for p in job_procs(jobdir).1 {
            let _ = signal_exact(p, Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// End every job of a node whose agent is gone (`spur cluster down`): the
/// jobs' processes as the agent ends them (SIGCONT, SIGTERM, then SIGKILL
/// until none is left; no KillWait), then their supervisors, which write
/// `status` once their script is reaped and are killed if they have not left
/// within 2 s (one still setting up, say). Returns how many jobs had not ended.
pub fn end_all_jobs(spool: &Path) -> usize {
    let dirs: Vec<PathBuf> = job_dirs(spool).into_iter().map(|(_, d)| d).collect();
    // a job whose supervisor is gone may still have processes: every job
    // without a status is ended, all at once
    let unfinished: Vec<PathBuf> = dirs.iter().filter(|d| !has_status(d)).cloned().collect();
    let threads: Vec<_> =
        unfinished.iter().cloned().map(|d| std::thread::spawn(move || terminate_job(&d, 0, None))).collect();
    for t in threads {
        let _ = t.join();
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left: Vec<Proc> = dirs.iter().filter_map(|d| supervisor_of(d, &read_proc(d))).collect();
        if left.is_empty() {
            break;
        }
        if Instant::now() >= deadline {
            for p in left {
                let _ = signal_exact(p, Signal::SIGKILL);
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    unfinished.len()
}

// ------------------------------------------------------------------ done.log

/// The marks finished runs leave once their job directory is gone: a launch
/// of such a run arriving late (a new leader re-sends the launches of the
/// jobs it sees running) must not start it a second time. Keyed by job id and
/// restart count, since a requeued job runs again under the same id. Held in
/// memory and appended to `done.log` (`ID RESTART EPOCH` lines), so they
/// outlive an agent restart without a file per job.
pub struct DoneLog {
    path: PathBuf,
    inner: std::sync::Mutex<(Marks, Option<fs::File>)>,
}

/// (job id, restart count) -> when the run's end was marked (epoch seconds).
type Marks = HashMap<(u32, u32), i64>;

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

impl DoneLog {
    /// Load `spool/done.log` (and fold in the one-file-per-mark
    /// `spool/done/ID.RESTART` of earlier versions).
    pub fn open(spool: &Path) -> DoneLog {
        let path = spool.join(DONE_LOG);
        let mut marks = HashMap::new();
        if let Ok(text) = fs::read_to_string(&path) {
            for line in text.lines() {
                let f: Vec<&str> = line.split_whitespace().collect();
                if let [id, run, at] = f[..] {
                    if let (Ok(id), Ok(run), Ok(at)) = (id.parse(), run.parse(), at.parse()) {
                        marks.insert((id, run), at);
                    }
                }
            }
        }
        let old_dir = spool.join(legacy::DONE_DIR);
        let mut fold = false;
        if let Ok(rd) = fs::read_dir(&old_dir) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                let at = e
                    .metadata()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_secs() as i64)
                    .unwrap_or_else(now);
                if let Some((id, run)) =
                    name.split_once('.').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                {
                    marks.insert((id, run), at);
                    fold = true;
                }
            }
        }
        let t = DoneLog { path, inner: std::sync::Mutex::new((marks, None)) };
        if fold {
            t.prune(i64::MAX);
            let _ = fs::remove_dir_all(&old_dir);
        }
        t
    }

    pub fn contains(&self, id: u32, run: u32) -> bool {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).0.contains_key(&(id, run))
    }

    pub fn add(&self, id: u32, run: u32) {
        let now = now();
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.0.insert((id, run), now);
        if g.1.is_none() {
            g.1 = {
                use std::os::unix::fs::OpenOptionsExt;
                fs::OpenOptions::new().create(true).append(true).mode(FILE_MODE).open(&self.path).ok()
            };
        }
        if let Some(f) = g.1.as_mut() {
            let _ = f.write_all(format!("{} {} {}\n", id, run, now).as_bytes());
        }
    }

    /// Forget marks older than `max_age` seconds (a late launch comes within
    /// seconds; the agent keeps a day) and rewrite the file with the rest.
    pub fn prune(&self, max_age: i64) {
        let now = now();
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.0.retain(|_, at| now.saturating_sub(*at) <= max_age);
        let mut text = String::new();
        for ((id, run), at) in &g.0 {
            text.push_str(&format!("{} {} {}\n", id, run, at));
        }
        let tmp = self.path.with_extension("log.tmp");
        let written = create_private(&tmp).and_then(|mut f| f.write_all(text.as_bytes()));
        if written.is_ok() && fs::rename(&tmp, &self.path).is_ok() {
            g.1 = None; // the next mark opens the new file
        }
    }
}

// ---- notes in the job's stderr ---------------------------------------------

/// `slurmstepd-<node>`, as the job's stderr messages are prefixed (Slurm
/// built for several slurmd per host, as Debian's is).
pub fn stepd_name(node: &str) -> String {
    format!("slurmstepd-{}", node)
}

/// Slurm's local time stamp, `2025-01-31T12:00:00`.
pub fn slurm_time(epoch: i64) -> String {
    match spur_grammar::time::localtime(epoch) {
        Some(tm) => {
            format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.year + 1900, tm.mon + 1, tm.mday, tm.hour, tm.min, tm.sec)
        }
        None => epoch.to_string(),
    }
}

/// Why a job is killed, as slurmstepd's cancel line says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// `scancel` (no cause).
    Cancelled,
    /// ` DUE TO TIME LIMIT`.
    TimeLimit,
    /// ` DUE TO PREEMPTION` (measured on 22.05: crates/spur-sched/tests/preempt-22.05.md).
    Preemption,
}

impl Note {
    /// The signal that asks the job's supervisor for the line.
    pub fn signal(self) -> Signal {
        match self {
            Note::Cancelled => NOTE_CANCELLED,
            Note::TimeLimit => NOTE_TIME_LIMIT,
            Note::Preemption => NOTE_PREEMPTION,
        }
    }

    /// The note a signal asks for.
    pub fn of_signal(sig: i32) -> Option<Note> {
        [Note::Cancelled, Note::TimeLimit, Note::Preemption].into_iter().find(|n| n.signal() as i32 == sig)
    }

    fn cause(self) -> &'static str {
        match self {
            Note::Cancelled => "",
            Note::TimeLimit => " DUE TO TIME LIMIT",
            Note::Preemption => " DUE TO PREEMPTION",
        }
    }
}

/// The line slurmstepd writes to the job's stderr when it is told to kill
/// the job, newline included: `slurmstepd-node1: error: *** JOB 12 ON node1
/// CANCELLED AT 2025-01-31T12:00:00 ***`, with the cause (` DUE TO TIME
/// LIMIT`, ` DUE TO PREEMPTION`) before the closing stars.
pub fn cancel_line(job_id: u32, node: &str, epoch: i64, note: Note) -> String {
    format!(
        "{}: error: *** JOB {} ON {} CANCELLED AT {}{} ***\n",
        stepd_name(node),
        job_id,
        node,
        slurm_time(epoch),
        note.cause()
    )
}

/// The signals that ask a job's supervisor to write [`cancel_line`] into the
/// job's stderr: a cancel, a time-limit kill, a preemption (SIGURG: ignored
/// by default, so a supervisor of an older build that does not wait for it
/// is not hurt; its job gets no line).
pub const NOTE_CANCELLED: Signal = Signal::SIGUSR1;
pub const NOTE_TIME_LIMIT: Signal = Signal::SIGUSR2;
pub const NOTE_PREEMPTION: Signal = Signal::SIGURG;

/// Ask the job's supervisor to write slurmstepd's cancel line
/// ([`cancel_line`]) into the job's stderr, at most once per run. Call it
/// before `terminate_job`: the supervisor writes the line before it reaps the
/// script.
///
/// The supervisor writes it through its own descriptor of the file the job
/// was started with (opened by the job's process, as the user): the path is
/// never opened again, and never as root, so a job that has replaced it (a
/// symlink to a file its owner cannot write, a FIFO) gets no other file
/// written and blocks nothing. Supervisors of builds before this one ignore
/// the signal: their jobs get no line. `Ok(false)` when there is no
/// supervisor to ask.
pub fn request_cancel_note(jobdir: &Path, note: Note) -> io::Result<bool> {
    let Some(sup) = supervisor_of(jobdir, &read_proc(jobdir)) else { return Ok(false) };
    signal_exact(sup, note.signal())
}

#[cfg(test)]
mod tests;

// ------------------------------------------------------------------ steps

pub const STEPD_PROC_FILE: &str = "stepd.proc";
pub const CANCEL_FILE: &str = "cancel";

/// `step%05u.%u`: one step's part on this node.
/// The directory under `CGROUP2_ROOT/spur/` that holds an agent's job
/// cgroups (`NAME/job_J/step_S`): its node name and a hash (FNV-1a) of its
/// spool directory, so that two agents on one host (a local cluster, tests
/// running side by side) never share, or empty, each other's.
pub fn cgroup_agent_dir(node: &str, spool: &Path) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in spool.as_os_str().as_bytes() {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{}-{:08x}", node, h)
}

pub fn step_dir(spool: &Path, job_id: u32, step_id: u32) -> PathBuf {
    spool.join(format!("step{:05}.{}", job_id, step_id))
}

/// The step directories under `spool`: (job, step, directory), in order.
pub fn step_dirs(spool: &Path) -> Vec<(u32, u32, PathBuf)> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(spool) else {
        return out;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("step")) else {
            continue;
        };
        let Some((j, st)) = rest.split_once('.') else {
            continue;
        };
        if let (Ok(j), Ok(st)) = (j.parse::<u32>(), st.parse::<u32>()) {
            out.push((j, st, e.path()));
        }
    }
    out.sort();
    out
}

/// Write a step's `spec.bin` (the directory created 0700).
pub fn write_step_spec(dir: &Path, spec: &spur_core::launch::StepLaunch) -> io::Result<()> {
    let bytes = spur_core::records::encode_step_launch(spec, spur_format::FORMAT_VERSION)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    create_dir_with(dir, JOB_DIR_MODE)?;
    let tmp = dir.join(format!("{}.tmp", SPEC_FILE));
    create_private(&tmp)?.write_all(&bytes)?;
    fs::rename(&tmp, dir.join(SPEC_FILE))
}

pub fn read_step_spec(dir: &Path) -> io::Result<spur_core::launch::StepLaunch> {
    let path = dir.join(SPEC_FILE);
    spur_core::records::decode_step_launch(&fs::read(&path)?, &path.display())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
}

/// The step daemon records itself (its pid and start time).
pub fn write_stepd_proc(dir: &Path) -> io::Result<()> {
    let pid = std::process::id() as i32;
    let start = start_time(pid).unwrap_or(0);
    let tmp = dir.join(format!("{}.tmp", STEPD_PROC_FILE));
    create_private(&tmp)?.write_all(format!("{} {}\n", pid, start).as_bytes())?;
    fs::rename(&tmp, dir.join(STEPD_PROC_FILE))
}

fn stepd_proc(dir: &Path) -> Option<Proc> {
    let text = fs::read_to_string(dir.join(STEPD_PROC_FILE)).ok()?;
    let mut it = text.split_whitespace();
    let pid: i32 = it.next()?.parse().ok()?;
    let start: u64 = it.next()?.parse().ok()?;
    let info = ProcInfo { supervisor: Some(pid), started: Some((start, 0)), ..Default::default() };
    supervisor_of(dir, &info)
}

/// The step daemon of `dir` while it runs.
pub fn stepd_pid(dir: &Path) -> Option<i32> {
    stepd_proc(dir).map(|p| p.pid)
}

/// Send `sig` to a step's daemon, which passes it to its tasks; `cancel`:
/// the step ends (its tasks get `sig`, then SIGKILL after `kill_wait`).
pub fn signal_step(dir: &Path, sig: i32, cancel: bool, kill_wait: u32) -> io::Result<bool> {
    let Some(p) = stepd_proc(dir) else {
        return Ok(false);
    };
    let sig = if cancel {
        let tmp = dir.join(format!("{}.tmp", CANCEL_FILE));
        create_private(&tmp)?.write_all(format!("{} {}", kill_wait, sig).as_bytes())?;
        fs::rename(&tmp, dir.join(CANCEL_FILE))?;
        Signal::SIGTERM
    } else {
        Signal::try_from(sig).map_err(|_| io::Error::from_raw_os_error(nix::libc::EINVAL))?
    };
    signal_exact(p, sig)
}

/// The KillWait and first signal of a cancel the agent asked for (`None`:
/// no cancel; a file of no signal: SIGKILL).
pub fn cancel_requested(dir: &Path) -> Option<(u32, i32)> {
    let text = fs::read_to_string(dir.join(CANCEL_FILE)).ok()?;
    let mut w = text.split_whitespace();
    let kill_wait = w.next().and_then(|x| x.parse().ok()).unwrap_or(0);
    let sig = w.next().and_then(|x| x.parse().ok()).filter(|&s| s > 0).unwrap_or(nix::libc::SIGKILL);
    Some((kill_wait, sig))
}

/// End every step daemon under `spool` and their tasks (`spur cluster
/// down`): a cancel without KillWait, then SIGKILL for whatever is left
/// after two seconds. How many step daemons were running.
pub fn end_all_steps(spool: &Path) -> usize {
    let dirs: Vec<PathBuf> = step_dirs(spool).into_iter().map(|(_, _, d)| d).collect();
    let mut n = 0;
    for d in &dirs {
        if signal_step(d, nix::libc::SIGKILL, true, 0).unwrap_or(false) {
            n += 1;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left: Vec<Proc> = dirs.iter().filter_map(|d| stepd_proc(d)).collect();
        if left.is_empty() {
            break;
        }
        if Instant::now() >= deadline {
            for p in left {
                for c in descendant_procs(p.pid) {
                    let _ = signal_exact(c, Signal::SIGKILL);
                }
                let _ = signal_exact(p, Signal::SIGKILL);
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    n
}

pub const STEP_TASKS_FILE: &str = "tasks";
pub const STEP_USAGE_FILE: &str = "usage";

/// Write `name` in `dir` whole: a private temporary file, then renamed.
fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let tmp = dir.join(format!("{}.tmp", name));
    create_private(&tmp)?.write_all(bytes)?;
    fs::rename(&tmp, dir.join(name))
}

/// The step's use on this node so far (the step daemon's last sample).
pub fn write_step_usage(dir: &Path, usage: &spur_core::usage::NodeUsage) -> io::Result<()> {
    replace_file(dir, STEP_USAGE_FILE, format!("{}\n", usage.to_line()).as_bytes())
}

/// The live use of step `job_id.step_id` on the node of `spool`: the step
/// daemon's last sample, while the step runs there (`None`: no such step
/// running on this node, or no sample yet).
pub fn step_usage(spool: &Path, job_id: u32, step_id: u32) -> Option<spur_core::usage::NodeUsage> {
    let dir = step_dir(spool, job_id, step_id);
    stepd_proc(&dir)?;
    read_step_usage(&dir)
}

/// The `usage` file of a step directory.
pub fn read_step_usage(dir: &Path) -> Option<spur_core::usage::NodeUsage> {
    let text = fs::read_to_string(dir.join(STEP_USAGE_FILE)).ok()?;
    Some(spur_core::usage::NodeUsage::from_words(text.split_whitespace()))
}

/// A step's tasks on this node, as its step daemon started them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepTasks {
    /// The step daemon's pid and start time ([`start_time`]).
    pub stepd: Option<(i32, u64)>,
    /// The step's cgroup (v2) directory, when it has one.
    pub cgroup: Option<PathBuf>,
    /// `(pid, local id, global id)` per task.
    pub tasks: Vec<(i32, u32, u32)>,
}

/// The step daemon records its tasks once they started; the file is given
/// to `owner` (the job's user), who alone may read it.
pub fn write_step_tasks(dir: &Path, t: &StepTasks, owner: Option<u32>) -> io::Result<()> {
    let mut s = String::new();
    if let Some((pid, start)) = t.stepd {
        s.push_str(&format!("stepd {} {}\n", pid, start));
    }
    if let Some(c) = &t.cgroup {
        s.push_str(&format!("cgroup {}\n", c.display()));
    }
    for (pid, local, global) in &t.tasks {
        s.push_str(&format!("task {} {} {}\n", pid, local, global));
    }
    let tmp = dir.join(format!("{}.tmp", STEP_TASKS_FILE));
    let mut f = create_private(&tmp)?;
    f.write_all(s.as_bytes())?;
    if let Some(uid) = owner {
        std::os::unix::fs::fchown(&f, Some(uid), None)?;
    }
    fs::rename(&tmp, dir.join(STEP_TASKS_FILE))
}

/// The `tasks` file of a step directory (lines it does not know are skipped).
pub fn read_step_tasks(dir: &Path) -> Option<StepTasks> {
    let text = fs::read_to_string(dir.join(STEP_TASKS_FILE)).ok()?;
    let mut out = StepTasks::default();
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("cgroup ") {
            out.cgroup = Some(PathBuf::from(p));
            continue;
        }
        if let Some(rest) = line.strip_prefix("stepd ") {
            let mut w = rest.split_whitespace();
            if let (Some(Ok(p)), Some(Ok(st))) = (w.next().map(str::parse), w.next().map(str::parse)) {
                out.stepd = Some((p, st));
            }
            continue;
        }
        let mut w = line.strip_prefix("task ").unwrap_or("").split_whitespace().map(|x| x.parse::<u64>().ok());
        if let (Some(Some(p)), Some(Some(l)), Some(Some(g))) = (w.next(), w.next(), w.next()) {
            if let (Ok(p), Ok(l), Ok(g)) = (i32::try_from(p), u32::try_from(l), u32::try_from(g)) {
                out.tasks.push((p, l, g));
            }
        }
    }
    Some(out)
}

/// A running step's processes on this node, as `scontrol listpids` shows
/// them (slurmstepd's task list, then its proctrack container).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepPids {
    /// `(pid, local id, global id)` of each task still running.
    pub tasks: Vec<(i32, u32, u32)>,
    /// Every other process of the step, by pid: with a cgroup the step
    /// daemon first, then the cgroup's members; without, the step daemon's
    /// descendants (it is a subreaper, so what the tasks leave behind stays
    /// among them).
    pub others: Vec<i32>,
}

/// The `tasks` file is its job owner's, who may rewrite it: what it names
/// is only read (a cgroup's member list, `/proc`), never written to or
/// signalled, so a forged file can only mislead a listing of its step.
///
/// The processes of the step of `dir` while its step daemon runs; `None`
/// when it does not, or when the caller may not read its `tasks` file (only
/// the job's owner and root may).
pub fn step_pids(dir: &Path) -> Option<StepPids> {
    let t = read_step_tasks(dir)?;
    let (pid, start) = t.stepd?;
    if start_time(pid) != Some(start) {
        return None;
    }
    let mut all: Vec<i32> = match t.cgroup.as_ref().and_then(|c| fs::read_to_string(c.join("cgroup.procs")).ok()) {
        Some(text) => text.lines().filter_map(|l| l.trim().parse().ok()).collect(),
        None => descendants(pid),
    };
    all.sort_unstable();
    all.dedup();
    let tasks: Vec<(i32, u32, u32)> = t.tasks.iter().copied().filter(|(p, _, _)| pid_alive(*p)).collect();
    // proctrack/cgroup's container holds the step daemon too (cgroup/v2's
    // step_get_pids), proctrack/linuxproc's only what descends from it
    let mut others = if t.cgroup.is_some() { vec![pid] } else { Vec::new() };
    others.extend(all.into_iter().filter(|p| *p != pid && !t.tasks.iter().any(|(tp, _, _)| tp == p)));
    Some(StepPids { tasks, others })
}
