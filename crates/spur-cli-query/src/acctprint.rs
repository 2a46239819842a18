//! What sacct and sstat share: Slurm's `print_fields` engine (src/common/
//! print_fields.c) and the usage numbers of a step as both commands show
//! them (sacct's and sstat's print.c).
//!
//! # The field list (`-o`/`--format`)
//!
//! Comma separated names, each matched case-insensitively as a PREFIX of a
//! field name, the first in the table's order winning (`jobid` is `JobID`,
//! not `JobIDRaw`); `NAME%N` sets the width: `N` positive right-justifies,
//! negative left-justifies. The width belongs to the field, not to the
//! occurrence: Slurm's table entry is changed, so every column of that
//! field takes the last width given. sacct also takes any prefix of `ALL`
//! (`a`, `al`, an empty name before `%`) for every field; an empty name
//! (`a,,b`) ends the list there, as Slurm's parser stops at it.
//!
//! # Printing
//!
//! Each cell is followed by one space. Strings longer than the width are
//! cut to it with a `+` in the last place; numbers and times are never cut;
//! a date is written into a buffer of the width (31 `#`-like fills when the
//! date does not fit: strftime's failure); an unset number or time is
//! blank. `-p` ends every cell with the delimiter (`|` by default), `-P`
//! every cell but the last; neither pads nor cuts, and the header has no
//! dashes line.

use spur_core::usage::NodeUsage;

/// How a field's value is printed (Slurm's print routines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Str,
    /// uint32 (`NO_VAL`/`INFINITE`: blank).
    Uint,
    /// uint16 (`NO_VAL16`: blank).
    Uint16,
    Uint64,
    Date,
    /// Seconds as `[D-]HH:MM:SS`.
    Secs,
}

/// One entry of a command's field table.
pub struct Field<K: 'static> {
    pub name: &'static str,
    pub len: i32,
    pub kind: Kind,
    pub key: K,
}

impl<K> Field<K> {
    pub const fn new(len: i32, name: &'static str, kind: Kind, key: K) -> Field<K> {
        Field { name, len, kind, key }
    }
}

/// A cell's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A string; `None` is Slurm's NULL (a blank cell).
    Str(Option<String>),
    /// A number; `None` is unset (blank).
    Num(Option<u64>),
    /// A date (0: `Unknown`).
    Date(i64),
    /// Seconds; `None` is unset.
    Secs(Option<u64>),
    /// A double (`print_fields_double`); `None` is unset.
    Double(Option<f64>),
}

impl Val {
    pub fn s(t: impl Into<String>) -> Val {
        Val::Str(Some(t.into()))
    }
    pub fn null() -> Val {
        Val::Str(None)
    }
    pub fn opt(t: &str) -> Val {
        if t.is_empty() {
            Val::Str(None)
        } else {
            Val::s(t)
        }
    }
    pub fn n(v: u64) -> Val {
        Val::Num(Some(v))
    }
}

/// `-p` and `-P`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Parsable {
    #[default]
    No,
    /// `-p`: a delimiter after every cell.
    Ending,
    /// `-P`: none after the last.
    NoEnding,
}

/// How rows are printed: the columns (indexes into the table), the width of
/// each table entry, the parsable mode and delimiter, and the header.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub cols: Vec<usize>,
    pub widths: Vec<i32>,
    pub parsable: Parsable,
    pub delimiter: Option<String>,
    pub header: bool,
}

/// A field list Slurm refuses: the name as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadField(pub String);

/// Parse a field list (already ending with `,`, as the commands build it)
/// against `table`. `all`: a prefix of `ALL` selects every field (sacct);
/// `zero_width`: `NAME%0` sets a width of 0 (sacct; sstat ignores 0).
pub fn parse_fields<K>(list: &str, table: &[Field<K>], all: bool, zero_width: bool) -> Result<Layout, BadField> {
    let mut l = Layout { widths: table.iter().map(|f| f.len).collect(), header: true, ..Default::default() };
    let mut rest = list;
    while let Some(p) = rest.find(',') {
        let tok = rest[..p].trim_start_matches(|c: char| c.is_ascii_whitespace());
        rest = &rest[p + 1..];
        if tok.is_empty() {
            break;
        }
        let (name, width) = match tok.find('%') {
            Some(q) => (&tok[..q], Some(spur_grammar::num::atoi(&tok[q + 1..]) as i32)),
            None => (tok, None),
        };
        let width = width.filter(|w| zero_width || *w != 0);
        let n = name.len();
        if all && n <= 3 && "ALL"[..n].eq_ignore_ascii_case(name) {
            for i in 0..table.len() {
                if let Some(w) = width {
                    l.widths[i] = w;
                }
                l.cols.push(i);
            }
            continue;
        }
        match table
            .iter()
            .position(|f| f.name.len() >= n && f.name.as_bytes()[..n].eq_ignore_ascii_case(name.as_bytes()))
        {
            Some(i) => {
                if let Some(w) = width {
                    l.widths[i] = w;
                }
                l.cols.push(i);
            }
            None => return Err(BadField(name.to_string())),
        }
    }
    Ok(l)
}

