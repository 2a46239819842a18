//! Memory handed to C callers, in the forms Slurm's free functions expect.
//!
//! Slurm's xmalloc (src/common/xmalloc.c) puts two machine words before the
//! block it returns: a magic cookie (0x42) and the size asked for. `xfree`
//! (exported as `void slurm_xfree(void **item)`) checks the cookie, clears
//! it, frees the whole allocation and sets `*item` to NULL. Consumers call
//! `slurm_xfree` on what slurm.h says to release with `xfree` (for example
//! `slurm_hostlist_ranged_string_xmalloc`'s result), and some build blocks
//! with their own xmalloc that the library later frees: every block Spur
//! hands out for `xfree` is laid out the same way, one allocation per block.
//!
//! What slurm.h says the caller frees with `free` (a shifted host name) is
//! plain `malloc` memory: [`malloc_str`].

use std::ffi::{c_char, c_void};
use std::mem::size_of;

/// Slurm's `XMALLOC_MAGIC`.
const MAGIC: usize = 0x42;
/// The words before an xmalloc'ed block: the cookie and the size.
const HEADER: usize = 2 * size_of::<usize>();

/// A copy of `s`, NUL-terminated, in Slurm's xmalloc layout (the caller
/// releases it with `slurm_xfree`). NULL when memory runs out, or when `s`
/// holds a NUL (no C string can carry it).
pub fn xstrdup(s: &str) -> *mut c_char {
    if s.as_bytes().contains(&0) {
        return std::ptr::null_mut();
    }
    let size = s.len() + 1;
    let Some(total) = size.checked_add(HEADER) else {
        return std::ptr::null_mut();
    };
    // SAFETY: malloc may be called with any size; its result is checked for
    // NULL before use.
    let p = unsafe { libc::malloc(total) }.cast::<usize>();
    if p.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: p points to `total` writable bytes, aligned for any type
    // (malloc's guarantee): the two header words, then `size` bytes for the
    // text and its NUL. The source is `s`, which does not overlap a new block.
    unsafe {
        p.write(MAGIC);
        p.add(1).write(size);
        let text = p.add(2).cast::<u8>();
        std::ptr::copy_nonoverlapping(s.as_ptr(), text, s.len());
        text.add(s.len()).write(0);
        text.cast::<c_char>()
    }
}

/// A zeroed block of `size` bytes in Slurm's xmalloc layout (`xcalloc`):
/// the caller, or a `slurm_free_*` function, releases it with `slurm_xfree`.
/// NULL when memory runs out.
pub fn xalloc(size: usize) -> *mut c_void {
    let Some(total) = size.checked_add(HEADER) else {
        return std::ptr::null_mut();
    };
    // SAFETY: calloc may be called with any size; the result is checked.
    let p = unsafe { libc::calloc(1, total) }.cast::<usize>();
    if p.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: p points to `total` zeroed, writable bytes aligned for usize.
    unsafe {
        p.write(MAGIC);
        p.add(1).write(size);
        p.add(2).cast::<c_void>()
    }
}

/// One zeroed `T` in xmalloc's layout (a struct of slurm.h whose fields are
/// all integers and pointers, for which zero is a valid value).
pub fn xnew<T>() -> *mut T {
    xalloc(size_of::<T>()).cast::<T>()
}

/// A copy of `items` as one xmalloc'ed array (NULL for an empty slice, as
/// Slurm leaves an empty array; NULL when memory runs out).
pub fn xarray<T: Copy>(items: &[T]) -> *mut T {
    if items.is_empty() {
        return std::ptr::null_mut();
    }
    let Some(bytes) = items.len().checked_mul(size_of::<T>()) else {
        return std::ptr::null_mut();
    };
    let p = xalloc(bytes).cast::<T>();
    if !p.is_null() {
        // SAFETY: p has room for items.len() values of T in a new block.
        unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), p, items.len()) };
    }
    p
}

