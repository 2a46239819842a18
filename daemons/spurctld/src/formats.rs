//! The cluster's active format version (`spur_format`), as etcd keeps a
//! cluster version: every member writes its records (log, snapshot, meta,
//! Raft messages) at the version committed in the replicated state
//! (`Command::SetFormatVersion`), so that a cluster can hold controllers of
//! two builds while it is upgraded one member at a time: the older ones read
//! everything the newer ones write.
//!
//! - Each controller tells in its ping reply the versions it reads and writes
//!   (`min_format_version`..=`max_format_version`).
//! - The ready leader raises the active version to the newest one that every
//!   member (voters and learners) reads, as soon as they all answer; until a
//!   cluster first agrees on one (a new cluster, or a state written before
//!   versioned formats) it writes `spur_format::MIN_VERSION`. It is never
//!   lowered: a member downgraded below it stops at the first record it
//!   cannot read, naming it and both versions.
//! - A controller that cannot read and write the active version is refused
//!   as a new member (`spur controller add`), with both versions in the error.
//!
//! Raising and adding a member are serialised ([`CHANGE`]), so that no member
//! joins between the leader's check of every member and the commit.

use crate::ctld::Ctld;
use spur_format::{Version, FORMAT_VERSION, MIN_VERSION};
use spur_state::Command;
use std::sync::Arc;
use std::time::Duration;

/// Held while the active version is raised or a member is added.
pub static CHANGE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The versions a controller reads and writes, from its ping reply (`None`:
/// it does not answer).
async fn versions_of(
    addr: &str,
    auth: &spur_auth::grpc::DaemonAuth,
    legacy: bool,
    transport: &spur_auth::tls::Transport,
) -> Option<(Version, Version)> {
    let r = crate::peer_ping(addr, auth, legacy, transport).await?;
    Some((r.min_format_version as Version, r.max_format_version as Version))
}

/// The newest version every member but this one reads (`None`: one of them
/// does not answer, or reads no version this build writes).
async fn newest_for_all(ctld: &Ctld) -> Option<Version> {
    let members: Vec<(u64, String)> = {
        let m = ctld.raft.metrics();
        let m = m.borrow();
        m.membership_config.membership().nodes().map(|(id, n)| (*id, n.addr.clone())).collect()
    };
    let mut newest = FORMAT_VERSION;
    for (id, addr) in members {
        if id == ctld.me {
            continue;
        }
        let (_, max) = versions_of(&addr, &ctld.auth, ctld.legacy, &ctld.transport).await?;
        newest = newest.min(max);
    }
    (newest >= MIN_VERSION).then_some(newest)
}

/// On the ready leader: raise the cluster's format version whenever every
/// member reads a newer one than it has. Members are asked once a second,
/// and at once when this controller becomes the ready leader (a new
/// cluster writes the newest version before its first requests).
pub async fn raise_loop(ctld: Arc<Ctld>) {
    let mut last_asked: Option<tokio::time::Instant> = None;
    let started = std::time::Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if !ctld.is_ready_leader() {
            last_asked = None;
            continue;
        }
        let active = ctld.lock().state.format_version();
        if active >= FORMAT_VERSION {
            continue;
        }
        // asked at once on becoming leader, then every second; every tenth
        // of one in a controller's first ten seconds, so that a new cluster
        // writes the newest version (and takes the updates that need it)
        // almost as soon as its members and agents have answered
        let every = if started.elapsed() < Duration::from_secs(10) { 100 } else { 1000 };
        if last_asked.is_some_and(|t| t.elapsed() < Duration::from_millis(every)) {
            continue;
        }
        last_asked = Some(tokio::time::Instant::now());
        let _change = CHANGE.lock().await;
        let Some(newest) = newest_for_all(&ctld).await else { continue };
        if newest <= active || !ctld.is_ready_leader() {
            continue;
        }
        match ctld.commit(vec![Command::SetFormatVersion { version: newest }]).await {
            Ok(r) if r.first().map(|x| x.is_ok()).unwrap_or(false) => {
                tracing::info!("the cluster's format version is now {} (was {})", newest, active)
            }
            Ok(r) => tracing::warn!("raising the format version to {} refused: {:?}", newest, r),
            Err(e) => tracing::warn!("raising the format version to {}: {}", newest, e.message()),
        }
    }
}

