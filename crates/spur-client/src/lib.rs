//! The one client library: finds slurm.conf, finds the leader controller,
//! signs every request, and retries on the next controller when one does not
//! answer. Used by the `spur` commands, the agents, and (next) the C ABI
//! library.
//!
//! **API boundary**: every call takes and returns spur-core types
//! (`spur_core::request`, `spur_core::model`) and fails with a [`ClientError`]
//! carrying Slurm's error number; no tonic or protobuf type appears in the
//! public API. [`blocking::Client`] is the same API for callers without an
//! async runtime (C threads).
//!
//! Credentials: every request is signed for the controller it goes to, its
//! method and its bytes ([`spur_auth::grpc::Signed`]): by the calling
//! process's own uid (the key when it can read it, else the host's signing
//! service), or by a daemon's identity ([`Client::with_signer`]).
//!
//! Leader following: a call goes to the controller that answered last (else
//! the `SlurmctldHost` lines in order). A "not the leader" answer (gRPC
//! `Unavailable` with metadata `x-spur-leader: addr:port`) sends it to the
//! named leader if that address is one of the `SlurmctldHost` lines (a hint
//! naming another address has slurm.conf read again, once a second at most,
//! for a controller added since; one still not there is ignored, and the next
//! controller tried); `Unavailable` without a name (an election) or a transport
//! error sends it to the next controller; a controller that accepts but does
//! not answer within the message timeout (Slurm's MessageTimeout, 10 s) is
//! given up for the next, which gets a retry time of its own. All of that for
//! up to the retry time (`SPUR_CONNECT_RETRY`, 10 s), then
//! [`ClientError::Unreachable`]. A retried
//! request is the same request: a submission keeps its request id, which the
//! controller remembers, so it is never queued twice.

use spur_auth::grpc::{Signed, Signer};
use spur_core::config::SlurmConf;
use spur_core::errors;
use spur_core::model::{ClusterView, JobDesc};
use spur_core::request::*;
use spur_proto::controller_client::ControllerClient;
use spur_proto::{self as pb, convert};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};

pub mod blocking;

/// User and group names (getpwuid_r and friends).
pub use spur_auth::users;
/// The messages of `sacctmgr`'s QOS RPC ([`Client::qos`]).
pub use spur_proto::{
    assoc_request::Entity as AssocEntity, assoc_request::Op as AssocOp, qos_request::Op as QosOp, AssocRequest,
    QosRequest, QosSetting,
};

/// Where slurm.conf is: `$SLURM_CONF`, else /etc/slurm/slurm.conf.
/// Why a step was not created or did not start (`Client::step_create`).
#[derive(Debug)]
pub struct StepError {
    pub error: ClientError,
    /// The node whose agent could not start its part of the step.
    pub node: Option<String>,
    /// The step's number, when it was created before its launch failed.
    pub step_id: Option<u32>,
}

pub fn conf_path() -> PathBuf {
    spur_core::config::default_path()
}

/// Why a call failed; [`ClientError::code`] is Slurm's error number.
#[derive(Debug)]
pub enum ClientError {
    /// slurm.conf could not be read or parsed.
    Config(spur_core::config::ConfError),
    /// No controller answered.
    Unreachable,
    /// No credential could be had (key unreadable and no signing service,
    /// or no random source for its nonce).
    Auth(String),
    /// The controller answered with a Slurm error number and its text.
    Slurm(i32, String),
    /// A submission refused, with the lines slurmctld sends the user first.
    Rejected { code: i32, message: String, user_msg: String },
}

impl ClientError {
    /// Slurm's error number for this failure.
    pub fn code(&self) -> i32 {
        match self {
            ClientError::Config(_) => errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR,
            ClientError::Unreachable => errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR,
            ClientError::Auth(_) => errors::SLURM_PROTOCOL_AUTHENTICATION_ERROR,
            ClientError::Slurm(c, _) => *c,
            ClientError::Rejected { code, .. } => *code,
        }
    }

