//! `scontrol create|update|delete reservation`: the leader turns the request
//! into a complete [`Reservation`] (times resolved against its clock, nodes
//! chosen) and logs it as one command, so every member applies the same record.

use crate::core::Ctld;
use spur_core::errors::*;
use spur_core::model::Reservation;
use spur_proto::KeyValue;
use spur_state::Command;

/// The order slurmctld prints reservation flags in (the ones Spur knows).
const FLAG_ORDER: &[&str] = &[
    "MAINT", "NO_MAINT", "FLEX", "OVERLAP", "IGNORE_JOBS", "HOURLY", "NO_HOURLY", "DAILY", "NO_DAILY",
    "WEEKDAY", "WEEKEND", "WEEKLY", "NO_WEEKLY", "SPEC_NODES", "ALL_NODES", "ANY_NODES", "NO_ANY_NODES",
    "STATIC", "NO_STATIC", "PART_NODES", "NO_PART_NODES", "TIME_FLOAT", "REPLACE", "REPLACE_DOWN",
    "PURGE_COMP", "NO_HOLD_JOBS_AFTER_END", "MAGNETIC", "NO_MAGNETIC", "USER_DELETE", "NO_USER_DELETE",
];

fn field<'a>(fields: &'a [KeyValue], key: &str) -> Option<&'a str> {
    fields.iter().rev().find(|kv| kv.key.eq_ignore_ascii_case(key)).map(|kv| kv.value.as_str())
}

fn list(v: &str) -> Vec<String> {
    v.split(',').map(|s| s.trim()).filter(|s| !s.is_empty()).map(String::from).collect()
}

fn duration_secs(v: &str) -> Result<i64, i32> {
    match spur_grammar::time::parse_time_limit(v) {
        Ok(Some(m)) => Ok(m as i64 * 60),
        // UNLIMITED: slurmctld's one year
        Ok(None) => Ok(365 * 86400),
        Err(_) => Err(ESLURM_INVALID_TIME_VALUE),
    }
}

fn users(v: &str) -> Result<Vec<String>, i32> {
    let u = list(v);
    for name in &u {
        if spur_client::users::uid_of(name).is_none() {
            return Err(ESLURM_USER_ID_MISSING);
        }
    }
    Ok(u)
}

fn flags(v: &str) -> Vec<String> {
    let mut f: Vec<String> = list(v).into_iter().map(|s| s.to_ascii_uppercase()).collect();
    f.sort_by_key(|x| FLAG_ORDER.iter().position(|o| o == x).unwrap_or(FLAG_ORDER.len()));
    f.dedup();
    f
}

