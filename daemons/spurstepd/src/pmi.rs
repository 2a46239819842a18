//! Slurm's `mpi/pmi2` as a step's tasks see it (`srun --mpi=pmi2`): the step
//! daemon serves the PMI wire protocol on each task's `PMI_FD`, PMI-2 (the
//! length-prefixed `cmd=...;` messages of Slurm's `libpmi2` and MPICH's
//! PMI-2 client) and PMI-1 (MPICH's simple PMI lines), as Slurm's
//! `src/plugins/mpi/pmi2` serves them (see ../shared/reference's
//! libslurm-abi.md §4.4: framing, commands and replies as measured on Slurm
//! 22.05). One difference on purpose: a `;` inside a PMI-2 value, which the
//! client writes `;;`, comes back whole; Slurm's server truncates it.
//!
//! The key-value space is the step's: what a node's tasks put is held on
//! the node until a fence; once every local task has fenced, the node's
//! puts go to the other nodes through an [`Exchange`] (one node: nothing to
//! exchange), the fence's merged puts are committed on every node, and every
//! task gets its fence's answer.
//!
//! The nodes' fences meet at srun (the root of Slurm's tree; the step
//! daemons are all its direct children here): a node's puts go up in a
//! `PmiFence` frame, srun answers every node with all of them once every
//! node has fenced (`PmiFenceResp`).

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Condvar, Mutex};

/// The listening socket of `--mpi=none`'s PMI-1 on demand, in the abstract
/// namespace (no file, nothing to clean up; it goes with the process).
pub fn listen_abstract(name: &str) -> io::Result<std::os::unix::net::UnixListener> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    std::os::unix::net::UnixListener::bind_addr(&addr)
}

/// `--mpi=none`'s PMI-1 on demand: each connection is one task's, which
/// says first which it is (`spur-rank=N` and a newline), then speaks PMI-1
/// as on a `PMI_FD`. A peer that is neither the step's owner nor root, a
/// rank not of this node, or one already connected, is closed at once.
pub fn serve_on_demand(
    l: std::os::unix::net::UnixListener,
    server: Arc<Server>,
    local: std::collections::HashSet<u32>,
    owner: u32,
    abort: impl Fn() + Send + Clone + 'static,
) {
    let taken = Arc::new(Mutex::new(std::collections::HashSet::new()));
    for conn in l.incoming() {
        let Ok(mut s) = conn else { continue };
        let peer = nix::sys::socket::getsockopt(&s, nix::sys::socket::sockopt::PeerCredentials);
        if !peer.is_ok_and(|c| c.uid() == owner || c.uid() == 0) {
            continue;
        }
        let (server, local, taken, abort) = (server.clone(), local.clone(), taken.clone(), abort.clone());
        std::thread::spawn(move || {
            let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(10)));
            let Some(rank) = read_hello(&mut s) else { return };
            if !local.contains(&rank) || !taken.lock().unwrap_or_else(|e| e.into_inner()).insert(rank) {
                return;
            }
            let _ = s.set_read_timeout(None);
            if let Ok(End::Abort) = server.serve(rank, s) {
                abort();
            }
        });
    }
}

/// `spur-rank=N\n`, read a byte at a time (nothing past it is taken).
fn read_hello(s: &mut impl Read) -> Option<u32> {
    let mut line = Vec::new();
    let mut b = [0u8; 1];
    while line.len() < 32 {
        if s.read(&mut b).ok()? == 0 {
            return None;
        }
        if b[0] == b'\n' {
            let text = std::str::from_utf8(&line).ok()?;
            return text.strip_prefix("spur-rank=")?.parse().ok();
        }
        line.push(b[0]);
    }
    None
}

/// PMI_MAXVALLEN, PMI_MAXKEYLEN and the kvs name length Slurm announces.
pub const VALLEN_MAX: usize = 1024;
pub const KEYLEN_MAX: usize = 64;
pub const KVSNAME_MAX: usize = 256;

/// The wire version a task speaks after its `init` (1.1 or 2.0; the first
/// task's fixes the step's, as Slurm's `set_pmi_version`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    V1,
    V2,
}

/// One request: its command and attributes, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub cmd: String,
    pub attrs: Vec<(String, String)>,
}

