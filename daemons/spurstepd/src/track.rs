//! Which processes are a step's, how they are all signalled and ended, and
//! what they used: the step daemon's process tracking (Slurm's proctrack
//! and jobacct_gather plugins), shared by `step.rs` and, once the batch
//! script runs as a step, by the supervisor.
//!
//! **Tracking.** Where the node allows it, each step's tasks are in a
//! cgroup (v2) of their own, `ROOT/spur/AGENT/job_J/step_S` (AGENT is the
//! node name and a hash of the agent's spool directory,
//! `spur_spool::cgroup_agent_dir`, because several agents, even of the same
//! node name in clusters side by side, may share one host; the batch script
//! is `step_batch`, the extern step `step_extern`), `ROOT` the
//! cgroup2 mount (`/sys/fs/cgroup` on a pure v2 machine, `/sys/fs/cgroup/
//! unified` on a hybrid one, whatever `/proc/self/mountinfo` names). Every
//! task joins it in its child between fork and execve (it writes `0` to the
//! `cgroup.procs` descriptor opened before the fork, still as root; the step
//! daemon moves it too, so that it is in before the daemon goes on), so
//! nothing the task starts, a daemon that leaves the task's process group
//! and session included, is outside it. Ending the step kills the whole
//! cgroup (`cgroup.kill`) and removes it, with its job's and node's
//! directories once empty. Where no cgroup2 is mounted or it is not
//! writable (not root, a read-only `/sys`), tracking falls back to what the
//! step daemon had before: each task's process group, and the step daemon
//! being a child subreaper, so what leaves the group is still its
//! descendant (found by a `/proc` walk). The fallback is logged once per
//! step as a debug line ([`debug`]: with `SPUR_STEPD_DEBUG` set), and never
//! fails the step.
//!
//! **Usage.** [`Sampler`] reads (after 250 ms, after 1 s, then every 10 s),
//! for every process of the step, its
//! `/proc/PID/stat` (CPU times of it and its waited-for children, major
//! page faults, virtual size, resident set) and `/proc/PID/io` (`rchar`,
//! `wchar`), attributes it to the task whose process group or ancestor it
//! is (one whose task cannot be found counts for the node's first task), and
//! keeps per task the largest of each measure; the final `wait4` rusage of
//! each task is merged in when it ends. The summary
//! (`spur_core::usage::NodeUsage`) is written to the step's spool directory
//! after each sample (`spur_spool::write_step_usage`), where a live query
//! reads it (`spur_spool::step_usage`).

use nix::sys::signal::Signal;
use nix::unistd::Pid;
use spur_core::usage::{NodeUsage, TaskUsage};
use std::collections::HashMap;
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A debug line to the agent's log (the step daemon's stderr), written only
/// when `SPUR_STEPD_DEBUG` is set in the agent's environment: a node without
/// usable cgroups says so once per step, which is noise otherwise.
pub fn debug(msg: &str) {
    if std::env::var_os("SPUR_STEPD_DEBUG").is_some() {
        crate::supervisor::log(msg);
    }
}

/// The cgroup2 mount point, from a `/proc/self/mountinfo` text: the one at
/// `/sys/fs/cgroup` when that is cgroup2, else the first cgroup2 mount.
pub fn cgroup2_root(mountinfo: &str) -> Option<PathBuf> {
    let mut found: Option<PathBuf> = None;
    for line in mountinfo.lines() {
        let Some((pre, post)) = line.split_once(" - ") else { continue };
        if post.split_whitespace().next() != Some("cgroup2") {
            continue;
        }
        let Some(mnt) = pre.split_whitespace().nth(4) else { continue };
        let p = PathBuf::from(mnt.replace("\\040", " "));
        if p == Path::new("/sys/fs/cgroup") {
            return Some(p);
        }
        found.get_or_insert(p);
    }
    found
}

/// The step's cgroup under `root`.
pub fn step_cgroup_path(root: &Path, node: &str, job_id: u32, step: &str) -> PathBuf {
    root.join("spur").join(node).join(format!("job_{}", job_id)).join(format!("step_{}", step))
}

/// A step's processes: its cgroup when it has one.
pub struct Tracker {
    cgroup: Option<PathBuf>,
    /// `cgroup.procs` of the step's cgroup, for the children to join.
    procs: Option<OwnedFd>,
}

