//! TLS on every channel (rustls), with certificates from files, as Slurm
//! 25.05's `TLSType`/`TLSParameters`:
//!
//! ```text
//! TLSType=tls/s2n            (or tls/rustls; any other than tls/none turns it on)
//! TLSParameters=ca_cert_file=...,ctld_cert_file=...,ctld_cert_key_file=...,slurmd_cert_file=...,slurmd_cert_key_file=...
//! ```
//!
//! Each file defaults to Slurm's name in the directory of slurm.conf
//! (`ca_cert.pem`, `ctld_cert.pem`, `ctld_cert_key.pem`, `slurmd_cert.pem`,
//! `slurmd_cert_key.pem`). Controllers serve with the ctld certificate,
//! agents with the slurmd one; every caller (commands, agents, controllers)
//! checks the server's certificate against the CA for the host it dials
//! (a name or an IP address of slurm.conf: the certificate must name it).
//! A private key that others may read is refused, as the cluster key is.
//! Callers prove who they are with their credential ([`crate::cred`]),
//! not with a certificate.

use std::path::{Path, PathBuf};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity, ServerTlsConfig};

/// Which certificate a process serves with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Commands and libraries: no server certificate.
    Client,
    Controller,
    Agent,
}

/// How a process connects and serves: plain, or TLS with these files.
#[derive(Clone, Debug, Default)]
pub struct Transport {
    tls: Option<Tls>,
}

#[derive(Clone, Debug)]
struct Tls {
    ca: Vec<u8>,
    identity: Option<(Vec<u8>, Vec<u8>)>,
}

fn opt(params: Option<&str>, key: &str) -> Option<String> {
    params?.split(',').find_map(|kv| kv.trim().strip_prefix(key).and_then(|v| v.strip_prefix('=')).map(String::from))
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("TLS {} {}: {}", what, path.display(), e))
}

impl Transport {
    /// Plain TCP.
    pub fn plain() -> Transport {
        Transport::default()
    }

    /// From slurm.conf's `TLSType` and `TLSParameters` (`conf_dir`: where
    /// slurm.conf is), for a process of `role`.
    pub fn from_conf(
        tls_type: Option<&str>,
        params: Option<&str>,
        conf_dir: &Path,
        role: Role,
    ) -> Result<Transport, String> {
        match tls_type.map(str::trim) {
            None | Some("") | Some("tls/none") => return Ok(Transport::plain()),
            _ => {}
        }
        let file = |key: &str, default: &str| -> PathBuf {
            opt(params, key).map(PathBuf::from).unwrap_or_else(|| conf_dir.join(default))
        };
        let ca = read(&file("ca_cert_file", "ca_cert.pem"), "CA certificate")?;
        let pair = |c: &str, k: &str, dc: &str, dk: &str| -> Result<(Vec<u8>, Vec<u8>), String> {
            let cert = read(&file(c, dc), "certificate")?;
            let key_path = file(k, dk);
            check_private(&key_path)?;
            Ok((cert, read(&key_path, "private key")?))
        };
        let identity = match role {
            Role::Client => None,
            Role::Controller => {
                Some(pair("ctld_cert_file", "ctld_cert_key_file", "ctld_cert.pem", "ctld_cert_key.pem")?)
            }
            Role::Agent => {
                Some(pair("slurmd_cert_file", "slurmd_cert_key_file", "slurmd_cert.pem", "slurmd_cert_key.pem")?)
            }
        };
        Ok(Transport { tls: Some(Tls { ca, identity }) })
    }

    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// `http://` or `https://`.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() {
            "https://"
        } else {
            "http://"
        }
    }

    /// An endpoint for `addr` (`host:port`), checking the server's
    /// certificate for `host` when TLS is on.
    pub fn endpoint(&self, addr: &str) -> Result<Endpoint, String> {
        let ep = Endpoint::from_shared(format!("{}{}", self.scheme(), addr)).map_err(|e| e.to_string())?;
        let Some(t) = &self.tls else { return Ok(ep) };
        let host = match addr.rsplit_once(':') {
            Some((h, _)) => h.trim_start_matches('[').trim_end_matches(']'),
            None => addr,
        };
        ep.tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(&t.ca)).domain_name(host))
            .map_err(|e| format!("TLS for {}: {}", addr, e))
    }

    /// The server's TLS settings (`None`: plain).
    pub fn server(&self) -> Option<ServerTlsConfig> {
        let t = self.tls.as_ref()?;
        let (cert, key) = t.identity.as_ref()?;
        Some(ServerTlsConfig::new().identity(Identity::from_pem(cert, key)))
    }
}

/// A private key others may read is refused (as the cluster key).
fn check_private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(path).map_err(|e| format!("TLS private key {}: {}", path.display(), e))?;
    if md.mode() & 0o077 != 0 {
        return Err(format!("TLS private key is insecure: '{}' mode=0{:o}", path.display(), md.mode() & 0o777));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_unless_slurm_conf_says_tls() {
        let d = Path::new("/nonexistent");
        for t in [None, Some("tls/none"), Some("")] {
            let tr = Transport::from_conf(t, None, d, Role::Controller).unwrap();
            assert!(!tr.is_tls());
            assert_eq!(tr.endpoint("h:1").unwrap().uri().to_string(), "http://h:1/");
        }
        // TLS asked for, files missing: an error naming Slurm's default file
        let e = Transport::from_conf(Some("tls/s2n"), None, d, Role::Client).unwrap_err();
        assert!(e.contains("/nonexistent/ca_cert.pem"), "{}", e);
        let e = Transport::from_conf(Some("tls/s2n"), Some("ca_cert_file=/x/ca.pem"), d, Role::Client).unwrap_err();
        assert!(e.contains("/x/ca.pem"), "{}", e);
    }
}
