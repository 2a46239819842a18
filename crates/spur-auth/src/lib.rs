//! Identity on every request, in the manner of Slurm's auth/slurm and MUNGE.
//!
//! A credential says "uid U, gid G, until time T, nonce N", signed with
//! HMAC-SHA256 under the cluster key (`slurm.key` beside slurm.conf, readable
//! only by root and the daemons):
//!
//! ```text
//! v1.<uid>.<gid>.<expiry, epoch seconds>.<nonce, 32 hex digits>.<HMAC-SHA256 of the part before it, hex>
//! ```
//!
//! Root signs for itself with the key; anyone else asks the local signing
//! service (`spurd --authd`, [`serve_signer`]), which reads the caller's uid
//! and gid from the Unix socket (SO_PEERCRED) and signs exactly those.
//! Verifiers ([`Verifier`]) check the signature, the expiry, and that a nonce
//! is not used twice (the replay cache).
//!
//! Who uses what: spur-client only obtains credentials ([`credential`]); the
//! daemons verify them, and the controller signs its own calls to agents and
//! peers with the key. Nonces and request ids come from the OS random source
//! ([`random_hex`], getrandom(2)); when it cannot be read the caller gets an
//! error, never a predictable value.

pub mod users;

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
    Ok(b.iter().map(|x| format!("{:02x}", x)).collect())
}

fn mac(key: &[u8], msg: &str) -> String {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("hmac accepts any key length");
    m.update(msg.as_bytes());
    m.finalize().into_bytes().iter().map(|x| format!("{:02x}", x)).collect()
}

/// A signed credential for `id`, valid for TTL_SECS (an error only when the
/// OS random source cannot give a nonce).
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

/// Checks credentials and remembers nonces until they expire.
pub struct Verifier {
    key: Vec<u8>,
    seen: Mutex<HashMap<String, i64>>,
}

impl Verifier {
    pub fn new(key: Vec<u8>) -> Verifier {
        Verifier { key, seen: Mutex::new(HashMap::new()) }
    }

    /// The identity a gRPC request's credential proves (metadata `x-spur-auth`),
    /// or the Unauthenticated status every service answers without one.
    pub fn verify_request<T>(&self, req: &tonic::Request<T>) -> Result<Identity, tonic::Status> {
        let tok = req
            .metadata()
            .get(METADATA_KEY)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| tonic::Status::unauthenticated("no credential"))?;
        self.verify(tok).map_err(|e| tonic::Status::unauthenticated(e.to_string()))
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
        Ok(Identity { uid, gid })
    }
}

fn constant_eq(a: &[u8], b: &[u8]) -> bool {
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

/// Where the local signing service listens: `AuthInfo=socket=PATH` in
/// slurm.conf, else /run/spur/auth.socket.
pub fn socket_path(auth_info: Option<&str>) -> PathBuf {
    if let Some(ai) = auth_info {
        for kv in ai.split(',') {
            if let Some(p) = kv.trim().strip_prefix("socket=") {
                return PathBuf::from(p);
            }
        }
    }
    PathBuf::from("/run/spur/auth.socket")
}

/// A credential for the calling process: signed locally when the key is
/// readable (root, the daemons), else by the signing service.
pub fn credential(key_file: &Path, socket: &Path) -> std::io::Result<String> {
    let uid = nix::unistd::geteuid().as_raw();
    let gid = nix::unistd::getegid().as_raw();
    if let Ok(k) = read_key(key_file) {
        return Ok(sign(&k, &Identity { uid, gid })?);
    }
    let mut s = UnixStream::connect(socket)?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    let mut out = String::new();
    s.read_to_string(&mut out)?;
    let out = out.trim().to_string();
    if out.is_empty() {
        return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "signing service refused"));
    }
    Ok(out)
}

/// Serve credentials on `socket` forever: every connection gets one
/// credential for the uid/gid the kernel reports for the peer.
pub fn serve_signer(socket: &Path, key: Vec<u8>) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(d) = socket.parent() {
        std::fs::create_dir_all(d)?;
    }
    let _ = std::fs::remove_file(socket);
    let l = UnixListener::bind(socket)?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o777))?;
    for conn in l.incoming() {
        let mut c = match conn {
            Ok(c) => c,
            Err(_) => continue,
        };
        let cred = nix::sys::socket::getsockopt(&c, nix::sys::socket::sockopt::PeerCredentials);
        if let Ok(cred) = cred {
            // (no random source: the caller gets an empty answer, "refused")
            if let Ok(tok) = sign(&key, &Identity { uid: cred.uid(), gid: cred.gid() }) {
                let _ = c.write_all(tok.as_bytes());
                let _ = c.write_all(b"\n");
            }
        }
    }
    Ok(())
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
        let t = sign(&key, &Identity { uid: 1500, gid: 1500 }).unwrap();
        assert_eq!(v.verify(&t), Ok(Identity { uid: 1500, gid: 1500 }));
        assert_eq!(v.verify(&t), Err(AuthError::Replayed));
        // forge: change the uid and keep the mac
        let forged = t.replacen("v1.1500.", "v1.0.", 1);
        assert_eq!(v.verify(&forged), Err(AuthError::BadSignature));
        let other = sign(b"another key that is long enough", &Identity { uid: 0, gid: 0 }).unwrap();
        assert_eq!(v.verify(&other), Err(AuthError::BadSignature));
        assert_eq!(v.verify("garbage"), Err(AuthError::Malformed));
        assert_eq!(v.verify(""), Err(AuthError::Malformed));
        // an expired credential, correctly signed
        let body = format!("v1.0.0.{}.00112233445566778899aabbccddeeff", now() - 1);
        let old = format!("{}.{}", body, mac(&key, &body));
        assert_eq!(v.verify(&old), Err(AuthError::Expired));
    }

    #[test]
    fn nonces_are_random_and_distinct() {
        let a = random_hex(16).unwrap();
        let b = random_hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_ne!(a, "0".repeat(32));
        let key = b"0123456789abcdef0123456789abcdef".to_vec();
        let t1 = sign(&key, &Identity { uid: 1, gid: 1 }).unwrap();
        let t2 = sign(&key, &Identity { uid: 1, gid: 1 }).unwrap();
        assert_ne!(t1.split('.').nth(4), t2.split('.').nth(4));
    }
}
