//! End-to-end tests of the supervisor: real processes, a real non-root user
//! (`spurtest`, uid 1500, created when missing), run as root.
//!
//! The supervisor is started the way the agent starts it (detached, its own
//! process): the test binary re-executes itself running only
//! `supervise_entry`, which calls `run()` for the directory named in
//! `SPUR_TEST_SUPERVISE`.

use super::*;
use crate::iopattern::tests::job;
use spur_core::model::NodeAlloc;
use spur_spool::{
    cleanup, pid_alive, read_proc, read_status, scan, signal_job, terminate_job, write_spec, JobDirState, SCRIPT_FILE,
    SOCKET_NAME, STATUS_FILE,
};
use std::ffi::OsStr;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;

const TEST_UID: u32 = 1500;

/// Not a test of its own: the body of the re-executed supervisor.
#[test]
fn supervise_entry() {
    if let Ok(dir) = std::env::var("SPUR_TEST_SUPERVISE") {
        let rc = run(Path::new(&dir));
        std::process::exit(rc);
    }
}

fn is_root() -> bool {
    unistd::geteuid().is_root()
}

/// The tests that run a job as another user need root and the user
/// `spurtest` (created here when missing). Without them a test is skipped
/// where `CI` is not set (a developer's `cargo test` as themselves), and
/// fails where it is: CI never passes without having run them.
fn root_and_user() -> bool {
    let why = if !is_root() {
        "needs root"
    } else if !ensure_user() {
        "needs the user spurtest (uid 1500), which could not be created"
    } else {
        return true;
    };
    if std::env::var_os("CI").is_some() {
        panic!("this test {} (CI is set: it may not be skipped)", why);
    }
    eprintln!("skipped: this test {}", why);
    false
}

fn ensure_user() -> bool {
    if unistd::User::from_name("spurtest").ok().flatten().map(|u| u.uid.as_raw()) == Some(TEST_UID) {
        return true;
    }
    let _ =
        std::process::Command::new("useradd").args(["-u", "1500", "-U", "-m", "-s", "/bin/bash", "spurtest"]).status();
    unistd::User::from_name("spurtest").ok().flatten().map(|u| u.uid.as_raw()) == Some(TEST_UID)
}

