//! `libspur_compat`: Slurm's C library, `libslurm`, for the programs that
//! link it unmodified (Slurm's Perl API and the torque wrappers, pyslurm,
//! Slurm's libpmi, site tools written in C), answering from Spur.
//!
//! # The plan
//!
//! * **One build per Slurm release**, each with that release's SONAME:
//!   `libslurm.so.42` for 24.11, `libslurm.so.38` for 22.05. A consumer
//!   built against one release's `slurm.h` loads the library of that release
//!   and nothing else; the release profile (spur-core's `compat`) is fixed at
//!   build time, not read from the environment.
//! * **The structs come from the real header.** A build script runs bindgen
//!   against the installed `slurm.h`/`slurmdb.h` of the release being built
//!   (Debian's libslurm-dev; libclang-dev at build time), so every struct the
//!   ABI passes (`job_info_msg_t`, `job_desc_msg_t`, `node_info_msg_t`, ...)
//!   has the layout the consumer was compiled with; layout tests compare
//!   sizes and offsets with the header's. Not done yet: the functions here
//!   need no struct of slurm.h.
//! * **Calls go to the controller through spur-client's blocking API**
//!   (`spur_client::blocking::Client`): typed requests in, spur-core records
//!   out, Slurm's error numbers kept for `slurm_get_errno`. The library
//!   depends on spur-grammar, spur-core and (from its first call to the
//!   controller) spur-client, and on no CLI crate: the grammars (hostlists,
//!   times, sizes) are spur-grammar's, the error texts spur-core's, the same
//!   ones the commands print.
//! * **Slurm's memory contracts**: every heap block handed to the caller is
//!   its own allocation in the form its documented free function expects:
//!   Slurm's xmalloc layout for what the caller releases with `xfree`
//!   (`slurm_xfree`), plain `malloc` where slurm.h says so (a shifted host
//!   name, `*_malloc` functions). See `xmalloc.rs`.
//!
//! # What is here now
//!
//! Functions that need no struct of slurm.h, each as 24.11's slurm.h
//! declares it:
//! * `slurm_strerror` (`errno.rs`);
//! * `slurm_xfree` and the xmalloc layout (`xmalloc.rs`);
//! * the hostlist family (`hostlist.rs`): `slurm_hostlist_create`,
//!   `_destroy`, `_count`, `_push`, `_push_host`, `_shift`,
//!   `_ranged_string`, `_ranged_string_xmalloc`, `_uniq`.
//!
//! `tests/c_abi.rs` compiles a C program against the built library and runs
//! it: the functions are reached through the dynamic symbol table, the way a
//! consumer reaches them.
//!
//! # Rules at the boundary
//!
//! * Nothing unwinds into C: every exported function runs its body under
//!   [`guard`], which turns a panic into the function's failure value.
//! * Every `unsafe` block says why it holds (`// SAFETY:`); pointers from
//!   the caller are checked for NULL where Slurm's documentation allows it,
//!   and where Slurm would crash on NULL Spur returns the failure value.
//! * Text crosses as C strings; a string that is not UTF-8 is a failure of
//!   the call, as an unparsable one is.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod absent;
pub mod bitstr;
pub mod config;
pub mod conn;
pub mod control;
pub mod errno;
pub mod ext;
pub mod full;
pub mod hostlist;
pub mod jobs;
pub mod list;
pub mod nodes;
pub mod parts;
pub mod pids;
pub mod pmi;
pub mod resv;
pub mod rpc;
pub mod slurmdb;
pub mod sprint;
pub mod steps;
pub mod stepstat;
pub mod strings;
pub mod submit;
pub mod sys;
pub mod unserved;
pub mod xmalloc;

/// Run an exported function's body, turning a panic into `failure`: a panic
/// must not unwind into the C caller.
pub(crate) fn guard<T>(failure: T, body: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or(failure)
}

/// A caller's C string as text: None for NULL or text that is not UTF-8.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that stays valid and
/// unchanged while the returned reference is used (the contract of every
/// `const char *` argument in slurm.h).
pub(crate) unsafe fn text<'a>(p: *const std::os::raw::c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: not NULL, and NUL-terminated and valid for 'a by the caller's
    // contract above.
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().ok()
}
