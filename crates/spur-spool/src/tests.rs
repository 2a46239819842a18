use super::*;
use spur_core::model::Job;
use std::process::{Command, Stdio};

/// A fresh directory under the system's temp dir, removed when dropped.
struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("spur-spool-{}-{}", tag, std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn spec(id: u32, restarts: u32) -> LaunchSpec {
    LaunchSpec {
        job: Job { job_id: id, restart_count: restarts, ..Default::default() },
        node_name: "n1".into(),
        cluster_name: "c".into(),
        ctld_host: "ctl".into(),
        ctld_port: 6817,
        kill_wait: 30,
        submit_host: "login".into(),
        working_cluster: String::new(),
        mem_check_secs: 0,
    }
}

#[test]
fn spec_bin_is_the_launch_spec_in_its_envelope() {
    let t = Tmp::new("spec");
    let dir = job_dir(&t.0, 7);
    let s = spec(7, 2);
    write_spec(&dir, &s).unwrap();
    // the bytes of a launch request's payload (spur_core::records)
    assert_eq!(
        fs::read(dir.join(SPEC_FILE)).unwrap(),
        spur_core::records::encode_launch(&s, spur_format::FORMAT_VERSION).unwrap()
    );
    assert_eq!(read_spec(&dir).unwrap(), s);
    assert!(has_spec(&dir));
    assert!(!dir.join("spec.bin.tmp").exists());
    fs::write(dir.join(SPEC_FILE), b"not bincode").unwrap();
    assert_eq!(read_spec(&dir).unwrap_err().kind(), io::ErrorKind::InvalidData);
}

#[test]
fn job_dir_names() {
    let t = Tmp::new("names");
    assert_eq!(job_dir(&t.0, 12), t.0.join("job00012"));
    // a directory of an earlier spurd keeps its name
    fs::create_dir(t.0.join("job13")).unwrap();
    assert_eq!(job_dir(&t.0, 13), t.0.join("job13"));
    assert_eq!(job_id_of(Path::new("/s/job00012")), Some(12));
    assert_eq!(job_id_of(Path::new("/s/job5")), Some(5));
    assert_eq!(job_id_of(Path::new("/s/jobx")), None);
    assert_eq!(job_id_of(Path::new("/s/job")), None);
    assert_eq!(job_id_of(Path::new("/s/cred")), None);
    fs::create_dir(t.0.join("job00002")).unwrap();
    fs::create_dir(t.0.join("other")).unwrap();
    fs::write(t.0.join("job00003"), "a file, not a job").unwrap();
    assert_eq!(job_dirs(&t.0), vec![(2, t.0.join("job00002")), (13, t.0.join("job13"))]);
}

#[test]
fn status_is_whole_or_absent() {
    let t = Tmp::new("status");
    assert_eq!(read_status(&t.0), None);
    assert!(!has_status(&t.0));
    write_status(&t.0, 9 << 8).unwrap();
    assert_eq!(fs::read_to_string(t.0.join(STATUS_FILE)).unwrap(), "2304\n");
    assert_eq!(read_status(&t.0), Some(2304));
    assert!(!t.0.join("status.tmp").exists());
}

#[test]
fn proc_file_counts_whole_lines_and_reads_an_earlier_layout() {
    let t = Tmp::new("proc");
    let d = &t.0;
    let none = ProcInfo::default();
    assert_eq!(read_proc(d), none);
    let put = |s: &str| fs::write(d.join(PROC_FILE), s).unwrap();
    let info = |sup, script, stderr: Option<&str>| ProcInfo {
        supervisor: sup,
        script,
        stderr: stderr.map(String::from),
        started: None,
    };
    put("12");
    assert_eq!(read_proc(d), none);
    put("123\n");
    assert_eq!(read_proc(d), info(Some(123), None, None));
    put("123\n45");
    assert_eq!(read_proc(d), info(Some(123), None, None));
    put("123\n456\n/home/u/slurm-7.out");
    assert_eq!(read_proc(d), info(Some(123), Some(456), Some("/home/u/slurm-7.out")));
    // version 1 on, the same after its version line (a whole one)
    put("spur-proc 1");
    assert_eq!(read_proc(d), none);
    put("spur-proc 1\n123\n456\n/home/u/slurm-7.out");
    assert_eq!(read_proc(d), info(Some(123), Some(456), Some("/home/u/slurm-7.out")));
    // a newer layout says nothing (the reason goes to stderr)
    put(&format!("spur-proc {}\n123\n456\n/e", PROC_VERSION + 1));
    assert_eq!(read_proc(d), none);
    // the start times after the stderr path and a NUL, once whole
    put("spur-proc 1\n123\n456\n/home/u/slurm-7.out\x0017 18");
    assert_eq!(read_proc(d), info(Some(123), Some(456), Some("/home/u/slurm-7.out")));
    put("spur-proc 1\n123\n456\n/home/u/slurm-7.out\x0017 18\n");
    assert_eq!(
        read_proc(d),
        ProcInfo { started: Some((17, 18)), ..info(Some(123), Some(456), Some("/home/u/slurm-7.out")) }
    );
    // the writer produces the current layout
    let w = ProcWriter::create(d).unwrap();
    assert!(fs::read_to_string(d.join(PROC_FILE)).unwrap().starts_with("spur-proc 1\n"));
    assert_eq!(read_proc(d), info(Some(std::process::id() as i32), None, None));
    let mut child = Command::new("sleep").arg("300").spawn().unwrap();
    let pid = child.id() as i32;
    w.script_started(pid, b"/home/u/slurm-7.out").unwrap();
    let me = start_time(std::process::id() as i32).unwrap();
    let started = Some((me, start_time(pid).unwrap()));
    assert_eq!(
        read_proc(d),
        ProcInfo { started, ..info(Some(std::process::id() as i32), Some(pid), Some("/home/u/slurm-7.out")) }
    );
    let _ = child.kill();
    let _ = child.wait();
    // a reader of the layout before the start times reads the same pids
    let text = fs::read_to_string(d.join(PROC_FILE)).unwrap();
    let v1: Vec<&str> = text.splitn(4, '\n').collect();
    assert_eq!(v1[1..3], [std::process::id().to_string(), pid.to_string()]);
    // a job started by an earlier spurd: one file per fact
    fs::remove_file(d.join(PROC_FILE)).unwrap();
    fs::write(d.join(legacy::SUPERVISOR_PID), "77\n").unwrap();
    fs::write(d.join(legacy::JOB_PGID), "78\n").unwrap();
    fs::write(d.join(legacy::STDERR_PATH), "/tmp/e.err").unwrap();
    assert_eq!(read_proc(d), info(Some(77), Some(78), Some("/tmp/e.err")));
}

#[test]
fn done_log_outlives_a_restart_and_folds_the_old_layout() {
    let t = Tmp::new("done");
    let log = DoneLog::open(&t.0);
    assert!(!log.contains(5, 0));
    log.add(5, 0);
    log.add(6, 1);
    assert!(log.contains(5, 0) && log.contains(6, 1) && !log.contains(6, 0));
    drop(log);
    let text = fs::read_to_string(t.0.join(DONE_LOG)).unwrap();
    assert_eq!(text.lines().count(), 2, "{}", text);
    assert!(text.starts_with("5 0 "), "{}", text);
    // an earlier spurd's one file per mark
    fs::create_dir(t.0.join(legacy::DONE_DIR)).unwrap();
    fs::write(t.0.join(legacy::DONE_DIR).join("9.3"), "").unwrap();
    let log = DoneLog::open(&t.0);
    assert!(log.contains(5, 0) && log.contains(6, 1) && log.contains(9, 3));
    assert!(!t.0.join(legacy::DONE_DIR).exists());
    assert_eq!(fs::read_to_string(t.0.join(DONE_LOG)).unwrap().lines().count(), 3);
    // old marks go; the file is rewritten with the rest
    fs::write(t.0.join(DONE_LOG), "1 0 100\n2 0 99999999999\n").unwrap();
    let log = DoneLog::open(&t.0);
    log.prune(86_400);
    assert!(!log.contains(1, 0) && log.contains(2, 0));
    assert_eq!(fs::read_to_string(t.0.join(DONE_LOG)).unwrap(), "2 0 99999999999\n");
    log.add(3, 0);
    assert_eq!(fs::read_to_string(t.0.join(DONE_LOG)).unwrap().lines().count(), 2);
}

/// A stand-in supervisor: a shell whose command line names `dir` (as
/// `spurstepd DIR` does; here it is `$0`), with a child `sleep` carrying `marker` as its argv[0]
/// in a process group of its own, as the script's is; its pids go to
/// `supervisor.proc`.
fn fake_job(dir: &Path, marker: &str) -> std::process::Child {
    fs::create_dir_all(dir).unwrap();
    // the marker comes from the environment, so that only the two sleeps
    // carry it in their command line
    let script = "set -m; bash -c 'exec -a \"$M\" sleep 300' & echo $! > \"$0/child\"; bash -c 'exec -a \"$M\" sleep 301' & wait";
    let before = count(marker);
    let child =
        Command::new("bash").args(["-c", script]).arg(dir).env("M", marker).stdin(Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    let script_pid = loop {
        let pid = fs::read_to_string(dir.join("child")).ok().and_then(|s| s.trim().parse::<i32>().ok());
        match pid {
            Some(p) if count(marker) == before + 2 => break p,
            _ => {}
        }
        assert!(start.elapsed() < Duration::from_secs(10), "the fake job did not start");
        std::thread::sleep(Duration::from_millis(10));
    };
    fs::write(dir.join(PROC_FILE), format!("{}\n{}\n/dev/null", child.id(), script_pid)).unwrap();
    child
}

/// Processes whose command line holds `marker`.
fn count(marker: &str) -> usize {
    let mut n = 0;
    for e in fs::read_dir("/proc").unwrap().flatten() {
        if e.file_name().to_str().map(|s| s.bytes().all(|b| b.is_ascii_digit())) != Some(true) {
            continue;
        }
        if let Ok(c) = fs::read(e.path().join("cmdline")) {
            if c.windows(marker.len()).any(|w| w == marker.as_bytes()) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn the_supervisor_is_known_by_its_command_line() {
    let t = Tmp::new("sup");
    let dir = job_dir(&t.0, 1);
    let marker = format!("spur-spool-test-sleep-a-{}", std::process::id());
    let mut child = fake_job(&dir, &marker);
    assert_eq!(supervisor_pid(&dir), Some(child.id() as i32));
    let (script, procs) = job_processes(&dir);
    assert_eq!(procs.len(), 2, "{:?}", procs);
    assert!(procs.contains(&script.unwrap()));
    assert_eq!(scan(&t.0), vec![JobDirState { job_id: 1, dir: dir.clone(), running: true, status: None }]);
    // the same pid in another job's directory is not that job's supervisor
    let other = job_dir(&t.0, 2);
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join(PROC_FILE), format!("{}\n", child.id())).unwrap();
    assert_eq!(supervisor_pid(&other), None);
    assert_eq!(job_processes(&other).1, Vec::<i32>::new());
    terminate_job(&dir, 0, None);
    assert_eq!(count(&marker), 0);
    child.wait().unwrap();
    assert_eq!(supervisor_pid(&dir), None);
}

#[test]
fn end_all_jobs_leaves_no_process_behind() {
    let t = Tmp::new("end");
    let marker = format!("spur-spool-test-sleep-b-{}", std::process::id());
    let mut a = fake_job(&job_dir(&t.0, 1), &marker);
    let mut b = fake_job(&job_dir(&t.0, 2), &marker);
    assert_eq!(count(&marker), 4);
    // a finished job is left alone
    fs::create_dir_all(job_dir(&t.0, 3)).unwrap();
    write_status(&job_dir(&t.0, 3), 0).unwrap();
    assert_eq!(end_all_jobs(&t.0), 2);
    assert_eq!(count(&marker), 0, "every process of both jobs is gone");
    a.wait().unwrap();
    b.wait().unwrap();
}

/// The spool files of a job started by the build of each format version
/// (`tests/fixtures/vN`, written by crates/spur-state/tests/fixtures/make.sh
/// while the job ran; version 0: bincode and no version line, before
/// versioned formats): its launch spec and its process file read.
fn spool_files_read(version: &str) {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(version);
    let t = Tmp::new(&format!("fixture-{}", version));
    for f in [SPEC_FILE, PROC_FILE] {
        fs::copy(fx.join(f), t.0.join(f)).unwrap();
    }
    let spec = read_spec(&t.0).unwrap();
    assert_eq!((spec.job.job_id, spec.job.desc.name.as_str(), spec.job.restart_count), (3, "run", 0));
    assert_eq!((spec.node_name.as_str(), spec.cluster_name.as_str(), spec.kill_wait), ("node1", "spur", 30));
    assert_eq!((spec.job.time_limit, spec.job.allocs.len(), spec.job.allocs[0].node.as_str()), (Some(100), 1, "node1"));
    assert!(spec.job.desc.script.contains("sleep 3600"));
    assert_eq!(spec.job.desc.std_out.as_deref(), Some("/dev/null"));
    assert_eq!(spec.working_cluster, "");
    let p = read_proc(&t.0);
    let (sup, script) = (p.supervisor.unwrap(), p.script.unwrap());
    assert!(sup > 1 && script > sup, "{:?}", p);
    assert_eq!(p.stderr.as_deref(), Some("/dev/null"));
    // the start times, since the build of version 3
    let n: u32 = version.trim_start_matches('v').parse().unwrap_or(0);
    assert_eq!(p.started.is_some(), n >= 3, "{:?}", p);
    if let Some((sup, script)) = p.started {
        assert!(sup > 0 && script >= sup, "{:?}", p);
    }
}

#[test]
fn version_0_spool_files_read() {
    spool_files_read("v0");
}

#[test]
fn version_1_spool_files_read() {
    spool_files_read("v1");
}

#[test]
fn version_2_spool_files_read() {
    spool_files_read("v2");
}

#[test]
fn version_3_spool_files_read() {
    spool_files_read("v3");
}

#[test]
fn version_4_spool_files_read() {
    spool_files_read("v4");
    step_spec_reads("v4");
}

/// A step's part on a node, as its agent wrote it.
fn step_spec_reads(version: &str) {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(version);
    let t = Tmp::new(&format!("fixture-{}-step", version));
    let dir = step_dir(&t.0, 11, 0);
    fs::create_dir_all(&dir).unwrap();
    fs::copy(fx.join("step-spec.bin"), dir.join(SPEC_FILE)).unwrap();
    let s = read_step_spec(&dir).unwrap();
    assert_eq!(
        (s.job.job_id, s.step.step_id, s.step.name.as_str(), s.io.argv.clone()),
        (11, 0, "step", vec!["sleep".to_string(), "3600".to_string()])
    );
    assert_eq!((s.job.desc.name.as_str(), s.user_name.as_str(), s.io.io_key.len()), ("alloc", "root", 32));
    assert_eq!(step_dirs(&t.0), vec![(11, 0, dir)]);
}

#[test]
fn version_5_spool_files_read() {
    spool_files_read("v5");
    step_spec_reads("v5");
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v5");
    let t = Tmp::new("fixture-v5-step");
    let dir = step_dir(&t.0, 11, 0);
    fs::create_dir_all(&dir).unwrap();
    fs::copy(fx.join("step-spec.bin"), dir.join(SPEC_FILE)).unwrap();
    let s = read_step_spec(&dir).unwrap();
    assert_eq!((s.job.job_id, s.step.step_id, s.step.usage.len()), (11, 0, 0));
}

#[test]
fn version_6_spool_files_read() {
    spool_files_read("v6");
    step_spec_reads("v6");
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v6");
    let t = Tmp::new("fixture-v6-step");
    let dir = step_dir(&t.0, 11, 0);
    fs::create_dir_all(&dir).unwrap();
    fs::copy(fx.join("step-spec.bin"), dir.join(SPEC_FILE)).unwrap();
    let s = read_step_spec(&dir).unwrap();
    assert_eq!((s.job.job_id, s.step.step_id, s.step.resv_ports.as_str()), (11, 0, "12000-12001"));
}

#[test]
fn version_7_spool_files_read() {
    spool_files_read("v7");
    step_spec_reads("v7");
}

#[test]
fn version_8_spool_files_read() {
    spool_files_read("v8");
    step_spec_reads("v8");
}

#[test]
fn version_9_spool_files_read() {
    spool_files_read("v9");
    step_spec_reads("v9");
}

#[test]
fn version_10_spool_files_read() {
    spool_files_read("v10");
    step_spec_reads("v10");
}

#[test]
fn version_11_spool_files_read() {
    spool_files_read("v11");
    step_spec_reads("v11");
}

#[test]
fn version_12_spool_files_read() {
    spool_files_read("v12");
    step_spec_reads("v12");
}

#[test]
fn version_13_spool_files_read() {
    spool_files_read("v13");
    step_spec_reads("v13");
}

/// A step's tasks and usage files read back; a line of another shape is
/// skipped, a missing file is none.
#[test]
fn step_tasks_and_usage_files() {
    let t = Tmp::new("step-files");
    let dir = step_dir(&t.0, 3, 1);
    fs::create_dir_all(&dir).unwrap();
    assert_eq!(read_step_tasks(&dir), None);
    assert_eq!(read_step_usage(&dir), None);
    let tasks = StepTasks {
        stepd: Some((1, 2)),
        cgroup: Some(PathBuf::from("/cg/spur/n1/job_3/step_1")),
        tasks: vec![(10, 0, 4), (11, 1, 5)],
    };
    write_step_tasks(&dir, &tasks, Some(1500)).unwrap();
    assert_eq!(read_step_tasks(&dir), Some(tasks));
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(dir.join(STEP_TASKS_FILE)).unwrap();
    assert_eq!((m.uid(), m.mode() & 0o777), (1500, 0o600));
    // a step daemon that is not running (pid 1 did not start at tick 2): no pids
    assert_eq!(step_pids(&dir), None);
    fs::write(dir.join(STEP_TASKS_FILE), "task 1 2\ntask -1 0 0\nnext 9\nstepd x 1\ntask 7 0 1\n").unwrap();
    assert_eq!(read_step_tasks(&dir), Some(StepTasks { stepd: None, cgroup: None, tasks: vec![(7, 0, 1)] }));
    // this process as the step daemon: its children are the step's
    let me = std::process::id() as i32;
    let mut child = Command::new("sleep").arg("30").spawn().unwrap();
    let t2 =
        StepTasks { stepd: Some((me, start_time(me).unwrap())), cgroup: None, tasks: vec![(child.id() as i32, 0, 3)] };
    write_step_tasks(&dir, &t2, None).unwrap();
    let p = step_pids(&dir).unwrap();
    assert_eq!(p.tasks, vec![(child.id() as i32, 0, 3)]);
    // without a cgroup, as proctrack/linuxproc: descendants only
    assert!(!p.others.contains(&me) && !p.others.contains(&(child.id() as i32)), "{:?}", p);
    let _ = child.kill();
    let _ = child.wait();
    let u = spur_core::usage::NodeUsage { node: "n1".into(), ntasks: 2, max_rss_kb: 9, ..Default::default() };
    write_step_usage(&dir, &u).unwrap();
    assert_eq!(read_step_usage(&dir), Some(u));
    // no step daemon runs there: no live usage
    assert_eq!(step_usage(&t.0, 3, 1), None);
}

/// A spec.bin written by a newer build: the error names the file and both versions.
#[test]
fn a_newer_spec_file_is_refused_naming_it() {
    let t = Tmp::new("newer");
    let mut b = fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2").join(SPEC_FILE)).unwrap();
    let newer = spur_format::FORMAT_VERSION + 1;
    b[5..7].copy_from_slice(&newer.to_le_bytes());
    fs::write(t.0.join(SPEC_FILE), &b).unwrap();
    let e = read_spec(&t.0).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    let e = e.to_string();
    assert!(
        e.starts_with(&format!(
            "{}: launch spec is in format version {}, newer than",
            t.0.join(SPEC_FILE).display(),
            newer
        )),
        "{}",
        e
    );
}

#[test]
fn cancel_line_is_slurmstepds() {
    let t = slurm_time(1_700_000_000);
    assert_eq!(
        cancel_line(12, "node1", 1_700_000_000, Note::Cancelled),
        format!("slurmstepd-node1: error: *** JOB 12 ON node1 CANCELLED AT {} ***\n", t)
    );
    assert_eq!(
        cancel_line(12, "node1", 1_700_000_000, Note::TimeLimit),
        format!("slurmstepd-node1: error: *** JOB 12 ON node1 CANCELLED AT {} DUE TO TIME LIMIT ***\n", t)
    );
    assert_eq!(
        cancel_line(12, "node1", 1_700_000_000, Note::Preemption),
        format!("slurmstepd-node1: error: *** JOB 12 ON node1 CANCELLED AT {} DUE TO PREEMPTION ***\n", t)
    );
    // each note has its own signal, and a terminate posted before the
    // script runs keeps its note
    for n in [Note::Cancelled, Note::TimeLimit, Note::Preemption] {
        assert_eq!(Note::of_signal(n.signal() as i32), Some(n));
        let p = Pending::Terminate { kill_wait: 3, note: Some(n) };
        assert_eq!(Pending::parse(&p.to_line()), Some(p));
    }
}

#[test]
fn no_supervisor_no_cancel_note() {
    let tmp = Tmp::new("note");
    assert!(!request_cancel_note(&tmp.0, Note::Cancelled).unwrap());
}

/// The mode bits of `p` (permissions only).
fn mode_of(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn spool_files_are_the_owners_only_from_their_first_byte() {
    let t = Tmp::new("modes");
    let spool = t.0.join("spool");
    create_spool_dir(&spool).unwrap();
    assert_eq!(mode_of(&spool), 0o755);
    // (an existing one is set to it, as slurmd does)
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&spool, fs::Permissions::from_mode(0o700)).unwrap();
    }
    create_spool_dir(&spool).unwrap();
    assert_eq!(mode_of(&spool), 0o755);
    let dir = job_dir(&spool, 5);
    write_spec(&dir, &spec(5, 0)).unwrap();
    assert_eq!(mode_of(&dir), 0o700);
    assert_eq!(mode_of(&dir.join(SPEC_FILE)), 0o600);
    // a temporary file left by a crash, readable by all: not reused
    for tmp in ["status.tmp", "spec.bin.tmp"] {
        use std::os::unix::fs::PermissionsExt;
        fs::write(dir.join(tmp), "left over").unwrap();
        fs::set_permissions(dir.join(tmp), fs::Permissions::from_mode(0o644)).unwrap();
    }
    write_status(&dir, 0).unwrap();
    write_spec(&dir, &spec(5, 0)).unwrap();
    assert_eq!(mode_of(&dir.join(SPEC_FILE)), 0o600);
    assert_eq!(mode_of(&dir.join(STATUS_FILE)), 0o600);
    ProcWriter::create(&dir).unwrap();
    assert_eq!(mode_of(&dir.join(PROC_FILE)), 0o600);
    // an existing job directory keeps its mode (the supervisor's 0750)
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o750)).unwrap();
    }
    write_spec(&dir, &spec(5, 1)).unwrap();
    assert_eq!((mode_of(&dir), mode_of(&dir.join(SPEC_FILE))), (0o750, 0o600));
    let done = DoneLog::open(&spool);
    done.add(5, 0);
    assert_eq!(mode_of(&spool.join(DONE_LOG)), 0o600);
    done.prune(i64::MAX);
    assert_eq!(mode_of(&spool.join(DONE_LOG)), 0o600);
}

