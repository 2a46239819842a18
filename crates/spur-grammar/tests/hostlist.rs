//! Hostlists against scontrol 24.11 (tests/data/hostlist.txt).
mod common;
use spur_grammar::hostlist::{compress, expand, reformat, reformat_sorted, Hostlist, HostlistError};

fn err(e: HostlistError) -> String {
    // scontrol logs the range error, then says the list is invalid
    let log = Some(&e.detail)
        .filter(|d| d.starts_with("_parse_single_range"))
        .map(|d| format!("scontrol: error: {} / ", d))
        .unwrap_or_default();
    format!("err {}Invalid hostlist: {}", log, e.expr)
}

#[test]
fn table_from_slurm() {
    common::check("hostlist.txt", |op, input| {
        let r = match op {
            "hostnames" => expand(input).map(|h| h.join(" ")),
            "hostlist" => reformat(input),
            "hostlistsorted" => reformat_sorted(input),
            _ => panic!("unknown op {op}"),
        };
        match r {
            Ok(s) => format!("ok {}", s).trim_end().to_string(),
            Err(e) => err(e),
        }
    });
}

#[test]
fn garbage_never_panics_and_round_trips() {
    let seeds = common::inputs("hostlist.txt");
    for s in common::garbage(29, &seeds, "n0123456789[]-,x \tabc\u{e9}", 20_000) {
        if let Ok(mut hl) = Hostlist::parse(&s) {
            // (the round trip is for reasonable lists; expansion is bounded anyway)
            if hl.count() > 2_000 {
                continue;
            }
            let hosts = hl.hosts();
            // (a name holding a bracket, taken literally, has no printed form
            // that reads back: Slurm's printer is the same)
            if hosts.iter().any(|h| h.contains(['[', ']'])) {
                continue;
            }
            // the printer's output reads back as the same hosts
            assert_eq!(expand(&hl.ranged_string()).unwrap(), hosts, "{s:?}");
            assert_eq!(expand(&compress(&hosts)).unwrap(), hosts, "{s:?}");
            // shifting takes the hosts off in order; appending two halves
            // gives the list of the whole
            let mut shifted = hl.clone();
            let mut taken = Vec::new();
            while let Some(h) = shifted.shift() {
                taken.push(h);
                assert_eq!(shifted.count(), (hosts.len() - taken.len()) as u64, "{s:?}");
            }
            assert_eq!(taken, hosts, "{s:?}");
            assert!(shifted.is_empty(), "{s:?}");
            let one_by_one = |names: &[String]| {
                let mut l = Hostlist::new();
                names.iter().for_each(|h| l.push_host(h));
                l
            };
            let (left, right) = hosts.split_at(hosts.len() / 2);
            let mut joined = one_by_one(left);
            joined.append(one_by_one(right));
            assert_eq!(joined, one_by_one(&hosts), "{s:?}");
            hl.sort();
            let sorted = hl.hosts();
            assert_eq!(expand(&hl.ranged_string()).unwrap(), sorted, "{s:?}");
            hl.uniq();
        }
        let _ = spur_grammar::hostlist::expand_22_05(&s);
    }
}

#[test]
fn shift_and_append() {
    let mut hl = Hostlist::parse("n[1-2],login,n[03-04]").unwrap();
    hl.append(Hostlist::parse("n[05-06],m7").unwrap());
    // n[03-04] and n[05-06] are contiguous: one range, as Slurm joins them
    assert_eq!(hl.ranged_string(), "n[1-2],login,n[03-06],m7");
    let mut taken = Vec::new();
    while let Some(h) = hl.shift() {
        taken.push(h);
    }
    assert_eq!(taken, ["n1", "n2", "login", "n03", "n04", "n05", "n06", "m7"]);
    assert_eq!((hl.count(), hl.ranged_string()), (0, String::new()));
    let mut one = Hostlist::new();
    one.push_host("n9");
    assert_eq!(one.shift().as_deref(), Some("n9"));
    assert_eq!(one.shift(), None);
}
