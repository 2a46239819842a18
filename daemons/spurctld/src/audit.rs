//! The audit log: one structured `tracing` event, target `audit`, for every
//! request that changes something (submissions, cancels, job control, node,
//! partition and reservation changes, agents' reports, membership changes),
//! written when its answer is known:
//!
//! ```text
//! INFO audit: request rpc="cancel" op="cancel" uid=1500 user="spurtest" peer="127.0.0.1:50312" target="7" result="7: Access/permission denied"
//! ```
//!
//! - who: `uid` and `user` (the name the uid has on the controller's host),
//!   from the verified credential;
//! - what: `rpc`, `op` (the operation within it: `hold`, `update`, `node`,
//!   `delete`, ...) and `target` (job ids as given, node names, the
//!   partition, reservation or controller);
//! - from where: `peer`, the connection's address;
//! - the outcome: `result`, `ok`, the error of each target that failed, or
//!   the refusal (`unauthenticated: ...` for a credential that did not
//!   verify, then with no uid).
//!
//! Refusals are logged at WARN, the rest at INFO, except agents' heartbeats
//! that pass (DEBUG: one per node per heartbeat interval). Every value a
//! user chose is written quoted and escaped (`Debug`), so no job name or id
//! list can forge a line, and long values are cut at [`MAX_FIELD`] bytes.
//! Requests that only read (queries, pings, `spur controller list`) are not
//! logged. `SPUR_LOG=warn,audit=info` keeps the audit lines and the
//! warnings only; SECURITY.md says what this log stops and what it does not.

use spur_auth::Identity;
use spur_core::errors::strerror;
use spur_proto::*;
use std::net::SocketAddr;

/// The longest value written for one field (a long id list is cut, marked `...`).
pub const MAX_FIELD: usize = 512;

/// A request that changes something: its RPC, its operation, its target.
pub trait Audited {
    const RPC: &'static str;
    fn op(&self) -> &'static str;
    fn target(&self) -> String;
    /// Whether a request that passes is worth an INFO line (not a heartbeat).
    fn loud(&self) -> bool {
        true
    }
}

/// What the answer says happened.
pub trait Outcome {
    /// `ok`, or the failures (`ID: error` for each target that failed),
    /// and whether one of them is a permission refusal.
    fn result(&self) -> (String, bool);
    /// What the request made, when the answer names it (the new job's id).
    fn made(&self) -> Option<String> {
        None
    }
}

/// One request's audit record, from its arrival to its answer.
pub struct Audit {
    rpc: &'static str,
    op: &'static str,
    target: String,
    loud: bool,
    peer: Option<SocketAddr>,
    uid: Option<u32>,
}

impl Audit {
    /// The record of `req`, before anything is decided.
    pub fn begin<T: Audited>(req: &tonic::Request<T>) -> Audit {
        let m = req.get_ref();
        Audit { rpc: T::RPC, op: m.op(), target: m.target(), loud: m.loud(), peer: req.remote_addr(), uid: None }
    }

    /// The caller as the credential proves it. (A credential that does not
    /// verify never gets here: the gate, spur_auth::grpc, logs and refuses
    /// it; an identity missing here is logged all the same.) A controller that
    /// is not the leader logs nothing (it changed nothing: the client asks
    /// the leader, which logs the request).
    pub fn identity(&mut self, id: Result<Identity, tonic::Status>) -> Result<Identity, tonic::Status> {
        match id {
            Ok(id) => {
                self.uid = Some(id.uid);
                Ok(id)
            }
            Err(st) => {
                if st.code() == tonic::Code::Unauthenticated {
                    self.write(&format!("unauthenticated: {}", st.message()), true);
                }
                Err(st)
            }
        }
    }

    /// Log the answer and hand it back.
    pub fn finish<T: Outcome>(
        mut self,
        res: Result<tonic::Response<T>, tonic::Status>,
    ) -> Result<tonic::Response<T>, tonic::Status> {
        let (result, refused) = match &res {
            Ok(r) => {
                let m = r.get_ref();
                if let Some(made) = m.made() {
                    self.target = made;
                }
                m.result()
            }
            Err(st) if st.code() == tonic::Code::PermissionDenied => (format!("refused: {}", st.message()), true),
            Err(st) if st.code() == tonic::Code::Unavailable => {
                (format!("unacknowledged: {} (perhaps done, perhaps not: the client retries)", st.message()), false)
            }
            Err(st) => (format!("error: {}", st.message()), false),
        };
        self.write(&result, refused);
        res
    }

