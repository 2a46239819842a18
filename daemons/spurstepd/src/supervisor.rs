//! The batch step supervisor: one process per job, started by the agent and
//! independent of it (`spurstepd <jobdir>`), so a job keeps running
//! while spurd restarts. The job directory is the only interface between the
//! two; what it holds, who writes each file and which processes are the
//! job's is defined in the `spur_spool` crate (its module doc is the
//! contract table).
//!
//! The supervisor is a child subreaper: processes the script leaves behind
//! stay its descendants, so signals reach them and they are killed when the
//! script ends (as Slurm's process tracking does).
//!
//! When the script cannot be started, `status` holds Slurm's error code as
//! the raw status, as slurmstepd reports it: 4021 (ESLURMD_IO_ERROR, shown
//! as `ExitCode=0:53`) when an output file cannot be opened, 4016
//! (ESLURMD_SET_UID_OR_GID_ERROR) when the identity cannot be taken.
//!
//! slurmstepd's cancel line (`*** JOB N ON node CANCELLED AT ... ***`) is
//! written here, when the agent asks with a signal
//! (`spur_spool::request_cancel_note`), through the descriptor of the job's
//! stderr that the child opened as the user and sent back (SCM_RIGHTS) before
//! execve: as root, the supervisor never opens a path the user chose, so a
//! job that has replaced its output path (a symlink to a file its owner
//! cannot write, a FIFO) gets nothing else written and blocks nothing; a
//! write to a pipe that blocks is left to a thread of its own. SIGCHLD and
//! the agent's signals are blocked from the start and taken with sigwait.
//!
//! The script is started with fork and execve, not posix_spawn: the child
//! must take the user's groups, gid and uid, which posix_spawn cannot do.
//! Between the two the child makes only async-signal-safe system calls on
//! data built before the fork ([`Prepared`]: argv, the environment, every
//! path, message and errno text): it allocates nothing and takes no lock, so
//! a lock another thread held at the fork (the allocator's, stdio's) cannot
//! hang it. `spurstepd` has one thread, but the test harness that
//! re-executes itself as a supervisor has several; in test builds an
//! allocation in the child ends it with a code of its own (`alloc_guard`).

use crate::iopattern;
use crate::jobenv::{self, EnvContext};
use crate::track::{Sampler, Tracker};
use nix::errno::Errno;
use nix::fcntl::{self, OFlag};
use nix::sys::resource::{self, Resource};
use nix::sys::signal::{self, SigHandler, SigSet, Signal};
use nix::sys::socket;
use nix::sys::stat::Mode;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::{self, ForkResult, Gid, Pid, Uid};
use spur_core::launch::LaunchSpec;
use std::ffi::{CStr, CString};
use std::fs;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Slurm's codes for a batch step that could not start (raw status).
pub const ESLURMD_CREATE_BATCH_DIR_ERROR: i32 = 4010;
pub const ESLURMD_SET_UID_OR_GID_ERROR: i32 = 4016;
pub const ESLURMD_IO_ERROR: i32 = 4021;
/// Raw status for a failure Slurm reports as a plain exit code 1.
const EXIT_1: i32 = 1 << 8;

pub(crate) fn log(msg: &str) {
    let _ = writeln!(io::stderr(), "spurstepd[{}]: {}", std::process::id(), msg);
}

/// The C library's text for an errno value, as strerror(3) gives it (`No
/// such file or directory`), through std's strerror_r.
pub(crate) fn strerror(e: i32) -> String {
    let s = io::Error::from_raw_os_error(e).to_string();
    match s.strip_suffix(&format!(" (os error {})", e)) {
        Some(t) => t.to_string(),
        None => s,
    }
}

/// Entry point of `spurstepd <jobdir>`. Always writes `status`
/// (unless the directory itself is unusable) and returns 0.
pub fn run(jobdir: &Path) -> i32 {
    // Before anything names this process in the spool: the agent's requests
    // (NOTE_CANCELLED, NOTE_TIME_LIMIT) and SIGCHLD are taken with sigwait,
    // never delivered (see `wait_for`).
    let _ = waited_signals().thread_block();
    // Out of the agent's session and process group: a signal to those (a
    // closed terminal, `kill -- -PGID`) does not reach the job.
    let _ = unistd::setsid();
    // Its log lines go to the agent's stderr, which may be a pipe whose
    // reader is gone: that must not end the supervisor.
    ignore(Signal::SIGPIPE);
    let (status, spec) = match supervise(jobdir) {
        Ok((s, spec)) => (s, Some(spec)),
        Err(e) => {
            log(&format!("{}: {}", jobdir.display(), e));
            (ESLURMD_CREATE_BATCH_DIR_ERROR, None)
        }
    };
    if let Err(e) = spur_spool::write_status(jobdir, status) {
        log(&format!("writing status: {}", e));
    }
    let job_id = spec.as_ref().map(|s| s.job.job_id).or_else(|| spur_spool::job_id_of(jobdir)).unwrap_or(0);
    notify_agent(jobdir, job_id);
    0
}

