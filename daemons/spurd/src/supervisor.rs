//! The batch step supervisor: one process per job, started by the agent and
//! independent of it (`spurd supervise <jobdir>`), so a job keeps running
//! while spurd restarts.
//!
//! The job directory is the only interface between the two:
//!
//! | file | written by | content |
//! |---|---|---|
//! | `spec.bin` | agent | the `LaunchSpec` as the controller sent it (`spur_core::records`: in its envelope; bincode from a build before versioned formats) |
//! | `supervisor.pid` | supervisor | its pid |
//! | `slurm_script` | supervisor | the script, owned by the user, 0700 |
//! | `job.pgid` | supervisor | pid (= process group) of the script |
//! | `stderr.path` | supervisor | where the job's stderr goes |
//! | `status` | supervisor | the `wait(2)` status of the script, decimal, last |
//! | `supervisor.log` | supervisor | its own diagnostics |
//!
//! The directory is root's (mode 0750, group = the job's group, as Slurm's
//! `job%05u` directory), so the user can run the script but can write
//! nothing the agent trusts.
//!
//! The supervisor is a child subreaper: processes the script leaves behind
//! stay its descendants, so signals reach them and they are killed when the
//! script ends (as Slurm's process tracking does).
//!
//! When the script cannot be started, `status` holds Slurm's error code as
//! the raw status, as slurmstepd reports it: 4021 (ESLURMD_IO_ERROR, shown
//! as `ExitCode=0:53`) when an output file cannot be opened, 4016
//! (ESLURMD_SET_UID_OR_GID_ERROR) when the identity cannot be taken.

#![allow(dead_code)]

use crate::iopattern;
use crate::jobenv::{self, EnvContext};
use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::signal::{self, SigSet, SigmaskHow, Signal};
use nix::sys::stat::Mode;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::{self, ForkResult, Gid, Pid, Uid};
use spur_core::launch::LaunchSpec;
use std::ffi::{CStr, CString, OsStr};
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const SPEC_FILE: &str = "spec.bin";
/// What the supervisor tells about its processes, appended as they become
/// known (one file, so one inode per job; spool directories come and go at
/// the job rate): line 1 its own pid, line 2 the script's pid (and process
/// group), then the stderr path to the end of the file.
pub const PROC_FILE: &str = "supervisor.proc";
pub const SCRIPT_FILE: &str = "slurm_script";
pub const STATUS_FILE: &str = "status";
/// The agent's notification socket, in the spool directory.
pub const SOCKET_NAME: &str = "spurd.sock";

/// Slurm's codes for a batch step that could not start (raw status).
pub const ESLURMD_CREATE_BATCH_DIR_ERROR: i32 = 4010;
pub const ESLURMD_SET_UID_OR_GID_ERROR: i32 = 4016;
pub const ESLURMD_IO_ERROR: i32 = 4021;
/// Raw status for a failure Slurm reports as a plain exit code 1.
const EXIT_1: i32 = 1 << 8;

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

/// Write `spec.bin` into `jobdir` (created when missing), atomically.
/// A helper for the agent; `run` only reads it.
pub fn write_spec(jobdir: &Path, spec: &LaunchSpec) -> io::Result<()> {
    fs::create_dir_all(jobdir)?;
    let bytes = spur_core::records::encode_launch(spec, spur_format::FORMAT_VERSION).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    write_atomic(&jobdir.join(SPEC_FILE), &bytes)
}

pub fn read_spec(jobdir: &Path) -> io::Result<LaunchSpec> {
    let path = jobdir.join(SPEC_FILE);
    let bytes = fs::read(&path)?;
    spur_core::records::decode_launch(&bytes, &path.display()).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Replace `path` whole (readers see the old or the new content), flushed
/// to disk first.
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let mut f = fs::OpenOptions::new().write(true).create(true).truncate(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)
}

fn read_num<T: std::str::FromStr>(path: &Path) -> Option<T> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Start `exe supervise jobdir` as a process of its own, stdin and stdout
/// on /dev/null, its stderr (the supervisor's log lines, each naming its
/// pid) the agent's log. The supervisor
/// makes itself a session leader at once, so it outlives the agent; the agent
/// reaps it when it ends (`reap_supervisors`).
pub fn spawn_supervisor(exe: &Path, jobdir: &Path) -> io::Result<()> {
    spawn_detached(exe, &[OsStr::new("supervise"), jobdir.as_os_str()], &[])
}

