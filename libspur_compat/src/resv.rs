//! Reservations: `slurm_load_reservations`, `reserve_info_t` as slurmctld
//! packs it (reservation.c `_pack_resv`), and create/update/delete through
//! spur-client (`scontrol create|update|delete reservation`'s request).

use crate::sys;
use crate::xmalloc::{xalloc, xfree, xindex, xnew, xstr_nonempty, xstr_opt, xstrdup};
use spur_core::model::{ClusterView, Reservation};
use spur_core::request::{NameList, ReservationRequest, ReservationSpec};
use std::ffi::{c_char, c_int};

/// RESERVE_FLAG_* bits and the names slurmctld prints for them
/// (reservation_flags_string); the same bits in 22.05 and 24.11.
const FLAGS: &[(u32, &str)] = &[
    (0, "MAINT"),
    (1, "NO_MAINT"),
    (2, "DAILY"),
    (3, "NO_DAILY"),
    (4, "WEEKLY"),
    (5, "NO_WEEKLY"),
    (6, "IGNORE_JOBS"),
    (8, "ANY_NODES"),
    (9, "NO_ANY_NODES"),
    (10, "STATIC"),
    (11, "NO_STATIC"),
    (12, "PART_NODES"),
    (13, "NO_PART_NODES"),
    (14, "OVERLAP"),
    (15, "SPEC_NODES"),
    (16, "FIRST_CORES"),
    (17, "TIME_FLOAT"),
    (18, "REPLACE"),
    (19, "ALL_NODES"),
    (20, "PURGE_COMP"),
    (21, "WEEKDAY"),
    (23, "WEEKEND"),
    (25, "FLEX"),
    (29, "NO_HOLD_JOBS_AFTER_END"),
    (30, "REPLACE_DOWN"),
    (32, "MAGNETIC"),
    (33, "NO_MAGNETIC"),
    (35, "HOURLY"),
    (36, "NO_HOURLY"),
    (39, "USER_DELETE"),
    (40, "NO_USER_DELETE"),
];
const RESERVE_FLAG_SKIP: u64 = 1 << 34;
const NO_VAL64: u64 = u64::MAX - 1;

/// A reservation's flag names as slurmctld's bits (unknown names left out).
pub fn flag_bits(names: &[String]) -> u64 {
    names
        .iter()
        .filter_map(|n| FLAGS.iter().find(|(_, f)| f.eq_ignore_ascii_case(n)))
        .fold(0, |acc, (b, _)| acc | (1u64 << b))
}

/// The names of a flag word.
pub fn flag_names(bits: u64) -> Vec<String> {
    FLAGS.iter().filter(|(b, _)| bits & (1u64 << b) != 0).map(|(_, n)| n.to_string()).collect()
}

/// Fill a zeroed record from a reservation, as slurmctld packs it.
pub fn fill_resv(r: &Reservation, view: &ClusterView, out: &mut sys::reserve_info_t) {
    let join = |v: &[String]| xstr_nonempty(&v.join(","));
    out.name = xstrdup(&r.name);
    out.start_time = r.start_time as _;
    out.end_time = r.end_time as _;
    out.node_list = xstr_nonempty(&spur_cli_base::records::resv_nodes(r));
    out.node_cnt = r.nodes.len() as u32;
    out.node_inx = xindex(&crate::parts::index_pairs(&r.nodes, view));
    out.core_cnt = r.cores;
    out.users = join(&r.users);
    out.accounts = join(&r.accounts);
    out.groups = join(&r.groups);
    out.flags = flag_bits(&r.flags);
    out.partition = xstr_opt(r.partition.as_deref());
    out.features = xstr_opt(r.features.as_deref());
    out.max_start_delay = r.max_start_delay.map(|d| d.clamp(0, u32::MAX as i64) as u32).unwrap_or(0);
    out.tres_str = xstrdup(&format!("cpu={}", r.cores));
    #[cfg(feature = "slurm-22-05")]
    {
        out.resv_watts = sys::NO_VAL;
    }
}

