//! Slurm's List (src/common/list.h): the opaque `List` / `list_t *` of
//! slurm.h that C code creates, fills, walks with iterators and destroys,
//! and that the library hands out inside records (slurmdb's `List`
//! fields, pyslurm's `slurm_list_create` + `slurm_list_append`).
//!
//! Exported: the `slurm_list_*` functions slurm.h declares and the rest of
//! the family libslurm exports (both releases export the same set, 24.11
//! adding `slurm_list_remove_first`). The functions that add an item return
//! it in 22.05 and nothing in 24.11, as each release's header says.
//!
//! A list is locked for every call, as Slurm's is, so threads may share it.
//! Unlike Slurm, the caller's functions (matching, `for_each`, destructors)
//! run with the list unlocked, on the items as they were when the call
//! began, so that a callback may call back into the same list; sorting
//! holds the lock while the comparison runs (as Slurm does).
//!
//! Iterators follow Slurm's: an iterator sees items appended after it, an
//! item removed through another path is skipped, `slurm_list_remove`
//! takes out the item the iterator returned last, and destroying a list
//! destroys its iterators. NULL lists and iterators give the failure value
//! (Slurm asserts); `slurm_list_count(NULL)` is 0 as Slurm documents.
//!
//! For the other modules: [`list_from`] builds a list to hand to a caller,
//! [`list_items`] and [`list_strings`] read a list a caller passes in.

use crate::guard;
use crate::sys::{listIterator, xlist, ListCmpF, ListDelF, ListFindF, ListForF};
use std::collections::HashMap;
use std::ffi::{c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::{Mutex, MutexGuard};

/// What the functions that add an item return: the item in 22.05, nothing
/// in 24.11.
#[cfg(feature = "slurm-22-05")]
pub type Added = *mut c_void;
/// What the functions that add an item return: the item in 22.05, nothing
/// in 24.11.
#[cfg(not(feature = "slurm-22-05"))]
pub type Added = ();

#[cfg(feature = "slurm-22-05")]
fn added(x: *mut c_void) -> Added {
    x
}
#[cfg(not(feature = "slurm-22-05"))]
fn added(_x: *mut c_void) -> Added {}

#[cfg(feature = "slurm-22-05")]
const ADD_FAILED: Added = null_mut();
#[cfg(not(feature = "slurm-22-05"))]
const ADD_FAILED: Added = ();

/// Marks a live list (a freed or foreign pointer is refused).
const LIST_MAGIC: u64 = 0x5370_7572_4c69_7374;
/// Marks a live iterator.
const ITER_MAGIC: u64 = 0x5370_7572_4974_6572;

/// Where an iterator stands: the index of the item `next` returns, and the
/// index of the item it returned last (for remove/insert).
#[derive(Clone, Copy, Default)]
struct Cursor {
    next: usize,
    last: Option<usize>,
}

#[derive(Default)]
struct State {
    items: Vec<*mut c_void>,
    /// The list's live iterators, by address.
    iters: HashMap<usize, Cursor>,
}

impl State {
    fn insert(&mut self, at: usize, x: *mut c_void) {
        let at = at.min(self.items.len());
        self.items.insert(at, x);
        for c in self.iters.values_mut() {
            if c.next > at {
                c.next += 1;
            }
            if let Some(l) = c.last.as_mut() {
                if *l >= at {
                    *l += 1;
                }
            }
        }
    }

    fn remove(&mut self, at: usize) -> *mut c_void {
        let x = self.items.remove(at);
        for c in self.iters.values_mut() {
            if c.next > at {
                c.next -= 1;
            }
            c.last = match c.last {
                Some(l) if l == at => None,
                Some(l) if l > at => Some(l - 1),
                other => other,
            };
        }
        x
    }

    fn reset_iters(&mut self) {
        for c in self.iters.values_mut() {
            *c = Cursor::default();
        }
    }
}

/// What a `List` points to.
struct SList {
    magic: u64,
    del: ListDelF,
    state: Mutex<State>,
}

/// What a `ListIterator` points to.
struct SIter {
    magic: u64,
    list: *const SList,
}

impl SList {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Run the destructor on removed items (with the list unlocked).
    fn drop_items(&self, items: Vec<*mut c_void>) {
        if let Some(f) = self.del {
            for x in items {
                // SAFETY: f is the caller's destructor for the items it put
                // in this list; each item is handed to it once.
                unsafe { f(x) };
            }
        }
    }
}

/// The list behind a caller's pointer (None for NULL or what is not a live
/// list).
///
/// # Safety
/// `l` is NULL or a list from this library not yet destroyed.
unsafe fn list_ref<'a>(l: *mut xlist) -> Option<&'a SList> {
    // SAFETY: NULL or a live SList (the contract above).
    let s = unsafe { l.cast::<SList>().as_ref() }?;
    (s.magic == LIST_MAGIC).then_some(s)
}

/// The iterator and its list behind a caller's pointer.
///
/// # Safety
/// `i` is NULL or an iterator from this library whose list is live.
unsafe fn iter_ref<'a>(i: *mut listIterator) -> Option<(usize, &'a SList)> {
    // SAFETY: NULL or a live SIter (the contract above).
    let it = unsafe { i.cast::<SIter>().as_ref() }?;
    if it.magic != ITER_MAGIC {
        return None;
    }
    // SAFETY: the iterator's list outlives it (destroying a list destroys
    // its iterators).
    let l = unsafe { it.list.as_ref() }?;
    (l.magic == LIST_MAGIC).then_some((i as usize, l))
}

