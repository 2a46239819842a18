//! An MPI step's fences between its nodes, up and down a tree as Slurm's
//! PMI tree (`spur_core::stepio::tree_parent`): srun is the root; each step
//! daemon waits for its own tasks' data and its children's, sends the lot up
//! (to srun, or over a connection of its own to its parent's step daemon),
//! and passes the answer, every node's data, down to its children before its
//! own tasks get it. So srun and every step daemon talk to at most
//! `TreeWidth` others, whatever the step's size.
//!
//! srun and every step daemon compute the same tree from the step's width
//! (`stepio::tree_width`: `SLURM_PMI2_TREE_WIDTH`, else `TreeWidth`); a
//! node with children tells srun where it listens (`TreeAddr`), srun tells
//! the children (`TreeParent`), and a child proves itself to its parent as
//! to srun (`Hello`: its node index and the step's secret). A step of no
//! more nodes than the width is a star: every node is srun's child.

use spur_core::stepio::{self, FrameKind, ALL_TASKS};
use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// How a frame goes to srun.
pub type ToSrun = Box<dyn Fn(FrameKind, u32, &[u8]) + Send + Sync>;

/// Where this node's subtree's data goes.
enum Up {
    /// Not known yet: the parent's address has not come from srun.
    Unknown,
    Srun,
    Parent(TcpStream),
}

struct St {
    up: Up,
    /// The connected children's streams (their answers go down them).
    children: Vec<(u32, TcpStream)>,
    /// How many children this node has.
    want: usize,
    /// This fence's data so far: the node's own tasks', and its children's.
    own: Option<Vec<u8>>,
    from_children: Vec<Vec<u8>>,
}

/// One node's place in the tree.
pub struct Tree {
    node: u32,
    key: Vec<u8>,
    st: Mutex<St>,
    /// A frame to srun.
    srun: ToSrun,
    /// Every node's data, once the fence is over, to this node's tasks.
    deliver: Box<dyn Fn(Vec<u8>) + Send + Sync>,
}

