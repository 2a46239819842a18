//! The command line: what to replay, on what cluster, with which scheduler.

use crate::report::{metrics, render};
use crate::sim::{simulate, Cluster};
use crate::swf::{parse_limited, Trace};
use std::io::Read;

pub const USAGE: &str = "\
usage: spur-sim (--swf PATH | --generate N [--seed S]) [options]

  --swf PATH        a trace in the Standard Workload Format (- : standard input)
  --generate N      N generated jobs (see README.md for the mix and the generator)
  --seed S          the generator's seed (default 1)
  --max-jobs N      only the trace's first N job lines
  --arrival-scale F submit times multiplied by F (0 < F; F < 1 packs the arrivals
                    closer: a higher load on the same jobs)
  --nodes N         simulated nodes (default: the trace's MaxProcs / CPUs per node,
                    rounded up; 32 for a generated trace)
  --cpus C          CPUs per node (default: MaxProcs / MaxNodes rounded up, else 1;
                    16 for a generated trace)
  --per-job PATH    also write each job's submit, start, end, CPUs and plans there
                    (tab-separated, one line a job and scheduler)
  --no-backfill     sched/builtin (strict priority order) instead of sched/backfill
  --both            both, one block each (keys prefixed backfill. and builtin.)
  -h, --help        this text

Prints one key=value a line: the cluster, then jobs, skipped, makespan_s,
utilisation, mean_wait_s, median_wait_s, max_wait_s, mean_bounded_slowdown,
backfilled, passes, plans, reasons, late_vs_plan, head_late_vs_plan, sim_wall_ms.";

/// Defaults of a generated trace's cluster.
pub const GEN_NODES: u32 = 32;
pub const GEN_CPUS: u32 = 16;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub swf: Option<String>,
    pub generate: Option<usize>,
    pub seed: u64,
    pub max_jobs: Option<usize>,
    pub arrival_scale: Option<f64>,
    pub nodes: Option<u32>,
    pub cpus: Option<u32>,
    pub per_job: Option<String>,
    pub no_backfill: bool,
    pub both: bool,
    pub help: bool,
}

fn value<T: std::str::FromStr>(args: &[String], i: &mut usize, what: &str) -> Result<T, String> {
    *i += 1;
    let v = args.get(*i).ok_or_else(|| format!("{what} needs a value"))?;
    v.parse().map_err(|_| format!("{what}: not a valid number: {v:?}"))
}

pub fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options { seed: 1, ..Default::default() };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--swf" => {
                i += 1;
                o.swf = Some(args.get(i).ok_or("--swf needs a path")?.clone());
            }
            "--generate" => o.generate = Some(value(args, &mut i, "--generate")?),
            "--seed" => o.seed = value(args, &mut i, "--seed")?,
            "--max-jobs" => o.max_jobs = Some(value(args, &mut i, "--max-jobs")?),
            "--arrival-scale" => o.arrival_scale = Some(value(args, &mut i, "--arrival-scale")?),
            "--nodes" => o.nodes = Some(value(args, &mut i, "--nodes")?),
            "--cpus" => o.cpus = Some(value(args, &mut i, "--cpus")?),
            "--per-job" => {
                i += 1;
                o.per_job = Some(args.get(i).ok_or("--per-job needs a path")?.clone());
            }
            "--no-backfill" => o.no_backfill = true,
            "--both" => o.both = true,
            "-h" | "--help" => o.help = true,
            a => return Err(format!("unknown argument {a:?}")),
        }
        i += 1;
    }
    if o.help {
        return Ok(o);
    }
    match (&o.swf, o.generate) {
        (Some(_), Some(_)) => return Err("--swf and --generate exclude each other".into()),
        (None, None) => return Err("a trace is needed: --swf PATH or --generate N".into()),
        _ => {}
    }
    if o.nodes == Some(0) || o.cpus == Some(0) {
        return Err("--nodes and --cpus must be at least 1".into());
    }
    if o.arrival_scale.is_some_and(|f: f64| !(f.is_finite() && f > 0.0 && f <= 1e6)) {
        return Err("--arrival-scale must be a number above 0 (at most 1e6)".into());
    }
    if o.both && o.no_backfill {
        return Err("--both already runs without backfill".into());
    }
    Ok(o)
}

/// The cluster a trace gets when `--nodes`/`--cpus` do not say: CPUs per
/// node MaxProcs / MaxNodes rounded up (1 without them), nodes enough for
/// MaxProcs (for the widest job when the header has no MaxProcs).
pub fn cluster_for(trace: &Trace, nodes: Option<u32>, cpus: Option<u32>) -> Cluster {
    let clamp = |v: u64| u32::try_from(v.max(1)).unwrap_or(u32::MAX);
    let cpus = cpus.unwrap_or_else(|| match (trace.max_procs, trace.max_nodes) {
        (Some(p), Some(n)) if p > 0 && n > 0 => clamp(p.div_ceil(n)),
        _ => 1,
    });
    let nodes = nodes.unwrap_or_else(|| {
        let procs = trace
            .max_procs
            .filter(|p| *p > 0)
            .unwrap_or_else(|| trace.jobs.iter().map(|j| u64::from(j.procs)).max().unwrap_or(1));
        clamp(procs.div_ceil(u64::from(cpus)))
    });
    Cluster { nodes, cpus }
}

