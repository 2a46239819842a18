//! What a step's tasks used on one node, as slurmstepd's `jobacct_gather`
//! collects it for sstat and sacct: per task the largest resident set and
//! virtual size seen, major page faults, CPU time and bytes read and
//! written; per node the largest of each with the task that had it, the
//! sums (Slurm's averages are a sum over tasks divided by the number of
//! tasks), and the smallest CPU time with its task.
//!
//! [`TaskUsage`] is one task (the task's own process and everything it
//! started), [`NodeUsage::from_tasks`] the node's summary. The step daemon
//! keeps the summary in the step's spool directory as one text line
//! ([`NodeUsage::to_line`], `key=value` words: new keys may be added, a
//! reader ignores keys it does not know and takes 0 for missing ones), and
//! sends the same line to its agent when the step ends.

use serde::{Deserialize, Serialize};

/// One task's use, from `/proc` samples and its final `wait4` rusage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskUsage {
    /// The global task id.
    pub task: u32,
    /// KiB: the largest resident set seen (the task's processes together).
    pub max_rss_kb: u64,
    /// KiB: the largest virtual size seen.
    pub max_vmsize_kb: u64,
    /// Major page faults.
    pub pages: u64,
    /// Microseconds.
    pub user_us: u64,
    pub sys_us: u64,
    /// Bytes (`/proc/PID/io` `rchar`, `wchar`, as Slurm's jobacct_gather/linux).
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// The frequency of the CPU it last ran on, as jobacct_gather/linux reads
    /// it (`cpuinfo_cur_freq` in kHz where the kernel scales frequencies,
    /// else `/proc/cpuinfo`'s first `cpu MHz`, as a whole number); 0: not read.
    pub cpu_freq: u64,
}

impl TaskUsage {
    /// Take the larger of each measure (a later sample or the final rusage).
    pub fn merge_max(&mut self, o: &TaskUsage) {
        self.max_rss_kb = self.max_rss_kb.max(o.max_rss_kb);
        self.max_vmsize_kb = self.max_vmsize_kb.max(o.max_vmsize_kb);
        self.pages = self.pages.max(o.pages);
        self.user_us = self.user_us.max(o.user_us);
        self.sys_us = self.sys_us.max(o.sys_us);
        self.read_bytes = self.read_bytes.max(o.read_bytes);
        self.write_bytes = self.write_bytes.max(o.write_bytes);
        if o.cpu_freq != 0 {
            // the latest reading
            self.cpu_freq = o.cpu_freq;
        }
    }
    pub fn cpu_us(&self) -> u64 {
        self.user_us.saturating_add(self.sys_us)
    }
}

/// A step's use on one node. Kept in the step's record in the controller's
/// state (`Step::usage`, format version 5): change it by the rules of
/// `spur_format` (new fields at the end, each with its version).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeUsage {
    pub node: String,
    pub ntasks: u32,
    /// Microseconds, summed over the tasks.
    pub user_us: u64,
    pub sys_us: u64,
    /// The task with the least CPU time (user + system) and that time.
    pub min_cpu_us: u64,
    pub min_cpu_task: u32,
    /// KiB.
    pub max_rss_kb: u64,
    pub max_rss_task: u32,
    /// KiB: the sum over tasks of each one's largest resident set.
    pub tot_rss_kb: u64,
    pub max_vmsize_kb: u64,
    pub max_vmsize_task: u32,
    pub tot_vmsize_kb: u64,
    pub max_pages: u64,
    pub max_pages_task: u32,
    pub tot_pages: u64,
    /// Bytes.
    pub max_read_bytes: u64,
    pub max_read_task: u32,
    pub tot_read_bytes: u64,
    pub max_write_bytes: u64,
    pub max_write_task: u32,
    pub tot_write_bytes: u64,
    /// The tasks' CPU frequencies ([`TaskUsage::cpu_freq`]) summed (sacct's
    /// AveCPUFreq divides by the tasks). From format version 7.
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<7, _>")]
    pub tot_cpu_freq: u64,
}

