//! Flag words as text, as libslurm's internal helpers print them:
//! AccountingStorageEnforce, reservation flags, node states with every
//! flag (`IDLE+DRAIN`), task distributions, CPU and memory binding.
//! Each returns what Slurm's does: a static text, the caller's buffer, or
//! an xmalloc'ed string the caller releases with `slurm_xfree`.

use super::{bit, put};
use crate::guard;
use crate::sys;
use crate::xmalloc::xstrdup;
use std::ffi::{c_char, c_int};
use std::ptr::null_mut;

/// The flags `first, second, ...` whose bits are set in `word`, in the
/// table's order.
fn names<T: Copy + std::ops::BitAnd<Output = T> + PartialEq + Default>(word: T, table: &[(T, &str)]) -> Vec<String> {
    table.iter().filter(|(f, _)| word & *f != T::default()).map(|(_, n)| (*n).to_string()).collect()
}

// ------------------------------------------------ AccountingStorageEnforce

/// read_config.h's ACCOUNTING_ENFORCE_* bits, in the order Slurm prints
/// them.
const ENFORCE: [(u16, &str); 7] = [
    (1 << 0, "associations"),
    (1 << 1, "limits"),
    (1 << 5, "nojobs"),
    (1 << 6, "nosteps"),
    (1 << 3, "qos"),
    (1 << 4, "safe"),
    (1 << 2, "wckeys"),
];

/// `void slurm_accounting_enforce_string(uint16_t enforce, char *str, int
/// str_len)`: `associations,limits,qos,...` or `none` into the caller's
/// buffer; a buffer shorter than 50 bytes gets an empty string, as Slurm
/// refuses it.
///
/// # Safety
/// `str` is NULL or points to `str_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_accounting_enforce_string(enforce: u16, str: *mut c_char, str_len: c_int) {
    guard((), || {
        // SAFETY: the contract above.
        unsafe { put(str, str_len, "") };
        if str_len < 50 {
            return;
        }
        let n = names(enforce, &ENFORCE);
        let text = if n.is_empty() { "none".to_string() } else { n.join(",") };
        // SAFETY: the contract above.
        unsafe { put(str, str_len, &text) };
    })
}

// ------------------------------------------------------- reservation flags

/// slurm.h's RESERVE_FLAG_* bits as `scontrol show reservation` prints
/// them, in Slurm's order (PURGE_COMP, bit 20, gets its time apart).
const RESV_FLAGS: &[(u64, &str)] = &[
    (1 << 0, "MAINT"),
    (1 << 1, "NO_MAINT"),
    (1 << 25, "FLEX"),
    (1 << 14, "OVERLAP"),
    (1 << 6, "IGNORE_JOBS"),
    (1 << 35, "HOURLY"),
    (1 << 36, "NO_HOURLY"),
    (1 << 2, "DAILY"),
    (1 << 3, "NO_DAILY"),
    (1 << 21, "WEEKDAY"),
    (1 << 23, "WEEKEND"),
    (1 << 4, "WEEKLY"),
    (1 << 5, "NO_WEEKLY"),
    (1 << 15, "SPEC_NODES"),
    (1 << 19, "ALL_NODES"),
    (1 << 8, "ANY_NODES"),
    (1 << 9, "NO_ANY_NODES"),
    (1 << 10, "STATIC"),
    (1 << 11, "NO_STATIC"),
    (1 << 12, "PART_NODES"),
    (1 << 13, "NO_PART_NODES"),
    #[cfg(feature = "slurm-22-05")]
    (1 << 16, "FIRST_CORES"),
    (1 << 17, "TIME_FLOAT"),
    (1 << 18, "REPLACE"),
    (1 << 30, "REPLACE_DOWN"),
    (1 << 20, "PURGE_COMP"),
    (1 << 29, "NO_HOLD_JOBS_AFTER_END"),
    (1 << 32, "MAGNETIC"),
    (1 << 33, "NO_MAGNETIC"),
    #[cfg(not(feature = "slurm-22-05"))]
    (1 << 39, "USER_DELETE"),
    #[cfg(not(feature = "slurm-22-05"))]
    (1 << 40, "NO_USER_DELETE"),
];

