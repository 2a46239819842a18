//! Reservations: `scontrol create|update|delete reservation`, `scontrol show
//! reservation` and `sinfo -T`, with Slurm's messages and layouts
//! (recorded/24.11/reservations).

use crate::common::Output;
use crate::scontrol::ScontrolCmd;
use spur_core::model::{ClusterView, Reservation};
use spur_core::time::{fmt_secs_scontrol, fmt_timestamp};

fn kw(tag: &str, word: &str, min: usize) -> bool {
    tag.len() >= min && tag.len() <= word.len() && word[..tag.len()].eq_ignore_ascii_case(tag)
}

/// The canonical name of a `create`/`update` key (`None`: unknown).
fn key_name(t: &str) -> Option<&'static str> {
    const KEYS: &[(&str, usize)] = &[
        ("ReservationName", 3),
        ("StartTime", 5),
        ("EndTime", 3),
        ("Duration", 3),
        ("Users", 1),
        ("Nodes", 5),
        ("NodeCnt", 5),
        ("Flags", 2),
        ("PartitionName", 4),
        ("Accounts", 1),
        ("Groups", 1),
        ("CoreCnt", 2),
    ];
    if kw(t, "nodecount", 5) {
        return Some("NodeCnt");
    }
    KEYS.iter().find(|(k, min)| kw(t, k, *min)).map(|(k, _)| *k)
}

fn no_resv(msg: &str) -> Output {
    Output::err(format!("scontrol: error: {}.  No reservation created.\n", msg), 1)
}

/// `create reservation …`, `update ReservationName=… …` and `delete
/// ReservationName=NAME` / `delete reservation NAME` (args after the keyword).
pub fn parse(tag: &str, args: &[String]) -> Result<ScontrolCmd, Output> {
    let action: &'static str = if kw(tag, "create", 2) {
        "create"
    } else if kw(tag, "delete", 3) {
        "delete"
    } else {
        "update"
    };
    if action == "delete" {
        let Some(arg0) = args.first() else {
            return Err(Output::err(format!("too few arguments for keyword:{}\n", tag), 1));
        };
        let (t, v) = match arg0.find('=') {
            Some(p) => (&arg0[..p], Some(arg0[p + 1..].to_string())),
            None => (arg0.as_str(), args.get(1).cloned()),
        };
        if !(kw(t, "reservationname", 3)) {
            return Err(Output::err(format!("invalid entity: {} for keyword:{}\n", arg0, tag), 1));
        }
        let name = v.unwrap_or_default();
        return Ok(ScontrolCmd::Reservation { action, arg: arg0.clone(), name, fields: vec![] });
    }
    let mut rest: &[String] = args;
    if action == "create" {
        match rest.first() {
            Some(a) if !a.contains('=') && kw(a, "reservation", 3) => rest = &rest[1..],
            _ => {}
        }
    }
    let mut name = String::new();
    let mut fields: Vec<(String, String)> = Vec::new();
    for a in rest {
        let Some(p) = a.find('=') else {
            return Err(no_resv(&format!("Unknown parameter {}", a)));
        };
        let (t, v) = (&a[..p], &a[p + 1..]);
        let Some(k) = key_name(t.trim_end_matches(['+', '-'])) else {
            return Err(no_resv(&format!("Unknown parameter {}", a)));
        };
        match k {
            "ReservationName" => name = v.to_string(),
            "Duration" => {
                if spur_core::time::parse_time_limit(v).is_err() {
                    return Err(if action == "create" {
                        no_resv(&format!("Invalid duration {}", a))
                    } else {
                        Output::err(format!("scontrol: error: Invalid duration {}.  No reservation updated.\n", a), 1)
                    });
                }
                fields.push((k.into(), v.into()));
            }
            _ => fields.push((k.into(), v.into())),
        }
    }
    let has = |k: &str| fields.iter().any(|(f, _)| f == k);
    if action == "create" {
        if !(has("Nodes") || has("NodeCnt") || has("CoreCnt")) {
            return Err(no_resv(if spur_core::compat::v22_05() {
                "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified"
            } else {
                "CoreCnt, Nodes, NodeCnt, TRES or Watts must be specified"
            }));
        }
        if !(has("Users") || has("Accounts") || has("Groups")) {
            return Err(no_resv("Either Users/Groups and/or Accounts must be specified"));
        }
    }
    Ok(ScontrolCmd::Reservation { action, arg: String::new(), name, fields })
}

/// Send a create/update/delete to the controller and print Slurm's answer.
pub async fn execute(c: &spur_client::Client, action: &str, arg: &str, name: &str, fields: &[(String, String)]) -> Output {
    use spur_client::proto::{KeyValue, NodeControlRequest};
    let req = NodeControlRequest {
        op: format!("reservation_{}", action),
        nodes: name.to_string(),
        fields: fields.iter().map(|(k, v)| KeyValue { key: k.clone(), value: v.clone() }).collect(),
    };
    let res = c.node_control(req).await;
    match (action, res) {
        ("create", Ok(_)) => Output::ok(format!("Reservation created: {}\n", name)),
        ("create", Err(e)) => Output::err(format!("Error creating the reservation: {}\n", e), 1),
        ("update", Ok(_)) => Output::ok("Reservation updated.\n"),
        ("update", Err(e)) => {
            if spur_core::compat::v22_05() {
                Output::err(format!("Error updating the reservation: {}\nslurm_update error: {}\n", e, e), 1)
            } else {
                Output::err(format!("slurm_update error: {}\n", e), 1)
            }
        }
        (_, Ok(_)) => Output::ok(""),
        (_, Err(e)) => Output::err(format!("delete_reservation {}: {}\n", arg, e), 1),
    }
}