/// The signals the supervisor waits for, blocked from its start: SIGCHLD and
/// the agent's requests for the cancel line. A thread that starts later
/// inherits the mask; the script gets an empty one.
fn waited_signals() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGCHLD);
    set.add(spur_spool::NOTE_CANCELLED);
    set.add(spur_spool::NOTE_TIME_LIMIT);
    set.add(spur_spool::NOTE_PREEMPTION);
    set
}

/// Ignore `sig` in this process.
fn ignore(sig: Signal) {
    // SAFETY: SIG_IGN installs no handler, so no code of ours ever runs in
    // signal context; that is signal(2)'s only hazard.
    let _ = unsafe { signal::signal(sig, SigHandler::SigIgn) };
}

fn notify_agent(jobdir: &Path, job_id: u32) {
    tell_agent(jobdir, &format!("done {}\n", job_id));
}

/// A line to the agent of the spool `dir` is in (its socket).
pub(crate) fn tell_agent(dir: &Path, line: &str) {
    if let Some(spool_dir) = dir.parent() {
        if let Ok(mut s) = std::os::unix::net::UnixStream::connect(spur_spool::socket_path(spool_dir)) {
            let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
            let _ = s.write_all(line.as_bytes());
        }
    }
}

/// Everything the child does between fork and execve, built before the
/// fork; the child only reads it, and writes its pid into `task_pid`.
struct Prepared {
    script: CString,
    /// Owners of the strings `argv` and `envp` point into.
    _argv: Vec<CString>,
    _env: Vec<CString>,
    /// For execve: pointers to the strings above, then NULL.
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    /// The index of `SLURM_TASK_PID=...` in `envp` and a buffer for it with
    /// room for any pid; the child fills it in and points `envp` at it.
    task_pid: Option<(usize, [u8; 32])>,
    /// The user, umask, limits and cgroup (`exec`, as a step's tasks).
    id: crate::exec::Identity,
    stdin: CString,
    stdout: CString,
    stderr: CString,
    /// The directories above `stdout` and `stderr`, outermost first, made
    /// when an output cannot be opened for want of them.
    stdout_dirs: Vec<CString>,
    stderr_dirs: Vec<CString>,
    append: bool,
    work_dir: CString,
    chdir_msg: Vec<u8>,
    tmp_msg: Vec<u8>,
    /// `slurmstepd-NODE: error: execve(): `
    exec_prefix: Vec<u8>,
    /// strerror's text of every errno value (the index); the C library's
    /// strerror may allocate (it translates), so it is not called in the child.
    errno_text: Vec<String>,
}

impl Prepared {
    fn errno_text(&self, e: Errno) -> &[u8] {
        self.errno_text.get(e as usize).map(|s| s.as_bytes()).unwrap_or(b"Unknown error")
    }
}

pub(crate) fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// Pointers to `v`'s strings and a NULL after them, as execve takes them.
pub(crate) fn c_array(v: &[CString]) -> Vec<*const libc::c_char> {
    v.iter().map(|c| c.as_ptr()).chain(std::iter::once(std::ptr::null())).collect()
}

/// Every directory above `path` (`/a`, `/a/b` for `/a/b/f`; `sub` for
/// `sub/f`), outermost first.
pub(crate) fn parent_dirs(path: &CStr) -> Vec<CString> {
    let b = path.to_bytes();
    (1..b.len()).filter(|&i| b[i] == b'/').filter_map(|i| CString::new(&b[..i]).ok()).collect()
}

/// `SLURM_TASK_PID=<pid>` and a NUL into `buf`, without allocating.
pub(crate) fn fill_task_pid(buf: &mut [u8; 32], pid: u32) {
    const KEY: &[u8] = b"SLURM_TASK_PID=";
    let mut digits = [0u8; 10];
    let mut n = pid;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let d = &digits[i..];
    buf[..KEY.len()].copy_from_slice(KEY);
    buf[KEY.len()..KEY.len() + d.len()].copy_from_slice(d);
    buf[KEY.len() + d.len()] = 0;
}

