//! End-to-end: the `*** JOB N ON NODE CANCELLED AT ... ***` line slurmstepd
//! writes into a cancelled job's stderr. It goes through the step daemon's
//! descriptor of the file the job was started with, never by reopening the
//! path as root: a job that replaces its output path by a symlink to a file
//! its owner cannot write, or by a FIFO, neither gets that file written nor
//! blocks anything, and the line still reaches the job's stderr.

use slurm_tests::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// A directory under the cluster's work dir owned by the test user.
fn user_dir(c: &Cluster, name: &str) -> PathBuf {
    let d = c.work.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let uid = uid_of(TEST_USER);
    nix::unistd::chown(&d, Some(nix::unistd::Uid::from_raw(uid)), Some(nix::unistd::Gid::from_raw(uid))).unwrap();
    d
}

/// A root-owned 0644 file the test user cannot write.
struct Victim(PathBuf);

impl Victim {
    const CONTENT: &'static str = "root's file, not the job's\n";

    fn new(tag: &str) -> Victim {
        let p = PathBuf::from(format!("/tmp/spur-victim-{}-{}", tag, std::process::id()));
        let _ = std::fs::remove_file(&p);
        std::fs::write(&p, Self::CONTENT).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        nix::unistd::chown(&p, Some(nix::unistd::Uid::from_raw(0)), Some(nix::unistd::Gid::from_raw(0))).unwrap();
        Victim(p)
    }

    fn assert_unchanged(&self) {
        let md = std::fs::symlink_metadata(&self.0).unwrap();
        assert_eq!((md.uid(), md.mode() & 0o7777), (0, 0o644), "{}", self.0.display());
        assert_eq!(std::fs::read_to_string(&self.0).unwrap(), Self::CONTENT, "{} was written", self.0.display());
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Submit `script` as the test user with its output (and stderr) in `out`.
fn submit_as_user(c: &Cluster, out: &Path, script: &str) -> u32 {
    let o = c.run_as(TEST_USER, "sbatch", &["--parsable", "-o", &out.to_string_lossy(), "--wrap", script]);
    assert_eq!(o.code, 0, "sbatch: {}", o.stderr);
    o.stdout.trim().parse().expect("job id")
}

fn wait_exists(p: &Path) {
    wait_for(&format!("{} to exist", p.display()), T, || p.exists());
}

/// Cancel `id` as its owner and wait until its run has ended on the node
/// (the line is written before the script is killed and reaped).
fn cancel_and_wait(c: &Cluster, id: u32) {
    let o = c.run_as(TEST_USER, "scancel", &[&id.to_string()]);
    assert_eq!(o.code, 0, "scancel: {}", o.stderr);
    c.wait_state(&id.to_string(), "CANCELLED", T);
    // its spool directory goes once the end is reported
    wait_for(&format!("job {}'s run to end on its node", id), T, || c.job_dir(id).is_none() || c.run_ended(id));
}

/// Slurm's line, without its time stamp.
fn assert_cancel_line(text: &str, id: u32, before: &str) {
    let want = format!("slurmstepd-node1: error: *** JOB {} ON node1 CANCELLED AT ", id);
    assert!(text.starts_with(before), "{:?}", text);
    let rest = &text[before.len()..];
    assert!(rest.starts_with(&want) && rest.ends_with(" ***\n") && rest.lines().count() == 1, "{:?}", text);
}

/// A job that runs to completion: the agent still works.
fn agent_still_works(c: &Cluster) {
    let id = c.sbatch(&["-o", "after.out", "--wrap", "echo after"]);
    c.wait_state(&id.to_string(), "COMPLETED", T);
    assert_eq!(c.read_work("after.out"), "after\n");
}

#[test]
fn cancel_line_never_follows_a_symlink_the_job_planted() {
    let c = Cluster::up("cnsym", 1, &["--kill-wait", "1"]);
    let victim = Victim::new("sym");
    let d = user_dir(&c, "sym");

    // The ordinary case: the line at the end of the job's stderr.
    let plain = d.join("plain.out");
    let id = submit_as_user(&c, &plain, &format!("echo started; touch {}/plain.ready; sleep 999", d.display()));
    wait_exists(&d.join("plain.ready"));
    cancel_and_wait(&c, id);
    assert_cancel_line(&std::fs::read_to_string(&plain).unwrap(), id, "started\n");

    // The job keeps a second name for its stderr, then points the path at
    // root's file.
    let out = d.join("o");
    let script = format!(
        "echo started; ln {d}/o {d}/o.orig; ln -sf {v} {d}/o; touch {d}/ready; sleep 999",
        d = d.display(),
        v = victim.0.display()
    );
    let id = submit_as_user(&c, &out, &script);
    wait_exists(&d.join("ready"));
    assert!(std::fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
    cancel_and_wait(&c, id);
    victim.assert_unchanged();
    // the line went to the file the job was started with
    assert_cancel_line(&std::fs::read_to_string(d.join("o.orig")).unwrap(), id, "started\n");
    agent_still_works(&c);
}

#[test]
fn cancel_line_never_blocks_on_a_fifo_the_job_planted() {
    let c = Cluster::up("cnfifo", 1, &["--kill-wait", "1"]);
    let d = user_dir(&c, "fifo");
    let out = d.join("o");
    let script = format!(
        "echo started; ln {d}/o {d}/o.orig; rm {d}/o; mkfifo {d}/o; touch {d}/ready; sleep 999",
        d = d.display()
    );
    let id = submit_as_user(&c, &out, &script);
    wait_exists(&d.join("ready"));
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&std::fs::symlink_metadata(&out).unwrap().file_type()));
    cancel_and_wait(&c, id);
    assert!(c.job_processes(id).is_empty());
    assert_cancel_line(&std::fs::read_to_string(d.join("o.orig")).unwrap(), id, "started\n");
    agent_still_works(&c);
}
