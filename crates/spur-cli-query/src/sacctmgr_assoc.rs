//! `sacctmgr` for accounts, users and associations (the records Spur keeps
//! in its replicated state, `spur_core::assoc`), as Slurm 22.05's sacctmgr
//! prints them (measured in `crates/spur-sched/tests/fairshare-22.05.md`):
//!
//! - `list|show account [names] [where name=|descr=|org=|parent=]
//!   [withassoc] [format=]`, `list user [names] [where name=|account=|
//!   defaultaccount=] [withassoc] [format=]`, `list assoc [where account=|
//!   user=|cluster=] [tree] [format=]`;
//! - `add account NAMES [Description= Organization= Parent= Fairshare=]`,
//!   `add user NAMES Account=A[,B] [DefaultAccount= Fairshare=]`;
//! - `modify account [where] name=X set Description=|Organization=|Parent=|
//!   Fairshare=`, `modify user [where] name=X [account=A] set
//!   DefaultAccount=|Fairshare=`;
//! - `delete account NAMES`, `delete user NAMES [where account=A]`.
//!
//! QOS lists (`QOS=`, `QOS+=`, `QOS-=`, `DefaultQOS=`) and limits
//! (`GrpJobs`, `GrpSubmitJobs`, `GrpTRES`, `GrpWall`, `MaxJobs`,
//! `MaxSubmitJobs`, `MaxTRES`, `MaxTRESPerNode`, `MaxWall`, `Priority`; see
//! `spur_core::assoc_limits`) are kept on accounts and user associations;
//! a listing prints an association's own or those passed down to it.

use crate::acctprint::{Field, Kind, Layout, Val};
use crate::sacctmgr::Opts;
use spur_cli_base::output::Output;
use spur_client::{AssocEntity, AssocOp, AssocRequest, ClientError, QosSetting};
use spur_core::assoc::{self, Assocs, Change, Entity, Op, Refusal};

/// Which records a command lists or changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    Account,
    User,
    Assoc,
}

/// A command on accounts, users or associations, its words read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssocCmd {
    /// 0 add, 1 list, 2 modify, 3 delete (as `sacctmgr::parse` numbers them).
    pub kind: usize,
    pub what: Option<What>,
    pub names: Vec<String>,
    /// `account=` conditions of users and associations, `Account=` of
    /// `add user`.
    pub accounts: Vec<String>,
    /// `user=` conditions of associations.
    pub users: Vec<String>,
    pub settings: Vec<(String, String)>,
    pub format: Vec<String>,
    pub with_assoc: bool,
    pub tree: bool,
}

use spur_grammar::keyword::abbrev as is;

/// A comma list into `into`: lower case (names of accounts; users as
/// given), no duplicates, empty items dropped, quotes stripped.
fn list(into: &mut Vec<String>, v: &str, lower: bool) {
    for n in v.trim_matches(|c| c == '"' || c == '\'').split(',') {
        let n = if lower { n.trim().to_ascii_lowercase() } else { n.trim().to_string() };
        if !n.is_empty() && !into.contains(&n) {
            into.push(n);
        }
    }
}

/// Read the words after the entity.
pub fn parse_words(kind: usize, what: What, words: &[&str]) -> Result<AssocCmd, Output> {
    let mut c = AssocCmd { kind, what: Some(what), ..Default::default() };
    let mut in_set = false;
    let mut errs = String::new();
    let lower = what != What::User;
    for w in words {
        let kv = w.find('=').map(|p| (&w[..p], &w[p + 1..]));
        let key = kv.map(|k| k.0).unwrap_or(w);
        if kv.is_none() && is(key, "where", 5) {
            in_set = false;
            continue;
        }
        if kv.is_none() && is(key, "set", 3) {
            in_set = true;
            continue;
        }
        match (kv, in_set || kind == 0) {
            (None, _) if kind == 1 && is(key, "withassoc", 5) => c.with_assoc = true,
            (None, _) if kind == 1 && is(key, "withcoordinators", 5) => {}
            (None, _) if kind == 1 && what == What::Assoc && is(key, "tree", 4) => c.tree = true,
            (None, _) if kind == 1 && is(key, "onlydefaults", 2) => {}
            (None, false) | (None, true) if kind != 2 || !in_set => list(&mut c.names, w, lower),
            (None, _) => errs.push_str(&format!(" Unknown option: {}\n Use keyword 'where' to modify condition\n", w)),
            (Some((k, v)), _) if kind == 1 && is(k, "format", 1) => {
                c.format.extend(v.split(',').filter(|f| !f.is_empty()).map(str::to_string))
            }
            // names
            (Some((k, v)), set)
                if (!set || kind == 0)
                    && (is(k, "names", 1)
                        || what == What::User && is(k, "users", 1)
                        || what == What::Account && (is(k, "accounts", 3) || is(k, "acct", 4))) =>
            {
                if what == What::Assoc {
                    list(&mut c.names, v, true)
                } else if what == What::Account || !(is(k, "accounts", 3) || is(k, "acct", 4)) {
                    list(&mut c.names, v, lower)
                }
            }
            (Some((k, v)), _)
                if what == What::User && (is(k, "accounts", 3) || is(k, "acct", 4)) && (kind != 2 || !in_set) =>
            {
                list(&mut c.accounts, v, true)
            }
            (Some((k, v)), false) if what == What::Assoc && (is(k, "accounts", 3) || is(k, "acct", 4)) => {
                list(&mut c.accounts, v, true)
            }
            (Some((k, v)), false) if what == What::Assoc && is(k, "users", 1) => list(&mut c.users, v, false),
            (Some((k, _)), false) if is(k, "clusters", 1) => {}
            (Some((k, v)), true) => c.settings.push((k.to_string(), v.to_string())),
            (Some(_), false) if kind == 0 => {}
            (Some((k, v)), false) if kind == 1 && what == What::Account && is(k, "parent", 3) => {
                c.settings.push(("parent".into(), v.to_ascii_lowercase()))
            }
            (Some(_), false) => {
                errs.push_str(&format!(" Unknown condition: {}\n Use keyword 'set' to modify SLURM_PRINT_VALUE\n", w))
            }
        }
    }
    if !errs.is_empty() {
        return Err(if errs.starts_with(" Unknown option") {
            Output { stdout: errs, stderr: String::new(), code: 1 }
        } else {
            Output::err(errs, 1)
        });
    }
    Ok(c)
}