impl Tracker {
    /// Track a step by process groups and descent only.
    pub fn without_cgroup() -> Tracker {
        Tracker { cgroup: None, procs: None }
    }

    /// The step's cgroup, made afresh under the machine's cgroup2 mount; on
    /// any failure the fallback (logged by `log` as a debug line).
    pub fn new(node: &str, job_id: u32, step: &str, log: impl Fn(&str)) -> Tracker {
        let root = fs::read_to_string("/proc/self/mountinfo").ok().and_then(|m| cgroup2_root(&m));
        let Some(root) = root else {
            log("debug: no cgroup2 mounted: the step is tracked by process groups");
            return Tracker::without_cgroup();
        };
        Tracker::under(&root, node, job_id, step).unwrap_or_else(|e| {
            log(&format!(
                "debug: cgroup under {} not usable ({}): the step is tracked by process groups",
                root.display(),
                e
            ));
            Tracker::without_cgroup()
        })
    }

    /// The step's cgroup under `root` (a leftover one of the same name, from a
    /// step daemon that was killed, is emptied and reused).
    pub fn under(root: &Path, node: &str, job_id: u32, step: &str) -> io::Result<Tracker> {
        let dir = step_cgroup_path(root, node, job_id, step);
        fs::create_dir_all(&dir)?;
        let procs = fs::OpenOptions::new().write(true).open(dir.join("cgroup.procs"))?;
        let t = Tracker { cgroup: Some(dir), procs: Some(procs.into()) };
        if !t.pids().is_empty() {
            t.kill_all();
        }
        Ok(t)
    }

    pub fn cgroup(&self) -> Option<&Path> {
        self.cgroup.as_deref()
    }

    /// For a task's child: the descriptor to write `0` to (joining the
    /// step's cgroup), or -1.
    pub fn join_fd(&self) -> RawFd {
        self.procs.as_ref().map(|f| f.as_raw_fd()).unwrap_or(-1)
    }

    /// In a task's forked child, still as root, before anything else runs:
    /// join the cgroup `fd` ([`Tracker::join_fd`]) names (nothing for -1).
    /// Async-signal-safe: one write(2) of a static byte.
    pub fn join_in_child(fd: RawFd) {
        if fd >= 0 {
            // SAFETY: write(2) of a 1-byte static buffer to a descriptor of ours.
            unsafe {
                libc::write(fd, b"0".as_ptr().cast(), 1);
            }
        }
    }

    /// Put a task just forked into the step's cgroup from the parent's side
    /// too (as setpgid is made on both sides): whichever runs first, the task
    /// is in it before the step daemon goes on, so a signal or kill of the
    /// step that follows at once reaches it.
    pub fn adopt(&self, pid: i32) {
        if let Some(c) = &self.cgroup {
            let _ = fs::write(c.join("cgroup.procs"), pid.to_string());
        }
    }

    /// Every process of the step: the cgroup's members, or the step daemon's
    /// descendants.
    pub fn pids(&self) -> Vec<i32> {
        match &self.cgroup {
            Some(c) => read_pids(c),
            None => spur_spool::descendants(std::process::id() as i32),
        }
    }

    /// Send `sig` to every process of the step's cgroup (each task's process
    /// group is signalled by the caller, as before); nothing without one.
    pub fn signal_all(&self, sig: Signal) {
        if self.cgroup.is_none() {
            return;
        }
        if sig == Signal::SIGKILL {
            self.kill_all();
            return;
        }
        for p in self.pids() {
            let _ = nix::sys::signal::kill(Pid::from_raw(p), sig);
        }
    }

    /// SIGKILL to the whole cgroup (`cgroup.kill`; each member by kill(2) on a
    /// kernel without it).
    pub fn kill_all(&self) {
        let Some(c) = &self.cgroup else { return };
        if fs::write(c.join("cgroup.kill"), "1").is_err() {
            for p in read_pids(c) {
                let _ = nix::sys::signal::kill(Pid::from_raw(p), Signal::SIGKILL);
            }
        }
    }