fn new_list(items: Vec<*mut c_void>, del: ListDelF) -> *mut xlist {
    let s = SList { magic: LIST_MAGIC, del, state: Mutex::new(State { items, iters: HashMap::new() }) };
    Box::into_raw(Box::new(s)).cast::<xlist>()
}

fn count_int(n: usize) -> c_int {
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

// ------------------------------------------------------- for other modules

/// A new List holding `items` in order, for a struct handed to a C caller:
/// the caller releases it with `slurm_list_destroy` (or a `slurm_free_*`
/// / `slurmdb_destroy_*` function), which hands each item to `destructor`
/// (for example `crate::xmalloc::slurm_xfree_ptr` for xmalloc'ed strings).
pub fn list_from(items: Vec<*mut c_void>, destructor: ListDelF) -> *mut xlist {
    new_list(items, destructor)
}

/// The items of a List a caller passes in, in order (empty for NULL).
///
/// # Safety
/// `l` is NULL or a live list from this library.
pub unsafe fn list_items(l: *mut xlist) -> Vec<*mut c_void> {
    // SAFETY: the contract above.
    unsafe { list_ref(l) }.map(|s| s.lock().items.clone()).unwrap_or_default()
}

/// The items of a List of C strings (`char *` items, as the `*_list` fields
/// of slurmdb's conditions hold), as text; NULL items and text that is not
/// UTF-8 are left out.
///
/// # Safety
/// `l` is NULL or a live list whose items are NULL or NUL-terminated
/// strings that stay valid during the call.
pub unsafe fn list_strings(l: *mut xlist) -> Vec<String> {
    // SAFETY: the contract above.
    let items = unsafe { list_items(l) };
    items
        .into_iter()
        .filter(|p| !p.is_null())
        // SAFETY: each item is a NUL-terminated string (the contract above).
        .filter_map(|p| unsafe { CStr::from_ptr(p.cast()) }.to_str().ok().map(str::to_owned))
        .collect()
}

/// A List of xmalloc'ed copies of `items`, released with the list.
pub fn list_of_strings<S: AsRef<str>>(items: &[S]) -> *mut xlist {
    let v = items.iter().map(|s| crate::xmalloc::xstrdup(s.as_ref()).cast::<c_void>()).collect();
    list_from(v, Some(crate::xmalloc::slurm_xfree_ptr))
}

// ------------------------------------------------------------------ exports

/// `List slurm_list_create(ListDelF f)`: a new empty list; `f` (may be
/// NULL) releases each item when the list is destroyed or an item deleted.
#[no_mangle]
pub extern "C" fn slurm_list_create(f: ListDelF) -> *mut xlist {
    guard(null_mut(), || new_list(Vec::new(), f))
}

/// `void slurm_list_destroy(List l)`: release the list, its iterators and
/// (through its destructor) its items. NULL: nothing.
///
/// # Safety
/// `l` is NULL or a live list, not used afterwards (nor its iterators).
#[no_mangle]
pub unsafe extern "C" fn slurm_list_destroy(l: *mut xlist) {
    guard((), || {
        // SAFETY: the contract above.
        let Some(s) = (unsafe { list_ref(l) }) else { return };
        let (items, iters) = {
            let mut st = s.lock();
            (std::mem::take(&mut st.items), std::mem::take(&mut st.iters))
        };
        for (addr, _) in iters {
            // SAFETY: each registered iterator is a live Box<SIter> of this
            // list, released once here (the caller does not use it after).
            let mut it = unsafe { Box::from_raw(addr as *mut SIter) };
            it.magic = 0;
        }
        s.drop_items(items);
        // SAFETY: l is a live Box<SList>, released once.
        let mut b = unsafe { Box::from_raw(l.cast::<SList>()) };
        b.magic = 0;
    })
}

/// `int slurm_list_count(List l)`: the number of items (0 for NULL).
///
/// # Safety
/// `l` is NULL or a live list (every `l` and `sub` below has this contract).
#[no_mangle]
pub unsafe extern "C" fn slurm_list_count(l: *mut xlist) -> c_int {
    // SAFETY: the contract above.
    guard(0, || unsafe { list_ref(l) }.map_or(0, |s| count_int(s.lock().items.len())))
}

/// `int slurm_list_is_empty(List l)`: non-zero when the list has no item
/// (and for NULL).
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_is_empty(l: *mut xlist) -> c_int {
    // SAFETY: the contract above.
    guard(1, || unsafe { list_ref(l) }.map_or(1, |s| c_int::from(s.lock().items.is_empty())))
}

/// Insert `x` at the end (or the start) of a list.
///
/// # Safety
/// As [`slurm_list_count`].
unsafe fn add(l: *mut xlist, x: *mut c_void, front: bool) -> Added {
    // SAFETY: the caller's contract.
    let Some(s) = (unsafe { list_ref(l) }) else { return ADD_FAILED };
    let mut st = s.lock();
    let at = if front { 0 } else { st.items.len() };
    st.insert(at, x);
    added(x)
}

/// `slurm_list_append(List l, void *x)`: add `x` at the end (22.05: `void
/// *`, returning `x`; 24.11: `void`).
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_append(l: *mut xlist, x: *mut c_void) -> Added {
    // SAFETY: the caller's contract.
    guard(ADD_FAILED, || unsafe { add(l, x, false) })
}

/// `slurm_list_enqueue(List l, void *x)`: as `slurm_list_append`.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_enqueue(l: *mut xlist, x: *mut c_void) -> Added {
    // SAFETY: the caller's contract.
    guard(ADD_FAILED, || unsafe { add(l, x, false) })
}