/// How a column of a listing is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum C {
    Account,
    Admin,
    Cluster,
    DefAcct,
    DefQos,
    Descr,
    Id,
    Org,
    ParentId,
    ParentName,
    Partition,
    Priority,
    Qos,
    Share,
    User,
    /// A limit: `GrpJobs`, `GrpSubmit`, `MaxJobs`, `MaxSubmit`.
    Count(&'static str),
    /// `GrpWall`, `MaxWall`.
    Wall(&'static str),
    /// A TRES limit (`GrpTRES`, `MaxTRES`, ...).
    Tres(&'static str),
    /// One TRES of a TRES limit, the older columns (`GrpCPUs`: `GrpTRES`'s
    /// `cpu`).
    OneTres(&'static str, &'static str),
}

/// The fields sacctmgr lists accounts, users and associations with:
/// (spellings with their least prefix, column, width, value).
const FIELDS: &[crate::sacctmgr::FieldOf<C>] = &[
    (&[("Account", 3), ("Acct", 4)], "Account", 10, C::Account),
    (&[("AdminLevel", 2)], "Admin", 9, C::Admin),
    (&[("Clusters", 2)], "Cluster", 10, C::Cluster),
    (&[("DefaultAccount", 8)], "Def Acct", 10, C::DefAcct),
    (&[("DefaultQOS", 8)], "Def QOS", 9, C::DefQos),
    (&[("Description", 3)], "Descr", 20, C::Descr),
    (&[("GrpCPUs", 6)], "GrpCPUs", 8, C::OneTres("GrpTRES", "cpu")),
    (&[("GrpCPUMins", 7)], "GrpCPUMins", 11, C::OneTres("GrpTRESMins", "cpu")),
    (&[("GrpTRES", 7)], "GrpTRES", 13, C::Tres("GrpTRES")),
    (&[("GrpTRESMins", 7)], "GrpTRESMins", 13, C::Tres("GrpTRESMins")),
    (&[("GrpTRESRunMins", 7)], "GrpTRESRunMins", 13, C::Tres("GrpTRESRunMins")),
    (&[("GrpJobs", 4)], "GrpJobs", 7, C::Count("GrpJobs")),
    (&[("GrpMemory", 4)], "GrpMem", 7, C::OneTres("GrpTRES", "mem")),
    (&[("GrpNodes", 4)], "GrpNodes", 8, C::OneTres("GrpTRES", "node")),
    (&[("GrpSubmitJobs", 4)], "GrpSubmit", 9, C::Count("GrpSubmit")),
    (&[("GrpWall", 4)], "GrpWall", 11, C::Wall("GrpWall")),
    (&[("ID", 2)], "ID", 6, C::Id),
    (&[("MaxCPUMinsPerJob", 7)], "MaxCPUMins", 11, C::OneTres("MaxTRESMins", "cpu")),
    (&[("MaxCPUsPerJob", 7)], "MaxCPUs", 8, C::OneTres("MaxTRES", "cpu")),
    (&[("MaxTRES", 7), ("MaxTRESPerJob", 7)], "MaxTRES", 13, C::Tres("MaxTRES")),
    (&[("MaxTRESPerNode", 11)], "MaxTRESPerNode", 14, C::Tres("MaxTRESPerNode")),
    (&[("MaxTRESMinsPerJob", 8)], "MaxTRESMins", 13, C::Tres("MaxTRESMins")),
    (&[("MaxJobs", 4)], "MaxJobs", 7, C::Count("MaxJobs")),
    (&[("MaxNodesPerJob", 4)], "MaxNodes", 8, C::OneTres("MaxTRES", "node")),
    (&[("MaxSubmitJobs", 4)], "MaxSubmit", 9, C::Count("MaxSubmit")),
    (&[("MaxWallDurationPerJob", 4)], "MaxWall", 11, C::Wall("MaxWall")),
    (&[("Organization", 1)], "Org", 20, C::Org),
    (&[("ParentID", 7)], "ParentID", 8, C::ParentId),
    (&[("ParentName", 7)], "ParentName", 10, C::ParentName),
    (&[("Partition", 4)], "Partition", 10, C::Partition),
    (&[("Priority", 3)], "Priority", 10, C::Priority),
    (&[("QOSLevel", 3)], "QOS", 20, C::Qos),
    (&[("Share", 1), ("FairShare", 2)], "Share", 9, C::Share),
    (&[("User", 1)], "User", 10, C::User),
];

/// One row of a listing: an account, a user, or an association (the
/// account's own, or a user's).
struct RowOf<'a> {
    account: Option<&'a assoc::Account>,
    user: Option<&'a assoc::User>,
    link: Option<&'a assoc::Link>,
    /// The association's account name (tree-indented with `tree`).
    acct_name: String,
}

fn columns(format: &[String], default: &str, tree: bool) -> Result<Vec<(&'static str, i32, C)>, Output> {
    let fields = crate::sacctmgr::read_format(format, default, FIELDS)?;
    Ok(fields
        .into_iter()
        .map(|((_, col, len, c), width)| {
            // (the tree's account column is left-aligned and wider)
            let len = if *c == C::Account && tree { -20 } else { *len };
            (*col, width.unwrap_or(len), *c)
        })
        .collect())
}

/// A listing of `rows` in `cols`.
fn table(o: &Opts, cols: &[(&'static str, i32, C)], rows: &[RowOf], a: &Assocs, cluster: &str) -> String {
    let fields: Vec<Field<usize>> =
        cols.iter().enumerate().map(|(i, (name, len, _))| Field::new(*len, name, Kind::Str, i)).collect();
    let l = Layout {
        cols: (0..cols.len()).collect(),
        widths: cols.iter().map(|c| c.1).collect(),
        parsable: o.parsable,
        delimiter: None,
        header: !o.noheader,
    };
    let mut out = l.header_text(&fields);
    // an association's limits, its own or passed down
    let limits_of = |r: &RowOf| match (r.link, r.account) {
        (Some(l), _) => Some(a.link_limits(l)),
        (None, Some(x)) => Some(a.account_limits(&x.name)),
        _ => None,
    };
    // an association's QOS list and default, its own or inherited
    let qos_of = |r: &RowOf| match (r.link, r.account) {
        (Some(l), _) => a.link_qos(l),
        (None, Some(x)) => a.account_qos(&x.name),
        _ => (vec![], None),
    };
    for r in rows {
        out.push_str(&l.row(&fields, |i| {
            let assoc = r.link.is_some() || r.account.is_some() && r.user.is_none();
            match cols[*i].2 {
                C::Account => Val::s(r.acct_name.clone()),
                // (slurmdbd makes root an administrator; Spur keeps no
                // admin levels for others)
                C::Admin => Val::s(if r.user.is_some_and(|u| u.name == "root") { "Administrator" } else { "None" }),
                C::Cluster if assoc => Val::s(cluster),
                C::DefAcct => Val::Str(r.user.map(|u| u.default_account.clone()).filter(|d| !d.is_empty())),
                C::DefQos if assoc => Val::Str(qos_of(r).1),
                C::Descr => Val::Str(r.account.map(|x| x.description.clone())),
                C::Id if assoc => Val::n(u64::from(r.link.map(|l| l.id).or(r.account.map(|x| x.id)).unwrap_or(0))),
                C::Org => Val::Str(r.account.map(|x| x.organization.clone())),
                C::ParentId if r.link.is_none() => {
                    Val::Num(r.account.and_then(|x| a.account(&x.parent)).map(|p| u64::from(p.id)))
                }
                C::ParentName if r.link.is_none() => {
                    Val::Str(r.account.map(|x| x.parent.clone()).filter(|p| !p.is_empty()))
                }
                C::Priority if assoc => Val::Num(limits_of(r).and_then(|l| l.priority).map(u64::from)),
                C::Count(k) if assoc => Val::Num(
                    limits_of(r)
                        .and_then(|l| match k {
                            "GrpJobs" => l.grp_jobs,
                            "GrpSubmit" => l.grp_submit,
                            "MaxJobs" => l.max_jobs,
                            _ => l.max_submit,
                        })
                        .map(u64::from),
                ),
                C::Wall(k) if assoc => Val::Secs(
                    limits_of(r)
                        .and_then(|l| if k == "GrpWall" { l.grp_wall } else { l.max_wall })
                        .map(|m| u64::from(m) * 60),
                ),
                C::Tres(k) if assoc => Val::Str(limits_of(r).and_then(|l| l.tres.get(k).cloned())),
                C::OneTres(k, t) if assoc => Val::Num(limits_of(r).and_then(|l| l.tres_count(k, t))),
                C::Qos if assoc => Val::s(qos_of(r).0.join(",")),
                C::Share if assoc => {
                    Val::n(u64::from(r.link.map(|l| l.shares).or(r.account.map(|x| x.shares)).unwrap_or(1)))
                }
                C::User => Val::Str(r.link.map(|l| l.user.clone()).or(r.user.map(|u| u.name.clone()))),
                _ => Val::null(),
            }
        }));
    }
    out
}

/// The associations in sacctmgr's order: under each account (from root)
/// its own association, then its users by name, then its accounts by
/// name, each followed by what is below it.
fn tree_order<'a>(a: &'a Assocs, tree: bool) -> Vec<RowOf<'a>> {
    let mut out = vec![];
    fn walk<'a>(a: &'a Assocs, name: &str, depth: usize, tree: bool, out: &mut Vec<RowOf<'a>>) {
        let Some(acc) = a.account(name) else { return };
        if depth > 64 {
            return;
        }
        let indent = if tree { " ".repeat(depth) } else { String::new() };
        out.push(RowOf { account: Some(acc), user: None, link: None, acct_name: format!("{}{}", indent, acc.name) });
        let mut users: Vec<&assoc::Link> = a.links.iter().filter(|l| l.account == acc.name).collect();
        users.sort_by(|x, y| x.user.cmp(&y.user));
        for l in users {
            let name = if tree { format!("{} {}", indent, acc.name) } else { acc.name.clone() };
            out.push(RowOf { account: Some(acc), user: a.user(&l.user), link: Some(l), acct_name: name });
        }
        let mut kids: Vec<&assoc::Account> = a.accounts.iter().filter(|c| c.parent == acc.name).collect();
        kids.sort_by(|x, y| x.name.cmp(&y.name));
        for k in kids {
            walk(a, &k.name, depth + 1, tree, out);
        }
    }
    walk(a, "root", 0, tree, &mut out);
    out
}

