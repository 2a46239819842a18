//! The authorisation matrix (SECURITY.md) end to end, as the unprivileged
//! test user: every changing request a normal user may not make is refused
//! with Slurm's text and exit code and changes nothing; the owner and root
//! can; `PrivateData=jobs,reservations` hides other users' jobs and
//! reservations; the controller's audit log names who did what from where.
//! One cluster for the file.
//!
//! The texts and exit codes were taken from Slurm 22.05.8 run as a normal
//! user (the reference cluster of /work/shared/reference/slurm-22.05), and
//! from recorded/24.11 where Spur's default release differs.

use slurm_tests::{uid_of, Cluster, Out, TEST_USER};
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// `(exit code, stderr)` of a command.
fn said(o: &Out) -> (i32, &str) {
    (o.code, o.stderr.as_str())
}

/// A field of `scontrol show job` (`Comment`, `JobState`, ...).
fn job_field(c: &Cluster, id: &str, key: &str) -> String {
    let show = c.run("scontrol", &["-o", "show", "job", id]).stdout;
    show.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{}=", key)).map(String::from))
        .unwrap_or_else(|| panic!("no {} in {}", key, show))
}

/// The controller's log.
fn ctld_log(c: &Cluster) -> String {
    c.ctld_log()
}

/// One of the daemons' RPCs made with the test user's own credential
/// (src/bin/spur-daemon-rpc.rs): its stdout and exit code.
fn daemon_rpc_as_user(c: &Cluster, args: &[&str]) -> (String, i32) {
    let o = std::process::Command::new("runuser")
        .args(["-u", TEST_USER, "--", "env"])
        .arg(format!("SLURM_CONF={}", c.conf.display()))
        .arg(env!("CARGO_BIN_EXE_spur-daemon-rpc"))
        .args(args)
        .current_dir(&c.work)
        .output()
        .expect("run spur-daemon-rpc");
    let out = String::from_utf8_lossy(&o.stdout).trim().to_string();
    assert!(o.status.code().is_some(), "spur-daemon-rpc died: {:?} {}", o, String::from_utf8_lossy(&o.stderr));
    (out, o.status.code().unwrap_or(-1))
}

