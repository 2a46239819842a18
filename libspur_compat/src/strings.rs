//! The text helpers libslurm exports and consumers import although slurm.h
//! does not declare them (Perl's `Slurm.so`, pyslurm): state names and
//! numbers, the time formats and parsers of src/common/parse_time.c, and
//! the environment arrays of src/common/env.c. Signatures are those of
//! Slurm's src/common headers (the same in 22.05 and 24.11).
//!
//! Numbers are slurm.h's (`crate::sys`'s enumerators, and the `SLURM_BIT`
//! flags below, which bindgen does not turn into constants); the job state
//! names are spur-core's [`JobState`] names (the ones squeue prints), the
//! time texts spur-grammar's and spur-cli-base's (the ones the commands
//! print). Returned names are static text the caller must not free, as
//! Slurm's are.
//!
//! The submodules hold the rest of the family: job reasons (`reasons`),
//! flag words (`flags`), name and step lists (`charlist`) and slurmdb's
//! text helpers (`slurmdb`).

pub mod charlist;
pub mod flags;
pub mod reasons;
pub mod slurmdb;

use crate::guard;
use crate::sys;
use spur_core::model::JobState;
use std::ffi::{c_char, c_int, CStr, CString};
use std::ptr::null_mut;
use std::sync::OnceLock;

// slurm.h's SLURM_BIT(n) flags (bindgen leaves function-like macros out)
const fn bit(n: u32) -> u32 {
    1 << n
}
const JOB_REQUEUE: u32 = bit(10);
const JOB_REQUEUE_HOLD: u32 = bit(11);
const JOB_SPECIAL_EXIT: u32 = bit(12);
const JOB_RESIZING: u32 = bit(13);
const JOB_CONFIGURING: u32 = bit(14);
const JOB_COMPLETING: u32 = bit(15);
const JOB_STOPPED: u32 = bit(16);
const JOB_REVOKED: u32 = bit(19);
const JOB_REQUEUE_FED: u32 = bit(20);
const JOB_RESV_DEL_HOLD: u32 = bit(21);
const JOB_SIGNALING: u32 = bit(22);
const JOB_STAGE_OUT: u32 = bit(23);

const NODE_STATE_NET: u32 = bit(4); // 22.05 only
const NODE_STATE_RES: u32 = bit(5);
const NODE_STATE_UNDRAIN: u32 = bit(6);
const NODE_STATE_CLOUD: u32 = bit(7);
const NODE_RESUME: u32 = bit(8);
const NODE_STATE_DRAIN: u32 = bit(9);
const NODE_STATE_COMPLETING: u32 = bit(10);
const NODE_STATE_NO_RESPOND: u32 = bit(11);
const NODE_STATE_POWERED_DOWN: u32 = bit(12);
const NODE_STATE_FAIL: u32 = bit(13);
const NODE_STATE_POWERING_UP: u32 = bit(14);
const NODE_STATE_MAINT: u32 = bit(15);
const NODE_STATE_REBOOT_REQUESTED: u32 = bit(16);
const NODE_STATE_REBOOT_CANCEL: u32 = bit(17);
const NODE_STATE_POWERING_DOWN: u32 = bit(18);
const NODE_STATE_REBOOT_ISSUED: u32 = bit(20);
const NODE_STATE_PLANNED: u32 = bit(21);
const NODE_STATE_INVALID_REG: u32 = bit(22);
const NODE_STATE_POWER_DOWN: u32 = bit(23);
const NODE_STATE_POWER_UP: u32 = bit(24);
const NODE_STATE_BLOCKED: u32 = bit(27); // 24.11 only

const PREEMPT_MODE_OFF: u16 = 0;
const PREEMPT_MODE_SUSPEND: u16 = 1;
const PREEMPT_MODE_REQUEUE: u16 = 2;
const PREEMPT_MODE_CANCEL: u16 = 8;
const PREEMPT_MODE_WITHIN: u16 = 0x4000;
const PREEMPT_MODE_GANG: u16 = 0x8000;
const NO_VAL16: u16 = 0xfffe;
const NO_VAL: u32 = 0xffff_fffe;
const INFINITE: u32 = 0xffff_ffff;

/// A static C string for a name (made once per distinct text and kept for
/// the life of the process, so the pointer stays valid as Slurm's does).
fn cstatic(s: &str) -> *mut c_char {
    static TEXTS: OnceLock<std::sync::Mutex<std::collections::HashMap<String, &'static CStr>>> = OnceLock::new();
    let m = TEXTS.get_or_init(Default::default);
    let mut m = m.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = m.get(s) {
        return c.as_ptr().cast_mut();
    }
    let c: &'static CStr = Box::leak(CString::new(s).unwrap_or_default().into_boxed_c_str());
    m.insert(s.to_owned(), c);
    c.as_ptr().cast_mut()
}

