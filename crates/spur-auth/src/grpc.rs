//! Credentials on the wire: every call a Spur process makes is signed by
//! [`Signed`] (a wrapper around a tonic channel) and every service it
//! serves sits behind [`Authenticated`] (a wrapper around a tonic service).
//!
//! The receiving side, per request, in this order:
//! 1. the credential (header `x-spur-cred`) is checked for this receiver
//!    and method, its times, and the kinds the method takes ([`Policy`]),
//!    before a byte of the body is read: an unauthenticated caller costs one
//!    HMAC;
//! 2. the caller's limits ([`Limits`]): the rate limit when slurm.conf asks
//!    for it (`SlurmctldParameters=rl_enable`, Slurm's `rl_*` token bucket
//!    per uid), then a place among the caller's own requests in flight and
//!    among everyone's (waiting for one, never refused); root, SlurmUser and
//!    the daemons are exempt from both, as in Slurm;
//! 3. the body is read, at most the service's size limit, and its SHA-256
//!    must be the credential's;
//! 4. the nonce goes into the host's replay cache ([`crate::replay`]);
//! 5. the proved [`Identity`] is put in the request's extensions, where the
//!    handlers take it ([`identity`]).
//!
//! A failure answers gRPC `Unauthenticated` (`ResourceExhausted` for a body
//! over the limit or a rate-limited caller) without calling the service.

use crate::cred::{self, CredError, Kind};
use crate::replay::ReplayCache;
use crate::{now, read_key, Identity};
use bytes::Bytes;
use http_body_util::BodyExt;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::sync::Semaphore;
use tonic::body::Body;

/// The header carrying a version 2 credential.
pub const HEADER: &str = "x-spur-cred";
/// How an answer made on the caller's side because no credential could be
/// had begins (then the reason).
pub const NO_CREDENTIAL: &str = "cannot get a credential: ";
/// Slurm's text for a rate-limited request (SLURMCTLD_COMMUNICATIONS_BACKOFF).
pub const BACKOFF_TEXT: &str = "Rate limit exceeded, please retry momentarily";

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The identity the request's credential proved (put there by
/// [`Authenticated`]), or `Unauthenticated`.
pub fn identity<T>(req: &tonic::Request<T>) -> Result<Identity, tonic::Status> {
    req.extensions().get::<Identity>().cloned().ok_or_else(|| tonic::Status::unauthenticated("no credential"))
}

/// Who signs a process's calls.
#[derive(Clone)]
pub enum Signer {
    /// A daemon (or a test) with the key, as `id`.
    Key { key: Arc<Vec<u8>>, id: Identity },
    /// A command or library: as its own uid with the key when it can read
    /// it (root), else through the site's munged (`munge`: its socket, under
    /// `AuthType=auth/munge`), else through the host's signing service.
    Process { key_file: PathBuf, socket: PathBuf, munge: Option<PathBuf> },
    /// A daemon under `AuthType=auth/munge` without slurm.key: through the
    /// site's munged at `socket`, as `kind` (the receiver takes it only from
    /// root or SlurmUser, as Slurm's daemons trust each other's munge uid).
    Munge { socket: PathBuf, kind: Kind },
}

/// How a daemon signs its calls: with the cluster key (slurm.key), or,
/// under `AuthType=auth/munge` on a site without one, through munged.
#[derive(Clone)]
pub enum DaemonAuth {
    Key(Arc<Vec<u8>>),
    Munge(PathBuf),
}

impl DaemonAuth {
    /// slurm.conf's: the key beside it (`key_path`) when there is one, else
    /// under auth/munge munged; else why the daemon cannot start.
    pub fn load(
        conf: &std::path::Path,
        auth_type: Option<&str>,
        auth_info: Option<&str>,
    ) -> Result<DaemonAuth, String> {
        let path = crate::key_path(conf);
        match (crate::read_key(&path), crate::munge_socket(auth_type, auth_info)) {
            (Ok(k), _) => Ok(DaemonAuth::Key(Arc::new(k))),
            (Err(e), Some(sock)) if e.kind() == std::io::ErrorKind::NotFound => Ok(DaemonAuth::Munge(sock)),
            (Err(e), _) => Err(format!("cannot read key {}: {}", path.display(), e)),
        }
    }

