//! Accounts, users and associations (slurmdbd's tables, which Spur keeps
//! in its replicated state), the usage each association has run up, and
//! the fair-share factor priority/multifactor takes from them (Slurm's
//! Fair Tree, the default `PriorityFlags` since 19.05).
//!
//! - An account has a parent (`root` at the top) and a number of shares
//!   (`Fairshare=`, 1 by default); a user is associated with one or more
//!   accounts ([`Link`]), each with its own shares, and has a default
//!   account, which a job that names none is charged to.
//! - Usage: a job charges its association its billing (its CPUs, or its
//!   TRES weighted by its partition's `TRESBillingWeights`, times its QOS's
//!   `UsageFactor`) for every second it runs, decayed with
//!   `PriorityDecayHalfLife` (7 days by default; 0: no decay), as
//!   priority_multifactor's decay thread does each `PriorityCalcPeriod`.
//!   A finished run is added to its [`Link`] when the job ends
//!   ([`Assocs::charge`]); a running job's is counted as of now by
//!   whoever reads the usage ([`run_usage`]).
//! - Fair Tree: at each level of the account tree, an association's level
//!   fair-share is its share of its siblings' shares over its share of
//!   their usage; walking the tree with the highest first ranks every user
//!   association, and a user's factor is its rank over the number of user
//!   associations (ties share a rank). [`fair_tree`].
//!
//! A cluster starts with what slurmdbd makes with a cluster: the account
//! `root` and the user `root` in it. Measured on 22.05 in
//! `crates/spur-sched/tests/fairshare-22.05.md`.

pub use crate::assoc_limits::Limits;
use serde::{Deserialize, Serialize};
use spur_grammar::keyword::abbrev as is;
use std::collections::HashMap;

/// An account (an account association: Spur keeps one per account, on the
/// cluster, with no partition).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// The association's id (`sshare -o ID`, `sacctmgr show assoc
    /// format=id`): 1 for root, then one more per association added.
    pub id: u32,
    pub name: String,
    pub description: String,
    pub organization: String,
    /// The parent account; empty for `root`.
    pub parent: String,
    /// `Fairshare=` (raw shares).
    pub shares: u32,
    /// `QOS=`: the QOS its jobs may run in (empty: its parent's).
    #[serde(default)]
    pub qos: Vec<String>,
    /// `DefaultQOS=` (`None`: its parent's).
    #[serde(default)]
    pub def_qos: Option<String>,
    /// Its own limits and priority (from format version 13).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<13, _>")]
    pub limits: Limits,
}

/// A user record: its default account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub name: String,
    pub default_account: String,
}

/// A user's association with an account, and the usage it has run up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// The association's id.
    pub id: u32,
    pub user: String,
    pub account: String,
    pub shares: u32,
    /// `QOS=` (empty: its account's), `DefaultQOS=` (`None`: its account's).
    #[serde(default)]
    pub qos: Vec<String>,
    #[serde(default)]
    pub def_qos: Option<String>,
    /// Decayed CPU-seconds as of `usage_at` (finished runs only).
    #[serde(default)]
    pub usage: f64,
    #[serde(default)]
    pub usage_at: i64,
    /// Its own limits and priority (from format version 13).
    #[serde(default, skip_serializing_if = "spur_format::skip_before::<13, _>")]
    pub limits: Limits,
}

/// The accounts, users and associations of the cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assocs {
    pub accounts: Vec<Account>,
    pub users: Vec<User>,
    pub links: Vec<Link>,
}

impl Default for Assocs {
    /// What slurmdbd makes with a cluster: account `root` and user `root`.
    fn default() -> Self {
        Assocs {
            accounts: vec![Account {
                id: 1,
                name: "root".into(),
                description: "default root account".into(),
                organization: "root".into(),
                parent: String::new(),
                shares: 1,
                qos: vec![],
                def_qos: None,
                limits: Limits::default(),
            }],
            users: vec![User { name: "root".into(), default_account: "root".into() }],
            links: vec![Link { id: 2, ..Link::new("root", "root", 1) }],
        }
    }
}

impl Account {
    /// An account below `parent` with `shares`, its description and
    /// organization its name, no QOS list of its own (id given by `put`).
    pub fn new(name: &str, parent: &str, shares: u32) -> Account {
        Account {
            id: 0,
            name: name.into(),
            description: name.into(),
            organization: name.into(),
            parent: parent.into(),
            shares,
            qos: vec![],
            def_qos: None,
            limits: Limits::default(),
        }
    }
}

impl Link {
    pub fn new(user: &str, account: &str, shares: u32) -> Link {
        Link {
            id: 0,
            user: user.into(),
            account: account.into(),
            shares,
            qos: vec![],
            def_qos: None,
            usage: 0.0,
            usage_at: 0,
            limits: Limits::default(),
        }
    }
}

impl Assocs {
    /// The effective limits of account `name`'s association: its own, and
    /// the `Max*` limits and priority of the accounts above it where it
    /// sets none.
    pub fn account_limits(&self, name: &str) -> Limits {
        self.ancestry(name).iter().rev().fold(Limits::default(), |up, acc| acc.limits.inherit(&up))
    }

    /// The effective limits of a user association: its own, then its
    /// account's passed down.
    pub fn link_limits(&self, l: &Link) -> Limits {
        l.limits.inherit(&self.account_limits(&l.account))
    }

    /// The accounts from `name` up to root (at most 64 levels).
    pub fn ancestry(&self, name: &str) -> Vec<&Account> {
        let mut chain: Vec<&Account> = vec![];
        let mut at = self.account(name);
        while let Some(acc) = at {
            if chain.len() > 64 || chain.iter().any(|c| c.name == acc.name) {
                break;
            }
            chain.push(acc);
            at = self.account(&acc.parent);
        }
        chain
    }

