//! An srun step's part on one node (`spurstepd --step STEPDIR NODE`), as
//! slurmstepd runs it: the tasks this node holds, each started as the job's
//! owner with its own environment (`SLURM_PROCID`, `SLURM_LOCALID`, ...),
//! their output streamed back to srun over one connection (or written to
//! the files `--output`/`--error` name, opened as the user), srun's stdin
//! and signals passed to them, and each task's exit status and resource use
//! reported when it ends.
//!
//! The connection (`spur_core::stepio`): the step daemon connects to srun's
//! listener and proves itself with the step's secret; a task's output is
//! sent before its exit, so srun sees every byte a task wrote before it
//! reports how it ended.
//!
//! Signals: the agent's SIGTERM with the step's `cancel` file present ends
//! the step (slurmstepd's `*** STEP J.S ON node CANCELLED AT ... ***` line to
//! srun, SIGTERM to the tasks, SIGKILL after KillWait); any other signal the
//! agent sends (scancel -s) is passed to every task's process group, as are
//! the signals srun forwards. A lost connection to srun ends the step as a
//! cancel does. The tasks are tracked (`track`): in a cgroup of the step's
//! own where the node allows it (signals go to every process in it, and
//! `cgroup.kill` ends it), else by their process groups, the step daemon
//! being a child subreaper; either way what the tasks leave behind is killed
//! when the last task ends. Their use (`track::Sampler`) is sampled into the
//! step's `usage` file while they run, and the node's summary goes to the
//! agent with the step's end (`step J S key=value...`), which passes it to
//! the controller.
//!
//! Tasks are started with fork and execve as the batch script is (see
//! `supervisor`): between the two the child only makes async-signal-safe
//! calls on data built before the fork.

use crate::iopattern;
use crate::supervisor::{c_array, cstr, log, no_children_left, strerror, write_stderr};
use crate::taskscript::{self, Origin};
use crate::track::{Sampler, Tracker};
use nix::errno::Errno;
use nix::fcntl::{self, OFlag};
use nix::sys::signal::{self, SigSet, Signal};
use nix::sys::stat::Mode;
use nix::unistd::{self, ForkResult, Gid, Pid};
use spur_core::launch::StepLaunch;
use spur_core::stepio::{self, FrameKind, TaskExit, ALL_TASKS};
use std::collections::HashMap;
use std::ffi::CString;
use std::fs;
use std::io::{self, Read};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where one of a task's standard streams goes.
enum Stream {
    /// A pipe to or from the step daemon: the child's end.
    Pipe(OwnedFd),
    /// A file the step daemon's opener opened as the user (`--input FILE`).
    Fd(OwnedFd),
    Null,
    /// `--pty`: the terminal's slave side (the task's controlling terminal).
    Pty(OwnedFd),
}

/// Everything a task's child needs, built before the fork.
struct TaskPrep {
    global: u32,
    prog: CString,
    _argv_s: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    _envp_s: Vec<CString>,
    envp: Vec<*const libc::c_char>,
    task_pid: Option<(usize, [u8; 32])>,
    stdin: Stream,
    stdout: Stream,
    stderr: Stream,
    /// `slurmstepd: error: execve(): PROG: `
    exec_prefix: Vec<u8>,
    /// What the task prologs print to the task's stdout.
    print: Vec<u8>,
    /// A failed task prolog: slurmstepd's lines for the task's stderr, and
    /// the status the task ends with instead of running.
    prolog_failed: Option<(Vec<u8>, i32)>,
    /// The task's environment for its epilogs (without the prologs' changes).
    epilog_env: Vec<(String, String)>,
    /// `--mpi=pmi2`: the task's end of its PMI socket (`PMI_FD`), kept open
    /// across its exec (-1: none).
    pmi_fd: RawFd,
}

/// What every task shares.
pub(crate) struct Common {
    /// The user, umask, srun's `SLURM_RLIMIT_*` (`--propagate`,
    /// PropagateResourceLimits) and the step's cgroup (`exec`, as the batch
    /// script's).
    pub(crate) id: crate::exec::Identity,
    pub(crate) cwd: CString,
    chdir_msg: Vec<u8>,
    append: bool,
    errno_text: Vec<String>,
    /// The task prologs and epilogs, in the order they run.
    prologs: Vec<(Origin, String)>,
    epilogs: Vec<(Origin, String)>,
    /// `--mpi=pmi2`: each local task's end of its PMI socket, by global id.
    pmi_fds: HashMap<u32, RawFd>,
    /// `--mpi=pmix`: each local task's variables from the PMIx server.
    pmix_env: HashMap<u32, Vec<(String, String)>>,
}

impl Common {
    fn errno_text(&self, e: Errno) -> &[u8] {
        self.errno_text.get(e as usize).map(|s| s.as_bytes()).unwrap_or(b"Unknown error")
    }
}

/// The connection to srun, shared by the threads that write to it.
#[derive(Clone)]
struct Srun(Arc<Mutex<Option<TcpStream>>>);

impl Srun {
    fn send(&self, kind: FrameKind, task: u32, data: &[u8]) {
        let mut g = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = g.as_mut() {
            if stepio::write_frame(s, kind, task, data).is_err() {
                *g = None;
            }
        }
    }
}

/// Entry point of `spurstepd --step STEPDIR NODE`.
pub fn run(dir: &Path, node: &str) -> i32 {
    let mut waited = SigSet::empty();
    for s in [
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGQUIT,
        Signal::SIGUSR1,
        Signal::SIGUSR2,
        Signal::SIGCONT,
        Signal::SIGALRM,
        Signal::SIGTSTP,
        Signal::SIGWINCH,
    ] {
        waited.add(s);
    }
    let _ = waited.thread_block();
    let _ = unistd::setsid();
    // SAFETY: SIG_IGN installs no handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let _ = nix::sys::prctl::set_child_subreaper(true);
    let ids = spur_spool::read_step_spec(dir).ok().map(|s| (s.job.job_id, s.step.step_id));
    let (code, usage) = match run_step(dir, node, waited) {
        Ok(u) => (0, Some(u)),
        Err(e) => {
            log(&format!("step {}: {}", dir.display(), e));
            (1, None)
        }
    };
    // the highest raw wait status of this node's tasks, before the usage
    let usage = usage.map(|(u, status)| format!(" status={} {}", status, u.to_line()));
    let _ = fs::remove_dir_all(dir);
    // the agent tells the controller, whether or not srun did (srun may be
    // gone), with the node's usage
    if let Some((j, s)) = ids {
        crate::supervisor::tell_agent(dir, &format!("step {} {}{}\n", j, s, usage.unwrap_or_default()));
    }
    code
}

/// How often the tasks' use is sampled after the first second: slurm.conf's
/// `JobAcctGatherFrequency` (30 s by default); with sampling off (0), once an
/// hour, the tasks' final use being taken at their end anyway.
pub(crate) fn sample_every(conf: Option<&spur_core::config::SlurmConf>) -> Duration {
    match conf.map(|c| c.acct_gather_secs()).unwrap_or(30) {
        0 => Duration::from_secs(3600),
        n => Duration::from_secs(u64::from(n)),
    }
}