const ASSOC_FORMAT: &str = "Cluster,Account,User,Part,Share,Priority,GrpJ,GrpTRES,GrpS,GrpWall,GrpTRESMins,MaxJ,\
MaxTRES,MaxTRESPerN,MaxS,MaxW,MaxTRESMins,QOS,DefaultQOS,GrpTRESRunMins";

/// `list account|user|assoc`.
pub fn render_list(o: &Opts, c: &AssocCmd, a: &Assocs, cluster: &str) -> Output {
    let named = |n: &str, list: &[String]| list.is_empty() || list.iter().any(|x| x.eq_ignore_ascii_case(n));
    match c.what {
        Some(What::Account) => {
            let default = if c.with_assoc {
                "Acc,Des,O,Cl,ParentN,U,Share,Priority,GrpJ,GrpN,GrpCPUs,GrpMEM,GrpS,GrpWall,GrpCPUMins,MaxJ,MaxN,\
                 MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS"
                    .replace(' ', "")
            } else {
                "Acc,Des,O".into()
            };
            let cols = match columns(&c.format, &default, false) {
                Ok(x) => x,
                Err(e) => return e,
            };
            let parent = c.settings.iter().find(|(k, _)| k == "parent").map(|(_, v)| v.as_str());
            let mut accts: Vec<&assoc::Account> = a
                .accounts
                .iter()
                .filter(|x| named(&x.name, &c.names) && parent.is_none_or(|p| x.parent == p))
                .collect();
            accts.sort_by(|x, y| x.name.cmp(&y.name));
            let mut rows = vec![];
            for acc in accts {
                rows.push(RowOf { account: Some(acc), user: None, link: None, acct_name: acc.name.clone() });
                if c.with_assoc {
                    let mut users: Vec<&assoc::Link> = a.links.iter().filter(|l| l.account == acc.name).collect();
                    users.sort_by(|x, y| x.user.cmp(&y.user));
                    for l in users {
                        rows.push(RowOf { account: Some(acc), user: None, link: Some(l), acct_name: acc.name.clone() });
                    }
                }
            }
            Output::ok(table(o, &cols, &rows, a, cluster))
        }
        Some(What::User) => {
            let default = if c.with_assoc {
                "U,DefaultA,Ad,Cl,Acc,Part,Share,Priority,MaxJ,MaxN,MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS"
            } else {
                "U,DefaultA,Ad"
            };
            let cols = match columns(&c.format, default, false) {
                Ok(x) => x,
                Err(e) => return e,
            };
            let mut users: Vec<&assoc::User> = a
                .users
                .iter()
                .filter(|u| named(&u.name, &c.names))
                .filter(|u| {
                    c.accounts.is_empty() || a.links.iter().any(|l| l.user == u.name && named(&l.account, &c.accounts))
                })
                .collect();
            users.sort_by(|x, y| x.name.cmp(&y.name));
            let mut rows = vec![];
            for u in users {
                if c.with_assoc {
                    let mut links: Vec<&assoc::Link> =
                        a.links.iter().filter(|l| l.user == u.name && named(&l.account, &c.accounts)).collect();
                    links.sort_by(|x, y| x.account.cmp(&y.account));
                    for l in links {
                        rows.push(RowOf {
                            account: a.account(&l.account),
                            user: Some(u),
                            link: Some(l),
                            acct_name: l.account.clone(),
                        });
                    }
                } else {
                    rows.push(RowOf { account: None, user: Some(u), link: None, acct_name: String::new() });
                }
            }
            Output::ok(table(o, &cols, &rows, a, cluster))
        }
        _ => {
            let cols = match columns(&c.format, ASSOC_FORMAT, c.tree) {
                Ok(x) => x,
                Err(e) => return e,
            };
            let rows: Vec<RowOf> = tree_order(a, c.tree)
                .into_iter()
                .filter(|r| {
                    let acct = r.account.map(|x| x.name.as_str()).unwrap_or_default();
                    named(acct, &c.accounts)
                        && named(acct, &c.names)
                        && (c.users.is_empty() || r.link.is_some_and(|l| c.users.contains(&l.user)))
                })
                .collect();
            Output::ok(table(o, &cols, &rows, a, cluster))
        }
    }
}