/// The text of a reservation's flags (`PURGE_COMP=00:05:00` when it has a
/// purge time).
pub(crate) fn resv_flags_text(flags: u64, purge_comp_time: u32) -> String {
    RESV_FLAGS
        .iter()
        .filter(|(f, _)| flags & f != 0)
        .map(|(f, n)| {
            if *f == 1 << 20 && purge_comp_time != 0 {
                let mut b = [0 as c_char; 40];
                // SAFETY: a 40-byte buffer of ours.
                unsafe { super::slurm_secs2time_str(libc::time_t::from(purge_comp_time), b.as_mut_ptr(), 40) };
                // SAFETY: put left it NUL-terminated.
                let t = unsafe { std::ffi::CStr::from_ptr(b.as_ptr()) }.to_string_lossy();
                format!("{}={}", n, t)
            } else {
                (*n).to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `char *slurm_reservation_flags_string(reserve_info_t *resv_ptr)`: the
/// reservation's flags as scontrol prints them (`MAINT,IGNORE_JOBS`;
/// empty text for none), xmalloc'ed: the caller releases it with
/// `slurm_xfree`. NULL for a NULL reservation (where Slurm would crash).
///
/// # Safety
/// `resv_ptr` is NULL or points to a valid `reserve_info_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_reservation_flags_string(resv_ptr: *mut sys::reserve_info_t) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: the contract above.
        let Some(r) = (unsafe { resv_ptr.as_ref() }) else { return null_mut() };
        xstrdup(&resv_flags_text(r.flags, r.purge_comp_time))
    })
}

// ------------------------------------------------------------ node states

/// The base states by number.
const NODE_BASES: [(u32, &str); 7] = [
    (sys::NODE_STATE_DOWN, "DOWN"),
    (sys::NODE_STATE_IDLE, "IDLE"),
    (sys::NODE_STATE_ALLOCATED, "ALLOCATED"),
    (sys::NODE_STATE_ERROR, "ERROR"),
    (sys::NODE_STATE_MIXED, "MIXED"),
    (sys::NODE_STATE_FUTURE, "FUTURE"),
    (sys::NODE_STATE_UNKNOWN, "UNKNOWN"),
];

/// The node state flags in the order Slurm names them.
const NODE_FLAGS: &[(u32, &str)] = &[
    #[cfg(not(feature = "slurm-22-05"))]
    (bit(27), "BLOCKED"),
    (bit(7), "CLOUD"),
    (bit(10), "COMPLETING"),
    (bit(9), "DRAIN"),
    (bit(19), "DYNAMIC_FUTURE"),
    (bit(26), "DYNAMIC_NORM"),
    (bit(22), "INVALID_REG"),
    (bit(13), "FAIL"),
    (bit(15), "MAINTENANCE"),
    (bit(23), "POWER_DOWN"),
    (bit(24), "POWER_UP"),
    #[cfg(feature = "slurm-22-05")]
    (bit(4), "PERFCTRS"),
    (bit(12), "POWERED_DOWN"),
    (bit(16), "REBOOT_REQUESTED"),
    (bit(20), "REBOOT_ISSUED"),
    (bit(5), "RESERVED"),
    (bit(8), "RESUME"),
    (bit(11), "NOT_RESPONDING"),
    (bit(21), "PLANNED"),
    (bit(14), "POWERING_UP"),
    (bit(18), "POWERING_DOWN"),
];

fn node_base(state: u32) -> &'static str {
    let b = state & sys::NODE_STATE_BASE;
    NODE_BASES.iter().find(|(n, _)| *n == b).map_or("INVALID", |(_, s)| s)
}