/// Write text into a caller's buffer of `size` bytes as snprintf does.
///
/// # Safety
/// `buf` is NULL or points to `size` writable bytes.
unsafe fn put(buf: *mut c_char, size: c_int, text: &str) {
    let Ok(room) = usize::try_from(size) else { return };
    if buf.is_null() || room == 0 {
        return;
    }
    let n = text.len().min(room - 1);
    // SAFETY: n + 1 <= room bytes of the caller's buffer; our own source.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), n);
        buf.add(n).write(0);
    }
}

// ------------------------------------------------------------ job states

const JOB_BASES: [JobState; 12] = [
    JobState::Pending,
    JobState::Running,
    JobState::Suspended,
    JobState::Completed,
    JobState::Cancelled,
    JobState::Failed,
    JobState::Timeout,
    JobState::NodeFail,
    JobState::Preempted,
    JobState::BootFail,
    JobState::Deadline,
    JobState::OutOfMemory,
];

/// The flags job_state_string looks at before the base state, in its
/// order: flag, long name, compact name.
const JOB_FLAGS: [(u32, &str, &str); 12] = [
    (JOB_COMPLETING, "COMPLETING", "CG"),
    (JOB_STAGE_OUT, "STAGE_OUT", "SO"),
    (JOB_CONFIGURING, "CONFIGURING", "CF"),
    (JOB_RESIZING, "RESIZING", "RS"),
    (JOB_REQUEUE, "REQUEUED", "RQ"),
    (JOB_REQUEUE_FED, "REQUEUE_FED", "RF"),
    (JOB_REQUEUE_HOLD, "REQUEUE_HOLD", "RH"),
    (JOB_SPECIAL_EXIT, "SPECIAL_EXIT", "SE"),
    (JOB_STOPPED, "STOPPED", "ST"),
    (JOB_REVOKED, "REVOKED", "RV"),
    (JOB_RESV_DEL_HOLD, "RESV_DEL_HOLD", "RD"),
    (JOB_SIGNALING, "SIGNALING", "SI"),
];

fn job_state_name(inx: u32, compact: bool) -> &'static str {
    if let Some((_, long, short)) = JOB_FLAGS.iter().find(|(f, _, _)| inx & f != 0) {
        return if compact { short } else { long };
    }
    match JOB_BASES.get((inx & sys::JOB_STATE_BASE) as usize) {
        Some(s) if compact => s.short(),
        Some(s) => s.name(),
        None => "?",
    }
}

/// `char *slurm_job_state_string(uint32_t inx)`: a job state's name
/// (`RUNNING`; a flag's name when one is set, as `COMPLETING`; `?` for an
/// unknown base).
#[no_mangle]
pub extern "C" fn slurm_job_state_string(inx: u32) -> *mut c_char {
    guard(null_mut(), || cstatic(job_state_name(inx, false)))
}

/// `char *slurm_job_state_string_compact(uint32_t inx)`: as squeue's `%t`
/// (`R`, `PD`, `CG`).
#[no_mangle]
pub extern "C" fn slurm_job_state_string_compact(inx: u32) -> *mut c_char {
    guard(null_mut(), || cstatic(job_state_name(inx, true)))
}

/// `uint32_t slurm_job_state_num(const char *state_name)`: the number of a
/// state or flag named long or compact, in any case; NO_VAL otherwise.
///
/// # Safety
/// `state_name` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_state_num(state_name: *const c_char) -> u32 {
    guard(NO_VAL, || {
        // SAFETY: the contract above.
        let Some(name) = (unsafe { crate::text(state_name) }) else { return NO_VAL };
        let is = |n: u32| {
            name.eq_ignore_ascii_case(job_state_name(n, false)) || name.eq_ignore_ascii_case(job_state_name(n, true))
        };
        if let Some(i) = (0..sys::JOB_END).find(|&i| is(i)) {
            return i;
        }
        // the flags, in Slurm's order of trial
        [
            JOB_COMPLETING,
            JOB_CONFIGURING,
            JOB_RESIZING,
            JOB_RESV_DEL_HOLD,
            JOB_REQUEUE,
            JOB_REQUEUE_FED,
            JOB_REQUEUE_HOLD,
            JOB_REVOKED,
            JOB_SIGNALING,
            JOB_SPECIAL_EXIT,
            JOB_STAGE_OUT,
            JOB_STOPPED,
        ]
        .into_iter()
        .find(|&f| is(f))
        .unwrap_or(NO_VAL)
    })
}

/// `char *slurm_job_share_string(uint16_t shared)`: `NO`, `YES`, `USER`,
/// `MCS`, `TOPO`, else `OK`.
#[no_mangle]
pub extern "C" fn slurm_job_share_string(shared: u16) -> *mut c_char {
    let s = match u32::from(shared) {
        sys::JOB_SHARED_NONE => "NO",
        sys::JOB_SHARED_OK => "YES",
        sys::JOB_SHARED_USER => "USER",
        sys::JOB_SHARED_MCS => "MCS",
        4 => "TOPO", // JOB_SHARED_TOPO (24.11's header; 22.05's library knows it too)
        _ => "OK",
    };
    guard(null_mut(), || cstatic(s))
}

// ----------------------------------------------------------- node states

