//! `spur cluster up|down|status`: a whole Spur cluster on one machine, for
//! the demo, the tests and the benchmarks. `up` writes a slurm.conf for a
//! loopback cluster (unless DIR already has one), a cluster key, links named
//! after Slurm's commands in DIR/bin, then starts whichever daemon is not
//! running: the signing service, spurctld and one `spurd -N` per node.
//! Each daemon's pid is in DIR/run/<daemon>-<name>.pid. `down` stops exactly
//! those, then ends the jobs their agents started (found through the spool
//! contract, `spur_spool`) and their supervisors.

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const COMMANDS: &[&str] = &[
    "sbatch", "srun", "salloc", "squeue", "sinfo", "sacct", "sacctmgr", "sstat", "sprio", "sshare", "scancel",
    "scontrol",
];

struct UpOpts {
    dir: PathBuf,
    nodes: u32,
    gpus: u32,
    controllers: u32,
    cpus: u32,
    memory: u64,
    partition: String,
    slurmd_timeout: u32,
    kill_wait: u32,
    wait: bool,
    /// Lines appended to the generated slurm.conf (`--extra-conf FILE`).
    extra_conf: Option<PathBuf>,
    /// The Slurm release to imitate (`--compat 22.05`; see spur_core::compat).
    compat: Option<spur_core::compat::Release>,
    /// A topology.conf for `TopologyPlugin=topology/tree` (`--topology FILE`).
    topology: Option<PathBuf>,
    /// `AuthType=auth/munge` with the munged at this socket (`--munge SOCKET`).
    munge: Option<PathBuf>,
    /// No slurm.key (`--no-key`): under auth/munge the daemons and root's
    /// commands then sign through munged too, as on a Slurm site with munge
    /// only, and no signing service is started.
    no_key: bool,
}

fn usage() -> String {
    "Usage: spur cluster up --dir DIR [--nodes N] [--gpus-per-node G] [--controllers C] [--cpus C] [--memory MB]\n                       [--partition NAME] [--slurmd-timeout S] [--kill-wait S] [--no-wait]\n                       [--extra-conf FILE] [--topology FILE] [--compat 22.05|24.11]\n                       [--munge SOCKET [--no-key]]\n       spur cluster down --dir DIR\n       spur cluster status --dir DIR\n".to_string()
}

pub fn main(args: &[String]) -> i32 {
    let sub = args.first().map(|s| s.as_str()).unwrap_or("");
    let rest = if args.is_empty() { &[][..] } else { &args[1..] };
    let mut o = UpOpts {
        dir: PathBuf::new(),
        nodes: 4,
        gpus: 0,
        controllers: 1,
        cpus: 2,
        memory: 2000,
        partition: "debug".into(),
        slurmd_timeout: 300,
        kill_wait: 30,
        wait: true,
        extra_conf: None,
        compat: None,
        topology: None,
        munge: None,
        no_key: false,
    };
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        let (k, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut val = || -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("spur cluster: option {} needs a value", k))
        };
        let r: Result<(), String> = (|| {
            match k.as_str() {
                "--dir" => o.dir = PathBuf::from(val()?),
                "--nodes" => o.nodes = num(&val()?)?,
                "--gpus-per-node" => o.gpus = num(&val()?)?,
                "--controllers" => o.controllers = num(&val()?)?,
                "--cpus" => o.cpus = num(&val()?)?,
                "--memory" => o.memory = num::<u64>(&val()?)?,
                "--partition" => o.partition = val()?,
                "--slurmd-timeout" => o.slurmd_timeout = num(&val()?)?,
                "--kill-wait" => o.kill_wait = num(&val()?)?,
                "--no-wait" => o.wait = false,
                "--no-key" => o.no_key = true,
                "--extra-conf" => o.extra_conf = Some(PathBuf::from(val()?)),
                "--topology" => o.topology = Some(PathBuf::from(val()?)),
                "--munge" => o.munge = Some(PathBuf::from(val()?)),
                "--compat" => {
                    let v = val()?;
                    o.compat = Some(
                        spur_core::compat::Release::parse(&v)
                            .ok_or_else(|| format!("spur cluster: unknown release '{}' (22.05 or 24.11)", v))?,
                    )
                }
                "-h" | "--help" => return Err(usage()),
                _ => return Err(format!("spur cluster: unknown option {}\n{}", a, usage())),
            }
            Ok(())
        })();
        if let Err(e) = r {
            eprint!("{}", if e.ends_with('\n') { e } else { e + "\n" });
            return 2;
        }
    }
    if o.dir.as_os_str().is_empty() {
        eprint!("spur cluster: --dir is required\n{}", usage());
        return 2;
    }
    if !o.dir.is_absolute() {
        if let Ok(cwd) = std::env::current_dir() {
            o.dir = cwd.join(&o.dir);
        }
    }
    let r = match sub {
        "up" => up(&o),
        "down" => down(&o.dir),
        "status" => status(&o.dir),
        _ => Err(usage()),
    };
    match r {
        Ok(()) => 0,
        Err(e) => {
            eprint!("{}", if e.ends_with('\n') { e } else { e + "\n" });
            1
        }
    }
}