/// Take the first named flag out of `state` and name it; an unnamed flag
/// is `?` (its lowest bit taken out). None when no flag is left.
fn node_flag_single(state: &mut u32) -> Option<&'static str> {
    let flags = *state & sys::NODE_STATE_FLAGS;
    if flags == 0 {
        return None;
    }
    if let Some((f, n)) = NODE_FLAGS.iter().find(|(f, _)| flags & f != 0) {
        *state &= !f;
        return Some(n);
    }
    *state &= !(flags & flags.wrapping_neg());
    Some("?")
}

/// `+FLAG+FLAG...` for every flag of a state (empty for none).
fn node_flags_text(state: u32) -> String {
    let mut s = state;
    let mut out = String::new();
    while let Some(n) = node_flag_single(&mut s) {
        out.push('+');
        out.push_str(n);
    }
    out
}

/// `const char *slurm_node_state_base_string(uint32_t state)`: the base
/// state's name (`IDLE`, `MIXED`, ...; `INVALID` for an unknown base).
#[no_mangle]
pub extern "C" fn slurm_node_state_base_string(state: u32) -> *const c_char {
    guard(std::ptr::null(), || super::cstatic(node_base(state)).cast_const())
}

/// `const char *slurm_node_state_flag_string_single(uint32_t *state)`: the
/// name of the first flag left in `*state`, which loses it; NULL when no
/// flag is left (and for NULL).
///
/// # Safety
/// `state` is NULL or points to a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_node_state_flag_string_single(state: *mut u32) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: the contract above.
        let Some(s) = (unsafe { state.as_mut() }) else { return std::ptr::null() };
        node_flag_single(s).map_or(std::ptr::null(), |n| super::cstatic(n).cast_const())
    })
}

/// `char *slurm_node_state_flag_string(uint32_t state)`: `+DRAIN+...` for
/// the state's flags, xmalloc'ed (the caller releases it with
/// `slurm_xfree`); NULL for none.
#[no_mangle]
pub extern "C" fn slurm_node_state_flag_string(state: u32) -> *mut c_char {
    guard(null_mut(), || crate::xmalloc::xstr_nonempty(&node_flags_text(state)))
}

/// `char *slurm_node_state_string_complete(uint32_t inx)`: the base state
/// and every flag (`IDLE+DRAIN+NOT_RESPONDING`), as scontrol's `State=`
/// with `--details`; xmalloc'ed, the caller releases it with
/// `slurm_xfree`.
#[no_mangle]
pub extern "C" fn slurm_node_state_string_complete(inx: u32) -> *mut c_char {
    guard(null_mut(), || xstrdup(&format!("{}{}", node_base(inx), node_flags_text(inx))))
}

// ------------------------------------------------------ task distribution