/// The command for one request, or Slurm's error number.
pub fn plan(ctld: &Ctld, action: &str, name: &str, fields: &[KeyValue], now: i64) -> Result<Command, i32> {
    let g = ctld.lock();
    let st = &g.state;
    // no name: slurmctld names it after the first account, user or group and its id
    let generated;
    let name = if name.is_empty() && action == "create" {
        let key = ["Accounts", "Users", "Groups"]
            .iter()
            .find_map(|k| field(fields, k).filter(|v| !v.is_empty()))
            .unwrap_or("resv");
        let key = key.strip_prefix('-').unwrap_or(key);
        generated = format!("{}_{}", key.split(',').next().unwrap_or(key), st.resv_top + 1);
        generated.as_str()
    } else {
        name
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
            let busy = st.reservations.iter().any(|r| {
                r.name != skip && r.start_time < end && start < r.end_time && r.nodes.contains(n)
            });
            if !busy && !out.contains(n) {
                out.push(n.clone());
            }
        }
        if out.len() < count {
            return Err(ESLURM_NODES_BUSY);
        }
        out.sort_by_key(|n| st.nodes.iter().position(|x| &x.name == n));
        Ok(out)
    };
    match action {
        "delete" => {
            if !st.reservations.iter().any(|r| r.name == name) {
                return Err(ESLURM_RESERVATION_INVALID);
            }
            // a job still running in it
            let used = st.jobs.values().any(|j| {
                j.state.is_active() && j.desc.extra.get("reservation").map(|r| r == name).unwrap_or(false)
            });
            if used {
                return Err(ESLURM_RESERVATION_BUSY);
            }
            Ok(Command::ResvDelete { name: name.to_string() })
        }
        "create" => {
            if st.reservations.iter().any(|r| r.name == name) {
                return Err(ESLURM_RESERVATION_NAME_DUP);
            }
            let start = match field(fields, "StartTime") {
                Some(v) => spur_grammar::time::parse_time(v, now, true).map_err(|_| ESLURM_INVALID_TIME_VALUE)?,
                None => now,
            };
            let start = if start == 0 { now } else { start };
            let dur = match field(fields, "Duration") {
                Some(v) => duration_secs(v)?,
                None => match field(fields, "EndTime") {
                    Some(v) => spur_grammar::time::parse_time(v, now, true).map_err(|_| ESLURM_INVALID_TIME_VALUE)? - start,
                    None => 365 * 86400,
                },
            };
            let users = users(field(fields, "Users").unwrap_or(""))?;
            let mut flags = flags(field(fields, "Flags").unwrap_or(""));
            let (nodes, spec, partition) = match (field(fields, "Nodes"), field(fields, "NodeCnt")) {
                (Some(v), _) => {
                    let nodes: Vec<String> = if v.eq_ignore_ascii_case("ALL") {
                        st.nodes.iter().map(|n| n.name.clone()).collect()
                    } else {
                        let names = spur_grammar::hostlist::expand(v).map_err(|_| ESLURM_INVALID_NODE_NAME)?;
                        if names.iter().any(|n| st.node(n).is_none()) {
                            return Err(ESLURM_INVALID_NODE_NAME);
                        }
                        let mut names = names;
                        names.sort_by_key(|n| st.nodes.iter().position(|x| &x.name == n));
                        names.dedup();
                        names
                    };
                    (nodes, true, field(fields, "PartitionName").map(String::from))
                }
                (None, Some(c)) => {
                    let c: usize = c.trim().parse().map_err(|_| ESLURM_INVALID_NODE_COUNT)?;
                    let part = st.default_partition().map(|p| p.name.clone());
                    (pick(c, start, start + dur, name, &[])?, false, part)
                }
                (None, None) => return Err(ESLURM_RESERVATION_EMPTY),
            };
            let (end, has) = (start + dur, |f: &[String], x: &str| f.iter().any(|y| y == x));
            if spec && !has(&flags, "MAINT") && !has(&flags, "OVERLAP") {
                // another reservation of these nodes at the same time
                let clash = st.reservations.iter().any(|r| {
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
            if spec && !has(&flags, "IGNORE_JOBS") {
                // jobs still running on these nodes when it starts
                let busy = st.jobs.values().any(|j| {
                    j.state.is_active()
                        && (j.end_time == 0 || j.end_time > start)
                        && j.allocs.iter().any(|a| nodes.contains(&a.node))
                });
                if busy {
                    return Err(ESLURM_NODES_BUSY);
                }
            }
            if spec {
                flags.push("SPEC_NODES".into());
            }
            if field(fields, "Nodes").map(|v| v.eq_ignore_ascii_case("ALL")).unwrap_or(false) {
                flags.push("ALL_NODES".into());
            }
            flags.sort_by_key(|x| FLAG_ORDER.iter().position(|o| o == x).unwrap_or(FLAG_ORDER.len()));
            flags.dedup();
            let cores = cores(&nodes);
            Ok(Command::ResvCreate {
                resv: Reservation {
                    name: name.to_string(),
                    start_time: start,
                    end_time: start + dur,
                    nodes,
                    users,
                    flags,
                    spec_nodes: spec,
                    partition,
                    cores,
                },
            })
        }
        "update" => {
            let mut r = st.reservations.iter().find(|r| r.name == name).cloned().ok_or(ESLURM_RESERVATION_INVALID)?;
            if let Some(v) = field(fields, "StartTime") {
                let dur = r.end_time - r.start_time;
                r.start_time = spur_grammar::time::parse_time(v, now, true).map_err(|_| ESLURM_INVALID_TIME_VALUE)?;
                r.end_time = r.start_time + dur;
            }
            if let Some(v) = field(fields, "Duration") {
                r.end_time = r.start_time + duration_secs(v)?;
            }
            if let Some(v) = field(fields, "EndTime") {
                r.end_time = spur_grammar::time::parse_time(v, now, true).map_err(|_| ESLURM_INVALID_TIME_VALUE)?;
            }
            if let Some(v) = field(fields, "Users") {
                if v.starts_with(['+', '-']) {
                    // Users+= / Users-=
                    for u in list(v) {
                        let (sign, name) = u.split_at(1);
                        users(name)?;
                        if sign == "+" && !r.users.iter().any(|x| x == name) {
                            r.users.push(name.to_string());
                        } else if sign == "-" {
                            r.users.retain(|x| x != name);
                        }
                    }
                } else {
                    r.users = users(v)?;
                }
            }
            if let Some(v) = field(fields, "NodeCnt") {
                let c: usize = v.trim().parse().map_err(|_| ESLURM_INVALID_NODE_COUNT)?;
                if c < r.nodes.len() {
                    // slurmctld gives up the first nodes
                    r.nodes = r.nodes.split_off(r.nodes.len() - c);
                } else if c > r.nodes.len() {
                    r.nodes = pick(c, r.start_time, r.end_time, name, &r.nodes)?;
                }
                r.cores = cores(&r.nodes);
            }
            if let Some(v) = field(fields, "Nodes") {
                let names = spur_grammar::hostlist::expand(v).map_err(|_| ESLURM_INVALID_NODE_NAME)?;
                if names.iter().any(|n| st.node(n).is_none()) {
                    return Err(ESLURM_INVALID_NODE_NAME);
                }
                r.nodes = names;
                r.cores = cores(&r.nodes);
            }
            if let Some(v) = field(fields, "Flags") {
                let spec = r.spec_nodes;
                r.flags = flags(v);
                if spec {
                    r.flags.push("SPEC_NODES".into());
                }
            }
            Ok(Command::ResvUpdate { resv: r })
        }
        _ => Err(ESLURM_NOT_SUPPORTED),
    }
}
