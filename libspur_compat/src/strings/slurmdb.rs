//! The text helpers of Slurm's accounting library that Slurmdb.so (Perl's
//! Slurm::DB) imports: a TRES count out of a TRES string (`1=4,2=1000`),
//! sreport's default report period, and a QOS bitmap as QOS names.

use crate::guard;
use crate::sys;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;

const INFINITE64: u64 = u64::MAX;

/// `uint64_t slurmdb_find_tres_count_in_string(char *tres_str_in, int id)`:
/// the count of TRES `id` in a `ID=COUNT,ID=COUNT` string (`1=4,2=1000`
/// gives 1000 for 2); INFINITE64 when it is not there (and for NULL or
/// empty text).
///
/// # Safety
/// `tres_str_in` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_find_tres_count_in_string(tres_str_in: *mut c_char, id: c_int) -> u64 {
    guard(INFINITE64, || {
        if tres_str_in.is_null() {
            return INFINITE64;
        }
        // SAFETY: not NULL, NUL-terminated (the contract above).
        let all = unsafe { CStr::from_ptr(tres_str_in) }.to_bytes();
        let mut at = 0;
        while at < all.len() {
            let here = &all[at..];
            if super::charlist::atoi(here) == id {
                let Some(eq) = here.iter().position(|&c| c == b'=') else { break };
                // SAFETY: a position inside the caller's NUL-terminated
                // text; strtoull reads up to its end at most.
                return unsafe { libc::strtoull(tres_str_in.add(at + eq + 1), null_mut(), 10) };
            }
            match here.iter().position(|&c| c == b',') {
                Some(c) => at += c + 1,
                None => break,
            }
        }
        INFINITE64
    })
}

/// Local time of `t`, None when it has none.
fn local(t: libc::time_t) -> Option<libc::tm> {
    // SAFETY: tm is plain integers (and a pointer localtime_r sets).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers to locals.
    (!unsafe { libc::localtime_r(&t, &mut tm) }.is_null()).then_some(tm)
}

/// A broken-down local time as a time, the daylight-saving state left to
/// the C library (as Slurm's slurm_mktime).
fn mktime(mut tm: libc::tm) -> libc::time_t {
    tm.tm_isdst = -1;
    // SAFETY: a pointer to a local.
    unsafe { libc::mktime(&mut tm) }
}

/// The start or end of a report period: the given time rounded to the
/// nearest hour, or (unset, 0) midnight today for the end and midnight
/// yesterday for the start.
fn report_bound(sent: libc::time_t, start: bool, now: libc::time_t) -> Option<libc::time_t> {
    let mut tm;
    if sent == 0 {
        tm = local(now)?;
        tm.tm_hour = 0;
        if start {
            tm.tm_mday -= 1;
        }
    } else {
        tm = local(sent)?;
        if tm.tm_sec >= 30 {
            tm.tm_min += 1;
        }
        if tm.tm_min >= 30 {
            tm.tm_hour += 1;
        }
    }
    tm.tm_sec = 0;
    tm.tm_min = 0;
    Some(mktime(tm))
}

/// `int slurmdb_report_set_start_end_time(time_t *start, time_t *end)`:
/// sreport's period: each time rounded to the hour, yesterday (midnight
/// to midnight) for unset (0) times, at least one hour long. Slurm reads
/// each time as a C `int`, and so does Spur. SLURM_SUCCESS, or
/// SLURM_ERROR for a NULL pointer or a time without a local time.
///
/// # Safety
/// `start` and `end` are NULL or point to writable `time_t`s.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_report_set_start_end_time(start: *mut libc::time_t, end: *mut libc::time_t) -> c_int {
    guard(sys::SLURM_ERROR, || {
        // SAFETY: the contract above.
        let (Some(s), Some(e)) = (unsafe { start.as_mut() }, unsafe { end.as_mut() }) else {
            return sys::SLURM_ERROR;
        };
        // SAFETY: time(NULL) is always allowed.
        let now = unsafe { libc::time(null_mut()) };
        let (sent_start, sent_end) = (libc::time_t::from(*s as i32), libc::time_t::from(*e as i32));
        let Some(new_end) = report_bound(sent_end, false, now) else { return sys::SLURM_ERROR };
        *e = new_end;
        let Some(new_start) = report_bound(sent_start, true, now) else { return sys::SLURM_ERROR };
        *s = new_start;
        if *e - *s < 3600 {
            *e = *s + 3600;
        }
        sys::SLURM_SUCCESS as c_int
    })
}