/// The node's usage and the highest raw wait status of its tasks.
fn run_step(dir: &Path, node: &str, waited: SigSet) -> io::Result<(spur_core::usage::NodeUsage, i32)> {
    spur_spool::write_stepd_proc(dir)?;
    let spec = spur_spool::read_step_spec(dir)?;
    let node_id = spec
        .step
        .allocs
        .iter()
        .position(|a| a.node == node)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("node {} is not in the step", node)))?;
    let tasks: Vec<u32> = spec.step.task_ids.get(node_id).cloned().unwrap_or_default();
    let label = spur_core::model::step_label(&spec.job.job_id.to_string(), spec.step.step_id);
    if spec.step.step_id == spur_core::model::EXTERN_STEP {
        return run_extern(dir, node, spec.job.job_id, waited).map(|u| (u, 0));
    }

    // srun's end of the connection
    let addr = spec.io.io_addr.clone();
    let stream = connect(&addr)?;
    let _ = stream.set_nodelay(true);
    let srun = Srun(Arc::new(Mutex::new(Some(stream.try_clone()?))));
    let mut hello = (node_id as u32).to_le_bytes().to_vec();
    hello.extend_from_slice(&spec.io.io_key);
    srun.send(FrameKind::Hello, ALL_TASKS, &hello);
    // an MPI step's fences go up a tree whose root is srun, of the width
    // srun takes too (the step's SLURM_PMI2_TREE_WIDTH, else TreeWidth)
    // the node's slurm.conf (the agent's SLURM_CONF), read once
    let conf = spur_core::config::load(Path::new(&crate::jobenv::default_slurm_conf())).ok();
    let tree_width = spec.step.uses_pmi().then(|| {
        let env = spec.io.env.iter().find(|(k, _)| k == "SLURM_PMI2_TREE_WIDTH").map(|(_, v)| v.as_str());
        stepio::tree_width(env, conf.as_ref().and_then(|c| c.get("TreeWidth")))
    });
    let (pmi_tx, pmi_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let tree = {
        let to_srun = srun.clone();
        let pmix_step = spec.step.uses_pmix();
        let pmi_tx = Mutex::new(pmi_tx);
        crate::fence::Tree::new(
            node_id as u32,
            spec.step.allocs.len() as u32,
            tree_width,
            spec.io.io_key.clone(),
            Box::new(move |k, t, d| to_srun.send(k, t, d)),
            Box::new(move |all| {
                if pmix_step {
                    crate::pmix::fence_done(all)
                } else {
                    let _ = pmi_tx.lock().unwrap_or_else(|e| e.into_inner()).send(all);
                }
            }),
        )
    };
    if let Some(w) = tree_width {
        if !stepio::tree_children(node_id as u32, spec.step.allocs.len() as u32, w).is_empty() {
            let addr = tree.listen(stream.local_addr()?.ip())?;
            srun.send(FrameKind::TreeAddr, ALL_TASKS, addr.as_bytes());
        }
    }

    let tracker = Tracker::new(
        &cgroup_dir(dir, node),
        spec.job.job_id,
        label.rsplit('.').next().unwrap_or(""),
        crate::track::debug,
    );
    let mut common = common(&spec, node, conf.as_ref())?;
    common.id.cgroup_fd = tracker.join_fd();
    // `--mpi=pmi2`: a socket pair per local task, the task's end its PMI_FD
    let mut pmi_socks: Vec<(u32, std::os::unix::net::UnixStream, std::os::unix::net::UnixStream)> = Vec::new();
    if spec.step.mpi == "pmi2" {
        for &t in &tasks {
            let (task_end, stepd_end) = std::os::unix::net::UnixStream::pair()?;
            common.pmi_fds.insert(t, task_end.as_raw_fd());
            pmi_socks.push((t, task_end, stepd_end));
        }
    }
    // `--mpi=none`: no PMI_FD, but Slurm's libpmi reaches this daemon on
    // demand (Slurm's srun answers libpmi in every step), at an abstract
    // socket whose name the tasks' libslurm makes from their environment;
    // bound before the tasks start. Failing to bind only costs libpmi.
    let pmi1_listener = if spec.step.pmi1_on_demand() {
        let port: u16 = spec.io.io_addr.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let name = spur_core::launch::pmi1_socket_name(
            &spec.step.srun_addr,
            &port.to_string(),
            &spec.job.job_id.to_string(),
            &spec.step.step_id.to_string(),
            node,
        );
        crate::pmi::listen_abstract(&name).ok()
    } else {
        None
    };
    // `--mpi=pmix`: this node's PMIx server, its collectives through srun
    let (pmix_abort, pmix_aborted) = std::sync::mpsc::channel::<i32>();
    let pmix = if spec.step.uses_pmix() {
        let to_srun = srun.clone();
        let link = crate::pmix::SrunLink {
            send: move |k: FrameKind, t: u32, d: &[u8]| to_srun.send(k, t, d),
            tree: tree.clone(),
            abort: Mutex::new(pmix_abort),
        };
        match crate::pmix::start(&spec, dir, node, node_id as u32, Box::new(link)) {
            Ok(s) => {
                common.pmix_env = s.env.clone();
                Some(s)
            }
            Err(e) => {
                let line = format!("slurmstepd-{}: error: mpi/pmix: {}\n", node, e);
                srun.send(FrameKind::Message, ALL_TASKS, line.as_bytes());
                return Err(e);
            }
        }
    } else {
        None
    };
    let sampler = Arc::new(Mutex::new(Sampler::new(node, &tasks)));
    let (preps, parents) = prepare(&spec, node, node_id as u32, &tasks, &common)?;

    // start the tasks
    let mut pids: HashMap<i32, u32> = HashMap::new();
    let mut pgids: Vec<i32> = Vec::new();
    let mut readers: HashMap<u32, Vec<std::thread::JoinHandle<()>>> = HashMap::new();
    let mut stdins: HashMap<u32, OwnedFd> = HashMap::new();
    let mut early: Vec<(u32, TaskExit)> = Vec::new();
    let mut err_sinks: HashMap<u32, Sink> = HashMap::new();
    let mut epilog_envs: HashMap<u32, Vec<(String, String)>> = HashMap::new();
    let mut preps = preps;
    for (p, par) in preps.iter_mut().zip(parents) {
        // the prologs' `print` lines come first on the task's stdout: the
        // pipe is new and empty, so what fits in it is written at once
        if !p.print.is_empty() {
            if let Stream::Pipe(fd) | Stream::Pty(fd) = &p.stdout {
                let n = p.print.len().min(PIPE_ROOM);
                let _ = write_all(fd, &p.print[..n]);
            }
        }
        epilog_envs.insert(p.global, std::mem::take(&mut p.epilog_env));
        // SAFETY: the child makes only async-signal-safe calls on data built
        // before the fork (`child_exec`) and ends in execve or _exit.
        match unsafe { unistd::fork() } {
            Ok(ForkResult::Child) => {
                let code = child_exec(p, &common);
                // SAFETY: _exit(2) is async-signal-safe.
                unsafe { libc::_exit(code) }
            }
            Ok(ForkResult::Parent { child }) => {
                tracker.adopt(child.as_raw());
                if !matches!(p.stdin, Stream::Pty(_)) {
                    // (a --pty task makes a session of its own: a process
                    // group leader could not)
                    let _ = unistd::setpgid(child, child);
                }
                pids.insert(child.as_raw(), p.global);
                pgids.push(child.as_raw());
                sampler.lock().unwrap_or_else(|e| e.into_inner()).started(child.as_raw(), p.global);
                let mut hs = Vec::new();
                if let Some((out, sink)) = par.stdout {
                    hs.push(pump(out, srun.clone(), FrameKind::Stdout, p.global, sink));
                }
                if let Some((err, sink)) = par.stderr {
                    err_sinks.insert(p.global, sink.clone());
                    hs.push(pump(err, srun.clone(), FrameKind::Stderr, p.global, sink));
                }
                readers.insert(p.global, hs);
                if let Some(i) = par.stdin {
                    stdins.insert(p.global, i);
                }
            }
            Err(e) => {
                log(&format!("{}: fork: {}", label, e));
                early.push((p.global, TaskExit { status: 1 << 8, ..Default::default() }));
            }
        }
        // the child's ends are closed here once the child has them
        p.stdin = Stream::Null;
        p.stdout = Stream::Null;
        p.stderr = Stream::Null;
    }
    // the tasks have their ends of the PMI sockets
    let pmi_socks: Vec<(u32, std::os::unix::net::UnixStream)> =
        pmi_socks.into_iter().map(|(t, _task, s)| (t, s)).collect();
    let mut worst = 0;
    for (t, e) in &early {
        worst = worst.max(e.status);
        srun.send(FrameKind::Exit, *t, &e.encode());
    }
    let me = std::process::id() as i32;
    let started = spur_spool::StepTasks {
        stepd: spur_spool::start_time(me).map(|t| (me, t)),
        cgroup: tracker.cgroup().map(Path::to_path_buf),
        tasks: pids
            .iter()
            .map(|(&pid, &g)| (pid, tasks.iter().position(|&t| t == g).unwrap_or(0) as u32, g))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    // the job's owner reads its tasks file (`scontrol listpids`), and
    // nothing else of the directory
    let owner = Some(spec.uid).filter(|_| unistd::geteuid().is_root());
    let _ = spur_spool::write_step_tasks(dir, &started, owner);
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o711));
    }
    let pgids = Arc::new(TaskSet { pgids, tracker });
    let ending = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ender = Ender {
        pgids: pgids.clone(),
        srun: srun.clone(),
        label: label.clone(),
        node: node.to_string(),
        first_task: tasks.first().copied().unwrap_or(0),
        kill_wait: spec.kill_wait,
        done: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        first_node: node_id == 0,
    };

    let over = {
        let first = tasks.first().copied().unwrap_or(0);
        Arc::new(OverMemory {
            sink: err_sinks.get(&first).cloned().unwrap_or(Sink::Srun),
            first,
            batch_job: !spec.job.desc.script.is_empty(),
            prefix: format!("slurmstepd-{}: error: ", node),
            line: Mutex::new(None),
        })
    };
    // the tasks' use, sampled while they run, and compared with the step's
    // memory limit on this node where `OverMemoryKill` asks
    {
        let pgids = pgids.clone();
        let sampler = sampler.clone();
        let dir = dir.to_path_buf();
        let limit_mb = spec
            .step
            .allocs
            .get(node_id)
            .map(|a| a.mem_mb)
            .filter(|&m| m > 0)
            .or_else(|| spec.job.allocs.iter().find(|a| a.node == node).map(|a| a.mem_mb))
            .unwrap_or(0);
        let check = (spec.mem_check_secs > 0 && limit_mb > 0).then(|| Duration::from_secs(spec.mem_check_secs as u64));
        let every = sample_every(conf.as_ref());
        let (ender, srun, label, prefix) =
            (ender.clone(), srun.clone(), label.clone(), format!("slurmstepd-{}: error: ", node));
        let over = over.clone();
        std::thread::spawn(move || {
            // early samples catch short steps (the final rusage has no
            // virtual size or I/O), then every JobAcctGatherFrequency (or
            // the memory check's period)
            let mut early = [Duration::from_millis(250), Duration::from_millis(750)].into_iter();
            loop {
                std::thread::sleep(early.next().unwrap_or(check.unwrap_or(every)));
                let pids = pgids.tracker.pids();
                let mut s = sampler.lock().unwrap_or_else(|e| e.into_inner());
                let rss = s.sample(&pids);
                let _ = spur_spool::write_step_usage(&dir, &s.summary());
                drop(s);
                if check.is_none() {
                    continue;
                }
                if let Some(line) = crate::track::over_memory_line(&prefix, &label, rss, limit_mb) {
                    over.tell(&srun, &line);
                    ender.cancel(libc::SIGKILL, None, false);
                    *over.line.lock().unwrap_or_else(|e| e.into_inner()) = Some(line);
                    return;
                }
            }
        });
    }
    // `--mpi=pmi2`: each task's PMI conversation; fences go up the tree
    let name_waits = NameWaits::default();
    if !pmi_socks.is_empty() || pmi1_listener.is_some() {
        let node_of = crate::pmi::task_nodes(&spec.step.task_ids, spec.step.num_tasks);
        let info = crate::pmi::StepInfo {
            jobid: format!("{}.{}", spec.job.job_id, spec.step.step_id),
            size: spec.step.num_tasks,
            local_tasks: tasks.len() as u32,
            mapping: crate::pmi::process_mapping(&node_of),
            resv_ports: spec.step.resv_ports.clone(),
        };
        let server = crate::pmi::Server::new(
            info,
            Box::new(SrunExchange {
                srun: srun.clone(),
                tree: tree.clone(),
                rx: Mutex::new(pmi_rx),
                names: name_waits.clone(),
            }),
        );
        for (t, s) in pmi_socks {
            let server = server.clone();
            let ender = ender.clone();
            std::thread::spawn(move || {
                if let Ok(crate::pmi::End::Abort) = server.serve(t, s) {
                    // a task's PMI abort ends the step
                    ender.abort_step(None);
                }
            });
        }
        if let Some(l) = pmi1_listener {
            let local: std::collections::HashSet<u32> = tasks.iter().copied().collect();
            let ender = ender.clone();
            let owner = spec.uid;
            std::thread::spawn(move || {
                crate::pmi::serve_on_demand(l, server, local, owner, move || ender.abort_step(None))
            });
        }
    }
    // a PMIx client's abort ends the step
    if pmix.is_some() {
        let ender = ender.clone();
        std::thread::spawn(move || {
            if let Ok(status) = pmix_aborted.recv() {
                ender.abort_step(Some(status));
            }
        });
    }
    // srun's stdin and signals
    {
        let pmix_on = pmix.is_some();
        let nspace = crate::pmix::namespace(spec.job.job_id, spec.step.step_id);
        let to_srun = srun.clone();
        let pgids = pgids.clone();
        let stdins = Arc::new(Mutex::new(stdins));
        let mut rd = stream;
        let ender = ender.clone();
        let ending = ending.clone();
        let tree = tree.clone();
        std::thread::spawn(move || loop {
            match stepio::read_frame(&mut rd) {
                Ok(Some(f)) => match f.kind {
                    FrameKind::Stdin => {
                        let mut g = stdins.lock().unwrap_or_else(|e| e.into_inner());
                        let mut gone = vec![];
                        for (t, fd) in g.iter() {
                            if (f.task == ALL_TASKS || f.task == *t) && !write_all(fd, &f.data) {
                                gone.push(*t);
                            }
                        }
                        for t in gone {
                            g.remove(&t);
                        }
                    }
                    FrameKind::StdinEof => {
                        let mut g = stdins.lock().unwrap_or_else(|e| e.into_inner());
                        if f.task == ALL_TASKS {
                            g.clear();
                        } else {
                            g.remove(&f.task);
                        }
                    }
                    FrameKind::Signal => {
                        if let Some(sig) = f.data.get(0..4).and_then(|b| b.try_into().ok()).map(i32::from_le_bytes) {
                            signal_tasks(&pgids, sig);
                        }
                    }
                    FrameKind::Cancel => {
                        if let Some(sig) = f.data.get(0..4).and_then(|b| b.try_into().ok()).map(i32::from_le_bytes) {
                            ender.cancel(sig, None, false);
                        }
                    }
                    FrameKind::PmiFenceResp => tree.answer(f.data),
                    FrameKind::TreeParent => {
                        let tree = tree.clone();
                        let addr = String::from_utf8_lossy(&f.data).into_owned();
                        std::thread::spawn(move || tree.set_parent(&addr));
                    }
                    FrameKind::PmixDmodex if pmix_on => {
                        let to_srun = to_srun.clone();
                        crate::pmix::dmodex_asked(&nspace, f.task, &f.data, move |answer| {
                            to_srun.send(FrameKind::PmixDmodexResp, ALL_TASKS, &answer)
                        });
                    }
                    FrameKind::PmixDmodexResp if pmix_on => crate::pmix::dmodex_answered(&f.data),
                    FrameKind::PmiNameResp => name_waits.answered(&f.data),
                    _ => {}
                },
                Ok(None) | Err(_) => {
                    // srun is gone: the step ends, as a cancel
                    if !ending.load(std::sync::atomic::Ordering::SeqCst) {
                        ender.cancel(libc::SIGKILL, None, false);
                    }
                    return;
                }
            }
        });
    }
    // the agent's signals
    {
        let pgids = pgids.clone();
        let mut ender = ender.clone();
        let dir = dir.to_path_buf();
        std::thread::spawn(move || loop {
            let Ok(sig) = waited.wait() else { continue };
            if sig == Signal::SIGTERM {
                if let Some((kw, first)) = spur_spool::cancel_requested(&dir) {
                    ender.kill_wait = kw;
                    ender.cancel(first, None, true);
                    continue;
                }
            }
            signal_tasks(&pgids, sig as i32);
        });
    }
    // the step's time limit
    if let Some(m) = spec.step.time_limit.filter(|&m| m != u32::MAX) {
        let ender = ender.clone();
        let secs = (m as u64 * 60).saturating_sub((now_secs() - spec.step.start_time).max(0) as u64);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(secs));
            ender.cancel(libc::SIGTERM, Some("TIME LIMIT"), true);
        });
    }
    // the job's `--signal=SIG@TIME` (srun's or sbatch's, not `B:`)
    if let Some((sig, at)) = warn_signal(&spec.job, spec.step.start_time) {
        let pgids = pgids.clone();
        let wait = (at - now_secs()).max(0) as u64;
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(wait));
            signal_tasks(&pgids, libc::SIGCONT);
            signal_tasks(&pgids, sig);
        });
    }

    // wait for every task
    let mut left = pids.len();
    while left > 0 {
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero rusage is valid; wait4 fills it in.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 writes to the two valid pointers given.
        let pid = unsafe { libc::wait4(-1, &mut status, 0, &mut ru) };
        if pid < 0 {
            if Errno::last() == Errno::EINTR {
                continue;
            }
            break;
        }
        let Some(task) = pids.remove(&pid) else { continue };
        left -= 1;
        // every byte the task wrote goes before its exit
        for h in readers.remove(&task).unwrap_or_default() {
            let _ = h.join();
        }
        // the task epilogs, before srun hears of the end
        if !common.epilogs.is_empty() {
            let env = epilog_envs.remove(&task).unwrap_or_default();
            let err = taskscript::run_epilogs(&common.epilogs, &env, &common, &format!("slurmstepd-{}: error: ", node));
            // slurmstepd's own stderr is its node's first task's
            // (recorded/24.11/srun_stepopts/09)
            let first = tasks.first().copied().unwrap_or(task);
            let sink = err_sinks.get(&first).cloned().unwrap_or(Sink::Srun);
            sink_write(&sink, &srun, FrameKind::Stderr, first, &err);
        }
        let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        let e = TaskExit { status, user_us: tv(ru.ru_utime), sys_us: tv(ru.ru_stime), max_rss_kb: ru.ru_maxrss as u64 };
        let fin = spur_core::usage::TaskUsage {
            task,
            max_rss_kb: e.max_rss_kb,
            user_us: e.user_us,
            sys_us: e.sys_us,
            pages: ru.ru_majflt as u64,
            ..Default::default()
        };
        sampler.lock().unwrap_or_else(|e| e.into_inner()).ended(pid, &fin);
        // a step killed over its memory: its line again with the first task
        // to end here, as slurmstepd's last accounting of the task repeats it
        if let Some(line) = over.line.lock().unwrap_or_else(|e| e.into_inner()).take() {
            over.tell(&srun, &line);
        }
        worst = worst.max(e.status);
        srun.send(FrameKind::Exit, task, &e.encode());
    }
    ending.store(true, std::sync::atomic::Ordering::SeqCst);
    // what the tasks left behind: the step's cgroup, or the step daemon's
    // descendants (a subreaper: with no child left there is no descendant)
    pgids.tracker.finish(no_children_left);
    let usage = sampler.lock().unwrap_or_else(|e| e.into_inner()).summary();
    let _ = spur_spool::write_step_usage(dir, &usage);
    // the PMIx server and its directories go before srun hears the end
    drop(pmix);
    srun.send(FrameKind::Done, ALL_TASKS, &[]);
    if let Some(s) = srun.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
        let _ = s.shutdown(std::net::Shutdown::Write);
        // srun closes once it has read everything
        let mut rest = [0u8; 64];
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let _ = (&s).read(&mut rest);
    }
    Ok((usage, worst))
}

