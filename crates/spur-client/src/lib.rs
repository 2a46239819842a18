//! The one client library: finds slurm.conf, finds the controller, signs every
//! request, and retries on the next controller when one does not answer.
//! Used by the `spur` commands, the agents, and (later) libspur_compat.
//!
//! **API boundary**: callers see typed helpers returning spur-core types and
//! Slurm error numbers, never tonic internals.

use spur_auth as auth;
/// User and group names (getpwuid_r and friends).
pub use spur_auth::users;

use spur_core::config::SlurmConf;
use spur_core::errors;
use spur_proto::controller_client::ControllerClient;
use spur_proto::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};

pub use spur_proto as proto;

/// Where slurm.conf is: `$SLURM_CONF`, else /etc/slurm/slurm.conf.
pub fn conf_path() -> PathBuf {
    spur_core::config::default_path()
}

#[derive(Debug)]
pub enum ClientError {
    /// slurm.conf could not be read or parsed.
    Config(spur_core::config::ConfError),
    /// No controller answered.
    Unreachable,
    /// No credential could be had (key unreadable and no signing service).
    Auth(String),
    /// The controller answered with a Slurm error number.
    Slurm(i32, String),
}

impl ClientError {
    /// Slurm's error number for this failure.
    pub fn code(&self) -> i32 {
        match self {
            ClientError::Config(_) => errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR,
            ClientError::Unreachable => errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR,
            ClientError::Auth(_) => errors::SLURM_PROTOCOL_AUTHENTICATION_ERROR,
            ClientError::Slurm(c, _) => *c,
        }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Config(e) => write!(f, "{}", e),
            ClientError::Unreachable => f.write_str("Unable to contact slurm controller (connect failure)"),
            ClientError::Auth(m) => write!(f, "Protocol authentication error ({})", m),
            ClientError::Slurm(_, m) => f.write_str(m),
        }
    }
}

impl From<&Status> for ClientError {
    fn from(s: &Status) -> ClientError {
        let msg = if s.message.is_empty() { errors::strerror(s.code) } else { s.message.clone() };
        ClientError::Slurm(s.code, msg)
    }
}

/// Turn a reply status into a Result.
pub fn check(s: &Option<Status>) -> Result<(), ClientError> {
    match s {
        Some(st) if st.code != 0 => Err(ClientError::from(st)),
        _ => Ok(()),
    }
}

#[derive(Clone)]
pub struct Client {
    pub conf: Arc<SlurmConf>,
    pub conf_path: PathBuf,
    key_file: PathBuf,
    socket: PathBuf,
    channel: Arc<tokio::sync::Mutex<Option<Channel>>>,
    /// The controller to try first: the last one that answered, or the leader
    /// another one named.
    prefer: Arc<std::sync::Mutex<Option<String>>>,
}

impl Client {
    /// Read slurm.conf from `$SLURM_CONF` (or the default path).
    pub fn from_env() -> Result<Client, ClientError> {
        Client::from_conf_path(&conf_path())
    }

    pub fn from_conf_path(path: &Path) -> Result<Client, ClientError> {
        let conf = spur_core::config::load(path).map_err(ClientError::Config)?;
        Ok(Client::new(conf, path))
    }

    pub fn new(conf: SlurmConf, path: &Path) -> Client {
        let socket = auth::socket_path(conf.auth_info.as_deref());
        Client {
            conf: Arc::new(conf),
            conf_path: path.to_path_buf(),
            key_file: auth::key_path(path),
            socket,
            channel: Arc::new(tokio::sync::Mutex::new(None)),
            prefer: Arc::new(std::sync::Mutex::new(None)),
        }
    }

    /// A request carrying a fresh credential for the calling process.
    pub fn request<T>(&self, msg: T) -> Result<tonic::Request<T>, ClientError> {
        let tok = auth::credential(&self.key_file, &self.socket).map_err(|e| ClientError::Auth(e.to_string()))?;
        let mut r = tonic::Request::new(msg);
        r.metadata_mut().insert(
            auth::METADATA_KEY,
            tok.parse().map_err(|_| ClientError::Auth("bad credential".into()))?,
        );
        // Slurm's MessageTimeout default: a controller that accepts but does not
        // answer (stopped, cut off) is given up for the next one
        r.set_timeout(Duration::from_secs(10));
        Ok(r)
    }