/// `int slurmdb_find_qos_in_list(void *x, void *key)`: 1 when the QOS
/// record `x` has the id `*key`, else 0.
///
/// # Safety
/// `x` points to a `slurmdb_qos_rec_t`, `key` to a `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_find_qos_in_list(x: *mut c_void, key: *mut c_void) -> c_int {
    guard(0, || {
        // SAFETY: the contract above.
        let (Some(q), Some(k)) =
            (unsafe { x.cast::<sys::slurmdb_qos_rec_t>().as_ref() }, unsafe { key.cast::<u32>().as_ref() })
        else {
            return 0;
        };
        c_int::from(q.id == *k)
    })
}

/// `char *slurmdb_qos_str(List qos_list, uint32_t level)`: the name of the
/// QOS with id `level` in a list of QOS records (the record's own
/// string); empty text for 0; NULL for a NULL list or an unknown id.
///
/// # Safety
/// `qos_list` is NULL or a live list of `slurmdb_qos_rec_t` records.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_qos_str(qos_list: *mut sys::xlist, level: u32) -> *mut c_char {
    guard(null_mut(), || {
        if qos_list.is_null() {
            return null_mut();
        }
        if level == 0 {
            return super::cstatic("");
        }
        let mut key = level;
        // SAFETY: the contract above; the key is a local u32.
        let q = unsafe {
            crate::list::slurm_list_find_first(qos_list, Some(slurmdb_find_qos_in_list), (&mut key as *mut u32).cast())
        };
        // SAFETY: a record of the list.
        unsafe { q.cast::<sys::slurmdb_qos_rec_t>().as_ref() }.map_or(null_mut(), |q| q.name)
    })
}

