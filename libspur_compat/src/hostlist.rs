//! The hostlist family of slurm.h: an opaque `hostlist_t` that C code
//! creates from an expression (`node[1-4],login`), grows, takes hosts off
//! and prints, backed by spur-grammar's [`Hostlist`] (the grammar the
//! commands and the controller read, checked against scontrol 24.11).
//!
//! Signatures are 24.11's (`hostlist_t *` arguments; 22.05 declared
//! `hostlist_t` as the pointer type itself: the same ABI). Where Slurm's
//! behaviour on a NULL list is a crash, these return the failure value.
//! A hostlist may be used from several threads at once, as Slurm's (which
//! holds a mutex) may.

use crate::{guard, text, xmalloc};
use spur_grammar::hostlist::Hostlist;
use std::ffi::{c_char, c_int};
use std::ptr::null_mut;
use std::sync::{Mutex, MutexGuard};

/// What a `hostlist_t *` points to. C code only holds the pointer.
pub struct SlurmHostlist(Mutex<Hostlist>);

/// The opaque `struct hostlist` of slurm.h that callers hold pointers to
/// (`hostlist_t *` in 24.11, `hostlist_t` itself in 22.05: the same ABI).
pub type Hl = crate::sys::hostlist;

/// The list behind a caller's pointer, locked (None for NULL).
///
/// # Safety
/// `hl` is NULL or a pointer returned by [`slurm_hostlist_create`] and not
/// yet given to [`slurm_hostlist_destroy`].
unsafe fn locked<'a>(hl: *mut Hl) -> Option<MutexGuard<'a, Hostlist>> {
    // SAFETY: by the contract above, a non-NULL hl points to a live
    // SlurmHostlist; other threads only reach it through the same lock.
    let h = unsafe { (hl as *mut SlurmHostlist).as_ref() }?;
    // a panic while locked is caught by `guard` and leaves the list whole
    Some(h.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
}

fn c_count(n: u64) -> c_int {
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

/// `hostlist_t *slurm_hostlist_create(const char *hostlist)`: a list of the
/// hosts an expression names (NULL: an empty list); NULL when the
/// expression is invalid. Release it with `slurm_hostlist_destroy`.
///
/// # Safety
/// `hostlist` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_create(hostlist: *const c_char) -> *mut Hl {
    guard(null_mut(), || {
        let parsed = if hostlist.is_null() {
            Hostlist::new()
        } else {
            // SAFETY: not NULL, NUL-terminated by the caller's contract.
            let Some(expr) = (unsafe { text(hostlist) }) else {
                return null_mut();
            };
            match Hostlist::parse(expr) {
                Ok(h) => h,
                Err(_) => return null_mut(),
            }
        };
        Box::into_raw(Box::new(SlurmHostlist(Mutex::new(parsed)))) as *mut Hl
    })
}

/// `void slurm_hostlist_destroy(hostlist_t *hl)`: release a list (NULL: nothing).
///
/// # Safety
/// `hl` is NULL or from `slurm_hostlist_create`, and not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_destroy(hl: *mut Hl) {
    guard((), || {
        if !hl.is_null() {
            // SAFETY: hl came from Box::into_raw in slurm_hostlist_create
            // and is released once (the caller's contract).
            drop(unsafe { Box::from_raw(hl as *mut SlurmHostlist) });
        }
    })
}

/// `int slurm_hostlist_count(hostlist_t *hl)`: how many hosts (duplicates
/// counted); -1 for NULL, as Slurm.
///
/// # Safety
/// As [`slurm_hostlist_destroy`]'s `hl`, still live.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_count(hl: *mut Hl) -> c_int {
    // SAFETY: hl is NULL or live (the caller's contract).
    guard(-1, || unsafe { locked(hl) }.map(|h| c_count(h.count())).unwrap_or(-1))
}

/// `int slurm_hostlist_push(hostlist_t *hl, const char *hosts)`: append the
/// hosts of an expression; returns how many, 0 on failure (NULL arguments or
/// an invalid expression, which leaves the list unchanged).
///
/// # Safety
/// `hl` as [`slurm_hostlist_count`]'s; `hosts` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_push(hl: *mut Hl, hosts: *const c_char) -> c_int {
    guard(0, || {
        // SAFETY: hosts is NULL or NUL-terminated (the caller's contract).
        let Some(Ok(more)) = (unsafe { text(hosts) }).map(Hostlist::parse) else {
            return 0;
        };
        // SAFETY: hl is NULL or live (the caller's contract).
        let Some(mut h) = (unsafe { locked(hl) }) else {
            return 0;
        };
        let n = more.count();
        h.append(more);
        c_count(n)
    })
}

