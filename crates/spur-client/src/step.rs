//! The launching end of a step (srun's, and libslurm's `slurm_step_launch`
//! family): a listener that each node's step daemon connects back to, and
//! the events they send (task output, exits, their own messages), with stdin
//! and signals going the other way (`spur_core::stepio`).
//!
//! A connection counts only once it has proved itself with the step's
//! secret (`StepIo::io_key`, 32 bytes from the OS random source, which srun
//! hands to the controller over its authenticated call and the controller
//! to the agents); anything else that connects is dropped.

use spur_core::stepio::{self, FrameKind, TaskExit, ALL_TASKS};
use std::collections::HashMap;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the step daemons report.
#[derive(Debug)]
pub enum Event {
    /// Bytes a task wrote to its stdout (`stderr: false`) or stderr.
    Output {
        task: u32,
        stderr: bool,
        data: Vec<u8>,
    },
    /// A task ended.
    Exit {
        task: u32,
        exit: TaskExit,
    },
    /// A line of a step daemon's own (`slurmstepd: error: ...`).
    Message(Vec<u8>),
    /// Node `node` (its index in the step) sent every exit.
    NodeDone(u32),
    /// Node `node`'s connection ended before it was done.
    NodeLost(u32),
    /// Node `node`'s step daemon connected (its tasks are starting).
    NodeStarted(u32),
    /// The step was cancelled from outside (scancel, its job's end), or
    /// (`end_step`) a node ended it itself and asks srun to end it on the
    /// others: over its memory limit (`memory`), or a task's PMI abort.
    Aborted {
        end_step: bool,
        memory: bool,
        /// A PMIx abort's status (srun exits with it when not 0).
        mpi_status: Option<i32>,
    },
    /// Node `node`'s tasks fenced (`--mpi=pmi2`), with what they put.
    PmiFence {
        node: u32,
        data: Vec<u8>,
    },
    /// `--mpi=pmix`: a node asks for the data of `rank` (to pass on to the
    /// node holding it), or answers such a request (to pass on to the node
    /// that asked: the payload's first four bytes).
    PmixDmodex {
        rank: u32,
        data: Vec<u8>,
    },
    PmixDmodexResp {
        data: Vec<u8>,
    },
    /// Node `node`'s tree listener (an MPI step's collectives).
    TreeAddr {
        node: u32,
        addr: String,
    },
    /// A task's name service request (`--mpi=pmi2`), from node `node`.
    PmiName {
        node: u32,
        data: Vec<u8>,
    },
}

/// srun's listener and the connections of the step's nodes.
pub struct StepIo {
    port: u16,
    key: Vec<u8>,
    /// Each node's connection (by node index), for stdin and signals.
    writers: Arc<Mutex<HashMap<u32, TcpStream>>>,
}

