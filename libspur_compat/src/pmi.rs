//! What Slurm's PMI-1 library, `libpmi.so` (Debian's libpmi0), asks of
//! libslurm: the five `slurm_pmi_*` functions it imports from
//! `libslurm_pmi.so` (libslurm under another SONAME, found through libpmi's
//! RUNPATH; put this library there, or in front of it with
//! `LD_LIBRARY_PATH`, under that name).
//!
//! # What libpmi does with them
//! libpmi (Slurm's contribs/pmi/pmi.c) keeps the key-value spaces in the
//! process. `PMI_KVS_Commit` hands the pairs put since the last barrier to
//! [`slurm_pmi_send_kvs_comm_set`]; `PMI_Barrier` asks
//! [`slurm_pmi_get_kvs_comm_set`] for every rank's committed pairs, which
//! only returns once every rank of the step is in the barrier, copies them
//! into its own spaces and releases the set with
//! [`slurm_pmi_free_kvs_comm_set`]. `PMI_Abort` calls
//! [`slurm_pmi_kill_job_step`] (SIGKILL to its own step), `PMI_Finalize`
//! [`slurm_pmi_finalize`]. The sets cross as Slurm's internal
//! `kvs_comm_set_t` (src/common/slurm_protocol_defs.h), declared here
//! ([`KvsCommSet`], [`KvsComm`], [`KvsHosts`]): slurm.h does not have them.
//!
//! # Transport: the step daemon's PMI server
//! Slurm's functions speak Slurm's RPC to a PMI server inside srun. Spur's
//! go to the PMI server its step daemon already runs for `--mpi=pmi2`
//! steps, over the task's inherited `PMI_FD` in the PMI-1 wire protocol
//! (`cmd=init pmi_version=1 pmi_subversion=1`, `put`, `barrier_in`, `get`,
//! `finalize`, `abort`): the same server MPICH's simple PMI talks to, whose
//! barrier already spans the step's nodes through srun.
//!
//! The PMI-1 wire has no "get everything", so the set goes through the
//! server in an encoding of its own:
//! * a commit only records the pairs in the process (each commit re-sends
//!   every pair not yet through a barrier: a key sent again takes its new
//!   value); nothing is visible to other ranks before a barrier anyway;
//! * at the barrier, the rank's pairs since the last barrier are written as
//!   one text, `name,key,value,key,value;name,...` with every field
//!   percent-encoded (bytes outside `!`..`~`, and `%`, `,`, `;`, `=`, as
//!   `%XX`), cut into chunks of at most [`CHUNK`] bytes, each put under
//!   the key `spur-pmi1.<barrier>.<rank>.<i>` (the barrier's number counts
//!   the process's barriers, the same on every rank since a barrier is
//!   collective) with a first byte saying whether another chunk follows
//!   (`+`) or not (`.`); a rank with no pairs puts nothing;
//! * then `barrier_in`, and once `barrier_out` came back every other
//!   rank's chunks are read in turn with `get` (a missing first chunk: that
//!   rank had nothing), decoded and merged in rank order (a key that
//!   several ranks put takes the highest rank's value), this rank's own
//!   pairs included, as srun's server returns them.
//!
//! Keys, values and names thus go through whole, whatever bytes they hold
//! and however long they are (libpmi allows keys of 256 bytes and values of
//! 1024; the server's keys are at most 64 and its values 1024). The cost is
//! one `get` per chunk of every other rank at each barrier: O(ranks) round
//! trips to the node's step daemon per rank, as Slurm's srun sends every
//! rank the whole set.
//!
//! # Steps without `PMI_FD` (`--mpi=none`)
//! Slurm's srun answers libpmi in every step, whatever its MPI type. Spur's
//! step daemon serves `PMI_FD` to `--mpi=pmi2` steps only (that variable
//! changes what MPI libraries do, and Slurm sets it for pmi2 only); under
//! `--mpi=none` it serves libpmi on demand instead, on an abstract Unix
//! socket named from the task's environment
//! (`spur_core::launch::pmi1_socket_name`: srun's address and port, the
//! job, step and node), open to the step's owner. This library connects
//! to it on first use, says which task it is (`spur-rank=SLURM_PROCID`),
//! and speaks PMI-1 as on `PMI_FD`. With neither (a program started outside
//! srun) a process of one task needs no server (its barrier is itself, its
//! set its own pairs) and works; one of several fails its first commit or
//! barrier with `SLURM_ERROR` (errno `SLURM_COMMUNICATIONS_CONNECTION_ERROR`)
//! after a line on stderr. A `PMI_FD` whose `PMI_JOBID` names another step
//! than `SLURM_JOB_ID.SLURM_STEPID` (inherited from an enclosing step) is
//! not used.
//!
//! After [`slurm_pmi_finalize`] has closed `PMI_FD`, the process cannot
//! speak to the server again (the descriptor's number may be reused):
//! a later commit or barrier fails.

use crate::sys;
use crate::xmalloc;
use spur_core::errors::{SLURM_COMMUNICATIONS_CONNECTION_ERROR, SLURM_COMMUNICATIONS_RECEIVE_ERROR};
use std::ffi::{c_char, c_int, c_void};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Mutex, MutexGuard};

/// `struct kvs_hosts` (16 bytes): where srun forwards a set (Spur forwards
/// nothing: its sets have none).
#[repr(C)]
pub struct KvsHosts {
    pub task_id: u32,
    pub port: u16,
    pub hostname: *mut c_char,
}