/// Supervisors started by this process and not yet reaped.
static SPAWNED: std::sync::Mutex<Vec<std::process::Child>> = std::sync::Mutex::new(Vec::new());

/// As `spawn_supervisor` with any arguments and extra environment (tests).
/// No code runs between fork and exec, so std spawns with posix_spawn (no
/// copy of the agent's address space).
pub(crate) fn spawn_detached(exe: &Path, args: &[&OsStr], envs: &[(&str, &OsStr)]) -> io::Result<()> {
    let mut cmd = std::process::Command::new(exe);
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .current_dir("/");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let child = cmd.spawn()?;
    SPAWNED.lock().unwrap_or_else(|e| e.into_inner()).push(child);
    Ok(())
}

/// Reap the supervisors that have ended (called on SIGCHLD); how many are
/// still running.
pub fn reap_supervisors() -> usize {
    let mut v = SPAWNED.lock().unwrap_or_else(|e| e.into_inner());
    v.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
    v.len()
}

fn log(msg: &str) {
    let _ = writeln!(io::stderr(), "spurd supervise[{}]: {}", std::process::id(), msg);
}

/// `slurmstepd-<node>` as the job's stderr messages are prefixed (Slurm
/// built for several slurmd per host, as Debian's is).
fn stepd_name(node: &str) -> String {
    format!("slurmstepd-{}", node)
}

