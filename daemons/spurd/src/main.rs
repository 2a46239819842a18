//! spurd: the node agent (`spurd -N NAME`) and the local credential signing
//! service (`spurd --authd`). The agent runs each job step through a step
//! daemon of its own (`spurstepd JOBDIR`, daemons/spurstepd), so that jobs
//! outlive agent restarts.

mod stepd;

use spur_client::Client;
use spur_core::config::SlurmConf;
use spur_core::errors::*;
use spur_core::launch::LaunchSpec;
use spur_proto::agent_server::{Agent, AgentServer};
use spur_proto::*;
use spur_spool::DoneLog;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tonic::{Request, Response};

const USAGE: &str = "Usage: spurd -N NODENAME [-D] [-f slurm.conf] [-L logfile]\n       spurd --authd [-f slurm.conf]";

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let mut node: Option<String> = None;
    let mut conf_path = spur_core::config::default_path();
    let mut log: Option<PathBuf> = None;
    let mut authd = false;
    // -D or --systemd: stay in the foreground (else the agent goes into the
    // background once slurm.conf has been read, as slurmd does)
    let mut foreground = false;
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-N" => node = it.next().cloned(),
            "-f" => conf_path = it.next().map(PathBuf::from).unwrap_or(conf_path),
            "-L" => log = it.next().map(PathBuf::from),
            // (--systemd: readiness goes to $NOTIFY_SOCKET whenever it is
            // set; -s, Debian 12's unit: slurmd's working directory)
            "-D" | "--systemd" => foreground = true,
            "-c" | "-s" => {}
            "--authd" => authd = true,
            "-V" | "--version" => {
                print!("{}", spur_core::compat::spur_version_line());
                return;
            }
            _ if a.starts_with("-N") && a.len() > 2 => node = Some(a[2..].to_string()),
            _ => {
                eprintln!("spurd: unknown option {}\n{}", a, USAGE);
                std::process::exit(2);
            }
        }
    }
    let conf = match spur_core::config::load(&conf_path) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{}", e.report("spurd"));
            std::process::exit(1);
        }
    };
    // slurmd reads gres.conf at start when slurm.conf names GresTypes (it
    // ignores the file otherwise; 22.05 and 24.11 measured) and will not run
    // with a bad one
    let gres_conf = if conf.gres_types.is_empty() {
        None
    } else {
        match spur_core::config::load_gres_conf(&conf_path) {
            Ok(g) => g,
            Err(e) => {
                eprint!("{}", e.report("spurd"));
                std::process::exit(1);
            }
        }
    };
    if authd {
        spur_daemon::init_logging("spurd", "info", log.as_deref());
    }
    if let (Some(lines), Some(n)) = (&gres_conf, &node) {
        let mine = lines.iter().filter(|l| match &l.node_name {
            None => true,
            Some(expr) => spur_grammar::hostlist::expand(expr).map(|h| h.iter().any(|x| x == n)).unwrap_or(false),
        });
        tracing::info!("gres.conf: {} line(s) for {}", mine.count(), n);
    }
    // Step supervisors inherit it (jobs see it as SLURM_CONF).
    std::env::set_var("SLURM_CONF", &conf_path);
    let key_path = spur_auth::key_path(&conf_path);
    if authd {
        let key = match spur_auth::read_key(&key_path) {
            Ok(k) => k,
            Err(e) => {
                eprintln!("spurd: fatal: cannot read key {}: {}", key_path.display(), e);
                std::process::exit(1);
            }
        };
        let sock = spur_auth::socket_path(conf.get("AuthType"), conf.auth_info.as_deref());
        if let Err(e) = spur_auth::serve_signer(&sock, key, spur_auth::legacy_enabled(conf.auth_info.as_deref())) {
            eprintln!("spurd: fatal: signing service on {}: {}", sock.display(), e);
            std::process::exit(1);
        }
        return;
    }
    let node = match node {
        Some(n) => n,
        None => {
            let h = spur_auth::users::short_hostname();
            if conf.node(&h).is_some() {
                h
            } else {
                eprintln!("spurd: fatal: Unable to determine this slurmd's NodeName");
                std::process::exit(1);
            }
        }
    };
    if conf.node(&node).is_none() {
        eprintln!("spurd: fatal: Unable to determine this slurmd's NodeName");
        std::process::exit(1);
    }
    if !foreground {
        if let Err(e) = spur_daemon::detach() {
            eprintln!("spurd: fatal: cannot go into the background: {}", e);
            std::process::exit(1);
        }
    }
    // -L, else SlurmdLogFile, else stderr; SlurmdPidFile (both with %n, %h)
    let host = conf.node(&node).map(|n| n.hostname.clone()).unwrap_or_else(|| node.clone());
    let expand = |p: &str| PathBuf::from(spur_core::config::expand_node_pattern(p, &node, &host));
    let log =
        spur_daemon::init_logging("spurd", "info", log.or_else(|| conf.get("SlurmdLogFile").map(expand)).as_deref());
    let pid_file = expand(conf.get("SlurmdPidFile").unwrap_or(spur_daemon::SLURMD_PID_FILE));
    let service = spur_daemon::Service { conf: conf_path.clone(), log, pid_file };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    rt.block_on(agent_main(conf, conf_path, node, service));
}

