//! Credentials of version 2: bound to one request.
//!
//! ```text
//! v2.<kind>.<uid>.<gid>.<issued>.<ttl>.<nonce, 32 hex>.<SHA-256 of the body, 64 hex>.<HMAC-SHA256, 64 hex>
//! ```
//!
//! The HMAC (under the cluster key) covers every field before it and also
//! the receiver (`audience`: the `host:port` the caller dialled, as
//! slurm.conf names it) and the RPC method (the gRPC path), which are not
//! written in the token: the receiver puts its own in. So a credential
//! captured on the wire or by a program that bound a daemon's port is good
//! for one request only (the same bytes, to the same service, for the same
//! method), at most [`TTL_SECS`] long, and once (the replay cache).
//!
//! `kind` says who signed: `u` a user (through the signing service, which
//! signs only the caller's own uid and only this kind; or root's commands
//! with the key), `a` a node agent, `c` a controller. Services name the
//! kinds each method takes ([`crate::grpc::Policy`]), so a user's
//! credential never passes as a daemon's, nor the reverse.
//!
//! Clocks: a credential is accepted from [`SKEW_SECS`] before it was issued
//! (the signer's clock ahead of the receiver's) until [`SKEW_SECS`] after it
//! expired (behind): the same tolerance either way.

use crate::{constant_eq, hex, now, random_hex, Identity, RandomError};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// How long a credential is valid for.
pub const TTL_SECS: i64 = 60;
/// The clock difference tolerated between signer and receiver, either way.
pub const SKEW_SECS: i64 = 30;

/// Who signed a credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A user (any uid, root included) through a command or library.
    User,
    /// A node agent (spurd) or its step daemons.
    Agent,
    /// A controller (spurctld).
    Controller,
}

impl Kind {
    pub fn letter(self) -> char {
        match self {
            Kind::User => 'u',
            Kind::Agent => 'a',
            Kind::Controller => 'c',
        }
    }
    fn from_letter(s: &str) -> Option<Kind> {
        Some(match s {
            "u" => Kind::User,
            "a" => Kind::Agent,
            "c" => Kind::Controller,
            _ => return None,
        })
    }
}

/// What a request's credential says, once checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claims {
    pub kind: Kind,
    pub uid: u32,
    pub gid: u32,
    pub issued: i64,
    pub ttl: i64,
    pub nonce: [u8; 16],
    pub body_hash: [u8; 32],
}

impl Claims {
    pub fn identity(&self) -> Identity {
        Identity { uid: self.uid, gid: self.gid, kind: self.kind }
    }
    /// Until when the replay cache must remember the nonce.
    pub fn remember_until(&self) -> i64 {
        self.issued.saturating_add(self.ttl).saturating_add(SKEW_SECS)
    }
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum CredError {
    Malformed,
    BadSignature,
    Expired,
    NotYetValid,
    Replayed,
    /// The credential is good but of a kind this method does not take.
    WrongKind,
    /// The body is not the one the credential was made for.
    BodyMismatch,
    /// The replay cache has no room (a flood of valid credentials).
    CacheFull,
}

impl std::fmt::Display for CredError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CredError::Malformed => "malformed credential",
            CredError::BadSignature => "invalid credential signature",
            CredError::Expired => "credential expired",
            CredError::NotYetValid => "credential not yet valid (clock skew)",
            CredError::Replayed => "credential replayed",
            CredError::WrongKind => "credential of the wrong kind for this request",
            CredError::BodyMismatch => "credential does not match the request",
            CredError::CacheFull => "replay cache full, retry later",
        })
    }
}

impl std::error::Error for CredError {}

/// SHA-256 of a request body.
pub fn body_hash(body: &[u8]) -> [u8; 32] {
    Sha256::digest(body).into()
}

fn mac(key: &[u8], body: &str, audience: &str, method: &str) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("hmac accepts any key length");
    m.update(body.as_bytes());
    m.update(b"\n");
    m.update(audience.as_bytes());
    m.update(b"\n");
    m.update(method.as_bytes());
    m.finalize().into_bytes().into()
}

/// A credential for one request: `id` (uid, gid, kind) calling `method` of
/// the service at `audience` with a body whose SHA-256 is `hash`.
pub fn sign(key: &[u8], id: &Identity, audience: &str, method: &str, hash: &[u8; 32]) -> Result<String, RandomError> {
    let body = format!(
        "v2.{}.{}.{}.{}.{}.{}.{}",
        id.kind.letter(),
        id.uid,
        id.gid,
        now(),
        TTL_SECS,
        random_hex(16)?,
        hex(hash)
    );
    let m = mac(key, &body, audience, method);
    Ok(format!("{}.{}", body, hex(&m)))
}