impl Request {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// A PMI-1 line, `cmd=NAME key=value ...` (an `mcmd=` line's name too).
pub fn parse_v1(line: &str) -> Request {
    let mut cmd = String::new();
    let mut attrs = Vec::new();
    for w in line.trim_end_matches(['\n', '\r']).split(' ').filter(|w| !w.is_empty()) {
        let (k, v) = w.split_once('=').unwrap_or((w, ""));
        if (k == "cmd" || k == "mcmd") && cmd.is_empty() {
            cmd = v.to_string();
        } else {
            attrs.push((k.to_string(), v.to_string()));
        }
    }
    Request { cmd, attrs }
}

/// A PMI-2 payload, `cmd=NAME;key=value;...;`: a `;` inside a value is
/// written `;;` (libpmi2's escaping), read back as one.
pub fn parse_v2(payload: &str) -> Request {
    let b = payload.as_bytes();
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let k0 = i;
        while i < b.len() && b[i] != b'=' && b[i] != b';' {
            i += 1;
        }
        let key = String::from_utf8_lossy(&b[k0..i]).into_owned();
        let mut val = Vec::new();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() {
                if b[i] == b';' {
                    if b.get(i + 1) == Some(&b';') {
                        val.push(b';');
                        i += 2;
                        continue;
                    }
                    break;
                }
                val.push(b[i]);
                i += 1;
            }
        }
        // the pair's terminating `;`
        i += 1;
        if !key.is_empty() {
            pairs.push((key, String::from_utf8_lossy(&val).into_owned()));
        }
    }
    let cmd = match pairs.first() {
        Some((k, _)) if k == "cmd" => pairs.remove(0).1,
        _ => String::new(),
    };
    Request { cmd, attrs: pairs }
}

/// A PMI-2 message: `cmd=NAME;key=value;...;` with each `;` of a value
/// doubled, after its length as six left-justified decimal digits.
pub fn frame_v2(pairs: &[(&str, &str)]) -> Vec<u8> {
    let mut p = String::new();
    for (k, v) in pairs {
        p.push_str(k);
        p.push('=');
        p.push_str(&v.replace(';', ";;"));
        p.push(';');
    }
    let mut out = format!("{:<6}", p.len()).into_bytes();
    out.extend_from_slice(p.as_bytes());
    out
}

/// A PMI-1 answer line: `cmd=NAME key=value ...\n`.
pub fn line_v1(pairs: &[(&str, &str)]) -> String {
    let mut s = pairs.iter().map(|(k, v)| format!("{}={}", k, v)).collect::<Vec<_>>().join(" ");
    s.push('\n');
    s
}

/// The node index of each task, by task id (`task_ids`: each node's tasks).
pub fn task_nodes(task_ids: &[Vec<u32>], num_tasks: u32) -> Vec<u32> {
    let mut v = vec![0u32; num_tasks as usize];
    for (n, ids) in task_ids.iter().enumerate() {
        for &t in ids {
            if let Some(x) = v.get_mut(t as usize) {
                *x = n as u32;
            }
        }
    }
    v
}

/// Slurm's `PMI_process_mapping` for the global ranks' nodes (`node_of[r]`,
/// node indexes in step order): `(vector,(first node,node count,ranks per
/// node),...)`, consecutive nodes holding the same number of consecutive
/// ranks in one triple, and a pattern that repeats (cyclic) written once.
pub fn process_mapping(node_of: &[u32]) -> String {
    // runs of consecutive ranks on one node
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &n in node_of {
        match runs.last_mut() {
            Some((node, c)) if *node == n => *c += 1,
            _ => runs.push((n, 1)),
        }
    }
    // consecutive nodes with equal runs: (first, count, ppn)
    let mut triples: Vec<(u32, u32, u32)> = Vec::new();
    for (node, c) in runs {
        match triples.last_mut() {
            Some((first, count, ppn)) if *ppn == c && *first + *count == node => *count += 1,
            _ => triples.push((node, 1, c)),
        }
    }
    // a block of triples that repeats to the end is written once
    let n = triples.len();
    let period = (1..=n).find(|&p| n.is_multiple_of(p) && (p..n).all(|i| triples[i] == triples[i % p])).unwrap_or(n);
    let mut s = String::from("(vector");
    for (f, c, p) in &triples[..period] {
        s.push_str(&format!(",({},{},{})", f, c, p));
    }
    s.push(')');
    s
}

pub use spur_core::stepio::NameOp;

/// What the step's tasks on this node need to know of the step.
#[derive(Clone, Debug)]
pub struct StepInfo {
    /// `J.S`: the kvs name (PMI-1) and job id (PMI-2).
    pub jobid: String,
    /// The step's task count.
    pub size: u32,
    /// How many of its tasks run on this node.
    pub local_tasks: u32,
    /// [`process_mapping`] of the step.
    pub mapping: String,
    /// The step's reserved ports (`mpi_reserved_ports`; empty: none).
    pub resv_ports: String,
}