fn num<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("spur cluster: invalid number '{}'", s))
}

fn free_ports(n: usize, controllers: u32) -> Result<Vec<u16>, String> {
    // A run of n+1 consecutive free ports, so the conf can use a range; the first
    // (SlurmctldPort) free on every controller's address too. Taken below the
    // kernel's ephemeral range (ip_local_port_range), where outgoing connections
    // (of this cluster's own commands, of other clusters) cannot take a port
    // between this check and the daemon's bind.
    let (lo, hi) = ephemeral_range();
    let (start, end) = if lo > 12_000 { (10_000u32, lo as u32) } else { (hi as u32 + 1, 65_000u32) };
    let span = end.saturating_sub(start + n as u32 + 1).max(1);
    let mut seed = std::process::id() as u64
        ^ (std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0));
    for _ in 0..500 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let base = (start + ((seed >> 33) as u32 % span)) as u16;
        let mut held = vec![];
        let mut ok = true;
        for i in 1..=controllers {
            match std::net::TcpListener::bind((format!("127.0.0.{}", i).as_str(), base)) {
                Ok(x) => held.push(x),
                Err(_) => ok = false,
            }
        }
        for p in base + 1..=base + n as u16 {
            if !ok {
                break;
            }
            match std::net::TcpListener::bind(("127.0.0.1", p)) {
                Ok(x) => held.push(x),
                Err(_) => ok = false,
            }
        }
        if ok {
            return Ok((base..=base + n as u16).collect());
        }
    }
    Err("spur cluster: no free ports".into())
}

fn ephemeral_range() -> (u16, u16) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| {
            let mut it = s.split_whitespace().filter_map(|x| x.parse().ok());
            Some((it.next()?, it.next()?))
        })
        .unwrap_or((32768, 60999))
}

