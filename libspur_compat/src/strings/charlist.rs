//! Lists of names and of job steps parsed from comma-separated text, as
//! sacctmgr, sacct and Slurm's Perl API (Slurmdb.so) fill condition lists:
//! `slurm_addto_char_list` (`a,b,node[1-3]`), `slurm_addto_step_list`
//! (`1234.0,1235_7,1236+1`), the matching helpers they use, and the
//! step record's parser and destructor.
//!
//! Where Slurm ends the process on text it cannot read (`fatal`: a step
//! that does not start with a digit), Spur returns the failure value
//! (SLURM_ERROR, or NULL for a step) and leaves the process alone. Slurm
//! replaces quotes inside the caller's text with backquotes in place;
//! Spur leaves the caller's text unchanged and puts the backquotes in the
//! names it adds only.

use crate::guard;
use crate::list::{slurm_list_append, slurm_list_count, slurm_list_delete_all, slurm_list_find_first, slurm_list_sort};
use crate::sys;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;

/// A copy of `b` in xmalloc's layout, NUL-terminated (NULL when memory
/// runs out).
fn xbytes(b: &[u8]) -> *mut c_char {
    let p = crate::xmalloc::xalloc(b.len() + 1).cast::<u8>();
    if !p.is_null() {
        // SAFETY: p has b.len() + 1 zeroed bytes; b is ours.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
    }
    p.cast()
}

/// The bytes of a C string, None for NULL.
///
/// # Safety
/// `p` is NULL or NUL-terminated.
unsafe fn bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the contract above.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// Slurm's NULL-tolerant comparison: two NULLs are equal, NULL sorts
/// first.
fn cmp_opt(a: Option<&[u8]>, b: Option<&[u8]>, fold: bool) -> std::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) if fold => a.to_ascii_lowercase().cmp(&b.to_ascii_lowercase()),
        _ => a.cmp(&b),
    }
}

/// `int slurm_find_char_in_list(void *x, void *key)`: 1 when the two C
/// strings are equal ignoring ASCII case (both NULL too), else 0.
///
/// # Safety
/// Each is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_find_char_in_list(x: *mut c_void, key: *mut c_void) -> c_int {
    // SAFETY: the contract above.
    guard(0, || c_int::from(cmp_opt(unsafe { bytes(x.cast()) }, unsafe { bytes(key.cast()) }, true).is_eq()))
}

/// `int slurm_find_char_exact_in_list(void *x, void *key)`: 1 when the two
/// C strings are equal (both NULL too), else 0.
///
/// # Safety
/// Each is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_find_char_exact_in_list(x: *mut c_void, key: *mut c_void) -> c_int {
    // SAFETY: the contract above.
    guard(0, || c_int::from(cmp_opt(unsafe { bytes(x.cast()) }, unsafe { bytes(key.cast()) }, false).is_eq()))
}

/// The ordering of two list items as `slurm_list_sort` hands them (a
/// pointer to each item).
///
/// # Safety
/// Each points to a NULL or NUL-terminated `char *`.
unsafe fn item_order(v1: *mut c_void, v2: *mut c_void) -> std::cmp::Ordering {
    // SAFETY: the contract above.
    let (a, b) = unsafe { (*v1.cast::<*const c_char>(), *v2.cast::<*const c_char>()) };
    // SAFETY: as above.
    cmp_opt(unsafe { bytes(a) }, unsafe { bytes(b) }, false)
}

/// `int slurm_sort_char_list_asc(void *v1, void *v2)`: the comparison of
/// `slurm_list_sort` for a list of strings, in increasing byte order.
///
/// # Safety
/// Each points to an item: a NULL or NUL-terminated `char *`.
#[no_mangle]
pub unsafe extern "C" fn slurm_sort_char_list_asc(v1: *mut c_void, v2: *mut c_void) -> c_int {
    // SAFETY: the contract above.
    guard(0, || unsafe { item_order(v1, v2) } as c_int)
}