/// `struct kvs_comm` (40 bytes): the pairs of one key-value space.
#[repr(C)]
pub struct KvsComm {
    pub kvs_name: *mut c_char,
    pub kvs_cnt: u32,
    pub kvs_keys: *mut *mut c_char,
    pub kvs_values: *mut *mut c_char,
    /// Not read (libpmi leaves it uninitialised); NULL in Spur's sets.
    pub kvs_key_sent: *mut u16,
}

/// `kvs_comm_set_t` (32 bytes).
#[repr(C)]
pub struct KvsCommSet {
    pub host_cnt: u16,
    pub kvs_host_ptr: *mut KvsHosts,
    pub kvs_comm_recs: u16,
    pub kvs_comm_ptr: *mut *mut KvsComm,
}

/// libpmi's buffer sizes (slurm/pmi.h: PMI_MAX_KVSNAME_LEN, _KEY_LEN,
/// _VAL_LEN): its names, keys and values live in buffers of exactly these
/// sizes, NUL-terminated unless full, so they are read no further.
const NAME_MAX: usize = 256;
const KEY_MAX: usize = 256;
const VAL_MAX: usize = 1024;

/// The most bytes of one chunk's value on the wire (the server's values
/// are at most 1024).
pub const CHUNK: usize = 1000;

/// Pairs by key-value space name, in the order first seen.
type Spaces = Vec<(Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>)>;

/// Put `key` = `value` in `name`'s space: a key already there takes the
/// new value in its place.
fn upsert(spaces: &mut Spaces, name: &[u8], key: &[u8], value: &[u8]) {
    let i = match spaces.iter().position(|(n, _)| n == name) {
        Some(i) => i,
        None => {
            spaces.push((name.to_vec(), Vec::new()));
            spaces.len() - 1
        }
    };
    let pairs = &mut spaces[i].1;
    match pairs.iter_mut().find(|(k, _)| k == key) {
        Some(p) => p.1 = value.to_vec(),
        None => pairs.push((key.to_vec(), value.to_vec())),
    }
}

/// A failed call: the errno it leaves and what stderr is told.
#[derive(Debug)]
struct Fail {
    errno: i32,
    msg: String,
}

fn fail<T>(errno: i32, msg: impl Into<String>) -> Result<T, Fail> {
    Err(Fail { errno, msg: msg.into() })
}

/// Report a failure as Slurm's functions do: a line on stderr, errno, and
/// SLURM_ERROR.
fn report(f: Fail) -> c_int {
    eprintln!("slurm_pmi: error: {}", f.msg);
    crate::errno::set(f.errno);
    sys::SLURM_ERROR
}

// ---- the encoding of a rank's pairs ----

fn plain(b: u8) -> bool {
    (b'!'..=b'~').contains(&b) && !matches!(b, b'%' | b',' | b';' | b'=')
}

fn escape(field: &[u8], out: &mut String) {
    for &b in field {
        if plain(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{:02X}", b));
        }
    }
}

fn unescape(field: &str) -> Option<Vec<u8>> {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            let v = u8::from_str_radix(h, 16).ok()?;
            if v == 0 {
                return None; // (no C string holds a NUL)
            }
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// `name,key,value,...;name,...`, every field escaped.
fn encode(spaces: &Spaces) -> String {
    let mut s = String::new();
    for (i, (name, pairs)) in spaces.iter().enumerate() {
        if i > 0 {
            s.push(';');
        }
        escape(name, &mut s);
        for (k, v) in pairs {
            s.push(',');
            escape(k, &mut s);
            s.push(',');
            escape(v, &mut s);
        }
    }
    s
}

/// [`encode`]'s text back, merged into `into`; None if it does not parse.
fn decode_into(text: &str, into: &mut Spaces) -> Option<()> {
    if text.is_empty() {
        return Some(());
    }
    for rec in text.split(';') {
        let fields: Vec<Vec<u8>> = rec.split(',').map(unescape).collect::<Option<_>>()?;
        let (name, pairs) = fields.split_first()?;
        if pairs.len() % 2 != 0 {
            return None;
        }
        if pairs.is_empty() {
            // (a space with no pairs: encode writes none)
            continue;
        }
        for kv in pairs.chunks(2) {
            upsert(into, name, &kv[0], &kv[1]);
        }
    }
    Some(())
}

/// The encoded text in chunks, each led by `+` (more follow) or `.` (the
/// last); none for an empty text.
fn chunks(text: &str) -> Vec<String> {
    let room = CHUNK - 1;
    let parts: Vec<&str> = text.as_bytes().chunks(room).map(|c| std::str::from_utf8(c).unwrap_or("")).collect();
    let n = parts.len();
    parts.iter().enumerate().map(|(i, p)| format!("{}{}", if i + 1 < n { '+' } else { '.' }, p)).collect()
}

fn chunk_key(barrier: u64, rank: u32, i: usize) -> String {
    format!("spur-pmi1.{}.{}.{}", barrier, rank, i)
}

// ---- the link to the step daemon's PMI server ----

/// A PMI-1 conversation with the step daemon on `PMI_FD`.
struct Link {
    rd: BufReader<UnixStream>,
    kvsname: String,
}

/// A PMI-1 answer line's `key=value` words.
fn words(line: &str) -> Vec<(String, String)> {
    line.trim_end_matches(['\n', '\r'])
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let (k, v) = w.split_once('=').unwrap_or((w, ""));
            (k.to_string(), v.to_string())
        })
        .collect()
}

fn word<'a>(ws: &'a [(String, String)], key: &str) -> Option<&'a str> {
    ws.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

