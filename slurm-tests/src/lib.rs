//! End-to-end test harness: a real Spur cluster on loopback (`spur cluster
//! up`), driven with the real commands, as root or as a normal user. The
//! tests need root and the user `spurtest` (created when missing): without
//! them they fail, saying so.
//!
//! The binaries come from `$SPUR_BIN_DIR`, else the workspace's
//! `target/debug` (build them first: `cargo build --workspace --bins`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The unprivileged user jobs are run as in tests (scripts/setup.sh creates it).
pub const TEST_USER: &str = "spurtest";

pub fn bin_dir() -> PathBuf {
    if let Ok(d) = std::env::var("SPUR_BIN_DIR") {
        return PathBuf::from(d);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/debug")
        .canonicalize()
        .expect("target/debug exists: run cargo build --workspace --bins")
}

#[derive(Debug, Clone)]
pub struct Out {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Out {
    pub fn ok(&self) -> &Self {
        assert_eq!(self.code, 0, "command failed: stdout={:?} stderr={:?}", self.stdout, self.stderr);
        self
    }
}

/// Make sure the test user exists (we run as root in CI).
pub fn ensure_test_user() {
    if Command::new("id")
        .arg(TEST_USER)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
    {
        return;
    }
    let _ = Command::new("groupadd").args(["-g", "1500", TEST_USER]).status();
    let _ = Command::new("useradd").args(["-u", "1500", "-g", TEST_USER, "-m", "-s", "/bin/bash", TEST_USER]).status();
    let made = Command::new("id")
        .arg(TEST_USER)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(made, "the end-to-end tests need the user {} (uid 1500), which could not be created", TEST_USER);
}

/// The test user runs the build's commands: every directory above them must
/// let others through (a clone under `mktemp -d`, mode 0700, does not).
fn check_user_reaches(bin: &Path) {
    let spur = bin.join("spur");
    let ok = Command::new("runuser")
        .args(["-u", TEST_USER, "--", "test", "-x"])
        .arg(&spur)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(
        ok,
        "the test user {} cannot run {}: a directory above it does not let others through \
         (a clone under `mktemp -d` is 0700: chmod o+x it, or clone elsewhere)",
        TEST_USER,
        spur.display()
    );
}

/// Wait until `cond` holds, polling every 10 ms; fail the test naming `what`
/// after `timeout`.
/// The value of `Key=` in a `scontrol show` text (the first one).
pub fn field(text: &str, key: &str) -> String {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{}=", key)))
        .unwrap_or_else(|| panic!("no {} in {}", key, text))
        .to_string()
}

pub fn wait_for(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        if start.elapsed() > timeout {
            panic!("{} did not happen within {:?}", what, timeout);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A process's state letter from /proc (`R`, `S`, `T` stopped, `Z`, ...).
pub fn proc_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid)).ok()?;
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// The processes (other than this one) whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<i32> {
    let me = std::process::id() as i32;
    let mut out = vec![];
    let Ok(rd) = std::fs::read_dir("/proc") else { return out };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        if pid == me {
            continue;
        }
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            if c.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                out.push(pid);
            }
        }
    }
    out
}

pub fn uid_of(user: &str) -> u32 {
    let o = Command::new("id").args(["-u", user]).output().expect("id");
    String::from_utf8_lossy(&o.stdout).trim().parse().expect("uid")
}

pub struct Cluster {
    pub dir: PathBuf,
    pub conf: PathBuf,
    /// Where jobs run and write their output (world-writable).
    pub work: PathBuf,
    bin: PathBuf,
    /// Environment for the daemons `spur cluster up` starts.
    env: Vec<(String, String)>,
}

fn tmp_dir(tag: &str) -> PathBuf {
    let base = std::env::temp_dir();
    for i in 0..1000u32 {
        let d = base.join(format!("spur-test-{}-{}-{}", tag, std::process::id(), i));
        if std::fs::create_dir(&d).is_ok() {
            return d;
        }
    }
    panic!("no temp dir");
}

impl Cluster {
    /// A cluster of `nodes` nodes with `spur cluster up` plus extra flags.
    pub fn up(tag: &str, nodes: u32, extra: &[&str]) -> Cluster {
        Cluster::up_env(tag, nodes, extra, &[])
    }