fn read_trace(path: &str) -> Result<String, String> {
    let bytes = if path == "-" {
        let mut b = Vec::new();
        std::io::stdin().read_to_end(&mut b).map_err(|e| format!("standard input: {e}"))?;
        b
    } else {
        std::fs::read(path).map_err(|e| format!("{path}: {e}"))?
    };
    // (a header in Latin-1 is no reason to refuse a trace: the job lines
    // are ASCII digits, and a stray byte there fails as a number)
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The whole command: its output, or the message of what went wrong.
pub fn run(args: &[String]) -> Result<String, String> {
    let o = parse_args(args)?;
    if o.help {
        return Ok(format!("{USAGE}\n"));
    }
    let (mut trace, cluster, name) = match (&o.swf, o.generate) {
        (Some(path), _) => {
            let text = read_trace(path)?;
            let trace = parse_limited(&text, o.max_jobs).map_err(|e| format!("{path}: {e}"))?;
            let c = cluster_for(&trace, o.nodes, o.cpus);
            (trace, c, path.clone())
        }
        (None, Some(n)) => {
            let c = Cluster { nodes: o.nodes.unwrap_or(GEN_NODES), cpus: o.cpus.unwrap_or(GEN_CPUS) };
            let n = o.max_jobs.map_or(n, |m| m.min(n));
            (crate::gen::generate(n, o.seed, c.nodes, c.cpus), c, format!("generated:{n}:seed={}", o.seed))
        }
        (None, None) => return Err("a trace is needed: --swf PATH or --generate N".into()),
    };
    let mut out = format!("trace={name}\n");
    if let Some(f) = o.arrival_scale {
        for j in &mut trace.jobs {
            j.submit = (j.submit as f64 * f).round() as i64;
        }
        out.push_str(&format!("arrival_scale={f}\n"));
    }
    out.push_str(&format!("nodes={}\ncpus_per_node={}\n", cluster.nodes, cluster.cpus));
    let runs: &[(bool, &str)] = if o.both {
        &[(true, "backfill."), (false, "builtin.")]
    } else if o.no_backfill {
        &[(false, "")]
    } else {
        &[(true, "")]
    };
    let mut per_job = String::from("scheduler\tnumber\tsubmit\tstart\tend\tcpus\tbackfilled\tfirst_plan\thead_plan\n");
    for &(bf, prefix) in runs {
        let scheduler = if bf { "backfill" } else { "builtin" };
        if !o.both {
            out.push_str(&format!("scheduler={scheduler}\n"));
        }
        let outcome = simulate(&trace, cluster, bf)?;
        out.push_str(&render(&metrics(&outcome, cluster), prefix));
        if o.per_job.is_some() {
            let opt = |p: Option<i64>| p.map_or("-".to_string(), |p| p.to_string());
            for j in &outcome.jobs {
                per_job.push_str(&format!(
                    "{scheduler}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                    j.number,
                    j.submit,
                    j.start,
                    j.end,
                    j.cpus,
                    u8::from(j.backfilled),
                    opt(j.first_plan),
                    opt(j.head_plan)
                ));
            }
        }
    }
    if let Some(path) = &o.per_job {
        std::fs::write(path, per_job).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::TraceJob;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn arguments() {
        let o = parse_args(&args("--swf x.swf --nodes 4 --cpus 2 --both")).unwrap();
        assert_eq!((o.swf.as_deref(), o.nodes, o.cpus, o.both, o.seed), (Some("x.swf"), Some(4), Some(2), true, 1));
        let o = parse_args(&args("--generate 10 --seed 9 --no-backfill")).unwrap();
        assert_eq!((o.generate, o.seed, o.no_backfill), (Some(10), 9, true));
        for (bad, msg) in [
            ("", "a trace is needed: --swf PATH or --generate N"),
            ("--swf a --generate 3", "--swf and --generate exclude each other"),
            ("--generate", "--generate needs a value"),
            ("--generate x", "--generate: not a valid number: \"x\""),
            ("--generate 3 --nodes 0", "--nodes and --cpus must be at least 1"),
            ("--generate 3 --cpus -1", "--cpus: not a valid number: \"-1\""),
            ("--generate 3 --frob", "unknown argument \"--frob\""),
            ("--generate 3 --both --no-backfill", "--both already runs without backfill"),
            ("--generate 3 --arrival-scale 0", "--arrival-scale must be a number above 0 (at most 1e6)"),
            ("--generate 3 --arrival-scale NaN", "--arrival-scale must be a number above 0 (at most 1e6)"),
            ("--generate 3 --arrival-scale inf", "--arrival-scale must be a number above 0 (at most 1e6)"),
        ] {
            assert_eq!(parse_args(&args(bad)).unwrap_err(), msg, "{bad}");
        }
        assert!(run(&args("--help")).unwrap().starts_with("usage: spur-sim"));
        assert!(run(&args("--swf /dev/null/trace.swf")).unwrap_err().starts_with("/dev/null/trace.swf: "));
        let e = run(&args("--generate 3 --per-job /dev/null/jobs.tsv")).unwrap_err();
        assert!(e.starts_with("/dev/null/jobs.tsv: "), "{e}");
    }

    #[test]
    fn a_trace_from_a_file() {
        let path = std::env::temp_dir().join(format!("spur-sim-test-{}.swf", std::process::id()));
        // a Latin-1 byte in a comment, then two jobs on a 2 x 2 cluster
        let mut text = b"; Installation: Universit\xe9\n; MaxProcs: 4\n; MaxNodes: 2\n".to_vec();
        text.extend_from_slice(b"1 0 -1 100 4 -1 -1 4 120 -1 1 1 1 -1 1 1 -1 -1\n");
        text.extend_from_slice(b"2 10 -1 50 1 -1 -1 1 60 -1 1 2 1 -1 1 1 -1 -1\n");
        std::fs::write(&path, &text).unwrap();
        let out = run(&[String::from("--swf"), path.display().to_string(), String::from("--no-backfill")]);
        let _ = std::fs::remove_file(&path);
        let out = out.unwrap();
        let body: Vec<&str> = out.lines().skip(1).take(9).collect();
        assert_eq!(
            body,
            [
                "nodes=2",
                "cpus_per_node=2",
                "scheduler=builtin",
                "jobs=2",
                "skipped=0",
                "makespan_s=150",
                // 4*100 + 1*50 CPU-seconds of 4 x 150
                "utilisation=0.7500",
                // job 2 waits for job 1: 90 s
                "mean_wait_s=45.0",
                "median_wait_s=45.0",
            ]
        );
    }

    #[test]
    fn clusters_that_fit_the_trace() {
        let job = |procs| TraceJob { number: 1, submit: 0, run: 1, procs, limit_min: 1, user: 0 };
        let t = Trace { max_procs: Some(2004), max_nodes: Some(151), jobs: vec![job(3)], skipped: 0 };
        // 2004 / 151 = 13.3 -> 14 CPUs a node, 2004 / 14 = 143.1 -> 144 nodes
        assert_eq!(cluster_for(&t, None, None), Cluster { nodes: 144, cpus: 14 });
        assert_eq!(cluster_for(&t, None, Some(8)), Cluster { nodes: 251, cpus: 8 });
        assert_eq!(cluster_for(&t, Some(3), None), Cluster { nodes: 3, cpus: 14 });
        let t = Trace { max_procs: Some(128), max_nodes: None, jobs: vec![], skipped: 0 };
        assert_eq!(cluster_for(&t, None, None), Cluster { nodes: 128, cpus: 1 });
        let t = Trace { max_procs: None, max_nodes: None, jobs: vec![job(3), job(10)], skipped: 0 };
        assert_eq!(cluster_for(&t, None, Some(4)), Cluster { nodes: 3, cpus: 4 });
        assert_eq!(cluster_for(&Trace::default(), None, None), Cluster { nodes: 1, cpus: 1 });
    }

    #[test]
    fn a_generated_run_is_reproducible() {
        let a = run(&args("--generate 60 --seed 5 --nodes 4 --cpus 4 --both")).unwrap();
        let b = run(&args("--generate 60 --seed 5 --nodes 4 --cpus 4 --both")).unwrap();
        let stable = |s: &str| s.lines().filter(|l| !l.contains("sim_wall_ms")).collect::<Vec<_>>().join("\n");
        assert_eq!(stable(&a), stable(&b));
        assert!(a.starts_with("trace=generated:60:seed=5\nnodes=4\ncpus_per_node=4\nbackfill.jobs=60\n"), "{a}");
        assert!(a.contains("\nbuiltin.jobs=60\n"), "{a}");
        assert!(a.contains("\nbuiltin.backfilled=0\n"), "{a}");
        // arrivals twice as close: the same jobs wait longer
        let c = run(&args("--generate 60 --seed 5 --nodes 4 --cpus 4 --arrival-scale 0.5")).unwrap();
        assert!(c.starts_with("trace=generated:60:seed=5\narrival_scale=0.5\nnodes=4\n"), "{c}");
        let wait = |s: &str, key: &str| -> f64 {
            s.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
        };
        assert!(wait(&c, "mean_wait_s=") > wait(&a, "backfill.mean_wait_s="), "{a}\n{c}");
    }
}