fn strerror(e: i32) -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; the XSI/GNU variants are
    // handled by reading the returned C string from the buffer when it
    // fills it.
    unsafe {
        let p = libc::strerror(e);
        if p.is_null() {
            return format!("Unknown error {}", e);
        }
        let s = CStr::from_ptr(p).to_bytes();
        let n = s.len().min(buf.len());
        buf[..n].copy_from_slice(&s[..n]);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

/// Entry point of `spurd supervise <jobdir>`. Always writes `status`
/// (unless the directory itself is unusable) and returns 0.
pub fn run(jobdir: &Path) -> i32 {
    // Out of the agent's session and process group: a signal to those (a
    // closed terminal, `kill -- -PGID`) does not reach the job.
    let _ = unistd::setsid();
    // Its log lines go to the agent's stderr, which may be a pipe whose
    // reader is gone: that must not end the supervisor.
    // SAFETY: installing SIG_IGN has no handler code.
    unsafe {
        let _ = signal::signal(Signal::SIGPIPE, signal::SigHandler::SigIgn);
    }
    let (status, spec) = match supervise(jobdir) {
        Ok((s, spec)) => (s, Some(spec)),
        Err(e) => {
            log(&format!("{}: {}", jobdir.display(), e));
            (ESLURMD_CREATE_BATCH_DIR_ERROR, None)
        }
    };
    if let Err(e) = write_atomic(&jobdir.join(STATUS_FILE), format!("{}\n", status).as_bytes()) {
        log(&format!("writing status: {}", e));
    }
    let job_id = spec
        .as_ref()
        .map(|s| s.job.job_id)
        .or_else(|| job_id_of(jobdir))
        .unwrap_or(0);
    notify_agent(jobdir, job_id);
    0
}

fn notify_agent(jobdir: &Path, job_id: u32) {
    if let Some(spool) = jobdir.parent() {
        if let Ok(mut s) = std::os::unix::net::UnixStream::connect(spool.join(SOCKET_NAME)) {
            let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
            let _ = s.write_all(format!("done {}\n", job_id).as_bytes());
        }
    }
}

/// Everything the child needs, prepared before fork.
struct Prepared {
    script: CString,
    argv: Vec<CString>,
    env: Vec<CString>,
    task_pid_idx: Option<usize>,
    uid: u32,
    gid: u32,
    groups: Vec<Gid>,
    switch_user: bool,
    umask: u32,
    rlimits: Vec<(libc::c_int, u64, bool)>,
    stdin: CString,
    stdout: CString,
    stderr: CString,
    append: bool,
    work_dir: CString,
    chdir_msg: Vec<u8>,
    tmp_msg: Vec<u8>,
    exec_prefix: String,
}

fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

fn supervise(jobdir: &Path) -> io::Result<(i32, LaunchSpec)> {
    let spec = read_spec(jobdir)?;
    let mut proc_file = fs::OpenOptions::new().create(true).truncate(true).write(true).open(jobdir.join(PROC_FILE))?;
    proc_file.write_all(format!("{}\n", std::process::id()).as_bytes())?;
    // SAFETY: plain prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let job = &spec.job;
    let root = unistd::geteuid().is_root();
    let switch_user = root;
    if !root && unistd::geteuid().as_raw() != job.user_id {
        log(&format!("not root: cannot run job {} as uid {}", job.job_id, job.user_id));
        return Ok((ESLURMD_SET_UID_OR_GID_ERROR, spec));
    }
    if root {
        let _ = unistd::chown(jobdir, Some(Uid::from_raw(0)), Some(Gid::from_raw(job.group_id)));
        fs::set_permissions(jobdir, fs::Permissions::from_mode(0o750))?;
    }

    // The script, as the user's, 0700.
    let script_path = jobdir.join(SCRIPT_FILE);
    let _ = fs::remove_file(&script_path);
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o700)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&script_path)?;
        f.write_all(job.desc.script.as_bytes())?;
        if root {
            std::os::unix::fs::fchown(&f, Some(job.user_id), None)?;
        }
    }

    // Identity.
    let user_name = if !job.user_name.is_empty() {
        Some(job.user_name.clone())
    } else {
        unistd::User::from_uid(Uid::from_raw(job.user_id)).ok().flatten().map(|u| u.name)
    };
    let gid = Gid::from_raw(job.group_id);
    let groups = match &user_name {
        Some(n) if switch_user => unistd::getgrouplist(&cstr(n), gid).unwrap_or_else(|_| vec![gid]),
        _ => vec![gid],
    };

    // Environment: the user's login environment first when asked
    // (--export=NONE / --get-user-env), the submitted one over it.
    let mut spec_env = spec.clone();
    let submitted = jobenv::submission_env(&spec);
    if jobenv::wants_user_env(&submitted) {
        match user_name.as_deref().and_then(|n| login_env(n, Duration::from_secs(120))) {
            Some(base) => {
                let mut e = jobenv::Env(base);
                for (k, v) in &submitted.0 {
                    e.set(k, v.clone());
                }
                spec_env.job.desc.env = e.0;
            }
            None => log("Unable to get user's local environment, running only with passed environment"),
        }
    }
    let ctx = EnvContext::new(1);
    let env = jobenv::batch_env(&spec_env, &ctx);
    let task_pid_idx = env.iter().position(|(k, _)| k == "SLURM_TASK_PID");
    let env: Vec<CString> = env.iter().map(|(k, v)| cstr(&format!("{}={}", k, v))).collect();

    // `%N` in file names is the host name of the machine slurmstepd runs on,
    // not the node name (recorded/24.11/basic/064: `out-5-pat-root-vm-%.txt`
    // with every slurmd on host `vm`)
    let (out, err, inp) = iopattern::batch_paths(job, &spur_client::users::short_hostname());
    let stepd = stepd_name(&spec.node_name);
    let work_dir = if job.desc.work_dir.is_empty() { "/".to_string() } else { job.desc.work_dir.clone() };

    let mut argv = vec![cstr(&script_path.to_string_lossy())];
    // argv[0] is the script as submitted (Slurm's job_desc argv); $1.. follow
    argv.extend(job.desc.argv.iter().skip(1).map(|a| cstr(a)));
    let prep = Prepared {
        script: cstr(&script_path.to_string_lossy()),
        argv,
        env,
        task_pid_idx,
        uid: job.user_id,
        gid: job.group_id,
        groups,
        switch_user,
        umask: jobenv::job_umask(job),
        rlimits: jobenv::propagated_rlimits(job)
            .into_iter()
            .filter_map(|(n, v, u)| rlimit_resource(n).map(|r| (r, v, u)))
            .collect(),
        stdin: cstr(&inp),
        stdout: cstr(&out),
        stderr: cstr(&err),
        append: job.desc.open_mode_append.unwrap_or(false),
        work_dir: cstr(&work_dir),
        chdir_msg: format!("{}: error: couldn't chdir to `{}': ", stepd, work_dir).into_bytes(),
        tmp_msg: format!("{}: error: couldn't chdir to /tmp either. dying.\n", stepd).into_bytes(),
        exec_prefix: format!("{}: error: execve(): ", stepd),
    };

    // The supervisor outlives stray signals (a `pkill spurd`, a closed
    // terminal); the script gets default dispositions back.
    for sig in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP, Signal::SIGPIPE, Signal::SIGUSR1, Signal::SIGUSR2] {
        // SAFETY: installing SIG_IGN has no handler code.
        unsafe {
            let _ = signal::signal(sig, signal::SigHandler::SigIgn);
        }
    }
    let (rd, wr) = unistd::pipe2(OFlag::O_CLOEXEC).map_err(io::Error::from)?;
    // SAFETY: the supervisor is single-threaded when run as `spurd
    // supervise`; the child only does system calls on prepared data before
    // exec (plus one small allocation for SLURM_TASK_PID).
    let child = match unsafe { unistd::fork() } {
        Err(e) => return Err(e.into()),
        Ok(ForkResult::Child) => {
            drop(rd);
            let code = child_exec(&prep);
            let _ = unistd::write(&wr, &code.to_ne_bytes());
            // SAFETY: leave without running destructors or atexit handlers.
            unsafe { libc::_exit(1) }
        }
        Ok(ForkResult::Parent { child }) => child,
    };
    drop(wr);
    // one write: a reader sees the pid line whole or not at all
    let _ = proc_file.write_all(format!("{}\n{}", child.as_raw(), prep.stderr.to_string_lossy()).as_bytes());
    drop(proc_file);
    let mut setup_code = None;
    {
        let mut f = fs::File::from(rd);
        let mut buf = Vec::new();
        let _ = f.read_to_end(&mut buf);
        if buf.len() >= 4 {
            setup_code = Some(i32::from_ne_bytes([buf[0], buf[1], buf[2], buf[3]]));
        }
    }
    let mut status = wait_for(child);
    if let Some(c) = setup_code {
        log(&format!("job {}: the script could not start (code {})", job.job_id, c));
        status = c;
    }
    kill_leftovers(child);
    Ok((status, spec))
}

