//! spurctld: the Spur controller. Reads slurm.conf, recovers its state from
//! StateSaveLocation, serves the Controller gRPC service on SlurmctldPort,
//! schedules, and watches nodes and time limits.

mod core;
mod server;

use spur_core::config::SlurmConf;
use spur_core::model::*;
use spur_state::store::Store;
use spur_state::State;
use std::path::PathBuf;

const USAGE: &str = "Usage: spurctld [-D] [-f slurm.conf] [-L logfile] [--state-dir DIR] [-i]";

struct Args {
    conf: PathBuf,
    log: Option<PathBuf>,
    state_dir: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { conf: spur_client::conf_path(), log: None, state_dir: None };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "-D" | "-i" | "-c" | "-R" => {}
            "-f" => a.conf = it.next().ok_or("-f needs a file")?.into(),
            "-L" => a.log = Some(it.next().ok_or("-L needs a file")?.into()),
            "--state-dir" => a.state_dir = Some(it.next().ok_or("--state-dir needs a directory")?.into()),
            "-h" | "--help" => return Err(USAGE.into()),
            "-V" | "--version" => {
                println!("spur {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            _ => return Err(format!("spurctld: unknown option {}\n{}", x, USAGE)),
        }
    }
    Ok(a)
}

pub fn nodes_from_conf(conf: &SlurmConf) -> Vec<Node> {
    conf.nodes
        .iter()
        .map(|n| Node {
            name: n.name.clone(),
            addr: n.addr.clone(),
            hostname: n.hostname.clone(),
            port: n.port.unwrap_or(conf.slurmd_port),
            cpus: n.cpus as u32,
            boards: n.boards as u32,
            sockets: n.sockets as u32,
            cores_per_socket: n.cores_per_socket as u32,
            threads_per_core: n.threads_per_core as u32,
            real_memory: n.real_memory,
            tmp_disk: n.tmp_disk as u64,
            weight: n.weight,
            features: n.features.clone(),
            gres: n.gres.iter().map(|g| (g.name.clone(), g.type_.clone(), g.count)).collect(),
            base: match n.state.to_ascii_uppercase().as_str() {
                "FUTURE" => NodeBase::Future,
                "DOWN" => NodeBase::Down,
                _ => NodeBase::Unknown,
            },
            flags: NodeFlags { drain: n.state.eq_ignore_ascii_case("DRAIN"), ..Default::default() },
            reason: None,
            reason_time: 0,
            reason_uid: 0,
            alloc_cpus: 0,
            alloc_mem: 0,
            alloc_gres: vec![],
            boot_time: 0,
            slurmd_start_time: 0,
            last_busy: 0,
            os: String::new(),
            arch: String::new(),
            version: String::new(),
            last_heard: 0,
            cpu_load: 0,
            free_mem: 0,
        })
        .collect()
}

pub fn partitions_from_conf(conf: &SlurmConf) -> Vec<Partition> {
    conf.partitions
        .iter()
        .map(|p| Partition {
            name: p.name.clone(),
            nodes: p.nodes.clone(),
            nodes_expr: p.nodes_expr.clone(),
            default: p.default,
            hidden: p.hidden,
            state: match p.state.to_ascii_uppercase().as_str() {
                "DOWN" => PartState::Down,
                "DRAIN" => PartState::Drain,
                "INACTIVE" => PartState::Inactive,
                _ => PartState::Up,
            },
            max_time: p.max_time,
            default_time: p.default_time,
            max_nodes: p.max_nodes,
            min_nodes: p.min_nodes,
            oversubscribe: p.oversubscribe.clone(),
            priority_tier: p.priority_tier as u32,
            priority_job_factor: p.priority_job_factor as u32,
            allow_groups: p.allow_groups.clone(),
            allow_accounts: p.allow_accounts.clone(),
            other: p.other.clone(),
        })
        .collect()
}

