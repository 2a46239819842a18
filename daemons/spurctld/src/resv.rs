//! `scontrol create|update|delete reservation`: the leader turns the typed
//! request (values parsed by scontrol) into a complete [`Reservation`] (names
//! checked, nodes chosen) and logs it as one command, so every member applies
//! the same record. [`plan`] is a pure function of the state and the request.

use spur_core::errors::*;
use spur_core::model::Reservation;
use spur_core::request::{NameList, ReservationRequest, ReservationSpec, INFINITE};
use spur_state::{Command, State};

/// The order slurmctld prints reservation flags in (the ones Spur knows).
const FLAG_ORDER: &[&str] = &[
    "MAINT",
    "NO_MAINT",
    "FLEX",
    "OVERLAP",
    "IGNORE_JOBS",
    "HOURLY",
    "NO_HOURLY",
    "DAILY",
    "NO_DAILY",
    "WEEKDAY",
    "WEEKEND",
    "WEEKLY",
    "NO_WEEKLY",
    "SPEC_NODES",
    "ALL_NODES",
    "ANY_NODES",
    "NO_ANY_NODES",
    "STATIC",
    "NO_STATIC",
    "PART_NODES",
    "NO_PART_NODES",
    "TIME_FLOAT",
    "REPLACE",
    "REPLACE_DOWN",
    "PURGE_COMP",
    "NO_HOLD_JOBS_AFTER_END",
    "MAGNETIC",
    "NO_MAGNETIC",
    "USER_DELETE",
    "NO_USER_DELETE",
];

fn duration_secs(minutes: u32) -> i64 {
    if minutes == INFINITE {
        // UNLIMITED: slurmctld's one year
        365 * 86400
    } else {
        minutes as i64 * 60
    }
}

/// The user names a request mentions that the system does not know, looked
/// up before the state lock is taken (getpwnam may block on NSS); [`plan`]
/// checks against it under the lock, in the request's order, so the same
/// request gets the same error.
pub struct UnknownUsers(Vec<String>);

impl UnknownUsers {
    pub fn of(req: &ReservationRequest) -> UnknownUsers {
        let mut unknown: Vec<String> = vec![];
        if let ReservationRequest::Create(s) | ReservationRequest::Update(s) = req {
            for name in s.users.iter().flat_map(|l| l.names()) {
                if !unknown.contains(name) && spur_auth::users::uid_of(name).is_none() {
                    unknown.push(name.clone());
                }
            }
        }
        UnknownUsers(unknown)
    }

    /// Users must exist (slurmctld: `Invalid user id`).
    fn check(&self, names: &[String]) -> Result<Vec<String>, i32> {
        if names.iter().any(|n| self.0.contains(n)) {
            return Err(ESLURM_USER_ID_MISSING);
        }
        Ok(names.to_vec())
    }
}

fn flags(v: &[String]) -> Vec<String> {
    let mut f: Vec<String> = v.iter().map(|s| s.trim().to_ascii_uppercase()).filter(|s| !s.is_empty()).collect();
    f.sort_by_key(|x| FLAG_ORDER.iter().position(|o| o == x).unwrap_or(FLAG_ORDER.len()));
    f.dedup();
    f
}

/// A new reservation's user list: the names given (set or added).
fn new_users(l: &NameList) -> Vec<String> {
    l.set.iter().flatten().chain(l.add.iter()).cloned().collect()
}

