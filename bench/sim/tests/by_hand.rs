//! Small traces whose schedules are worked out by hand, replayed through the
//! real scheduling pass, with and without backfill.

use spur_sim::report::{metrics, Metrics};
use spur_sim::sim::{simulate, Cluster, Outcome};
use spur_sim::swf::parse;

/// One node of 4 CPUs.
const ONE_NODE: Cluster = Cluster { nodes: 1, cpus: 4 };

/// An SWF line: job number, submit, run time, processors, requested time.
fn swf(n: u32, submit: i64, run: i64, procs: u32, req: i64) -> String {
    format!("{n} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 7 7 -1 1 1 -1 -1\n")
}

/// The classic hole: job 1 holds 3 of the 4 CPUs until 600; job 2 wants all
/// 4 and must wait for it; job 3 (1 CPU, 5 minutes) fits the free CPU and
/// ends at 420, before job 2 can start; job 4 (1 CPU, 20 minutes) would run
/// past 600 and so delay job 2.
fn hole_trace(job3_request: i64) -> String {
    let mut t = String::from("; MaxProcs: 4\n; MaxNodes: 1\n");
    t += &swf(1, 0, 600, 3, 600);
    t += &swf(2, 60, 600, 4, 600);
    t += &swf(3, 120, 300, 1, job3_request);
    t += &swf(4, 180, 1200, 1, 1200);
    t
}

fn starts(o: &Outcome) -> Vec<(i64, i64, bool)> {
    o.jobs.iter().map(|j| (j.number, j.start, j.backfilled)).collect()
}

/// The figures that are fractions: mean wait, median wait, utilisation,
/// mean bounded slowdown, each as expected (to 1e-9).
fn assert_fractions(m: &Metrics, want: [f64; 4]) {
    let got = [m.mean_wait_s, m.median_wait_s, m.utilisation, m.mean_bounded_slowdown];
    assert!(got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9), "got {got:?}, want {want:?}");
}

#[test]
fn backfill_uses_the_hole_without_delaying_the_first_job() {
    let trace = parse(&hole_trace(300)).unwrap();
    let o = simulate(&trace, ONE_NODE, true).unwrap();
    // job 2 starts at 600 either way; job 3 runs in the hole [120, 420);
    // job 4 (ends past 600) waits for the node after job 2, at 1200
    assert_eq!(starts(&o), [(1, 0, false), (2, 600, false), (3, 120, true), (4, 1200, false)]);
    let ends: Vec<i64> = o.jobs.iter().map(|j| j.end).collect();
    assert_eq!(ends, [600, 1200, 420, 2400]);
    // the plans: job 2 at 600 (when job 1's limit ends) from its submission
    // on, job 4 at 1200 (behind job 2's held window; still 1200 at 600,
    // when job 2 starts and job 4 is at the head of the queue)
    let plans: Vec<(Option<i64>, Option<i64>)> = o.jobs.iter().map(|j| (j.first_plan, j.head_plan)).collect();
    assert_eq!(plans, [(None, None), (Some(600), Some(600)), (None, None), (Some(1200), Some(1200))]);
    let m = metrics(&o, ONE_NODE);
    assert_eq!((m.jobs, m.skipped, m.makespan_s, m.max_wait_s, m.backfilled), (4, 0, 2400, 1020, 1));
    // waits 0, 540, 0, 1020: mean 390, median 270; CPU-seconds
    // (3*600 + 4*600 + 1*300 + 1*1200) of 4 * 2400; bounded slowdowns 1,
    // (540 + 600) / 600, 1, (1020 + 1200) / 1200
    assert_fractions(&m, [390.0, 270.0, 5700.0 / 9600.0, (1.0 + 1.9 + 1.0 + 1.85) / 4.0]);
    // events at 0, 60, 120, 180, 420, 600, 1200, 2400: a pass each
    assert_eq!(m.passes, 8);
    assert_eq!((m.late_vs_plan, m.head_late_vs_plan), (0, 0));
}