const DIST_NAMES: &[(u32, &str)] = &[
    (sys::SLURM_DIST_CYCLIC, "Cyclic"),
    (sys::SLURM_DIST_BLOCK, "Block"),
    (sys::SLURM_DIST_ARBITRARY, "arbitrary task distribution"),
    (sys::SLURM_DIST_PLANE, "Plane"),
    (sys::SLURM_DIST_CYCLIC_CYCLIC, "CCyclic"),
    (sys::SLURM_DIST_CYCLIC_BLOCK, "CBlock"),
    (sys::SLURM_DIST_BLOCK_CYCLIC, "BCyclic"),
    (sys::SLURM_DIST_BLOCK_BLOCK, "BBlock"),
    (sys::SLURM_DIST_CYCLIC_CFULL, "CFCyclic"),
    (sys::SLURM_DIST_BLOCK_CFULL, "BFCyclic"),
    (sys::SLURM_DIST_CYCLIC_CYCLIC_CYCLIC, "CCyclicCyclic"),
    (sys::SLURM_DIST_CYCLIC_CYCLIC_BLOCK, "CCyclicBlock"),
    (sys::SLURM_DIST_CYCLIC_CYCLIC_CFULL, "CCyclicFCyclic"),
    (sys::SLURM_DIST_CYCLIC_BLOCK_CYCLIC, "CBlockCyclic"),
    (sys::SLURM_DIST_CYCLIC_BLOCK_BLOCK, "CBlockBlock"),
    // (Slurm names this one as CYCLIC_CYCLIC_CFULL; kept for equal output)
    (sys::SLURM_DIST_CYCLIC_BLOCK_CFULL, "CCyclicFCyclic"),
    (sys::SLURM_DIST_CYCLIC_CFULL_CYCLIC, "CFCyclicCyclic"),
    (sys::SLURM_DIST_CYCLIC_CFULL_BLOCK, "CFCyclicBlock"),
    (sys::SLURM_DIST_CYCLIC_CFULL_CFULL, "CFCyclicFCyclic"),
    (sys::SLURM_DIST_BLOCK_CYCLIC_CYCLIC, "BCyclicCyclic"),
    (sys::SLURM_DIST_BLOCK_CYCLIC_BLOCK, "BCyclicBlock"),
    (sys::SLURM_DIST_BLOCK_CYCLIC_CFULL, "BCyclicFCyclic"),
    (sys::SLURM_DIST_BLOCK_BLOCK_CYCLIC, "BBlockCyclic"),
    (sys::SLURM_DIST_BLOCK_BLOCK_BLOCK, "BBlockBlock"),
    (sys::SLURM_DIST_BLOCK_BLOCK_CFULL, "BBlockFCyclic"),
    (sys::SLURM_DIST_BLOCK_CFULL_CYCLIC, "BFCyclicCyclic"),
    (sys::SLURM_DIST_BLOCK_CFULL_BLOCK, "BFCyclicBlock"),
    (sys::SLURM_DIST_BLOCK_CFULL_CFULL, "BFCyclicFCyclic"),
];

/// `char *slurm_step_layout_type_name(task_dist_states_t task_dist)`: the
/// distribution's name (`Block`, `CBlock`, `Unknown`), then `,Pack` or
/// `,NoPack`; xmalloc'ed, the caller releases it with `slurm_xfree`.
#[no_mangle]
pub extern "C" fn slurm_step_layout_type_name(task_dist: sys::task_dist_states_t) -> *mut c_char {
    guard(null_mut(), || {
        let base = task_dist & sys::SLURM_DIST_STATE_BASE;
        let mut s = DIST_NAMES.iter().find(|(d, _)| *d == base).map_or("Unknown", |(_, n)| n).to_string();
        if task_dist & sys::SLURM_DIST_PACK_NODES != 0 {
            s.push_str(",Pack");
        }
        if task_dist & sys::SLURM_DIST_NO_PACK_NODES != 0 {
            s.push_str(",NoPack");
        }
        xstrdup(&s)
    })
}

// ---------------------------------------------------------------- binding

const CPU_BIND: &[(u32, &str)] = &[
    (sys::CPU_BIND_VERBOSE, "verbose"),
    (sys::CPU_BIND_TO_THREADS, "threads"),
    (sys::CPU_BIND_TO_CORES, "cores"),
    (sys::CPU_BIND_TO_SOCKETS, "sockets"),
    (sys::CPU_BIND_TO_LDOMS, "ldoms"),
    (sys::CPU_BIND_NONE, "none"),
    #[cfg(feature = "slurm-22-05")]
    (sys::CPU_BIND_RANK, "rank"),
    (sys::CPU_BIND_MAP, "map_cpu"),
    (sys::CPU_BIND_MASK, "mask_cpu"),
    (sys::CPU_BIND_LDRANK, "rank_ldom"),
    (sys::CPU_BIND_LDMAP, "map_ldom"),
    (sys::CPU_BIND_LDMASK, "mask_ldom"),
    (sys::CPU_BIND_ONE_THREAD_PER_CORE, "one_thread"),
    (sys::CPU_AUTO_BIND_TO_THREADS, "autobind=threads"),
    (sys::CPU_AUTO_BIND_TO_CORES, "autobind=cores"),
    (sys::CPU_AUTO_BIND_TO_SOCKETS, "autobind=sockets"),
    (sys::CPU_BIND_OFF, "off"),
];