    /// Controller endpoints in slurm.conf order.
    pub fn endpoints(&self) -> Vec<String> {
        self.conf
            .controllers
            .iter()
            .map(|c| format!("http://{}:{}", c.addr, self.conf.slurmctld_port))
            .collect()
    }

    /// A channel to the first controller that answers: the preferred one (the
    /// leader as last seen), then the others in slurm.conf order. Retries for a
    /// few seconds (a controller restarting, an election) before giving up.
    pub async fn channel(&self) -> Result<Channel, ClientError> {
        let mut guard = self.channel.lock().await;
        if let Some(c) = guard.as_ref() {
            return Ok(c.clone());
        }
        let deadline = tokio::time::Instant::now() + Duration::from_secs(retry_secs());
        loop {
            let mut eps = self.endpoints();
            if let Some(p) = self.prefer.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                eps.retain(|e| *e != p);
                eps.insert(0, p);
            }
            for ep in eps {
                let e = match Endpoint::from_shared(ep.clone()) {
                    Ok(e) => e.connect_timeout(Duration::from_secs(2)).tcp_nodelay(true),
                    Err(_) => continue,
                };
                if let Ok(ch) = e.connect().await {
                    *guard = Some(ch.clone());
                    *self.prefer.lock().unwrap_or_else(|e| e.into_inner()) = Some(ep);
                    return Ok(ch);
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ClientError::Unreachable);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Forget the current channel (after a transport error): the next call
    /// tries the controllers again, starting with the one after it.
    pub async fn reset(&self) {
        let mut g = self.channel.lock().await;
        *g = None;
        let mut p = self.prefer.lock().unwrap_or_else(|e| e.into_inner());
        let eps = self.endpoints();
        if eps.len() > 1 {
            let i = p.as_ref().and_then(|c| eps.iter().position(|e| e == c)).unwrap_or(0);
            *p = Some(eps[(i + 1) % eps.len()].clone());
        }
    }

    /// A controller answered "not the leader": go to the one it named (an
    /// `addr:port`), or to the next one when it named none (an election).
    pub async fn follow(&self, st: &tonic::Status) {
        let hint = st.metadata().get(LEADER_KEY).and_then(|v| v.to_str().ok()).map(|a| format!("http://{}", a));
        match hint {
            Some(h) => {
                *self.channel.lock().await = None;
                *self.prefer.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
            }
            None => self.reset().await,
        }
    }

    pub async fn ctl(&self) -> Result<ControllerClient<Channel>, ClientError> {
        Ok(ControllerClient::new(self.channel().await?).max_decoding_message_size(1 << 30))
    }
}

/// The gRPC metadata key of a "not leader" answer naming the leader (`addr:port`).
pub const LEADER_KEY: &str = "x-spur-leader";

pub fn retry_secs() -> u64 {
    std::env::var("SPUR_CONNECT_RETRY").ok().and_then(|v| v.parse().ok()).unwrap_or(10)
}

/// Run an RPC against the leader controller: follow "not the leader" answers,
/// and on a transport failure reconnect (to the next controller) and retry,
/// for up to `retry_secs()`. A retried submission is not doubled: each carries
/// a request id the controller remembers.
#[macro_export]
macro_rules! call {
    ($client:expr, $method:ident, $msg:expr) => {{
        let c: &$crate::Client = &$client;
        let m = $msg;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs($crate::retry_secs());
        loop {
            let mut ctl = match c.ctl().await {
                Ok(x) => x,
                Err(e) => break Err(e),
            };
            let req = match c.request(m.clone()) {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            match ctl.$method(req).await {
                Ok(r) => break Ok(r.into_inner()),
                Err(st) if st.code() == tonic::Code::Unauthenticated => {
                    break Err($crate::ClientError::Slurm(
                        spur_core::errors::SLURM_PROTOCOL_AUTHENTICATION_ERROR,
                        spur_core::errors::strerror(spur_core::errors::SLURM_PROTOCOL_AUTHENTICATION_ERROR),
                    ))
                }
                Err(st) if st.code() == tonic::Code::PermissionDenied => {
                    break Err($crate::ClientError::Slurm(
                        spur_core::errors::ESLURM_ACCESS_DENIED,
                        spur_core::errors::strerror(spur_core::errors::ESLURM_ACCESS_DENIED),
                    ))
                }
                Err(st) if st.code() == tonic::Code::Unavailable && std::time::Instant::now() < deadline => {
                    // not the leader (maybe naming it), no majority yet, or the
                    // connection broke: try the leader or the next controller
                    let named = st.metadata().get($crate::LEADER_KEY).is_some();
                    c.follow(&st).await;
                    if !named {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    continue;
                }
                Err(_) if std::time::Instant::now() < deadline => {
                    c.reset().await;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
                Err(_) => break Err($crate::ClientError::Unreachable),
            }
        }
    }};
}

impl Client {
    pub async fn query(&self, q: QueryRequest) -> Result<spur_core::model::ClusterView, ClientError> {
        let r = call!(self, query, q)?;
        check(&r.status)?;
        bincode::deserialize(&r.view).map_err(|e| ClientError::Slurm(errors::SLURM_UNEXPECTED_MSG_ERROR, e.to_string()))
    }

    pub async fn submit(&self, desc: &spur_core::model::JobDesc, test_only: bool) -> Result<SubmitReply, ClientError> {
        let job_desc = bincode::serialize(desc).map_err(|e| ClientError::Slurm(errors::SLURM_ERROR_ANY, e.to_string()))?;
        // The caller looks at the status: a refusal may come with messages
        // (`user_msg`) that sbatch prints before its failure line.
        call!(self, submit, SubmitRequest { job_desc, test_only })
    }

    pub async fn cancel(&self, req: CancelRequest) -> Result<CancelReply, ClientError> {
        let r = call!(self, cancel, req)?;
        check(&r.status)?;
        Ok(r)
    }

    pub async fn job_control(&self, req: JobControlRequest) -> Result<JobControlReply, ClientError> {
        let r = call!(self, job_control, req)?;
        check(&r.status)?;
        Ok(r)
    }

    pub async fn node_control(&self, req: NodeControlRequest) -> Result<NodeControlReply, ClientError> {
        let r = call!(self, node_control, req)?;
        check(&r.status)?;
        Ok(r)
    }

    pub async fn ping(&self) -> Result<PingReply, ClientError> {
        call!(self, ping, PingRequest {})
    }
}

impl Client {
    /// Ping every controller of slurm.conf directly (no leader following), in
    /// slurm.conf order: its name and its answer, `None` if it does not answer.
    pub async fn ping_each(&self) -> Vec<(String, Option<PingReply>)> {
        let mut out = vec![];
        for (c, ep) in self.conf.controllers.iter().zip(self.endpoints()) {
            let reply = async {
                let ch = Endpoint::from_shared(ep).ok()?.connect_timeout(Duration::from_secs(2)).connect().await.ok()?;
                let mut req = self.request(PingRequest {}).ok()?;
                req.set_timeout(Duration::from_secs(5));
                ControllerClient::new(ch).ping(req).await.ok().map(|r| r.into_inner())
            }
            .await;
            out.push((c.name.clone(), reply));
        }
        out
    }

    /// Controller membership: `op` is "list", "add" (id, addr) or "remove" (id).
    pub async fn membership(&self, op: &str, id: u64, addr: &str) -> Result<MembershipReply, ClientError> {
        let r = call!(self, membership, MembershipRequest { op: op.into(), id, addr: addr.into() })?;
        check(&r.status)?;
        Ok(r)
    }
}
