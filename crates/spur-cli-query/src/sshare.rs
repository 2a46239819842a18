//! `sshare`: each association's shares, usage and fair-share factor, as
//! Slurm 22.05's sshare prints them under the Fair Tree algorithm
//! (measured in `crates/spur-sched/tests/fairshare-22.05.md`).
//!
//! The figures come from [`spur_core::assoc::fair_tree`], the function the
//! controller takes the fair-share factor from, over the associations and
//! running jobs of one query, as of the last `PriorityCalcPeriod` boundary.
//!
//! Options: `-a`, `-A`, `-e`, `-l`, `-m`, `-n`/`-h`, `-o`, `-p`, `-P`,
//! `-u`, `-U`, `-v`, `-V`, `--help`, `--usage`. Without `-a` or `-u`, the
//! caller's own user associations are listed, with every account.

use crate::acctprint::{Field, Kind, Parsable, Val};
use spur_cli_base::opts::{self, ArgKind::*, Mode, OptSpec};
use spur_cli_base::output::Output;
use spur_cli_base::process::{client, emit, load_error, runtime};
use spur_core::assoc::Row;
use spur_core::model::ClusterView;
use spur_core::priority::Weights;
use spur_core::request::Query as QueryRequest;
use std::collections::HashMap;

pub const SPECS: &[OptSpec] = &[
    OptSpec::new(Some('a'), "all", None_, "all"),
    OptSpec::new(Some('A'), "accounts", Required, "accounts"),
    OptSpec::new(Some('e'), "helpformat", None_, "helpformat"),
    OptSpec::new(Some('h'), "", None_, "noheader"),
    OptSpec::new(Some('l'), "long", None_, "long"),
    OptSpec::new(Some('M'), "cluster", Required, "cluster"),
    OptSpec::new(None, "clusters", Required, "cluster"),
    OptSpec::new(Some('m'), "partition", None_, "partition"),
    OptSpec::new(Some('n'), "noheader", None_, "noheader"),
    OptSpec::new(Some('o'), "format", Required, "format"),
    OptSpec::new(Some('p'), "parsable", None_, "parsable"),
    OptSpec::new(Some('P'), "parsable2", None_, "parsable2"),
    OptSpec::new(Some('q'), "", None_, "quiet"),
    OptSpec::new(Some('t'), "", None_, "quiet"),
    OptSpec::new(Some('u'), "users", Required, "users"),
    OptSpec::new(Some('U'), "Users", None_, "users_only"),
    OptSpec::new(Some('v'), "verbose", None_, "verbose"),
    OptSpec::new(Some('V'), "version", None_, "version"),
    OptSpec::new(None, "help", None_, "help"),
    OptSpec::new(None, "usage", None_, "help"),
];

const USAGE: &str = "\
Usage:  sshare [OPTION]                                                    
  Valid OPTIONs are:                                                       
    -a or --all            list all users                                  
    -A or --accounts=      display specific accounts (comma separated list)
    -e or --helpformat     Print a list of fields that can be specified    
                           with the '--format' option                      
    -l or --long           include normalized usage in output              
    -m or --partition      print the partition part of the association     
    -M or --cluster=names  clusters to issue commands to.                  
                           NOTE: SlurmDBD must be up.                      
    -n or --noheader       omit header from output                         
    -o or --format=        Comma separated list of fields (use             
                           \"--helpformat\" for a list of available fields).
    -p or --parsable       '|' delimited output with a trailing '|'        
    -P or --parsable2      '|' delimited output without a trailing '|'     
    -u or --users=         display specific users (comma separated list)   
    -U or --Users          display only user information                   
    -v or --verbose        display more information                        
    -V or --version        display tool version number                     
          --help           display this usage description                  
          --usage          display this usage description                  
                                                                           

";

/// sshare's options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SshareOpts {
    pub all: bool,
    pub accounts: Vec<String>,
    pub users: Vec<String>,
    pub long: bool,
    pub partitions: bool,
    pub noheader: bool,
    /// `-o` lists, each ended with `,`.
    pub format: String,
    pub parsable: Parsable,
    pub users_only: bool,
    pub verbose: bool,
    /// The classic fair-share (`PriorityFlags=NO_FAIR_TREE` or
    /// `DEPTH_OBLIVIOUS`): no LevelFS in the long format.
    pub classic: bool,
}