/// A fresh spool (0755) and a work directory owned by the test user.
fn setup(name: &str) -> (PathBuf, PathBuf) {
    // Directories of earlier runs whose test process is gone.
    let prefix = format!("spur-sup-test-{}-", name);
    if let Ok(rd) = fs::read_dir("/tmp") {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = n.strip_prefix(&prefix).and_then(|p| p.parse::<i32>().ok()) {
                if !pid_alive(pid) {
                    let _ = fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let base = PathBuf::from(format!("/tmp/spur-sup-test-{}-{}", name, std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let spool = base.join("spool");
    let work = base.join("work");
    fs::create_dir_all(&spool).unwrap();
    fs::create_dir_all(&work).unwrap();
    for d in [&base, &spool] {
        fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
    }
    unistd::chown(&work, Some(Uid::from_raw(TEST_UID)), Some(Gid::from_raw(TEST_UID))).unwrap();
    (spool, work)
}

fn spec_for(id: u32, work: &Path, script: &str) -> LaunchSpec {
    let mut j = job(id);
    j.user_id = TEST_UID;
    j.group_id = TEST_UID;
    j.user_name = "spurtest".into();
    j.group_name = "spurtest".into();
    j.desc.work_dir = work.to_string_lossy().into_owned();
    j.desc.script = script.to_string().into();
    j.desc.env =
        vec![("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()), ("SLURM_UMASK".into(), "0027".into())].into();
    j.allocs = vec![NodeAlloc { node: "n1".into(), cpus: 2, mem_mb: 100, gres: vec![] }];
    j.start_time = 1_700_000_000;
    LaunchSpec {
        job: j,
        node_name: "n1".into(),
        cluster_name: "spurc".into(),
        ctld_host: "ctl".into(),
        ctld_port: 6817,
        kill_wait: 2,
        submit_host: "login1".into(),
        working_cluster: String::new(),
        mem_check_secs: 0,
    }
}

/// Start the test binary detached, as the agent starts spurstepd (stdin and
/// stdout on /dev/null, stderr inherited, working directory `/`).
fn spawn_detached(exe: &Path, args: &[&OsStr], envs: &[(&str, &OsStr)]) -> io::Result<std::process::Child> {
    let mut cmd = std::process::Command::new(exe);
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .current_dir("/");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    // The supervisor takes SIGCHLD and the agent's requests with sigwait,
    // blocked since `run`; spurstepd has one thread, but here libtest's
    // threads come first: they inherit the blocked mask from the exec, so
    // no other thread takes those signals.
    // SAFETY: sigprocmask(2) is async-signal-safe and allocates nothing.
    unsafe {
        cmd.pre_exec(|| {
            let _ = waited_signals().thread_block();
            Ok(())
        });
    }
    cmd.spawn()
}

fn start(spool: &Path, spec: &LaunchSpec) -> PathBuf {
    let dir = spool.join(format!("job{}", spec.job.job_id));
    write_spec(&dir, spec).unwrap();
    let exe = std::env::current_exe().unwrap();
    let child = spawn_detached(
        &exe,
        &[
            OsStr::new("--exact"),
            OsStr::new("supervisor::tests::supervise_entry"),
            OsStr::new("--nocapture"),
            OsStr::new("--test-threads=1"),
            dir.as_os_str(),
        ],
        &[("SPUR_TEST_SUPERVISE", dir.as_os_str())],
    )
    .unwrap();
    // reaped when it ends, as the agent reaps its step daemons
    let mut child = child;
    std::thread::spawn(move || child.wait());
    dir
}

fn wait_file(p: &Path, secs: u64) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if p.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn wait_contains(p: &Path, what: &str, secs: u64) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if fs::read_to_string(p).map(|s| s.contains(what)).unwrap_or(false) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn status_of(dir: &Path) -> i32 {
    assert!(wait_file(&dir.join(STATUS_FILE), 60), "no status in {}", dir.display());
    let st = read_status(dir).unwrap();
    assert_ne!(
        (libc::WIFEXITED(st), libc::WEXITSTATUS(st)),
        (true, crate::alloc_guard::ALLOCATED),
        "the script's process allocated between fork and execve"
    );
    st
}

#[test]
fn runs_as_the_user_with_slurm_env_and_files() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("run");
    let listener = UnixListener::bind(spool.join(SOCKET_NAME)).unwrap();
    let script = "#!/bin/sh\nid -u\nid -G\necho \"ARGS=$*\"\necho \"ZERO=$0\"\numask\npwd\nenv | sort\necho to-stderr >&2\nexit 0\n";
    let mut spec = spec_for(201, &work, script);
    spec.job.desc.argv = vec!["/submitted/job.sh".into(), "a".into(), "b c".into()];
    let dir = start(&spool, &spec);
    assert_eq!(status_of(&dir), 0);

    let out_path = work.join("slurm-201.out");
    let md = fs::metadata(&out_path).unwrap();
    assert_eq!(md.uid(), TEST_UID, "output file owned by the user");
    assert_eq!(md.mode() & 0o777, 0o640, "0666 less the submitted umask 027");
    let out = fs::read_to_string(&out_path).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "1500");
    assert!(lines[1].split(' ').any(|g| g == "1500"), "{}", lines[1]);
    assert_eq!(lines[2], "ARGS=a b c");
    assert_eq!(lines[3], format!("ZERO={}", dir.join(SCRIPT_FILE).display()));
    assert_eq!(lines[4], "0027");
    assert_eq!(lines[5], work.to_string_lossy());
    for want in [
        "SLURM_JOB_ID=201",
        "SLURM_JOBID=201",
        "SLURM_JOB_NAME=myjob",
        "SLURM_JOB_NODELIST=n1",
        "SLURM_CPUS_ON_NODE=2",
        "SLURM_JOB_UID=1500",
        "SLURM_JOB_USER=spurtest",
        "SLURM_JOB_GID=1500",
        "SLURMD_NODENAME=n1",
        "SLURM_SUBMIT_HOST=login1",
        "ENVIRONMENT=BATCH",
        "HOSTNAME=n1",
        "TMPDIR=/tmp",
        "SLURM_OOM_KILL_STEP=0",
    ] {
        assert!(lines.contains(&want), "missing {} in\n{}", want, out);
    }
    assert!(!out.contains("SLURM_UMASK="));
    let pid_line = lines.iter().find(|l| l.starts_with("SLURM_TASK_PID=")).unwrap();
    let pgid: i32 = read_proc(&dir).script.unwrap();
    assert_eq!(*pid_line, format!("SLURM_TASK_PID={}", pgid));
    assert!(out.ends_with("to-stderr\n"), "stderr joins stdout by default");

    // The script: the user's, 0700; the directory root's.
    let smd = fs::metadata(dir.join(SCRIPT_FILE)).unwrap();
    assert_eq!((smd.uid(), smd.mode() & 0o777), (TEST_UID, 0o700));
    let dmd = fs::metadata(&dir).unwrap();
    assert_eq!((dmd.uid(), dmd.gid(), dmd.mode() & 0o777), (0, TEST_UID, 0o750));

    // The agent was told.
    listener.set_nonblocking(false).unwrap();
    let (mut s, _) = listener.accept().unwrap();
    let mut msg = String::new();
    s.read_to_string(&mut msg).unwrap();
    assert_eq!(msg, "done 201\n");

    let st = scan(&spool);
    assert_eq!(st, vec![JobDirState { job_id: 201, dir: dir.clone(), running: false, status: Some(0) }]);
    cleanup(&dir).unwrap();
    assert!(!dir.exists());
    assert!(scan(&spool).is_empty());
}

#[test]
fn exit_code_patterns_and_append() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("pat");
    fs::write(work.join("in.txt"), "from-input\n").unwrap();
    let mut spec = spec_for(202, &work, "#!/bin/sh\ncat\necho e >&2\nexit 3\n");
    spec.job.desc.std_out = Some("sub/o-%j-%u-%x.txt".into());
    spec.job.desc.std_err = Some("e-%4j.txt".into());
    spec.job.desc.std_in = Some("in.txt".into());
    let dir = start(&spool, &spec);
    let st = status_of(&dir);
    assert_eq!((libc::WIFEXITED(st), libc::WEXITSTATUS(st)), (true, 3));
    // The missing directory was created, as the user.
    let o = work.join("sub/o-202-spurtest-myjob.txt");
    assert_eq!(fs::read_to_string(&o).unwrap(), "from-input\n");
    assert_eq!(fs::metadata(work.join("sub")).unwrap().uid(), TEST_UID);
    assert_eq!(fs::read_to_string(work.join("e-0202.txt")).unwrap(), "e\n");

    // --open-mode=append keeps what was there.
    let mut spec = spec_for(203, &work, "#!/bin/sh\necho second\n");
    spec.job.desc.std_out = Some("app.txt".into());
    spec.job.desc.open_mode_append = Some(true);
    fs::write(work.join("app.txt"), "first\n").unwrap();
    // Opened as the user: a root-owned file would not be writable.
    unistd::chown(&work.join("app.txt"), Some(Uid::from_raw(TEST_UID)), None).unwrap();
    let dir = start(&spool, &spec);
    assert_eq!(status_of(&dir), 0);
    assert_eq!(fs::read_to_string(work.join("app.txt")).unwrap(), "first\nsecond\n");
}

#[test]
fn bad_work_dir_falls_back_to_tmp() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("cwd");
    let mut spec = spec_for(204, Path::new("/nonexistent-spur-dir"), "#!/bin/sh\npwd\n");
    spec.job.desc.std_out = Some(work.join("cwd-%j.out").to_string_lossy().into_owned());
    let dir = start(&spool, &spec);
    assert_eq!(status_of(&dir), 0);
    let out = fs::read_to_string(work.join("cwd-204.out")).unwrap();
    assert_eq!(
        out,
        "slurmstepd-n1: error: couldn't chdir to `/nonexistent-spur-dir': No such file or directory: going to /tmp instead\n/tmp\n"
    );
}

#[test]
fn unwritable_output_fails_like_slurm() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("io");
    let locked = work.parent().unwrap().join("rootonly");
    fs::create_dir_all(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    let mut spec = spec_for(205, &work, "#!/bin/sh\necho never\n");
    spec.job.desc.std_out = Some(locked.join("x/out-%j").to_string_lossy().into_owned());
    let dir = start(&spool, &spec);
    let st = status_of(&dir);
    assert_eq!(st, ESLURMD_IO_ERROR);
    // Slurm shows this as ExitCode=0:53.
    assert_eq!((libc::WIFSIGNALED(st), libc::WTERMSIG(st)), (true, 53));
    assert!(!locked.join("x").exists());
}

#[test]
fn missing_interpreter_exits_with_errno() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("interp");
    let spec = spec_for(206, &work, "#!/no/such/shell\necho x\n");
    let dir = start(&spool, &spec);
    let st = status_of(&dir);
    assert_eq!((libc::WIFEXITED(st), libc::WEXITSTATUS(st)), (true, libc::ENOENT));
    let out = fs::read_to_string(work.join("slurm-206.out")).unwrap();
    assert_eq!(out, "slurmstepd-n1: error: execve(): bad interpreter(/no/such/shell): No such file or directory\n");
}

#[test]
fn terminate_kills_a_script_ignoring_sigterm_after_kill_wait() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("term");
    let script = "#!/bin/bash\ntrap 'echo got TERM' TERM\nsetsid sleep 1000 &\necho $! > escaped.pid\necho started\nwhile :; do sleep 0.2; done\n";
    let spec = spec_for(207, &work, script);
    let dir = start(&spool, &spec);
    let out = work.join("slurm-207.out");
    assert!(wait_contains(&out, "started", 30));
    let escaped: i32 = fs::read_to_string(work.join("escaped.pid")).unwrap().trim().parse().unwrap();
    assert!(pid_alive(escaped));
    let st = scan(&spool);
    assert_eq!(st.len(), 1);
    assert!(st[0].running && st[0].status.is_none());

    let t0 = Instant::now();
    terminate_job(&dir, 2, None);
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(1900), "waited KillWait: {:?}", took);
    let status = status_of(&dir);
    assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL, "status {}", status);
    assert!(fs::read_to_string(&out).unwrap().contains("got TERM"));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!pid_alive(escaped), "the process that left the group was killed");
    // Signalling a finished job is fine.
    signal_job(&dir, libc::SIGTERM, false).unwrap();
}

