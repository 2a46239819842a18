//! Versioned persistent formats: the one envelope around every record Spur
//! keeps on disk or passes between its own programs (Raft log entries,
//! snapshots, `raft.meta`, Raft messages, the model records inside wire
//! payloads, spool files), and the rules that let a record type evolve.
//!
//! # The envelope
//!
//! ```text
//! [0xC1 'S' 'P' 'U'] [kind: u8] [version: u16 LE] [body: MessagePack]
//! ```
//!
//! - The magic starts with `0xC1`, a byte MessagePack never uses, and cannot
//!   begin any record the unversioned code wrote (format version 0, bincode 1:
//!   every such record starts with an `Option` tag 0/1, or with a Raft term
//!   whose low 32 bits would have to be 0x555053C1): whether a record is
//!   enveloped is decided by its first four bytes ([`is_enveloped`]).
//! - `kind` says what the record is ([`Kind`]); reading a record as another
//!   kind is an error naming both (a misplaced file).
//! - `version` is the format version the body was written at.
//! - The body is MessagePack through `rmp-serde` in its compact form: a struct
//!   is an array of its fields in declaration order (no names), an enum
//!   variant is written by its name. It is read whole: trailing bytes are an
//!   error.
//!
//! # Versions
//!
//! - [`FORMAT_VERSION`]: the newest version this build writes and reads.
//! - [`MIN_VERSION`]: the oldest version it writes, and the oldest enveloped
//!   version it reads. Version 0 (`LEGACY`) is the unversioned bincode of
//!   the code before this module; it is read only where a module says so
//!   (`spur_state::legacy_v0`), never written.
//! - A record of a version above [`FORMAT_VERSION`] is refused with an error
//!   naming the file or peer and both versions ([`FormatError::TooNew`]).
//!
//! Which version a program writes at is not its own choice: a controller
//! writes at the cluster's active format version (replicated, raised by a
//! committed command once every member reads the newer one), so that older
//! members of a cluster being upgraded keep reading everything. Encoding at
//! version `v` ([`encode`], [`encode_at`]) sets a thread-local that fields
//! newer than `v` consult to leave themselves out ([`skip_before`]).
//!
//! # Rules for changing a persisted type
//!
//! Measured with rmp-serde 1.3 in compact form: a struct that gained trailing
//! fields marked `#[serde(default)]` reads records written before they existed
//! (new reads old); a record with more trailing fields than the struct fails
//! to read (`LengthMismatch`); enum variants are matched by name.
//!
//! 1. A new field goes at the **end** of its struct (or struct variant), never
//!    between existing fields.
//! 2. It carries `#[serde(default, skip_serializing_if = "spur_format::skip_before::<N, _>")]`
//!    where `N` is the format version that introduces it, so that a record
//!    written at an older version has exactly the older layout. Bump
//!    [`FORMAT_VERSION`] to `N` in the same change (one bump per release,
//!    however many fields it adds).
//! 3. Never `skip_serializing_if` on any other condition (an `Option` left out
//!    when `None` shifts every later field), never `#[serde(flatten)]` or
//!    untagged enums in a persisted type.
//! 4. Enum variants may be added anywhere (they go by name) but a variant
//!    added in version `N` is written only once the active version is `N` or
//!    more (check before committing it); renaming a variant or a field's type
//!    is a new version whose reader keeps a frozen copy of the old type and
//!    converts, as `spur_state::legacy_v0` does for version 0.
//! 5. Removing a field: keep it (ignored, defaulted) until no supported
//!    version writes it.
//! 6. Every release that bumps the version commits fixtures written at it
//!    (`crates/spur-state/tests/fixtures/vN`) and a test that reads them, and
//!    keeps the tests of every older version it still reads.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::Cell;
use std::fmt;

/// A format version.
pub type Version = u16;