/// The mark a node state's name gets for its first flag in Slurm's order:
/// maintenance `$`, reboot issued `^`, reboot requested `@`, powering up
/// `#`, powering down `%`, powered down `~`, power down `!`, not
/// responding `*`.
fn node_mark(inx: u32) -> &'static str {
    [
        (NODE_STATE_MAINT, "$"),
        (NODE_STATE_REBOOT_ISSUED, "^"),
        (NODE_STATE_REBOOT_REQUESTED, "@"),
        (NODE_STATE_POWERING_UP, "#"),
        (NODE_STATE_POWERING_DOWN, "%"),
        (NODE_STATE_POWERED_DOWN, "~"),
        (NODE_STATE_POWER_DOWN, "!"),
        (NODE_STATE_NO_RESPOND, "*"),
    ]
    .into_iter()
    .find(|(f, _)| inx & f != 0)
    .map_or("", |(_, m)| m)
}

/// Node state names, long and compact.
struct NodeNames {
    compact: bool,
}

impl NodeNames {
    fn pick(&self, long: &'static str, short: &'static str) -> &'static str {
        if self.compact {
            short
        } else {
            long
        }
    }
}

fn node_state_name(inx: u32, compact: bool) -> String {
    let n = NodeNames { compact };
    let base = inx & sys::NODE_STATE_BASE;
    let has = |f: u32| inx & f != 0;
    let no_resp = has(NODE_STATE_NO_RESPOND);
    let busy = base == sys::NODE_STATE_ALLOCATED || base == sys::NODE_STATE_MIXED;
    if has(NODE_STATE_INVALID_REG) {
        return "INVAL".into();
    }
    if has(NODE_STATE_MAINT) && !(has(NODE_STATE_DRAIN) || busy || base == sys::NODE_STATE_DOWN) {
        return format!("MAINT{}", if no_resp { "*" } else { "" });
    }
    if (has(NODE_STATE_REBOOT_REQUESTED) || has(NODE_STATE_REBOOT_ISSUED)) && !busy {
        let mark = if has(NODE_STATE_REBOOT_ISSUED) {
            "^"
        } else if no_resp {
            "*"
        } else {
            ""
        };
        return format!("{}{}", n.pick("REBOOT", "BOOT"), mark);
    }
    let mark = node_mark(inx);
    if has(NODE_STATE_DRAIN) {
        let name =
            if has(NODE_STATE_COMPLETING) || busy { n.pick("DRAINING", "DRNG") } else { n.pick("DRAINED", "DRAIN") };
        return format!("{}{}", name, mark);
    }
    if has(NODE_STATE_FAIL) {
        let name = if has(NODE_STATE_COMPLETING) || base == sys::NODE_STATE_ALLOCATED {
            n.pick("FAILING", "FAILG")
        } else {
            "FAIL"
        };
        return format!("{}{}", name, if no_resp { "*" } else { "" });
    }
    let exact = [
        (NODE_STATE_REBOOT_ISSUED, "REBOOT_ISSUED", ""),
        (NODE_STATE_REBOOT_CANCEL, "CANCEL_REBOOT", ""),
        (NODE_STATE_CLOUD, "CLOUD", ""),
        (NODE_STATE_POWER_DOWN, "POWER_DOWN", ""),
        (NODE_STATE_POWER_UP, "POWER_UP", ""),
        (NODE_STATE_POWERING_DOWN, "POWERING_DOWN", ""),
        (NODE_STATE_POWERED_DOWN, "POWERED_DOWN", ""),
        (NODE_STATE_POWERING_UP, "POWERING_UP", ""),
    ];
    // (the compact names compare the base state only: no flag matches)
    if let Some((_, long, _)) = exact.iter().find(|(f, _, _)| inx == *f && !compact) {
        return (*long).into();
    }
    if inx == NODE_STATE_UNDRAIN && cfg!(not(feature = "slurm-22-05")) && !compact {
        return "UNDRAIN".into();
    }
    let comp = has(NODE_STATE_COMPLETING);
    match base {
        sys::NODE_STATE_DOWN => return format!("DOWN{}", mark),
        sys::NODE_STATE_ALLOCATED => {
            let mark = if mark.is_empty() && comp { "+" } else { mark };
            return format!("{}{}", n.pick("ALLOCATED", "ALLOC"), mark);
        }
        _ if comp => return format!("{}{}", n.pick("COMPLETING", "COMP"), mark),
        sys::NODE_STATE_IDLE => {
            if !mark.is_empty() {
                return format!("IDLE{}", mark);
            }
            if has(NODE_STATE_RES) {
                return n.pick("RESERVED", "RESV").into();
            }
            if cfg!(feature = "slurm-22-05") && has(NODE_STATE_NET) {
                return n.pick("PERFCTRS", "NPC").into();
            }
            if cfg!(not(feature = "slurm-22-05")) && has(NODE_STATE_BLOCKED) {
                return n.pick("BLOCKED", "BLOCK").into();
            }
            if has(NODE_STATE_PLANNED) {
                return n.pick("PLANNED", "PLND").into();
            }
            return "IDLE".into();
        }
        sys::NODE_STATE_MIXED => {
            let mark = if mark.is_empty() && has(NODE_STATE_PLANNED) { "-" } else { mark };
            return format!("{}{}", n.pick("MIXED", "MIX"), mark);
        }
        sys::NODE_STATE_FUTURE => return format!("{}{}", n.pick("FUTURE", "FUTR"), mark),
        _ => {}
    }
    if has(NODE_RESUME) {
        return n.pick("RESUME", "RESM").into();
    }
    if base == sys::NODE_STATE_UNKNOWN {
        return format!("{}{}", n.pick("UNKNOWN", "UNK"), if no_resp { "*" } else { "" });
    }
    "?".into()
}