    fn write(&self, result: &str, refused: bool) {
        use tracing::Level;
        let level = if refused {
            Level::WARN
        } else if self.loud || result != "ok" {
            Level::INFO
        } else {
            Level::DEBUG
        };
        // (the name service is asked only for a line that is written)
        let written = match level {
            Level::WARN => tracing::enabled!(target: "audit", Level::WARN),
            Level::INFO => tracing::enabled!(target: "audit", Level::INFO),
            _ => tracing::enabled!(target: "audit", Level::DEBUG),
        };
        if !written {
            return;
        }
        let uid = self.uid;
        let name = uid.map(|u| spur_auth::users::user_name(u).unwrap_or_else(|| u.to_string()));
        let user = name.as_deref().unwrap_or("");
        let peer = self.peer.map(|p| p.to_string()).unwrap_or_default();
        let target = cut(&self.target);
        let result = cut(result);
        let (rpc, op) = (self.rpc, self.op);
        match level {
            Level::WARN => tracing::warn!(target: "audit", rpc, op, uid, user, peer, target, result, "request"),
            Level::INFO => tracing::info!(target: "audit", rpc, op, uid, user, peer, target, result, "request"),
            _ => tracing::debug!(target: "audit", rpc, op, uid, user, peer, target, result, "request"),
        }
    }
}

/// At most [`MAX_FIELD`] bytes of `s` (on a character boundary), marked when cut.
fn cut(s: &str) -> String {
    if s.len() <= MAX_FIELD {
        return s.to_string();
    }
    let mut end = MAX_FIELD;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

fn status_text(s: &Option<Status>) -> Option<String> {
    match s {
        Some(s) if s.code != 0 => Some(if s.message.is_empty() { strerror(s.code) } else { s.message.clone() }),
        _ => None,
    }
}

/// The refusals of validate::authorize.
fn is_refusal(s: &Option<Status>) -> bool {
    use spur_core::errors::*;
    s.as_ref().is_some_and(|s| s.code == ESLURM_ACCESS_DENIED || s.code == ESLURM_USER_ID_MISSING)
}

/// `ok` or the request's error, and whether it is a refusal.
fn single(status: &Option<Status>) -> (String, bool) {
    (status_text(status).unwrap_or_else(|| "ok".into()), is_refusal(status))
}

/// `ok`, the request's own error, or each failed target's.
fn results(status: &Option<Status>, results: &[CancelResult]) -> (String, bool) {
    if status_text(status).is_some() {
        return single(status);
    }
    let failed: Vec<String> =
        results.iter().filter_map(|r| status_text(&r.status).map(|e| format!("{}: {}", r.job_id, e))).collect();
    let refused = results.iter().any(|r| is_refusal(&r.status));
    if failed.is_empty() {
        ("ok".into(), false)
    } else {
        (failed.join("; "), refused)
    }
}

impl Audited for SubmitRequest {
    const RPC: &'static str = "submit";
    fn op(&self) -> &'static str {
        if self.test_only {
            "test-only"
        } else {
            "submit"
        }
    }
    fn target(&self) -> String {
        String::new()
    }
}

impl Outcome for SubmitReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
    fn made(&self) -> Option<String> {
        (self.job_id != 0).then(|| self.job_id.to_string())
    }
}

impl Audited for CancelRequest {
    const RPC: &'static str = "cancel";
    fn op(&self) -> &'static str {
        if self.signal != 0 && self.signal != libc::SIGKILL {
            "signal"
        } else {
            "cancel"
        }
    }
    fn target(&self) -> String {
        if !self.job_ids.is_empty() {
            return self.job_ids.join(",");
        }
        // the filters that pick the jobs
        let mut f = vec![];
        let mut add = |k: &str, v: &Option<String>| {
            if let Some(v) = v {
                f.push(format!("{}={}", k, v));
            }
        };
        add("user", &self.user);
        add("name", &self.name);
        add("partition", &self.partition);
        add("account", &self.account);
        add("nodelist", &self.nodelist);
        if !self.states.is_empty() {
            f.push(format!("states={:?}", self.states));
        }
        f.join(" ")
    }
}