/// The newest format version this build writes and reads.
///
/// History (what each version changed; a build writes every version from
/// [`MIN_VERSION`] on, each with its own layout):
/// - 1: the envelope and MessagePack bodies (the first release with them).
/// - 2: `JobDesc.accepted` (the options kept but not acted on) is optional:
///   nil for a job that asked for none, where version 1 writes all 48 fields.
/// - 3: a state (a snapshot) writes the script and environment of an array
///   once, in its first record (in id order): the array's later records are
///   written with both empty and share the first's when read
///   (`spur_state::State`); a job update (`spur_state::JobUpdate`) carries
///   `array_throttle` (`scontrol update ArrayTaskThrottle=`) and the job
///   keys after it (`AdminComment=`, `Extra=`, `MinCPUsNode=`, `CPUsPerTask=`,
///   `NumCPUs=`, `TasksPerNode=`, `MinTmpDiskNode=`, `ReqSockets/Cores/Threads=`,
///   `Prefer=`, `ReservationName=`, `WCKey=`, `Deadline=`, `Contiguous=`,
///   `OverSubscribe=`, `MailType/MailUser=`, `Switches=`, `Reboot=`,
///   `DelayBoot=`, an operator's priority resetting nice); a job
///   (`spur_core::model::Job`) ends with `admin_comment` and
///   `submitted_cpus_per_task`; a partition (`spur_core::model::Partition`)
///   carries `more` (RootOnly, GraceTime, the memory and CPU limits and the
///   other `PartitionName=` keys) and a partition update
///   (`spur_state::PartUpdate`) `settings`; a node (`spur_core::model::Node`)
///   carries `comment`, `extra`, `cpu_bind`, `gres_text`, `resume_after` and
///   the flag `fail`, a node update (`spur_state::NodeUpdate`) `fail_flag`,
///   `comment`, `extra`, `cpu_bind`, `gres_text`, `resume_after`, `addr`,
///   `hostname` (`scontrol update NodeName=`); a reservation
///   (`spur_core::model::Reservation`) `accounts`, `groups`, `features`,
///   `max_start_delay`, `core_based`; the command `CancelPendingTasks` is
///   written (a cancel of an array's pending tasks takes them out of its
///   record), and `SplitPendingTask` (an update, hold or release of some of
///   them splits each off first); every other record is as in version 2.
///
/// - 4: a job (`spur_core::model::Job`) ends with its running `steps` and
///   `next_step_id`; the commands `StepCreate` and `StepComplete` are
///   written (`srun`'s steps); every other record is as in version 3.
/// - 5: a step (`spur_core::model::Step`) ends with `usage` (what its tasks
///   used, per node), `request_id`, `end_time` and `exit_status`, a job with
///   `done_steps` (its ended steps, kept for accounting) and `batch_usage`
///   (its batch script's use); the command `Start` ends with
///   `extern_step` (`PrologFlags=Contain`'s `extern` step) and a step
///   request (`spur_core::request::StepRequest`) with `interactive`
///   (salloc's `interactive` step) and `request_id`; the command `StepUsage`
///   is written, and `StepComplete` ends with `exit_status` and `now` and
///   keeps the step in `done_steps`; the launch specs
///   (`spur_core::launch::{LaunchSpec, StepLaunch}`) end with
///   `mem_check_secs` (`OverMemoryKill`); a
///   `StepCreate` whose distribution is `arbitrary` (`SLURM_HOSTFILE`,
///   `srun -m arbitrary`) lays its tasks out in its node list's order
///   (`spur_state::ARBITRARY_VERSION`), where a cluster at version 4 lays
///   it out by block; every other record is as in version 4.
/// - 6: a step request (`spur_core::request::StepRequest`) ends with
///   `resv_port_range` (slurm.conf's `MpiParams=ports=`, set by the leader)
///   and a step (`spur_core::model::Step`) with `resv_ports`, the ports
///   reserved for it (`SLURM_STEP_RESV_PORTS`); every other record is as in
///   version 5.
/// - 7: a job (`spur_core::model::Job`) ends with `cancelled_by` and a job
///   description (`spur_core::model::JobDesc`) with `submit_line` (sacct's
///   `CANCELLED by UID` and `SubmitLine`); the command `Kill` ends with
///   `uid`, who asked; the accounting records (`spur_core::acct`, kinds
///   `ACCT_JOB` and `ACCT_QUERY`) are new; every other record is as in
///   version 6.
/// - 8: a job ends with `sched_backfill` and the command `Start` with
///   `backfill` (the backfill scheduler started it: `Scheduler=Backfill`
///   after a failover, sacct's `SchedBackfill`); every other record is as
///   in version 7.
/// - 9: a job ends with `preempt_suspended` and the command `Suspend` with
///   `preempted` (`PreemptMode=SUSPEND`: the scheduler suspended it and
///   resumes it once its resources are free; an operator's suspension
///   stays); every other record is as in version 8.
/// - 10: the command `UpdateJob`'s update (`spur_state::JobUpdate`) ends
///   with `by_operator`: an operator's `Priority=` stays (slurmctld's
///   `direct_set_prio`) until the job is released; every other record is as
///   in version 9.
/// - 11: the state (`spur_state::State`) ends with `qos`, the QOS records
///   (`spur_core::qos::Qos`: `sacctmgr add|modify|delete qos`), and the
///   commands `QosCreate`, `QosUpdate` and `QosDelete` are new, as is the
///   view's `qos` (`spur_core::model::ClusterView`); the command
///   `UpdateJob`'s update ends with `qos` (`scontrol update QOS=`); every
///   other record is as in version 10.
/// - 12: the state ends with `assocs`, the accounts, users and user
///   associations with the usage each has run up (`spur_core::assoc`:
///   `sacctmgr add|modify|delete account|user`, `sshare`, the fair-share
///   factor), and the commands `AssocPut` and `AssocDelete` are new, as is
///   the view's `assocs`; a job that stops running (`Complete`, `Requeue`)
///   charges its association its usage; every other record is as in
///   version 11.
/// - 13: an account and a user association (`spur_core::assoc::Account`,
///   `Link`) end with `limits` (`spur_core::assoc_limits::Limits`:
///   `sacctmgr ... set MaxJobs= GrpTRES= Priority=`); every other record is
///   as in version 12.
pub const FORMAT_VERSION: Version = 13;
/// The oldest format version this build writes, and the oldest enveloped one
/// it reads.
pub const MIN_VERSION: Version = 1;
/// The unversioned bincode of the first releases (read by `legacy_v0` modules only).
pub const LEGACY: Version = 0;