/// `char *slurm_node_state_string(uint32_t inx)`: a node state's name as
/// scontrol and sinfo `%T` print it (`IDLE`, `DRAINING*`, `ALLOCATED+`).
#[no_mangle]
pub extern "C" fn slurm_node_state_string(inx: u32) -> *mut c_char {
    guard(null_mut(), || cstatic(&node_state_name(inx, false)))
}

/// `char *slurm_node_state_string_compact(uint32_t inx)`: as sinfo `%t`
/// (`idle` is `IDLE`, `ALLOC`, `DRNG*`, `MIX`).
#[no_mangle]
pub extern "C" fn slurm_node_state_string_compact(inx: u32) -> *mut c_char {
    guard(null_mut(), || cstatic(&node_state_name(inx, true)))
}

// ------------------------------------------------------------ preemption

/// `const char *slurm_preempt_mode_string(uint16_t preempt_mode)`: `OFF`,
/// `SUSPEND`, `REQUEUE`, `CANCEL`, `GANG`, `WITHIN`, `GANG,SUSPEND`...,
/// `UNKNOWN` for other values.
#[no_mangle]
pub extern "C" fn slurm_preempt_mode_string(preempt_mode: u16) -> *const c_char {
    let single = |m: u16| match m {
        PREEMPT_MODE_CANCEL => Some("CANCEL"),
        PREEMPT_MODE_REQUEUE => Some("REQUEUE"),
        PREEMPT_MODE_SUSPEND => Some("SUSPEND"),
        _ => None,
    };
    let s = match preempt_mode {
        PREEMPT_MODE_OFF => "OFF".to_string(),
        PREEMPT_MODE_GANG => "GANG".into(),
        PREEMPT_MODE_WITHIN => "WITHIN".into(),
        m if m & PREEMPT_MODE_GANG != 0 => format!("GANG,{}", single(m & !PREEMPT_MODE_GANG).unwrap_or("UNKNOWN")),
        m if m & PREEMPT_MODE_WITHIN != 0 => {
            format!("WITHIN,{}", single(m & !PREEMPT_MODE_WITHIN).unwrap_or("UNKNOWN"))
        }
        m => single(m).unwrap_or("UNKNOWN").into(),
    };
    guard(null_mut(), || cstatic(&s)).cast_const()
}

/// `uint16_t slurm_preempt_mode_num(const char *preempt_mode)`: the number
/// of a comma-separated mode (`suspend,gang`; `on` is SUSPEND, `cluster`
/// OFF; any case); NO_VAL16 for an unknown word, two modes, or GANG with
/// WITHIN. NULL: 0.
///
/// # Safety
/// `preempt_mode` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_preempt_mode_num(preempt_mode: *const c_char) -> u16 {
    guard(NO_VAL16, || {
        if preempt_mode.is_null() {
            return 0;
        }
        // SAFETY: not NULL, NUL-terminated (the contract above).
        let s = unsafe { CStr::from_ptr(preempt_mode) }.to_string_lossy();
        let (mut num, mut modes) = (0u16, 0);
        for tok in s.split(',').filter(|t| !t.is_empty()) {
            let t = tok.to_ascii_lowercase();
            match t.as_str() {
                "gang" => num |= PREEMPT_MODE_GANG,
                "within" => num |= PREEMPT_MODE_WITHIN,
                "off" | "cluster" => modes += 1,
                "cancel" => {
                    num = num.wrapping_add(PREEMPT_MODE_CANCEL);
                    modes += 1
                }
                "requeue" => {
                    num = num.wrapping_add(PREEMPT_MODE_REQUEUE);
                    modes += 1
                }
                "on" | "suspend" => {
                    num = num.wrapping_add(PREEMPT_MODE_SUSPEND);
                    modes += 1
                }
                _ => return NO_VAL16,
            }
        }
        if modes > 1 || (num & PREEMPT_MODE_GANG != 0 && num & PREEMPT_MODE_WITHIN != 0) {
            return NO_VAL16;
        }
        num
    })
}