/// `int slurm_sort_char_list_desc(void *v1, void *v2)`: as
/// `slurm_sort_char_list_asc`, in decreasing order.
///
/// # Safety
/// As `slurm_sort_char_list_asc`.
#[no_mangle]
pub unsafe extern "C" fn slurm_sort_char_list_desc(v1: *mut c_void, v2: *mut c_void) -> c_int {
    // SAFETY: the contract above.
    guard(0, || unsafe { item_order(v1, v2) }.reverse() as c_int)
}

/// `char *slurm_char_list_to_xstr(List char_list)`: the list's strings
/// sorted (the list itself is sorted, as Slurm sorts it) and joined with
/// commas, xmalloc'ed (the caller releases it with `slurm_xfree`); NULL
/// for a NULL or empty list.
///
/// # Safety
/// `char_list` is NULL or a live list of NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_char_list_to_xstr(char_list: *mut sys::xlist) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: the contract above; the comparison fits the items.
        unsafe { slurm_list_sort(char_list, Some(slurm_sort_char_list_asc)) };
        // SAFETY: as above.
        let items = unsafe { crate::list::list_items(char_list) };
        if items.is_empty() {
            return null_mut();
        }
        let parts: Vec<&[u8]> = items
            .iter()
            // SAFETY: each item is NULL or NUL-terminated (the contract).
            .map(|p| unsafe { bytes(p.cast_const().cast()) }.unwrap_or(b"(null)"))
            .collect();
        xbytes(&parts.join(&b","[..]))
    })
}

// ------------------------------------------------------------ name lists

/// Add one name to the list as the release does: 22.05 takes out the
/// first name equal ignoring case (counting the name as new when there
/// was none), then appends it (lower-cased when asked); 24.11 lower-cases
/// first, takes out every equal name and appends it. Returns 1 when the
/// name counts as new.
///
/// # Safety
/// `l` is a live list of xmalloc'ed strings.
unsafe fn add_name(l: *mut sys::xlist, name: &[u8], lower: bool) -> c_int {
    let mut name = name.to_vec();
    let key_before = xbytes(&name);
    if lower {
        name.make_ascii_lowercase();
    }
    let item = xbytes(&name);
    let new = if cfg!(feature = "slurm-22-05") {
        // SAFETY: the contract above; the key is a live string of ours.
        let gone = unsafe { crate::list::slurm_list_delete_first(l, Some(slurm_find_char_in_list), key_before.cast()) };
        c_int::from(gone <= 0)
    } else {
        // SAFETY: as above.
        unsafe { slurm_list_delete_all(l, Some(slurm_find_char_exact_in_list), item.cast()) };
        1
    };
    let mut k = key_before;
    // SAFETY: ours, not in the list.
    unsafe { crate::xmalloc::xfree(&mut k) };
    // SAFETY: the contract above; the list now owns item.
    unsafe { slurm_list_append(l, item.cast()) };
    new
}

/// The hosts of a bracketed expression (None when it does not parse).
fn hosts(expr: &[u8]) -> Option<Vec<String>> {
    let s = std::str::from_utf8(expr).ok()?;
    #[cfg(feature = "slurm-22-05")]
    let h = spur_grammar::hostlist::expand_22_05(s).ok();
    #[cfg(not(feature = "slurm-22-05"))]
    let h = spur_grammar::hostlist::expand_bounded(s, 1 << 20).ok();
    h
}

/// `int slurm_addto_char_list(List char_list, char *names)`: as
/// `slurm_addto_char_list_with_case` with lower-casing.
///
/// # Safety
/// As `slurm_addto_char_list_with_case`.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_char_list(char_list: *mut sys::xlist, names: *mut c_char) -> c_int {
    // SAFETY: the same contract.
    guard(0, || unsafe { slurm_addto_char_list_with_case(char_list, names, true) })
}

