//! Reservations: `scontrol create|update|delete reservation`, `scontrol show
//! reservation`, with Slurm's messages and layouts
//! (recorded/24.11/reservations).

use crate::scontrol::ScontrolCmd;
use spur_cli_base::records::{or_null, resv_nodes, resv_state};
use spur_cli_base::Output;
use spur_core::model::{ClusterView, Reservation};
use spur_core::request::{NameList, ReservationRequest, ReservationSpec, INFINITE};
use spur_grammar::time::fmt_secs_scontrol;

fn kw(tag: &str, word: &str, min: usize) -> bool {
    tag.len() >= min && tag.len() <= word.len() && word[..tag.len()].eq_ignore_ascii_case(tag)
}

/// The canonical name of a `create`/`update` key, tried in scontrol's order
/// with its shortest accepted abbreviations (`None`: unknown).
fn key_name(t: &str) -> Option<&'static str> {
    const KEYS: &[(&str, &str, usize)] = &[
        ("Accounts", "Accounts", 1),
        ("Comment", "Comment", 3),
        ("Flags", "Flags", 2),
        ("Groups", "Groups", 1),
        ("Users", "Users", 1),
        ("ReservationName", "ReservationName", 1),
        ("BurstBuffer", "BurstBuffer", 2),
        ("StartTime", "StartTime", 2),
        ("EndTime", "EndTime", 1),
        ("Duration", "Duration", 1),
        ("MaxStartDelay", "MaxStartDelay", 2),
        ("NodeCnt", "NodeCnt", 5),
        ("NodeCount", "NodeCnt", 5),
        ("CoreCnt", "CoreCnt", 5),
        ("CoreCount", "CoreCnt", 5),
        ("CPUCnt", "CoreCnt", 5),
        ("CPUCount", "CoreCnt", 5),
        ("Nodes", "Nodes", 5),
        ("Features", "Features", 2),
        ("Licenses", "Licenses", 2),
        ("PartitionName", "PartitionName", 1),
        ("TRES", "TRES", 1),
        ("TRESPerNode", "TRESPerNode", 5),
    ];
    KEYS.iter().find(|(w, _, min)| kw(t, w, *min)).map(|(_, k, _)| *k)
}