/// `void slurm_private_data_string(uint16_t private_data, char *str, int
/// str_len)`: the PrivateData flags as scontrol shows them (`accounts,
/// events,jobs,nodes,partitions,reservations,usage,users`, or `none`);
/// `str` is left empty when `str_len` is below the 69 bytes the longest
/// text needs.
///
/// # Safety
/// `str` is NULL or points to `str_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_private_data_string(private_data: u16, str: *mut c_char, str_len: c_int) {
    guard((), || {
        // SAFETY: the contract above.
        unsafe { put(str, str_len, "") };
        if str_len < 69 {
            return;
        }
        let names = [
            (5, "accounts"),
            (8, "events"),
            (0, "jobs"),
            (1, "nodes"),
            (2, "partitions"),
            (6, "reservations"),
            (3, "usage"),
            (4, "users"),
        ];
        let on: Vec<&str> = names.iter().filter(|(b, _)| private_data & (1 << b) != 0).map(|(_, n)| *n).collect();
        let text = if on.is_empty() { "none".to_string() } else { on.join(",") };
        // SAFETY: the contract above.
        unsafe { put(str, str_len, &text) };
    })
}

// ------------------------------------------------------------------ times

/// `void slurm_make_time_str(time_t *time, char *string, int size)`: a time
/// as the commands print it (`2024-05-01T12:00:00`, `Unknown` for 0, `None`
/// for INFINITE; a `SLURM_TIME_FORMAT` strftime format when set), cut to
/// `size - 1` bytes.
///
/// # Safety
/// `time` is NULL or readable; `string` NULL or `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_make_time_str(time: *mut libc::time_t, string: *mut c_char, size: c_int) {
    guard((), || {
        if time.is_null() {
            return;
        }
        // SAFETY: readable (the contract above).
        let t = unsafe { *time };
        let text = spur_cli_base::format::time_str(t);
        // SAFETY: the contract above.
        unsafe { put(string, size, &text) };
    })
}

/// `void slurm_secs2time_str(time_t time, char *string, int size)`:
/// `HH:MM:SS` or `D-HH:MM:SS`, `UNLIMITED` for INFINITE, `INVALID` when
/// negative.
///
/// # Safety
/// `string` NULL or `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_secs2time_str(time: libc::time_t, string: *mut c_char, size: c_int) {
    guard((), || {
        let text = if time == libc::time_t::from(INFINITE) {
            "UNLIMITED".to_string()
        } else {
            spur_grammar::time::fmt_secs_scontrol(time)
        };
        // SAFETY: the contract above.
        unsafe { put(string, size, &text) };
    })
}

/// `void slurm_mins2time_str(uint32_t time, char *string, int size)`: a
/// number of minutes as `slurm_secs2time_str` writes it (`UNLIMITED` for
/// INFINITE).
///
/// # Safety
/// `string` NULL or `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_mins2time_str(time: u32, string: *mut c_char, size: c_int) {
    guard((), || {
        let text = spur_grammar::time::fmt_limit_scontrol((time != INFINITE).then_some(time));
        // SAFETY: the contract above.
        unsafe { put(string, size, &text) };
    })
}

/// `int slurm_time_str2secs(const char *string)`: seconds of `MM`,
/// `MM:SS`, `HH:MM:SS`, `D-HH[:MM[:SS]]`; INFINITE (-1) for `-1`,
/// `INFINITE`, `UNLIMITED`; NO_VAL for NULL, empty or invalid text.
///
/// # Safety
/// `string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_time_str2secs(string: *const c_char) -> c_int {
    guard(NO_VAL as c_int, || {
        // SAFETY: the contract above.
        match unsafe { crate::text(string) }.map(spur_grammar::time::parse_duration_secs) {
            Some(Ok(Some(s))) => s,
            Some(Ok(None)) => INFINITE as c_int,
            _ => NO_VAL as c_int,
        }
    })
}

/// `int slurm_time_str2mins(const char *string)`: as `slurm_time_str2secs`,
/// in minutes rounded up.
///
/// # Safety
/// `string` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_time_str2mins(string: *const c_char) -> c_int {
    guard(NO_VAL as c_int, || {
        // SAFETY: the contract above.
        match unsafe { crate::text(string) }.map(spur_grammar::time::parse_time_limit) {
            Some(Ok(Some(m))) => m as c_int,
            Some(Ok(None)) => INFINITE as c_int,
            _ => NO_VAL as c_int,
        }
    })
}

/// `time_t slurm_parse_time(const char *time_str, int past)`: a time as
/// `--begin` reads it (`now+1hour`, `16:00`, `2024-05-01T12:00`,
/// `tomorrow`...), relative to now; 0 with errno ESLURM_INVALID_TIME_VALUE
/// when it does not parse (0 too for empty text).
///
/// # Safety
/// `time_str` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_parse_time(time_str: *const c_char, past: c_int) -> libc::time_t {
    guard(0, || {
        // SAFETY: the contract above.
        let Some(s) = (unsafe { crate::text(time_str) }) else {
            crate::errno::set(sys::ESLURM_INVALID_TIME_VALUE as i32);
            return 0;
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
        match spur_grammar::time::parse_time(s, now, past != 0) {
            Ok(t) => t,
            Err(_) => {
                crate::errno::set(sys::ESLURM_INVALID_TIME_VALUE as i32);
                0
            }
        }
    })
}