/// How long a termination that came before its run's launch is remembered.
const EARLY_END_TTL: Duration = Duration::from_secs(600);

/// A step cancel kept by the agent: when it came, its signal and KillWait.
type StepCancel = (Instant, i32, u32);

struct AgentState {
    node: String,
    spool: PathBuf,
    /// The step daemon binary (`spurstepd` beside this one).
    exe: PathBuf,
    slurm_user_uid: u32,
    done_tx: mpsc::UnboundedSender<u32>,
    /// Launches are decided one at a time: two copies of one launch (a retry,
    /// a new leader's re-send) arriving together must start one run.
    launching: tokio::sync::Mutex<()>,
    tombs: Arc<DoneLog>,
    /// Terminations that came before their run's launch (a job cancelled
    /// while its launch was on the way): job id -> (run, when, why). The run
    /// is ended as soon as it lands; entries older than `EARLY_END_TTL` go.
    early_ends: std::sync::Mutex<HashMap<u32, (u32, Instant, StopReason)>>,
    /// Step cancels (srun's abort, scancel of a step), kept a while: a
    /// cancel can reach this node before the step's launch does, or while
    /// its step daemon starts, and must end the step as soon as it runs
    /// here. (job, step) -> (when, signal, KillWait).
    step_cancels: std::sync::Mutex<HashMap<(u32, u32), StepCancel>>,
    /// For forwarding step launches down the tree to other agents.
    auth: spur_auth::grpc::DaemonAuth,
    transport: spur_auth::tls::Transport,
    legacy: bool,
}

/// A run's spool directory with its launch spec, and its supervisor started.
fn place_and_spawn(exe: &Path, dir: &Path, spec: &LaunchSpec) -> std::io::Result<()> {
    spur_spool::write_spec(dir, spec)?;
    stepd::spawn(exe, dir)
}

/// Which run of its job a spool directory holds.
fn run_of(dir: &Path) -> Option<u32> {
    spur_spool::read_spec(dir).ok().map(|s| s.job.restart_count)
}

