//! `TopologyPlugin=topology/tree`: the switches of `topology.conf` (beside
//! slurm.conf), as slurmctld's tree plugin builds them. A switch lists either
//! its nodes (a leaf, level 0) or its child switches (one level above its
//! highest child). Its nodes are every node below it. The distance between
//! two switches is the number of links between them (infinite when they are
//! not connected).
//!
//! Read as slurmctld 22.05 and 24.11 read it: `SwitchName=` with `Nodes=`,
//! `Switches=` and `LinkSpeed=` (default 1). A switch with both children
//! kinds or neither, a name defined twice, an unknown child, a loop, or a
//! node expression that does not parse stop the controller. A node name
//! that is not in slurm.conf is only warned about, as Slurm does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::config::SlurmConf;

/// No path between two switches.
pub const INFINITE: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switch {
    pub name: String,
    /// 0 for a leaf switch.
    pub level: u32,
    pub link_speed: u32,
    /// Every node below the switch, by its place in slurm.conf's node table.
    pub nodes: Vec<usize>,
    /// `Switches=` as written (None for a leaf).
    pub switches: Option<String>,
    /// The switch that lists this one (the last, if several do).
    pub parent: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    pub switches: Vec<Switch>,
    /// slurm.conf's node names, in its order (what `nodes` index).
    pub node_names: Vec<String>,
    /// `dist[i * n + j]`: links between switches i and j ([`INFINITE`]: none).
    dist: Vec<u32>,
    /// Warnings slurmctld logs (unknown nodes, nodes on no leaf switch, ...).
    pub warnings: Vec<String>,
}

impl Topology {
    pub fn dist(&self, i: usize, j: usize) -> u32 {
        self.dist[i * self.switches.len() + j]
    }

    /// A switch's nodes as `scontrol show topology` prints them (node-table
    /// order, ranged).
    pub fn nodes_text(&self, s: &Switch) -> String {
        let names: Vec<&str> = s.nodes.iter().map(|i| self.node_names[*i].as_str()).collect();
        spur_grammar::hostlist::compress(&names)
    }

    /// `scontrol show topology [NAME]`: every switch; the switch of that
    /// name; or every switch whose nodes include all of the named nodes.
    /// `None`: nothing matched.
    pub fn show(&self, what: Option<&str>) -> Option<String> {
        let line = |s: &Switch| {
            let mut l = format!("SwitchName={} Level={} LinkSpeed={}", s.name, s.level, s.link_speed);
            if !s.nodes.is_empty() {
                l.push_str(&format!(" Nodes={}", self.nodes_text(s)));
            }
            if let Some(sw) = &s.switches {
                l.push_str(&format!(" Switches={}", sw));
            }
            l
        };
        let what = what.filter(|w| !w.is_empty());
        let Some(w) = what else {
            return Some(self.switches.iter().map(|s| line(s) + "\n").collect());
        };
        if let Some(s) = self.switches.iter().find(|s| s.name == w) {
            return Some(line(s) + "\n");
        }
        let want = spur_grammar::hostlist::expand(w).unwrap_or_else(|_| vec![w.to_string()]);
        let out: String = self
            .switches
            .iter()
            .filter(|s| !s.nodes.is_empty() && want.iter().all(|n| s.nodes.iter().any(|i| self.node_names[*i] == *n)))
            .map(|s| line(s) + "\n")
            .collect();
        (!out.is_empty()).then_some(out)
    }
}

/// `topology.conf` beside slurm.conf.
pub fn conf_path(slurm_conf: &Path) -> PathBuf {
    slurm_conf.parent().map(|d| d.join("topology.conf")).unwrap_or_else(|| PathBuf::from("topology.conf"))
}

/// Whether slurm.conf selects the tree plugin.
pub fn tree_configured(conf: &SlurmConf) -> bool {
    conf.get("TopologyPlugin").is_some_and(|t| t.trim().eq_ignore_ascii_case("topology/tree"))
}

/// `TopologyParam=TopoOptional`: the tree is used only for jobs that ask
/// for `--switches`.
pub fn topo_optional(conf: &SlurmConf) -> bool {
    conf.get("TopologyParam").is_some_and(|p| p.to_ascii_lowercase().contains("topooptional"))
}

