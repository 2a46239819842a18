//! `sacctmgr`: the QOS records Spur keeps in its replicated state
//! (`spur_core::qos`) listed, added, modified and deleted as Slurm 22.05's
//! sacctmgr does with slurmdbd's (measured in
//! `crates/spur-sched/tests/qos.md`).
//!
//! - `sacctmgr [-i] [-n] [-p|-P] [-Q] list|show qos [where] [name=A,B]
//!   [format=F,...]`: Slurm's `print_fields` columns (`crate::acctprint`);
//! - `add|create qos NAME[,NAME] [Key=value ...]`, `modify|update qos
//!   [where] name=X set Key=value ...`, `delete|remove qos [where] name=X`:
//!   the settings echoed as sacctmgr echoes them, then (without `-i`) the
//!   question `Would you like to commit changes?` read from stdin, and the
//!   change sent to the controller (administrators only).
//!
//! Accounts, users and associations: `crate::sacctmgr_assoc`. Spur keeps
//! no clusters, coordinators, WCKeys or other entities in a database: they
//! are refused with a message saying so.

use crate::acctprint::{Field, Kind, Layout, Parsable, Val};
use spur_cli_base::output::Output;
use spur_cli_base::process::{client, emit, runtime};
use spur_client::{ClientError, QosOp, QosRequest, QosSetting};
use spur_core::model::ClusterView;
use spur_core::qos::{self, Qos};
use spur_core::request::Query as QueryRequest;
use std::collections::HashMap;

/// The options before the command.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opts {
    pub immediate: bool,
    pub noheader: bool,
    pub parsable: Parsable,
    pub quiet: bool,
}

/// A command, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Help,
    Version,
    List {
        names: Vec<String>,
        format: Vec<String>,
    },
    Add {
        names: Vec<String>,
        settings: Vec<QosSet>,
    },
    Modify {
        names: Vec<String>,
        settings: Vec<QosSet>,
    },
    Delete {
        names: Vec<String>,
    },
    /// A command on accounts, users or associations.
    Assoc(crate::sacctmgr_assoc::AssocCmd),
}

/// One `Key=value`, `Key+=value` or `Key-=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct QosSet {
    pub key: String,
    pub op: char,
    pub value: String,
}

/// How a field of `show qos` is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum F {
    Name,
    Desc,
    Id,
    Priority,
    Grace,
    Preempt,
    PreemptExempt,
    PreemptMode,
    Flags,
    UsageThres,
    UsageFactor,
    Tres(&'static str),
    GrpJobs,
    GrpSubmit,
    GrpWall,
    MaxWall,
    MaxJobsPu,
    MaxSubmitPu,
    MaxJobsPa,
    MaxSubmitPa,
}

/// Spellings of a field with the least prefix each.
pub(crate) type Spellings = &'static [(&'static str, usize)];

/// A field of a listing: (accepted spellings, column, width, value).
pub(crate) type FieldOf<T> = (Spellings, &'static str, i32, T);

/// A field of a format list and the width it was given.
pub(crate) type Chosen<'t, T> = (&'t FieldOf<T>, Option<i32>);

/// A `format=` list (or `default` without one) read against `table`: each
/// item's field and the width it gives (`NAME%W`; none, or 0: the
/// field's), or sacctmgr's error for a field it does not know.
pub(crate) fn read_format<'t, T>(
    format: &[String],
    default: &str,
    table: &'t [FieldOf<T>],
) -> Result<Vec<Chosen<'t, T>>, Output> {
    let list: Vec<String> =
        if format.is_empty() { default.split(',').map(str::to_string).collect() } else { format.to_vec() };
    let mut out = vec![];
    for item in &list {
        let (name, width) = match item.find('%') {
            Some(p) => (&item[..p], Some(spur_grammar::num::atoi(&item[p + 1..]) as i32)),
            None => (item.as_str(), None),
        };
        let found = table.iter().find(|(spell, ..)| spell.iter().any(|(full, min)| names(name, full, *min)));
        let Some(f) = found else {
            return Err(Output::err(format!("Unknown field '{}'\n", name), 1));
        };
        out.push((f, width.filter(|w| *w != 0)));
    }
    Ok(out)
}