    fn slurm(code: i32) -> ClientError {
        ClientError::Slurm(code, errors::strerror(code))
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Config(e) => write!(f, "{}", e),
            ClientError::Unreachable => f.write_str("Unable to contact slurm controller (connect failure)"),
            ClientError::Auth(m) => write!(f, "Protocol authentication error ({})", m),
            ClientError::Slurm(_, m) => f.write_str(m),
            ClientError::Rejected { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for ClientError {}

fn status_error(s: &pb::Status) -> ClientError {
    let msg = if s.message.is_empty() { errors::strerror(s.code) } else { s.message.clone() };
    ClientError::Slurm(s.code, msg)
}

/// A reply's status as a Result.
fn check(s: &Option<pb::Status>) -> Result<(), ClientError> {
    match s {
        Some(st) if st.code != 0 => Err(status_error(st)),
        _ => Ok(()),
    }
}

fn job_results(r: Vec<pb::CancelResult>) -> Vec<JobResult> {
    r.into_iter().map(|r| JobResult { job_id: r.job_id, code: r.status.map(|s| s.code).unwrap_or(0) }).collect()
}

fn strip_scheme(ep: &str) -> &str {
    ep.trim_start_matches("http://").trim_start_matches("https://")
}

/// The gRPC metadata key of a "not leader" answer naming the leader (`addr:port`).
pub const LEADER_KEY: &str = "x-spur-leader";

/// How long calls keep trying controllers: `SPUR_CONNECT_RETRY` seconds, 10 by default.
/// slurm.conf's `MessageTimeout` (seconds, 10 when unset or not a number,
/// as Slurm).
fn message_timeout_secs(conf: &SlurmConf) -> u64 {
    conf.get("MessageTimeout").and_then(|v| v.trim().parse().ok()).filter(|v| *v > 0).unwrap_or(10)
}

pub fn retry_secs() -> u64 {
    std::env::var("SPUR_CONNECT_RETRY").ok().and_then(|v| v.parse().ok()).unwrap_or(10)
}

/// The controllers of slurm.conf, and when slurm.conf was last read again for them.
struct Controllers {
    list: Vec<(String, String)>,
    reread_at: Option<std::time::Instant>,
}

impl Controllers {
    fn of(conf: &SlurmConf, scheme: &str) -> Controllers {
        let list = conf
            .controllers
            .iter()
            .map(|c| (c.name.clone(), format!("{}{}:{}", scheme, c.addr, conf.slurmctld_port)))
            .collect();
        Controllers { list, reread_at: None }
    }
}

/// A connection to the cluster's controllers. Cheap to clone (clones share
/// the connection and the leader last seen); `Send + Sync`.
/// A running step's processes on one of its nodes
/// ([`Client::step_stat_with_pids`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepNodePids {
    pub node: String,
    /// Its tasks' first, by local id, then the step's other processes.
    pub pids: Vec<i32>,
    /// How many of `pids` are its tasks.
    pub tasks: u32,
}

#[derive(Clone)]
pub struct Client {
    conf: Arc<SlurmConf>,
    /// Where `conf` was read from.
    conf_path: Arc<PathBuf>,
    /// The controllers (name, `http[s]://addr:port`) in slurm.conf order: read
    /// again when a controller names a leader that is none of them.
    controllers: Arc<std::sync::Mutex<Controllers>>,
    signer: Signer,
    /// Version 1 credentials too (a rolling upgrade: `spur_auth::legacy_enabled`).
    legacy: bool,
    /// Plain or TLS (slurm.conf `TLSType`); an error when its files cannot be read.
    transport: Result<spur_auth::tls::Transport, String>,
    channel: Arc<tokio::sync::Mutex<Option<Signed<Channel>>>>,
    /// The controller to try first: the last one that answered, or the leader
    /// another one named.
    prefer: Arc<std::sync::Mutex<Option<String>>>,
    /// A controller that does not answer within this is given up for the next.
    message_timeout: Duration,
    /// How long a call keeps trying.
    retry: Duration,
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

    /// A client for `conf`, read from `path` (its `slurm.key` is beside it).
    pub fn new(conf: SlurmConf, path: &Path) -> Client {
        let socket = spur_auth::socket_path(conf.get("AuthType"), conf.auth_info.as_deref());
        let munge = spur_auth::munge_socket(conf.get("AuthType"), conf.auth_info.as_deref());
        let legacy = spur_auth::legacy_enabled(conf.auth_info.as_deref());
        let transport = spur_auth::tls::Transport::from_conf(
            conf.get("TLSType"),
            conf.get("TLSParameters"),
            path.parent().unwrap_or(Path::new("/")),
            spur_auth::tls::Role::Client,
        );
        let scheme = transport.as_ref().map(|t| t.scheme()).unwrap_or("http://");
        let controllers = Controllers::of(&conf, scheme);
        let message_timeout = Duration::from_secs(message_timeout_secs(&conf));
        Client {
            transport,
            controllers: Arc::new(std::sync::Mutex::new(controllers)),
            conf_path: Arc::new(path.to_path_buf()),
            conf: Arc::new(conf),
            signer: Signer::Process { key_file: spur_auth::key_path(path), socket, munge },
            legacy,
            channel: Arc::new(tokio::sync::Mutex::new(None)),
            prefer: Arc::new(std::sync::Mutex::new(None)),
            message_timeout,
            retry: Duration::from_secs(retry_secs()),
        }
    }

    /// The same client with other timeouts: `message` for one controller's
    /// answer (Slurm's MessageTimeout, 10 s), `retry` for the whole call.
    pub fn with_timeouts(mut self, message: Duration, retry: Duration) -> Client {
        self.message_timeout = message;
        self.retry = retry;
        self
    }

    /// The same client signing as someone else (a daemon: its kind, with the key).
    pub fn with_signer(mut self, signer: Signer) -> Client {
        self.signer = signer;
        self.channel = Arc::new(tokio::sync::Mutex::new(None));
        self
    }

    /// The slurm.conf this client was made from.
    pub fn conf(&self) -> &SlurmConf {
        &self.conf
    }

    /// A request with the message timeout (the channel signs it).
    fn request<T>(&self, msg: T) -> tonic::Request<T> {
        let mut r = tonic::Request::new(msg);
        r.set_timeout(self.message_timeout);
        r
    }

    /// `ch`, to endpoint `ep` (`http[s]://host:port`), signing every call for it.
    fn signed(&self, ch: Channel, ep: &str) -> Signed<Channel> {
        Signed::new(ch, self.signer.clone(), strip_scheme(ep), self.legacy)
    }

    /// The endpoint `ep` (`http[s]://host:port`), with TLS when slurm.conf asks.
    fn endpoint(&self, ep: &str) -> Result<Endpoint, ClientError> {
        let t = self
            .transport
            .as_ref()
            .map_err(|e| ClientError::Slurm(errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR, e.clone()))?;
        t.endpoint(strip_scheme(ep)).map_err(|e| ClientError::Slurm(errors::SLURM_COMMUNICATIONS_CONNECTION_ERROR, e))
    }

    /// Controller endpoints in slurm.conf order.
    fn endpoints(&self) -> Vec<String> {
        self.controllers.lock().unwrap_or_else(|e| e.into_inner()).list.iter().map(|(_, e)| e.clone()).collect()
    }

    /// The endpoint of controller `addr` (`addr:port`) if it is one of
    /// slurm.conf's; slurm.conf is read again (once a second at most) when it
    /// is not, so that a controller added since is followed.
    fn known(&self, addr: &str) -> Option<String> {
        let find = |c: &Controllers| c.list.iter().find(|(_, e)| strip_scheme(e) == addr).map(|(_, e)| e.clone());
        let mut g = self.controllers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = find(&g) {
            return Some(e);
        }
        if g.reread_at.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return None;
        }
        g.reread_at = Some(std::time::Instant::now());
        let conf = spur_core::config::load(&self.conf_path).ok()?;
        let scheme = self.transport.as_ref().map(|t| t.scheme()).unwrap_or("http://");
        g.list = Controllers::of(&conf, scheme).list;
        find(&g)
    }

    /// A channel to the first controller that accepts a connection: the
    /// preferred one, then the others in slurm.conf order, for up to `deadline`.
    async fn channel(&self, deadline: tokio::time::Instant) -> Result<Signed<Channel>, ClientError> {
        let mut guard = self.channel.lock().await;
        if let Some(c) = guard.as_ref() {
            return Ok(c.clone());
        }
        loop {
            let mut eps = self.endpoints();
            if let Some(p) = self.prefer.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                eps.retain(|e| *e != p);
                eps.insert(0, p);
            }
            for ep in eps {
                let e = match self.endpoint(&ep) {
                    Ok(e) => e.connect_timeout(Duration::from_secs(2)).tcp_nodelay(true),
                    Err(e) => return Err(e),
                };
                if let Ok(ch) = e.connect().await {
                    let ch = self.signed(ch, &ep);
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

    /// Forget the current connection (after a failure): the next call tries
    /// the controllers again, starting with the one after it.
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
    /// `addr:port`) if that is a controller of slurm.conf, else (no name,
    /// an election; or a name that is none of them) to the next one.
    async fn follow(&self, st: &tonic::Status) {
        let hint = st.metadata().get(LEADER_KEY).and_then(|v| v.to_str().ok()).and_then(|a| self.known(a));
        match hint {
            Some(h) => {
                *self.channel.lock().await = None;
                *self.prefer.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
            }
            None => self.reset().await,
        }
    }
}

/// The error of a call no credential could be had for. munged's refusal is
/// told on stderr as Slurm's auth/munge tells it (the program's name, then
/// munge's message), and the call fails with `Protocol authentication error`.
fn no_credential(reason: &str) -> ClientError {
    if reason.starts_with(spur_auth::grpc::MUNGE_FAILED) {
        let prog = std::env::args()
            .next()
            .and_then(|a| std::path::Path::new(&a).file_name().map(|f| f.to_string_lossy().into_owned()))
            .unwrap_or_default();
        eprintln!("{prog}: error: If munged is up, restart with --num-threads=10");
        eprintln!("{prog}: error: {reason}");
        return ClientError::slurm(errors::SLURM_PROTOCOL_AUTHENTICATION_ERROR);
    }
    ClientError::Auth(reason.to_string())
}

/// Run an RPC against the leader: follow "not the leader" answers, and on a
/// transport failure or a silent controller try the next one, until the
/// client's retry time is spent. The message is cloned for each try: a
/// retried submission keeps its request id.
macro_rules! call {
    ($client:expr, $method:ident, $msg:expr) => {{
        let c: &Client = &$client;
        let m = $msg;
        let mut deadline = tokio::time::Instant::now() + c.retry;
        let mut backoffs = 0u64;
        let mut silent = 0usize;
        loop {
            let ch = match c.channel(deadline).await {
                Ok(x) => x,
                Err(e) => break Err(e),
            };
            let mut ctl = ControllerClient::new(ch).max_decoding_message_size(1 << 30);
            let req = c.request(m.clone());
            match ctl.$method(req).await {
                Ok(r) => break Ok(r.into_inner()),
                Err(st)
                    if st.code() == tonic::Code::ResourceExhausted && st.message() == spur_auth::grpc::BACKOFF_TEXT =>
                {
                    // rate limited: sleep a second more each time, as Slurm's clients
                    backoffs += 1;
                    tokio::time::sleep(Duration::from_secs(backoffs)).await;
                    continue;
                }
                Err(st) if st.message().starts_with(spur_auth::grpc::NO_CREDENTIAL) => {
                    break Err(no_credential(&st.message()[spur_auth::grpc::NO_CREDENTIAL.len()..]))
                }
                Err(st) if st.code() == tonic::Code::Unauthenticated => {
                    break Err(ClientError::slurm(errors::SLURM_PROTOCOL_AUTHENTICATION_ERROR))
                }
                Err(st) if st.code() == tonic::Code::PermissionDenied => {
                    break Err(ClientError::slurm(errors::ESLURM_ACCESS_DENIED))
                }
                Err(st) if st.code() == tonic::Code::Unavailable && tokio::time::Instant::now() < deadline => {
                    // not the leader (maybe naming it), no majority yet, or the
                    // connection broke: try the leader or the next controller
                    let named = st.metadata().get(LEADER_KEY).is_some();
                    c.follow(&st).await;
                    if !named {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    continue;
                }
                Err(st)
                    if matches!(st.code(), tonic::Code::Cancelled | tonic::Code::DeadlineExceeded)
                        && silent + 1 < c.endpoints().len() =>
                {
                    // accepted but silent for the whole message timeout (a hung
                    // or stopped controller): the next one gets a retry time of
                    // its own, however much of this one's is left (with the
                    // defaults, 10 s each, a stopped first controller otherwise
                    // failed every command), once per controller
                    silent += 1;
                    c.reset().await;
                    deadline = tokio::time::Instant::now() + c.retry;
                    continue;
                }
                Err(_) if tokio::time::Instant::now() < deadline => {
                    c.reset().await;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(_) => break Err(ClientError::Unreachable),
            }
        }
    }};
}

impl Client {
    /// The accounting records `q` asks for (sacct), oldest job first.
    pub async fn accounting(
        &self,
        q: &spur_core::acct::AcctQuery,
    ) -> Result<Vec<spur_core::acct::AcctJob>, ClientError> {
        let query = spur_format::encode(spur_format::Kind::ACCT_QUERY, spur_format::FORMAT_VERSION, q)
            .map_err(|e| ClientError::Slurm(errors::SLURM_ERROR_ANY, e.to_string()))?;
        let r = call!(
            self,
            accounting,
            pb::AccountingRequest { query: query.clone(), max_format_version: u32::from(spur_format::FORMAT_VERSION) }
        )?;
        check(&r.status)?;
        decode_reply(spur_format::Kind::ACCT_JOB, &r.records)
    }

    /// What the tasks of running step `job_id.step_id` use now, per node
    /// that answered, and the step's record.
    pub async fn step_stat(
        &self,
        job_id: u32,
        step_id: u32,
    ) -> Result<(spur_core::acct::AcctStep, Vec<spur_core::usage::NodeUsage>), ClientError> {
        let r = call!(self, step_stat, pb::StepStatRequest { job_id, step_id, with_pids: false })?;
        check(&r.status)?;
        let step = decode_reply(spur_format::Kind::ACCT_JOB, &r.step)?;
        Ok((step, r.usage.iter().map(|l| spur_core::usage::NodeUsage::from_words(l.split_whitespace())).collect()))
    }

    /// [`Client::step_stat`] with the step's processes on each node that
    /// answered, in the step's node order, as `scontrol listpids` sees them
    /// (libslurm's `slurm_job_step_get_pids` and `slurm_job_step_stat`).
    pub async fn step_stat_with_pids(
        &self,
        job_id: u32,
        step_id: u32,
    ) -> Result<(spur_core::acct::AcctStep, Vec<spur_core::usage::NodeUsage>, Vec<StepNodePids>), ClientError> {
        let r = call!(self, step_stat, pb::StepStatRequest { job_id, step_id, with_pids: true })?;
        check(&r.status)?;
        let step = decode_reply(spur_format::Kind::ACCT_JOB, &r.step)?;
        let usage = r.usage.iter().map(|l| spur_core::usage::NodeUsage::from_words(l.split_whitespace())).collect();
        Ok((
            step,
            usage,
            r.pids.into_iter().map(|p| StepNodePids { node: p.node, pids: p.pids, tasks: p.tasks }).collect(),
        ))
    }

    /// Load jobs, nodes, partitions and reservations.
    pub async fn query(&self, q: &Query) -> Result<ClusterView, ClientError> {
        let r = call!(self, query, pb::QueryRequest::from(q))?;
        check(&r.status)?;
        let mut view = spur_core::records::decode_view(&r.view, &"the controller's reply").map_err(|e| {
            let code = if matches!(e, spur_format::FormatError::TooNew { .. }) {
                errors::SLURM_PROTOCOL_VERSION_ERROR
            } else {
                errors::SLURM_UNEXPECTED_MSG_ERROR
            };
            ClientError::Slurm(code, e.to_string())
        })?;
        view.plans = r
            .plans
            .into_iter()
            .map(|p| {
                let plan = spur_core::model::JobPlan {
                    start_time: p.start_time,
                    sched_nodes: (!p.sched_nodes.is_empty()).then_some(p.sched_nodes),
                    backfill: p.backfill,
                    considered_at: p.considered_at,
                };
                (p.job_id, plan)
            })
            .collect();
        view.fair_share = r.fair_share.into_iter().map(|f| ((f.user, f.account), f.factor)).collect();
        // a pending job's expected start is its start time, as slurmctld
        // sends it (and its end, the start plus its limit)
        let ClusterView { jobs, plans, .. } = &mut view;
        for j in jobs.iter_mut().filter(|j| j.state == spur_core::model::JobState::Pending) {
            if let Some(p) = plans.get(&j.job_id).filter(|p| p.start_time > 0) {
                j.start_time = p.start_time;
                j.end_time = j.time_limit.map(|m| p.start_time + m as i64 * 60).unwrap_or(0);
            }
            // when the backfill scheduler last looked at it
            if let Some(p) = plans.get(&j.job_id) {
                j.last_sched_eval = j.last_sched_eval.max(p.considered_at);
            }
        }
        Ok(view)
    }

    /// Submit a batch job (`test_only`: ask where and when it would start).
    /// A refusal is [`ClientError::Rejected`], with the lines to show first.
    /// A description without a request id gets a fresh one (from the OS
    /// random source), so that the retries of this call cannot queue it twice.
    pub async fn submit(&self, desc: &JobDesc, test_only: bool) -> Result<SubmitOutcome, ClientError> {
        let with_id;
        let desc = if desc.request_id.is_some() {
            desc
        } else {
            let id =
                spur_auth::random_hex(12).map_err(|e| ClientError::Slurm(errors::SLURM_ERROR_ANY, e.to_string()))?;
            with_id = JobDesc { request_id: Some(id), ..desc.clone() };
            &with_id
        };
        let job_desc = spur_core::records::encode_job_desc(desc, spur_format::FORMAT_VERSION)
            .map_err(|e| ClientError::Slurm(errors::SLURM_ERROR_ANY, e.to_string()))?;
        let r = call!(self, submit, pb::SubmitRequest { job_desc, test_only })?;
        if let Some(s) = r.status.as_ref().filter(|s| s.code != 0) {
            let message = if s.message.is_empty() { errors::strerror(s.code) } else { s.message.clone() };
            return Err(ClientError::Rejected { code: s.code, message, user_msg: r.user_msg });
        }
        Ok(SubmitOutcome {
            job_id: r.job_id,
            start_time: r.start_time,
            nodes: r.nodes,
            partition: r.partition,
            cpus: r.cpus,
        })
    }

    /// Cancel or signal jobs: one answer per job reference (or per job a filter found).
    pub async fn cancel(&self, req: &CancelRequest) -> Result<Vec<JobResult>, ClientError> {
        let r = call!(self, cancel, pb::CancelRequest::from(req))?;
        check(&r.status)?;
        Ok(job_results(r.results))
    }

    /// Hold, release, requeue, suspend, resume, top or update jobs: one answer
    /// per job reference (`Top` answers for the whole list: an error or none).
    pub async fn job_control(&self, job_ids: &[String], op: &JobControl) -> Result<Vec<JobResult>, ClientError> {
        let r = call!(self, job_control, convert::job_control_request(job_ids, op))?;
        check(&r.status)?;
        Ok(job_results(r.results))
    }

    /// `scontrol update NodeName=…`.
    pub async fn update_node(&self, u: &NodeUpdate) -> Result<(), ClientError> {
        let r = call!(self, node_control, pb::NodeControlRequest::from(u))?;
        check(&r.status)
    }

    /// `scontrol update PartitionName=…`.
    pub async fn update_partition(&self, u: &PartitionUpdate) -> Result<(), ClientError> {
        let r = call!(self, node_control, pb::NodeControlRequest::from(u))?;
        check(&r.status)
    }

    /// Create, update or delete a reservation: its name (the one the
    /// controller chose when a creation named none).
    pub async fn reservation(&self, req: &ReservationRequest) -> Result<String, ClientError> {
        let r = call!(self, reservation, pb::ReservationRequest::from(req))?;
        check(&r.status)?;
        Ok(r.name)
    }

    /// `sacctmgr add|modify|delete qos`: the names of the QOS it added,
    /// modified or deleted (none: nothing was).
    pub async fn qos(&self, req: pb::QosRequest) -> Result<Vec<String>, ClientError> {
        let r = call!(self, qos, req)?;
        check(&r.status)?;
        Ok(r.names)
    }

    /// `sacctmgr add|modify|delete account|user`: what it changed.
    pub async fn assoc(&self, req: pb::AssocRequest) -> Result<Vec<String>, ClientError> {
        let r = call!(self, assoc, req)?;
        check(&r.status)?;
        Ok(r.names)
    }

    /// `scontrol reconfigure`: every controller and agent reads slurm.conf again.
    pub async fn reconfigure(&self) -> Result<(), ClientError> {
        let r = call!(self, reconfigure, pb::ReconfigureRequest { forwarded: false })?;
        check(&r.status)
    }

    /// The leader's answer to a ping.
    pub async fn ping(&self) -> Result<PingInfo, ClientError> {
        let r = call!(self, ping, pb::PingRequest {})?;
        check(&r.status)?;
        Ok(r.into())
    }

    /// Ping every controller of slurm.conf directly (no leader following), in
    /// slurm.conf order: its name and its answer, `None` if it does not answer.
    pub async fn ping_each(&self) -> Vec<(String, Option<PingInfo>)> {
        let mut out = vec![];
        let list = self.controllers.lock().unwrap_or_else(|e| e.into_inner()).list.clone();
        for (name, ep) in list {
            let reply = async {
                let ch = self.endpoint(&ep).ok()?.connect_timeout(Duration::from_secs(2)).connect().await.ok()?;
                let ch = self.signed(ch, &ep);
                let mut req = self.request(pb::PingRequest {});
                req.set_timeout(Duration::from_secs(5));
                let r = ControllerClient::new(ch).ping(req).await.ok()?.into_inner();
                check(&r.status).ok()?;
                Some(PingInfo::from(r))
            }
            .await;
            out.push((name, reply));
        }
        out
    }

    /// List the controllers, or add or remove one (operators only).
    pub async fn membership(&self, change: &MembershipChange) -> Result<Membership, ClientError> {
        let r = call!(self, membership, pb::MembershipRequest::from(change))?;
        check(&r.status)?;
        Ok(r.into())
    }

    /// An agent's registration or heartbeat (operators only): the jobs the
    /// controller says no longer run here. `Err(ClientError::Slurm)` is a refusal.
    pub async fn register(&self, reg: &NodeRegistration) -> Result<Vec<u32>, ClientError> {
        let r = call!(self, register, pb::RegisterRequest::from(reg))?;
        check(&r.status)?;
        Ok(r.kill_jobs)
    }

    /// An agent's report that a job ended (operators only). Any answer, a
    /// refusal (`Err(ClientError::Slurm)`) too, acknowledges the report.
    pub async fn job_complete(&self, done: &JobCompletion) -> Result<(), ClientError> {
        let r = call!(self, job_complete, pb::JobCompleteRequest::from(done))?;
        check(&r.status)
    }

    /// Create a step in a running job and start its tasks (srun). A refusal
    /// is [`StepError`]: the error, and when the step was created but could
    /// not start on a node, that node and the step's number.
    pub async fn step_create(&self, c: &spur_core::launch::StepCreate) -> Result<spur_core::model::Step, StepError> {
        let plain = |error| StepError { error, node: None, step_id: None };
        let create = spur_core::records::encode_step_create(c, spur_format::FORMAT_VERSION)
            .map_err(|e| plain(ClientError::Slurm(errors::SLURM_ERROR_ANY, e.to_string())))?;
        let r = call!(
            self,
            step_create,
            pb::StepCreateRequest { create, max_format_version: spur_format::FORMAT_VERSION as u32 }
        )
        .map_err(plain)?;
        let step = spur_core::records::decode_step(&r.step, &"the controller's reply");
        if let Err(error) = check(&r.status) {
            return Err(StepError {
                error,
                node: Some(r.failed_node).filter(|n| !n.is_empty()),
                step_id: step.ok().map(|s| s.step_id),
            });
        }
        step.map_err(|e| plain(ClientError::Slurm(errors::SLURM_UNEXPECTED_MSG_ERROR, e.to_string())))
    }

    /// A step's tasks all ended, the highest of their raw wait statuses
    /// `exit_status`: its resources are free for the next.
    pub async fn step_complete(&self, job_id: u32, step_id: u32, exit_status: i32) -> Result<(), ClientError> {
        self.step_node_complete(job_id, step_id, "", exit_status, None).await
    }

    /// An agent's report that its node's part of a step ended (`node`; empty:
    /// srun's report that the whole step did), with what the step used there
    /// when its step daemon said.
    pub async fn step_node_complete(
        &self,
        job_id: u32,
        step_id: u32,
        node: &str,
        exit_status: i32,
        usage: Option<&spur_core::usage::NodeUsage>,
    ) -> Result<(), ClientError> {
        let r = call!(
            self,
            step_complete,
            pb::StepCompleteRequest {
                job_id,
                step_id,
                release: false,
                exit_status,
                node: node.to_string(),
                usage: usage.map(spur_proto::convert::step_node_usage),
            }
        )?;
        check(&r.status)
    }

    /// End an allocation without a batch script (srun's or salloc's own),
    /// with `exit_status` (a wait status) as the job's.
    pub async fn release_allocation(&self, job_id: u32, exit_status: i32) -> Result<(), ClientError> {
        let r = call!(
            self,
            step_complete,
            pb::StepCompleteRequest { job_id, step_id: 0, release: true, exit_status, ..Default::default() }
        )?;
        check(&r.status)
    }
}

pub mod step;

#[cfg(test)]
mod tests;

/// A record of the controller's reply, as the error a command reports when
/// it cannot be read.
fn decode_reply<T: serde::de::DeserializeOwned>(kind: spur_format::Kind, bytes: &[u8]) -> Result<T, ClientError> {
    spur_format::decode(kind, bytes, &"the controller's reply").map(|(v, _)| v).map_err(|e| {
        let code = if matches!(e, spur_format::FormatError::TooNew { .. }) {
            errors::SLURM_PROTOCOL_VERSION_ERROR
        } else {
            errors::SLURM_UNEXPECTED_MSG_ERROR
        };
        ClientError::Slurm(code, e.to_string())
    })
}