/// Reap children until `child` ends; its raw wait status.
fn wait_for(child: Pid) -> i32 {
    loop {
        let mut st: libc::c_int = 0;
        // SAFETY: plain waitpid on any child (we are a subreaper).
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r == child.as_raw() {
            return st;
        }
        if r < 0 {
            let e = Errno::last();
            if e == Errno::EINTR {
                continue;
            }
            return EXIT_1;
        }
    }
}

/// After the script ended: kill and reap everything it left behind.
fn kill_leftovers(pgid: Pid) {
    let me = unistd::getpid().as_raw();
    let deadline = Instant::now() + Duration::from_secs(10);
    let _ = signal::killpg(pgid, Signal::SIGKILL);
    if no_children_left() {
        // The supervisor is a subreaper: every process the job left behind is
        // its child or a child's descendant, so none at all means nothing is
        // left, and the process table need not be read (the common case).
        return;
    }
    loop {
        let _ = signal::killpg(pgid, Signal::SIGKILL);
        for p in descendants(me) {
            let _ = signal::kill(Pid::from_raw(p), Signal::SIGKILL);
        }
        // Reap what is there.
        loop {
            match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => break,
                Ok(_) => continue,
                Err(Errno::EINTR) => continue,
                Err(_) => return, // ECHILD: nothing left
            }
        }
        if Instant::now() > deadline {
            log("processes of the job could not be killed");
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Reap what has ended; true when the supervisor has no child at all.
fn no_children_left() -> bool {
    loop {
        match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => return false,
            Ok(_) => continue,
            Err(Errno::EINTR) => continue,
            Err(_) => return true, // ECHILD
        }
    }
}

fn rlimit_resource(name: &str) -> Option<libc::c_int> {
    Some(match name {
        "CPU" => libc::RLIMIT_CPU,
        "FSIZE" => libc::RLIMIT_FSIZE,
        "DATA" => libc::RLIMIT_DATA,
        "STACK" => libc::RLIMIT_STACK,
        "CORE" => libc::RLIMIT_CORE,
        "RSS" => libc::RLIMIT_RSS,
        "NPROC" => libc::RLIMIT_NPROC,
        "NOFILE" => libc::RLIMIT_NOFILE,
        "MEMLOCK" => libc::RLIMIT_MEMLOCK,
        "AS" => libc::RLIMIT_AS,
        _ => return None,
    } as libc::c_int)
}

fn raw_write(fd: i32, b: &[u8]) {
    // SAFETY: writing a valid buffer.
    unsafe {
        libc::write(fd, b.as_ptr() as *const libc::c_void, b.len());
    }
}

/// Open an output file as Slurm does: O_APPEND always, O_TRUNC unless
/// appending, 0666 less the umask; a missing directory is created (0755)
/// once.
fn open_output(path: &CStr, append: bool) -> Result<i32, Errno> {
    let mut flags = libc::O_CREAT | libc::O_WRONLY | libc::O_APPEND | libc::O_CLOEXEC;
    if !append {
        flags |= libc::O_TRUNC;
    }
    let mut tried_mkdir = false;
    loop {
        // SAFETY: valid C string.
        let fd = unsafe { libc::open(path.as_ptr(), flags, 0o666 as libc::c_uint) };
        if fd >= 0 {
            return Ok(fd);
        }
        let e = Errno::last();
        if e == Errno::EINTR {
            continue;
        }
        if e == Errno::ENOENT && !tried_mkdir {
            tried_mkdir = true;
            mkdir_parents(path.to_bytes());
            continue;
        }
        return Err(e);
    }
}

fn mkdir_parents(path: &[u8]) {
    let mut i = 1;
    while i < path.len() {
        if path[i] == b'/' {
            if let Ok(c) = CString::new(&path[..i]) {
                // SAFETY: valid C string.
                unsafe {
                    libc::mkdir(c.as_ptr(), 0o755);
                }
            }
        }
        i += 1;
    }
}

/// In the forked child: become the user, set up stdio and exec the script.
/// Returns only on a setup failure, with the code to report.
fn child_exec(p: &Prepared) -> i32 {
    // SAFETY: only system calls on prepared data.
    unsafe {
        for s in 1..32 {
            if s != libc::SIGKILL && s != libc::SIGSTOP {
                libc::signal(s, libc::SIG_DFL);
            }
        }
    }
    let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None);
    let _ = unistd::setsid();
    if p.switch_user {
        if unistd::setgroups(&p.groups).is_err()
            || unistd::setgid(Gid::from_raw(p.gid)).is_err()
            || unistd::setuid(Uid::from_raw(p.uid)).is_err()
        {
            return ESLURMD_SET_UID_OR_GID_ERROR;
        }
    }
    nix::sys::stat::umask(Mode::from_bits_truncate(p.umask as libc::mode_t));

    // SAFETY: valid C strings; fds handled by hand.
    let fin = unsafe { libc::open(p.stdin.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fin < 0 {
        return ESLURMD_IO_ERROR;
    }
    let fout = match open_output(&p.stdout, p.append) {
        Ok(fd) => fd,
        Err(_) => return ESLURMD_IO_ERROR,
    };
    let ferr = match open_output(&p.stderr, p.append) {
        Ok(fd) => fd,
        Err(_) => return ESLURMD_IO_ERROR,
    };
    unsafe {
        if libc::dup2(fin, 0) < 0 || libc::dup2(fout, 1) < 0 || libc::dup2(ferr, 2) < 0 {
            return ESLURMD_IO_ERROR;
        }
        for fd in [fin, fout, ferr] {
            if fd > 2 {
                libc::close(fd);
            }
        }
        if libc::chdir(p.work_dir.as_ptr()) < 0 {
            let e = Errno::last() as i32;
            raw_write(2, &p.chdir_msg);
            raw_write(2, strerror(e).as_bytes());
            raw_write(2, b": going to /tmp instead\n");
            if libc::chdir(b"/tmp\0".as_ptr() as *const libc::c_char) < 0 {
                raw_write(2, &p.tmp_msg);
                return EXIT_1;
            }
        }
        for &(res, v, user) in &p.rlimits {
            let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            if libc::getrlimit(res as _, &mut r) != 0 || r.rlim_cur == v as libc::rlim_t {
                continue;
            }
            r.rlim_cur = v as libc::rlim_t;
            if !user && r.rlim_cur > r.rlim_max {
                r.rlim_cur = r.rlim_max;
            }
            libc::setrlimit(res as _, &r);
        }
    }

    let mut env = p.env.clone();
    if let Some(i) = p.task_pid_idx {
        env[i] = cstr(&format!("SLURM_TASK_PID={}", std::process::id()));
    }
    let e = match unistd::execve(&p.script, &p.argv, &env) {
        Err(e) => e,
        Ok(_) => Errno::UnknownErrno,
    };
    // As slurmstepd: the message goes to the job's stderr, the task exits
    // with errno.
    let mut msg = p.exec_prefix.clone();
    let mut bad_interp = None;
    if e == Errno::ENOENT {
        if let Ok(mut f) = fs::File::open(OsStr::from_bytes(p.script.to_bytes())) {
            let mut buf = [0u8; 255];
            let n = f.read(&mut buf).unwrap_or(0);
            if n >= 3 && &buf[..2] == b"#!" {
                let line = buf[2..n].split(|&b| b == b'\n').next().unwrap_or(&[]);
                bad_interp = Some(String::from_utf8_lossy(line).into_owned());
            }
        }
    }
    match bad_interp {
        Some(i) => msg.push_str(&format!("bad interpreter({}): {}\n", i, strerror(e as i32))),
        None => msg.push_str(&format!("{}: {}\n", p.script.to_string_lossy(), strerror(e as i32))),
    }
    raw_write(2, msg.as_bytes());
    // SAFETY: leave the child.
    unsafe { libc::_exit(e as i32) }
}

/// The user's login environment (`su - user -c env`), as slurmd loads it
/// for `--get-user-env` and `--export=NONE`. `None` on failure or timeout.
pub fn login_env(user: &str, timeout: Duration) -> Option<Vec<(String, String)>> {
    const START: &str = "XXXXSLURMSTARTPARSINGHEREXXXX";
    const STOP: &str = "XXXXSLURMSTOPPARSINGHEREXXXXX";
    let env_cmd = if Path::new("/bin/env").exists() { "/bin/env" } else { "/usr/bin/env" };
    let cmdstr = format!("/bin/echo; /bin/echo; /bin/echo; /bin/echo {}; {}; /bin/echo {}", START, env_cmd, STOP);
    let su = if Path::new("/bin/su").exists() { "/bin/su" } else { "/usr/bin/su" };
    let mut cmd = std::process::Command::new(su);
    cmd.args(["-", user, "-c", &cmdstr])
        .env_clear()
        .env("ENVIRONMENT", "BATCH")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().ok()?;
    let mut out = child.stdout.take()?;
    let pid = child.id() as i32;
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + timeout;
    let mut finished = false;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            finished = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if !finished {
        let _ = signal::killpg(Pid::from_raw(pid), Signal::SIGKILL);
        let _ = child.wait();
        return None;
    }
    let _ = signal::killpg(Pid::from_raw(pid), Signal::SIGKILL);
    let text = String::from_utf8_lossy(&reader.join().ok()?).into_owned();
    let mut lines = text.split('\n');
    lines.by_ref().find(|l| l.starts_with(START))?;
    let mut env = jobenv::Env::default();
    let mut stopped = false;
    let mut pending: Option<(String, String)> = None;
    for l in lines {
        if let Some((k, v)) = pending.as_mut() {
            v.push('\n');
            v.push_str(l);
            if bracket_balance(v) <= 0 {
                let (k, v) = (k.clone(), v.clone());
                env.set(&k, v);
                pending = None;
            }
            continue;
        }
        if l.starts_with(STOP) {
            stopped = true;
            break;
        }
        if let Some((k, v)) = l.split_once('=') {
            if matches!(k, "DISPLAY" | "ENVIRONMENT" | "HOSTNAME") {
                continue;
            }
            if v.starts_with('(') && bracket_balance(v) > 0 {
                pending = Some((k.to_string(), v.to_string()));
                continue;
            }
            // slurmd dumps the environment with `slurmstepd getenv`.
            let v = if k == "_" { "/usr/sbin/slurmstepd" } else { v };
            env.set(k, v);
        }
    }
    if !stopped {
        return None;
    }
    Some(env.0)
}

fn bracket_balance(s: &str) -> i32 {
    s.chars().fold(0, |n, c| match c {
        '{' => n + 1,
        '}' => n - 1,
        _ => n,
    })
}

/// Parent pid of every process: `(pid, ppid)`.
fn process_table() -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir("/proc") else { return out };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(stat) = fs::read_to_string(format!("/proc/{}/stat", pid)) else { continue };
        // The command may contain spaces and parentheses: split after the last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        let mut f = rest.split_whitespace();
        let _state = f.next();
        if let Some(ppid) = f.next().and_then(|s| s.parse::<i32>().ok()) {
            out.push((pid, ppid));
        }
    }
    out
}