/// The command for one request, or Slurm's error number.
pub fn plan(st: &State, req: &ReservationRequest, unknown: &UnknownUsers, now: i64) -> Result<Command, i32> {
    let (action, spec) = match req {
        ReservationRequest::Create(s) => ("create", s),
        ReservationRequest::Update(s) => ("update", s),
        ReservationRequest::Delete { name } => return plan_delete(st, name),
    };
    let ReservationSpec { start_time, end_time, duration, node_count, .. } = spec;
    // no name: slurmctld names it after the first account, user or group and its id
    let generated;
    let name = if spec.name.is_empty() && action == "create" {
        let key = [&spec.accounts, &spec.users, &spec.groups]
            .iter()
            .find_map(|l| l.as_ref().and_then(|l| l.names().find(|n| !n.is_empty())))
            .map(|s| s.as_str())
            .unwrap_or("resv");
        generated = format!("{}_{}", key, st.resv_top().wrapping_add(1));
        generated.as_str()
    } else {
        spec.name.as_str()
    };
    let cores = |nodes: &[String]| -> u32 { nodes.iter().filter_map(|n| st.node(n)).map(|n| n.cpus).sum() };
    // the nodes of the default partition not held by another reservation overlapping [start, end)
    let pick = |count: usize, start: i64, end: i64, skip: &str, keep: &[String]| -> Result<Vec<String>, i32> {
        let part = st.default_partition().ok_or(ESLURM_DEFAULT_PARTITION_NOT_SET)?;
        let mut out: Vec<String> = keep.to_vec();
        for n in &part.nodes {
            if out.len() >= count {
                break;
            }
            let busy = st
                .reservations()
                .iter()
                .any(|r| r.name != skip && r.start_time < end && start < r.end_time && r.nodes.contains(n));
            if !busy && !out.contains(n) {
                out.push(n.clone());
            }
        }
        if out.len() < count {
            return Err(ESLURM_NODES_BUSY);
        }
        out.sort_by_key(|n| st.nodes().iter().position(|x| &x.name == n));
        Ok(out)
    };
    match action {
        "create" => {
            if st.reservations().iter().any(|r| r.name == name) {
                return Err(ESLURM_RESERVATION_NAME_DUP);
            }
            let start = start_time.unwrap_or(now);
            let start = if start == 0 { now } else { start };
            let dur = match (duration, end_time) {
                (Some(m), _) => duration_secs(*m),
                (None, Some(end)) => end.saturating_sub(start),
                (None, None) => 365 * 86400,
            };
            let users = unknown.check(&spec.users.as_ref().map(new_users).unwrap_or_default())?;
            if spec.partition.as_deref().is_some_and(|p| st.partition(p).is_none()) {
                return Err(ESLURM_INVALID_PARTITION_NAME);
            }
            let mut flags = flags(spec.flags.as_deref().unwrap_or(&[]));
            let all_nodes = spec.nodes.as_deref().map(|v| v.eq_ignore_ascii_case("ALL")).unwrap_or(false);
            let (nodes, spec_nodes, partition) = match (spec.nodes.as_deref(), node_count) {
                (Some(v), _) => {
                    let nodes: Vec<String> = if v.eq_ignore_ascii_case("ALL") {
                        st.nodes().iter().map(|n| n.name.clone()).collect()
                    } else {
                        let names = spur_grammar::hostlist::expand(v).map_err(|_| ESLURM_INVALID_NODE_NAME)?;
                        if names.iter().any(|n| st.node(n).is_none()) {
                            return Err(ESLURM_INVALID_NODE_NAME);
                        }
                        let mut names = names;
                        names.sort_by_key(|n| st.nodes().iter().position(|x| &x.name == n));
                        names.dedup();
                        names
                    };
                    (nodes, true, spec.partition.clone())
                }
                (None, Some(c)) => {
                    let part = st.default_partition().map(|p| p.name.clone());
                    (pick(*c as usize, start, start.saturating_add(dur), name, &[])?, false, part)
                }
                (None, None) => return Err(ESLURM_RESERVATION_EMPTY),
            };
            let (end, has) = (start.saturating_add(dur), |f: &[String], x: &str| f.iter().any(|y| y == x));
            if spec_nodes && !has(&flags, "MAINT") && !has(&flags, "OVERLAP") {
                // another reservation of these nodes at the same time
                let clash = st.reservations().iter().any(|r| {
                    !has(&r.flags, "MAINT")
                        && !has(&r.flags, "OVERLAP")
                        && r.start_time < end
                        && start < r.end_time
                        && r.nodes.iter().any(|n| nodes.contains(n))
                });
                if clash {
                    return Err(ESLURM_RESERVATION_OVERLAP);
                }
            }
            if spec_nodes && !has(&flags, "IGNORE_JOBS") {
                // jobs still running on these nodes when it starts
                let busy = st.jobs().values().any(|j| {
                    j.state.is_active()
                        && (j.end_time == 0 || j.end_time > start)
                        && j.allocs.iter().any(|a| nodes.contains(&a.node))
                });
                if busy {
                    return Err(ESLURM_NODES_BUSY);
                }
            }
            if spec_nodes {
                flags.push("SPEC_NODES".into());
            }
            if all_nodes {
                flags.push("ALL_NODES".into());
            }
            flags.sort_by_key(|x| FLAG_ORDER.iter().position(|o| o == x).unwrap_or(FLAG_ORDER.len()));
            flags.dedup();
            let cores = cores(&nodes);
            Ok(Command::ResvCreate {
                resv: Reservation {
                    name: name.to_string(),
                    start_time: start,
                    end_time: start.saturating_add(dur),
                    nodes,
                    users,
                    flags,
                    spec_nodes,
                    partition,
                    cores,
                },
            })
        }
        _ => {
            let mut r = st.reservations().iter().find(|r| r.name == name).cloned().ok_or(ESLURM_RESERVATION_INVALID)?;
            if let Some(t) = start_time {
                let dur = r.end_time.saturating_sub(r.start_time);
                r.start_time = *t;
                r.end_time = r.start_time.saturating_add(dur);
            }
            if let Some(m) = duration {
                r.end_time = r.start_time.saturating_add(duration_secs(*m));
            }
            if let Some(t) = end_time {
                r.end_time = *t;
            }
            if let Some(l) = &spec.users {
                if let Some(set) = &l.set {
                    r.users = unknown.check(set)?;
                }
                // Users+= / Users-=
                for name in unknown.check(&l.add)? {
                    if !r.users.contains(&name) {
                        r.users.push(name);
                    }
                }
                for name in unknown.check(&l.remove)? {
                    r.users.retain(|x| *x != name);
                }
            }
            if let Some(c) = node_count {
                let c = *c as usize;
                if c < r.nodes.len() {
                    // slurmctld gives up the first nodes
                    r.nodes = r.nodes.split_off(r.nodes.len() - c);
                } else if c > r.nodes.len() {
                    r.nodes = pick(c, r.start_time, r.end_time, name, &r.nodes)?;
                }
                r.cores = cores(&r.nodes);
            }
            if let Some(v) = &spec.nodes {
                let names = spur_grammar::hostlist::expand(v).map_err(|_| ESLURM_INVALID_NODE_NAME)?;
                if names.iter().any(|n| st.node(n).is_none()) {
                    return Err(ESLURM_INVALID_NODE_NAME);
                }
                r.nodes = names;
                r.cores = cores(&r.nodes);
            }
            if let Some(v) = &spec.flags {
                let keep_spec = r.spec_nodes;
                r.flags = flags(v);
                if keep_spec {
                    r.flags.push("SPEC_NODES".into());
                }
            }
            Ok(Command::ResvUpdate { resv: r })
        }
    }
}