/// What sacctmgr says of a refusal, and its exit code.
fn refusal(c: &AssocCmd, r: &Refusal, cluster: &str) -> Output {
    let out = |stdout: &str, stderr: String| Output { stdout: stdout.into(), stderr, code: 1 };
    match r {
        Refusal::Nothing => match c.kind {
            0 => out(" Nothing new added.\n", String::new()),
            2 => out(" Nothing modified\n", String::new()),
            _ => out(" Nothing deleted\n", String::new()),
        },
        Refusal::NoAccountGiven => Output::err(" Need name of account to add user to.\n", 1),
        Refusal::NoParent(a) => out(
            "",
            format!(
                " Parent account '{}' doesn't exist on cluster {}\n        Contact your admin to add this account.\n{}",
                a,
                cluster,
                if c.kind == 0 { " No associations created.\n" } else { "" }
            ),
        ),
        Refusal::NoAccount(a) => out(
            " Nothing new added.\n",
            format!(" This account '{}' doesn't exist.\n        Contact your admin to add this account.\n", a),
        ),
        Refusal::BadValue(k, v) => {
            // (sacctmgr's two messages: the value, then the word as typed)
            let typed = c
                .settings
                .iter()
                .find(|(_, x)| x == v)
                .map(|(key, x)| format!("{}={}", key, x))
                .unwrap_or_else(|| format!("{}={}", k, v));
            // (a time limit's own words: assoc-limits-22.05.md 9)
            let first = if matches!(*k, "MaxWall" | "GrpWall") {
                format!(" Bad {} time format: {}\n", k, typed)
            } else {
                format!("sacctmgr: error: Invalid value for {} ({})\n", k, v)
            };
            out("", format!("{first} Unknown option: {typed}\n Use keyword 'where' to modify condition\n"))
        }
        Refusal::Unsupported(k) => out(
            "",
            format!(
                " Spur keeps no association setting like '{}': accounts and users have Fairshare, QOS and \
                 limits, accounts Description, Organization and Parent, users DefaultAccount\n",
                k
            ),
        ),
        Refusal::NotAssociated(acct, users) => {
            let mut t =
                format!(" Can't modify because these users aren't associated with new default account '{}'...\n", acct);
            for u in users {
                t.push_str(&format!("  U = {} C = {}\n", u, cluster));
            }
            out(&t, String::new())
        }
        Refusal::Loop => out("", " Error with request: The account is its own parent or ancestor\n".into()),
        // (22.05 changes nothing, says why, and exits 0)
        Refusal::NoDefaultAccess(stray) => {
            let mut t = String::from(
                " These associations don't have access to their default qos.\n \
                 Please give them access before they the default can be set to this.\n",
            );
            for (d, acc, user) in stray {
                t.push_str(&format!("  DefQOS = {:<10} C = {:<10} A = {:<20} ", d, cluster, acc));
                if let Some(u) = user {
                    t.push_str(&format!("U = {:<9}", u));
                }
                t.push('\n');
            }
            Output { stdout: String::new(), stderr: t, code: 0 }
        }
        Refusal::BadQos(name, valid) => {
            let typed = c
                .settings
                .iter()
                .find(|(k, v)| is(k.trim_end_matches(['+', '-']), "qoslevel", 1) && v.contains(name.as_str()))
                .or_else(|| c.settings.iter().find(|(_, v)| v.contains(name.as_str())))
                .map(|(k, v)| format!("{}={}", k, v))
                .unwrap_or_default();
            out(
                "",
                format!(
                    "sacctmgr: error: You gave a bad qos '{}'. Valid QOS's are {}\n Unknown option: {}\n \
                     Use keyword 'where' to modify condition\n",
                    name, valid, typed
                ),
            )
        }
    }
}