/// `slurm_list_prepend(List l, void *x)`: add `x` at the start.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_prepend(l: *mut xlist, x: *mut c_void) -> Added {
    // SAFETY: the caller's contract.
    guard(ADD_FAILED, || unsafe { add(l, x, true) })
}

/// `slurm_list_push(List l, void *x)`: as `slurm_list_prepend` (the start
/// is the top of the stack).
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_push(l: *mut xlist, x: *mut c_void) -> Added {
    // SAFETY: the caller's contract.
    guard(ADD_FAILED, || unsafe { add(l, x, true) })
}

/// Take the first item off (NULL when empty).
///
/// # Safety
/// As [`slurm_list_count`].
unsafe fn take_first(l: *mut xlist) -> *mut c_void {
    // SAFETY: the caller's contract.
    let Some(s) = (unsafe { list_ref(l) }) else { return null_mut() };
    let mut st = s.lock();
    if st.items.is_empty() {
        null_mut()
    } else {
        st.remove(0)
    }
}

/// `void *slurm_list_pop(List l)`: take the first item off and return it
/// (the caller now owns it); NULL when the list is empty.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_pop(l: *mut xlist) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard(null_mut(), || unsafe { take_first(l) })
}

/// `void *slurm_list_dequeue(List l)`: as `slurm_list_pop`.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_dequeue(l: *mut xlist) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard(null_mut(), || unsafe { take_first(l) })
}

/// `void *slurm_list_peek(List l)`: the first item, left in place (NULL
/// when empty).
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_peek(l: *mut xlist) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard(null_mut(), || unsafe { list_ref(l) }.and_then(|s| s.lock().items.first().copied()).unwrap_or(null_mut()))
}

/// `List slurm_list_shallow_copy(List l)`: a new list of the same item
/// pointers, without destructor.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_shallow_copy(l: *mut xlist) -> *mut xlist {
    guard(null_mut(), || {
        // SAFETY: the caller's contract.
        let Some(s) = (unsafe { list_ref(l) }) else { return null_mut() };
        let items = s.lock().items.clone();
        new_list(items, None)
    })
}

/// `int slurm_list_append_list(List l, List sub)`: append `sub`'s item
/// pointers to `l` (`sub` unchanged); returns how many.
///
/// # Safety
/// As [`slurm_list_count`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_append_list(l: *mut xlist, sub: *mut xlist) -> c_int {
    guard(0, || {
        // SAFETY: the caller's contract.
        let (Some(dst), Some(src)) = (unsafe { list_ref(l) }, unsafe { list_ref(sub) }) else { return 0 };
        let items = src.lock().items.clone();
        let mut st = dst.lock();
        for &x in &items {
            let at = st.items.len();
            st.insert(at, x);
        }
        count_int(items.len())
    })
}

/// Move items from the start of `sub` to the end of `l`: at most `limit`.
///
/// # Safety
/// As [`slurm_list_count`] for both.
unsafe fn transfer(l: *mut xlist, sub: *mut xlist, limit: Option<usize>) -> c_int {
    // SAFETY: the caller's contract.
    let (Some(dst), Some(src)) = (unsafe { list_ref(l) }, unsafe { list_ref(sub) }) else { return 0 };
    if std::ptr::eq(dst, src) {
        return 0;
    }
    let moved: Vec<*mut c_void> = {
        let mut st = src.lock();
        let n = limit.map_or(st.items.len(), |m| m.min(st.items.len()));
        (0..n).map(|_| st.remove(0)).collect()
    };
    let mut st = dst.lock();
    for &x in &moved {
        let at = st.items.len();
        st.insert(at, x);
    }
    count_int(moved.len())
}

