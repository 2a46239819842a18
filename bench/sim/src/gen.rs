//! A generated trace (`--generate N --seed S`), reproducible from its seed.
//!
//! The random numbers come from a 64-bit linear congruential generator
//! (Knuth's MMIX constants):
//!
//! ```text
//! x[0]   = S
//! x[k+1] = (6364136223846793005 * x[k] + 1442695040888963407) mod 2^64
//! u[k]   = (x[k+1] >> 11) / 2^53           (uniform in [0, 1))
//! ```
//!
//! Each job draws, in this order:
//!
//! - its width: 50% narrow, 1 to `cpus_per_node` processors (uniform);
//!   35% medium, up to an eighth of the cluster; 15% wide, an eighth to a
//!   half of the cluster (uniform in each range);
//! - its run time: 65% short, 30 s to 1 h; 35% long, 1 h to 12 h
//!   (log-uniform in each range: `lo * (hi / lo)^u`);
//! - its requested time: the run time times 1 to 3 (uniform), as users
//!   overestimate; 10% of jobs ask exactly their run time;
//! - its user: 1 to 20 (uniform).
//!
//! Arrivals are a Poisson process: the gaps are exponential,
//! `-mean * ln(1 - u)`, with the mean set so that the offered load (the
//! jobs' processor-seconds over the cluster's) is 0.9 over the span of the
//! arrivals. The first job arrives at 0.

use crate::swf::{limit_minutes, Trace, TraceJob};

/// The generator: `next` is the LCG above.
#[derive(Clone, Debug)]
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        let span = hi.saturating_sub(lo).saturating_add(1);
        lo + ((self.unit() * span as f64) as u64).min(span - 1)
    }
}

/// The offered load the arrival rate aims at.
pub const LOAD: f64 = 0.9;

/// `n` jobs for a cluster of `nodes` x `cpus_per_node` CPUs.
pub fn generate(n: usize, seed: u64, nodes: u32, cpus_per_node: u32) -> Trace {
    let mut r = Lcg(seed);
    let total = u64::from(nodes.max(1)) * u64::from(cpus_per_node.max(1));
    let per_node = u64::from(cpus_per_node.max(1)).min(total);
    let eighth = (total / 8).max(1);
    let half = (total / 2).max(1);
    let mut jobs = Vec::with_capacity(n);
    let mut work = 0f64;
    for k in 0..n {
        let w = r.unit();
        let procs = if w < 0.50 {
            r.range(1, per_node)
        } else if w < 0.85 {
            r.range(1, eighth)
        } else {
            r.range(eighth, half)
        };
        let s = r.unit();
        let (lo, hi) = if s < 0.65 { (30f64, 3600f64) } else { (3600f64, 43200f64) };
        let run = (lo * (hi / lo).powf(r.unit())).round().max(1.0) as i64;
        let exact = r.unit() < 0.10;
        let factor = 1.0 + 2.0 * r.unit();
        let requested = if exact { run } else { (run as f64 * factor).ceil() as i64 };
        let limit_min = limit_minutes(requested);
        let user = r.range(1, 20) as u32;
        work += procs as f64 * run as f64;
        jobs.push(TraceJob {
            number: k as i64 + 1,
            submit: 0,
            run: run.min(i64::from(limit_min) * 60),
            procs: procs as u32,
            limit_min,
            user,
        });
    }
    // the arrivals: n - 1 gaps whose total is about work / (total * LOAD)
    let mean_gap = if n > 1 { work / (total as f64 * LOAD) / (n - 1) as f64 } else { 0.0 };
    let mut t = 0f64;
    for (k, j) in jobs.iter_mut().enumerate() {
        if k > 0 {
            t += -mean_gap * (1.0 - r.unit()).ln();
        }
        j.submit = t as i64;
    }
    Trace { max_procs: Some(total), max_nodes: Some(u64::from(nodes)), jobs, skipped: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lcg_is_the_documented_one() {
        let mut r = Lcg(1);
        // 6364136223846793005 * 1 + 1442695040888963407
        assert_eq!(r.next_u64(), 7806831264735756412);
        assert_eq!(
            r.next_u64(),
            7806831264735756412u64.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407)
        );
        let mut r = Lcg(7);
        for _ in 0..1000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            let x = r.range(3, 5);
            assert!((3..=5).contains(&x));
        }
    }

    #[test]
    fn same_seed_same_trace_and_the_mix_is_there() {
        let a = generate(2000, 42, 16, 8);
        assert_eq!(a, generate(2000, 42, 16, 8));
        assert_ne!(a, generate(2000, 43, 16, 8));
        let total = 128u32;
        assert!(a.jobs.iter().all(|j| j.procs >= 1 && j.procs <= total / 2 && j.run >= 1));
        assert!(a.jobs.iter().all(|j| j.run <= i64::from(j.limit_min) * 60));
        assert!(a.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        let count = |f: &dyn Fn(&TraceJob) -> bool| a.jobs.iter().filter(|j| f(j)).count();
        // each kind is well represented (the shares are 50/35/15 and 65/35)
        assert!(count(&|j| j.procs <= 8) > 800);
        assert!(count(&|j| j.procs > 16) > 150);
        assert!(count(&|j| j.run < 3600) > 1100);
        assert!(count(&|j| j.run > 3600) > 550);
        // offered load near 0.9 over the arrivals' span
        let work: f64 = a.jobs.iter().map(|j| j.procs as f64 * j.run as f64).sum();
        let span = a.jobs.last().unwrap().submit as f64;
        let load = work / (total as f64 * span);
        assert!((0.8..1.0).contains(&load), "{load}");
    }
}
