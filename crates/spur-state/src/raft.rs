//! The replicated log: openraft's storage traits over files under the
//! controller's state directory.
//!
//! - `raft.log`: append-only records `[len: u32 LE][crc32: u32 LE][body]`, the
//!   body one openraft `Entry` in a `spur_format` envelope (kind `L`),
//!   fdatasync'ed before openraft is told they are durable (and so before any
//!   change is acknowledged). Truncation after a leader change cuts the file;
//!   purging after a snapshot rewrites it (temporary file, sync, rename).
//! - `raft.meta`: the vote and the last purged log id, `[crc32][envelope M]`,
//!   written to a temporary file, synced and renamed.
//! - `raft.committed`: the last committed log id, `[crc32][envelope C]`, rewritten
//!   in place and not synced (a hint: a stale, torn or missing one only means
//!   re-applying from the snapshot after a restart).
//! - `raft.snapshot`: `[magic "SPURRSN1"][len: u64 LE][crc32][body]`, the body
//!   the snapshot's meta in an envelope (kind `S`) followed by the snapshot
//!   data: the state in an envelope (kind `T`), exactly the bytes openraft
//!   sends a lagging member.
//!
//! Every record is written at this member's write version ([`WriteVersion`]:
//! the cluster's active format version, never below a version it has read
//! from a file or a peer) and read at any version this build reads. Files of
//! format version 0 (bincode with no envelope, written before versioned
//! formats) are read through [`crate::legacy_v0`]; the next write of each file
//! is in the current format (a log keeps its old records until purged).
//!
//! A bad checksum in the middle of the log, a bad meta or snapshot file is a
//! hard error naming the file (never a silent loss); so is a record of a
//! format version newer than this build reads (the error names the file and
//! both versions: a member cannot be downgraded below the cluster's format
//! version). A torn record at the very end of the log — a crash in the middle
//! of an append that was never acknowledged — is cut off and reported.
//!
//! One entry carries a batch of [`Command`]s applied in order; the response is
//! each command's own result, exactly as [`State::apply`] returned it: a
//! command that cannot apply is an error result beside the others, never a
//! failed entry (a failed or panicking apply would fail every member alike).
//!
//! A snapshot's state bytes are [`State::encode`]; installing one is
//! [`State::decode`], which rebuilds the indexes kept beside the state.

use crate::{ApplyResult, Command, State};
use openraft::storage::{LogFlushed, LogState, RaftLogStorage, RaftStateMachine, Snapshot};
use openraft::{
    BasicNode, Entry, EntryPayload, LogId, OptionalSend, RaftLogReader, RaftSnapshotBuilder, SnapshotMeta,
    StorageError, StorageIOError, StoredMembership, Vote,
};
use serde::{Deserialize, Serialize};
use spur_format::{Kind, Version};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Cursor, Read, Write};
use std::ops::RangeBounds;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A batch of commands: one log entry.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Batch {
    pub cmds: Vec<Command>,
}

impl std::fmt::Display for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "batch of {}", self.cmds.len())
    }
}

/// Each command's result.
pub type Reply = Vec<ApplyResult>;

openraft::declare_raft_types!(
    pub TypeConfig:
        D = Batch,
        R = Reply,
);

pub type NodeId = u64;
pub type Raft = openraft::Raft<TypeConfig>;
type Ent = Entry<TypeConfig>;
type SErr = StorageError<NodeId>;

const SNAP_MAGIC: &[u8; 8] = b"SPURRSN1";

/// The format version this member writes its records at (log, meta,
/// snapshot, Raft messages): the cluster's active format version as applied,
/// raised further to any version this member has read from a file or a peer.
/// A record of version `v` exists only once the cluster agreed on `v` (every
/// member then read it), so writing at `v` from then on is safe, and writing
/// lower could drop fields that an entry carries (an entry applied on the
/// leader with them must be applied on every member with them). Never lowered;
/// never above [`spur_format::FORMAT_VERSION`].
#[derive(Clone, Debug)]
pub struct WriteVersion(Arc<AtomicU16>);

impl Default for WriteVersion {
    fn default() -> Self {
        WriteVersion(Arc::new(AtomicU16::new(spur_format::MIN_VERSION)))
    }
}

impl WriteVersion {
    pub fn get(&self) -> Version {
        self.0.load(Ordering::SeqCst)
    }

    /// A record of version `v` was read, or the cluster agreed on `v`.
    pub fn raise(&self, v: Version) {
        self.0.fetch_max(v.min(spur_format::FORMAT_VERSION), Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn io_err(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

fn w_err(e: io::Error) -> SErr {
    StorageIOError::write_logs(&e).into()
}

/// Make the entries of `dir` durable (a file created or renamed in it):
/// without it, a file's own fsync does not keep its name after a crash.
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(test)]
    tests::SYNCED_DIRS.with(|s| s.borrow_mut().push(dir.to_path_buf()));
    File::open(dir)?.sync_all()
}

/// The mode of the state directory: the log holds every job's environment
/// and script, so only the controller's user may enter it.
pub const DIR_MODE: u32 = 0o700;
/// The mode every state file is created with.
pub const FILE_MODE: u32 = 0o600;

/// Create `path` afresh, mode [`FILE_MODE`] from its first byte: a file left
/// there (a temporary file of a crash, an older build's) is removed first, so
/// its mode is never inherited.
fn create_private(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    OpenOptions::new().write(true).create_new(true).mode(FILE_MODE).open(path)
}

/// Create the state directory, mode [`DIR_MODE`] (its missing parents too:
/// `DirBuilder`'s recursive mode); one that exists is left as it is. The
/// entry of each directory created is made durable in its parent.
pub fn create_state_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.as_os_str().is_empty() && !d.exists()).collect();
    fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)?;
    for d in missing.iter().rev() {
        if let Some(parent) = d.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
    }
    Ok(())
}