/// `int slurm_list_transfer(List l, List sub)`: move every item of `sub`
/// to the end of `l`; returns how many.
///
/// # Safety
/// As [`slurm_list_count`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_transfer(l: *mut xlist, sub: *mut xlist) -> c_int {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { transfer(l, sub, None) })
}

/// `int slurm_list_transfer_max(List l, List sub, int max)`: as
/// `slurm_list_transfer`, moving `max + 1` items at most, as Slurm counts
/// (every item for `max` 0).
///
/// # Safety
/// As [`slurm_list_count`] for both.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_transfer_max(l: *mut xlist, sub: *mut xlist, max: c_int) -> c_int {
    let limit = if max == 0 { None } else { Some(usize::try_from(max).map_or(0, |m| m + 1)) };
    // SAFETY: the caller's contract.
    guard(0, || unsafe { transfer(l, sub, limit) })
}

/// `int slurm_list_transfer_unique(List l, ListFindF f, List sub)`: move
/// each item of `sub` for which `f(item_of_l, item)` is zero for every
/// item of `l` (checked as the items arrive); the others stay in `sub`.
/// Returns how many moved.
///
/// # Safety
/// As [`slurm_list_count`] for both; `f` is NULL or a function that may be
/// called with the items.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_transfer_unique(l: *mut xlist, f: ListFindF, sub: *mut xlist) -> c_int {
    guard(0, || {
        // SAFETY: the caller's contract.
        let (Some(dst), Some(src), Some(f)) = (unsafe { list_ref(l) }, unsafe { list_ref(sub) }, f) else {
            return 0;
        };
        if std::ptr::eq(dst, src) {
            return 0;
        }
        let candidates = src.lock().items.clone();
        let mut moved = 0;
        for x in candidates {
            let present = dst.lock().items.clone();
            // SAFETY: f is the caller's match function for these items.
            if present.iter().any(|&y| unsafe { f(y, x) } != 0) {
                continue;
            }
            {
                let mut st = src.lock();
                if let Some(at) = st.items.iter().position(|&y| y == x) {
                    st.remove(at);
                } else {
                    continue;
                }
            }
            let mut st = dst.lock();
            let at = st.items.len();
            st.insert(at, x);
            moved += 1;
        }
        moved
    })
}

/// The first item of a snapshot for which `f(item, key)` is non-zero.
///
/// # Safety
/// As [`slurm_list_count`]; `f` may be called with the items.
unsafe fn find_first(l: *mut xlist, f: ListFindF, key: *mut c_void) -> *mut c_void {
    // SAFETY: the caller's contract.
    let (Some(s), Some(f)) = (unsafe { list_ref(l) }, f) else { return null_mut() };
    let items = s.lock().items.clone();
    // SAFETY: f is the caller's match function for these items.
    items.into_iter().find(|&x| unsafe { f(x, key) } != 0).unwrap_or(null_mut())
}

/// `void *slurm_list_find_first(List l, ListFindF f, void *key)`: the first
/// item for which `f(item, key)` is non-zero, or NULL.
///
/// # Safety
/// As [`slurm_list_count`]; `f` NULL or callable with the items.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_find_first(l: *mut xlist, f: ListFindF, key: *mut c_void) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard(null_mut(), || unsafe { find_first(l, f, key) })
}

/// `void *slurm_list_find_first_ro(List l, ListFindF f, void *key)`: as
/// `slurm_list_find_first`.
///
/// # Safety
/// As [`slurm_list_find_first`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_find_first_ro(l: *mut xlist, f: ListFindF, key: *mut c_void) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard(null_mut(), || unsafe { find_first(l, f, key) })
}

/// Remove from `s` the items of `matched` (by pointer, in order), returning
/// those found.
fn remove_ptrs(s: &SList, matched: &[*mut c_void]) -> Vec<*mut c_void> {
    let mut st = s.lock();
    let mut out = Vec::new();
    for &x in matched {
        if let Some(at) = st.items.iter().position(|&y| y == x) {
            out.push(st.remove(at));
        }
    }
    out
}

/// `void *slurm_list_remove_first(List l, ListFindF f, void *key)`: take
/// off and return the first item for which `f(item, key)` is non-zero (the
/// caller now owns it), or NULL.
///
/// # Safety
/// As [`slurm_list_find_first`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_remove_first(l: *mut xlist, f: ListFindF, key: *mut c_void) -> *mut c_void {
    guard(null_mut(), || {
        // SAFETY: the caller's contract.
        let x = unsafe { find_first(l, f, key) };
        // SAFETY: the caller's contract.
        match unsafe { list_ref(l) } {
            Some(s) if !x.is_null() => remove_ptrs(s, &[x]).first().copied().unwrap_or(null_mut()),
            _ => null_mut(),
        }
    })
}