/// Cut `s` to at most `n` bytes on a character boundary.
fn cut(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut e = n;
    while e > 0 && !s.is_char_boundary(e) {
        e -= 1;
    }
    &s[..e]
}

/// `--helpformat` of sacct and sstat: the names four to a line, each in 19
/// columns, one space between.
pub fn help_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, n) in names.enumerate() {
        if i & 3 != 0 {
            out.push(' ');
        } else if i != 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:<19}", n));
    }
    out.push('\n');
    out
}

/// `printf("%*.*s ", len, abs, s)`.
/// Widths beyond this are taken as this (Slurm would print gigabytes of
/// spaces for `%2000000000`).
pub const MAX_WIDTH: usize = 65535;

fn padded(s: &str, len: i32, precision: bool) -> String {
    let abs = (len.unsigned_abs() as usize).min(MAX_WIDTH);
    let s = if precision { cut(s, abs) } else { s };
    let fill = " ".repeat(abs.saturating_sub(s.len()));
    if len >= 0 {
        format!("{}{} ", fill, s)
    } else {
        format!("{}{} ", s, fill)
    }
}

impl Layout {
    fn delim(&self) -> &str {
        self.delimiter.as_deref().unwrap_or("|")
    }

    /// A parsable cell: the text and, unless it is the last with `-P`,
    /// the delimiter.
    fn parsable_cell(&self, text: &str, last: bool) -> String {
        if self.parsable == Parsable::NoEnding && last {
            text.to_string()
        } else {
            format!("{}{}", text, self.delim())
        }
    }

    /// The header lines (none with `-n`).
    pub fn header_text<K>(&self, table: &[Field<K>]) -> String {
        if !self.header || self.cols.is_empty() && self.parsable != Parsable::No {
            return if self.header { "\n".into() } else { String::new() };
        }
        let mut out = String::new();
        let n = self.cols.len();
        for (k, &i) in self.cols.iter().enumerate() {
            let name = table[i].name;
            if self.parsable != Parsable::No {
                out.push_str(&self.parsable_cell(name, k + 1 == n));
            } else {
                out.push_str(&padded(name, self.widths[i], true));
            }
        }
        out.push('\n');
        if self.parsable != Parsable::No {
            return out;
        }
        for &i in &self.cols {
            out.push_str(&"-".repeat((self.widths[i].unsigned_abs() as usize).min(MAX_WIDTH)));
            out.push(' ');
        }
        out.push('\n');
        out
    }

    /// One row: the value of each column from `value`.
    pub fn row<K>(&self, table: &[Field<K>], mut value: impl FnMut(&K) -> Val) -> String {
        let mut out = String::new();
        let n = self.cols.len();
        for (k, &i) in self.cols.iter().enumerate() {
            let f = &table[i];
            let last = k + 1 == n;
            let len = self.widths[i];
            let abs = (len.unsigned_abs() as usize).min(MAX_WIDTH);
            let v = value(&f.key);
            let text: Option<String> = match (&v, f.kind) {
                (Val::Str(s), _) => s.clone(),
                (Val::Num(Some(x)), Kind::Uint | Kind::Uint64 | Kind::Uint16) => Some(x.to_string()),
                (Val::Num(Some(x)), _) => Some(x.to_string()),
                (Val::Num(None), _) | (Val::Secs(None), _) => None,
                (Val::Secs(Some(x)), _) => Some(spur_grammar::time::fmt_secs_scontrol(*x as i64)),
                (Val::Date(t), _) => Some(date_text(*t, if self.parsable != Parsable::No { 256 } else { abs + 1 })),
                (Val::Double(d), _) => d.map(c_fixed),
            };
            if self.parsable != Parsable::No {
                out.push_str(&self.parsable_cell(text.as_deref().unwrap_or(""), last));
                continue;
            }
            match (&v, text) {
                (Val::Str(_), None) => out.push_str(&padded(" ", len, true)),
                (Val::Str(_), Some(s)) => {
                    if s.len() > abs {
                        let mut c = cut(&s, abs.saturating_sub(1)).to_string();
                        if abs > 0 {
                            c.push('+');
                        }
                        out.push_str(&padded(&c, len, true));
                    } else {
                        out.push_str(&padded(&s, len, true));
                    }
                }
                (Val::Date(_), Some(s)) => out.push_str(&padded(&s, len, true)),
                (Val::Double(Some(d)), Some(s)) if s.len() > abs => {
                    // too wide: `%*.*e` with the width as the precision,
                    // narrowed by what the exponent form overflows
                    let mut width = abs;
                    let e = format!("{:>w$}", c_exp(*d, width), w = width);
                    if e.len() > width {
                        width = width.saturating_sub(e.len() - width);
                    }
                    let text = c_exp(*d, width);
                    let fill = " ".repeat(width.saturating_sub(text.len()));
                    if len >= 0 {
                        out.push_str(&format!("{}{} ", fill, text));
                    } else {
                        out.push_str(&format!("{}{} ", text, fill));
                    }
                }
                (_, None) => out.push_str(&padded(" ", len.checked_abs().unwrap_or(i32::MAX), false)),
                (_, Some(s)) => out.push_str(&padded(&s, len, false)),
            }
        }
        out.push('\n');
        out
    }
}

