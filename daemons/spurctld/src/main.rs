//! spurctld: the Spur controller. Reads slurm.conf, recovers its state from
//! StateSaveLocation, serves the Controller gRPC service on SlurmctldPort,
//! schedules, and watches nodes and time limits.

mod audit;
mod ctld;
mod formats;
mod raftnet;
mod server;

// (the pure decisions are the library's, shared with the fuzz targets)
use spurctld::{resv, validate};

use spur_core::config::SlurmConf;
use spur_core::model::*;
use spur_state::State;
use std::path::PathBuf;

const USAGE: &str =
    "Usage: spurctld [-D] [--systemd] [-f slurm.conf] [-L logfile] [--state-dir DIR] [--id N] [--join] [--listen IP] [-i]";

struct Args {
    conf: PathBuf,
    /// `-D` or `--systemd`: stay in the foreground (else go into the
    /// background once slurm.conf has been read, as slurmctld does).
    foreground: bool,
    log: Option<PathBuf>,
    state_dir: Option<PathBuf>,
    /// Which SlurmctldHost line this controller is (1-based): its Raft id.
    id: Option<u64>,
    /// Start empty and wait to be added to a running cluster (`spur controller add`).
    join: bool,
    /// Listen on this IP instead of the SlurmctldHost line's address (tests put
    /// a proxy on that address to cut the network between controllers).
    listen: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        conf: spur_core::config::default_path(),
        foreground: false,
        log: None,
        state_dir: None,
        id: None,
        join: false,
        listen: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            // (--systemd: readiness goes to $NOTIFY_SOCKET whenever it is set;
            // -s, Debian 12's unit: slurmctld's working directory)
            "-D" | "--systemd" => a.foreground = true,
            "-i" | "-c" | "-R" | "-s" => {}
            "-f" => a.conf = it.next().ok_or("-f needs a file")?.into(),
            "-L" => a.log = Some(it.next().ok_or("-L needs a file")?.into()),
            "--state-dir" => a.state_dir = Some(it.next().ok_or("--state-dir needs a directory")?.into()),
            "--id" => {
                let v = it.next().ok_or("--id needs a number")?;
                a.id = Some(v.parse().ok().filter(|n| *n > 0).ok_or(format!("spurctld: bad --id {}", v))?);
            }
            "--join" => a.join = true,
            "--listen" => a.listen = Some(it.next().ok_or("--listen needs an address")?),
            "-h" | "--help" => return Err(USAGE.into()),
            "-V" | "--version" => {
                print!("{}", spur_core::compat::spur_version_line());
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
            ..Default::default()
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
            more: spur_core::model::PartitionMore {
                max_tres: spur_core::priority::max_tres(conf),
                ..spur_core::model::PartitionMore::from_conf(&p.other)
            },
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
        if let Some(old) = st.nodes().iter().find(|o| o.name == n.name) {
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
    st.set_config(conf.cluster_name.clone(), nodes, partitions_from_conf(conf));
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
    // topology.conf: what slurmctld's tree plugin stops on
    if let Err(e) = spur_core::topology::load(&conf) {
        eprintln!("spurctld: fatal: {}", e);
        std::process::exit(1);
    }
    // PriorityWeightTRES naming a TRES the cluster does not count
    if let Some(t) = conf.get("PriorityWeightTRES").filter(|t| !t.is_empty()) {
        if spur_core::priority::Weights::from_conf(&conf).is_some() {
            if let Err(e) = spur_core::priority::tres_weights(t, &spur_core::priority::tres_names(&conf)) {
                let (why, fatal) = e.rsplit_once('\n').unwrap_or(("", e.as_str()));
                if !why.is_empty() {
                    eprintln!("spurctld: error: {}", why);
                }
                eprintln!("spurctld: fatal: {}", fatal);
                std::process::exit(1);
            }
        }
    }
    if !args.foreground {
        if let Err(e) = spur_daemon::detach() {
            eprintln!("spurctld: fatal: cannot go into the background: {}", e);
            std::process::exit(1);
        }
    }
    // -L, else SlurmctldLogFile, else stderr; SIGUSR2 opens it again
    let log_file = args.log.clone().or_else(|| conf.get("SlurmctldLogFile").map(PathBuf::from));
    let log = spur_daemon::init_logging("spurctld", "info,openraft=warn", log_file.as_deref());
    let pid_file = PathBuf::from(conf.get("SlurmctldPidFile").unwrap_or(spur_daemon::SLURMCTLD_PID_FILE));
    // what slurm.conf holds that Spur will not do, said once at start
    for w in &conf.warnings {
        tracing::warn!("slurm.conf: {}", w);
    }
    for k in conf.inert_keys() {
        tracing::info!("slurm.conf: {} is accepted, but Spur does not act on it", k);
    }
    // slurm.key, or under auth/munge without one the site's munged
    let auth = match spur_auth::grpc::DaemonAuth::load(&args.conf, conf.get("AuthType"), conf.auth_info.as_deref())
        .and_then(|a| a.gate_key().map(|k| (a, k)))
    {
        Ok(a) => a,
        Err(e) => {
            eprintln!("spurctld: fatal: {}", e);
            std::process::exit(1);
        }
    };
    let state_dir = args.state_dir.clone().unwrap_or_else(|| {
        PathBuf::from(if conf.state_save_location.is_empty() { "/var/spool/spur" } else { &conf.state_save_location })
    });
    // Which controller am I? `--id N`, else the SlurmctldHost line naming this host.
    let me = match args.id {
        Some(n) => n,
        None => {
            let host = spur_auth::users::short_hostname();
            match conf.controllers.iter().position(|c| c.name == host) {
                Some(i) => i as u64 + 1,
                None if conf.controllers.len() <= 1 => 1,
                None => {
                    eprintln!(
                        "spurctld: fatal: this host ({}) is not a SlurmctldHost of {}; use --id N",
                        host,
                        args.conf.display()
                    );
                    std::process::exit(1);
                }
            }
        }
    };
    let port = conf.slurmctld_port;
    let members: std::collections::BTreeMap<u64, openraft::BasicNode> = conf
        .controllers
        .iter()
        .enumerate()
        .map(|(i, c)| (i as u64 + 1, openraft::BasicNode { addr: format!("{}:{}", c.addr, port) }))
        .collect();
    let bind_addr = match conf.controllers.get(me as usize - 1) {
        _ if args.listen.is_some() => args.listen.clone().unwrap_or_default(),
        Some(c) => c.addr.clone(),
        None if args.join => "0.0.0.0".into(),
        None => {
            eprintln!(
                "spurctld: fatal: --id {} but {} has {} SlurmctldHost lines",
                me,
                args.conf.display(),
                conf.controllers.len()
            );
            std::process::exit(1);
        }
    };
    let opened = match spur_state::raft::open(&state_dir, |recovered| {
        let base = recovered.unwrap_or_else(|| {
            State::new(
                conf.cluster_name.clone(),
                nodes_from_conf(&conf),
                partitions_from_conf(&conf),
                conf.first_job_id,
                conf.max_job_id,
            )
        });
        let mut state = merge_conf(base, &conf);
        // PriorityType, or the imitated release's default when the key is absent
        // (spur_core::compat: 22.05 priority/basic, 24.11 priority/multifactor)
        state.set_priority_basic(spur_core::compat::priority_type(conf.get("PriorityType")) == "priority/basic");
        state.set_half_life(spur_core::assoc::half_life(&conf));
        state.set_release(spur_core::compat::release());
        state.set_max_job_count(Some(conf.max_job_count));
        state
    }) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("spurctld: fatal: {}", e);
            std::process::exit(1);
        }
    };
    if let Some(t) = &opened.truncated_tail {
        tracing::warn!("state log: dropped an unacknowledged torn record ({})", t);
    }
    let has_history = opened.has_history;
    if !has_history && !args.join {
        first_start(&state_dir, &conf, &args.conf);
    }
    // the accounting store, fed by the state machine from here on
    let acct = match spur_accounting::Store::open(&state_dir) {
        Ok(s) => std::sync::Arc::new(s),
        Err(e) => {
            eprintln!("spurctld: fatal: {}", e);
            std::process::exit(1);
        }
    };
    {
        // a snapshot newer than the store (it was installed from a leader
        // and the store's copy did not finish): its jobs' records now, and
        // the rest from a peer
        let g = opened.shared.read();
        let snap = g.last_applied.map(|l| l.index).unwrap_or(0);
        if acct.applied().unwrap_or(0) < snap {
            if let Err(e) = acct.install(snap, &g.state.acct_records()) {
                eprintln!("spurctld: fatal: {}", e);
                std::process::exit(1);
            }
        }
    }
    match conf.get("AccountingStorageType") {
        Some(t) if t != "accounting_storage/none" => tracing::info!(
            "AccountingStorageType={}: served by this controller's own accounting store ({}), {} records; AccountingStorageHost and AccountingStoragePort are not contacted",
            t,
            acct.path().display(),
            acct.len().unwrap_or(0)
        ),
        _ => tracing::info!("accounting store {}, {} records", acct.path().display(), acct.len().unwrap_or(0)),
    }
    let mut opened = opened;
    opened.sm.set_feed(std::sync::Arc::new(spur_accounting::Feeder::start(acct.clone(), |e| {
        tracing::error!("fatal: {}", e);
        eprintln!("spurctld: fatal: {}", e);
        std::process::exit(1);
    })));
    tracing::info!("controller {} of {}, state in {}", me, members.len(), state_dir.display());
    let slurm_user_uid = spur_auth::users::uid_of(&conf.slurm_user).unwrap_or(0);
    // TLS when slurm.conf asks for it (TLSType, TLSParameters)
    let transport = match spur_auth::tls::Transport::from_conf(
        conf.get("TLSType"),
        conf.get("TLSParameters"),
        args.conf.parent().unwrap_or(std::path::Path::new("/")),
        spur_auth::tls::Role::Controller,
    ) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("spurctld: fatal: {}", e);
            std::process::exit(1);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    // Raft (its core, log, state machine worker and peer connections) on a
    // runtime of its own: heartbeats and votes never wait behind the work of
    // answering users (a flood of queries on the request threads made
    // followers time out and hold elections: bench/flood.sh)
    // Its threads run at a higher priority than the request threads (nice
    // RAFT_NICE; as root, else unchanged): under a flood of queries on a
    // loaded host the leader's heartbeats and a follower's answers still get
    // the CPU in time, and no election is held for a leader that is alive.
    let raft_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("raft")
        .on_thread_start(raise_thread_priority)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let raft_handle = raft_rt.handle().clone();
    rt.block_on(async move {
        let rconf = openraft::Config {
            cluster_name: conf.cluster_name.clone(),
            heartbeat_interval: env_ms("SPUR_RAFT_HEARTBEAT_MS", 50),
            election_timeout_min: env_ms("SPUR_RAFT_ELECTION_MIN_MS", 150),
            election_timeout_max: env_ms("SPUR_RAFT_ELECTION_MAX_MS", 300),
            snapshot_policy: openraft::SnapshotPolicy::LogsSinceLast(env_ms("SPUR_RAFT_SNAPSHOT_EVERY", 20_000)),
            max_in_snapshot_log_to_keep: env_ms("SPUR_RAFT_KEEP_LOGS", 1000),
            // openraft gives each AppendEntries one heartbeat interval (50 ms)
            // to be sent, decoded, written and answered; a follower catching
            // up after a restart is sent batches of this many entries (each a
            // job with its script and environment), small enough to fit.
            // With openraft's 300 a lagging follower on a loaded machine timed
            // out on every batch and a leader without it had no majority (the
            // debug build's failover bench: p99 35 s).
            max_payload_entries: env_ms("SPUR_RAFT_MAX_PAYLOAD_ENTRIES", 32),
            ..Default::default()
        };
        let rconf = match rconf.validate() {
            Ok(c) => std::sync::Arc::new(c),
            Err(e) => {
                eprintln!("spurctld: fatal: raft settings: {}", e);
                std::process::exit(1);
            }
        };
        let (auth, gate_key) = auth;
        // Raft traffic leaves from this controller's own address, so that a
        // peer (or a test's proxy) can tell who is calling.
        let local_ip: Option<std::net::IpAddr> =
            bind_addr.parse().ok().filter(|ip: &std::net::IpAddr| !ip.is_unspecified());
        let wv = opened.write_version.clone();
        let legacy = spur_auth::legacy_enabled(conf.auth_info.as_deref());
        let net = raftnet::Net { auth: auth.clone(), wv: wv.clone(), local_ip, legacy, transport: transport.clone() };
        let net_for_sync = net.clone();
        let created = raft_handle.spawn(spur_state::raft::Raft::new(me, rconf, net, opened.log, opened.sm)).await;
        let raft = match created.map_err(|e| e.to_string()).and_then(|r| r.map_err(|e| e.to_string())) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("spurctld: fatal: raft: {}", e);
                std::process::exit(1);
            }
        };
        // without state: abstain from elections until bootstrap finds this
        // member forming a new cluster, or it has caught up with its leader
        let rebuild = raftnet::Rebuild::default();
        if !has_history {
            rebuild.start(&raft);
            tokio::spawn(rebuild.clone().watch(raft.clone()));
        }
        let ctld = ctld::Ctld::new(conf, opened.shared, raft.clone(), me, auth.clone(), slurm_user_uid);
        let _ = ctld.room.set(spur_state::raft::Room::new(&state_dir));
        let _ = ctld.acct.set(acct.clone());
        tokio::spawn(raftnet::acct_sync_loop(raft.clone(), net_for_sync, acct.clone(), me));
        let addr: std::net::SocketAddr = match format!("{}:{}", bind_addr, port).parse() {
            Ok(a) => a,
            Err(e) => {
                eprintln!("spurctld: fatal: bad controller address {}:{}: {}", bind_addr, port, e);
                std::process::exit(1);
            }
        };
        // supervised: a loop that ends or panics is logged and restarted
        let backoff = std::time::Duration::from_millis(200);
        tokio::spawn(ctld::supervise("scheduler", ctld.clone(), backoff, |c| c.scheduler_loop()));
        tokio::spawn(ctld::supervise("monitor", ctld.clone(), backoff, |c| c.monitor_loop()));
        tokio::spawn(formats::raise_loop(ctld.clone()));
        tokio::spawn(formats::exit_on_fatal(raft.clone()));
        // Every request's credential is checked, for this controller (its
        // SlurmctldHost line, by name or address) and the method, before its
        // body is read (spur_auth::grpc).
        let mine = &ctld.conf.controllers[(me - 1) as usize];
        let audiences = vec![format!("{}:{}", mine.addr, port), format!("{}:{}", mine.name, port)];
        let replay = std::sync::Arc::new(spur_auth::replay::ReplayCache::open_or_memory(&spur_auth::replay_path(
            ctld.conf.get("AuthType"),
            ctld.conf.auth_info.as_deref(),
        )));
        let limits = spur_auth::grpc::Limits::new(
            MAX_IN_FLIGHT,
            MAX_IN_FLIGHT_PER_USER,
            spur_auth::grpc::RateLimit::from_params(ctld.conf.get("SlurmctldParameters")),
            vec![0, slurm_user_uid],
        );
        let munge = spur_auth::munge_socket(ctld.conf.get("AuthType"), ctld.conf.auth_info.as_deref());
        let gate = spur_auth::grpc::Gate::new(gate_key, audiences, replay, legacy, limits, munge);
        let svc = spur_auth::grpc::Authenticated::new(
            spur_proto::controller_server::ControllerServer::new(server::Service::new(ctld.clone()))
                .max_decoding_message_size(MAX_REQUEST),
            gate.clone(),
            server::policy,
            MAX_REQUEST,
        );
        let consensus = spur_auth::grpc::Authenticated::new(
            spur_proto::consensus_server::ConsensusServer::new(raftnet::ConsensusService {
                raft: raft.clone(),
                wv,
                rebuild: rebuild.clone(),
                acct: Some(acct.clone()),
            })
            .max_decoding_message_size(MAX_RAFT_MESSAGE),
            gate,
            |_| spur_auth::grpc::CONTROLLERS,
            MAX_RAFT_MESSAGE,
        );
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("spurctld: fatal: cannot listen on {}: {}", addr, e);
                std::process::exit(1);
            }
        };
        // Every acknowledged change is already on disk: stop at once on SIGTERM
        // rather than waiting for clients to hang up; SIGHUP reads slurm.conf
        // again, SIGUSR2 reopens the log.
        tokio::spawn(spur_daemon::serve_signals(spur_daemon::Service { conf: args.conf.clone(), log, pid_file }));
        tracing::info!("spurctld listening on {}", addr);
        let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
        // A member of a new cluster: form it, unless a peer already has (then
        // its leader brings this one up to date).
        if !has_history && !args.join {
            let r2 = raft.clone();
            let ms = members.clone();
            let auth2 = auth.clone();
            let tr = transport.clone();
            let rb = rebuild.clone();
            tokio::spawn(async move { bootstrap(r2, me, ms, auth2, legacy, tr, rb).await });
        }
        let mut server = tonic::transport::Server::builder();
        if let Some(tls) = transport.server() {
            server = match server.tls_config(tls) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("spurctld: fatal: TLS: {}", e);
                    std::process::exit(1);
                }
            };
        }
        if let Err(e) = server
            .max_concurrent_streams(Some(MAX_STREAMS_PER_CONNECTION))
            .add_service(svc)
            .add_service(consensus)
            .serve_with_incoming(incoming)
            .await
        {
            eprintln!("spurctld: fatal: {}", e);
            std::process::exit(1);
        }
    });
}