/// `int slurm_list_delete_all(List l, ListFindF f, void *key)`: delete
/// (through the destructor) every item for which `f(item, key)` is
/// non-zero; returns how many.
///
/// # Safety
/// As [`slurm_list_find_first`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_delete_all(l: *mut xlist, f: ListFindF, key: *mut c_void) -> c_int {
    guard(0, || {
        // SAFETY: the caller's contract.
        let (Some(s), Some(f)) = (unsafe { list_ref(l) }, f) else { return 0 };
        let items = s.lock().items.clone();
        // SAFETY: f is the caller's match function for these items.
        let matched: Vec<_> = items.into_iter().filter(|&x| unsafe { f(x, key) } != 0).collect();
        let gone = remove_ptrs(s, &matched);
        let n = count_int(gone.len());
        s.drop_items(gone);
        n
    })
}

/// `int slurm_list_delete_first(List l, ListFindF f, void *key)`: delete
/// the first item for which `f(item, key)` is positive: 1 if one was, 0 if
/// none; -1 (nothing deleted) as soon as `f` returns a negative value.
///
/// # Safety
/// As [`slurm_list_find_first`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_delete_first(l: *mut xlist, f: ListFindF, key: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: the caller's contract.
        let (Some(s), Some(f)) = (unsafe { list_ref(l) }, f) else { return -1 };
        let items = s.lock().items.clone();
        for x in items {
            // SAFETY: f is the caller's match function for these items.
            let r = unsafe { f(x, key) };
            if r < 0 {
                return -1;
            }
            if r > 0 {
                let gone = remove_ptrs(s, &[x]);
                let n = count_int(gone.len());
                s.drop_items(gone);
                return n;
            }
        }
        0
    })
}

/// `int slurm_list_delete_ptr(List l, void *key)`: delete (through the
/// destructor) the item that is `key`: 1 if it was there, else 0.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_delete_ptr(l: *mut xlist, key: *mut c_void) -> c_int {
    guard(0, || {
        // SAFETY: the caller's contract.
        let Some(s) = (unsafe { list_ref(l) }) else { return 0 };
        let gone = remove_ptrs(s, &[key]);
        let n = count_int(gone.len());
        s.drop_items(gone);
        n
    })
}

/// Call `f(item, arg)` on up to `max` items (all for None): the number of
/// calls, negated when one returned a negative value (where `stop` ends the
/// walk); and the number of items not visited.
///
/// # Safety
/// As [`slurm_list_count`]; `f` callable with the items.
unsafe fn for_each(l: *mut xlist, f: ListForF, arg: *mut c_void, max: Option<usize>, stop: bool) -> (c_int, c_int) {
    // SAFETY: the caller's contract.
    let (Some(s), Some(f)) = (unsafe { list_ref(l) }, f) else { return (0, 0) };
    let items = s.lock().items.clone();
    let (mut n, mut failed) = (0usize, false);
    for &x in items.iter().take(max.unwrap_or(usize::MAX)) {
        n += 1;
        // SAFETY: f is the caller's function for these items.
        if unsafe { f(x, arg) } < 0 {
            failed = true;
            if stop {
                break;
            }
        }
    }
    let left = count_int(items.len() - n);
    let n = count_int(n);
    (if failed { -n } else { n }, left)
}

/// `int slurm_list_for_each(List l, ListForF f, void *arg)`: call
/// `f(item, arg)` on each item in order; returns the number of calls, or,
/// when one returns a negative value (which ends the walk), minus the
/// position of that item (1 for the first).
///
/// # Safety
/// As [`slurm_list_count`]; `f` NULL or callable with the items.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_for_each(l: *mut xlist, f: ListForF, arg: *mut c_void) -> c_int {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { for_each(l, f, arg, None, true) }.0)
}

/// `int slurm_list_for_each_ro(List l, ListForF f, void *arg)`: as
/// `slurm_list_for_each`.
///
/// # Safety
/// As [`slurm_list_for_each`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_for_each_ro(l: *mut xlist, f: ListForF, arg: *mut c_void) -> c_int {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { for_each(l, f, arg, None, true) }.0)
}

/// `int slurm_list_for_each_max(List l, int *max, ListForF f, void *arg, int
/// break_on_fail, int write_lock)`: as `slurm_list_for_each` over at most
/// `*max` items (all for -1), going on after a failure unless
/// `break_on_fail`; `*max` becomes the number of items not visited.
///
/// # Safety
/// As [`slurm_list_for_each`]; `max` points to a writable int.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_for_each_max(
    l: *mut xlist,
    max: *mut c_int,
    f: ListForF,
    arg: *mut c_void,
    break_on_fail: c_int,
    _write_lock: c_int,
) -> c_int {
    guard(0, || {
        if max.is_null() {
            return 0;
        }
        // SAFETY: max points to a readable, writable int (the contract).
        let m = unsafe { *max };
        let limit = if m == -1 { None } else { Some(usize::try_from(m).unwrap_or(0)) };
        // SAFETY: the caller's contract.
        let (n, left) = unsafe { for_each(l, f, arg, limit, break_on_fail != 0) };
        // SAFETY: as above.
        unsafe { *max = left };
        n
    })
}

