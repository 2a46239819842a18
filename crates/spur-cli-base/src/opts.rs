//! A table-driven command-line parser that behaves like glibc's `getopt_long`,
//! which every Slurm command uses. One place for Slurm's option grammar.
//!
//! # What it does (as glibc 2.36 does, verified against Slurm's own binaries)
//!
//! * Long options: `--name value`, `--name=value`, unambiguous abbreviations
//!   (`--part=debug`). An exact name always wins over prefixes. A prefix that
//!   matches several entries is ambiguous unless all of them are the same
//!   option (same `id` and `arg`), as glibc treats aliases.
//! * Short options: `-N2`, `-N 2`, clustered flags (`-vvv`, `-hv`, `-vJname`).
//!   A required argument takes the rest of the word, or the next word even if
//!   it starts with `-`. An optional argument is only ever attached (`-v3`,
//!   `--nice=5`), never the next word.
//! * `--` ends options; a lone `-` is an operand.
//! * Operands: with [`Mode::StopAtFirstOperand`] (glibc's `+` optstring, used
//!   by sbatch/srun/salloc) the first operand and everything after it are
//!   operands. With [`Mode::Permute`] (GNU default, used by squeue, sinfo,
//!   scancel, ...) options and operands may be mixed.
//! * Errors, word for word as glibc prints them with `argv[0]` = `prog`:
//!   - `PROG: unrecognized option '--bogus=3'` (the whole word is quoted)
//!   - `PROG: invalid option -- 'Z'`
//!   - `PROG: option requires an argument -- 'J'`
//!   - `PROG: option '--job-name' requires an argument` (full name even if abbreviated)
//!   - `PROG: option '--hold' doesn't allow an argument` (full name)
//!   - `PROG: option '--pa' is ambiguous; possibilities: '--parsable' '--partition'`
//!     (possibilities in table order; the quoted word includes any `=value`)
//!
//! Slurm then prints its own `Try "sbatch --help" for more information` line
//! and exits (sbatch: 255). That part differs per command, so [`GetoptError`]
//! only holds glibc's line and [`GetoptError::into_output`] adds the rest.
//!
//! # API
//!
//! ```
//! use spur_cli_base::opts::{parse, ArgKind::*, Mode, OptSpec};
//! const SPECS: &[OptSpec] = &[
//!     OptSpec::new(Some('J'), "job-name", Required, "job-name"),
//!     OptSpec::new(None, "parsable", None_, "parsable"),
//!     OptSpec::new(Some('v'), "verbose", None_, "verbose"),
//! ];
//! let args: Vec<String> = ["-vJname", "--pars", "job.sh", "-v"].map(String::from).to_vec();
//! let p = parse("sbatch", SPECS, &args, Mode::StopAtFirstOperand);
//! // p.opts: (id, value) in command-line order; p.operands: the rest
//! assert_eq!(p.opts, [("verbose", None), ("job-name", Some("name".into())), ("parsable", None)]);
//! assert_eq!(p.operands, ["job.sh", "-v"]);
//! // p.error: set at the first bad option; p.opts then holds the options
//! // seen before it (Slurm acts on those first, in order)
//! let p = parse("sbatch", SPECS, &["-v".into(), "--bogus".into()], Mode::StopAtFirstOperand);
//! assert_eq!(p.opts, [("verbose", None)]);
//! let usage = p.error.unwrap().into_output("sbatch", 255);
//! assert_eq!(usage.stderr, "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n");
//! assert_eq!(usage.code, 255);
//! ```
//!
//! `args` does NOT include `argv[0]`. Nothing here panics on any input.

use crate::output::Output;

/// Whether an option takes an argument (glibc's `has_arg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `no_argument`. (Named `None_` to avoid clashing with `Option::None`.)
    None_,
    /// `required_argument`
    Required,
    /// `optional_argument`: only `--opt=val` or `-oval`.
    Optional,
}

/// One option of a command: short letter, long name, argument kind, and the
/// id the caller receives (aliases share one id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptSpec {
    pub short: Option<char>,
    /// Long name without `--`; empty for a short-only option.
    pub long: &'static str,
    pub arg: ArgKind,
    pub id: &'static str,
}

impl OptSpec {
    pub const fn new(short: Option<char>, long: &'static str, arg: ArgKind, id: &'static str) -> OptSpec {
        OptSpec { short, long, arg, id }
    }
}

/// How operands (non-option words) are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// GNU permutation: options may follow operands (squeue, scancel, ...).
    Permute,
    /// POSIX / `+optstring`: the first operand ends option processing (sbatch).
    StopAtFirstOperand,
}