    /// The step's tasks all ended: kill what they left behind (the whole
    /// cgroup, or the step daemon's descendants), reap it, and remove the
    /// cgroup with its job's and node's directories when they are empty.
    /// `reap` collects exited children (the step daemon is a subreaper).
    pub fn finish(&self, reap: impl Fn() -> bool) {
        match &self.cgroup {
            Some(c) => {
                if !read_pids(c).is_empty() {
                    self.kill_all();
                }
                // killed processes leave the cgroup once they are reaped
                // (those that were ours) or gone (those that were not)
                let deadline = Instant::now() + Duration::from_secs(5);
                while !read_pids(c).is_empty() && Instant::now() < deadline {
                    let _ = reap();
                    std::thread::sleep(Duration::from_millis(10));
                }
                let _ = reap();
                remove_cgroup(c);
            }
            None => {
                // the process table is read only when something is left
                // (every step daemon of a 100-node step on one host
                // reading it cost more CPU than the step itself)
                if !reap() {
                    spur_spool::signal_descendants(std::process::id() as i32, Signal::SIGKILL);
                }
            }
        }
    }
}

fn read_pids(cgroup: &Path) -> Vec<i32> {
    fs::read_to_string(cgroup.join("cgroup.procs"))
        .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// Remove a step's cgroup and then its parents up to `spur/`, each only
/// when empty (another step of the job, another node's steps, keep theirs).
fn remove_cgroup(step: &Path) {
    let mut d = Some(step);
    for _ in 0..3 {
        let Some(p) = d else { return };
        if fs::remove_dir(p).is_err() {
            return;
        }
        d = p.parent();
    }
}

/// One process's measures from `/proc`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcSample {
    pub pid: i32,
    pub ppid: i32,
    pub pgid: i32,
    pub sid: i32,
    /// Clock ticks, its own and its waited-for children's.
    pub cpu_user_ticks: u64,
    pub cpu_sys_ticks: u64,
    pub majflt: u64,
    pub vsize_bytes: u64,
    pub rss_pages: u64,
    /// The CPU it last ran on (field 39).
    pub processor: u32,
}

/// The measures in a `/proc/PID/stat` text (after the command name, whose
/// parentheses may hold anything).
pub fn parse_stat(pid: i32, stat: &str) -> Option<ProcSample> {
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // f[0] is field 3 (state)
    let n = |i: usize| -> Option<u64> { f.get(i - 3)?.parse().ok() };
    let i = |i: usize| -> Option<i32> { f.get(i - 3)?.parse().ok() };
    Some(ProcSample {
        pid,
        ppid: i(4)?,
        pgid: i(5)?,
        sid: i(6)?,
        majflt: n(12)?.saturating_add(n(13)?),
        cpu_user_ticks: n(14)?.saturating_add(n(16)?),
        cpu_sys_ticks: n(15)?.saturating_add(n(17)?),
        vsize_bytes: n(23)?,
        rss_pages: n(24)?,
        processor: n(39).unwrap_or(0) as u32,
    })
}

/// `rchar` and `wchar` from a `/proc/PID/io` text.
pub fn parse_io(io: &str) -> (u64, u64) {
    let mut r = (0, 0);
    for line in io.lines() {
        if let Some(v) = line.strip_prefix("rchar:") {
            r.0 = v.trim().parse().unwrap_or(0);
        } else if let Some(v) = line.strip_prefix("wchar:") {
            r.1 = v.trim().parse().unwrap_or(0);
        }
    }
    r
}

/// Which task each process counts for: the task whose pid is its process
/// group or session, or an ancestor's; else `fallback`.
pub fn attribute(procs: &[ProcSample], tasks: &HashMap<i32, u32>, fallback: u32) -> Vec<u32> {
    let by_pid: HashMap<i32, &ProcSample> = procs.iter().map(|p| (p.pid, p)).collect();
    procs
        .iter()
        .map(|p| {
            let mut cur = Some(p);
            // bounded: a cycle in a racy snapshot cannot loop
            for _ in 0..procs.len() + 1 {
                let Some(c) = cur else { break };
                for id in [c.pid, c.pgid, c.sid] {
                    if let Some(&t) = tasks.get(&id) {
                        return t;
                    }
                }
                cur = by_pid.get(&c.ppid).copied();
            }
            fallback
        })
        .collect()
}