impl Tree {
    /// Node `node` of `nnodes` in a tree of `width` (`None`: every node is
    /// srun's child).
    pub fn new(
        node: u32,
        nnodes: u32,
        width: Option<u32>,
        key: Vec<u8>,
        srun: ToSrun,
        deliver: Box<dyn Fn(Vec<u8>) + Send + Sync>,
    ) -> Arc<Tree> {
        let (up, want) = match width {
            None => (Up::Srun, 0),
            Some(w) => (
                if stepio::tree_parent(node, w).is_some() { Up::Unknown } else { Up::Srun },
                stepio::tree_children(node, nnodes, w).len(),
            ),
        };
        Arc::new(Tree {
            node,
            key,
            st: Mutex::new(St { up, children: Vec::new(), want, own: None, from_children: Vec::new() }),
            srun,
            deliver,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, St> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// This node's tasks' data for the current fence.
    pub fn contribute(&self, data: Vec<u8>) {
        let mut st = self.lock();
        st.own = Some(data);
        self.send_up(&mut st);
    }

    /// Once the node's own data and every child's are in and the way up is
    /// known: the subtree's data goes up, and the next fence starts empty.
    fn send_up(&self, st: &mut St) {
        if st.own.is_none() || st.from_children.len() < st.want || matches!(st.up, Up::Unknown) {
            return;
        }
        let mut all = st.own.take().unwrap_or_default();
        for c in st.from_children.drain(..) {
            all.extend(c);
        }
        match &mut st.up {
            Up::Parent(s) => {
                // (a parent that is gone ends the step through srun's view
                // of that node; nothing to do here)
                let _ = stepio::write_frame(s, FrameKind::PmiFence, ALL_TASKS, &all);
            }
            _ => (self.srun)(FrameKind::PmiFence, ALL_TASKS, &all),
        }
    }

    /// The fence's answer (from srun or the parent): down to the children,
    /// then to this node's tasks.
    pub fn answer(&self, data: Vec<u8>) {
        {
            let mut st = self.lock();
            let mut gone = vec![];
            for (i, (_, s)) in st.children.iter_mut().enumerate() {
                if stepio::write_frame(s, FrameKind::PmiFenceResp, ALL_TASKS, &data).is_err() {
                    gone.push(i);
                }
            }
            for i in gone.into_iter().rev() {
                st.children.remove(i);
            }
        }
        (self.deliver)(data);
    }

    /// Listen for this node's children on `ip` (the address srun reaches
    /// this node by); the listener's address, for srun to pass on.
    pub fn listen(self: &Arc<Self>, ip: std::net::IpAddr) -> io::Result<String> {
        let l = TcpListener::bind((ip, 0))?;
        let addr = l.local_addr()?.to_string();
        let me = self.clone();
        std::thread::spawn(move || {
            for conn in l.incoming() {
                let Ok(s) = conn else { continue };
                let me = me.clone();
                std::thread::spawn(move || me.serve_child(s));
            }
        });
        Ok(addr)
    }

    /// One child's connection: its hello, then its subtree's data, fence
    /// after fence.
    fn serve_child(&self, s: TcpStream) {
        let _ = s.set_nodelay(true);
        let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(10)));
        let mut r = s;
        let child = match stepio::read_frame(&mut r) {
            Ok(Some(f))
                if f.kind == FrameKind::Hello && f.data.len() == 4 + self.key.len() && f.data[4..] == self.key[..] =>
            {
                u32::from_le_bytes([f.data[0], f.data[1], f.data[2], f.data[3]])
            }
            _ => return,
        };
        let _ = r.set_read_timeout(None);
        if let Ok(w) = r.try_clone() {
            self.lock().children.push((child, w));
        }
        while let Ok(Some(f)) = stepio::read_frame(&mut r) {
            if f.kind == FrameKind::PmiFence {
                let mut st = self.lock();
                st.from_children.push(f.data);
                self.send_up(&mut st);
            }
        }
    }

    /// srun says where the parent listens: connect, prove this node, and
    /// take the answers that come down.
    pub fn set_parent(self: &Arc<Self>, addr: &str) {
        let Ok(s) = addr
            .parse::<std::net::SocketAddr>()
            .map_err(io::Error::other)
            .and_then(|a| TcpStream::connect_timeout(&a, std::time::Duration::from_secs(10)))
        else {
            return;
        };
        let _ = s.set_nodelay(true);
        let mut hello = self.node.to_le_bytes().to_vec();
        hello.extend_from_slice(&self.key);
        let Ok(mut w) = s.try_clone() else { return };
        if stepio::write_frame(&mut w, FrameKind::Hello, ALL_TASKS, &hello).is_err() {
            return;
        }
        {
            let mut st = self.lock();
            st.up = Up::Parent(w);
            self.send_up(&mut st);
        }
        let me = self.clone();
        std::thread::spawn(move || {
            let mut r = s;
            while let Ok(Some(f)) = stepio::read_frame(&mut r) {
                if f.kind == FrameKind::PmiFenceResp {
                    me.answer(f.data);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Seven nodes in a tree of width 2 (srun → 0, 1; 0 → 2, 3; 1 → 4, 5;
    /// 2 → 6), srun played by a channel: every node's data reaches srun once,
    /// through the two roots, and the answer reaches every node.
    #[test]
    fn a_fence_climbs_the_tree_and_comes_down() {
        let (n, w) = (7u32, 2u32);
        let (to_srun, at_srun) = mpsc::channel::<(u32, Vec<u8>)>();
        let (delivered, got) = mpsc::channel::<(u32, Vec<u8>)>();
        let mut trees = Vec::new();
        let mut addrs = Vec::new();
        for i in 0..n {
            let to_srun = Mutex::new(to_srun.clone());
            let delivered = Mutex::new(delivered.clone());
            let t = Tree::new(
                i,
                n,
                Some(w),
                b"secret".to_vec(),
                Box::new(move |k, _, d| {
                    assert_eq!(k, FrameKind::PmiFence);
                    to_srun.lock().unwrap().send((i, d.to_vec())).unwrap();
                }),
                Box::new(move |d| delivered.lock().unwrap().send((i, d)).unwrap()),
            );
            addrs.push(t.listen("127.0.0.1".parse().unwrap()).unwrap());
            trees.push(t);
        }
        for i in 0..n {
            if let Some(p) = stepio::tree_parent(i, w) {
                trees[i as usize].set_parent(&addrs[p as usize]);
            }
        }
        for round in 0..2u8 {
            // the leaves first, the roots last: nothing goes up early
            for i in (0..n).rev() {
                trees[i as usize].contribute(vec![round, i as u8]);
            }
            let mut parts: Vec<(u32, Vec<u8>)> = (0..2).map(|_| at_srun.recv().unwrap()).collect();
            parts.sort();
            assert_eq!(parts.iter().map(|p| p.0).collect::<Vec<_>>(), vec![0, 1]);
            let all: Vec<u8> = parts.into_iter().flat_map(|p| p.1).collect();
            let mut pairs: Vec<(u8, u8)> = all.chunks(2).map(|c| (c[0], c[1])).collect();
            pairs.sort();
            assert_eq!(pairs, (0..n as u8).map(|i| (round, i)).collect::<Vec<_>>());
            for root in &trees[..2] {
                root.answer(all.clone());
            }
            let mut seen: Vec<u32> = (0..n)
                .map(|_| {
                    let (i, d) = got.recv().unwrap();
                    assert_eq!(d, all);
                    i
                })
                .collect();
            seen.sort();
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }

    /// Without srun's tree every node sends to srun at once.
    #[test]
    fn a_star_without_a_tree() {
        let (to_srun, at_srun) = mpsc::channel::<Vec<u8>>();
        let to_srun = Mutex::new(to_srun);
        let t = Tree::new(
            5,
            9,
            None,
            vec![],
            Box::new(move |_, _, d| to_srun.lock().unwrap().send(d.to_vec()).unwrap()),
            Box::new(|_| {}),
        );
        t.contribute(b"x".to_vec());
        assert_eq!(at_srun.recv().unwrap(), b"x");
    }
}