/// How a field is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum F {
    Account,
    Cluster,
    Eff,
    Fs,
    TresMins,
    TresRaw,
    Id,
    LevelFs,
    NormShares,
    NormUsage,
    Partition,
    RawShares,
    RawUsage,
    RunMins,
    User,
}

/// sshare's fields, in its order (the order `--helpformat` lists and a
/// prefix is matched in).
const FIELDS: &[Field<F>] = &[
    Field::new(-20, "Account", Kind::Str, F::Account),
    Field::new(10, "Cluster", Kind::Str, F::Cluster),
    Field::new(13, "EffectvUsage", Kind::Str, F::Eff),
    Field::new(10, "FairShare", Kind::Str, F::Fs),
    Field::new(30, "GrpTRESMins", Kind::Str, F::TresMins),
    Field::new(30, "GrpTRESRaw", Kind::Str, F::TresRaw),
    Field::new(6, "ID", Kind::Uint, F::Id),
    Field::new(10, "LevelFS", Kind::Str, F::LevelFs),
    Field::new(11, "NormShares", Kind::Str, F::NormShares),
    Field::new(11, "NormUsage", Kind::Str, F::NormUsage),
    Field::new(12, "Partition", Kind::Str, F::Partition),
    Field::new(10, "RawShares", Kind::Uint, F::RawShares),
    Field::new(11, "RawUsage", Kind::Uint64, F::RawUsage),
    Field::new(30, "TRESRunMins", Kind::Str, F::RunMins),
    Field::new(10, "User", Kind::Str, F::User),
];

/// `-e`: the field names four to a line, each in 17 columns.
fn help_format() -> String {
    let mut out = String::new();
    for (i, f) in FIELDS.iter().enumerate() {
        if i & 3 != 0 {
            out.push(' ');
        } else if i != 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:<17}", f.name));
    }
    out.push('\n');
    out
}

/// A comma list as `slurm_addto_char_list` reads it (no duplicates, no
/// empty items).
fn add_list(into: &mut Vec<String>, v: &str) {
    for n in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !into.iter().any(|x| x.eq_ignore_ascii_case(n)) {
            into.push(n.to_string());
        }
    }
}

/// The options; `Err`: what to print and the exit code.
pub fn parse(args: &[String]) -> Result<SshareOpts, Output> {
    let p = opts::parse("sshare", SPECS, args, Mode::Permute);
    if let Some(e) = p.error {
        return Err(e.into_output("sshare", 1));
    }
    let mut o = SshareOpts::default();
    for (id, v) in p.opts {
        let v = v.unwrap_or_default();
        match id {
            "all" => o.all = true,
            "accounts" => add_list(&mut o.accounts, &v),
            "helpformat" => return Err(Output::ok(help_format())),
            "noheader" => o.noheader = true,
            "long" => o.long = true,
            "partition" => o.partitions = true,
            "format" => o.format.push_str(&format!("{},", v)),
            "parsable" => o.parsable = Parsable::Ending,
            "parsable2" => o.parsable = Parsable::NoEnding,
            "users" => {
                if v == "-1" {
                    o.all = true;
                } else {
                    o.all = false;
                    for n in v.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        // a number is a uid
                        let name = if n.starts_with(|c: char| c.is_ascii_digit()) {
                            let uid = n.parse::<u32>().ok();
                            match uid.and_then(spur_client::users::user_name) {
                                Some(name) => name,
                                None => return Err(Output::err(format!("Invalid user id: {}\n", uid.unwrap_or(0)), 1)),
                            }
                        } else {
                            n.to_string()
                        };
                        if !o.users.contains(&name) {
                            o.users.push(name);
                        }
                    }
                }
            }
            "users_only" => o.users_only = true,
            "verbose" => o.verbose = true,
            "version" => return Err(Output::ok(spur_cli_base::version::version_line())),
            "help" => return Err(Output::ok(USAGE)),
            _ => {}
        }
    }
    if o.all {
        o.users.clear();
    }
    Ok(o)
}

