//! `--constraint` (and `--prefer`, a reservation's `Features=`) expressions:
//! node features joined by `&` (and; `,` is read as `&`), `|` (or), one level
//! of `( )`, and one set of `[ ]` whose members all nodes must share (`[a|b]`:
//! every node has `a`, or every node has `b`) or that each ask a count of
//! nodes (`[a*2&b*1]`); `name*N` alone asks N of the nodes to have `name`.
//!
//! Read as slurmctld's `build_feature_list` reads them: one pass over the
//! characters, a feature named by the characters up to the next operator,
//! an operator with no feature before it refused (`a&&b`), a trailing
//! operator ignored (`intel&` is `intel`, measured on 22.05). 24.11's reader
//! (`_feature_string2list`) refuses, besides, a bracket inside parentheses,
//! a feature straight after `)` or `]`, and a count outside brackets in an
//! expression of more than one feature (22.05 accepts `intel*1&amd*1` and
//! finds no node for it).
//!
//! [`Constraint::node_ok`] is slurmctld's `valid_feature_counts` for one
//! node: the features outside brackets, left to right, a parenthesised
//! group combined as one. [`Constraint::choice`] says what the bracket (or a
//! lone count) adds: one of several features shared by every node, or
//! counts of nodes per feature.

/// How a feature joins the one after it (slurmctld's `FEATURE_OP_*`):
/// `XAnd`/`XOr` inside brackets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    And,
    Or,
    XAnd,
    XOr,
    End,
}

/// One feature of an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub name: String,
    /// `name*N` (0: no count)
    pub count: u32,
    /// inside `( )`
    pub paren: bool,
    /// inside `[ ]`
    pub bracket: bool,
    /// how it joins the next one
    pub op: Op,
}

/// A parsed expression (empty: no constraint).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Constraint {
    pub terms: Vec<Term>,
}

/// What the bracket or a lone count asks besides the per-node test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Nothing: every node passing [`Constraint::node_ok`] may serve.
    Plain,
    /// `[a|b|c]`: all the job's nodes have the same one of these, tried in
    /// this order.
    OneOf(Vec<String>),
    /// `[a*2&b*1]` (or `a*2` alone): this many of the job's nodes have each
    /// feature, the nodes of each count distinct; `any_rest`: the job's other
    /// nodes (when it asks for more) may be any (a lone count), else they
    /// too have one of the features.
    Counts { each: Vec<(String, u32)>, any_rest: bool },
}

/// The expression does not read (`Invalid feature specification`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidFeature;

/// Read `expr`; `v24`: with 24.11's stricter rules (see the module text).
pub fn parse(expr: &str, v24: bool) -> Result<Constraint, InvalidFeature> {
    let b = expr.as_bytes();
    let mut terms: Vec<Term> = Vec::new();
    let (mut bracket, mut paren, mut sets) = (0u32, 0u32, 0u32);
    // the feature being read: its start, its end (exclusive), its count, and
    // whether it began inside brackets
    let mut feat: Option<(usize, usize, bool)> = None;
    let mut count: u32 = 0;
    let mut has_asterisk = false;
    // the previous character ended a feature's name (`*`, `)` or `]`)
    let mut closed = false;
    let mut i = 0usize;
    let push = |terms: &mut Vec<Term>, f: (usize, usize, bool), count: u32, paren: u32, op: Op| {
        terms.push(Term {
            name: String::from_utf8_lossy(&b[f.0..f.1]).into_owned(),
            count,
            paren: paren > 0,
            bracket: f.2,
            op,
        });
    };
    loop {
        let c = b.get(i).copied();
        match c {
            Some(b'*') => {
                let Some(f) = feat.as_mut() else { return Err(InvalidFeature) };
                if !closed {
                    f.1 = i;
                }
                if bracket == 0 {
                    has_asterisk = true;
                }
                // strtol: the digits after it (none: 0)
                let mut j = i + 1;
                let mut n: u64 = 0;
                while let Some(d) = b.get(j).filter(|d| d.is_ascii_digit()) {
                    n = (n * 10 + u64::from(d - b'0')).min(u64::from(u32::MAX));
                    j += 1;
                }
                if n == 0 || paren != 0 {
                    return Err(InvalidFeature);
                }
                count = n as u32;
                closed = true;
                i = j;
                continue;
            }
            Some(op @ (b'&' | b',' | b'|')) => {
                let Some(mut f) = feat.take() else { return Err(InvalidFeature) };
                if !closed {
                    f.1 = i;
                }
                let op = match (op == b'|', paren > 0, bracket > 0) {
                    (false, false, true) => Op::XAnd,
                    (false, _, _) => Op::And,
                    (true, false, true) => Op::XOr,
                    (true, _, _) => Op::Or,
                };
                push(&mut terms, f, count, paren, op);
                count = 0;
                closed = false;
            }
            Some(b'[') => {
                if feat.is_some() || bracket > 0 || (v24 && paren > 0) {
                    return Err(InvalidFeature);
                }
                bracket += 1;
                sets += 1;
                if sets > 1 {
                    return Err(InvalidFeature);
                }
            }
            Some(b']') => {
                let Some(f) = feat.as_mut() else { return Err(InvalidFeature) };
                if bracket == 0 || (v24 && paren > 0) {
                    return Err(InvalidFeature);
                }
                if !closed {
                    f.1 = i;
                }
                closed = true;
                bracket -= 1;
            }
            Some(b'(') => {
                if feat.is_some() || paren > 0 {
                    return Err(InvalidFeature);
                }
                paren += 1;
            }
            Some(b')') => {
                let Some(f) = feat.as_mut() else { return Err(InvalidFeature) };
                if paren == 0 {
                    return Err(InvalidFeature);
                }
                if !closed {
                    f.1 = i;
                }
                closed = true;
                paren -= 1;
            }
            None => {
                if let Some(mut f) = feat.take() {
                    if !closed {
                        f.1 = i;
                    }
                    push(&mut terms, f, count, paren, Op::End);
                }
                break;
            }
            Some(_) => {
                if feat.is_none() {
                    feat = Some((i, i, bracket > 0));
                } else if closed && v24 && matches!(b.get(i.wrapping_sub(1)), Some(b')' | b']')) {
                    // 24.11: `)` and `]` must be followed by an operator
                    return Err(InvalidFeature);
                }
            }
        }
        i += 1;
    }
    if bracket != 0 || paren != 0 {
        return Err(InvalidFeature);
    }
    if v24 && has_asterisk && terms.len() > 1 {
        return Err(InvalidFeature);
    }
    let c = Constraint { terms };
    c.bracket_rules()?;
    Ok(c)
}