#[test]
fn without_backfill_the_small_job_waits_its_turn() {
    let trace = parse(&hole_trace(300)).unwrap();
    let o = simulate(&trace, ONE_NODE, false).unwrap();
    // strict priority order: jobs 3 and 4 wait behind job 2, then both start
    assert_eq!(starts(&o), [(1, 0, false), (2, 600, false), (3, 1200, false), (4, 1200, false)]);
    let m = metrics(&o, ONE_NODE);
    assert_eq!((m.jobs, m.makespan_s, m.max_wait_s, m.backfilled, m.plans), (4, 2400, 1080, 0, 0));
    // waits 0, 540, 1080, 1020: mean 660, median 780; the same CPU-seconds;
    // bounded slowdowns 1, 1.9, (1080 + 300) / 300, 1.85
    assert_fractions(&m, [660.0, 780.0, 5700.0 / 9600.0, (1.0 + 1.9 + 4.6 + 1.85) / 4.0]);
    // events at 0, 60, 120, 180, 600, 1200, 1500, 2400
    assert_eq!(m.passes, 8);
}

#[test]
fn backfill_judges_by_the_requested_time() {
    // job 3 still runs 300 s but asks for 10 minutes: it would end at 720 by
    // its request, past job 2's start, so backfill leaves it waiting
    let trace = parse(&hole_trace(600)).unwrap();
    let o = simulate(&trace, ONE_NODE, true).unwrap();
    assert_eq!(starts(&o), [(1, 0, false), (2, 600, false), (3, 1200, false), (4, 1200, false)]);
    assert_eq!(metrics(&o, ONE_NODE).backfilled, 0);
}

#[test]
fn backfill_plans_with_time_limits_not_run_times() {
    // job 1 asks for 10 minutes but ends at 300: backfill (which knows only
    // the limit) plans job 2 at 600, so job 3 (7 minutes asked, to 540)
    // fits before it and starts at 120; job 2 then waits for job 3's CPU
    // (420), later than it could have (300) and earlier than planned (600)
    let text = String::from("; MaxProcs: 4\n")
        + &swf(1, 0, 300, 3, 600)
        + &swf(2, 60, 600, 4, 600)
        + &swf(3, 120, 300, 1, 400);
    let o = simulate(&parse(&text).unwrap(), ONE_NODE, true).unwrap();
    assert_eq!(starts(&o), [(1, 0, false), (2, 420, false), (3, 120, true)]);
    assert_eq!((o.jobs[1].first_plan, o.jobs[1].head_plan), (Some(600), Some(600)));
    // without backfill job 2 starts as soon as job 1 ends
    let o = simulate(&parse(&text).unwrap(), ONE_NODE, false).unwrap();
    assert_eq!(starts(&o), [(1, 0, false), (2, 300, false), (3, 900, false)]);
}

#[test]
fn a_job_wider_than_the_cluster_is_skipped() {
    let mut text = hole_trace(300);
    text += &swf(5, 200, 100, 5, 100);
    text += &swf(6, 200, 0, 1, 100);
    let trace = parse(&text).unwrap();
    let o = simulate(&trace, ONE_NODE, true).unwrap();
    assert_eq!(o.jobs.len(), 4);
    assert_eq!(metrics(&o, ONE_NODE).skipped, 2);
}

#[test]
fn tasks_spread_over_nodes() {
    // two 2-CPU nodes: a 3-processor job takes CPUs on both (no node count,
    // as `-n 3`), and a 1-CPU job fits beside it at once
    let text = swf(1, 0, 100, 3, 100) + &swf(2, 0, 100, 1, 100) + &swf(3, 0, 100, 1, 100);
    let c = Cluster { nodes: 2, cpus: 2 };
    let o = simulate(&parse(&text).unwrap(), c, true).unwrap();
    assert_eq!(starts(&o), [(1, 0, false), (2, 0, false), (3, 100, false)]);
    // waits 0, 0, 100; 500 CPU-seconds of 4 x 200; slowdowns 1, 1, 2
    assert_fractions(&metrics(&o, c), [100.0 / 3.0, 0.0, 500.0 / 800.0, 4.0 / 3.0]);
}
