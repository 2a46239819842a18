//! Slurm's error texts: `char *slurm_strerror(int errnum)` (slurm_errno.h).
//!
//! As Slurm's `slurm_strerror` (src/common/slurm_errno.c) decides: a number
//! of Slurm's error table (spur-core's `errors::ERRORS`, the texts the
//! commands print) gives that entry's text; another positive number is a
//! system errno and gives the C library's `strerror` text; any other number
//! gives `Unknown negative error number`. The text belongs to the library:
//! the caller must neither change nor free it.

use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::OnceLock;

const UNKNOWN_NEGATIVE: &CStr = c"Unknown negative error number";

/// The release's error table as C strings (spur-core's texts for the
/// release this library is built for: 22.05's table, or 24.11's
/// differences over it), made once and kept for the life of the process
/// (so the pointers handed out stay valid).
fn table() -> &'static [(i32, CString)] {
    static TABLE: OnceLock<Vec<(i32, CString)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let profile = crate::conn::release().profile();
        let codes: std::collections::BTreeSet<i32> = spur_core::errors::ERRORS
            .iter()
            .map(|e| e.0)
            .chain(profile.error_texts.iter().map(|e| e.0))
            // only the numbers of the release's slurm_errno.h (and 0, -1
            // and the system's below 1000, which it does not enumerate)
            .filter(|n| *n < 1000 || crate::sys::ERRNO_CODES.contains(&i64::from(*n)))
            .collect();
        codes
            .into_iter()
            // (no text of the table holds a NUL; one that did would be left out)
            .filter_map(|n| Some((n, CString::new(spur_core::errors::text_in(profile, n)?).ok()?)))
            .collect()
    })
}

/// `slurm_strerror`: the text of a Slurm error number or a system errno.
#[no_mangle]
pub extern "C" fn slurm_strerror(errnum: c_int) -> *mut c_char {
    // (slurm.h says `char *`; the caller must not change the text all the same)
    strerror_text(errnum) as *mut c_char
}

fn strerror_text(errnum: c_int) -> *const c_char {
    crate::guard(UNKNOWN_NEGATIVE.as_ptr(), || {
        let t = table();
        if let Ok(i) = t.binary_search_by_key(&errnum, |e| e.0) {
            return t[i].1.as_ptr();
        }
        if errnum > 0 {
            // SAFETY: strerror takes any int and returns a pointer to a
            // NUL-terminated string owned by the C library (a static text,
            // or for a number it does not know a per-thread buffer valid
            // until this thread's next strerror call): the same text and
            // lifetime Slurm's slurm_strerror hands on.
            return unsafe { libc::strerror(errnum) };
        }
        UNKNOWN_NEGATIVE.as_ptr()
    })
}

/// Set the calling thread's errno: Slurm's errors travel in the C library's
/// own thread-local `errno` (Slurm's `slurm_seterrno` is `errno = n`), so a
/// caller that reads `errno` directly sees them too.
pub fn set(n: i32) {
    // SAFETY: __errno_location returns the calling thread's errno slot,
    // valid for the life of the thread.
    unsafe { *libc::__errno_location() = n };
}

/// The calling thread's errno.
pub fn get() -> i32 {
    // SAFETY: as in `set`.
    unsafe { *libc::__errno_location() }
}

/// `slurm_get_errno`: the error of the thread's last failed call.
#[no_mangle]
pub extern "C" fn slurm_get_errno() -> c_int {
    get()
}

/// `slurm_seterrno`: set the thread's error number.
#[no_mangle]
pub extern "C" fn slurm_seterrno(errnum: c_int) {
    set(errnum)
}

/// `slurm_perror`: `msg: <text of errno>` on standard error, as perror(3).
///
/// # Safety
/// `msg` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_perror(msg: *const c_char) {
    let n = get();
    crate::guard((), || {
        // SAFETY: the caller's contract above.
        let m = unsafe { crate::text(msg) }.unwrap_or("");
        // SAFETY: slurm_strerror returns a NUL-terminated string.
        let t = unsafe { CStr::from_ptr(slurm_strerror(n)) }.to_string_lossy();
        eprintln!("{}: {}", m, t);
    });
    set(n);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: c_int) -> String {
        // SAFETY: slurm_strerror returns a NUL-terminated string that stays
        // valid at least until this thread's next call.
        unsafe { CStr::from_ptr(slurm_strerror(n)) }.to_string_lossy().into_owned()
    }

    #[test]
    fn texts_as_slurm_gives_them() {
        assert_eq!(text(0), "No error");
        assert_eq!(text(-1), "Unspecified error");
        assert_eq!(text(115), "Operation now in progress");
        assert_eq!(text(2017), "Invalid job id specified");
        assert_eq!(text(2), "No such file or directory");
        assert_eq!(text(-5), "Unknown negative error number");
        // the same text the commands print, at the same address each time
        assert_eq!(text(2017), spur_core::errors::strerror(2017));
        assert_eq!(slurm_strerror(2017), slurm_strerror(2017));
    }
}
