//! MUNGE credentials through the site's munged (`AuthType=auth/munge`),
//! as Slurm's auth/munge plugin gets them: [`encode`] asks the local munged
//! to wrap a payload in a credential that proves the caller's uid and gid;
//! [`decode`] asks it to check one (its key, its time-to-live, and that it
//! was not decoded before: munged's own replay cache) and gives back the
//! payload with who made it. Both block on the daemon's socket: call them
//! off an async runtime's worker threads.

#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code)]
mod sys {
    include!(concat!(env!("OUT_DIR"), "/munge.rs"));
}

use std::ffi::{CStr, CString};
use std::path::Path;

/// munged's socket when slurm.conf's `AuthInfo` names none (Debian's and
/// Slurm's default).
pub const DEFAULT_SOCKET: &str = "/run/munge/munge.socket.2";

/// A credential munged would not make or would not accept: its error code
/// (`munge_err_t`) and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MungeError {
    pub code: u32,
    pub message: String,
}

impl std::fmt::Display for MungeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "munge: {}", self.message)
    }
}

impl std::error::Error for MungeError {}

/// What a good credential says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub uid: u32,
    pub gid: u32,
    pub payload: Vec<u8>,
}

/// A context on one socket, destroyed when dropped.
struct Ctx(sys::munge_ctx_t);

impl Ctx {
    fn new(socket: &Path) -> Result<Ctx, MungeError> {
        // SAFETY: munge_ctx_create takes nothing and returns NULL on failure.
        let ctx = unsafe { sys::munge_ctx_create() };
        if ctx.is_null() {
            return Err(MungeError { code: 0, message: "cannot create a context".into() });
        }
        let ctx = Ctx(ctx);
        let path = CString::new(socket.as_os_str().as_encoded_bytes())
            .map_err(|_| MungeError { code: 0, message: "socket path holds a NUL byte".into() })?;
        // SAFETY: MUNGE_OPT_SOCKET takes one `char *` argument, copied by
        // libmunge; `path` outlives the call.
        let e = unsafe { sys::munge_ctx_set(ctx.0, sys::munge_opt::MUNGE_OPT_SOCKET as libc::c_int, path.as_ptr()) };
        ctx.check(e)?;
        Ok(ctx)
    }

    fn check(&self, e: sys::munge_err::Type) -> Result<(), MungeError> {
        if e == sys::munge_err::EMUNGE_SUCCESS {
            return Ok(());
        }
        // SAFETY: the context's message is a NUL-terminated string owned by
        // the context (or NULL); munge_strerror's is static.
        let msg = unsafe {
            let p = sys::munge_ctx_strerror(self.0);
            let p = if p.is_null() { sys::munge_strerror(e) } else { p };
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        Err(MungeError { code: e, message: msg })
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: created by munge_ctx_create, destroyed once.
        unsafe { sys::munge_ctx_destroy(self.0) }
    }
}

/// A credential for `payload` from the munged at `socket` (base64 text,
/// `MUNGE:...:`), proving this process's uid and gid.
pub fn encode(socket: &Path, payload: &[u8]) -> Result<String, MungeError> {
    let ctx = Ctx::new(socket)?;
    let len = i32::try_from(payload.len()).map_err(|_| MungeError { code: 0, message: "payload too large".into() })?;
    let mut cred: *mut libc::c_char = std::ptr::null_mut();
    // SAFETY: `payload` is valid for `len` bytes; on success libmunge sets
    // `cred` to a malloc'd NUL-terminated string we free.
    let e = unsafe { sys::munge_encode(&mut cred, ctx.0, payload.as_ptr().cast(), len) };
    ctx.check(e)?;
    if cred.is_null() {
        return Err(MungeError { code: 0, message: "no credential".into() });
    }
    // SAFETY: see above.
    let out = unsafe {
        let s = CStr::from_ptr(cred).to_string_lossy().into_owned();
        libc::free(cred.cast());
        s
    };
    Ok(out)
}

/// Check `cred` with the munged at `socket`: its payload and maker.
pub fn decode(socket: &Path, cred: &str) -> Result<Decoded, MungeError> {
    let ctx = Ctx::new(socket)?;
    let c = CString::new(cred).map_err(|_| MungeError { code: 0, message: "credential holds a NUL byte".into() })?;
    let mut buf: *mut libc::c_void = std::ptr::null_mut();
    let mut len: libc::c_int = 0;
    let (mut uid, mut gid): (libc::uid_t, libc::gid_t) = (0, 0);
    // SAFETY: all out-pointers are valid; libmunge mallocs the payload
    // (even for some errors), which we free in every case.
    let e = unsafe { sys::munge_decode(c.as_ptr(), ctx.0, &mut buf, &mut len, &mut uid, &mut gid) };
    let payload = if buf.is_null() {
        vec![]
    } else {
        // SAFETY: `buf` holds `len` bytes from libmunge.
        let v = unsafe { std::slice::from_raw_parts(buf as *const u8, len.max(0) as usize).to_vec() };
        unsafe { libc::free(buf) };
        v
    };
    ctx.check(e)?;
    Ok(Decoded { uid, gid, payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_daemon_is_a_socket_error() {
        let e = encode(Path::new("/nonexistent/munge.socket"), b"x").unwrap_err();
        assert_eq!(e.code, sys::munge_err::EMUNGE_SOCKET, "{e}");
        let e = decode(Path::new("/nonexistent/munge.socket"), "MUNGE:AAAA:").unwrap_err();
        assert!(e.code != 0, "{e}");
    }
}