/// C's `%f`: six decimals; `inf`, `-inf`, `nan` as C prints them.
pub fn c_fixed(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{:.6}", v)
    }
}

/// C's `%.Ne`: mantissa, `e`, a sign and at least two exponent digits.
pub fn c_exp(v: f64, precision: usize) -> String {
    if !v.is_finite() {
        return c_fixed(v);
    }
    let r = format!("{:.*e}", precision.min(64), v);
    match r.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{}e{}{:0>2}", m, sign, digits)
        }
        None => r,
    }
}

/// `slurm_make_time_str` into a buffer of `size` bytes: the text cut to
/// `size - 1`, or `#` fills when a date does not fit.
pub fn date_text(t: i64, size: usize) -> String {
    let full = match std::env::var("SLURM_TIME_FORMAT") {
        Ok(f) if f == "relative" => relative_date(t, now_secs()),
        _ => spur_cli_base::format::time_str(t),
    };
    let keep = size.saturating_sub(1);
    if full.len() <= keep {
        return full;
    }
    if t == 0 || t == spur_grammar::time::INFINITE_TIME || t == spur_grammar::time::NO_VAL_TIME {
        return cut(&full, keep).to_string(); // snprintf cuts
    }
    "#".repeat(keep)
}

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// `SLURM_TIME_FORMAT=relative` (`_relative_date_fmt`): `HH:MM:SS` today,
/// `Ystday HH:MM`, `Tomorr HH:MM`, `Wed HH:MM` within the week ahead,
/// `2 Dec HH:MM` within a year, `2 Dec 2026` beyond (recorded/24.11/sacct/165).
pub fn relative_date(t: i64, now: i64) -> String {
    if t == 0 || t == spur_grammar::time::INFINITE_TIME || t == spur_grammar::time::NO_VAL_TIME {
        return spur_grammar::time::fmt_timestamp(t);
    }
    let (Some(a), Some(b)) = (spur_grammar::time::localtime(t), spur_grammar::time::localtime(now)) else {
        return spur_grammar::time::fmt_timestamp(t);
    };
    let yday = |tm: &spur_grammar::time::LocalTm| {
        const CUM: [i32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
        let y = tm.year + 1900;
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        CUM[tm.mon.clamp(0, 11) as usize] + tm.mday - 1 + i32::from(leap && tm.mon > 1)
    };
    let distance = (1000 * (a.year + 1900) + yday(&a)) - (1000 * (b.year + 1900) + yday(&b));
    // `Www Mmm dd hh:mm:ss yyyy`
    let c = crate::squeue::ctime_line(t);
    if c.len() < 21 || !c.is_ascii() {
        return spur_grammar::time::fmt_timestamp(t);
    }
    let (wday, mon, day, hms, year) = (&c[0..3], &c[4..7], c[8..10].trim_start_matches('0'), &c[11..19], &c[20..]);
    let hm = &hms[..5];
    match distance {
        -1 => format!("Ystday {}", hm),
        0 => hms.to_string(),
        1 => format!("Tomorr {}", hm),
        d if !(-365..=365).contains(&d) => format!("{} {} {}", day, mon, year),
        d if !(-1..=6).contains(&d) => format!("{} {} {}", day, mon, hm),
        _ => format!("{} {}", wday, hm),
    }
}

/// sacct's `_elapsed_time`: `[D-]HH:MM:SS` from an hour up, `MM:SS.mmm`
/// with milliseconds below, else `00:MM:SS`.
pub fn elapsed_time(secs: u64, usecs: u64) -> String {
    let secs = secs.saturating_add(usecs / 1_000_000);
    let usecs = usecs % 1_000_000;
    let sub = usecs / 1000;
    let (d, h, m, s) = (secs / 86400, (secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    if d > 0 {
        format!("{}-{:02}:{:02}:{:02}", d, h, m, s)
    } else if h > 0 {
        format!("{:02}:{:02}:{:02}", h, m, s)
    } else if sub > 0 {
        format!("{:02}:{:02}.{:03}", m, s, sub)
    } else {
        format!("00:{:02}:{:02}", m, s)
    }
}

/// Unit scales (`UNIT_NONE` .. `UNIT_PETA`).
pub const UNIT_NONE: u32 = 0;
pub const UNIT_KILO: u32 = 1;
pub const UNIT_MEGA: u32 = 2;

/// How numbers with units are converted (`--noconvert`, `--units`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Units {
    /// `--units`: the unit every value is shown in.
    pub spec: Option<u32>,
    /// `--noconvert`.
    pub no_convert: bool,
}

/// Slurm's `convert_num_unit2` (exact conversion unless `--noconvert`).
pub fn convert(num: f64, orig: u32, u: Units, divisor: f64, exact: bool) -> String {
    const UNIT: [&str; 7] = ["", "K", "M", "G", "T", "P", "?"];
    if !num.is_finite() || num as i64 == 0 {
        return "0".into();
    }
    let mut num = num;
    let mut t = orig as i64;
    if let Some(spec) = u.spec {
        let spec = spec as i64;
        while spec < t {
            num *= divisor;
            t -= 1;
        }
        while spec > t {
            num /= divisor;
            t += 1;
        }
    } else if u.no_convert {
    } else if exact {
        let half = (divisor as u64 / 2).max(1);
        while num >= divisor && (num as u64).is_multiple_of(half) {
            num /= divisor;
            t += 1;
        }
    } else {
        while num >= divisor {
            num /= divisor;
            t += 1;
        }
    }
    let unit = UNIT[if (0..=5).contains(&t) { t as usize } else { 6 }];
    let i = num as u64;
    if i as f64 == num {
        format!("{}{}", i, unit)
    } else {
        format!("{:.2}{}", num, unit)
    }
}

/// `convert_num_unit` (divisor 1024, exact).
pub fn units(num: f64, orig: u32, u: Units) -> String {
    convert(num, orig, u, 1024.0, true)
}

/// `_print_small_double` (the disk fields): sacct's in MB (`UNIT_MEGA`),
/// sstat's in bytes (`UNIT_NONE`).
pub fn small_double(v: f64, unit: u32, u: Units) -> String {
    if v > 1.0 {
        units(v, unit, u)
    } else if v > 0.0 {
        format!("{:.2}M", v)
    } else {
        "0".into()
    }
}

/// A step's use over its nodes, as slurmstepd's `jobacctinfo` aggregates
/// it: maxima with their node and task, the tasks' sums and count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub ntasks: u64,
    pub user_us: u64,
    pub sys_us: u64,
    /// (bytes or count, node, task) of the largest.
    pub max_rss: (u64, String, u32),
    pub tot_rss: u64,
    pub max_vm: (u64, String, u32),
    pub tot_vm: u64,
    pub max_pages: (u64, String, u32),
    pub tot_pages: u64,
    pub max_read: (u64, String, u32),
    pub tot_read: u64,
    pub max_write: (u64, String, u32),
    pub tot_write: u64,
    /// Microseconds of the task with the least CPU time.
    pub min_cpu: (u64, String, u32),
    /// The tasks' CPU frequencies summed (`NodeUsage::tot_cpu_freq`).
    pub tot_cpu_freq: u64,
}

impl Stats {
    /// `None` when no node reported.
    pub fn of(usage: &[NodeUsage]) -> Option<Stats> {
        if usage.is_empty() {
            return None;
        }
        let mut s = Stats::default();
        let kb = |v: u64| v.saturating_mul(1024);
        let mut first = true;
        for u in usage {
            s.ntasks += u.ntasks as u64;
            s.user_us = s.user_us.saturating_add(u.user_us);
            s.sys_us = s.sys_us.saturating_add(u.sys_us);
            let most = |m: &mut (u64, String, u32), v: u64, t: u32| {
                if first || v > m.0 {
                    *m = (v, u.node.clone(), t);
                }
            };
            most(&mut s.max_rss, kb(u.max_rss_kb), u.max_rss_task);
            most(&mut s.max_vm, kb(u.max_vmsize_kb), u.max_vmsize_task);
            most(&mut s.max_pages, u.max_pages, u.max_pages_task);
            most(&mut s.max_read, u.max_read_bytes, u.max_read_task);
            most(&mut s.max_write, u.max_write_bytes, u.max_write_task);
            if first || u.min_cpu_us < s.min_cpu.0 {
                s.min_cpu = (u.min_cpu_us, u.node.clone(), u.min_cpu_task);
            }
            s.tot_rss = s.tot_rss.saturating_add(kb(u.tot_rss_kb));
            s.tot_vm = s.tot_vm.saturating_add(kb(u.tot_vmsize_kb));
            s.tot_pages = s.tot_pages.saturating_add(u.tot_pages);
            s.tot_read = s.tot_read.saturating_add(u.tot_read_bytes);
            s.tot_write = s.tot_write.saturating_add(u.tot_write_bytes);
            s.tot_cpu_freq = s.tot_cpu_freq.saturating_add(u.tot_cpu_freq);
            first = false;
        }
        Some(s)
    }

    pub fn ave(&self, tot: u64) -> u64 {
        tot.checked_div(self.ntasks).unwrap_or(0)
    }
    /// Milliseconds (Slurm's TRES CPU usage unit).
    fn cpu_ms(&self) -> u64 {
        self.user_us.saturating_add(self.sys_us) / 1000
    }
}

/// The usage fields sacct and sstat share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UF {
    AveCpu,
    AveCpuFreq,
    AveDiskRead,
    AveDiskWrite,
    AvePages,
    AveRss,
    AveVmSize,
    ConsumedEnergy,
    ConsumedEnergyRaw,
    MaxDiskRead,
    MaxDiskReadNode,
    MaxDiskReadTask,
    MaxDiskWrite,
    MaxDiskWriteNode,
    MaxDiskWriteTask,
    MaxPages,
    MaxPagesNode,
    MaxPagesTask,
    MaxRss,
    MaxRssNode,
    MaxRssTask,
    MaxVmSize,
    MaxVmSizeNode,
    MaxVmSizeTask,
    MinCpu,
    MinCpuNode,
    MinCpuTask,
    ReqCpuFreqMin,
    ReqCpuFreqMax,
    ReqCpuFreqGov,
    TresUsageInAve,
    TresUsageInMax,
    TresUsageInMaxNode,
    TresUsageInMaxTask,
    TresUsageInMin,
    TresUsageInMinNode,
    TresUsageInMinTask,
    TresUsageInTot,
    TresUsageOutAve,
    TresUsageOutMax,
    TresUsageOutMaxNode,
    TresUsageOutMaxTask,
    TresUsageOutMin,
    TresUsageOutMinNode,
    TresUsageOutMinTask,
    TresUsageOutTot,
}

