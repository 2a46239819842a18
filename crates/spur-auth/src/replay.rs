//! The replay cache: one per host, shared by every daemon on it.
//!
//! A fixed-size open-addressing table in a file (`replay.cache` beside the
//! signing service's socket): [`SLOTS`] slots of 16 bytes, the first 8 bytes
//! of a nonce and the time until which it must be remembered. A check reads
//! at most [`PROBES`] consecutive slots and writes one, under an exclusive
//! `flock` of the file (and a mutex for the threads of one process): O(1)
//! per check, bounded memory and disk, and a nonce seen by one daemon is
//! refused by every other daemon on the host, a restarted one too.
//!
//! A slot whose time has passed is free. When all [`PROBES`] slots of a
//! nonce's neighbourhood are taken by live nonces (only a flood of valid
//! credentials, > ~10,000 requests a second on one host, fills it), the
//! request is refused ("replay cache full"): the cache fails closed.

use crate::cred::CredError;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;

/// Slots in the table (16 MiB).
pub const SLOTS: u64 = 1 << 20;
/// Slots looked at per check.
pub const PROBES: u64 = 64;
const SLOT: u64 = 16;

enum Store {
    File(File),
    /// No file could be opened (logged): this process's own table.
    Memory(Vec<u8>),
}

pub struct ReplayCache {
    store: Mutex<Store>,
}

impl ReplayCache {
    /// The host's cache at `path`, created (mode 0600) when missing.
    pub fn open(path: &Path) -> io::Result<ReplayCache> {
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        let f =
            std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(0o600).open(path)?;
        let want = (SLOTS + PROBES) * SLOT;
        if f.metadata()?.len() < want {
            f.set_len(want)?;
        }
        Ok(ReplayCache { store: Mutex::new(Store::File(f)) })
    }

    /// A cache of this process only (tests, or when the host's file cannot
    /// be opened).
    pub fn in_memory() -> ReplayCache {
        ReplayCache { store: Mutex::new(Store::Memory(vec![0; ((SLOTS + PROBES) * SLOT) as usize])) }
    }

    /// The host's cache at `path`, else (with a warning on stderr) one of
    /// this process only.
    pub fn open_or_memory(path: &Path) -> ReplayCache {
        ReplayCache::open(path).unwrap_or_else(|e| {
            eprintln!("warning: replay cache {}: {}; using one of this process only", path.display(), e);
            ReplayCache::in_memory()
        })
    }

    /// Remember `nonce` until `until`; `Replayed` if it is already
    /// remembered, `CacheFull` if there is no room for it.
    pub fn check_and_insert(&self, nonce: &[u8; 16], until: i64, now: i64) -> Result<(), CredError> {
        let key = u64::from_le_bytes(nonce[..8].try_into().expect("8 bytes")).max(1);
        let start = u64::from_le_bytes(nonce[8..].try_into().expect("8 bytes")) % SLOTS;
        let mut g = self.store.lock().unwrap_or_else(|e| e.into_inner());
        let mut buf = [0u8; (PROBES * SLOT) as usize];
        let off = start * SLOT;
        match &mut *g {
            Store::Memory(v) => buf.copy_from_slice(&v[off as usize..(off + PROBES * SLOT) as usize]),
            Store::File(f) => {
                let _lock = Flock::exclusive(f).map_err(|_| CredError::CacheFull)?;
                f.read_exact_at(&mut buf, off).map_err(|_| CredError::CacheFull)?;
                let at = Self::place(&buf, key, now)?;
                let mut slot = [0u8; 16];
                slot[..8].copy_from_slice(&key.to_le_bytes());
                slot[8..].copy_from_slice(&until.to_le_bytes());
                return f.write_all_at(&slot, off + at * SLOT).map_err(|_| CredError::CacheFull);
            }
        }
        let at = Self::place(&buf, key, now)?;
        if let Store::Memory(v) = &mut *g {
            let o = (off + at * SLOT) as usize;
            v[o..o + 8].copy_from_slice(&key.to_le_bytes());
            v[o + 8..o + 16].copy_from_slice(&until.to_le_bytes());
        }
        Ok(())
    }

    /// Which slot of the neighbourhood `buf` takes `key`.
    fn place(buf: &[u8], key: u64, now: i64) -> Result<u64, CredError> {
        let mut free = None;
        for i in 0..PROBES {
            let s = &buf[(i * SLOT) as usize..((i + 1) * SLOT) as usize];
            let k = u64::from_le_bytes(s[..8].try_into().expect("8 bytes"));
            let until = i64::from_le_bytes(s[8..].try_into().expect("8 bytes"));
            if until >= now {
                if k == key {
                    return Err(CredError::Replayed);
                }
            } else if free.is_none() {
                free = Some(i);
            }
        }
        free.ok_or(CredError::CacheFull)
    }
}

/// An exclusive flock(2), released when dropped.
struct Flock<'a>(&'a File);

impl<'a> Flock<'a> {
    fn exclusive(f: &'a File) -> io::Result<Flock<'a>> {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this File owns for the guard's life.
        if unsafe { nix::libc::flock(f.as_raw_fd(), nix::libc::LOCK_EX) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Flock(f))
    }
}

impl Drop for Flock<'_> {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: as above.
        unsafe { nix::libc::flock(self.0.as_raw_fd(), nix::libc::LOCK_UN) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nonce(i: u64, bucket: u64) -> [u8; 16] {
        let mut n = [0u8; 16];
        n[..8].copy_from_slice(&i.to_le_bytes());
        n[8..].copy_from_slice(&bucket.to_le_bytes());
        n
    }

    #[test]
    fn a_nonce_is_refused_by_every_process_that_shares_the_file_until_it_expires() {
        let d = std::env::temp_dir().join(format!("spur-replay-test-{}", std::process::id()));
        let p = d.join("replay.cache");
        let a = ReplayCache::open(&p).unwrap();
        let b = ReplayCache::open(&p).unwrap(); // another daemon on the host
        let n = nonce(7, 12345);
        assert_eq!(a.check_and_insert(&n, 1000, 900), Ok(()));
        assert_eq!(b.check_and_insert(&n, 1000, 900), Err(CredError::Replayed));
        assert_eq!(a.check_and_insert(&n, 1000, 1000), Err(CredError::Replayed));
        // forgotten once its time has passed
        assert_eq!(b.check_and_insert(&n, 2000, 1001), Ok(()));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), (SLOTS + PROBES) * SLOT);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_full_neighbourhood_fails_closed_and_frees_as_nonces_expire() {
        let c = ReplayCache::in_memory();
        for i in 1..=PROBES {
            assert_eq!(c.check_and_insert(&nonce(i, 5), 100, 50), Ok(()));
        }
        assert_eq!(c.check_and_insert(&nonce(999, 5), 100, 50), Err(CredError::CacheFull));
        // the same neighbourhood starting one slot later still sees them
        assert_eq!(c.check_and_insert(&nonce(3, 5), 100, 60), Err(CredError::Replayed));
        assert_eq!(c.check_and_insert(&nonce(999, 5), 200, 101), Ok(()));
        // the last slot of the table has its neighbourhood too
        assert_eq!(c.check_and_insert(&nonce(1, SLOTS - 1), 100, 50), Ok(()));
        assert_eq!(c.check_and_insert(&nonce(1, SLOTS - 1), 100, 50), Err(CredError::Replayed));
    }
}