/// A word scontrol skips here: one that begins `res` (any case), as the
/// keyword `reservation` or `ReservationName` does.
fn starts_res(w: &str) -> bool {
    w.as_bytes().get(..3).is_some_and(|b| b.eq_ignore_ascii_case(b"res"))
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
        return Ok(ScontrolCmd::Reservation { arg: arg0.clone(), req: ReservationRequest::Delete { name } });
    }
    let mut rest: &[String] = args;
    if action == "create" {
        match rest.first() {
            Some(a) if !a.contains('=') && kw(a, "reservation", 3) => rest = &rest[1..],
            _ => {}
        }
    }
    let msg = if action == "create" { "No reservation created." } else { "No reservation update." };
    let fail = |m: String| Output::err(format!("scontrol: error: {}\n", m), 1);
    let v22 = spur_core::compat::profile().reservation_22_05_texts;
    let mut name = String::new();
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut skip = false;
    for a in rest {
        let Some(p) = a.find('=') else {
            if starts_res(a) {
                continue;
            }
            if kw(a, "skip", 2) {
                skip = true;
                continue;
            }
            return Err(fail(format!(
                "Misformatted parameter '{}', most options have a parameter after '='.  {}",
                a, msg
            )));
        };
        let (t, v) = (&a[..p], &a[p + 1..]);
        let pm = t.ends_with(['+', '-']).then(|| &t[t.len() - 1..]);
        let t = t.trim_end_matches(['+', '-']);
        // (22.05 has no TRESPerNode)
        let Some(k) = key_name(t).filter(|k| !(v22 && *k == "TRESPerNode")) else {
            if starts_res(t) {
                continue;
            }
            return Err(fail(format!("Unknown parameter {}.  {}", a, msg)));
        };
        if matches!(k, "TRES" | "TRESPerNode") && fields.iter().any(|(f, _)| f == "TRES") && !v22 {
            return Err(fail(format!("Parameter {} specified more than once", a)));
        }
        if fields.iter().any(|(f, _)| f == k) && matches!(k, "Accounts" | "Comment" | "Groups" | "Users" | "TRES") {
            return Err(fail(format!("Parameter {} specified more than once", a)));
        }
        match k {
            "ReservationName" => name = v.to_string(),
            "Duration" => {
                if spur_grammar::time::parse_time_limit(v).is_err() {
                    return Err(fail(format!("Invalid duration {}.  {}", a, msg)));
                }
                fields.push((k.into(), v.into()));
            }
            "StartTime" | "EndTime" => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs() as i64)
                    .unwrap_or(0);
                if spur_grammar::time::parse_time(v, now, false).is_err() {
                    let what = if k == "StartTime" { "start" } else { "end" };
                    return Err(fail(format!("Invalid {} time {}.  {}", what, a, msg)));
                }
                fields.push((k.into(), v.into()));
            }
            "Flags" => {
                if v.split(',').any(|f| !f.trim().is_empty() && !known_flag(f)) {
                    let tail = if action == "update" { crate::scontrol::no_error_22_05() } else { "" };
                    return Err(Output::err(
                        format!("scontrol: error: Error parsing flags {}.  {}\n{}", v, msg, tail),
                        1,
                    ));
                }
                fields.push((k.into(), v.into()));
            }
            "MaxStartDelay" => {
                if spur_grammar::time::parse_time_limit(v).is_err() {
                    let tail = if action == "update" { crate::scontrol::no_error_22_05() } else { "" };
                    return Err(Output::err(format!("scontrol: error: Invalid duration {}.  {}\n{}", a, msg, tail), 1));
                }
                fields.push((k.into(), v.into()));
            }
            "CoreCnt" if v22 => {
                // 22.05: a count per node is still accepted
                let counts: Vec<Option<u32>> = v.split(',').map(|c| c.trim().parse::<u32>().ok()).collect();
                if counts.iter().any(|c| c.is_none()) {
                    return Err(fail(format!("Invalid core count {}", v)));
                }
                let total = counts.iter().flatten().fold(0u32, |a, c| a.saturating_add(*c));
                fields.push((k.into(), total.to_string()));
            }
            "CoreCnt" => {
                if v.contains(',') {
                    return Err(fail("Using a comma separated array for CoreCnt is no longer valid.".into()));
                }
                // slurm_atoul: a value that is no number is 0, no count at all
                let n = atoul(v);
                if n > 0 {
                    fields.push((k.into(), n.to_string()));
                }
            }
            "TRES" | "TRESPerNode" if v22 => {
                if let Some(bad) = v.split(',').filter(|x| !x.is_empty()).find(|x| !tres_known(x)) {
                    let name = bad.split_once('=').map_or(bad, |(n, _)| n);
                    return Err(fail(format!("couldn't identify configured TRES '{}'", name)));
                }
                if pm.is_some() {
                    return Err(fail(format!("The +=/-= notation is not supported when updating {}.  {}", t, msg)));
                }
                fields.push(("TRES".into(), v.into()));
            }
            "TRES" | "TRESPerNode" => {
                if pm.is_some() {
                    return Err(fail(format!("Parameter {} specified a plus or minus.  This is not allowed.", a)));
                }
                fields.push(("TRES".into(), v.into()));
                if k == "TRESPerNode" {
                    fields.push(("TRESPerNode".into(), String::new()));
                }
            }
            "NodeCnt" => {
                if v.contains(',') {
                    return Err(fail("Using a comma separated array for NodeCnt is no longer valid.".into()));
                }
                if v.trim().parse::<u32>().is_err() {
                    return Err(fail(format!("\"{}\" is not a valid node count", v)));
                }
                fields.push((k.into(), v.into()));
            }
            // `Users+=a` / `Users-=a`: each name marked for the controller
            "Users" | "Accounts" | "Groups" if pm.is_some() => {
                let sign = pm.unwrap_or("");
                let v: Vec<String> = v.split(',').filter(|x| !x.is_empty()).map(|x| format!("{}{}", sign, x)).collect();
                fields.push((k.into(), v.join(",")));
            }
            _ => fields.push((k.into(), v.into())),
        }
    }
    let has = |k: &str| fields.iter().any(|(f, _)| f == k);
    if action == "update" && name.is_empty() {
        return Err(fail("Reservation must be given.  No reservation update.".into()));
    }
    if action == "create" {
        if !has("StartTime") {
            return Err(no_resv("A start time must be given"));
        }
        if !has("EndTime") && !has("Duration") {
            return Err(no_resv("An end time or duration must be given"));
        }
        if !(has("Nodes") || has("NodeCnt") || has("CoreCnt") || has("TRES")) {
            return Err(no_resv(if spur_core::compat::profile().reservation_22_05_texts {
                "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified"
            } else {
                "CoreCnt, Nodes, NodeCnt, TRES or Watts must be specified"
            }));
        }
        if !(has("Users") || has("Accounts") || has("Groups")) {
            return Err(no_resv("Either Users/Groups and/or Accounts must be specified"));
        }
        if has("Users") && has("Groups") {
            return Err(no_resv(
                "Users and Groups are mutually exclusive.  You can have one or the other, but not both",
            ));
        }
    }
    let mut spec = spec_of(name, &fields, now());
    spec.skip = skip;
    let req = if action == "create" { ReservationRequest::Create(spec) } else { ReservationRequest::Update(spec) };
    Ok(ScontrolCmd::Reservation { arg: String::new(), req })
}

