//! Issue 9, point 3: one request must not exhaust the controller's memory or
//! CPU. One cluster for the file (two nodes); the requests come from the
//! unprivileged test user. After each refusal the controller still answers
//! (`squeue`) and a plain job still runs.

use slurm_tests::*;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

fn submit(c: &Cluster, args: &[&str]) -> String {
    c.sbatch_as(TEST_USER, args)
}

/// The controller answers and schedules: squeue works, a plain job runs.
fn still_serving(c: &Cluster) {
    let q = c.run_as(TEST_USER, "squeue", &["-h", "-o", "%i"]);
    assert_eq!(q.code, 0, "squeue: {}", q.stderr);
    let id = submit(c, &["--wrap=true"]);
    c.wait_state(&id, "COMPLETED", T);
}

fn sbatch_refused(c: &Cluster, args: &[&str], why: &str) {
    let o = c.run_as(TEST_USER, "sbatch", args);
    let want = format!("sbatch: error: Batch job submission failed: {}\n", why);
    assert_eq!((o.code, o.stdout.as_str(), o.stderr.as_str()), (1, "", want.as_str()), "sbatch {:?}", args);
}

fn show_job_field(c: &Cluster, id: &str, field: &str) -> String {
    let o = c.run("scontrol", &["show", "job", id]);
    let key = format!("{}=", field);
    o.stdout
        .split_whitespace()
        .find_map(|w| w.strip_prefix(key.as_str()))
        .unwrap_or_else(|| panic!("no {} in {}", field, o.stdout))
        .to_string()
}

#[test]
fn oversized_requests_are_refused_and_the_controller_goes_on() {
    // a smaller max_script_size than the 4 MiB default, to keep the scripts small
    let extra = std::env::temp_dir().join(format!("spur-bounds-{}.conf", std::process::id()));
    std::fs::write(&extra, "SchedulerParameters=max_script_size=65536\n").unwrap();
    let c = Cluster::up("bounds", 2, &["--cpus", "2", "--extra-conf", &extra.to_string_lossy()]);
    let _ = std::fs::remove_file(&extra);

    // ---- node lists: --exclude / --nodelist / ExcNodeList= / ReqNodeList=
    // sixty ranges of 64K names each (under Slurm's per-range bound): once
    // stored as it came and expanded by every scheduler pass
    let huge = vec!["node[0-65535]"; 60].join(",");
    sbatch_refused(&c, &["--exclude", &huge, "--wrap=true"], "Invalid node name specified");
    // a name that is no node: node_name2bitmap's refusal (job_mgr.c _job_create)
    sbatch_refused(&c, &["--exclude=node9", "--wrap=true"], "Invalid node name specified");
    // a name that is no node at all, as for --exclude (slurmctld's
    // node_name2bitmap; recorded/24.11/srun_basic/169, salloc/88)
    sbatch_refused(&c, &["--nodelist=node9", "--wrap=true"], "Invalid node name specified");
    // kept without duplicates, sorted (_copy_nodelist_no_dup)
    let held = submit(&c, &["--hold", "--exclude=node2,node2", "--wrap=true"]);
    assert_eq!(show_job_field(&c, &held, "ExcNodeList"), "node2");
    for field in ["ExcNodeList", "ReqNodeList"] {
        for bad in [huge.as_str(), "node9"] {
            let o =
                c.run_as(TEST_USER, "scontrol", &["update", &format!("JobId={}", held), &format!("{}={}", field, bad)]);
            assert_ne!(o.code, 0, "{} {}", field, o.stdout);
            assert!(o.stderr.contains("Invalid node name specified"), "{}: {}", field, o.stderr);
        }
    }
    assert_eq!(show_job_field(&c, &held, "ExcNodeList"), "node2");
    still_serving(&c);

    // ---- job references: `ID_[LIST]` names at most MaxArraySize tasks
    // (1001 here), read once however often the list repeats itself; an
    // index at or past MaxArraySize is an invalid job id (job_str_signal)
    let arr = submit(&c, &["--hold", "--array=0-1000", "--wrap=true"]);
    // as long as one argument may be (128 KiB)
    let list = vec!["0-1000"; 18_000].join(",");
    let o = c.run_as(TEST_USER, "scontrol", &["release", &format!("{}_[{}]", arr, list)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = c.run_as(TEST_USER, "scontrol", &["hold", &format!("{}_[0-5,1001]", arr)]);
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("Invalid job id specified"), "{}", o.stderr);
    assert_eq!(c.run("scancel", &[&arr]).code, 0);
    still_serving(&c);

    // ---- --array: a specification repeating itself is read once; one
    // longer than slurmctld's 4096 bytes is refused (_test_job_desc_fields)
    let spec = vec!["0-1000"; 585].join(",");
    assert!(spec.len() <= 4096);
    let big = submit(&c, &["--hold", &format!("--array={}", spec), "--wrap=true"]);
    let q = c.run("squeue", &["-h", "-j", &big, "-o", "%i"]);
    assert_eq!(q.stdout.trim(), format!("{}_[0-1000]", big), "{}", q.stderr);
    assert_eq!(c.run("scancel", &[&big]).code, 0);
    sbatch_refused(
        &c,
        &[&format!("--array={},10", spec), "--wrap=true"],
        "Pathname of a file, directory or other parameter too long",
    );
    still_serving(&c);

    // ---- strings: the script past max_script_size, a name past 1024 bytes
    // (_test_job_desc_fields); the script at the bound is fine
    let too_long = "Pathname of a file, directory or other parameter too long";
    let script = |name: &str, len: usize| {
        let head = "#!/bin/sh\ntrue\n";
        let body = format!("{}{}\n", head, "#".repeat(len - head.len() - 1));
        assert_eq!(body.len(), len);
        let path = c.work.join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        path.to_string_lossy().to_string()
    };
    let at = script("at_bound.sh", 65536);
    let past = script("past_bound.sh", 65537);
    sbatch_refused(&c, &[&past], too_long);
    let ok = submit(&c, &[&at]);
    c.wait_state(&ok, "COMPLETED", T);
    sbatch_refused(&c, &["-J", &"x".repeat(1025), "--wrap=true"], too_long);
    let o = c.run_as(
        TEST_USER,
        "scontrol",
        &["update", &format!("JobId={}", held), &format!("Comment={}", "c".repeat(1025))],
    );
    assert_ne!(o.code, 0, "{}", o.stdout);
    assert!(o.stderr.contains(too_long), "{}", o.stderr);
    still_serving(&c);

    let log = c.ctld_log();
    assert!(!log.contains("panicked"), "{}", log);
}