/// The four bytes that open every enveloped record.
pub const MAGIC: [u8; 4] = [0xC1, b'S', b'P', b'U'];
/// Magic, kind, version.
pub const HEADER_LEN: usize = 7;

/// What an enveloped record holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub tag: u8,
    pub name: &'static str,
}

impl Kind {
    /// One Raft log entry (`raft.log` record body).
    pub const LOG_ENTRY: Kind = Kind { tag: b'L', name: "raft log entry" };
    /// `raft.meta`: the vote and the last purged log id.
    pub const RAFT_META: Kind = Kind { tag: b'M', name: "raft meta" };
    /// `raft.committed`: the commit index hint.
    pub const RAFT_COMMITTED: Kind = Kind { tag: b'C', name: "raft committed" };
    /// The snapshot's metadata (`raft.snapshot` body; the state follows it).
    pub const SNAPSHOT_META: Kind = Kind { tag: b'S', name: "snapshot meta" };
    /// The replicated state (snapshot data, on disk and in InstallSnapshot).
    pub const STATE: Kind = Kind { tag: b'T', name: "state" };
    /// A Raft RPC between controllers, or its reply.
    pub const RAFT_MESSAGE: Kind = Kind { tag: b'R', name: "raft message" };
    /// A job description (`SubmitRequest.job_desc`).
    pub const JOB_DESC: Kind = Kind { tag: b'J', name: "job description" };
    /// A cluster view (`QueryReply.view`).
    pub const VIEW: Kind = Kind { tag: b'V', name: "cluster view" };
    /// A launch spec (`LaunchRequest.spec`, the spool's `spec.bin`).
    pub const LAUNCH: Kind = Kind { tag: b'X', name: "launch spec" };
    /// A step request or step record between srun and the controller (from version 4).
    pub const STEP: Kind = Kind { tag: b'P', name: "step" };
    /// A step launch (`LaunchStepRequest.spec`, a step's spool `spec.bin`; from version 4).
    pub const STEP_LAUNCH: Kind = Kind { tag: b'Q', name: "step launch" };
    /// An accounting record (`spur_core::acct::AcctJob`), in the store or a
    /// list of them in an `Accounting` reply. Since format version 7.
    pub const ACCT_JOB: Kind = Kind { tag: b'A', name: "accounting record" };
    /// An accounting query (`spur_core::acct::AcctQuery`). Since format version 7.
    pub const ACCT_QUERY: Kind = Kind { tag: b'a', name: "accounting query" };
    /// A record kind for tests.
    pub const TEST: Kind = Kind { tag: b'Z', name: "test record" };

    const ALL: [Kind; 14] = [
        Kind::LOG_ENTRY,
        Kind::RAFT_META,
        Kind::RAFT_COMMITTED,
        Kind::SNAPSHOT_META,
        Kind::STATE,
        Kind::RAFT_MESSAGE,
        Kind::JOB_DESC,
        Kind::VIEW,
        Kind::LAUNCH,
        Kind::STEP,
        Kind::STEP_LAUNCH,
        Kind::ACCT_JOB,
        Kind::ACCT_QUERY,
        Kind::TEST,
    ];

