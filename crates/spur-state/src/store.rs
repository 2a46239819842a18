//! Durable storage for the state machine under StateSaveLocation:
//!
//! - `spur.log`: append-only records `[len: u32 LE][crc32: u32 LE][bincode Command]`,
//!   fdatasync'ed before the change is acknowledged.
//! - `spur.snapshot`: `[magic "SPURSNP1"][len: u64 LE][crc32: u32 LE][bincode State]`,
//!   written to a temporary file, synced and renamed; the log is then truncated.
//!
//! A record with a bad checksum in the middle of the log is an error (never a
//! silent loss). A torn record at the very end — a crash in the middle of an
//! append that was never acknowledged — is cut off, and reported.

use crate::{Command, State};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const SNAP_MAGIC: &[u8; 8] = b"SPURSNP1";

pub struct Store {
    dir: PathBuf,
    log: BufWriter<File>,
    /// Records in the log since the last snapshot.
    pub records: u64,
    /// Bytes in the log.
    pub bytes: u64,
}

#[derive(Debug)]
pub enum StoreError {
    Io(PathBuf, io::Error),
    Corrupt(PathBuf, String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Io(p, e) => write!(f, "{}: {}", p.display(), e),
            StoreError::Corrupt(p, e) => write!(f, "{}: corrupt state file: {}", p.display(), e),
        }
    }
}
impl std::error::Error for StoreError {}

/// What was found on disk when opening.
pub struct Recovered {
    pub state: Option<State>,
    /// Logged commands with their index; skip those at or below `state.applied`.
    pub commands: Vec<(u64, Command)>,
    /// Set when a torn tail record was dropped.
    pub truncated_tail: Option<String>,
}

impl Store {
    /// Open (creating if needed) the store in `dir` and read back what it holds.
    pub fn open(dir: &Path) -> Result<(Store, Recovered), StoreError> {
        fs::create_dir_all(dir).map_err(|e| StoreError::Io(dir.to_path_buf(), e))?;
        let snap_path = dir.join("spur.snapshot");
        let state = if snap_path.exists() { Some(read_snapshot(&snap_path)?) } else { None };
        let log_path = dir.join("spur.log");
        let (commands, good_len, torn) = if log_path.exists() { read_log(&log_path)? } else { (vec![], 0, None) };
        let f = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(&log_path)
            .map_err(|e| StoreError::Io(log_path.clone(), e))?;
        if torn.is_some() {
            f.set_len(good_len).map_err(|e| StoreError::Io(log_path.clone(), e))?;
            f.sync_all().map_err(|e| StoreError::Io(log_path.clone(), e))?;
        }
        let mut f = f;
        use std::io::Seek;
        f.seek(io::SeekFrom::End(0)).map_err(|e| StoreError::Io(log_path.clone(), e))?;
        let n = commands.len() as u64;
        Ok((
            Store { dir: dir.to_path_buf(), log: BufWriter::with_capacity(1 << 16, f), records: n, bytes: good_len },
            Recovered { state, commands, truncated_tail: torn },
        ))
    }

    /// Append one command to the log buffer (not yet durable: call [`Store::sync`]).
    pub fn append(&mut self, index: u64, cmd: &Command) -> io::Result<()> {
        let body = bincode::serialize(&(index, cmd)).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let mut h = crc32fast::Hasher::new();
        h.update(&body);
        self.log.write_all(&(body.len() as u32).to_le_bytes())?;
        self.log.write_all(&h.finalize().to_le_bytes())?;
        self.log.write_all(&body)?;
        self.records += 1;
        self.bytes += 8 + body.len() as u64;
        Ok(())
    }

    /// Make everything appended so far durable.
    pub fn sync(&mut self) -> io::Result<()> {
        self.log.flush()?;
        self.log.get_ref().sync_data()
    }

    /// Write a snapshot of `state` and empty the log.
    pub fn snapshot(&mut self, state: &State) -> io::Result<()> {
        let body = bincode::serialize(state).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let tmp = self.dir.join("spur.snapshot.tmp");
        {
            let mut f = File::create(&tmp)?;
            let mut h = crc32fast::Hasher::new();
            h.update(&body);
            f.write_all(SNAP_MAGIC)?;
            f.write_all(&(body.len() as u64).to_le_bytes())?;
            f.write_all(&h.finalize().to_le_bytes())?;
            f.write_all(&body)?;
            f.sync_all()?;
        }
        fs::rename(&tmp, self.dir.join("spur.snapshot"))?;
        File::open(&self.dir)?.sync_all()?;
        self.log.flush()?;
        self.log.get_ref().set_len(0)?;
        use std::io::Seek;
        self.log.get_mut().seek(io::SeekFrom::Start(0))?;
        self.log.get_ref().sync_all()?;
        self.records = 0;
        self.bytes = 0;
        Ok(())
    }
}

