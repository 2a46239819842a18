//! Nodes: `NodeRegistered`, `NodeHeartbeat`, `NodeNotResponding`,
//! `NodeDown`, `NodeUpdate`; and what jobs take from and give back to them.

use crate::{Applied, ApplyError, ApplyResult, NodeReg, NodeUpdate, State};
use spur_core::errors::*;
use spur_core::model::*;

/// slurmctld's "no user" for a reason's author (sinfo `%u`: Unknown).
const NO_UID: u32 = 0xfffffffe;

/// `State=` of `scontrol update NodeName=…`, any case.
#[derive(Clone, Copy)]
enum NodeState {
    Drain,
    Fail,
    Down,
    Resume,
    Undrain,
    Idle,
    NoResp,
    Future,
}

impl NodeState {
    /// `fail_flag`: "fail" is Slurm's FAIL (format version 3); before, it drained.
    fn parse(s: &str, fail_flag: bool) -> Option<NodeState> {
        Some(match s.to_ascii_lowercase().as_str() {
            "fail" if fail_flag => NodeState::Fail,
            "drain" | "fail" => NodeState::Drain,
            "down" => NodeState::Down,
            "resume" => NodeState::Resume,
            "undrain" => NodeState::Undrain,
            "idle" => NodeState::Idle,
            "noresp" => NodeState::NoResp,
            "future" => NodeState::Future,
            _ => return None,
        })
    }
}

fn not_responding_reason(n: &Node) -> bool {
    n.reason.as_deref().map(|r| r.starts_with("Not responding")).unwrap_or(false)
}

impl State {
    pub(crate) fn node_registered(&mut self, name: &str, reg: &NodeReg, now: i64) -> ApplyResult {
        let p = self.profile();
        let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
        n.boot_time = reg.boot_time;
        n.slurmd_start_time = reg.start_time;
        n.os = reg.os.clone();
        n.arch = reg.arch.clone();
        n.version = reg.version.clone();
        n.last_heard = now;
        n.flags.not_responding = false;
        if n.last_busy == 0 && n.alloc_cpus == 0 {
            // an idle node's LastBusyTime starts at its registration
            n.last_busy = now;
        }
        if n.base == NodeBase::Unknown || (n.base == NodeBase::Down && not_responding_reason(n)) {
            n.base = if n.alloc_cpus > 0 { NodeBase::Allocated } else { NodeBase::Idle };
            if n.base == NodeBase::Idle || not_responding_reason(n) {
                n.reason = None;
                n.reason_time = 0;
                n.reason_uid = 0;
            }
        }
        if p.registration_clears_reason && !n.flags.drain && !n.flags.fail && n.base != NodeBase::Down {
            // 22.05: a node that registers in service has no reason and
            // no reason author (sinfo %u Unknown; recorded/22.05/sinfo_formats/063, 160)
            n.reason = None;
            n.reason_time = 0;
            n.reason_uid = NO_UID;
        }
        Ok(Applied::Ok)
    }

    pub(crate) fn node_heartbeat(&mut self, name: &str, cpu_load: u32, free_mem: u64, now: i64) -> ApplyResult {
        let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
        n.last_heard = now;
        n.cpu_load = cpu_load;
        n.free_mem = free_mem;
        n.flags.not_responding = false;
        Ok(Applied::Ok)
    }

    pub(crate) fn node_not_responding(&mut self, name: &str, _now: i64) -> ApplyResult {
        let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
        n.flags.not_responding = true;
        Ok(Applied::Ok)
    }

    pub(crate) fn node_down(&mut self, name: &str, reason: &str, uid: u32, now: i64) -> ApplyResult {
        let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
        n.base = NodeBase::Down;
        n.flags.not_responding = true;
        n.reason = Some(reason.to_string());
        n.reason_time = now;
        n.reason_uid = uid;
        Ok(Applied::Ok)
    }