/// A TRES usage string (`cpu=00:00:01,fs/disk=1234,mem=10M`): the names
/// sorted, as `slurmdb_make_tres_string_from_simple` sorts them.
fn tres_list(mut v: Vec<(&str, String)>) -> Val {
    v.sort_by(|a, b| a.0.cmp(b.0));
    Val::s(v.into_iter().map(|(k, x)| format!("{}={}", k, x)).collect::<Vec<_>>().join(","))
}

/// A usage field of a step (`stats`: None when nothing was gathered, as
/// for a job's own row: blank, `0` for the counts Slurm zeroes).
pub fn usage_value(f: UF, stats: Option<&Stats>, u: Units) -> Val {
    use UF::*;
    // the request's frequencies: never set by Spur's steps (NO_VAL)
    if matches!(f, ReqCpuFreqMin | ReqCpuFreqMax | ReqCpuFreqGov) {
        return Val::s("Unknown");
    }
    let Some(s) = stats else {
        return match f {
            MaxDiskRead | MaxDiskWrite | AveDiskRead | AveDiskWrite => Val::s(""),
            MaxRss | MaxVmSize | MaxPages | AveRss | AveVmSize | AvePages | AveCpuFreq => Val::s(""),
            MaxDiskReadTask | MaxDiskWriteTask | MaxPagesTask | MaxRssTask | MaxVmSizeTask | MinCpuTask => {
                Val::Num(None)
            }
            // a job's row: the energy of its TRES, 0 when not counted
            ConsumedEnergy => Val::s("0"),
            ConsumedEnergyRaw => Val::n(0),
            _ => Val::null(),
        };
    };
    let bytes = |v: u64| units(v as f64, UNIT_NONE, u);
    let mb = |v: u64| small_double(v as f64 / (1u64 << 20) as f64, UNIT_MEGA, u);
    let secs = |ms: u64| Val::s(elapsed_time(ms / 1000, 0));
    let tres_secs = |ms: u64| spur_grammar::time::fmt_secs_scontrol((ms / 1000) as i64);
    // TRESUsageIn*: CPU (ms), bytes read, resident, pages, virtual
    let in_list = |cpu: u64, read: u64, rss: u64, pages: u64, vm: u64| {
        tres_list(vec![
            ("cpu", tres_secs(cpu)),
            ("energy", "0".into()),
            ("fs/disk", bytes(read)),
            ("mem", bytes(rss)),
            ("pages", bytes(pages)),
            ("vmem", bytes(vm)),
        ])
    };
    match f {
        AveCpu => secs(s.ave(s.cpu_ms())),
        // slurmstepd's act_cpufreq, printed from kilo by thousands
        AveCpuFreq => Val::s(convert(s.ave(s.tot_cpu_freq) as f64, UNIT_KILO, u, 1000.0, false)),
        AveDiskRead => Val::s(mb(s.ave(s.tot_read))),
        AveDiskWrite => Val::s(mb(s.ave(s.tot_write))),
        AvePages => Val::s(bytes(s.ave(s.tot_pages))),
        AveRss => Val::s(bytes(s.ave(s.tot_rss))),
        AveVmSize => Val::s(bytes(s.ave(s.tot_vm))),
        ConsumedEnergy => Val::s("0"),
        ConsumedEnergyRaw => Val::n(0),
        MaxDiskRead => Val::s(mb(s.max_read.0)),
        MaxDiskReadNode => Val::s(s.max_read.1.clone()),
        MaxDiskReadTask => Val::n(s.max_read.2 as u64),
        MaxDiskWrite => Val::s(mb(s.max_write.0)),
        MaxDiskWriteNode => Val::s(s.max_write.1.clone()),
        MaxDiskWriteTask => Val::n(s.max_write.2 as u64),
        MaxPages => Val::s(bytes(s.max_pages.0)),
        MaxPagesNode => Val::s(s.max_pages.1.clone()),
        MaxPagesTask => Val::n(s.max_pages.2 as u64),
        MaxRss => Val::s(bytes(s.max_rss.0)),
        MaxRssNode => Val::s(s.max_rss.1.clone()),
        MaxRssTask => Val::n(s.max_rss.2 as u64),
        MaxVmSize => Val::s(bytes(s.max_vm.0)),
        MaxVmSizeNode => Val::s(s.max_vm.1.clone()),
        MaxVmSizeTask => Val::n(s.max_vm.2 as u64),
        MinCpu => secs(s.min_cpu.0 / 1000),
        MinCpuNode => Val::s(s.min_cpu.1.clone()),
        MinCpuTask => Val::n(s.min_cpu.2 as u64),
        ReqCpuFreqMin | ReqCpuFreqMax | ReqCpuFreqGov => Val::s("Unknown"),
        TresUsageInAve => {
            in_list(s.ave(s.cpu_ms()), s.ave(s.tot_read), s.ave(s.tot_rss), s.ave(s.tot_pages), s.ave(s.tot_vm))
        }
        TresUsageInMax => in_list(s.max_cpu_ms(), s.max_read.0, s.max_rss.0, s.max_pages.0, s.max_vm.0),
        TresUsageInMin => in_list(s.min_cpu.0 / 1000, s.max_read.0, s.max_rss.0, s.max_pages.0, s.max_vm.0),
        TresUsageInTot => in_list(s.cpu_ms(), s.tot_read, s.tot_rss, s.tot_pages, s.tot_vm),
        // the node and task of each maximum (and of the least CPU time)
        TresUsageInMaxNode | TresUsageInMinNode => tres_list(vec![
            ("cpu", s.min_cpu.1.clone()),
            ("energy", s.max_rss.1.clone()),
            ("fs/disk", s.max_read.1.clone()),
            ("mem", s.max_rss.1.clone()),
            ("pages", s.max_pages.1.clone()),
            ("vmem", s.max_vm.1.clone()),
        ]),
        TresUsageInMaxTask | TresUsageInMinTask => in_tasks(s, false),
        TresUsageOutAve => tres_list(vec![("energy", "0".into()), ("fs/disk", bytes(s.ave(s.tot_write)))]),
        TresUsageOutMax | TresUsageOutMin => tres_list(vec![("energy", "0".into()), ("fs/disk", bytes(s.max_write.0))]),
        TresUsageOutMaxNode | TresUsageOutMinNode => {
            tres_list(vec![("energy", s.max_write.1.clone()), ("fs/disk", s.max_write.1.clone())])
        }
        TresUsageOutMaxTask | TresUsageOutMinTask => tres_list(vec![("fs/disk", s.max_write.2.to_string())]),
        TresUsageOutTot => tres_list(vec![("energy", "0".into()), ("fs/disk", bytes(s.tot_write))]),
    }
}