const MEM_BIND: &[(u32, &str)] = &[
    (sys::MEM_BIND_VERBOSE, "verbose"),
    (sys::MEM_BIND_PREFER, "prefer"),
    (sys::MEM_BIND_SORT, "sort"),
    (sys::MEM_BIND_NONE, "none"),
    (sys::MEM_BIND_RANK, "rank"),
    (sys::MEM_BIND_LOCAL, "local"),
    (sys::MEM_BIND_MAP, "map_mem"),
    (sys::MEM_BIND_MASK, "mask_mem"),
];

/// `void slurm_sprint_cpu_bind_type(char *str, cpu_bind_type_t
/// cpu_bind_type)`: `cores,verbose`-style names of the binding
/// (`(null type)` for none) into `str`. Slurm takes no size: the buffer
/// must hold the longest text (under 200 bytes for every bit set).
///
/// # Safety
/// `str` is NULL or points to a buffer large enough for the text.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_cpu_bind_type(str: *mut c_char, cpu_bind_type: sys::cpu_bind_type_t) {
    guard((), || {
        let n = names(cpu_bind_type, CPU_BIND);
        let text = if n.is_empty() { "(null type)".to_string() } else { n.join(",") };
        let size = c_int::try_from(text.len() + 1).unwrap_or(c_int::MAX);
        // SAFETY: the contract above: the caller's buffer holds the text.
        unsafe { put(str, size, &text) };
    })
}

