//! Spur's gRPC protocol, generated from `proto/spur.proto`, and the
//! translation of spur-core's request types to and from it (`convert`).
#![allow(clippy::all)]
pub mod v1 {
    tonic::include_proto!("spur.v1");
}
pub use v1::*;

pub mod convert;

impl LaunchStepReply {
    /// The reply of a launch sent to `node`: `Err` names the node that
    /// failed (`node` itself when the reply does not say), the code and the
    /// message.
    pub fn into_result(self, node: String) -> Result<(), (String, i32, String)> {
        match self.status {
            Some(s) if s.code != 0 => {
                Err((if self.failed_node.is_empty() { node } else { self.failed_node }, s.code, s.message))
            }
            _ => Ok(()),
        }
    }
}

/// The launch tree (Slurm's `TreeWidth`): `nodes` split into at most
/// `width` consecutive groups of near-equal size; each group's first node is
/// called, with the rest of its group to forward to in the same way. So no
/// one sends more than `width` calls and a step reaches N nodes in
/// log_width(N) rounds.
pub fn tree_split(nodes: Vec<AgentAddr>, width: u32) -> Vec<(AgentAddr, Vec<AgentAddr>)> {
    let width = width.max(1) as usize;
    let n = nodes.len();
    if n == 0 {
        return Vec::new();
    }
    let groups = n.min(width);
    let (base, extra) = (n / groups, n % groups);
    let mut out = Vec::with_capacity(groups);
    let mut it = nodes.into_iter();
    for g in 0..groups {
        let size = base + usize::from(g < extra);
        let mut group: Vec<AgentAddr> = it.by_ref().take(size).collect();
        let head = group.remove(0);
        out.push((head, group));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(n: usize) -> Vec<AgentAddr> {
        (0..n).map(|i| AgentAddr { node: format!("n{}", i), addr: String::new() }).collect()
    }

    #[test]
    fn the_tree_sends_at_most_width_calls_from_each_agent() {
        let t = tree_split(addrs(7), 3);
        let heads: Vec<&str> = t.iter().map(|(h, _)| h.node.as_str()).collect();
        assert_eq!(heads, vec!["n0", "n3", "n5"]);
        assert_eq!(t.iter().map(|(_, f)| f.len()).collect::<Vec<_>>(), vec![2, 1, 1]);
        assert_eq!(tree_split(addrs(2), 50).len(), 2);
        assert!(tree_split(vec![], 50).is_empty());
        // 100 nodes, width 50: two rounds at most
        let t = tree_split(addrs(100), 50);
        assert_eq!(t.len(), 50);
        assert!(t.iter().all(|(_, f)| f.len() == 1));
    }
}