/// `int slurm_hostlist_push_host(hostlist_t *hl, const char *host)`: append
/// one host, taken literally (no ranges); 1 on success, 0 on failure.
///
/// # Safety
/// As [`slurm_hostlist_push`].
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_push_host(hl: *mut Hl, host: *const c_char) -> c_int {
    guard(0, || {
        // SAFETY: host is NULL or NUL-terminated (the caller's contract).
        let Some(name) = (unsafe { text(host) }) else {
            return 0;
        };
        // SAFETY: hl is NULL or live (the caller's contract).
        let Some(mut h) = (unsafe { locked(hl) }) else {
            return 0;
        };
        h.push_host(name);
        1
    })
}

/// `char *slurm_hostlist_shift(hostlist_t *hl)`: take the first host off the
/// list and return it, in memory the caller releases with `free`; NULL when
/// the list is empty (or NULL).
///
/// # Safety
/// As [`slurm_hostlist_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_shift(hl: *mut Hl) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: hl is NULL or live (the caller's contract).
        let Some(mut h) = (unsafe { locked(hl) }) else {
            return null_mut();
        };
        h.shift().map(|host| xmalloc::malloc_str(&host)).unwrap_or(null_mut())
    })
}

/// `ssize_t slurm_hostlist_ranged_string(hostlist_t *hl, size_t n, char
/// *buf)`: write the list as an expression (`node[1-4],login`) into `buf`,
/// at most `n` bytes with the terminating NUL; returns the length written,
/// or -1 when it did not fit (then `buf` holds its first `n - 1` bytes and
/// the NUL). -1 for a NULL list, or a NULL `buf` with `n` > 0.
///
/// # Safety
/// `hl` as [`slurm_hostlist_count`]'s; `buf` points to `n` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string(hl: *mut Hl, n: usize, buf: *mut c_char) -> isize {
    guard(-1, || {
        // SAFETY: hl is NULL or live (the caller's contract).
        let Some(h) = (unsafe { locked(hl) }) else {
            return -1;
        };
        if buf.is_null() && n > 0 {
            return -1;
        }
        let s = h.ranged_string();
        let fits = s.len() < n;
        let len = if fits { s.len() } else { n.saturating_sub(1) };
        if n > 0 {
            // SAFETY: buf has n writable bytes (the caller's contract) and
            // len + 1 <= n; the source is our own string.
            unsafe {
                std::ptr::copy_nonoverlapping(s.as_ptr(), buf.cast::<u8>(), len);
                buf.add(len).write(0);
            }
        }
        if fits {
            isize::try_from(len).unwrap_or(-1)
        } else {
            -1
        }
    })
}

/// `char *slurm_hostlist_ranged_string_xmalloc(hostlist_t *hl)`: the list as
/// an expression, in memory the caller releases with `xfree`
/// (`slurm_xfree`); NULL for a NULL list or when memory runs out.
///
/// # Safety
/// As [`slurm_hostlist_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string_xmalloc(hl: *mut Hl) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: hl is NULL or live (the caller's contract).
        match unsafe { locked(hl) } {
            Some(h) => xmalloc::xstrdup(&h.ranged_string()),
            None => null_mut(),
        }
    })
}

/// `char *slurm_hostlist_ranged_string_malloc(hostlist_t hl)`: the list as
/// an expression, as [`slurm_hostlist_ranged_string_xmalloc`], in memory the
/// caller releases with `free`; NULL for a NULL list or when memory runs out.
///
/// # Safety
/// As [`slurm_hostlist_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_ranged_string_malloc(hl: *mut Hl) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: hl is NULL or live (the caller's contract).
        match unsafe { locked(hl) } {
            Some(h) => xmalloc::malloc_str(&h.ranged_string()),
            None => null_mut(),
        }
    })
}

/// `int slurm_hostlist_find(hostlist_t *hl, const char *hostname)`: the
/// position of the first host named `hostname` (0 for the first host), -1
/// when the list has none (or for NULL arguments).
///
/// # Safety
/// `hl` as [`slurm_hostlist_count`]'s; `hostname` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_find(hl: *mut Hl, hostname: *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: hostname is NULL or NUL-terminated (the caller's contract).
        let Some(name) = (unsafe { text(hostname) }) else {
            return -1;
        };
        // SAFETY: hl is NULL or live (the caller's contract).
        let Some(h) = (unsafe { locked(hl) }) else {
            return -1;
        };
        let found = h.iter().position(|host| host == name);
        found.map(|i| c_count(i as u64)).unwrap_or(-1)
    })
}