/// `ACTIVE` from its start to its end time, both included (as the commands print it).
fn state(r: &Reservation, now: i64) -> &'static str {
    if r.start_time <= now && r.end_time >= now {
        "ACTIVE"
    } else {
        "INACTIVE"
    }
}

fn or_null(s: &str) -> &str {
    if s.is_empty() {
        "(null)"
    } else {
        s
    }
}

fn nodelist(r: &Reservation) -> String {
    spur_core::hostlist::compress(&r.nodes)
}

/// One reservation as `scontrol show reservation` prints it.
fn record(r: &Reservation, now: i64, one_liner: bool) -> String {
    let mut lines = vec![
        format!(
            "ReservationName={} StartTime={} EndTime={} Duration={}",
            r.name,
            fmt_timestamp(r.start_time),
            fmt_timestamp(r.end_time),
            fmt_secs_scontrol(r.end_time - r.start_time)
        ),
        format!(
            "Nodes={} NodeCnt={} CoreCnt={} Features=(null) PartitionName={} Flags={}",
            or_null(&nodelist(r)),
            r.nodes.len(),
            r.cores,
            r.partition.as_deref().unwrap_or("(null)"),
            r.flags.join(",")
        ),
        format!("TRES=cpu={}", r.cores),
        format!(
            "Users={} Groups=(null) Accounts=(null) Licenses=(null) State={} BurstBuffer=(null){}",
            or_null(&r.users.join(",")),
            state(r, now),
            if spur_core::compat::v22_05() { " Watts=n/a" } else { "" }
        ),
        "MaxStartDelay=(null)".to_string(),
    ];
    if one_liner {
        let mut s = lines.join(" ");
        s.push('\n');
        s
    } else {
        let first = lines.remove(0);
        let mut s = first;
        for l in lines {
            s.push_str("\n   ");
            s.push_str(&l);
        }
        s.push_str("\n\n");
        s
    }
}

/// `scontrol show reservation [NAME]`.
pub fn show(view: &ClusterView, id: Option<&str>, one_liner: bool, quiet: bool) -> Output {
    match id {
        None if view.reservations.is_empty() => Output::ok("No reservations in the system\n"),
        None => Output::ok(view.reservations.iter().map(|r| record(r, view.now, one_liner)).collect::<String>()),
        Some(name) => match view.reservations.iter().find(|r| r.name == name) {
            Some(r) => Output::ok(record(r, view.now, one_liner)),
            None => {
                let mut o = Output { code: 1, ..Default::default() };
                if !quiet {
                    o.stdout = format!("Reservation {} not found\n", name);
                }
                o
            }
        },
    }
}

/// `sinfo -T`.
pub fn sinfo_list(view: &ClusterView) -> String {
    if view.reservations.is_empty() {
        return "No reservations in the system\n".into();
    }
    // the name column is as wide as the longest name (at least 9)
    let w = view.reservations.iter().map(|r| r.name.len()).max().unwrap_or(0).max(9);
    let mut s = format!("{:<w$}  {:>8}  {:>19}  {:>19}  {:>11}  {}\n", "RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST");
    for r in &view.reservations {
        s.push_str(&format!(
            "{:<w$}  {:>8}  {:>19}  {:>19}  {:>11}  {}\n",
            r.name,
            state(r, view.now),
            fmt_timestamp(r.start_time),
            fmt_timestamp(r.end_time),
            fmt_secs_scontrol(r.end_time - r.start_time),
            or_null(&nodelist(r))
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn create_checks_as_scontrol() {
        let e = parse("create", &args(&["reservation", "ReservationName=b", "Duration=bogus", "Users=root", "Nodes=n1"])).err().unwrap();
        assert_eq!(e.stderr, "scontrol: error: Invalid duration Duration=bogus.  No reservation created.\n");
        let e = parse("create", &args(&["res", "ReservationName=b", "Duration=60", "Users=root"])).err().unwrap();
        assert!(e.stderr.contains("must be specified"));
        let e = parse("create", &args(&["res", "ReservationName=b", "Duration=60", "Nodes=n1"])).err().unwrap();
        assert!(e.stderr.contains("Either Users/Groups"));
        assert!(parse("create", &args(&["res", "garbage"])).is_err());
        assert!(parse("delete", &args(&[])).is_err());
        match parse("delete", &args(&["reservation", "x"])).unwrap() {
            ScontrolCmd::Reservation { name, arg, .. } => assert_eq!((name.as_str(), arg.as_str()), ("x", "reservation")),
            _ => panic!(),
        }
    }

    #[test]
    fn show_layout() {
        let r = Reservation {
            name: "r1".into(),
            start_time: 0,
            end_time: 3600,
            nodes: vec!["node1".into(), "node2".into()],
            users: vec!["root".into()],
            flags: vec!["SPEC_NODES".into()],
            spec_nodes: true,
            partition: None,
            cores: 4,
        };
        let v = ClusterView { now: 10, reservations: vec![r], ..Default::default() };
        let o = show(&v, None, false, false).stdout;
        assert!(o.contains(" Duration=01:00:00\n   Nodes=node[1-2] NodeCnt=2 CoreCnt=4"));
        assert!(o.ends_with("MaxStartDelay=(null)\n\n"));
        assert_eq!(show(&v, Some("x"), false, false).code, 1);
        assert!(sinfo_list(&v).contains("r1           ACTIVE"));
    }
}