/// The default fields (Fair Tree's, or the classic algorithms' long ones).
fn default_format(o: &SshareOpts) -> &'static str {
    match (o.long, o.partitions) {
        (true, true) if o.classic => {
            "A,User,P,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,GrpTRESMins,TRESRunMins,"
        }
        (true, false) if o.classic => {
            "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,GrpTRESMins,TRESRunMins,"
        }
        (true, true) => {
            "A,User,P,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,LevelFS,GrpTRESMins,TRESRunMins,"
        }
        (true, false) => {
            "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,LevelFS,GrpTRESMins,TRESRunMins,"
        }
        (false, true) => "A,User,P,RawShares,NormShares,RawUsage,Eff,Fairshare,",
        (false, false) => "A,User,RawShares,NormShares,RawUsage,Eff,Fairshare,",
    }
}

/// The report: `rows` (from [`spur_core::assoc::fair_tree`]) of cluster
/// `cluster`, for the user `me` when no user or `-a` was asked for.
/// `run_mins`: each association's TRES-minutes still to run, by (user or
/// "", account).
pub fn render(
    o: &SshareOpts,
    rows: &[Row],
    cluster: &str,
    me: &str,
    run_mins: &HashMap<(String, String), String>,
) -> Output {
    let list = if o.format.is_empty() { default_format(o).to_string() } else { o.format.clone() };
    let mut l = match crate::acctprint::parse_fields(&list, FIELDS, false, false) {
        Ok(l) => l,
        Err(bad) => return Output::err(format!("sshare: error: Invalid field requested: \"{}\"\n", bad.0), 1),
    };
    l.parsable = o.parsable;
    l.header = !o.noheader;
    let mut out = l.header_text(FIELDS);
    let users: Vec<String> = if o.all {
        vec![]
    } else if o.users.is_empty() {
        vec![me.to_string()]
    } else {
        o.users.clone()
    };
    let root_use = rows.first().map(|r| r.raw_usage).unwrap_or(0.0);
    // the accounts printed so far and their indentation
    // (slurmdb_tree_name_get: one space more than the parent's, none when
    // the parent was not printed)
    let mut spaces: HashMap<String, String> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        if let Some(u) = &r.user {
            if !users.is_empty() && !users.iter().any(|x| x.eq_ignore_ascii_case(u)) {
                continue;
            }
        }
        if !o.accounts.is_empty() && !o.accounts.iter().any(|a| a.eq_ignore_ascii_case(&r.account)) {
            continue;
        }
        if o.users_only && r.user.is_none() {
            continue;
        }
        // the parent: a user's own account, an account's the one above it
        let parent = if r.user.is_some() { Some(r.account.clone()) } else { parent_account(rows, i) };
        let indent = |spaces: &HashMap<String, String>| match parent.as_ref().and_then(|p| spaces.get(p)) {
            Some(s) => format!(" {}", s),
            None => String::new(),
        };
        let name = if r.user.is_some() {
            format!("{}{}", indent(&spaces), r.account)
        } else {
            match spaces.get(&r.account) {
                Some(s) => format!("{}{}", s, r.account),
                None => {
                    let s = indent(&spaces);
                    spaces.insert(r.account.clone(), s.clone());
                    format!("{}{}", s, r.account)
                }
            }
        };
        let key = (r.user.clone().unwrap_or_default(), r.account.clone());
        out.push_str(&l.row(FIELDS, |f| match f {
            F::Account => Val::s(name.clone()),
            F::Cluster => Val::s(cluster),
            F::Eff => Val::Double(Some(r.eff_usage)),
            F::Fs => match r.fs_factor {
                Some(v) => Val::Double(Some(v)),
                None => Val::null(),
            },
            F::TresMins => Val::s(""),
            F::TresRaw => {
                Val::s(format!("cpu={},billing={}", (r.raw_usage / 60.0) as u64, (r.raw_usage / 60.0) as u64))
            }
            F::Id => Val::n(u64::from(r.id)),
            F::LevelFs => Val::Double(r.level_fs),
            F::NormShares => Val::Double(Some(r.norm_shares)),
            // (root's is never computed: blank)
            F::NormUsage if r.depth == 0 => Val::null(),
            F::NormUsage => Val::Double(Some(if root_use > 0.0 { r.raw_usage / root_use } else { 0.0 })),
            F::Partition => Val::null(),
            F::RawShares => Val::Num(r.raw_shares.map(u64::from)),
            F::RawUsage => Val::n(r.raw_usage as u64),
            F::RunMins => Val::s(run_mins.get(&key).cloned().unwrap_or_default()),
            F::User => Val::Str(r.user.clone()),
        }));
    }
    Output::ok(out)
}

