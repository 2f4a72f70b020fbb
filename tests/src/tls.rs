//! A certificate authority made at test time (`rcgen`, no openssl needed) and the certificates
//! it signs, written as PEM files: a server certificate for `127.0.0.1` and `localhost`, and
//! client certificates for servers that verify their clients. Plus the nats-server config
//! that serves TLS with them.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use tempfile::TempDir;

/// A CA and the folder its files live in (removed on drop).
pub struct TestCa {
    dir: TempDir,
    issuer: CertifiedIssuer<'static, KeyPair>,
    /// The CA certificate (PEM): what clients set as `auth.tls_ca_file`.
    pub ca_file: PathBuf,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCa").field("ca_file", &self.ca_file).finish()
    }
}

impl TestCa {
    /// A new CA called `name`.
    pub fn new(name: &str) -> TestCa {
        let dir = tempfile::Builder::new().prefix("simfleet-tls-").tempdir().expect("a temp dir");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("a CA key");
        let issuer = CertifiedIssuer::self_signed(params, key).expect("a self-signed CA");
        let ca_file = dir.path().join(format!("{name}.pem"));
        std::fs::write(&ca_file, issuer.pem()).expect("write the CA");
        TestCa { dir, issuer, ca_file }
    }

    /// A certificate for `name` signed by this CA, for a server (`127.0.0.1`, `localhost`) or a
    /// client: the paths of its certificate and key files.
    fn issue(&self, name: &str, server: bool) -> (PathBuf, PathBuf) {
        let sans = if server { vec!["127.0.0.1".to_string(), "localhost".to_string()] } else { Vec::new() };
        let mut params = CertificateParams::new(sans).expect("certificate params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        params.extended_key_usages =
            vec![if server { ExtendedKeyUsagePurpose::ServerAuth } else { ExtendedKeyUsagePurpose::ClientAuth }];
        let key = KeyPair::generate().expect("a key");
        let cert = params.signed_by(&key, &self.issuer).expect("a signed certificate");
        let (cert_file, key_file) =
            (self.dir.path().join(format!("{name}.pem")), self.dir.path().join(format!("{name}-key.pem")));
        std::fs::write(&cert_file, cert.pem()).expect("write the certificate");
        std::fs::write(&key_file, key.serialize_pem()).expect("write the key");
        (cert_file, key_file)
    }

    /// A server certificate for `127.0.0.1` and `localhost`.
    pub fn server_cert(&self, name: &str) -> (PathBuf, PathBuf) {
        self.issue(name, true)
    }

    /// A client certificate.
    pub fn client_cert(&self, name: &str) -> (PathBuf, PathBuf) {
        self.issue(name, false)
    }

    /// A nats-server config serving TLS with a certificate of this CA, verifying client
    /// certificates (signed by this CA) when `verify_clients`; written beside the CA.
    pub fn server_config(&self, verify_clients: bool) -> PathBuf {
        let (cert, key) = self.server_cert("nats-server");
        let text = format!(
            "tls {{\n  cert_file: {}\n  key_file: {}\n  ca_file: {}\n  verify: {verify_clients}\n  timeout: 5\n}}\n",
            quoted(&cert),
            quoted(&key),
            quoted(&self.ca_file),
        );
        let path = self.dir.path().join(if verify_clients { "verify.conf" } else { "tls.conf" });
        std::fs::write(&path, text).expect("write the server config");
        path
    }
}

fn quoted(path: &Path) -> String {
    format!("{:?}", path.display().to_string())
}