#[test]
fn signal_batch_only_and_leftovers_killed_at_end() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("sig");
    let script = "#!/bin/bash\ntrap 'echo got USR1; exit 0' USR1\nsleep 1000 &\necho $! > bg.pid\necho started\nwhile :; do sleep 0.1; done\n";
    let spec = spec_for(208, &work, script);
    let dir = start(&spool, &spec);
    let out = work.join("slurm-208.out");
    assert!(wait_contains(&out, "started", 30));
    let bg: i32 = fs::read_to_string(work.join("bg.pid")).unwrap().trim().parse().unwrap();
    signal_job(&dir, libc::SIGUSR1, true).unwrap();
    assert_eq!(status_of(&dir), 0);
    assert!(fs::read_to_string(&out).unwrap().contains("got USR1"));
    // The background sleep (only the script was signalled) is gone too.
    std::thread::sleep(Duration::from_millis(200));
    assert!(!pid_alive(bg));
}

#[test]
fn terminate_a_cooperative_job_returns_early() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("coop");
    let spec = spec_for(209, &work, "#!/bin/sh\necho started\nsleep 1000\n");
    let dir = start(&spool, &spec);
    assert!(wait_contains(&work.join("slurm-209.out"), "started", 30));
    assert!(spur_spool::request_cancel_note(&dir, spur_spool::Note::TimeLimit).unwrap());
    let t0 = Instant::now();
    terminate_job(&dir, 30, None);
    assert!(t0.elapsed() < Duration::from_secs(20));
    let st = status_of(&dir);
    assert!(libc::WIFSIGNALED(st) && libc::WTERMSIG(st) == libc::SIGTERM, "status {}", st);
    let out = fs::read_to_string(work.join("slurm-209.out")).unwrap();
    let want = "started\nslurmstepd-n1: error: *** JOB 209 ON n1 CANCELLED AT ";
    assert!(
        out.starts_with(want) && out.ends_with(" DUE TO TIME LIMIT ***\n") && out.lines().count() == 2,
        "{:?}",
        out
    );
}

