//! Raft between controllers over gRPC (the `Consensus` service on each
//! controller's SlurmctldPort). Messages are openraft's own types encoded with
//! bincode; every call is signed with the cluster key like any other
//! controller-to-controller or controller-to-agent call, and only an
//! administrator credential is accepted.

use openraft::error::{InstallSnapshotError, NetworkError, RPCError, RaftError, RemoteError, Unreachable};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest, VoteResponse};
use openraft::BasicNode;
use serde::de::DeserializeOwned;
use serde::Serialize;
use spur_proto::consensus_client::ConsensusClient;
use spur_proto::RaftMessage;
use spur_state::raft::{NodeId, Raft, TypeConfig};
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};

#[derive(Clone)]
pub struct Net {
    pub key: Arc<Vec<u8>>,
    /// The address outgoing Raft connections come from.
    pub local_ip: Option<std::net::IpAddr>,
}

pub struct Conn {
    target: NodeId,
    client: Option<ConsensusClient<Channel>>,
    key: Arc<Vec<u8>>,
}

impl RaftNetworkFactory<TypeConfig> for Net {
    type Network = Conn;

    async fn new_client(&mut self, target: NodeId, node: &BasicNode) -> Conn {
        let client = Endpoint::from_shared(format!("http://{}", node.addr)).ok().map(|ep| {
            let ch = ep
                .local_address(self.local_ip)
                .connect_timeout(Duration::from_millis(500))
                .tcp_nodelay(true)
                .http2_keep_alive_interval(Duration::from_secs(1))
                .keep_alive_timeout(Duration::from_secs(2))
                .connect_lazy();
            ConsensusClient::new(ch).max_decoding_message_size(1 << 30).max_encoding_message_size(1 << 30)
        });
        Conn { target, client, key: self.key.clone() }
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
        let tok = spur_auth::sign(&self.key, &spur_auth::Identity { uid: 0, gid: 0 }).unwrap_or_else(|e| {
            tracing::error!("{}", e);
            String::new()
        });
        let mut r = tonic::Request::new(RaftMessage { data });
        if let Ok(v) = tok.parse() {
            r.metadata_mut().insert(spur_auth::METADATA_KEY, v);
        }
        r.set_timeout(ttl);
        r
    }

    /// Send one message; decode the peer's `Result<Resp, RaftError<E>>`.
    async fn send<Req, Resp, E>(&mut self, which: u8, rpc: &Req, option: &RPCOption) -> Result<Resp, RPCError<NodeId, BasicNode, RaftError<NodeId, E>>>
    where
        Req: Serialize,
        Resp: DeserializeOwned,
        E: DeserializeOwned + std::error::Error,
    {
        let data = bincode::serialize(rpc).map_err(|e| RPCError::Network(NetworkError::new(&Msg(e.to_string()))))?;
        let req = self.request(data, option.hard_ttl());
        let Some(c) = self.client.as_mut() else {
            return Err(RPCError::Unreachable(unreachable(Msg("bad address".into()))));
        };
        let r = match which {
            0 => c.append_entries(req).await,
            1 => c.vote(req).await,
            _ => c.install_snapshot(req).await,
        };
        let reply = r.map_err(|s| RPCError::Unreachable(unreachable(Msg(s.to_string()))))?.into_inner();
        let res: Result<Resp, RaftError<NodeId, E>> =
            bincode::deserialize(&reply.data).map_err(|e| RPCError::Network(NetworkError::new(&Msg(e.to_string()))))?;
        res.map_err(|e| RPCError::RemoteError(RemoteError::new(self.target, e)))
    }
}

impl RaftNetwork<TypeConfig> for Conn {
    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<AppendEntriesResponse<NodeId>, RPCError<NodeId, BasicNode, RaftError<NodeId>>> {
        self.send(0, &rpc, &option).await
    }

    async fn install_snapshot(
        &mut self,
        rpc: InstallSnapshotRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<InstallSnapshotResponse<NodeId>, RPCError<NodeId, BasicNode, RaftError<NodeId, InstallSnapshotError>>> {
        self.send(2, &rpc, &option).await
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<NodeId>,
        option: RPCOption,
    ) -> Result<VoteResponse<NodeId>, RPCError<NodeId, BasicNode, RaftError<NodeId>>> {
        self.send(1, &rpc, &option).await
    }
}

/// The receiving side.
pub struct ConsensusService {
    pub raft: Raft,
    pub verifier: Arc<spur_auth::Verifier>,
}

impl ConsensusService {
    fn admin<T>(&self, req: &tonic::Request<T>) -> Result<(), tonic::Status> {
        let id = self.verifier.verify_request(req)?;
        if id.uid != 0 {
            return Err(tonic::Status::permission_denied("Access/permission denied"));
        }
        Ok(())
    }
}

fn decode<T: DeserializeOwned>(m: &RaftMessage) -> Result<T, tonic::Status> {
    bincode::deserialize(&m.data).map_err(|e| tonic::Status::invalid_argument(e.to_string()))
}

fn encode<T: Serialize>(v: &T) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
    bincode::serialize(v)
        .map(|data| tonic::Response::new(RaftMessage { data }))
        .map_err(|e| tonic::Status::internal(e.to_string()))
}

#[tonic::async_trait]
impl spur_proto::consensus_server::Consensus for ConsensusService {
    async fn append_entries(&self, req: tonic::Request<RaftMessage>) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
        self.admin(&req)?;
        let rpc: AppendEntriesRequest<TypeConfig> = decode(req.get_ref())?;
        encode(&self.raft.append_entries(rpc).await)
    }

    async fn vote(&self, req: tonic::Request<RaftMessage>) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
        self.admin(&req)?;
        let rpc: VoteRequest<NodeId> = decode(req.get_ref())?;
        encode(&self.raft.vote(rpc).await)
    }

    async fn install_snapshot(&self, req: tonic::Request<RaftMessage>) -> Result<tonic::Response<RaftMessage>, tonic::Status> {
        self.admin(&req)?;
        let rpc: InstallSnapshotRequest<TypeConfig> = decode(req.get_ref())?;
        encode(&self.raft.install_snapshot(rpc).await)
    }
}
