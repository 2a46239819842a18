//! Each request of the `Consensus` gRPC service (Raft between controllers):
//! the first byte picks the RPC, the rest is the `RaftMessage`; its data is
//! read as `daemons/spurctld/src/raftnet.rs` reads it (openraft's messages in
//! a `spur_format` envelope; a snapshot chunk's bytes after it), and a
//! snapshot's bytes as a member installing it reads them
//! (`spur_state::State::decode`); an accounting copy's request (`AcctSync`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use openraft::raft::{AppendEntriesRequest, VoteRequest};
use openraft::BasicNode;
use prost::Message;
use spur_format::Kind;
use spur_proto::v1 as pb;
use spur_state::raft::{NodeId, TypeConfig};

type SnapshotHead = (openraft::Vote<NodeId>, openraft::SnapshotMeta<NodeId, BasicNode>, u64, bool);

fuzz_target!(|data: &[u8]| {
    let Some((&rpc, body)) = data.split_first() else { return };
    let Ok(m) = pb::RaftMessage::decode(body) else { return };
    let d = &m.data;
    match rpc % 4 {
        0 => {
            let _ = spur_format::decode::<AppendEntriesRequest<TypeConfig>>(Kind::RAFT_MESSAGE, d, &"fuzz");
        }
        1 => {
            let _ = spur_format::decode::<VoteRequest<NodeId>>(Kind::RAFT_MESSAGE, d, &"fuzz");
        }
        3 => {
            // an accounting copy's request (raftnet::AcctSyncRequest: from,
            // to, after, limit)
            type AcctSync = (u64, u64, Option<(u64, (u32, i64, u32))>, u32);
            let _ = spur_format::decode::<AcctSync>(Kind::RAFT_MESSAGE, d, &"fuzz");
        }
        _ => {
            if let Ok((_, used)) = spur_format::decode_prefix::<SnapshotHead>(Kind::RAFT_MESSAGE, d, &"fuzz") {
                let _ = spur_state::State::decode(&d[used..]);
            }
        }
    }
});
