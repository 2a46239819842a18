//! High availability: three Raft controllers and several agents on loopback,
//! real processes, real faults (`kill -9`, lost disk state, a cut network).
//! After each fault: every acknowledged job exists exactly once with the right
//! state, no job ran twice, and the cluster takes work again.

use slurm_tests::{wait_for, Cluster, Proxies};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(60);

fn cluster(tag: &str) -> Cluster {
    Cluster::up(tag, 3, &["--controllers", "3", "--cpus", "4"])
}

/// A short job that leaves one line per run in `runs.txt`.
fn job_args() -> Vec<&'static str> {
    vec!["-o", "/dev/null", "--wrap", "echo $SLURM_JOB_ID >> runs.txt"]
}

fn submit(c: &Cluster, extra: &[&str]) -> u32 {
    let mut a: Vec<&str> = extra.to_vec();
    a.extend(job_args());
    c.sbatch(&a)
}

/// Submit `n` jobs from a thread; returns the acknowledged ids as they come.
fn burst(
    c: &Arc<Cluster>,
    n: usize,
    extra: &'static [&'static str],
) -> (std::thread::JoinHandle<()>, Arc<Mutex<Vec<u32>>>) {
    let acked = Arc::new(Mutex::new(vec![]));
    let (c2, a2) = (c.clone(), acked.clone());
    let h = std::thread::spawn(move || {
        for _ in 0..n {
            let id = submit(&c2, extra);
            a2.lock().unwrap().push(id);
        }
    });
    (h, acked)
}

fn kill_ctld(c: &Cluster, name: &str) {
    c.kill9(&format!("spurctld-{}", name));
}

fn all_jobs(c: &Cluster) -> Vec<(u32, String)> {
    c.all_jobs()
}

