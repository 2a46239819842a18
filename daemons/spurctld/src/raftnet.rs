//! Raft between controllers over gRPC (the `Consensus` service on each
//! controller's SlurmctldPort). Messages are openraft's own types in a
//! `spur_format` envelope (kind `R`): a request at the sender's write version
//! (the cluster's active format version, see `spur_state::raft::WriteVersion`),
//! its reply at the request's version, so that members of two builds of one
//! cluster being upgraded understand each other. An InstallSnapshot request
//! is `[envelope (vote, meta, offset, done)][chunk bytes]`. A message of a
//! newer version than this build reads stops this controller with an error
//! naming the peer and both versions (it was downgraded below its cluster's
//! format version); one with no envelope (a build before versioned formats)
//! is refused.
//!
//! Every call is signed (with the cluster key, or through munged) like any other
//! controller-to-controller or controller-to-agent call, and only an
//! administrator credential is accepted.

use openraft::error::{InstallSnapshotError, NetworkError, RPCError, RaftError, RemoteError, Unreachable};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest,
    VoteResponse,
};
use openraft::BasicNode;
use serde::de::DeserializeOwned;
use serde::Serialize;
use spur_auth::grpc::Signed;
use spur_format::{FormatError, Kind, Version};
use spur_proto::consensus_client::ConsensusClient;
use spur_proto::RaftMessage;
use spur_state::raft::{NodeId, Raft, TypeConfig, WriteVersion};
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::Channel;

#[derive(Clone)]
pub struct Net {
    pub auth: spur_auth::grpc::DaemonAuth,
    /// The version this member writes at.
    pub wv: WriteVersion,
    /// The address outgoing Raft connections come from.
    pub local_ip: Option<std::net::IpAddr>,
    /// Version 1 credentials too (a rolling upgrade).
    pub legacy: bool,
    /// Plain or TLS.
    pub transport: spur_auth::tls::Transport,
}

pub struct Conn {
    target: NodeId,
    client: Option<ConsensusClient<Signed<Channel>>>,
    wv: WriteVersion,
}

impl RaftNetworkFactory<TypeConfig> for Net {
    type Network = Conn;

    async fn new_client(&mut self, target: NodeId, node: &BasicNode) -> Conn {
        let client = self.transport.endpoint(&node.addr).ok().map(|ep| {
            let ch = ep
                .local_address(self.local_ip)
                .connect_timeout(Duration::from_millis(500))
                .tcp_nodelay(true)
                .http2_keep_alive_interval(Duration::from_secs(1))
                .keep_alive_timeout(Duration::from_secs(2))
                .connect_lazy();
            let signer = self.auth.signer(spur_auth::Kind::Controller);
            let ch = Signed::new(ch, signer, &node.addr, self.legacy);
            ConsensusClient::new(ch).max_decoding_message_size(1 << 30).max_encoding_message_size(1 << 30)
        });
        Conn { target, client, wv: self.wv.clone() }
    }
}

fn unreachable<E: std::error::Error + 'static>(e: E) -> Unreachable {
    Unreachable::new(&e)
}

#[derive(Debug)]
struct Msg(String);
impl std::fmt::Display for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Msg {}

impl Conn {
    fn request(&self, data: Vec<u8>, ttl: Duration) -> tonic::Request<RaftMessage> {
        let mut r = tonic::Request::new(RaftMessage { data });
        r.set_timeout(ttl);
        r
    }