/// `char *slurm_hostlist_deranged_string_malloc(hostlist_t hl)`: every
/// host of the list, in order and without ranges, comma separated
/// (`n1,n2,n3,login`), in memory the caller releases with `free`; NULL for
/// a NULL list or when memory runs out (an empty list gives "").
///
/// # Safety
/// As [`slurm_hostlist_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_deranged_string_malloc(hl: *mut Hl) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: hl is NULL or live (the caller's contract).
        match unsafe { locked(hl) } {
            Some(h) => xmalloc::malloc_str(&h.iter().collect::<Vec<_>>().join(",")),
            None => null_mut(),
        }
    })
}

/// `void slurm_hostlist_uniq(hostlist_t *hl)`: sort the hosts and drop
/// duplicates (NULL: nothing).
///
/// # Safety
/// As [`slurm_hostlist_count`].
#[no_mangle]
pub unsafe extern "C" fn slurm_hostlist_uniq(hl: *mut Hl) {
    guard((), || {
        // SAFETY: hl is NULL or live (the caller's contract).
        if let Some(mut h) = unsafe { locked(hl) } {
            h.uniq();
        }
    })
}

/// `char *slurm_read_hostfile(const char *filename, int n)`: the host names
/// of a Slurm host file (one per line or comma separated, `NAME*N`, `#`
/// comments; spur-grammar's `read_hostfile`, which srun's `--nodefile` and
/// `SLURM_HOSTFILE` read too), up to the line where there are `n` of them
/// (all for `NO_VAL` or n <= 0), as a ranged string in plain `malloc` memory (the caller frees
/// it with `free`, as slurm.h says). NULL, with Slurm's message on standard
/// error, when the file cannot be read or holds fewer than `n` names.
///
/// # Safety
/// `filename` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_read_hostfile(filename: *const c_char, n: c_int) -> *mut c_char {
    guard(null_mut(), || {
        // SAFETY: NULL or NUL-terminated (the caller's contract).
        let Some(path) = (unsafe { text(filename) }).filter(|p| !p.is_empty()) else {
            return null_mut();
        };
        let prog = std::env::args().next().unwrap_or_default();
        let prog = prog.rsplit('/').next().unwrap_or("").to_string();
        let content = match std::fs::read_to_string(path) {
            Ok(c) => c,
            Err(e) => {
                // (%m: the C library's text, without Rust's "(os error N)")
                let m = e.raw_os_error().map(|c| {
                    // SAFETY: strerror returns a NUL-terminated string valid until this thread's next call.
                    unsafe { std::ffi::CStr::from_ptr(libc::strerror(c)) }.to_string_lossy().into_owned()
                });
                eprintln!(
                    "{}: error: slurm_allocate_resources error opening file {}, {}",
                    prog,
                    path,
                    m.unwrap_or_else(|| e.to_string())
                );
                return null_mut();
            }
        };
        // Slurm stops reading at the end of the line where it holds exactly
        // n names, else reads on (so a line may take it past n), and fails
        // if it ends with fewer; NO_VAL (-2 as an int) and n <= 0: no limit
        let want = usize::try_from(n).ok().filter(|n| *n > 0);
        let mut upto = content.len();
        if let Some(want) = want {
            let mut end = 0;
            for line in content.split_inclusive('\n') {
                end += line.len();
                let got = spur_grammar::hostlist::read_hostfile(path, &content[..end], None).map(|h| h.len());
                if got == Ok(want) {
                    upto = end;
                    break;
                }
            }
        }
        match spur_grammar::hostlist::read_hostfile(path, &content[..upto], None) {
            Ok(hosts) if want.is_some_and(|w| hosts.len() < w) => {
                eprintln!("{}: error: Too few NodeNames in Slurm Hostfile", prog);
                null_mut()
            }
            Ok(hosts) => {
                let mut hl = Hostlist::new();
                for h in &hosts {
                    hl.push_host(h);
                }
                xmalloc::malloc_str(&hl.ranged_string())
            }
            Err(e) => {
                eprintln!("{}: error: {}", prog, e);
                null_mut()
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{CStr, CString};

    #[test]
    fn reads_a_host_file_as_slurm() {
        let dir = std::env::temp_dir().join(format!("compat-hostfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("hosts");
        std::fs::write(&f, "n1\n# c\nn2,n3*2\n").unwrap();
        let path = CString::new(f.to_str().unwrap()).unwrap();
        let read = |n: c_int| {
            let p = unsafe { slurm_read_hostfile(path.as_ptr(), n) };
            if p.is_null() {
                return None;
            }
            let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
            unsafe { libc::free(p.cast()) };
            Some(s)
        };
        // as Debian's libslurm.so.38 reads it: a line is read whole
        assert_eq!(read(-2).as_deref(), Some("n[1-3,3]"));
        assert_eq!(read(2).as_deref(), Some("n[1-3,3]"));
        assert_eq!(read(1).as_deref(), Some("n1"));
        assert_eq!(read(9), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn ranged(hl: *mut Hl) -> String {
        let mut buf = [0 as c_char; 64];
        // SAFETY: hl is live; buf has 64 bytes.
        let n = unsafe { slurm_hostlist_ranged_string(hl, buf.len(), buf.as_mut_ptr()) };
        assert!(n >= 0);
        // SAFETY: the function NUL-terminated buf.
        unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string()
    }

    #[test]
    fn through_the_c_signatures() {
        let expr = CString::new("n[1-3],login").unwrap();
        // SAFETY: every pointer below is live or NULL, as each function allows.
        unsafe {
            let hl = slurm_hostlist_create(expr.as_ptr());
            assert_eq!(slurm_hostlist_count(hl), 4);
            assert_eq!(slurm_hostlist_push(hl, c"n[4-5]".as_ptr()), 2);
            assert_eq!(slurm_hostlist_push(hl, c"n[5-".as_ptr()), 0);
            assert_eq!(slurm_hostlist_push_host(hl, c"n1".as_ptr()), 1);
            assert_eq!(ranged(hl), "n[1-3],login,n[4-5,1]");
            let first = slurm_hostlist_shift(hl);
            assert_eq!(CStr::from_ptr(first).to_str(), Ok("n1"));
            libc::free(first.cast());
            slurm_hostlist_uniq(hl);
            assert_eq!(ranged(hl), "login,n[1-5]");
            // too small a buffer: -1 and the first n - 1 bytes
            let mut small = [1 as c_char; 5];
            assert_eq!(slurm_hostlist_ranged_string(hl, small.len(), small.as_mut_ptr()), -1);
            assert_eq!(CStr::from_ptr(small.as_ptr()).to_str(), Ok("logi"));
            let r = slurm_hostlist_ranged_string_malloc(hl);
            assert_eq!(CStr::from_ptr(r).to_str(), Ok("login,n[1-5]"));
            libc::free(r.cast());
            assert_eq!(slurm_hostlist_find(hl, c"n3".as_ptr()), 3);
            assert_eq!(slurm_hostlist_find(hl, c"n9".as_ptr()), -1);
            assert_eq!(slurm_hostlist_find(hl, std::ptr::null()), -1);
            let d = slurm_hostlist_deranged_string_malloc(hl);
            assert_eq!(CStr::from_ptr(d).to_str(), Ok("login,n1,n2,n3,n4,n5"));
            libc::free(d.cast());
            let x = slurm_hostlist_ranged_string_xmalloc(hl);
            assert_eq!(CStr::from_ptr(x).to_str(), Ok("login,n[1-5]"));
            let mut item = x.cast();
            crate::xmalloc::slurm_xfree(&mut item);
            slurm_hostlist_destroy(hl);
        }
    }

    #[test]
    fn nulls_and_bad_input_fail_quietly() {
        // SAFETY: NULL lists and strings are what is tested; the list made
        // from NULL is live until destroyed.
        unsafe {
            assert!(slurm_hostlist_create(c"n[3-1]".as_ptr()).is_null());
            assert!(slurm_hostlist_create(c"n[1".as_ptr()).is_null());
            let empty = slurm_hostlist_create(std::ptr::null());
            assert_eq!(slurm_hostlist_count(empty), 0);
            assert!(slurm_hostlist_shift(empty).is_null());
            assert_eq!(slurm_hostlist_push(empty, std::ptr::null()), 0);
            assert_eq!(slurm_hostlist_push_host(empty, std::ptr::null()), 0);
            assert_eq!(ranged(empty), "");
            let d = slurm_hostlist_deranged_string_malloc(empty);
            assert_eq!(CStr::from_ptr(d).to_str(), Ok(""));
            libc::free(d.cast());
            slurm_hostlist_destroy(empty);
            let none = std::ptr::null_mut();
            assert_eq!(slurm_hostlist_count(none), -1);
            assert_eq!(slurm_hostlist_push(none, c"n1".as_ptr()), 0);
            assert!(slurm_hostlist_shift(none).is_null());
            assert!(slurm_hostlist_ranged_string_xmalloc(none).is_null());
            assert!(slurm_hostlist_deranged_string_malloc(none).is_null());
            assert!(slurm_hostlist_ranged_string_malloc(none).is_null());
            assert_eq!(slurm_hostlist_find(none, c"n1".as_ptr()), -1);
            assert_eq!(slurm_hostlist_ranged_string(none, 0, std::ptr::null_mut()), -1);
            slurm_hostlist_uniq(none);
            slurm_hostlist_destroy(none);
        }
    }
}