    fn of(tag: u8) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.tag == tag)
    }
}

impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:?})", self.name, self.tag as char)
    }
}

/// Why a record could not be read or written. Every message names the
/// record's source (a file, a peer) as the caller gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// Written by a newer build: this one must be upgraded first.
    TooNew { source: String, kind: &'static str, version: Version },
    /// An enveloped version older than this build reads.
    TooOld { source: String, kind: &'static str, version: Version },
    /// Not enveloped (the caller does not read version 0 here).
    Unversioned { source: String, kind: &'static str },
    /// Another kind of record than expected.
    WrongKind { source: String, expected: &'static str, found: String },
    /// The body does not decode (or encode).
    Corrupt { source: String, kind: &'static str, version: Version, reason: String },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::TooNew { source, kind, version } => write!(
                f,
                "{}: {} is in format version {}, newer than this build of spur reads (versions {} to {}): upgrade spur",
                source, kind, version, MIN_VERSION, FORMAT_VERSION
            ),
            FormatError::TooOld { source, kind, version } => write!(
                f,
                "{}: {} is in format version {}, older than this build of spur reads (versions {} to {})",
                source, kind, version, MIN_VERSION, FORMAT_VERSION
            ),
            FormatError::Unversioned { source, kind } => {
                write!(f, "{}: {} has no format version header (not a record of spur {}+)", source, kind, MIN_VERSION)
            }
            FormatError::WrongKind { source, expected, found } => {
                write!(f, "{}: expected a {} record, found a {} record", source, expected, found)
            }
            FormatError::Corrupt { source, kind, version, reason } => {
                write!(f, "{}: corrupt {} (format version {}): {}", source, kind, version, reason)
            }
        }
    }
}

impl std::error::Error for FormatError {}

thread_local! {
    static WRITE_VERSION: Cell<Version> = const { Cell::new(FORMAT_VERSION) };
}

/// The version being written on this thread: inside [`encode`] or
/// [`encode_at`] the version asked for, elsewhere [`FORMAT_VERSION`].
pub fn write_version() -> Version {
    WRITE_VERSION.with(|v| v.get())
}

/// For `skip_serializing_if`: leave out a field introduced in version `V`
/// when writing an older version (see the rules in the module doc).
pub fn skip_before<const V: Version, T: ?Sized>(_: &T) -> bool {
    write_version() < V
}

/// Run `f` (which serialises) with the thread's write version set to `version`.
pub fn encode_at<R>(version: Version, f: impl FnOnce() -> R) -> R {
    struct Restore(Version);
    impl Drop for Restore {
        fn drop(&mut self) {
            WRITE_VERSION.with(|v| v.set(self.0));
        }
    }
    let _restore = Restore(WRITE_VERSION.with(|v| v.replace(version)));
    f()
}

/// The version to write a reply (or any record) at for a peer that reads up
/// to `peer_max` (0: a peer that did not say, or one before versioned
/// formats): the newest both read, never below [`MIN_VERSION`].
pub fn version_for(peer_max: u32) -> Version {
    (peer_max.min(FORMAT_VERSION as u32) as Version).max(MIN_VERSION)
}

/// Whether `bytes` starts with the envelope's magic.
pub fn is_enveloped(bytes: &[u8]) -> bool {
    bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] == MAGIC
}

/// The kind tag and version of an enveloped record (`None` when not enveloped
/// or shorter than a header).
pub fn peek(bytes: &[u8]) -> Option<(u8, Version)> {
    if !is_enveloped(bytes) || bytes.len() < HEADER_LEN {
        return None;
    }
    Some((bytes[4], u16::from_le_bytes([bytes[5], bytes[6]])))
}

/// Append the envelope of `value` written at `version` to `out`.
/// `version` must be one this build writes ([`MIN_VERSION`]..=[`FORMAT_VERSION`]).
pub fn encode_into<T: Serialize + ?Sized>(
    kind: Kind,
    version: Version,
    value: &T,
    out: &mut Vec<u8>,
) -> Result<(), FormatError> {
    if !(MIN_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(FormatError::Corrupt {
            source: "encoding".into(),
            kind: kind.name,
            version,
            reason: format!("this build writes versions {} to {}", MIN_VERSION, FORMAT_VERSION),
        });
    }
    encode_unchecked(kind, version, value, out)
}