/// The columns of a listing: (name, value).
type Cols = Vec<(&'static str, F)>;

/// sacctmgr's field names for QOS, in the order its parser tries them:
/// (accepted spellings, column, width, value).
const FIELDS: &[FieldOf<F>] = &[
    (&[("Description", 3)], "Descr", 20, F::Desc),
    (&[("Flags", 2)], "Flags", 20, F::Flags),
    (&[("GraceTime", 3)], "GraceTime", 10, F::Grace),
    (&[("GrpTRES", 7)], "GrpTRES", 13, F::Tres("GrpTRES")),
    (&[("GrpTRESMins", 7)], "GrpTRESMins", 13, F::Tres("GrpTRESMins")),
    (&[("GrpTRESRunMins", 7)], "GrpTRESRunMins", 13, F::Tres("GrpTRESRunMins")),
    (&[("GrpJobs", 4)], "GrpJobs", 7, F::GrpJobs),
    (&[("GrpSubmitJobs", 4)], "GrpSubmit", 9, F::GrpSubmit),
    (&[("GrpWall", 4)], "GrpWall", 11, F::GrpWall),
    (&[("ID", 2)], "ID", 6, F::Id),
    (&[("MaxTRES", 7), ("MaxTRESPerJob", 7)], "MaxTRES", 13, F::Tres("MaxTRES")),
    (&[("MaxTRESPerNode", 11)], "MaxTRESPerNode", 14, F::Tres("MaxTRESPerNode")),
    (&[("MaxTRESMinsPerJob", 8)], "MaxTRESMins", 13, F::Tres("MaxTRESMins")),
    (&[("MaxTRESPerAccount", 11), ("MaxTRESPerAcct", 11), ("MaxTRESPA", 9)], "MaxTRESPA", 13, F::Tres("MaxTRESPA")),
    (&[("MaxTRESPerUser", 11), ("MaxTRESPU", 9)], "MaxTRESPU", 13, F::Tres("MaxTRESPU")),
    (&[("MaxJobsPerAccount", 11), ("MaxJobsPerAcct", 11), ("MaxJobsPA", 9)], "MaxJobsPA", 9, F::MaxJobsPa),
    (&[("MaxJobsPerUser", 8), ("MaxJobsPU", 9)], "MaxJobsPU", 9, F::MaxJobsPu),
    (
        &[("MaxSubmitJobsPerAccount", 17), ("MaxSubmitJobsPerAcct", 17), ("MaxSubmitJobsPA", 15), ("MaxSubmitPA", 11)],
        "MaxSubmitPA",
        11,
        F::MaxSubmitPa,
    ),
    (&[("MaxSubmitJobsPerUser", 10), ("MaxSubmitJobsPU", 10), ("MaxSubmitPU", 10)], "MaxSubmitPU", 11, F::MaxSubmitPu),
    (&[("MaxWallDurationPerJob", 4)], "MaxWall", 11, F::MaxWall),
    (&[("MinTRESPerJob", 7)], "MinTRES", 13, F::Tres("MinTRES")),
    (&[("Name", 2)], "Name", 10, F::Name),
    (&[("PreemptMode", 8)], "PreemptMode", 11, F::PreemptMode),
    (&[("Preempt", 7)], "Preempt", 10, F::Preempt),
    (&[("PreemptExemptTime", 8)], "PreemptExemptTime", 19, F::PreemptExempt),
    (&[("Priority", 3)], "Priority", 10, F::Priority),
    (&[("UsageFactor", 6)], "UsageFactor", 11, F::UsageFactor),
    (&[("UsageThreshold", 6)], "UsageThres", 10, F::UsageThres),
];

/// `show qos` without `format=`.
const DEFAULT_FORMAT: &str = "Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,\
GrpTRES,GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,MaxTRESMins,MaxW,MaxTRESPerUser,\
MaxJobsPerUser,MaxSubmitJobsPerUser,MaxTRESPerAcct,MaxJobsPerAcct,MaxSubmitJobsPerAcct,MinTRES";

use spur_grammar::keyword::abbrev as names;

/// A `Key[+-]=value` word: (key, op, value); `None` without `=`.
fn split_kv(w: &str) -> Option<(&str, char, &str)> {
    let eq = w.find('=')?;
    let (k, v) = (&w[..eq], &w[eq + 1..]);
    match k.as_bytes().last() {
        Some(b'+') => Some((&k[..k.len() - 1], '+', v)),
        Some(b'-') => Some((&k[..k.len() - 1], '-', v)),
        _ => Some((k, '=', v)),
    }
}

/// A comma list as `slurm_addto_char_list` takes it: lower case, no
/// duplicates, empty items dropped, quotes stripped.
fn char_list(into: &mut Vec<String>, v: &str) {
    for n in v.trim_matches(|c| c == '"' || c == '\'').split(',') {
        let n = n.trim().to_ascii_lowercase();
        if !n.is_empty() && !into.contains(&n) {
            into.push(n);
        }
    }
}

/// The usage text (`-h`), as sacctmgr prints its first lines.
const USAGE: &str = "\
sacctmgr [<OPTION>] [<COMMAND>]                                            \n\
    Valid <OPTION> values are:                                             \n\
     -h or --help: equivalent to \"help\" command                          \n\
     -i or --immediate: commit changes immediately                         \n\
     -n or --noheader: no header will be added to the beginning of output  \n\
     -p or --parsable: output will be '|' delimited with a '|' at the end  \n\
     -P or --parsable2: output will be '|' delimited without a '|' at the end\n\
     -Q or --quiet: equivalent to \"quiet\" command                        \n\
     -V or --version: equivalent to \"version\" command                    \n\
                                                                           \n\
  <keyword> may be omitted from the execute line and sacctmgr will execute \n\
  in interactive mode. (Spur: commands are taken from the command line.)   \n\
                                                                           \n\
    Valid <COMMAND> values are:                                            \n\
     add|create qos <NAMES> [<SPECS>]                                      \n\
     delete|remove qos where <SPECS>                                       \n\
     list|show qos [where <SPECS>] [format=<FIELDS>]                       \n\
     modify|update qos where <SPECS> set <SPECS>                           \n\
     add|create account|user <NAMES> [<SPECS>]                             \n\
     delete|remove account|user where <SPECS>                              \n\
     list|show account|user|association [where <SPECS>] [format=<FIELDS>]  \n\
     modify|update account|user where <SPECS> set <SPECS>                  \n";

/// Parse the command line: the options, then the command.
pub fn parse(args: &[String]) -> Result<(Opts, Cmd), Output> {
    let mut o = Opts::default();
    let mut rest: Vec<&str> = vec![];
    let mut only_words = false;
    for a in args {
        if only_words || !a.starts_with('-') || a == "-" {
            rest.push(a);
            continue;
        }
        if a == "--" {
            only_words = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let known = [
                "help",
                "usage",
                "immediate",
                "noheader",
                "oneliner",
                "parsable",
                "parsable2",
                "quiet",
                "readonly",
                "associations",
                "verbose",
                "version",
            ];
            let hits: Vec<&&str> = known.iter().filter(|k| k.starts_with(long) && !long.is_empty()).collect();
            let exact = known.iter().find(|k| **k == long);
            match exact.or(if hits.len() == 1 { hits.first().copied() } else { None }) {
                Some(&"help") | Some(&"usage") => return Ok((o, Cmd::Help)),
                Some(&"immediate") => o.immediate = true,
                Some(&"noheader") => o.noheader = true,
                Some(&"parsable") => o.parsable = Parsable::Ending,
                Some(&"parsable2") => o.parsable = Parsable::NoEnding,
                Some(&"quiet") => o.quiet = true,
                Some(&"version") => return Ok((o, Cmd::Version)),
                Some(_) => {}
                None => {
                    return Err(Output::err(
                        format!(
                            "sacctmgr: unrecognized option '{}'\nTry \"sacctmgr --help\" for more information\n",
                            a
                        ),
                        1,
                    ))
                }
            }
            continue;
        }
        for c in a[1..].chars() {
            match c {
                'h' => return Ok((o, Cmd::Help)),
                'i' => o.immediate = true,
                'n' => o.noheader = true,
                'p' => o.parsable = Parsable::Ending,
                'P' => o.parsable = Parsable::NoEnding,
                'Q' => o.quiet = true,
                'o' | 'r' | 's' | 'v' => {}
                'V' => return Ok((o, Cmd::Version)),
                _ => {
                    return Err(Output::err(
                        format!("sacctmgr: invalid option -- '{}'\nTry \"sacctmgr --help\" for more information\n", c),
                        1,
                    ))
                }
            }
        }
    }
    let Some((verb, rest)) = rest.split_first() else {
        return Err(Output::err("sacctmgr: no command given (Spur's sacctmgr has no interactive mode)\n", 1));
    };
    let v = verb.to_ascii_lowercase();
    let is = |full: &str, min: usize| names(&v, full, min);
    let kind = if is("add", 3) || is("create", 2) {
        0
    } else if is("list", 3) || is("show", 3) {
        1
    } else if is("modify", 1) || is("update", 1) {
        2
    } else if is("delete", 3) || is("remove", 3) {
        3
    } else if is("help", 2) {
        return Ok((o, Cmd::Help));
    } else if is("version", 4) {
        return Ok((o, Cmd::Version));
    } else {
        return Err(Output::err(format!("invalid keyword: {}\n", verb), 1));
    };
    // sacctmgr's entity lists, per command
    let no_entity = || {
        let list = match kind {
            1 => "\"Account\", \"Association\", \"Cluster\", \"Configuration\",\n\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", \"Reservation\",\n\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", or \"WCKey\"",
            2 => "\"Account\", \"Cluster\", \"Federation\", \"Job\", \"QOS\", \"Resource\" or \"User\"",
            _ => "\"Account\", \"Cluster\", \"Coordinator\", \"Federation\", \"QOS\", \"Resource\", or \"User\"",
        };
        Output::err(
            format!(
                "No valid entity in {} command\nInput line must include {}\n",
                ["add", "list", "modify", "delete"][kind],
                list
            ),
            1,
        )
    };
    let Some((entity, words)) = rest.split_first() else {
        return Err(no_entity());
    };
    let e = entity.to_ascii_lowercase();
    {
        use crate::sacctmgr_assoc::{parse_words, What};
        let what = if names(&e, "account", 1) {
            Some(What::Account)
        } else if names(&e, "user", 1) {
            Some(What::User)
        } else if names(&e, "association", 2) && (kind == 1 || kind == 3) {
            Some(What::Assoc)
        } else {
            None
        };
        if let Some(what) = what {
            let words: Vec<&str> = words.iter().map(|w| &**w).collect();
            return parse_words(kind, what, &words).map(|c| (o, Cmd::Assoc(c)));
        }
    }
    if !names(&e, "qos", 1) {
        let known = [
            ("account", 1),
            ("association", 2),
            ("cluster", 2),
            ("coordinator", 2),
            ("event", 1),
            ("federation", 1),
            ("job", 1),
            ("problem", 1),
            ("resource", 1),
            ("reservation", 4),
            ("runawayjobs", 2),
            ("stats", 3),
            ("transaction", 1),
            ("tres", 2),
            ("user", 1),
            ("wckey", 1),
            ("configuration", 2),
        ];
        if known.iter().any(|(k, m)| names(&e, k, *m)) {
            return Err(Output::err(
                format!(
                    " Spur keeps no {} records: its accounting store holds QOS records, accounts, users and their associations, and jobs (see sacct)\n",
                    entity
                ),
                1,
            ));
        }
        return Err(no_entity());
    }
    let mut qnames: Vec<String> = vec![];
    let mut format: Vec<String> = vec![];
    let mut settings: Vec<QosSet> = vec![];
    let mut in_set = false;
    let mut errs = String::new();
    for w in words {
        let kv = split_kv(w);
        let key = kv.map(|k| k.0).unwrap_or(w);
        if kv.is_none() && names(key, "where", 5) {
            in_set = false;
            continue;
        }
        if kv.is_none() && names(key, "set", 3) {
            in_set = true;
            continue;
        }
        match kind {
            // list, delete: conditions
            1 | 3 => match kv {
                None => char_list(&mut qnames, w),
                Some((k, _, v)) if names(k, "names", 1) || names(k, "qoslevel", 1) => char_list(&mut qnames, v),
                Some((k, _, v)) if kind == 1 && names(k, "format", 1) => {
                    format.extend(v.split(',').filter(|f| !f.is_empty()).map(str::to_string))
                }
                Some(_) => errs
                    .push_str(&format!(" Unknown condition: {}\n Use keyword 'set' to modify SLURM_PRINT_VALUE\n", w)),
            },
            // add: names, then settings
            0 => match kv {
                None => char_list(&mut qnames, w),
                Some((k, _, v)) if names(k, "name", 1) && !names(k, "names", 5) || k.eq_ignore_ascii_case("names") => {
                    char_list(&mut qnames, v)
                }
                Some((k, op, v)) => settings.push(QosSet { key: k.to_string(), op, value: v.to_string() }),
            },
            // modify: `where` conditions, `set` values
            _ => match (in_set, kv) {
                (false, None) => char_list(&mut qnames, w),
                (false, Some((k, _, v))) if names(k, "names", 1) || names(k, "qoslevel", 1) => {
                    char_list(&mut qnames, v)
                }
                (false, Some(_)) => {
                    // (sacctmgr's text, its format's name included)
                    errs.push_str(&format!(
                        " Unknown condition: {}\n Use keyword 'set' to modify SLURM_PRINT_VALUE\n",
                        w
                    ))
                }
                (true, None) => {
                    errs.push_str(&format!(" Unknown option: {}\n Use keyword 'where' to modify condition\n", w))
                }
                (true, Some((k, op, v))) => settings.push(QosSet { key: k.to_string(), op, value: v.to_string() }),
            },
        }
    }
    if !errs.is_empty() {
        // (conditions are refused on stderr, a `set` value without `=` on stdout)
        return Err(if errs.starts_with(" Unknown option") {
            Output { stdout: errs, stderr: String::new(), code: 1 }
        } else {
            Output::err(errs, 1)
        });
    }
    Ok((
        o,
        match kind {
            0 => Cmd::Add { names: qnames, settings },
            1 => Cmd::List { names: qnames, format },
            2 => Cmd::Modify { names: qnames, settings },
            _ => Cmd::Delete { names: qnames },
        },
    ))
}

/// The columns of a format list, or sacctmgr's error for a field it does
/// not know.
fn layout(o: &Opts, format: &[String]) -> Result<(Layout, Cols), Output> {
    let mut cols = vec![];
    let mut widths = vec![];
    for ((_, col, len, f), width) in read_format(format, DEFAULT_FORMAT, FIELDS)? {
        cols.push((*col, *f));
        widths.push(width.unwrap_or(*len));
    }
    let l =
        Layout { cols: (0..cols.len()).collect(), widths, parsable: o.parsable, delimiter: None, header: !o.noheader };
    Ok((l, cols))
}

/// `[D-]HH:MM:SS` of seconds, as `secs2time_str`.
fn secs_text(s: u64) -> String {
    spur_grammar::time::fmt_secs_scontrol(s as i64)
}

/// `[D-]HH:MM:SS` of minutes, as `mins2time_str`.
fn mins_text(m: u32) -> String {
    spur_grammar::time::fmt_secs_scontrol(i64::from(m) * 60)
}

/// A double as `%f` in a column (`print_fields_double`).
fn double(v: f64) -> String {
    format!("{:.6}", v)
}

/// `show qos`: the rows of the QOS named (all when none is), in id order.
pub fn render_list(o: &Opts, names: &[String], format: &[String], all: &[Qos]) -> Output {
    let (l, cols) = match layout(o, format) {
        Ok(x) => x,
        Err(e) => return e,
    };
    let table: Vec<Field<usize>> =
        cols.iter().enumerate().map(|(i, (name, _))| Field::new(l.widths[i], name, Kind::Str, i)).collect();
    let mut out = l.header_text(&table);
    let mut rows: Vec<&Qos> =
        all.iter().filter(|q| names.is_empty() || names.iter().any(|n| n.eq_ignore_ascii_case(&q.name))).collect();
    rows.sort_by_key(|q| q.id);
    for q in rows {
        out.push_str(&l.row(&table, |i| {
            let n = |v: Option<u32>| Val::Num(v.map(u64::from));
            let mins = |v: Option<u32>| Val::Secs(v.map(|m| u64::from(m) * 60));
            match cols[*i].1 {
                F::Name => Val::s(&q.name),
                F::Desc => Val::s(&q.description),
                F::Id => n(Some(q.id)),
                F::Priority => n(Some(q.priority)),
                F::Grace => Val::Secs(Some(u64::from(q.grace_time))),
                F::Preempt => Val::opt(&q.preempt_names(all)),
                F::PreemptExempt => Val::Secs(q.preempt_exempt_time.map(u64::from)),
                F::PreemptMode => {
                    Val::s(q.preempt_mode.clone().unwrap_or_else(|| "cluster".into()).to_ascii_lowercase())
                }
                F::Flags => Val::opt(&q.flags_str()),
                F::UsageThres => Val::Str(q.usage_thres.map(double)),
                F::UsageFactor => Val::s(double(q.usage_factor)),
                F::Tres(k) => Val::Str(q.tres.get(k).cloned()),
                F::GrpJobs => n(q.grp_jobs),
                F::GrpSubmit => n(q.grp_submit),
                F::GrpWall => mins(q.grp_wall),
                F::MaxWall => mins(q.max_wall),
                F::MaxJobsPu => n(q.max_jobs_pu),
                F::MaxSubmitPu => n(q.max_submit_pu),
                F::MaxJobsPa => n(q.max_jobs_pa),
                F::MaxSubmitPa => n(q.max_submit_pa),
            }
        }));
    }
    Output::ok(out)
}

/// The settings checked against the QOS records `all` (on a new record):
/// the record they make, the names they set (as sacctmgr echoes them, with
/// whether the value was `-1`), and the error lines of those that do not
/// read (`Invalid value for ...`: the setting is dropped), or the output of
/// one that stops the command.
struct Checked {
    rec: Qos,
    given: Vec<(&'static str, bool)>,
    invalid: String,
}

fn check(settings: &[QosSet], all: &[Qos]) -> Result<Checked, Output> {
    let mut c = Checked { rec: Qos::new(0, "", ""), given: vec![], invalid: String::new() };
    for s in settings {
        match qos::set(&mut c.rec, &s.key, s.op, &s.value, all) {
            Ok(name) => c.given.push((name, s.value.trim() == "-1")),
            Err((text, _)) if text.starts_with("sacctmgr: error: Invalid value") => c.invalid.push_str(&text),
            Err((text, true)) => return Err(Output { stdout: text, stderr: String::new(), code: 1 }),
            Err((text, false)) => return Err(Output::err(text, 1)),
        }
    }
    Ok(c)
}

/// The `Settings` lines `add` echoes (sacctmgr's `sacctmgr_print_qos_limits`
/// order; every name padded to 24 but `MaxJobsPerUser`'s, as sacctmgr
/// prints it).
fn echo(c: &Checked, all: &[Qos]) -> String {
    let q = &c.rec;
    let given = |n: &str| c.given.iter().rev().find(|(g, _)| *g == n).map(|(_, none)| *none);
    let mut out = String::new();
    let mut line = |k: &str, v: String| {
        // (sacctmgr prints this one's name unpadded)
        if k == "MaxJobsPerUser" {
            out.push_str(&format!("  {} = {}\n", k, v))
        } else {
            out.push_str(&format!("  {:<24} = {}\n", k, v))
        }
    };
    let num = |v: Option<u32>, none: bool| {
        if none {
            "NONE".to_string()
        } else {
            v.map(|n| n.to_string()).unwrap_or_default()
        }
    };
    if given("Flags").is_some() && q.flags != 0 {
        line("Flags", q.flags_str());
    }
    if let Some(none) = given("GraceTime") {
        line("GraceTime", num(Some(q.grace_time), none));
    }
    if let Some(none) = given("GrpJobs") {
        line("GrpJobs", num(q.grp_jobs, none));
    }
    if let Some(none) = given("GrpSubmitJobs") {
        line("GrpSubmitJobs", num(q.grp_submit, none));
    }
    for col in ["GrpTRES", "GrpTRESMins", "GrpTRESRunMins"] {
        if let Some(t) = q.tres.get(col) {
            line(col, t.clone());
        }
    }
    if given("GrpWall").is_some() {
        line("GrpWall", q.grp_wall.map(mins_text).unwrap_or_else(|| "NONE".into()));
    }
    if let Some(none) = given("MaxJobsPerAccount") {
        line("MaxJobsPerAccount", num(q.max_jobs_pa, none));
    }
    if let Some(none) = given("MaxJobsPerUser") {
        line("MaxJobsPerUser", num(q.max_jobs_pu, none));
    }
    if let Some(none) = given("MaxSubmitJobsPerAccount") {
        line("MaxSubmitJobsPerAccount", num(q.max_submit_pa, none));
    }
    if let Some(none) = given("MaxSubmitJobsPerUser") {
        line("MaxSubmitJobsPerUser", num(q.max_submit_pu, none));
    }
    for (col, label) in [
        ("MaxTRESPA", "MaxTRESPerAccount"),
        ("MaxTRES", "MaxTRESPerJob"),
        ("MaxTRESPerNode", "MaxTRESPerNode"),
        ("MaxTRESPU", "MaxTRESPerUser"),
        ("MinTRES", "MinTRESPerJob"),
        ("MaxTRESMins", "MaxTRESMins"),
    ] {
        if let Some(t) = q.tres.get(col) {
            line(label, t.clone());
        }
    }
    if given("MaxWall").is_some() {
        line("MaxWall", q.max_wall.map(mins_text).unwrap_or_else(|| "NONE".into()));
    }
    if given("Preempt").is_some() {
        line("Preempt", q.preempt_names(all));
    }
    if let Some(m) = q.preempt_mode.as_ref().filter(|_| given("PreemptMode").is_some()) {
        line("PreemptMode", m.clone());
    }
    if given("PreemptExemptTime").is_some() {
        line(
            "PreemptExemptTime",
            q.preempt_exempt_time.map(|t| secs_text(u64::from(t))).unwrap_or_else(|| "NONE".into()),
        );
    }
    if let Some(none) = given("Priority") {
        line("Priority", num(Some(q.priority), none));
    }
    if given("UsageFactor").is_some() {
        line("UsageFactor", format!("{:.4}", q.usage_factor));
    }
    if given("UsageThreshold").is_some() {
        line("UsageThreshold", q.usage_thres.map(|v| format!("{:.4}", v)).unwrap_or_else(|| "NONE".into()));
    }
    out
}

/// Ask before committing (`commit_check`): `y` commits; anything else, or
/// the end of input, does not.
pub(crate) fn commit_check(o: &Opts, out: &mut String) -> bool {
    if o.immediate {
        return true;
    }
    use std::io::Write;
    print!("{}", std::mem::take(out));
    print!("Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): ");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    let got = std::io::stdin().read_line(&mut line).unwrap_or(0);
    // (the answer's line ends the prompt's; at the end of input 22.05 asks
    // again forever, Spur takes it as no)
    println!();
    got > 0 && line.trim_start().starts_with(['y', 'Y'])
}

/// What sacctmgr says when slurmdbd refuses a change that is not an add.
fn refused(code: i32) -> String {
    let mut out = String::new();
    if code == spur_core::errors::ESLURM_ACCESS_DENIED {
        out.push_str("sacctmgr: error: Your user doesn't have privilege to perform this action\n");
    } else if code == spur_core::errors::ESLURM_QOS_PREEMPTION_LOOP {
        out.push_str("sacctmgr: error: QOS Preemption loop detected\n");
    }
    out.push_str(&format!(" Error with request: {}\n", spur_core::errors::strerror(code)));
    out
}

fn settings_of(s: &[QosSet]) -> Vec<QosSetting> {
    s.iter().map(|s| QosSetting { key: s.key.clone(), op: s.op.to_string(), value: s.value.clone() }).collect()
}

/// Whether the caller administers accounting (root or SlurmUser: Spur
/// keeps no AdminLevel); the controller decides, this only says it first.
fn admin(conf: &spur_core::config::SlurmConf) -> bool {
    let (uid, name) = spur_cli_base::process::caller();
    uid == 0 || name == conf.slurm_user
}

/// A change (`add`, `modify`, `delete`): checked and echoed here against
/// the records `all`, asked about unless `-i`, and committed by `send`.
pub fn change(
    o: &Opts,
    conf: &spur_core::config::SlurmConf,
    send: impl FnOnce(QosRequest) -> Result<Vec<String>, ClientError>,
    cmd: Cmd,
    all: &[Qos],
) -> Output {
    let mut out = Output::default();
    let (op, names, settings) = match cmd {
        Cmd::Add { names, settings } => {
            // (the settings are read first: `add qos x=` is an unknown option)
            let checked = match check(&settings, all) {
                Ok(c) => c,
                Err(e) => return e,
            };
            if names.is_empty() {
                return Output::err(" Need name of qos to add.\n", 1);
            }
            let new: Vec<&String> = names.iter().filter(|n| qos::find(all, n).is_none()).collect();
            // a value that does not read adds nothing (22.05 adds the QOS
            // all the same for some keys, without the value)
            if new.is_empty() || !checked.invalid.is_empty() {
                return Output { stdout: " Nothing new added.\n".into(), stderr: checked.invalid, code: 1 };
            }
            out.stdout.push_str(" Adding QOS(s)\n");
            for n in &new {
                out.stdout.push_str(&format!("  {}\n", n));
            }
            out.stdout.push_str(" Settings\n");
            let desc = if checked.given.iter().any(|(g, _)| *g == "Description") {
                checked.rec.description.clone()
            } else {
                new.last().map(|n| n.to_string()).unwrap_or_default()
            };
            out.stdout.push_str(&format!("  Description    = {}\n", desc));
            out.stdout.push_str(&echo(&checked, all));
            (QosOp::Add, names, settings)
        }
        Cmd::Modify { names, settings } => {
            let checked = match check(&settings, all) {
                Ok(c) => c,
                Err(e) => return e,
            };
            out.stderr = checked.invalid.clone();
            let settings: Vec<QosSet> = settings
                .into_iter()
                .filter(|s| qos::set(&mut Qos::new(0, "", ""), &s.key, s.op, &s.value, all).is_ok())
                .collect();
            if settings.is_empty() {
                out.stderr.push_str(" You didn't give me anything to set\n");
                out.code = 1;
                return out;
            }
            if !admin(conf) {
                out.stderr.push_str(&refused(spur_core::errors::ESLURM_ACCESS_DENIED));
                out.code = 1;
                return out;
            }
            let hit: Vec<&Qos> = all
                .iter()
                .filter(|q| names.is_empty() || names.iter().any(|n| n.eq_ignore_ascii_case(&q.name)))
                .collect();
            if hit.is_empty() {
                out.stdout.push_str(" Nothing modified\n");
                out.code = 1;
                return out;
            }
            // (a loop is refused before anything is listed)
            let mut changed = vec![];
            for q in &hit {
                let mut m = (*q).clone();
                for s in &settings {
                    let _ = qos::set(&mut m, &s.key, s.op, &s.value, all);
                }
                changed.push(m);
            }
            if qos::preempt_loop(all, &changed) {
                out.stderr.push_str(&refused(spur_core::errors::ESLURM_QOS_PREEMPTION_LOOP));
                out.code = 1;
                return out;
            }
            out.stdout.push_str(" Modified qos...\n");
            for q in &hit {
                out.stdout.push_str(&format!("  {}\n", q.name));
            }
            (QosOp::Modify, hit.iter().map(|q| q.name.clone()).collect(), settings)
        }
        Cmd::Delete { names } => {
            if names.is_empty() {
                return Output::err(" No conditions given to remove, not executing.\n", 1);
            }
            if !admin(conf) {
                return Output::err(refused(spur_core::errors::ESLURM_ACCESS_DENIED), 1);
            }
            let hit: Vec<&Qos> = all.iter().filter(|q| names.iter().any(|n| n.eq_ignore_ascii_case(&q.name))).collect();
            if hit.is_empty() {
                return Output { stdout: " Nothing deleted\n".into(), stderr: String::new(), code: 1 };
            }
            out.stdout.push_str(" Deleting QOS(s)...\n");
            for q in &hit {
                out.stdout.push_str(&format!("  {}\n", q.name));
            }
            (QosOp::Delete, hit.iter().map(|q| q.name.clone()).collect(), vec![])
        }
        _ => return Output::default(),
    };
    if !commit_check(o, &mut out.stdout) {
        out.stdout.push_str(" Changes Discarded\n");
        return out;
    }
    let req = QosRequest { op: op as i32, names, settings: settings_of(&settings) };
    match send(req) {
        Ok(_) => out,
        Err(ClientError::Slurm(code, _)) => {
            out.stderr.push_str(&match op {
                QosOp::Add => format!(" Problem adding QOS: {}\n", spur_core::errors::strerror(code)),
                _ => refused(code),
            });
            out.code = 1;
            out
        }
        Err(e) => {
            out.stderr.push_str(&format!("sacctmgr: error: {}\n", e));
            out.code = 1;
            out
        }
    }
}

pub fn run(args: &[String], _env: &HashMap<String, String>) -> i32 {
    let (o, cmd) = match parse(args) {
        Ok(x) => x,
        Err(e) => return emit(&e),
    };
    match cmd {
        Cmd::Help => return emit(&Output::ok(USAGE)),
        Cmd::Version => return emit(&Output::ok(spur_cli_base::version::version_line())),
        _ => {}
    }
    let c = match client("sacctmgr") {
        Ok(c) => c,
        Err(e) => return emit(&e),
    };
    if !c.conf().accounting_enabled() {
        return emit(&Output::err(
            "sacctmgr: error: Slurm accounting storage is disabled (AccountingStorageType is not set in slurm.conf)\n",
            1,
        ));
    }
    let rt = runtime();
    // (a delete lists the jobs that keep it from being made)
    let jobs = matches!(&cmd, Cmd::Assoc(a) if a.kind == 3);
    let view: ClusterView = match rt.block_on(c.query(&QueryRequest { jobs, ..Default::default() })) {
        Ok(v) => v,
        Err(e) => return emit(&Output::err(format!("sacctmgr: error: {}\n", e), 1)),
    };
    let assocs = view.assocs.clone().unwrap_or_default();
    match cmd {
        Cmd::Assoc(a) if a.kind == 1 => emit(&crate::sacctmgr_assoc::render_list(&o, &a, &assocs, &view.cluster_name)),
        Cmd::Assoc(a) => emit(&crate::sacctmgr_assoc::change(
            &o,
            &view.cluster_name,
            |req| rt.block_on(c.assoc(req)),
            &a,
            &assocs,
            &view.qos,
            &view.jobs,
        )),
        Cmd::List { names, format } => emit(&render_list(&o, &names, &format, &view.qos)),
        cmd => emit(&change(&o, c.conf(), |req| rt.block_on(c.qos(req)), cmd, &view.qos)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn commands_parse_as_sacctmgr_reads_them() {
        let (o, c) = parse(&args(&["-i", "add", "qos", "High,low", "Priority=10", "Preempt+=normal"])).unwrap();
        assert!(o.immediate);
        assert_eq!(
            c,
            Cmd::Add {
                names: vec!["high".into(), "low".into()],
                settings: vec![
                    QosSet { key: "Priority".into(), op: '=', value: "10".into() },
                    QosSet { key: "Preempt".into(), op: '+', value: "normal".into() },
                ],
            }
        );
        let (_, c) = parse(&args(&["modify", "qos", "where", "name=high", "set", "MaxJobsPU=1"])).unwrap();
        assert_eq!(
            c,
            Cmd::Modify {
                names: vec!["high".into()],
                settings: vec![QosSet { key: "MaxJobsPU".into(), op: '=', value: "1".into() }]
            }
        );
        let (o, c) = parse(&args(&["-nP", "show", "qos", "format=name,prio"])).unwrap();
        assert_eq!((o.noheader, o.parsable), (true, Parsable::NoEnding));
        assert_eq!(c, Cmd::List { names: vec![], format: vec!["name".into(), "prio".into()] });
        assert!(parse(&args(&["show", "cluster"])).is_err());
        assert!(parse(&args(&["frob"])).is_err());
        assert!(parse(&args(&[])).is_err());
    }

    #[test]
    fn the_listing_has_sacctmgrs_columns() {
        let mut high = Qos::new(2, "high", "high");
        high.priority = 100;
        high.preempt = vec![1];
        high.max_jobs_pu = Some(1);
        let all = vec![Qos::normal(), high];
        let o = Opts { parsable: Parsable::NoEnding, ..Default::default() };
        let f: Vec<String> = ["Name", "Prio", "Preempt", "PreemptMode", "MaxJobsPU", "GraceTime"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = render_list(&o, &[], &f, &all).stdout;
        assert_eq!(
            out,
            "Name|Priority|Preempt|PreemptMode|MaxJobsPU|GraceTime\nnormal|0||cluster||00:00:00\nhigh|100|normal|cluster|1|00:00:00\n"
        );
        let out = render_list(&Opts::default(), &["high".into()], &["name".into(), "prio".into()], &all).stdout;
        assert_eq!(out, "      Name   Priority \n---------- ---------- \n      high        100 \n");
        assert_eq!(render_list(&Opts::default(), &[], &["bogus".into()], &all).stderr, "Unknown field 'bogus'\n");
    }

    #[test]
    fn changes_are_checked_and_echoed_before_they_are_sent() {
        let conf = spur_core::config::parse_str("ClusterName=c\nSlurmctldHost=h\n", std::path::Path::new("slurm.conf"))
            .unwrap();
        let all = vec![Qos::normal()];
        let o = Opts { immediate: true, ..Default::default() };
        let sent = std::cell::RefCell::new(vec![]);
        let send = |r: QosRequest| {
            sent.borrow_mut().push(r.names.clone());
            Ok(r.names)
        };
        let (_, cmd) = parse(&args(&["add", "qos", "big", "MaxJobsPU=1", "Priority=5", "UsageFactor=2"])).unwrap();
        let out = change(&o, &conf, send, cmd, &all);
        assert_eq!(
            out.stdout,
            " Adding QOS(s)\n  big\n Settings\n  Description    = big\n  MaxJobsPerUser = 1\n  \
             Priority                 = 5\n  UsageFactor              = 2.0000\n"
        );
        assert_eq!(*sent.borrow(), vec![vec!["big".to_string()]]);
        // a value that does not read adds nothing and sends nothing
        let (_, cmd) = parse(&args(&["add", "qos", "x", "GraceTime=abc"])).unwrap();
        let out = change(&o, &conf, |_| unreachable!("nothing is sent"), cmd, &all);
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (1, " Nothing new added.\n", "sacctmgr: error: Invalid value for GraceTime (abc)\n")
        );
        // nothing to modify
        let (_, cmd) = parse(&args(&["modify", "qos", "nosuch", "set", "Priority=1"])).unwrap();
        let out = change(&o, &conf, |_| unreachable!("nothing is sent"), cmd, &all);
        assert_eq!((out.code, out.stdout.as_str()), (1, " Nothing modified\n"));
    }
}
