//! The figures of a run, printed one `key=value` a line in a fixed order.

use crate::sim::{Cluster, Outcome};

/// Feitelson's bounded slowdown takes run times below this as this long.
pub const BOUND_S: i64 = 10;

/// The backfill plan's grain (`bf_resolution`'s default): a held window
/// starts on it, so a start up to this much after its plan is on time.
pub const GRAIN_S: i64 = 60;

/// A run's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    pub jobs: usize,
    pub skipped: usize,
    /// First submission to last completion, seconds.
    pub makespan_s: i64,
    /// CPU-seconds used / (the cluster's CPUs x makespan).
    pub utilisation: f64,
    pub mean_wait_s: f64,
    /// The middle wait; the mean of the two middle ones for an even count.
    pub median_wait_s: f64,
    pub max_wait_s: i64,
    /// Mean of max(1, (wait + run) / max(run, 10 s)).
    pub mean_bounded_slowdown: f64,
    pub backfilled: usize,
    pub passes: u64,
    pub plans: u64,
    pub reasons: u64,
    /// Jobs that started more than the plan's grain (60 s) after the start
    /// the backfill phase first planned for them.
    pub late_vs_plan: usize,
    /// The same, against the plan made when the job was first at the head
    /// of the queue (backfill's promise: lower-priority jobs never delay it).
    pub head_late_vs_plan: usize,
    pub sim_wall_ms: f64,
}

pub fn metrics(o: &Outcome, c: Cluster) -> Metrics {
    let n = o.jobs.len();
    let first = o.jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = o.jobs.iter().map(|j| j.end).max().unwrap_or(0);
    let makespan = last - first;
    let cpu_s: f64 = o.jobs.iter().map(|j| f64::from(j.cpus) * j.run() as f64).sum();
    let capacity = c.total_cpus() as f64 * makespan as f64;
    let mut waits: Vec<i64> = o.jobs.iter().map(|j| j.wait()).collect();
    waits.sort_unstable();
    let median = match n {
        0 => 0.0,
        _ if n % 2 == 1 => waits[n / 2] as f64,
        _ => (waits[n / 2 - 1] as f64 + waits[n / 2] as f64) / 2.0,
    };
    let mean = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
    let slowdown: f64 =
        o.jobs.iter().map(|j| ((j.wait() + j.run()) as f64 / j.run().max(BOUND_S) as f64).max(1.0)).sum();
    Metrics {
        jobs: n,
        skipped: o.skipped,
        makespan_s: makespan,
        utilisation: if capacity > 0.0 { cpu_s / capacity } else { 0.0 },
        mean_wait_s: mean(waits.iter().map(|&w| w as f64).sum()),
        median_wait_s: median,
        max_wait_s: waits.last().copied().unwrap_or(0),
        mean_bounded_slowdown: mean(slowdown),
        backfilled: o.jobs.iter().filter(|j| j.backfilled).count(),
        passes: o.passes,
        plans: o.plans,
        reasons: o.reasons,
        late_vs_plan: o.jobs.iter().filter(|j| j.first_plan.is_some_and(|p| j.start > p + GRAIN_S)).count(),
        head_late_vs_plan: o.jobs.iter().filter(|j| j.head_plan.is_some_and(|p| j.start > p + GRAIN_S)).count(),
        sim_wall_ms: o.wall_ms,
    }
}