/// An index-pair array as Slurm's `node_inx` fields hold them: the pairs,
/// then -1; never NULL (consumers walk it until the -1 without a NULL
/// check).
pub fn xindex(pairs: &[(i32, i32)]) -> *mut i32 {
    let mut v: Vec<i32> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
    v.push(-1);
    xarray(&v)
}

/// [`xstrdup`] of text that may be absent: NULL for None.
pub fn xstr_opt(s: Option<&str>) -> *mut c_char {
    s.map(xstrdup).unwrap_or(std::ptr::null_mut())
}

/// [`xstrdup`] of text where Slurm leaves NULL for empty text.
pub fn xstr_nonempty(s: &str) -> *mut c_char {
    if s.is_empty() {
        std::ptr::null_mut()
    } else {
        xstrdup(s)
    }
}

/// Release a block (xmalloc layout) by its pointer and clear the pointer.
///
/// # Safety
/// As [`slurm_xfree`]'s: `*p` is NULL or a live xmalloc'ed block.
pub unsafe fn xfree<T>(p: &mut *mut T) {
    let mut v = (*p).cast::<c_void>();
    // SAFETY: v is NULL or a live xmalloc'ed block (the caller's contract).
    unsafe { slurm_xfree(&mut v) };
    *p = std::ptr::null_mut();
}

/// Release a load message of this library's: each of its `count` records'
/// members (`members`), the record array, then the message block itself,
/// as each `slurm_free_*_msg` of slurm.h does (NULL `msg`: nothing).
///
/// # Safety
/// `msg` is NULL or a live xmalloc'ed message whose `array(msg)` is NULL or
/// an xmalloc'ed array of at least `count` records, none used afterwards.
pub unsafe fn free_records<M, R>(
    msg: *mut M,
    array: impl Fn(&mut M) -> &mut *mut R,
    count: impl Fn(&M) -> usize,
    members: impl Fn(&mut R),
) {
    // SAFETY: the caller's contract above.
    unsafe {
        let Some(m) = msg.as_mut() else { return };
        let n = count(m);
        let records = array(m);
        if !records.is_null() {
            for i in 0..n {
                members(&mut *records.add(i));
            }
        }
        xfree(records);
        let mut p = msg;
        xfree(&mut p);
    }
}

/// `void *slurm_xcalloc(size_t count, size_t size, bool clear, bool
/// try_, const char *file, int line, const char *func)`: `count * size`
/// bytes in xmalloc's layout (always zeroed here). Slurm aborts when memory
/// runs out unless `try_`; Spur returns NULL either way rather than kill
/// the caller's process.
#[no_mangle]
pub extern "C" fn slurm_xcalloc(
    count: usize,
    size: usize,
    _clear: bool,
    _try: bool,
    _file: *const c_char,
    _line: std::ffi::c_int,
    _func: *const c_char,
) -> *mut c_void {
    crate::guard(std::ptr::null_mut(), || match count.checked_mul(size) {
        Some(n) => xalloc(n),
        None => std::ptr::null_mut(),
    })
}

/// `void slurm_xfree_ptr(void *ptr)`: release a block by its pointer (the
/// form list destructors take).
///
/// # Safety
/// `ptr` is NULL or a live xmalloc'ed block.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree_ptr(ptr: *mut c_void) {
    let mut p = ptr;
    // SAFETY: the caller's contract.
    unsafe { slurm_xfree(&mut p) }
}

/// `char *slurm_xstrdup(const char *str)`: an xmalloc'ed copy (NULL for NULL).
///
/// # Safety
/// `str` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrdup(str: *const c_char) -> *mut c_char {
    crate::guard(std::ptr::null_mut(), || {
        if str.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: not NULL, NUL-terminated (the caller's contract).
        let b = unsafe { std::ffi::CStr::from_ptr(str) }.to_bytes();
        let p = xalloc(b.len() + 1).cast::<u8>();
        if !p.is_null() {
            // SAFETY: p holds b.len() + 1 zeroed bytes; the NUL is already there.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
        }
        p.cast::<c_char>()
    })
}