/// Delete the first `max` items (all for None); returns how many.
///
/// # Safety
/// As [`slurm_list_count`].
unsafe fn flush(l: *mut xlist, max: Option<usize>) -> c_int {
    // SAFETY: the caller's contract.
    let Some(s) = (unsafe { list_ref(l) }) else { return 0 };
    let gone: Vec<_> = {
        let mut st = s.lock();
        let n = max.map_or(st.items.len(), |m| m.min(st.items.len()));
        (0..n).map(|_| st.remove(0)).collect()
    };
    let n = count_int(gone.len());
    s.drop_items(gone);
    n
}

/// `int slurm_list_flush(List l)`: delete every item (through the
/// destructor); returns how many.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_flush(l: *mut xlist) -> c_int {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { flush(l, None) })
}

/// `int slurm_list_flush_max(List l, int max)`: delete the first `max`
/// items (all for a negative `max`); returns how many.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_flush_max(l: *mut xlist, max: c_int) -> c_int {
    // SAFETY: the caller's contract.
    guard(0, || unsafe { flush(l, usize::try_from(max).ok()) })
}

/// `void slurm_list_sort(List l, ListCmpF f)`: sort with the C library's
/// qsort, as Slurm does: `f` receives pointers to the two item pointers
/// (`*(T **)x`). Resets the list's iterators.
///
/// # Safety
/// As [`slurm_list_count`]; `f` NULL or a comparison of two such pointers.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_sort(l: *mut xlist, f: ListCmpF) {
    guard((), || {
        // SAFETY: the caller's contract.
        let (Some(s), Some(f)) = (unsafe { list_ref(l) }, f) else { return };
        let mut st = s.lock();
        if st.items.len() > 1 {
            // SAFETY: ListCmpF and qsort's comparison take two pointers and
            // return an int, with the same C ABI (Slurm casts one to the
            // other); the base is our vector of len pointer-sized elements.
            unsafe {
                let cmp: unsafe extern "C" fn(*const c_void, *const c_void) -> c_int = std::mem::transmute(f);
                libc::qsort(
                    st.items.as_mut_ptr().cast::<c_void>(),
                    st.items.len(),
                    std::mem::size_of::<*mut c_void>(),
                    Some(cmp),
                );
            }
        }
        st.reset_iters();
    })
}

/// `void slurm_list_flip(List l)`: reverse the order; resets the list's
/// iterators.
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_flip(l: *mut xlist) {
    guard((), || {
        // SAFETY: the caller's contract.
        let Some(s) = (unsafe { list_ref(l) }) else { return };
        let mut st = s.lock();
        st.items.reverse();
        st.reset_iters();
    })
}

/// `ListIterator slurm_list_iterator_create(List l)`: an iterator at the
/// start of the list (released with `slurm_list_iterator_destroy`, or with
/// the list).
///
/// # Safety
/// As [`slurm_list_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_create(l: *mut xlist) -> *mut listIterator {
    guard(null_mut(), || {
        // SAFETY: the caller's contract.
        let Some(s) = (unsafe { list_ref(l) }) else { return null_mut() };
        let it = Box::into_raw(Box::new(SIter { magic: ITER_MAGIC, list: s }));
        s.lock().iters.insert(it as usize, Cursor::default());
        it.cast::<listIterator>()
    })
}

/// `void slurm_list_iterator_reset(ListIterator i)`: back to the start.
///
/// # Safety
/// `i` is NULL or a live iterator (every `i` below has this contract).
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_reset(i: *mut listIterator) {
    guard((), || {
        // SAFETY: the caller's contract.
        if let Some((id, s)) = unsafe { iter_ref(i) } {
            s.lock().iters.insert(id, Cursor::default());
        }
    })
}

/// `void slurm_list_iterator_destroy(ListIterator i)`. NULL: nothing.
///
/// # Safety
/// As [`slurm_list_iterator_reset`]; `i` is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_destroy(i: *mut listIterator) {
    guard((), || {
        // SAFETY: the caller's contract.
        let Some((id, s)) = (unsafe { iter_ref(i) }) else { return };
        if s.lock().iters.remove(&id).is_some() {
            // SAFETY: i is a live Box<SIter>, registered until now, released
            // once.
            let mut it = unsafe { Box::from_raw(i.cast::<SIter>()) };
            it.magic = 0;
        }
    })
}

/// Advance an iterator: the next item, or None at the end.
fn advance(st: &mut State, id: usize) -> Option<*mut c_void> {
    let c = *st.iters.get(&id)?;
    let x = st.items.get(c.next).copied();
    let cur = st.iters.get_mut(&id)?;
    if x.is_some() {
        *cur = Cursor { next: c.next + 1, last: Some(c.next) };
    }
    x
}