// ------------------------------------------------------ environment arrays

/// The entries of an environment array (NULL-terminated `char *`s).
///
/// # Safety
/// `env` is NULL or a NULL-terminated array of NUL-terminated strings.
unsafe fn env_entries(env: *const *const c_char) -> Vec<*const c_char> {
    let mut out = Vec::new();
    if env.is_null() {
        return out;
    }
    // SAFETY: the array ends with NULL (the contract above).
    unsafe {
        let mut p = env;
        while !(*p).is_null() {
            out.push(*p);
            p = p.add(1);
        }
    }
    out
}

/// A new xmalloc'ed NULL-terminated array of `entries`.
fn env_block(entries: &[*mut c_char]) -> *mut *mut c_char {
    let mut v = entries.to_vec();
    v.push(null_mut());
    crate::xmalloc::xarray(&v)
}

/// `char **slurm_env_array_create(void)`: an empty environment array (one
/// NULL), released with `slurm_env_array_free`.
#[no_mangle]
pub extern "C" fn slurm_env_array_create() -> *mut *mut c_char {
    guard(null_mut(), || env_block(&[]))
}

/// `void slurm_env_array_free(char **env_array)`: release the array and
/// its strings (NULL: nothing).
///
/// # Safety
/// `env_array` is NULL or an array from these functions.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_free(env_array: *mut *mut c_char) {
    guard((), || {
        // SAFETY: the contract above.
        for e in unsafe { env_entries(env_array.cast()) } {
            let mut p = e.cast_mut();
            // SAFETY: each entry is an xmalloc'ed string of the array.
            unsafe { crate::xmalloc::xfree(&mut p) };
        }
        let mut a = env_array;
        // SAFETY: the array itself is xmalloc'ed (or NULL).
        unsafe { crate::xmalloc::xfree(&mut a) };
    })
}

/// `int slurm_env_array_overwrite(char ***array_ptr, const char *name, const
/// char *value)`: set `name=value`, replacing an entry of that name or
/// adding one (creating the array when `*array_ptr` is NULL); 1 on
/// success, 0 for NULL arguments.
///
/// # Safety
/// `array_ptr` is NULL or points to NULL or an array from these functions
/// (which may be replaced); `name` and `value` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_overwrite(
    array_ptr: *mut *mut *mut c_char,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    guard(0, || {
        if array_ptr.is_null() || name.is_null() || value.is_null() {
            return 0;
        }
        // SAFETY: both NUL-terminated (the contract above).
        let (n, v) = unsafe { (CStr::from_ptr(name).to_bytes(), CStr::from_ptr(value).to_bytes()) };
        let mut entry = n.to_vec();
        entry.push(b'=');
        entry.extend_from_slice(v);
        let Ok(text) = String::from_utf8(entry) else { return 0 };
        let fresh = crate::xmalloc::xstrdup(&text);
        if fresh.is_null() {
            return 0;
        }
        // SAFETY: array_ptr points to NULL or a live array (the contract).
        let old = unsafe { *array_ptr };
        // SAFETY: as above.
        let mut entries: Vec<*mut c_char> =
            unsafe { env_entries(old.cast()) }.into_iter().map(|p| p.cast_mut()).collect();
        let prefix_len = n.len() + 1;
        // SAFETY: each entry is NUL-terminated.
        let same = |p: *mut c_char| unsafe { CStr::from_ptr(p) }.to_bytes().starts_with(&text.as_bytes()[..prefix_len]);
        match entries.iter().position(|&p| same(p)) {
            Some(i) => {
                let mut gone = entries[i];
                entries[i] = fresh;
                // SAFETY: the replaced entry is the array's xmalloc'ed string.
                unsafe { crate::xmalloc::xfree(&mut gone) };
                // SAFETY: old is the live array; the slot is within it.
                unsafe { *old.add(i) = fresh };
            }
            None => {
                entries.push(fresh);
                let new = env_block(&entries);
                let mut o = old;
                // SAFETY: the old array block (not its strings, now in the
                // new one) is released; the caller's pointer replaced.
                unsafe {
                    crate::xmalloc::xfree(&mut o);
                    *array_ptr = new;
                }
            }
        }
        1
    })
}