/// All descendants of `root` (not `root` itself).
fn descendants(root: i32) -> Vec<i32> {
    let table = process_table();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        for &(c, pp) in &table {
            if pp == p && !found.contains(&c) {
                found.push(c);
            }
        }
        i += 1;
    }
    found.remove(0);
    found
}

fn pid_alive(pid: i32) -> bool {
    pid > 0 && signal::kill(Pid::from_raw(pid), None).is_ok() && !is_zombie(pid)
}

fn is_zombie(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{}/stat", pid))
        .ok()
        .and_then(|s| s.rfind(')').map(|i| s[i + 1..].trim_start().starts_with('Z')))
        .unwrap_or(true)
}

/// The supervisor of `jobdir` is alive (its pid is running `supervise` for
/// this very directory, so a reused pid does not count).
fn supervisor_pid(jobdir: &Path) -> Option<i32> {
    let pid = read_proc(jobdir).0?;
    if !pid_alive(pid) {
        return None;
    }
    let cmdline = fs::read(format!("/proc/{}/cmdline", pid)).ok()?;
    let want = jobdir.as_os_str().as_bytes();
    let canon = fs::canonicalize(jobdir).ok();
    let matches = cmdline.split(|&b| b == 0).any(|a| {
        a == want || canon.as_ref().map(|c| c.as_os_str().as_bytes() == a).unwrap_or(false)
    });
    if matches {
        Some(pid)
    } else {
        None
    }
}