fn supervise(jobdir: &Path) -> io::Result<(i32, LaunchSpec)> {
    let spec = spur_spool::read_spec(jobdir)?;
    let proc_file = spur_spool::ProcWriter::create(jobdir)?;
    let _ = nix::sys::prctl::set_child_subreaper(true);
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
    let script_path = spur_spool::script_path(jobdir);
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
                spec_env.job.desc.env = e.0.into();
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
    let (out, err, inp) = iopattern::batch_paths(job, &spur_auth::users::short_hostname());
    let stepd = spur_spool::stepd_name(&spec.node_name);
    let work_dir = if job.desc.work_dir.is_empty() { "/".to_string() } else { job.desc.work_dir.clone() };

    let mut argv = vec![cstr(&script_path.to_string_lossy())];
    // argv[0] is the script as submitted (Slurm's job_desc argv); $1.. follow
    argv.extend(job.desc.argv.iter().skip(1).map(|a| cstr(a)));
    let (stdout, stderr) = (cstr(&out), cstr(&err));
    let mut prep = Prepared {
        script: cstr(&script_path.to_string_lossy()),
        argv: c_array(&argv),
        envp: c_array(&env),
        _argv: argv,
        _env: env,
        task_pid: task_pid_idx.map(|i| (i, [0u8; 32])),
        id: crate::exec::Identity {
            uid: job.user_id,
            gid: job.group_id,
            groups,
            switch_user,
            umask: Mode::from_bits_truncate(jobenv::job_umask(job) as libc::mode_t),
            rlimits: rlimits(&jobenv::propagated_rlimits(job)),
            cgroup_fd: -1,
        },
        stdin: cstr(&inp),
        stdout_dirs: parent_dirs(&stdout),
        stderr_dirs: parent_dirs(&stderr),
        stdout,
        stderr,
        append: job.desc.open_mode_append.unwrap_or(false),
        work_dir: cstr(&work_dir),
        chdir_msg: format!("{}: error: couldn't chdir to `{}': ", stepd, work_dir).into_bytes(),
        tmp_msg: format!("{}: error: couldn't chdir to /tmp either. dying.\n", stepd).into_bytes(),
        exec_prefix: format!("{}: error: execve(): ", stepd).into_bytes(),
        // Linux's errno values end at 133 (EHWPOISON)
        errno_text: (0..134).map(strerror).collect(),
    };
    // the batch step's processes in a cgroup of their own where the node
    // has cgroup v2 (as a step's tasks: `track`), else the subreaper's
    // descendants as before
    let tracker =
        Tracker::new(&crate::step::cgroup_dir(jobdir, &spec.node_name), job.job_id, "batch", crate::track::debug);
    prep.id.cgroup_fd = tracker.join_fd();

    // The supervisor outlives stray signals (a `pkill spurd`, a closed
    // terminal); the script gets default dispositions back.
    // (SIGUSR1 and SIGUSR2, the agent's requests, are blocked since `run`.)
    for sig in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP, Signal::SIGPIPE] {
        ignore(sig);
    }
    let (rd, wr) = unistd::pipe2(OFlag::O_CLOEXEC).map_err(io::Error::from)?;
    // The child sends the job's stderr, as it opened it, back through this
    // pair: the supervisor writes slurmstepd's cancel line there.
    let (fd_rx, fd_tx) = socket::socketpair(
        socket::AddressFamily::Unix,
        socket::SockType::Datagram,
        None,
        socket::SockFlag::SOCK_CLOEXEC,
    )
    .map_err(io::Error::from)?;
    // SAFETY: the child runs child_exec, one write(2) and _exit(2): system
    // calls on `prep` and the pipe, all made above. It allocates nothing and
    // takes no lock (see the module doc), so no other thread's state at the
    // fork matters to it.
    let child = match unsafe { unistd::fork() } {
        Err(e) => return Err(e.into()),
        Ok(ForkResult::Child) => {
            #[cfg(test)]
            crate::alloc_guard::forked();
            drop(rd);
            drop(fd_rx);
            let code = child_exec(&mut prep, fd_tx.as_raw_fd());
            let _ = unistd::write(&wr, &code.to_ne_bytes());
            // SAFETY: _exit(2) is async-signal-safe and runs no exit handler
            // (those belong to the parent's state).
            unsafe { libc::_exit(1) }
        }
        Ok(ForkResult::Parent { child }) => child,
    };
    tracker.adopt(child.as_raw());
    drop(wr);
    drop(fd_tx);
    let mut setup_code = None;
    {
        // the pipe closes at execve (or the child's end)
        let mut f = fs::File::from(rd);
        let mut buf = Vec::new();
        let _ = f.read_to_end(&mut buf);
        if buf.len() >= 4 {
            setup_code = Some(i32::from_ne_bytes([buf[0], buf[1], buf[2], buf[3]]));
        }
    }
    // The script's pid goes on record once it is the script (a signal to
    // the child before its execve would find the supervisor's dispositions);
    // what the agent asked for before then is carried out here.
    let _ = proc_file.script_started(child.as_raw(), prep.stderr.as_bytes());
    carry_out_pending(jobdir);
    warn_batch_shell(&spec.job, jobdir);
    if setup_code.is_none() {
        // the batch step's processes, as a step's (`scontrol listpids`): the
        // script is its task 0; the owner's file, in the job directory the
        // owner's group may enter
        let me = std::process::id() as i32;
        let started = spur_spool::StepTasks {
            stepd: spur_spool::start_time(me).map(|t| (me, t)),
            cgroup: tracker.cgroup().map(Path::to_path_buf),
            tasks: vec![(child.as_raw(), 0, 0)],
        };
        let _ = spur_spool::write_step_tasks(jobdir, &started, Some(job.user_id).filter(|_| root));
    }
    // sent before execve, so there by the time the pipe closed
    let mut note =
        CancelNote { stderr: receive_fd(&fd_rx), job_id: job.job_id, node: spec.node_name.clone(), written: false };
    drop(fd_rx);
    let tracker = std::sync::Arc::new(tracker);
    let stderr_copy = || note.stderr.as_ref().and_then(|f| f.try_clone().ok());
    let watch = setup_code.is_none().then(|| watch_script(&spec, jobdir, child, tracker.clone(), stderr_copy()));
    let again_fd = stderr_copy();
    let (mut status, ru) = wait_for(child, &mut note);
    if let Some(w) = watch {
        w.ended(jobdir, child, &ru, again_fd.as_ref());
    }
    if let Some(c) = setup_code {
        log(&format!("job {}: the script could not start (code {})", job.job_id, c));
        status = c;
    }
    if status & 0x7f != 0 && status & 0x7f != 0x7f {
        // the script was killed (a cancel, a time limit): what it started
        // got the same signals; give them a moment to end by themselves, as
        // an srun does, saying so in the job's output (recorded/24.11/steps/65)
        let until = Instant::now() + Duration::from_secs(2);
        while !no_children_left() && Instant::now() < until {
            let _ = waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG));
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    kill_leftovers(child);
    // what left the supervisor's tree but not the cgroup, and the cgroup
    tracker.finish(no_children_left);
    Ok((status, spec))
}