/// `int slurm_addto_char_list_with_case(List char_list, char *names, bool
/// lower_case_normalization)`: append the comma-separated names of
/// `names` to a list of xmalloc'ed strings, a name already there moving to
/// the end; `node[1-3]` adds each host; text in quotes is taken whole up
/// to the closing quote (a quote inside becomes a backquote); an empty
/// text adds an empty name. Returns how many names were new (22.05) or
/// the list's count (24.11); 0 for a NULL list.
///
/// # Safety
/// `char_list` is NULL or a live list whose items are xmalloc'ed strings
/// released by its destructor; `names` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_char_list_with_case(
    char_list: *mut sys::xlist,
    names: *mut c_char,
    lower_case_normalization: bool,
) -> c_int {
    guard(0, || {
        if char_list.is_null() {
            return 0;
        }
        let lower = lower_case_normalization;
        let mut added = 0;
        // SAFETY: the contract above.
        if let Some(src) = unsafe { bytes(names) } {
            let mut s = src.to_vec();
            let mut i = 0;
            let quote = match s.first() {
                Some(&q @ (b'"' | b'\'')) => {
                    i = 1;
                    Some(q)
                }
                _ => None,
            };
            let mut start = i;
            // SAFETY: the contract above.
            let before = unsafe { slurm_list_count(char_list) };
            let (mut in_brackets, mut after_brackets) = (false, false);
            while i < s.len() {
                let c = s[i];
                if quote == Some(c) {
                    break;
                } else if c == b'"' || c == b'\'' {
                    s[i] = b'`';
                } else if c == b'[' {
                    in_brackets = true;
                } else if c == b',' && !in_brackets {
                    if after_brackets {
                        after_brackets = false;
                    } else {
                        if i + 1 == s.len() {
                            break; // a comma at the end adds nothing
                        }
                        if i != start {
                            // SAFETY: the contract above.
                            added += unsafe { add_name(char_list, &s[start..i], lower) };
                        }
                    }
                    start = i + 1;
                } else if c == b']' {
                    after_brackets = true;
                    in_brackets = false;
                    for h in hosts(&s[start..=i]).unwrap_or_default() {
                        // SAFETY: the contract above.
                        added += unsafe { add_name(char_list, h.as_bytes(), lower) };
                        start = i + 1;
                    }
                }
                i += 1;
            }
            // SAFETY: the contract above.
            if before == unsafe { slurm_list_count(char_list) } || i != start {
                // SAFETY: the contract above.
                added += unsafe { add_name(char_list, &s[start..i.max(start)], lower) };
            }
        }
        if cfg!(feature = "slurm-22-05") {
            added
        } else {
            // SAFETY: the contract above.
            unsafe { slurm_list_count(char_list) }
        }
    })
}

// ------------------------------------------------------------ step lists

/// C's atoi: blanks, a sign, digits (wrapping as a 32-bit int).
pub(super) fn atoi(b: &[u8]) -> i32 {
    let t: &[u8] = {
        let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
        &b[n..]
    };
    let (neg, t) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let v = t
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0i64, |a, d| a.wrapping_mul(10).wrapping_add(i64::from(d - b'0')));
    (if neg { v.wrapping_neg() } else { v }) as i32
}

/// A step as `slurm_parse_step_str` reads it: `JOB[_TASK|+OFFSET][.STEP[+COMP]]`
/// with STEP a number, `batch`, `extern`, `interactive` (24.11: `TBD`).
/// None where Slurm would end the process.
fn parse_step(name: &[u8]) -> Option<sys::slurm_selected_step_t> {
    let no_val = sys::NO_VAL;
    // SAFETY: the record is integers (and, in 24.11, a pointer): zero is valid.
    let mut st: sys::slurm_selected_step_t = unsafe { std::mem::zeroed() };
    st.step_id.step_het_comp = no_val;
    let (job, step) = match name.iter().position(|&c| c == b'.') {
        Some(d) => (&name[..d], Some(&name[d + 1..])),
        None => (name, None),
    };
    let mut het_step = false;
    match step {
        Some(dot) => {
            st.step_id.step_id = match dot {
                b"batch" => sys::SLURM_BATCH_SCRIPT,
                b"extern" => sys::SLURM_EXTERN_CONT,
                b"interactive" => sys::SLURM_INTERACTIVE_STEP,
                #[cfg(not(feature = "slurm-22-05"))]
                b"TBD" => sys::SLURM_PENDING_STEP,
                d if d.first().is_some_and(u8::is_ascii_digit) => atoi(d) as u32,
                _ => return None,
            };
            if let Some(p) = dot.iter().position(|&c| c == b'+') {
                het_step = true;
                let digits: Vec<u8> = dot[p + 1..].iter().copied().take_while(u8::is_ascii_digit).collect();
                st.step_id.step_het_comp =
                    std::str::from_utf8(&digits).ok().and_then(|d| d.parse::<u64>().ok()).unwrap_or(0) as u32;
            }
        }
        None => st.step_id.step_id = no_val,
    }
    let mut job = job;
    if let Some(u) = job.iter().position(|&c| c == b'_') {
        let task = &job[u + 1..];
        if !task.first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
        st.array_task_id = atoi(task) as u32;
        st.het_job_offset = no_val;
        job = &job[..u];
    } else if let Some(p) = job.iter().position(|&c| c == b'+').filter(|_| !het_step) {
        let off = &job[p + 1..];
        if !off.first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
        st.array_task_id = no_val;
        st.het_job_offset = atoi(off) as u32;
        job = &job[..p];
    } else {
        st.array_task_id = no_val;
        st.het_job_offset = no_val;
    }
    st.step_id.job_id = atoi(job) as u32;
    Some(st)
}

