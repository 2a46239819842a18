//! C numbers (`spur_grammar::num`: glibc's strtol, strtoul, atoi).
#![no_main]
use libfuzzer_sys::fuzz_target;
use spur_grammar::num::{atoi, atol, strtol, strtoul};

fuzz_target!(|data: &[u8]| {
    let s = spur_fuzz::text(data);
    for base in [0, 2, 8, 10, 16, 36, 1, 37, 99] {
        let a = strtol(&s, base);
        let b = strtoul(&s, base);
        assert!(a.end <= s.len() && b.end <= s.len());
        assert!(s.is_char_boundary(a.end) && s.is_char_boundary(b.end));
        let _ = (a.rest(&s), b.rest(&s));
    }
    let _ = (atoi(&s), atol(&s));
    // a number Rust prints reads back as itself
    if let Ok(n) = s.parse::<i64>() {
        if n.to_string() == s {
            let c = strtol(&s, 10);
            assert_eq!((c.value, c.end, c.overflow), (n, s.len(), false), "{s:?}");
        }
    }
});