/// A controller without state of its own (a new cluster, or the first start
/// on a Slurm site): it has slurm.conf's nodes and partitions and an empty
/// queue, and says so. Slurm's own state files, if StateSaveLocation holds
/// them, are not read: the jobs they hold are not carried over
/// (docs/migration.md).
fn first_start(state_dir: &std::path::Path, conf: &SlurmConf, conf_path: &std::path::Path) {
    tracing::info!(
        "no saved state in {}: starting with the {} node(s) and {} partition(s) of {} and an empty queue",
        state_dir.display(),
        conf.nodes.len(),
        conf.partitions.len(),
        conf_path.display()
    );
    let slurm: Vec<&str> = ["job_state", "node_state", "part_state", "resv_state", "assoc_mgr_state"]
        .into_iter()
        .filter(|f| state_dir.join(f).exists())
        .collect();
    if !slurm.is_empty() {
        tracing::warn!(
            "{} holds Slurm's state ({}): Spur does not read it; jobs queued or running under Slurm are not carried over",
            state_dir.display(),
            slurm.join(", ")
        );
    }
}

/// The largest request a user may send (a job of a 4 MiB script and its environment fits).
const MAX_REQUEST: usize = 64 << 20;
/// The largest Raft message (a snapshot chunk, a batch of log entries).
const MAX_RAFT_MESSAGE: usize = 1 << 30;
/// Requests being read or served at once, everyone's; and one user's (more wait).
const MAX_IN_FLIGHT: usize = 256;
const MAX_IN_FLIGHT_PER_USER: usize = 4;
/// HTTP/2 streams one connection may have open.
const MAX_STREAMS_PER_CONNECTION: u32 = 64;