#[test]
fn a_user_is_refused_what_slurm_refuses() {
    let c = Cluster::up("authz", 2, &["--cpus", "2"]);
    let u = |args: &[&str]| c.run_as(TEST_USER, args[0], &args[1..]);
    // root's jobs: one running, one held, one waiting for its begin time
    let run = c.sbatch(&["-w", "node1", "-t", "10", "--wrap", "sleep 600"]).to_string();
    let held = c.sbatch(&["--hold", "--wrap", "true"]).to_string();
    let later = c.sbatch(&["--begin=now+1hour", "--wrap", "true"]).to_string();
    // the test user's: one running, one held, one waiting
    let mine_run = c.sbatch_as(TEST_USER, &["-w", "node2", "-t", "10", "--wrap", "sleep 600"]);
    let mine = c.sbatch_as(TEST_USER, &["--hold", "-t", "30", "--wrap", "true"]);
    let mine_later = c.sbatch_as(TEST_USER, &["--begin=now+1hour", "--wrap", "true"]);
    c.wait_state(&run, "RUNNING", T);
    c.wait_state(&mine_run, "RUNNING", T);

    // --- another user's jobs ---
    // scancel: slurmctld's job_signal refuses with ESLURM_ACCESS_DENIED, scancel exits 210
    let o = u(&["scancel", &run]);
    assert_eq!(
        said(&o),
        (210, format!("scancel: error: Kill job error on job id {}: Access/permission denied\n", run).as_str())
    );
    let o = u(&["scancel", &held]);
    assert_eq!(
        said(&o),
        (210, format!("scancel: error: Kill job error on job id {}: Access/permission denied\n", held).as_str())
    );
    // a signal to the batch script, which USR1 would end
    let o = u(&["scancel", "-b", "-s", "USR1", &run]);
    assert_eq!(
        said(&o),
        (210, format!("scancel: error: Kill job error on job id {}: Access/permission denied\n", run).as_str())
    );
    // hold, uhold, release, update: update_job's `Invalid user id`
    for verb in ["hold", "uhold"] {
        let o = u(&["scontrol", verb, &later]);
        assert_eq!(
            said(&o),
            (1, format!("Invalid user id for job {}\nslurm_suspend error: Invalid user id\n", later).as_str())
        );
    }
    let o = u(&["scontrol", "release", &held]);
    assert_eq!(
        said(&o),
        (1, format!("Invalid user id for job {}\nslurm_suspend error: Invalid user id\n", held).as_str())
    );
    let o = u(&["scontrol", "update", &format!("JobId={}", later), "Comment=mine"]);
    assert_eq!(said(&o), (1, format!("Invalid user id for job {}\n", later).as_str()));
    let o = u(&["scontrol", "update", &format!("JobId={}", held), "TimeLimit=5"]);
    assert_eq!(said(&o), (1, format!("Invalid user id for job {}\n", held).as_str()));
    // requeue, requeuehold, suspend, resume: `Access/permission denied`
    for verb in ["requeue", "requeuehold", "suspend", "resume"] {
        let o = u(&["scontrol", verb, &run]);
        assert_eq!(said(&o), (1, format!("Access/permission denied for job {}\n", run).as_str()), "{}", verb);
    }
    // top: operators only (without enable_user_top), own jobs included
    for id in [&later, &mine_later] {
        let o = u(&["scontrol", "top", id]);
        assert_eq!(said(&o), (1, format!("Access/permission denied for job {}\n", id).as_str()));
    }
    // nothing changed
    assert_eq!(c.state(&run), "RUNNING");
    assert_eq!(job_field(&c, &run, "Restarts"), "0");
    assert_eq!(job_field(&c, &held, "Reason"), "JobHeldUser");
    assert_eq!(job_field(&c, &held, "TimeLimit"), "UNLIMITED");
    assert_eq!(job_field(&c, &later, "Reason"), "BeginTime");
    assert!(!c.run("scontrol", &["show", "job", &later]).stdout.contains("Comment="), "no comment");
    // suspend is for operators, even of one's own job
    let o = u(&["scontrol", "suspend", &mine_run]);
    assert_eq!(said(&o), (1, format!("Access/permission denied for job {}\n", mine_run).as_str()));
    assert_eq!(c.state(&mine_run), "RUNNING");

    // --- nodes, partitions, reservations: validate_super_user / validate_operator ---
    let o = u(&["scontrol", "update", "NodeName=node2", "State=DRAIN", "Reason=mine"]);
    assert_eq!(said(&o), (1, "slurm_update error: Invalid user id\n"));
    let o = u(&["scontrol", "update", "PartitionName=debug", "MaxTime=10"]);
    assert_eq!(said(&o), (1, "slurm_update error: Invalid user id\n"));
    assert_eq!(c.run("sinfo", &["-h", "-n", "node2", "-o", "%T"]).stdout.trim(), "mixed");
    assert_eq!(c.run("sinfo", &["-h", "-p", "debug", "-o", "%l"]).stdout.trim(), "infinite");
    let resv = ["StartTime=now+2hours", "Duration=10", "Users=root", "Nodes=node2"];
    let o = u(&[&["scontrol", "create", "reservation", "ReservationName=r1"][..], &resv[..]].concat());
    assert_eq!(said(&o), (1, "Error creating the reservation: Invalid user id\n"));
    assert_eq!(c.run("scontrol", &["show", "reservation"]).stdout, "No reservations in the system\n");
    c.run("scontrol", &[&["create", "reservation", "ReservationName=r1"][..], &resv[..]].concat()).ok();
    let o = u(&["scontrol", "update", "ReservationName=r1", "Duration=20"]);
    assert_eq!(said(&o), (1, "slurm_update error: Invalid user id\n"));
    let o = u(&["scontrol", "delete", "ReservationName=r1"]);
    assert_eq!(said(&o), (1, "delete_reservation ReservationName=r1: Invalid user id\n"));
    assert!(c.run("scontrol", &["show", "reservation", "r1"]).stdout.contains(" Duration=00:10:00"));

    // --- the controllers' membership (Spur's own command) ---
    for args in [&["spur", "controller", "add", "5", "127.0.0.9:1"][..], &["spur", "controller", "remove", "1"]] {
        let o = u(args);
        assert_eq!(said(&o), (1, "spur controller: error: Access/permission denied\n"), "{:?}", args);
    }
    assert_eq!(u(&["spur", "controller", "list"]).code, 0);
    assert_eq!(c.run("spur", &["controller", "list"]).stdout.lines().count(), 2, "one member still");

    // --- the daemons' RPCs, made with the user's own credential: a user
    // credential never passes as an agent's or a controller's (the gate
    // refuses it before the handler runs) ---
    let (out, rc) = daemon_rpc_as_user(&c, &["register", "node1", "forged"]);
    assert_eq!((rc, out.as_str()), (1, "refused 1007: Protocol authentication error"));
    assert!(!c.run("scontrol", &["show", "node", "node1"]).stdout.contains("OS=forged"));
    let (out, rc) = daemon_rpc_as_user(&c, &["complete", &run, "node1"]);
    assert_eq!((rc, out.as_str()), (1, "refused 1007: Protocol authentication error"));
    let (out, rc) = daemon_rpc_as_user(&c, &["signal", "node1", &run, "9"]);
    assert_eq!((rc, out.as_str()), (1, "refused Unauthenticated: credential of the wrong kind for this request"));
    let (out, rc) = daemon_rpc_as_user(&c, &["launch", "node1"]);
    assert_eq!((rc, out.as_str()), (1, "refused Unauthenticated: credential of the wrong kind for this request"));
    let (out, rc) = daemon_rpc_as_user(&c, &["vote"]);
    assert_eq!((rc, out.as_str()), (1, "refused Unauthenticated: credential of the wrong kind for this request"));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(c.state(&run), "RUNNING", "root's job survived the user's completion report and SIGKILL");

    // --- the owner can ---
    c.run_as(TEST_USER, "scontrol", &["update", &format!("JobId={}", mine), "TimeLimit=10"]).ok();
    assert_eq!(job_field(&c, &mine, "TimeLimit"), "00:10:00");
    c.run_as(TEST_USER, "scontrol", &["release", &mine]).ok();
    c.run_as(TEST_USER, "scontrol", &["hold", &mine]).ok();
    assert_eq!(job_field(&c, &mine, "Reason"), "JobHeldUser");
    // --- an operator's hold stays one: the user's own hold does not replace
    // it, and only an operator releases it (Slurm 22.05: rc 0, JobHeldAdmin)
    c.run("scontrol", &["hold", &mine]).ok();
    assert_eq!(job_field(&c, &mine, "Reason"), "JobHeldAdmin");
    for verb in ["uhold", "hold"] {
        assert_eq!(said(&u(&["scontrol", verb, &mine])), (0, ""));
        assert_eq!(job_field(&c, &mine, "Reason"), "JobHeldAdmin", "after the user's {}", verb);
    }
    let o = u(&["scontrol", "release", &mine]);
    assert_eq!(
        said(&o),
        (
            1,
            format!("Access/permission denied for job {}\nslurm_suspend error: Access/permission denied\n", mine)
                .as_str()
        )
    );
    assert_eq!(job_field(&c, &mine, "Reason"), "JobHeldAdmin");
    // --- root can ---
    c.run("scontrol", &["release", &mine]).ok();
    c.run("scontrol", &["update", &format!("JobId={}", mine), "TimeLimit=60"]).ok();
    assert_eq!(job_field(&c, &mine, "TimeLimit"), "01:00:00");
    c.run("scontrol", &["suspend", &mine_run]).ok();
    assert_eq!(c.state(&mine_run), "SUSPENDED");
    c.run("scontrol", &["resume", &mine_run]).ok();
    assert_eq!(c.state(&mine_run), "RUNNING");
    c.run("scontrol", &["update", "NodeName=node2", "State=DRAIN", "Reason=root"]).ok();
    c.run("scontrol", &["update", "NodeName=node2", "State=RESUME"]).ok();
    c.run("scontrol", &["update", "PartitionName=debug", "MaxTime=10"]).ok();
    c.run("scontrol", &["update", "PartitionName=debug", "MaxTime=UNLIMITED"]).ok();

    // --- the audit log: who, what, from where, and the outcome ---
    let uid = uid_of(TEST_USER);
    let wanted = |rpc: &str, op: &str, target: &str, result: &str| {
        let log = ctld_log(&c);
        log.lines().any(|l| {
            l.contains(" audit: ")
                && l.contains(&format!("rpc=\"{}\"", rpc))
                && l.contains(&format!("op=\"{}\"", op))
                && l.contains(&format!("uid={} user=\"{}\"", uid, TEST_USER))
                && l.contains("peer=\"127.0.0.1:")
                && l.contains(&format!("target=\"{}\"", target))
                && l.contains(&format!("result=\"{}\"", result))
        })
    };
    let log = ctld_log(&c);
    assert!(
        wanted("cancel", "cancel", &run, &format!("{}: Access/permission denied", run)),
        "no audit line for the refused scancel:\n{}",
        log
    );
    assert!(wanted("node_control", "node", "node2", "Invalid user id"), "{}", log);
    // the daemons' RPCs never reached a handler: the credential gate logs them
    for rpc in ["Register", "JobComplete"] {
        assert!(
            log.lines().any(|l| l.contains(" audit: ")
                && l.contains(&format!("rpc=/spur.v1.Controller/{}", rpc))
                && l.contains(&format!("uid={} kind=User", uid))
                && l.contains("result=credential of the wrong kind")),
            "no audit line for the user's {}: {}",
            rpc,
            log
        );
    }
    assert!(wanted("job_control", "update", &mine, "ok"), "{}", log);
    assert!(
        log.lines().any(|l| l.contains(" audit: ")
            && l.contains("rpc=\"submit\"")
            && l.contains(&format!("target=\"{}\"", mine))),
        "the user's submission: {}",
        log
    );

    // --- PrivateData=jobs,reservations, and SchedulerParameters=enable_user_top ---
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    assert!(!conf.contains("PrivateData") && !conf.contains("SchedulerParameters"), "{}", conf);
    std::fs::write(&c.conf, format!("{}PrivateData=jobs,reservations\nSchedulerParameters=enable_user_top\n", conf))
        .unwrap();
    c.kill9(&c.ctld_name());
    c.restart_missing().ok();
    slurm_tests::wait_for("the controller back", T, || c.run("squeue", &["-h"]).code == 0);
    let ids = |o: Out| {
        let mut v: Vec<String> = o.stdout.lines().map(|l| l.trim().to_string()).collect();
        v.sort();
        v
    };
    // (`mine`, released by root, may have run by now: -t all)
    let mut own = vec![mine.clone(), mine_run.clone(), mine_later.clone()];
    own.sort();
    assert_eq!(ids(u(&["squeue", "-h", "-t", "all", "-o", "%i"])), own, "the user sees their own jobs only");
    assert!(ids(u(&["squeue", "-h", "-o", "%i"])).iter().all(|i| own.contains(i)));
    assert_eq!(ids(c.run("squeue", &["-h", "-t", "all", "-o", "%i"])).len(), 6, "root sees them all");
    assert_eq!(said(&u(&["squeue", "-j", &run])), (1, "slurm_load_jobs error: Invalid job id specified\n"));
    assert_eq!(said(&u(&["scontrol", "show", "job", &run])), (1, "slurm_load_jobs error: Invalid job id specified\n"));
    assert!(!u(&["scontrol", "show", "job"]).stdout.contains("UserId=root"));
    assert_eq!(u(&["squeue", "-h", "-u", "root"]).stdout, "");
    // scancel of the jobs it cannot see: nothing to cancel; by id: refused as before
    assert_eq!(said(&u(&["scancel", "-u", "root"])), (0, ""));
    let o = u(&["scancel", &run]);
    assert_eq!(
        said(&o),
        (210, format!("scancel: error: Kill job error on job id {}: Access/permission denied\n", run).as_str())
    );
    assert_eq!(c.state(&run), "RUNNING");
    // a reservation for root only is not shown to the user
    assert_eq!(u(&["scontrol", "show", "reservation"]).stdout, "No reservations in the system\n");
    assert!(c.run("scontrol", &["show", "reservation"]).stdout.contains("ReservationName=r1 "));
    // top: now the owner's, for their own jobs only
    assert_eq!(said(&u(&["scontrol", "top", &mine_later])), (0, ""));
    let o = u(&["scontrol", "top", &later]);
    assert_eq!(said(&o), (1, format!("Access/permission denied for job {}\n", later).as_str()));
}
