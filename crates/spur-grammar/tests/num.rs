//! C number conversions against glibc (tests/data/num.txt).
mod common;
use spur_grammar::num::{atoi, strtol, strtoul};

fn conv<T: std::fmt::Display>(value: T, end: usize, overflow: bool) -> String {
    format!("{} end={}{}", value, end, if overflow { " ERANGE" } else { "" })
}

#[test]
fn table_from_glibc() {
    common::check("num.txt", |op, input| {
        let mut w = op.split_whitespace();
        let (f, base) = (w.next().unwrap(), w.next().unwrap().parse::<u32>().unwrap());
        let bad_base = base == 1 || base > 36;
        let r = match f {
            "strtol" => {
                let c = strtol(input, base);
                conv(c.value, c.end, c.overflow)
            }
            "strtoul" => {
                let c = strtoul(input, base);
                conv(c.value, c.end, c.overflow)
            }
            "atoi" => return atoi(input).to_string(),
            _ => panic!("unknown op {f}"),
        };
        if bad_base {
            format!("{} EINVAL", r)
        } else {
            r
        }
    });
}

#[test]
fn garbage_never_panics() {
    let seeds = common::inputs("num.txt");
    for s in common::garbage(7, &seeds, " \t\n+-0123456789xXabcfgzZ\u{e9}\u{a0}", 20_000) {
        for base in [0, 2, 8, 10, 16, 36, 1, 99] {
            let a = strtol(&s, base);
            let b = strtoul(&s, base);
            assert!(a.end <= s.len() && b.end <= s.len() && s.is_char_boundary(a.end));
            let _ = (a.rest(&s), atoi(&s));
        }
    }
}