/// Release every block of a record.
///
/// # Safety
/// `r`'s pointers are NULL or xmalloc'ed blocks; `core_spec` NULL or an
/// xmalloc'ed array whose strings are xmalloc'ed.
pub unsafe fn free_resv_members(r: &mut sys::reserve_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        xfree(&mut r.accounts);
        xfree(&mut r.burst_buffer);
        if !r.core_spec.is_null() {
            for i in 0..r.core_spec_cnt as usize {
                let c = &mut *r.core_spec.add(i);
                xfree(&mut c.core_id);
                xfree(&mut c.node_name);
            }
        }
        xfree(&mut r.core_spec);
        xfree(&mut r.features);
        xfree(&mut r.groups);
        xfree(&mut r.licenses);
        xfree(&mut r.name);
        xfree(&mut r.node_inx);
        xfree(&mut r.node_list);
        xfree(&mut r.partition);
        xfree(&mut r.tres_str);
        xfree(&mut r.users);
        #[cfg(feature = "slurm-24-11")]
        xfree(&mut r.comment);
    }
}

/// The message of `slurm_load_reservations`.
pub fn resv_msg(view: &ClusterView) -> *mut sys::reserve_info_msg_t {
    let msg = xnew::<sys::reserve_info_msg_t>();
    if msg.is_null() {
        return msg;
    }
    let n = view.reservations.len();
    let arr = if n == 0 {
        std::ptr::null_mut()
    } else {
        xalloc(n * std::mem::size_of::<sys::reserve_info_t>()).cast::<sys::reserve_info_t>()
    };
    // SAFETY: msg is fresh and zeroed; arr NULL or room for n zeroed records.
    unsafe {
        (*msg).last_update = view.now as _;
        if !arr.is_null() {
            for (i, r) in view.reservations.iter().enumerate() {
                fill_resv(r, view, &mut *arr.add(i));
            }
            (*msg).reservation_array = arr;
            (*msg).record_count = n as u32;
        }
    }
    msg
}

/// `int slurm_load_reservations(time_t update_time, reserve_info_msg_t
/// **resp)`: 0, or -1 with errno. Free with `slurm_free_reservation_info_msg`.
///
/// # Safety
/// `resp` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_reservations(
    update_time: sys::time_t,
    resp: *mut *mut sys::reserve_info_msg_t,
) -> c_int {
    let _ = update_time;
    crate::guard(-1, || {
        if resp.is_null() {
            crate::errno::set(libc::EINVAL);
            return -1;
        }
        let Ok(view) = crate::nodes::load_view() else { return -1 };
        let msg = resv_msg(&view);
        if msg.is_null() {
            crate::errno::set(libc::ENOMEM);
            return -1;
        }
        // SAFETY: the caller's contract.
        unsafe { *resp = msg };
        0
    })
}

/// `void slurm_free_reservation_info_msg(reserve_info_msg_t *msg)` (NULL: nothing).
///
/// # Safety
/// `msg` is NULL or from `slurm_load_reservations`, not freed since.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_reservation_info_msg(msg: *mut sys::reserve_info_msg_t) {
    crate::guard((), || {
        // SAFETY: msg and its array are this library's blocks.
        unsafe {
            crate::xmalloc::free_records(
                msg,
                |m| &mut m.reservation_array,
                |m| m.record_count as usize,
                |r| free_resv_members(r),
            )
        }
    })
}

/// `void slurm_init_resv_desc_msg(resv_desc_msg_t *msg)`: zero, with "not
/// given" in the numbers and times.
///
/// # Safety
/// `msg` is NULL or valid for a write of the struct.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_resv_desc_msg(msg: *mut sys::resv_desc_msg_t) {
    crate::guard((), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: integers and pointers: all zero is valid.
        let mut m: sys::resv_desc_msg_t = unsafe { std::mem::zeroed() };
        m.duration = sys::NO_VAL;
        m.end_time = sys::NO_VAL as _;
        m.flags = NO_VAL64;
        m.max_start_delay = sys::NO_VAL;
        m.purge_comp_time = sys::NO_VAL;
        m.start_time = sys::NO_VAL as _;
        #[cfg(feature = "slurm-24-11")]
        {
            m.core_cnt = sys::NO_VAL;
            m.node_cnt = sys::NO_VAL;
        }
        #[cfg(feature = "slurm-22-05")]
        {
            m.resv_watts = sys::NO_VAL;
        }
        // SAFETY: the caller's contract.
        unsafe { msg.write(m) };
    })
}