/// `void slurm_env_array_merge(char ***dest_array, const char **src_array)`:
/// set each `name=value` of `src_array` in `*dest_array` (as
/// `slurm_env_array_overwrite`).
///
/// # Safety
/// `dest_array` as `slurm_env_array_overwrite`'s `array_ptr`; `src_array`
/// NULL or a NULL-terminated array of strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_env_array_merge(dest_array: *mut *mut *mut c_char, src_array: *mut *const c_char) {
    guard((), || {
        if dest_array.is_null() {
            return;
        }
        // SAFETY: the contract above.
        for e in unsafe { env_entries(src_array.cast_const()) } {
            // SAFETY: NUL-terminated entry.
            let b = unsafe { CStr::from_ptr(e) }.to_bytes();
            let Some(eq) = b.iter().position(|&c| c == b'=') else { continue };
            let (Ok(n), Ok(v)) = (CString::new(&b[..eq]), CString::new(&b[eq + 1..])) else { continue };
            // SAFETY: the contract above; n and v are ours.
            unsafe { slurm_env_array_overwrite(dest_array, n.as_ptr(), v.as_ptr()) };
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(p: *const c_char) -> String {
        // SAFETY: the functions return static NUL-terminated text.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn buf(f: impl FnOnce(*mut c_char, c_int)) -> String {
        let mut b = [0 as c_char; 128];
        f(b.as_mut_ptr(), 128);
        s(b.as_ptr())
    }

    #[test]
    fn job_states() {
        assert_eq!(s(slurm_job_state_string(sys::JOB_RUNNING)), "RUNNING");
        assert_eq!(s(slurm_job_state_string(sys::JOB_OOM)), "OUT_OF_MEMORY");
        assert_eq!(s(slurm_job_state_string(sys::JOB_RUNNING | JOB_COMPLETING)), "COMPLETING");
        assert_eq!(s(slurm_job_state_string(99)), "?");
        assert_eq!(s(slurm_job_state_string_compact(sys::JOB_PENDING)), "PD");
        assert_eq!(s(slurm_job_state_string_compact(JOB_REQUEUE)), "RQ");
        assert_eq!(slurm_job_state_string(1), slurm_job_state_string(1));
        // SAFETY: NUL-terminated literals and NULL.
        unsafe {
            assert_eq!(slurm_job_state_num(c"running".as_ptr()), sys::JOB_RUNNING);
            assert_eq!(slurm_job_state_num(c"CD".as_ptr()), sys::JOB_COMPLETE);
            assert_eq!(slurm_job_state_num(c"cg".as_ptr()), JOB_COMPLETING);
            assert_eq!(slurm_job_state_num(c"nope".as_ptr()), NO_VAL);
            assert_eq!(slurm_job_state_num(null_mut()), NO_VAL);
        }
        assert_eq!(s(slurm_job_share_string(0)), "NO");
        assert_eq!(s(slurm_job_share_string(9)), "OK");
    }

    #[test]
    fn node_states() {
        let l = |x| s(slurm_node_state_string(x));
        let c = |x| s(slurm_node_state_string_compact(x));
        assert_eq!((l(sys::NODE_STATE_IDLE), c(sys::NODE_STATE_IDLE)), ("IDLE".into(), "IDLE".into()));
        assert_eq!(l(sys::NODE_STATE_IDLE | NODE_STATE_DRAIN), "DRAINED");
        assert_eq!(c(sys::NODE_STATE_IDLE | NODE_STATE_DRAIN), "DRAIN");
        assert_eq!(l(sys::NODE_STATE_MIXED | NODE_STATE_DRAIN | NODE_STATE_NO_RESPOND), "DRAINING*");
        assert_eq!(c(sys::NODE_STATE_MIXED | NODE_STATE_DRAIN), "DRNG");
        assert_eq!(l(sys::NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING), "ALLOCATED+");
        assert_eq!(c(sys::NODE_STATE_ALLOCATED), "ALLOC");
        assert_eq!(l(sys::NODE_STATE_DOWN | NODE_STATE_NO_RESPOND), "DOWN*");
        assert_eq!(l(sys::NODE_STATE_IDLE | NODE_STATE_POWERED_DOWN), "IDLE~");
        assert_eq!(l(sys::NODE_STATE_IDLE | NODE_STATE_MAINT), "MAINT");
        assert_eq!(c(sys::NODE_STATE_MIXED), "MIX");
        assert_eq!(c(sys::NODE_STATE_IDLE | NODE_STATE_COMPLETING), "COMP");
        assert_eq!(l(sys::NODE_STATE_IDLE | NODE_STATE_REBOOT_REQUESTED), "REBOOT");
        assert_eq!(c(sys::NODE_STATE_UNKNOWN), "UNK");
        assert_eq!(l(sys::NODE_STATE_FUTURE), "FUTURE");
        assert_eq!(l(NODE_STATE_INVALID_REG), "INVAL");
        // (state, long, compact) as Debian's libslurm.so.38 (22.05) gives them
        let real = [
            (0x5, "MIXED", "MIX"),
            (0x22, "RESERVED", "RESV"),
            (0x200002, "PLANNED", "PLND"),
            (0x200005, "MIXED-", "MIX-"),
            (0x80, "CLOUD", "UNK"),
            (0x100, "RESUME", "RESM"),
            (0xc03, "ALLOCATED*", "ALLOC*"),
            (0x2002, "FAIL", "FAIL"),
            (0x2803, "FAILING*", "FAILG*"),
            (0x800, "UNKNOWN*", "UNK*"),
            (0x10002, "REBOOT", "BOOT"),
            (0xa05, "DRAINING*", "DRNG*"),
        ];
        for (st, long, short) in real {
            assert_eq!((l(st), c(st)), (long.to_string(), short.to_string()), "{:#x}", st);
        }
    }

    #[test]
    fn preempt_modes() {
        assert_eq!(s(slurm_preempt_mode_string(0)), "OFF");
        assert_eq!(s(slurm_preempt_mode_string(PREEMPT_MODE_GANG | PREEMPT_MODE_SUSPEND)), "GANG,SUSPEND");
        assert_eq!(s(slurm_preempt_mode_string(PREEMPT_MODE_REQUEUE)), "REQUEUE");
        assert_eq!(s(slurm_preempt_mode_string(3)), "UNKNOWN");
        // SAFETY: NUL-terminated literals and NULL.
        unsafe {
            assert_eq!(slurm_preempt_mode_num(c"suspend,GANG".as_ptr()), 0x8001);
            assert_eq!(slurm_preempt_mode_num(c"cancel".as_ptr()), 8);
            assert_eq!(slurm_preempt_mode_num(c"cancel,requeue".as_ptr()), NO_VAL16);
            assert_eq!(slurm_preempt_mode_num(c"gang,within".as_ptr()), NO_VAL16);
            assert_eq!(slurm_preempt_mode_num(c"bogus".as_ptr()), NO_VAL16);
            assert_eq!(slurm_preempt_mode_num(null_mut()), 0);
        }
        // SAFETY: b has 64 bytes.
        let t = buf(|b, n| unsafe { slurm_private_data_string(0x11, b, n) });
        assert_eq!(t, "jobs,users");
        // SAFETY: as above.
        assert_eq!(buf(|b, n| unsafe { slurm_private_data_string(0, b, n) }), "none");
        // SAFETY: as above.
        assert_eq!(buf(|b, _| unsafe { slurm_private_data_string(1, b, 68) }), "");
    }

    #[test]
    fn times() {
        // SAFETY: 128-byte buffers; NUL-terminated literals.
        unsafe {
            assert_eq!(buf(|b, n| slurm_secs2time_str(3661, b, n)), "01:01:01");
            assert_eq!(buf(|b, n| slurm_secs2time_str(90061, b, n)), "1-01:01:01");
            assert_eq!(buf(|b, n| slurm_secs2time_str(-5, b, n)), "INVALID");
            assert_eq!(buf(|b, n| slurm_secs2time_str(0xffff_ffff, b, n)), "UNLIMITED");
            assert_eq!(buf(|b, n| slurm_mins2time_str(90, b, n)), "01:30:00");
            assert_eq!(buf(|b, n| slurm_mins2time_str(INFINITE, b, n)), "UNLIMITED");
            assert_eq!(buf(|b, _| slurm_mins2time_str(1500, b, 5)), "1-01");
            assert_eq!(slurm_time_str2secs(c"1-02:03:04".as_ptr()), 93784);
            assert_eq!(slurm_time_str2secs(c"10".as_ptr()), 600);
            assert_eq!(slurm_time_str2secs(c"UNLIMITED".as_ptr()), -1);
            assert_eq!(slurm_time_str2secs(c"x".as_ptr()), NO_VAL as c_int);
            assert_eq!(slurm_time_str2secs(null_mut()), NO_VAL as c_int);
            assert_eq!(slurm_time_str2mins(c"0:61".as_ptr()), 2);
            assert_eq!(slurm_parse_time(c"uts1700000000".as_ptr(), 0), 1_700_000_000);
            assert_eq!(slurm_parse_time(c"garbage!".as_ptr(), 0), 0);
            assert_eq!(crate::errno::get(), sys::ESLURM_INVALID_TIME_VALUE as i32);
            let mut t: libc::time_t = 0;
            assert_eq!(buf(|b, n| slurm_make_time_str(&mut t, b, n)), spur_cli_base::format::time_str(0));
        }
    }

    #[test]
    fn env_arrays() {
        let mut env = slurm_env_array_create();
        // SAFETY: env is ours throughout; literals NUL-terminated.
        unsafe {
            assert!((*env).is_null());
            assert_eq!(slurm_env_array_overwrite(&mut env, c"A".as_ptr(), c"1".as_ptr()), 1);
            assert_eq!(slurm_env_array_overwrite(&mut env, c"AB".as_ptr(), c"2".as_ptr()), 1);
            assert_eq!(slurm_env_array_overwrite(&mut env, c"A".as_ptr(), c"3".as_ptr()), 1);
            let mut src = [c"B=4".as_ptr(), c"AB=5".as_ptr(), std::ptr::null()];
            slurm_env_array_merge(&mut env, src.as_mut_ptr());
            let got: Vec<String> = env_entries(env.cast()).into_iter().map(s).collect();
            assert_eq!(got, vec!["A=3", "AB=5", "B=4"]);
            slurm_env_array_free(env);
            let mut none: *mut *mut c_char = null_mut();
            assert_eq!(slurm_env_array_overwrite(&mut none, c"X".as_ptr(), c"y".as_ptr()), 1);
            slurm_env_array_free(none);
        }
    }
}
