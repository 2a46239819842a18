//! The one format engine shared by squeue, sinfo, sacct and scontrol.
//!
//! Two grammars, as Slurm's commands accept them:
//!
//! * `-o`/`--format`: `PREFIX%[.][WIDTH]LETTER[SUFFIX]%...`. Text before the
//!   first `%` is printed as is; the string is then split on `%` (empty
//!   pieces are skipped, as `strtok` does, so `%%` prints nothing); in every
//!   piece a leading `.` means right-justify, the digits are the width, the
//!   next character is the field letter and the rest is literal suffix.
//! * `-O`/`--Format`: comma separated `Name[:[.]WIDTH[SUFFIX]]`; names match
//!   case-insensitively; a name without `:` gets width 20, left-justified.
//!
//! Cells are padded the way Slurm's `_print_str` does it with `printf`:
//! right-justified fields use `%Ns` (never truncated unless the field asks to
//! be cut), left-justified ones use `%.Ns` (always truncated to N bytes) and
//! both are padded with spaces to N; width 0 prints the value as is. A
//! missing (NULL) value prints as glibc does: `(null)`, or nothing when a
//! precision below 6 applies.

/// One element of a parsed format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemKind<K> {
    /// Literal text before the first `%` (held in `suffix`).
    Prefix,
    /// A known field.
    Field(K),
    /// An unknown field: only its `suffix` is printed (for `-o` this is
    /// `%` followed by the whole piece, as Slurm keeps it).
    Invalid,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item<K> {
    pub kind: ItemKind<K>,
    pub width: i32,
    pub right: bool,
    pub suffix: String,
}

/// A field table entry: `-O` name (None when only a letter exists), `-o`
/// letter (None when only a name exists), the command's own key.
pub struct FieldDef<K: 'static> {
    pub name: Option<&'static str>,
    pub letter: Option<char>,
    pub key: K,
}

/// Result of parsing: the items and the unknown field names/letters in order
/// (the command prints its own error wording for them).
pub struct Parsed<K> {
    pub items: Vec<Item<K>>,
    pub invalid: Vec<String>,
}

/// Split a `-o` format into its prefix and the `%` pieces.
fn short_pieces(format: &str) -> (Option<String>, Vec<&str>) {
    let prefix = match format.find('%') {
        None => Some(format.to_string()),
        Some(0) => None,
        Some(p) => Some(format[..p].to_string()),
    };
    let mut pieces: Vec<&str> = format.split('%').filter(|p| !p.is_empty()).collect();
    if !format.starts_with('%') && !pieces.is_empty() {
        pieces.remove(0); // the prefix
    }
    (prefix, pieces)
}

/// Parse one `%` piece: (right, width, letter, suffix).
pub fn parse_short_token(tok: &str) -> (bool, i32, Option<char>, String) {
    let b = tok.as_bytes();
    let mut i = 0;
    let right = if b.first() == Some(&b'.') {
        i += 1;
        true
    } else {
        false
    };
    let mut width: i64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        width = (width * 10 + (b[i] - b'0') as i64).min(i32::MAX as i64);
        i += 1;
    }
    let rest = &tok[i..];
    let mut chars = rest.chars();
    let letter = chars.next();
    let suffix = chars.as_str().to_string();
    (right, width as i32, letter, suffix)
}

/// Parse a `-o` format against a table (`%all` expands to every letter,
/// separated by `|`, unknown ones silently dropped, as Slurm does).
pub fn parse_short<K: Clone>(format: &str, table: &[FieldDef<K>]) -> Parsed<K> {
    let mut items = Vec::new();
    let mut invalid = Vec::new();
    if format.eq_ignore_ascii_case("%all") {
        let mut letters: Vec<char> = ('a'..='z').collect();
        letters.extend('A'..='Z');
        let n = letters.len();
        for (i, c) in letters.into_iter().enumerate() {
            if let Some(d) = table.iter().find(|d| d.letter == Some(c)) {
                items.push(Item {
                    kind: ItemKind::Field(d.key.clone()),
                    width: 0,
                    right: false,
                    suffix: if i + 1 < n { "|".into() } else { String::new() },
                });
            }
        }
        return Parsed { items, invalid };
    }
    let (prefix, pieces) = short_pieces(format);
    if let Some(p) = prefix {
        items.push(Item { kind: ItemKind::Prefix, width: 0, right: false, suffix: p });
    }
    for tok in pieces {
        let (right, width, letter, suffix) = parse_short_token(tok);
        match letter.and_then(|c| table.iter().find(|d| d.letter == Some(c))) {
            Some(d) => items.push(Item { kind: ItemKind::Field(d.key.clone()), width, right, suffix }),
            None => {
                items.push(Item { kind: ItemKind::Invalid, width, right, suffix: format!("%{}", tok) });
                invalid.push(letter.map(|c| c.to_string()).unwrap_or_default());
            }
        }
    }
    Parsed { items, invalid }
}