fn encode_unchecked<T: Serialize + ?Sized>(
    kind: Kind,
    version: Version,
    value: &T,
    out: &mut Vec<u8>,
) -> Result<(), FormatError> {
    out.extend_from_slice(&MAGIC);
    out.push(kind.tag);
    out.extend_from_slice(&version.to_le_bytes());
    encode_at(version, || rmp_serde::encode::write(out, value)).map_err(|e| FormatError::Corrupt {
        source: "encoding".into(),
        kind: kind.name,
        version,
        reason: e.to_string(),
    })
}

/// The envelope of `value` written at `version`.
pub fn encode<T: Serialize + ?Sized>(kind: Kind, version: Version, value: &T) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::new();
    encode_into(kind, version, value, &mut out)?;
    Ok(out)
}

/// Check an envelope's header: its kind and a version this build reads.
/// Returns the version and the body.
pub fn open<'a>(kind: Kind, bytes: &'a [u8], source: &dyn fmt::Display) -> Result<(Version, &'a [u8]), FormatError> {
    let Some((tag, version)) = peek(bytes) else {
        return Err(FormatError::Unversioned { source: source.to_string(), kind: kind.name });
    };
    if tag != kind.tag {
        let found = Kind::of(tag).map(|k| k.name.to_string()).unwrap_or_else(|| format!("unknown ({:#04x})", tag));
        return Err(FormatError::WrongKind { source: source.to_string(), expected: kind.name, found });
    }
    if version > FORMAT_VERSION {
        return Err(FormatError::TooNew { source: source.to_string(), kind: kind.name, version });
    }
    if version < MIN_VERSION {
        return Err(FormatError::TooOld { source: source.to_string(), kind: kind.name, version });
    }
    Ok((version, &bytes[HEADER_LEN..]))
}

