//! Issue 9, point 7: a full disk under the controller's state directory. One
//! cluster for the file, its controller's state moved onto a small tmpfs.
//! With the disk full a submission is refused at once with slurmctld's
//! error for a job it cannot write (`ESLURM_WRITING_TO_FILE`, "I/O error
//! writing script/environment to file"), as the unprivileged test user sees
//! it, and the controller goes on answering queries; once space is freed and
//! the controller restarted, every job whose submission was acknowledged is
//! there, and submissions are taken again.

use slurm_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// A tmpfs mounted on a directory, unmounted when dropped (the test's
/// cleanup, also when it fails; the cluster is dropped first).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Tmpfs {
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={},mode=0700", size), "tmpfs", &dir.to_string_lossy()])
            .output()
            .expect("mount");
        assert!(o.status.success(), "mount a tmpfs on {}: {}", dir.display(), String::from_utf8_lossy(&o.stderr));
        Tmpfs(dir.to_path_buf())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fill the file system of `dir` to its last byte (a file in it).
fn fill(dir: &Path) -> PathBuf {
    let f = dir.join("filler");
    let o = Command::new("dd").args(["if=/dev/zero", &format!("of={}", f.display()), "bs=64k"]).output().expect("dd");
    assert!(String::from_utf8_lossy(&o.stderr).contains("No space left on device"), "{:?}", o);
    let o = Command::new("df").args(["-B1", "--output=avail"]).arg(dir).output().expect("df");
    let avail: u64 = String::from_utf8_lossy(&o.stdout).lines().nth(1).unwrap().trim().parse().unwrap();
    assert_eq!(avail, 0, "the disk is full");
    f
}

/// The controller's log and its standard output and error.
fn ctld_logs(c: &Cluster) -> String {
    let mut out = String::new();
    for e in std::fs::read_dir(c.dir.join("log")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with("spurctld") {
            out.push_str(&format!("--- {}\n{}", name, c.log(&name)));
        }
    }
    out
}

/// The controller answers (it is the one the pid file names, still running).
fn answers(c: &Cluster) -> Vec<(u32, String)> {
    let o = c.run_as(TEST_USER, "squeue", &["-h", "-t", "all", "-o", "%i %T"]);
    assert_eq!(o.code, 0, "squeue: {}\nctld log: {}", o.stderr, ctld_logs(c));
    c.all_jobs()
}

#[test]
fn a_full_disk_refuses_submissions_and_keeps_every_acknowledged_job() {
    let c = Cluster::up("fulldisk", 1, &[]);
    let mut acked: Vec<String> = (0..3).map(|_| c.sbatch_as(TEST_USER, &["--hold", "--wrap=true"])).collect();

    // the controller's state onto a 64 MB tmpfs
    let ctld = c.ctld_name();
    c.kill9(&ctld);
    let state = c.dir.join("state");
    let saved = c.dir.join("state.saved");
    std::fs::rename(&state, &saved).unwrap();
    std::fs::create_dir(&state).unwrap();
    let mnt = Tmpfs::mount(&state, "64m");
    let cp = Command::new("cp").args(["-a", &format!("{}/.", saved.display()), &state.to_string_lossy()]).status();
    assert!(cp.unwrap().success());
    let o = c.restart_missing();
    assert_eq!(o.code, 0, "{}", o.stderr);
    wait_for("the controller on its tmpfs", T, || c.run("squeue", &[]).code == 0);
    acked.push(c.sbatch_as(TEST_USER, &["--hold", "--wrap=true"]));
    let ran = c.sbatch_as(TEST_USER, &["--wrap=true"]);
    c.wait_state(&ran, "COMPLETED", T);
    acked.push(ran);

    // full: refused at once with slurmctld's error, not retried, not hung
    let filler = fill(&state);
    let o = c.run_as(TEST_USER, "sbatch", &["--wrap=true"]);
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (1, "", "sbatch: error: Batch job submission failed: I/O error writing script/environment to file\n"),
        "ctld log: {}",
        ctld_logs(&c)
    );
    // an array with a larger script too
    let script = format!("#!/bin/sh\n#{}\ntrue\n", "x".repeat(100_000));
    let o = c.run_full(Some(TEST_USER), "sbatch", &["--array=0-9"], Some(&script));
    assert_eq!(o.code, 1, "{}", o.stderr);
    // the controller still answers, with every acknowledged job
    let held = answers(&c);
    for id in &acked {
        assert!(held.iter().any(|(j, _)| j.to_string() == *id), "job {} in {:?}", id, held);
    }
    assert_eq!(held.len(), acked.len(), "{:?}", held);

    // space again, the controller restarted: every acknowledged job is there
    std::fs::remove_file(&filler).unwrap();
    c.kill9(&ctld);
    let o = c.restart_missing();
    assert_eq!(o.code, 0, "{}", o.stderr);
    wait_for("the restarted controller", T, || c.run("squeue", &[]).code == 0);
    let after = answers(&c);
    for id in &acked {
        assert!(after.iter().any(|(j, _)| j.to_string() == *id), "job {} in {:?}", id, after);
    }
    assert_eq!(after.len(), acked.len(), "{:?}", after);
    // and submissions are taken again
    let again = c.sbatch_as(TEST_USER, &["--wrap=true"]);
    c.wait_state(&again, "COMPLETED", T);
    // (the tmpfs goes first, then the cluster: declared in that order)
    let _ = &mnt;
}