/// Configuration is authoritative for what nodes and partitions exist and
/// what they are; the recovered state keeps each node's dynamic state.
fn merge_conf(recovered: State, conf: &SlurmConf) -> State {
    let mut st = recovered;
    let fresh = nodes_from_conf(conf);
    let mut nodes = Vec::with_capacity(fresh.len());
    for mut n in fresh {
        if let Some(old) = st.nodes.iter().find(|o| o.name == n.name) {
            n.base = old.base;
            n.flags = old.flags.clone();
            n.reason = old.reason.clone();
            n.reason_time = old.reason_time;
            n.reason_uid = old.reason_uid;
            n.alloc_cpus = old.alloc_cpus;
            n.alloc_mem = old.alloc_mem;
            n.alloc_gres = old.alloc_gres.clone();
            n.boot_time = old.boot_time;
            n.slurmd_start_time = old.slurmd_start_time;
            n.last_busy = old.last_busy;
            n.os = old.os.clone();
            n.arch = old.arch.clone();
            n.version = old.version.clone();
        }
        nodes.push(n);
    }
    st.nodes = nodes;
    st.partitions = partitions_from_conf(conf);
    st.cluster_name = conf.cluster_name.clone();
    st.reindex();
    st
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{}", e);
            std::process::exit(1);
        }
    };
    let conf = match spur_core::config::load(&args.conf) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{}", e.report("spurctld"));
            std::process::exit(1);
        }
    };
    init_logging(args.log.as_deref());
    let key_path = spur_client::auth::key_path(&args.conf);
    let key = match spur_client::auth::read_key(&key_path) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("spurctld: fatal: cannot read key {}: {}", key_path.display(), e);
            std::process::exit(1);
        }
    };
    let state_dir = args
        .state_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(if conf.state_save_location.is_empty() { "/var/spool/spur" } else { &conf.state_save_location }));
    let (mut store, rec) = match Store::open(&state_dir) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("spurctld: fatal: {}", e);
            std::process::exit(1);
        }
    };
    if let Some(t) = &rec.truncated_tail {
        tracing::warn!("state log: dropped an unacknowledged torn record ({})", t);
    }
    let base = rec.state.unwrap_or_else(|| {
        State::new(conf.cluster_name.clone(), nodes_from_conf(&conf), partitions_from_conf(&conf), conf.first_job_id, conf.max_job_id)
    });
    let mut state = merge_conf(base, &conf);
    // PriorityType, or the imitated release's default when the key is absent
    // (spur_core::compat: 22.05 priority/basic, 24.11 priority/multifactor)
    state.priority_basic = spur_core::compat::priority_type(conf.get("PriorityType")) == "priority/basic";
    state.slurm_22_05 = spur_core::compat::v22_05();
    let mut replayed = 0;
    for (idx, cmd) in &rec.commands {
        if *idx <= state.applied {
            continue;
        }
        let _ = state.apply(cmd);
        state.applied = *idx;
        replayed += 1;
    }
    // Nodes get a fresh SlurmdTimeout after a restart.
    let t = core::now();
    for n in state.nodes.iter_mut() {
        if n.last_heard > 0 || n.base != NodeBase::Down {
            n.last_heard = t;
        }
    }
    if let Err(e) = store.snapshot(&state) {
        eprintln!("spurctld: fatal: cannot write snapshot in {}: {}", state_dir.display(), e);
        std::process::exit(1);
    }
    tracing::info!("recovered {} jobs ({} log records replayed) from {}", state.jobs.len(), replayed, state_dir.display());
    let slurm_user_uid = spur_client::users::uid_of(&conf.slurm_user).unwrap_or(0);
    let port = conf.slurmctld_port;
    let bind_addr = conf
        .controllers
        .iter()
        .find(|c| c.name == spur_client::users::short_hostname() || c.addr.starts_with("127."))
        .map(|c| c.addr.clone())
        .unwrap_or_else(|| "0.0.0.0".into());
    let ctld = core::Ctld::new(conf, state, store, key, slurm_user_uid);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    rt.block_on(async move {
        let addr: std::net::SocketAddr = match format!("{}:{}", bind_addr, port).parse() {
            Ok(a) => a,
            Err(e) => {
                eprintln!("spurctld: fatal: bad controller address {}:{}: {}", bind_addr, port, e);
                std::process::exit(1);
            }
        };
        tokio::spawn(ctld.clone().scheduler_loop());
        tokio::spawn(ctld.clone().monitor_loop());
        let svc = spur_proto::controller_server::ControllerServer::new(server::Service { ctld: ctld.clone() })
            .max_decoding_message_size(64 << 20);
        tracing::info!("spurctld listening on {}", addr);
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("spurctld: fatal: cannot listen on {}: {}", addr, e);
                std::process::exit(1);
            }
        };
        let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
        // Every acknowledged change is already on disk: stop at once on SIGTERM
        // rather than waiting for clients to hang up.
        let shutdown = async {
            let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("signal");
            tokio::select! {
                _ = term.recv() => {},
                _ = tokio::signal::ctrl_c() => {},
            }
            std::process::exit(0);
        };
        if let Err(e) = tonic::transport::Server::builder()
            .add_service(svc)
            .serve_with_incoming_shutdown(incoming, shutdown)
            .await
        {
            eprintln!("spurctld: fatal: {}", e);
            std::process::exit(1);
        }
    });
}

fn init_logging(file: Option<&std::path::Path>) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SPUR_LOG").unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let b = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false);
    if let Some(p) = file {
        if let Ok(f) = std::fs::OpenOptions::new().create(true).append(true).open(p) {
            b.with_writer(std::sync::Mutex::new(f)).init();
            return;
        }
    }
    b.with_writer(std::io::stderr).init();
}