/// The parent of the account row `i`: the nearest account row above it one
/// level up.
fn parent_account(rows: &[Row], i: usize) -> Option<String> {
    let d = rows[i].depth;
    if d == 0 {
        return None;
    }
    rows[..i].iter().rev().find(|r| r.user.is_none() && r.depth + 1 == d).map(|r| r.account.clone())
}

/// The TRES-minutes each association's running jobs have still to run (their
/// time limit left): `cpu=N,mem=N,node=N,billing=N` by (user or "",
/// account), the accounts above summing their users'.
fn run_mins(view: &ClusterView, rows: &[Row]) -> HashMap<(String, String), String> {
    let mut per: HashMap<(String, String), [u64; 3]> = HashMap::new();
    for j in view.jobs.iter().filter(|j| j.state.is_active() && j.start_time > 0) {
        let Some(acct) = j.desc.account.as_deref() else { continue };
        // (TRES-seconds left, shown in minutes)
        let left = if j.end_time > view.now { (j.end_time - view.now) as u64 } else { 0 };
        let mem: u64 = j.allocs.iter().map(|a| a.mem_mb).sum();
        let add = [u64::from(j.num_cpus) * left, mem * left, u64::from(j.num_nodes.max(1)) * left];
        let mut keys = vec![(j.user_name.clone(), acct.to_ascii_lowercase())];
        // every account above it
        let mut a = acct.to_ascii_lowercase();
        for _ in 0..64 {
            keys.push((String::new(), a.clone()));
            let Some(i) = rows.iter().position(|r| r.user.is_none() && r.account == a) else { break };
            match parent_account(rows, i) {
                Some(p) => a = p,
                None => break,
            }
        }
        for k in keys {
            let e = per.entry(k).or_default();
            for (x, y) in e.iter_mut().zip(add) {
                *x += y;
            }
        }
    }
    rows.iter()
        .map(|r| {
            let k = (r.user.clone().unwrap_or_default(), r.account.clone());
            let [c, m, n] = per.get(&k).copied().unwrap_or_default().map(|v| v / 60);
            (k, format!("cpu={},mem={},energy=0,node={},billing={},fs/disk=0,vmem=0,pages=0", c, m, n, c))
        })
        .collect()
}

