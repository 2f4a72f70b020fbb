//! The `nats_url` setting: one server or a comma-separated list of a cluster's servers, as
//! both binaries take it. The client starts with the whole list (and learns the cluster's other
//! servers from them), so a worker or coordinator starts even when some servers are down.

use async_nats::ServerAddr;

use super::ConfigError;

/// The NATS server when nothing says otherwise.
pub const DEFAULT_NATS_URL: &str = "nats://127.0.0.1:4222";

/// Parses `nats://a:4222,nats://b:4222` (a scheme-less `host:port` means `nats://`) into the
/// client's server list. An error names the key `nats_url` and the entry at fault, with any
/// password cut out.
pub fn parse_servers(nats_url: &str) -> Result<Vec<ServerAddr>, ConfigError> {
    let entries: Vec<&str> = nats_url.split(',').map(str::trim).collect();
    if entries.iter().all(|e| e.is_empty()) {
        return Err(ConfigError::new("nats_url", "must not be empty"));
    }
    entries
        .iter()
        .map(|entry| {
            if entry.is_empty() {
                return Err(ConfigError::new("nats_url", format!("{:?} has an empty entry", redact_url(nats_url))));
            }
            entry.parse::<ServerAddr>().map_err(|e| {
                ConfigError::new(
                    "nats_url",
                    format!("{:?} is not a server URL like nats://host:4222: {e}", redact_url(entry)),
                )
            })
        })
        .collect()
}

/// `nats://user:secret@host:4222` → `nats://user:***@host:4222`, for logs and errors; each
/// entry of a comma-separated list is redacted.
pub fn redact_url(url: &str) -> String {
    url.split(',').map(redact_one).collect::<Vec<_>>().join(",")
}

fn redact_one(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, url),
    };
    let redacted = match rest.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            // A lone userinfo part is a token: hide it entirely.
            None => format!("***@{host}"),
        },
        None => rest.to_string(),
    };
    match scheme {
        Some(s) => format!("{s}://{redacted}"),
        None => redacted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_tokens_never_reach_logs() {
        assert_eq!(redact_url("nats://a:b@h:4222"), "nats://a:***@h:4222");
        assert_eq!(redact_url("nats://tok@h:4222"), "nats://***@h:4222");
        assert_eq!(redact_url("nats://h:4222"), "nats://h:4222");
        assert_eq!(redact_url("h:4222"), "h:4222");
        assert_eq!(redact_url("nats://a:b@h:1,nats://c:d@i:2"), "nats://a:***@h:1,nats://c:***@i:2");
    }

    #[test]
    fn a_comma_separated_list_is_every_server() {
        let servers = parse_servers("nats://10.0.0.1:4222, nats://10.0.0.2:4223,10.0.0.3").unwrap();
        let hosts: Vec<(String, u16)> = servers.iter().map(|s| (s.host().to_string(), s.port())).collect();
        assert_eq!(
            hosts,
            [("10.0.0.1".to_string(), 4222), ("10.0.0.2".to_string(), 4223), ("10.0.0.3".to_string(), 4222)]
        );
    }

    #[test]
    fn a_bad_entry_names_the_key_and_hides_the_password() {
        let e = parse_servers("nats://a:4222,http://u:pw@b:1").unwrap_err();
        assert_eq!(e.key(), Some("nats_url"));
        assert!(e.to_string().contains("http://u:***@b:1") && !e.to_string().contains("pw"), "{e}");
        assert_eq!(parse_servers("nats://a:4222,,nats://b:4222").unwrap_err().key(), Some("nats_url"));
        assert_eq!(parse_servers(" ").unwrap_err().key(), Some("nats_url"));
    }
}