/// `SchedulerParameters=max_switch_wait=` (seconds; default 300).
pub fn max_switch_wait(conf: &SlurmConf) -> u32 {
    match conf.get("SchedulerParameters").and_then(|p| crate::config::scheduler_param(p, "max_switch_wait")) {
        Some(n) if n >= 0 => n.min(u32::MAX as i64) as u32,
        _ => 300,
    }
}

/// A job's `--switches=N[@WAIT]` as slurmctld keeps it: the most leaf
/// switches, and how long (seconds) to wait for them, at most
/// `max_wait` (also the wait when none is given). None: not asked (or 0).
pub fn job_switches(given: Option<&str>, switch_wait: Option<&str>, max_wait: u32) -> Option<(u32, u32)> {
    let (n, wait) = split_switches(given?);
    let wait = wait.or(switch_wait);
    let n = spur_grammar::num::strtol(n, 10).value;
    if n <= 0 {
        return None;
    }
    let wait = match wait.map(spur_grammar::time::parse_duration_secs) {
        Some(Ok(Some(s))) if s >= 0 => (s as u32).min(max_wait),
        _ => max_wait,
    };
    Some((n.min(u32::MAX as i64) as u32, wait))
}

/// `--switches=N[@WAIT]` as written: the count and the wait, if given.
pub fn split_switches(v: &str) -> (&str, Option<&str>) {
    match v.split_once('@') {
        Some((n, w)) => (n, Some(w)),
        None => (v, None),
    }
}

/// The tree of slurm.conf's `TopologyPlugin=topology/tree` (None: another
/// plugin, or none). Err: slurmctld's fatal message.
pub fn load(conf: &SlurmConf) -> Result<Option<Topology>, String> {
    if !tree_configured(conf) {
        return Ok(None);
    }
    let path = conf_path(&conf.path);
    let text =
        std::fs::read(&path).map_err(|e| format!("something wrong with opening/reading {}: {}", path.display(), e))?;
    let names: Vec<String> = conf.nodes.iter().map(|n| n.name.clone()).collect();
    parse(&String::from_utf8_lossy(&text), &names).map(Some)
}

struct Line {
    name: String,
    nodes: Option<String>,
    switches: Option<String>,
    link_speed: u32,
}