    pub(crate) fn node_update(&mut self, name: &str, update: &NodeUpdate, uid: u32, now: i64) -> ApplyResult {
        let p = self.profile();
        if self.node(name).is_none() {
            return Err(ESLURM_INVALID_NODE_NAME);
        }
        // fields the cluster's format version does not write (a snapshot
        // would lose them; the controller refuses such an update first)
        if update.min_format_version() > self.write_format_version() {
            return Err(ESLURM_NOT_SUPPORTED);
        }
        let state = match &update.state {
            Some(s) => Some(NodeState::parse(s, update.fail_flag).ok_or(ESLURM_INVALID_NODE_STATE)?),
            None => None,
        };
        let n = self.node_mut(name).ok_or(ESLURM_INVALID_NODE_NAME)?;
        let back = |n: &Node| {
            if n.alloc_cpus > 0 {
                NodeBase::Allocated
            } else {
                NodeBase::Idle
            }
        };
        // slurmctld's update_node: RESUME and UNDRAIN keep the reason
        // and require the node to register again (NOT_RESPONDING
        // until its agent answers, recorded/24.11/scontrol/159,171)
        // ResumeAfter (slurmctld's update_node): set with DOWN or DRAIN,
        // reset by a change to another state
        let equivalent = match state {
            None => true,
            Some(NodeState::Down) => n.base == NodeBase::Down,
            Some(NodeState::Drain) => n.flags.drain,
            Some(NodeState::Fail) => n.flags.fail,
            _ => false,
        };
        if let Some(t) = update.resume_after {
            n.resume_after = t;
        } else if !equivalent {
            n.resume_after = 0;
        }
        match state {
            None => {}
            // DRAIN and FAIL replace each other
            Some(NodeState::Drain) => {
                n.flags.drain = true;
                n.flags.fail = false;
            }
            Some(NodeState::Fail) => {
                n.flags.fail = true;
                n.flags.drain = false;
            }
            Some(NodeState::Down) => n.base = NodeBase::Down,
            Some(NodeState::Resume) => {
                // a failed node only loses its flag (no new registration)
                let out = n.base == NodeBase::Down || n.flags.drain;
                if out {
                    n.flags.not_responding = true;
                }
                if (out || n.flags.fail) && p.resume_forgets_reason {
                    // 22.05 forgets the reason of a resumed DOWN or
                    // drained node (recorded/22.05/scontrol/168,
                    // sinfo_formats/160)
                    n.reason = None;
                    n.reason_time = 0;
                    n.reason_uid = NO_UID;
                }
                n.flags.drain = false;
                n.flags.fail = false;
                if n.base == NodeBase::Down || n.base == NodeBase::Future {
                    n.base = back(n);
                }
            }
            Some(NodeState::Undrain) => {
                n.flags.drain = false;
                n.flags.not_responding = true;
            }
            Some(NodeState::Idle) => {
                n.flags.drain = false;
                n.flags.fail = false;
                if n.base == NodeBase::Down {
                    n.base = back(n);
                }
                n.last_busy = now;
            }
            Some(NodeState::NoResp) => n.flags.not_responding = true,
            Some(NodeState::Future) => n.base = NodeBase::Future,
        }
        if let Some(r) = &update.reason {
            n.reason = Some(r.clone());
            n.reason_time = now;
            n.reason_uid = uid;
        }
        if let Some(w) = update.weight {
            n.weight = w;
        }
        if let Some(f) = &update.features {
            n.features = f.clone();
        }
        let text = |v: &String| Some(v.clone()).filter(|v| !v.is_empty());
        if let Some(c) = &update.comment {
            n.comment = text(c);
        }
        if let Some(e) = &update.extra {
            n.extra = text(e);
        }
        if let Some(b) = update.cpu_bind {
            n.cpu_bind = b;
        }
        if let Some(g) = &update.gres_text {
            n.gres_text = text(g);
        }
        if let Some(a) = &update.addr {
            n.addr = a.clone();
        }
        if let Some(h) = &update.hostname {
            n.hostname = h.clone();
        }
        Ok(Applied::Ok)
    }

    /// Give back (`release`) or take again a suspended job's CPUs; its nodes
    /// stay allocated to it (sinfo shows them `mix`). Never fails: taking
    /// them again here is for a job that is ending (a resume checks first).
    pub(crate) fn suspend_cpus(&mut self, allocs: &[NodeAlloc], release: bool) {
        for a in allocs {
            if let Some(n) = self.node_mut(&a.node) {
                n.alloc_cpus =
                    if release { n.alloc_cpus.saturating_sub(a.cpus) } else { n.alloc_cpus.saturating_add(a.cpus) };
            }
        }
    }