async fn agent_main(conf: SlurmConf, conf_path: PathBuf, node: String, service: spur_daemon::Service) {
    let nc = conf.node(&node).cloned().expect("checked above");
    let spool = PathBuf::from(conf.spool_dir_for(&node));
    if let Err(e) = spur_spool::create_spool_dir(&spool) {
        eprintln!("spurd: fatal: cannot create spool directory {}: {}", spool.display(), e);
        std::process::exit(1);
    }
    // slurm.key, or under auth/munge without one the site's munged
    let (auth, gate_key) =
        match spur_auth::grpc::DaemonAuth::load(&conf_path, conf.get("AuthType"), conf.auth_info.as_deref())
            .and_then(|a| a.gate_key().map(|k| (a, k)))
        {
            Ok(a) => a,
            Err(e) => {
                eprintln!("spurd: fatal: {}", e);
                std::process::exit(1);
            }
        };
    let transport = spur_auth::tls::Transport::from_conf(
        conf.get("TLSType"),
        conf.get("TLSParameters"),
        conf_path.parent().unwrap_or(Path::new("/")),
        spur_auth::tls::Role::Agent,
    )
    .unwrap_or_else(|e| {
        eprintln!("spurd: fatal: {}", e);
        std::process::exit(1);
    });
    let exe = stepd::stepd_path();
    let (done_tx, done_rx) = mpsc::unbounded_channel::<u32>();
    let tombs = Arc::new(DoneLog::open(&spool));
    let st = Arc::new(AgentState {
        node: node.clone(),
        spool: spool.clone(),
        exe,
        slurm_user_uid: spur_auth::users::uid_of(&conf.slurm_user).unwrap_or(0),
        done_tx: done_tx.clone(),
        launching: tokio::sync::Mutex::new(()),
        tombs: tombs.clone(),
        early_ends: Default::default(),
        step_cancels: Default::default(),
        auth: auth.clone(),
        transport: transport.clone(),
        legacy: spur_auth::legacy_enabled(conf.auth_info.as_deref()),
    });
    // its calls to the controller are signed as an agent's
    let client = Client::new(conf.clone(), &conf_path).with_signer(auth.signer(spur_auth::Kind::Agent));

    // Completion notices from supervisors.
    let sock = spur_spool::socket_path(&spool);
    let _ = std::fs::remove_file(&sock);
    match tokio::net::UnixListener::bind(&sock) {
        Ok(l) => {
            let tx = done_tx.clone();
            let client = client.clone();
            let node = node.clone();
            tokio::spawn(async move {
                loop {
                    if let Ok((mut s, _)) = l.accept().await {
                        let tx = tx.clone();
                        let client = client.clone();
                        let node = node.clone();
                        tokio::spawn(async move {
                            use tokio::io::AsyncReadExt;
                            let mut buf = String::new();
                            let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut buf)).await;
                            for line in buf.lines() {
                                if let Some(id) = line.strip_prefix("done ").and_then(|x| x.trim().parse().ok()) {
                                    let _ = tx.send(id);
                                }
                                // a step daemon ended: its step's resources are free
                                // (srun says so too, unless it is gone); its tasks'
                                // highest exit status and what the step used here
                                // follow (`key=value` words)
                                let mut w = line.strip_prefix("step ").unwrap_or("").split_whitespace();
                                if let (Some(Ok(j)), Some(Ok(st))) =
                                    (w.next().map(str::parse), w.next().map(str::parse))
                                {
                                    let words: Vec<&str> = w.collect();
                                    let status = words
                                        .iter()
                                        .find_map(|x| x.strip_prefix("status="))
                                        .and_then(|x| x.parse().ok())
                                        .unwrap_or(0);
                                    let usage = words.iter().any(|x| !x.starts_with("status=")).then(|| {
                                        let mut u = spur_core::usage::NodeUsage::from_words(words.iter().copied());
                                        u.node = node.clone();
                                        u
                                    });
                                    let _ = client.step_node_complete(j, st, &node, status, usage.as_ref()).await;
                                }
                            }
                        });
                    }
                }
            });
        }
        Err(e) => {
            eprintln!("spurd: fatal: cannot listen on {}: {}", sock.display(), e);
            std::process::exit(1);
        }
    }

    // Jobs left from before a restart: report the finished, keep the running.
    for j in spur_spool::scan(&spool) {
        if !j.running {
            let _ = done_tx.send(j.job_id);
        }
    }
    tokio::spawn(reporter(client.clone(), spool.clone(), node.clone(), tombs.clone(), done_rx, done_tx.clone()));
    tokio::spawn(reaper());
    tokio::spawn(registrar(
        client.clone(),
        spool.clone(),
        node.clone(),
        tombs.clone(),
        nc.clone(),
        conf.slurmd_timeout as u64,
    ));

    let port = nc.port.unwrap_or(conf.slurmd_port);
    let bind = if nc.addr.is_empty() { "0.0.0.0".to_string() } else { nc.addr.clone() };
    let addr: std::net::SocketAddr = match format!("{}:{}", bind, port).parse() {
        Ok(a) => a,
        Err(_) => format!("0.0.0.0:{}", port).parse().expect("valid"),
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("spurd: fatal: cannot listen on {}: {}", addr, e);
            std::process::exit(1);
        }
    };
    // Every acknowledged change is already on disk: stop at once on SIGTERM
    // rather than waiting for clients to hang up (jobs go on under their step
    // daemons); SIGHUP reads slurm.conf again, SIGUSR2 reopens the log.
    tokio::spawn(spur_daemon::serve_signals(service));
    tracing::info!("spurd {} listening on {}", node, addr);
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    // Only controllers call an agent; each request's credential is checked
    // for this node (its name or address) and the method before its body is
    // read (spur_auth::grpc).
    let mut audiences = vec![format!("{}:{}", node, port)];
    if !nc.addr.is_empty() {
        audiences.push(format!("{}:{}", nc.addr, port));
    }
    let replay = Arc::new(spur_auth::replay::ReplayCache::open_or_memory(&spur_auth::replay_path(
        conf.get("AuthType"),
        conf.auth_info.as_deref(),
    )));
    let gate = spur_auth::grpc::Gate::new(
        gate_key,
        audiences,
        replay,
        spur_auth::legacy_enabled(conf.auth_info.as_deref()),
        // (root and SlurmUser: whose munge credentials may speak as daemons)
        spur_auth::grpc::Limits::new(64, 64, None, vec![0, spur_auth::users::uid_of(&conf.slurm_user).unwrap_or(0)]),
        spur_auth::munge_socket(conf.get("AuthType"), conf.auth_info.as_deref()),
    );
    let mut server = tonic::transport::Server::builder();
    if let Some(tls) = transport.server() {
        server = server.tls_config(tls).unwrap_or_else(|e| {
            eprintln!("spurd: fatal: TLS: {}", e);
            std::process::exit(1);
        });
    }
    if let Err(e) = server
        .max_concurrent_streams(Some(64))
        .add_service(spur_auth::grpc::Authenticated::new(
            AgentServer::new(Svc { st }).max_decoding_message_size(MAX_REQUEST),
            gate,
            |m| if m.ends_with("/LaunchStep") { CONTROLLERS_AND_AGENTS } else { spur_auth::grpc::CONTROLLERS },
            MAX_REQUEST,
        ))
        .serve_with_incoming(incoming)
        .await
    {
        eprintln!("spurd: fatal: {}", e);
        std::process::exit(1);
    }
}