/// Read an enveloped record whole: the value and the version it was written at.
pub fn decode<T: DeserializeOwned>(
    kind: Kind,
    bytes: &[u8],
    source: &dyn fmt::Display,
) -> Result<(T, Version), FormatError> {
    let (version, body) = open(kind, bytes, source)?;
    let corrupt =
        |reason: String| FormatError::Corrupt { source: source.to_string(), kind: kind.name, version, reason };
    // read in place (strings are copied once, straight from the slice)
    let mut de = rmp_serde::Deserializer::from_read_ref(body);
    let value = T::deserialize(&mut de).map_err(|e| corrupt(e.to_string()))?;
    // nothing may follow the record: reading one more value must meet the
    // end of the bytes before its first byte
    match <serde::de::IgnoredAny as serde::Deserialize>::deserialize(&mut de) {
        Err(rmp_serde::decode::Error::InvalidMarkerRead(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            Ok((value, version))
        }
        _ => {
            // (the slow path measures how much is left)
            let used = decode_prefix::<serde::de::IgnoredAny>(kind, bytes, source).map(|(_, used)| used)?;
            Err(corrupt(format!("{} bytes after the record", bytes.len() - used)))
        }
    }
}

/// Read an enveloped record at the start of `bytes`; also returns how many
/// bytes it took (for a record followed by raw data).
pub fn decode_prefix<T: DeserializeOwned>(
    kind: Kind,
    bytes: &[u8],
    source: &dyn fmt::Display,
) -> Result<((T, Version), usize), FormatError> {
    let (version, body) = open(kind, bytes, source)?;
    let mut de = rmp_serde::Deserializer::new(std::io::Cursor::new(body));
    let value = T::deserialize(&mut de).map_err(|e| FormatError::Corrupt {
        source: source.to_string(),
        kind: kind.name,
        version,
        reason: e.to_string(),
    })?;
    let used = HEADER_LEN + de.position() as usize;
    Ok(((value, version), used))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    /// A record as version 1 defined it.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct JobV1 {
        id: u32,
        name: String,
        state: State,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
    enum State {
        Pending,
        Done,
    }

    /// The same record in version 2: a field and a variant appended.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct JobV2 {
        id: u32,
        name: String,
        state: State2,
        #[serde(default, skip_serializing_if = "skip_before::<2, _>")]
        tags: Vec<String>,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
    enum State2 {
        Held,
        Pending,
        Done,
    }

    /// Encoding at a version this build may not write yet (for the v2 side).
    fn enc<T: Serialize>(v: Version, x: &T) -> Vec<u8> {
        let mut out = vec![];
        encode_unchecked(Kind::TEST, v, x, &mut out).unwrap();
        out
    }

    fn body<T: DeserializeOwned>(b: &[u8]) -> Result<T, rmp_serde::decode::Error> {
        rmp_serde::from_slice(&b[HEADER_LEN..])
    }

    #[test]
    fn a_field_newer_than_the_written_version_is_left_out() {
        let new = JobV2 { id: 7, name: "a".into(), state: State2::Done, tags: vec!["x".into()] };
        let old = JobV1 { id: 7, name: "a".into(), state: State::Done };
        // written at 1, the v2 record is byte for byte the v1 record
        let at1 = enc(1, &new);
        assert_eq!(at1, encode(Kind::TEST, 1, &old).unwrap());
        assert_eq!(body::<JobV1>(&at1).unwrap(), old);
        // written at 2 it has the field, which v1 code cannot read
        let at2 = enc(2, &new);
        assert_eq!(body::<JobV2>(&at2).unwrap(), new);
        let e = body::<JobV1>(&at2).unwrap_err();
        assert!(e.to_string().contains("length"), "{}", e);
        // outside encoding the thread writes everything
        assert_eq!(write_version(), FORMAT_VERSION);
    }

    #[test]
    fn new_code_reads_old_records_and_variants_go_by_name() {
        let old = JobV1 { id: 3, name: "b".into(), state: State::Pending };
        let (new, v): (JobV2, Version) = decode(Kind::TEST, &encode(Kind::TEST, 1, &old).unwrap(), &"f").unwrap();
        assert_eq!(v, 1);
        // the appended field takes its default; Pending is found by name although
        // v2 put Held before it
        assert_eq!(new, JobV2 { id: 3, name: "b".into(), state: State2::Pending, tags: vec![] });
        // a variant old code does not know is an error, not another variant
        let held = JobV2 { id: 3, name: "b".into(), state: State2::Held, tags: vec![] };
        assert!(body::<JobV1>(&enc(1, &held)).is_err());
    }

    #[test]
    fn an_unknown_version_names_the_source_and_both_versions() {
        let b = enc(FORMAT_VERSION + 1, &JobV1 { id: 1, name: String::new(), state: State::Done });
        let e = decode::<JobV1>(Kind::TEST, &b, &"/var/spool/spur/raft.log").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "/var/spool/spur/raft.log: test record is in format version {}, newer than this build of spur reads (versions {} to {}): upgrade spur",
                FORMAT_VERSION + 1,
                MIN_VERSION,
                FORMAT_VERSION
            )
        );
        // and this build refuses to write it
        assert!(encode(Kind::TEST, FORMAT_VERSION + 1, &1u8).is_err());
    }

    #[test]
    fn kind_header_and_trailing_bytes_are_checked() {
        let b = encode(Kind::STATE, 1, &5u32).unwrap();
        assert_eq!(&b[..7], &[0xC1, b'S', b'P', b'U', b'T', 1, 0]);
        let e = decode::<u32>(Kind::LOG_ENTRY, &b, &"x").unwrap_err();
        assert_eq!(e.to_string(), "x: expected a raft log entry record, found a state record");
        let mut longer = b.clone();
        longer.push(0);
        assert!(decode::<u32>(Kind::STATE, &longer, &"x")
            .unwrap_err()
            .to_string()
            .contains("1 bytes after the record"));
        let ((v, _), used) = decode_prefix::<u32>(Kind::STATE, &longer, &"x").unwrap();
        assert_eq!((v, used), (5, b.len()));
        // bincode of the unversioned code is not mistaken for a record
        assert!(!is_enveloped(&[1, 0, 0, 0, 0, 0, 0, 0]));
        assert!(matches!(decode::<u32>(Kind::STATE, &[0, 1, 2], &"x"), Err(FormatError::Unversioned { .. })));
        let mut old = b.clone();
        old[5] = 0;
        assert!(decode::<u32>(Kind::STATE, &old, &"x").unwrap_err().to_string().contains("older than this build"));
    }

    #[test]
    fn encode_at_nests_and_restores() {
        encode_at(1, || {
            assert_eq!(write_version(), 1);
            encode_at(2, || assert!(!skip_before::<2, _>(&())));
            assert!(skip_before::<2, _>(&()));
        });
        assert_eq!(write_version(), FORMAT_VERSION);
    }
}