/// The agent's cgroup directory for a job or step directory `dir` in its
/// spool (`spur_spool::cgroup_agent_dir`).
pub(crate) fn cgroup_dir(dir: &Path, node: &str) -> String {
    spur_spool::cgroup_agent_dir(node, dir.parent().unwrap_or(Path::new("/")))
}

/// The job's `extern` step on this node: it runs no task of its own and
/// holds the job's container (a cgroup where the node has them, which a
/// process joining the job from outside is moved into) for as long as the
/// job runs; the agent's cancel (the job ended) ends it and everything in it.
fn run_extern(dir: &Path, node: &str, job_id: u32, waited: SigSet) -> io::Result<spur_core::usage::NodeUsage> {
    let tracker = Tracker::new(&cgroup_dir(dir, node), job_id, "extern", crate::track::debug);
    loop {
        match waited.wait() {
            Ok(Signal::SIGTERM) if spur_spool::cancel_requested(dir).is_some() => break,
            Ok(Signal::SIGTERM) | Ok(Signal::SIGINT) | Ok(Signal::SIGHUP) | Ok(Signal::SIGQUIT) => break,
            _ => {}
        }
    }
    tracker.finish(no_children_left);
    Ok(Sampler::new(node, &[]).summary())
}

fn connect(addr: &str) -> io::Result<TcpStream> {
    use std::net::ToSocketAddrs;
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {}", addr));
    for a in addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, Duration::from_secs(10)) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Send a task's output where it goes as it comes (to srun, a file with or
