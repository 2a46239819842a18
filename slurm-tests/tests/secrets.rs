//! End-to-end: a job's secrets (its environment and script, in the
//! controller's state and in the node's spool) are readable by no one else,
//! and the job still runs as its owner and writes its own files as before.

use slurm_tests::*;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// (mode bits, owner uid) of `p`.
fn mode(p: &Path) -> (u32, u32) {
    let m = std::fs::symlink_metadata(p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e));
    (m.mode() & 0o7777, m.uid())
}

#[test]
fn state_and_spool_files_are_private_and_jobs_still_run() {
    let c = Cluster::up("secrets", 1, &[]);
    let uid = uid_of(TEST_USER);
    let o = c.run_as(
        TEST_USER,
        "sbatch",
        &["--parsable", "-o", "secret.out", "--export=ALL,SECRET=s3cr3t", "--wrap", "echo $SECRET; sleep 60"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id: u32 = o.stdout.trim().parse().unwrap();
    c.wait_file("secret.out", "s3cr3t", T);
    c.wait_state(&id.to_string(), "RUNNING", T);

    // the node's spool: slurmd's 0755 spool directory, the job's directory
    // root's and its group's (0750, as slurmstepd's), the launch (environment
    // and script) root's alone, the script its owner's
    let jd = c.job_dir(id).expect("the job's spool directory");
    let spool = jd.parent().unwrap();
    assert_eq!(mode(spool), (0o755, 0));
    assert_eq!(mode(&jd), (0o750, 0));
    assert_eq!(std::fs::metadata(&jd).unwrap().gid(), std::fs::metadata(c.work.join("secret.out")).unwrap().gid());
    for f in ["spec.bin", "supervisor.proc"] {
        assert_eq!(mode(&jd.join(f)), (0o600, 0), "{}", f);
    }
    assert_eq!(mode(&jd.join("slurm_script")), (0o700, uid));
    // the job's own output: as the job's umask made it
    assert_eq!(mode(&c.work.join("secret.out")), (0o644, uid));

    // the controller's state: its directory 0700, every file 0600
    let state = c.dir.join("state");
    assert_eq!(mode(&state), (0o700, 0));
    let mut files: Vec<String> =
        std::fs::read_dir(&state).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    files.sort();
    assert!(files.iter().any(|f| f == "raft.log") && files.iter().any(|f| f == "raft.meta"), "{:?}", files);
    for f in &files {
        assert_eq!(mode(&state.join(f)), (0o600, 0), "{}", f);
    }

    // and the job ends as usual
    assert_eq!(c.run("scancel", &[&id.to_string()]).code, 0);
    c.wait_state(&id.to_string(), "CANCELLED", T);
    // (the agent's marks of finished runs, once this run's is there)
    let done = spool.join("done.log");
    wait_for("done.log", T, || std::fs::read_to_string(&done).unwrap_or_default().starts_with(&format!("{} ", id)));
    assert_eq!(mode(&done), (0o600, 0));
}