/// Wait until every job is over, then check the invariants.
fn check(c: &Cluster, acked: &[u32]) {
    let start = Instant::now();
    loop {
        let jobs = all_jobs(c);
        if jobs.iter().all(|(_, s)| s != "PENDING" && s != "RUNNING" && s != "COMPLETING") && jobs.len() >= acked.len()
        {
            break;
        }
        if start.elapsed() > T {
            panic!("jobs not done after {:?}: {:?}", T, jobs);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let jobs = all_jobs(c);
    let mut seen: HashMap<u32, usize> = HashMap::new();
    for (id, _) in &jobs {
        *seen.entry(*id).or_default() += 1;
    }
    assert!(seen.values().all(|n| *n == 1), "a job listed twice: {:?}", jobs);
    for id in acked {
        let st = jobs.iter().find(|(i, _)| i == id).map(|(_, s)| s.as_str());
        assert_eq!(st, Some("COMPLETED"), "acknowledged job {} is {:?}; all: {:?}", id, st, jobs);
    }
    assert_eq!(jobs.len(), acked.len(), "jobs nobody was told about: {:?} vs acked {:?}", jobs, acked);
    // each job ran exactly once
    let runs = std::fs::read_to_string(c.work.join("runs.txt")).unwrap_or_default();
    let mut ran: HashMap<u32, usize> = HashMap::new();
    for l in runs.lines() {
        *ran.entry(l.trim().parse().expect("job id in runs.txt")).or_default() += 1;
    }
    for id in acked {
        assert_eq!(ran.get(id).copied().unwrap_or(0), 1, "job {} ran {:?} times; runs.txt:\n{}", id, ran.get(id), runs);
    }
    assert_eq!(ran.len(), acked.len(), "runs of unknown jobs: {:?}", ran);
}

/// The cluster takes work again: one more job runs to the end.
fn takes_work(c: &Cluster, acked: &mut Vec<u32>) {
    let id = submit(c, &[]);
    acked.push(id);
    c.wait_state(&id.to_string(), "COMPLETED", T);
}

/// Kill the leader: the others carry on with every job, and take work.
fn survives_losing(c: &Cluster, leader: &str, acked: &mut Vec<u32>) {
    kill_ctld(c, leader);
    check(c, acked);
    takes_work(c, acked);
    check(c, acked);
}

/// Wait until controller `member` has stored as committed every entry
/// `leader` has committed, one more job submitted first (and acknowledged):
/// a member that came back through a snapshot holds its commit index in
/// memory only, until an entry after the snapshot is committed.
fn caught_up(c: &Cluster, member: &str, leader: &str, acked: &mut Vec<u32>) {
    acked.push(submit(c, &[]));
    let mut target = None;
    wait_for(&format!("a whole raft.committed of {}", leader), T, || {
        target = c.committed_index(leader);
        target.is_some()
    });
    let target = target.unwrap_or_default();
    wait_for(&format!("{} to catch up with {} (index {})", member, leader, target), T, || {
        c.committed_index(member) >= Some(target)
    });
}

/// Wait until `scontrol ping` shows `name` as UP (and, with `not_primary`, not as the leader).
fn wait_up(c: &Cluster, name: &str, not_primary: bool) {
    let start = Instant::now();
    loop {
        let p = c.run("scontrol", &["ping"]).stdout;
        if p.contains(&format!("at {} is UP", name))
            && !(not_primary && p.contains(&format!("Slurmctld(primary) at {} ", name)))
        {
            return;
        }
        assert!(start.elapsed() < T, "{} is not back: {}", name, p);
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn leader_killed_during_a_burst_of_submissions() {
    let c = Arc::new(cluster("ha-burst"));
    let leader = c.leader(T);
    let (h, acked) = burst(&c, 40, &[]);
    while acked.lock().unwrap().len() < 12 {
        std::thread::sleep(Duration::from_millis(5));
    }
    kill_ctld(&c, &leader);
    h.join().expect("every submission is acknowledged, across the failover");
    let new = c.leader(T);
    assert_ne!(new, leader);
    let mut acked = acked.lock().unwrap().clone();
    let mut sorted = acked.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), acked.len(), "an id acknowledged twice: {:?}", acked);
    check(&c, &acked);
    takes_work(&c, &mut acked);
    // the killed controller comes back as a follower and catches up
    c.restart_missing().ok();
    wait_up(&c, &leader, true);
    check(&c, &acked);
}

#[test]
fn leader_killed_while_jobs_start() {
    let c = cluster("ha-start");
    let leader = c.leader(T);
    // held jobs, released at once: the leader decides their starts as it dies
    let mut acked: Vec<u32> = (0..12).map(|_| submit(&c, &["--hold"])).collect();
    let ids: Vec<String> = acked.iter().map(|i| i.to_string()).collect();
    c.run("scontrol", &["release", &ids.join(",")]).ok();
    // the first job has run on its node: the leader has decided the starts
    // and is sending the launches as it dies
    wait_for("a released job to run", T, || c.work.join("runs.txt").exists());
    kill_ctld(&c, &leader);
    check(&c, &acked);
    takes_work(&c, &mut acked);
    check(&c, &acked);
}

#[test]
fn leader_killed_while_jobs_complete() {
    let c = cluster("ha-complete");
    let leader = c.leader(T);
    let mut acked: Vec<u32> = (0..10)
        .map(|_| {
            c.sbatch(&[
                "-o",
                "/dev/null",
                "--wrap",
                "echo $SLURM_JOB_ID >> runs.txt; sleep 2; touch ended-$SLURM_JOB_ID",
            ])
        })
        .collect();
    for id in &acked {
        c.wait_state(&id.to_string(), "RUNNING|COMPLETED", T);
    }
    // the first script is ending: the completions race the failover
    wait_for("a job to end", T, || acked.iter().any(|id| c.work.join(format!("ended-{}", id)).exists()));
    kill_ctld(&c, &leader);
    check(&c, &acked);
    takes_work(&c, &mut acked);
}

#[test]
fn follower_killed_then_back() {
    let c = cluster("ha-follower");
    let leader = c.leader(T);
    let follower = ["ctld1", "ctld2", "ctld3"].into_iter().find(|n| *n != leader).unwrap().to_string();
    kill_ctld(&c, &follower);
    let mut acked: Vec<u32> = (0..5).map(|_| submit(&c, &[])).collect();
    assert_eq!(c.leader(T), leader, "killing a follower moved the leader");
    check(&c, &acked);
    c.restart_missing().ok();
    wait_up(&c, &follower, false);
    // once it is back and has every entry the leader committed, the old leader can go
    caught_up(&c, &follower, &leader, &mut acked);
    survives_losing(&c, &leader, &mut acked);
}

#[test]
fn all_three_restarted_at_once() {
    let c = cluster("ha-all");
    c.leader(T);
    let mut acked: Vec<u32> = (0..6).map(|_| submit(&c, &[])).collect();
    check(&c, &acked);
    for n in ["ctld1", "ctld2", "ctld3"] {
        kill_ctld(&c, n);
    }
    c.restart_missing().ok();
    c.leader(T);
    check(&c, &acked);
    let before = *acked.iter().max().unwrap();
    takes_work(&c, &mut acked);
    assert!(*acked.last().unwrap() > before, "a job id was reused: {:?}", acked);
    check(&c, &acked);
}

#[test]
fn member_rebuilds_after_its_disk_state_is_deleted() {
    // snapshots every 10 entries, 5 kept after one: the member must be sent a
    // snapshot, the log alone no longer reaches back to the start
    let c = Cluster::up_env(
        "ha-disk",
        3,
        &["--controllers", "3", "--cpus", "4"],
        &[("SPUR_RAFT_SNAPSHOT_EVERY", "10"), ("SPUR_RAFT_KEEP_LOGS", "5")],
    );
    let leader = c.leader(T);
    let mut acked: Vec<u32> = (0..8).map(|_| submit(&c, &[])).collect();
    check(&c, &acked);
    let victim = ["ctld1", "ctld2", "ctld3"].into_iter().find(|n| *n != leader).unwrap().to_string();
    kill_ctld(&c, &victim);
    std::fs::remove_dir_all(c.dir.join("state").join(&victim)).unwrap();
    c.restart_missing().ok();
    // it rebuilds from the others: a snapshot, then the log
    let start = Instant::now();
    loop {
        let snap = c.dir.join("state").join(&victim).join("raft.snapshot").exists();
        if snap && c.run("scontrol", &["ping"]).stdout.contains(&format!("at {} is UP", victim)) {
            break;
        }
        assert!(start.elapsed() < T, "{} did not rebuild", victim);
        std::thread::sleep(Duration::from_millis(100));
    }
    caught_up(&c, &victim, &leader, &mut acked);
    // now the old leader goes: the rebuilt member and the third one carry on
    survives_losing(&c, &leader, &mut acked);
}

/// A member that lost its disk holds none of the committed entries, yet
/// counts in every majority. A leads, B is stopped (its log falls behind),
/// job X is acknowledged with the entries on A and C only; then A and C go, C
/// comes back without its state and B resumes. Were C to vote, B (without X)
/// would be elected with C's vote alone and X, on A only, overwritten when A
/// came back. C must abstain until a member with the entries leads: no leader
/// while A is gone, and X kept.
#[test]
fn a_member_that_lost_its_disk_elects_no_stale_leader() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let c = cluster("ha-stale");
    let a = c.leader(T);
    let others: Vec<&str> = ["ctld1", "ctld2", "ctld3"].into_iter().filter(|n| *n != a).collect();
    let (b, wiped) = (others[0], others[1]);
    let mut acked = vec![submit(&c, &[])];
    check(&c, &acked);
    let pid_b = Pid::from_raw(c.pid(&format!("spurctld-{}", b)).expect("pid of b"));
    kill(pid_b, Signal::SIGSTOP).unwrap();
    let x = submit(&c, &["--hold"]);
    acked.push(x);
    // X is committed: on A and on the member that will lose it
    let mut target = None;
    wait_for("the leader's raft.committed", T, || {
        target = c.committed_index(&a);
        target.is_some()
    });
    wait_for("the entry of X on the member to be wiped", T, || c.committed_index(wiped) >= target);
    kill_ctld(&c, &a);
    kill_ctld(&c, wiped);
    std::fs::remove_dir_all(c.dir.join("state").join(wiped)).unwrap();
    kill(pid_b, Signal::SIGCONT).unwrap();
    let i: u32 = wiped.trim_start_matches("ctld").parse().unwrap();
    c.start_ctld(i, None, false);
    // B's election timeout is 150-300 ms: in this window it would have been
    // elected many times over with the wiped member's vote
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(3) {
        let p = c.run("scontrol", &["ping"]).stdout;
        assert!(
            !p.lines().any(|l| l.starts_with("Slurmctld(primary) at ") && l.ends_with(" is UP")),
            "{} (without job {}) was elected with the vote of a member that lost its state:\n{}",
            b,
            x,
            p
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A comes back and leads with X; the wiped member catches up and votes again
    c.restart_missing().ok();
    c.leader(T);
    wait_for(&format!("job {} after A's return", x), T, || all_jobs(&c).iter().any(|(id, _)| *id == x));
    c.run("scontrol", &["release", &x.to_string()]);
    check(&c, &acked);
    wait_for(&format!("{} to end its rebuild", wiped), T, || {
        c.log(&format!("spurctld-{}.log", wiped)).contains("rebuilt: holds every entry")
    });
}

#[test]
fn leader_cut_off_by_the_network() {
    let c = cluster("ha-partition");
    c.leader(T);
    // put a proxy in front of every controller
    for n in ["ctld1", "ctld2", "ctld3"] {
        kill_ctld(&c, n);
    }
    let port = c.ctld_port();
    let proxies = Proxies::start(3, port);
    for i in 1..=3 {
        c.start_ctld(i, Some(&format!("127.0.1.{}", i)), false);
    }
    let leader = c.leader(T);
    let k: u32 = leader.trim_start_matches("ctld").parse().unwrap();
    let mut acked: Vec<u32> = (0..4).map(|_| submit(&c, &[])).collect();
    check(&c, &acked);
    proxies.partition(k);
    // the majority side elects a leader and takes work; clients find it
    for _ in 0..6 {
        acked.push(submit(&c, &[]));
    }
    let new = c.leader(T);
    assert_ne!(new, leader);
    check(&c, &acked);
    proxies.heal();
    // the old leader rejoins as a follower; it never committed anything alone
    wait_up(&c, &leader, true);
    takes_work(&c, &mut acked);
    check(&c, &acked);
}

#[test]
fn controllers_removed_and_added_without_downtime() {
    let c = cluster("ha-members");
    c.leader(T);
    let mut acked: Vec<u32> = (0..3).map(|_| submit(&c, &[])).collect();
    // remove ctld3 (whatever its role): the other two carry on
    let o = c.run("spur", &["controller", "remove", "3"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let list = c.run("spur", &["controller", "list"]).stdout;
    assert!(!list.lines().any(|l| l.starts_with("3 ")), "{}", list);
    acked.push(submit(&c, &[]));
    kill_ctld(&c, "ctld3");
    // a fourth controller: a new SlurmctldHost line, started empty, then added
    let port = c.ctld_port();
    let mut conf = std::fs::read_to_string(&c.conf).unwrap();
    conf = conf.replacen(
        "SlurmctldHost=ctld3(127.0.0.3)\n",
        "SlurmctldHost=ctld3(127.0.0.3)\nSlurmctldHost=ctld4(127.0.0.4)\n",
        1,
    );
    std::fs::write(&c.conf, conf).unwrap();
    c.start_ctld(4, None, true);
    let o = c.run("spur", &["controller", "add", "4", &format!("127.0.0.4:{}", port)]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let list = c.run("spur", &["controller", "list"]).stdout;
    assert!(list.lines().any(|l| l.starts_with("4 ") && l.contains(" yes ")), "{}", list);
    acked.push(submit(&c, &[]));
    check(&c, &acked);
    // ctld4 is a voter with everything: with the leader gone it makes the majority
    let leader = c.leader(T);
    survives_losing(&c, &leader, &mut acked);
}