/// without labels, or nowhere).
fn pump(fd: OwnedFd, srun: Srun, kind: FrameKind, task: u32, sink: Sink) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut f = fs::File::from(fd);
        let mut buf = vec![0u8; 64 * 1024];
        let mut partial: Vec<u8> = Vec::new();
        let write_file = |file: &Arc<Mutex<fs::File>>, data: &[u8]| {
            use std::io::Write;
            let _ = file.lock().unwrap_or_else(|e| e.into_inner()).write_all(data);
        };
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            match &sink {
                Sink::Srun => srun.send(kind, task, &buf[..n]),
                Sink::File(file, None) => write_file(file, &buf[..n]),
                Sink::File(file, Some(label)) => {
                    partial.extend_from_slice(&buf[..n]);
                    let mut out = Vec::new();
                    while let Some(i) = partial.iter().position(|&b| b == b'\n') {
                        out.extend_from_slice(label.as_bytes());
                        out.extend(partial.drain(..=i));
                    }
                    if !out.is_empty() {
                        write_file(file, &out);
                    }
                }
                Sink::Discard => {}
            }
        }
        if let Sink::File(file, Some(label)) = &sink {
            if !partial.is_empty() {
                let mut out = label.as_bytes().to_vec();
                out.extend_from_slice(&partial);
                write_file(file, &out);
            }
        }
    })
}

/// What a task's new stdout pipe takes without a reader (Linux's smallest
/// pipe is 4 KiB; the default 64 KiB).
const PIPE_ROOM: usize = 4096;

/// Write whole lines of the step daemon's own (an epilog's stderr) where a
/// task's stream goes.
fn sink_write(sink: &Sink, srun: &Srun, kind: FrameKind, task: u32, data: &[u8]) {
    if data.is_empty() {
        return;
    }
    match sink {
        Sink::Srun => srun.send(kind, task, data),
        Sink::File(file, label) => {
            use std::io::Write;
            let mut out = Vec::new();
            for line in data.split_inclusive(|&b| b == b'\n') {
                if let Some(l) = label {
                    out.extend_from_slice(l.as_bytes());
                }
                out.extend_from_slice(line);
            }
            let _ = file.lock().unwrap_or_else(|e| e.into_inner()).write_all(&out);
        }
        Sink::Discard => {}
    }
}

/// The step's tasks: their process groups, and their cgroup when they have one.
struct TaskSet {
    pgids: Vec<i32>,
    tracker: Tracker,
}

/// Send `sig` to every process of the step (its cgroup's, as Slurm's
/// proctrack/cgroup does), or to each task's process group without one.
fn signal_tasks(t: &TaskSet, sig: i32) {
    let Ok(sig) = Signal::try_from(sig) else { return };
    if t.tracker.cgroup().is_some() {
        t.tracker.signal_all(sig);
        return;
    }
    for &g in &t.pgids {
        let _ = signal::killpg(Pid::from_raw(g), sig);
    }
}

/// `--mpi=pmi2`'s fences between nodes: this node's puts to srun, and back
/// every node's once all have fenced.
struct SrunExchange {
    srun: Srun,
    tree: Arc<crate::fence::Tree>,
    rx: Mutex<std::sync::mpsc::Receiver<Vec<u8>>>,
    names: NameWaits,
}

/// The name service requests waiting for srun's answer, by number.
#[derive(Clone, Default)]
struct NameWaits(Arc<Mutex<(u64, HashMap<u64, NameWaiter>)>>);

/// Where the answer to one name service request goes.
type NameWaiter = std::sync::mpsc::Sender<Option<String>>;