/// Parse one `-O` token: (name, right, width, suffix).
pub fn parse_long_token(tok: &str) -> (String, bool, i32, String) {
    match tok.find(':') {
        None => (tok.to_string(), false, 20, String::new()),
        Some(p) => {
            let name = tok[..p].to_string();
            let mut rest = &tok[p + 1..];
            let right = if rest.starts_with('.') {
                rest = &rest[1..];
                true
            } else {
                false
            };
            // squeue's `_parse_long_token`: `(int) strtol(...)`, the rest is a suffix
            let c = spur_grammar::num::strtol(rest, 10);
            (name, right, c.value as i32, c.rest(rest).to_string())
        }
    }
}

/// Parse a `-O` format against a table.
pub fn parse_long<K: Clone>(format: &str, table: &[FieldDef<K>]) -> Parsed<K> {
    let mut items = Vec::new();
    let mut invalid = Vec::new();
    for tok in format.split(',').filter(|t| !t.is_empty()) {
        let (name, right, width, suffix) = parse_long_token(tok);
        match table.iter().find(|d| d.name.map(|n| n.eq_ignore_ascii_case(&name)).unwrap_or(false)) {
            Some(d) => items.push(Item { kind: ItemKind::Field(d.key.clone()), width, right, suffix }),
            None => {
                items.push(Item { kind: ItemKind::Invalid, width, right, suffix });
                invalid.push(name);
            }
        }
    }
    Parsed { items, invalid }
}