/// The keys of [`NodeUsage::to_line`], in order.
const KEYS: [&str; 22] = [
    "ntasks",
    "user_us",
    "sys_us",
    "min_cpu_us",
    "min_cpu_task",
    "max_rss_kb",
    "max_rss_task",
    "tot_rss_kb",
    "max_vmsize_kb",
    "max_vmsize_task",
    "tot_vmsize_kb",
    "max_pages",
    "max_pages_task",
    "tot_pages",
    "max_read",
    "max_read_task",
    "tot_read",
    "max_write",
    "max_write_task",
    "tot_write",
    "tot_cpufreq",
    "node",
];

impl NodeUsage {
    /// The summary of `tasks` on `node` (ties go to the lowest task id, the
    /// first in the list).
    pub fn from_tasks(node: &str, tasks: &[TaskUsage]) -> NodeUsage {
        let mut u = NodeUsage { node: node.to_string(), ntasks: tasks.len() as u32, ..Default::default() };
        let mut first = true;
        for t in tasks {
            u.user_us = u.user_us.saturating_add(t.user_us);
            u.sys_us = u.sys_us.saturating_add(t.sys_us);
            if first || t.cpu_us() < u.min_cpu_us {
                u.min_cpu_us = t.cpu_us();
                u.min_cpu_task = t.task;
            }
            let most = |max: &mut u64, task: &mut u32, tot: &mut u64, v: u64| {
                if first || v > *max {
                    *max = v;
                    *task = t.task;
                }
                *tot = tot.saturating_add(v);
            };
            most(&mut u.max_rss_kb, &mut u.max_rss_task, &mut u.tot_rss_kb, t.max_rss_kb);
            most(&mut u.max_vmsize_kb, &mut u.max_vmsize_task, &mut u.tot_vmsize_kb, t.max_vmsize_kb);
            most(&mut u.max_pages, &mut u.max_pages_task, &mut u.tot_pages, t.pages);
            most(&mut u.max_read_bytes, &mut u.max_read_task, &mut u.tot_read_bytes, t.read_bytes);
            most(&mut u.max_write_bytes, &mut u.max_write_task, &mut u.tot_write_bytes, t.write_bytes);
            u.tot_cpu_freq = u.tot_cpu_freq.saturating_add(t.cpu_freq);
            first = false;
        }
        u
    }

    fn numbers(&self) -> [u64; 21] {
        [
            self.ntasks as u64,
            self.user_us,
            self.sys_us,
            self.min_cpu_us,
            self.min_cpu_task as u64,
            self.max_rss_kb,
            self.max_rss_task as u64,
            self.tot_rss_kb,
            self.max_vmsize_kb,
            self.max_vmsize_task as u64,
            self.tot_vmsize_kb,
            self.max_pages,
            self.max_pages_task as u64,
            self.tot_pages,
            self.max_read_bytes,
            self.max_read_task as u64,
            self.tot_read_bytes,
            self.max_write_bytes,
            self.max_write_task as u64,
            self.tot_write_bytes,
            self.tot_cpu_freq,
        ]
    }

    /// One line of `key=value` words (no newline); the node name last, as
    /// node names hold no spaces.
    pub fn to_line(&self) -> String {
        let mut s = String::new();
        for (k, v) in KEYS.iter().zip(self.numbers()) {
            s.push_str(&format!("{}={} ", k, v));
        }
        s.push_str(&format!("node={}", self.node));
        s
    }