/// The echo of an add (printed before the question and the change).
fn echo_add(c: &AssocCmd, p: &assoc::Planned, cluster: &str) -> String {
    let mut out = String::new();
    let given = |k: &str, min: usize| c.settings.iter().any(|(x, _)| is(x, k, min));
    let shares_given = given("fairshare", 2) || given("shares", 1);
    if c.what == Some(What::Account) {
        out.push_str(" Adding Account(s)\n");
        for a in &p.accounts {
            out.push_str(&format!("  {}\n", a.name));
        }
        let first = p.accounts.first();
        out.push_str(" Settings\n");
        out.push_str(&format!(
            "  Description     = {}\n",
            if given("description", 1) { first.map(|a| a.description.as_str()).unwrap_or("") } else { "Account Name" }
        ));
        out.push_str(&format!(
            "  Organization    = {}\n",
            if given("organization", 1) {
                first.map(|a| a.organization.as_str()).unwrap_or("")
            } else {
                "Parent/Account Name"
            }
        ));
        out.push_str(" Associations\n");
        for a in &p.accounts {
            out.push_str(&format!("  A = {:<10.10} C = {:<10.10}\n", a.name, cluster));
        }
        // (the parent is listed with the limits, or alone when not root)
        let parent = first.map(|a| a.parent.as_str()).unwrap_or("root");
        let qos_given = given("qoslevel", 1) || given("qos+", 4) || given("qos-", 4);
        let def_given = given("defaultqos", 3);
        if shares_given || parent != "root" || qos_given || def_given {
            out.push_str(" Settings\n");
            if shares_given {
                out.push_str(&format!("  Fairshare     = {}\n", first.map(|a| a.shares).unwrap_or(1)));
            }
            out.push_str(&format!("  Parent        = {}\n", parent));
            if let Some(a) = first.filter(|_| qos_given) {
                out.push_str(&format!("  QOS           = {}\n", a.qos.join(",")));
            }
            if let Some(d) = first.and_then(|a| a.def_qos.as_ref()).filter(|_| def_given) {
                out.push_str(&format!("  DefQOS        = {}\n", d));
            }
        }
    } else {
        if !p.new_users.is_empty() {
            out.push_str(" Adding User(s)\n");
            for u in &p.new_users {
                out.push_str(&format!("  {}\n", u));
            }
            if p.default_given {
                let def = p.users.first().map(|u| u.default_account.as_str()).unwrap_or("");
                out.push_str(&format!(" Settings =\n  Default Account = {}\n", def));
            }
        }
        out.push_str(" Associations =\n");
        for l in &p.links {
            out.push_str(&format!("  U = {:<9.9} A = {:<10.10} C = {:<10.10}\n", l.user, l.account, cluster));
        }
        out.push_str(" Non Default Settings\n");
        let first = p.links.first();
        if shares_given {
            out.push_str(&format!("  Fairshare     = {}\n", first.map(|l| l.shares).unwrap_or(1)));
        }
        if let Some(l) = first.filter(|l| !l.qos.is_empty()) {
            out.push_str(&format!("  QOS           = {}\n", l.qos.join(",")));
        }
        if let Some(d) = first.and_then(|l| l.def_qos.as_ref()) {
            out.push_str(&format!("  DefQOS        = {}\n", d));
        }
    }
    out
}