/// `slurm_selected_step_t *slurm_parse_step_str(char *name)`: a step
/// record of `1234`, `1234.0`, `1234_7.batch`, `1234+1`, `1234.0+2`
/// (unset parts NO_VAL), xmalloc'ed: released with
/// `slurm_destroy_selected_step`. NULL for NULL or text Slurm would end
/// the process on.
///
/// # Safety
/// `name` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_parse_step_str(name: *mut c_char) -> *mut sys::slurm_selected_step_t {
    guard(null_mut(), || {
        // SAFETY: the contract above.
        let Some(st) = unsafe { bytes(name) }.and_then(parse_step) else { return null_mut() };
        let p = crate::xmalloc::xnew::<sys::slurm_selected_step_t>();
        if !p.is_null() {
            // SAFETY: a new block the size of the record.
            unsafe { p.write(st) };
        }
        p
    })
}

/// `void slurm_destroy_selected_step(void *object)`: release a step record
/// (and, in 24.11, its array bitmap). NULL: nothing.
///
/// # Safety
/// `object` is NULL or an xmalloc'ed `slurm_selected_step_t` not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_destroy_selected_step(object: *mut c_void) {
    guard((), || {
        let mut p = object.cast::<sys::slurm_selected_step_t>();
        if p.is_null() {
            return;
        }
        #[cfg(not(feature = "slurm-22-05"))]
        // SAFETY: a live record (the contract above); its bitmap is NULL
        // or one of this library's.
        unsafe {
            crate::bitstr::slurm_bit_free(&mut (*p).array_bitmap)
        };
        // SAFETY: the contract above.
        unsafe { crate::xmalloc::xfree(&mut p) };
    })
}

/// `int slurmdb_find_selected_step_in_list(void *x, void *key)`: 1 when
/// two step records name the same step (job, step, component, array task
/// and hetjob offset), else 0.
///
/// # Safety
/// Both point to valid `slurm_selected_step_t` records.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_find_selected_step_in_list(x: *mut c_void, key: *mut c_void) -> c_int {
    guard(0, || {
        // SAFETY: the contract above.
        let (Some(a), Some(b)) = (unsafe { x.cast::<sys::slurm_selected_step_t>().as_ref() }, unsafe {
            key.cast::<sys::slurm_selected_step_t>().as_ref()
        }) else {
            return 0;
        };
        let id_bytes = |s: &sys::slurm_selected_step_t| {
            let p = std::ptr::addr_of!(s.step_id).cast::<u8>();
            // SAFETY: the step id is plain data of that size (compared
            // byte for byte, as Slurm compares it).
            unsafe { std::slice::from_raw_parts(p, std::mem::size_of::<sys::slurm_step_id_t>()) }.to_vec()
        };
        c_int::from(
            id_bytes(a) == id_bytes(b) && a.array_task_id == b.array_task_id && a.het_job_offset == b.het_job_offset,
        )
    })
}

