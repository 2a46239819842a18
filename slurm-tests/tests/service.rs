//! The daemons as a site's services run them (issue 16): SlurmctldPidFile
//! and SlurmdPidFile, readiness told to systemd through $NOTIFY_SOCKET,
//! SIGUSR2 reopening the log that logrotate moved away, SIGHUP reading
//! slurm.conf again (a new partition appears, the pid stays, a slurm.conf
//! that does not read changes nothing), `scontrol reconfigure` doing the
//! same on every daemon, a clean stop taking the pid files away, and an
//! agent started without -D going into the background. One cluster.

use slurm_tests::*;
use std::os::unix::net::UnixDatagram;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// The messages sent to the notify socket so far.
fn notices(rx: &UnixDatagram, seen: &mut Vec<String>) -> Vec<String> {
    let mut buf = [0u8; 256];
    while let Ok(n) = rx.recv(&mut buf) {
        seen.push(String::from_utf8_lossy(&buf[..n]).to_string());
    }
    seen.clone()
}

fn pid_in(path: &std::path::Path) -> i32 {
    std::fs::read_to_string(path).unwrap_or_default().trim().parse().unwrap_or(0)
}

#[test]
fn daemons_as_services() {
    let sock_dir = std::env::temp_dir().join(format!("spur-notify-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&sock_dir);
    std::fs::create_dir_all(&sock_dir).unwrap();
    let sock = sock_dir.join("notify");
    let rx = UnixDatagram::bind(&sock).unwrap();
    rx.set_nonblocking(true).unwrap();
    let c = Cluster::up_env("service", 2, &[], &[("NOTIFY_SOCKET", &sock.to_string_lossy())]);
    let mut seen = vec![];
    let run = c.dir.join("run");

    // pid files where slurm.conf says, naming the running daemons
    let ctld = c.pid(&c.ctld_name()).unwrap();
    wait_for("the pid files", T, || {
        pid_in(&run.join("slurmctld.pid")) == ctld
            && (1..=2).all(|i| {
                pid_in(&run.join(format!("slurmd-node{}.pid", i))) == c.pid(&format!("spurd-node{}", i)).unwrap()
            })
    });
    // each told systemd it was ready (the controller and two agents)
    wait_for("READY=1 three times", T, || notices(&rx, &mut seen).iter().filter(|m| *m == "READY=1").count() == 3);

    // SIGUSR2: the log moved away is opened again at its path
    let log = c.dir.join("log").join(format!("{}.log", c.ctld_name()));
    std::fs::rename(&log, log.with_extension("log.1")).unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(ctld), nix::sys::signal::Signal::SIGUSR2).unwrap();
    wait_for("a new log", T, || std::fs::read_to_string(&log).unwrap_or_default().contains("again (SIGUSR2)"));
    assert!(!std::fs::read_to_string(log.with_extension("log.1")).unwrap().contains("SIGUSR2"));

    // SIGHUP: slurm.conf read again, in the same process
    let conf = std::fs::read_to_string(&c.conf).unwrap();
    std::fs::write(&c.conf, format!("{}PartitionName=extra Nodes=node2 State=UP\n", conf)).unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(ctld), nix::sys::signal::Signal::SIGHUP).unwrap();
    wait_for("the new partition", T, || c.run("sinfo", &["-h", "-o", "%P"]).stdout.contains("extra"));
    assert_eq!(pid_in(&run.join("slurmctld.pid")), ctld, "the same process");
    let m = notices(&rx, &mut seen);
    let reload = m.iter().position(|x| x == "RELOADING=1").expect("RELOADING=1 sent");
    wait_for("READY=1 after the reload", T, || notices(&rx, &mut seen)[reload..].contains(&"READY=1".to_string()));
    let id = c.sbatch(&["-p", "extra", "-o", "x.out", "--wrap", "echo $SLURMD_NODENAME"]);
    c.wait_state(&id.to_string(), "COMPLETED", T);
    assert_eq!(c.read_work("x.out"), "node2\n");

    // a slurm.conf that does not read: said in the log, nothing changes
    let good = format!("{}PartitionName=extra Nodes=node2 State=UP\n", conf);
    std::fs::write(&c.conf, format!("{}PartitionName=other Nodes=node1\nNoSuchKey=1\n", good)).unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(ctld), nix::sys::signal::Signal::SIGHUP).unwrap();
    wait_for("the refusal in the log", T, || c.ctld_log().contains("Reconfigure failed, going on"));
    std::fs::write(&c.conf, &good).unwrap();
    assert_eq!(c.run("sinfo", &["-h", "-o", "%P"]).ok().stdout, "debug*\nextra\n");

    // an agent's SIGHUP: the same process serves on, and runs jobs
    let agent = c.pid("spurd-node1").unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(agent), nix::sys::signal::Signal::SIGHUP).unwrap();
    wait_for("the agent's reload", T, || c.log("spurd-node1.log").contains("Reconfigure: reading"));
    let id = c.sbatch(&["-w", "node1", "-o", "y.out", "--wrap", "echo $SLURMD_NODENAME"]);
    c.wait_state(&id.to_string(), "COMPLETED", T);
    assert_eq!(c.read_work("y.out"), "node1\n");
    assert_eq!(pid_in(&run.join("slurmd-node1.pid")), agent);

    // scontrol reconfigure: refused to a user; root's reaches the controller
    // and every agent, each reading slurm.conf again in its own process
    let o = c.run_as(TEST_USER, "scontrol", &["reconfigure"]);
    assert_eq!((o.code, o.stderr.as_str()), (1, "slurm_reconfigure error: Invalid user id\n"));
    let reloads = |node: &str| c.log(&format!("spurd-{}.log", node)).matches("Reconfigure: reading").count();
    let (r1, r2) = (reloads("node1"), reloads("node2"));
    std::fs::write(&c.conf, format!("{}PartitionName=third Nodes=node1\n", good)).unwrap();
    let o = c.run("scontrol", &["reconfigure"]);
    assert_eq!((o.code, o.stdout.as_str(), o.stderr.as_str()), (0, "", ""));
    wait_for("the third partition", T, || c.run("sinfo", &["-h", "-o", "%P"]).stdout == "debug*\nextra\nthird\n");
    wait_for("both agents' reloads", T, || reloads("node1") == r1 + 1 && reloads("node2") == r2 + 1);
    assert_eq!(pid_in(&run.join("slurmctld.pid")), ctld, "the same process");

    // a clean stop takes its pid files away and says STOPPING=1
    c.down().ok();
    wait_for("the pid files gone", T, || {
        !run.join("slurmctld.pid").exists()
            && !run.join("slurmd-node1.pid").exists()
            && !run.join("slurmd-node2.pid").exists()
    });
    wait_for("STOPPING=1", T, || notices(&rx, &mut seen).iter().filter(|m| *m == "STOPPING=1").count() == 3);

    // without -D an agent goes into the background, as slurmd does: the
    // command returns at once and the daemon runs on, and a SIGHUP keeps it
    // in the background under the same pid
    let o =
        std::process::Command::new(bin_dir().join("spurd")).args(["-N", "node1", "-f"]).arg(&c.conf).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pid_file = run.join("slurmd-node1.pid");
    wait_for("the background agent's pid file", T, || pid_in(&pid_file) > 0);
    let bg = pid_in(&pid_file);
    assert_eq!(proc_state(bg).map(|s| s != 'Z'), Some(true), "the agent runs on");
    let count = |what: &str| c.log("spurd-node1.log").matches(what).count();
    wait_for("the background agent's start", T, || count(" listening on ") == 4);
    let before = count("Reconfigure: reading");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(bg), nix::sys::signal::Signal::SIGHUP).unwrap();
    wait_for("the background agent's reload", T, || {
        count("Reconfigure: reading") == before + 1 && count(" listening on ") == 5
    });
    assert_eq!(pid_in(&pid_file), bg);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(bg), nix::sys::signal::Signal::SIGTERM).unwrap();
    wait_for("the background agent's end", T, || !pid_file.exists());
    let _ = std::fs::remove_dir_all(&sock_dir);
}