/// Write `[crc32][body]` to `path` atomically and durably.
fn write_atomic(dir: &Path, name: &str, body: &[u8], durable: bool) -> io::Result<()> {
    let tmp = dir.join(format!("{}.tmp", name));
    {
        let mut f = create_private(&tmp)?;
        f.write_all(&crc32fast::hash(body).to_le_bytes())?;
        f.write_all(body)?;
        if durable {
            f.sync_all()?;
        }
    }
    fs::rename(&tmp, dir.join(name))?;
    if durable {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Read a file written by [`write_atomic`]; `Ok(None)` if it does not exist.
fn read_checked(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let b = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {}", path.display(), e)),
    };
    if b.len() < 4 || crc32fast::hash(&b[4..]) != u32::from_le_bytes(b[..4].try_into().unwrap()) {
        return Err(format!("{}: corrupt state file: checksum mismatch", path.display()));
    }
    Ok(Some(b[4..].to_vec()))
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Meta {
    vote: Option<Vote<NodeId>>,
    purged: Option<LogId<NodeId>>,
}

struct LogFile {
    dir: PathBuf,
    wv: WriteVersion,
    file: File,
    len: u64,
    /// index -> (offset of its record in raft.log, entry)
    entries: BTreeMap<u64, (u64, Ent)>,
    meta: Meta,
    committed: Option<LogId<NodeId>>,
    /// `raft.committed`, kept open: the hint is rewritten in place at every
    /// commit (a new file and a rename each time would allocate an inode per
    /// commit). A torn or stale write fails its checksum and is ignored.
    committed_file: Option<File>,
}

impl LogFile {
    fn write_committed(&mut self, body: &[u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        if self.committed_file.is_none() {
            use std::os::unix::fs::OpenOptionsExt;
            let f = OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .mode(FILE_MODE)
                .open(self.dir.join("raft.committed"))?;
            self.committed_file = Some(f);
        }
        let Some(f) = self.committed_file.as_ref() else { return Ok(()) };
        let mut rec = Vec::with_capacity(body.len() + 4);
        rec.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
        rec.extend_from_slice(body);
        f.write_all_at(&rec, 0)?;
        if f.metadata()?.len() != rec.len() as u64 {
            f.set_len(rec.len() as u64)?;
        }
        Ok(())
    }
}

fn encode(e: &Ent, version: Version, out: &mut Vec<u8>) -> io::Result<()> {
    let body = spur_format::encode(Kind::LOG_ENTRY, version, e).map_err(io_err)?;
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(())
}

impl LogFile {
    fn save_meta(&self) -> io::Result<()> {
        let body = spur_format::encode(Kind::RAFT_META, self.wv.get(), &self.meta).map_err(io_err)?;
        write_atomic(&self.dir, "raft.meta", &body, true)
    }

    /// Rewrite raft.log with exactly the entries held in memory.
    fn rewrite(&mut self) -> io::Result<()> {
        let mut buf = vec![];
        let mut offsets = vec![];
        let version = self.wv.get();
        for (i, (_, e)) in &self.entries {
            offsets.push((*i, buf.len() as u64));
            encode(e, version, &mut buf)?;
        }
        let tmp = self.dir.join("raft.log.tmp");
        {
            let mut f = create_private(&tmp)?;
            f.write_all(&buf)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, self.dir.join("raft.log"))?;
        sync_dir(&self.dir)?;
        self.file = OpenOptions::new().read(true).write(true).open(self.dir.join("raft.log"))?;
        self.len = buf.len() as u64;
        for (i, off) in offsets {
            if let Some(x) = self.entries.get_mut(&i) {
                x.0 = off;
            }
        }
        Ok(())
    }
}

/// What the log looked like when opened.
pub struct Opened {
    pub log: LogStore,
    pub sm: StateMachine,
    pub shared: Shared,
    /// A torn last record that was cut off.
    pub truncated_tail: Option<String>,
    /// The log held entries or a vote: this member has been part of a cluster.
    pub has_history: bool,
    /// The version this member writes at (shared with the Raft network).
    pub write_version: WriteVersion,
}

/// The snapshot data (openraft's, sent to lagging members): the state in an envelope.
pub fn encode_state(state: &State, version: Version) -> Result<Vec<u8>, spur_format::FormatError> {
    spur_format::encode(Kind::STATE, version, state)
}

/// Read snapshot data of any version this build reads (0 included) and the
/// version it was written at; `source` names where it came from in errors.
pub fn decode_state(data: &[u8], source: &dyn std::fmt::Display) -> Result<(State, Version), String> {
    let (mut st, v) = if spur_format::is_enveloped(data) {
        spur_format::decode::<State>(Kind::STATE, data, source).map_err(|e| e.to_string())?
    } else {
        let st = crate::legacy_v0::decode_state(data).map_err(|e| format!("{}: corrupt state: {}", source, e))?;
        (st, spur_format::LEGACY)
    };
    st.share_array_descs();
    st.reindex();
    Ok((st, v))
}

fn decode_meta(b: &[u8], path: &Path, wv: &WriteVersion) -> Result<Meta, String> {
    if spur_format::is_enveloped(b) {
        let (m, v) = spur_format::decode::<Meta>(Kind::RAFT_META, b, &path.display()).map_err(|e| e.to_string())?;
        wv.raise(v);
        return Ok(m);
    }
    let (vote, purged) =
        crate::legacy_v0::decode_meta(b).map_err(|e| format!("{}: corrupt state file: {}", path.display(), e))?;
    Ok(Meta { vote, purged })
}

fn decode_committed(b: &[u8]) -> Option<LogId<NodeId>> {
    if spur_format::is_enveloped(b) {
        spur_format::decode::<Option<LogId<NodeId>>>(Kind::RAFT_COMMITTED, b, &"raft.committed")
            .ok()
            .and_then(|(c, _)| c)
    } else {
        crate::legacy_v0::decode_committed(b).ok().flatten()
    }
}

/// Open (creating if needed) the Raft storage in `dir`. `initial` gets the
/// state recovered from the snapshot (if any) and returns the state the
/// machine starts from (the caller merges its configuration in).
pub fn open(dir: &Path, initial: impl FnOnce(Option<State>) -> State) -> Result<Opened, String> {
    create_state_dir(dir).map_err(|e| format!("{}: {}", dir.display(), e))?;
    let wv = WriteVersion::default();
    let meta: Meta = match read_checked(&dir.join("raft.meta"))? {
        Some(b) => decode_meta(&b, &dir.join("raft.meta"), &wv)?,
        None => Meta::default(),
    };
    // the committed hint is not synced: a bad one is only ignored
    let committed: Option<LogId<NodeId>> =
        read_checked(&dir.join("raft.committed")).ok().flatten().and_then(|b| decode_committed(&b));
    let log_path = dir.join("raft.log");
    let (records, good_len, torn) = read_log(&log_path, &wv)?;
    let new_log = !log_path.exists();
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        OpenOptions::new().create(true).read(true).write(true).truncate(false).mode(FILE_MODE).open(&log_path)
    }
    .map_err(|e| format!("{}: {}", log_path.display(), e))?;
    if new_log {
        // the new file's name durable before any entry in it counts as such
        sync_dir(dir).map_err(|e| format!("{}: {}", dir.display(), e))?;
    }
    if torn.is_some() {
        file.set_len(good_len).and_then(|_| file.sync_all()).map_err(|e| format!("{}: {}", log_path.display(), e))?;
    }
    let mut entries = BTreeMap::new();
    let mut prev: Option<u64> = None;
    for (off, e) in records {
        let i = e.log_id.index;
        if let Some(p) = prev {
            if i != p + 1 {
                return Err(format!("{}: corrupt state file: entry {} follows entry {}", log_path.display(), i, p));
            }
        }
        prev = Some(i);
        if meta.purged.map(|p| i <= p.index).unwrap_or(false) {
            continue; // purged, the rewrite did not happen before a crash
        }
        entries.insert(i, (off, e));
    }
    let has_history = meta.vote.is_some() || !entries.is_empty() || meta.purged.is_some();

    // the state machine: the snapshot, if any
    let snap_path = dir.join("raft.snapshot");
    let snap = read_snapshot(&snap_path, &wv)?;
    let (state, last_applied, membership, snap_id) = match snap {
        Some((m, bytes)) => {
            let (st, v) = decode_state(&bytes, &snap_path.display())?;
            wv.raise(v);
            wv.raise(st.write_format_version());
            (Some(st), m.last_log_id, m.last_membership, m.snapshot_id)
        }
        None => (None, None, StoredMembership::default(), String::new()),
    };
    let state = initial(state);
    let shared: Shared = Arc::new(StateLock::new(SmInner { state, last_applied, membership }));
    let lf = LogFile {
        dir: dir.to_path_buf(),
        wv: wv.clone(),
        file,
        len: good_len,
        entries,
        meta,
        committed,
        committed_file: None,
    };
    let inner = Arc::new(Mutex::new(lf));
    Ok(Opened {
        log: LogStore { inner },
        sm: StateMachine {
            shared: shared.clone(),
            dir: dir.to_path_buf(),
            seq: 0,
            _last_snap: snap_id,
            wv: wv.clone(),
            feed: None,
        },
        shared,
        truncated_tail: torn,
        has_history,
        write_version: wv,
    })
}

type Records = (Vec<(u64, Ent)>, u64, Option<String>);

fn read_log(path: &Path, wv: &WriteVersion) -> Result<Records, String> {
    let mut buf = vec![];
    match File::open(path) {
        Ok(mut f) => {
            f.read_to_end(&mut buf).map_err(|e| format!("{}: {}", path.display(), e))?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((vec![], 0, None)),
        Err(e) => return Err(format!("{}: {}", path.display(), e)),
    }
    let mut pos = 0usize;
    let mut out = vec![];
    while pos < buf.len() {
        let rest = buf.len() - pos;
        if rest < 8 {
            return Ok((out, pos as u64, Some(format!("{} stray bytes at offset {}", rest, pos))));
        }
        let len = u32::from_le_bytes(buf[pos..pos + 4].try_into().unwrap()) as usize;
        let crc = u32::from_le_bytes(buf[pos + 4..pos + 8].try_into().unwrap());
        // A damaged record may be cut only when it is the torn last write:
        // no whole record follows it. A damaged length field in the middle
        // also looks like a record running past the end; cutting there would
        // drop every later (committed) record.
        let damaged = |what: &str| -> Result<Records, String> {
            match whole_record_after(&buf, pos) {
                None => Ok((vec![], pos as u64, Some(format!("{} at offset {}", what, pos)))),
                Some(next) => Err(format!(
                    "{}: corrupt state file: {} at offset {}, followed by a whole record at offset {}",
                    path.display(),
                    what,
                    pos,
                    next
                )),
            }
        };
        if rest < 8 + len {
            return damaged("incomplete record").map(|(_, p, t)| (out, p, t));
        }
        let body = &buf[pos + 8..pos + 8 + len];
        if crc32fast::hash(body) != crc {
            if pos + 8 + len == buf.len() {
                return damaged("torn last record").map(|(_, p, t)| (out, p, t));
            }
            return Err(format!(
                "{}: corrupt state file: checksum mismatch in record at offset {}",
                path.display(),
                pos
            ));
        }
        let e: Ent = if spur_format::is_enveloped(body) {
            let source = format!("{} (record at offset {})", path.display(), pos);
            let (e, v) = spur_format::decode::<Ent>(Kind::LOG_ENTRY, body, &source).map_err(|e| e.to_string())?;
            wv.raise(v);
            e
        } else {
            crate::legacy_v0::decode_entry(body)
                .map_err(|e| format!("{}: corrupt state file: record at offset {}: {}", path.display(), pos, e))?
        };
        out.push((pos as u64, e));
        pos += 8 + len;
    }
    Ok((out, pos as u64, None))
}

/// The offset of the first whole record (its length within the file, its
/// checksum right, its body an envelope) starting after `pos`, if any.
/// Read only when a log is opened with a damaged record at `pos`.
fn whole_record_after(buf: &[u8], pos: usize) -> Option<usize> {
    (pos + 1..buf.len().saturating_sub(8)).find(|&q| {
        let len = u32::from_le_bytes(buf[q..q + 4].try_into().unwrap()) as usize;
        if len < spur_format::HEADER_LEN || buf.len() - q - 8 < len {
            return false;
        }
        let crc = u32::from_le_bytes(buf[q + 4..q + 8].try_into().unwrap());
        let body = &buf[q + 8..q + 8 + len];
        spur_format::is_enveloped(body) && crc32fast::hash(body) == crc
    })
}

/// Room on the state directory's file system, for the leader's check before
/// it commits a submission. A full disk must refuse new jobs with an error
/// while it keeps every acknowledged one: an append that fails is openraft's
/// fatal storage error (the controller exits, `formats::exit_on_fatal`), so
/// the leader refuses a submission that would leave less than the reserve:
/// what the jobs already acknowledged still need (their start, end and purge
/// entries, [`RESERVE_MIN`]), and room to write the next snapshot and to
/// rewrite the log after it beside the present ones (each written whole to a
/// temporary file before it replaces the old one).
#[derive(Clone, Debug)]
pub struct Room {
    dir: PathBuf,
}

/// The free space kept beyond the next snapshot and log rewrite, for the
/// entries of jobs already acknowledged (a few hundred bytes each).
pub const RESERVE_MIN: u64 = 16 << 20;

impl Room {
    pub fn new(dir: &Path) -> Room {
        Room { dir: dir.to_path_buf() }
    }

    /// Whether `bytes` more (an entry about to be committed) leave the
    /// reserve free; the error says how much is free and how much is needed.
    /// A few system calls (statvfs, two stats), never under the state lock.
    pub fn check(&self, bytes: u64) -> Result<(), String> {
        let vfs = nix::sys::statvfs::statvfs(&self.dir).map_err(|e| format!("{}: {}", self.dir.display(), e))?;
        let free = (vfs.blocks_available() as u64).saturating_mul(vfs.fragment_size() as u64);
        let size = |name: &str| fs::metadata(self.dir.join(name)).map(|m| m.len()).unwrap_or(0);
        let needed =
            bytes.saturating_add(RESERVE_MIN).saturating_add(size("raft.snapshot")).saturating_add(size("raft.log"));
        if free < needed {
            return Err(format!(
                "{}: {} bytes free, {} needed (the entry, the next snapshot and log rewrite, {} for the jobs acknowledged)",
                self.dir.display(),
                free,
                needed,
                RESERVE_MIN
            ));
        }
        Ok(())
    }
}

/// A snapshot's meta and its data (still encoded).
type StoredSnapshot = (SnapshotMeta<NodeId, BasicNode>, Vec<u8>);

/// `raft.snapshot`: its meta and the snapshot data (still encoded).
fn read_snapshot(path: &Path, wv: &WriteVersion) -> Result<Option<StoredSnapshot>, String> {
    let buf = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {}", path.display(), e)),
    };
    let corrupt = |m: &str| format!("{}: corrupt state file: {}", path.display(), m);
    if buf.len() < 20 || &buf[..8] != SNAP_MAGIC {
        return Err(corrupt("bad header"));
    }
    let len = u64::from_le_bytes(buf[8..16].try_into().unwrap()) as usize;
    let crc = u32::from_le_bytes(buf[16..20].try_into().unwrap());
    if buf.len() != 20 + len {
        return Err(corrupt(&format!("length {} but {} bytes present", len, buf.len() - 20)));
    }
    if crc32fast::hash(&buf[20..]) != crc {
        return Err(corrupt("checksum mismatch"));
    }
    let body = &buf[20..];
    if !spur_format::is_enveloped(body) {
        let v = crate::legacy_v0::decode_snapshot(body).map_err(|e| corrupt(&e))?;
        return Ok(Some(v));
    }
    let ((meta, v), used) =
        spur_format::decode_prefix::<SnapshotMeta<NodeId, BasicNode>>(Kind::SNAPSHOT_META, body, &path.display())
            .map_err(|e| e.to_string())?;
    wv.raise(v);
    Ok(Some((meta, body[used..].to_vec())))
}

fn write_snapshot(dir: &Path, meta: &SnapshotMeta<NodeId, BasicNode>, data: &[u8], version: Version) -> io::Result<()> {
    let mut body = spur_format::encode(Kind::SNAPSHOT_META, version, meta).map_err(io_err)?;
    body.extend_from_slice(data);
    let tmp = dir.join("raft.snapshot.tmp");
    {
        let mut f = create_private(&tmp)?;
        f.write_all(SNAP_MAGIC)?;
        f.write_all(&(body.len() as u64).to_le_bytes())?;
        f.write_all(&crc32fast::hash(&body).to_le_bytes())?;
        f.write_all(&body)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, dir.join("raft.snapshot"))?;
    sync_dir(dir)
}

// ----------------------------------------------------------------------------- log store

#[derive(Clone)]
pub struct LogStore {
    inner: Arc<Mutex<LogFile>>,
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + OptionalSend>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Ent>, SErr> {
        let g = lock(&self.inner);
        Ok(g.entries.range(range).map(|(_, (_, e))| e.clone()).collect())
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = LogStore;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, SErr> {
        let g = lock(&self.inner);
        let last = g.entries.values().next_back().map(|(_, e)| e.log_id).or(g.meta.purged);
        Ok(LogState { last_purged_log_id: g.meta.purged, last_log_id: last })
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote<NodeId>) -> Result<(), SErr> {
        let mut g = lock(&self.inner);
        g.meta.vote = Some(*vote);
        tokio::task::block_in_place(|| g.save_meta()).map_err(|e| StorageIOError::write_vote(&e).into())
    }

    async fn read_vote(&mut self) -> Result<Option<Vote<NodeId>>, SErr> {
        Ok(lock(&self.inner).meta.vote)
    }

    async fn save_committed(&mut self, committed: Option<LogId<NodeId>>) -> Result<(), SErr> {
        let mut g = lock(&self.inner);
        g.committed = committed;
        let body = spur_format::encode(Kind::RAFT_COMMITTED, g.wv.get(), &committed).map_err(|e| w_err(io_err(e)))?;
        // not synced: losing it only costs re-applying entries after a crash,
        // so failing to write it (a full disk) is not openraft's fatal error
        if let Err(e) = g.write_committed(&body) {
            tracing::warn!("{}: {} (a hint; kept going)", g.dir.join("raft.committed").display(), e);
        }
        Ok(())
    }

    async fn read_committed(&mut self) -> Result<Option<LogId<NodeId>>, SErr> {
        let g = lock(&self.inner);
        // never claim more than the log holds
        let last = g.entries.values().next_back().map(|(_, e)| e.log_id).or(g.meta.purged);
        Ok(match (g.committed, last) {
            (Some(c), Some(l)) if c.index <= l.index => Some(c),
            _ => None,
        })
    }

    async fn append<I>(&mut self, entries: I, callback: LogFlushed<TypeConfig>) -> Result<(), SErr>
    where
        I: IntoIterator<Item = Ent> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let mut g = lock(&self.inner);
        let mut buf = vec![];
        let mut added = vec![];
        let version = g.wv.get();
        for e in entries {
            let off = g.len + buf.len() as u64;
            encode(&e, version, &mut buf).map_err(w_err)?;
            added.push((e.log_id.index, off, e));
        }
        let start = g.len;
        let res = tokio::task::block_in_place(|| -> io::Result<()> {
            g.file.write_all_at(&buf, start)?;
            g.file.sync_data()
        });
        if let Err(e) = res {
            callback.log_io_completed(Err(io::Error::new(e.kind(), e.to_string())));
            return Err(w_err(e));
        }
        g.len += buf.len() as u64;
        for (i, off, e) in added {
            g.entries.insert(i, (off, e));
        }
        drop(g);
        callback.log_io_completed(Ok(()));
        Ok(())
    }

    async fn truncate(&mut self, log_id: LogId<NodeId>) -> Result<(), SErr> {
        let mut g = lock(&self.inner);
        let Some(off) = g.entries.get(&log_id.index).map(|x| x.0) else {
            return Ok(());
        };
        let _ = g.entries.split_off(&log_id.index);
        g.len = off;
        tokio::task::block_in_place(|| -> io::Result<()> {
            g.file.set_len(off)?;
            g.file.sync_all()
        })
        .map_err(w_err)
    }

    async fn purge(&mut self, log_id: LogId<NodeId>) -> Result<(), SErr> {
        let mut g = lock(&self.inner);
        g.meta.purged = Some(log_id);
        tokio::task::block_in_place(|| -> io::Result<()> {
            g.save_meta()?;
            let keep = g.entries.split_off(&(log_id.index + 1));
            g.entries = keep;
            g.rewrite()
        })
        .map_err(w_err)
    }
}

// ----------------------------------------------------------------------------- state machine

/// The applied state, shared between the state machine and the controller's
/// readers. Whoever holds the lock holds up every apply: nothing that can
/// block (name service lookups, I/O) happens under it.
pub struct SmInner {
    pub state: State,
    pub last_applied: Option<LogId<NodeId>>,
    pub membership: StoredMembership<NodeId, BasicNode>,
}

pub type Shared = Arc<StateLock>;

/// The applied state's lock: many readers at once (queries serialise their
/// answers from the state in place), or one writer (the state machine
/// applying committed entries, and soft-state changes). A waiting writer goes
/// before new readers, so a flood of queries cannot hold back the applying.
pub struct StateLock(std::sync::RwLock<SmInner>);

impl StateLock {
    pub fn new(inner: SmInner) -> StateLock {
        StateLock(std::sync::RwLock::new(inner))
    }

    /// For writing (a poisoned lock is taken as it is: the state is only
    /// changed by whole commands).
    pub fn lock(&self) -> std::sync::LockResult<std::sync::RwLockWriteGuard<'_, SmInner>> {
        Ok(self.0.write().unwrap_or_else(|e| e.into_inner()))
    }

    /// For reading only.
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, SmInner> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, SmInner> {
        self.0.write().unwrap_or_else(|e| e.into_inner())
    }
}

pub struct StateMachine {
    shared: Shared,
    dir: PathBuf,
    seq: u64,
    _last_snap: String,
    wv: WriteVersion,
    feed: Option<Arc<dyn crate::acct::AcctFeed>>,
}

/// Apply one batch to the state: what the leader's client gets back.
pub fn apply_batch(state: &mut State, index: u64, batch: &Batch) -> Reply {
    let mut out = Vec::with_capacity(batch.cmds.len());
    for c in &batch.cmds {
        let r = state.apply(c);
        out.push(r);
    }
    state.applied = index;
    out
}

impl StateMachine {
    /// Hand the accounting records of every entry applied from now on (and
    /// of every snapshot installed) to `feed`.
    pub fn set_feed(&mut self, feed: Arc<dyn crate::acct::AcctFeed>) {
        self.feed = Some(feed);
    }

    /// [`RaftStateMachine::apply`], on a thread that may block (openraft's
    /// error type, large as it is).
    #[allow(clippy::result_large_err)]
    fn apply_now(&mut self, entries: Vec<Ent>) -> Result<Vec<Reply>, SErr> {
        let mut g = self.shared.write();
        let mut out = vec![];
        for e in entries {
            g.last_applied = Some(e.log_id);
            match e.payload {
                EntryPayload::Blank => out.push(vec![]),
                EntryPayload::Normal(b) => {
                    let r = apply_batch(&mut g.state, e.log_id.index, &b);
                    if let Some(feed) = &self.feed {
                        let mut ids: Vec<u32> =
                            b.cmds.iter().zip(r.iter()).flat_map(|(c, res)| crate::acct::touched(c, res)).collect();
                        ids.sort_unstable();
                        ids.dedup();
                        let recs = ids.into_iter().filter_map(|id| g.state.acct_record(id)).collect();
                        feed.applied(e.log_id.index, recs);
                    }
                    let fv = g.state.format_version();
                    if fv > spur_format::FORMAT_VERSION {
                        // a member downgraded below the cluster's format version
                        let msg = format!(
                            "the cluster's format version is now {}, newer than this build of spur reads (versions {} to {}): upgrade spur",
                            fv,
                            spur_format::MIN_VERSION,
                            spur_format::FORMAT_VERSION
                        );
                        return Err(StorageError::from(StorageIOError::apply(e.log_id, &io_err(msg))));
                    }
                    self.wv.raise(g.state.write_format_version());
                    out.push(r)
                }
                EntryPayload::Membership(m) => {
                    g.membership = StoredMembership::new(Some(e.log_id), m);
                    out.push(vec![])
                }
            }
        }
        Ok(out)
    }
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotBuilder = SnapBuilder;

    async fn applied_state(&mut self) -> Result<(Option<LogId<NodeId>>, StoredMembership<NodeId, BasicNode>), SErr> {
        let g = tokio::task::block_in_place(|| self.shared.read());
        Ok((g.last_applied, g.membership.clone()))
    }

    #[allow(clippy::result_large_err)]
    async fn apply<I>(&mut self, entries: I) -> Result<Vec<Reply>, SErr>
    where
        I: IntoIterator<Item = Ent> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        // off the runtime's worker: the state lock may be held by a query a
        // while, and a worker blocked on it would also hold up the Raft core
        // tasks queued on that worker (heartbeats missed, an election)
        let entries: Vec<Ent> = entries.into_iter().collect();
        tokio::task::block_in_place(|| self.apply_now(entries))
    }

    async fn get_snapshot_builder(&mut self) -> Self::SnapshotBuilder {
        self.seq += 1;
        SnapBuilder {
            shared: self.shared.clone(),
            dir: self.dir.clone(),
            seq: self.seq,
            wv: self.wv.clone(),
            feed: self.feed.clone(),
        }
    }

    async fn begin_receiving_snapshot(&mut self) -> Result<Box<Cursor<Vec<u8>>>, SErr> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta<NodeId, BasicNode>,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), SErr> {
        let data = snapshot.into_inner();
        let (st, v) = decode_state(&data, &"snapshot from the leader")
            .map_err(|e| StorageError::from(StorageIOError::read_snapshot(Some(meta.signature()), &io_err(e))))?;
        self.wv.raise(v);
        self.wv.raise(st.write_format_version());
        let version = self.wv.get();
        tokio::task::block_in_place(|| write_snapshot(&self.dir, meta, &data, version))
            .map_err(|e| StorageError::from(StorageIOError::write_snapshot(Some(meta.signature()), &e)))?;
        let mut g = tokio::task::block_in_place(|| self.shared.write());
        let mut st = st;
        st.keep_local_settings(&g.state);
        g.state = st;
        g.last_applied = meta.last_log_id;
        g.membership = meta.last_membership.clone();
        if let Some(feed) = &self.feed {
            feed.installed(meta.last_log_id.map(|l| l.index).unwrap_or(0), g.state.acct_records());
        }
        Ok(())
    }

    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot<TypeConfig>>, SErr> {
        let s = tokio::task::block_in_place(|| read_snapshot(&self.dir.join("raft.snapshot"), &self.wv))
            .map_err(|e| StorageError::from(StorageIOError::read_snapshot(None, &io_err(e))))?;
        Ok(s.map(|(meta, data)| Snapshot { meta, snapshot: Box::new(Cursor::new(data)) }))
    }
}