/// How a node's fence reaches the step's other nodes: it takes what this
/// node's tasks put since the last fence and returns what every node's put
/// (this node's included), once every node has fenced.
pub trait Exchange: Send + Sync {
    fn fence(&self, puts: Vec<(String, String)>) -> io::Result<Vec<(String, String)>>;
    /// The step's name service (MPI_Publish_name and friends), which srun
    /// keeps for the whole step as Slurm's does: `publish` (a name already
    /// there takes the new port), `unpublish`, `lookup` (the port, if any).
    fn name(&self, op: NameOp, name: &str, port: &str) -> io::Result<Option<String>>;
}

#[derive(Default)]
struct Kvs {
    wire: Option<Wire>,
    pending: Vec<(String, String)>,
    committed: HashMap<String, String>,
    /// The tasks waiting in the current fence, and the fence's number.
    fencing: u32,
    epoch: u64,
    failed: bool,
    node_attrs: HashMap<String, String>,
}

/// The number Slurm's PMI-2 server answers a malformed spawn with
/// (`PMI2_ERR_INVALID_ARGS`, pmi2.h).
const PMI2_ERR_INVALID_ARGS: &str = "10";

/// The PMI server of a step on one node, shared by its tasks' threads.
pub struct Server {
    info: StepInfo,
    exchange: Box<dyn Exchange>,
    kvs: Mutex<Kvs>,
    fenced: Condvar,
    /// A node attribute was put (`info-getnodeattr` with `wait=TRUE`).
    attr_put: Condvar,
}

/// How a task's conversation ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// `finalize`, or the task closed its end.
    Done,
    /// `abort`: the step is to be killed.
    Abort,
}

impl Server {
    pub fn new(info: StepInfo, exchange: Box<dyn Exchange>) -> Arc<Server> {
        Arc::new(Server {
            info,
            exchange,
            kvs: Mutex::new(Kvs::default()),
            fenced: Condvar::new(),
            attr_put: Condvar::new(),
        })
    }