impl Link {
    /// The PMI-1 handshake on `s`, then the step's kvs name.
    fn open(s: UnixStream) -> Result<Link, Fail> {
        let mut l = Link { rd: BufReader::new(s), kvsname: String::new() };
        let r = l.ask("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init")?;
        if word(&r, "rc") != Some("0") {
            return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR, "the step's PMI server refused PMI-1");
        }
        let r = l.ask("cmd=get_my_kvsname\n", "my_kvsname")?;
        l.kvsname = word(&r, "kvsname").unwrap_or("").to_string();
        Ok(l)
    }

    fn send(&mut self, line: &str) -> Result<(), Fail> {
        self.rd.get_mut().write_all(line.as_bytes()).or_else(|e| {
            fail(spur_core::errors::SLURM_COMMUNICATIONS_SEND_ERROR, format!("writing to the PMI server: {}", e))
        })
    }

    /// Send one request line, read the answer, check its command.
    fn ask(&mut self, line: &str, answer: &str) -> Result<Vec<(String, String)>, Fail> {
        self.send(line)?;
        let mut got = String::new();
        match self.rd.read_line(&mut got) {
            Ok(0) => return fail(SLURM_COMMUNICATIONS_RECEIVE_ERROR, "the PMI server closed the connection"),
            Ok(_) => {}
            Err(e) => return fail(SLURM_COMMUNICATIONS_RECEIVE_ERROR, format!("reading from the PMI server: {}", e)),
        }
        let ws = words(&got);
        if word(&ws, "cmd") != Some(answer) {
            return fail(
                SLURM_COMMUNICATIONS_RECEIVE_ERROR,
                format!("the PMI server answered `{}` to `{}`", got.trim_end(), line.trim_end()),
            );
        }
        Ok(ws)
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), Fail> {
        let r = self.ask(&format!("cmd=put kvsname={} key={} value={}\n", self.kvsname, key, value), "put_result")?;
        match word(&r, "rc") {
            Some("0") => Ok(()),
            _ => fail(SLURM_COMMUNICATIONS_RECEIVE_ERROR, format!("the PMI server refused the key {}", key)),
        }
    }

    fn get(&mut self, key: &str) -> Result<Option<String>, Fail> {
        let r = self.ask(&format!("cmd=get kvsname={} key={}\n", self.kvsname, key), "get_result")?;
        Ok(match word(&r, "rc") {
            Some("0") => Some(word(&r, "value").unwrap_or("").to_string()),
            _ => None,
        })
    }

    fn barrier(&mut self) -> Result<(), Fail> {
        let r = self.ask("cmd=barrier_in\n", "barrier_out")?;
        match word(&r, "rc") {
            Some("0") => Ok(()),
            rc => fail(
                SLURM_COMMUNICATIONS_RECEIVE_ERROR,
                format!("the step's PMI barrier failed (rc={})", rc.unwrap_or("")),
            ),
        }
    }

    /// One barrier: this rank's pairs out, every rank's back, merged.
    fn exchange(&mut self, mine: &Spaces, rank: u32, size: u32, barrier: u64) -> Result<Spaces, Fail> {
        for (i, c) in chunks(&encode(mine)).iter().enumerate() {
            self.put(&chunk_key(barrier, rank, i), c)?;
        }
        self.barrier()?;
        let mut all = Spaces::new();
        for r in 0..size {
            if r == rank {
                for (name, pairs) in mine {
                    for (k, v) in pairs {
                        upsert(&mut all, name, k, v);
                    }
                }
                continue;
            }
            let mut text = String::new();
            for i in 0.. {
                match self.get(&chunk_key(barrier, r, i))? {
                    None if i == 0 => break,
                    None => {
                        return fail(SLURM_COMMUNICATIONS_RECEIVE_ERROR, format!("rank {}'s pairs are incomplete", r))
                    }
                    Some(c) => {
                        text.push_str(c.get(1..).unwrap_or(""));
                        if !c.starts_with('+') {
                            break;
                        }
                    }
                }
            }
            if decode_into(&text, &mut all).is_none() {
                return fail(SLURM_COMMUNICATIONS_RECEIVE_ERROR, format!("rank {}'s pairs do not decode", r));
            }
        }
        Ok(all)
    }
}

// ---- the process's state ----

struct State {
    link: Option<Link>,
    /// PMI_FD was closed (finalize, or a broken conversation): never again.
    closed: bool,
    /// Barriers done.
    barriers: u64,
    /// Pairs committed since the last barrier.
    pending: Spaces,
}

static STATE: Mutex<State> = Mutex::new(State { link: None, closed: false, barriers: 0, pending: Vec::new() });

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The state unless another thread holds it (one waiting in a barrier).
fn try_state() -> Option<MutexGuard<'static, State>> {
    match STATE.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// The step daemon's PMI socket of this task, if it has one.
fn pmi_socket() -> Result<Option<UnixStream>, Fail> {
    let Some(fd) = std::env::var("PMI_FD").ok() else { return Ok(on_demand_socket()) };
    let Ok(fd) = fd.trim().parse::<i32>() else {
        return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR, format!("PMI_FD={} is not a descriptor", fd));
    };
    // an enclosing step's PMI_FD, inherited through the environment, is not
    // this step's
    if let (Ok(pj), Ok(j), Ok(s)) =
        (std::env::var("PMI_JOBID"), std::env::var("SLURM_JOB_ID"), std::env::var("SLURM_STEPID"))
    {
        if pj != format!("{}.{}", j, s) {
            return Ok(None);
        }
    }
    // SAFETY: fstat writes a struct stat into `st`, which is large enough;
    // any descriptor number may be asked about.
    let is_socket = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFSOCK
    };
    if fd < 0 || !is_socket {
        return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR, format!("PMI_FD={} is not an open socket", fd));
    }
    // SAFETY: fd is an open socket, the task's end of the step daemon's
    // socket pair, which this library alone uses from now on (the State
    // holding the stream is the only owner; it is closed once, by finalize
    // or a broken conversation, and never reopened).
    Ok(Some(unsafe { UnixStream::from_raw_fd(fd) }))
}