/// The per-task usage of one sample of `procs` (each with its `rchar`,
/// `wchar`), in clock ticks of `hz` and pages of `page_kb` KiB.
pub fn task_usage(
    procs: &[(ProcSample, (u64, u64))],
    tasks: &HashMap<i32, u32>,
    fallback: u32,
    hz: u64,
    page_kb: u64,
    freq: &dyn Fn(u32) -> u64,
) -> HashMap<u32, TaskUsage> {
    let samples: Vec<ProcSample> = procs.iter().map(|(p, _)| *p).collect();
    let owners = attribute(&samples, tasks, fallback);
    let mut out: HashMap<u32, TaskUsage> = HashMap::new();
    let us = |ticks: u64| ticks.saturating_mul(1_000_000) / hz.max(1);
    for ((p, (rd, wr)), t) in procs.iter().zip(owners) {
        let u = out.entry(t).or_insert(TaskUsage { task: t, ..Default::default() });
        u.max_rss_kb = u.max_rss_kb.saturating_add(p.rss_pages.saturating_mul(page_kb));
        u.max_vmsize_kb = u.max_vmsize_kb.saturating_add(p.vsize_bytes / 1024);
        u.pages = u.pages.saturating_add(p.majflt);
        u.user_us = u.user_us.saturating_add(us(p.cpu_user_ticks));
        u.sys_us = u.sys_us.saturating_add(us(p.cpu_sys_ticks));
        u.read_bytes = u.read_bytes.saturating_add(*rd);
        u.write_bytes = u.write_bytes.saturating_add(*wr);
        if u.cpu_freq == 0 {
            // the task's first process (its own, before what it started)
            u.cpu_freq = freq(p.processor);
        }
    }
    out
}

/// A CPU's frequency as jobacct_gather/linux reads it: the kernel's
/// `cpuinfo_cur_freq` (kHz) where it scales frequencies, else `cpu_mhz`
/// (`/proc/cpuinfo`'s first `cpu MHz`, read once).
pub fn cpu_freq(cpu: u32, cpu_mhz: u64) -> u64 {
    let f = format!("/sys/devices/system/cpu/cpu{}/cpufreq/cpuinfo_cur_freq", cpu);
    fs::read_to_string(f).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(cpu_mhz)
}

/// `/proc/cpuinfo`'s first `cpu MHz` as a whole number (0: none).
pub fn cpuinfo_mhz(text: &str) -> u64 {
    text.lines()
        .find(|l| l.starts_with("cpu MHz"))
        .and_then(|l| l.split(':').nth(1))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(|v| v as u64)
        .unwrap_or(0)
}

/// A step's usage on this node, sampled and accumulated.
pub struct Sampler {
    node: String,
    /// Task pid -> global task id, for the tasks running.
    tasks: HashMap<i32, u32>,
    /// Global task id -> its use so far, in the node's task order.
    usage: Vec<TaskUsage>,
    hz: u64,
    page_kb: u64,
    cpu_mhz: u64,
}

impl Sampler {
    /// `tasks`: the node's global task ids, in order.
    pub fn new(node: &str, tasks: &[u32]) -> Sampler {
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        // SAFETY: as above.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1024) as u64;
        Sampler {
            node: node.to_string(),
            tasks: HashMap::new(),
            usage: tasks.iter().map(|&t| TaskUsage { task: t, ..Default::default() }).collect(),
            hz,
            page_kb: page / 1024,
            cpu_mhz: cpuinfo_mhz(&fs::read_to_string("/proc/cpuinfo").unwrap_or_default()),
        }
    }

    /// Task `task` runs as process `pid`.
    pub fn started(&mut self, pid: i32, task: u32) {
        self.tasks.insert(pid, task);
    }

    /// Task `pid` ended with this rusage (from wait4).
    pub fn ended(&mut self, pid: i32, fin: &TaskUsage) {
        if let Some(t) = self.tasks.remove(&pid) {
            if let Some(u) = self.usage.iter_mut().find(|u| u.task == t) {
                u.merge_max(&TaskUsage { task: t, ..*fin });
            }
        }
    }

    /// Read every process in `pids` and fold the sample in. Returns their
    /// resident memory together, in bytes (what `OverMemoryKill` compares
    /// with the step's limit).
    pub fn sample(&mut self, pids: &[i32]) -> u64 {
        let procs: Vec<(ProcSample, (u64, u64))> = pids
            .iter()
            .filter_map(|&p| {
                let stat = fs::read_to_string(format!("/proc/{}/stat", p)).ok()?;
                let s = parse_stat(p, &stat)?;
                let io = fs::read_to_string(format!("/proc/{}/io", p)).map(|t| parse_io(&t)).unwrap_or((0, 0));
                Some((s, io))
            })
            .collect();
        let fallback = self.usage.first().map(|u| u.task).unwrap_or(0);
        let mut rss = 0u64;
        let mhz = self.cpu_mhz;
        for (t, s) in task_usage(&procs, &self.tasks, fallback, self.hz, self.page_kb, &|c| cpu_freq(c, mhz)) {
            rss = rss.saturating_add(s.max_rss_kb.saturating_mul(1024));
            if let Some(u) = self.usage.iter_mut().find(|u| u.task == t) {
                u.merge_max(&s);
            }
        }
        rss
    }