impl NameWaits {
    /// srun's answer (`PmiNameResp`) to the request it names.
    fn answered(&self, data: &[u8]) {
        let r = stepio::decode_puts(data).unwrap_or_default();
        let get = |k: &str| r.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone()).unwrap_or_default();
        let Ok(id) = get("id").parse::<u64>() else { return };
        let waiter = self.0.lock().unwrap_or_else(|e| e.into_inner()).1.remove(&id);
        if let Some(w) = waiter {
            let _ = w.send((get("found") == "1").then(|| get("port")));
        }
    }
}

impl crate::pmi::Exchange for SrunExchange {
    fn fence(&self, puts: Vec<(String, String)>) -> io::Result<Vec<(String, String)>> {
        self.tree.contribute(stepio::encode_puts(&puts));
        let all = self.rx.lock().unwrap_or_else(|e| e.into_inner()).recv().map_err(|_| io::ErrorKind::BrokenPipe)?;
        stepio::decode_puts(&all).ok_or_else(|| io::ErrorKind::InvalidData.into())
    }

    fn name(&self, op: crate::pmi::NameOp, name: &str, port: &str) -> io::Result<Option<String>> {
        let (tx, rx) = std::sync::mpsc::channel();
        let id = {
            let mut g = self.names.0.lock().unwrap_or_else(|e| e.into_inner());
            g.0 += 1;
            let id = g.0;
            g.1.insert(id, tx);
            id
        };
        let req =
            [("id", id.to_string()), ("op", op.as_str().to_string()), ("name", name.into()), ("port", port.into())]
                .map(|(k, v)| (k.to_string(), v));
        self.srun.send(FrameKind::PmiName, ALL_TASKS, &stepio::encode_puts(&req));
        rx.recv().map_err(|_| io::ErrorKind::BrokenPipe.into())
    }
}

/// `OverMemoryKill` on this node: where slurmstepd's lines go (the node's
/// first task's stderr) and, once the step was killed, its line to repeat.
struct OverMemory {
    sink: Sink,
    first: u32,
    /// The job has a batch script: its owner is told in the step's stderr
    /// (`Exceeded job memory limit`), else by srun (its allocation's).
    batch_job: bool,
    prefix: String,
    line: Mutex<Option<String>>,
}

impl OverMemory {
    /// The step's line, the job owner told, and srun asked to end the step
    /// on every node (`FrameKind::Aborted` with 1), as the controller's step
    /// cancel does.
    fn tell(&self, srun: &Srun, line: &str) {
        sink_write(&self.sink, srun, FrameKind::Stderr, self.first, line.as_bytes());
        if self.batch_job {
            let notify = format!("{}Exceeded job memory limit\n", self.prefix);
            sink_write(&self.sink, srun, FrameKind::Stderr, self.first, notify.as_bytes());
        }
        srun.send(FrameKind::Aborted, ALL_TASKS, &[1]);
    }
}

/// What ending the step needs: its tasks, srun, its name and node, the
/// task whose stderr carries slurmstepd's line, KillWait.
#[derive(Clone)]
struct Ender {
    pgids: Arc<TaskSet>,
    srun: Srun,
    label: String,
    node: String,
    first_task: u32,
    kill_wait: u32,
    done: Arc<std::sync::atomic::AtomicBool>,
    /// Only the step's first node writes the cancel line (srun shows one).
    first_node: bool,
}

impl Ender {
    /// A task asked (PMI abort) that the whole step end: here now, and on
    /// every other node through srun (`Aborted` with 2), as slurmstepd
    /// kills the step through the controller.
    fn abort_step(&self, status: Option<i32>) {
        self.cancel(libc::SIGKILL, None, false);
        // (then, for PMIx, the abort's status: Slurm's srun exits with it)
        let mut data = vec![2u8];
        if let Some(s) = status {
            data.extend_from_slice(&s.to_le_bytes());
        }
        self.srun.send(FrameKind::Aborted, ALL_TASKS, &data);
    }

    /// End the step once: slurmstepd's `*** STEP J.S ON node CANCELLED AT
    /// ... ***` line (on the stderr of the node's first task, as slurmstepd
    /// writes it), `aborted`: srun is told the step was cancelled from
    /// outside; the tasks get SIGCONT and `sig`, and SIGKILL after KillWait.
    fn cancel(&self, sig: i32, why: Option<&str>, aborted: bool) {
        if self.done.swap(true, std::sync::atomic::Ordering::SeqCst) {
            // a second request: only a harder signal
            if sig == libc::SIGKILL {
                signal_tasks(&self.pgids, libc::SIGKILL);
            }
            return;
        }
        let t = spur_spool::slurm_time(now_secs());
        let line = match why {
            Some(w) => format!(
                "slurmstepd-{n}: error: *** STEP {} ON {n} CANCELLED AT {} DUE TO {} ***\n",
                self.label,
                t,
                w,
                n = self.node
            ),
            None => {
                format!("slurmstepd-{n}: error: *** STEP {} ON {n} CANCELLED AT {} ***\n", self.label, t, n = self.node)
            }
        };
        if self.first_node {
            self.srun.send(FrameKind::Stderr, self.first_task, line.as_bytes());
        }
        if aborted {
            self.srun.send(FrameKind::Aborted, ALL_TASKS, &[]);
        }
        signal_tasks(&self.pgids, libc::SIGCONT);
        signal_tasks(&self.pgids, sig);
        if sig != libc::SIGKILL {
            let pgids = self.pgids.clone();
            let kw = self.kill_wait;
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(kw as u64));
                signal_tasks(&pgids, libc::SIGKILL);
            });
        }
    }
}

fn common(spec: &StepLaunch, node: &str, conf: Option<&spur_core::config::SlurmConf>) -> io::Result<Common> {
    let switch_user = unistd::geteuid().is_root() && spec.uid != 0 || unistd::geteuid().as_raw() != spec.uid;
    let groups = if unistd::geteuid().is_root() {
        let name = cstr(&spec.user_name);
        unistd::getgrouplist(&name, Gid::from_raw(spec.gid)).unwrap_or_else(|_| vec![Gid::from_raw(spec.gid)])
    } else {
        vec![]
    };
    let umask = spec
        .io
        .env
        .iter()
        .find(|(k, _)| k == "SLURM_UMASK")
        .and_then(|(_, v)| u32::from_str_radix(v, 8).ok())
        .unwrap_or(0o022);
    let cwd = if spec.io.cwd.is_empty() { spec.job.desc.work_dir.clone() } else { spec.io.cwd.clone() };
    // the node's slurm.conf TaskProlog/TaskEpilog
    let conf_script = |k: &str| conf.and_then(|c| c.get(k)).filter(|v| !v.is_empty()).map(String::from);
    let user_script = |v: &Option<String>| v.clone().filter(|v| !v.is_empty());
    let prologs = [
        conf_script("TaskProlog").map(|p| (Origin::Conf, p)),
        user_script(&spec.io.task_prolog).map(|p| (Origin::User, p)),
    ];
    let epilogs = [
        user_script(&spec.io.task_epilog).map(|p| (Origin::User, p)),
        conf_script("TaskEpilog").map(|p| (Origin::Conf, p)),
    ];
    Ok(Common {
        id: crate::exec::Identity {
            uid: spec.uid,
            gid: spec.gid,
            groups,
            switch_user: switch_user && unistd::geteuid().is_root(),
            umask: Mode::from_bits_truncate(umask),
            rlimits: crate::supervisor::rlimits(&crate::jobenv::rlimits_in(&spec.io.env)),
            cgroup_fd: -1,
        },
        chdir_msg: format!("slurmstepd-{}: error: couldn't chdir to `{}': ", node, cwd).into_bytes(),
        cwd: cstr(&cwd),
        append: spec.io.open_mode_append,
        errno_text: (0..134).map(strerror).collect(),
        prologs: prologs.into_iter().flatten().collect(),
        epilogs: epilogs.into_iter().flatten().collect(),
        pmi_fds: HashMap::new(),
        pmix_env: HashMap::new(),
    })
}

/// The parent's ends of a task's pipes, and where each output goes.
struct Parent {
    stdin: Option<OwnedFd>,
    stdout: Option<(OwnedFd, Sink)>,
    stderr: Option<(OwnedFd, Sink)>,
}

