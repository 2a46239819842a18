//! A rolling upgrade: a cluster of the base build (the commit named in
//! `slurm-tests/upgrade-base`, built by this test under
//! `target/upgrade-base/<commit>`) takes a controller of this build, which
//! becomes its leader while the base controllers stay its followers; base
//! commands and base agents keep working through it; when it goes, a base
//! controller leads again with every job in the right state. So a cluster of
//! one build can be upgraded one controller at a time to the next
//! (`spur_format`: the cluster's format version).
//!
//! The base build needs the git history (a shallow clone fails with a message
//! saying so) and one `cargo build --bins` of that commit the first time
//! (kept for the next runs); `SPUR_UPGRADE_BASE_BIN=DIR` uses the base's
//! spurctld, spurd and spur from DIR instead.

use slurm_tests::{bin_dir, Cluster};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(60);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
}

/// The commit named in `slurm-tests/upgrade-base` (its first line that is not a comment).
fn base_commit() -> String {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("upgrade-base");
    let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {}", f.display(), e));
    let c =
        text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).expect("a commit in upgrade-base");
    assert!(
        c.len() == 40 && c.chars().all(|x| x.is_ascii_hexdigit()),
        "{}: not a full commit id: {:?}",
        f.display(),
        c
    );
    c.to_string()
}

fn git(args: &[&str]) -> std::process::Output {
    Command::new("git").arg("-C").arg(repo_root()).args(args).output().expect("git")
}

/// The base build's binaries: built once per commit (a later run reuses them).
fn base_bin() -> PathBuf {
    if let Ok(d) = std::env::var("SPUR_UPGRADE_BASE_BIN") {
        return PathBuf::from(d);
    }
    let commit = base_commit();
    let dir = repo_root().join("target/upgrade-base").join(&commit);
    let bin = dir.join("bin");
    // (spurstepd: a binary of its own from 3332579 on, started from beside spurd)
    let bins = ["spur", "spurctld", "spurd", "spurstepd"];
    let complete = bin.join(".complete");
    if complete.exists() {
        return bin;
    }
    let o = git(&["cat-file", "-e", &format!("{}^{{commit}}", commit)]);
    assert!(
        o.status.success(),
        "the upgrade test's base commit {} (slurm-tests/upgrade-base) is not in this clone's history ({}): \
         fetch it (`git fetch --unshallow`, or clone without --depth), or set SPUR_UPGRADE_BASE_BIN to a directory \
         holding that commit's spurctld, spurd and spur",
        commit,
        String::from_utf8_lossy(&o.stderr).trim()
    );
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    let archive = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "git -C '{}' archive --format=tar {} | tar -x -C '{}'",
            repo_root().display(),
            commit,
            src.display()
        ))
        .status()
        .expect("git archive");
    assert!(archive.success(), "git archive of {} failed", commit);
    seed_dependencies(&dir.join("target/debug"));
    let started = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let o = Command::new(cargo)
        .args(["build", "--bins", "--target-dir"])
        .arg(dir.join("target"))
        .current_dir(&src)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cargo build of the base commit");
    assert!(o.status.success(), "building the base commit {} failed:\n{}", commit, String::from_utf8_lossy(&o.stderr));
    eprintln!("built the base commit {} in {:.0?}", commit, started.elapsed());
    std::fs::create_dir_all(&bin).unwrap();
    for b in bins {
        let built = dir.join("target/debug").join(b);
        if built.exists() || b != "spurstepd" {
            std::fs::copy(&built, bin.join(b)).unwrap_or_else(|e| panic!("{}: {}", built.display(), e));
        }
    }
    std::fs::write(&complete, "").unwrap();
    bin
}