/// glibc's diagnostic for a bad command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetoptError {
    /// The complete line glibc prints, with trailing newline.
    pub message: String,
    pub kind: GetoptErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GetoptErrorKind {
    UnrecognizedLong(String),
    InvalidShort(char),
    ShortRequiresArg(char),
    LongRequiresArg(&'static str),
    LongNoArgAllowed(&'static str),
    Ambiguous(String),
}

impl GetoptError {
    /// glibc's line plus `Try "CMD --help" for more information`, with `code`.
    pub fn into_output(self, cmd: &str, code: i32) -> Output {
        Output::err(format!("{}Try \"{} --help\" for more information\n", self.message, cmd), code)
    }
}

/// The options of a command line: (id, argument) in command-line order.
pub type Options = Vec<(&'static str, Option<String>)>;

/// Result of a parse. See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// (id, argument) in command-line order.
    pub opts: Options,
    pub operands: Vec<String>,
    /// Set when parsing stopped at a bad option; `opts` then holds the
    /// options that came before it and `operands` what was seen so far.
    pub error: Option<GetoptError>,
}

/// Parse `args` (without `argv[0]`) against `specs`. Never panics.
/// `specs` without the options whose id is in `ids` (an option a release
/// does not have yet: getopt_long then reports it as unknown).
pub fn without(specs: &[OptSpec], ids: &[&str]) -> Vec<OptSpec> {
    specs.iter().filter(|s| !ids.contains(&s.id)).cloned().collect()
}

pub fn parse(prog: &str, specs: &[OptSpec], args: &[String], mode: Mode) -> Parsed {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            out.operands.extend(args[i + 1..].iter().cloned());
            return out;
        }
        if a.len() < 2 || !a.starts_with('-') {
            // operand ("" and "-" included)
            match mode {
                Mode::StopAtFirstOperand => {
                    out.operands.extend(args[i..].iter().cloned());
                    return out;
                }
                Mode::Permute => {
                    out.operands.push(a.clone());
                    i += 1;
                    continue;
                }
            }
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, value) = match body.find('=') {
                Some(p) => (&body[..p], Some(&body[p + 1..])),
                None => (body, None),
            };
            let spec = match find_long(specs, name) {
                Ok(s) => s,
                Err(LongLookup::NotFound) => {
                    out.error = Some(err(
                        format!("{}: unrecognized option '--{}'\n", prog, body),
                        GetoptErrorKind::UnrecognizedLong(body.to_string()),
                    ));
                    return out;
                }
                Err(LongLookup::Ambiguous(list)) => {
                    let mut m = format!("{}: option '--{}' is ambiguous; possibilities:", prog, body);
                    for s in list {
                        m.push_str(&format!(" '--{}'", s));
                    }
                    m.push('\n');
                    out.error = Some(err(m, GetoptErrorKind::Ambiguous(body.to_string())));
                    return out;
                }
            };
            match spec.arg {
                ArgKind::None_ => {
                    if value.is_some() {
                        out.error = Some(err(
                            format!("{}: option '--{}' doesn't allow an argument\n", prog, spec.long),
                            GetoptErrorKind::LongNoArgAllowed(spec.long),
                        ));
                        return out;
                    }
                    out.opts.push((spec.id, None));
                }
                ArgKind::Optional => out.opts.push((spec.id, value.map(str::to_string))),
                ArgKind::Required => {
                    if let Some(v) = value {
                        out.opts.push((spec.id, Some(v.to_string())));
                    } else if i + 1 < args.len() {
                        i += 1;
                        out.opts.push((spec.id, Some(args[i].clone())));
                    } else {
                        out.error = Some(err(
                            format!("{}: option '--{}' requires an argument\n", prog, spec.long),
                            GetoptErrorKind::LongRequiresArg(spec.long),
                        ));
                        return out;
                    }
                }
            }
            i += 1;
            continue;
        }
        // cluster of short options
        let chars: Vec<char> = a[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            let spec = if c == ':' || c == ';' { None } else { specs.iter().find(|s| s.short == Some(c)) };
            let Some(spec) = spec else {
                out.error =
                    Some(err(format!("{}: invalid option -- '{}'\n", prog, c), GetoptErrorKind::InvalidShort(c)));
                return out;
            };
            let rest: String = chars[j + 1..].iter().collect();
            match spec.arg {
                ArgKind::None_ => {
                    out.opts.push((spec.id, None));
                    j += 1;
                }
                ArgKind::Optional => {
                    out.opts.push((spec.id, if rest.is_empty() { None } else { Some(rest) }));
                    break;
                }
                ArgKind::Required => {
                    if !rest.is_empty() {
                        out.opts.push((spec.id, Some(rest)));
                    } else if i + 1 < args.len() {
                        i += 1;
                        out.opts.push((spec.id, Some(args[i].clone())));
                    } else {
                        out.error = Some(err(
                            format!("{}: option requires an argument -- '{}'\n", prog, c),
                            GetoptErrorKind::ShortRequiresArg(c),
                        ));
                        return out;
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

fn err(message: String, kind: GetoptErrorKind) -> GetoptError {
    GetoptError { message, kind }
}

enum LongLookup {
    NotFound,
    Ambiguous(Vec<&'static str>),
}

fn find_long<'a>(specs: &'a [OptSpec], name: &str) -> Result<&'a OptSpec, LongLookup> {
    if let Some(s) = specs.iter().find(|s| !s.long.is_empty() && s.long == name) {
        return Ok(s);
    }
    let matches: Vec<&OptSpec> = specs.iter().filter(|s| !s.long.is_empty() && s.long.starts_with(name)).collect();
    match matches.first() {
        None => Err(LongLookup::NotFound),
        Some(first) => {
            if matches.iter().all(|m| m.id == first.id && m.arg == first.arg) {
                Ok(first)
            } else {
                Err(LongLookup::Ambiguous(matches.iter().map(|m| m.long).collect()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ArgKind::*;
    use super::*;

    /// Last value given for `id` (None if absent or given without value).
    fn last<'a>(p: &'a Parsed, id: &str) -> Option<&'a str> {
        p.opts.iter().rev().find(|(i, _)| *i == id).and_then(|(_, v)| v.as_deref())
    }

    /// How many times `id` was given (for `-vvv`).
    fn count(p: &Parsed, id: &str) -> usize {
        p.opts.iter().filter(|(i, _)| *i == id).count()
    }

    /// [`parse`], turning an error into Slurm's usage error: glibc's line,
    /// then `Try "CMD --help" for more information`, exit `code`.
    fn parse_or_exit(
        prog: &str,
        cmd: &str,
        specs: &[OptSpec],
        args: &[String],
        mode: Mode,
        code: i32,
    ) -> Result<(Options, Vec<String>), Output> {
        let p = parse(prog, specs, args, mode);
        match p.error {
            Some(e) => Err(e.into_output(cmd, code)),
            None => Ok((p.opts, p.operands)),
        }
    }

    const T: &[OptSpec] = &[
        OptSpec::new(Some('J'), "job-name", Required, "job-name"),
        OptSpec::new(Some('N'), "nodes", Required, "nodes"),
        OptSpec::new(None, "parsable", None_, "parsable"),
        OptSpec::new(Some('p'), "partition", Required, "partition"),
        OptSpec::new(Some('v'), "verbose", None_, "verbose"),
        OptSpec::new(Some('h'), "help", None_, "help"),
        OptSpec::new(None, "nice", Optional, "nice"),
        OptSpec::new(None, "mem-bind", Required, "mem-bind"),
        OptSpec::new(None, "mem_bind", Required, "mem-bind"),
        OptSpec::new(None, "hold", None_, "hold"),
        OptSpec::new(Some('O'), "", Optional, "o-short"),
    ];

    fn a(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }
    fn ok(args: &[&str], mode: Mode) -> Parsed {
        let p = parse("sbatch", T, &a(args), mode);
        assert!(p.error.is_none(), "{:?}", p.error);
        p
    }
    fn bad(args: &[&str]) -> String {
        parse("sbatch", T, &a(args), Mode::StopAtFirstOperand).error.unwrap().message
    }

    #[test]
    fn long_forms() {
        let p = ok(&["--job-name=x", "--nodes", "2", "--part=debug", "--job", "-weird"], Mode::Permute);
        assert_eq!(
            p.opts,
            vec![
                ("job-name", Some("x".into())),
                ("nodes", Some("2".into())),
                ("partition", Some("debug".into())),
                ("job-name", Some("-weird".into()))
            ]
        );
        assert_eq!(last(&p, "job-name"), Some("-weird"));
        let p = ok(&["--job-name="], Mode::Permute);
        assert_eq!(p.opts, vec![("job-name", Some(String::new()))]);
    }

    #[test]
    fn short_forms() {
        let p = ok(&["-N2", "-N", "3", "-vvv", "-hvJname", "-J", "-x"], Mode::Permute);
        assert_eq!(count(&p, "verbose"), 4);
        assert_eq!(count(&p, "help"), 1);
        assert_eq!(p.opts[0], ("nodes", Some("2".into())));
        assert_eq!(p.opts[1], ("nodes", Some("3".into())));
        assert_eq!(last(&p, "job-name"), Some("-x"));
        let p = ok(&["-O", "x"], Mode::Permute);
        assert_eq!(p.opts, vec![("o-short", None)]);
        assert_eq!(p.operands, vec!["x"]);
        let p = ok(&["-Oabc"], Mode::Permute);
        assert_eq!(p.opts, vec![("o-short", Some("abc".into()))]);
    }

    #[test]
    fn optional_long() {
        let p = ok(&["--nice", "5"], Mode::Permute);
        assert_eq!(p.opts, vec![("nice", None)]);
        assert_eq!(p.operands, vec!["5"]);
        let p = ok(&["--nice=5"], Mode::Permute);
        assert_eq!(p.opts, vec![("nice", Some("5".into()))]);
    }

    #[test]
    fn operands_and_double_dash() {
        let p = ok(&["-v", "script.sh", "-N", "2"], Mode::StopAtFirstOperand);
        assert_eq!(p.operands, vec!["script.sh", "-N", "2"]);
        assert_eq!(count(&p, "verbose"), 1);
        let p = ok(&["123", "-v", "456", "-", "--", "-N"], Mode::Permute);
        assert_eq!(p.operands, vec!["123", "456", "-", "-N"]);
        assert_eq!(count(&p, "verbose"), 1);
        let p = ok(&["--", "--bogus"], Mode::StopAtFirstOperand);
        assert_eq!(p.operands, vec!["--bogus"]);
    }

    #[test]
    fn glibc_messages() {
        assert_eq!(bad(&["--bogus"]), "sbatch: unrecognized option '--bogus'\n");
        assert_eq!(bad(&["--bogus=3"]), "sbatch: unrecognized option '--bogus=3'\n");
        assert_eq!(bad(&["-Z"]), "sbatch: invalid option -- 'Z'\n");
        assert_eq!(bad(&["-vZ"]), "sbatch: invalid option -- 'Z'\n");
        assert_eq!(bad(&["-J"]), "sbatch: option requires an argument -- 'J'\n");
        assert_eq!(bad(&["--job-name"]), "sbatch: option '--job-name' requires an argument\n");
        assert_eq!(bad(&["--jo"]), "sbatch: option '--job-name' requires an argument\n");
        assert_eq!(bad(&["--hold=1"]), "sbatch: option '--hold' doesn't allow an argument\n");
        assert_eq!(
            bad(&["--pa", "x"]),
            "sbatch: option '--pa' is ambiguous; possibilities: '--parsable' '--partition'\n"
        );
        assert_eq!(
            bad(&["--par=debug"]),
            "sbatch: option '--par=debug' is ambiguous; possibilities: '--parsable' '--partition'\n"
        );
        // aliases of one option are not ambiguous
        let p = ok(&["--mem=x"], Mode::Permute);
        assert_eq!(p.opts, vec![("mem-bind", Some("x".into()))]);
        // ':' is never an option letter
        assert_eq!(bad(&["-:"]), "sbatch: invalid option -- ':'\n");
    }

    #[test]
    fn error_keeps_earlier_options_and_output() {
        let p = parse("sbatch", T, &a(&["-v", "--bogus", "-N2"]), Mode::Permute);
        assert_eq!(p.opts, vec![("verbose", None)]);
        let o = p.error.unwrap().into_output("sbatch", 255);
        assert_eq!(o.stderr, "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n");
        assert_eq!(o.code, 255);
        assert_eq!(o.stdout, "");
        let r = parse_or_exit("/usr/bin/sbatch", "sbatch", T, &a(&["-Z"]), Mode::Permute, 1);
        assert_eq!(
            r.unwrap_err().stderr,
            "/usr/bin/sbatch: invalid option -- 'Z'\nTry \"sbatch --help\" for more information\n"
        );
    }

    #[test]
    fn garbage_never_panics() {
        let words = [
            "",
            "-",
            "--",
            "---",
            "--=",
            "-=",
            "=",
            "-é",
            "--é=ü",
            "-\u{0}",
            "--\u{10FFFF}",
            "-J",
            "-Jé",
            "--nice=",
            "--p",
            "-vvvvJ",
            "ß",
            "-:",
            "-;",
            "--job-name=\u{0}",
        ];
        let mut seed: u64 = 7;
        for _ in 0..3000 {
            let mut v = Vec::new();
            for _ in 0..(seed % 6) {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                v.push(words[(seed >> 33) as usize % words.len()].to_string());
            }
            let _ = parse("x", T, &v, Mode::Permute);
            let _ = parse("x", T, &v, Mode::StopAtFirstOperand);
            seed = seed.wrapping_add(1);
        }
    }
}
