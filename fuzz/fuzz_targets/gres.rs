//! GRES (`spur_grammar::gres`): a node's `Gres=` and a job's request; an item
//! printed reads back as itself.
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::gres::*;

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    let types = ["gpu".to_string(), "mps".to_string()];
    for t in [None, Some(&types[..])] {
        if let Ok(r) = parse_request(&s, t) {
            assert!(r.items.iter().all(|g| g.count != 0 && !g.name.is_empty()), "{s:?}");
        }
    }
    if let Ok(list) = parse_gres_list(&s) {
        // (a GRES named `gres` prints as the TRES form `gres:N`, read back
        // as a GRES named N: Slurm's reader strips that prefix too)
        for g in list.into_iter().filter(|g| g.name != "gres") {
            let printed = g.to_string();
            assert_eq!(GresSpec::parse(&printed), Ok(g), "{s:?} printed as {printed:?}");
        }
    }
    let _ = parse_count(&s);
});