fn write_conf(o: &UpOpts) -> Result<(), String> {
    if ![1, 3, 5].contains(&o.controllers) {
        return Err("spur cluster: --controllers must be 1, 3 or 5".into());
    }
    if o.nodes == 0 || o.nodes > 1000 {
        return Err("spur cluster: --nodes must be between 1 and 1000".into());
    }
    let d = &o.dir;
    let ports = free_ports(o.nodes as usize, o.controllers)?;
    let host = spur_client::users::short_hostname();
    let n = o.nodes;
    let last = ports[ports.len() - 1];
    let gres = if o.gpus > 0 { format!(" Gres=gpu:{}", o.gpus) } else { String::new() };
    let mut s = String::new();
    s.push_str(&format!("# A Spur cluster on this machine, written by `spur cluster up --dir {}`.\n", d.display()));
    s.push_str("# Slurm's own keys and meanings: Slurm tools read it unchanged.\n");
    s.push_str("ClusterName=spur\n");
    if o.controllers == 1 {
        s.push_str(&format!("SlurmctldHost={}(127.0.0.1)\n", host));
    } else {
        // Raft members on one machine: one loopback address each, same port
        for i in 1..=o.controllers {
            s.push_str(&format!("SlurmctldHost=ctld{}(127.0.0.{})\n", i, i));
        }
    }
    s.push_str(&format!("SlurmctldPort={}\n", ports[0]));
    s.push_str(&format!("SlurmdPort={}\n", ports[1]));
    s.push_str("SlurmUser=root\n");
    match &o.munge {
        // (users' commands through the site's munged; the signing service
        // and the replay cache stay in the cluster's directory)
        Some(m) => {
            s.push_str("AuthType=auth/munge\n");
            s.push_str(&format!("AuthInfo=socket={},spur_socket={}/run/auth.socket\n", m.display(), d.display()));
        }
        None => {
            s.push_str("AuthType=auth/slurm\n");
            s.push_str(&format!("AuthInfo=socket={}/run/auth.socket\n", d.display()));
        }
    }
    s.push_str("CredType=cred/slurm\n");
    s.push_str(&format!("StateSaveLocation={}/state\n", d.display()));
    s.push_str(&format!("SlurmdSpoolDir={}/spool/slurmd.%n\n", d.display()));
    // (several controllers on one machine are each given a log of their own: -L)
    if o.controllers == 1 {
        s.push_str(&format!("SlurmctldLogFile={}/log/spurctld-{}.log\n", d.display(), host));
    }
    s.push_str(&format!("SlurmdLogFile={}/log/spurd-%n.log\n", d.display()));
    s.push_str(&format!("SlurmctldPidFile={}/run/slurmctld.pid\n", d.display()));
    s.push_str(&format!("SlurmdPidFile={}/run/slurmd-%n.pid\n", d.display()));
    s.push_str(&format!("SlurmdTimeout={}\n", o.slurmd_timeout));
    s.push_str(&format!("KillWait={}\n", o.kill_wait));
    s.push_str("ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=none\nReturnToService=2\n");
    s.push_str("SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n");
    s.push_str("DefMemPerCPU=500\n");
    if o.gpus > 0 {
        s.push_str("GresTypes=gpu\n");
    }
    s.push_str(&format!(
        "NodeName=node[1-{}] NodeAddr=127.0.0.1 Port=[{}-{}] CPUs={} Sockets=1 CoresPerSocket={} ThreadsPerCore=1 RealMemory={}{} State=UNKNOWN\n",
        n,
        ports[1],
        last,
        o.cpus,
        o.cpus,
        o.memory,
        gres
    ));
    s.push_str(&format!("PartitionName={} Nodes=node[1-{}] Default=YES MaxTime=INFINITE State=UP\n", o.partition, n));
    if let Some(p) = &o.topology {
        let t = std::fs::read(p).map_err(|e| format!("spur cluster: {}: {}", p.display(), e))?;
        std::fs::write(d.join("topology.conf"), t).map_err(|e| e.to_string())?;
        s.push_str("TopologyPlugin=topology/tree\n");
    }
    if let Some(p) = &o.extra_conf {
        let extra = std::fs::read_to_string(p).map_err(|e| format!("spur cluster: {}: {}", p.display(), e))?;
        s.push_str(&extra);
        if !extra.is_empty() && !extra.ends_with('\n') {
            s.push('\n');
        }
    }
    std::fs::write(d.join("slurm.conf"), s)
        .map_err(|e| format!("spur cluster: {}: {}", d.join("slurm.conf").display(), e))?;
    if o.gpus > 0 {
        let g = format!("AutoDetect=off\nNodeName=node[1-{}] Name=gpu Count={}\n", n, o.gpus);
        std::fs::write(d.join("gres.conf"), g).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn exe_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .and_then(|p| p.parent().map(|x| x.to_path_buf()))
        .unwrap_or_else(|| PathBuf::from("."))
}

fn daemon_bin(name: &str) -> Result<PathBuf, String> {
    let p = exe_dir().join(name);
    if p.exists() {
        Ok(p)
    } else {
        Err(format!("spur cluster: cannot find {} next to the spur binary ({})", name, p.display()))
    }
}

/// The pid in a pid file if that process is alive and runs `bin`.
pub fn alive(pidfile: &Path, bin: &str) -> Option<i32> {
    let pid: i32 = std::fs::read_to_string(pidfile).ok()?.trim().parse().ok()?;
    let cmd = std::fs::read(format!("/proc/{}/cmdline", pid)).ok()?;
    let argv0 = cmd.split(|b| *b == 0).next().unwrap_or(&[]);
    let argv0 = String::from_utf8_lossy(argv0);
    if argv0.ends_with(bin) {
        // a zombie is not alive
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid)).ok()?;
        let state = stat.rsplit(')').next()?.split_whitespace().next()?;
        if state == "Z" {
            return None;
        }
        Some(pid)
    } else {
        None
    }
}

fn spawn_daemon(bin: &Path, args: &[String], log: &Path, pidfile: &Path, conf: &Path) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("{}: {}", log.display(), e))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut c = std::process::Command::new(bin);
    c.args(args).env("SLURM_CONF", conf).stdin(std::process::Stdio::null()).stdout(out).stderr(err);
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: setsid(2) is one, and nothing is
    // allocated (its error, which a new child cannot get, is dropped).
    unsafe {
        c.pre_exec(|| {
            let _ = nix::unistd::setsid();
            Ok(())
        });
    }
    let child = c.spawn().map_err(|e| format!("spur cluster: cannot start {}: {}", bin.display(), e))?;
    std::fs::write(pidfile, format!("{}\n", child.id())).map_err(|e| e.to_string())?;
    // The daemon is reaped by init once we exit; do not wait for it here.
    std::mem::forget(child);
    Ok(())
}