/// TRESUsageIn{Max,Min}Task: the task of each maximum (and of the least CPU
/// time). `cpu_as_time`: sstat prints the cpu entry's task as a time, as
/// its TRES writer prints cpu values (task 0 is `cpu=00:00:00`,
/// recorded/{24.11,22.05}/sstat/05); sacct prints the number
/// (recorded/{24.11,22.05}/sacct/050).
pub fn in_tasks(s: &Stats, cpu_as_time: bool) -> Val {
    let cpu = if cpu_as_time {
        spur_grammar::time::fmt_secs_scontrol(i64::from(s.min_cpu.2) / 1000)
    } else {
        s.min_cpu.2.to_string()
    };
    tres_list(vec![
        ("cpu", cpu),
        ("fs/disk", s.max_read.2.to_string()),
        ("mem", s.max_rss.2.to_string()),
        ("pages", s.max_pages.2.to_string()),
        ("vmem", s.max_vm.2.to_string()),
    ])
}

impl Stats {
    /// Milliseconds of CPU of the busiest task: Spur's steps report the
    /// least per node and the sums; with one task per node the sum is
    /// the task's own.
    fn max_cpu_ms(&self) -> u64 {
        self.cpu_ms().checked_div(self.ntasks.max(1)).unwrap_or(0).max(self.min_cpu.0 / 1000)
    }
}