/// Report finished jobs to the controller, each until it is acknowledged,
/// then remove its spool directory.
async fn reporter(
    client: Client,
    spool: PathBuf,
    node: String,
    tombs: Arc<DoneLog>,
    mut rx: mpsc::UnboundedReceiver<u32>,
    tx: mpsc::UnboundedSender<u32>,
) {
    while let Some(id) = rx.recv().await {
        let dir = spur_spool::job_dir(&spool, id);
        let status = match spur_spool::read_status(&dir) {
            Some(s) => s,
            None => {
                if dir.exists() {
                    // supervisor still finishing: look again shortly
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        let _ = tx.send(id);
                    });
                }
                continue;
            }
        };
        let restarts = run_of(&dir);
        let req = spur_core::request::JobCompletion {
            job_id: id,
            node: node.clone(),
            exit_status: status,
            launch_failed: false,
            message: String::new(),
            restarts,
            // the supervisor's last sample, with the script's own rusage
            usage: spur_spool::read_step_usage(&dir).map(|mut u| {
                u.node = node.clone();
                u
            }),
        };
        let client = client.clone();
        let tx = tx.clone();
        let dir2 = dir.clone();
        let tombs = tombs.clone();
        tokio::spawn(async move {
            // any answer acknowledges the report (a refusal is logged)
            let r = match client.job_complete(&req).await {
                Err(spur_client::ClientError::Slurm(code, msg)) => {
                    tracing::warn!("job {} completion refused ({}: {})", id, code, msg);
                    Ok(())
                }
                other => other,
            };
            match r {
                Ok(_) => {
                    if let Some(run) = run_of(&dir2) {
                        tombs.add(id, run);
                    }
                    if let Err(e) = spur_spool::cleanup(&dir2) {
                        tracing::warn!("removing {}: {}", dir2.display(), e);
                    }
                }
                Err(e) => {
                    tracing::warn!("reporting job {} failed ({}); will retry", id, e);
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let _ = tx.send(id);
                }
            }
        });
    }
}

/// Reap ended supervisors as SIGCHLD reports them (and every 10 s, should a
/// signal be missed), so none lingers as a zombie.
async fn reaper() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut sig = match signal(SignalKind::child()) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!("no SIGCHLD stream ({}); reaping every 10 s", e);
            None
        }
    };
    loop {
        match sig.as_mut() {
            Some(s) => {
                let _ = tokio::time::timeout(Duration::from_secs(10), s.recv()).await;
            }
            None => tokio::time::sleep(Duration::from_secs(10)).await,
        }
        stepd::reap();
    }
}

fn boot_time() -> i64 {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("btime ")).and_then(|l| l[6..].trim().parse().ok()))
        .unwrap_or(0)
}

fn os_string() -> String {
    let u = nix::sys::utsname::uname();
    match u {
        Ok(u) => format!(
            "{} {} {}",
            u.sysname().to_string_lossy(),
            u.release().to_string_lossy(),
            u.version().to_string_lossy()
        ),
        Err(_) => "Linux".into(),
    }
}

fn arch_string() -> String {
    nix::sys::utsname::uname().map(|u| u.machine().to_string_lossy().to_string()).unwrap_or_else(|_| "x86_64".into())
}