fn up(o: &UpOpts) -> Result<(), String> {
    let d = &o.dir;
    if let Some(r) = o.compat {
        // inherited by every daemon started below (no other thread runs yet);
        // the commands read the file beside slurm.conf (below)
        std::env::set_var(spur_core::compat::ENV, r.name());
    }
    for sub in ["bin", "run", "log", "state", "spool"] {
        let p = d.join(sub);
        // the controllers' state (every job's environment and script) is
        // theirs alone; the spool is slurmd's 0755 (jobs pass through it)
        let made = if sub == "state" {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&p)
        } else if sub == "spool" {
            spur_spool::create_spool_dir(&p)
        } else {
            std::fs::create_dir_all(&p)
        };
        made.map_err(|e| format!("spur cluster: {}: {}", p.display(), e))?;
    }
    let conf_path = d.join("slurm.conf");
    if !conf_path.exists() {
        write_conf(o)?;
    }
    // the release the cluster imitates, for every command that reads this
    // slurm.conf (kept when the cluster is brought up again without --compat)
    if let Some(r) = o.compat {
        std::fs::write(d.join(spur_core::compat::FILE), format!("{}\n", r.name())).map_err(|e| e.to_string())?;
    } else if let Some(r) = std::fs::read_to_string(d.join(spur_core::compat::FILE))
        .ok()
        .and_then(|v| spur_core::compat::Release::parse(v.trim()))
    {
        // a cluster made with --compat keeps its release for the daemons started again
        std::env::set_var(spur_core::compat::ENV, r.name());
    }
    let key = spur_auth::key_path(&conf_path);
    if !key.exists() && !o.no_key {
        spur_auth::create_key(&key).map_err(|e| format!("spur cluster: {}: {}", key.display(), e))?;
    }
    let conf = spur_core::config::load(&conf_path).map_err(|e| e.to_string())?;
    // links named after Slurm's commands
    let spur = exe_dir().join("spur");
    for c in COMMANDS.iter().chain(["spur"].iter()) {
        let l = d.join("bin").join(c);
        let _ = std::fs::remove_file(&l);
        std::os::unix::fs::symlink(&spur, &l).map_err(|e| format!("spur cluster: {}: {}", l.display(), e))?;
    }
    let spurd = daemon_bin("spurd")?;
    let spurctld = daemon_bin("spurctld")?;
    // the agents start it from beside their own binary
    daemon_bin("spurstepd")?;
    for (name, target) in [("spurd", &spurd), ("spurctld", &spurctld)] {
        let l = d.join("bin").join(name);
        let _ = std::fs::remove_file(&l);
        let _ = std::os::unix::fs::symlink(target, &l);
    }
    let run = d.join("run");
    let log = d.join("log");
    let cs = conf_path.to_string_lossy().to_string();
    // 1. signing service
    let pf = run.join("authd-local.pid");
    if alive(&pf, "spurd").is_none() && key.exists() {
        spawn_daemon(&spurd, &["--authd".into(), "-f".into(), cs.clone()], &log.join("authd.log"), &pf, &conf_path)?;
    }
    // 2. controllers
    let several = conf.controllers.len() > 1;
    for (i, c) in conf.controllers.iter().enumerate() {
        let pf = run.join(format!("spurctld-{}.pid", c.name));
        if alive(&pf, "spurctld").is_none() {
            let mut args: Vec<String> = vec!["-D".into(), "-f".into(), cs.clone(), "--id".into(), (i + 1).to_string()];
            if several {
                // Raft members never share a state directory
                let sd = d.join("state").join(&c.name);
                args.extend(["--state-dir".into(), sd.to_string_lossy().to_string()]);
                args.extend(["-L".into(), log.join(format!("spurctld-{}.log", c.name)).to_string_lossy().to_string()]);
            }
            spawn_daemon(&spurctld, &args, &log.join(format!("spurctld-{}.out", c.name)), &pf, &conf_path)?;
        }
    }
    // 3. agents
    for n in &conf.nodes {
        let pf = run.join(format!("spurd-{}.pid", n.name));
        if alive(&pf, "spurd").is_none() {
            spawn_daemon(
                &spurd,
                &["-D".into(), "-N".into(), n.name.clone(), "-f".into(), cs.clone()],
                &log.join(format!("spurd-{}.out", n.name)),
                &pf,
                &conf_path,
            )?;
        }
    }
    if o.wait {
        wait_ready(&conf_path, conf.nodes.len())?;
    }
    println!("export SLURM_CONF={}", conf_path.display());
    println!("export PATH={}/bin:$PATH", d.display());
    Ok(())
}