/// `char *slurm_xstr_mem_bind_type(mem_bind_type_t mem_bind_type)`: the
/// memory binding's names (`local,verbose`), xmalloc'ed (the caller
/// releases it with `slurm_xfree`); NULL for none.
#[no_mangle]
pub extern "C" fn slurm_xstr_mem_bind_type(mem_bind_type: sys::mem_bind_type_t) -> *mut c_char {
    guard(null_mut(), || crate::xmalloc::xstr_nonempty(&names(mem_bind_type, MEM_BIND).join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    /// The text of an xmalloc'ed result, released.
    fn owned(mut p: *mut c_char) -> Option<String> {
        if p.is_null() {
            return None;
        }
        // SAFETY: a live NUL-terminated xmalloc'ed string of this library.
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        // SAFETY: as above, released once.
        unsafe { crate::xmalloc::xfree(&mut p) };
        Some(s)
    }

    fn buf(f: impl FnOnce(*mut c_char, c_int)) -> String {
        let mut b = [0x55 as c_char; 256];
        f(b.as_mut_ptr(), 256);
        // SAFETY: NUL-terminated by the function.
        unsafe { CStr::from_ptr(b.as_ptr()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn enforce() {
        // SAFETY: 256-byte buffers.
        unsafe {
            assert_eq!(buf(|b, n| slurm_accounting_enforce_string(0, b, n)), "none");
            assert_eq!(buf(|b, n| slurm_accounting_enforce_string(0b1111, b, n)), "associations,limits,qos,wckeys");
            assert_eq!(
                buf(|b, n| slurm_accounting_enforce_string(0x7f, b, n)),
                "associations,limits,nojobs,nosteps,qos,safe,wckeys"
            );
            assert_eq!(buf(|b, _| slurm_accounting_enforce_string(1, b, 49)), "");
        }
    }

    #[test]
    fn reservation_flags() {
        // SAFETY: a zeroed reserve_info_t (integers and pointers) is valid.
        let mut r: sys::reserve_info_t = unsafe { std::mem::zeroed() };
        // SAFETY: r is valid.
        assert_eq!(owned(unsafe { slurm_reservation_flags_string(&mut r) }).as_deref(), Some(""));
        r.flags = 1 | (1 << 6) | (1 << 14) | (1 << 35);
        // SAFETY: as above.
        assert_eq!(
            owned(unsafe { slurm_reservation_flags_string(&mut r) }).as_deref(),
            Some("MAINT,OVERLAP,IGNORE_JOBS,HOURLY")
        );
        r.flags = (1 << 20) | (1 << 32);
        r.purge_comp_time = 300;
        // SAFETY: as above.
        assert_eq!(
            owned(unsafe { slurm_reservation_flags_string(&mut r) }).as_deref(),
            Some("PURGE_COMP=00:05:00,MAGNETIC")
        );
        // SAFETY: NULL is allowed.
        assert!(unsafe { slurm_reservation_flags_string(null_mut()) }.is_null());
    }

    #[test]
    fn node_states() {
        let c = |s| owned(slurm_node_state_string_complete(s)).unwrap_or_default();
        assert_eq!(c(sys::NODE_STATE_IDLE), "IDLE");
        assert_eq!(c(sys::NODE_STATE_IDLE | bit(9) | bit(11)), "IDLE+DRAIN+NOT_RESPONDING");
        assert_eq!(c(sys::NODE_STATE_MIXED | bit(7) | bit(12)), "MIXED+CLOUD+POWERED_DOWN");
        assert_eq!(c(9 | bit(30)), "INVALID+?");
        assert_eq!(owned(slurm_node_state_flag_string(sys::NODE_STATE_IDLE)), None);
        let mut s = sys::NODE_STATE_DOWN | bit(15) | bit(10);
        // SAFETY: s is ours.
        let first = unsafe { slurm_node_state_flag_string_single(&mut s) };
        // SAFETY: a static NUL-terminated text.
        assert_eq!(unsafe { CStr::from_ptr(first) }.to_str(), Ok("COMPLETING"));
        assert_eq!(s, sys::NODE_STATE_DOWN | bit(15));
        // SAFETY: a static NUL-terminated text.
        assert_eq!(unsafe { CStr::from_ptr(slurm_node_state_base_string(s)) }.to_str(), Ok("DOWN"));
    }

    #[test]
    fn layouts_and_binding() {
        let l = |d| owned(slurm_step_layout_type_name(d)).unwrap_or_default();
        assert_eq!(l(sys::SLURM_DIST_BLOCK), "Block");
        assert_eq!(l(sys::SLURM_DIST_CYCLIC_BLOCK | sys::SLURM_DIST_PACK_NODES), "CBlock,Pack");
        assert_eq!(l(sys::SLURM_DIST_UNKNOWN | sys::SLURM_DIST_NO_PACK_NODES), "Unknown,NoPack");
        assert_eq!(l(sys::SLURM_DIST_ARBITRARY), "arbitrary task distribution");
        // SAFETY: 256-byte buffers.
        unsafe {
            assert_eq!(buf(|b, _| slurm_sprint_cpu_bind_type(b, 0)), "(null type)");
            let t = sys::CPU_BIND_VERBOSE | sys::CPU_BIND_TO_CORES | sys::CPU_AUTO_BIND_TO_SOCKETS;
            assert_eq!(buf(|b, _| slurm_sprint_cpu_bind_type(b, t)), "verbose,cores,autobind=sockets");
            let all = CPU_BIND.iter().fold(0, |a, (f, _)| a | f);
            assert!(buf(|b, _| slurm_sprint_cpu_bind_type(b, all)).len() < 200);
        }
        assert_eq!(owned(slurm_xstr_mem_bind_type(0)), None);
        let m = slurm_xstr_mem_bind_type(sys::MEM_BIND_LOCAL | sys::MEM_BIND_VERBOSE);
        assert_eq!(owned(m).as_deref(), Some("verbose,local"));
    }
}