/// Truncate to at most `n` bytes on a character boundary.
fn truncate_bytes(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Slurm's `_print_str(str, width, right, cut_output)` as a string.
pub fn pad(value: Option<&str>, width: i32, right: bool, cut: bool) -> String {
    let mut out = String::new();
    if width < 0 {
        // squeue's "%s " for a negative width.
        out.push_str(value.unwrap_or("(null)"));
        out.push(' ');
        return out;
    }
    let w = width as usize;
    if w == 0 {
        out.push_str(value.unwrap_or("(null)"));
        return out;
    }
    if right {
        let s = value.unwrap_or("(null)");
        let mut formatted = String::new();
        for _ in s.len()..w {
            formatted.push(' ');
        }
        formatted.push_str(s);
        if cut {
            out.push_str(truncate_bytes(&formatted, w));
        } else {
            out.push_str(&formatted);
        }
    } else {
        let s = match value {
            Some(s) => s,
            None if w >= 6 => "(null)",
            None => "",
        };
        out.push_str(truncate_bytes(s, w));
    }
    while out.len() < w {
        out.push(' ');
    }
    out
}

/// What a field renders to: its text (None = NULL) and whether Slurm cuts
/// right-justified output at the width for it.
pub struct Cell {
    pub text: Option<String>,
    pub cut: bool,
}

impl Cell {
    pub fn s(t: impl Into<String>) -> Cell {
        Cell { text: Some(t.into()), cut: true }
    }
    pub fn null() -> Cell {
        Cell { text: None, cut: true }
    }
    pub fn opt(t: Option<&str>) -> Cell {
        Cell { text: t.map(|x| x.to_string()), cut: true }
    }
    /// A cell that is never cut when right-justified (node lists).
    pub fn uncut(t: impl Into<String>) -> Cell {
        Cell { text: Some(t.into()), cut: false }
    }
}

/// Render one line (header when `cell` is given the header flag) of a
/// parsed format: every field padded, followed by its suffix; a newline at
/// the end.
pub fn render_line<K>(items: &[Item<K>], mut cell: impl FnMut(&K) -> Cell) -> String {
    let mut out = String::new();
    for it in items {
        match &it.kind {
            ItemKind::Prefix | ItemKind::Invalid => out.push_str(&it.suffix),
            ItemKind::Field(k) => {
                let c = cell(k);
                out.push_str(&pad(c.text.as_deref(), it.width, it.right, c.cut));
                out.push_str(&it.suffix);
            }
        }
    }
    out.push('\n');
    out
}

/// squeue's `_print_secs`: `INVALID` when negative or above a year.
pub fn secs_squeue(t: i64) -> String {
    if !(0..=365 * 24 * 3600).contains(&t) {
        return "INVALID".into();
    }
    spur_grammar::time::fmt_secs_squeue(t)
}

/// `slurm_make_time_str`: `YYYY-MM-DDTHH:MM:SS` local time, or, when
/// `SLURM_TIME_FORMAT` is a strftime format (it has a `%` and fewer than 32
/// bytes), the C library's strftime of it into Slurm's 32-byte buffer (a
/// result that does not fit is 31 `#`: recorded/24.11/query_surface/088).
/// `standard`, unset or empty is the ISO form; `relative` is not
/// implemented yet and gives the ISO form too, as an invalid value does
/// (Slurm also logs `invalid SLURM_TIME_FORMAT`). The one input besides
/// the time is that variable, read as Slurm reads it, at each call.
pub fn time_str(t: i64) -> String {
    let iso = spur_grammar::time::fmt_timestamp(t);
    let Ok(fmt) = std::env::var("SLURM_TIME_FORMAT") else { return iso };
    if fmt.is_empty() || fmt == "standard" || fmt == "relative" || !fmt.contains('%') || fmt.len() >= 32 {
        return iso;
    }
    if t == 0 || t == spur_grammar::time::INFINITE_TIME || t == spur_grammar::time::NO_VAL_TIME {
        return iso; // Unknown, None
    }
    strftime_local(t, &fmt).unwrap_or(iso)
}

/// strftime(3) of `fmt` for the local time of `t` into a 32-byte buffer.
fn strftime_local(t: i64, fmt: &str) -> Option<String> {
    let cfmt = std::ffi::CString::new(fmt).ok()?;
    let time: nix::libc::time_t = t;
    // SAFETY: tm is plain old data; localtime_r writes it whole or fails
    // (null), and both pointers are to live locals.
    let mut tm: nix::libc::tm = unsafe { std::mem::zeroed() };
    if unsafe { nix::libc::localtime_r(&time, &mut tm) }.is_null() {
        return None;
    }
    let mut buf = [0u8; 32];
    // SAFETY: strftime writes at most buf.len() bytes (NUL included) into
    // buf, reads the NUL-terminated cfmt and the initialised tm.
    let n = unsafe { nix::libc::strftime(buf.as_mut_ptr().cast(), buf.len(), cfmt.as_ptr(), &tm) };
    if n == 0 {
        return Some("#".repeat(31));
    }
    Some(String::from_utf8_lossy(&buf[..n]).into_owned())
}

/// Slurm's `convert_num_unit` with `CONVERT_NUM_UNIT_EXACT`: divide by
/// 1024 while the value is a multiple of 512 (2.5G counts as exact), then
/// append the unit letter (0 = none, 1 = K, 2 = M, 3 = G ...). Zero is `0`.
pub fn convert_num_unit(value: f64, start_unit: usize) -> String {
    const UNITS: [&str; 7] = ["", "K", "M", "G", "T", "P", "?"];
    let mut v = value;
    let mut u = start_unit;
    if v as i64 == 0 {
        return "0".into();
    }
    while v >= 1024.0 && (v as u64).is_multiple_of(512) {
        v /= 1024.0;
        u += 1;
    }
    let unit = UNITS[u.min(6)];
    if (v as u64) as f64 == v {
        format!("{}{}", v as u64, unit)
    } else {
        format!("{:.2}{}", v, unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    enum F {
        Id,
        Name,
    }
    fn table() -> Vec<FieldDef<F>> {
        vec![
            FieldDef { name: Some("JobId"), letter: Some('i'), key: F::Id },
            FieldDef { name: Some("Name"), letter: Some('j'), key: F::Name },
        ]
    }

    fn line(fmt: &str, long: bool) -> String {
        let t = table();
        let p = if long { parse_long(fmt, &t) } else { parse_short(fmt, &t) };
        render_line(&p.items, |k| match k {
            F::Id => Cell::s("12345"),
            F::Name => Cell::s("a-long-job-name"),
        })
    }

    #[test]
    fn short_format_widths() {
        assert_eq!(line("%.8i %.4j|", false), "   12345 a-lo|\n");
        assert_eq!(line("%3i %6j", false), "123 a-long\n");
        assert_eq!(line("%.3i", false), "123\n");
        assert_eq!(line("x%i%%y", false), "x12345%y\n"); // strtok skips the empty piece; y is unknown here
        assert_eq!(line("lit", false), "lit\n");
        assert_eq!(line("%i %Q", false), "12345 %Q\n");
    }

    #[test]
    fn long_format_widths() {
        assert_eq!(line("JobId,Name", true), format!("{:<20}{:<20}\n", "12345", "a-long-job-name"));
        assert_eq!(line("jobid:.8 ,name:4|", true), "   12345 a-lo|\n");
        assert_eq!(line("jobid:0", true), "12345\n");
        let p = parse_long("JobId,Bogus:5", &table());
        assert_eq!(p.invalid, vec!["Bogus".to_string()]);
    }

    #[test]
    fn pad_null_like_glibc() {
        assert_eq!(pad(None, 4, false, true), "    ");
        assert_eq!(pad(None, 8, false, true), "(null)  ");
        assert_eq!(pad(None, 0, false, true), "(null)");
        assert_eq!(pad(Some("abcdef"), 3, true, false), "abcdef");
        assert_eq!(pad(Some("abcdef"), 3, true, true), "abc");
    }

    #[test]
    fn units() {
        assert_eq!(convert_num_unit(500.0, 2), "500M");
        assert_eq!(convert_num_unit(2048.0, 2), "2G");
        assert_eq!(convert_num_unit(0.0, 2), "0");
        assert_eq!(convert_num_unit(2560.0, 2), "2.50G");
        assert_eq!(convert_num_unit(2000.0, 2), "2000M");
    }
}
