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
pub struct UnknownUsers(Vec<String>, Vec<String>);

impl UnknownUsers {
    pub fn of(req: &ReservationRequest) -> UnknownUsers {
        let (mut unknown, mut groups): (Vec<String>, Vec<String>) = (vec![], vec![]);
        if let ReservationRequest::Create(s) | ReservationRequest::Update(s) = req {
            for name in s.users.iter().flat_map(|l| l.names()) {
                if !unknown.contains(name) && spur_auth::users::uid_of(name).is_none() {
                    unknown.push(name.clone());
                }
            }
            for name in s.groups.iter().flat_map(|l| l.names()) {
                if !groups.contains(name) && spur_auth::users::gid_of(name).is_none() {
                    groups.push(name.clone());
                }
            }
        }
        UnknownUsers(unknown, groups)
    }

    /// Groups must exist (slurmctld: `Invalid group id`).
    fn check_groups(&self, names: &[String]) -> Result<Vec<String>, i32> {
        if names.iter().any(|n| self.1.contains(n)) {
            return Err(ESLURM_GROUP_ID_MISSING);
        }
        Ok(names.to_vec())
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

/// A list after a `NameList` change: the new list, or names added and removed.
fn change_list(cur: &[String], l: &NameList) -> Vec<String> {
    let mut out: Vec<String> = l.set.clone().unwrap_or_else(|| cur.to_vec());
    for n in &l.add {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out.retain(|n| !l.remove.contains(n));
    out
}

/// A `TRES=` item slurmctld knows for a reservation: `cpu=`, `node=`,
/// licenses, burst buffers, GRES.
fn tres_valid(v: &str) -> bool {
    v.split(',').filter(|x| !x.is_empty()).all(|item| {
        let Some((name, count)) = item.split_once('=') else { return false };
        let name = name.to_ascii_lowercase();
        let known = matches!(name.as_str(), "cpu" | "node")
            || ["license/", "bb/", "gres/"].iter().any(|p| name.starts_with(p) && name.len() > p.len());
        known && count.parse::<u64>().is_ok()
    })
}

/// The cores a `TRES=` value asks (`cpu=N`; a `TRESPerNode=` one times
/// `nodes`), or `None` for anything but CPUs.
fn core_request(v: &str, nodes: u32) -> Option<u32> {
    let mut cores = None;
    for item in v.split(',').filter(|x| !x.is_empty()) {
        let (name, count) = item.split_once('=')?;
        if !name.eq_ignore_ascii_case("cpu") {
            return None;
        }
        cores = Some(count.parse::<u32>().ok()?.saturating_mul(nodes.max(1)));
    }
    cores
}

/// Whether a node has what a reservation's `Features=` asks: every name of
/// an `&` (or `,`) list, or one of a `|` list.
fn has_features(n: &spur_core::model::Node, features: &str) -> bool {
    let has = |f: &str| n.features.iter().any(|x| x == f);
    if features.contains('|') {
        features.split('|').any(|f| has(f.trim()))
    } else {
        features.split(['&', ',']).filter(|f| !f.is_empty()).all(|f| has(f.trim()))
    }
}

/// The next occurrence of a recurring reservation (`Skip`): its start moved
/// by its period, or `None` for one that does not recur.
fn next_occurrence(flags: &[String], start: i64) -> Option<i64> {
    let has = |f: &str| flags.iter().any(|x| x == f);
    if has("HOURLY") {
        return Some(start + 3600);
    }
    if has("DAILY") {
        return Some(start + 86400);
    }
    if has("WEEKLY") {
        return Some(start + 7 * 86400);
    }
    let weekday = |t: i64| (t.div_euclid(86400) + 4).rem_euclid(7); // 0 = Sunday (UTC)
    let want: fn(i64) -> bool = if has("WEEKDAY") {
        |d| (1..=5).contains(&d)
    } else if has("WEEKEND") {
        |d| d == 0 || d == 6
    } else {
        return None;
    };
    let mut t = start + 86400;
    while !want(weekday(t)) {
        t += 86400;
    }
    Some(t)
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
        pick_nodes(st, count, (start, end), skip, keep, &[])
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
            let groups = unknown.check_groups(&spec.groups.as_ref().map(new_users).unwrap_or_default())?;
            let accounts = spec.accounts.as_ref().map(new_users).unwrap_or_default();
            if !users.is_empty() && !groups.is_empty() {
                return Err(ESLURM_RESERVATION_USER_GROUP);
            }
            if spec.partition.as_deref().is_some_and(|p| st.partition(p).is_none()) {
                return Err(ESLURM_INVALID_PARTITION_NAME);
            }
            if let Some(t) = &spec.tres {
                if !tres_valid(t) {
                    return Err(ESLURM_INVALID_TRES);
                }
            }
            // cores (CoreCnt=, TRES=cpu=, TRESPerNode=cpu=): whole nodes only
            let core_count = match (&spec.tres, spec.core_count) {
                (Some(t), _) => {
                    let nodes = if spec.tres_per_node { node_count.unwrap_or(1) } else { 1 };
                    Some(core_request(t, nodes).ok_or(ESLURM_NOT_SUPPORTED)?)
                }
                (None, c) => c,
            };
            let core_based = core_count.is_some();
            let features = spec.features.clone().filter(|f| !f.is_empty());
            let mut flags = flags(spec.flags.as_deref().unwrap_or(&[]));
            let all_nodes = spec.nodes.as_deref().map(|v| v.eq_ignore_ascii_case("ALL")).unwrap_or(false);
            let (nodes, spec_nodes, partition) = match (spec.nodes.as_deref(), node_count) {
                _ if core_based => {
                    let part = st.default_partition().map(|p| p.name.clone());
                    let want = core_count.unwrap_or(0);
                    // the default partition's nodes no other reservation holds then
                    let end = start.saturating_add(dur);
                    let free: Vec<&spur_core::model::Node> = st
                        .default_partition()
                        .map(|p| p.nodes.clone())
                        .unwrap_or_default()
                        .iter()
                        .filter(|n| !held(st, n, (start, end), name))
                        .filter_map(|n| st.node(n))
                        .collect();
                    let mut nodes = vec![];
                    let mut have = 0u32;
                    for n in free {
                        if have >= want {
                            break;
                        }
                        nodes.push(n.name.clone());
                        have = have.saturating_add(n.cpus);
                    }
                    if have < want || want == 0 {
                        return Err(ESLURM_NODES_BUSY);
                    }
                    if have != want {
                        // part of a node: Spur reserves whole nodes only
                        return Err(ESLURM_NOT_SUPPORTED);
                    }
                    (nodes, false, part)
                }
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
                    let nodes = match &features {
                        None => pick(*c as usize, start, start.saturating_add(dur), name, &[])?,
                        Some(f) => {
                            // only nodes with the features (22.05: a feature no
                            // node has is refused as such)
                            let fits: Vec<&spur_core::model::Node> =
                                st.nodes().iter().filter(|n| has_features(n, f)).collect();
                            if fits.is_empty() {
                                return Err(if st.profile().reservation_22_05_texts {
                                    ESLURM_INVALID_FEATURE
                                } else {
                                    ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE
                                });
                            }
                            let others: Vec<String> =
                                st.nodes().iter().filter(|n| !has_features(n, f)).map(|n| n.name.clone()).collect();
                            pick_nodes(st, *c as usize, (start, start.saturating_add(dur)), name, &[], &others)?
                        }
                    };
                    (nodes, false, part)
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
                    accounts,
                    groups,
                    features,
                    max_start_delay: spec.max_start_delay.map(duration_secs),
                    core_based,
                },
            })
        }
        _ => {
            let mut r = st.reservations().iter().find(|r| r.name == name).cloned().ok_or(ESLURM_RESERVATION_INVALID)?;
            if spec.skip {
                let next = next_occurrence(&r.flags, r.start_time).ok_or(ESLURM_RESERVATION_NO_SKIP)?;
                let dur = r.end_time.saturating_sub(r.start_time);
                r.start_time = next;
                r.end_time = next.saturating_add(dur);
            }
            if let Some(t) = &spec.tres {
                if !tres_valid(t) {
                    return Err(ESLURM_INVALID_TRES);
                }
            }
            // slurmctld: no core count update, and no node update of a
            // core-based reservation
            if spec.tres.is_some()
                || spec.core_count.is_some()
                || (r.core_based && (node_count.is_some() || spec.nodes.is_some()))
            {
                return Err(ESLURM_CORE_RESERVATION_UPDATE);
            }
            if let Some(l) = &spec.groups {
                unknown.check_groups(&l.names().cloned().collect::<Vec<_>>())?;
                r.groups = change_list(&r.groups, l);
            }
            if let Some(l) = &spec.accounts {
                r.accounts = change_list(&r.accounts, l);
            }
            if let Some(f) = &spec.features {
                r.features = Some(f.clone()).filter(|f| !f.is_empty());
            }
            if let Some(m) = spec.max_start_delay {
                r.max_start_delay = Some(duration_secs(m));
            }
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
            if !r.users.is_empty() && !r.groups.is_empty() {
                return Err(ESLURM_RESERVATION_USER_GROUP);
            }
            Ok(Command::ResvUpdate { resv: r })
        }
    }
}