/// slurm_atoul: the leading decimal digits (after blanks and a sign), 0 if none.
fn atoul(v: &str) -> u32 {
    let t = v.trim_start().trim_start_matches('+');
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse::<u64>().map(|n| n.min(u32::MAX as u64) as u32).unwrap_or(0)
}

/// A `TRES=` item 22.05's scontrol identifies (`cpu=`, `node=`, licenses,
/// burst buffers and GRES).
fn tres_known(item: &str) -> bool {
    let name = item.split_once('=').map_or(item, |(n, _)| n).to_ascii_lowercase();
    matches!(name.as_str(), "cpu" | "node")
        || ["license/", "bb/", "gres/"].iter().any(|p| name.starts_with(p) && name.len() > p.len())
}

/// A reservation flag scontrol knows (any case, a leading `-` to clear it,
/// `PURGE_COMP=time` with its value).
fn known_flag(f: &str) -> bool {
    const FLAGS: &[&str] = &[
        "ANY_NODES",
        "DAILY",
        "FLEX",
        "HOURLY",
        "IGNORE_JOBS",
        "LICENSE_ONLY",
        "MAGNETIC",
        "MAINT",
        "NO_HOLD_JOBS_AFTER",
        "NO_USER_DELETE",
        "OVERLAP",
        "PART_NODES",
        "PURGE_COMP",
        "REPLACE",
        "REPLACE_DOWN",
        "SPEC_NODES",
        "STATIC_ALLOC",
        "TIME_FLOAT",
        "USER_DELETE",
        "WEEKDAY",
        "WEEKEND",
        "WEEKLY",
    ];
    let f = f.trim().trim_start_matches(['-', '+']);
    let word = f.split_once('=').map_or(f, |(w, _)| w);
    !word.is_empty() && FLAGS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// `a,b` (the new list) or `+a,-b` (names to add and remove).
fn name_list(v: &str) -> NameList {
    let items: Vec<&str> = v.split(',').map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    if !v.starts_with(['+', '-']) {
        return NameList { set: Some(items.into_iter().map(String::from).collect()), ..Default::default() };
    }
    let mut l = NameList::default();
    for it in items {
        // (by prefix, not by byte: a name may start with any character)
        if let Some(name) = it.strip_prefix('-') {
            l.remove.push(name.to_string());
        } else if let Some(name) = it.strip_prefix('+') {
            l.add.push(name.to_string());
        } else {
            l.add.push(it.to_string());
        }
    }
    l
}

/// The typed request for the fields scontrol accepted (checked by `parse`;
/// a later value of a key wins). Times are resolved against `now` here, as
/// scontrol's parse_time does.
fn spec_of(name: String, fields: &[(String, String)], now: i64) -> ReservationSpec {
    let mut s = ReservationSpec { name, ..Default::default() };
    for (k, v) in fields {
        let v = v.as_str();
        match k.as_str() {
            "StartTime" => s.start_time = spur_grammar::time::parse_time(v, now, true).ok(),
            "EndTime" => s.end_time = spur_grammar::time::parse_time(v, now, true).ok(),
            "Duration" => s.duration = spur_grammar::time::parse_time_limit(v).ok().map(|m| m.unwrap_or(INFINITE)),
            "Users" => s.users = Some(name_list(v)),
            "Accounts" => s.accounts = Some(name_list(v)),
            "Groups" => s.groups = Some(name_list(v)),
            "Flags" => {
                s.flags = Some(v.split(',').map(|f| f.trim()).filter(|f| !f.is_empty()).map(String::from).collect())
            }
            "Nodes" => s.nodes = Some(v.to_string()),
            "NodeCnt" => s.node_count = v.trim().parse().ok(),
            "PartitionName" => s.partition = Some(v.to_string()),
            "Features" => s.features = Some(v.to_string()),
            "MaxStartDelay" => {
                s.max_start_delay = spur_grammar::time::parse_time_limit(v).ok().map(|m| m.unwrap_or(INFINITE))
            }
            "TRES" => s.tres = Some(v.to_string()),
            "TRESPerNode" => s.tres_per_node = true,
            "CoreCnt" => s.core_count = v.parse().ok(),
            // accepted by scontrol, not acted on by Spur
            _ => {}
        }
    }
    s
}

/// Send a create/update/delete to the controller and print Slurm's answer.
pub async fn execute(c: &spur_client::Client, arg: &str, req: &ReservationRequest) -> Output {
    let (action, name) = match req {
        ReservationRequest::Create(s) => ("create", s.name.as_str()),
        ReservationRequest::Update(s) => ("update", s.name.as_str()),
        ReservationRequest::Delete { name } => ("delete", name.as_str()),
    };
    let res = c.reservation(req).await;
    match (action, res) {
        ("create", Ok(given)) => {
            let given = Some(given).filter(|m| !m.is_empty());
            Output::ok(format!("Reservation created: {}\n", given.as_deref().unwrap_or(name)))
        }
        ("create", Err(e)) => {
            let mut o = Output::err(format!("Error creating the reservation: {}\n", e), 1);
            // nodes chosen by the controller from one partition
            let named = matches!(req, ReservationRequest::Create(s) if s.nodes.is_some());
            let note = matches!(
                e.code(),
                spur_core::errors::ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE | spur_core::errors::ESLURM_NODES_BUSY
            );
            if note && (!named || spur_core::compat::profile().reservation_22_05_texts) {
                o.stdout = "Note, unless nodes are directly requested a reservation must exist in a single partition.\nIf no partition is requested the default partition is assumed.\n".into();
            }
            o
        }
        ("update", Ok(_)) => Output::ok("Reservation updated.\n"),
        ("update", Err(e))
            if e.code() == spur_core::errors::ESLURM_CORE_RESERVATION_UPDATE
                && !spur_core::compat::profile().reservation_22_05_texts =>
        {
            // slurmctld's message for it, then the error
            Output::err(
                format!(
                    "scontrol: error: Updating core/node TRES not supported for core-based reservations\nslurm_update error: {}\n",
                    e
                ),
                1,
            )
        }
        ("update", Err(e)) => {
            if spur_core::compat::profile().reservation_22_05_texts {
                Output::err(format!("Error updating the reservation: {}\nslurm_update error: {}\n", e, e), 1)
            } else {
                Output::err(format!("slurm_update error: {}\n", e), 1)
            }
        }
        (_, Ok(_)) => Output::ok(""),
        (_, Err(e)) => Output::err(format!("delete_reservation {}: {}\n", arg, e), 1),
    }
}

/// One reservation as `scontrol show reservation` prints it.
fn record(r: &Reservation, view: &ClusterView, one_liner: bool) -> String {
    let now = view.now;
    let mut lines = vec![
        format!(
            "ReservationName={} StartTime={} EndTime={} Duration={}",
            r.name,
            spur_cli_base::format::time_str(r.start_time),
            spur_cli_base::format::time_str(r.end_time),
            fmt_secs_scontrol(r.end_time - r.start_time)
        ),
        format!(
            "Nodes={} NodeCnt={} CoreCnt={} Features={} PartitionName={} Flags={}",
            or_null(&resv_nodes(r)),
            r.nodes.len(),
            r.cores,
            r.features.as_deref().unwrap_or("(null)"),
            r.partition.as_deref().unwrap_or("(null)"),
            r.flags.join(",")
        ),
        format!("TRES=cpu={}", r.cores),
        format!(
            "Users={} Groups={} Accounts={} Licenses=(null) State={} BurstBuffer=(null){}",
            or_null(&r.users.join(",")),
            or_null(&r.groups.join(",")),
            or_null(&r.accounts.join(",")),
            resv_state(r, now),
            if spur_core::compat::profile().reservation_22_05_texts { " Watts=n/a" } else { "" }
        ),
        match r.max_start_delay {
            Some(d) => format!("MaxStartDelay={}", fmt_secs_scontrol(d)),
            None => "MaxStartDelay=(null)".to_string(),
        },
    ];
    if r.core_based && !spur_core::compat::profile().reservation_22_05_texts {
        // the cores of each node (whole nodes in Spur)
        for (i, name) in r.nodes.iter().enumerate() {
            // (a view without nodes: the cores shared evenly)
            let even = r.cores / (r.nodes.len() as u32).max(1);
            let cpus = view.nodes.iter().find(|n| &n.name == name).map_or(even, |n| n.cpus).max(1);
            let ids = if cpus == 1 { "0".to_string() } else { format!("0-{}", cpus - 1) };
            lines.insert(2 + i, format!("  NodeName={} CoreIDs={}", name, ids));
        }
    }
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
        None => Output::ok(view.reservations.iter().map(|r| record(r, view, one_liner)).collect::<String>()),
        Some(name) => match view.reservations.iter().find(|r| r.name == name) {
            Some(r) => Output::ok(record(r, view, one_liner)),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// A word whose third byte is inside a character (found by fuzz/:
    /// `St\u{8d8b}...` panicked slicing it).
    #[test]
    fn words_that_are_not_ascii() {
        for w in ["St\u{8d8b}now", "\u{e9}\u{e9}", "r\u{e9}s"] {
            let e = parse("create", &args(&["reservation", "ReservationName=b", w, "Nodes=node1"])).err().unwrap();
            assert!(e.stderr.contains("Misformatted parameter"), "{}", e.stderr);
            let kv = format!("{w}=1");
            let e = parse("update", &args(&["ReservationName=b", &kv])).err().unwrap();
            assert!(e.stderr.contains("Unknown parameter"), "{}", e.stderr);
        }
    }

    #[test]
    fn create_checks_as_scontrol() {
        let e =
            parse("create", &args(&["reservation", "ReservationName=b", "Duration=bogus", "Users=root", "Nodes=n1"]))
                .err()
                .unwrap();
        assert_eq!(e.stderr, "scontrol: error: Invalid duration Duration=bogus.  No reservation created.\n");
        let e = parse(
            "create",
            &args(&[
                "reservation",
                "ReservationName=b",
                "StartTime=now",
                "Duration=5",
                "Users=root",
                "Nodes=n1",
                "Flags=BOGUS",
            ]),
        )
        .err()
        .unwrap();
        assert_eq!(e.stderr, "scontrol: error: Error parsing flags BOGUS.  No reservation created.\n");
        assert!(known_flag("maint") && known_flag("-DAILY") && known_flag("PURGE_COMP=5"));
        assert!(!known_flag("") && !known_flag("bogus"));
        let e = parse("create", &args(&["res", "ReservationName=b", "StartTime=now", "Duration=60", "Users=root"]))
            .err()
            .unwrap();
        assert!(e.stderr.contains("must be specified"));
        let e = parse("create", &args(&["res", "ReservationName=b", "StartTime=now", "Duration=60", "Nodes=n1"]))
            .err()
            .unwrap();
        assert!(e.stderr.contains("Either Users/Groups"));
        assert!(parse("create", &args(&["res", "garbage"])).is_err());
        let e = parse("create", &args(&["res", "ReservationName=b", "Duration=60", "Nodes=n1", "Users=root"]))
            .err()
            .unwrap();
        assert_eq!(e.stderr, "scontrol: error: A start time must be given.  No reservation created.\n");
        let e = parse("update", &args(&["ReservationName=b", "Bogus=1"])).err().unwrap();
        assert_eq!(e.stderr, "scontrol: error: Unknown parameter Bogus=1.  No reservation update.\n");
        match parse("update", &args(&["ReservationName=b", "Users+=a,b"])).unwrap() {
            ScontrolCmd::Reservation { req: ReservationRequest::Update(s), .. } => {
                assert_eq!(s.name, "b");
                assert_eq!(s.users, Some(NameList { set: None, add: vec!["a".into(), "b".into()], remove: vec![] }));
                // a name after the first that starts with a multi-byte character (found by
                // the fuzzer: it panicked cutting the character's first byte)
                assert_eq!(name_list("+root,\u{FFFD}x").add, vec!["root".to_string(), "\u{FFFD}x".to_string()]);
            }
            other => panic!("{:?}", other),
        }
        match parse(
            "create",
            &args(&[
                "res",
                "StartTime=now",
                "Duration=UNLIMITED",
                "Users=root,x",
                "NodeCnt=2",
                "Flags=maint,ignore_jobs",
            ]),
        )
        .unwrap()
        {
            ScontrolCmd::Reservation { req: ReservationRequest::Create(s), .. } => {
                assert_eq!(s.name, "");
                assert!(s.start_time.is_some());
                assert_eq!((s.duration, s.node_count), (Some(INFINITE), Some(2)));
                assert_eq!(s.users.and_then(|u| u.set), Some(vec!["root".to_string(), "x".to_string()]));
                assert_eq!(s.flags, Some(vec!["maint".to_string(), "ignore_jobs".to_string()]));
            }
            other => panic!("{:?}", other),
        }
        // MaxStartDelay, CoreCnt, TRES, TRESPerNode, Skip, Features (24.11)
        let e = parse("update", &args(&["ReservationName=b", "MaxStartDelay=bogus"])).err().unwrap();
        assert_eq!(e.stderr, "scontrol: error: Invalid duration MaxStartDelay=bogus.  No reservation update.\n");
        let e = parse("create", &args(&["res", "StartTime=now", "Duration=5", "Users=root", "CoreCnt=bogus"]))
            .err()
            .unwrap();
        assert!(e.stderr.contains("must be specified"), "{}", e.stderr);
        let e =
            parse("create", &args(&["res", "StartTime=now", "Duration=5", "Users=root", "CoreCnt=1,1"])).err().unwrap();
        assert!(e.stderr.contains("comma separated array for CoreCnt"), "{}", e.stderr);
        let e =
            parse("create", &args(&["res", "StartTime=now", "Duration=5", "Users=root", "TRES+=cpu=2"])).err().unwrap();
        assert_eq!(
            e.stderr,
            "scontrol: error: Parameter TRES+=cpu=2 specified a plus or minus.  This is not allowed.\n"
        );
        match parse(
            "create",
            &args(&[
                "res",
                "StartTime=now",
                "Duration=5",
                "Users=root",
                "NodeCnt=1",
                "TRESPerNode=cpu=1",
                "Features=f",
            ]),
        )
        .unwrap()
        {
            ScontrolCmd::Reservation { req: ReservationRequest::Create(s), .. } => {
                assert_eq!((s.tres.as_deref(), s.features.as_deref()), (Some("cpu=1"), Some("f")));
            }
            other => panic!("{:?}", other),
        }
        match parse("update", &args(&["ReservationName=s1", "Skip", "MaxStartDelay=1:00:00"])).unwrap() {
            ScontrolCmd::Reservation { req: ReservationRequest::Update(s), .. } => {
                assert_eq!((s.skip, s.max_start_delay), (true, Some(60)));
            }
            other => panic!("{:?}", other),
        }
        assert!(parse("delete", &args(&[])).is_err());
        match parse("delete", &args(&["reservation", "x"])).unwrap() {
            ScontrolCmd::Reservation { req: ReservationRequest::Delete { name }, arg } => {
                assert_eq!((name.as_str(), arg.as_str()), ("x", "reservation"))
            }
            other => panic!("{:?}", other),
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
            ..Default::default()
        };
        let with = Reservation {
            name: "r2".into(),
            users: vec![],
            groups: vec!["g".into()],
            accounts: vec!["a".into(), "b".into()],
            features: Some("f1".into()),
            max_start_delay: Some(600),
            ..r.clone()
        };
        let v = ClusterView { now: 10, reservations: vec![with], ..Default::default() };
        let o = show(&v, None, true, false).stdout;
        assert!(o.contains(" CoreCnt=4 Features=f1 PartitionName=(null)"), "{}", o);
        assert!(o.contains(" Users=(null) Groups=g Accounts=a,b Licenses="), "{}", o);
        assert!(o.ends_with(" MaxStartDelay=00:10:00\n"), "{}", o);
        let v = ClusterView { now: 10, reservations: vec![r], ..Default::default() };
        let o = show(&v, None, false, false).stdout;
        assert!(o.contains(" Duration=01:00:00\n   Nodes=node[1-2] NodeCnt=2 CoreCnt=4"));
        assert!(o.ends_with("MaxStartDelay=(null)\n\n"));
        assert_eq!(show(&v, Some("x"), false, false).code, 1);
    }
}