    /// The signer of this daemon's calls, as `kind`.
    pub fn signer(&self, kind: Kind) -> Signer {
        match self {
            DaemonAuth::Key(key) => Signer::Key { key: key.clone(), id: Identity::daemon(kind) },
            DaemonAuth::Munge(socket) => Signer::Munge { socket: socket.clone(), kind },
        }
    }

    /// The key the daemon's gate checks version 2 credentials with: the
    /// cluster key, or (munge only) one nobody holds, so that every
    /// credential it takes is munged's.
    pub fn gate_key(&self) -> Result<Vec<u8>, String> {
        match self {
            DaemonAuth::Key(k) => Ok(k.to_vec()),
            DaemonAuth::Munge(_) => {
                let mut k = vec![0u8; 32];
                crate::random_bytes(&mut k).map_err(|e| e.to_string())?;
                Ok(k)
            }
        }
    }
}

impl Signer {
    /// A credential for a call of `method` at `audience` with a body of hash `hash`.
    pub async fn sign(&self, audience: &str, method: &str, hash: &[u8; 32]) -> std::io::Result<String> {
        match self {
            Signer::Key { key, id } => Ok(cred::sign(key, id, audience, method, hash)?),
            Signer::Process { key_file, socket, munge } => {
                if let Ok(k) = read_key(key_file) {
                    let id = Identity {
                        uid: nix::unistd::geteuid().as_raw(),
                        gid: nix::unistd::getegid().as_raw(),
                        kind: Kind::User,
                    };
                    return Ok(cred::sign(&k, &id, audience, method, hash)?);
                }
                if let Some(m) = munge {
                    return munge_sign(m, audience, method, hash, Kind::User).await;
                }
                ask_signer(socket, audience, method, hash).await
            }
            Signer::Munge { socket, kind } => munge_sign(socket, audience, method, hash, *kind).await,
        }
    }

    /// A version 1 credential, sent beside the version 2 one to services of
    /// older builds during a rolling upgrade (only signers holding the key).
    pub fn sign_v1(&self) -> Option<String> {
        match self {
            Signer::Key { key, id } => crate::sign(key, id).ok(),
            Signer::Process { key_file, .. } => {
                let k = read_key(key_file).ok()?;
                let id = Identity {
                    uid: nix::unistd::geteuid().as_raw(),
                    gid: nix::unistd::getegid().as_raw(),
                    kind: Kind::User,
                };
                crate::sign(&k, &id).ok()
            }
            Signer::Munge { .. } => None,
        }
    }
}

/// How a credential made by munged begins (then munged's own text).
pub const MUNGE_PREFIX: &str = "m2.";
/// How the reason begins when munged would not make a credential (then
/// munge's message), as Slurm's auth/munge words it.
pub const MUNGE_FAILED: &str = "Munge encode failed: ";

/// What a munge credential wraps: who signs (a user: `spur-v2`; a daemon:
/// `spur-v2 a` or `spur-v2 c`, its kind's letter), the receiver, the method
/// and the body's hash, so that it is good for one request as a version 2
/// credential is (munged adds the uid, gid, time-to-live and replay check).
fn munge_payload(audience: &str, method: &str, hash: &[u8; 32], kind: Kind) -> String {
    let tag = match kind {
        Kind::User => "spur-v2".to_string(),
        k => format!("spur-v2 {}", k.letter()),
    };
    format!("{}\n{}\n{}\n{}", tag, audience, method, crate::hex(hash))
}

/// A credential from the site's munged at `socket`, as `kind`.
async fn munge_sign(
    socket: &std::path::Path,
    audience: &str,
    method: &str,
    hash: &[u8; 32],
    kind: Kind,
) -> std::io::Result<String> {
    let (socket, payload) = (socket.to_path_buf(), munge_payload(audience, method, hash, kind));
    let c = tokio::task::spawn_blocking(move || spur_munge::encode(&socket, payload.as_bytes()))
        .await
        .map_err(std::io::Error::other)?
        .map_err(|e| {
            std::io::Error::new(std::io::ErrorKind::PermissionDenied, format!("{}{}", MUNGE_FAILED, e.message))
        })?;
    Ok(format!("{}{}", MUNGE_PREFIX, c))
}