/// sbatch's `--signal=B:SIG@TIME`: SIG to the batch shell alone, TIME
/// seconds before the job's end (as the job stood at its start; without
/// `B:` the job's steps get it, from their step daemons).
fn warn_batch_shell(job: &spur_core::model::Job, jobdir: &Path) {
    let Some((sig, at, true)) = crate::step::job_warning(job) else { return };
    let wait = (at - spur_auth::now()).max(0) as u64;
    let dir = jobdir.to_path_buf();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(wait));
        let _ = spur_spool::deliver_signal(&dir, sig, true);
    });
}

/// The agent's requests posted before the script ran
/// (`spur_spool::Pending`), in order: signals sent now, a cancel's line
/// asked of this process as the agent would (taken by `wait_for`), its
/// SIGTERM-then-SIGKILL sequence run by a thread of its own.
fn carry_out_pending(jobdir: &Path) {
    for req in spur_spool::take_pending(jobdir) {
        match req {
            spur_spool::Pending::Signal { sig, batch_only } => {
                let _ = spur_spool::deliver_signal(jobdir, sig, batch_only);
            }
            spur_spool::Pending::Terminate { kill_wait, note } => {
                if let Some(n) = note {
                    let _ = signal::kill(unistd::getpid(), n.signal());
                }
                let dir = jobdir.to_path_buf();
                std::thread::spawn(move || spur_spool::deliver_terminate(&dir, kill_wait));
            }
        }
    }
}