/// Without `PMI_FD` (`--mpi=none`): the step daemon's socket for libpmi on
/// demand, named from the task's environment
/// (`spur_core::launch::pmi1_socket_name`), after saying which task this
/// is (`spur-rank=SLURM_PROCID`). None outside a step of srun's.
fn on_demand_socket() -> Option<UnixStream> {
    use std::os::linux::net::SocketAddrExt;
    let var = |k: &str| std::env::var(k).ok();
    let name = spur_core::launch::pmi1_socket_name(
        &var("SLURM_SRUN_COMM_HOST")?,
        &var("SLURM_SRUN_COMM_PORT")?,
        &var("SLURM_JOB_ID")?,
        &var("SLURM_STEPID")?,
        &var("SLURMD_NODENAME")?,
    );
    let rank: u32 = var("SLURM_PROCID")?.trim().parse().ok()?;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).ok()?;
    let mut s = UnixStream::connect_addr(&addr).ok()?;
    s.write_all(format!("spur-rank={}\n", rank).as_bytes()).ok()?;
    Some(s)
}

const NEED_PMI2: &str = "no PMI server for this task: neither PMI_FD (srun --mpi=pmi2) nor the step daemon's \
     socket for libpmi (srun --mpi=none) is there";

impl State {
    /// The link to the server, opened on first use; None when the task has
    /// no server and `size` is 1 (a step of one task needs none).
    fn link(&mut self, size: u32) -> Result<Option<&mut Link>, Fail> {
        if self.link.is_none() {
            if self.closed {
                return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR, "the PMI connection was finalized");
            }
            match pmi_socket()? {
                Some(s) => match Link::open(s) {
                    Ok(l) => self.link = Some(l),
                    Err(e) => {
                        self.closed = true;
                        return Err(e);
                    }
                },
                None if size <= 1 => return Ok(None),
                None => return fail(SLURM_COMMUNICATIONS_CONNECTION_ERROR, NEED_PMI2),
            }
        }
        Ok(self.link.as_mut())
    }

    fn barrier(&mut self, rank: u32, size: u32) -> Result<Spaces, Fail> {
        let barrier = self.barriers;
        let mine = std::mem::take(&mut self.pending);
        let r = match self.link(size)? {
            Some(l) => l.exchange(&mine, rank, size, barrier),
            None => Ok(mine),
        };
        if r.is_err() {
            // the conversation is in an unknown state: end it
            self.link = None;
            self.closed = true;
        }
        self.barriers += 1;
        r
    }
}

// ---- sets in C ----

/// The bytes of a C string of libpmi's, at most `max` of them.
///
/// # Safety
/// `p` is NULL or points to a buffer of at least `max` readable bytes, or
/// to a NUL-terminated string.
unsafe fn bytes<'a>(p: *const c_char, max: usize) -> &'a [u8] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: strnlen reads no further than `max` bytes or the NUL, both
    // readable by the caller's contract; the slice is that many bytes.
    unsafe { std::slice::from_raw_parts(p.cast::<u8>(), libc::strnlen(p, max)) }
}

/// The pairs of a set libpmi made (its `PMI_KVS_Commit`).
///
/// # Safety
/// `set` points to a `kvs_comm_set_t` whose `kvs_comm_ptr` holds
/// `kvs_comm_recs` pointers, each NULL or to a `kvs_comm` whose key and
/// value arrays hold `kvs_cnt` strings (libpmi's buffers).
unsafe fn read_set(set: &KvsCommSet, into: &mut Spaces) {
    if set.kvs_comm_ptr.is_null() {
        return;
    }
    for i in 0..set.kvs_comm_recs as usize {
        // SAFETY: i < kvs_comm_recs, the array's length (the contract).
        let c = unsafe { *set.kvs_comm_ptr.add(i) };
        if c.is_null() {
            continue;
        }
        // SAFETY: a kvs_comm of libpmi's (the contract).
        let c = unsafe { &*c };
        // SAFETY: libpmi's name buffer (PMI_MAX_KVSNAME_LEN bytes).
        let name = unsafe { bytes(c.kvs_name, NAME_MAX) };
        if c.kvs_keys.is_null() || c.kvs_values.is_null() {
            continue;
        }
        for j in 0..c.kvs_cnt as usize {
            // SAFETY: j < kvs_cnt, the arrays' length; each element a
            // buffer of libpmi's of PMI_MAX_KEY_LEN / PMI_MAX_VAL_LEN bytes.
            let (k, v) = unsafe { (bytes(*c.kvs_keys.add(j), KEY_MAX), bytes(*c.kvs_values.add(j), VAL_MAX)) };
            upsert(into, name, k, v);
        }
    }
}

/// An xmalloc'ed, NUL-terminated copy of `b` (which holds no NUL).
fn xbytes(b: &[u8]) -> Option<*mut c_char> {
    let p = xmalloc::xalloc(b.len() + 1).cast::<u8>();
    if p.is_null() {
        return None;
    }
    // SAFETY: p holds b.len() + 1 zeroed bytes of a new block; the NUL is
    // already there.
    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
    Some(p.cast())
}

