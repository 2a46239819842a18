//! Identity on every request, in the manner of Slurm's auth/slurm and MUNGE.
//!
//! Every gRPC request carries a credential (version 2, [`cred`]): uid, gid,
//! who signed (a user, an agent, a controller), when, a nonce and the
//! SHA-256 of the request's body, under an HMAC-SHA256 with the cluster key
//! (`slurm.key` beside slurm.conf, readable only by root and the daemons)
//! that also covers the receiver and the method. So a credential is good
//! for one request, at one service, once.
//!
//! Root and the daemons sign with the key; anyone else asks the local
//! signing service (`spurd --authd`, [`serve_signer`]), which reads the
//! caller's uid and gid from the Unix socket (SO_PEERCRED) and signs exactly
//! those, as a user. [`grpc`] puts signing and checking on every channel and
//! service: the credential is checked before the body is read, the body
//! against it after, and the nonce in the host's replay cache ([`replay`]).
//!
//! Version 1 credentials (uid, gid, expiry, nonce: no receiver, method or
//! body) are made and taken only during a rolling upgrade from a build that
//! knows no other ([`legacy_enabled`]). Nonces and request ids come from the
//! OS random source ([`random_hex`], getrandom(2)); when it cannot be read
//! the caller gets an error, never a predictable value.

pub mod cred;
pub mod grpc;
pub mod replay;
pub mod tls;
pub mod users;

pub use cred::Kind;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// How long a credential stays valid (MUNGE's default TTL is 300 s).
pub const TTL_SECS: i64 = 300;
/// The gRPC metadata key carrying the credential.
pub const METADATA_KEY: &str = "x-spur-auth";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub uid: u32,
    pub gid: u32,
    /// Who signed: a user, an agent or a controller.
    pub kind: Kind,
}

impl Identity {
    pub fn user(uid: u32, gid: u32) -> Identity {
        Identity { uid, gid, kind: Kind::User }
    }
    /// A daemon's own identity (uid 0).
    pub fn daemon(kind: Kind) -> Identity {
        Identity { uid: 0, gid: 0, kind }
    }
}

pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// The OS random source could not be read.
#[derive(Debug)]
pub struct RandomError(getrandom::Error);

impl std::fmt::Display for RandomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read the OS random source (getrandom): {}", self.0)
    }
}

impl std::error::Error for RandomError {}

impl From<RandomError> for std::io::Error {
    fn from(e: RandomError) -> std::io::Error {
        std::io::Error::other(e.to_string())
    }
}

/// Fill `buf` from the OS random source (getrandom(2), blocking until the
/// kernel's pool is initialised); an error when it cannot be read.
pub fn random_bytes(buf: &mut [u8]) -> Result<(), RandomError> {
    getrandom::getrandom(buf).map_err(RandomError)
}

/// `n` random bytes as lowercase hex (request ids, nonces).
pub fn random_hex(n: usize) -> Result<String, RandomError> {
    let mut b = vec![0u8; n];
    random_bytes(&mut b)?;
    Ok(hex(&b))
}

/// Bytes as lowercase hex.
pub fn hex(b: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{:02x}", x);
    }
    s
}

fn mac(key: &[u8], msg: &str) -> String {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("hmac accepts any key length");
    m.update(msg.as_bytes());
    hex(&m.finalize().into_bytes())
}

/// A version 1 credential for `id` (the uid and gid only), valid for
/// TTL_SECS: what builds before credentials of version 2 ([`cred`]) send
/// and take; made and taken now only during a rolling upgrade from such a
/// build ([`legacy_enabled`]). An error only when the OS random source
/// cannot give a nonce.
pub fn sign(key: &[u8], id: &Identity) -> Result<String, RandomError> {
    let body = format!("v1.{}.{}.{}.{}", id.uid, id.gid, now() + TTL_SECS, random_hex(16)?);
    let m = mac(key, &body);
    Ok(format!("{}.{}", body, m))
}

#[derive(Debug, PartialEq, Eq)]
pub enum AuthError {
    Malformed,
    BadSignature,
    Expired,
    Replayed,
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AuthError::Malformed => "malformed credential",
            AuthError::BadSignature => "invalid credential signature",
            AuthError::Expired => "credential expired",
            AuthError::Replayed => "credential replayed",
        })
    }
}