/// Check a munge credential with the munged at `socket` for this receiver
/// (one of `audiences`), `method` and body `hash`: who it proves. A daemon's
/// (its payload says its kind) counts only from a uid of `daemons` (root,
/// SlurmUser); anyone else's is refused.
async fn munge_check(
    socket: &std::path::Path,
    cred: &str,
    audiences: &[String],
    method: &str,
    daemons: &[u32],
) -> Result<(Identity, [u8; 32]), String> {
    let (socket, c) = (socket.to_path_buf(), cred.to_string());
    let d = tokio::task::spawn_blocking(move || spur_munge::decode(&socket, &c))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8(d.payload).map_err(|_| CredError::Malformed.to_string())?;
    let f: Vec<&str> = text.split('\n').collect();
    let [tag, aud, m, h] = f[..] else { return Err(CredError::Malformed.to_string()) };
    let kind = match tag {
        "spur-v2" => Kind::User,
        "spur-v2 a" => Kind::Agent,
        "spur-v2 c" => Kind::Controller,
        _ => return Err(CredError::Malformed.to_string()),
    };
    if !audiences.iter().any(|a| a == aud) || m != method {
        return Err(CredError::BodyMismatch.to_string());
    }
    if kind != Kind::User && !daemons.contains(&d.uid) {
        return Err(CredError::WrongKind.to_string());
    }
    let hash: [u8; 32] = cred::unhex(h).ok_or_else(|| CredError::Malformed.to_string())?;
    Ok((Identity { uid: d.uid, gid: d.gid, kind }, hash))
}

/// Ask the signing service for a credential: one line
/// `v2 <audience> <method> <hash>` out, the credential back.
async fn ask_signer(
    socket: &std::path::Path,
    audience: &str,
    method: &str,
    hash: &[u8; 32],
) -> std::io::Result<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let work = async {
        let mut s = tokio::net::UnixStream::connect(socket).await?;
        s.write_all(format!("v2 {} {} {}\n", audience, method, crate::hex(hash)).as_bytes()).await?;
        s.shutdown().await?;
        let mut out = String::new();
        s.take(4096).read_to_string(&mut out).await?;
        let out = out.trim().to_string();
        if out.is_empty() {
            return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "signing service refused"));
        }
        Ok(out)
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), work)
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "signing service did not answer"))?
}

/// A channel whose every request carries a credential for it.
#[derive(Clone)]
pub struct Signed<S> {
    inner: S,
    signer: Signer,
    audience: Arc<str>,
    v1_too: bool,
}

impl<S> Signed<S> {
    /// Sign the calls on `inner` (connected to `audience`, `host:port` as
    /// slurm.conf names the receiver) with `signer`; `v1_too` adds a
    /// version 1 credential for receivers of older builds (a rolling upgrade,
    /// [`legacy_enabled`]).
    pub fn new(inner: S, signer: Signer, audience: &str, v1_too: bool) -> Signed<S> {
        Signed { inner, signer, audience: audience.into(), v1_too }
    }
}

impl<S> tower_service::Service<http::Request<Body>> for Signed<S>
where
    S: tower_service::Service<http::Request<Body>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = S::Response;
    type Error = Box<dyn std::error::Error + Send + Sync>;
    type Future = BoxFuture<Result<S::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        // the clone is the one made ready by poll_ready (tower's rule)
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let (signer, audience, v1_too) = (self.signer.clone(), self.audience.clone(), self.v1_too);
        Box::pin(async move {
            let (mut parts, body) = req.into_parts();
            let bytes = body.collect().await.map_err(|e| -> Self::Error { e.into() })?.to_bytes();
            let hash = cred::body_hash(&bytes);
            let tok = signer.sign(&audience, parts.uri.path(), &hash).await.map_err(|e| -> Self::Error {
                Box::new(tonic::Status::unauthenticated(format!("{}{}", NO_CREDENTIAL, e)))
            })?;
            parts.headers.insert(HEADER, tok.parse()?);
            if v1_too {
                if let Some(t) = signer.sign_v1() {
                    parts.headers.insert(crate::METADATA_KEY, t.parse()?);
                }
            }
            let req = http::Request::from_parts(parts, Body::new(http_body_util::Full::new(bytes)));
            inner.call(req).await.map_err(Into::into)
        })
    }
}