fn env_ms(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Initialise the Raft cluster from the SlurmctldHost lines, unless another
/// member already answers as part of one.
async fn bootstrap(
    raft: spur_state::raft::Raft,
    me: u64,
    members: std::collections::BTreeMap<u64, openraft::BasicNode>,
    auth: spur_auth::grpc::DaemonAuth,
    legacy: bool,
    transport: spur_auth::tls::Transport,
    rebuild: raftnet::Rebuild,
) {
    for (id, n) in &members {
        if *id == me {
            continue;
        }
        if let Some(reply) = peer_ping(&n.addr, &auth, legacy, &transport).await {
            // a cluster with a history: a leader, a follower, or a member
            // (even a candidate, its leader gone) whose log holds more than
            // the first membership entry of a cluster being formed
            if reply.leader_id != 0 || reply.role == "follower" || reply.role == "leader" || reply.log_length > 1 {
                tracing::info!(
                    "controller {} is part of a running cluster: this one lost its state; it takes no part in \
                     elections until brought up to date",
                    id
                );
                return;
            }
        }
    }
    rebuild.finish(&raft);
    match raft.initialize(members.clone()).await {
        Ok(()) => tracing::info!("formed a cluster of {} controller(s)", members.len()),
        Err(e) => tracing::info!("not initialising: {}", e),
    }
}

/// Ping the controller at `addr` (`host:port`), as a controller.
pub async fn peer_ping(
    addr: &str,
    auth: &spur_auth::grpc::DaemonAuth,
    legacy: bool,
    transport: &spur_auth::tls::Transport,
) -> Option<spur_proto::PingReply> {
    let ep = transport.endpoint(addr).ok()?;
    let ch = ep.connect_timeout(std::time::Duration::from_millis(300)).connect().await.ok()?;
    let signer = auth.signer(spur_auth::Kind::Controller);
    let mut c =
        spur_proto::controller_client::ControllerClient::new(spur_auth::grpc::Signed::new(ch, signer, addr, legacy));
    let mut r = tonic::Request::new(spur_proto::PingRequest {});
    r.set_timeout(std::time::Duration::from_millis(500));
    c.ping(r).await.ok().map(|r| r.into_inner())
}

/// Nice value of the Raft runtime's threads.
const RAFT_NICE: i32 = -10;

/// Give the calling thread (a Raft runtime thread) nice [`RAFT_NICE`]: a
/// thread's own priority (Linux: PRIO_PROCESS with a thread id). Without the
/// privilege (not root, or no CAP_SYS_NICE) it stays as it is.
fn raise_thread_priority() {
    // SAFETY: gettid and setpriority take plain integers and touch no memory.
    let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, RAFT_NICE) };
    if r != 0 {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            tracing::info!("raft threads keep the default priority (setpriority: {})", std::io::Error::last_os_error())
        });
    }
}