/// Register, then heartbeat; re-register whenever the controller restarts or
/// does not answer.
async fn registrar(
    client: Client,
    spool: PathBuf,
    node: String,
    tombs: Arc<DoneLog>,
    nc: spur_core::config::NodeConf,
    slurmd_timeout: u64,
) {
    let start = spur_auth::now();
    let mut registered = false;
    let period = Duration::from_secs((slurmd_timeout / 3).clamp(1, 30));
    let mut pruned = std::time::Instant::now() - Duration::from_secs(7200);
    loop {
        if pruned.elapsed() > Duration::from_secs(3600) {
            tombs.prune(86_400);
            pruned = std::time::Instant::now();
        }
        let mut running: Vec<u32> =
            spur_spool::scan(&spool).into_iter().filter(|j| j.running).map(|j| j.job_id).collect();
        // and the jobs of the step daemons running here (an extern step, any
        // step): the controller names those whose job has ended, as slurmctld
        // kills a node's orphaned steps, which is how a step it could not end
        // (its leader changed first, srun gone) is ended; `srun -Z`'s steps
        // have no job to end with
        for (j, _, d) in spur_spool::step_dirs(&spool) {
            if !running.contains(&j)
                && !spur_core::launch::NOALLOC_JOB_IDS.contains(&j)
                && spur_spool::stepd_pid(&d).is_some()
            {
                running.push(j);
            }
        }
        let (load, free) = sysinfo();
        let req = spur_core::request::NodeRegistration {
            node: node.clone(),
            cpus: nc.cpus as u32,
            sockets: nc.sockets as u32,
            cores_per_socket: nc.cores_per_socket as u32,
            threads_per_core: nc.threads_per_core as u32,
            real_memory: nc.real_memory,
            boot_time: boot_time(),
            start_time: start,
            os: os_string(),
            arch: arch_string(),
            // the Slurm release whose protocol and behaviour this agent implements,
            // as slurmd reports its own (`scontrol show node`: Version=24.11.5,
            // recorded/24.11/basic/053); the commands' --version says the same
            version: spur_core::compat::release().version().into(),
            running_jobs: running,
            cpu_load: load,
            free_mem: free,
            heartbeat: registered,
        };
        match client.register(&req).await {
            Err(spur_client::ClientError::Slurm(_, msg)) => {
                tracing::error!("registration refused: {}", msg);
                registered = true;
            }
            Ok(kill_jobs) => {
                registered = true;
                for id in kill_jobs {
                    let dir = spur_spool::job_dir(&spool, id);
                    let steps: Vec<PathBuf> = spur_spool::step_dirs(&spool)
                        .into_iter()
                        .filter(|(j, _, _)| *j == id)
                        .map(|(_, _, d)| d)
                        .collect();
                    if !steps.is_empty() {
                        tracing::info!("ending the steps of job {}, which has ended", id);
                    }
                    tokio::task::spawn_blocking(move || {
                        for d in steps {
                            let _ = spur_spool::signal_step(&d, nix::sys::signal::Signal::SIGKILL as i32, true, 0);
                        }
                        if dir.exists() {
                            spur_spool::terminate_job(&dir, 0, None)
                        }
                    });
                }
            }
            Err(e) => {
                if registered {
                    tracing::warn!("controller not answering: {}", e);
                }
                registered = false;
                client.reset().await;
            }
        }
        tokio::time::sleep(if registered { period } else { Duration::from_millis(500) }).await;
    }
}

fn sysinfo() -> (u32, u64) {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse::<f64>().ok()))
        .map(|l| (l * 100.0) as u32)
        .unwrap_or(0);
    let free = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|x| x.parse::<u64>().ok()))
        })
        .map(|kb| kb / 1024)
        .unwrap_or(0);
    (load, free)
}

struct Svc {
    st: Arc<AgentState>,
}

fn ok() -> Option<Status> {
    Some(Status { code: 0, message: String::new() })
}
fn err(code: i32, msg: String) -> Option<Status> {
    Some(Status { code, message: msg })
}

impl Svc {
    fn admin<T>(&self, req: &Request<T>) -> Result<(), tonic::Status> {
        let id = spur_auth::grpc::identity(req)?;
        if id.uid == 0 || id.uid == self.st.slurm_user_uid {
            Ok(())
        } else {
            Err(tonic::Status::permission_denied("Access/permission denied"))
        }
    }
}