/// Where a task's output goes: srun's stream, a file (opened once per node
/// for every task naming it, as the user), or nowhere.
#[derive(Clone)]
enum Sink {
    Srun,
    /// The file, and the task's `N: ` label when `--label` asks.
    File(Arc<Mutex<fs::File>>, Option<String>),
    Discard,
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    unistd::pipe2(OFlag::O_CLOEXEC).map_err(io::Error::from)
}

/// `--multi-prog`: the command line of task `t` (`RANKS PROG ARGS`, `%t`
/// the task id, `%o` its offset in the ranks of its line).
pub fn multi_prog_line(conf: &str, t: u32) -> Option<Vec<String>> {
    for line in conf.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let ranks = words.next()?;
        let mut offset = None;
        let mut seen = 0u32;
        for r in ranks.split(',') {
            if r == "*" {
                offset = Some(t);
                break;
            }
            let (lo, hi) = match r.split_once('-') {
                Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
                None => {
                    let v = r.parse::<u32>().ok()?;
                    (v, v)
                }
            };
            if (lo..=hi).contains(&t) {
                offset = Some(seen + (t - lo));
                break;
            }
            seen += hi.saturating_sub(lo) + 1;
        }
        if let Some(o) = offset {
            return Some(
                words.map(|w| w.replace("%t", &t.to_string()).replace("%o", &o.to_string())).collect::<Vec<_>>(),
            );
        }
    }
    None
}

/// `prog` as slurmstepd finds it on the task's `PATH` (none: not found,
/// unless it names a path).
fn resolve(prog: &str, path: Option<&str>) -> String {
    if prog.contains('/') {
        return prog.to_string();
    }
    for d in path.unwrap_or("").split(':').filter(|d| !d.is_empty()) {
        let p = PathBuf::from(d).join(prog);
        if let Ok(m) = fs::metadata(&p) {
            use std::os::unix::fs::PermissionsExt;
            if m.is_file() && m.permissions().mode() & 0o111 != 0 {
                return p.to_string_lossy().into_owned();
            }
        }
    }
    prog.to_string()
}

fn prepare(
    spec: &StepLaunch,
    node: &str,
    node_id: u32,
    tasks: &[u32],
    common: &Common,
) -> io::Result<(Vec<TaskPrep>, Vec<Parent>)> {
    let job = &spec.job;
    let step = &spec.step;
    let cwd = if spec.io.cwd.is_empty() { job.desc.work_dir.clone() } else { spec.io.cwd.clone() };
    // `%N` in a step's file names is the machine's host name (slurmstepd's)
    let host = unistd::gethostname().ok().and_then(|h| h.into_string().ok()).unwrap_or_else(|| node.to_string());
    let mut targets: Vec<Option<(Target, Target, Target)>> = Vec::with_capacity(tasks.len());
    let mut out_paths: Vec<String> = Vec::new();
    let mut in_paths: Vec<String> = Vec::new();
    let gtids = tasks.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",");
    let mut preps = Vec::with_capacity(tasks.len());
    let mut parents = Vec::with_capacity(tasks.len());
    for (local, &t) in tasks.iter().enumerate() {
        let mut env: Vec<(String, String)> = spec.io.env.clone();
        let port = spec.io.io_addr.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let step_vars = spur_core::launch::step_env(job, step, &spec.cluster_name, port);
        let mut set = |k: &str, v: String| {
            if let Some(e) = env.iter_mut().find(|(x, _)| x == k) {
                e.1 = v;
            } else {
                env.push((k.to_string(), v));
            }
        };
        for (k, v) in step_vars.iter().cloned() {
            set(&k, v);
        }
        set("SLURM_PROCID", t.to_string());
        set("SLURM_LOCALID", local.to_string());
        set("SLURM_NODEID", node_id.to_string());
        set("SLURMD_NODENAME", node.to_string());
        set("SLURM_GTIDS", gtids.clone());
        set("SLURM_TOPOLOGY_ADDR", node.to_string());
        set("SLURM_TOPOLOGY_ADDR_PATTERN", "node".to_string());
        if let Some(a) = job.allocs.iter().find(|a| a.node == node) {
            // (none without an allocation: recorded/24.11/srun_stepopts/42)
            if !spur_core::launch::NOALLOC_JOB_IDS.contains(&job.job_id) {
                set("SLURM_CPUS_ON_NODE", a.cpus.to_string());
            }
        }
        set("SLURM_TASK_PID", String::new());
        if let Some(fd) = common.pmi_fds.get(&t) {
            // mpi/pmi2's (slurmstepd's `mpi_p_slurmstepd_task`)
            set("PMI_FD", fd.to_string());
            set("PMI_JOBID", format!("{}.{}", job.job_id, step.step_id));
            set("PMI_RANK", t.to_string());
            set("PMI_SIZE", step.num_tasks.to_string());
        }
        for (k, v) in common.pmix_env.get(&t).into_iter().flatten() {
            set(k, v.clone());
        }
        // users do not see the propagated limits (slurmstepd's `_set_limit`;
        // recorded/24.11/srun_stepopts/21); the umask stays
        env.retain(|(k, _)| !k.starts_with("SLURM_RLIMIT_"));
        let epilog_env = if common.epilogs.is_empty() {
            vec![]
        } else {
            let mut e = env.clone();
            spur_core::launch::env_set(&mut e, "SLURMD_NODENAME", node);
            e
        };
        let prolog = taskscript::run_prologs(&common.prologs, &mut env, common);
        let prolog_failed = prolog.failed.map(|(lines, rc)| {
            let text: String = lines.iter().map(|l| format!("slurmstepd-{}: error: {}\n", node, l)).collect();
            (text.into_bytes(), rc)
        });
        // slurmstepd gives TMPDIR to a node's first task only, after the
        // prologs (recorded/24.11/srun_env/03)
        if local == 0 && !env.iter().any(|(k, _)| k == "TMPDIR") {
            env.push(("TMPDIR".into(), "/tmp".into()));
        }
        let argv: Vec<String> = match &spec.io.multi_prog {
            Some(conf) => multi_prog_line(conf, t).unwrap_or_default(),
            None => spec.io.argv.clone(),
        };
        let path = env.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.as_str());
        let first = argv.first().cloned().unwrap_or_default();
        let prog = resolve(&first, path);
        let exec_prefix = format!("slurmstepd-{}: error: execve(): {}: ", node, first).into_bytes();
        let pid_idx = env.iter().position(|(k, _)| k == "SLURM_TASK_PID");
        let envp_s: Vec<CString> = env.iter().map(|(k, v)| cstr(&format!("{}={}", k, v))).collect();
        let argv_s: Vec<CString> = argv.iter().map(|a| cstr(a)).collect();
        let mut par = Parent { stdin: None, stdout: None, stderr: None };
        if spec.io.pty && t == 0 {
            // task 0 on a terminal of its own: its input and output are the
            // master side's
            let pty = nix::pty::openpty(None, None).map_err(io::Error::from)?;
            let master = pty.master;
            let _ = fcntl::fcntl(master.as_raw_fd(), fcntl::FcntlArg::F_SETFD(fcntl::FdFlag::FD_CLOEXEC));
            let _ = fcntl::fcntl(pty.slave.as_raw_fd(), fcntl::FcntlArg::F_SETFD(fcntl::FdFlag::FD_CLOEXEC));
            par.stdin = Some(master.try_clone()?);
            par.stdout = Some((master, Sink::Srun));
            let slave = pty.slave;
            let mut p = TaskPrep {
                global: t,
                prog: cstr(&prog),
                argv: vec![],
                _argv_s: argv_s,
                envp: vec![],
                _envp_s: envp_s,
                task_pid: pid_idx.map(|i| (i, [0u8; 32])),
                stdin: Stream::Pty(slave.try_clone()?),
                stdout: Stream::Pty(slave.try_clone()?),
                stderr: Stream::Pty(slave),
                exec_prefix,
                print: prolog.print,
                prolog_failed,
                epilog_env,
                pmi_fd: common.pmi_fds.get(&t).copied().unwrap_or(-1),
            };
            p.envp = c_array(&p._envp_s);
            p.argv = c_array(&p._argv_s);
            preps.push(p);
            parents.push(par);
            targets.push(None);
            continue;
        }
        // where each stream goes; files are opened below, all at once
        let expand = |p: &str| iopattern::expand_step(p, job, &host, t, step.step_id, node_id, &cwd);
        let out_target = |pat: &Option<String>, only: Option<u32>| -> Target {
            if only.is_some_and(|o| o != t) {
                return Target::Discard;
            }
            match pat {
                None => Target::Srun,
                Some(p) => match expand(p) {
                    x if x == "/dev/null" => Target::Discard,
                    x => Target::Path(x),
                },
            }
        };
        let stdout = out_target(&spec.io.stdout_file, spec.io.stdout_task);
        // stderr goes where --output sends stdout unless --error says otherwise
        let stderr = match (&spec.io.stderr_file, spec.io.stderr_task) {
            (None, None) if spec.io.stdout_file.is_some() => stdout.clone(),
            _ => out_target(&spec.io.stderr_file, spec.io.stderr_task),
        };
        let stdin = match (&spec.io.stdin_file, spec.io.stdin_task) {
            (Some(p), _) => Target::Path(expand(p)),
            (None, Some(only)) if only != t => Target::Discard,
            _ => Target::Srun,
        };
        for x in [&stdout, &stderr] {
            if let Target::Path(p) = x {
                if !out_paths.contains(p) {
                    out_paths.push(p.clone());
                }
            }
        }
        if let Target::Path(p) = &stdin {
            in_paths.push(p.clone());
        }
        let mut p = TaskPrep {
            global: t,
            prog: cstr(&prog),
            argv: vec![],
            _argv_s: argv_s,
            envp: vec![],
            _envp_s: envp_s,
            task_pid: pid_idx.map(|i| (i, [0u8; 32])),
            stdin: Stream::Null,
            stdout: Stream::Null,
            stderr: Stream::Null,
            exec_prefix,
            print: prolog.print,
            prolog_failed,
            epilog_env,
            pmi_fd: common.pmi_fds.get(&t).copied().unwrap_or(-1),
        };
        // the environment's pointers stay valid: the strings do not move
        p.envp = c_array(&p._envp_s);
        p.argv = c_array(&p._argv_s);
        preps.push(p);
        parents.push(par);
        targets.push(Some((stdin, stdout, stderr)));
    }
    // the files, opened once each by a child that is the user (never by root)
    let mut all_paths = out_paths.clone();
    all_paths.extend(in_paths.iter().cloned());
    let opened = open_as_user(&all_paths, out_paths.len(), common);
    let files: HashMap<String, Arc<Mutex<fs::File>>> = out_paths
        .iter()
        .zip(opened.iter())
        .filter_map(|(p, f)| {
            f.as_ref().and_then(|f| f.try_clone().ok()).map(|f| (p.clone(), Arc::new(Mutex::new(fs::File::from(f)))))
        })
        .collect();
    let mut inputs = opened.into_iter().skip(out_paths.len());
    let width = spec.step.num_tasks.saturating_sub(1).to_string().len();
    for ((prep, par), target) in preps.iter_mut().zip(parents.iter_mut()).zip(targets) {
        let Some((stdin, stdout, stderr)) = target else { continue };
        let t = prep.global;
        let label = spec.io.label.then(|| format!("{:>w$}: ", t, w = width));
        let sink = |x: &Target| match x {
            Target::Srun => Sink::Srun,
            Target::Discard => Sink::Discard,
            // a file that could not be opened takes nothing (as Slurm's)
            Target::Path(p) => files.get(p).map(|f| Sink::File(f.clone(), label.clone())).unwrap_or(Sink::Discard),
        };
        let (r, w) = pipe()?;
        par.stdout = Some((r, sink(&stdout)));
        prep.stdout = Stream::Pipe(w);
        let (r, w) = pipe()?;
        par.stderr = Some((r, sink(&stderr)));
        prep.stderr = Stream::Pipe(w);
        prep.stdin = match stdin {
            Target::Srun => {
                let (r, w) = pipe()?;
                par.stdin = Some(w);
                Stream::Pipe(r)
            }
            Target::Discard => Stream::Null,
            Target::Path(_) => match inputs.next().flatten() {
                Some(fd) => Stream::Fd(fd),
                None => Stream::Null,
            },
        };
    }
    Ok((preps, parents))
}