pub struct SnapBuilder {
    shared: Shared,
    dir: PathBuf,
    seq: u64,
    wv: WriteVersion,
    feed: Option<Arc<dyn crate::acct::AcctFeed>>,
}

impl RaftSnapshotBuilder<TypeConfig> for SnapBuilder {
    #[allow(clippy::result_large_err)]
    async fn build_snapshot(&mut self) -> Result<Snapshot<TypeConfig>, SErr> {
        let version = self.wv.get();
        let (data, last, membership) = tokio::task::block_in_place(|| {
            let g = self.shared.read();
            let data = encode_state(&g.state, version)
                .map_err(|e| StorageError::from(StorageIOError::read_state_machine(&io_err(e))))?;
            Ok::<_, SErr>((data, g.last_applied, g.membership.clone()))
        })?;
        let id = format!(
            "{}-{}-{}",
            last.map(|l| l.leader_id.term).unwrap_or(0),
            last.map(|l| l.index).unwrap_or(0),
            self.seq
        );
        let meta = SnapshotMeta { last_log_id: last, last_membership: membership, snapshot_id: id };
        if let Some(feed) = &self.feed {
            // the log up to the snapshot is purged after it: the accounting
            // store must hold what that log fed it
            tokio::task::block_in_place(|| feed.flush());
        }
        tokio::task::block_in_place(|| write_snapshot(&self.dir, &meta, &data, version))
            .map_err(|e| StorageError::from(StorageIOError::write_snapshot(Some(meta.signature()), &e)))?;
        Ok(Snapshot { meta, snapshot: Box::new(Cursor::new(data)) })
    }
}