/// `spaces` as a set in Slurm's memory layout, every block xmalloc'ed (the
/// set, its `kvs_comm` array, each `kvs_comm`, its key and value arrays
/// and strings), released by [`slurm_pmi_free_kvs_comm_set`]. No hosts.
fn build_set(spaces: &Spaces) -> Result<*mut KvsCommSet, Fail> {
    let nomem = || Fail { errno: libc::ENOMEM, msg: "out of memory".into() };
    if spaces.len() > u16::MAX as usize || spaces.iter().any(|(_, p)| p.len() > u32::MAX as usize) {
        return fail(libc::E2BIG, "too many key-value spaces for a kvs_comm_set_t");
    }
    let set = xmalloc::xnew::<KvsCommSet>();
    if set.is_null() {
        return Err(nomem());
    }
    // (built in place, so that a failure part way is released by the free
    // function: every count is raised only once its blocks exist)
    let built = || -> Option<()> {
        if spaces.is_empty() {
            return Some(());
        }
        let arr = xmalloc::xalloc(spaces.len() * std::mem::size_of::<*mut KvsComm>()).cast::<*mut KvsComm>();
        if arr.is_null() {
            return None;
        }
        // SAFETY: set is a live, zeroed KvsCommSet of ours.
        unsafe { (*set).kvs_comm_ptr = arr };
        for (i, (name, pairs)) in spaces.iter().enumerate() {
            let c = xmalloc::xnew::<KvsComm>();
            if c.is_null() {
                return None;
            }
            // SAFETY: arr has room for spaces.len() pointers (zeroed); the
            // count covers the new element only once it is stored.
            unsafe {
                arr.add(i).write(c);
                (*set).kvs_comm_recs = (i + 1) as u16;
            }
            let n = pairs.len().max(1) * std::mem::size_of::<*mut c_char>();
            let (keys, values) = (xmalloc::xalloc(n).cast::<*mut c_char>(), xmalloc::xalloc(n).cast::<*mut c_char>());
            // SAFETY: c is a live, zeroed KvsComm of ours; keys and values
            // (either may be NULL, freed as such) hold pairs.len() zeroed
            // pointers.
            unsafe {
                (*c).kvs_keys = keys;
                (*c).kvs_values = values;
                (*c).kvs_name = xbytes(name)?;
            }
            if keys.is_null() || values.is_null() {
                return None;
            }
            for (j, (k, v)) in pairs.iter().enumerate() {
                let (kp, vp) = (xbytes(k), xbytes(v));
                // SAFETY: j < pairs.len(), the arrays' length; a string not
                // made is left NULL, and the count includes the pair so that
                // the one made is freed.
                unsafe {
                    keys.add(j).write(kp.unwrap_or(std::ptr::null_mut()));
                    values.add(j).write(vp.unwrap_or(std::ptr::null_mut()));
                    (*c).kvs_cnt = (j + 1) as u32;
                }
                kp?;
                vp?;
            }
        }
        Some(())
    };
    if built().is_none() {
        // SAFETY: set and everything it counts are blocks made above.
        unsafe { slurm_pmi_free_kvs_comm_set(set) };
        return Err(nomem());
    }
    Ok(set)
}

// ---- the five functions ----

/// `int slurm_pmi_send_kvs_comm_set(kvs_comm_set_t *kvs_set_ptr, int
/// pmi_rank, int pmi_size)`: this rank's committed pairs (libpmi's
/// `PMI_KVS_Commit`), held until the next barrier. EINVAL for a NULL set,
/// as Slurm's; SLURM_ERROR when a step of several tasks has no PMI server.
///
/// # Safety
/// `kvs_set_ptr` is NULL or a set as libpmi builds it (its `kvs_comm`
/// records' key and value arrays hold `kvs_cnt` strings).
#[no_mangle]
pub unsafe extern "C" fn slurm_pmi_send_kvs_comm_set(
    kvs_set_ptr: *mut KvsCommSet,
    _pmi_rank: c_int,
    pmi_size: c_int,
) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        if kvs_set_ptr.is_null() {
            crate::errno::set(libc::EINVAL);
            return libc::EINVAL;
        }
        let mut st = state();
        // a step of several tasks needs the server: say so at the commit
        if let Err(f) = st.link(pmi_size.max(1) as u32) {
            return report(f);
        }
        let mut pending = std::mem::take(&mut st.pending);
        // SAFETY: not NULL; a set of libpmi's (the caller's contract).
        unsafe { read_set(&*kvs_set_ptr, &mut pending) };
        st.pending = pending;
        0
    })
}

/// `int slurm_pmi_get_kvs_comm_set(kvs_comm_set_t **kvs_set_ptr, int
/// pmi_rank, int pmi_size)`: libpmi's `PMI_Barrier`. Returns once every
/// rank of the step is in its barrier, with every rank's pairs committed
/// since the last barrier in `*kvs_set_ptr` (grouped by key-value space,
/// no hosts), for [`slurm_pmi_free_kvs_comm_set`]. EINVAL for NULL.
///
/// # Safety
/// `kvs_set_ptr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_pmi_get_kvs_comm_set(
    kvs_set_ptr: *mut *mut KvsCommSet,
    pmi_rank: c_int,
    pmi_size: c_int,
) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        if kvs_set_ptr.is_null() {
            crate::errno::set(libc::EINVAL);
            return libc::EINVAL;
        }
        // SAFETY: not NULL, writable (the caller's contract).
        unsafe { *kvs_set_ptr = std::ptr::null_mut() };
        if pmi_rank < 0 || pmi_size < 1 || pmi_rank >= pmi_size {
            return report(Fail { errno: libc::EINVAL, msg: format!("rank {} of {} tasks", pmi_rank, pmi_size) });
        }
        let all = state().barrier(pmi_rank as u32, pmi_size as u32);
        match all.and_then(|a| build_set(&a)) {
            Ok(set) => {
                // SAFETY: as above.
                unsafe { *kvs_set_ptr = set };
                0
            }
            Err(f) => report(f),
        }
    })
}