/// Checks version 1 credentials and remembers nonces until they expire
/// (a rolling upgrade only).
pub struct Verifier {
    key: Vec<u8>,
    seen: Mutex<HashMap<String, i64>>,
}

impl Verifier {
    pub fn new(key: Vec<u8>) -> Verifier {
        Verifier { key, seen: Mutex::new(HashMap::new()) }
    }

    pub fn verify(&self, token: &str) -> Result<Identity, AuthError> {
        let parts: Vec<&str> = token.split('.').collect();
        if parts.len() != 6 || parts[0] != "v1" {
            return Err(AuthError::Malformed);
        }
        let body = parts[..5].join(".");
        let expected = mac(&self.key, &body);
        if !constant_eq(expected.as_bytes(), parts[5].as_bytes()) {
            return Err(AuthError::BadSignature);
        }
        let uid: u32 = parts[1].parse().map_err(|_| AuthError::Malformed)?;
        let gid: u32 = parts[2].parse().map_err(|_| AuthError::Malformed)?;
        let exp: i64 = parts[3].parse().map_err(|_| AuthError::Malformed)?;
        let t = now();
        if exp < t || exp > t + TTL_SECS + 60 {
            return Err(AuthError::Expired);
        }
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() > 100_000 {
            seen.retain(|_, e| *e >= t);
        }
        if seen.insert(parts[4].to_string(), exp).is_some() {
            return Err(AuthError::Replayed);
        }
        Ok(Identity::user(uid, gid))
    }
}

pub(crate) fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The key file for a slurm.conf: `slurm.key` in the same directory.
pub fn key_path(conf: &Path) -> PathBuf {
    conf.parent().unwrap_or(Path::new("/")).join("slurm.key")
}

/// Read the cluster key. As Slurm's auth/slurm, a key file that others may
/// read, write or execute is refused ("key file is insecure", with its
/// mode), and one owned by neither root nor this process's user is warned
/// about on stderr. The mode is that of the file opened (fstat), not of a
/// path that could be swapped between a check and the read.
pub fn read_key(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::MetadataExt;
    let mut f = std::fs::File::open(path)?;
    let md = f.metadata()?;
    if md.mode() & 0o007 != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("key file is insecure: '{}' mode=0{:o}", path.display(), md.mode() & 0o777),
        ));
    }
    let me = nix::unistd::geteuid().as_raw();
    if md.uid() != 0 && md.uid() != me {
        eprintln!("warning: '{}' owned by uid={}, instead of root or uid {}", path.display(), md.uid(), me);
    }
    let mut k = vec![];
    f.read_to_end(&mut k)?;
    if k.len() < 16 {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "key too short"));
    }
    Ok(k)
}

/// Create a new random key file readable only by its owner.
pub fn create_key(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut b = vec![0u8; 64];
    random_bytes(&mut b)?;
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    f.write_all(&b)
}

/// Whether slurm.conf's `AuthType` is `auth/munge`: users' commands then
/// prove who they are through the site's munged, as Slurm's do.
pub fn is_munge(auth_type: Option<&str>) -> bool {
    auth_type.is_some_and(|t| t.trim().eq_ignore_ascii_case("auth/munge"))
}

/// A key of `AuthInfo=k=v,...`.
fn auth_info_key<'a>(auth_info: Option<&'a str>, key: &str) -> Option<&'a str> {
    auth_info?.split(',').filter_map(|kv| kv.trim().split_once('=')).find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// munged's socket under `AuthType=auth/munge`: `AuthInfo=socket=PATH`, as
/// Slurm reads it, else munge's default; `None` under other auth types.
pub fn munge_socket(auth_type: Option<&str>, auth_info: Option<&str>) -> Option<PathBuf> {
    is_munge(auth_type).then(|| PathBuf::from(auth_info_key(auth_info, "socket").unwrap_or(spur_munge::DEFAULT_SOCKET)))
}