    /// A job's resources back to its nodes. Never fails.
    pub(crate) fn release_nodes(&mut self, allocs: &[NodeAlloc], now: i64) {
        for a in allocs {
            if let Some(n) = self.node_mut(&a.node) {
                n.alloc_cpus = n.alloc_cpus.saturating_sub(a.cpus);
                n.alloc_mem = n.alloc_mem.saturating_sub(a.mem_mb);
                for g in &a.gres {
                    give_gres(&mut n.alloc_gres, &g.name, &g.gtype, g.count);
                }
                if n.alloc_cpus == 0 && n.base == NodeBase::Allocated {
                    n.base = NodeBase::Idle;
                }
                n.last_busy = now;
            }
        }
    }
}

/// `count` more of GRES `name:ty` in use on a node, or an error if the count
/// does not fit.
pub(crate) fn take_gres(
    v: &mut Vec<(String, Option<String>, u64)>,
    name: &str,
    ty: &Option<String>,
    count: u64,
) -> Result<(), ApplyError> {
    if let Some(e) = v.iter_mut().find(|e| e.0 == name && &e.1 == ty) {
        e.2 = e.2.checked_add(count).ok_or(ESLURM_INVALID_GRES)?;
    } else if count > 0 {
        v.push((name.to_string(), ty.clone(), count));
    }
    Ok(())
}