/// `void slurm_pmi_free_kvs_comm_set(kvs_comm_set_t *msg)`: release a set
/// of [`slurm_pmi_get_kvs_comm_set`]'s: its hosts, records, their arrays
/// and strings (Slurm's leaves each `kvs_comm` itself behind; Spur's
/// releases it too). NULL does nothing.
///
/// # Safety
/// `msg` is NULL or a set this library returned, not released since.
#[no_mangle]
pub unsafe extern "C" fn slurm_pmi_free_kvs_comm_set(msg: *mut KvsCommSet) {
    crate::guard((), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: a set of ours: every pointer in it is NULL or an xmalloc'ed
        // block of ours, counted by the field before it; each is freed once.
        unsafe {
            let set = &mut *msg;
            if !set.kvs_host_ptr.is_null() {
                for i in 0..set.host_cnt as usize {
                    xmalloc::xfree(&mut (*set.kvs_host_ptr.add(i)).hostname);
                }
                xmalloc::xfree(&mut set.kvs_host_ptr);
            }
            if !set.kvs_comm_ptr.is_null() {
                for i in 0..set.kvs_comm_recs as usize {
                    let mut c = *set.kvs_comm_ptr.add(i);
                    if c.is_null() {
                        continue;
                    }
                    let r = &mut *c;
                    xmalloc::xfree(&mut r.kvs_name);
                    for j in 0..r.kvs_cnt as usize {
                        if !r.kvs_keys.is_null() {
                            xmalloc::xfree(&mut *r.kvs_keys.add(j));
                        }
                        if !r.kvs_values.is_null() {
                            xmalloc::xfree(&mut *r.kvs_values.add(j));
                        }
                    }
                    xmalloc::xfree(&mut r.kvs_keys);
                    xmalloc::xfree(&mut r.kvs_values);
                    xmalloc::xfree(&mut r.kvs_key_sent);
                    xmalloc::xfree(&mut c);
                }
                xmalloc::xfree(&mut set.kvs_comm_ptr);
            }
            let mut p = msg.cast::<c_void>();
            xmalloc::slurm_xfree(&mut p);
        }
    })
}

/// `void slurm_pmi_finalize(void)` (libpmi's `PMI_Finalize`): end the
/// conversation with the step's PMI server (`finalize`) and close
/// `PMI_FD`, if it was opened; pairs not through a barrier are dropped.
#[no_mangle]
pub extern "C" fn slurm_pmi_finalize() {
    crate::guard((), || {
        let mut st = state();
        if let Some(mut l) = st.link.take() {
            // (the answer does not matter: the stream is closed either way)
            let _ = l.ask("cmd=finalize\n", "finalize_ack");
            st.closed = true;
        }
        st.pending.clear();
    })
}

/// `int slurm_pmi_kill_job_step(uint32_t job_id, uint32_t step_id,
/// uint16_t signal)` (libpmi's `PMI_Abort`: SIGKILL to its own step). Its
/// own step is ended through the step daemon's PMI server (`abort`: every
/// task of the step is killed, and srun reports the abort); any other step
/// or signal, a task without a server, or one whose other thread is waiting
/// in a barrier, goes to the controller as `slurm_kill_job_step`.
#[no_mangle]
pub extern "C" fn slurm_pmi_kill_job_step(job_id: u32, step_id: u32, signal: u16) -> c_int {
    crate::guard(sys::SLURM_ERROR, || {
        let env_id = |k: &str| std::env::var(k).ok().and_then(|v| v.trim().parse::<u32>().ok());
        let own = env_id("SLURM_JOB_ID") == Some(job_id) && env_id("SLURM_STEPID") == Some(step_id);
        // (a thread of the process waiting in a barrier holds the link, and
        // the server reads no request of this task's until the barrier is
        // over: the controller then)
        if let Some(mut st) = try_state().filter(|_| own && signal as i32 == libc::SIGKILL) {
            // (size 2: a task without a server is not served alone here)
            if let Ok(Some(l)) = st.link(2) {
                if l.send("cmd=abort\n").is_ok() {
                    return 0;
                }
            }
        }
        kill_through_controller(job_id, step_id, signal)
    })
}

#[cfg(feature = "slurm-22-05")]
fn kill_through_controller(job_id: u32, step_id: u32, signal: u16) -> c_int {
    crate::control::slurm_kill_job_step(job_id, step_id, signal)
}