/// `int slurm_xstrcmp(const char *s1, const char *s2)`: strcmp that orders
/// NULL before any string and equal to NULL.
///
/// # Safety
/// Each argument is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_xstrcmp(s1: *const c_char, s2: *const c_char) -> std::ffi::c_int {
    crate::guard(0, || match (s1.is_null(), s2.is_null()) {
        (true, true) => 0,
        (true, false) => -1,
        (false, true) => 1,
        // SAFETY: both NUL-terminated (the caller's contract).
        _ => unsafe { libc::strcmp(s1, s2) },
    })
}

/// A copy of `s`, NUL-terminated, from plain `malloc` (the caller releases
/// it with `free`). NULL when memory runs out or `s` holds a NUL.
pub fn malloc_str(s: &str) -> *mut c_char {
    if s.as_bytes().contains(&0) {
        return std::ptr::null_mut();
    }
    // SAFETY: malloc may be called with any size; the result is checked.
    let p = unsafe { libc::malloc(s.len() + 1) }.cast::<u8>();
    if p.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: p points to s.len() + 1 writable bytes of a new block, which
    // does not overlap `s`.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
        p.add(s.len()).write(0);
    }
    p.cast::<c_char>()
}

/// `void slurm_xfree(void **item)`: release `*item`, a block in xmalloc's
/// layout, and set `*item` to NULL. NULL `item` or `*item` does nothing. A
/// block whose cookie is gone is not handed to `free` (Slurm only asserts
/// the cookie, in its debug builds): a best effort against freeing twice
/// through a stale copy of the pointer, not a licence to pass other blocks.
///
/// # Safety
/// `item` is NULL or points to a pointer that is NULL or was returned by
/// one of this library's xmalloc functions (or Slurm's own xmalloc) and not
/// released since.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree(item: *mut *mut c_void) {
    crate::guard((), || {
        if item.is_null() {
            return;
        }
        // SAFETY: item is not NULL and points to a readable pointer (the
        // caller's contract).
        let block = unsafe { *item };
        if block.is_null() {
            return;
        }
        // SAFETY: a block from xmalloc starts HEADER bytes into its
        // allocation, so the header words are readable and writable there.
        let head = unsafe { block.cast::<usize>().sub(2) };
        // SAFETY: as above: head is the allocation's first word.
        if unsafe { head.read() } != MAGIC {
            return;
        }
        // SAFETY: head is the pointer malloc returned for this block (the
        // cookie says it is xmalloc's); it is freed once, its cookie cleared
        // first as Slurm does, and the caller's pointer set to NULL.
        unsafe {
            head.write(0);
            libc::free(head.cast::<c_void>());
            *item = std::ptr::null_mut();
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn xmalloc_layout_and_xfree() {
        let p = xstrdup("node[1-4]");
        assert!(!p.is_null());
        // SAFETY: p is a live xmalloc'ed block from xstrdup.
        unsafe {
            assert_eq!(CStr::from_ptr(p).to_str(), Ok("node[1-4]"));
            let head = p.cast::<usize>().sub(2);
            assert_eq!((head.read(), head.add(1).read()), (0x42, 10));
        }
        let mut item = p.cast::<c_void>();
        // SAFETY: item holds the block xstrdup returned, not released yet.
        unsafe { slurm_xfree(&mut item) };
        assert!(item.is_null());
        // NULL pointers and NULL blocks are nothing to free
        // SAFETY: NULL is allowed for both.
        unsafe {
            slurm_xfree(std::ptr::null_mut());
            slurm_xfree(&mut item);
        }
        assert!(xstrdup("a\0b").is_null());
    }

    #[test]
    fn malloc_str_is_plain_malloc() {
        let p = malloc_str("n1");
        // SAFETY: p is a live malloc'ed string; free is its release.
        unsafe {
            assert_eq!(CStr::from_ptr(p).to_str(), Ok("n1"));
            libc::free(p.cast());
        }
    }
}