/// Where a task's stream is meant to go (before files are opened).
#[derive(Clone, PartialEq)]
enum Target {
    Srun,
    Discard,
    Path(String),
}

/// Open `paths` as the job's user, in a child that takes the user's
/// identity (the first `outputs` for writing, created and truncated once,
/// the rest for reading), its descriptors handed back over a socket; `None`
/// for one that could not be opened. As everywhere here, the child only
/// makes async-signal-safe calls on data built before the fork.
fn open_as_user(paths: &[String], outputs: usize, c: &Common) -> Vec<Option<OwnedFd>> {
    if paths.is_empty() {
        return Vec::new();
    }
    let cpaths: Vec<CString> = paths.iter().map(|p| cstr(p)).collect();
    let Ok((parent_sock, child_sock)) = nix::sys::socket::socketpair(
        nix::sys::socket::AddressFamily::Unix,
        nix::sys::socket::SockType::SeqPacket,
        None,
        nix::sys::socket::SockFlag::SOCK_CLOEXEC,
    ) else {
        return paths.iter().map(|_| None).collect();
    };
    // SAFETY: the child makes only async-signal-safe calls (setgroups,
    // setgid, setuid, umask, open, sendmsg, send, _exit) on data built
    // before the fork.
    match unsafe { unistd::fork() } {
        Ok(ForkResult::Child) => {
            if !c.id.become_user() {
                // SAFETY: _exit(2) is async-signal-safe.
                unsafe { libc::_exit(1) }
            }
            for (i, path) in cpaths.iter().enumerate() {
                let flags = if i < outputs {
                    OFlag::O_CREAT
                        | OFlag::O_WRONLY
                        | OFlag::O_APPEND
                        | OFlag::O_CLOEXEC
                        | if c.append { OFlag::empty() } else { OFlag::O_TRUNC }
                } else {
                    OFlag::O_RDONLY | OFlag::O_CLOEXEC
                };
                match fcntl::open(path.as_c_str(), flags, Mode::from_bits_truncate(0o666)) {
                    Ok(fd) => crate::supervisor::send_fd(child_sock.as_raw_fd(), fd),
                    Err(_) => {
                        let b = [1u8];
                        // SAFETY: send(2) of a 1-byte buffer on our socket; async-signal-safe.
                        unsafe {
                            libc::send(child_sock.as_raw_fd(), b.as_ptr().cast(), 1, libc::MSG_NOSIGNAL);
                        }
                    }
                }
            }
            // SAFETY: _exit(2) is async-signal-safe.
            unsafe { libc::_exit(0) }
        }
        Ok(ForkResult::Parent { child }) => {
            drop(child_sock);
            let _ = nix::sys::wait::waitpid(child, None);
            paths.iter().map(|_| crate::supervisor::receive_fd(&parent_sock)).collect()
        }
        Err(_) => paths.iter().map(|_| None).collect(),
    }
}

/// Open a stream for the child: the fd to dup onto `target`.
fn child_stream(s: &Stream, write: bool) -> Result<RawFd, Errno> {
    match s {
        Stream::Pipe(fd) | Stream::Pty(fd) | Stream::Fd(fd) => Ok(fd.as_raw_fd()),
        Stream::Null => fcntl::open(
            c"/dev/null",
            if write { OFlag::O_WRONLY } else { OFlag::O_RDONLY } | OFlag::O_CLOEXEC,
            Mode::empty(),
        ),
    }
}