/// Read a `topology.conf` against slurm.conf's node names (in order).
pub fn parse(text: &str, node_names: &[String]) -> Result<Topology, String> {
    let mut lines: Vec<Line> = vec![];
    for (_, l) in crate::config::logical_lines(text) {
        let mut line: Option<Line> = None;
        for tok in l.split_whitespace() {
            let (k, v) = tok.split_once('=').unwrap_or((tok, ""));
            if k.eq_ignore_ascii_case("SwitchName") && line.is_none() {
                line = Some(Line { name: v.to_string(), nodes: None, switches: None, link_speed: 1 });
                continue;
            }
            let Some(cur) = line.as_mut() else {
                return Err(format!("Parsing error at unrecognized key: {}", k));
            };
            if k.eq_ignore_ascii_case("Nodes") {
                cur.nodes = Some(v.to_string());
            } else if k.eq_ignore_ascii_case("Switches") {
                cur.switches = Some(v.to_string());
            } else if k.eq_ignore_ascii_case("LinkSpeed") {
                cur.link_speed = v.parse().map_err(|_| format!("\"{}\" is not a valid number", v))?;
            } else {
                return Err(format!("Parsing error at unrecognized key: {}", k));
            }
        }
        let Some(cur) = line else { continue };
        match (&cur.nodes, &cur.switches) {
            (Some(_), Some(_)) => return Err(format!("switch {} has both child switches and nodes", cur.name)),
            (None, None) => return Err(format!("switch {} has neither child switches nor nodes", cur.name)),
            _ => {}
        }
        lines.push(cur);
    }
    if lines.is_empty() {
        return Err("No switches configured".into());
    }
    let index: HashMap<&str, usize> = node_names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        if by_name.insert(l.name.as_str(), i).is_some() {
            return Err(format!("Switch ({}) has already been defined", l.name));
        }
    }
    let n = lines.len();
    let mut warnings = vec![];
    let mut level: Vec<Option<u32>> = vec![None; n];
    let mut nodes: Vec<Vec<bool>> = vec![vec![]; n];
    let mut children: Vec<Vec<usize>> = vec![vec![]; n];
    let mut on_leaf = vec![0u32; node_names.len()];
    let mut invalid: Vec<String> = vec![];
    for (i, l) in lines.iter().enumerate() {
        if let Some(expr) = &l.nodes {
            let hosts = spur_grammar::hostlist::expand(expr)
                .map_err(|_| format!("Invalid node name ({}) in switch config ({})", expr, l.name))?;
            let mut set = vec![false; node_names.len()];
            for h in hosts {
                match index.get(h.as_str()) {
                    Some(&k) => {
                        if !set[k] {
                            on_leaf[k] += 1;
                        }
                        set[k] = true;
                    }
                    None => invalid.push(h),
                }
            }
            nodes[i] = set;
            level[i] = Some(0);
        } else if let Some(expr) = &l.switches {
            let kids = spur_grammar::hostlist::expand(expr).map_err(|_| format!("Invalid switches: {}", expr))?;
            for k in kids {
                match by_name.get(k.as_str()) {
                    Some(&j) if j != i => children[i].push(j),
                    _ => return Err(format!("Switch configuration {} has invalid child ({})", l.name, k)),
                }
            }
        }
    }
    // levels: one above the highest child, resolved bottom up
    for depth in 1.. {
        let mut resolved = true;
        for i in 0..n {
            if level[i].is_some() {
                continue;
            }
            if children[i].iter().all(|&j| level[j].is_some()) {
                level[i] = Some(children[i].iter().map(|&j| level[j].unwrap_or(0) + 1).max().unwrap_or(0));
                let mut set = vec![false; node_names.len()];
                for &j in &children[i] {
                    for (k, on) in nodes[j].iter().enumerate() {
                        if *on {
                            set[k] = true;
                        }
                    }
                }
                nodes[i] = set;
            } else {
                resolved = false;
            }
        }
        if resolved {
            break;
        }
        if depth > 20 {
            return Err("Switch configuration is not a tree".into());
        }
    }
    let missing: Vec<&str> =
        on_leaf.iter().enumerate().filter(|(_, c)| **c == 0).map(|(k, _)| node_names[k].as_str()).collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "WARNING: switches lack access to {} nodes: {}",
            missing.len(),
            spur_grammar::hostlist::compress(&missing)
        ));
    }
    if !invalid.is_empty() {
        warnings.push(format!(
            "WARNING: Invalid hostnames in switch configuration: {}",
            spur_grammar::hostlist::compress(&invalid)
        ));
    }
    let multi: Vec<&str> =
        on_leaf.iter().enumerate().filter(|(_, c)| **c > 1).map(|(k, _)| node_names[k].as_str()).collect();
    if !multi.is_empty() {
        warnings.push(format!(
            "WARNING: Multiple leaf switches contain nodes: {}",
            spur_grammar::hostlist::compress(&multi)
        ));
    }
    let mut parent: Vec<Option<usize>> = vec![None; n];
    // links between switches: breadth first from each (a tree, or nearly)
    let mut adj: Vec<Vec<usize>> = vec![vec![]; n];
    for (i, kids) in children.iter().enumerate() {
        for &c in kids {
            parent[c] = Some(i);
            adj[i].push(c);
            adj[c].push(i);
        }
    }
    let mut dist = vec![INFINITE; n * n];
    let mut queue = std::collections::VecDeque::new();
    for s in 0..n {
        dist[s * n + s] = 0;
        queue.push_back(s);
        while let Some(u) = queue.pop_front() {
            let du = dist[s * n + u];
            for &v in &adj[u] {
                if dist[s * n + v] == INFINITE {
                    dist[s * n + v] = du + 1;
                    queue.push_back(v);
                }
            }
        }
    }
    let switches = lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| Switch {
            name: l.name,
            level: level[i].unwrap_or(0),
            link_speed: l.link_speed,
            nodes: nodes[i].iter().enumerate().filter(|(_, on)| **on).map(|(k, _)| k).collect(),
            switches: l.switches,
            parent: parent[i],
        })
        .collect();
    Ok(Topology { switches, node_names: node_names.to_vec(), dist, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["cn01", "cn02", "cn03", "cn04", "gn01", "gn02"].iter().map(|s| s.to_string()).collect()
    }

    const REF: &str = "SwitchName=s0 Nodes=cn01\nSwitchName=s1 Nodes=cn[02-03]\nSwitchName=s2 Nodes=cn04\n\
                       SwitchName=s3 Nodes=gn[01-02]\nSwitchName=a0 Switches=s[1-2]\n\
                       SwitchName=a1 Switches=s0,s3\nSwitchName=top Switches=a[0-1]\n";

    #[test]
    fn show_as_22_05_prints_it() {
        // measured on 22.05.8 with this topology.conf
        let t = parse(REF, &names()).unwrap();
        assert_eq!(
            t.show(None).unwrap(),
            "SwitchName=s0 Level=0 LinkSpeed=1 Nodes=cn01\n\
             SwitchName=s1 Level=0 LinkSpeed=1 Nodes=cn[02-03]\n\
             SwitchName=s2 Level=0 LinkSpeed=1 Nodes=cn04\n\
             SwitchName=s3 Level=0 LinkSpeed=1 Nodes=gn[01-02]\n\
             SwitchName=a0 Level=1 LinkSpeed=1 Nodes=cn[02-04] Switches=s[1-2]\n\
             SwitchName=a1 Level=1 LinkSpeed=1 Nodes=cn01,gn[01-02] Switches=s0,s3\n\
             SwitchName=top Level=2 LinkSpeed=1 Nodes=cn[01-04],gn[01-02] Switches=a[0-1]\n"
        );
        assert_eq!(
            t.show(Some("cn02")).unwrap(),
            "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=cn[02-03]\n\
             SwitchName=a0 Level=1 LinkSpeed=1 Nodes=cn[02-04] Switches=s[1-2]\n\
             SwitchName=top Level=2 LinkSpeed=1 Nodes=cn[01-04],gn[01-02] Switches=a[0-1]\n"
        );
        assert_eq!(t.show(Some("a0")).unwrap(), "SwitchName=a0 Level=1 LinkSpeed=1 Nodes=cn[02-04] Switches=s[1-2]\n");
        assert_eq!(t.show(Some("nosuch")), None);
        // s1 to s2 through a0; s1 to s0 through a0, top and a1
        assert_eq!((t.dist(1, 2), t.dist(1, 0), t.dist(0, 0)), (2, 4, 0));
        assert_eq!(t.switches[4].parent, Some(6));
        assert!(t.warnings.is_empty());
    }

    #[test]
    fn what_stops_the_controller() {
        let n = names();
        let e = |t: &str| parse(t, &n).unwrap_err();
        assert_eq!(e("SwitchName=s0 Nodes=cn01 Switches=s1\n"), "switch s0 has both child switches and nodes");
        assert_eq!(e("SwitchName=s0\n"), "switch s0 has neither child switches nor nodes");
        assert_eq!(e("SwitchName=s0 Nodes=cn01\nSwitchName=s0 Nodes=cn02\n"), "Switch (s0) has already been defined");
        assert_eq!(e("SwitchName=s0 Switches=s9\n"), "Switch configuration s0 has invalid child (s9)");
        assert_eq!(e("SwitchName=a Switches=b\nSwitchName=b Switches=a\n"), "Switch configuration is not a tree");
        assert_eq!(e("SwitchName=s0 Nodes=cn01 Bogus=1\n"), "Parsing error at unrecognized key: Bogus");
        assert_eq!(e("# nothing\n"), "No switches configured");
        let t = parse("SwitchName=s0 Nodes=cn[01-02],zz9 LinkSpeed=10\n", &n).unwrap();
        assert_eq!(t.switches[0].link_speed, 10);
        assert_eq!(
            t.warnings,
            vec![
                "WARNING: switches lack access to 4 nodes: cn[03-04],gn[01-02]".to_string(),
                "WARNING: Invalid hostnames in switch configuration: zz9".to_string()
            ]
        );
    }

    #[test]
    fn switches_option() {
        assert_eq!(job_switches(Some("1@0:40"), None, 300), Some((1, 40)));
        assert_eq!(job_switches(Some("1"), None, 300), Some((1, 300)));
        assert_eq!(job_switches(Some("2@10"), None, 300), Some((2, 300)));
        assert_eq!(job_switches(Some("2"), Some("1:00"), 300), Some((2, 60)));
        assert_eq!(job_switches(Some("0"), None, 300), None);
        assert_eq!(job_switches(None, None, 300), None);
    }
}