/// `count` fewer of GRES `name:ty` in use on a node, down to zero.
fn give_gres(v: &mut [(String, Option<String>, u64)], name: &str, ty: &Option<String>, count: u64) {
    if let Some(e) = v.iter_mut().find(|e| e.0 == name && &e.1 == ty) {
        e.2 = e.2.saturating_sub(count);
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use crate::{Applied, Command, NodeReg, NodeUpdate};
    use spur_core::errors::*;
    use spur_core::model::*;

    fn reg() -> NodeReg {
        NodeReg { os: "Linux".into(), boot_time: 3, start_time: 4, ..Default::default() }
    }

    #[test]
    fn node_registered_brings_a_node_into_service() {
        let mut s = cluster();
        s.apply(&Command::NodeDown { name: "n1".into(), reason: "Not responding".into(), uid: 0, now: 1 }).unwrap();
        let cmd = Command::NodeRegistered { name: "n1".into(), reg: reg(), now: 9 };
        assert_eq!(s.apply(&cmd), Ok(Applied::Ok));
        let n = s.node("n1").unwrap();
        assert_eq!(
            (n.base, n.flags.not_responding, n.reason.clone(), n.os.as_str(), n.last_heard),
            (NodeBase::Idle, false, None, "Linux", 9)
        );
        // a node down for another reason stays down
        s.apply(&Command::NodeDown { name: "n2".into(), reason: "broken".into(), uid: 0, now: 1 }).unwrap();
        s.apply(&Command::NodeRegistered { name: "n2".into(), reg: reg(), now: 9 }).unwrap();
        assert_eq!(s.node("n2").map(|n| (n.base, n.reason.clone())), Some((NodeBase::Down, Some("broken".into()))));
        refused(&mut s, Command::NodeRegistered { name: "nx".into(), reg: reg(), now: 9 }, ESLURM_INVALID_NODE_NAME);
    }

    #[test]
    fn node_heartbeat_refreshes_liveness() {
        let mut s = cluster();
        s.apply(&Command::NodeNotResponding { name: "n1".into(), now: 1 }).unwrap();
        let cmd = Command::NodeHeartbeat { name: "n1".into(), cpu_load: 7, free_mem: 100, now: 12 };
        assert_eq!(s.apply(&cmd), Ok(Applied::Ok));
        assert_eq!(
            s.node("n1").map(|n| (n.last_heard, n.cpu_load, n.free_mem, n.flags.not_responding)),
            Some((12, 7, 100, false))
        );
        refused(
            &mut s,
            Command::NodeHeartbeat { name: "nx".into(), cpu_load: 0, free_mem: 0, now: 1 },
            ESLURM_INVALID_NODE_NAME,
        );
        // the same change outside the log
        assert!(s.heard_from("n2", 1, 2, 13));
        assert!(!s.heard_from("nx", 1, 2, 13));
        assert_eq!(s.node("n2").map(|n| n.last_heard), Some(13));
        s.restart_liveness(20);
        assert_eq!(s.node("n1").map(|n| n.last_heard), Some(20));
    }

    #[test]
    fn node_not_responding_flags_the_node() {
        let mut s = cluster();
        assert_eq!(s.apply(&Command::NodeNotResponding { name: "n1".into(), now: 1 }), Ok(Applied::Ok));
        assert_eq!(s.node("n1").map(|n| (n.flags.not_responding, n.base)), Some((true, NodeBase::Idle)));
        refused(&mut s, Command::NodeNotResponding { name: "".into(), now: 1 }, ESLURM_INVALID_NODE_NAME);
    }

    #[test]
    fn node_down_records_who_and_why() {
        let mut s = cluster();
        assert_eq!(
            s.apply(&Command::NodeDown { name: "n2".into(), reason: "r".into(), uid: 5, now: 8 }),
            Ok(Applied::Ok)
        );
        let n = s.node("n2").unwrap();
        assert_eq!((n.base, n.reason.as_deref(), n.reason_uid, n.reason_time), (NodeBase::Down, Some("r"), 5, 8));
        refused(
            &mut s,
            Command::NodeDown { name: "ñ".into(), reason: "r".into(), uid: 5, now: 8 },
            ESLURM_INVALID_NODE_NAME,
        );
    }

    #[test]
    fn node_update_states_reason_weight_features() {
        let mut s = cluster();
        let upd = |state: &str| NodeUpdate { state: Some(state.into()), ..Default::default() };
        let cmd = |name: &str, update| Command::NodeUpdate { name: name.into(), update, uid: 0, now: 5 };
        s.apply(&cmd(
            "n1",
            NodeUpdate {
                reason: Some("maint".into()),
                weight: Some(9),
                features: Some(vec!["f".into()]),
                ..upd("DRAIN")
            },
        ))
        .unwrap();
        let n = s.node("n1").unwrap();
        assert_eq!(
            (n.flags.drain, n.reason.as_deref(), n.weight, n.features.clone()),
            (true, Some("maint"), 9, vec!["f".to_string()])
        );
        s.apply(&cmd("n1", upd("undrain"))).unwrap();
        assert_eq!(s.node("n1").map(|n| (n.flags.drain, n.flags.not_responding)), Some((false, true)));
        s.apply(&cmd("n1", upd("future"))).unwrap();
        assert_eq!(s.node("n1").map(|n| n.base), Some(NodeBase::Future));
        s.apply(&cmd("n1", upd("resume"))).unwrap();
        assert_eq!(s.node("n1").map(|n| n.base), Some(NodeBase::Idle));
        s.apply(&cmd("n2", upd("down"))).unwrap();
        s.apply(&cmd("n2", upd("idle"))).unwrap();
        assert_eq!(s.node("n2").map(|n| (n.base, n.last_busy)), Some((NodeBase::Idle, 5)));
        s.apply(&cmd("n2", upd("noresp"))).unwrap();
        assert_eq!(s.node("n2").map(|n| n.flags.not_responding), Some(true));
        s.apply(&cmd("n2", upd("fail"))).unwrap();
        assert_eq!(s.node("n2").map(|n| n.flags.drain), Some(true));
        // an unknown state changes nothing, not even the reason given with it;
        // an unknown node is named first
        refused(&mut s, cmd("n1", NodeUpdate { reason: Some("x".into()), ..upd("bogus") }), ESLURM_INVALID_NODE_STATE);
        refused(&mut s, cmd("nx", upd("bogus")), ESLURM_INVALID_NODE_NAME);
    }

    #[test]
    fn node_update_resume_keeps_the_reason_until_registration() {
        let mut s = cluster();
        let upd = |state: &str, reason: Option<&str>| NodeUpdate {
            state: Some(state.into()),
            reason: reason.map(String::from),
            ..Default::default()
        };
        s.apply(&Command::NodeUpdate { name: "n1".into(), update: upd("down", Some("broken")), uid: 0, now: 5 })
            .unwrap();
        assert_eq!(s.node("n1").map(|n| (n.base, n.flags.drain)), Some((NodeBase::Down, false)));
        s.apply(&Command::NodeUpdate { name: "n1".into(), update: upd("resume", None), uid: 0, now: 6 }).unwrap();
        let n = s.node("n1").unwrap();
        assert_eq!((n.base, n.flags.not_responding, n.reason.as_deref()), (NodeBase::Idle, true, Some("broken")));
    }

    #[test]
    fn node_update_fail_is_a_flag_of_its_own() {
        let mut s = cluster();
        let upd = |state: &str| NodeUpdate { state: Some(state.into()), fail_flag: true, ..Default::default() };
        let cmd = |update| Command::NodeUpdate { name: "n1".into(), update, uid: 0, now: 5 };
        // refused while the cluster writes a version without the flag
        refused(&mut s, cmd(upd("fail")), ESLURM_NOT_SUPPORTED);
        s.apply(&Command::SetFormatVersion { version: 3 }).unwrap();
        s.apply(&cmd(NodeUpdate { reason: Some("failing".into()), ..upd("fail") })).unwrap();
        let n = s.node("n1").unwrap();
        assert_eq!((n.flags.fail, n.flags.drain, n.state_short(), n.is_usable()), (true, false, "fail".into(), false));
        // DRAIN and FAIL replace each other
        s.apply(&cmd(upd("drain"))).unwrap();
        assert_eq!(s.node("n1").map(|n| (n.flags.fail, n.flags.drain)), Some((false, true)));
        s.apply(&cmd(upd("fail"))).unwrap();
        assert_eq!(s.node("n1").map(|n| (n.flags.fail, n.flags.drain)), Some((true, false)));
        // RESUME of a failed idle node: plain idle at once, the reason kept (24.11)
        s.apply(&cmd(upd("resume"))).unwrap();
        let n = s.node("n1").unwrap();
        assert_eq!(
            (n.flags.fail, n.flags.not_responding, n.state_long(), n.reason.as_deref()),
            (false, false, "idle".into(), Some("failing"))
        );
        // written before format version 3, "fail" drains
        s.apply(&cmd(NodeUpdate { fail_flag: false, ..upd("fail") })).unwrap();
        assert_eq!(s.node("n1").map(|n| (n.flags.fail, n.flags.drain)), Some((false, true)));
        // IDLE clears FAIL too
        s.apply(&cmd(upd("fail"))).unwrap();
        s.apply(&cmd(upd("idle"))).unwrap();
        assert_eq!(s.node("n1").map(|n| (n.flags.fail, n.flags.drain)), Some((false, false)));
    }

    #[test]
    fn node_update_text_fields_and_resume_after() {
        let mut s = cluster();
        let cmd = |update| Command::NodeUpdate { name: "n2".into(), update, uid: 0, now: 5 };
        refused(&mut s, cmd(NodeUpdate { comment: Some("c".into()), ..Default::default() }), ESLURM_NOT_SUPPORTED);
        s.apply(&Command::SetFormatVersion { version: 3 }).unwrap();
        s.apply(&cmd(NodeUpdate {
            comment: Some("a comment".into()),
            extra: Some("x".into()),
            cpu_bind: Some(4),
            gres_text: Some("gpu:1".into()),
            addr: Some("10.0.0.2".into()),
            hostname: Some("h2".into()),
            ..Default::default()
        }))
        .unwrap();
        let n = s.node("n2").unwrap();
        assert_eq!(
            (n.comment.as_deref(), n.extra.as_deref(), n.cpu_bind, n.gres_text.as_deref()),
            (Some("a comment"), Some("x"), 4, Some("gpu:1"))
        );
        assert_eq!((n.addr.as_str(), n.hostname.as_str()), ("10.0.0.2", "h2"));
        // empty values clear; a field not given is kept
        s.apply(&cmd(NodeUpdate {
            comment: Some(String::new()),
            gres_text: Some(String::new()),
            cpu_bind: Some(0),
            ..Default::default()
        }))
        .unwrap();
        let n = s.node("n2").unwrap();
        assert_eq!(
            (n.comment.clone(), n.extra.as_deref(), n.cpu_bind, n.gres_text.clone()),
            (None, Some("x"), 0, None)
        );
        // ResumeAfter with DRAIN; kept by another DRAIN; reset by RESUME
        let drain = |t: Option<i64>| NodeUpdate {
            state: Some("drain".into()),
            reason: Some("r".into()),
            resume_after: t,
            ..Default::default()
        };
        s.apply(&cmd(drain(Some(3605)))).unwrap();
        assert_eq!(s.node("n2").map(|n| (n.flags.drain, n.resume_after)), Some((true, 3605)));
        s.apply(&cmd(drain(None))).unwrap();
        assert_eq!(s.node("n2").map(|n| n.resume_after), Some(3605));
        s.apply(&cmd(NodeUpdate { state: Some("resume".into()), ..Default::default() })).unwrap();
        assert_eq!(s.node("n2").map(|n| (n.flags.drain, n.resume_after)), Some((false, 0)));
    }
}