fn plan_delete(st: &State, name: &str) -> Result<Command, i32> {
    if !st.reservations().iter().any(|r| r.name == name) {
        return Err(ESLURM_RESERVATION_INVALID);
    }
    // a job still running in it
    let used = st.jobs().values().any(|j| j.state.is_active() && j.desc.reservation.as_deref() == Some(name));
    if used {
        return Err(ESLURM_RESERVATION_BUSY);
    }
    Ok(Command::ResvDelete { name: name.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_are_looked_up_before_the_lock_and_checked_after() {
        let spec = |l: NameList| ReservationRequest::Update(ReservationSpec { users: Some(l), ..Default::default() });
        let set = |v: &[&str]| NameList { set: Some(v.iter().map(|s| s.to_string()).collect()), ..Default::default() };
        let u = UnknownUsers::of(&spec(set(&["root", "spur-no-such-user"])));
        assert_eq!(u.check(&["root".to_string()]), Ok(vec!["root".to_string()]));
        assert_eq!(u.check(&["root".to_string(), "spur-no-such-user".to_string()]), Err(ESLURM_USER_ID_MISSING));
        // Users+= / Users-= names are looked up too
        let l = NameList { add: vec!["root".into()], remove: vec!["spur-no-such-user".into()], ..Default::default() };
        let u = UnknownUsers::of(&spec(l));
        assert_eq!(u.check(&["root".to_string()]), Ok(vec!["root".to_string()]));
        assert_eq!(u.check(&["spur-no-such-user".to_string()]), Err(ESLURM_USER_ID_MISSING));
    }
}