    /// Read [`to_line`](Self::to_line)'s words; unknown keys and words
    /// without `=` are ignored, a missing or unreadable number is 0 (never
    /// an error: the line crosses from the step daemon to its agent).
    pub fn from_words<'a>(words: impl Iterator<Item = &'a str>) -> NodeUsage {
        let mut u = NodeUsage::default();
        for w in words {
            let Some((k, v)) = w.split_once('=') else { continue };
            let n = || v.parse::<u64>().unwrap_or(0);
            let t = || v.parse::<u32>().unwrap_or(0);
            match k {
                "node" => u.node = v.to_string(),
                "ntasks" => u.ntasks = t(),
                "user_us" => u.user_us = n(),
                "sys_us" => u.sys_us = n(),
                "min_cpu_us" => u.min_cpu_us = n(),
                "min_cpu_task" => u.min_cpu_task = t(),
                "max_rss_kb" => u.max_rss_kb = n(),
                "max_rss_task" => u.max_rss_task = t(),
                "tot_rss_kb" => u.tot_rss_kb = n(),
                "max_vmsize_kb" => u.max_vmsize_kb = n(),
                "max_vmsize_task" => u.max_vmsize_task = t(),
                "tot_vmsize_kb" => u.tot_vmsize_kb = n(),
                "max_pages" => u.max_pages = n(),
                "max_pages_task" => u.max_pages_task = t(),
                "tot_pages" => u.tot_pages = n(),
                "max_read" => u.max_read_bytes = n(),
                "max_read_task" => u.max_read_task = t(),
                "tot_read" => u.tot_read_bytes = n(),
                "max_write" => u.max_write_bytes = n(),
                "max_write_task" => u.max_write_task = t(),
                "tot_write" => u.tot_write_bytes = n(),
                "tot_cpufreq" => u.tot_cpu_freq = n(),
                _ => {}
            }
        }
        u
    }

    /// KiB: Slurm's AveRSS (the tasks' largest resident sets, averaged).
    pub fn ave_rss_kb(&self) -> u64 {
        self.tot_rss_kb.checked_div(self.ntasks as u64).unwrap_or(0)
    }
    pub fn ave_vmsize_kb(&self) -> u64 {
        self.tot_vmsize_kb.checked_div(self.ntasks as u64).unwrap_or(0)
    }
    pub fn ave_pages(&self) -> u64 {
        self.tot_pages.checked_div(self.ntasks as u64).unwrap_or(0)
    }
    /// Microseconds: Slurm's AveCPU.
    pub fn ave_cpu_us(&self) -> u64 {
        self.user_us.saturating_add(self.sys_us).checked_div(self.ntasks as u64).unwrap_or(0)
    }
    pub fn total_cpu_us(&self) -> u64 {
        self.user_us.saturating_add(self.sys_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(task: u32, rss: u64, cpu: u64) -> TaskUsage {
        TaskUsage { task, max_rss_kb: rss, max_vmsize_kb: rss * 2, user_us: cpu, sys_us: 1, ..Default::default() }
    }

    #[test]
    fn summary_takes_maxima_with_their_task_and_sums() {
        let u = NodeUsage::from_tasks("n1", &[t(4, 100, 50), t(5, 300, 10), t(6, 300, 70)]);
        assert_eq!((u.ntasks, u.max_rss_kb, u.max_rss_task, u.tot_rss_kb), (3, 300, 5, 700));
        assert_eq!(u.ave_rss_kb(), 233);
        assert_eq!((u.max_vmsize_kb, u.max_vmsize_task), (600, 5));
        assert_eq!((u.min_cpu_us, u.min_cpu_task), (11, 5));
        assert_eq!((u.user_us, u.sys_us, u.total_cpu_us(), u.ave_cpu_us()), (130, 3, 133, 44));
        assert_eq!(NodeUsage::from_tasks("n", &[]).ave_rss_kb(), 0);
    }

    #[test]
    fn line_round_trips_and_tolerates_garbage() {
        let u = NodeUsage::from_tasks("node-7", &[t(0, 1 << 40, 3), t(1, 2, u64::MAX)]);
        let line = u.to_line();
        assert_eq!(NodeUsage::from_words(line.split_whitespace()), u);
        let odd = NodeUsage::from_words("max_rss_kb=x junk =5 future=1 ntasks=99999999999 node=a".split_whitespace());
        assert_eq!(odd, NodeUsage { node: "a".into(), ..Default::default() });
    }

    #[test]
    fn merge_keeps_the_larger() {
        let mut a = t(0, 10, 5);
        a.merge_max(&TaskUsage { max_rss_kb: 20, user_us: 1, ..Default::default() });
        assert_eq!((a.max_rss_kb, a.user_us, a.task), (20, 5, 0));
    }
}
