//! Shared by the grammar tests: the case-file reader and a small PRNG for
//! the garbage tests.
//!
//! A case file (`tests/data/*.txt`) has one case per line:
//! `OP "INPUT" => EXPECTED`. `#` starts a comment line. `OP` is one or more
//! words saying what is asked (e.g. `strtol 10`, `sbatch`); `INPUT` is a
//! quoted string with the escapes `\\ \" \t \n \r \xNN \u{N}`; `EXPECTED` is
//! the rest of the line after `=>`, compared with the test's rendering of
//! the result.

pub struct Case {
    pub line: usize,
    pub op: String,
    pub input: String,
    pub expected: String,
}

fn unescape(s: &str, line: usize) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('x') => {
                let h: String = it.by_ref().take(2).collect();
                out.push(u8::from_str_radix(&h, 16).unwrap_or_else(|_| panic!("line {line}: bad \\x")) as char);
            }
            Some('u') => {
                assert_eq!(it.next(), Some('{'), "line {line}: bad \\u");
                let h: String = it.by_ref().take_while(|c| *c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&h, 16).unwrap()).unwrap());
            }
            o => panic!("line {line}: bad escape {o:?}"),
        }
    }
    out
}

/// Read `tests/data/NAME`.
pub fn cases(name: &str) -> Vec<Case> {
    let path = format!("{}/tests/data/{}", env!("CARGO_MANIFEST_DIR"), name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() || raw.starts_with('#') {
            continue;
        }
        let q = raw.find('"').unwrap_or_else(|| panic!("{name}:{line}: no quoted input"));
        // the closing quote: the first unescaped '"'
        let b = raw.as_bytes();
        let mut j = q + 1;
        while j < b.len() && b[j] != b'"' {
            if b[j] == b'\\' {
                j += 1;
            }
            j += 1;
        }
        assert!(j < b.len(), "{name}:{line}: unterminated input");
        let rest = raw[j + 1..].trim_start();
        let expected = rest.strip_prefix("=>").unwrap_or_else(|| panic!("{name}:{line}: no =>")).trim().to_string();
        out.push(Case { line, op: raw[..q].trim().to_string(), input: unescape(&raw[q + 1..j], line), expected });
    }
    assert!(!out.is_empty(), "{name}: no cases");
    out
}

/// Check every case with `f(op, input) -> rendering`; report all failures at once.
pub fn check(name: &str, f: impl Fn(&str, &str) -> String) {
    let cases = cases(name);
    let mut bad = Vec::new();
    for c in &cases {
        let got = f(&c.op, &c.input);
        if got != c.expected {
            bad.push(format!(
                "{}:{}: {} {:?}\n    expected {}\n    got      {}",
                name, c.line, c.op, c.input, c.expected, got
            ));
        }
    }
    assert!(bad.is_empty(), "{} of {} cases differ:\n{}", bad.len(), cases.len(), bad.join("\n"));
}

/// xorshift64*: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// A random string of up to `max` characters from `alphabet`.
    pub fn string(&mut self, alphabet: &[char], max: usize) -> String {
        let n = self.below(max + 1);
        (0..n).map(|_| alphabet[self.below(alphabet.len())]).collect()
    }
    /// `s` with a few random edits: insert, delete, replace, duplicate a slice.
    pub fn mutate(&mut self, s: &str, alphabet: &[char]) -> String {
        let mut v: Vec<char> = s.chars().collect();
        for _ in 0..1 + self.below(4) {
            let at = self.below(v.len() + 1);
            match self.below(4) {
                0 => v.insert(at, alphabet[self.below(alphabet.len())]),
                1 if at < v.len() => {
                    v.remove(at);
                }
                2 if at < v.len() => v[at] = alphabet[self.below(alphabet.len())],
                _ => {
                    let end = (at + self.below(6)).min(v.len());
                    let piece: Vec<char> = v[at..end].to_vec();
                    for (k, c) in piece.into_iter().enumerate() {
                        v.insert(end + k, c);
                    }
                }
            }
        }
        v.into_iter().collect()
    }
}

/// Random and mutated inputs: `n` of each, mutations made from `seeds`
/// (typically every input of the case file).
pub fn garbage(seed: u64, seeds: &[String], alphabet: &str, n: usize) -> Vec<String> {
    let alphabet: Vec<char> = alphabet.chars().collect();
    let mut r = Rng::new(seed);
    let mut out = Vec::with_capacity(2 * n);
    for _ in 0..n {
        out.push(r.string(&alphabet, 24));
    }
    for i in 0..n {
        let base = if seeds.is_empty() { String::new() } else { seeds[i % seeds.len()].clone() };
        out.push(r.mutate(&base, &alphabet));
    }
    out
}

/// Every input of a case file, as seeds for [`garbage`].
pub fn inputs(name: &str) -> Vec<String> {
    cases(name).into_iter().map(|c| c.input).collect()
}