/// Where the local signing service listens: `AuthInfo=socket=PATH` in
/// slurm.conf (under `auth/munge`, where `socket=` is munged's,
/// `AuthInfo=spur_socket=PATH`), else /run/spur/auth.socket.
pub fn socket_path(auth_type: Option<&str>, auth_info: Option<&str>) -> PathBuf {
    let key = if is_munge(auth_type) { "spur_socket" } else { "socket" };
    PathBuf::from(auth_info_key(auth_info, key).unwrap_or("/run/spur/auth.socket"))
}

/// Whether version 1 credentials are still made and taken:
/// `AuthInfo=...,legacy_credentials=yes` in slurm.conf, for the time of a
/// rolling upgrade from a build that knows no other (SECURITY.md: the
/// upgrade window restores their weaknesses, so it is meant to be short).
pub fn legacy_enabled(auth_info: Option<&str>) -> bool {
    auth_info.map(|ai| ai.split(',').any(|kv| kv.trim() == "legacy_credentials=yes")).unwrap_or(false)
}

/// The host's replay cache: `replay.cache` beside the signing service's socket.
pub fn replay_path(auth_type: Option<&str>, auth_info: Option<&str>) -> PathBuf {
    let s = socket_path(auth_type, auth_info);
    s.parent().unwrap_or(Path::new("/run/spur")).join("replay.cache")
}

/// Connections the signing service serves at once (more wait to be accepted).
const SIGNER_THREADS: usize = 32;

