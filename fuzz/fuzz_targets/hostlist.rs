//! Hostlists (`spur_grammar::hostlist`): parsing stays within its bounds, and
//! what is printed reads back as the same hosts.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::hostlist::{compress, compress_sorted, compress_unique, expand, expand_22_05, Hostlist};

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    // a bounded read never holds more than its bound
    for max in [0, 1, 7, 1000] {
        if let Ok(h) = Hostlist::parse_bounded(&s, max) {
            assert!(h.count() <= max, "{s:?}: {} > {max}", h.count());
        }
    }
    let Ok(mut hl) = Hostlist::parse(&s) else { return };
    assert!(hl.count() <= spur_grammar::hostlist::MAX_HOSTS);
    // (only the lists small enough to expand cheaply; a name holding a
    // bracket, taken literally, or a C blank (\r, \v, \f: Slurm's strnatcmp
    // skips them, so `n\f1` and `n1` share a prefix) has no printed form
    // that reads back: Slurm's printer is the same)
    if hl.count() > 2_000 {
        // (not the millions of one-host ranges a suffix after an inner
        // bracket makes, `a[90-2020]b[90-2020]c`, as Slurm's do: printing
        // them is linear, but takes seconds under the sanitizer)
        if hl.count() <= 200_000 {
            let _ = hl.ranged_string();
        }
        return;
    }
    let hosts = hl.hosts();
    assert_eq!(hosts.len() as u64, hl.count());
    let _ = expand_22_05(&s);
    let _ = (compress_sorted(&hosts), compress_unique(&hosts));
    if hosts.iter().any(|h| h.contains(['[', ']', '\r', '\x0b', '\x0c'])) {
        return;
    }
    assert_eq!(expand(&hl.ranged_string()).unwrap(), hosts, "{s:?}");
    assert_eq!(expand(&compress(&hosts)).unwrap(), hosts, "{s:?}");
    let mut shifted = hl.clone();
    let mut taken = Vec::new();
    while let Some(h) = shifted.shift() {
        taken.push(h);
    }
    assert_eq!(taken, hosts, "{s:?}");
    hl.sort();
    let sorted = hl.hosts();
    assert_eq!(expand(&hl.ranged_string()).unwrap(), sorted, "{s:?}");
    // uniq keeps every name and is done after once (a name may stay twice
    // when written two ways, `n11` and `n1[1]`: Slurm's hostlist_uniq too)
    hl.uniq();
    let once = hl.hosts();
    let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    assert_eq!(set(&once), set(&hosts), "{s:?}");
    hl.uniq();
    assert_eq!(hl.hosts(), once, "{s:?}");
});