    /// Serve task `rank` on `fd` (its end of the socketpair) until it
    /// finalizes, aborts or closes.
    pub fn serve<S: Read + Write>(&self, rank: u32, fd: S) -> io::Result<End> {
        let mut rd = BufReader::new(fd);
        let mut line = String::new();
        if rd.read_line(&mut line)? == 0 {
            return Ok(End::Done);
        }
        let init = parse_v1(&line);
        let (v, sub) = (init.get("pmi_version").unwrap_or(""), init.get("pmi_subversion").unwrap_or(""));
        let wire = match (v, sub) {
            ("1", "1") => Wire::V1,
            ("2", "0") => Wire::V2,
            _ => {
                let bad = line_v1(&[("cmd", "response_to_init"), ("rc", "-1")]);
                rd.get_mut().write_all(bad.as_bytes())?;
                return Ok(End::Done);
            }
        };
        {
            let mut k = self.lock();
            if *k.wire.get_or_insert(wire) != wire {
                drop(k);
                let bad = line_v1(&[("cmd", "response_to_init"), ("rc", "-1")]);
                rd.get_mut().write_all(bad.as_bytes())?;
                return Ok(End::Done);
            }
        }
        let ok = line_v1(&[("cmd", "response_to_init"), ("rc", "0"), ("pmi_version", v), ("pmi_subversion", sub)]);
        rd.get_mut().write_all(ok.as_bytes())?;
        match wire {
            Wire::V1 => self.serve_v1(rank, rd),
            Wire::V2 => self.serve_v2(rank, rd),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kvs> {
        self.kvs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn put(&self, key: &str, value: &str) {
        self.lock().pending.push((key.to_string(), value.to_string()));
    }

    fn get(&self, key: &str) -> Option<String> {
        self.lock().committed.get(key).cloned()
    }

    /// Wait until every local task has fenced and the step's puts are
    /// committed here; false when the exchange failed.
    fn fence(&self) -> bool {
        let mut k = self.lock();
        let epoch = k.epoch;
        k.fencing += 1;
        if k.fencing < self.info.local_tasks {
            while k.epoch == epoch {
                k = self.fenced.wait(k).unwrap_or_else(|e| e.into_inner());
            }
            return !k.failed;
        }
        let puts = std::mem::take(&mut k.pending);
        drop(k);
        let merged = self.exchange.fence(puts);
        let mut k = self.lock();
        match merged {
            Ok(m) => k.committed.extend(m),
            Err(_) => k.failed = true,
        }
        k.fencing = 0;
        k.epoch += 1;
        self.fenced.notify_all();
        !k.failed
    }

    /// A node attribute; with `wait`, once some task of the node puts it
    /// (Slurm defers the answer until then).
    fn node_attr(&self, key: &str, wait: bool) -> Option<String> {
        let mut k = self.lock();
        loop {
            if let Some(v) = k.node_attrs.get(key) {
                return Some(v.clone());
            }
            if !wait {
                return None;
            }
            k = self.attr_put.wait(k).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn serve_v1<S: Read + Write>(&self, _rank: u32, mut rd: BufReader<S>) -> io::Result<End> {
        let size = self.info.size.to_string();
        let mut line = String::new();
        loop {
            line.clear();
            if rd.read_line(&mut line)? == 0 {
                return Ok(End::Done);
            }
            if line.starts_with("mcmd=") {
                // a spawn: a block of lines up to `endcmd`, one block per
                // command; not served, and answered once the last block is
                // in with what Slurm sends when srun's spawn fails (pmi1.c
                // `_handle_mcmd`: PMI-2's form, to which a newline is added
                // so that a line-reading client does not wait forever)
                let mut block = line.clone();
                while line.trim_end() != "endcmd" {
                    line.clear();
                    if rd.read_line(&mut line)? == 0 {
                        return Ok(End::Done);
                    }
                    block.push_str(&line);
                }
                let field = |k: &str| {
                    block.lines().find_map(|l| l.strip_prefix(k).and_then(|v| v.strip_prefix('='))).map(str::to_string)
                };
                if field("spawnssofar") == field("totspawns") {
                    rd.get_mut().write_all(b"cmd=spawn-response;rc=-1;errmsg=spawn failed;\n")?;
                }
                continue;
            }
            let r = parse_v1(&line);
            let answer = match r.cmd.as_str() {
                "get_maxes" => line_v1(&[
                    ("cmd", "maxes"),
                    ("rc", "0"),
                    ("kvsname_max", &KVSNAME_MAX.to_string()),
                    ("keylen_max", &KEYLEN_MAX.to_string()),
                    ("vallen_max", &VALLEN_MAX.to_string()),
                ]),
                "get_universe_size" => line_v1(&[("cmd", "universe_size"), ("rc", "0"), ("size", &size)]),
                "get_appnum" => line_v1(&[("cmd", "appnum"), ("rc", "0"), ("appnum", "-1")]),
                "get_my_kvsname" => line_v1(&[("cmd", "my_kvsname"), ("rc", "0"), ("kvsname", &self.info.jobid)]),
                "put" => {
                    self.put(r.get("key").unwrap_or(""), r.get("value").unwrap_or(""));
                    line_v1(&[("cmd", "put_result"), ("rc", "0")])
                }
                "barrier_in" => {
                    let rc = if self.fence() { "0" } else { "1" };
                    line_v1(&[("cmd", "barrier_out"), ("rc", rc)])
                }
                "get" => match self.get(r.get("key").unwrap_or("")) {
                    Some(v) => line_v1(&[("cmd", "get_result"), ("rc", "0"), ("value", &v)]),
                    None => line_v1(&[("cmd", "get_result"), ("rc", "1")]),
                },
                "finalize" => {
                    rd.get_mut().write_all(line_v1(&[("cmd", "finalize_ack"), ("rc", "0")]).as_bytes())?;
                    return Ok(End::Done);
                }
                "abort" => return Ok(End::Abort),
                "publish_name" | "unpublish_name" | "lookup_name" => {
                    let op = match r.cmd.as_str() {
                        "publish_name" => NameOp::Publish,
                        "unpublish_name" => NameOp::Unpublish,
                        _ => NameOp::Lookup,
                    };
                    let cmd = format!("{}_result", op.as_str());
                    let service = r.get("service").unwrap_or("");
                    match self.exchange.name(op, service, r.get("port").unwrap_or("")) {
                        Ok(Some(port)) if op == NameOp::Lookup => {
                            line_v1(&[("cmd", &cmd), ("info", "ok"), ("port", &port)])
                        }
                        Ok(Some(_)) => line_v1(&[("cmd", &cmd), ("info", "ok")]),
                        _ => line_v1(&[("cmd", &cmd), ("info", "fail")]),
                    }
                }
                // not served (create_kvs, destroy_kvs, getbyidx): an answer
                // the client reads as a failure
                other => line_v1(&[("cmd", other), ("rc", "-1")]),
            };
            rd.get_mut().write_all(answer.as_bytes())?;
        }
    }

    fn serve_v2<S: Read + Write>(&self, rank: u32, mut rd: BufReader<S>) -> io::Result<End> {
        loop {
            let mut len = [0u8; 6];
            if let Err(e) = rd.read_exact(&mut len) {
                return if e.kind() == io::ErrorKind::UnexpectedEof { Ok(End::Done) } else { Err(e) };
            }
            let n: usize = std::str::from_utf8(&len).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
            if n == 0 || n > VALLEN_MAX * 4 {
                // a zero-length request (a second PMI2_Init): Slurm answers
                // finalize and closes
                rd.get_mut().write_all(&frame_v2(&[("cmd", "finalize-response"), ("rc", "0")]))?;
                return Ok(End::Done);
            }
            let mut payload = vec![0u8; n];
            rd.read_exact(&mut payload)?;
            let r = parse_v2(&String::from_utf8_lossy(&payload));
            let size = self.info.size.to_string();
            let rank_s = rank.to_string();
            let answer = match r.cmd.as_str() {
                "fullinit" => frame_v2(&[
                    ("cmd", "fullinit-response"),
                    ("rc", "0"),
                    ("pmi-version", "2"),
                    ("pmi-subversion", "0"),
                    ("rank", &rank_s),
                    ("size", &size),
                    ("appnum", "-1"),
                    ("debugged", "FALSE"),
                    ("pmiverbose", "FALSE"),
                ]),
                "job-getid" => frame_v2(&[("cmd", "job-getid-response"), ("rc", "0"), ("jobid", &self.info.jobid)]),
                "kvs-put" => {
                    self.put(r.get("key").unwrap_or(""), r.get("value").unwrap_or(""));
                    frame_v2(&[("cmd", "kvs-put-response"), ("rc", "0")])
                }
                "kvs-fence" => {
                    let rc = if self.fence() { "0" } else { "1" };
                    frame_v2(&[("cmd", "kvs-fence-response"), ("rc", rc)])
                }
                "kvs-get" => match self.get(r.get("key").unwrap_or("")) {
                    Some(v) => frame_v2(&[("cmd", "kvs-get-response"), ("rc", "0"), ("found", "TRUE"), ("value", &v)]),
                    None => frame_v2(&[("cmd", "kvs-get-response"), ("rc", "0"), ("found", "FALSE")]),
                },
                "info-getjobattr" => match r.get("key").unwrap_or("") {
                    "PMI_process_mapping" => frame_v2(&[
                        ("cmd", "info-getjobattr-response"),
                        ("rc", "0"),
                        ("found", "TRUE"),
                        ("value", &self.info.mapping),
                    ]),
                    "mpi_reserved_ports" if !self.info.resv_ports.is_empty() => frame_v2(&[
                        ("cmd", "info-getjobattr-response"),
                        ("rc", "0"),
                        ("found", "TRUE"),
                        ("value", &self.info.resv_ports),
                    ]),
                    "universeSize" => frame_v2(&[
                        ("cmd", "info-getjobattr-response"),
                        ("rc", "0"),
                        ("found", "TRUE"),
                        ("value", &size),
                    ]),
                    _ => frame_v2(&[("cmd", "info-getjobattr-response"), ("rc", "0"), ("found", "FALSE")]),
                },
                "info-putnodeattr" => {
                    let (k, v) = (r.get("key").unwrap_or(""), r.get("value").unwrap_or(""));
                    self.lock().node_attrs.insert(k.to_string(), v.to_string());
                    self.attr_put.notify_all();
                    frame_v2(&[("cmd", "info-putnodeattr-response"), ("rc", "0")])
                }
                "info-getnodeattr" => match self.node_attr(r.get("key").unwrap_or(""), r.get("wait") == Some("TRUE")) {
                    Some(v) => {
                        frame_v2(&[("cmd", "info-getnodeattr-response"), ("rc", "0"), ("found", "TRUE"), ("value", &v)])
                    }
                    None => frame_v2(&[("cmd", "info-getnodeattr-response"), ("rc", "0"), ("found", "FALSE")]),
                },
                "finalize" => {
                    rd.get_mut().write_all(&frame_v2(&[("cmd", "finalize-response"), ("rc", "0")]))?;
                    return Ok(End::Done);
                }
                "abort" => return Ok(End::Abort),
                "name-publish" | "name-unpublish" | "name-lookup" => {
                    let op = match r.cmd.as_str() {
                        "name-publish" => NameOp::Publish,
                        "name-unpublish" => NameOp::Unpublish,
                        _ => NameOp::Lookup,
                    };
                    let cmd = format!("{}-response", r.cmd);
                    match self.exchange.name(op, r.get("name").unwrap_or(""), r.get("port").unwrap_or("")) {
                        Ok(Some(port)) if op == NameOp::Lookup => {
                            frame_v2(&[("cmd", &cmd), ("rc", "0"), ("value", &port)])
                        }
                        Ok(Some(_)) => frame_v2(&[("cmd", &cmd), ("rc", "0")]),
                        _ => frame_v2(&[("cmd", &cmd), ("rc", "1")]),
                    }
                }
                // spawning is not served: Slurm's answers when the request
                // does not parse, and when srun's spawn fails (pmi2.c)
                "spawn" if r.get("ncmds").and_then(|n| n.parse::<u32>().ok()).is_none() => {
                    frame_v2(&[("cmd", "spawn-response"), ("rc", PMI2_ERR_INVALID_ARGS), ("errmsg", "invalid command")])
                }
                "spawn" => frame_v2(&[("cmd", "spawn-response"), ("rc", "-1"), ("errmsg", "spawn failed")]),
                other => {
                    let name = format!("{}-response", other);
                    frame_v2(&[("cmd", &name), ("rc", "-1"), ("errmsg", "not supported")])
                }
            };
            rd.get_mut().write_all(&answer)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    /// A step on one node: nothing to exchange.
    struct OneNode;

    impl Exchange for OneNode {
        fn fence(&self, puts: Vec<(String, String)>) -> io::Result<Vec<(String, String)>> {
            Ok(puts)
        }
        fn name(&self, op: NameOp, name: &str, port: &str) -> io::Result<Option<String>> {
            static NAMES: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);
            let mut g = NAMES.lock().unwrap();
            Ok(spur_core::stepio::name_service(g.get_or_insert_with(HashMap::new), op, name, port))
        }
    }

    #[test]
    fn v2_values_keep_their_semicolons() {
        let f = frame_v2(&[("cmd", "kvs-put"), ("key", "k"), ("value", "rank0;with;semicolons")]);
        let s = String::from_utf8(f).unwrap();
        assert_eq!(&s[..6], "48    ");
        assert_eq!(&s[6..], "cmd=kvs-put;key=k;value=rank0;;with;;semicolons;");
        let r = parse_v2(&s[6..]);
        assert_eq!(r.cmd, "kvs-put");
        assert_eq!(r.get("value"), Some("rank0;with;semicolons"));
        // a value ending in `;`, and an empty one
        let r = parse_v2("cmd=x;a=b;;;c=;");
        assert_eq!(r.attrs, vec![("a".into(), "b;".into()), ("c".into(), "".into())]);
    }

    #[test]
    fn v1_lines() {
        let r = parse_v1("cmd=put kvsname=4.0 key=k value=v\n");
        assert_eq!((r.cmd.as_str(), r.get("kvsname"), r.get("value")), ("put", Some("4.0"), Some("v")));
        assert_eq!(line_v1(&[("cmd", "barrier_out"), ("rc", "0")]), "cmd=barrier_out rc=0\n");
    }

    #[test]
    fn process_mapping_as_slurm_writes_it() {
        // 3 tasks on 2 nodes, block (recorded on 22.05)
        assert_eq!(process_mapping(&[0, 0, 1]), "(vector,(0,1,2),(1,1,1))");
        assert_eq!(process_mapping(&[0, 0, 1, 1]), "(vector,(0,2,2))");
        // cyclic: one round, repeated
        assert_eq!(process_mapping(&[0, 1, 0, 1]), "(vector,(0,2,1))");
        assert_eq!(process_mapping(&[0]), "(vector,(0,1,1))");
    }

    /// Two ranks on one node, one speaking PMI-2 as libpmi2 does: put, fence,
    /// get the other's value (with `;` in it), finalize.
    #[test]
    fn two_ranks_put_fence_get() {
        let info = StepInfo {
            jobid: "7.0".into(),
            size: 2,
            local_tasks: 2,
            mapping: process_mapping(&[0, 0]),
            resv_ports: String::new(),
        };
        let srv = Server::new(info, Box::new(OneNode));
        let mut clients = Vec::new();
        let mut servers = Vec::new();
        for rank in 0..2u32 {
            let (task, stepd) = UnixStream::pair().unwrap();
            let s = srv.clone();
            servers.push(std::thread::spawn(move || s.serve(rank, stepd).unwrap()));
            clients.push(std::thread::spawn(move || {
                let mut c = V2Client::new(task);
                let mut ask = |pairs: &[(&str, &str)]| c.ask(pairs);
                let r = ask(&[("cmd", "fullinit"), ("pmijobid", "7.0"), ("pmirank", &rank.to_string())]);
                assert_eq!((r.get("rank"), r.get("size")), (Some(rank.to_string().as_str()), Some("2")));
                let value = format!("v{};x", rank);
                assert_eq!(
                    ask(&[("cmd", "kvs-put"), ("key", &format!("k{}", rank)), ("value", &value)]).get("rc"),
                    Some("0")
                );
                let other = format!("k{}", 1 - rank);
                // not visible before the fence
                assert_eq!(
                    ask(&[("cmd", "kvs-get"), ("jobid", "7.0"), ("srcid", "-1"), ("key", &other)]).get("found"),
                    Some("FALSE")
                );
                assert_eq!(ask(&[("cmd", "kvs-fence")]).get("rc"), Some("0"));
                let r = ask(&[("cmd", "kvs-get"), ("jobid", "7.0"), ("srcid", "-1"), ("key", &other)]);
                assert_eq!(r.get("value"), Some(format!("v{};x", 1 - rank).as_str()));
                let r = ask(&[("cmd", "info-getjobattr"), ("key", "PMI_process_mapping")]);
                assert_eq!(r.get("value"), Some("(vector,(0,1,2))"));
                assert_eq!(ask(&[("cmd", "finalize")]).cmd, "finalize-response");
            }));
        }
        for c in clients {
            c.join().unwrap();
        }
        for s in servers {
            assert_eq!(s.join().unwrap(), End::Done);
        }
    }

    /// A PMI-2 task's end: the handshake done, then one request at a time.
    struct V2Client {
        t: UnixStream,
        rd: BufReader<UnixStream>,
    }

    impl V2Client {
        fn new(mut t: UnixStream) -> V2Client {
            let mut rd = BufReader::new(t.try_clone().unwrap());
            t.write_all(b"cmd=init pmi_version=2 pmi_subversion=0\n").unwrap();
            let mut l = String::new();
            rd.read_line(&mut l).unwrap();
            assert_eq!(l, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n");
            V2Client { t, rd }
        }

        fn ask(&mut self, pairs: &[(&str, &str)]) -> Request {
            self.t.write_all(&frame_v2(pairs)).unwrap();
            let mut len = [0u8; 6];
            self.rd.read_exact(&mut len).unwrap();
            let n: usize = std::str::from_utf8(&len).unwrap().trim().parse().unwrap();
            let mut p = vec![0u8; n];
            self.rd.read_exact(&mut p).unwrap();
            parse_v2(&String::from_utf8(p).unwrap())
        }
    }

    /// The name service (kept by srun for the step), spawn refused with
    /// Slurm's answers, a node attribute waited for until another task puts
    /// it, the reserved ports.
    #[test]
    fn v2_names_spawn_and_waited_node_attributes() {
        let info = StepInfo {
            jobid: "9.0".into(),
            size: 2,
            local_tasks: 2,
            mapping: process_mapping(&[0, 0]),
            resv_ports: "12000-12002".into(),
        };
        let srv = Server::new(info, Box::new(OneNode));
        let mut tasks = Vec::new();
        for rank in 0..2u32 {
            let (task, stepd) = UnixStream::pair().unwrap();
            let s = srv.clone();
            std::thread::spawn(move || s.serve(rank, stepd).unwrap());
            tasks.push(task);
        }
        let putter = tasks.pop().unwrap();
        let mut c = V2Client::new(tasks.pop().unwrap());
        let late = std::thread::spawn(move || {
            let mut p = V2Client::new(putter);
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert_eq!(p.ask(&[("cmd", "info-putnodeattr"), ("key", "ready"), ("value", "yes")]).get("rc"), Some("0"));
        });
        let r = c.ask(&[("cmd", "info-getnodeattr"), ("key", "ready"), ("wait", "TRUE")]);
        assert_eq!((r.get("found"), r.get("value")), (Some("TRUE"), Some("yes")));
        late.join().unwrap();
        let r = c.ask(&[("cmd", "info-getjobattr"), ("key", "mpi_reserved_ports")]);
        assert_eq!((r.get("found"), r.get("value")), (Some("TRUE"), Some("12000-12002")));
        let r = c.ask(&[("cmd", "info-getnodeattr"), ("key", "never"), ("wait", "FALSE")]);
        assert_eq!(r.get("found"), Some("FALSE"));

        let r = c.ask(&[("cmd", "name-publish"), ("name", "svc2"), ("port", "tag#0$")]);
        assert_eq!((r.cmd.as_str(), r.get("rc")), ("name-publish-response", Some("0")));
        let r = c.ask(&[("cmd", "name-lookup"), ("name", "svc2")]);
        assert_eq!((r.get("rc"), r.get("value")), (Some("0"), Some("tag#0$")));
        assert_eq!(c.ask(&[("cmd", "name-unpublish"), ("name", "svc2")]).get("rc"), Some("0"));
        let r = c.ask(&[("cmd", "name-lookup"), ("name", "svc2")]);
        assert_eq!((r.cmd.as_str(), r.get("rc"), r.get("value")), ("name-lookup-response", Some("1"), None));

        let r = c.ask(&[("cmd", "spawn"), ("ncmds", "1"), ("subcmd", "a.out"), ("maxprocs", "2"), ("argc", "0")]);
        assert_eq!(
            (r.cmd.as_str(), r.get("rc"), r.get("errmsg")),
            ("spawn-response", Some("-1"), Some("spawn failed"))
        );
        let r = c.ask(&[("cmd", "spawn")]);
        assert_eq!((r.get("rc"), r.get("errmsg")), (Some("10"), Some("invalid command")));
    }

    /// MPICH's simple PMI (PMI-1 lines): barrier as the fence.
    #[test]
    fn pmi1_client() {
        let info = StepInfo {
            jobid: "8.1".into(),
            size: 1,
            local_tasks: 1,
            mapping: process_mapping(&[0]),
            resv_ports: String::new(),
        };
        let srv = Server::new(info, Box::new(OneNode));
        let (task, stepd) = UnixStream::pair().unwrap();
        let s = srv.clone();
        let server = std::thread::spawn(move || s.serve(0, stepd).unwrap());
        let mut t = task;
        let mut rd = BufReader::new(t.try_clone().unwrap());
        let mut ask = |line: &str| {
            t.write_all(line.as_bytes()).unwrap();
            let mut l = String::new();
            rd.read_line(&mut l).unwrap();
            l
        };
        assert_eq!(
            ask("cmd=init pmi_version=1 pmi_subversion=1\n"),
            "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"
        );
        assert_eq!(ask("cmd=get_maxes\n"), "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n");
        assert_eq!(ask("cmd=get_my_kvsname\n"), "cmd=my_kvsname rc=0 kvsname=8.1\n");
        assert_eq!(ask("cmd=put kvsname=8.1 key=a value=1\n"), "cmd=put_result rc=0\n");
        assert_eq!(ask("cmd=barrier_in\n"), "cmd=barrier_out rc=0\n");
        assert_eq!(ask("cmd=get kvsname=8.1 key=a\n"), "cmd=get_result rc=0 value=1\n");
        assert_eq!(ask("cmd=get kvsname=8.1 key=b\n"), "cmd=get_result rc=1\n");
        assert_eq!(ask("cmd=publish_name service=svc1 port=p1\n"), "cmd=publish_result info=ok\n");
        assert_eq!(ask("cmd=lookup_name service=svc1\n"), "cmd=lookup_result info=ok port=p1\n");
        assert_eq!(ask("cmd=unpublish_name service=svc1\n"), "cmd=unpublish_result info=ok\n");
        assert_eq!(ask("cmd=lookup_name service=svc1\n"), "cmd=lookup_result info=fail\n");
        // a spawn is a block of lines; refused once its last command is in
        let spawn = "mcmd=spawn\nnprocs=1\nexecname=a.out\ntotspawns=1\nspawnssofar=1\nargcnt=0\npreput_num=0\ninfo_num=0\nendcmd\n";
        assert_eq!(ask(spawn), "cmd=spawn-response;rc=-1;errmsg=spawn failed;\n");
        assert_eq!(ask("cmd=finalize\n"), "cmd=finalize_ack rc=0\n");
        assert_eq!(server.join().unwrap(), End::Done);
    }
}