/// The batch script's use while it runs, as a step's (`step.rs`): its
/// processes sampled after 250 ms, 1 s, then every 10 s into the job
/// directory's `usage` file, which the agent sends with the job's end (the
/// batch step's record). With `JobAcctGatherParams=OverMemoryKill` the
/// period is `mem_check_secs` and each sample's resident memory is compared
/// with the job's memory on this node; over it, slurmstepd's line goes to
/// the job's stderr (the supervisor's own descriptor of it) and the job's
/// owner is told there (`Exceeded job memory limit`), then the step ends as
/// a cancel does: its `CANCELLED` line, SIGKILL to every process of the job.
struct ScriptWatch {
    /// The sampler, and whether the script has ended (no more samples).
    state: std::sync::Arc<std::sync::Mutex<(Sampler, bool)>>,
    /// The memory line once the script was killed for it, to repeat.
    over: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

fn watch_script(
    spec: &LaunchSpec,
    jobdir: &Path,
    child: Pid,
    tracker: std::sync::Arc<Tracker>,
    stderr: Option<OwnedFd>,
) -> ScriptWatch {
    let mut sampler = Sampler::new(&spec.node_name, &[0]);
    sampler.started(child.as_raw(), 0);
    let w = ScriptWatch {
        state: std::sync::Arc::new(std::sync::Mutex::new((sampler, false))),
        over: std::sync::Arc::new(std::sync::Mutex::new(None)),
    };
    let limit_mb = spec.job.allocs.iter().find(|a| a.node == spec.node_name).map(|a| a.mem_mb).unwrap_or(0);
    let check = (spec.mem_check_secs > 0 && limit_mb > 0).then(|| Duration::from_secs(spec.mem_check_secs as u64));
    // the node's slurm.conf (the agent's SLURM_CONF): JobAcctGatherFrequency
    let conf = spur_core::config::load(std::path::Path::new(&crate::jobenv::default_slurm_conf())).ok();
    let every = crate::step::sample_every(conf.as_ref());
    let prefix = format!("{}: error: ", spur_spool::stepd_name(&spec.node_name));
    let label = format!("{}.batch", spec.job.job_id);
    let dir = jobdir.to_path_buf();
    let (state, over) = (w.state.clone(), w.over.clone());
    std::thread::spawn(move || {
        let mut early = [Duration::from_millis(250), Duration::from_millis(750)].into_iter();
        loop {
            std::thread::sleep(early.next().unwrap_or(check.unwrap_or(every)));
            let pids = tracker.pids();
            let rss = {
                let mut g = state.lock().unwrap_or_else(|e| e.into_inner());
                if g.1 {
                    return;
                }
                let rss = g.0.sample(&pids);
                let _ = spur_spool::write_step_usage(&dir, &g.0.summary());
                rss
            };
            if check.is_none() {
                continue;
            }
            if let Some(line) = crate::track::over_memory_line(&prefix, &label, rss, limit_mb) {
                if let Some(fd) = &stderr {
                    let _ = unistd::write(fd, line.as_bytes());
                    let _ = unistd::write(fd, format!("{}Exceeded job memory limit\n", prefix).as_bytes());
                }
                *over.lock().unwrap_or_else(|e| e.into_inner()) = Some(line);
                let _ = signal::kill(unistd::getpid(), spur_spool::NOTE_CANCELLED);
                let _ = spur_spool::deliver_signal(&dir, libc::SIGKILL, false);
                return;
            }
        }
    });
    w
}

impl ScriptWatch {
    /// The script ended (reaped, with its rusage `ru`): its use merged and
    /// written for the agent, and a memory kill's line repeated (after the
    /// cancel line), as slurmstepd's last accounting of the script does.
    fn ended(self, jobdir: &Path, child: Pid, ru: &libc::rusage, stderr: Option<&OwnedFd>) {
        let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        let fin = spur_core::usage::TaskUsage {
            task: 0,
            max_rss_kb: ru.ru_maxrss as u64,
            user_us: tv(ru.ru_utime),
            sys_us: tv(ru.ru_stime),
            pages: ru.ru_majflt as u64,
            ..Default::default()
        };
        {
            let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
            g.0.ended(child.as_raw(), &fin);
            g.1 = true;
            let _ = spur_spool::write_step_usage(jobdir, &g.0.summary());
        }
        if let (Some(line), Some(fd)) = (self.over.lock().unwrap_or_else(|e| e.into_inner()).take(), stderr) {
            let _ = unistd::write(fd, line.as_bytes());
        }
    }
}

/// slurmstepd's cancel line, written at most once, when the agent asks
/// (`spur_spool::request_cancel_note`), into the job's stderr as the script
/// was started with it: the supervisor's own descriptor of the file the
/// child opened as the user. The path is never opened again: whatever the
/// job has put there since (a symlink to root's file, a FIFO) is not touched.
struct CancelNote {
    stderr: Option<std::os::fd::OwnedFd>,
    job_id: u32,
    node: String,
    written: bool,
}

impl CancelNote {
    fn write(&mut self, why: spur_spool::Note) {
        if std::mem::replace(&mut self.written, true) {
            return;
        }
        let Some(fd) = self.stderr.take() else { return };
        let line = spur_spool::cancel_line(self.job_id, &self.node, spur_auth::now(), why);
        // A write to a pipe (the job's stderr may be one) can block: it is
        // made by a thread of its own, waited for a moment, then left.
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("cancel-note".into()).spawn(move || {
            let _ = fs::File::from(fd).write_all(line.as_bytes());
            let _ = tx.send(());
        });
        if spawned.is_ok() && rx.recv_timeout(Duration::from_secs(2)).is_err() {
            log(&format!("job {}: the cancel line could not be written to the job's stderr", self.job_id));
        }
    }