/// In the forked child: become the user, set up stdio, exec the task.
/// Async-signal-safe calls on data built before the fork only.
fn child_exec(p: &mut TaskPrep, c: &Common) -> i32 {
    c.id.reset();
    let pty = matches!(p.stdin, Stream::Pty(_));
    if pty {
        // a session of its own, with the terminal as its controlling one
        let _ = unistd::setsid();
    } else {
        let _ = unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
    }
    if !c.id.become_user() {
        write_stderr(b"slurmstepd: error: unable to set the user's identity\n");
        return 1;
    }
    if let Err(e) = unistd::chdir(c.cwd.as_c_str()) {
        write_stderr(&c.chdir_msg);
        write_stderr(c.errno_text(e));
        write_stderr(b": going to /tmp instead\n");
        let _ = unistd::chdir(c"/tmp");
    }
    let streams = [(&p.stdin, 0, false), (&p.stdout, 1, true), (&p.stderr, 2, true)];
    for (s, target, write) in streams {
        let fd = match child_stream(s, write) {
            Ok(fd) => fd,
            Err(e) => {
                write_stderr(b"slurmstepd: error: could not open a standard stream of the task: ");
                write_stderr(c.errno_text(e));
                write_stderr(b"\n");
                return 1;
            }
        };
        if unistd::dup2(fd, target).is_err() {
            return 1;
        }
    }
    if pty {
        // SAFETY: TIOCSCTTY on the task's own stdin (the terminal's slave
        // side), in a new session; no memory is passed.
        unsafe {
            libc::ioctl(0, libc::TIOCSCTTY, 0);
        }
    }
    if let Some((msg, rc)) = &p.prolog_failed {
        write_stderr(msg);
        return *rc;
    }
    if p.pmi_fd >= 0 {
        // SAFETY: fcntl(2) on a descriptor of this process; no memory passed.
        unsafe {
            libc::fcntl(p.pmi_fd, libc::F_SETFD, 0);
        }
    }
    let e = c.id.exec(&p.prog, &p.argv, &mut p.envp, &mut p.task_pid);
    write_stderr(&p.exec_prefix);
    write_stderr(c.errno_text(e));
    write_stderr(b"\n");
    e as i32
}

/// When and what the job's `--signal=[R:]SIG[@TIME]` sends this step's
/// tasks (slurmctld's `send_job_warn_signal`): SIGCONT and SIG, TIME
/// seconds (default 60) before the job's end, to its steps only unless `B:`
/// keeps it for the batch shell; not for a job without a time limit, nor
/// for a step started after the warning went out (slurmctld sends it once,
/// to the steps running then: it looks every 30 s, so it may come up to
/// 30 s earlier there).
fn warn_signal(job: &spur_core::model::Job, step_start: i64) -> Option<(i32, i64)> {
    let (sig, at, batch) = job_warning(job)?;
    // (a step of srun's own allocation starts a moment after its job)
    if batch || step_start > at + 2 {
        return None;
    }
    Some((sig, at))
}

/// The job's `--signal=[B:][R:]SIG[@TIME]`: the signal, when it is due (TIME
/// seconds before the job's end, as the job stood at its start), and whether
/// it is the batch shell's alone (`B:`); none for a job without a time limit.
pub(crate) fn job_warning(job: &spur_core::model::Job) -> Option<(i32, i64, bool)> {
    let names = spur_core::compat::profile().signal_names;
    let o = spur_grammar::signal::parse_signal_opts(job.desc.signal.as_deref()?, true, names).ok()?;
    if job.end_time <= 0 || job.time_limit.is_none_or(|t| t == u32::MAX) {
        return None;
    }
    Some((o.signal as i32, (job.end_time - o.time as i64).max(job.start_time), o.batch))
}

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// Write all of `data` to a pipe.
fn write_all(fd: &OwnedFd, mut data: &[u8]) -> bool {
    while !data.is_empty() {
        match unistd::write(fd, data) {
            Ok(0) => return false,
            Ok(n) => data = &data[n..],
            Err(Errno::EINTR) => {}
            Err(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The task scripts run through the real child (the test allocator ends
    /// a child that allocates): a prolog's lines, a failing one, an epilog's
    /// stderr and status, one that cannot be executed.
    #[test]
    fn task_scripts_run_and_report() {
        let dir = std::env::temp_dir().join(format!("spurstepd-taskscript-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let script = |name: &str, text: &str| {
            use std::os::unix::fs::PermissionsExt;
            let p = dir.join(name);
            fs::write(&p, text).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
            p.display().to_string()
        };
        let tp = script("tp", "#!/bin/sh\necho \"export GOT=$IN\"\necho 'print hi'\necho ignored >&2\n");
        let bad = script("bad", "#!/bin/sh\necho 'print before'\nexit 3\n");
        let te = script("te", "#!/bin/sh\necho out\necho \"err $SLURM_SCRIPT_CONTEXT\" >&2\nexit 4\n");
        let c = Common {
            id: crate::exec::Identity {
                uid: unistd::getuid().as_raw(),
                gid: unistd::getgid().as_raw(),
                groups: vec![],
                switch_user: false,
                umask: Mode::from_bits_truncate(0o022),
                rlimits: vec![],
                cgroup_fd: -1,
            },
            cwd: cstr(&dir.display().to_string()),
            chdir_msg: vec![],
            append: false,
            errno_text: vec![],
            prologs: vec![],
            epilogs: vec![],
            pmi_fds: HashMap::new(),
            pmix_env: HashMap::new(),
        };
        let mut env = vec![("IN".to_string(), "x".to_string()), ("PATH".to_string(), "/usr/bin:/bin".to_string())];
        let r = taskscript::run_prologs(&[(Origin::Conf, tp.clone()), (Origin::User, tp)], &mut env, &c);
        assert_eq!((r.print.as_slice(), r.failed), (b"hi\nhi\n".as_slice(), None));
        assert!(
            env.contains(&("GOT".into(), "x".into()))
                && env.contains(&("SLURM_SCRIPT_CONTEXT".into(), "prolog_task".into()))
        );
        let r = taskscript::run_prologs(&[(Origin::User, bad)], &mut env, &c);
        assert_eq!(
            (r.print, r.failed),
            (b"before\n".to_vec(), Some((vec!["--task-prolog failed status=3".to_string()], 3)))
        );
        let missing = dir.join("missing").display().to_string();
        let r = taskscript::run_prologs(&[(Origin::Conf, missing.clone())], &mut env, &c);
        let (lines, rc) = r.failed.unwrap();
        assert_eq!(
            (lines[0].as_str(), rc),
            (
                format!("run_command: slurm task_prolog can not be executed ({}) No such file or directory", missing)
                    .as_str(),
                1
            )
        );
        let err = taskscript::run_epilogs(&[(Origin::User, te), (Origin::Conf, missing.clone())], &env, &c, "P: ");
        assert_eq!(
            String::from_utf8_lossy(&err),
            format!("err epilog_task\nP: TaskEpilog failed status=4\nP: execve({}): No such file or directory\nP: --task-epilog failed status=127\n", missing)
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn warning_signal_before_the_end() {
        let mut j =
            spur_core::model::Job { start_time: 1000, end_time: 1060, time_limit: Some(1), ..Default::default() };
        assert_eq!(warn_signal(&j, 1000), None);
        j.desc.signal = Some("USR1@55".into());
        assert_eq!(warn_signal(&j, 1001), Some((libc::SIGUSR1, 1005)));
        j.desc.signal = Some("R:USR2".into());
        // (TIME beyond the limit: at once)
        assert_eq!(warn_signal(&j, 1000), Some((libc::SIGUSR2, 1000)));
        j.desc.signal = Some("10@30".into());
        assert_eq!(warn_signal(&j, 1040), None);
        j.desc.signal = Some("B:USR1@30".into());
        assert_eq!(warn_signal(&j, 1000), None);
        j.desc.signal = Some("USR1".into());
        j.time_limit = Some(u32::MAX);
        assert_eq!(warn_signal(&j, 1000), None);
    }

    #[test]
    fn multi_prog_lines_by_rank() {
        let conf = "# comment\n0 echo zero %t\n1-2,5 echo mid %o\n* echo rest %t\n";
        assert_eq!(multi_prog_line(conf, 0), Some(vec!["echo".into(), "zero".into(), "0".into()]));
        assert_eq!(multi_prog_line(conf, 2), Some(vec!["echo".into(), "mid".into(), "1".into()]));
        assert_eq!(multi_prog_line(conf, 5), Some(vec!["echo".into(), "mid".into(), "2".into()]));
        assert_eq!(multi_prog_line(conf, 7), Some(vec!["echo".into(), "rest".into(), "7".into()]));
        assert_eq!(multi_prog_line("0 true\n", 1), None);
    }
}