#[tonic::async_trait]
impl Agent for Svc {
    async fn launch(&self, req: Request<LaunchRequest>) -> Result<Response<LaunchReply>, tonic::Status> {
        self.admin(&req)?;
        let r = req.into_inner();
        let spec: LaunchSpec = match spur_core::records::decode_launch(&r.spec, &"launch request") {
            Ok(s) => s,
            Err(e) if spur_core::records::is_too_new(&e) => {
                tracing::error!("{}", e);
                return Ok(Response::new(LaunchReply { status: err(SLURM_PROTOCOL_VERSION_ERROR, e) }));
            }
            Err(e) => return Ok(Response::new(LaunchReply { status: err(SLURM_UNEXPECTED_MSG_ERROR, e) })),
        };
        let id = spec.job.job_id;
        let dir = spur_spool::job_dir(&self.st.spool, id);
        let _one_at_a_time = self.st.launching.lock().await;
        if spur_spool::has_spec(&dir) {
            let here = run_of(&dir);
            if here.is_none() || here >= Some(spec.job.restart_count) {
                // a repeated launch (lost reply, a new leader's re-send), or a
                // late one of an earlier run: the job already runs here
                return Ok(Response::new(LaunchReply { status: ok() }));
            }
            // An earlier run of the requeued job is still here: end it, let it
            // be reported (the controller ignores that report) and cleaned up,
            // then start the new run in a fresh directory.
            let st = self.st.clone();
            let kill_wait = spec.kill_wait;
            tokio::spawn(async move {
                let d = dir.clone();
                let _ = tokio::task::spawn_blocking(move || spur_spool::terminate_job(&d, kill_wait, None)).await;
                for _ in 0..(kill_wait as u64 * 2 + 600) {
                    if !dir.exists() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                if dir.exists() {
                    tracing::error!("job {}: the earlier run never went away; new run not started", id);
                    return;
                }
                let exe = st.exe.clone();
                let res = tokio::task::spawn_blocking(move || place_and_spawn(&exe, &dir, &spec)).await;
                match res {
                    Ok(Ok(())) => tracing::info!("launched batch job {} (restart) on {}", id, st.node),
                    _ => tracing::error!("job {}: launching the new run failed", id),
                }
            });
            return Ok(Response::new(LaunchReply { status: ok() }));
        }
        if self.st.tombs.contains(id, spec.job.restart_count) {
            // a late launch of a run that already ended here and was reported
            tracing::info!(
                "ignoring a repeated launch of job {} (run {}), which already ended",
                id,
                spec.job.restart_count
            );
            return Ok(Response::new(LaunchReply { status: ok() }));
        }
        let early_end = {
            let mut e = self.st.early_ends.lock().unwrap_or_else(|e| e.into_inner());
            match e.get(&id) {
                Some(&(run, _, why)) if run == spec.job.restart_count => {
                    e.remove(&id);
                    Some(why)
                }
                _ => None,
            }
        };
        let exe = self.st.exe.clone();
        let kill_wait = spec.kill_wait;
        let d = dir.clone();
        let res = tokio::task::spawn_blocking(move || place_and_spawn(&exe, &d, &spec)).await;
        match res {
            Ok(Ok(())) => {
                tracing::info!("launched batch job {} on {}", id, self.st.node);
                if let Some(why) = early_end {
                    // cancelled before it landed: it ends at once, and its
                    // supervisor reports the end as for any terminated run
                    tracing::info!("job {} was terminated before its launch came; ending it", id);
                    let note = note_of(why);
                    tokio::task::spawn_blocking(move || spur_spool::terminate_job(&dir, kill_wait, note));
                }
                Ok(Response::new(LaunchReply { status: ok() }))
            }
            Ok(Err(e)) => Ok(Response::new(LaunchReply { status: err(ESLURMD_EXECVE_FAILED_ANY, e.to_string()) })),
            Err(e) => Ok(Response::new(LaunchReply { status: err(ESLURMD_EXECVE_FAILED_ANY, e.to_string()) })),
        }
    }

    async fn signal(&self, req: Request<SignalRequest>) -> Result<Response<SignalReply>, tonic::Status> {
        self.admin(&req)?;
        let r = req.into_inner();
        let dir = spur_spool::job_dir(&self.st.spool, r.job_id);
        // after any launch in progress has placed its run (or not)
        let _launches_done = self.st.launching.lock().await;
        if !dir.exists() {
            if r.terminate && r.run > 0 && !self.st.tombs.contains(r.job_id, r.run - 1) {
                // its launch may still be on the way: end that run when it lands
                let why = StopReason::try_from(r.reason).unwrap_or(StopReason::Unspecified);
                let mut e = self.st.early_ends.lock().unwrap_or_else(|e| e.into_inner());
                e.retain(|_, (_, at, _)| at.elapsed() < EARLY_END_TTL);
                e.insert(r.job_id, (r.run - 1, Instant::now(), why));
            }
            // Nothing runs here for that job: tell the controller it is over
            // if we know nothing of it at all.
            return Ok(Response::new(SignalReply {
                status: err(ESLURM_INVALID_JOB_ID, strerror(ESLURM_INVALID_JOB_ID)),
            }));
        }
        if r.terminate {
            let kw = r.kill_wait;
            let why = StopReason::try_from(r.reason).unwrap_or(StopReason::Unspecified);
            // the cancel line is written by the job's supervisor through its
            // own descriptor of the job's stderr: the agent never opens a
            // path the user chose
            let note = note_of(why);
            tokio::task::spawn_blocking(move || spur_spool::terminate_job(&dir, kw, note));
        } else {
            let _ = tokio::task::spawn_blocking(move || spur_spool::signal_job(&dir, r.signal, r.batch_only)).await;
        }
        let _ = &self.st.done_tx;
        Ok(Response::new(SignalReply { status: ok() }))
    }

    async fn launch_step(&self, req: Request<LaunchStepRequest>) -> Result<Response<LaunchStepReply>, tonic::Status> {
        self.admin(&req)?;
        let r = req.into_inner();
        // the nodes below this one first, all at once
        let mut calls = tokio::task::JoinSet::new();
        for (head, forward) in spur_proto::tree_split(r.forward, r.tree_width) {
            let me = Svc { st: self.st.clone() };
            let spec = r.spec.clone();
            let width = r.tree_width;
            calls.spawn(async move { me.forward_step(spec, head, forward, width).await });
        }
        let mut res: Result<(), (String, i32, String)> =
            match spur_core::records::decode_step_launch(&r.spec, &"step launch") {
                Err(e) => Err((self.st.node.clone(), SLURM_UNEXPECTED_MSG_ERROR, e.to_string())),
                Ok(spec) if spur_spool::step_dir(&self.st.spool, spec.job.job_id, spec.step.step_id).exists() => {
                    // a repeated launch (a retried step creation, a new
                    // leader's re-send of a job's extern step): it runs here
                    Ok(())
                }
                Ok(spec) => {
                    let dir = spur_spool::step_dir(&self.st.spool, spec.job.job_id, spec.step.step_id);
                    let exe = self.st.exe.clone();
                    let node = self.st.node.clone();
                    let label = spur_core::model::step_label(&spec.job.job_id.to_string(), spec.step.step_id);
                    let key = (spec.job.job_id, spec.step.step_id);
                    let step_dir = dir.clone();
                    let placed = tokio::task::spawn_blocking(move || {
                        spur_spool::write_step_spec(&dir, &spec)?;
                        stepd::spawn_step(&exe, &dir, &node)
                    })
                    .await;
                    match placed {
                        Ok(Ok(())) => {
                            tracing::info!("launched step {} on {}", label, self.st.node);
                            let cancel = self.st.step_cancels.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
                            if let Some((_, sig, kill_wait)) = cancel {
                                // cancelled before it ran here: once its step
                                // daemon is up (signals blocked, its file
                                // written), it gets the cancel
                                tracing::info!("step {} was cancelled before it started here; ending it", label);
                                tokio::task::spawn_blocking(move || {
                                    for _ in 0..200 {
                                        if spur_spool::stepd_pid(&step_dir).is_some() {
                                            let _ = spur_spool::signal_step(&step_dir, sig, true, kill_wait);
                                            return;
                                        }
                                        std::thread::sleep(Duration::from_millis(50));
                                    }
                                });
                            }
                            Ok(())
                        }
                        Ok(Err(e)) => Err((self.st.node.clone(), ESLURMD_EXECVE_FAILED_ANY, e.to_string())),
                        Err(e) => Err((self.st.node.clone(), ESLURMD_EXECVE_FAILED_ANY, e.to_string())),
                    }
                }
            };
        while let Some(c) = calls.join_next().await {
            if let Ok(Err(e)) = c {
                if res.is_ok() {
                    res = Err(e);
                }
            }
        }
        Ok(Response::new(match res {
            Ok(()) => LaunchStepReply { status: ok(), failed_node: String::new() },
            Err((node, code, msg)) => LaunchStepReply { status: err(code, msg), failed_node: node },
        }))
    }

    async fn signal_step(&self, req: Request<SignalStepRequest>) -> Result<Response<SignalStepReply>, tonic::Status> {
        self.admin(&req)?;
        let r = req.into_inner();
        if r.cancel && r.step_id != u32::MAX {
            // (kept: the step may not run here yet, or its daemon may be
            // starting, when the cancel comes)
            let mut c = self.st.step_cancels.lock().unwrap_or_else(|e| e.into_inner());
            c.retain(|_, (at, _, _)| at.elapsed() < EARLY_END_TTL);
            c.insert((r.job_id, r.step_id), (Instant::now(), r.signal, r.kill_wait));
        }
        let dirs: Vec<PathBuf> = spur_spool::step_dirs(&self.st.spool)
            .into_iter()
            .filter(|(j, s, _)| *j == r.job_id && (r.step_id == u32::MAX || *s == r.step_id))
            .map(|(_, _, d)| d)
            .collect();
        if dirs.is_empty() {
            return Ok(Response::new(SignalStepReply {
                status: err(ESLURM_INVALID_JOB_ID, strerror(ESLURM_INVALID_JOB_ID)),
            }));
        }
        let _ = tokio::task::spawn_blocking(move || {
            for d in dirs {
                if let Ok(false) = spur_spool::signal_step(&d, r.signal, r.cancel, r.kill_wait) {
                    if r.cancel {
                        // its daemon is still starting (no process file yet):
                        // the cancel follows once it is up
                        std::thread::spawn(move || {
                            for _ in 0..200 {
                                std::thread::sleep(Duration::from_millis(50));
                                if spur_spool::stepd_pid(&d).is_some() {
                                    let _ = spur_spool::signal_step(&d, r.signal, true, r.kill_wait);
                                    return;
                                }
                            }
                        });
                    }
                }
            }
        })
        .await;
        Ok(Response::new(SignalStepReply { status: ok() }))
    }

    async fn step_stat(
        &self,
        req: Request<AgentStepStatRequest>,
    ) -> Result<Response<AgentStepStatReply>, tonic::Status> {
        self.admin(&req)?;
        let r = req.into_inner();
        let spool = self.st.spool.clone();
        // the step daemon's last sample (the batch script's: its supervisor's,
        // in the job's directory); its processes, when asked, as `scontrol
        // listpids` lists them
        let found = tokio::task::spawn_blocking(move || {
            let (dir, usage) = if r.step_id == spur_core::model::BATCH_STEP {
                let dir = spur_spool::job_dir(&spool, r.job_id);
                let usage = spur_spool::read_step_usage(&dir);
                (dir, usage)
            } else {
                (spur_spool::step_dir(&spool, r.job_id, r.step_id), spur_spool::step_usage(&spool, r.job_id, r.step_id))
            };
            let pids = if r.with_pids { spur_spool::step_pids(&dir) } else { None };
            (usage, pids)
        })
        .await
        .unwrap_or((None, None));
        Ok(Response::new(match found {
            // (a step's processes are there before its first usage sample)
            (u, pids) if u.is_some() || pids.is_some() => AgentStepStatReply {
                status: ok(),
                usage: u.map(|u| u.to_line()).unwrap_or_default(),
                tasks: pids.as_ref().map_or(0, |p| p.tasks.len() as u32),
                pids: pids
                    .map(|p| {
                        let mut tasks = p.tasks;
                        tasks.sort_by_key(|&(_, local, _)| local);
                        tasks.into_iter().map(|(pid, _, _)| pid).chain(p.others).collect()
                    })
                    .unwrap_or_default(),
            },
            _ => AgentStepStatReply {
                status: err(ESLURM_INVALID_JOB_ID, strerror(ESLURM_INVALID_JOB_ID)),
                usage: String::new(),
                pids: vec![],
                tasks: 0,
            },
        }))
    }

    /// `scontrol reconfigure`, passed on by the leader: start again with
    /// slurm.conf read afresh once this answer has gone (the SIGHUP path;
    /// the jobs' step daemons go on).
    async fn reconfigure(&self, req: Request<ReconfigureRequest>) -> Result<Response<ReconfigureReply>, tonic::Status> {
        self.admin(&req)?;
        tracing::info!("reconfigure requested by the controller");
        spur_daemon::restart_soon();
        Ok(Response::new(ReconfigureReply { status: ok() }))
    }

    async fn ping(&self, req: Request<PingRequest>) -> Result<Response<PingReply>, tonic::Status> {
        self.admin(&req)?;
        Ok(Response::new(PingReply {
            status: ok(),
            host: self.st.node.clone(),
            role: "agent".into(),
            // the launch specs it reads
            min_format_version: spur_format::MIN_VERSION as u32,
            max_format_version: spur_format::FORMAT_VERSION as u32,
            ..Default::default()
        }))
    }
}

/// A step launch comes from a controller or, down the launch tree, from
/// another agent.
const CONTROLLERS_AND_AGENTS: &[spur_auth::Kind] = &[spur_auth::Kind::Controller, spur_auth::Kind::Agent];

impl Svc {
    /// Forward a step launch to `head` with the nodes below it.
    async fn forward_step(
        &self,
        spec: Vec<u8>,
        head: AgentAddr,
        forward: Vec<AgentAddr>,
        width: u32,
    ) -> Result<(), (String, i32, String)> {
        let fail = |node: &str, e: String| Err((node.to_string(), SLURM_COMMUNICATIONS_CONNECTION_ERROR, e));
        let ep = match self.st.transport.endpoint(&head.addr) {
            Ok(ep) => ep,
            Err(e) => return fail(&head.node, e),
        };
        let ch = ep.connect_timeout(Duration::from_secs(5)).tcp_nodelay(true).connect_lazy();
        let signer = self.st.auth.signer(spur_auth::Kind::Agent);
        let ch = spur_auth::grpc::Signed::new(ch, signer, &head.addr, self.st.legacy);
        let mut a = spur_proto::agent_client::AgentClient::new(ch);
        let mut req = Request::new(LaunchStepRequest { spec, forward, tree_width: width, node: head.node.clone() });
        req.set_timeout(Duration::from_secs(20));
        match a.launch_step(req).await {
            Ok(r) => r.into_inner().into_result(head.node),
            Err(e) => fail(&head.node, e.message().to_string()),
        }
    }
}

/// The largest request an agent takes (a launch of a job with a 4 MiB script and its environment).
const MAX_REQUEST: usize = 64 << 20;

/// Launch failure: the job could not be started on this node.
const ESLURMD_EXECVE_FAILED_ANY: i32 = 4020;

/// The cancel line a terminate asks for (none when unspecified).
fn note_of(why: StopReason) -> Option<spur_spool::Note> {
    match why {
        StopReason::Unspecified => None,
        StopReason::Cancel => Some(spur_spool::Note::Cancelled),
        StopReason::Timeout => Some(spur_spool::Note::TimeLimit),
        StopReason::Preemption => Some(spur_spool::Note::Preemption),
    }
}