impl LogStore {
    /// Entries held (not purged), for tests and diagnostics.
    pub fn len(&self) -> usize {
        lock(&self.inner).entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Applied;
    use openraft::testing::{StoreBuilder, Suite};
    use openraft::{CommittedLeaderId, RaftLogReader};
    use std::sync::atomic::{AtomicU32, Ordering};

    static SEQ: AtomicU32 = AtomicU32::new(0);

    thread_local! {
        /// The directories `sync_dir` made durable on this thread.
        pub(super) static SYNCED_DIRS: std::cell::RefCell<Vec<PathBuf>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn synced() -> Vec<PathBuf> {
        SYNCED_DIRS.with(|s| std::mem::take(&mut *s.borrow_mut()))
    }

    /// A new state directory and a new raft.log are durable by name, before
    /// any entry written to the log counts as durable: the directory that
    /// holds each new entry is synced (the directory's parents created with
    /// it too); opening an existing log syncs nothing.
    #[test]
    fn new_directory_entries_are_synced() {
        let base = tmpdir("dirsync");
        let _g = Guard(base.clone());
        let dir = base.join("state").join("ctld1");
        synced();
        let o = open(&dir, |s| s.unwrap_or_default()).unwrap();
        let got = synced();
        for d in [std::env::temp_dir(), base.clone(), base.join("state"), dir.clone()] {
            assert!(got.contains(&d), "{} synced: {:?}", d.display(), got);
        }
        drop(o);
        let _o = open(&dir, |s| s.unwrap_or_default()).unwrap();
        assert_eq!(synced(), Vec::<PathBuf>::new());
    }

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "spur-raft-{}-{}-{}",
            tag,
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&d);
        d
    }