/// `char *slurmdb_get_qos_complete_str_bitstr(List qos_list, bitstr_t
/// *valid_qos)`: the names of the QOSes whose bits are set, sorted and
/// joined with commas (`high,normal`), as sacctmgr prints an association's
/// QOS; xmalloc'ed (the caller releases it with `slurm_xfree`); empty
/// text when there is none.
///
/// # Safety
/// `qos_list` as `slurmdb_qos_str`'s; `valid_qos` NULL or a bitmap of
/// this library.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_get_qos_complete_str_bitstr(
    qos_list: *mut sys::xlist,
    valid_qos: *mut sys::bitstr_t,
) -> *mut c_char {
    guard(null_mut(), || {
        use crate::bitstr::{slurm_bit_ffs, slurm_bit_size, slurm_bit_test};
        // SAFETY: the contract above.
        let empty = unsafe { crate::list::slurm_list_count(qos_list) } == 0
            || valid_qos.is_null()
            // SAFETY: a bitmap of this library.
            || unsafe { slurm_bit_ffs(valid_qos) } == -1;
        if empty {
            return crate::xmalloc::xstrdup("");
        }
        let names = crate::list::slurm_list_create(None);
        // SAFETY: as above.
        for i in 0..unsafe { slurm_bit_size(valid_qos) } {
            // SAFETY: as above; i within the bitmap.
            if unsafe { slurm_bit_test(valid_qos, i) } == 0 {
                continue;
            }
            // SAFETY: the contract above.
            let n = unsafe { slurmdb_qos_str(qos_list, u32::try_from(i).unwrap_or(u32::MAX)) };
            if !n.is_null() {
                // SAFETY: names is ours; its items are not freed by it.
                unsafe { crate::list::slurm_list_append(names, n.cast()) };
            }
        }
        // SAFETY: names holds NUL-terminated strings (records' names).
        let s = unsafe { super::charlist::slurm_char_list_to_xstr(names) };
        // SAFETY: ours, no destructor.
        unsafe { crate::list::slurm_list_destroy(names) };
        if s.is_null() {
            crate::xmalloc::xstrdup("")
        } else {
            s
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tres_counts() {
        let f = |s: &CStr, id| {
            // SAFETY: a NUL-terminated literal.
            unsafe { slurmdb_find_tres_count_in_string(s.as_ptr().cast_mut(), id) }
        };
        assert_eq!(f(c"1=4,2=1000,4=2", 2), 1000);
        assert_eq!(f(c"1=4,2=1000,4=2", 1), 4);
        assert_eq!(f(c"1=4,2=1000,4=2", 3), INFINITE64);
        assert_eq!(f(c"", 1), INFINITE64);
        // SAFETY: NULL is allowed.
        assert_eq!(unsafe { slurmdb_find_tres_count_in_string(null_mut(), 1) }, INFINITE64);
    }

    #[test]
    fn report_period() {
        let (mut s, mut e): (libc::time_t, libc::time_t) = (0, 0);
        // SAFETY: pointers to locals.
        assert_eq!(unsafe { slurmdb_report_set_start_end_time(&mut s, &mut e) }, 0);
        assert!(e - s >= 3600 && e - s <= 25 * 3600, "{} {}", s, e);
        let t0 = report_bound(1_700_000_000, true, 0).unwrap_or(0);
        let (mut s, mut e) = (1_700_000_000, 1_700_000_100);
        // SAFETY: as above.
        assert_eq!(unsafe { slurmdb_report_set_start_end_time(&mut s, &mut e) }, 0);
        assert_eq!((s, e), (t0, t0 + 3600));
        assert_eq!(s % 1800, 0);
        // SAFETY: NULL is refused.
        assert_eq!(unsafe { slurmdb_report_set_start_end_time(null_mut(), &mut e) }, -1);
    }

    #[test]
    fn qos_names() {
        // SAFETY: zeroed records are valid (integers and pointers).
        let mut recs: Vec<sys::slurmdb_qos_rec_t> = (0..3).map(|_| unsafe { std::mem::zeroed() }).collect();
        let names = [c"normal", c"high", c"low"];
        for (i, r) in recs.iter_mut().enumerate() {
            r.id = i as u32 + 1;
            r.name = names[i].as_ptr().cast_mut();
        }
        let l = crate::list::slurm_list_create(None);
        for r in recs.iter_mut() {
            // SAFETY: l is ours; the records outlive it.
            unsafe { crate::list::slurm_list_append(l, (r as *mut sys::slurmdb_qos_rec_t).cast()) };
        }
        let b = crate::bitstr::slurm_bit_alloc(8);
        // SAFETY: l and b are live; the result is released.
        unsafe {
            crate::bitstr::slurm_bit_set(b, 1);
            crate::bitstr::slurm_bit_set(b, 2);
            crate::bitstr::slurm_bit_set(b, 7);
            let mut s = slurmdb_get_qos_complete_str_bitstr(l, b);
            assert_eq!(CStr::from_ptr(s).to_str(), Ok("high,normal"));
            crate::xmalloc::xfree(&mut s);
            let mut s = slurmdb_get_qos_complete_str_bitstr(l, null_mut());
            assert_eq!(CStr::from_ptr(s).to_str(), Ok(""));
            crate::xmalloc::xfree(&mut s);
            assert_eq!(CStr::from_ptr(slurmdb_qos_str(l, 3)).to_str(), Ok("low"));
            assert!(slurmdb_qos_str(l, 9).is_null());
            let mut bb = b;
            crate::bitstr::slurm_bit_free(&mut bb);
            crate::list::slurm_list_destroy(l);
        }
    }
}