/// A `Users=`-style list as the message carries it: `a,b` replaces the
/// list, `+a,-b` adds and removes.
fn name_list(v: &str) -> NameList {
    let items: Vec<&str> = v.split(',').filter(|s| !s.is_empty()).collect();
    let mut l = NameList::default();
    if items.iter().all(|i| !i.starts_with(['+', '-'])) {
        l.set = Some(items.iter().map(|s| s.to_string()).collect());
        return l;
    }
    for i in items {
        if let Some(a) = i.strip_prefix('+') {
            l.add.push(a.to_string());
        } else if let Some(r) = i.strip_prefix('-') {
            l.remove.push(r.to_string());
        } else {
            l.add.push(i.to_string());
        }
    }
    l
}

/// A count of the message: 24.11's number (NO_VAL: not given), 22.05's
/// zero-terminated array (NULL: not given; the counts are summed).
#[cfg(feature = "slurm-24-11")]
fn count(v: u32) -> Option<u32> {
    (v != sys::NO_VAL).then_some(v)
}
#[cfg(feature = "slurm-22-05")]
fn count(v: *mut u32) -> Option<u32> {
    if v.is_null() {
        return None;
    }
    let mut sum = 0u32;
    // SAFETY: a non-NULL count array ends with 0 (slurm.h's contract).
    unsafe {
        let mut i = 0;
        while *v.add(i) != 0 {
            sum = sum.saturating_add(*v.add(i));
            i += 1;
        }
    }
    Some(sum)
}

/// The request fields a descriptor gives.
///
/// # Safety
/// The message's strings are NULL or NUL-terminated (and 22.05's count
/// arrays NULL or 0-terminated).
pub unsafe fn resv_spec(m: &sys::resv_desc_msg_t) -> Result<ReservationSpec, i32> {
    let s = |p: *mut c_char| -> Result<Option<String>, i32> {
        if p.is_null() {
            return Ok(None);
        }
        // SAFETY: the caller's contract.
        unsafe { crate::text(p) }.map(|t| Some(t.to_string())).ok_or(sys::SLURM_ERROR)
    };
    #[allow(clippy::unnecessary_cast)] // (time_t is not i64 everywhere)
    let time = |t: sys::time_t| (t as i64 != sys::NO_VAL as i64).then_some(t as i64);
    let mut spec = ReservationSpec {
        name: s(m.name)?.unwrap_or_default(),
        start_time: time(m.start_time),
        end_time: time(m.end_time),
        duration: (m.duration != sys::NO_VAL).then_some(m.duration),
        users: s(m.users)?.map(|v| name_list(&v)),
        accounts: s(m.accounts)?.map(|v| name_list(&v)),
        groups: s(m.groups)?.map(|v| name_list(&v)),
        nodes: s(m.node_list)?,
        node_count: count(m.node_cnt),
        core_count: count(m.core_cnt),
        partition: s(m.partition)?,
        features: s(m.features)?,
        tres: s(m.tres_str)?,
        max_start_delay: (m.max_start_delay != sys::NO_VAL).then_some(m.max_start_delay / 60),
        ..Default::default()
    };
    if m.flags != NO_VAL64 {
        spec.skip = m.flags & RESERVE_FLAG_SKIP != 0;
        let names = flag_names(m.flags);
        if !names.is_empty() {
            spec.flags = Some(names);
        }
    }
    Ok(spec)
}

/// `char *slurm_create_reservation(resv_desc_msg_t *msg)`: the new
/// reservation's name, or NULL with errno. The name is plain `malloc`
/// memory the caller releases with `free` (Slurm's `strdup`; the Perl API
/// and pyslurm call `free` on it).
///
/// # Safety
/// `msg` is NULL or an initialised descriptor.
#[no_mangle]
pub unsafe extern "C" fn slurm_create_reservation(resv_msg: *mut sys::resv_desc_msg_t) -> *mut c_char {
    crate::guard(std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let Some(m) = (unsafe { resv_msg.as_ref() }) else {
            crate::errno::set(libc::EINVAL);
            return std::ptr::null_mut();
        };
        // SAFETY: the caller's contract.
        let spec = match unsafe { resv_spec(m) } {
            Ok(s) => s,
            Err(e) => {
                crate::errno::set(e);
                return std::ptr::null_mut();
            }
        };
        match crate::conn::call(|c| c.reservation(&ReservationRequest::Create(spec))) {
            Ok(name) => crate::xmalloc::malloc_str(&name),
            Err(_) => std::ptr::null_mut(),
        }
    })
}