impl StepIo {
    /// Listen on every address, on a port of the kernel's choosing, with a
    /// fresh secret.
    pub fn listen() -> io::Result<(StepIo, mpsc::Receiver<Event>)> {
        let listener = TcpListener::bind(("0.0.0.0", 0))?;
        let port = listener.local_addr()?.port();
        let mut key = vec![0u8; 32];
        spur_auth::random_bytes(&mut key).map_err(|e| io::Error::other(e.to_string()))?;
        let (tx, rx) = mpsc::channel();
        let writers: Arc<Mutex<HashMap<u32, TcpStream>>> = Arc::new(Mutex::new(HashMap::new()));
        {
            let key = key.clone();
            let writers = writers.clone();
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    let Ok(s) = conn else { continue };
                    let key = key.clone();
                    let writers = writers.clone();
                    let tx = tx.clone();
                    std::thread::spawn(move || serve(s, key, writers, tx));
                }
            });
        }
        Ok((StepIo { port, key, writers }, rx))
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn key(&self) -> &[u8] {
        &self.key
    }

    fn send(&self, node: Option<u32>, kind: FrameKind, task: u32, data: &[u8]) {
        let mut g = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        let mut dead = vec![];
        for (n, s) in g.iter_mut() {
            if node.is_some_and(|x| x != *n) {
                continue;
            }
            if stepio::write_frame(s, kind, task, data).is_err() {
                dead.push(*n);
            }
        }
        for n in dead {
            g.remove(&n);
        }
    }

    /// Bytes for the stdin of task `task` (on node `node`), or of every task.
    pub fn stdin(&self, node: Option<u32>, task: Option<u32>, data: &[u8]) {
        self.send(node, FrameKind::Stdin, task.unwrap_or(ALL_TASKS), data)
    }

    pub fn stdin_eof(&self) {
        self.send(None, FrameKind::StdinEof, ALL_TASKS, &[])
    }

    /// Send `sig` to every task of the step.
    pub fn signal(&self, sig: i32) {
        self.send(None, FrameKind::Signal, ALL_TASKS, &sig.to_le_bytes())
    }

    /// End the step: its tasks get `sig` now, SIGKILL after KillWait.
    pub fn cancel(&self, sig: i32) {
        self.send(None, FrameKind::Cancel, ALL_TASKS, &sig.to_le_bytes())
    }

    /// A direct modex request for `rank`, to the node holding it.
    pub fn pmix_dmodex(&self, node: u32, rank: u32, data: &[u8]) {
        self.send(Some(node), FrameKind::PmixDmodex, rank, data)
    }

    /// A direct modex answer, to the node that asked.
    pub fn pmix_dmodex_answer(&self, node: u32, data: &[u8]) {
        self.send(Some(node), FrameKind::PmixDmodexResp, ALL_TASKS, data)
    }

    /// Where node `node`'s tree parent listens.
    pub fn tree_parent(&self, node: u32, addr: &str) {
        self.send(Some(node), FrameKind::TreeParent, ALL_TASKS, addr.as_bytes())
    }

    /// The fence's answer to node `node` (one of the tree's roots).
    pub fn pmi_fence_done_to(&self, node: u32, data: &[u8]) {
        self.send(Some(node), FrameKind::PmiFenceResp, ALL_TASKS, data)
    }

    /// The answer to a name service request, to the node that asked.
    pub fn pmi_name_answer(&self, node: u32, data: &[u8]) {
        self.send(Some(node), FrameKind::PmiNameResp, ALL_TASKS, data)
    }

    /// How many nodes are connected now.
    pub fn connected(&self) -> usize {
        self.writers.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// One step daemon's connection: its hello, then its frames as events.
fn serve(s: TcpStream, key: Vec<u8>, writers: Arc<Mutex<HashMap<u32, TcpStream>>>, tx: mpsc::Sender<Event>) {
    let _ = s.set_nodelay(true);
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let mut r = s;
    let node = match stepio::read_frame(&mut r) {
        Ok(Some(f)) if f.kind == FrameKind::Hello && f.data.len() == 4 + key.len() && f.data[4..] == key[..] => {
            u32::from_le_bytes([f.data[0], f.data[1], f.data[2], f.data[3]])
        }
        _ => return,
    };
    let _ = r.set_read_timeout(None);
    if let Ok(w) = r.try_clone() {
        writers.lock().unwrap_or_else(|e| e.into_inner()).insert(node, w);
    }
    let _ = tx.send(Event::NodeStarted(node));
    loop {
        let ev = match stepio::read_frame(&mut r) {
            Ok(Some(f)) => match f.kind {
                FrameKind::Stdout => Event::Output { task: f.task, stderr: false, data: f.data },
                FrameKind::Stderr => Event::Output { task: f.task, stderr: true, data: f.data },
                FrameKind::Exit => match TaskExit::decode(&f.data) {
                    Some(exit) => Event::Exit { task: f.task, exit },
                    None => continue,
                },
                FrameKind::Message => Event::Message(f.data),
                FrameKind::Aborted => Event::Aborted {
                    end_step: matches!(f.data.first(), Some(1 | 2)),
                    memory: f.data.first() == Some(&1),
                    mpi_status: f.data.get(1..5).and_then(|b| b.try_into().ok()).map(i32::from_le_bytes),
                },
                FrameKind::PmiFence => Event::PmiFence { node, data: f.data },
                FrameKind::PmixDmodex => Event::PmixDmodex { rank: f.task, data: f.data },
                FrameKind::PmixDmodexResp => Event::PmixDmodexResp { data: f.data },
                FrameKind::PmiName => Event::PmiName { node, data: f.data },
                FrameKind::TreeAddr => Event::TreeAddr { node, addr: String::from_utf8_lossy(&f.data).into_owned() },
                FrameKind::Done => {
                    let _ = tx.send(Event::NodeDone(node));
                    writers.lock().unwrap_or_else(|e| e.into_inner()).remove(&node);
                    return;
                }
                _ => continue,
            },
            Ok(None) | Err(_) => {
                writers.lock().unwrap_or_else(|e| e.into_inner()).remove(&node);
                let _ = tx.send(Event::NodeLost(node));
                return;
            }
        };
        if tx.send(ev).is_err() {
            return;
        }
    }
}