    struct Guard(PathBuf);
    impl Drop for Guard {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    struct Builder;
    impl StoreBuilder<TypeConfig, LogStore, StateMachine, Guard> for Builder {
        async fn build(&self) -> Result<(Guard, LogStore, StateMachine), SErr> {
            let d = tmpdir("suite");
            let o = open(&d, |s| s.unwrap_or_default()).expect("open");
            Ok((Guard(d), o.log, o.sm))
        }
    }

    /// openraft's own conformance suite for storage implementations.
    #[test]
    fn openraft_storage_suite() {
        Suite::test_all(Builder).unwrap();
    }

    fn ent(term: u64, index: u64, cmds: Vec<Command>) -> Ent {
        Entry {
            log_id: LogId::new(CommittedLeaderId::new(term, 1), index),
            payload: EntryPayload::Normal(Batch { cmds }),
        }
    }

    fn purge_cmd(n: u32) -> Command {
        Command::Purge { job_ids: vec![n] }
    }

    async fn append(log: &mut LogStore, es: Vec<Ent>) {
        use openraft::storage::RaftLogStorageExt;
        log.blocking_append(es).await.unwrap();
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
    }

    #[test]
    fn state_files_are_the_controllers_only_from_their_first_byte() {
        use openraft::storage::{RaftLogStorage, RaftSnapshotBuilder, RaftStateMachine};
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
        let d = tmpdir("modes");
        let _g = Guard(d.clone());
        rt().block_on(async {
            let mut o = open(&d.join("ctld1"), |s| s.unwrap_or_default()).unwrap();
            let dir = d.join("ctld1");
            // a temporary file left by a crash, readable by all: not reused
            fs::write(dir.join("raft.meta.tmp"), "left over").unwrap();
            fs::set_permissions(dir.join("raft.meta.tmp"), fs::Permissions::from_mode(0o644)).unwrap();
            append(&mut o.log, (1..=3).map(|i| ent(1, i, vec![purge_cmd(i as u32)])).collect()).await;
            o.log.save_vote(&Vote::new(1, 1)).await.unwrap();
            o.log.save_committed(Some(LogId::new(CommittedLeaderId::new(1, 1), 3))).await.unwrap();
            o.sm.apply((1..=3).map(|i| ent(1, i, vec![]))).await.unwrap();
            o.sm.get_snapshot_builder().await.build_snapshot().await.unwrap();
            // the log rewritten after a purge
            o.log.purge(LogId::new(CommittedLeaderId::new(1, 1), 2)).await.unwrap();
            assert_eq!(mode(&d), 0o700, "the state directory and the parents it needed");
            assert_eq!(mode(&dir), 0o700);
            let mut files: Vec<(String, u32)> = fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap())
                .map(|e| (e.file_name().to_string_lossy().to_string(), mode(&e.path())))
                .collect();
            files.sort();
            assert_eq!(
                files,
                ["raft.committed", "raft.log", "raft.meta", "raft.snapshot"].map(|f| (f.to_string(), 0o600)).to_vec()
            );
        });
    }