/// `PROC_FILE`: the supervisor's pid, the script's pid, the stderr path, as
/// far as they are written (a line counts once its newline is there).
fn read_proc(jobdir: &Path) -> (Option<i32>, Option<i32>, Option<String>) {
    let Ok(text) = fs::read_to_string(jobdir.join(PROC_FILE)) else {
        // a job started by an earlier spurd (one file per fact), still
        // running across the upgrade
        return (
            read_num(&jobdir.join("supervisor.pid")),
            read_num(&jobdir.join("job.pgid")),
            fs::read_to_string(jobdir.join("stderr.path")).ok().map(|p| p.trim_end_matches('\n').to_string()),
        );
    };
    let mut parts = text.splitn(3, '\n');
    let first = parts.next();
    let second = parts.next();
    let rest = parts.next();
    // a number counts only with its newline after it
    let sup = second.and(first).and_then(|l| l.trim().parse().ok());
    let script = rest.and(second).and_then(|l| l.trim().parse().ok());
    (sup, script, rest.map(|r| r.to_string()))
}

/// The processes of the job: the script's process group and every
/// descendant of the supervisor (or of the script when the supervisor is
/// gone).
fn job_processes(jobdir: &Path) -> (Option<i32>, Vec<i32>) {
    let script = read_proc(jobdir).1;
    let sup = supervisor_pid(jobdir);
    let mut procs = match (sup, script) {
        (Some(s), _) => descendants(s),
        (None, Some(p)) if pid_alive(p) => {
            let mut v = vec![p];
            v.extend(descendants(p));
            v
        }
        _ => Vec::new(),
    };
    procs.retain(|&p| Some(p) != sup && !is_zombie(p));
    (script, procs)
}

