//! The certificates HTTPS endpoints are verified against: the system's roots (what
//! `rustls-native-certs` finds: `/etc/ssl/certs` and the like, or `SSL_CERT_FILE` /
//! `SSL_CERT_DIR` when set) plus the certificates of an optional PEM CA file (a model server
//! with a self-signed or private-CA certificate on a cluster).

use std::path::Path;
use std::sync::Arc;

use ureq::tls::{Certificate, RootCerts};

use super::HttpError;

/// Reads the PEM certificates of `path`; at least one.
pub fn ca_file(path: &Path) -> Result<Vec<Certificate<'static>>, HttpError> {
    let bad = |message: String| HttpError::CaFile { path: path.display().to_string(), message };
    let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(ureq::tls::PemItem::Certificate(c)) => certs.push(c.to_owned()),
            Ok(_) => {}
            Err(e) => return Err(bad(format!("not a PEM file: {e}"))),
        }
    }
    if certs.is_empty() {
        return Err(bad("holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into()));
    }
    Ok(certs)
}

/// The system's roots plus `extra`. Missing system roots are not an error (a minimal image):
/// then only `extra` is trusted.
pub fn roots(extra: Vec<Certificate<'static>>) -> RootCerts {
    let system = rustls_native_certs::load_native_certs();
    let mut all: Vec<Certificate<'static>> =
        system.certs.iter().map(|der| Certificate::from_der(der.as_ref()).to_owned()).collect();
    all.extend(extra);
    RootCerts::Specific(Arc::new(all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_must_hold_a_certificate() {
        let dir = std::env::temp_dir().join(format!("simfleet-roots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let e = ca_file(&empty).unwrap_err().to_string();
        assert!(e.contains("empty.pem") && e.contains("no PEM certificate"), "{e}");
        let e = ca_file(&dir.join("missing.pem")).unwrap_err().to_string();
        assert!(e.contains("missing.pem") && e.contains("cannot read it"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