impl Outcome for CancelReply {
    fn result(&self) -> (String, bool) {
        results(&self.status, &self.results)
    }
}

impl Audited for JobControlRequest {
    const RPC: &'static str = "job_control";
    fn op(&self) -> &'static str {
        use job_control_request::Op;
        match &self.op {
            Some(Op::Hold(h)) if h.user => "uhold",
            Some(Op::Hold(_)) => "hold",
            Some(Op::Release(_)) => "release",
            Some(Op::Requeue(r)) if r.hold => "requeuehold",
            Some(Op::Requeue(_)) => "requeue",
            Some(Op::Suspend(_)) => "suspend",
            Some(Op::Resume(_)) => "resume",
            Some(Op::Top(_)) => "top",
            Some(Op::Update(_)) => "update",
            None => "none",
        }
    }
    fn target(&self) -> String {
        self.job_ids.join(",")
    }
}

impl Outcome for JobControlReply {
    fn result(&self) -> (String, bool) {
        results(&self.status, &self.results)
    }
}

impl Audited for NodeControlRequest {
    const RPC: &'static str = "node_control";
    fn op(&self) -> &'static str {
        match &self.op {
            Some(node_control_request::Op::Node(_)) => "node",
            Some(node_control_request::Op::Partition(_)) => "partition",
            None => "none",
        }
    }
    fn target(&self) -> String {
        match &self.op {
            Some(node_control_request::Op::Node(n)) => n.nodes.clone(),
            Some(node_control_request::Op::Partition(p)) => p.name.clone(),
            None => String::new(),
        }
    }
}

impl Outcome for NodeControlReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
}

impl Audited for ReservationRequest {
    const RPC: &'static str = "reservation";
    fn op(&self) -> &'static str {
        match &self.op {
            Some(reservation_request::Op::Create(_)) => "create",
            Some(reservation_request::Op::Update(_)) => "update",
            Some(reservation_request::Op::Delete(_)) => "delete",
            None => "none",
        }
    }
    fn target(&self) -> String {
        match &self.op {
            Some(reservation_request::Op::Create(s) | reservation_request::Op::Update(s)) => s.name.clone(),
            Some(reservation_request::Op::Delete(n)) => n.clone(),
            None => String::new(),
        }
    }
}

impl Outcome for ReservationReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
    fn made(&self) -> Option<String> {
        (!self.name.is_empty()).then(|| self.name.clone())
    }
}

impl Audited for QosRequest {
    const RPC: &'static str = "qos";
    fn op(&self) -> &'static str {
        match qos_request::Op::try_from(self.op) {
            Ok(qos_request::Op::Add) => "add",
            Ok(qos_request::Op::Modify) => "modify",
            Ok(qos_request::Op::Delete) => "delete",
            Err(_) => "none",
        }
    }
    fn target(&self) -> String {
        self.names.join(",")
    }
}

impl Outcome for QosReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
    fn made(&self) -> Option<String> {
        None
    }
}

impl Audited for AssocRequest {
    const RPC: &'static str = "assoc";
    fn op(&self) -> &'static str {
        match assoc_request::Op::try_from(self.op) {
            Ok(assoc_request::Op::Add) => "add",
            Ok(assoc_request::Op::Modify) => "modify",
            Ok(assoc_request::Op::Delete) => "delete",
            Err(_) => "none",
        }
    }
    fn target(&self) -> String {
        let kind = if self.entity == assoc_request::Entity::User as i32 { "user" } else { "account" };
        format!("{} {}", kind, self.names.join(","))
    }
}

impl Outcome for AssocReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
    fn made(&self) -> Option<String> {
        None
    }
}

impl Audited for ReconfigureRequest {
    const RPC: &'static str = "reconfigure";
    fn op(&self) -> &'static str {
        if self.forwarded {
            "forwarded"
        } else {
            "reconfigure"
        }
    }
    fn target(&self) -> String {
        "slurm.conf".into()
    }
}