    #[test]
    fn entries_and_vote_survive_a_restart() {
        let d = tmpdir("restart");
        rt().block_on(async {
            {
                let mut o = open(&d, |s| s.unwrap_or_default()).unwrap();
                append(&mut o.log, (1..=5).map(|i| ent(1, i, vec![purge_cmd(i as u32)])).collect()).await;
                o.log.save_vote(&Vote::new(3, 2)).await.unwrap();
                o.log.truncate(LogId::new(CommittedLeaderId::new(1, 1), 4)).await.unwrap();
                append(&mut o.log, vec![ent(3, 4, vec![])]).await;
            }
            let mut o = open(&d, |s| s.unwrap_or_default()).unwrap();
            assert!(o.has_history);
            assert_eq!(o.log.read_vote().await.unwrap(), Some(Vote::new(3, 2)));
            let es = o.log.try_get_log_entries(0..100).await.unwrap();
            assert_eq!(
                es.iter().map(|e| (e.log_id.leader_id.term, e.log_id.index)).collect::<Vec<_>>(),
                [(1, 1), (1, 2), (1, 3), (3, 4)]
            );
            // purging rewrites the file: what is left reads back
            o.log.purge(LogId::new(CommittedLeaderId::new(1, 1), 2)).await.unwrap();
            drop(o);
            let mut o = open(&d, |s| s.unwrap_or_default()).unwrap();
            let st = o.log.get_log_state().await.unwrap();
            assert_eq!(st.last_purged_log_id.map(|l| l.index), Some(2));
            assert_eq!(st.last_log_id.map(|l| l.index), Some(4));
            assert_eq!(o.log.try_get_log_entries(0..100).await.unwrap().len(), 2);
        });
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn torn_tail_is_cut_and_reported_but_middle_corruption_is_an_error() {
        let d = tmpdir("torn");
        rt().block_on(async {
            let mut o = open(&d, |s| s.unwrap_or_default()).unwrap();
            append(&mut o.log, (1..=3).map(|i| ent(1, i, vec![purge_cmd(i as u32)])).collect()).await;
        });
        let p = d.join("raft.log");
        let mut b = fs::read(&p).unwrap();
        let full = b.len();
        b.truncate(full - 2);
        fs::write(&p, &b).unwrap();
        let o = open(&d, |s| s.unwrap_or_default()).unwrap();
        assert!(o.truncated_tail.is_some());
        assert_eq!(o.log.len(), 2);
        drop(o);
        let mut b = fs::read(&p).unwrap();
        let good = b.clone();
        b[9] ^= 0xff; // inside the first record's body
        fs::write(&p, &b).unwrap();
        match open(&d, |s| s.unwrap_or_default()) {
            Err(e) => assert!(e.contains("raft.log") && e.contains("checksum"), "{}", e),
            Ok(_) => panic!("corruption not detected"),
        }
        // a damaged length field in the middle (the record seems to run past
        // the end): an error naming the file and both offsets, nothing cut
        let mut b = good.clone();
        b[3] = 0x7f;
        fs::write(&p, &b).unwrap();
        match open(&d, |s| s.unwrap_or_default()) {
            Err(e) => assert!(
                e.contains("raft.log") && e.contains("incomplete record at offset 0, followed by a whole record"),
                "{}",
                e
            ),
            Ok(o) => panic!("a damaged length cut the log to {} records", o.log.len()),
        }
        assert_eq!(fs::read(&p).unwrap(), b, "the file was changed");
        let _ = fs::remove_dir_all(&d);
    }

    /// raft.committed is a hint: when it cannot be written (a full disk; here
    /// a directory in its place) the store goes on, the log still appends.
    #[test]
    fn an_unwritable_committed_hint_is_not_fatal() {
        let d = tmpdir("hint");
        rt().block_on(async {
            let mut o = open(&d, |s| s.unwrap_or_default()).unwrap();
            fs::create_dir(d.join("raft.committed")).unwrap();
            append(&mut o.log, vec![ent(1, 1, vec![purge_cmd(1)])]).await;
            o.log.save_committed(Some(LogId::new(CommittedLeaderId::new(1, 1), 1))).await.unwrap();
            append(&mut o.log, vec![ent(1, 2, vec![purge_cmd(2)])]).await;
            assert_eq!(o.log.try_get_log_entries(0..100).await.unwrap().len(), 2);
        });
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn corrupt_meta_or_snapshot_is_an_error() {
        let d = tmpdir("meta");
        rt().block_on(async {
            let mut o = open(&d, |s| s.unwrap_or_default()).unwrap();
            o.log.save_vote(&Vote::new(1, 1)).await.unwrap();
            let mut b = o.sm.get_snapshot_builder().await;
            b.build_snapshot().await.unwrap();
        });
        for f in ["raft.meta", "raft.snapshot"] {
            let p = d.join(f);
            let good = fs::read(&p).unwrap();
            let mut b = good.clone();
            let n = b.len();
            b[n - 1] ^= 1;
            fs::write(&p, &b).unwrap();
            match open(&d, |s| s.unwrap_or_default()) {
                Err(e) => assert!(e.contains(f) && e.contains("corrupt"), "{}", e),
                Ok(_) => panic!("corrupt {} not detected", f),
            }
            fs::write(&p, &good).unwrap();
        }
        assert!(open(&d, |s| s.unwrap_or_default()).is_ok());
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn applying_a_batch_returns_each_commands_result() {
        let d = tmpdir("apply");
        rt().block_on(async {
            let mut o = open(&d, |_| State::new("c".into(), vec![], vec![], 1, 100)).unwrap();
            let e = ent(1, 1, vec![Command::ConsumeJobId, Command::Release { job_id: 42 }]);
            let r = o.sm.apply(vec![e]).await.unwrap();
            assert_eq!(r.len(), 1);
            assert_eq!(r[0][0], Ok(Applied::Submitted(1)));
            assert!(r[0][1].is_err());
            assert_eq!(o.shared.lock().unwrap().state.next_job_id(), 2);
            // a snapshot carries the state to a restarted member
            let mut b = o.sm.get_snapshot_builder().await;
            b.build_snapshot().await.unwrap();
        });
        let o = open(&d, |s| s.expect("state from the snapshot")).unwrap();
        assert_eq!(o.shared.lock().unwrap().state.next_job_id(), 2);
        assert_eq!(o.shared.lock().unwrap().last_applied.map(|l| l.index), Some(1));
        let _ = fs::remove_dir_all(&d);
    }
}