/// Slurm's `SLURM_PENDING_STEP` (a step not yet numbered: `TBD`).
const PENDING_STEP: u32 = 0xffff_fffd;

/// A step's id as sacct and sstat print it after the job's (`batch`,
/// `extern`, `interactive`, `TBD` or the number).
pub fn step_name(step_id: u32) -> String {
    match step_id {
        spur_core::model::BATCH_STEP => "batch".into(),
        spur_core::model::EXTERN_STEP => "extern".into(),
        spur_core::model::INTERACTIVE_STEP => "interactive".into(),
        PENDING_STEP => "TBD".into(),
        n => n.to_string(),
    }
}

/// Steps Slurm numbers above `SLURM_MAX_NORMAL_STEP_ID` (batch, extern,
/// interactive).
pub fn is_special(step_id: u32) -> bool {
    step_id > 0xFFFF_FFF0
}

/// One `-j` element as `slurm_parse_step_str` reads it: the job, the
/// array task, the step (None: all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selected {
    pub job_id: u32,
    pub task: Option<u32>,
    pub step: Option<u32>,
}

/// Parse a `-j` list (`slurm_addto_step_list`): `Err` is the fatal text
/// (`Bad job/step specified: X`, ...). Duplicates are dropped.
pub fn parse_selected(list: &str) -> Result<Vec<Selected>, String> {
    let mut out: Vec<Selected> = Vec::new();
    for name in list.split(',').filter(|t| !t.is_empty()) {
        let name = name.trim_matches('"').trim_matches('\'');
        if !name.as_bytes().first().is_some_and(|b| b.is_ascii_digit()) {
            return Err(format!("Bad job/step specified: {}", name));
        }
        let (job, step) = match name.split_once('.') {
            Some((j, s)) => {
                let id = match s {
                    "batch" => spur_core::model::BATCH_STEP,
                    "extern" => spur_core::model::EXTERN_STEP,
                    "interactive" => spur_core::model::INTERACTIVE_STEP,
                    "TBD" => PENDING_STEP,
                    _ if s.as_bytes().first().is_some_and(|b| b.is_ascii_digit()) => spur_grammar::num::atoi(s) as u32,
                    _ => return Err(format!("Bad step specified: {}", j)),
                };
                (j, Some(id))
            }
            None => (name, None),
        };
        let (job, task) = match job.split_once('_') {
            Some((j, t)) => {
                if !t.as_bytes().first().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(format!("Bad job array element specified: {}", j));
                }
                (j, Some(spur_grammar::num::atoi(t) as u32))
            }
            None => match job.split_once('+') {
                Some((j, off)) if step.is_none() => {
                    if !off.as_bytes().first().is_some_and(|b| b.is_ascii_digit()) {
                        return Err(format!("Bad hetjob offset specified: {}", j));
                    }
                    (j, None)
                }
                _ => (job, None),
            },
        };
        let sel = Selected { job_id: spur_grammar::num::atoi(job) as u32, task, step };
        if !out.contains(&sel) {
            out.push(sel);
        }
    }
    Ok(out)
}