fn read_snapshot(path: &Path) -> Result<State, StoreError> {
    let mut buf = vec![];
    File::open(path).and_then(|mut f| f.read_to_end(&mut buf)).map_err(|e| StoreError::Io(path.into(), e))?;
    let corrupt = |m: &str| StoreError::Corrupt(path.into(), m.to_string());
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
    let mut st: State = bincode::deserialize(&buf[20..]).map_err(|e| corrupt(&e.to_string()))?;
    st.reindex();
    Ok(st)
}

fn read_log(path: &Path) -> Result<(Vec<(u64, Command)>, u64, Option<String>), StoreError> {
    let mut buf = vec![];
    File::open(path).and_then(|mut f| f.read_to_end(&mut buf)).map_err(|e| StoreError::Io(path.into(), e))?;
    let mut pos = 0usize;
    let mut out = vec![];
    while pos < buf.len() {
        let rest = buf.len() - pos;
        if rest < 8 {
            return Ok((out, pos as u64, Some(format!("{} stray bytes at offset {}", rest, pos))));
        }
        let len = u32::from_le_bytes(buf[pos..pos + 4].try_into().unwrap()) as usize;
        let crc = u32::from_le_bytes(buf[pos + 4..pos + 8].try_into().unwrap());
        if rest < 8 + len {
            return Ok((out, pos as u64, Some(format!("incomplete record at offset {}", pos))));
        }
        let body = &buf[pos + 8..pos + 8 + len];
        if crc32fast::hash(body) != crc {
            if pos + 8 + len == buf.len() {
                return Ok((out, pos as u64, Some(format!("torn last record at offset {}", pos))));
            }
            return Err(StoreError::Corrupt(path.into(), format!("checksum mismatch in record at offset {}", pos)));
        }
        let cmd: (u64, Command) = bincode::deserialize(body)
            .map_err(|e| StoreError::Corrupt(path.into(), format!("record at offset {}: {}", pos, e)))?;
        out.push(cmd);
        pos += 8 + len;
    }
    Ok((out, pos as u64, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("spur-store-{}-{}", tag, std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn purge(n: u32) -> Command {
        Command::Purge { job_ids: vec![n] }
    }

    #[test]
    fn log_roundtrip_and_snapshot() {
        let d = tmpdir("rt");
        {
            let (mut s, rec) = Store::open(&d).unwrap();
            assert!(rec.state.is_none() && rec.commands.is_empty());
            for i in 0..10 {
                s.append(i as u64 + 1, &purge(i)).unwrap();
            }
            s.sync().unwrap();
        }
        let (mut s, rec) = Store::open(&d).unwrap();
        assert_eq!(rec.commands.len(), 10);
        let st = State::new("c".into(), vec![], vec![], 5, 1000);
        s.snapshot(&st).unwrap();
        s.append(11, &purge(99)).unwrap();
        s.sync().unwrap();
        drop(s);
        let (_s, rec) = Store::open(&d).unwrap();
        assert_eq!(rec.state.unwrap().next_job_id, 5);
        assert_eq!(rec.commands.len(), 1);
    }

    #[test]
    fn torn_tail_is_cut_and_reported_but_middle_corruption_is_an_error() {
        let d = tmpdir("torn");
        {
            let (mut s, _) = Store::open(&d).unwrap();
            for i in 0..3 {
                s.append(i as u64 + 1, &purge(i)).unwrap();
            }
            s.sync().unwrap();
        }
        let p = d.join("spur.log");
        let mut b = fs::read(&p).unwrap();
        let full = b.len();
        b.truncate(full - 2);
        fs::write(&p, &b).unwrap();
        let (_s, rec) = Store::open(&d).unwrap();
        assert_eq!(rec.commands.len(), 2);
        assert!(rec.truncated_tail.is_some());
        // corrupt the first record's body
        let mut b = fs::read(&p).unwrap();
        b[9] ^= 0xff;
        fs::write(&p, &b).unwrap();
        match Store::open(&d) {
            Err(StoreError::Corrupt(_, m)) => assert!(m.contains("checksum")),
            _ => panic!("corruption not detected"),
        }
    }

    #[test]
    fn corrupt_snapshot_is_an_error() {
        let d = tmpdir("snap");
        {
            let (mut s, _) = Store::open(&d).unwrap();
            s.snapshot(&State::new("c".into(), vec![], vec![], 1, 10)).unwrap();
        }
        let p = d.join("spur.snapshot");
        let mut b = fs::read(&p).unwrap();
        let n = b.len();
        b[n - 1] ^= 1;
        fs::write(&p, &b).unwrap();
        assert!(Store::open(&d).is_err());
        let _ = JobState::Pending;
    }
}