/// The figures as `key=value` lines, each key after `prefix`; the wall time
/// last (the one line that differs between identical runs).
pub fn render(m: &Metrics, prefix: &str) -> String {
    let lines = [
        ("jobs", m.jobs.to_string()),
        ("skipped", m.skipped.to_string()),
        ("makespan_s", m.makespan_s.to_string()),
        ("utilisation", format!("{:.4}", m.utilisation)),
        ("mean_wait_s", format!("{:.1}", m.mean_wait_s)),
        ("median_wait_s", format!("{:.1}", m.median_wait_s)),
        ("max_wait_s", m.max_wait_s.to_string()),
        ("mean_bounded_slowdown", format!("{:.3}", m.mean_bounded_slowdown)),
        ("backfilled", m.backfilled.to_string()),
        ("passes", m.passes.to_string()),
        ("plans", m.plans.to_string()),
        ("reasons", m.reasons.to_string()),
        ("late_vs_plan", m.late_vs_plan.to_string()),
        ("head_late_vs_plan", m.head_late_vs_plan.to_string()),
        ("sim_wall_ms", format!("{:.0}", m.sim_wall_ms)),
    ];
    lines.iter().map(|(k, v)| format!("{prefix}{k}={v}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::JobOutcome;

    fn job(submit: i64, start: i64, end: i64, cpus: u32) -> JobOutcome {
        JobOutcome { number: 0, cpus, submit, start, end, backfilled: false, first_plan: None, head_plan: None }
    }

    #[test]
    fn figures_by_hand() {
        // a 2 x 2 cluster; from the first submission (10) to the last end
        // (110): makespan 100
        let o = Outcome {
            jobs: vec![
                job(10, 10, 50, 4),   // wait 0, run 40: slowdown 1
                job(20, 50, 55, 1),   // wait 30, run 5 (bounded at 10): 3.5
                job(30, 70, 110, 2),  // wait 40, run 40: 2
                job(40, 100, 100, 1), // wait 60, run 0: (60 + 0) / 10 = 6
            ],
            skipped: 3,
            passes: 9,
            ..Default::default()
        };
        let mut o = o;
        // planned: on time (within the grain), late, and late only against
        // the first plan
        o.jobs[1].first_plan = Some(50 - GRAIN_S);
        o.jobs[2].first_plan = Some(70 - GRAIN_S - 1);
        o.jobs[2].head_plan = Some(9);
        o.jobs[3].first_plan = Some(0);
        o.jobs[3].head_plan = Some(100);
        let m = metrics(&o, Cluster { nodes: 2, cpus: 2 });
        assert_eq!((m.late_vs_plan, m.head_late_vs_plan), (2, 1));
        assert_eq!((m.jobs, m.skipped, m.makespan_s, m.max_wait_s, m.passes), (4, 3, 100, 60, 9));
        // 4*40 + 1*5 + 2*40 = 245 CPU-seconds of 4 * 100
        assert!((m.utilisation - 0.6125).abs() < 1e-12);
        assert!((m.mean_wait_s - 32.5).abs() < 1e-12);
        // an even count: the mean of the middle two (30 and 40)
        assert!((m.median_wait_s - 35.0).abs() < 1e-12);
        assert!((m.mean_bounded_slowdown - (1.0 + 3.5 + 2.0 + 6.0) / 4.0).abs() < 1e-12);
        let mut o3 = o;
        o3.jobs.remove(1);
        let m = metrics(&o3, Cluster { nodes: 2, cpus: 2 });
        // waits 0, 40, 60: the middle one
        assert!((m.median_wait_s - 40.0).abs() < 1e-12);
        let text = render(&m, "x.");
        assert!(text.starts_with("x.jobs=3\nx.skipped=3\nx.makespan_s=100\nx.utilisation=0.6000\n"), "{text}");
        assert!(text.contains("\nx.median_wait_s=40.0\nx.max_wait_s=60\n"), "{text}");
        assert!(text.lines().last().unwrap().starts_with("x.sim_wall_ms="));
        assert_eq!(text.lines().count(), 15);
    }

    #[test]
    fn an_empty_run_has_zeros() {
        let m = metrics(&Outcome::default(), Cluster { nodes: 1, cpus: 1 });
        assert_eq!((m.jobs, m.makespan_s, m.max_wait_s), (0, 0, 0));
        assert_eq!((m.utilisation, m.mean_wait_s, m.median_wait_s, m.mean_bounded_slowdown), (0.0, 0.0, 0.0, 0.0));
    }
}
