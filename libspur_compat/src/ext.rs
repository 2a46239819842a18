//! Spur's own extensions to libslurm's API, declared in `include/spur_compat.h`
//! (written by cbindgen from this file at build time; the copy committed in
//! `include/` is checked against it by tests/header.rs). Slurm's own
//! headers stay Slurm's: a program that wants these includes spur_compat.h.

use std::ffi::{c_char, c_int, CStr};

/// The library's version and the Slurm release whose ABI it carries, e.g.
/// `spur-compat 0.1.0 (Slurm 24.11 ABI, libslurm.so.42)`. The text belongs
/// to the library.
#[no_mangle]
pub extern "C" fn spur_compat_version() -> *const c_char {
    static TEXT: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let t = format!(
            "spur-compat {} (Slurm {} ABI, {})",
            env!("CARGO_PKG_VERSION"),
            crate::sys::RELEASE,
            crate::sys::SONAME
        );
        std::ffi::CString::new(t).unwrap_or_default()
    })
    .as_ptr()
}

/// Which Spur cluster the library reaches: `ClusterName` of the slurm.conf
/// it read, then its controllers as `name(address):port`, e.g.
/// `spur host1(127.0.0.1):6817 host2(127.0.0.2):6817`. NULL (and errno set)
/// when no configuration could be read. Release it with `slurm_xfree`.
#[no_mangle]
pub extern "C" fn spur_compat_cluster() -> *mut c_char {
    crate::guard(std::ptr::null_mut(), || {
        let Ok(conf) = crate::conn::conf() else {
            return std::ptr::null_mut();
        };
        let mut t = conf.cluster_name.clone();
        for c in &conf.controllers {
            t.push_str(&format!(" {}({}):{}", c.name, c.addr, conf.slurmctld_port));
        }
        crate::xmalloc::xstrdup(&t)
    })
}

/// Whether the library serves a function of libslurm: 1 when it does the
/// real thing (through the Spur cluster, or locally for helpers such as the
/// hostlist and bitstring functions), 0 when it is exported only to fail as
/// Slurm fails for a feature a site does not have (errno
/// `ESLURM_NOT_SUPPORTED`), -1 when the library does not export it.
///
/// # Safety
/// `symbol` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn spur_compat_served(symbol: *const c_char) -> c_int {
    crate::guard(-1, || {
        if symbol.is_null() {
            return -1;
        }
        // SAFETY: not NULL and NUL-terminated (the caller's contract).
        let Ok(name) = unsafe { CStr::from_ptr(symbol) }.to_str() else {
            return -1;
        };
        if crate::unserved::SERVED.binary_search(&name).is_ok() {
            1
        } else if crate::unserved::UNSERVED.binary_search(&name).is_ok() {
            0
        } else {
            -1
        }
    })
}

/// `spur_compat.h` as cbindgen wrote it from this file at build time.
pub const HEADER: &str = include_str!(concat!(env!("OUT_DIR"), "/spur_compat.h"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_served_and_unserved_functions() {
        let q = |s: &CStr| unsafe { spur_compat_served(s.as_ptr()) };
        assert_eq!(q(c"slurm_hostlist_create"), 1);
        assert_eq!(q(c"slurm_strerror"), 1);
        assert_eq!(q(c"no_such_function"), -1);
        // the lists are sorted, and no function is in both
        assert!(crate::unserved::SERVED.windows(2).all(|w| w[0] < w[1]));
        assert!(crate::unserved::UNSERVED.windows(2).all(|w| w[0] < w[1]));
        assert!(crate::unserved::UNSERVED.iter().all(|u| crate::unserved::SERVED.binary_search(u).is_err()));
        // every declared function is either served or exported as unserved
        // (slurm.h declares no variadic function)
        assert!(crate::unserved::DECLARED
            .iter()
            .all(|d| crate::unserved::SERVED.binary_search(d).is_ok()
                || crate::unserved::UNSERVED.binary_search(d).is_ok()));
        let v = unsafe { CStr::from_ptr(spur_compat_version()) }.to_str().unwrap().to_string();
        assert!(v.starts_with("spur-compat ") && v.contains(crate::sys::SONAME), "{}", v);
    }
}
