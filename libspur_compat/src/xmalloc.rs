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