/// A signal or a cancel that reaches the node after the job directory is
/// there but before the script runs (the agent's request raced the launch)
/// is carried out by the supervisor once the script has started: not lost,
/// and not carried out twice.
#[test]
fn requests_before_the_script_runs_are_not_lost() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("early");
    // a signal: the script's default action for SIGUSR1 ends it
    let spec = spec_for(211, &work, "#!/bin/sh\necho started\nsleep 1000\n");
    let dir = spool.join("job211");
    write_spec(&dir, &spec).unwrap();
    signal_job(&dir, libc::SIGUSR1, false).unwrap();
    let pending = |dir: &Path| {
        fs::read_dir(dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("pending.")).count()
    };
    assert_eq!(pending(&dir), 1, "posted for the supervisor");
    start(&spool, &spec);
    let st = status_of(&dir);
    assert!(libc::WIFSIGNALED(st) && libc::WTERMSIG(st) == libc::SIGUSR1, "status {}", st);
    assert_eq!(pending(&dir), 0);

    // a time-limit kill, with its line: SIGTERM first, SIGKILL after KillWait
    let spec =
        spec_for(212, &work, "#!/bin/bash\ntrap 'echo got TERM' TERM\necho started\nwhile :; do sleep 0.1; done\n");
    let dir = spool.join("job212");
    write_spec(&dir, &spec).unwrap();
    terminate_job(&dir, 1, Some(spur_spool::Note::TimeLimit));
    start(&spool, &spec);
    let st = status_of(&dir);
    // (SIGKILL after KillWait, or SIGTERM itself if it came before the
    // script's trap was set)
    assert!(libc::WIFSIGNALED(st) && [libc::SIGTERM, libc::SIGKILL].contains(&libc::WTERMSIG(st)), "status {}", st);
    let out = fs::read_to_string(work.join("slurm-212.out")).unwrap();
    assert!(
        out.contains("slurmstepd-n1: error: *** JOB 212 ON n1 CANCELLED AT ")
            && out.contains(" DUE TO TIME LIMIT ***\n"),
        "{:?}",
        out
    );

    // once the script runs, the agent carries out what it asks itself
    let spec = spec_for(213, &work, "#!/bin/sh\necho started\nsleep 1000\n");
    let dir = start(&spool, &spec);
    assert!(wait_contains(&work.join("slurm-213.out"), "started", 30));
    signal_job(&dir, libc::SIGKILL, false).unwrap();
    let st = status_of(&dir);
    assert!(libc::WIFSIGNALED(st) && libc::WTERMSIG(st) == libc::SIGKILL, "status {}", st);
    assert_eq!(pending(&dir), 0);
}