/// Which kinds of caller each method of a service takes.
pub type Policy = fn(method: &str) -> &'static [Kind];

pub const USERS: &[Kind] = &[Kind::User];
pub const AGENTS: &[Kind] = &[Kind::Agent];
pub const CONTROLLERS: &[Kind] = &[Kind::Controller];
pub const ANYONE: &[Kind] = &[Kind::User, Kind::Agent, Kind::Controller];

/// Slurm's RPC rate limit (`SlurmctldParameters=rl_enable,rl_bucket_size=,
/// rl_refill_rate=,rl_refill_period=,rl_table_size=`): a bucket of tokens
/// per uid, one taken per request, refilled `refill_rate` every
/// `refill_period` seconds up to `bucket_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    pub bucket_size: u32,
    pub refill_rate: u32,
    pub refill_period: u32,
    pub table_size: u32,
}

impl RateLimit {
    /// From SlurmctldParameters: `None` unless `rl_enable` is there; Slurm's
    /// defaults (30, 2, 1, 8192) for what it does not set.
    pub fn from_params(params: Option<&str>) -> Option<RateLimit> {
        let params = params?;
        let mut rl = RateLimit { bucket_size: 30, refill_rate: 2, refill_period: 1, table_size: 8192 };
        let mut on = false;
        for p in params.split(',').map(str::trim) {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let n = || v.parse::<u32>().ok().filter(|n| *n > 0);
            match k {
                "rl_enable" => on = true,
                "rl_bucket_size" => rl.bucket_size = n().unwrap_or(rl.bucket_size),
                "rl_refill_rate" => rl.refill_rate = n().unwrap_or(rl.refill_rate),
                "rl_refill_period" => rl.refill_period = n().unwrap_or(rl.refill_period),
                "rl_table_size" => rl.table_size = n().unwrap_or(rl.table_size),
                _ => {}
            }
        }
        on.then_some(rl)
    }
}

struct Bucket {
    tokens: u32,
    period: i64,
}

/// What one process lets its callers use at once.
pub struct Limits {
    /// Requests being read or served, everyone's.
    all: Arc<Semaphore>,
    /// Each uid's requests being read or served.
    per_user_max: usize,
    per_user: Mutex<HashMap<u32, Arc<Semaphore>>>,
    rate: Option<(RateLimit, Mutex<HashMap<u32, Bucket>>)>,
    /// Exempt from the per-user limits: root and SlurmUser.
    exempt: Vec<u32>,
}

impl Limits {
    /// At most `all` requests in flight, `per_user` of them one user's;
    /// `rate` when slurm.conf enables it; `exempt` uids (root, SlurmUser).
    pub fn new(all: usize, per_user: usize, rate: Option<RateLimit>, exempt: Vec<u32>) -> Arc<Limits> {
        Arc::new(Limits {
            all: Arc::new(Semaphore::new(all.max(1))),
            per_user_max: per_user.max(1),
            per_user: Mutex::new(HashMap::new()),
            rate: rate.map(|r| (r, Mutex::new(HashMap::new()))),
            exempt,
        })
    }

    /// Take one token of `uid`'s bucket: false when it is empty.
    fn rate_ok(&self, uid: u32, now: i64) -> bool {
        let Some((rl, table)) = &self.rate else { return true };
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        let period = now / rl.refill_period as i64;
        if !t.contains_key(&uid) && t.len() >= rl.table_size as usize {
            // as Slurm: a full table does not limit new users (logged)
            tracing::error!("RPC Rate Limiting: ran out of user table space. User will not be limited.");
            return true;
        }
        let b = t.entry(uid).or_insert(Bucket { tokens: rl.bucket_size, period });
        let delta = (period - b.period).max(0) as u64;
        b.period = period;
        b.tokens = (b.tokens as u64 + delta * rl.refill_rate as u64).min(rl.bucket_size as u64) as u32;
        if b.tokens == 0 {
            return false;
        }
        b.tokens -= 1;
        true
    }