#[cfg(not(feature = "slurm-22-05"))]
fn kill_through_controller(job_id: u32, step_id: u32, signal: u16) -> c_int {
    crate::control::slurm_kill_job_step(job_id, step_id, signal, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::ffi::{CStr, CString};
    use std::mem::size_of;

    #[test]
    fn slurm_layouts() {
        // src/common/slurm_protocol_defs.h on x86_64 (libslurm-abi.md §2.3)
        assert_eq!(size_of::<KvsHosts>(), 16);
        assert_eq!(size_of::<KvsComm>(), 40);
        assert_eq!(size_of::<KvsCommSet>(), 32);
        assert_eq!(std::mem::offset_of!(KvsHosts, hostname), 8);
        assert_eq!(std::mem::offset_of!(KvsComm, kvs_keys), 16);
        assert_eq!(std::mem::offset_of!(KvsComm, kvs_key_sent), 32);
        assert_eq!(std::mem::offset_of!(KvsCommSet, kvs_comm_recs), 16);
        assert_eq!(std::mem::offset_of!(KvsCommSet, kvs_comm_ptr), 24);
    }

    fn sp(v: &[(&str, &[(&str, &str)])]) -> Spaces {
        v.iter()
            .map(|(n, p)| {
                (n.as_bytes().to_vec(), p.iter().map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec())).collect())
            })
            .collect()
    }

    #[test]
    fn encoding_round_trips_any_bytes() {
        let s = sp(&[
            (
                "4.0",
                &[("k0", "v0 with spaces, commas; = and %"), ("bizcard", "description#node1$port#4242$ifname#lo$")],
            ),
            ("other", &[("é", "line\nbreak"), ("empty", "")]),
        ]);
        let t = encode(&s);
        assert!(t.bytes().all(|b| (b'!'..=b'~').contains(&b) && b != b'='), "{}", t);
        let mut back = Spaces::new();
        decode_into(&t, &mut back).unwrap();
        assert_eq!(back, s);
        assert!(decode_into("4.0,k", &mut Spaces::new()).is_none());
        assert!(decode_into("4.0,k,%0", &mut Spaces::new()).is_none());
        assert!(decode_into("4.0,k,%00", &mut Spaces::new()).is_none());
        // chunks: `+` while more follow, `.` on the last, at most CHUNK bytes
        assert!(chunks("").is_empty());
        assert_eq!(chunks("abc"), [".abc"]);
        let long = "x".repeat(2 * CHUNK);
        let c = chunks(&long);
        assert_eq!(c.len(), 3);
        assert!(c.iter().all(|c| c.len() <= CHUNK));
        assert!(c[0].starts_with('+') && c[1].starts_with('+') && c[2].starts_with('.'));
        assert_eq!(c.iter().map(|c| &c[1..]).collect::<String>(), long);
    }

    #[test]
    fn upsert_replaces_in_place() {
        let mut s = Spaces::new();
        upsert(&mut s, b"a", b"k", b"1");
        upsert(&mut s, b"a", b"j", b"2");
        upsert(&mut s, b"a", b"k", b"3");
        assert_eq!(s, sp(&[("a", &[("k", "3"), ("j", "2")])]));
    }

    /// A set as libpmi's PMI_KVS_Commit builds it, from C strings.
    struct CSet {
        _strings: Vec<CString>,
        _ptrs: Vec<Vec<*mut c_char>>,
        _comms: Vec<KvsComm>,
        _arr: Vec<*mut KvsComm>,
        set: KvsCommSet,
    }

    fn c_set(s: &Spaces) -> CSet {
        let mut strings = Vec::new();
        let mut ptrs = Vec::new();
        let mut comms = Vec::new();
        for (name, pairs) in s {
            let cs = |b: &[u8], strings: &mut Vec<CString>| {
                strings.push(CString::new(b.to_vec()).unwrap());
                strings.last().unwrap().as_ptr() as *mut c_char
            };
            let n = cs(name, &mut strings);
            let mut keys: Vec<*mut c_char> = pairs.iter().map(|(k, _)| cs(k, &mut strings)).collect();
            let mut values: Vec<*mut c_char> = pairs.iter().map(|(_, v)| cs(v, &mut strings)).collect();
            comms.push(KvsComm {
                kvs_name: n,
                kvs_cnt: pairs.len() as u32,
                kvs_keys: keys.as_mut_ptr(),
                kvs_values: values.as_mut_ptr(),
                kvs_key_sent: std::ptr::null_mut(),
            });
            ptrs.push(keys);
            ptrs.push(values);
        }
        let mut arr: Vec<*mut KvsComm> = comms.iter_mut().map(|c| c as *mut KvsComm).collect();
        let set = KvsCommSet {
            host_cnt: 0,
            kvs_host_ptr: std::ptr::null_mut(),
            kvs_comm_recs: arr.len() as u16,
            kvs_comm_ptr: arr.as_mut_ptr(),
        };
        CSet { _strings: strings, _ptrs: ptrs, _comms: comms, _arr: arr, set }
    }

    /// A set of ours, read back.
    fn spaces_of(set: *mut KvsCommSet) -> Spaces {
        let mut s = Spaces::new();
        // SAFETY: a set build_set made, with NUL-terminated strings.
        unsafe { read_set(&*set, &mut s) };
        s
    }

    #[test]
    fn sets_built_read_and_freed() {
        let s = sp(&[("4.0", &[("k0", "v0"), ("k1", "")]), ("x", &[("a", "b")])]);
        let set = build_set(&s).unwrap();
        assert_eq!(spaces_of(set), s);
        // SAFETY: set is ours: every block is xmalloc's, with its header.
        unsafe {
            let c = *(*set).kvs_comm_ptr;
            assert_eq!(CStr::from_ptr((*c).kvs_name).to_str(), Ok("4.0"));
            assert_eq!((*(*c).kvs_keys.cast::<usize>().sub(2)), 0x42);
            assert!((*c).kvs_key_sent.is_null() && (*set).kvs_host_ptr.is_null() && (*set).host_cnt == 0);
            slurm_pmi_free_kvs_comm_set(set);
            slurm_pmi_free_kvs_comm_set(std::ptr::null_mut());
        }
        let empty = build_set(&Spaces::new()).unwrap();
        // SAFETY: as above.
        unsafe {
            assert_eq!(((*empty).kvs_comm_recs, (*empty).kvs_comm_ptr.is_null()), (0, true));
            slurm_pmi_free_kvs_comm_set(empty);
        }
    }

    /// A step daemon's PMI-1 server for one task, as spurstepd answers:
    /// `other` holds what the other ranks put.
    fn fake_server(
        s: UnixStream,
        mut kvs: HashMap<String, String>,
    ) -> std::thread::JoinHandle<HashMap<String, String>> {
        std::thread::spawn(move || {
            let mut rd = BufReader::new(s);
            let mut line = String::new();
            loop {
                line.clear();
                if rd.read_line(&mut line).unwrap() == 0 {
                    return kvs;
                }
                let ws = words(&line);
                let w = |k: &str| word(&ws, k).unwrap_or("").to_string();
                let answer = match w("cmd").as_str() {
                    "init" => "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n".to_string(),
                    "get_my_kvsname" => "cmd=my_kvsname rc=0 kvsname=7.0\n".to_string(),
                    "put" => {
                        assert_eq!(w("kvsname"), "7.0");
                        assert!(w("key").len() <= 64 && w("value").len() <= 1024, "{}", line);
                        kvs.insert(w("key"), w("value"));
                        "cmd=put_result rc=0\n".to_string()
                    }
                    "barrier_in" => "cmd=barrier_out rc=0\n".to_string(),
                    "get" => match kvs.get(&w("key")) {
                        Some(v) => format!("cmd=get_result rc=0 value={}\n", v),
                        None => "cmd=get_result rc=1\n".to_string(),
                    },
                    "finalize" => {
                        rd.get_mut().write_all(b"cmd=finalize_ack rc=0\n").unwrap();
                        return kvs;
                    }
                    other => panic!("unexpected {}", other),
                };
                rd.get_mut().write_all(answer.as_bytes()).unwrap();
            }
        })
    }

    /// Rank 1 of 4 at its second barrier: rank 0 put a pair, rank 2 a value
    /// long enough for three chunks, rank 3 nothing.
    #[test]
    fn exchange_through_a_pmi1_server() {
        let big = "b".repeat(2 * CHUNK);
        let r0 = sp(&[("7.0", &[("k0", "v0"), ("shared", "from 0")])]);
        let r2 = sp(&[("7.0", &[("k2", &big), ("shared", "from 2")]), ("7.0-x", &[("key with space", "v")])]);
        let mine = sp(&[("7.0", &[("k1", "v1 has a space"), ("shared", "from 1")])]);
        let mut others = HashMap::new();
        for (rank, s) in [(0, &r0), (2, &r2)] {
            for (i, c) in chunks(&encode(s)).into_iter().enumerate() {
                others.insert(chunk_key(1, rank, i), c);
            }
        }
        assert!(others.contains_key(&chunk_key(1, 2, 2)));
        let (task, stepd) = UnixStream::pair().unwrap();
        let server = fake_server(stepd, others);
        let mut link = Link::open(task).unwrap();
        assert_eq!(link.kvsname, "7.0");
        let all = link.exchange(&mine, 1, 4, 1).unwrap();
        let want = sp(&[
            ("7.0", &[("k0", "v0"), ("shared", "from 2"), ("k1", "v1 has a space"), ("k2", &big)]),
            ("7.0-x", &[("key with space", "v")]),
        ]);
        assert_eq!(all, want);
        link.ask("cmd=finalize\n", "finalize_ack").unwrap();
        drop(link);
        let kvs = server.join().unwrap();
        let mut back = Spaces::new();
        decode_into(&kvs[&chunk_key(1, 1, 0)][1..], &mut back).unwrap();
        assert_eq!(back, mine);
    }

    /// Without PMI_FD (cargo test runs under no step), a step of one task
    /// commits and gets its own pairs back; one of several fails, saying
    /// what is needed.
    #[test]
    fn one_task_needs_no_server() {
        if std::env::var_os("PMI_FD").is_some() {
            return;
        }
        let pairs = sp(&[("1.0", &[("k", "v"), ("k2", "w")])]);
        let c = c_set(&pairs);
        let mut set = c.set;
        // SAFETY: a set laid out as libpmi's; out is writable.
        unsafe {
            assert_eq!(slurm_pmi_send_kvs_comm_set(&mut set, 0, 2), sys::SLURM_ERROR);
            assert_eq!(crate::errno::get(), SLURM_COMMUNICATIONS_CONNECTION_ERROR);
            assert_eq!(slurm_pmi_send_kvs_comm_set(&mut set, 0, 1), 0);
            assert_eq!(slurm_pmi_send_kvs_comm_set(std::ptr::null_mut(), 0, 1), libc::EINVAL);
            let mut out: *mut KvsCommSet = std::ptr::null_mut();
            assert_eq!(slurm_pmi_get_kvs_comm_set(&mut out, 0, 1), 0);
            assert_eq!(spaces_of(out), pairs);
            slurm_pmi_free_kvs_comm_set(out);
            // the next barrier: nothing new
            assert_eq!(slurm_pmi_get_kvs_comm_set(&mut out, 0, 1), 0);
            assert_eq!((*out).kvs_comm_recs, 0);
            slurm_pmi_free_kvs_comm_set(out);
            assert_eq!(slurm_pmi_get_kvs_comm_set(&mut out, 0, 3), sys::SLURM_ERROR);
            assert!(out.is_null());
            assert_eq!(slurm_pmi_get_kvs_comm_set(std::ptr::null_mut(), 0, 1), libc::EINVAL);
        }
        slurm_pmi_finalize();
    }
}
