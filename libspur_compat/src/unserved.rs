//! The release's public functions that Spur does not serve: each is
//! exported under its name (so that every public symbol of the release
//! resolves) and fails as Slurm fails for a feature a site does not have:
//! the function's failure value, and `slurm_get_errno()` gives
//! `ESLURM_NOT_SUPPORTED` ("Requested operation not supported on this
//! system"). The definitions are written by build.rs from the header's
//! declarations, for each function no module here defines by hand; `UNSERVED`
//! lists them (the table in README.md is made from it).
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments, unused_variables)]

/// What a function returns when it fails.
pub trait Failure {
    fn failure() -> Self;
}
impl Failure for () {
    fn failure() -> Self {}
}
macro_rules! signed {
    ($($t:ty),*) => { $(impl Failure for $t { fn failure() -> Self { -1 } })* };
}
macro_rules! unsigned {
    ($($t:ty),*) => { $(impl Failure for $t { fn failure() -> Self { 0 } })* };
}
// SLURM_ERROR for the int-returning calls; 0 where the type has no -1
signed!(i8, i16, i32, i64);
unsigned!(u8, u16, u32, u64, usize);
impl Failure for f64 {
    fn failure() -> Self {
        0.0
    }
}
impl Failure for bool {
    fn failure() -> Self {
        false
    }
}
impl<T> Failure for *mut T {
    fn failure() -> Self {
        std::ptr::null_mut()
    }
}
impl<T> Failure for *const T {
    fn failure() -> Self {
        std::ptr::null()
    }
}
impl<T> Failure for Option<T> {
    fn failure() -> Self {
        None
    }
}

/// Fail as an unsupported feature: errno ESLURM_NOT_SUPPORTED, the failure value.
pub fn fail<T: Failure>(_name: &str) -> T {
    crate::errno::set(crate::sys::ESLURM_NOT_SUPPORTED as i32);
    T::failure()
}

/// The generated definitions, in the scope of the release's types.
mod generated {
    #![allow(unused_imports, clippy::all)]
    use crate::sys::*;
    include!(concat!(env!("OUT_DIR"), "/unserved.rs"));
}
pub use generated::{DECLARED, SERVED, UNSERVED};