    /// Send one message (`data`, already encoded); decode the peer's
    /// `Result<Resp, RaftError<E>>`.
    async fn send<Resp, E>(
        &mut self,
        which: u8,
        data: Result<Vec<u8>, FormatError>,
        option: &RPCOption,
    ) -> Result<Resp, RPCError<NodeId, BasicNode, RaftError<NodeId, E>>>
    where
        Resp: DeserializeOwned,
        E: DeserializeOwned + std::error::Error,
    {
        let data = data.map_err(|e| RPCError::Network(NetworkError::new(&Msg(e.to_string()))))?;
        let req = self.request(data, option.hard_ttl());
        let Some(c) = self.client.as_mut() else {
            return Err(RPCError::Unreachable(unreachable(Msg("bad address".into()))));
        };
        let r = match which {
            0 => c.append_entries(req).await,
            1 => c.vote(req).await,
            _ => c.install_snapshot(req).await,
        };
        let reply = r
            .map_err(|s| match s.code() {
                // no answer within the time openraft gives (a heartbeat
                // interval): the peer is there but slow, so the next heartbeat
                // tries again. As `Unreachable` it made openraft stop sending to
                // that peer for its backoff (500 ms, longer than the election
                // timeout): the peer held an election under a mere burst of load
                tonic::Code::Cancelled | tonic::Code::DeadlineExceeded => {
                    RPCError::Network(NetworkError::new(&Msg(s.to_string())))
                }
                _ => RPCError::Unreachable(unreachable(Msg(s.to_string()))),
            })?
            .into_inner();
        let source = format!("reply of controller {}", self.target);
        let (res, _): (Result<Resp, RaftError<NodeId, E>>, Version) =
            spur_format::decode(Kind::RAFT_MESSAGE, &reply.data, &source)
                .map_err(|e| RPCError::Network(NetworkError::new(&Msg(e.to_string()))))?;
        res.map_err(|e| RPCError::RemoteError(RemoteError::new(self.target, e)))
    }
}

impl RaftNetwork<TypeConfig> for Conn {
    /// After an unreachable peer (no connection): try again after 50 ms, then
    /// 100, 200, 400 and every 500 ms (openraft's default is 500 ms from the
    /// first). A controller that restarts is back in the cluster at once.
    fn backoff(&self) -> openraft::network::Backoff {
        openraft::network::Backoff::new(
            [50, 100, 200, 400].into_iter().chain(std::iter::repeat(500)).map(Duration::from_millis),
        )
    }

    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<AppendEntriesResponse<NodeId>, RPCError<NodeId, BasicNode, RaftError<NodeId>>> {
        let data = spur_format::encode(Kind::RAFT_MESSAGE, self.wv.get(), &rpc);
        self.send(0, data, &option).await
    }

    async fn install_snapshot(
        &mut self,
        rpc: InstallSnapshotRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<InstallSnapshotResponse<NodeId>, RPCError<NodeId, BasicNode, RaftError<NodeId, InstallSnapshotError>>>
    {
        let data = encode_snapshot_chunk(&rpc, self.wv.get());
        self.send(2, data, &option).await
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<NodeId>,
        option: RPCOption,
    ) -> Result<VoteResponse<NodeId>, RPCError<NodeId, BasicNode, RaftError<NodeId>>> {
        let data = spur_format::encode(Kind::RAFT_MESSAGE, self.wv.get(), &rpc);
        self.send(1, data, &option).await
    }
}

/// An InstallSnapshot request: its fields but the chunk in an envelope, the
/// chunk's bytes after it (MessagePack would write them as an array of numbers).
fn encode_snapshot_chunk(rpc: &InstallSnapshotRequest<TypeConfig>, version: Version) -> Result<Vec<u8>, FormatError> {
    let mut out = spur_format::encode(Kind::RAFT_MESSAGE, version, &(&rpc.vote, &rpc.meta, rpc.offset, rpc.done))?;
    out.extend_from_slice(&rpc.data);
    Ok(out)
}

/// A member rebuilding from nothing: started without state while its
/// cluster has a history (its disk was lost or wiped). It holds none of the
/// entries committed before, yet counts in every majority: were it to vote,
/// a stale member could be elected with its vote alone and the entries that
/// only this member and a dead leader held would be lost. So until it holds
/// everything a leader had committed when it first reached this member (the
/// `leader_commit` of the first AppendEntries; a snapshot counts), it grants
/// no vote and stands for no election; the cluster waits for a member with
/// the entries instead. A member of a cluster being formed, or with state on
/// disk, is never rebuilding.
#[derive(Clone, Default)]
pub struct Rebuild(Arc<RebuildInner>);

#[derive(Default)]
struct RebuildInner {
    active: std::sync::atomic::AtomicBool,
    /// The first leader commit seen (its index + 1; 0: none yet).
    target: std::sync::atomic::AtomicU64,
}

impl Rebuild {
    /// Abstain from elections from now on (before the first message is served).
    pub fn start(&self, raft: &Raft) {
        self.0.active.store(true, std::sync::atomic::Ordering::SeqCst);
        raft.runtime_config().elect(false);
    }

    /// Take part in elections again.
    pub fn finish(&self, raft: &Raft) {
        if self.0.active.swap(false, std::sync::atomic::Ordering::SeqCst) {
            raft.runtime_config().elect(true);
        }
    }