    /// The user associations below account `name` that take its value of
    /// any of the limits `keys` (set none of their own, nor does an account
    /// between), in slurmdbd's order: under each account its newest child
    /// first, an account followed by what is below it.
    pub fn inheriting_links(&self, name: &str, keys: &[&str]) -> Vec<&Link> {
        fn walk<'a>(a: &'a Assocs, name: &str, keys: &[&str], depth: usize, out: &mut Vec<&'a Link>) {
            if depth > 64 {
                return;
            }
            let lacks = |l: &Limits| keys.iter().any(|k| !l.sets(k));
            let mut kids: Vec<(u32, Option<&'a Link>, Option<&'a Account>)> =
                a.links.iter().filter(|l| l.account == name).map(|l| (l.id, Some(l), None)).collect();
            kids.extend(a.accounts.iter().filter(|c| c.parent == name).map(|c| (c.id, None, Some(c))));
            kids.sort_by_key(|k| std::cmp::Reverse(k.0));
            for (_, link, acc) in kids {
                match (link, acc) {
                    (Some(l), _) if lacks(&l.limits) => out.push(l),
                    (_, Some(c)) if lacks(&c.limits) => walk(a, &c.name, keys, depth + 1, out),
                    _ => {}
                }
            }
        }
        let mut out = vec![];
        walk(self, name, keys, 0, &mut out);
        out
    }

    /// Whether any association sets a limit or a priority.
    pub fn any_limits(&self) -> bool {
        self.accounts.iter().any(|a| !a.limits.is_empty()) || self.links.iter().any(|l| !l.limits.is_empty())
    }

    pub fn account(&self, name: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.name.eq_ignore_ascii_case(name))
    }
    pub fn user(&self, name: &str) -> Option<&User> {
        self.users.iter().find(|u| u.name == name)
    }
    pub fn link(&self, user: &str, account: &str) -> Option<&Link> {
        self.links.iter().find(|l| l.user == user && l.account.eq_ignore_ascii_case(account))
    }
    /// A user's default account, if the user has a record.
    pub fn default_account(&self, user: &str) -> Option<&str> {
        self.user(user).map(|u| u.default_account.as_str())
    }
    /// The QOS an account's jobs may run in and its default QOS: its own,
    /// else its parent's (`normal` at the top), as `sacctmgr list assoc`
    /// shows them.
    pub fn account_qos(&self, account: &str) -> (Vec<String>, Option<String>) {
        let (mut list, mut def) = (None, None);
        let mut a = account;
        for _ in 0..=self.accounts.len() {
            let Some(r) = self.account(a) else { break };
            if list.is_none() && !r.qos.is_empty() {
                list = Some(r.qos.clone());
            }
            if def.is_none() {
                def = r.def_qos.clone();
            }
            if r.parent.is_empty() {
                break;
            }
            a = &r.parent;
        }
        (list.unwrap_or_else(|| vec!["normal".into()]), def)
    }

    /// A user association's QOS and default QOS (its own, else its
    /// account's).
    pub fn link_qos(&self, l: &Link) -> (Vec<String>, Option<String>) {
        let (list, def) = self.account_qos(&l.account);
        (if l.qos.is_empty() { list } else { l.qos.clone() }, l.def_qos.clone().or(def))
    }

    /// `account` and every account below it.
    pub fn subtree(&self, account: &str) -> Vec<String> {
        let mut out = vec![account.to_string()];
        let mut i = 0;
        while i < out.len() {
            let p = out[i].clone();
            out.extend(self.accounts.iter().filter(|a| a.parent == p).map(|a| a.name.clone()));
            i += 1;
        }
        out
    }
    /// Whether `account` is `of` or below it.
    pub fn is_within(&self, account: &str, of: &str) -> bool {
        let mut a = account;
        for _ in 0..=self.accounts.len() {
            if a == of {
                return true;
            }
            match self.account(a) {
                Some(r) if !r.parent.is_empty() => a = &r.parent,
                _ => return false,
            }
        }
        false
    }

    /// The largest association id given.
    fn last_id(&self) -> u32 {
        self.accounts.iter().map(|a| a.id).chain(self.links.iter().map(|l| l.id)).max().unwrap_or(0)
    }

    /// Add or replace records (by name; a link by user and account, keeping
    /// the usage it has run up); a new association gets the next id.
    pub fn put(&mut self, accounts: &[Account], users: &[User], links: &[Link]) {
        let mut next = self.last_id();
        for a in accounts {
            match self.accounts.iter_mut().find(|x| x.name == a.name) {
                Some(x) => *x = Account { id: x.id, ..a.clone() },
                None => {
                    next += 1;
                    self.accounts.push(Account { id: next, ..a.clone() })
                }
            }
        }
        for u in users {
            match self.users.iter_mut().find(|x| x.name == u.name) {
                Some(x) => *x = u.clone(),
                None => self.users.push(u.clone()),
            }
        }
        for l in links {
            match self.links.iter_mut().find(|x| x.user == l.user && x.account == l.account) {
                Some(x) => {
                    x.shares = l.shares;
                    x.qos = l.qos.clone();
                    x.def_qos = l.def_qos.clone();
                    x.limits = l.limits.clone();
                }
                None => {
                    next += 1;
                    self.links.push(Link { id: next, usage: 0.0, usage_at: 0, ..l.clone() })
                }
            }
        }
    }

    /// Remove accounts (with their links), users (with theirs) and links
    /// (user, account).
    pub fn delete(&mut self, accounts: &[String], users: &[String], links: &[(String, String)]) {
        self.accounts.retain(|a| !accounts.contains(&a.name));
        self.users.retain(|u| !users.contains(&u.name));
        self.links.retain(|l| {
            !accounts.contains(&l.account)
                && !users.contains(&l.user)
                && !links.iter().any(|(u, a)| *u == l.user && *a == l.account)
        });
        // a user whose default account (or association with it) went keeps
        // no default (D10, D18)
        for u in self.users.iter_mut() {
            let gone = accounts.contains(&u.default_account)
                || links.iter().any(|(x, a)| *x == u.name && *a == u.default_account);
            if gone {
                u.default_account.clear();
            }
        }
    }

    /// A finished run: `cpus` billed CPUs for `secs` seconds up to `end`,
    /// charged to `user`'s association with `account` (nothing when it has
    /// none), decayed with half-life `hl` seconds.
    pub fn charge(&mut self, user: &str, account: &str, cpus: f64, secs: i64, end: i64, hl: i64) {
        let Some(l) = self.links.iter_mut().find(|l| l.user == user && l.account.eq_ignore_ascii_case(account)) else {
            return;
        };
        if secs <= 0 || !cpus.is_finite() || cpus <= 0.0 {
            return;
        }
        let at = end.max(l.usage_at);
        let v =
            decay(l.usage, at.saturating_sub(l.usage_at), hl) + run_usage(cpus, end.saturating_sub(secs), end, at, hl);
        if v.is_finite() {
            l.usage = v;
            l.usage_at = at;
        }
    }
}

/// `PriorityDecayHalfLife` in seconds (`[days-]hours[:minutes]`, 7 days
/// by default; 0: usage does not decay).
pub fn half_life(conf: &crate::config::SlurmConf) -> i64 {
    conf.get("PriorityDecayHalfLife")
        .and_then(|v| spur_grammar::time::parse_time_limit(v).ok().flatten())
        .map(|m| i64::from(m) * 60)
        .unwrap_or(7 * 86400)
}

/// `v` decayed over `secs` seconds.
pub fn decay(v: f64, secs: i64, hl: i64) -> f64 {
    if hl <= 0 || secs <= 0 || v == 0.0 {
        v
    } else {
        v * 0.5f64.powf(secs as f64 / hl as f64)
    }
}

/// The usage, as of `at`, of `cpus` billed CPUs that ran from `start` to
/// `end` (at most `at`): each second's CPUs decayed from that second to
/// `at`.
pub fn run_usage(cpus: f64, start: i64, end: i64, at: i64, hl: i64) -> f64 {
    if end <= start || !cpus.is_finite() || cpus <= 0.0 {
        return 0.0;
    }
    if hl <= 0 {
        return cpus * end.saturating_sub(start) as f64;
    }
    let k = std::f64::consts::LN_2 / hl as f64;
    let w = |t: i64| (-(k * at.saturating_sub(t) as f64)).exp();
    (cpus / k * (w(end) - w(start))).max(0.0)
}