impl Outcome for ReconfigureReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
}

impl Audited for RegisterRequest {
    const RPC: &'static str = "register";
    fn op(&self) -> &'static str {
        if self.heartbeat {
            "heartbeat"
        } else {
            "register"
        }
    }
    fn target(&self) -> String {
        self.node.clone()
    }
    fn loud(&self) -> bool {
        !self.heartbeat
    }
}

impl Outcome for RegisterReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
}

impl Audited for JobCompleteRequest {
    const RPC: &'static str = "job_complete";
    fn op(&self) -> &'static str {
        "complete"
    }
    fn target(&self) -> String {
        format!("{} on {}", self.job_id, self.node)
    }
}

impl Outcome for JobCompleteReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
}

impl Audited for MembershipRequest {
    const RPC: &'static str = "membership";
    fn op(&self) -> &'static str {
        match &self.op {
            Some(membership_request::Op::List(_)) => "list",
            Some(membership_request::Op::Add(_)) => "add",
            Some(membership_request::Op::Remove(_)) => "remove",
            None => "none",
        }
    }
    fn target(&self) -> String {
        match &self.op {
            Some(membership_request::Op::Add(a)) => format!("{} {}", a.id, a.addr),
            Some(membership_request::Op::Remove(id)) => id.to_string(),
            _ => String::new(),
        }
    }
    fn loud(&self) -> bool {
        // listing the members changes nothing
        !matches!(self.op, Some(membership_request::Op::List(_)))
    }
}

impl Outcome for MembershipReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
}

impl Audited for StepCreateRequest {
    const RPC: &'static str = "step_create";
    fn op(&self) -> &'static str {
        "step_create"
    }
    fn target(&self) -> String {
        String::new()
    }
}

impl Outcome for StepCreateReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
}

impl Audited for StepCompleteRequest {
    const RPC: &'static str = "step_complete";
    fn op(&self) -> &'static str {
        if self.release {
            "release_allocation"
        } else {
            "step_complete"
        }
    }
    fn target(&self) -> String {
        if self.release {
            self.job_id.to_string()
        } else {
            format!("{}.{}", self.job_id, self.step_id)
        }
    }
    fn loud(&self) -> bool {
        false
    }
}

impl Outcome for StepCompleteReply {
    fn result(&self) -> (String, bool) {
        single(&self.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_results() {
        let c = CancelRequest { job_ids: vec!["7".into(), "8_[1-2]".into()], ..Default::default() };
        assert_eq!((c.op(), c.target()), ("cancel", "7,8_[1-2]".to_string()));
        let c = CancelRequest { user: Some("root".into()), signal: libc::SIGUSR1, ..Default::default() };
        assert_eq!((c.op(), c.target()), ("signal", "user=root".to_string()));
        let r = CancelReply {
            status: None,
            results: vec![
                CancelResult { job_id: "7".into(), status: Some(Status { code: 0, message: String::new() }) },
                CancelResult {
                    job_id: "8".into(),
                    status: Some(Status { code: spur_core::errors::ESLURM_ACCESS_DENIED, message: String::new() }),
                },
            ],
        };
        assert_eq!(r.result(), ("8: Access/permission denied".to_string(), true));
        assert_eq!(CancelReply::default().result(), ("ok".to_string(), false));
        let s = SubmitReply { job_id: 12, ..Default::default() };
        assert_eq!((s.result(), s.made()), (("ok".to_string(), false), Some("12".to_string())));
        let n = NodeControlReply {
            status: Some(Status { code: spur_core::errors::ESLURM_INVALID_NODE_NAME, message: String::new() }),
        };
        assert_eq!(n.result(), ("Invalid node name specified".to_string(), false));
        let hb = RegisterRequest { node: "n1".into(), heartbeat: true, ..Default::default() };
        assert!(!hb.loud());
        assert_eq!(cut(&"x".repeat(MAX_FIELD + 10)).len(), MAX_FIELD + 3);
        assert_eq!(cut(&"é".repeat(MAX_FIELD)).len(), MAX_FIELD + 3);
    }
}
