//! Accounting: sacct answers from the controllers' own replicated store,
//! long after the jobs left the live state (`MinJobAge`), through a leader
//! failover, a member rebuilt from nothing (its store copied from a peer's)
//! and a full restart. One three-controller cluster for the whole file.

use slurm_tests::{wait_for, Cluster};
use std::time::Duration;

const T: Duration = Duration::from_secs(60);

/// What the workflow tools ask (Snakemake, Nextflow, submitit...).
fn states(c: &Cluster, ids: &[u32]) -> String {
    let list: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    let o = c.run("sacct", &["-X", "-P", "-n", "--format=JobID,State,ExitCode", "-j", &list.join(",")]);
    assert_eq!(o.code, 0, "sacct failed: {}", o.stderr);
    o.stdout
}

fn stored(dir: &std::path::Path) -> Vec<(u32, String)> {
    let store = spur_accounting::Store::open(dir).expect("open a stopped member's store");
    let q = spur_core::acct::AcctQuery::default();
    store.query(&q).unwrap().iter().map(|j| (j.job_id, j.state.name().to_string())).collect()
}

#[test]
fn records_outlive_the_jobs_and_survive_failover_rebuild_and_restart() {
    let extra = std::env::temp_dir().join(format!("spur-acct-{}.conf", std::process::id()));
    std::fs::write(&extra, "MinJobAge=2\nAccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=127.0.0.1\nAccountingStoragePort=6819\n").unwrap();
    // snapshots every 10 entries, 5 kept after one: a rebuilt member is sent
    // a snapshot, and the jobs purged before it are in no log it can read
    let c = Cluster::up_env(
        "acct",
        2,
        &["--controllers", "3", "--cpus", "2", "--extra-conf", &extra.to_string_lossy()],
        &[("SPUR_RAFT_SNAPSHOT_EVERY", "10"), ("SPUR_RAFT_KEEP_LOGS", "5")],
    );
    let _ = std::fs::remove_file(&extra);
    let leader = c.leader(T);
    // the site's slurmdbd settings are served by the embedded store, said once
    let log = c.log(&format!("spurctld-{}.log", leader));
    assert_eq!(
        log.matches(
            "AccountingStorageType=accounting_storage/slurmdbd: served by this controller's own accounting store"
        )
        .count(),
        1,
        "{}",
        log
    );

    let ok = c.sbatch(&["-o", "/dev/null", "--wrap", "true"]);
    let failed = c.sbatch(&["-o", "/dev/null", "--wrap", "exit 3"]);
    let cancelled = c.sbatch(&["-o", "/dev/null", "--wrap", "sleep 300"]);
    c.wait_state(&cancelled.to_string(), "RUNNING", T);
    assert_eq!(c.run("scancel", &[&cancelled.to_string()]).code, 0);
    let ids = [ok, failed, cancelled];
    // (a cancelled job's own exit code is 0:0, its batch step's 0:15:
    // recorded/24.11/sacct/071)
    let want = format!("{}|COMPLETED|0:0\n{}|FAILED|3:0\n{}|CANCELLED by 0|0:0\n", ok, failed, cancelled);
    wait_for("the three jobs' records", T, || states(&c, &ids) == want);

    // MinJobAge: gone from the live state, still in sacct
    wait_for("the jobs to be purged", T, || {
        let o = c.run("squeue", &["-h", "-t", "all", "-o", "%i"]);
        !ids.iter().any(|i| o.stdout.lines().any(|l| l.trim() == i.to_string()))
    });
    assert_eq!(states(&c, &ids), want);
    // more entries than a snapshot's worth, so that the log no longer reaches
    // back to the jobs above
    let more: Vec<u32> = (0..6).map(|_| c.sbatch(&["-o", "/dev/null", "--wrap", "true"])).collect();
    for id in &more {
        c.wait_state(&id.to_string(), "COMPLETED", T);
    }

    // a member that lost its disk: rebuilt from a snapshot, its store copied
    // from a peer's
    let victim = ["ctld1", "ctld2", "ctld3"].into_iter().find(|n| *n != leader).unwrap().to_string();
    c.kill9(&format!("spurctld-{}", victim));
    let vdir = c.dir.join("state").join(&victim);
    std::fs::remove_dir_all(&vdir).unwrap();
    c.restart_missing().ok();
    wait_for(&format!("{} to copy the records it missed", victim), T, || {
        c.log(&format!("spurctld-{}.log", victim)).contains("accounting: copied ")
    });
    c.kill9(&format!("spurctld-{}", victim));
    let held = stored(&vdir);
    for (id, state) in [(ok, "COMPLETED"), (failed, "FAILED"), (cancelled, "CANCELLED")] {
        assert!(held.contains(&(id, state.to_string())), "{} {} not in {}'s store: {:?}", id, state, victim, held);
    }
    for id in &more {
        assert!(held.contains(&(*id, "COMPLETED".to_string())), "{} not in {}'s store: {:?}", id, victim, held);
    }
    c.restart_missing().ok();
    c.leader(T);

    // the leader goes: the next one answers alike
    c.kill9(&format!("spurctld-{}", leader));
    let next = c.leader(T);
    assert_ne!(next, leader);
    assert_eq!(states(&c, &ids), want);
    c.restart_missing().ok();

    // all three restarted at once
    for n in ["ctld1", "ctld2", "ctld3"] {
        c.kill9(&format!("spurctld-{}", n));
    }
    c.restart_missing().ok();
    c.leader(T);
    wait_for("sacct after a full restart", T, || states(&c, &ids) == want);
}