/// `int slurm_update_reservation(resv_desc_msg_t *msg)`: 0, or -1 with errno.
///
/// # Safety
/// `msg` is NULL or an initialised descriptor naming the reservation.
#[no_mangle]
pub unsafe extern "C" fn slurm_update_reservation(resv_msg: *mut sys::resv_desc_msg_t) -> c_int {
    crate::guard(-1, || {
        // SAFETY: the caller's contract.
        let Some(m) = (unsafe { resv_msg.as_ref() }) else {
            crate::errno::set(libc::EINVAL);
            return -1;
        };
        // SAFETY: the caller's contract.
        let spec = match unsafe { resv_spec(m) } {
            Ok(s) if !s.name.is_empty() => s,
            Ok(_) => {
                crate::errno::set(sys::ESLURM_RESERVATION_INVALID as i32);
                return -1;
            }
            Err(e) => {
                crate::errno::set(e);
                return -1;
            }
        };
        match crate::conn::call(|c| c.reservation(&ReservationRequest::Update(spec))) {
            Ok(_) => 0,
            Err(_) => -1,
        }
    })
}

/// `int slurm_delete_reservation(reservation_name_msg_t *msg)`: 0, or -1
/// with errno.
///
/// # Safety
/// `msg` is NULL or a message whose name is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_delete_reservation(resv_msg: *mut sys::reservation_name_msg_t) -> c_int {
    crate::guard(-1, || {
        // SAFETY: the caller's contract.
        let name = unsafe { resv_msg.as_ref() }.and_then(|m| unsafe { crate::text(m.name) });
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            crate::errno::set(sys::ESLURM_RESERVATION_INVALID as i32);
            return -1;
        };
        let req = ReservationRequest::Delete { name: name.to_string() };
        match crate::conn::call(|c| c.reservation(&req)) {
            Ok(_) => 0,
            Err(_) => -1,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::tests::{s, view};

    #[test]
    fn reservations_as_slurmctld_sends_them() {
        let v = view();
        let msg = resv_msg(&v);
        // SAFETY: a message of resv_msg's, freed once.
        unsafe {
            assert_eq!((*msg).record_count, 1);
            let r = &*(*msg).reservation_array;
            assert_eq!(s(r.name).as_deref(), Some("r1"));
            assert_eq!(s(r.node_list).as_deref(), Some("n2"));
            assert_eq!(std::slice::from_raw_parts(r.node_inx, 3), &[1, 1, -1]);
            assert_eq!((r.node_cnt, r.core_cnt), (1, 4));
            assert_eq!(r.flags, 1 | (1 << 6));
            assert_eq!(s(r.users).as_deref(), Some("root"));
            assert!(r.accounts.is_null());
            assert_eq!(s(r.tres_str).as_deref(), Some("cpu=4"));
            slurm_free_reservation_info_msg(msg);
            slurm_free_reservation_info_msg(std::ptr::null_mut());
        }
        assert_eq!(flag_names(flag_bits(&["MAINT".into(), "FLEX".into()])), vec!["MAINT", "FLEX"]);
    }

    #[test]
    fn descriptors() {
        // SAFETY: zeroed is valid; the strings outlive their use.
        let mut m: sys::resv_desc_msg_t = unsafe { std::mem::zeroed() };
        unsafe {
            slurm_init_resv_desc_msg(&mut m);
            let spec = resv_spec(&m).unwrap();
            assert_eq!(spec, ReservationSpec::default());
            let users = std::ffi::CString::new("+alice,-bob").unwrap();
            let nodes = std::ffi::CString::new("n[1-2]").unwrap();
            m.users = users.as_ptr() as *mut c_char;
            m.node_list = nodes.as_ptr() as *mut c_char;
            m.start_time = 1000 as _;
            m.duration = 60;
            m.flags = 1 | RESERVE_FLAG_SKIP;
            m.max_start_delay = 600;
            let spec = resv_spec(&m).unwrap();
            assert_eq!(
                spec.users.as_ref().map(|u| (u.add.clone(), u.remove.clone())),
                Some((vec!["alice".into()], vec!["bob".into()]))
            );
            assert_eq!((spec.start_time, spec.duration, spec.max_start_delay), (Some(1000), Some(60), Some(10)));
            assert_eq!((spec.flags, spec.skip), (Some(vec!["MAINT".to_string()]), true));
            assert_eq!(spec.nodes.as_deref(), Some("n[1-2]"));
        }
    }
}