/// The cancel line goes through the supervisor's descriptor of the job's
/// stderr: a path the job has since pointed at root's file (or made a FIFO)
/// is never opened.
#[test]
fn cancel_line_goes_to_the_file_the_job_started_with() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("note");
    let victim = work.with_file_name("victim");
    fs::write(&victim, "root's\n").unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o644)).unwrap();
    let script = format!(
        "#!/bin/sh\necho started\nln slurm-210.out keep\nln -sf {} slurm-210.out\nmkfifo fifo\necho ready > ready\nsleep 1000\n",
        victim.display()
    );
    let spec = spec_for(210, &work, &script);
    let dir = start(&spool, &spec);
    assert!(wait_contains(&work.join("ready"), "ready", 30));
    assert!(spur_spool::request_cancel_note(&dir, spur_spool::Note::Cancelled).unwrap());
    // a second request writes nothing more
    assert!(spur_spool::request_cancel_note(&dir, spur_spool::Note::TimeLimit).unwrap());
    terminate_job(&dir, 30, None);
    let st = status_of(&dir);
    assert!(libc::WIFSIGNALED(st), "status {}", st);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "root's\n");
    let out = fs::read_to_string(work.join("keep")).unwrap();
    let want = "started\nslurmstepd-n1: error: *** JOB 210 ON n1 CANCELLED AT ";
    assert!(out.starts_with(want) && out.ends_with(" ***\n") && out.lines().count() == 2, "{:?}", out);
}

