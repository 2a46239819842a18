//! End-to-end test harness: a real Spur cluster on loopback (`spur cluster
//! up`), driven with the real commands, as root or as a normal user.
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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug").canonicalize().expect("target/debug exists: run cargo build --workspace --bins")
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
    if Command::new("id").arg(TEST_USER).stdout(Stdio::null()).stderr(Stdio::null()).status().map(|s| s.success()).unwrap_or(false) {
        return;
    }
    let _ = Command::new("groupadd").args(["-g", "1500", TEST_USER]).status();
    let _ = Command::new("useradd").args(["-u", "1500", "-g", TEST_USER, "-m", "-s", "/bin/bash", TEST_USER]).status();
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
        ensure_test_user();
        let dir = tmp_dir(tag);
        let bin = bin_dir();
        let mut args: Vec<String> = vec!["cluster".into(), "up".into(), "--dir".into(), dir.to_string_lossy().into(), "--nodes".into(), nodes.to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let o = Command::new(bin.join("spur")).args(&args).output().expect("spur cluster up");
        let stdout = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(o.status.success(), "cluster up failed: {} {}", stdout, String::from_utf8_lossy(&o.stderr));
        assert!(stdout.contains(&format!("export SLURM_CONF={}/slurm.conf", dir.display())), "{}", stdout);
        assert!(stdout.contains(&format!("export PATH={}/bin:$PATH", dir.display())), "{}", stdout);
        let work = dir.join("work");
        std::fs::create_dir_all(&work).unwrap();
        // the test user must reach and write the work dir
        let _ = Command::new("chmod").args(["755", &dir.to_string_lossy()]).status();
        let _ = Command::new("chmod").args(["1777", &work.to_string_lossy()]).status();
        Cluster { conf: dir.join("slurm.conf"), dir, work, bin }
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
        let exe = self.dir.join("bin").join(prog);
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", self.dir.join("bin").display());
        let mut c = match user {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--", "env"]);
                c.arg(format!("SLURM_CONF={}", self.conf.display()));
                c.arg(format!("PATH={}", path));
                c.arg(exe);
                c
            }
            None => {
                let mut c = Command::new(exe);
                c.env("SLURM_CONF", &self.conf).env("PATH", &path);
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

    /// Submit with `sbatch --parsable ARGS` and return the job id.
    pub fn sbatch(&self, args: &[&str]) -> u32 {
        let mut a = vec!["--parsable"];
        a.extend_from_slice(args);
        let o = self.run("sbatch", &a);
        assert_eq!(o.code, 0, "sbatch {:?}: {}", args, o.stderr);
        o.stdout.trim().split(';').next().unwrap().parse().expect("job id")
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
                panic!("job {} is {:?}, not {} after {:?}\nsqueue: {}\nctld log: {}", job, s, want, timeout, self.run("squeue", &["-t", "all"]).stdout, self.log("spurctld.log"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join("log").join(name)).unwrap_or_default()
    }

    pub fn pid(&self, daemon: &str) -> Option<i32> {
        std::fs::read_to_string(self.dir.join("run").join(format!("{}.pid", daemon))).ok()?.trim().parse().ok()
    }

    /// `kill -9` a daemon by its pid file name (e.g. "spurctld-vm", "spurd-node1").
    pub fn kill9(&self, daemon: &str) {
        let pid = self.pid(daemon).unwrap_or_else(|| panic!("no pid file for {}", daemon));
        unsafe { libc::kill(pid, libc::SIGKILL) };
        let start = Instant::now();
        while unsafe { libc::kill(pid, 0) } == 0 && start.elapsed() < Duration::from_secs(5) {
            // reap if it happens to be ours
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
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
        let o = Command::new(self.bin.join("spur"))
            .args(["cluster", "up", "--dir", &self.dir.to_string_lossy()])
            .output()
            .expect("spur cluster up");
        Out { stdout: String::from_utf8_lossy(&o.stdout).into(), stderr: String::from_utf8_lossy(&o.stderr).into(), code: o.status.code().unwrap_or(-1) }
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
        let _ = Command::new(self.bin.join("spur")).args(["cluster", "down", "--dir", &self.dir.to_string_lossy()]).output();
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
