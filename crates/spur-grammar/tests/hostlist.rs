//! Hostlists against scontrol 24.11 (tests/data/hostlist.txt).
mod common;
use spur_grammar::hostlist::{
    compress, expand, reformat, reformat_sorted, Hostlist, HostlistError,
};

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
            hl.sort();
            let sorted = hl.hosts();
            assert_eq!(expand(&hl.ranged_string()).unwrap(), sorted, "{s:?}");
            hl.uniq();
        }
        let _ = spur_grammar::hostlist::expand_22_05(&s);
    }
}