/// Send `sig` to the job: its whole process tree, or only the script
/// process when `batch_only`. Nothing left to signal is not an error.
pub fn signal_job(jobdir: &Path, sig: i32, batch_only: bool) -> io::Result<()> {
    let signal = Signal::try_from(sig).map_err(io::Error::from)?;
    if jobdir.join(STATUS_FILE).exists() {
        return Ok(());
    }
    let (script, procs) = job_processes(jobdir);
    if batch_only {
        if let Some(p) = script {
            if procs.contains(&p) {
                return ignore_esrch(signal::kill(Pid::from_raw(p), signal));
            }
        }
        return Ok(());
    }
    if let Some(p) = script {
        if procs.contains(&p) {
            ignore_esrch(signal::killpg(Pid::from_raw(p), signal))?;
        }
    }
    for p in procs {
        let _ = signal::kill(Pid::from_raw(p), signal);
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
/// `kill_wait_secs` for it to end, then SIGKILL. Blocking.
pub fn terminate_job(jobdir: &Path, kill_wait_secs: u32) {
    let _ = signal_job(jobdir, libc::SIGCONT, false);
    let _ = signal_job(jobdir, libc::SIGTERM, false);
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
        let (_, procs) = job_processes(jobdir);
        if procs.is_empty() {
            return;
        }
        let _ = signal_job(jobdir, libc::SIGKILL, false);
        // Also what is no longer in the table walk (e.g. status written).
        for p in procs {
            let _ = signal::kill(Pid::from_raw(p), Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Append a slurmstepd-style error line to the job's stderr file, e.g.
/// `*** JOB 12 ON node1 CANCELLED AT 2025-01-01T00:00:00 ***`.
pub fn write_job_stderr(jobdir: &Path, msg: &str) -> io::Result<()> {
    let spec = read_spec(jobdir)?;
    let path = read_proc(jobdir).2.ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no stderr path yet"))?;
    let mut f = fs::OpenOptions::new().append(true).open(path)?;
    f.write_all(format!("{}: error: {}\n", stepd_name(&spec.node_name), msg).as_bytes())
}

/// Slurm's local time stamp, `2025-01-31T12:00:00`.
pub fn slurm_time(epoch: i64) -> String {
    // SAFETY: localtime_r fills the struct we own.
    unsafe {
        let t: libc::time_t = epoch as libc::time_t;
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return epoch.to_string();
        }
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec
        )
    }
}

/// What slurmstepd writes to the job's stderr when it is told to kill the
/// job: `*** JOB 12 ON node1 CANCELLED AT 2025-01-31T12:00:00 ***`, with
/// ` DUE TO TIME LIMIT` before the closing stars for a time-limit kill.
/// Call it before `terminate_job`.
pub fn note_cancelled(jobdir: &Path, epoch: i64, time_limit: bool) -> io::Result<()> {
    let spec = read_spec(jobdir)?;
    let msg = format!(
        "*** JOB {} ON {} CANCELLED AT {}{} ***",
        spec.job.job_id,
        spec.node_name,
        slurm_time(epoch),
        if time_limit { " DUE TO TIME LIMIT" } else { "" }
    );
    write_job_stderr(jobdir, &msg)
}

fn job_id_of(dir: &Path) -> Option<u32> {
    let name = dir.file_name()?.to_str()?;
    let digits = name.strip_prefix("job")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The job directories under `spool` (`job<ID>`, any zero padding), in
/// job id order.
pub fn scan(spool: &Path) -> Vec<JobDirState> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(spool) else { return out };
    for e in rd.flatten() {
        let dir = e.path();
        if !dir.is_dir() {
            continue;
        }
        let Some(job_id) = job_id_of(&dir) else { continue };
        let status = read_num::<i32>(&dir.join(STATUS_FILE));
        let running = status.is_none() && supervisor_pid(&dir).is_some();
        out.push(JobDirState { job_id, dir, running, status });
    }
    out.sort_by_key(|s| s.job_id);
    out
}

/// Remove a finished job's directory (best effort; a missing one is fine).
pub fn cleanup(jobdir: &Path) {
    match fs::remove_dir_all(jobdir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => log(&format!("removing {}: {}", jobdir.display(), e)),
    }
}

#[cfg(test)]
mod tests;