/// The format version each agent reads (from its ping reply), by node name:
/// launches are written at it. Forgotten when the agent registers afresh.
static AGENT_VERSIONS: std::sync::Mutex<Option<std::collections::HashMap<String, Version>>> =
    std::sync::Mutex::new(None);

/// The version to write a launch for `node`'s agent at: the newest it reads
/// (asked once, by ping), or the oldest this build writes when it does not answer.
pub async fn agent_version(ctld: &Arc<Ctld>, node: &str) -> Version {
    let cached = AGENT_VERSIONS.lock().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|m| m.get(node).copied());
    if let Some(v) = cached {
        return v;
    }
    let Some(mut a) = ctld.agent(node).await else { return MIN_VERSION };
    let Ok(r) = a.ping(ctld.signed(spur_proto::PingRequest {})).await else { return MIN_VERSION };
    let v = spur_format::version_for(r.into_inner().max_format_version);
    AGENT_VERSIONS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(Default::default)
        .insert(node.to_string(), v);
    v
}

pub fn forget_agent(node: &str) {
    if let Some(m) = AGENT_VERSIONS.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        m.remove(node);
    }
}

/// Stop this controller when its Raft core stops on a fatal error (a record
/// it cannot apply: the cluster moved to a format version newer than this
/// build reads, or its storage failed) or panics (its task is gone, and
/// with it the sender of its metrics): a member that can take no further
/// part is better gone, with the reason in its log, than answering pings
/// and votes with "panicked".
pub async fn exit_on_fatal(raft: spur_state::raft::Raft) {
    let mut m = raft.metrics();
    loop {
        if let Err(e) = &m.borrow().running_state {
            tracing::error!("fatal: raft stopped: {}", e);
            eprintln!("spurctld: fatal: raft stopped: {}", e);
            std::process::exit(1);
        }
        if m.changed().await.is_err() {
            tracing::error!("fatal: raft stopped: its core ended (a panic is in this controller's output)");
            eprintln!("spurctld: fatal: raft stopped: its core ended");
            std::process::exit(1);
        }
    }
}

/// Whether controller `id` at `addr` may join: it answers, and reads and
/// writes the cluster's format version. The error says why not.
pub async fn check_new_member(ctld: &Ctld, id: u64, addr: &str) -> Result<(), String> {
    let active = ctld.lock().state.write_format_version();
    let mut versions = None;
    // a few seconds for one just started
    for _ in 0..8 {
        versions = versions_of(addr, &ctld.auth, ctld.legacy, &ctld.transport).await;
        if versions.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    admit(id, addr, active, versions)
}

/// The decision of [`check_new_member`]: the versions controller `id` at
/// `addr` answered with (`None`: no answer), the cluster's active version.
fn admit(id: u64, addr: &str, active: Version, versions: Option<(Version, Version)>) -> Result<(), String> {
    let Some((min, max)) = versions else {
        return Err(format!("controller {} at {} does not answer (is it running, started with --join?)", id, addr));
    };
    if max == 0 {
        return Err(format!(
            "controller {} at {} is a build of spur before versioned formats; the cluster's format version is {}: upgrade it first",
            id, addr, active
        ));
    }
    if active < min || active > max {
        return Err(format!(
            "controller {} at {} reads format versions {} to {}, but the cluster's format version is {}: {}",
            id,
            addr,
            min,
            max,
            active,
            if active > max {
                "upgrade it first"
            } else {
                "it no longer writes that one (upgrade the cluster through the releases between)"
            }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::admit;

    #[test]
    fn a_member_must_read_and_write_the_active_version() {
        assert_eq!(admit(4, "h:1", 1, Some((1, 1))), Ok(()));
        assert_eq!(admit(4, "h:1", 2, Some((1, 3))), Ok(()));
        assert_eq!(
            admit(4, "h:1", 2, Some((1, 1))).unwrap_err(),
            "controller 4 at h:1 reads format versions 1 to 1, but the cluster's format version is 2: upgrade it first"
        );
        assert!(admit(4, "h:1", 1, Some((2, 3)))
            .unwrap_err()
            .contains("reads format versions 2 to 3, but the cluster's format version is 1"));
        assert_eq!(
            admit(4, "h:1", 1, Some((0, 0))).unwrap_err(),
            "controller 4 at h:1 is a build of spur before versioned formats; the cluster's format version is 1: upgrade it first"
        );
        assert!(admit(4, "h:1", 1, None).unwrap_err().contains("does not answer"));
    }
}