    /// Take the agent's requests already there (the script has ended).
    fn take_pending(&mut self) {
        let mut set = SigSet::empty();
        set.add(spur_spool::NOTE_CANCELLED);
        set.add(spur_spool::NOTE_TIME_LIMIT);
        set.add(spur_spool::NOTE_PREEMPTION);
        let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        loop {
            // SAFETY: `set` is an initialised sigset_t, no siginfo is asked
            // for, `zero` is a valid timespec.
            let r = unsafe { libc::sigtimedwait(set.as_ref(), std::ptr::null_mut(), &zero) };
            if r < 0 {
                if Errno::last() == Errno::EINTR {
                    continue;
                }
                return;
            }
            if let Some(n) = spur_spool::Note::of_signal(r) {
                self.write(n);
            }
        }
    }
}

/// The descriptor the child sent before execve, if it got that far.
pub(crate) fn receive_fd(sock: &std::os::fd::OwnedFd) -> Option<std::os::fd::OwnedFd> {
    use socket::{ControlMessageOwned, MsgFlags};
    use std::os::fd::FromRawFd;
    let mut byte = [0u8; 1];
    let mut iov = [io::IoSliceMut::new(&mut byte)];
    let mut cmsg = nix::cmsg_space!(RawFd);
    let msg = socket::recvmsg::<()>(
        sock.as_raw_fd(),
        &mut iov,
        Some(&mut cmsg),
        MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_CMSG_CLOEXEC,
    )
    .ok()?;
    let mut got = None;
    for c in msg.cmsgs().ok()? {
        if let ControlMessageOwned::ScmRights(fds) = c {
            for fd in fds {
                // SAFETY: SCM_RIGHTS just installed `fd` in this process;
                // nothing else owns it.
                let owned = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
                if got.is_none() {
                    got = Some(owned);
                }
            }
        }
    }
    got
}

/// In the child: send `fd` to the supervisor over `sock` (SCM_RIGHTS), with
/// no allocation (the message is built on the stack).
pub(crate) fn send_fd(sock: RawFd, fd: RawFd) {
    let mut byte = [0u8; 1];
    // room for CMSG_SPACE(sizeof(int)), aligned as cmsghdr
    let mut control = [0u64; 4];
    // SAFETY: the msghdr points at `byte`, `iov` and `control`, all alive
    // for the call; CMSG_FIRSTHDR of a control buffer of CMSG_SPACE(int)
    // bytes (at most 32 with 8-byte alignment) is a header inside it, and
    // CMSG_DATA has room for one int. sendmsg(2) is async-signal-safe.
    unsafe {
        let mut iov = libc::iovec { iov_base: byte.as_mut_ptr().cast(), iov_len: 1 };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as _;
        let c = libc::CMSG_FIRSTHDR(&msg);
        if c.is_null() || msg.msg_controllen as usize > std::mem::size_of_val(&control) {
            return;
        }
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::copy_nonoverlapping(
            (&fd as *const libc::c_int).cast::<u8>(),
            libc::CMSG_DATA(c),
            std::mem::size_of::<libc::c_int>(),
        );
        libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL);
    }
}

