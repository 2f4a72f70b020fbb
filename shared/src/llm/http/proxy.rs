//! Proxies from the usual environment variables, as curl reads them: `HTTPS_PROXY` for
//! `https://` endpoints, `HTTP_PROXY` for `http://` ones, `ALL_PROXY` for either when the
//! scheme's own is unset (lowercase names too, lowercase first), and `NO_PROXY` for hosts
//! reached directly.
//!
//! `NO_PROXY` is a comma-separated list: `*` (everything), a host or domain (`example.com`
//! matches `example.com` and `api.example.com`; a leading `.` or `*.` is the same), an IP
//! address; a `:port` suffix on an entry is ignored.

/// The proxies to use, by endpoint scheme.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proxies {
    /// For `https://` endpoints.
    pub https: Option<String>,
    /// For `http://` endpoints.
    pub http: Option<String>,
    /// Hosts and domains reached directly.
    pub no_proxy: Vec<String>,
}

impl Proxies {
    /// Reads the variables through `get` (the process environment in [`Proxies::from_env`]).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Proxies {
        let var = |name: &str| {
            get(&name.to_ascii_lowercase())
                .or_else(|| get(name))
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let all = var("ALL_PROXY");
        let no_proxy = var("NO_PROXY")
            .map(|v| {
                v.split(',')
                    .map(|e| e.trim().to_ascii_lowercase())
                    .map(|e| e.trim_start_matches("*.").trim_start_matches('.').to_string())
                    .map(|e| strip_port(&e).to_string())
                    .filter(|e| !e.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Proxies { https: var("HTTPS_PROXY").or_else(|| all.clone()), http: var("HTTP_PROXY").or(all), no_proxy }
    }

    /// Reads the process environment.
    pub fn from_env() -> Proxies {
        Proxies::from_vars(|name| std::env::var(name).ok())
    }

    /// The proxy for `endpoint`, if one applies.
    pub fn for_endpoint(&self, endpoint: &str) -> Option<&str> {
        let (scheme, _) = endpoint.split_once("://")?;
        let proxy = match scheme.to_ascii_lowercase().as_str() {
            "https" => self.https.as_deref()?,
            "http" => self.http.as_deref()?,
            _ => return None,
        };
        let host = super::super::endpoint_host(endpoint);
        let host = strip_port(&host);
        let bypass = self.no_proxy.iter().any(|e| e == "*" || host == e || host.ends_with(&format!(".{e}")));
        (!bypass).then_some(proxy)
    }
}

/// `host` without a `:port` (IPv6 literals in brackets keep their colons).
fn strip_port(host: &str) -> &str {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    match host.rsplit_once(':') {
        Some((h, port)) if !h.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn proxies(vars: &[(&str, &str)]) -> Proxies {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Proxies::from_vars(|k| vars.get(k).cloned())
    }

    #[test]
    fn each_scheme_gets_its_own_proxy_and_all_proxy_fills_in() {
        let p = proxies(&[("HTTPS_PROXY", "http://secure:3128"), ("ALL_PROXY", "http://all:3128")]);
        assert_eq!(p.for_endpoint("https://api.openai.com/v1"), Some("http://secure:3128"));
        assert_eq!(p.for_endpoint("http://vllm:8000/v1"), Some("http://all:3128"));
        let p = proxies(&[("https_proxy", "http://lower:1"), ("HTTPS_PROXY", "http://upper:1")]);
        assert_eq!(p.for_endpoint("https://x/v1"), Some("http://lower:1"));
        assert_eq!(p.for_endpoint("http://x/v1"), None, "no HTTP_PROXY, no ALL_PROXY");
        assert_eq!(proxies(&[]), Proxies::default());
    }

    #[test]
    fn no_proxy_matches_hosts_domains_and_everything() {
        let p = proxies(&[
            ("HTTP_PROXY", "http://p:1"),
            ("HTTPS_PROXY", "http://p:1"),
            ("NO_PROXY", "localhost, .svc.cluster.local,*.internal,10.0.0.7:8000"),
        ]);
        assert_eq!(p.for_endpoint("http://localhost:11434/v1"), None);
        assert_eq!(p.for_endpoint("http://vllm.models.svc.cluster.local:8000/v1"), None);
        assert_eq!(p.for_endpoint("https://gpu.internal/v1"), None);
        assert_eq!(p.for_endpoint("http://10.0.0.7:9000/v1"), None);
        assert_eq!(p.for_endpoint("https://api.openai.com/v1"), Some("http://p:1"));
        assert_eq!(p.for_endpoint("https://notinternal/v1"), Some("http://p:1"));
        let all = proxies(&[("HTTPS_PROXY", "http://p:1"), ("no_proxy", "*")]);
        assert_eq!(all.for_endpoint("https://api.openai.com/v1"), None);
    }
}