    pub fn active(&self) -> bool {
        self.0.active.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn saw_leader_commit(&self, commit: Option<u64>) {
        if let (true, Some(i)) = (self.active(), commit) {
            let _ = self.0.target.compare_exchange(
                0,
                i + 1,
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
            );
        }
    }

    /// Whether a member that applied up to `applied` has caught up.
    fn caught_up(&self, applied: Option<u64>) -> bool {
        let t = self.0.target.load(std::sync::atomic::Ordering::SeqCst);
        t > 0 && applied.is_some_and(|a| a + 1 >= t)
    }

    /// Ends the rebuild once this member has applied the target entry.
    pub async fn watch(self, raft: Raft) {
        let mut m = raft.metrics();
        loop {
            if !self.active() {
                return;
            }
            let applied = m.borrow().last_applied.map(|l| l.index);
            if self.caught_up(applied) {
                tracing::info!(
                    "rebuilt: holds every entry its leader had committed (index {}); takes part in elections again",
                    applied.unwrap_or(0)
                );
                self.finish(&raft);
                return;
            }
            // (a new leader commit is seen without a metrics change: look again soon)
            let _ = tokio::time::timeout(Duration::from_millis(200), m.changed()).await;
        }
    }
}

/// The receiving side.
pub struct ConsensusService {
    pub raft: Raft,
    pub wv: WriteVersion,
    pub rebuild: Rebuild,
    /// This member's accounting store, which a peer copies records from.
    pub acct: Option<Arc<spur_accounting::Store>>,
}

/// A page of the accounting records a peer's store changed in entries
/// `(from, to]`, after `after` (the last of the previous page).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct AcctSyncRequest {
    pub from: u64,
    pub to: u64,
    pub after: Option<(u64, (u32, i64, u32))>,
    pub limit: u32,
}

/// Records per page of an accounting sync.
const ACCT_SYNC_PAGE: u32 = 2000;

impl Net {
    /// A Consensus client of the controller at `addr` (as Raft's own).
    pub fn client(&self, addr: &str) -> Option<ConsensusClient<Signed<Channel>>> {
        self.transport.endpoint(addr).ok().map(|ep| {
            let ch = ep
                .local_address(self.local_ip)
                .connect_timeout(Duration::from_millis(500))
                .tcp_nodelay(true)
                .connect_lazy();
            let signer = self.auth.signer(spur_auth::Kind::Controller);
            let ch = Signed::new(ch, signer, addr, self.legacy);
            ConsensusClient::new(ch).max_decoding_message_size(1 << 30).max_encoding_message_size(1 << 30)
        })
    }
}

/// Copy the records this member's store missed (it installed a snapshot:
/// `Store::pending_sync`) from a peer's store: the leader's, or, on the
/// leader, any other member's. Runs for the controller's life; a range is
/// done once a peer gave every page of it.
pub async fn acct_sync_loop(raft: Raft, net: Net, store: Arc<spur_accounting::Store>, me: NodeId) {
    // after a round in which no peer could give the records (a peer of a
    // build without the store answers Unimplemented), wait longer, up to 30 s
    let mut delay = Duration::from_millis(500);
    loop {
        tokio::time::sleep(delay).await;
        let Ok(Some((from, to))) = store.pending_sync() else { continue };
        let m = raft.metrics().borrow().clone();
        let mut peers: Vec<(NodeId, String)> =
            m.membership_config.nodes().filter(|(id, _)| **id != me).map(|(id, n)| (*id, n.addr.clone())).collect();
        // the leader first
        peers.sort_by_key(|(id, _)| Some(*id) != m.current_leader);
        let mut done = false;
        for (id, addr) in peers {
            match sync_from(&net, &addr, &store, from, to).await {
                Ok(n) => {
                    tracing::info!(
                        "accounting: copied {} records of entries {}..{} from controller {}",
                        n,
                        from + 1,
                        to,
                        id
                    );
                    let _ = store.sync_done();
                    done = true;
                    break;
                }
                Err(e) => {
                    if delay < Duration::from_secs(30) {
                        tracing::warn!("accounting: copying records from controller {}: {}", id, e)
                    }
                }
            }
        }
        delay = if done { Duration::from_millis(500) } else { (delay * 2).min(Duration::from_secs(30)) };
    }
}

async fn sync_from(
    net: &Net,
    addr: &str,
    store: &Arc<spur_accounting::Store>,
    from: u64,
    to: u64,
) -> Result<usize, String> {
    let mut c = net.client(addr).ok_or("bad address")?;
    let version = net.wv.get();
    let mut after = None;
    let mut n = 0;
    loop {
        let req = AcctSyncRequest { from, to, after, limit: ACCT_SYNC_PAGE };
        let data = spur_format::encode(Kind::RAFT_MESSAGE, version, &req).map_err(|e| e.to_string())?;
        let mut r = tonic::Request::new(RaftMessage { data });
        r.set_timeout(Duration::from_secs(30));
        let reply = c.acct_sync(r).await.map_err(|s| s.to_string())?.into_inner();
        let (page, _): (Result<Vec<(u64, spur_core::acct::AcctJob)>, String>, Version) =
            spur_format::decode(Kind::RAFT_MESSAGE, &reply.data, &"a peer's accounting records")
                .map_err(|e| e.to_string())?;
        let page = page?;
        let Some((i, last)) = page.last() else { return Ok(n) };
        after = Some((*i, (last.job_id, last.submit, last.restarts)));
        n += page.len();
        let s = store.clone();
        tokio::task::spawn_blocking(move || s.merge(&page))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
    }
}

impl ConsensusService {
    fn admin<T>(&self, req: &tonic::Request<T>) -> Result<(), tonic::Status> {
        // (the gate admits controllers' credentials only, see main.rs)
        let id = spur_auth::grpc::identity(req)?;
        if id.uid != 0 || id.kind != spur_auth::Kind::Controller {
            return Err(tonic::Status::permission_denied("Access/permission denied"));
        }
        Ok(())
    }
}

impl ConsensusService {
    /// Read a request at the start of the message (any version this build
    /// reads); the bytes after it. A newer version stops this controller.
    fn decode<'a, T: DeserializeOwned>(
        &self,
        req: &'a tonic::Request<RaftMessage>,
        what: &str,
    ) -> Result<(T, Version, &'a [u8]), tonic::Status> {
        let peer = req.remote_addr().map(|a| a.to_string()).unwrap_or_else(|| "a peer".into());
        let source = format!("Raft {} from {}", what, peer);
        let data = &req.get_ref().data;
        match spur_format::decode_prefix::<T>(Kind::RAFT_MESSAGE, data, &source) {
            Ok(((v, version), used)) => {
                self.wv.raise(version);
                Ok((v, version, &data[used..]))
            }
            Err(e @ FormatError::TooNew { .. }) => {
                // this member was downgraded below its cluster's format version:
                // it can take no further part (as on finding such a record on disk)
                tracing::error!("fatal: {}", e);
                eprintln!("spurctld: fatal: {}", e);
                std::process::exit(1);
            }
            Err(e) => Err(tonic::Status::invalid_argument(e.to_string())),
        }
    }