/// What a modify or delete lists (slurmdbd's own lines).
fn listed(c: &AssocCmd, p: &assoc::Planned, cluster: &str) -> String {
    let mut out = String::new();
    let mut section = |title: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            out.push_str(title);
            for l in lines {
                out.push_str(&format!("  {}\n", l));
            }
        }
    };
    match (c.what, c.kind) {
        (Some(What::Account), 2) => {
            section(" Modified accounts...\n", p.modified_accounts.clone());
            section(
                " Modified account associations...\n",
                p.modified_assocs
                    .iter()
                    .map(|(acc, parent)| {
                        if parent.is_empty() {
                            format!("C = {:<10} A = {}", cluster, acc)
                        } else {
                            format!("C = {:<10} A = {} of {}", cluster, acc, parent)
                        }
                    })
                    // (then the user associations a QOS change reaches, L7)
                    .chain(
                        p.touched_links
                            .iter()
                            .map(|(u, acc)| format!("C = {:<10} A = {:<20} U = {:<9}", cluster, acc, u)),
                    )
                    .collect(),
            );
        }
        (Some(What::User), 2) => {
            section(" Modified users...\n", p.modified_users.clone());
            section(
                " Modified user associations...\n",
                p.touched_links
                    .iter()
                    .map(|(u, acc)| format!("C = {:<10} A = {:<20} U = {:<9}", cluster, acc, u))
                    .collect(),
            );
        }
        (Some(What::Account), _) => section(" Deleting accounts...\n", p.named_accounts.clone()),
        (Some(What::User), _) if p.del_links.is_empty() => section(" Deleting users...\n", p.del_users.clone()),
        (Some(What::User), _) => {
            section(
                " Deleting user associations...\n",
                p.touched_links
                    .iter()
                    .map(|(u, acc)| format!("C = {:<10} A = {:<10} U = {:<9}", cluster, acc, u))
                    .collect(),
            );
            section(" Deleting users (No Associations)...\n", p.emptied_users.clone());
        }
        _ => {}
    }
    out
}