    fn user_semaphore(&self, uid: u32) -> Arc<Semaphore> {
        let mut m = self.per_user.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() > 4096 {
            // forget the idle ones (nobody holds or waits on them)
            let max = self.per_user_max;
            m.retain(|_, s| Arc::strong_count(s) > 1 || s.available_permits() < max);
        }
        m.entry(uid).or_insert_with(|| Arc::new(Semaphore::new(self.per_user_max))).clone()
    }
}

/// The receiving side's settings, shared by the services of one process.
pub struct Gate {
    key: Vec<u8>,
    /// The names callers reach this process by (`host:port`).
    audiences: Vec<String>,
    replay: Arc<ReplayCache>,
    /// Version 1 credentials accepted (a rolling upgrade).
    legacy: Option<crate::Verifier>,
    limits: Arc<Limits>,
    /// Under `AuthType=auth/munge`, munged's socket: users' credentials made
    /// by munged are checked there.
    munge: Option<PathBuf>,
}

impl Gate {
    pub fn new(
        key: Vec<u8>,
        audiences: Vec<String>,
        replay: Arc<ReplayCache>,
        legacy: bool,
        limits: Arc<Limits>,
        munge: Option<PathBuf>,
    ) -> Arc<Gate> {
        let legacy = legacy.then(|| crate::Verifier::new(key.clone()));
        Arc::new(Gate { key, audiences, replay, legacy, limits, munge })
    }

    /// Check a request's credential and limits, read its body: the request
    /// (with its [`Identity`] and the permits it holds) or the answer.
    async fn admit(
        &self,
        req: http::Request<Body>,
        policy: Policy,
        max_body: usize,
    ) -> Result<(http::Request<Body>, Permits), tonic::Status> {
        let method = req.uri().path().to_string();
        let unauth = |e: CredError| tonic::Status::unauthenticated(e.to_string());
        let t = now();
        // (a credential munged made: a user's, its replay checked by munged)
        let mut munged = None;
        let claims = match req.headers().get(HEADER) {
            Some(v) => {
                let tok = v.to_str().map_err(|_| unauth(CredError::Malformed))?;
                match (tok.strip_prefix(MUNGE_PREFIX), &self.munge) {
                    (Some(c), Some(sock)) => {
                        munged = Some(
                            munge_check(sock, c, &self.audiences, &method, &self.limits.exempt)
                                .await
                                .map_err(tonic::Status::unauthenticated)?,
                        );
                        None
                    }
                    (Some(_), None) => return Err(unauth(CredError::Malformed)),
                    _ => Some(cred::check(&self.key, tok, &self.audiences, &method, t).map_err(unauth)?),
                }
            }
            None => None,
        };
        let id = match (&claims, &munged) {
            (Some(c), _) => c.identity(),
            (None, Some((id, _))) => id.clone(),
            (None, None) => {
                // a version 1 credential, during a rolling upgrade only: it
                // says no kind; root's passes as any, a user's as a user's
                let (Some(v), Some(tok)) = (&self.legacy, req.headers().get(crate::METADATA_KEY)) else {
                    return Err(tonic::Status::unauthenticated("no credential"));
                };
                let tok = tok.to_str().map_err(|_| tonic::Status::unauthenticated("malformed credential"))?;
                let id = v.verify(tok).map_err(|e| tonic::Status::unauthenticated(e.to_string()))?;
                let kinds = policy(&method);
                let kind = if id.uid == 0 { kinds[0] } else { Kind::User };
                Identity { kind, ..id }
            }
        };
        if !policy(&method).contains(&id.kind) {
            // a good credential where it does not belong: say whose
            tracing::warn!(target: "audit", rpc = %method, uid = id.uid, kind = ?id.kind,
                result = %CredError::WrongKind, "refused");
            return Err(unauth(CredError::WrongKind));
        }
        let exempt = id.kind != Kind::User || self.limits.exempt.contains(&id.uid);
        if !exempt && !self.limits.rate_ok(id.uid, t) {
            let peer = peer_of(&req);
            tracing::info!(
                "RPC rate limit exceeded by uid {} with {} from {}, telling to back off",
                id.uid,
                method,
                peer
            );
            return Err(tonic::Status::resource_exhausted(BACKOFF_TEXT));
        }
        let user = if exempt {
            None
        } else {
            let s = self.limits.user_semaphore(id.uid);
            Some(s.acquire_owned().await.map_err(|_| tonic::Status::unavailable("shutting down"))?)
        };
        let all =
            self.limits.all.clone().acquire_owned().await.map_err(|_| tonic::Status::unavailable("shutting down"))?;
        let (mut parts, body) = req.into_parts();
        let bytes = match http_body_util::Limited::new(body, max_body).collect().await {
            Ok(b) => b.to_bytes(),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => {
                return Err(tonic::Status::resource_exhausted(format!(
                    "request larger than this service takes ({} bytes)",
                    max_body
                )))
            }
            Err(e) => return Err(tonic::Status::cancelled(format!("reading the request: {}", e))),
        };
        if let Some(c) = &claims {
            if !crate::constant_eq(&cred::body_hash(&bytes), &c.body_hash) {
                return Err(unauth(CredError::BodyMismatch));
            }
            self.replay.check_and_insert(&c.nonce, c.remember_until(), t).map_err(unauth)?;
        }
        if let Some((_, hash)) = &munged {
            if !crate::constant_eq(&cred::body_hash(&bytes), hash) {
                return Err(unauth(CredError::BodyMismatch));
            }
        }
        parts.extensions.insert(id);
        Ok((http::Request::from_parts(parts, Body::new(http_body_util::Full::new(bytes))), Permits(user, all)))
    }
}

