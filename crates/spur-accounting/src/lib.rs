//! The accounting store: every job's and step's record, for sacct, kept on
//! each controller member in an embedded database (redb) under its state
//! directory, long after the job left the replicated state (`MinJobAge`).
//!
//! Records come from the committed log: after each entry it applies, the
//! Raft state machine hands the records of the jobs it changed, with the
//! entry's index, to [`Feeder`] (spur_state's `AcctFeed`), which queues them
//! for a writer thread (no I/O under the state's lock). The writer commits
//! them in batches, with the last index fed (`applied`), so that feeding is
//! idempotent: after a restart the entries the state machine applies again
//! (those after its snapshot) are passed over up to `applied`. Before a
//! snapshot is written the state machine waits for the writer
//! ([`Feeder::flush`]), so a member's store always covers its own snapshot.
//!
//! A member that installs a snapshot from its leader (it lagged behind the
//! purged log, or lost its disk) gets the records of the jobs the snapshot
//! holds from it, but not those of jobs purged before it: the store notes the
//! range of entries it missed ([`Store::pending_sync`]) and the controller
//! copies the records changed in that range from a peer's store
//! ([`Store::changed_between`], [`Store::merge`]).
//!
//! Tables (keys are tuples; a record's key is its job id, submit time and
//! restart count, one record per run of a job):
//! - `jobs`: key -> `[u64 index][AcctJob in a spur_format envelope]`, the
//!   index of the entry that last changed it;
//! - `live`: job id -> the submit time and restart count of its newest run
//!   (a requeue starts a new run, and the old one becomes `REQUEUED`);
//! - `by_end`: (end time, or `i64::MAX` while not ended, eligible time,
//!   key): the window queries (the eligible time rules records out before
//!   they are read);
//! - `by_user`: (uid, end, eligible, key): one user's window;
//! - `by_array`: (array job id, key): an array's records;
//! - `by_index`: (index, key): what changed in a range of entries;
//! - `meta`: `applied`, `sync_from`, `sync_to`.

use redb::{Database, Durability, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use spur_core::acct::{AcctJob, AcctQuery, AcctState};
use spur_format::{Kind, Version};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// A run of a job: its id, submit time and restart count (a requeue within
/// the second of the submission is still a run of its own).
type Key = (u32, i64, u32);
const JOBS: TableDefinition<Key, &[u8]> = TableDefinition::new("jobs");
const LIVE: TableDefinition<u32, (i64, u32)> = TableDefinition::new("live");
const BY_END: TableDefinition<(i64, i64, u32, i64, u32), ()> = TableDefinition::new("by_end");
const BY_USER: TableDefinition<(u32, i64, i64, u32, i64, u32), ()> = TableDefinition::new("by_user");
const BY_ARRAY: TableDefinition<(u32, u32, i64, u32), ()> = TableDefinition::new("by_array");
const BY_INDEX: TableDefinition<(u64, u32, i64, u32), ()> = TableDefinition::new("by_index");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// The store's file under a member's state directory.
pub const FILE: &str = "accounting.redb";

#[derive(Debug)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! from_err {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Error {
                Error(format!("accounting store: {}", e))
            }
        }
    )*};
}
from_err!(
    redb::Error,
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::CompactionError,
    redb::SetDurabilityError,
    spur_format::FormatError
);

pub type Result<T> = std::result::Result<T, Error>;

fn end_key(j: &AcctJob) -> i64 {
    if j.end == 0 {
        i64::MAX
    } else {
        j.end
    }
}

/// The memory the store may cache its pages in: `SPUR_ACCT_CACHE_MB`, 64 MiB
/// by default (redb's own default, 1 GiB, made a controller holding a
/// million records 700 MB large; the kernel's page cache holds the file
/// anyway).
fn cache_bytes() -> usize {
    let mb = std::env::var("SPUR_ACCT_CACHE_MB").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(64);
    mb.saturating_mul(1 << 20)
}

/// The largest store compacted when it is opened: `SPUR_ACCT_COMPACT_MAX_MB`,
/// 512 MiB by default.
fn compact_max_bytes() -> u64 {
    let mb = std::env::var("SPUR_ACCT_COMPACT_MAX_MB").ok().and_then(|v| v.parse::<u64>().ok()).unwrap_or(512);
    mb.saturating_mul(1 << 20)
}