/// The jobs not yet finished in the associations a delete removes, as
/// slurmdbd lists them when it refuses (`JobID = ...`).
fn active_jobs(p: &assoc::Planned, jobs: &[spur_core::model::Job], cluster: &str) -> String {
    let mut out = String::new();
    for j in jobs.iter().filter(|j| !j.state.is_finished()) {
        let acct = j.desc.account.as_deref().unwrap_or_default();
        let hit = p.del_accounts.iter().any(|a| a.eq_ignore_ascii_case(acct))
            || p.del_users.contains(&j.user_name)
            || p.del_links.iter().any(|(u, a)| *u == j.user_name && a.eq_ignore_ascii_case(acct));
        if hit {
            out.push_str(&format!(
                "  JobID = {:<10} C = {:<10} A = {:<10} U = {:<9}\n",
                j.job_id, cluster, acct, j.user_name
            ));
        }
    }
    out
}

/// An add, modify or delete: planned against the records `a`, echoed,
/// asked about unless `-i`, and committed by `send`; `jobs` are the jobs
/// the caller sees (listed when a delete is refused for them).
pub fn change(
    o: &Opts,
    cluster: &str,
    send: impl FnOnce(AssocRequest) -> Result<Vec<String>, ClientError>,
    c: &AssocCmd,
    a: &Assocs,
    qos: &[spur_core::qos::Qos],
    jobs: &[spur_core::model::Job],
) -> Output {
    let entity = match c.what {
        Some(What::Account) => Entity::Account,
        Some(What::User) => Entity::User,
        _ => {
            return Output::err(
                " Associations are added, modified and deleted with 'account' and 'user' (sacctmgr add user NAME account=A)\n",
                1,
            )
        }
    };
    let op = match c.kind {
        0 => Op::Add,
        2 => Op::Modify,
        _ => Op::Delete,
    };
    if c.kind == 2 && c.settings.is_empty() {
        return Output::err(" You didn't give me anything to set\n", 1);
    }
    if c.names.is_empty() {
        return match (c.kind, entity) {
            (0, Entity::Account) => Output::err(" Need name of account to add.\n", 1),
            (0, Entity::User) => Output::err(" Need name of user to add.\n", 1),
            (3, _) => Output::err(" No conditions given to remove, not executing.\n", 1),
            _ => Output::err(" No conditions given to modify, not executing.\n", 1),
        };
    }
    let change =
        Change { op, entity, names: c.names.clone(), accounts: c.accounts.clone(), settings: c.settings.clone() };
    let planned = match assoc::plan(a, &change, qos) {
        Ok(p) => p,
        Err(r) => return refusal(c, &r, cluster),
    };
    let req = AssocRequest {
        op: match op {
            Op::Add => AssocOp::Add,
            Op::Modify => AssocOp::Modify,
            Op::Delete => AssocOp::Delete,
        } as i32,
        entity: match entity {
            Entity::Account => AssocEntity::Account,
            Entity::User => AssocEntity::User,
        } as i32,
        names: c.names.clone(),
        accounts: c.accounts.clone(),
        settings: c
            .settings
            .iter()
            .map(|(k, v)| QosSetting { key: k.clone(), op: "=".into(), value: v.clone() })
            .collect(),
    };
    let mut out = Output::default();
    let failed = |out: &mut Output, e: ClientError| {
        out.code = 1;
        match e {
            ClientError::Slurm(code, _) => {
                let text = spur_core::errors::strerror(code);
                out.stderr.push_str(&match (c.kind, entity) {
                    (0, Entity::Account) => format!(" Problem adding accounts: {}\n", text),
                    (0, Entity::User) => format!(" Problem adding users: {}\n", text),
                    _ if code == spur_core::errors::ESLURM_ACCESS_DENIED => format!(
                        "sacctmgr: error: Your user doesn't have privilege to perform this action\n Error with request: {}\n",
                        text
                    ),
                    _ if code == spur_core::errors::ESLURM_JOBS_RUNNING_ON_ASSOC => {
                        format!(" Error with request: {}\n{}", text, active_jobs(&planned, jobs, cluster))
                    }
                    _ => format!(" Error with request: {}\n", text),
                });
            }
            e => out.stderr.push_str(&format!("sacctmgr: error: {}\n", e)),
        }
    };
    if c.kind == 0 {
        out.stdout = echo_add(c, &planned, cluster);
        if !crate::sacctmgr::commit_check(o, &mut out.stdout) {
            out.stdout.push_str(" Changes Discarded\n");
            return out;
        }
        if let Err(e) = send(req) {
            failed(&mut out, e);
        }
        return out;
    }
    // a modify or delete lists what it changed once slurmdbd made the
    // change (without -i, before the question: Spur asks before it changes)
    let list = listed(c, &planned, cluster);
    if o.immediate {
        match send(req) {
            Ok(_) => out.stdout = list,
            Err(e) => failed(&mut out, e),
        }
        return out;
    }
    out.stdout = list;
    if !crate::sacctmgr::commit_check(o, &mut out.stdout) {
        out.stdout.push_str(" Changes Discarded\n");
        return out;
    }
    if let Err(e) = send(req) {
        failed(&mut out, e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::qos::Qos;

    fn words(kind: usize, what: What, w: &[&str]) -> AssocCmd {
        parse_words(kind, what, w).unwrap()
    }

    fn records() -> Assocs {
        let mut a = Assocs::default();
        let acct = |n: &str, p: &str| assoc::Account {
            id: 0,
            name: n.into(),
            description: format!("{n} group"),
            organization: "org".into(),
            parent: p.into(),
            shares: 1,
            qos: vec![],
            def_qos: None,
            limits: Default::default(),
        };
        a.put(
            &[acct("research", "root"), acct("ml", "research")],
            &[assoc::User { name: "bob".into(), default_account: "ml".into() }],
            &[assoc::Link::new("root", "research", 1), assoc::Link::new("bob", "ml", 2)],
        );
        a
    }

    #[test]
    fn words_are_read_per_entity() {
        let c = words(0, What::User, &["bob,amy", "Account=ML", "Fairshare=2"]);
        assert_eq!((c.names.clone(), c.accounts.clone()), (vec!["bob".into(), "amy".into()], vec!["ml".into()]));
        assert_eq!(c.settings, [("Fairshare".to_string(), "2".to_string())]);
        let c = words(2, What::User, &["where", "name=bob", "account=ml", "set", "fairshare=5"]);
        assert_eq!((c.names.len(), c.accounts.len(), c.settings.len()), (1, 1, 1));
        let c = words(1, What::Assoc, &["tree", "format=account,user,share"]);
        assert!(c.tree && c.format.len() == 3);
        assert!(parse_words(1, What::Account, &["where", "bogus=1"]).is_err());
    }

    #[test]
    fn listings_follow_the_tree() {
        let a = records();
        let o = Opts { parsable: crate::acctprint::Parsable::NoEnding, ..Default::default() };
        let c = words(1, What::Assoc, &["format=account,user,share"]);
        assert_eq!(
            render_list(&o, &c, &a, "c").stdout,
            "Account|User|Share\nroot||1\nroot|root|1\nresearch||1\nresearch|root|1\nml||1\nml|bob|2\n"
        );
        let c = words(1, What::Assoc, &["tree", "format=account,user"]);
        let out = render_list(&Opts::default(), &c, &a, "c").stdout;
        let names: Vec<&str> = out.lines().skip(2).map(|l| l[..20].trim_end()).collect();
        assert_eq!(names, ["root", " root", " research", "  research", "  ml", "   ml"]);
        let c = words(1, What::User, &[]);
        assert_eq!(render_list(&o, &c, &a, "c").stdout, "User|Def Acct|Admin\nbob|ml|None\nroot|root|Administrator\n");
        let c = words(1, What::Account, &["format=acc,parentn"]);
        assert_eq!(render_list(&o, &c, &a, "c").stdout, "Account|ParentName\nml|research\nresearch|root\nroot|\n");
    }

    #[test]
    fn changes_are_planned_and_echoed() {
        let a = records();
        let o = Opts { immediate: true, ..Default::default() };
        let none: &[spur_core::model::Job] = &[];
        let c = words(0, What::Account, &["physics", "Fairshare=3"]);
        let out = change(&o, "c", |r| Ok(r.names), &c, &a, &[Qos::normal()], none);
        assert_eq!(
            out.stdout,
            " Adding Account(s)\n  physics\n Settings\n  Description     = Account Name\n  \
             Organization    = Parent/Account Name\n Associations\n  A = physics    C = c         \n \
             Settings\n  Fairshare     = 3\n  Parent        = root\n"
        );
        // an existing account adds nothing, and nothing is sent
        let c = words(0, What::Account, &["ml"]);
        let out = change(&o, "c", |_| unreachable!("nothing is sent"), &c, &a, &[Qos::normal()], none);
        assert_eq!((out.code, out.stdout.as_str()), (1, " Nothing new added.\n"));
        let c = words(0, What::User, &["amy", "account=nosuch"]);
        let out = change(&o, "c", |_| unreachable!("nothing is sent"), &c, &a, &[Qos::normal()], none);
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (
                1,
                " Nothing new added.\n",
                " This account 'nosuch' doesn't exist.\n        Contact your admin to add this account.\n"
            )
        );
        // refused by the controller: a non-administrator's delete
        let c = words(3, What::Account, &["ml"]);
        let denied = |_| Err(ClientError::Slurm(spur_core::errors::ESLURM_ACCESS_DENIED, String::new()));
        let out = change(&o, "c", denied, &c, &a, &[Qos::normal()], none);
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (
                1,
                "",
                "sacctmgr: error: Your user doesn't have privilege to perform this action\n \
                 Error with request: Access/permission denied\n"
            )
        );
        // a user's last association takes the user with it
        let c = words(3, What::User, &["bob", "where", "account=ml"]);
        let out = change(&o, "c", |r| Ok(r.names), &c, &a, &[Qos::normal()], none);
        assert_eq!(
            out.stdout,
            " Deleting user associations...\n  C = c          A = ml         U = bob      \n \
             Deleting users (No Associations)...\n  bob\n"
        );
    }
}