pub fn run(args: &[String], _env: &HashMap<String, String>) -> i32 {
    let mut o = match parse(args) {
        Ok(o) => o,
        Err(e) => return emit(&e),
    };
    let c = match client("sshare") {
        Ok(c) => c,
        Err(e) => return emit(&e),
    };
    let q = QueryRequest { jobs: true, with_fair_share: true, ..Default::default() };
    let view: ClusterView = match runtime().block_on(c.query(&q)) {
        Ok(v) => v,
        Err(e) => return emit(&load_error("Couldn't get shares from controller", &e)),
    };
    let w = Weights::from_conf(c.conf()).unwrap_or_default();
    o.classic = w.algo != spur_core::priority::FairShareAlgo::FairTree;
    // without accounting slurmctld has no associations: the header alone
    let Some(assocs) = view.assocs.as_ref().filter(|_| !view.qos.is_empty()) else {
        return emit(&render(&o, &[], &view.cluster_name, "", &HashMap::new()));
    };
    let hl = spur_core::assoc::half_life(c.conf());
    let at = if w.calc_period > 0 { spur_core::priority::calc_time(&w, view.now) } else { view.now };
    let running = spur_core::assoc::running(view.jobs.iter(), &view.qos, &view.partitions, at, hl);
    let mut rows = spur_core::assoc::shares(assocs, &running, at, hl, w.algo);
    // the factors the controller computed at the last boundary (its
    // priorities' own), where it sent them
    if !view.fair_share.is_empty() {
        for r in rows.iter_mut() {
            if let Some(u) = &r.user {
                r.fs_factor = Some(view.fair_share.get(&(u.clone(), r.account.clone())).copied().unwrap_or(0.0));
            }
        }
    }
    let me = spur_cli_base::process::caller().1;
    let mins = run_mins(&view, &rows);
    emit(&render(&o, &rows, &view.cluster_name, &me, &mins))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::assoc::{fair_tree, Account, Assocs, Link, User};

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn rows() -> Vec<Row> {
        let mut a = Assocs::default();
        let acct = Account::new;
        a.put(
            &[acct("research", "root", 1), acct("ml", "research", 1)],
            &[User { name: "bob".into(), default_account: "ml".into() }],
            &[Link::new("root", "research", 1), Link::new("bob", "ml", 1)],
        );
        a.charge("bob", "ml", 2.0, 100, 1000, 0);
        fair_tree(&a, &[], 1000, 0)
    }

    #[test]
    fn the_tree_is_indented_as_sshare_does() {
        let o = parse(&args(&["-a"])).unwrap();
        let out = render(&o, &rows(), "c", "root", &HashMap::new());
        let names: Vec<&str> = out.stdout.lines().skip(2).map(|l| l[..20].trim_end()).collect();
        assert_eq!(names, ["root", " root", " research", "  research", "  ml", "   ml"]);
        // bob's factor: research's root has no usage, bob all of it
        let bob = out.stdout.lines().last().unwrap();
        assert!(bob.contains("bob") && bob.ends_with("  0.333333 "), "{bob}");
        // without -a, only the caller's own user rows (and every account)
        let out = render(&parse(&[]).unwrap(), &rows(), "c", "bob", &HashMap::new());
        assert_eq!(out.stdout.lines().filter(|l| l.contains(" root ")).count(), 0);
        // one account, parsable: its parent was not printed (no indent)
        let o = parse(&args(&["-P", "-a", "-A", "ml", "-o", "Account,User,RawUsage,FairShare"])).unwrap();
        let out = render(&o, &rows(), "c", "root", &HashMap::new());
        assert_eq!(out.stdout, "Account|User|RawUsage|FairShare\nml||200|\n ml|bob|200|0.333333\n");
    }

    #[test]
    fn bad_fields_and_help() {
        let o = parse(&args(&["-o", "Bogus"])).unwrap();
        let out = render(&o, &[], "c", "root", &HashMap::new());
        assert_eq!((out.code, out.stderr.as_str()), (1, "sshare: error: Invalid field requested: \"Bogus\"\n"));
        assert!(parse(&args(&["-e"])).unwrap_err().stdout.starts_with("Account           Cluster "));
    }
}