/// The seconds a job has run (less the time it was suspended) as of `now`.
pub fn run_secs(job: &crate::model::Job, now: i64) -> i64 {
    use crate::model::JobState;
    if job.start_time == 0 {
        return 0;
    }
    let since = if job.suspend_time != 0 { job.suspend_time } else { job.start_time };
    let current = if job.state == JobState::Suspended { 0 } else { now.saturating_sub(since).max(0) };
    job.pre_sus_time.saturating_add(current).max(0)
}

/// The fair-share factor of each user association, by (user, account).
pub type Factors = HashMap<(String, String), f64>;

/// One association as `sshare` shows it, in the tree's order.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub id: u32,
    pub account: String,
    /// `None`: the account's own association.
    pub user: Option<String>,
    /// 0 for root, then one per level down.
    pub depth: usize,
    /// `None` for root.
    pub raw_shares: Option<u32>,
    pub norm_shares: f64,
    pub raw_usage: f64,
    /// Fair Tree's: its usage over its parent's.
    pub eff_usage: f64,
    /// Shares over usage at its level (infinite without usage); `None` for
    /// root.
    pub level_fs: Option<f64>,
    /// A user association's factor (rank over the user associations).
    pub fs_factor: Option<f64>,
}

/// A running job's usage so far: (user, account, decayed usage as of the
/// time given to [`fair_tree`]).
pub type Running<'a> = (&'a str, &'a str, f64);

/// Fair Tree over the associations: every association's row, in `sshare`'s
/// order (root; under each account its users by name, then its accounts by
/// name, each followed by what is below it), usage as of `at`.
pub fn fair_tree(a: &Assocs, running: &[Running], at: i64, hl: i64) -> Vec<Row> {
    // each link's usage now, then each account's (its links and accounts)
    let mut link_use: HashMap<(&str, &str), f64> = HashMap::new();
    for l in &a.links {
        link_use.insert((l.user.as_str(), l.account.as_str()), decay(l.usage, at.saturating_sub(l.usage_at), hl));
    }
    for (u, acct, v) in running {
        if let Some(l) = a.link(u, acct) {
            *link_use.entry((l.user.as_str(), l.account.as_str())).or_default() += v;
        }
    }
    let mut kids: HashMap<&str, (Vec<&Link>, Vec<&Account>)> = HashMap::new();
    for l in &a.links {
        kids.entry(l.account.as_str()).or_default().0.push(l);
    }
    for acc in &a.accounts {
        if !acc.parent.is_empty() {
            kids.entry(acc.parent.as_str()).or_default().1.push(acc);
        }
    }
    for (users, accts) in kids.values_mut() {
        users.sort_by(|x, y| x.user.cmp(&y.user));
        accts.sort_by(|x, y| x.name.cmp(&y.name));
    }
    fn acct_use<'a>(
        name: &'a str,
        kids: &HashMap<&'a str, (Vec<&'a Link>, Vec<&'a Account>)>,
        link_use: &HashMap<(&str, &str), f64>,
        memo: &mut HashMap<&'a str, f64>,
        depth: usize,
    ) -> f64 {
        if let Some(v) = memo.get(name) {
            return *v;
        }
        let mut sum = 0.0;
        if let Some((users, accts)) = kids.get(name) {
            sum += users
                .iter()
                .map(|l| link_use.get(&(l.user.as_str(), l.account.as_str())).copied().unwrap_or(0.0))
                .sum::<f64>();
            if depth < 64 {
                for c in accts {
                    sum += acct_use(&c.name, kids, link_use, memo, depth + 1);
                }
            }
        }
        memo.insert(name, sum);
        sum
    }
    let mut memo = HashMap::new();
    let root_use = acct_use("root", &kids, &link_use, &mut memo, 0);

    // the rows, in tree order; level fair-share of each
    let mut rows = vec![Row {
        id: a.account("root").map(|r| r.id).unwrap_or(1),
        account: "root".into(),
        user: None,
        depth: 0,
        raw_shares: None,
        norm_shares: 0.0,
        raw_usage: root_use,
        eff_usage: 1.0,
        level_fs: None,
        fs_factor: None,
    }];
    // (row index, children row indexes) for the ranking walk
    let mut children_of: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut stack: Vec<(usize, &str, usize)> = vec![(0, "root", 0)];
    let mut seen = std::collections::HashSet::new();
    while let Some((row, name, depth)) = stack.pop() {
        if !seen.insert(name) || depth > 64 {
            continue;
        }
        let Some((users, accts)) = kids.get(name) else { continue };
        let level: u64 =
            users.iter().map(|l| u64::from(l.shares)).chain(accts.iter().map(|c| u64::from(c.shares))).sum();
        let parent_use = rows[row].raw_usage;
        let mut mine = vec![];
        let mut sub = vec![];
        let push = |rows: &mut Vec<Row>, id: u32, account: &str, user: Option<&str>, shares: u32, usage: f64| {
            let s = if level > 0 { f64::from(shares) / level as f64 } else { 0.0 };
            let u = if parent_use > 0.0 { usage / parent_use } else { 0.0 };
            let lfs = if s == 0.0 {
                0.0
            } else if u == 0.0 {
                f64::INFINITY
            } else {
                s / u
            };
            rows.push(Row {
                id,
                account: account.to_string(),
                user: user.map(str::to_string),
                depth: depth + 1,
                raw_shares: Some(shares),
                norm_shares: s,
                raw_usage: usage,
                eff_usage: u,
                level_fs: Some(lfs),
                fs_factor: None,
            });
            rows.len() - 1
        };
        for l in users {
            let v = link_use.get(&(l.user.as_str(), l.account.as_str())).copied().unwrap_or(0.0);
            mine.push(push(&mut rows, l.id, &l.account, Some(&l.user), l.shares, v));
        }
        for c in accts {
            let v = memo.get(c.name.as_str()).copied().unwrap_or(0.0);
            let i = push(&mut rows, c.id, &c.name, None, c.shares, v);
            mine.push(i);
            sub.push((i, c.name.as_str(), depth + 1));
        }
        children_of.insert(row, mine);
        // (depth first, in order: push in reverse)
        for s in sub.into_iter().rev() {
            stack.push(s);
        }
    }
    // the rows were pushed level by level; put them in tree order
    let mut order = vec![];
    fn walk(i: usize, children_of: &HashMap<usize, Vec<usize>>, order: &mut Vec<usize>) {
        order.push(i);
        if let Some(c) = children_of.get(&i) {
            for &k in c {
                walk(k, children_of, order);
            }
        }
    }
    walk(0, &children_of, &mut order);

    // the ranking (fair_tree.c's _calc_tree_fs): siblings by level
    // fair-share, highest first, users before accounts on a tie; a user
    // tied with the one before keeps its rank
    let users = a.links.len() as u32;
    let (mut rank, mut rnt) = (users, users);
    fn rank_level(
        level: &[usize],
        rows: &mut [Row],
        children_of: &HashMap<usize, Vec<usize>>,
        rank: &mut u32,
        rnt: &mut u32,
        users: u32,
        tied_in: bool,
    ) {
        let mut sorted = level.to_vec();
        let lfs = |r: &Row| r.level_fs.unwrap_or(0.0);
        sorted.sort_by(|&x, &y| {
            lfs(&rows[y])
                .partial_cmp(&lfs(&rows[x]))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then((rows[x].user.is_none()).cmp(&rows[y].user.is_none()))
        });
        let mut prev: Option<f64> = None;
        for (i, &r) in sorted.iter().enumerate() {
            let tied = if i == 0 && tied_in { true } else { prev == Some(lfs(&rows[r])) };
            if rows[r].user.is_some() {
                if !tied {
                    *rank = *rnt;
                }
                rows[r].fs_factor = Some(if users > 0 { f64::from(*rank) / f64::from(users) } else { 0.0 });
                *rnt = rnt.saturating_sub(1);
            } else if let Some(c) = children_of.get(&r) {
                rank_level(c, rows, children_of, rank, rnt, users, tied);
            }
            prev = Some(lfs(&rows[r]));
        }
    }
    if let Some(top) = children_of.get(&0) {
        rank_level(top, &mut rows, &children_of, &mut rank, &mut rnt, users, false);
    }
    order.into_iter().map(|i| rows[i].clone()).collect()
}

