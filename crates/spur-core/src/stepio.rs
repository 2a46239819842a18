//! The stream between srun and the step daemons of its step (Slurm's I/O
//! connection from slurmstepd back to srun): each step daemon connects to
//! srun's listener (`StepIo::io_addr`), proves itself with the step's secret
//! (`Hello`) and then sends its tasks' output and exits; srun sends stdin and
//! signals back on the same connection.
//!
//! A frame is a 9-byte header (kind, task id as u32 LE, payload length as
//! u32 LE) and the payload. A payload is at most [`MAX_PAYLOAD`] bytes
//! ([`MAX_COLLECTIVE_PAYLOAD`] for an MPI collective's data); a
//! reader refuses a longer one (a peer that is not a step daemon).

use std::collections::HashMap;
use std::io::{self, Read, Write};

/// The largest payload of one frame.
pub const MAX_PAYLOAD: u32 = 1 << 20;
/// The largest payload of an MPI collective's frame (a fence's data, which
/// grows with the step's ranks: Open MPI's modex is some hundreds of bytes a
/// rank, so 8 ranks on each of 10,000 nodes need about 25 MB).
pub const MAX_COLLECTIVE_PAYLOAD: u32 = 256 << 20;
/// `task` of a frame about no task or every task.
pub const ALL_TASKS: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FrameKind {
    /// A kind this build does not know (never written): skipped.
    Unknown = 0,
    /// step daemon → srun: node index (u32 LE) then the step's secret.
    Hello = 1,
    /// A task's stdout / stderr bytes.
    Stdout = 2,
    Stderr = 3,
    /// A task ended: wait status (i32 LE), user and system CPU microseconds
    /// and MaxRSS in KiB (u64 LE each).
    Exit = 4,
    /// A line of the step daemon's own for srun's stderr (`slurmstepd: error: ...`).
    Message = 5,
    /// The step daemon is done: every task's exit was sent.
    Done = 6,
    /// The step was cancelled from outside (scancel, its job's end): srun
    /// says `Job step aborted`. A data byte 1: the step daemon ended the
    /// step itself (over its memory limit) and srun ends it on every node;
    /// 2: the same for a task's PMI abort (then, for PMIx, the abort's
    /// status as i32 LE: srun's exit code).
    Aborted = 7,
    /// `--mpi=pmi2`: what the node's tasks put since the last fence, once
    /// they have all fenced (`pmi` records: u32 LE key length, key, u32 LE
    /// value length, value, ...).
    PmiFence = 8,
    /// `--mpi=pmix`, both ways: a direct modex request for the data of the
    /// rank in `task` (the asking node, u32 LE, and its request number, u64
    /// LE); srun passes it to the node holding the rank.
    PmixDmodex = 9,
    /// srun → step daemon: stdin for a task (or [`ALL_TASKS`]).
    Stdin = 10,
    /// srun's stdin ended.
    StdinEof = 11,
    /// A signal (i32 LE) for the tasks.
    Signal = 12,
    /// End the step (srun's `--kill-on-bad-exit`, a second Ctrl-C): the
    /// signal (i32 LE) now, SIGKILL after KillWait.
    Cancel = 13,
    /// srun → step daemon: every node's fence records, once all fenced.
    PmiFenceResp = 14,
    /// `--mpi=pmix`, both ways: the answer to a [`FrameKind::PmixDmodex`]
    /// (its asking node and number, the PMIx status as i32 LE, the data);
    /// srun passes it to the asking node.
    PmixDmodexResp = 15,
    /// step daemon → srun: a name service request of a task (`pmi` records
    /// `id`, `op` publish/unpublish/lookup, `name`, `port`).
    PmiName = 16,
    /// srun → step daemon: its answer (`id`, `found` 1 or 0, `port`).
    PmiNameResp = 17,
    /// step daemon → srun, from a node with children in an MPI step's tree
    /// ([`tree_parent`]): where its tree listener is (`host:port`).
    TreeAddr = 18,
    /// srun → step daemon: where its tree parent's listener is.
    TreeParent = 19,
}

impl FrameKind {
    /// The longest payload a reader takes in a frame of this kind.
    pub fn max_payload(self) -> u32 {
        match self {
            FrameKind::PmiFence | FrameKind::PmiFenceResp | FrameKind::PmixDmodexResp => MAX_COLLECTIVE_PAYLOAD,
            _ => MAX_PAYLOAD,
        }
    }