    fn decode_whole<T: DeserializeOwned>(
        &self,
        req: &tonic::Request<RaftMessage>,
        what: &str,
    ) -> Result<(T, Version), tonic::Status> {
        let (v, version, rest) = self.decode(req, what)?;
        if !rest.is_empty() {
            return Err(tonic::Status::invalid_argument(format!(
                "Raft {}: {} bytes after the message",
                what,
                rest.len()
            )));
        }
        Ok((v, version))
    }
}

/// A reply, at the version of the request it answers.
fn encode<T: Serialize>(version: Version, v: &T) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
    spur_format::encode(Kind::RAFT_MESSAGE, version, v)
        .map(|data| tonic::Response::new(RaftMessage { data }))
        .map_err(|e| tonic::Status::internal(e.to_string()))
}

#[tonic::async_trait]
impl spur_proto::consensus_server::Consensus for ConsensusService {
    async fn append_entries(
        &self,
        req: tonic::Request<RaftMessage>,
    ) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
        self.admin(&req)?;
        let (rpc, version): (AppendEntriesRequest<TypeConfig>, _) = self.decode_whole(&req, "append entries")?;
        self.rebuild.saw_leader_commit(rpc.leader_commit.map(|l| l.index));
        encode(version, &self.raft.append_entries(rpc).await)
    }

    async fn acct_sync(&self, req: tonic::Request<RaftMessage>) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
        self.admin(&req)?;
        let (r, version): (AcctSyncRequest, _) = self.decode_whole(&req, "accounting sync")?;
        let page: Result<Vec<(u64, spur_core::acct::AcctJob)>, String> = match &self.acct {
            None => Err("no accounting store".into()),
            Some(store) => {
                let store = store.clone();
                let limit = r.limit.clamp(1, ACCT_SYNC_PAGE) as usize;
                tokio::task::spawn_blocking(move || store.changed_between(r.from, r.to, r.after, limit))
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|x| x.map_err(|e| e.to_string()))
            }
        };
        encode(version, &page)
    }

    async fn vote(&self, req: tonic::Request<RaftMessage>) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
        self.admin(&req)?;
        let (rpc, version): (VoteRequest<NodeId>, _) = self.decode_whole(&req, "vote")?;
        if self.rebuild.active() {
            // not granted: this member's own vote, no log to compare
            let vote = self.raft.metrics().borrow().vote;
            tracing::info!("vote for {} not granted: rebuilding (this member's state was lost)", rpc.vote);
            let resp: Result<VoteResponse<NodeId>, RaftError<NodeId>> =
                Ok(VoteResponse { vote, vote_granted: false, last_log_id: None });
            return encode(version, &resp);
        }
        encode(version, &self.raft.vote(rpc).await)
    }

    async fn install_snapshot(
        &self,
        req: tonic::Request<RaftMessage>,
    ) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
        self.admin(&req)?;
        type Head = (openraft::Vote<NodeId>, openraft::SnapshotMeta<NodeId, BasicNode>, u64, bool);
        let ((vote, meta, offset, done), version, data): (Head, _, _) = self.decode(&req, "install snapshot")?;
        let rpc = InstallSnapshotRequest { vote, meta, offset, data: data.to_vec(), done };
        encode(version, &self.raft.install_snapshot(rpc).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use openraft::error::{Fatal, InstallSnapshotError, SnapshotMismatch};
    use openraft::{CommittedLeaderId, LogId, SnapshotMeta, SnapshotSegmentId, StoredMembership, Vote};

    fn round<T: Serialize + DeserializeOwned>(v: &T) -> T {
        let b = spur_format::encode(Kind::RAFT_MESSAGE, spur_format::FORMAT_VERSION, v).unwrap();
        spur_format::decode::<T>(Kind::RAFT_MESSAGE, &b, &"test").unwrap().0
    }

    /// openraft's messages and errors, as the Consensus service sends them.
    #[test]
    fn messages_and_errors_round_trip() {
        let ok: Result<VoteResponse<NodeId>, RaftError<NodeId>> =
            Ok(VoteResponse::new(Vote::new(3, 2), Some(LogId::new(CommittedLeaderId::new(2, 1), 9)), true));
        assert_eq!(round(&ok), ok);
        let fatal: Result<AppendEntriesResponse<NodeId>, RaftError<NodeId>> = Err(RaftError::Fatal(Fatal::Stopped));
        assert_eq!(round(&fatal), fatal);
        let mismatch: Result<InstallSnapshotResponse<NodeId>, RaftError<NodeId, InstallSnapshotError>> =
            Err(RaftError::APIError(InstallSnapshotError::SnapshotMismatch(SnapshotMismatch {
                expect: SnapshotSegmentId { id: "a".into(), offset: 0 },
                got: SnapshotSegmentId { id: "b".into(), offset: 7 },
            })));
        assert_eq!(round(&mismatch), mismatch);
    }

    /// A snapshot chunk: its fields in the envelope, its bytes after it.
    #[test]
    fn a_snapshot_chunk_keeps_its_bytes_raw() {
        let rpc = InstallSnapshotRequest::<TypeConfig> {
            vote: Vote::new(4, 1),
            meta: SnapshotMeta {
                last_log_id: None,
                last_membership: StoredMembership::default(),
                snapshot_id: "1-2-3".into(),
            },
            offset: 42,
            data: (0..=255u8).collect(),
            done: true,
        };
        let b = encode_snapshot_chunk(&rpc, spur_format::FORMAT_VERSION).unwrap();
        type Head = (Vote<NodeId>, SnapshotMeta<NodeId, BasicNode>, u64, bool);
        let (((vote, meta, offset, done), _), used) =
            spur_format::decode_prefix::<Head>(Kind::RAFT_MESSAGE, &b, &"test").unwrap();
        assert_eq!((vote, meta.snapshot_id.as_str(), offset, done), (rpc.vote, "1-2-3", 42, true));
        assert_eq!(&b[used..], &rpc.data[..]);
    }
}