/// Wait until the controller answers and every node has registered.
fn wait_ready(conf_path: &Path, nodes: usize) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let client = spur_client::Client::from_conf_path(conf_path).map_err(|e| e.to_string())?;
    let start = Instant::now();
    rt.block_on(async {
        loop {
            let q = spur_core::request::Query { nodes: true, ..Default::default() };
            if let Ok(v) = client.query(&q).await {
                let up = v
                    .nodes
                    .iter()
                    .filter(|n| n.base != spur_core::model::NodeBase::Unknown && !n.flags.not_responding)
                    .count();
                if up >= nodes {
                    return Ok(());
                }
            }
            if start.elapsed() > Duration::from_secs(60) {
                return Err(format!(
                    "spur cluster: the cluster did not come up within 60 s (see {}/log)",
                    conf_path.parent().unwrap_or(Path::new(".")).display()
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
}

fn kill_wait(pid: i32, timeout: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if signal::kill(Pid::from_raw(pid), None).is_err() {
            return true;
        }
        // a zombie waiting for its reaper is gone too
        let zombie = std::fs::read_to_string(format!("/proc/{}/stat", pid))
            .ok()
            .and_then(|s| s.rsplit(')').next().and_then(|r| r.split_whitespace().next()).map(|st| st == "Z"))
            .unwrap_or(true);
        if zombie {
            return true;
        }
        // reap if it is our child (it is not, normally)
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn down(dir: &Path) -> Result<(), String> {
    let run = dir.join("run");
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(&run) {
        Ok(r) => r
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|x| x == "pid").unwrap_or(false))
            .collect(),
        Err(_) => vec![],
    };
    entries.sort();
    // agents and controllers first, the signing service last
    entries.sort_by_key(|p| p.file_name().map(|f| f.to_string_lossy().starts_with("authd")).unwrap_or(false));
    // Signal every daemon first, then wait for them together.
    let mut stopping = vec![];
    for pf in &entries {
        let fname = pf.file_name().unwrap_or_default().to_string_lossy().to_string();
        let bin = if fname.starts_with("spurctld") { "spurctld" } else { "spurd" };
        if let Some(pid) = alive(pf, bin) {
            let _ = signal::kill(Pid::from_raw(pid), Signal::SIGTERM);
            stopping.push(pid);
        }
    }
    for pid in stopping {
        if !kill_wait(pid, Duration::from_secs(5)) {
            let _ = signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
            kill_wait(pid, Duration::from_secs(2));
        }
    }
    for pf in &entries {
        let _ = std::fs::remove_file(pf);
    }
    // then the jobs their agents started, as an agent ends them, and their
    // supervisors (see spur_spool::end_all_jobs)
    for spool in spool_dirs(dir) {
        spur_spool::end_all_steps(&spool);
        spur_spool::end_all_jobs(&spool);
    }
    Ok(())
}

/// The agents' spool directories: each node's `SlurmdSpoolDir` in the
/// cluster's slurm.conf, and whatever is under DIR/spool (where `up` puts
/// them).
fn spool_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Ok(conf) = spur_core::config::load(&dir.join("slurm.conf")) {
        out.extend(conf.nodes.iter().map(|n| PathBuf::from(conf.spool_dir_for(&n.name))));
    }
    if let Ok(rd) = std::fs::read_dir(dir.join("spool")) {
        out.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    out.sort();
    out.dedup();
    out
}

fn status(dir: &Path) -> Result<(), String> {
    let run = dir.join("run");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&run)
        .map_err(|e| format!("spur cluster: {}: {}", run.display(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().map(|x| x == "pid").unwrap_or(false))
        .collect();
    entries.sort();
    for pf in entries {
        let fname = pf.file_stem().unwrap_or_default().to_string_lossy().to_string();
        let bin = if fname.starts_with("spurctld") { "spurctld" } else { "spurd" };
        match alive(&pf, bin) {
            Some(pid) => println!("{:<24} running (pid {})", fname, pid),
            None => println!("{:<24} stopped", fname),
        }
    }
    Ok(())
}