/// The rows of `algo`: Fair Tree's ([`fair_tree`]), or with the classic
/// algorithms (`PriorityFlags=NO_FAIR_TREE`, `DEPTH_OBLIVIOUS`) each row's
/// shares normalised down the whole tree, its effective usage, and a factor
/// for every association ([`classic`]).
pub fn shares(a: &Assocs, running: &[Running], at: i64, hl: i64, algo: crate::priority::FairShareAlgo) -> Vec<Row> {
    let mut rows = fair_tree(a, running, at, hl);
    if algo != crate::priority::FairShareAlgo::FairTree {
        classic(&mut rows, algo == crate::priority::FairShareAlgo::DepthOblivious);
    }
    rows
}

/// The classic fair-share over Fair Tree's `rows` (whose `norm_shares` are
/// each association's shares over its siblings'), as priority_multifactor
/// computes it without Fair Tree:
///
/// - normalised shares: the product of those ratios from the top down;
/// - normalised usage: its usage over the whole tree's (at most 1);
/// - effective usage: below root's children, its normalised usage moved
///   toward its parent's effective usage by its share of its siblings'
///   shares (`depth_oblivious`: its parent's ratio of effective usage to
///   shares, times its own ratio relative to its siblings' to a power
///   that shrinks as the parent's ratio moves away from 1);
/// - factor: 2^-(effective usage / normalised shares), 0 without shares.
///
/// The root row keeps an effective usage of 1 and normalised shares of 1;
/// no row has a level fair-share (0).
pub fn classic(rows: &mut [Row], depth_oblivious: bool) {
    let Some(root_use) = rows.first().map(|r| r.raw_usage) else { return };
    let norm_use = |r: &Row| if root_use > 0.0 { (r.raw_usage / root_use).min(1.0) } else { 0.0 };
    // the parent of each row: the last account row one level up
    let mut parent: Vec<Option<usize>> = vec![None; rows.len()];
    let mut open: Vec<usize> = vec![];
    for i in 0..rows.len() {
        open.truncate(rows[i].depth);
        parent[i] = open.last().copied();
        if rows[i].user.is_none() {
            open.push(i);
        }
    }
    let level: Vec<f64> = rows.iter().map(|r| r.norm_shares).collect();
    rows[0].norm_shares = 1.0;
    rows[0].eff_usage = 1.0;
    for i in 1..rows.len() {
        let Some(p) = parent[i] else { continue };
        let share = level[i] * rows[p].norm_shares;
        let un = norm_use(&rows[i]);
        let eff = if p == 0 {
            un
        } else if depth_oblivious {
            let (pe, pn) = (rows[p].eff_usage, rows[p].norm_shares);
            let siblings: f64 = (1..rows.len()).filter(|&k| parent[k] == Some(p)).map(|k| norm_use(&rows[k])).sum();
            if share > 0.0 && pn > 0.0 && pe > 0.0 && un > 0.0 {
                let ratio_p = pe / pn;
                let ratio_l = (un / share) / (siblings / pn);
                let k =
                    if ratio_p.ln() * ratio_l.ln() >= 0.0 { 1.0 } else { 1.0 / (1.0 + (5.0 * ratio_p.ln()).powi(2)) };
                ratio_p * ratio_l.powf(k) * share
            } else {
                un
            }
        } else {
            un + (rows[p].eff_usage - un) * level[i]
        };
        rows[i].norm_shares = share;
        rows[i].eff_usage = eff;
    }
    for r in rows.iter_mut() {
        r.fs_factor = Some(if r.norm_shares > 0.0 { 2f64.powf(-(r.eff_usage / r.norm_shares)) } else { 0.0 });
        // (no level fair-share: sshare prints 0 for every row)
        r.level_fs = Some(0.0);
    }
}

/// The usage of the running (and suspended) jobs among `jobs` as of `at`:
/// their billing in their partition of `parts` (times their QOS's
/// `UsageFactor`) over the time they have run.
pub fn running<'a>(
    jobs: impl Iterator<Item = &'a crate::model::Job>,
    qos: &[crate::qos::Qos],
    parts: &[crate::model::Partition],
    at: i64,
    hl: i64,
) -> Vec<Running<'a>> {
    jobs.filter(|j| j.state.is_active() && j.start_time > 0)
        .filter_map(|j| {
            let acct = j.desc.account.as_deref()?;
            let factor = crate::qos::of_job(qos, j).map(|q| q.usage_factor).unwrap_or(1.0);
            let secs = run_secs(j, at);
            let billed = crate::priority::job_billing(j, parts.iter().find(|p| p.name == j.partition)) as f64;
            Some((j.user_name.as_str(), acct, run_usage(billed * factor, at.saturating_sub(secs), at, at, hl)))
        })
        .collect()
}

/// The fair-share factor of every user association as of `at`, the jobs
/// among `jobs` that run counted.
pub fn factors_at<'a>(
    a: &Assocs,
    jobs: impl Iterator<Item = &'a crate::model::Job>,
    qos: &[crate::qos::Qos],
    parts: &[crate::model::Partition],
    at: i64,
    hl: i64,
    algo: crate::priority::FairShareAlgo,
) -> Factors {
    let run = running(jobs, qos, parts, at, hl);
    factors(&shares(a, &run, at, hl, algo))
}