/// `void *slurm_list_next(ListIterator i)`: the next item, or NULL at the
/// end.
///
/// # Safety
/// As [`slurm_list_iterator_reset`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_next(i: *mut listIterator) -> *mut c_void {
    guard(null_mut(), || {
        // SAFETY: the caller's contract.
        let Some((id, s)) = (unsafe { iter_ref(i) }) else { return null_mut() };
        advance(&mut s.lock(), id).unwrap_or(null_mut())
    })
}

/// `void *slurm_list_find(ListIterator i, ListFindF f, void *key)`: advance
/// to the next item for which `f(item, key)` is non-zero and return it;
/// NULL at the end.
///
/// # Safety
/// As [`slurm_list_iterator_reset`]; `f` NULL or callable with the items.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_find(i: *mut listIterator, f: ListFindF, key: *mut c_void) -> *mut c_void {
    guard(null_mut(), || {
        // SAFETY: the caller's contract.
        let (Some((id, s)), Some(f)) = (unsafe { iter_ref(i) }, f) else { return null_mut() };
        loop {
            let Some(x) = advance(&mut s.lock(), id) else { return null_mut() };
            // SAFETY: f is the caller's match function for these items.
            if unsafe { f(x, key) } != 0 {
                return x;
            }
        }
    })
}

/// `slurm_list_insert(ListIterator i, void *x)`: insert `x` before the item
/// the iterator returned last (at its position when it returned none yet);
/// the iterator does not return `x`.
///
/// # Safety
/// As [`slurm_list_iterator_reset`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_insert(i: *mut listIterator, x: *mut c_void) -> Added {
    guard(ADD_FAILED, || {
        // SAFETY: the caller's contract.
        let Some((id, s)) = (unsafe { iter_ref(i) }) else { return ADD_FAILED };
        let mut st = s.lock();
        let Some(c) = st.iters.get(&id).copied() else { return ADD_FAILED };
        let at = c.last.unwrap_or(c.next);
        st.insert(at, x);
        if c.last.is_none() {
            // the iterator moves past the new item, which is behind it
            if let Some(cur) = st.iters.get_mut(&id) {
                cur.next = at + 1;
            }
        }
        added(x)
    })
}

/// Take out the item the iterator returned last.
///
/// # Safety
/// As [`slurm_list_iterator_reset`].
unsafe fn remove_last(i: *mut listIterator) -> Option<(&'static SList, *mut c_void)> {
    // SAFETY: the caller's contract.
    let (id, s) = unsafe { iter_ref(i) }?;
    let mut st = s.lock();
    let at = st.iters.get(&id)?.last?;
    let x = st.remove(at);
    Some((s, x))
}

/// `void *slurm_list_remove(ListIterator i)`: take out the item the
/// iterator returned last and return it (the caller now owns it); NULL when
/// there is none.
///
/// # Safety
/// As [`slurm_list_iterator_reset`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_remove(i: *mut listIterator) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard(null_mut(), || unsafe { remove_last(i) }.map_or(null_mut(), |(_, x)| x))
}

/// `int slurm_list_delete_item(ListIterator i)`: delete (through the
/// destructor) the item the iterator returned last: 1 if there was one,
/// else 0.
///
/// # Safety
/// As [`slurm_list_iterator_reset`].
#[no_mangle]
pub unsafe extern "C" fn slurm_list_delete_item(i: *mut listIterator) -> c_int {
    guard(0, || {
        // SAFETY: the caller's contract.
        match unsafe { remove_last(i) } {
            Some((s, x)) => {
                s.drop_items(vec![x]);
                1
            }
            None => 0,
        }
    })
}

