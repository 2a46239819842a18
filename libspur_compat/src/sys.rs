//! The release's `slurm.h`, `slurmdb.h` and `slurm_errno.h` as bindgen reads
//! them at build time (build.rs): types, constants and enumerators, with
//! bindgen's compile-time checks that each struct's size and field offsets
//! are clang's. The functions the headers declare are not here: the library
//! defines them (by hand, or in `unserved`).
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    unused_imports,
    clippy::all,
    clippy::pedantic,
    unsafe_op_in_unsafe_fn
)]

include!(concat!(env!("OUT_DIR"), "/slurm.rs"));

/// The Slurm release these bindings are of ("24.11" or "22.05").
pub const RELEASE: &str = env!("SPUR_COMPAT_RELEASE");
/// The library's SONAME for that release.
pub const SONAME: &str = env!("SPUR_COMPAT_SONAME");

include!(concat!(env!("OUT_DIR"), "/errno_codes.rs"));

/// Each struct's size and field offsets as Rust lays out these bindings
/// (tests/layout.rs compares them with gcc's for the real headers).
pub mod layout {
    include!(concat!(env!("OUT_DIR"), "/layout.rs"));
}

// Each hand-written function has the type the release's header declares:
// a constant of that function-pointer type, initialised with it.
include!(concat!(env!("OUT_DIR"), "/signatures.rs"));

/// Where the release's headers were read from (`-I` for a C compiler).
pub const INCLUDE: &str = env!("SPUR_COMPAT_INCLUDE");
/// The C program that prints each struct's size and offsets as gcc lays
/// them out for the same headers (build.rs wrote it).
pub const LAYOUT_C: &str = include_str!(concat!(env!("OUT_DIR"), "/layout.c"));