/// A job's fair-share factor among `factors` (0 without an association).
pub fn job_factor(factors: &Factors, job: &crate::model::Job) -> f64 {
    let acct = job.desc.account.as_deref().unwrap_or_default().to_ascii_lowercase();
    factors.get(&(job.user_name.clone(), acct)).copied().unwrap_or(0.0)
}

/// The fair-share factor (0 to 1) of each user association in `rows`.
pub fn factors(rows: &[Row]) -> Factors {
    rows.iter().filter_map(|r| Some(((r.user.clone()?, r.account.to_ascii_lowercase()), r.fs_factor?))).collect()
}

/// What `sacctmgr` asks of the accounts and users.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Modify,
    Delete,
}

/// Which records a change is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    Account,
    User,
}

/// A change as `sacctmgr` gives it: the accounts or users named, the
/// accounts a user change is about (`Account=` of `add user`, `where
/// account=` of `modify|delete user`), and the `Key=value` settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub op: Op,
    pub entity: Entity,
    pub names: Vec<String>,
    pub accounts: Vec<String>,
    pub settings: Vec<(String, String)>,
}

/// A change resolved against the records: what to put and what to delete,
/// and what it did as sacctmgr lists it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Planned {
    pub accounts: Vec<Account>,
    pub users: Vec<User>,
    pub links: Vec<Link>,
    pub del_accounts: Vec<String>,
    pub del_users: Vec<String>,
    pub del_links: Vec<(String, String)>,
    /// Accounts added, or named by a delete.
    pub named_accounts: Vec<String>,
    /// Users added (new records).
    pub new_users: Vec<String>,
    /// Accounts whose description or organization changed.
    pub modified_accounts: Vec<String>,
    /// Account associations whose shares or parent changed: (account, its
    /// parent before).
    pub modified_assocs: Vec<(String, String)>,
    /// Users whose default account changed.
    pub modified_users: Vec<String>,
    /// User associations whose shares changed, or that a delete removes:
    /// (user, account).
    pub touched_links: Vec<(String, String)>,
    /// Users a delete removes with their last association.
    pub emptied_users: Vec<String>,
    /// `DefaultAccount=` was given.
    pub default_given: bool,
}

impl Planned {
    pub fn is_empty(&self) -> bool {
        self.accounts.is_empty()
            && self.users.is_empty()
            && self.links.is_empty()
            && self.del_accounts.is_empty()
            && self.del_users.is_empty()
            && self.del_links.is_empty()
    }

    /// What the controller reports it changed: the names touched.
    pub fn names(&self) -> Vec<String> {
        let mut n: Vec<String> = self.named_accounts.clone();
        n.extend(self.new_users.iter().cloned());
        n.extend(self.modified_accounts.iter().cloned());
        n.extend(self.modified_assocs.iter().map(|(a, _)| a.clone()));
        n.extend(self.modified_users.iter().cloned());
        n.extend(self.touched_links.iter().map(|(u, a)| format!("{u}@{a}")));
        n.extend(self.del_users.iter().cloned());
        n
    }
}

/// Why a change cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing matched or nothing is new.
    Nothing,
    /// An account named does not exist: as a parent (`add account`), or to
    /// associate a user with (`add user`).
    NoParent(String),
    NoAccount(String),
    /// `add user` without `Account=`.
    NoAccountGiven,
    /// A setting's value does not read: (key as sacctmgr names it, value).
    BadValue(&'static str, String),
    /// A key Spur does not keep (association limits and the like).
    Unsupported(String),
    /// A default account some of the users are not associated with: (the
    /// account, the users).
    NotAssociated(String, Vec<String>),
    /// A parent within the account itself.
    Loop,
    /// A QOS that does not exist: (the name, the valid ones).
    BadQos(String, String),
    /// Associations whose default QOS the change would leave outside their
    /// QOS list: (the default QOS, account, user). sacctmgr says so and
    /// changes nothing (L14, X2, X5).
    NoDefaultAccess(Vec<(String, String, Option<String>)>),
}

/// A `Fairshare=` value: a number, `-1` (the default, 1); `parent` is not
/// kept by Spur.
fn shares_of(v: &str) -> Result<u32, Refusal> {
    let t = v.trim();
    if t == "-1" {
        return Ok(1);
    }
    if t.eq_ignore_ascii_case("parent") {
        return Err(Refusal::Unsupported("Fairshare=parent".into()));
    }
    t.parse::<u32>().map_err(|_| Refusal::BadValue("FairShare", v.to_string()))
}

/// The settings of a change, read.
#[derive(Default)]
struct Settings {
    description: Option<String>,
    organization: Option<String>,
    parent: Option<String>,
    shares: Option<u32>,
    default_account: Option<String>,
    /// `QOS=`, `QOS+=`, `QOS-=`: the operation and the names.
    qos: Option<(char, Vec<String>)>,
    def_qos: Option<String>,
    /// The limits' `Key=value` settings, in order (checked as read).
    limits: Vec<(String, String)>,
}

impl Settings {
    /// `l` with the limits' settings applied.
    fn limits_on(&self, l: &Limits) -> Limits {
        let mut l = l.clone();
        for (k, v) in &self.limits {
            l.set(k, v);
        }
        l
    }
}

fn read_settings(entity: Entity, settings: &[(String, String)], qos: &[crate::qos::Qos]) -> Result<Settings, Refusal> {
    let mut s = Settings::default();
    let valid = || qos.iter().map(|q| q.name.as_str()).collect::<Vec<_>>().join(",");
    let known = |n: &str| -> Result<String, Refusal> {
        crate::qos::find(qos, n).map(|q| q.name.clone()).ok_or_else(|| Refusal::BadQos(n.to_string(), valid()))
    };
    for (k, v) in settings {
        let (k, op) = match k.strip_suffix('+').map(|k| (k, '+')).or_else(|| k.strip_suffix('-').map(|k| (k, '-'))) {
            Some(x) => x,
            None => (k.as_str(), '='),
        };
        let val = v.trim_matches(|c| c == '"' || c == '\'').to_string();
        if is(k, "qoslevel", 1) {
            let mut names = vec![];
            for n in val.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                // (`QOS=+a` is `QOS+=a`)
                let (n, o) =
                    match n.strip_prefix('+').map(|n| (n, '+')).or_else(|| n.strip_prefix('-').map(|n| (n, '-'))) {
                        Some(x) => x,
                        None => (n, op),
                    };
                let name = known(n)?;
                if !names.contains(&name) {
                    names.push(name);
                }
                s.qos = Some((o, names.clone()));
            }
            if names.is_empty() {
                s.qos = Some((op, vec![]));
            }
        } else if is(k, "defaultqos", 3) {
            s.def_qos = Some(known(&val)?);
        } else if op != '=' {
            return Err(Refusal::Unsupported(format!("{}{}", k, op)));
        } else if let Some(r) = limit_setting(k, &val) {
            r?;
            s.limits.push((k.to_string(), val));
        } else if is(k, "fairshare", 2) || is(k, "shares", 1) {
            s.shares = Some(shares_of(&val)?);
        } else if entity == Entity::Account && is(k, "description", 1) {
            s.description = Some(val);
        } else if entity == Entity::Account && is(k, "organization", 1) {
            s.organization = Some(val.to_ascii_lowercase());
        } else if entity == Entity::Account && is(k, "parent", 1) {
            s.parent = Some(val.to_ascii_lowercase());
        } else if entity == Entity::User && is(k, "defaultaccount", 3) {
            s.default_account = Some(val.to_ascii_lowercase());
        } else {
            return Err(Refusal::Unsupported(k.to_string()));
        }
    }
    Ok(s)
}