#[cfg(test)]
// (the add functions return the item in 22.05 and nothing in 24.11: the tests
// drop either)
#[allow(clippy::let_unit_value)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn p(n: usize) -> *mut c_void {
        n as *mut c_void
    }

    fn all(l: *mut xlist) -> Vec<usize> {
        // SAFETY: l is live.
        unsafe { list_items(l) }.into_iter().map(|x| x as usize).collect()
    }

    static DROPPED: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "C" fn count_drop(x: *mut c_void) {
        DROPPED.fetch_add(x as usize, Ordering::SeqCst);
    }
    unsafe extern "C" fn is_key(x: *mut c_void, key: *mut c_void) -> c_int {
        c_int::from(x == key)
    }
    unsafe extern "C" fn is_even(x: *mut c_void, _key: *mut c_void) -> c_int {
        c_int::from((x as usize).is_multiple_of(2))
    }
    unsafe extern "C" fn cmp_desc(a: *mut c_void, b: *mut c_void) -> c_int {
        // SAFETY: qsort hands pointers to the item pointers.
        let (a, b) = unsafe { (*(a as *const usize), *(b as *const usize)) };
        b.cmp(&a) as c_int
    }
    unsafe extern "C" fn fail_at_3(x: *mut c_void, _arg: *mut c_void) -> c_int {
        if x as usize == 3 {
            -1
        } else {
            0
        }
    }

    #[test]
    fn create_append_iterate_destroy() {
        DROPPED.store(0, Ordering::SeqCst);
        let l = slurm_list_create(Some(count_drop));
        // SAFETY: l and its iterator are live until destroyed.
        unsafe {
            assert_eq!((slurm_list_count(l), slurm_list_is_empty(l)), (0, 1));
            let _ = slurm_list_append(l, p(1));
            let _ = slurm_list_append(l, p(2));
            let _ = slurm_list_prepend(l, p(10));
            assert_eq!((slurm_list_count(l), slurm_list_is_empty(l)), (3, 0));
            let i = slurm_list_iterator_create(l);
            assert_eq!(slurm_list_next(i), p(10));
            let _ = slurm_list_append(l, p(3)); // seen by the iterator
            let got: Vec<_> = std::iter::from_fn(|| Some(slurm_list_next(i)).filter(|x| !x.is_null())).collect();
            assert_eq!(got, vec![p(1), p(2), p(3)]);
            assert!(slurm_list_next(i).is_null());
            slurm_list_iterator_reset(i);
            assert_eq!(slurm_list_find(i, Some(is_key), p(2)), p(2));
            assert_eq!(slurm_list_remove(i), p(2));
            assert_eq!(slurm_list_next(i), p(3));
            assert_eq!(slurm_list_delete_item(i), 1); // 3
            assert_eq!(DROPPED.load(Ordering::SeqCst), 3);
            assert_eq!(all(l), vec![10, 1]);
            slurm_list_destroy(l); // with its iterator
            assert_eq!(DROPPED.load(Ordering::SeqCst), 14);
            assert_eq!(slurm_list_count(null_mut()), 0);
            assert!(slurm_list_next(null_mut()).is_null());
        }
    }

    #[test]
    fn stack_queue_sort_find() {
        let l = list_from((1..=6).map(p).collect(), None);
        // SAFETY: l is live until destroyed.
        unsafe {
            assert_eq!(slurm_list_pop(l), p(1));
            let _ = slurm_list_push(l, p(9));
            assert_eq!(slurm_list_peek(l), p(9));
            assert_eq!(slurm_list_dequeue(l), p(9));
            let _ = slurm_list_enqueue(l, p(7));
            slurm_list_sort(l, Some(cmp_desc));
            assert_eq!(all(l), vec![7, 6, 5, 4, 3, 2]);
            slurm_list_flip(l);
            assert_eq!(all(l), vec![2, 3, 4, 5, 6, 7]);
            assert_eq!(slurm_list_find_first(l, Some(is_key), p(5)), p(5));
            assert!(slurm_list_find_first(l, Some(is_key), p(50)).is_null());
            assert_eq!(slurm_list_for_each(l, Some(fail_at_3), null_mut()), -2);
            let mut max = 3;
            assert_eq!(slurm_list_for_each_max(l, &mut max, Some(is_even), null_mut(), 1, 0), 3);
            assert_eq!(max, 3);
            assert_eq!(slurm_list_delete_all(l, Some(is_even), null_mut()), 3);
            assert_eq!(all(l), vec![3, 5, 7]);
            assert_eq!(slurm_list_delete_ptr(l, p(5)), 1);
            assert_eq!(slurm_list_delete_ptr(l, p(5)), 0);
            assert_eq!(slurm_list_remove_first(l, Some(is_key), p(7)), p(7));
            let c = slurm_list_shallow_copy(l);
            assert_eq!(slurm_list_append_list(c, l), 1);
            assert_eq!(all(c), vec![3, 3]);
            assert_eq!(slurm_list_transfer(l, c), 2);
            assert_eq!((all(l), slurm_list_count(c)), (vec![3, 3, 3], 0));
            assert_eq!(slurm_list_transfer_max(c, l, 1), 2); // Slurm moves max + 1
            assert_eq!(slurm_list_flush_max(c, 1), 1);
            assert_eq!(slurm_list_flush(l), 1);
            slurm_list_destroy(c);
            slurm_list_destroy(l);
        }
    }

    #[test]
    fn strings_for_other_modules() {
        let l = list_of_strings(&["a", "bc"]);
        // SAFETY: l is live until destroyed; its strings are xmalloc'ed.
        unsafe {
            assert_eq!(list_strings(l), vec!["a".to_string(), "bc".to_string()]);
            slurm_list_destroy(l);
        }
    }

    #[test]
    fn shared_between_threads() {
        let l = slurm_list_create(None) as usize;
        let hs: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    for k in 0..250 {
                        // SAFETY: the list lives until all threads joined.
                        let _ = unsafe { slurm_list_append(l as *mut xlist, p(t * 1000 + k + 1)) };
                    }
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        // SAFETY: live, then destroyed once.
        unsafe {
            assert_eq!(slurm_list_count(l as *mut xlist), 1000);
            slurm_list_destroy(l as *mut xlist);
        }
    }
}