/// The embedded store.
pub struct Store {
    db: Database,
    path: PathBuf,
    /// The version records are written at (the cluster's format version).
    version: Mutex<Version>,
}

impl Store {
    /// Open (or create) the store in `dir`, compacting it first when it is
    /// small ([`compact_max_bytes`]).
    pub fn open(dir: &Path) -> Result<Store> {
        let path = dir.join(FILE);
        let existed = path.exists();
        let mut db = {
            use std::os::unix::fs::OpenOptionsExt;
            // private from its first byte, as the rest of the state directory
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&path)
                .map_err(|e| Error(format!("{}: {}", path.display(), e)))?;
            drop(f);
            Database::builder()
                .set_cache_size(cache_bytes())
                .create(&path)
                .map_err(|e| Error(format!("{}: {}", path.display(), e)))?
        };
        // compacted at start when small: redb reuses the pages a rewritten
        // record frees, so the file does not grow with updates; compacting
        // a large one reads and rewrites all of it (a 6 GB store of ten
        // million jobs took minutes, holding the controller's start)
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if existed && size <= compact_max_bytes() {
            db.compact()?;
        }
        let w = db.begin_write()?;
        {
            w.open_table(JOBS)?;
            w.open_table(LIVE)?;
            w.open_table(BY_END)?;
            w.open_table(BY_USER)?;
            w.open_table(BY_ARRAY)?;
            w.open_table(BY_INDEX)?;
            w.open_table(META)?;
        }
        w.commit()?;
        Ok(Store { db, path, version: Mutex::new(spur_format::FORMAT_VERSION) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write records at this format version from now on.
    pub fn set_version(&self, v: Version) {
        *self.version.lock().unwrap_or_else(|e| e.into_inner()) = v;
    }

    fn meta(&self, key: &str) -> Result<u64> {
        let r = self.db.begin_read()?;
        let t = r.open_table(META)?;
        Ok(t.get(key)?.map(|v| v.value()).unwrap_or(0))
    }

    /// The last log index whose records are in the store.
    pub fn applied(&self) -> Result<u64> {
        self.meta("applied")
    }

    /// A range of entries `(from, to]` whose records this store may lack
    /// (it installed a snapshot up to `to` when it had applied only `from`).
    pub fn pending_sync(&self) -> Result<Option<(u64, u64)>> {
        let to = self.meta("sync_to")?;
        if to == 0 {
            return Ok(None);
        }
        Ok(Some((self.meta("sync_from")?, to)))
    }

    /// Write the records of entries (each with its index), skipping those
    /// of entries already applied; one transaction, durable on return.
    pub fn write(&self, entries: &[(u64, Vec<AcctJob>)]) -> Result<()> {
        let version = *self.version.lock().unwrap_or_else(|e| e.into_inner());
        let mut w = self.db.begin_write()?;
        w.set_durability(Durability::Immediate)?;
        {
            let mut t = Tables::open(&w)?;
            let mut applied = t.meta.get("applied")?.map(|v| v.value()).unwrap_or(0);
            for (index, recs) in entries {
                if *index <= applied {
                    continue;
                }
                for r in recs {
                    t.put(*index, r, version, true)?;
                }
                applied = *index;
            }
            t.meta.insert("applied", applied)?;
        }
        w.commit()?;
        Ok(())
    }

    /// A snapshot up to `index` replaced the state: `records` are its jobs'.
    /// Records changed in the entries this store had not applied, of jobs
    /// purged before the snapshot, are to be copied from a peer: the range
    /// is noted ([`Store::pending_sync`]).
    pub fn install(&self, index: u64, records: &[AcctJob]) -> Result<()> {
        let version = *self.version.lock().unwrap_or_else(|e| e.into_inner());
        let mut w = self.db.begin_write()?;
        w.set_durability(Durability::Immediate)?;
        {
            let mut t = Tables::open(&w)?;
            let applied = t.meta.get("applied")?.map(|v| v.value()).unwrap_or(0);
            if index > applied {
                for r in records {
                    t.put(index, r, version, false)?;
                }
                // a range already pending widens
                let from = match t.meta.get("sync_to")?.map(|v| v.value()) {
                    Some(to) if to > 0 => t.meta.get("sync_from")?.map(|v| v.value()).unwrap_or(0),
                    _ => applied,
                };
                t.meta.insert("sync_from", from)?;
                t.meta.insert("sync_to", index)?;
                t.meta.insert("applied", index)?;
            }
        }
        w.commit()?;
        Ok(())
    }

    /// Records copied from a peer (each with the index that last changed
    /// it): one replaces a record of this store only when it is newer.
    pub fn merge(&self, records: &[(u64, AcctJob)]) -> Result<()> {
        let version = *self.version.lock().unwrap_or_else(|e| e.into_inner());
        let mut w = self.db.begin_write()?;
        w.set_durability(Durability::Immediate)?;
        {
            let mut t = Tables::open(&w)?;
            for (index, r) in records {
                let held = t.jobs.get(key_of(r))?.map(|v| index_of(v.value()));
                if held.map(|h| h >= *index).unwrap_or(false) {
                    continue;
                }
                t.put(*index, r, version, false)?;
            }
        }
        w.commit()?;
        Ok(())
    }

    /// The pending range is copied.
    pub fn sync_done(&self) -> Result<()> {
        let w = self.db.begin_write()?;
        {
            let mut m = w.open_table(META)?;
            m.insert("sync_from", 0)?;
            m.insert("sync_to", 0)?;
        }
        w.commit()?;
        Ok(())
    }

    /// Records last changed by entries in `(from, to]`, at most `limit`,
    /// starting after `(index, key)` `after` (a page's last), with the index
    /// of each.
    pub fn changed_between(
        &self,
        from: u64,
        to: u64,
        after: Option<(u64, Key)>,
        limit: usize,
    ) -> Result<Vec<(u64, AcctJob)>> {
        let r = self.db.begin_read()?;
        let by = r.open_table(BY_INDEX)?;
        let jobs = r.open_table(JOBS)?;
        let lo = match after {
            Some((i, k)) => (i, k.0, k.1, k.2),
            None => (from.saturating_add(1), 0, i64::MIN, 0),
        };
        let mut out = vec![];
        for e in by.range(lo..=(to, u32::MAX, i64::MAX, u32::MAX))? {
            let (k, _) = e?;
            let k = k.value();
            if Some((k.0, (k.1, k.2, k.3))) == after {
                continue;
            }
            if let Some(v) = jobs.get((k.1, k.2, k.3))? {
                out.push((k.0, decode(v.value())?));
            }
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    /// The records `q` asks for, in slurmdbd's order (by job id, then each
    /// run's submit time); without `q.duplicates`, only each job's newest
    /// run.
    pub fn query(&self, q: &AcctQuery) -> Result<Vec<AcctJob>> {
        let r = self.db.begin_read()?;
        let jobs = r.open_table(JOBS)?;
        let mut keys: Vec<Key> = vec![];
        if !q.jobs.is_empty() {
            let by_array = r.open_table(BY_ARRAY)?;
            for &(id, _) in &q.jobs {
                for e in jobs.range((id, i64::MIN, 0)..=(id, i64::MAX, u32::MAX))? {
                    keys.push(e?.0.value());
                }
                for e in by_array.range((id, 0, i64::MIN, 0)..=(id, u32::MAX, i64::MAX, u32::MAX))? {
                    let k = e?.0.value();
                    keys.push((k.1, k.2, k.3));
                }
            }
        } else if !q.user_ids.is_empty() {
            let by_user = r.open_table(BY_USER)?;
            let from = if q.states.is_empty() { q.start } else { i64::MIN };
            for &uid in &q.user_ids {
                let lo = (uid, from, i64::MIN, 0, i64::MIN, 0);
                let hi = (uid, i64::MAX, i64::MAX, u32::MAX, i64::MAX, u32::MAX);
                for e in by_user.range(lo..=hi)? {
                    let k = e?.0.value();
                    if eligible_in(q, k.2) {
                        keys.push((k.3, k.4, k.5));
                    }
                }
            }
        } else if q.start != 0 && q.states.is_empty() {
            let by_end = r.open_table(BY_END)?;
            for e in by_end.range((q.start, i64::MIN, 0, i64::MIN, 0)..)? {
                let k = e?.0.value();
                if eligible_in(q, k.1) {
                    keys.push((k.2, k.3, k.4));
                }
            }
        } else {
            for e in jobs.iter()? {
                keys.push(e?.0.value());
            }
        }
        keys.sort_unstable();
        keys.dedup();
        let mut out: Vec<AcctJob> = vec![];
        for k in keys {
            let Some(v) = jobs.get(k)? else { continue };
            let mut j = decode(v.value())?;
            if q.matches(&j) {
                if q.no_steps {
                    j.steps = Vec::new();
                }
                out.push(j);
            }
        }
        if !q.duplicates {
            // the newest run of each job id (they are sorted by id, then submit)
            let mut kept: Vec<AcctJob> = Vec::with_capacity(out.len());
            for j in out {
                if kept.last().map(|l| l.job_id == j.job_id).unwrap_or(false) {
                    kept.pop();
                }
                kept.push(j);
            }
            out = kept;
        }
        Ok(out)
    }

    /// Records held in all.
    pub fn len(&self) -> Result<u64> {
        let r = self.db.begin_read()?;
        Ok(r.open_table(JOBS)?.len()?)
    }

    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}

/// Whether a record eligible at `eligible` can be in `q`'s window, before
/// it is read: without states or job ids, the window takes only jobs
/// eligible before its end (`AcctQuery::in_window`).
fn eligible_in(q: &AcctQuery, eligible: i64) -> bool {
    if !q.states.is_empty() || !q.jobs.is_empty() || q.end == 0 || q.start == 0 {
        return true;
    }
    eligible != 0 && eligible < q.end
}

fn index_of(v: &[u8]) -> u64 {
    v.get(..8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes).unwrap_or(0)
}

fn decode(v: &[u8]) -> Result<AcctJob> {
    let body = v.get(8..).unwrap_or_default();
    Ok(spur_format::decode(Kind::ACCT_JOB, body, &"the accounting store")?.0)
}

struct Tables<'t> {
    jobs: redb::Table<'t, Key, &'static [u8]>,
    live: redb::Table<'t, u32, (i64, u32)>,
    by_end: redb::Table<'t, (i64, i64, u32, i64, u32), ()>,
    by_user: redb::Table<'t, (u32, i64, i64, u32, i64, u32), ()>,
    by_array: redb::Table<'t, (u32, u32, i64, u32), ()>,
    by_index: redb::Table<'t, (u64, u32, i64, u32), ()>,
    meta: redb::Table<'t, &'static str, u64>,
}

impl<'t> Tables<'t> {
    fn open(w: &'t redb::WriteTransaction) -> Result<Tables<'t>> {
        Ok(Tables {
            jobs: w.open_table(JOBS)?,
            live: w.open_table(LIVE)?,
            by_end: w.open_table(BY_END)?,
            by_user: w.open_table(BY_USER)?,
            by_array: w.open_table(BY_ARRAY)?,
            by_index: w.open_table(BY_INDEX)?,
            meta: w.open_table(META)?,
        })
    }

    /// Write `r` as changed by entry `index`, replacing the record of the
    /// same run and its index entries. `requeue`: a newer run of a job
    /// whose older run had not ended ends that one `REQUEUED` (at the new
    /// run's submit time, the requeue's).
    fn put(&mut self, index: u64, r: &AcctJob, version: Version, requeue: bool) -> Result<()> {
        let key = key_of(r);
        if requeue {
            let prev = self.live.get(r.job_id)?.map(|v| v.value());
            // an older run of the same job (a requeue starts a new one)
            if let Some(prev) = prev.filter(|&(s, n)| (s, n) < (r.submit, r.restarts) && n < r.restarts) {
                let old = self.jobs.get((r.job_id, prev.0, prev.1))?.map(|v| v.value().to_vec());
                if let Some(bytes) = old {
                    let mut o = decode(&bytes)?;
                    if o.state != AcctState::Requeued {
                        // slurmdbd's record of a requeued run: REQUEUED,
                        // ended by the requeue, its running steps cancelled
                        o.state = AcctState::Requeued;
                        if o.end == 0 {
                            o.end = r.submit;
                        }
                        for s in o.steps.iter_mut().filter(|s| s.end == 0) {
                            s.end = r.submit;
                            s.state = AcctState::Cancelled;
                            s.exit_status = Some(SIGTERM_STATUS);
                        }
                        self.put(index, &o, version, false)?;
                    }
                }
            }
        }
        if let Some(old) = self.jobs.get(key)?.map(|v| (index_of(v.value()), v.value().to_vec())) {
            let (old_index, bytes) = old;
            let o = decode(&bytes)?;
            self.by_end.remove((end_key(&o), o.eligible, key.0, key.1, key.2))?;
            self.by_user.remove((o.user_id, end_key(&o), o.eligible, key.0, key.1, key.2))?;
            self.by_index.remove((old_index, key.0, key.1, key.2))?;
            if o.array_job_id != 0 {
                self.by_array.remove((o.array_job_id, key.0, key.1, key.2))?;
            }
        }
        let mut v = index.to_le_bytes().to_vec();
        v.extend(spur_format::encode(Kind::ACCT_JOB, version, r)?);
        self.jobs.insert(key, v.as_slice())?;
        self.by_end.insert((end_key(r), r.eligible, key.0, key.1, key.2), ())?;
        self.by_user.insert((r.user_id, end_key(r), r.eligible, key.0, key.1, key.2), ())?;
        self.by_index.insert((index, key.0, key.1, key.2), ())?;
        if r.array_job_id != 0 {
            self.by_array.insert((r.array_job_id, key.0, key.1, key.2), ())?;
        }
        let newest = self.live.get(r.job_id)?.map(|v| v.value());
        if newest.map(|n| n <= (r.submit, r.restarts)).unwrap_or(true) {
            self.live.insert(r.job_id, (r.submit, r.restarts))?;
        }
        Ok(())
    }
}

/// The raw wait status of a task ended by SIGTERM (sacct's `0:15`).
const SIGTERM_STATUS: i32 = 15;

fn key_of(r: &AcctJob) -> Key {
    (r.job_id, r.submit, r.restarts)
}

enum Msg {
    Applied(u64, Vec<AcctJob>),
    Installed(u64, Vec<AcctJob>),
    Flush(mpsc::Sender<()>),
}

/// The state machine's side: queues records for the writer thread.
pub struct Feeder {
    tx: Mutex<mpsc::Sender<Msg>>,
}

impl Feeder {
    /// Start the writer thread for `store`. A write that fails is logged
    /// with `on_error` and ends the thread's work: the controller then
    /// stops (its records would be incomplete).
    pub fn start(store: Arc<Store>, on_error: impl Fn(&Error) + Send + 'static) -> Feeder {
        let (tx, rx) = mpsc::channel::<Msg>();
        std::thread::Builder::new().name("accounting".into()).spawn(move || writer(&store, rx, on_error)).ok();
        Feeder { tx: Mutex::new(tx) }
    }

    fn send(&self, m: Msg) {
        let _ = self.tx.lock().unwrap_or_else(|e| e.into_inner()).send(m);
    }

    /// Wait until everything queued so far is written.
    pub fn flush(&self) {
        let (tx, rx) = mpsc::channel();
        self.send(Msg::Flush(tx));
        let _ = rx.recv();
    }
}

impl spur_state::acct::AcctFeed for Feeder {
    fn applied(&self, index: u64, records: Vec<AcctJob>) {
        self.send(Msg::Applied(index, records));
    }
    fn installed(&self, index: u64, records: Vec<AcctJob>) {
        self.send(Msg::Installed(index, records));
    }
    fn flush(&self) {
        Feeder::flush(self)
    }
}

fn writer(store: &Store, rx: mpsc::Receiver<Msg>, on_error: impl Fn(&Error)) {
    let mut failed = false;
    while let Ok(first) = rx.recv() {
        // one transaction for everything queued meanwhile
        let mut batch: Vec<(u64, Vec<AcctJob>)> = vec![];
        let mut flushes = vec![];
        let mut next = Some(first);
        while let Some(m) = next.take().or_else(|| rx.try_recv().ok()) {
            match m {
                Msg::Applied(i, recs) => batch.push((i, recs)),
                Msg::Flush(done) => flushes.push(done),
                Msg::Installed(i, recs) => {
                    if !failed {
                        let r = store.write(&std::mem::take(&mut batch)).and_then(|_| store.install(i, &recs));
                        if let Err(e) = r {
                            on_error(&e);
                            failed = true;
                        }
                    }
                }
            }
            if batch.len() >= 4096 {
                break;
            }
        }
        if !failed && !batch.is_empty() {
            if let Err(e) = store.write(&batch) {
                on_error(&e);
                failed = true;
            }
        }
        for f in flushes {
            let _ = f.send(());
        }
    }
}

#[cfg(test)]
mod tests;