    /// The same, with extra environment for the daemons (e.g. Raft settings).
    pub fn up_env(tag: &str, nodes: u32, extra: &[&str], env: &[(&str, &str)]) -> Cluster {
        Cluster::up_with(&bin_dir(), tag, nodes, extra, env)
    }

    /// The same with the binaries of `bin` (another build: tests/upgrade.rs):
    /// its `spur` starts the cluster and is the command the cluster's bin/ links to.
    pub fn up_with(bin: &Path, tag: &str, nodes: u32, extra: &[&str], env: &[(&str, &str)]) -> Cluster {
        assert!(
            nix::unistd::geteuid().is_root(),
            "the end-to-end tests need root: the agents run jobs as their owners, among them the user {}",
            TEST_USER
        );
        ensure_test_user();
        check_user_reaches(bin);
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let dir = tmp_dir(tag);
        let bin = bin.to_path_buf();
        let mut args: Vec<String> = vec![
            "cluster".into(),
            "up".into(),
            "--dir".into(),
            dir.to_string_lossy().into(),
            "--nodes".into(),
            nodes.to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let o = Command::new(bin.join("spur"))
            .args(&args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("spur cluster up");
        let stdout = String::from_utf8_lossy(&o.stdout).to_string();
        if !o.status.success() {
            // stop whatever did start before failing the test
            let _ = Command::new(bin.join("spur")).args(["cluster", "down", "--dir", &dir.to_string_lossy()]).output();
            panic!("cluster up failed: {} {}", stdout, String::from_utf8_lossy(&o.stderr));
        }
        assert!(stdout.contains(&format!("export SLURM_CONF={}/slurm.conf", dir.display())), "{}", stdout);
        assert!(stdout.contains(&format!("export PATH={}/bin:$PATH", dir.display())), "{}", stdout);
        let work = dir.join("work");
        std::fs::create_dir_all(&work).unwrap();
        // the test user must reach and write the work dir
        let _ = Command::new("chmod").args(["755", &dir.to_string_lossy()]).status();
        let _ = Command::new("chmod").args(["1777", &work.to_string_lossy()]).status();
        Cluster { conf: dir.join("slurm.conf"), dir, work, bin, env }
    }

    /// Run a command (sbatch, squeue, ..., or `spur ...`) as root in the work dir.
    pub fn run(&self, prog: &str, args: &[&str]) -> Out {
        self.run_full(None, prog, args, None)
    }

    /// Run as another user (through runuser), in the work dir.
    pub fn run_as(&self, user: &str, prog: &str, args: &[&str]) -> Out {
        self.run_full(Some(user), prog, args, None)
    }

    pub fn run_stdin(&self, prog: &str, args: &[&str], stdin: &str) -> Out {
        self.run_full(None, prog, args, Some(stdin))
    }

    pub fn run_full(&self, user: Option<&str>, prog: &str, args: &[&str], stdin: Option<&str>) -> Out {
        self.run_env(user, &[], prog, args, stdin)
    }

    /// The same with variables added to the command's environment.
    pub fn run_env(
        &self,
        user: Option<&str>,
        env: &[(&str, &str)],
        prog: &str,
        args: &[&str],
        stdin: Option<&str>,
    ) -> Out {
        let exe = self.dir.join("bin").join(prog);
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", self.dir.join("bin").display());
        let mut c = match user {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--", "env"]);
                c.arg(format!("SLURM_CONF={}", self.conf.display()));
                c.arg(format!("PATH={}", path));
                // as the user's login would: the test process's own SHELL
                // (absent under CI) must not decide what salloc runs
                c.arg("SHELL=/bin/bash");
                c.args(env.iter().map(|(k, v)| format!("{}={}", k, v)));
                c.arg(exe);
                c
            }
            None => {
                let mut c = Command::new(exe);
                c.env("SLURM_CONF", &self.conf).env("PATH", &path);
                c.envs(env.iter().copied());
                c
            }
        };
        c.args(args).current_dir(&self.work);
        c.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn command");
        if let Some(s) = stdin {
            use std::io::Write;
            let mut i = child.stdin.take().unwrap();
            i.write_all(s.as_bytes()).unwrap();
        }
        let o = child.wait_with_output().expect("wait");
        Out {
            stdout: String::from_utf8_lossy(&o.stdout).to_string(),
            stderr: String::from_utf8_lossy(&o.stderr).to_string(),
            code: o.status.code().unwrap_or(128 + o.status.signal_num()),
        }
    }

    /// Run a command under a pseudo-terminal as `user`, driven by `steps`
    /// (JSON: `["send", TEXT]`, `["expect", TEXT, SECONDS]`, `["sleep", S]`;
    /// scripts/pty_drive.py): the terminal's output, ending with `EXIT N`.
    pub fn pty(&self, user: &str, steps: &str, prog: &str, args: &[&str]) -> String {
        let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pty_drive.py");
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", self.dir.join("bin").display());
        let o = Command::new("python3")
            .arg(driver)
            .arg(steps)
            .args(["--", "runuser", "-u", user, "--", "env"])
            .arg(format!("SLURM_CONF={}", self.conf.display()))
            .arg(format!("PATH={}", path))
            .args(["SHELL=/bin/bash", "TERM=dumb", "PS1=$ "])
            .arg(self.dir.join("bin").join(prog))
            .args(args)
            .current_dir(&self.work)
            .output()
            .expect("python3 pty driver");
        String::from_utf8_lossy(&o.stdout).to_string()
    }

    /// Submit with `sbatch --parsable ARGS` and return the job id.
    pub fn sbatch(&self, args: &[&str]) -> u32 {
        let mut a = vec!["--parsable"];
        a.extend_from_slice(args);
        let o = self.run("sbatch", &a);
        assert_eq!(o.code, 0, "sbatch {:?}: {}", args, o.stderr);
        o.stdout.trim().split(';').next().unwrap().parse().expect("job id")
    }

    /// The same as `user` (the unprivileged test user, say); the id as printed.
    pub fn sbatch_as(&self, user: &str, args: &[&str]) -> String {
        let mut a = vec!["--parsable"];
        a.extend_from_slice(args);
        let o = self.run_as(user, "sbatch", &a);
        assert_eq!(o.code, 0, "sbatch {:?} as {}: {}", args, user, o.stderr);
        o.stdout.trim().to_string()
    }

    /// Every job the controller holds with its state (`squeue -h -t all -o "%i %T"`).
    pub fn all_jobs(&self) -> Vec<(u32, String)> {
        let o = self.run("squeue", &["-h", "-t", "all", "-o", "%i %T"]);
        assert_eq!(o.code, 0, "squeue: {}", o.stderr);
        o.stdout
            .lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                Some((it.next()?.parse().ok()?, it.next()?.to_string()))
            })
            .collect()
    }

    /// A job's state as `squeue -h -t all -o %T` reports it ("" when unknown).
    pub fn state(&self, job: &str) -> String {
        let o = self.run("squeue", &["-h", "-t", "all", "-j", job, "-o", "%T"]);
        o.stdout.lines().next().unwrap_or("").trim().to_string()
    }

    /// Wait until the job reaches `want` (or any state in `want` separated by |).
    pub fn wait_state(&self, job: &str, want: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let s = self.state(job);
            if want.split('|').any(|w| w == s) {
                return s;
            }
            if start.elapsed() > timeout {
                panic!(
                    "job {} is {:?}, not {} after {:?}\nsqueue: {}\nctld log: {}",
                    job,
                    s,
                    want,
                    timeout,
                    self.run("squeue", &["-t", "all"]).stdout,
                    self.ctld_log()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A daemon's log (`log/NAME`, e.g. "spurd-node1.log"); a log that is
    /// not there fails the test (a check of a missing log proves nothing).
    pub fn log(&self, name: &str) -> String {
        let p = self.dir.join("log").join(name);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e))
    }

    /// The directory under `CGROUP2_ROOT/spur/` of `node`'s agent's cgroups
    /// (`spur_spool::cgroup_agent_dir` of its spool directory).
    pub fn cgroup_dir(&self, node: &str) -> String {
        let conf = spur_core::config::load(&self.conf).expect("the cluster's slurm.conf");
        spur_spool::cgroup_agent_dir(node, Path::new(&conf.spool_dir_for(node)))
    }

    /// The (first) controller's log (SlurmctldLogFile or its -L), after
    /// what it wrote on stderr (its fatal errors).
    pub fn ctld_log(&self) -> String {
        let name = self.ctld_name();
        self.log(&format!("{}.out", name)) + &self.log(&format!("{}.log", name))
    }

    pub fn pid(&self, daemon: &str) -> Option<i32> {
        std::fs::read_to_string(self.dir.join("run").join(format!("{}.pid", daemon))).ok()?.trim().parse().ok()
    }

    /// `kill -9` a daemon by its pid file name (e.g. "spurctld-vm", "spurd-node1").
    pub fn kill9(&self, daemon: &str) {
        use nix::sys::signal::{kill, Signal};
        let pid = nix::unistd::Pid::from_raw(self.pid(daemon).unwrap_or_else(|| panic!("no pid file for {}", daemon)));
        let _ = kill(pid, Signal::SIGKILL);
        let start = Instant::now();
        while kill(pid, None).is_ok() && start.elapsed() < Duration::from_secs(5) {
            // reap if it happens to be ours
            let _ = nix::sys::wait::waitpid(pid, Some(nix::sys::wait::WaitPidFlag::WNOHANG));
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The pid-file name of the (single) controller.
    pub fn ctld_name(&self) -> String {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.join("run"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.starts_with("spurctld-") && n.ends_with(".pid"))
            .map(|n| n.trim_end_matches(".pid").to_string())
            .collect();
        names.sort();
        names.into_iter().next().expect("a controller pid file")
    }

    /// `spur cluster up` again on the same directory: starts what is not running.
    pub fn restart_missing(&self) -> Out {
        self.restart_with(&[])
    }

    /// The same with more of `spur cluster up`'s flags (`--no-key`).
    pub fn restart_with(&self, extra: &[&str]) -> Out {
        let o = Command::new(self.bin.join("spur"))
            .args(["cluster", "up", "--dir", &self.dir.to_string_lossy()])
            .args(extra)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("spur cluster up");
        Out {
            stdout: String::from_utf8_lossy(&o.stdout).into(),
            stderr: String::from_utf8_lossy(&o.stderr).into(),
            code: o.status.code().unwrap_or(-1),
        }
    }

    /// `spur cluster down` on this cluster.
    pub fn down(&self) -> Out {
        let o = Command::new(self.bin.join("spur"))
            .args(["cluster", "down", "--dir", &self.dir.to_string_lossy()])
            .output()
            .expect("spur cluster down");
        Out {
            stdout: String::from_utf8_lossy(&o.stdout).into(),
            stderr: String::from_utf8_lossy(&o.stderr).into(),
            code: o.status.code().unwrap_or(-1),
        }
    }

    /// The job's spool directory on the node running it (`spur_spool`'s
    /// layout under DIR/spool/slurmd.NODE), while it exists.
    pub fn job_dir(&self, id: u32) -> Option<PathBuf> {
        let rd = std::fs::read_dir(self.dir.join("spool")).ok()?;
        rd.flatten().map(|e| spur_spool::job_dir(&e.path(), id)).find(|d| d.is_dir())
    }

    /// The job's script has ended on its node (its supervisor wrote
    /// `status`), reported to the controller or not.
    pub fn run_ended(&self, id: u32) -> bool {
        self.job_dir(id).map(|d| spur_spool::has_status(&d)).unwrap_or(false)
    }

    /// The job's processes on its node, as its agent would signal them.
    pub fn job_processes(&self, id: u32) -> Vec<i32> {
        self.job_dir(id).map(|d| spur_spool::job_processes(&d).1).unwrap_or_default()
    }

    pub fn read_work(&self, name: &str) -> String {
        std::fs::read_to_string(self.work.join(name)).unwrap_or_else(|e| panic!("{}: {}", name, e))
    }

    /// Wait for a file in the work dir to exist and contain `needle`.
    pub fn wait_file(&self, name: &str, needle: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            if let Ok(s) = std::fs::read_to_string(self.work.join(name)) {
                if s.contains(needle) {
                    return s;
                }
            }
            if start.elapsed() > timeout {
                panic!("{} never contained {:?}", name, needle);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(self.bin.join("spur"))
            .args(["cluster", "down", "--dir", &self.dir.to_string_lossy()])
            .output();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

trait SignalNum {
    fn signal_num(&self) -> i32;
}
impl SignalNum for std::process::ExitStatus {
    fn signal_num(&self) -> i32 {
        use std::os::unix::process::ExitStatusExt;
        self.signal().unwrap_or(0)
    }
}

// ------------------------------------------------------------------ several controllers

impl Cluster {
    /// The name (`ctldN`) of the controller `scontrol ping` shows as primary,
    /// the Raft leader; waits up to `timeout` for one.
    pub fn leader(&self, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let o = self.run("scontrol", &["ping"]);
            if let Some(l) = o.stdout.lines().find(|l| l.starts_with("Slurmctld(primary) at ") && l.ends_with(" is UP"))
            {
                return l.trim_start_matches("Slurmctld(primary) at ").trim_end_matches(" is UP").to_string();
            }
            if start.elapsed() > timeout {
                panic!("no leader after {:?}: {}", timeout, o.stdout);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Start controller `ctld<i>` by hand (as `spur cluster up` does), optionally
    /// listening on another address than its SlurmctldHost line, or (`join`)
    /// waiting to be added to the running cluster.
    pub fn start_ctld(&self, i: u32, listen: Option<&str>, join: bool) {
        let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.start_ctld_with(&self.bin, i, listen, join, &env);
    }

    /// `start_ctld` with the `spurctld` of `bin` and only the environment `env`
    /// (not the cluster's): a controller of another build, or other settings.
    pub fn start_ctld_with(&self, bin: &Path, i: u32, listen: Option<&str>, join: bool, env: &[(&str, &str)]) {
        use std::os::unix::process::CommandExt;
        let name = format!("ctld{}", i);
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("log").join(format!("spurctld-{}.out", name)))
            .unwrap();
        let mut c = Command::new(bin.join("spurctld"));
        c.args(["-D", "-f", &self.conf.to_string_lossy(), "--id", &i.to_string()]);
        c.args(["--state-dir", &self.dir.join("state").join(&name).to_string_lossy()]);
        c.args(["-L", &self.dir.join("log").join(format!("spurctld-{}.log", name)).to_string_lossy()]);
        if let Some(l) = listen {
            c.args(["--listen", l]);
        }
        if join {
            c.arg("--join");
        }
        c.envs(env.iter().copied());
        c.env("SLURM_CONF", &self.conf).stdin(Stdio::null()).stdout(log.try_clone().unwrap()).stderr(log);
        // SAFETY: the closure runs in the child between fork and exec, where
        // only async-signal-safe calls are allowed: setsid(2) is one, and
        // nothing is allocated.
        unsafe {
            c.pre_exec(|| {
                let _ = nix::unistd::setsid();
                Ok(())
            });
        }
        let child = c.spawn().expect("spawn spurctld");
        std::fs::write(self.dir.join("run").join(format!("spurctld-{}.pid", name)), format!("{}\n", child.id()))
            .unwrap();
        std::mem::forget(child);
    }

    /// The last log index controller `name` (`ctldN`) has stored as
    /// committed: its `raft.committed` (spur-state's `[crc32][envelope of
    /// Option<LogId>]`, spur_format), when there is a whole one.
    pub fn committed_index(&self, name: &str) -> Option<u64> {
        let b = std::fs::read(self.dir.join("state").join(name).join("raft.committed")).ok()?;
        if b.len() < 4 || crc32fast::hash(&b[4..]).to_le_bytes() != b[..4] {
            return None;
        }
        let (id, _): (Option<openraft::LogId<u64>>, _) =
            spur_format::decode(spur_format::Kind::RAFT_COMMITTED, &b[4..], &"raft.committed").ok()?;
        id.map(|l| l.index)
    }

    /// SlurmctldPort of this cluster.
    pub fn ctld_port(&self) -> u16 {
        let conf = std::fs::read_to_string(&self.conf).unwrap();
        conf.lines()
            .find_map(|l| l.strip_prefix("SlurmctldPort="))
            .and_then(|p| p.trim().parse().ok())
            .expect("SlurmctldPort")
    }
}

/// TCP proxies in front of controllers, to cut one of them off from the others
/// and from clients: controller i is reached at `127.0.0.i:port` (its
/// SlurmctldHost address) through a proxy to `127.0.1.i:port`, where it really
/// listens and from where its own outgoing Raft connections come.
pub struct Proxies {
    cut: std::sync::Arc<std::sync::Mutex<Option<u32>>>,
    conns: std::sync::Arc<std::sync::Mutex<Vec<(u32, std::net::IpAddr, std::net::TcpStream)>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Proxies {
    pub fn start(n: u32, port: u16) -> Proxies {
        use std::net::{TcpListener, TcpStream};
        use std::sync::atomic::Ordering;
        let p = Proxies { cut: Default::default(), conns: Default::default(), stop: Default::default() };
        for i in 1..=n {
            let l = TcpListener::bind(("127.0.0.".to_string() + &i.to_string(), port)).expect("proxy bind");
            l.set_nonblocking(true).unwrap();
            let (cut, conns, stop) = (p.cut.clone(), p.conns.clone(), p.stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let (a, peer) = match l.accept() {
                        Ok(x) => x,
                        Err(_) => {
                            std::thread::sleep(Duration::from_millis(5));
                            continue;
                        }
                    };
                    let _ = a.set_nonblocking(false);
                    let from = peer.ip();
                    if Self::blocked(*cut.lock().unwrap(), i, from) {
                        continue; // dropped: the caller sees the connection close
                    }
                    let b = match TcpStream::connect(("127.0.1.".to_string() + &i.to_string(), port)) {
                        Ok(b) => b,
                        Err(_) => continue,
                    };
                    let _ = a.set_nodelay(true);
                    let _ = b.set_nodelay(true);
                    conns.lock().unwrap().push((i, from, a.try_clone().unwrap()));
                    conns.lock().unwrap().push((i, from, b.try_clone().unwrap()));
                    for (mut x, mut y) in [(a.try_clone().unwrap(), b.try_clone().unwrap()), (b, a)] {
                        std::thread::spawn(move || {
                            let _ = std::io::copy(&mut x, &mut y);
                            let _ = y.shutdown(std::net::Shutdown::Both);
                            let _ = x.shutdown(std::net::Shutdown::Both);
                        });
                    }
                }
            });
        }
        p
    }

    fn blocked(cut: Option<u32>, target: u32, from: std::net::IpAddr) -> bool {
        match cut {
            None => false,
            Some(k) => target == k || from == std::net::IpAddr::from([127, 0, 1, k as u8]),
        }
    }

    /// Cut controller k off (both ways), closing its open connections.
    pub fn partition(&self, k: u32) {
        *self.cut.lock().unwrap() = Some(k);
        let mut cs = self.conns.lock().unwrap();
        cs.retain(|(i, from, s)| {
            if Self::blocked(Some(k), *i, *from) {
                let _ = s.shutdown(std::net::Shutdown::Both);
                false
            } else {
                true
            }
        });
    }

    pub fn heal(&self) {
        *self.cut.lock().unwrap() = None;
    }
}

impl Drop for Proxies {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        for (_, _, s) in self.conns.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// Where this machine's cgroup2 is mounted, when the test (root) can make
/// cgroups there: then every step's tasks are in one of their own.
pub fn cgroup2_writable() -> Option<std::path::PathBuf> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut roots: Vec<std::path::PathBuf> = info
        .lines()
        .filter_map(|l| {
            let (pre, post) = l.split_once(" - ")?;
            (post.split_whitespace().next() == Some("cgroup2"))
                .then(|| pre.split_whitespace().nth(4).map(Into::into))?
        })
        .collect();
    roots.sort_by_key(|r: &std::path::PathBuf| r != std::path::Path::new("/sys/fs/cgroup"));
    let root = roots.into_iter().next()?;
    let probe = root.join(format!("spur-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).ok()?;
    let _ = std::fs::remove_dir(&probe);
    Some(root)
}

/// A gRPC request of `msg` carrying the credential `tok` (what a program
/// that captured or forged one would send).
pub fn with_cred<M>(msg: M, tok: &str) -> tonic::Request<M> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut().insert(spur_auth::grpc::HEADER, tok.parse().unwrap());
    r
}

/// The answer is a refusal as unauthenticated, saying `why`.
pub fn refused<T: std::fmt::Debug>(r: Result<T, tonic::Status>, why: &str) {
    match r {
        Err(st) => {
            assert_eq!(st.code(), tonic::Code::Unauthenticated, "{:?}", st);
            assert!(st.message().contains(why), "expected {:?}, got {:?}", why, st.message());
        }
        Ok(x) => panic!("accepted, expected {:?}: {:?}", why, x),
    }
}