/// Whether another reservation than `skip` holds node `n` during [start, end).
fn held(st: &State, n: &str, (start, end): (i64, i64), skip: &str) -> bool {
    st.reservations()
        .iter()
        .any(|r| r.name != skip && r.start_time < end && start < r.end_time && r.nodes.iter().any(|x| x == n))
}

/// `keep` and more nodes of the default partition, `count` in all, in node
/// order: none of `exclude`, none another reservation holds during `when`.
fn pick_nodes(
    st: &State,
    count: usize,
    when: (i64, i64),
    skip: &str,
    keep: &[String],
    exclude: &[String],
) -> Result<Vec<String>, i32> {
    let part = st.default_partition().ok_or(ESLURM_DEFAULT_PARTITION_NOT_SET)?;
    let mut out: Vec<String> = keep.to_vec();
    for n in part.nodes.iter().filter(|n| !exclude.contains(n)) {
        if out.len() >= count {
            break;
        }
        if !held(st, n, when, skip) && !out.contains(n) {
            out.push(n.clone());
        }
    }
    if out.len() < count {
        return Err(ESLURM_NODES_BUSY);
    }
    out.sort_by_key(|n| st.nodes().iter().position(|x| &x.name == n));
    Ok(out)
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

    fn req(create: bool, f: impl FnOnce(&mut ReservationSpec)) -> ReservationRequest {
        let mut s = ReservationSpec {
            name: "r".into(),
            start_time: Some(1000),
            duration: Some(30),
            node_count: Some(1),
            ..Default::default()
        };
        f(&mut s);
        if create {
            ReservationRequest::Create(s)
        } else {
            ReservationRequest::Update(ReservationSpec {
                name: s.name,
                skip: s.skip,
                groups: s.groups,
                users: s.users,
                ..Default::default()
            })
        }
    }

    fn names(v: &[&str]) -> Option<NameList> {
        Some(NameList { set: Some(v.iter().map(|s| s.to_string()).collect()), ..Default::default() })
    }

    #[test]
    fn accounts_groups_features_delay_skip_and_tres() {
        use spur_core::model::{Node, Partition};
        let node = |n: &str, f: &[&str]| Node {
            name: n.into(),
            cpus: 2,
            features: f.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let part = Partition {
            name: "debug".into(),
            nodes: vec!["n1".into(), "n2".into()],
            default: true,
            ..Default::default()
        };
        let mut st = State::new("c".into(), vec![node("n1", &[]), node("n2", &["f1"])], vec![part], 1, 1000);
        st.apply(&Command::SetFormatVersion { version: 3 }).unwrap();
        let plan1 = |st: &State, r: ReservationRequest| plan(st, &r, &UnknownUsers::of(&r), 500);
        // Accounts only, MaxStartDelay, Features picking the node that has them
        let r = req(true, |s| {
            s.accounts = names(&["a", "b"]);
            s.max_start_delay = Some(10);
            s.features = Some("f1".into());
        });
        let Ok(Command::ResvCreate { resv }) = plan1(&st, r) else { panic!("not created") };
        assert_eq!(
            (resv.nodes.clone(), resv.accounts.clone(), resv.features.as_deref(), resv.max_start_delay),
            (vec!["n2".to_string()], vec!["a".to_string(), "b".to_string()], Some("f1"), Some(600))
        );
        assert_eq!(resv.min_format_version(), 3);
        let nosuch = req(true, |s| {
            s.users = names(&["root"]);
            s.features = Some("nosuch".into());
        });
        assert_eq!(plan1(&st, nosuch).err(), Some(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE));
        // groups: must exist, not with users
        let g = req(true, |s| s.groups = names(&["root"]));
        let Ok(Command::ResvCreate { resv: rg }) = plan1(&st, g) else { panic!("not created") };
        assert_eq!(rg.groups, ["root"]);
        let both = req(true, |s| {
            s.groups = names(&["root"]);
            s.users = names(&["root"]);
        });
        assert_eq!(plan1(&st, both).err(), Some(ESLURM_RESERVATION_USER_GROUP));
        let bad = req(true, |s| s.groups = names(&["spur-no-such-group"]));
        assert_eq!(plan1(&st, bad).err(), Some(ESLURM_GROUP_ID_MISSING));
        // TRES: an unknown one refused; cores of whole nodes reserved, part
        // of a node not (by Spur)
        let t = |v: &str| req(true, |s| s.tres = Some(v.into()));
        assert_eq!(plan1(&st, t("bogus=1")).err(), Some(ESLURM_INVALID_TRES));
        let Ok(Command::ResvCreate { resv: rc }) = plan1(&st, t("cpu=2")) else { panic!("not created") };
        assert_eq!(
            (rc.nodes.clone(), rc.cores, rc.core_based, rc.spec_nodes),
            (vec!["n1".to_string()], 2, true, false)
        );
        assert_eq!(plan1(&st, t("cpu=3")).err(), Some(ESLURM_NOT_SUPPORTED));
        let per_node = req(true, |s| {
            s.tres = Some("cpu=1".into());
            s.tres_per_node = true;
        });
        assert_eq!(plan1(&st, per_node).err(), Some(ESLURM_NOT_SUPPORTED));
        let cores = req(true, |s| s.core_count = Some(4));
        let Ok(Command::ResvCreate { resv: r4 }) = plan1(&st, cores) else { panic!("not created") };
        assert_eq!(r4.nodes, ["n1", "n2"]);
        // no core count update
        st.apply(&Command::ResvCreate { resv: rc }).unwrap();
        let upd =
            ReservationRequest::Update(ReservationSpec { name: "r".into(), core_count: Some(1), ..Default::default() });
        assert_eq!(plan1(&st, upd).err(), Some(ESLURM_CORE_RESERVATION_UPDATE));
        st.apply(&Command::ResvDelete { name: "r".into() }).unwrap();
        // updates: users on a group reservation; Skip
        st.apply(&Command::ResvCreate { resv: rg }).unwrap();
        let u = req(false, |s| s.users = names(&["root"]));
        assert_eq!(plan1(&st, u).err(), Some(ESLURM_RESERVATION_USER_GROUP));
        let skip = req(false, |s| s.skip = true);
        assert_eq!(plan1(&st, skip).err(), Some(ESLURM_RESERVATION_NO_SKIP));
        assert_eq!(next_occurrence(&["DAILY".into()], 1000), Some(87400));
        assert_eq!(next_occurrence(&["WEEKLY".into()], 0), Some(7 * 86400));
        // 1970-01-02 was a Friday: the next weekday is Monday the 5th
        assert_eq!(next_occurrence(&["WEEKDAY".into()], 86400), Some(4 * 86400));
        assert_eq!(next_occurrence(&["SPEC_NODES".into()], 0), None);
    }
}