/// A process given exactly `pid` (the pid namespace's `ns_last_pid`, root
/// only; another process forking in between may take it, so tried again),
/// as user `uid`: a later process of someone else at an ended one's pid.
fn spawn_at_pid(pid: i32, uid: u32, marker: &str) -> Option<std::process::Child> {
    use std::os::unix::process::CommandExt;
    for _ in 0..500 {
        fs::write("/proc/sys/kernel/ns_last_pid", format!("{}", pid - 1)).ok()?;
        let mut c = Command::new("sleep").arg0(marker).arg("300").uid(uid).stdin(Stdio::null()).spawn().ok()?;
        if c.id() as i32 == pid {
            return Some(c);
        }
        let _ = c.kill();
        let _ = c.wait();
    }
    None
}

/// Issue 9, point 8: the supervisor died (here: the process named as the
/// supervisor is not one, its command line names no job directory), the
/// script ended, and another user's process was given the script's pid:
/// the agent's signals (cancel, time limit, `scancel -s`, `cluster down`)
/// must never reach it. The pid is really reused (through ns_last_pid).
/// Before the start times were recorded, every one of them killed it.
#[test]
fn a_reused_pid_is_never_signalled() {
    if !nix::unistd::geteuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "this test needs root (ns_last_pid)");
        eprintln!("skipped: needs root (ns_last_pid)");
        return;
    }
    let t = Tmp::new("reuse");
    let dir = job_dir(&t.0, 1);
    fs::create_dir_all(&dir).unwrap();
    let w = ProcWriter::create(&dir).unwrap();
    let mut script = Command::new("sleep").arg("300").stdin(Stdio::null()).spawn().unwrap();
    let pid = script.id() as i32;
    w.script_started(pid, b"/dev/null").unwrap();
    // while it runs, it is the job's
    assert_eq!(job_processes(&dir), (Some(pid), vec![pid]));
    script.kill().unwrap();
    script.wait().unwrap();
    assert_eq!(job_processes(&dir).1, Vec::<i32>::new());
    // another user's process at its pid, a clock tick later at least (start
    // times are in ticks, 10 ms: a pid does not come round again sooner
    // unless forced, as here, through ns_last_pid)
    std::thread::sleep(Duration::from_millis(30));
    let marker = format!("spur-spool-test-reused-{}", std::process::id());
    let mut other = spawn_at_pid(pid, 65534, &marker).expect("a process given the ended script's pid");
    assert_eq!(count(&marker), 1);
    assert_eq!(job_processes(&dir), (Some(pid), vec![]), "a later process at the script's pid is not the job's");
    signal_job(&dir, libc_sig(Signal::SIGKILL), true).unwrap();
    signal_job(&dir, libc_sig(Signal::SIGKILL), false).unwrap();
    terminate_job(&dir, 0, None);
    assert_eq!(end_all_jobs(&t.0), 1);
    assert!(other.try_wait().unwrap().is_none(), "the other user's process was signalled");
    assert_eq!(count(&marker), 1);
    // nor is a process naming the job's directory in its command line (as
    // the supervisor's does) taken for the supervisor unless it started when
    // the supervisor did
    use std::os::unix::process::CommandExt;
    let mut sup = Command::new("sleep").arg0(&dir).arg("300").stdin(Stdio::null()).spawn().unwrap();
    let sup_start = start_time(sup.id() as i32).unwrap();
    let put = |started: u64| {
        let text = format!("spur-proc 1\n{}\n{}\n/dev/null\x00{} {}\n", sup.id(), pid, started, 1);
        fs::write(dir.join(PROC_FILE), text).unwrap()
    };
    put(sup_start + 1);
    assert_eq!(supervisor_pid(&dir), None);
    assert!(!request_cancel_note(&dir, Note::Cancelled).unwrap());
    put(sup_start);
    assert_eq!(supervisor_pid(&dir), Some(sup.id() as i32));
    let _ = sup.kill();
    let _ = sup.wait();
    let _ = other.kill();
    let _ = other.wait();
}

fn libc_sig(s: Signal) -> i32 {
    s as i32
}