impl Constraint {
    /// Whether there is no constraint.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The feature names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(|t| t.name.as_str())
    }

    /// The indexes of the bracket's members: the features joined by `XAnd`
    /// or `XOr` and the one that closes it.
    /// (`[a]` alone is no group: it is `a`.)
    fn bracket_group(&self) -> Option<std::ops::Range<usize>> {
        let first = self.terms.iter().position(|t| t.bracket)?;
        let last = self.terms.iter().rposition(|t| t.bracket)?;
        let g = first..last + 1;
        self.terms[g.clone()].iter().any(|t| matches!(t.op, Op::XAnd | Op::XOr)).then_some(g)
    }

    /// slurmctld's `_valid_feature_list`: inside brackets, `&` needs counts
    /// and `|` allows none.
    fn bracket_rules(&self) -> Result<(), InvalidFeature> {
        let Some(g) = self.bracket_group() else { return Ok(()) };
        let members = &self.terms[g];
        let xand = members.iter().any(|t| t.op == Op::XAnd);
        let xor = members.iter().any(|t| t.op == Op::XOr);
        let bad = members.iter().any(|t| (xand && t.count == 0) || (xor && t.count > 0));
        if bad {
            Err(InvalidFeature)
        } else {
            Ok(())
        }
    }

    /// Whether a node with these features passes the features outside
    /// brackets (slurmctld's `valid_feature_counts` for one node).
    pub fn node_ok(&self, has: &dyn Fn(&str) -> bool) -> bool {
        let group = self.bracket_group();
        // a lone count asks it of some nodes only; counts in an expression
        // of several features outside brackets (22.05 accepts them) are
        // not counted: each feature is asked of every node
        if let [t] = self.terms.as_slice() {
            if t.count > 0 {
                return true;
            }
        }
        let mut whole = true;
        let mut part = true;
        let mut in_paren = false;
        let (mut last_op, mut paren_op) = (Op::And, Op::And);
        for (k, t) in self.terms.iter().enumerate() {
            if !in_paren && t.paren {
                paren_op = last_op;
                last_op = Op::And;
                part = true;
                in_paren = true;
            }
            let in_group = group.as_ref().is_some_and(|g| g.contains(&k));
            if !in_group {
                let v = has(&t.name);
                let work = if in_paren { &mut part } else { &mut whole };
                match last_op {
                    Op::And => *work &= v,
                    Op::Or => *work |= v,
                    _ => {}
                }
            }
            if in_paren && !t.paren {
                match paren_op {
                    Op::And => whole &= part,
                    _ => whole |= part,
                }
                in_paren = false;
            }
            last_op = t.op;
        }
        if in_paren {
            match paren_op {
                Op::And => whole &= part,
                _ => whole |= part,
            }
        }
        whole
    }

    /// What the bracket or a lone count asks.
    pub fn choice(&self) -> Choice {
        if let Some(g) = self.bracket_group() {
            let members = &self.terms[g];
            if members.iter().any(|t| t.op == Op::XAnd) {
                return Choice::Counts {
                    each: members.iter().map(|t| (t.name.clone(), t.count)).collect(),
                    any_rest: false,
                };
            }
            return Choice::OneOf(members.iter().map(|t| t.name.clone()).collect());
        }
        match self.terms.as_slice() {
            [t] if t.count > 0 => Choice::Counts { each: vec![(t.name.clone(), t.count)], any_rest: true },
            _ => Choice::Plain,
        }
    }

    /// Whether a node may hold any part of the job: it passes
    /// [`node_ok`](Self::node_ok) and has one of the bracket's features
    /// when the bracket says every node has one. `choice` is
    /// [`choice`](Self::choice)'s, made once for all the nodes tested.
    pub fn node_may_serve(&self, choice: &Choice, has: &dyn Fn(&str) -> bool) -> bool {
        if !self.node_ok(has) {
            return false;
        }
        match choice {
            Choice::Plain => true,
            Choice::OneOf(alts) => alts.iter().any(|a| has(a)),
            Choice::Counts { each, any_rest } => *any_rest || each.iter().any(|(n, _)| has(n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(e: &str) -> Constraint {
        parse(e, false).unwrap_or_else(|_| panic!("{e} should read"))
    }

    /// The node features of the measurement (constraints.md).
    fn node(n: &str) -> impl Fn(&str) -> bool + '_ {
        move |f: &str| match n {
            "cn01" | "cn02" => f == "intel" || f == "ib",
            "cn03" => f == "amd",
            "cn04" => f == "amd" || f == "ib",
            _ => false,
        }
    }

    fn passing(c: &Constraint) -> Vec<&'static str> {
        ["cn01", "cn02", "cn03", "cn04", "gn01"].into_iter().filter(|n| c.node_ok(&node(n))).collect()
    }

    #[test]
    fn what_22_05_refuses_and_accepts() {
        for bad in
            ["[intel|amd", "intel&&ib", "&intel", "a*", "a*0", "a*x", "[a]]", "(a", "a)", "((a))", "[a][b]", "a[b]"]
        {
            assert_eq!(parse(bad, false), Err(InvalidFeature), "{bad}");
        }
        // inside brackets: `&` needs counts, `|` takes none
        for bad in ["[a&b]", "[a*1|b]", "[a|b*2]"] {
            assert_eq!(parse(bad, false), Err(InvalidFeature), "{bad}");
        }
        let c = ok("intel&");
        assert_eq!(c.names().collect::<Vec<_>>(), ["intel"]);
        assert_eq!(ok("a,b"), ok("a&b"));
        assert_eq!(ok("!intel").names().collect::<Vec<_>>(), ["!intel"]);
        assert!(ok("").is_empty());
    }

    #[test]
    fn what_24_11_refuses_besides() {
        for e in ["intel*1&amd*1", "(a)b", "[a|b]c", "([a|b])"] {
            assert_eq!(parse(e, true), Err(InvalidFeature), "{e}");
        }
        assert!(parse("intel*1&amd*1", false).is_ok());
        assert!(parse("[a*1&b*2]", true).is_ok() && parse("ib*2", true).is_ok());
    }

    #[test]
    fn the_nodes_each_measured_expression_allows() {
        assert_eq!(passing(&ok("amd")), ["cn03", "cn04"]);
        assert_eq!(passing(&ok("intel&ib")), ["cn01", "cn02"]);
        assert_eq!(passing(&ok("intel|amd")), ["cn01", "cn02", "cn03", "cn04"]);
        assert_eq!(passing(&ok("(intel|amd)&ib")), ["cn01", "cn02", "cn04"]);
        assert_eq!(passing(&ok("ib&(intel|amd)")), ["cn01", "cn02", "cn04"]);
        assert_eq!(passing(&ok("intel&amd")), Vec::<&str>::new());
        // 22.05's count outside brackets with two features: found nowhere
        assert_eq!(passing(&ok("intel*1&amd*1")), Vec::<&str>::new());
        // the bracket is tested apart; what is outside it still applies
        assert_eq!(passing(&ok("[intel|amd]")).len(), 5);
        assert_eq!(passing(&ok("ib&[intel|amd]")), ["cn01", "cn02", "cn04"]);
    }

    #[test]
    fn brackets_and_counts() {
        assert_eq!(ok("[intel|amd]").choice(), Choice::OneOf(vec!["intel".into(), "amd".into()]));
        assert_eq!(
            ok("[intel*1&amd*1]").choice(),
            Choice::Counts { each: vec![("intel".into(), 1), ("amd".into(), 1)], any_rest: false }
        );
        assert_eq!(ok("ib*2").choice(), Choice::Counts { each: vec![("ib".into(), 2)], any_rest: true });
        assert_eq!(ok("intel|amd").choice(), Choice::Plain);
        let c = ok("[intel|amd]");
        assert!(c.node_may_serve(&c.choice(), &node("cn03")) && !c.node_may_serve(&c.choice(), &node("gn01")));
    }

    #[test]
    fn garbage_never_panics() {
        let alphabet = b"ab*&|,[]()!0123 ";
        let mut seed = 7u64;
        for _ in 0..20_000 {
            let len = (seed % 12) as usize;
            let s: String = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    alphabet[(seed >> 33) as usize % alphabet.len()] as char
                })
                .collect();
            for v24 in [false, true] {
                if let Ok(c) = parse(&s, v24) {
                    let _ = (c.node_ok(&|f| f == "a"), c.choice());
                }
            }
        }
    }
}