/// `slurm_step_layout_type_name` of a step's distribution as Spur keeps it.
pub fn layout_name(dist: &str) -> String {
    let base = dist.split(',').next().unwrap_or("");
    let mut parts = base.split(':');
    let first = parts.next().unwrap_or("");
    let second = parts.next();
    let name = match (first, second) {
        ("block", None | Some("*")) => "Block",
        ("cyclic", None | Some("*")) => "Cyclic",
        ("plane", _) => "Plane",
        ("arbitrary", _) => "arbitrary task distribution",
        ("block", Some("block")) => "BBlock",
        ("block", Some("cyclic")) => "BCyclic",
        ("block", Some("fcyclic")) => "BFCyclic",
        ("cyclic", Some("block")) => "CBlock",
        ("cyclic", Some("cyclic")) => "CCyclic",
        ("cyclic", Some("fcyclic")) => "CFCyclic",
        _ if base.starts_with("plane") => "Plane",
        _ => "Unknown",
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    /// Slurm's step numbers above the normal ones, named as Slurm names them,
    /// both ways (salloc's `interactive` step is 0xfffffffa).
    #[test]
    fn special_step_names() {
        for (id, name) in
            [(0xffff_fffb, "batch"), (0xffff_fffc, "extern"), (0xffff_fffa, "interactive"), (0xffff_fffd, "TBD")]
        {
            assert_eq!(super::step_name(id), name);
            let sel = super::parse_selected(&format!("7.{}", name)).unwrap();
            assert_eq!(sel[0].step, Some(id));
        }
    }
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum K {
        Id,
        IdRaw,
        Name,
        Start,
        N,
    }
    const T: &[Field<K>] = &[
        Field { name: "JobID", len: -12, kind: Kind::Str, key: K::Id },
        Field { name: "JobIDRaw", len: -12, kind: Kind::Str, key: K::IdRaw },
        Field { name: "JobName", len: 10, kind: Kind::Str, key: K::Name },
        Field { name: "Start", len: 19, kind: Kind::Date, key: K::Start },
        Field { name: "NTasks", len: 8, kind: Kind::Uint, key: K::N },
    ];

    fn val(k: &K) -> Val {
        match k {
            K::Id | K::IdRaw => Val::s("12"),
            K::Name => Val::s("averyveryverylongname"),
            K::Start => Val::Date(0),
            K::N => Val::Num(None),
        }
    }

    #[test]
    fn field_prefixes_widths_and_all() {
        let l = parse_fields("jobid,jobname%4,JOBIDR,", T, true, true).unwrap();
        assert_eq!(l.cols, vec![0, 2, 1]);
        assert_eq!(l.widths[2], 4);
        assert_eq!(parse_fields("al,", T, true, true).unwrap().cols, vec![0, 1, 2, 3, 4]);
        assert_eq!(parse_fields("bogus,", T, true, true), Err(BadField("bogus".into())));
        // an empty name ends the list
        assert_eq!(parse_fields("jobid,,jobname,", T, true, true).unwrap().cols, vec![0]);
        // the width is the field's: both columns take the last one
        let l = parse_fields("jobid,jobid%-5,", T, true, true).unwrap();
        assert_eq!(l.header_text(T), "JobID JobID \n----- ----- \n");
    }

    #[test]
    fn cells_as_print_fields() {
        let l = parse_fields("jobid,jobname,start,ntasks,", T, true, true).unwrap();
        assert_eq!(
            l.header_text(T),
            "JobID           JobName               Start   NTasks \n------------ ---------- ------------------- -------- \n"
        );
        assert_eq!(l.row(T, val), "12           averyvery+             Unknown          \n");
        let mut p = l.clone();
        p.parsable = Parsable::NoEnding;
        assert_eq!(p.header_text(T), "JobID|JobName|Start|NTasks\n");
        assert_eq!(p.row(T, val), "12|averyveryverylongname|Unknown|\n");
        p.parsable = Parsable::Ending;
        p.delimiter = Some(",".into());
        assert_eq!(p.row(T, val), "12,averyveryverylongname,Unknown,,\n");
    }

    #[test]
    fn times_and_units() {
        assert_eq!(elapsed_time(0, 0), "00:00:00");
        assert_eq!(elapsed_time(5, 123_456), "00:05.123");
        assert_eq!(elapsed_time(3725, 5000), "01:02:05");
        assert_eq!(elapsed_time(90000, 0), "1-01:00:00");
        assert_eq!(elapsed_time(0, 2_500_000), "00:02.500");
        let u = Units::default();
        assert_eq!(units(1253376.0, UNIT_NONE, u), "1224K");
        assert_eq!(units(1000.0, UNIT_MEGA, u), "1000M");
        assert_eq!(units(2048.0, UNIT_MEGA, u), "2G");
        assert_eq!(units(1253376.0, UNIT_NONE, Units { no_convert: true, spec: None }), "1253376");
        assert_eq!(units(1048576.0, UNIT_NONE, Units { spec: Some(UNIT_MEGA), no_convert: false }), "1M");
        assert_eq!(units(1000.0, UNIT_NONE, Units { spec: Some(UNIT_KILO), no_convert: false }), "0.98K");
        assert_eq!(small_double(0.5, UNIT_MEGA, u), "0.50M");
        assert_eq!(small_double(0.0, UNIT_MEGA, u), "0");
        assert_eq!(small_double(24222.0, UNIT_NONE, u), "24222");
        assert_eq!(units(f64::MAX, UNIT_NONE, u), units(f64::MAX, UNIT_NONE, u));
        assert_eq!(date_text(1_000_000_000, 11), "##########");
    }

    #[test]
    fn selected_steps() {
        let s = parse_selected("12,13.batch,14_2,15.3,12").unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s[1], Selected { job_id: 13, task: None, step: Some(spur_core::model::BATCH_STEP) });
        assert_eq!(s[2], Selected { job_id: 14, task: Some(2), step: None });
        assert_eq!(s[3].step, Some(3));
        assert_eq!(parse_selected("abc"), Err("Bad job/step specified: abc".into()));
        assert_eq!(parse_selected("1.x"), Err("Bad step specified: 1".into()));
        assert_eq!(parse_selected("1_x"), Err("Bad job array element specified: 1".into()));
        assert!(parse_selected("99999999999999999999.99999999999999").is_ok());
    }
}