    fn from_u8(b: u8) -> Option<FrameKind> {
        use FrameKind::*;
        Some(match b {
            1 => Hello,
            2 => Stdout,
            3 => Stderr,
            4 => Exit,
            5 => Message,
            6 => Done,
            7 => Aborted,
            8 => PmiFence,
            9 => PmixDmodex,
            10 => Stdin,
            11 => StdinEof,
            12 => Signal,
            13 => Cancel,
            14 => PmiFenceResp,
            15 => PmixDmodexResp,
            16 => PmiName,
            17 => PmiNameResp,
            18 => TreeAddr,
            19 => TreeParent,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub kind: FrameKind,
    pub task: u32,
    pub data: Vec<u8>,
}

/// What one task's end reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskExit {
    pub status: i32,
    pub user_us: u64,
    pub sys_us: u64,
    pub max_rss_kb: u64,
}

impl TaskExit {
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(28);
        v.extend_from_slice(&self.status.to_le_bytes());
        v.extend_from_slice(&self.user_us.to_le_bytes());
        v.extend_from_slice(&self.sys_us.to_le_bytes());
        v.extend_from_slice(&self.max_rss_kb.to_le_bytes());
        v
    }
    pub fn decode(b: &[u8]) -> Option<TaskExit> {
        let u64_at = |i: usize| b.get(i..i + 8).and_then(|s| s.try_into().ok()).map(u64::from_le_bytes);
        Some(TaskExit {
            status: i32::from_le_bytes(b.get(0..4)?.try_into().ok()?),
            user_us: u64_at(4)?,
            sys_us: u64_at(12)?,
            max_rss_kb: u64_at(20)?,
        })
    }
}

/// A fence's puts as they travel between a node and srun: per pair, the
/// key's length (u32 LE), the key, the value's length, the value. A
/// concatenation of such records is one too (srun merges by concatenating).
pub fn encode_puts(puts: &[(String, String)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, v) in puts {
        for s in [k, v] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    out
}

/// [`encode_puts`]' records back; `None` when they are cut short.
pub fn decode_puts(mut b: &[u8]) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let take = |b: &mut &[u8]| -> Option<String> {
        let n = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
        let s = String::from_utf8_lossy(b.get(4..4 + n)?).into_owned();
        *b = &b[4 + n..];
        Some(s)
    };
    while !b.is_empty() {
        let k = take(&mut b)?;
        let v = take(&mut b)?;
        out.push((k, v));
    }
    Some(out)
}

/// The tree an MPI step's collectives climb (Slurm's PMI tree): srun is the
/// root, with nodes `0..width` below it; node `i` has the nodes
/// `width*(i+1) ..` below it, at most `width` of them. Each node sends up
/// its own tasks' data with its children's, and passes the answer down.
/// The tree's width, as Slurm's srun and slurmstepd both take it: the
/// step's `SLURM_PMI2_TREE_WIDTH` (2 or more), else slurm.conf's
/// `TreeWidth`, else 50.
pub fn tree_width(env: Option<&str>, conf: Option<&str>) -> u32 {
    env.and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|&w| w >= 2)
        .or_else(|| conf.and_then(|v| v.trim().parse::<u32>().ok()).filter(|&w| w > 0))
        .unwrap_or(50)
}

/// The node above node `node` (`None`: srun).
pub fn tree_parent(node: u32, width: u32) -> Option<u32> {
    let w = width.max(1);
    (node >= w).then(|| node / w - 1)
}

/// The nodes below node `node` in a step of `nnodes`.
pub fn tree_children(node: u32, nnodes: u32, width: u32) -> std::ops::Range<u32> {
    let w = width.max(1) as u64;
    let first = (w * (node as u64 + 1)).min(nnodes as u64) as u32;
    let end = (w * (node as u64 + 1) + w).min(nnodes as u64) as u32;
    first..end
}

/// The nodes right below srun.
pub fn tree_roots(nnodes: u32, width: u32) -> std::ops::Range<u32> {
    0..nnodes.min(width.max(1))
}

/// What a name service request asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameOp {
    Publish,
    Unpublish,
    Lookup,
}

impl NameOp {
    pub fn as_str(self) -> &'static str {
        match self {
            NameOp::Publish => "publish",
            NameOp::Unpublish => "unpublish",
            NameOp::Lookup => "lookup",
        }
    }

    pub fn parse(s: &str) -> Option<NameOp> {
        [NameOp::Publish, NameOp::Unpublish, NameOp::Lookup].into_iter().find(|o| o.as_str() == s)
    }
}

/// A step's name service (`--mpi=pmi2`'s MPI_Publish_name and friends),
/// kept in one place (srun): the answer to one request.
pub fn name_service(names: &mut HashMap<String, String>, op: NameOp, name: &str, port: &str) -> Option<String> {
    match op {
        NameOp::Publish => {
            names.insert(name.to_string(), port.to_string());
            Some(String::new())
        }
        NameOp::Unpublish => {
            names.remove(name);
            Some(String::new())
        }
        NameOp::Lookup => names.get(name).cloned(),
    }
}

pub fn write_frame<W: Write>(w: &mut W, kind: FrameKind, task: u32, data: &[u8]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(9 + data.len());
    buf.push(kind as u8);
    buf.extend_from_slice(&task.to_le_bytes());
    buf.extend_from_slice(&(data.len() as u32).to_le_bytes());
    buf.extend_from_slice(data);
    w.write_all(&buf)
}