pub(crate) fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.len() != 2 * N || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Check a credential's signature (for one of `audiences`, and `method`)
/// and times, at `now`. The body hash and the replay cache are checked by
/// the caller once the body is read ([`crate::grpc`]).
pub fn check(key: &[u8], token: &str, audiences: &[String], method: &str, now: i64) -> Result<Claims, CredError> {
    if token.len() > 512 {
        return Err(CredError::Malformed);
    }
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 9 || parts[0] != "v2" {
        return Err(CredError::Malformed);
    }
    let given: [u8; 32] = unhex(parts[8]).ok_or(CredError::Malformed)?;
    let signed = &token[..token.len() - parts[8].len() - 1];
    if !audiences.iter().any(|a| constant_eq(&mac(key, signed, a, method), &given)) {
        return Err(CredError::BadSignature);
    }
    let kind = Kind::from_letter(parts[1]).ok_or(CredError::Malformed)?;
    let num = |s: &str| s.parse::<i64>().map_err(|_| CredError::Malformed);
    let uid: u32 = parts[2].parse().map_err(|_| CredError::Malformed)?;
    let gid: u32 = parts[3].parse().map_err(|_| CredError::Malformed)?;
    let issued = num(parts[4])?;
    let ttl = num(parts[5])?;
    if !(1..=TTL_SECS).contains(&ttl) {
        return Err(CredError::Malformed);
    }
    if issued > now.saturating_add(SKEW_SECS) {
        return Err(CredError::NotYetValid);
    }
    if issued.saturating_add(ttl).saturating_add(SKEW_SECS) < now {
        return Err(CredError::Expired);
    }
    let nonce = unhex(parts[6]).ok_or(CredError::Malformed)?;
    let body_hash = unhex(parts[7]).ok_or(CredError::Malformed)?;
    Ok(Claims { kind, uid, gid, issued, ttl, nonce, body_hash })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn aud(a: &str) -> Vec<String> {
        vec![a.to_string()]
    }

    #[test]
    fn a_credential_is_good_for_its_receiver_method_and_body_only() {
        let id = Identity { uid: 1500, gid: 1500, kind: Kind::User };
        let h = body_hash(b"the request");
        let t = sign(KEY, &id, "ctl1:6817", "/spur.Controller/Submit", &h).unwrap();
        let c = check(KEY, &t, &aud("ctl1:6817"), "/spur.Controller/Submit", now()).unwrap();
        assert_eq!(c.identity(), id);
        assert_eq!(c.body_hash, h);
        // another receiver, another method
        assert_eq!(check(KEY, &t, &aud("ctl2:6817"), "/spur.Controller/Submit", now()), Err(CredError::BadSignature));
        assert_eq!(check(KEY, &t, &aud("ctl1:6817"), "/spur.Controller/Cancel", now()), Err(CredError::BadSignature));
        // any field changed
        for (from, to) in [(".u.", ".c."), (".1500.1500.", ".0.1500."), (".60.", ".59.")] {
            let f = t.replacen(from, to, 1);
            assert_ne!(f, t);
            assert_eq!(
                check(KEY, &f, &aud("ctl1:6817"), "/spur.Controller/Submit", now()),
                Err(CredError::BadSignature)
            );
        }
        // another key
        let o = sign(b"another key, long enough to sign", &id, "ctl1:6817", "/m", &h).unwrap();
        assert_eq!(check(KEY, &o, &aud("ctl1:6817"), "/m", now()), Err(CredError::BadSignature));
        for bad in ["", "garbage", "v1.0.0.1.2.3", &t[..t.len() - 1], &"v2.".repeat(300)] {
            assert_eq!(check(KEY, bad, &aud("ctl1:6817"), "/m", now()), Err(CredError::Malformed), "{:?}", bad);
        }
    }

    #[test]
    fn clock_skew_is_tolerated_evenly() {
        let id = Identity { uid: 0, gid: 0, kind: Kind::Controller };
        let t = sign(KEY, &id, "a", "/m", &[0; 32]).unwrap();
        let issued: i64 = t.split('.').nth(4).unwrap().parse().unwrap();
        let ok = |at: i64| check(KEY, &t, &aud("a"), "/m", at);
        // receiver's clock behind the signer's by up to SKEW_SECS
        assert!(ok(issued - SKEW_SECS).is_ok());
        assert_eq!(ok(issued - SKEW_SECS - 1), Err(CredError::NotYetValid));
        // ahead: up to SKEW_SECS after expiry
        assert!(ok(issued + TTL_SECS + SKEW_SECS).is_ok());
        assert_eq!(ok(issued + TTL_SECS + SKEW_SECS + 1), Err(CredError::Expired));
    }
}