/// Reap children until `child` ends; its raw wait status. Between reaps it
/// waits for a signal (SIGCHLD or the agent's request for the cancel line,
/// all blocked since `run`), and writes the line when asked. With the
/// status, the script's resource use (its own and its reaped descendants').
fn wait_for(child: Pid, note: &mut CancelNote) -> (i32, libc::rusage) {
    let waited = waited_signals();
    // SAFETY: an all-zero rusage is valid; wait4 fills it in.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let st = loop {
        let mut st: libc::c_int = 0;
        // SAFETY: `st` and `ru` are valid places for the status and the
        // use. libc's wait4, not nix's: the raw status is what `status` holds.
        let r = unsafe { libc::wait4(-1, &mut st, libc::WNOHANG, &mut ru) };
        if r == child.as_raw() {
            break st;
        }
        if r > 0 {
            continue;
        }
        if r < 0 {
            let e = Errno::last();
            if e == Errno::EINTR {
                continue;
            }
            break EXIT_1;
        }
        if let Some(n) = waited.wait().ok().and_then(|s| spur_spool::Note::of_signal(s as i32)) {
            note.write(n);
        }
    };
    // a request sent before the kill that ended the script
    note.take_pending();
    (st, ru)
}

/// After the script ended (and was reaped): kill and reap everything it
/// left behind. The script's process group is signalled only while one of
/// the supervisor's descendants is in it: an empty group's id is free, and
/// may be another process's (another user's) by then.
fn kill_leftovers(pgid: Pid) {
    let me = unistd::getpid().as_raw();
    let deadline = Instant::now() + Duration::from_secs(10);
    if no_children_left() {
        // The supervisor is a subreaper: every process the job left behind is
        // its child or a child's descendant (its process group's members
        // too: the supervisor's session holds nothing else), so none at all
        // means nothing is left, and the process table need not be read (the
        // common case).
        return;
    }
    loop {
        if spur_spool::group_among_descendants(me, pgid.as_raw()) {
            let _ = signal::killpg(pgid, Signal::SIGKILL);
        }
        spur_spool::signal_descendants(me, Signal::SIGKILL);
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
pub(crate) fn no_children_left() -> bool {
    loop {
        match waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => return false,
            Ok(_) => continue,
            Err(Errno::EINTR) => continue,
            Err(_) => return true, // ECHILD
        }
    }
}

/// The limits of [`jobenv::rlimits_in`] as resources.
pub(crate) fn rlimits(named: &[(&'static str, u64, bool)]) -> Vec<(Resource, u64, bool)> {
    named.iter().filter_map(|&(n, v, u)| rlimit_resource(n).map(|r| (r, v, u))).collect()
}

/// Set propagated soft limits, as slurmstepd's `_set_limit` does just before
/// the exec (as the user): unchanged ones are left alone, a value from the
/// configuration's propagation is capped at the hard limit, one `--propagate`
/// asked for is not (and fails if it is above). Async-signal-safe.
pub(crate) fn set_rlimits(limits: &[(Resource, u64, bool)]) {
    for &(res, v, user) in limits {
        let Ok((cur, max)) = resource::getrlimit(res) else { continue };
        if cur == v as libc::rlim_t {
            continue;
        }
        let mut want = v as libc::rlim_t;
        if !user && want > max {
            want = max;
        }
        let _ = resource::setrlimit(res, want, max);
    }
}

fn rlimit_resource(name: &str) -> Option<Resource> {
    Some(match name {
        "CPU" => Resource::RLIMIT_CPU,
        "FSIZE" => Resource::RLIMIT_FSIZE,
        "DATA" => Resource::RLIMIT_DATA,
        "STACK" => Resource::RLIMIT_STACK,
        "CORE" => Resource::RLIMIT_CORE,
        "RSS" => Resource::RLIMIT_RSS,
        "NPROC" => Resource::RLIMIT_NPROC,
        "NOFILE" => Resource::RLIMIT_NOFILE,
        "MEMLOCK" => Resource::RLIMIT_MEMLOCK,
        "AS" => Resource::RLIMIT_AS,
        _ => return None,
    })
}

/// Write to fd 2 without stdio's lock (the child may not take it).
pub(crate) fn write_stderr(b: &[u8]) {
    let _ = unistd::write(io::stderr(), b);
}

/// Open an output file as Slurm does: O_APPEND always, O_TRUNC unless
/// appending, 0666 less the umask; a missing directory is created (0755,
/// `dirs`, made before the fork) once.
pub(crate) fn open_output(path: &CStr, dirs: &[CString], append: bool) -> Result<RawFd, Errno> {
    let mut flags = OFlag::O_CREAT | OFlag::O_WRONLY | OFlag::O_APPEND | OFlag::O_CLOEXEC;
    if !append {
        flags |= OFlag::O_TRUNC;
    }
    let mut tried_mkdir = false;
    loop {
        match fcntl::open(path, flags, Mode::from_bits_truncate(0o666)) {
            Ok(fd) => return Ok(fd),
            Err(Errno::EINTR) => continue,
            Err(Errno::ENOENT) if !tried_mkdir => {
                tried_mkdir = true;
                for d in dirs {
                    let _ = unistd::mkdir(d.as_c_str(), Mode::from_bits_truncate(0o755));
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// The interpreter a script's `#!` line names, read into `buf` (execve's
/// ENOENT for an existing script means that one is missing).
fn interpreter<'a>(script: &CStr, buf: &'a mut [u8; 255]) -> Option<&'a [u8]> {
    let fd = fcntl::open(script, OFlag::O_RDONLY | OFlag::O_CLOEXEC, Mode::empty()).ok()?;
    let n = unistd::read(fd, buf).unwrap_or(0);
    let _ = unistd::close(fd);
    if n >= 3 && buf[..2] == *b"#!" {
        buf[2..n].split(|&b| b == b'\n').next()
    } else {
        None
    }
}

/// In the forked child: become the user, set up stdio and exec the script.
/// Returns only on a setup failure, with the code to report. Async-signal-
/// safe system calls on `p` only: no allocation, no lock, no panic path.
fn child_exec(p: &mut Prepared, fd_tx: RawFd) -> i32 {
    p.id.reset();
    let _ = unistd::setsid();
    if !p.id.become_user() {
        return ESLURMD_SET_UID_OR_GID_ERROR;
    }

    let Ok(fin) = fcntl::open(p.stdin.as_c_str(), OFlag::O_RDONLY | OFlag::O_CLOEXEC, Mode::empty()) else {
        return ESLURMD_IO_ERROR;
    };
    let Ok(fout) = open_output(&p.stdout, &p.stdout_dirs, p.append) else {
        return ESLURMD_IO_ERROR;
    };
    let Ok(ferr) = open_output(&p.stderr, &p.stderr_dirs, p.append) else {
        return ESLURMD_IO_ERROR;
    };
    // the file as the user opened it, for the cancel line
    send_fd(fd_tx, ferr);
    if unistd::dup2(fin, 0).is_err() || unistd::dup2(fout, 1).is_err() || unistd::dup2(ferr, 2).is_err() {
        return ESLURMD_IO_ERROR;
    }
    for fd in [fin, fout, ferr] {
        if fd > 2 {
            let _ = unistd::close(fd);
        }
    }
    if let Err(e) = unistd::chdir(p.work_dir.as_c_str()) {
        write_stderr(&p.chdir_msg);
        write_stderr(p.errno_text(e));
        write_stderr(b": going to /tmp instead\n");
        if unistd::chdir(c"/tmp").is_err() {
            write_stderr(&p.tmp_msg);
            return EXIT_1;
        }
    }
    let e = p.id.exec(&p.script, &p.argv, &mut p.envp, &mut p.task_pid);
    // As slurmstepd: the message goes to the job's stderr, the task exits
    // with errno.
    write_stderr(&p.exec_prefix);
    let mut buf = [0u8; 255];
    let interp = if e == Errno::ENOENT { interpreter(&p.script, &mut buf) } else { None };
    match interp {
        Some(interp) => {
            write_stderr(b"bad interpreter(");
            write_stderr(interp);
            write_stderr(b"): ");
        }
        None => {
            write_stderr(p.script.to_bytes());
            write_stderr(b": ");
        }
    }
    write_stderr(p.errno_text(e));
    write_stderr(b"\n");
    // SAFETY: _exit(2) is async-signal-safe and runs no exit handler.
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
    // (waited for without reaping it: until it is reaped, its pid, the
    // group's id, is no one else's, so killpg reaches its group only)
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    while Instant::now() < deadline {
        match nix::sys::wait::waitid(nix::sys::wait::Id::Pid(Pid::from_raw(pid)), flags) {
            Ok(WaitStatus::StillAlive) | Err(Errno::EINTR) => {}
            _ => {
                finished = true;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = signal::killpg(Pid::from_raw(pid), Signal::SIGKILL);
    let _ = child.wait();
    if !finished {
        return None;
    }
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

#[cfg(test)]
mod tests;