/// The next frame; `Ok(None)` at a clean end of the stream.
pub fn read_frame<R: Read>(r: &mut R) -> io::Result<Option<Frame>> {
    let mut h = [0u8; 9];
    let mut got = 0;
    while got < h.len() {
        match r.read(&mut h[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    // a kind this build does not know (a newer peer's) is read and handed
    // on as `Unknown`, for the reader to skip
    let kind = FrameKind::from_u8(h[0]).unwrap_or(FrameKind::Unknown);
    let task = u32::from_le_bytes([h[1], h[2], h[3], h[4]]);
    let len = u32::from_le_bytes([h[5], h[6], h[7], h[8]]);
    if len > kind.max_payload() {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "frame too long"));
    }
    // (memory as the bytes arrive, not as a header claims)
    let mut data = Vec::with_capacity((len as usize).min(MAX_PAYLOAD as usize));
    r.take(len as u64).read_to_end(&mut data)?;
    if data.len() != len as usize {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Some(Frame { kind, task, data }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_covers_every_node_once() {
        for (n, w) in [(1, 2), (8, 2), (8, 3), (64, 16), (100, 1), (10_000, 50)] {
            let mut seen = vec![0u32; n as usize];
            let mut stack: Vec<u32> = tree_roots(n, w).collect();
            while let Some(i) = stack.pop() {
                seen[i as usize] += 1;
                for c in tree_children(i, n, w) {
                    assert_eq!(tree_parent(c, w), Some(i));
                    stack.push(c);
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "n={} w={}", n, w);
            assert!(tree_roots(n, w).all(|r| tree_parent(r, w).is_none()));
        }
        assert_eq!(tree_children(0, 8, 2), 2..4);
        assert_eq!(tree_children(3, 8, 2), 8..8);
        assert_eq!(tree_width(Some("4"), Some("16")), 4);
        assert_eq!(tree_width(Some("1"), Some("16")), 16);
        assert_eq!(tree_width(None, None), 50);
    }

    #[test]
    fn put_records_round_trip() {
        let a = vec![("k".to_string(), "v;1".to_string()), (String::new(), String::new())];
        let b = vec![("x".to_string(), "y".to_string())];
        let mut both = encode_puts(&a);
        both.extend(encode_puts(&b));
        assert_eq!(decode_puts(&both), Some([a.clone(), b].concat()));
        assert_eq!(decode_puts(&both[..both.len() - 1]), None);
    }

    #[test]
    fn frames_round_trip_and_bad_ones_are_refused() {
        let mut buf = Vec::new();
        write_frame(&mut buf, FrameKind::Stdout, 3, b"hello\n").unwrap();
        let e = TaskExit { status: 256, user_us: 5, sys_us: 6, max_rss_kb: 7 };
        write_frame(&mut buf, FrameKind::Exit, 3, &e.encode()).unwrap();
        let mut r = &buf[..];
        let f = read_frame(&mut r).unwrap().unwrap();
        assert_eq!((f.kind, f.task, f.data.as_slice()), (FrameKind::Stdout, 3, &b"hello\n"[..]));
        let f = read_frame(&mut r).unwrap().unwrap();
        assert_eq!(TaskExit::decode(&f.data), Some(e));
        assert!(read_frame(&mut r).unwrap().is_none());
        // a kind of a newer build: read whole, to be skipped
        let mut newer = &[99u8, 5, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 2, 0, 0, 0, 0, 0, 0, 0, 0][..];
        let f = read_frame(&mut newer).unwrap().unwrap();
        assert_eq!((f.kind, f.task, &f.data[..]), (FrameKind::Unknown, 5, &b"hi"[..]));
        assert_eq!(read_frame(&mut newer).unwrap().unwrap().kind, FrameKind::Stdout);
        let mut long = vec![2u8, 0, 0, 0, 0];
        long.extend_from_slice(&(MAX_PAYLOAD + 1).to_le_bytes());
        assert!(read_frame(&mut &long[..]).is_err());
        // a fence's data may be longer, up to its own limit
        let big = vec![7u8; MAX_PAYLOAD as usize + 10];
        let mut buf = Vec::new();
        write_frame(&mut buf, FrameKind::PmiFenceResp, ALL_TASKS, &big).unwrap();
        assert_eq!(read_frame(&mut &buf[..]).unwrap().unwrap().data, big);
        let mut huge = vec![FrameKind::PmiFence as u8, 0, 0, 0, 0];
        huge.extend_from_slice(&(MAX_COLLECTIVE_PAYLOAD + 1).to_le_bytes());
        assert!(read_frame(&mut &huge[..]).is_err());
        // a header claiming more than arrives
        let mut short = vec![FrameKind::PmiFence as u8, 0, 0, 0, 0];
        short.extend_from_slice(&100u32.to_le_bytes());
        short.extend_from_slice(b"abc");
        assert!(read_frame(&mut &short[..]).is_err());
        assert!(TaskExit::decode(&[1, 2]).is_none());
    }
}