/// Add one step to the list unless an equal one is there: 1 when added,
/// 0 when already there, SLURM_ERROR for text that is not a step.
///
/// # Safety
/// `l` is a live list of step records.
unsafe fn add_step(l: *mut sys::xlist, name: &[u8]) -> c_int {
    if !name.first().is_some_and(u8::is_ascii_digit) {
        return sys::SLURM_ERROR;
    }
    let Some(st) = parse_step(name) else { return sys::SLURM_ERROR };
    let p = crate::xmalloc::xnew::<sys::slurm_selected_step_t>();
    if p.is_null() {
        return sys::SLURM_ERROR;
    }
    // SAFETY: a new block the size of the record.
    unsafe { p.write(st) };
    // SAFETY: the contract above; p is a live record.
    let found = unsafe { slurm_list_find_first(l, Some(slurmdb_find_selected_step_in_list), p.cast()) };
    if found.is_null() {
        // SAFETY: the list now owns p.
        unsafe { slurm_list_append(l, p.cast()) };
        1
    } else {
        // SAFETY: p is ours, not in the list.
        unsafe { slurm_destroy_selected_step(p.cast()) };
        0
    }
}

/// `int slurm_addto_step_list(List step_list, char *names)`: append the
/// steps of comma-separated text (`1234.0,1235_7.batch`; quotes as in
/// `slurm_addto_char_list_with_case`) as `slurm_selected_step_t` records,
/// leaving out steps already in the list. Returns how many were added;
/// SLURM_ERROR at the first one that is not a step (where Slurm ends the
/// process); 0 for a NULL list or text.
///
/// # Safety
/// `step_list` is NULL or a live list of step records (released by its
/// destructor, `slurm_destroy_selected_step`); `names` NULL or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_step_list(step_list: *mut sys::xlist, names: *mut c_char) -> c_int {
    guard(0, || {
        // SAFETY: the contract above.
        let (false, Some(src)) = (step_list.is_null(), unsafe { bytes(names) }) else { return 0 };
        let mut s = src.to_vec();
        let mut i = 0;
        let quote = match s.first() {
            Some(&q @ (b'"' | b'\'')) => {
                i = 1;
                Some(q)
            }
            _ => None,
        };
        let (mut start, mut count) = (i, 0);
        let mut add = |from: usize, to: usize, s: &[u8]| -> Option<()> {
            // SAFETY: the contract above.
            let r = unsafe { add_step(step_list, &s[from..to]) };
            (r != sys::SLURM_ERROR).then(|| count += r)
        };
        while i < s.len() {
            if quote == Some(s[i]) {
                break;
            } else if s[i] == b'"' || s[i] == b'\'' {
                s[i] = b'`';
            } else if s[i] == b',' {
                if i != start && add(start, i, &s).is_none() {
                    return sys::SLURM_ERROR;
                }
                start = i + 1;
            }
            i += 1;
        }
        if start < i && add(start, i, &s).is_none() {
            return sys::SLURM_ERROR;
        }
        count
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::{list_items, list_strings, slurm_list_create, slurm_list_destroy};

    fn names_list() -> *mut sys::xlist {
        slurm_list_create(Some(crate::xmalloc::slurm_xfree_ptr))
    }

    fn add(l: *mut sys::xlist, text: &CStr, lower: bool) -> c_int {
        let mut b = text.to_bytes_with_nul().to_vec();
        // SAFETY: l is live; b NUL-terminated.
        unsafe { slurm_addto_char_list_with_case(l, b.as_mut_ptr().cast(), lower) }
    }

    #[test]
    fn char_lists() {
        let l = names_list();
        let n = add(l, c"Alice,bob,,node[1-3],carol,", true);
        // SAFETY: l is live.
        assert_eq!(unsafe { list_strings(l) }, ["alice", "bob", "node1", "node2", "node3", "carol"]);
        let m = add(l, c"BOB", true);
        // SAFETY: as above.
        assert_eq!(unsafe { list_strings(l) }, ["alice", "node1", "node2", "node3", "carol", "bob"]);
        if cfg!(feature = "slurm-22-05") {
            assert_eq!((n, m), (6, 0));
        } else {
            assert_eq!((n, m), (6, 6));
        }
        // (a comma splits quoted text too; the closing quote ends it)
        add(l, c"'Quoted,Na\"me' ignored", false);
        // SAFETY: as above.
        assert_eq!(unsafe { list_strings(l) }[6..], ["Quoted", "Na`me"]);
        // SAFETY: as above; NULL names add nothing.
        unsafe {
            slurm_list_destroy(l);
            assert_eq!(slurm_addto_char_list(null_mut(), c"x".as_ptr().cast_mut()), 0);
        }
        // empty text adds one empty name (user='')
        let e = names_list();
        add(e, c"", true);
        // SAFETY: e is live.
        unsafe {
            assert_eq!(list_strings(e), [""]);
            slurm_list_destroy(e);
        }
    }

    #[test]
    fn to_xstr() {
        let l = names_list();
        add(l, c"b,c,a", false);
        // SAFETY: l is live.
        let mut s = unsafe { slurm_char_list_to_xstr(l) };
        // SAFETY: an xmalloc'ed string of ours.
        assert_eq!(unsafe { CStr::from_ptr(s) }.to_str(), Ok("a,b,c"));
        // SAFETY: as above; released once.
        unsafe {
            crate::xmalloc::xfree(&mut s);
            slurm_list_destroy(l);
        }
    }

    /// job, step, component, array task, hetjob offset
    type Step = (u32, u32, u32, u32, u32);

    fn steps(text: &CStr) -> (c_int, Vec<Step>) {
        let l = slurm_list_create(Some(slurm_destroy_selected_step));
        let mut b = text.to_bytes_with_nul().to_vec();
        // SAFETY: l live; b NUL-terminated.
        let n = unsafe { slurm_addto_step_list(l, b.as_mut_ptr().cast()) };
        // SAFETY: the items are step records.
        let v = unsafe { list_items(l) }
            .into_iter()
            .map(|p| {
                // SAFETY: as above.
                let s = unsafe { &*p.cast::<sys::slurm_selected_step_t>() };
                (s.step_id.job_id, s.step_id.step_id, s.step_id.step_het_comp, s.array_task_id, s.het_job_offset)
            })
            .collect();
        // SAFETY: l live, destroyed once.
        unsafe { slurm_list_destroy(l) };
        (n, v)
    }

    #[test]
    fn step_lists() {
        let nv = sys::NO_VAL;
        assert_eq!(
            steps(c"1.2,3,1.2,4_7.batch,5+1,6.0+2"),
            (
                5,
                vec![
                    (1, 2, nv, nv, nv),
                    (3, nv, nv, nv, nv),
                    (4, sys::SLURM_BATCH_SCRIPT, nv, 7, nv),
                    (5, nv, nv, nv, 1),
                    (6, 0, 2, nv, nv),
                ]
            )
        );
        assert_eq!(steps(c"'7.extern'").1, vec![(7, sys::SLURM_EXTERN_CONT, nv, nv, nv)]);
        assert_eq!(steps(c"1,x").0, sys::SLURM_ERROR);
        assert_eq!(steps(c"1.bogus").0, sys::SLURM_ERROR);
        // SAFETY: NULL list and text are allowed.
        assert_eq!(unsafe { slurm_addto_step_list(null_mut(), null_mut()) }, 0);
        // SAFETY: a literal; the record is released.
        unsafe {
            let p = slurm_parse_step_str(c"12_3.interactive".as_ptr().cast_mut());
            assert_eq!(((*p).step_id.job_id, (*p).array_task_id), (12, 3));
            assert_eq!((*p).step_id.step_id, sys::SLURM_INTERACTIVE_STEP);
            slurm_destroy_selected_step(p.cast());
            assert!(slurm_parse_step_str(c"1_x".as_ptr().cast_mut()).is_null());
        }
    }

    #[test]
    fn finders() {
        // SAFETY: literals and NULL.
        unsafe {
            let f = |a: &CStr, b: &CStr| {
                slurm_find_char_in_list(a.as_ptr().cast_mut().cast(), b.as_ptr().cast_mut().cast())
            };
            assert_eq!(f(c"Abc", c"aBC"), 1);
            assert_eq!(f(c"Abc", c"abd"), 0);
            assert_eq!(
                slurm_find_char_exact_in_list(c"Abc".as_ptr().cast_mut().cast(), c"abc".as_ptr().cast_mut().cast()),
                0
            );
            assert_eq!(slurm_find_char_exact_in_list(null_mut(), null_mut()), 1);
        }
    }
}