#[test]
fn garbage_spec_still_writes_a_status() {
    let base = PathBuf::from(format!("/tmp/spur-sup-test-garbage-{}", std::process::id()));
    let dir = base.join("job77");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(spur_spool::SPEC_FILE), b"not bincode").unwrap();
    assert_eq!(run(&dir), 0);
    assert_eq!(read_status(&dir), Some(ESLURMD_CREATE_BATCH_DIR_ERROR));
    let st = scan(&base);
    assert_eq!(st[0].job_id, 77);
    assert!(!st[0].running);
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn root_job_and_unknown_user() {
    if !root_and_user() {
        return;
    }
    let (spool, work) = setup("ids");
    let mut spec = spec_for(210, &work, "#!/bin/sh\nid -u\n");
    spec.job.user_id = 0;
    spec.job.group_id = 0;
    spec.job.user_name = "root".into();
    let dir = start(&spool, &spec);
    assert_eq!(status_of(&dir), 0);
    assert_eq!(fs::read_to_string(work.join("slurm-210.out")).unwrap(), "0\n");

    // A uid without a passwd entry on this node still runs, as that uid.
    fs::set_permissions(&work, fs::Permissions::from_mode(0o1777)).unwrap();
    let mut spec = spec_for(211, &work, "#!/bin/sh\nid -u\n");
    spec.job.user_id = 15999;
    spec.job.group_id = 15999;
    spec.job.user_name = "spur-no-such-user".into();
    let dir = start(&spool, &spec);
    assert_eq!(status_of(&dir), 0);
    let out = work.join("slurm-211.out");
    assert_eq!(fs::read_to_string(&out).unwrap(), "15999\n");
    assert_eq!(fs::metadata(&out).unwrap().uid(), 15999);
}

#[test]
fn the_childs_data_is_made_before_the_fork() {
    let mut buf = [0xffu8; 32];
    fill_task_pid(&mut buf, 4_294_967_295);
    assert_eq!(&buf[..26], b"SLURM_TASK_PID=4294967295\0");
    fill_task_pid(&mut buf, 0);
    assert_eq!(CStr::from_bytes_until_nul(&buf).unwrap(), c"SLURM_TASK_PID=0");
    assert_eq!(parent_dirs(c"/a/b/out-%j"), [c"/a".to_owned(), c"/a/b".to_owned()]);
    assert_eq!(parent_dirs(c"sub/o.txt"), [c"sub".to_owned()]);
    assert!(parent_dirs(c"/out").is_empty());
    assert_eq!(strerror(libc::ENOENT), "No such file or directory");
    let v = [c"a".to_owned(), c"bc".to_owned()];
    let a = c_array(&v);
    assert_eq!((a.len(), a[2]), (3, std::ptr::null()));
    assert_eq!(a[1], v[1].as_ptr());
}