/// A limit's `Key=value`: `None` when the key is not a limit's, else
/// whether its value reads.
fn limit_setting(k: &str, v: &str) -> Option<Result<(), Refusal>> {
    match Limits::default().set(k, v) {
        crate::assoc_limits::Set::NotALimit => None,
        crate::assoc_limits::Set::Done => Some(Ok(())),
        crate::assoc_limits::Set::Bad(name) => Some(Err(Refusal::BadValue(name, v.to_string()))),
    }
}

// (sacctmgr's and slurmdbd's rules, measured in
// `crates/spur-sched/tests/fairshare-22.05.md`)
/// A QOS list changed by `QOS=`, `QOS+=`, `QOS-=` from `current` (the
/// effective one), in name order as sacctmgr lists it.
fn qos_list(current: &[String], change: &(char, Vec<String>)) -> Vec<String> {
    let mut out: Vec<String> = match change.0 {
        '=' => change.1.clone(),
        '+' => current.iter().chain(change.1.iter()).cloned().collect(),
        _ => current.iter().filter(|q| !change.1.contains(q)).cloned().collect(),
    };
    out.sort();
    out.dedup();
    out
}

/// Resolve `c` against the records `a` and the QOS records `qos` (for
/// `QOS=` and `DefaultQOS=`).
pub fn plan(a: &Assocs, c: &Change, qos: &[crate::qos::Qos]) -> Result<Planned, Refusal> {
    let s = read_settings(c.entity, &c.settings, qos)?;
    let mut p = Planned { default_given: s.default_account.is_some(), ..Default::default() };
    let names: Vec<String> = c.names.iter().map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect();
    let named = |n: &str| names.iter().any(|x| x.eq_ignore_ascii_case(n));
    match (c.entity, c.op) {
        (Entity::Account, Op::Add) => {
            let parent = s.parent.clone().unwrap_or_else(|| "root".into());
            let Some(par) = a.account(&parent) else { return Err(Refusal::NoParent(parent)) };
            for n in names.iter().map(|n| n.to_ascii_lowercase()) {
                if a.account(&n).is_some() || p.accounts.iter().any(|x| x.name == n) {
                    continue;
                }
                // (the organization defaults to the account's name under
                // root, else to the parent's name: B7)
                let org = if par.name == "root" { n.clone() } else { par.name.clone() };
                p.accounts.push(Account {
                    id: 0,
                    name: n.clone(),
                    description: s.description.clone().unwrap_or_else(|| n.clone()),
                    organization: s.organization.clone().unwrap_or(org),
                    parent: par.name.clone(),
                    shares: s.shares.unwrap_or(1),
                    qos: s.qos.as_ref().map(|q| qos_list(&a.account_qos(&par.name).0, q)).unwrap_or_default(),
                    def_qos: s.def_qos.clone(),
                    limits: s.limits_on(&Limits::default()),
                });
                p.named_accounts.push(n);
            }
        }
        (Entity::Account, Op::Modify) => {
            if let Some(par) = &s.parent {
                if a.account(par).is_none() {
                    return Err(Refusal::NoParent(par.clone()));
                }
            }
            for acc in a.accounts.iter().filter(|x| named(&x.name)) {
                let mut m = acc.clone();
                if let Some(d) = &s.description {
                    m.description = d.clone();
                }
                if let Some(o) = &s.organization {
                    m.organization = o.clone();
                }
                if s.description.is_some() || s.organization.is_some() {
                    p.modified_accounts.push(m.name.clone());
                }
                if let Some(sh) = s.shares {
                    m.shares = sh;
                }
                if let Some(q) = &s.qos {
                    m.qos = qos_list(&a.account_qos(&m.name).0, q);
                }
                if let Some(d) = &s.def_qos {
                    m.def_qos = Some(d.clone());
                }
                m.limits = s.limits_on(&m.limits);
                if let Some(par) = &s.parent {
                    if m.name == "root" || a.is_within(par, &m.name) {
                        return Err(Refusal::Loop);
                    }
                    m.parent = par.clone();
                }
                if s.shares.is_some()
                    || s.parent.is_some()
                    || s.qos.is_some()
                    || s.def_qos.is_some()
                    || !s.limits.is_empty()
                {
                    p.modified_assocs.push((m.name.clone(), acc.parent.clone()));
                }
                // (a QOS change reaches the user associations below that
                // keep no list of their own: slurmdbd lists them too, L7)
                if s.qos.is_some() || s.def_qos.is_some() {
                    for sub in a.subtree(&m.name) {
                        let mut users: Vec<&Link> =
                            a.links.iter().filter(|l| l.account == sub && l.qos.is_empty()).collect();
                        users.sort_by(|x, y| x.user.cmp(&y.user));
                        p.touched_links.extend(users.iter().map(|l| (l.user.clone(), l.account.clone())));
                    }
                }
                // (so does a change of a limit passed down, to the user
                // associations below that set none of their own:
                // assoc-limits-22.05.md 7b)
                let down: Vec<&str> =
                    s.limits.iter().map(|(k, _)| k.as_str()).filter(|k| Limits::passes_down(k)).collect();
                if !down.is_empty() {
                    for l in a.inheriting_links(&m.name, &down) {
                        let key = (l.user.clone(), l.account.clone());
                        if !p.touched_links.contains(&key) {
                            p.touched_links.push(key);
                        }
                    }
                }
                p.accounts.push(m);
            }
        }
        (Entity::Account, Op::Delete) => {
            // an account goes with every account below it (D5)
            for acc in a.accounts.iter().filter(|x| x.name != "root" && named(&x.name)) {
                p.named_accounts.push(acc.name.clone());
                for sub in a.subtree(&acc.name) {
                    if !p.del_accounts.contains(&sub) {
                        p.del_accounts.push(sub);
                    }
                }
            }
        }
        (Entity::User, Op::Add) => {
            let accounts: Vec<String> = c.accounts.iter().map(|x| x.to_ascii_lowercase()).collect();
            if accounts.is_empty() {
                return Err(Refusal::NoAccountGiven);
            }
            for acc in accounts.iter().chain(s.default_account.iter()) {
                if a.account(acc).is_none() {
                    return Err(Refusal::NoAccount(acc.clone()));
                }
            }
            for u in &names {
                let mut first_new = None;
                for acc in &accounts {
                    if a.link(u, acc).is_some() || p.links.iter().any(|l| l.user == *u && l.account == *acc) {
                        continue;
                    }
                    let mut l = Link::new(u, acc, s.shares.unwrap_or(1));
                    if let Some(q) = &s.qos {
                        l.qos = qos_list(&a.account_qos(acc).0, q);
                    }
                    l.def_qos = s.def_qos.clone();
                    l.limits = s.limits_on(&Limits::default());
                    p.links.push(l);
                    first_new.get_or_insert(acc.clone());
                }
                match a.user(u) {
                    None => {
                        let def = s.default_account.clone().unwrap_or_else(|| accounts[0].clone());
                        p.users.push(User { name: u.clone(), default_account: def });
                        p.new_users.push(u.clone());
                    }
                    // a user left without a default takes the first new
                    // association's account (D13)
                    Some(x) if x.default_account.is_empty() => {
                        if let Some(acc) = s.default_account.clone().or(first_new) {
                            p.users.push(User { name: u.clone(), default_account: acc });
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        (Entity::User, Op::Modify) => {
            let users: Vec<&User> = a.users.iter().filter(|x| names.contains(&x.name)).collect();
            if let Some(d) = &s.default_account {
                let strays: Vec<String> =
                    users.iter().filter(|u| a.link(&u.name, d).is_none()).map(|u| u.name.clone()).collect();
                if !strays.is_empty() {
                    return Err(Refusal::NotAssociated(d.clone(), strays));
                }
                for u in &users {
                    p.users.push(User { name: u.name.clone(), default_account: d.clone() });
                    p.modified_users.push(u.name.clone());
                }
            }
            if s.shares.is_some() || s.qos.is_some() || s.def_qos.is_some() || !s.limits.is_empty() {
                let mut links: Vec<&Link> = a.links.iter().filter(|l| names.contains(&l.user)).collect();
                links.sort_by(|x, y| (&x.account, &x.user).cmp(&(&y.account, &y.user)));
                for l in links {
                    if !c.accounts.is_empty() && !c.accounts.iter().any(|x| x.eq_ignore_ascii_case(&l.account)) {
                        continue;
                    }
                    let mut m = l.clone();
                    if let Some(sh) = s.shares {
                        m.shares = sh;
                    }
                    if let Some(q) = &s.qos {
                        m.qos = qos_list(&a.link_qos(l).0, q);
                    }
                    if let Some(d) = &s.def_qos {
                        m.def_qos = Some(d.clone());
                    }
                    m.limits = s.limits_on(&m.limits);
                    p.links.push(m);
                    p.touched_links.push((l.user.clone(), l.account.clone()));
                }
            }
        }
        (Entity::User, Op::Delete) => {
            if c.accounts.is_empty() {
                for u in a.users.iter().filter(|x| names.contains(&x.name)) {
                    p.del_users.push(u.name.clone());
                }
            } else {
                for l in a.links.iter().filter(|l| {
                    names.contains(&l.user) && c.accounts.iter().any(|x| x.eq_ignore_ascii_case(&l.account))
                }) {
                    p.del_links.push((l.user.clone(), l.account.clone()));
                    p.touched_links.push((l.user.clone(), l.account.clone()));
                }
                // a user's last association takes the user with it (D1)
                for u in a.users.iter().filter(|x| names.contains(&x.name)) {
                    let left = a.links.iter().filter(|l| l.user == u.name).count();
                    let going = p.del_links.iter().filter(|(x, _)| *x == u.name).count();
                    if left > 0 && left == going {
                        p.del_users.push(u.name.clone());
                        p.emptied_users.push(u.name.clone());
                    }
                }
            }
        }
    }
    if p.is_empty() {
        return Err(Refusal::Nothing);
    }
    if s.qos.is_some() || s.def_qos.is_some() {
        default_within_list(a, &p)?;
    }
    Ok(p)
}

/// Refuse a change that leaves an association it writes with a default QOS
/// outside its QOS list.
fn default_within_list(a: &Assocs, p: &Planned) -> Result<(), Refusal> {
    let mut after = a.clone();
    after.put(&p.accounts, &p.users, &p.links);
    let mut stray = vec![];
    for x in &p.accounts {
        if let (list, Some(d)) = after.account_qos(&x.name) {
            if !list.contains(&d) {
                stray.push((d, x.name.clone(), None));
            }
        }
    }
    for l in &p.links {
        let Some(l) = after.link(&l.user, &l.account) else { continue };
        if let (list, Some(d)) = after.link_qos(l) {
            if !list.contains(&d) {
                stray.push((d, l.account.clone(), Some(l.user.clone())));
            }
        }
    }
    if stray.is_empty() {
        Ok(())
    } else {
        Err(Refusal::NoDefaultAccess(stray))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acct(name: &str, parent: &str, shares: u32) -> Account {
        Account::new(name, parent, shares)
    }

    fn tree() -> Assocs {
        let mut a = Assocs::default();
        a.put(
            &[acct("research", "root", 1), acct("ml", "research", 1), acct("physics", "root", 3)],
            &[User { name: "u1".into(), default_account: "physics".into() }],
            &[Link::new("root", "research", 1), Link::new("root", "ml", 1), Link::new("u1", "physics", 1)],
        );
        a
    }

    #[test]
    fn rows_come_in_sshares_order() {
        let rows = fair_tree(&tree(), &[], 100, 3600);
        let names: Vec<(usize, &str, Option<&str>)> =
            rows.iter().map(|r| (r.depth, r.account.as_str(), r.user.as_deref())).collect();
        assert_eq!(
            names,
            [
                (0, "root", None),
                (1, "root", Some("root")),
                (1, "physics", None),
                (2, "physics", Some("u1")),
                (1, "research", None),
                (2, "research", Some("root")),
                (2, "ml", None),
                (3, "ml", Some("root")),
            ]
        );
        // shares at each level: root's user 1, physics 3, research 1 of 5
        assert_eq!(rows[1].norm_shares, 0.2);
        assert_eq!(rows[2].norm_shares, 0.6);
        // no usage: every user ties at the top
        assert!(rows.iter().filter_map(|r| r.fs_factor).all(|f| f == 1.0));
    }

    #[test]
    fn usage_lowers_a_users_rank() {
        let mut a = tree();
        a.charge("root", "research", 8.0, 100, 1000, 0);
        let rows = fair_tree(&a, &[("u1", "physics", 200.0)], 1000, 0);
        let f = factors(&rows);
        // research used 800 with 1/5 of the shares, physics 200 with 3/5;
        // root's own user has none (infinite): it ranks first, then
        // physics's user, then research's: ml's (none) above its own
        let of = |u: &str, a: &str| f[&(u.to_string(), a.to_string())];
        assert_eq!(
            [of("root", "root"), of("u1", "physics"), of("root", "ml"), of("root", "research")],
            [1.0, 0.75, 0.5, 0.25]
        );
        assert_eq!(rows[0].raw_usage, 1000.0);
        let lfs = rows.iter().find(|r| r.account == "physics" && r.user.is_none()).unwrap().level_fs.unwrap();
        assert!((lfs - 3.0).abs() < 1e-9);
    }

    #[test]
    fn usage_decays_by_half_each_half_life() {
        let mut a = tree();
        a.charge("u1", "physics", 1.0, 10, 1000, 3600);
        let l = a.link("u1", "physics").unwrap();
        // ten CPU-seconds just before the end: a little under 10
        assert!(l.usage < 10.0 && l.usage > 9.99);
        let rows = fair_tree(&a, &[], 1000 + 3600, 3600);
        assert!((rows[0].raw_usage - l.usage / 2.0).abs() < 1e-9);
        // without decay, CPU-seconds
        assert_eq!(run_usage(2.0, 0, 50, 500, 0), 100.0);
    }

    #[test]
    fn deleting_an_account_drops_its_links() {
        let mut a = tree();
        a.delete(&["ml".into()], &[], &[]);
        assert!(a.link("root", "ml").is_none() && a.account("ml").is_none());
        assert_eq!(a.subtree("root").len(), 3);
        assert!(a.is_within("research", "root") && !a.is_within("root", "research"));
    }

    #[test]
    fn qos_lists_inherit_sort_and_keep_the_default_within() {
        let mut a = tree();
        let qos = [
            crate::qos::Qos::normal(),
            crate::qos::Qos { id: 2, name: "low".into(), ..crate::qos::Qos::normal() },
            crate::qos::Qos { id: 3, name: "high".into(), ..crate::qos::Qos::normal() },
        ];
        let set = |entity, name: &str, kv: &[(&str, &str)]| Change {
            op: Op::Modify,
            entity,
            names: vec![name.into()],
            accounts: vec![],
            settings: kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        // the research tree takes normal,low with low its default (L7, L8)
        let p =
            plan(&a, &set(Entity::Account, "research", &[("QOS", "normal,low"), ("DefaultQOS", "low")]), &qos).unwrap();
        assert_eq!(p.touched_links, [("root".to_string(), "research".to_string()), ("root".into(), "ml".into())]);
        a.put(&p.accounts, &p.users, &p.links);
        assert_eq!(a.account_qos("ml"), (vec!["low".to_string(), "normal".into()], Some("low".into())));
        assert_eq!(a.link_qos(a.link("root", "ml").unwrap()).1.as_deref(), Some("low"));
        // removing the default from the list is refused (X5)
        let r = plan(&a, &set(Entity::Account, "research", &[("QOS-", "low")]), &qos);
        assert_eq!(r, Err(Refusal::NoDefaultAccess(vec![("low".into(), "research".into(), None)])));
        // a user's own list, then cleared back to its account's (X6)
        let p = plan(&a, &set(Entity::User, "u1", &[("QOS+", "high")]), &qos).unwrap();
        a.put(&p.accounts, &p.users, &p.links);
        assert_eq!(a.link("u1", "physics").unwrap().qos, ["high", "normal"]);
        let p = plan(&a, &set(Entity::User, "u1", &[("QOS", "")]), &qos).unwrap();
        a.put(&p.accounts, &p.users, &p.links);
        assert_eq!(a.link_qos(a.link("u1", "physics").unwrap()), (vec!["normal".to_string()], None));
        // an unknown QOS names the valid ones in id order (L12)
        let r = plan(&a, &set(Entity::User, "u1", &[("QOS", "nosuch")]), &qos);
        assert_eq!(r, Err(Refusal::BadQos("nosuch".into(), "normal,low,high".into())));
    }

    /// The classic algorithms against 22.05's `sshare -a -l` of the same
    /// tree and usage (crates/spur-core/tests/priority-tres-fairshare-22.05.md
    /// 3d, 3e): root -> a (3), b (1); a -> a1 (1), a2 (2); users alice (2)
    /// and root (1) in a1, root in a2, bob and root in b; the users' usage
    /// as 22.05's NormUsage column.
    #[test]
    fn classic_and_depth_oblivious_as_measured() {
        let link = |u: &str, acc: &str, shares: u32, usage: f64| Link { usage, ..Link::new(u, acc, shares) };
        let a = Assocs {
            accounts: vec![
                Assocs::default().accounts[0].clone(),
                acct("a", "root", 3),
                acct("b", "root", 1),
                acct("a1", "a", 1),
                acct("a2", "a", 2),
            ],
            users: vec![],
            links: vec![
                link("alice", "a1", 2, 0.078212),
                link("root", "a1", 1, 0.381276),
                link("root", "a2", 1, 0.078212),
                link("bob", "b", 1, 0.384089),
                link("root", "b", 1, 0.078212),
            ],
        };
        // (account, user, NormShares, EffectvUsage, FairShare) in sshare's
        // order, within the rounding of the usage given (22.05 printed 6
        // decimals)
        let check = |algo, want: &[(&str, &str, f64, f64, f64)]| {
            let rows = shares(&a, &[], 0, 0, algo);
            assert_eq!(rows.len(), want.len());
            for (r, (acc, user, n, e, f)) in rows.iter().zip(want) {
                let got = (r.norm_shares, r.eff_usage, r.fs_factor.unwrap_or(-1.0));
                assert_eq!((r.account.as_str(), r.user.as_deref().unwrap_or_default()), (*acc, *user));
                let close = |x: f64, y: f64| (x - y).abs() < 2e-6;
                assert!(close(got.0, *n) && close(got.1, *e) && close(got.2, *f), "{acc} {user}: {got:?}");
            }
        };
        check(
            crate::priority::FairShareAlgo::Classic,
            &[
                ("root", "", 1.000000, 1.000000, 0.500000),
                ("a", "", 0.750000, 0.537699, 0.608390),
                ("a1", "", 0.250000, 0.485558, 0.260213),
                ("a1", "alice", 0.166667, 0.349776, 0.233476),
                ("a1", "root", 0.083333, 0.416037, 0.031414),
                ("a2", "", 0.500000, 0.384537, 0.586794),
                ("a2", "root", 0.500000, 0.384537, 0.586794),
                ("b", "", 0.250000, 0.462301, 0.277546),
                ("b", "bob", 0.125000, 0.423195, 0.095685),
                ("b", "root", 0.125000, 0.270256, 0.223439),
            ],
        );
        check(
            crate::priority::FairShareAlgo::DepthOblivious,
            &[
                ("root", "", 1.000000, 1.000000, 0.500000),
                ("a", "", 0.750000, 0.537699, 0.608390),
                ("a1", "", 0.250000, 0.230098, 0.528366),
                ("a1", "alice", 0.166667, 0.039166, 0.849687),
                ("a1", "root", 0.083333, 0.167008, 0.249292),
                ("a2", "", 0.500000, 0.078212, 0.897247),
                ("a2", "root", 0.500000, 0.078212, 0.897247),
                ("b", "", 0.250000, 0.462301, 0.277546),
                ("b", "bob", 0.125000, 0.384089, 0.118856),
                ("b", "root", 0.125000, 0.208377, 0.314903),
            ],
        );
    }
}