/// Serve credentials on `socket` forever. A caller writes one line,
/// `v2 <audience> <method> <body hash, hex>`, and gets a version 2 user
/// credential for exactly those and for the uid and gid the kernel reports
/// for it (SO_PEERCRED). With `legacy` (a rolling upgrade), a caller that
/// writes nothing (a client of an older build) gets a version 1 one.
pub fn serve_signer(socket: &Path, key: Vec<u8>, legacy: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    if let Some(d) = socket.parent() {
        std::fs::create_dir_all(d)?;
    }
    let _ = std::fs::remove_file(socket);
    let l = UnixListener::bind(socket)?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o777))?;
    let key = Arc::new(key);
    let busy = Arc::new(AtomicUsize::new(0));
    for conn in l.incoming() {
        let c = match conn {
            Ok(c) => c,
            Err(_) => continue,
        };
        while busy.load(Ordering::SeqCst) >= SIGNER_THREADS {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        busy.fetch_add(1, Ordering::SeqCst);
        let (key, busy) = (key.clone(), busy.clone());
        std::thread::spawn(move || {
            answer_signing(c, &key, legacy);
            busy.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// One signing request (bounded: 1 KiB, 2 seconds).
fn answer_signing(mut c: UnixStream, key: &[u8], legacy: bool) {
    let Ok(cred) = nix::sys::socket::getsockopt(&c, nix::sys::socket::sockopt::PeerCredentials) else { return };
    let _ = c.set_read_timeout(Some(std::time::Duration::from_secs(2)));
    let _ = c.set_write_timeout(Some(std::time::Duration::from_secs(2)));
    let mut line = Vec::new();
    let _ = (&mut c).take(1024).read_to_end(&mut line);
    let line = String::from_utf8_lossy(&line);
    let f: Vec<&str> = line.split_whitespace().collect();
    let id = Identity::user(cred.uid(), cred.gid());
    // (no random source: the caller gets an empty answer, "refused")
    let tok = match f.as_slice() {
        ["v2", audience, method, hash] if audience.len() <= 256 && method.len() <= 256 => {
            let mut h = [0u8; 32];
            if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return;
            }
            for (i, o) in h.iter_mut().enumerate() {
                *o = u8::from_str_radix(&hash[2 * i..2 * i + 2], 16).unwrap_or(0);
            }
            cred::sign(key, &id, audience, method, &h).ok()
        }
        [] if legacy => sign(key, &id).ok(),
        _ => None,
    };
    if let Some(t) = tok {
        let _ = c.write_all(t.as_bytes());
        let _ = c.write_all(b"\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key others may read is refused, naming the file and its mode (issue 9, point 8).
    #[test]
    fn an_insecure_key_file_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let d = std::env::temp_dir().join(format!("spur-key-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("slurm.key");
        let _ = std::fs::remove_file(&p);
        create_key(&p).unwrap();
        assert_eq!(read_key(&p).unwrap().len(), 64);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = read_key(&p).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert_eq!(e.to_string(), format!("key file is insecure: '{}' mode=0644", p.display()));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert!(read_key(&p).is_ok(), "group-readable is Slurm's allowed mode too");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn sign_verify_replay_forge() {
        let key = b"0123456789abcdef0123456789abcdef".to_vec();
        let v = Verifier::new(key.clone());
        let t = sign(&key, &Identity::user(1500, 1500)).unwrap();
        assert_eq!(v.verify(&t), Ok(Identity::user(1500, 1500)));
        assert_eq!(v.verify(&t), Err(AuthError::Replayed));
        // forge: change the uid and keep the mac
        let forged = t.replacen("v1.1500.", "v1.0.", 1);
        assert_eq!(v.verify(&forged), Err(AuthError::BadSignature));
        let other = sign(b"another key that is long enough", &Identity::user(0, 0)).unwrap();
        assert_eq!(v.verify(&other), Err(AuthError::BadSignature));
        assert_eq!(v.verify("garbage"), Err(AuthError::Malformed));
        assert_eq!(v.verify(""), Err(AuthError::Malformed));
        // an expired credential, correctly signed
        let body = format!("v1.0.0.{}.00112233445566778899aabbccddeeff", now() - 1);
        let old = format!("{}.{}", body, mac(&key, &body));
        assert_eq!(v.verify(&old), Err(AuthError::Expired));
    }

    /// The signing service signs a version 2 user credential for the peer's
    /// own uid and for what it asked; anything else gets nothing.
    #[test]
    fn the_signing_service_signs_only_the_callers_own_user_credential() {
        let d = std::env::temp_dir().join(format!("spur-signer-test-{}", std::process::id()));
        let key = b"0123456789abcdef0123456789abcdef".to_vec();
        for legacy in [false, true] {
            // a socket of its own for each service: the second one, bound
            // where the first still listened, could be reached between its
            // bind and its listen (ECONNREFUSED, seen once in CI)
            let sock = d.join(format!("auth-{}.socket", legacy));
            let (s2, k2) = (sock.clone(), key.clone());
            std::thread::spawn(move || serve_signer(&s2, k2, legacy));
            while UnixStream::connect(&sock).is_err() {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            // (a connection reset, for a line too long, is "nothing" too)
            let ask = |line: &str| {
                let mut c = UnixStream::connect(&sock).unwrap();
                let mut out = String::new();
                let _ = c
                    .write_all(line.as_bytes())
                    .and_then(|_| c.shutdown(std::net::Shutdown::Write))
                    .and_then(|_| c.read_to_string(&mut out));
                out.trim().to_string()
            };
            let h = cred::body_hash(b"body");
            let tok = ask(&format!("v2 ctl1:6817 /spur.v1.Controller/Submit {}\n", hex(&h)));
            let c = cred::check(&key, &tok, &["ctl1:6817".into()], "/spur.v1.Controller/Submit", now()).unwrap();
            assert_eq!(c.identity(), Identity::user(nix::unistd::geteuid().as_raw(), nix::unistd::getegid().as_raw()));
            assert_eq!(c.body_hash, h);
            assert_eq!(ask("v2 a /m 00\n"), "", "a bad hash");
            assert_eq!(ask("v2 a /m\n"), "");
            assert_eq!(ask(&"x".repeat(5000)), "");
            // a client of an older build writes nothing: version 1 during an upgrade only
            let old = ask("");
            assert_eq!(old.starts_with("v1."), legacy, "{:?}", old);
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn nonces_are_random_and_distinct() {
        let a = random_hex(16).unwrap();
        let b = random_hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_ne!(a, "0".repeat(32));
        let key = b"0123456789abcdef0123456789abcdef".to_vec();
        let t1 = sign(&key, &Identity::user(1, 1)).unwrap();
        let t2 = sign(&key, &Identity::user(1, 1)).unwrap();
        assert_ne!(t1.split('.').nth(4), t2.split('.').nth(4));
    }
}