/// The TCP peer of a request, as text (empty when unknown).
fn peer_of(req: &http::Request<Body>) -> String {
    req.extensions()
        .get::<tonic::transport::server::TcpConnectInfo>()
        .and_then(|c| c.remote_addr())
        .map(|a| a.to_string())
        .unwrap_or_default()
}

/// A request's places among those in flight, given back when it is answered.
struct Permits(
    #[allow(dead_code)] Option<tokio::sync::OwnedSemaphorePermit>,
    #[allow(dead_code)] tokio::sync::OwnedSemaphorePermit,
);

/// A service that answers only requests whose credential [`Gate`] admits.
#[derive(Clone)]
pub struct Authenticated<S> {
    inner: S,
    gate: Arc<Gate>,
    policy: Policy,
    max_body: usize,
}

impl<S> Authenticated<S> {
    /// `inner` behind `gate`, taking the callers `policy` names and bodies
    /// of at most `max_body` bytes.
    pub fn new(inner: S, gate: Arc<Gate>, policy: Policy, max_body: usize) -> Authenticated<S> {
        Authenticated { inner, gate, policy, max_body }
    }
}

impl<S: tonic::server::NamedService> tonic::server::NamedService for Authenticated<S> {
    const NAME: &'static str = S::NAME;
}

impl<S> tower_service::Service<http::Request<Body>> for Authenticated<S>
where
    S: tower_service::Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<http::Response<Body>, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let (gate, policy, max_body) = (self.gate.clone(), self.policy, self.max_body);
        Box::pin(async move {
            let method = req.uri().path().to_string();
            let peer = peer_of(&req);
            match gate.admit(req, policy, max_body).await {
                Ok((req, permits)) => {
                    let r = inner.call(req).await;
                    drop(permits);
                    r
                }
                Err(st) => {
                    // the audit log (spurctld's audit.rs logs what passes)
                    if st.code() == tonic::Code::Unauthenticated && st.message() != CredError::WrongKind.to_string() {
                        tracing::warn!(target: "audit", rpc = %method, peer = %peer, result = %st.message(), "unauthenticated");
                    }
                    Ok(st.into_http())
                }
            }
        })
    }
}

/// Bytes to a tonic body (tests).
pub fn body(b: impl Into<Bytes>) -> Body {
    Body::new(http_body_util::Full::new(b.into()))
}
