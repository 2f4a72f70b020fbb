//! NATS credentials and TLS: the `[auth]` config table of both binaries, resolved into secrets
//! held in memory.
//!
//! Every credential can come inline (`auth.password`) or from a file (`auth.password_file`),
//! because Kubernetes mounts secrets as files and an inline secret in a ConfigMap is a leak.
//! Files are read while the settings load, so a missing file is an error naming its key.
//! [`Secret`] never prints its contents, so settings can be logged with `{:?}`.
//!
//! TLS: `tls_ca_file` is the CA that signed the servers' certificates (setting it also
//! requires TLS); `tls_cert_file` and `tls_key_file` are this client's certificate and key,
//! for servers that verify clients (`tls { verify: true }`). Both or neither.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ConfigError;

/// The `[auth]` table as written (stage one: only what the user typed).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    user: Option<String>,
    password: Option<String>,
    password_file: Option<PathBuf>,
    token: Option<String>,
    token_file: Option<PathBuf>,
    nkey_seed: Option<String>,
    nkey_seed_file: Option<PathBuf>,
    creds_file: Option<PathBuf>,
    tls_ca_file: Option<PathBuf>,
    tls_cert_file: Option<PathBuf>,
    tls_key_file: Option<PathBuf>,
}

/// A secret string: `Debug` and `Display` print `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The secret itself, for the NATS client only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How a client proves who it is. At most one method; none means an open server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Credentials {
    /// No credentials (or only those embedded in `nats_url`).
    #[default]
    None,
    /// `auth.user` + `auth.password[_file]`.
    UserPassword {
        /// The user name (not secret).
        user: String,
        /// The password.
        password: Secret,
    },
    /// `auth.token[_file]`.
    Token(Secret),
    /// `auth.nkey_seed[_file]`: the seed (`SU…`) of a user nkey.
    NKey(Secret),
    /// `auth.creds_file`: a JWT + nkey `.creds` file, read by the client at connect time.
    CredsFile(PathBuf),
}

/// Resolved credentials and TLS settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Auth {
    /// The credentials.
    pub credentials: Credentials,
    /// A CA certificate (PEM) to trust; setting it also requires TLS.
    pub tls_ca_file: Option<PathBuf>,
    /// This client's certificate and private key (PEM), for servers that verify clients.
    pub tls_client: Option<(PathBuf, PathBuf)>,
}

fn read_secret(key: &str, path: &Path) -> Result<Secret, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::new(key, format!("cannot read {}: {e}", path.display())))?;
    // Mounted secrets often end with a newline that is not part of the secret.
    Ok(Secret(text.trim_end_matches(['\n', '\r']).to_string()))
}

fn inline_or_file(
    value: Option<String>,
    file: Option<PathBuf>,
    key: &str,
    file_key: &str,
) -> Result<Option<Secret>, ConfigError> {
    match (value, file) {
        (Some(_), Some(_)) => Err(ConfigError::new(file_key, format!("give either {key} or {file_key}, not both"))),
        (Some(v), None) => Ok(Some(Secret(v))),
        (None, Some(path)) => read_secret(file_key, &path).map(Some),
        (None, None) => Ok(None),
    }
}

impl AuthConfig {
    /// Stage two: reads secret files and checks that at most one method is configured.
    pub fn resolve(self) -> Result<Auth, ConfigError> {
        let password = inline_or_file(self.password, self.password_file, "auth.password", "auth.password_file")?;
        let token = inline_or_file(self.token, self.token_file, "auth.token", "auth.token_file")?;
        let nkey = inline_or_file(self.nkey_seed, self.nkey_seed_file, "auth.nkey_seed", "auth.nkey_seed_file")?;
        let mut methods = Vec::new();
        let mut credentials = Credentials::None;
        match (self.user, password) {
            (Some(user), Some(password)) => {
                methods.push("auth.user");
                credentials = Credentials::UserPassword { user, password };
            }
            (Some(_), None) => return Err(ConfigError::new("auth.password", "auth.user needs a password")),
            (None, Some(_)) => return Err(ConfigError::new("auth.user", "a password needs auth.user")),
            (None, None) => {}
        }
        if let Some(t) = token {
            methods.push("auth.token");
            credentials = Credentials::Token(t);
        }
        if let Some(n) = nkey {
            methods.push("auth.nkey_seed");
            credentials = Credentials::NKey(n);
        }
        if let Some(path) = self.creds_file {
            if !path.is_file() {
                return Err(ConfigError::new("auth.creds_file", format!("{} is not a file", path.display())));
            }
            methods.push("auth.creds_file");
            credentials = Credentials::CredsFile(path);
        }
        if methods.len() > 1 {
            return Err(ConfigError::new(methods[1], format!("choose one of {}", methods.join(", "))));
        }
        for (key, file) in [
            ("auth.tls_ca_file", &self.tls_ca_file),
            ("auth.tls_cert_file", &self.tls_cert_file),
            ("auth.tls_key_file", &self.tls_key_file),
        ] {
            if let Some(path) = file {
                if !path.is_file() {
                    return Err(ConfigError::new(key, format!("{} is not a file", path.display())));
                }
            }
        }
        let tls_client = match (self.tls_cert_file, self.tls_key_file) {
            (Some(cert), Some(key)) => Some((cert, key)),
            (Some(_), None) => return Err(ConfigError::new("auth.tls_key_file", "auth.tls_cert_file needs its key")),
            (None, Some(_)) => {
                return Err(ConfigError::new("auth.tls_cert_file", "auth.tls_key_file needs its certificate"))
            }
            (None, None) => None,
        };
        Ok(Auth { credentials, tls_ca_file: self.tls_ca_file, tls_client })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_print() {
        let c = Credentials::UserPassword { user: "u".into(), password: Secret::new("hunter2") };
        assert!(!format!("{c:?}").contains("hunter2"));
    }

    #[test]
    fn two_methods_are_refused_naming_a_key() {
        let cfg = AuthConfig { token: Some("t".into()), nkey_seed: Some("SU".into()), ..AuthConfig::default() };
        let err = cfg.resolve().unwrap_err().to_string();
        assert!(err.contains("auth.nkey_seed"), "{err}");
    }

    #[test]
    fn a_client_certificate_needs_its_key() {
        let file = std::env::current_exe().unwrap();
        let cfg = AuthConfig { tls_cert_file: Some(file.clone()), ..AuthConfig::default() };
        assert_eq!(cfg.resolve().unwrap_err().key(), Some("auth.tls_key_file"));
        let cfg =
            AuthConfig { tls_cert_file: Some(file.clone()), tls_key_file: Some(file.clone()), ..AuthConfig::default() };
        assert_eq!(cfg.resolve().unwrap().tls_client, Some((file.clone(), file)));
        let cfg = AuthConfig { tls_ca_file: Some("/nonexistent/ca.pem".into()), ..AuthConfig::default() };
        assert_eq!(cfg.resolve().unwrap_err().key(), Some("auth.tls_ca_file"));
    }

    #[test]
    fn secret_files_lose_their_trailing_newline() {
        let dir = std::env::temp_dir().join(format!("simfleet-auth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("password");
        std::fs::write(&file, "s3cret\n").unwrap();
        let cfg = AuthConfig { user: Some("u".into()), password_file: Some(file), ..AuthConfig::default() };
        let auth = cfg.resolve().unwrap();
        assert_eq!(auth.credentials, Credentials::UserPassword { user: "u".into(), password: Secret::new("s3cret") });
        std::fs::remove_dir_all(dir).unwrap();
    }
}