    pub fn summary(&self) -> NodeUsage {
        NodeUsage::from_tasks(&self.node, &self.usage)
    }
}

/// `JobAcctGatherParams=OverMemoryKill`'s check: the line slurmstepd
/// writes (to the step's first task's stderr, or the batch script's) when
/// the step's processes on a node hold more than its limit there, then kills
/// the step. `None` while within the limit, or without one (`limit_mb` 0).
/// `prefix`: `slurmstepd-NODE: error: `; `label`: `J.S` or `J.batch`.
pub fn over_memory_line(prefix: &str, label: &str, rss_bytes: u64, limit_mb: u64) -> Option<String> {
    let limit = limit_mb.saturating_mul(1024 * 1024);
    (limit > 0 && rss_bytes > limit).then(|| {
        format!("{}StepId={} exceeded memory limit ({} > {}), being killed\n", prefix, label, rss_bytes, limit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_memory_line_is_slurmstepds() {
        let p = "slurmstepd-node1: error: ";
        assert_eq!(over_memory_line(p, "7.0", 52_428_800, 50), None, "at the limit is within it");
        assert_eq!(
            over_memory_line(p, "7.batch", 52_428_801, 50).as_deref(),
            Some("slurmstepd-node1: error: StepId=7.batch exceeded memory limit (52428801 > 52428800), being killed\n")
        );
        assert_eq!(over_memory_line(p, "7.0", u64::MAX, 0), None, "no limit");
    }

    #[test]
    fn finds_the_cgroup2_mount() {
        let hybrid = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
                      35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
                      41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
        assert_eq!(cgroup2_root(hybrid), Some(PathBuf::from("/sys/fs/cgroup/unified")));
        let pure = "9 1 0:5 / /mnt/x rw - cgroup2 cgroup2 rw\n30 23 0:26 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
        assert_eq!(cgroup2_root(pure), Some(PathBuf::from("/sys/fs/cgroup")));
        assert_eq!(cgroup2_root("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\ngarbage\n"), None);
        assert_eq!(step_cgroup_path(Path::new("/cg"), "n1", 7, "0"), PathBuf::from("/cg/spur/n1/job_7/step_0"));
    }

    /// Where no cgroup can be made, the step falls back to its process
    /// groups: the tracker has no cgroup, lists the step daemon's
    /// descendants, and leaves signals to the process groups.
    #[test]
    fn no_cgroup_falls_back() {
        assert!(Tracker::under(Path::new("/proc/no-such-dir"), "n", 1, "0").is_err());
        let t = Tracker::without_cgroup();
        assert_eq!((t.cgroup(), t.join_fd()), (None, -1));
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        assert!(t.pids().contains(&(child.id() as i32)));
        t.adopt(child.id() as i32);
        t.signal_all(Signal::SIGTERM);
        t.kill_all();
        assert!(spur_spool::pid_alive(child.id() as i32), "signals go to the process groups, not here");
        // (finish would kill every descendant of the test process, other
        // tests' children too)
        let _ = child.kill();
        let _ = child.wait();
        assert!(!t.pids().contains(&(child.id() as i32)));
    }

    #[test]
    fn reads_stat_and_io() {
        let stat =
            "42 (a) b) (c) S 1 42 42 0 -1 4194560 500 7 3 2 150 50 10 5 20 0 1 0 100 8192000 300 18446744073709551615";
        let s = parse_stat(42, stat).unwrap();
        assert_eq!((s.ppid, s.pgid, s.sid), (1, 42, 42));
        assert_eq!((s.majflt, s.cpu_user_ticks, s.cpu_sys_ticks), (5, 160, 55));
        assert_eq!((s.vsize_bytes, s.rss_pages), (8192000, 300));
        assert_eq!(parse_stat(1, "1 (x) S 0"), None);
        assert_eq!(parse_stat(1, "no paren"), None);
        assert_eq!(parse_io("rchar: 12\nwchar: 34\nsyscr: 1\n"), (12, 34));
        assert_eq!(parse_io("junk"), (0, 0));
    }

    #[test]
    fn processes_count_for_their_task() {
        let p = |pid, ppid, pgid, sid| ProcSample { pid, ppid, pgid, sid, rss_pages: 1, ..Default::default() };
        // 10, 20: tasks 3 and 4; 11 in 10's group; 12 a daemon of 11 (own
        // session and group); 99 an orphan reparented to the step daemon (5)
        let procs = [p(10, 5, 10, 1), p(11, 10, 10, 1), p(12, 11, 12, 12), p(20, 5, 20, 1), p(99, 5, 99, 99)];
        let tasks: HashMap<i32, u32> = [(10, 3), (20, 4)].into_iter().collect();
        assert_eq!(attribute(&procs, &tasks, 3), vec![3, 3, 3, 4, 3]);
        // a cycle (a racy read) ends
        let cyc = [p(1, 2, 1, 1), p(2, 1, 2, 2)];
        assert_eq!(attribute(&cyc, &tasks, 7), vec![7, 7]);
        let with_io: Vec<_> = procs.iter().map(|p| (*p, (100, 1))).collect();
        let u = task_usage(&with_io, &tasks, 3, 100, 4, &|cpu| 2000 + u64::from(cpu));
        assert_eq!((u[&3].max_rss_kb, u[&3].read_bytes, u[&4].max_rss_kb), (16, 400, 4));
        assert_eq!((u[&3].cpu_freq, u[&4].cpu_freq), (2000, 2000), "the CPU of each task's first process");
    }

    /// jobacct_gather/linux's frequency without scaling: the first `cpu MHz`.
    #[test]
    fn cpu_frequency_from_cpuinfo() {
        assert_eq!(cpuinfo_mhz("processor\t: 0\ncpu MHz\t\t: 2596.122\ncpu MHz\t: 1.0\n"), 2596);
        assert_eq!(cpuinfo_mhz("processor : 0\n"), 0);
        let stat = "7 (a b) S 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 100 4096 10 0 0 0 0 0 0 0 0 0 0 0 0 0 17 3 0 0";
        assert_eq!(parse_stat(7, stat).map(|p| p.processor), Some(3));
    }

    #[test]
    fn sampler_merges_the_final_rusage() {
        let mut s = Sampler::new("n1", &[0, 1]);
        s.started(100, 0);
        s.started(101, 1);
        s.ended(101, &TaskUsage { max_rss_kb: 5000, user_us: 7, ..Default::default() });
        s.ended(555, &TaskUsage { max_rss_kb: 9999, ..Default::default() });
        let u = s.summary();
        assert_eq!((u.ntasks, u.max_rss_kb, u.max_rss_task, u.user_us), (2, 5000, 1, 7));
    }

    /// On a machine whose cgroup2 is writable (this one, as root): a process
    /// that joins the step's cgroup and starts a daemon in a session of its
    /// own is ended with it, and the cgroups are removed. Elsewhere the
    /// fallback is taken, which `Tracker::new` must not fail on.
    #[test]
    fn a_cgroup_holds_and_ends_everything_a_task_starts() {
        let node = format!("unit-{}", std::process::id());
        let t = Tracker::new(&node, 9, "0", |_| {});
        let Some(root) = t.cgroup().map(|c| c.ancestors().nth(4).unwrap().to_path_buf()) else {
            assert!(t.pids().iter().all(|&p| p != std::process::id() as i32));
            return;
        };
        let fd = t.join_fd();
        // the child joins as step.rs's task does, then leaves a daemon behind
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "setsid sleep 4321 & exit 0"]);
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure makes one write(2), async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                libc::write(fd, b"0".as_ptr().cast(), 1);
                Ok(())
            });
        }
        cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        let _ = cmd.status().unwrap();
        let is_sleep =
            |p: &i32| fs::read(format!("/proc/{}/cmdline", p)).is_ok_and(|c| c.starts_with(b"sleep\x004321"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !t.pids().iter().any(is_sleep) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let pids = t.pids();
        let found = pids.iter().any(is_sleep);
        if !found {
            t.finish(|| true);
        }
        assert!(found, "{:?}", pids);
        t.finish(|| true);
        assert!(!spur_spool::pid_alive(pids[0]));
        assert!(!root.join("spur").join(&node).exists());
    }
}