/// Give the base build this tree's compiled dependencies (crates.io crates:
/// the same version, features and compiler give the same artifact, and cargo
/// rebuilds whatever its fingerprints say differs), so that it compiles only
/// Spur's own crates. Those are left out (cargo names them by their path
/// within the workspace, the same in both trees: a copied one would be taken
/// for the base's own).
fn seed_dependencies(to: &Path) {
    let from = repo_root().join("target/debug");
    if !from.join("deps").exists() || to.join("deps").exists() {
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    let script = format!(
        "cd '{}' && cp -a deps build .fingerprint '{}'/ && find '{}'/deps '{}'/build '{}'/.fingerprint -maxdepth 1 \\( -name '*spur*' -o -name '*slurm*' \\) -exec rm -rf {{}} +",
        from.display(),
        to.display(),
        to.display(),
        to.display(),
        to.display()
    );
    let ok = Command::new("sh").arg("-c").arg(&script).status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        // only slower: the build compiles everything
        let _ = std::fs::remove_dir_all(to);
    }
}

fn leader_index(c: &Cluster) -> u32 {
    c.leader(T).trim_start_matches("ctld").parse().unwrap()
}

/// Wait until `scontrol ping` (through the base command) shows ctld<i> UP.
fn wait_up(c: &Cluster, i: u32) {
    let start = Instant::now();
    loop {
        let p = c.run("scontrol", &["ping"]).stdout;
        if p.contains(&format!("at ctld{} is UP", i)) {
            return;
        }
        assert!(start.elapsed() < T, "ctld{} is not up: {}", i, p);
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn all_jobs(c: &Cluster) -> HashMap<u32, String> {
    c.all_jobs().into_iter().collect()
}

/// A job that leaves its id in runs.txt, then sleeps `secs`.
fn job(c: &Cluster, secs: u32, extra: &[&str]) -> u32 {
    let script = format!("echo $SLURM_JOB_ID >> runs.txt; sleep {}", secs);
    let mut a: Vec<&str> = extra.to_vec();
    a.extend(["-o", "/dev/null", "--wrap", &script]);
    c.sbatch(&a)
}

#[test]
fn a_controller_of_this_build_leads_a_cluster_of_the_base_build() {
    let base = base_bin();
    let new = bin_dir();
    // Base controllers time out later than the new one, so that the new one is
    // the first candidate when the leader goes; snapshots every 10 entries, so
    // that a member rebuilt from nothing is sent one.
    let slow = [
        ("SPUR_RAFT_ELECTION_MIN_MS", "1000"),
        ("SPUR_RAFT_ELECTION_MAX_MS", "1400"),
        ("SPUR_RAFT_SNAPSHOT_EVERY", "10"),
        ("SPUR_RAFT_KEEP_LOGS", "5"),
    ];
    let fast = [("SPUR_RAFT_SNAPSHOT_EVERY", "10"), ("SPUR_RAFT_KEEP_LOGS", "5")];
    let c = Cluster::up_with(&base, "upgrade", 2, &["--controllers", "3", "--cpus", "4"], &slow);
    let started = Instant::now();

    // 1. the base cluster with jobs: one done, one running, one held
    let mut leader = leader_index(&c);
    let done = job(&c, 0, &[]);
    let running = job(&c, 6, &[]);
    let held = job(&c, 0, &["--hold"]);
    c.wait_state(&done.to_string(), "COMPLETED", T);
    c.wait_state(&running.to_string(), "RUNNING", T);

    // 2. a follower replaced in place by this build, on its own state directory;
    //    for the time of the upgrade, this build also makes and takes the
    //    base's version 1 credentials (SECURITY.md, the upgrade window)
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    assert!(conf.contains("\nAuthInfo=socket="), "{}", conf);
    let conf: String = conf
        .lines()
        .map(
            |l| if l.starts_with("AuthInfo=") { format!("{},legacy_credentials=yes\n", l) } else { format!("{}\n", l) },
        )
        .collect();
    std::fs::write(&c.conf, conf).unwrap();
    let newi = (1..=3).find(|i| *i != leader).unwrap();
    c.kill9(&format!("spurctld-ctld{}", newi));
    c.start_ctld_with(&new, newi, None, false, &fast);
    wait_up(&c, newi);

    // 3. it becomes the leader: the base leader goes (and again, bounded, if
    //    the other base controller won the election)
    for round in 0.. {
        assert!(round < 6, "the controller of this build never won an election");
        c.kill9(&format!("spurctld-ctld{}", leader));
        let now = leader_index(&c);
        if now == newi {
            eprintln!("this build's controller leads after {} election(s)", round + 1);
            break;
        }
        c.restart_missing().ok();
        wait_up(&c, leader);
        leader = now;
    }
    // the base controllers are all back, as its followers
    c.restart_missing().ok();
    for i in 1..=3 {
        wait_up(&c, i);
    }
    assert_eq!(leader_index(&c), newi);

    // 4. base commands through the new leader; jobs run on base agents
    c.run("scontrol", &["release", &held.to_string()]).ok();
    let later = job(&c, 0, &[]);
    let cancelled = job(&c, 0, &["--hold"]);
    c.run("scancel", &[&cancelled.to_string()]).ok();
    let updated = job(&c, 0, &["--hold"]);
    c.run("scontrol", &["update", &format!("JobId={}", updated), "TimeLimit=20", "Comment=upgraded"]).ok();
    c.run("scontrol", &["release", &updated.to_string()]).ok();
    for id in [held, later, updated, running] {
        c.wait_state(&id.to_string(), "COMPLETED", T);
    }
    // every entry the new leader sent, the base followers read (a record of
    // a layout newer than the cluster's version is refused by them as
    // corrupt, and the leader cannot commit: a job update once was)
    for i in 1..=3 {
        let log = c.log(&format!("spurctld-ctld{}.log", i));
        assert!(!log.contains("corrupt raft message"), "ctld{} was sent a record it cannot read:\n{}", i, log);
    }
    // a base follower that lost its disk is rebuilt from the new leader's snapshot
    let wiped = (1..=3).find(|i| *i != newi).unwrap();
    c.kill9(&format!("spurctld-ctld{}", wiped));
    std::fs::remove_dir_all(c.dir.join("state").join(format!("ctld{}", wiped))).unwrap();
    c.restart_missing().ok();
    let t0 = Instant::now();
    while !c.dir.join("state").join(format!("ctld{}", wiped)).join("raft.snapshot").exists() {
        assert!(t0.elapsed() < T, "ctld{} was not sent a snapshot", wiped);
        std::thread::sleep(Duration::from_millis(100));
    }
    wait_up(&c, wiped);
    std::thread::sleep(Duration::from_secs(1));

    // 5. the new leader goes: a base controller leads, with every job as it was
    c.kill9(&format!("spurctld-ctld{}", newi));
    let back = leader_index(&c);
    assert_ne!(back, newi);
    let want: HashMap<u32, &str> = [
        (done, "COMPLETED"),
        (running, "COMPLETED"),
        (held, "COMPLETED"),
        (later, "COMPLETED"),
        (cancelled, "CANCELLED"),
        (updated, "COMPLETED"),
    ]
    .into_iter()
    .collect();
    let jobs = all_jobs(&c);
    for (id, st) in &want {
        assert_eq!(jobs.get(id).map(String::as_str), Some(*st), "job {} on the base leader; all: {:?}", id, jobs);
    }
    assert_eq!(jobs.len(), want.len(), "jobs nobody submitted: {:?}", jobs);
    let show = c.run("scontrol", &["show", "job", &updated.to_string()]).stdout;
    assert!(show.contains("TimeLimit=00:20:00") && show.contains("Comment=upgraded"), "{}", show);
    // it takes work
    let last = job(&c, 0, &[]);
    c.wait_state(&last.to_string(), "COMPLETED", T);
    // every job that ran, ran once
    let runs = c.read_work("runs.txt");
    let mut ran: HashMap<u32, usize> = HashMap::new();
    for l in runs.lines() {
        *ran.entry(l.trim().parse().expect("a job id in runs.txt")).or_default() += 1;
    }
    for id in [done, running, held, later, updated, last] {
        assert_eq!(ran.get(&id), Some(&1), "job {} ran {:?} times: {}", id, ran.get(&id), runs);
    }
    assert_eq!(ran.len(), 6, "{}", runs);
    eprintln!("mixed-version scenario: {:.1?}", started.elapsed());
}
