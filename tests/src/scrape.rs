//! Reading the worker's HTTP endpoints: a minimal HTTP/1.1 GET (no client crate needed for
//! three plain-text routes) and a Prometheus text-format lookup.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// `GET path` on `addr`: the status code and the body.
pub async fn http_get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let chunked = head.lines().any(|l| l.to_ascii_lowercase().replace(' ', "") == "transfer-encoding:chunked");
    Ok((status, if chunked { dechunk(body) } else { body.to_string() }))
}

/// The body of a `Transfer-Encoding: chunked` response (NATS' monitoring pages are sent so).
fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    body
}

/// The sum of every sample of `name` whose labels include all of `labels` (`None` when there is
/// none). `name` is matched exactly, so `x_bucket` and `x` are different metrics.
pub fn metric_sum(exposition: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let mut found = None;
    for line in exposition.lines().filter(|l| !l.starts_with('#')) {
        let (series, value) = match line.rsplit_once(' ') {
            Some(parts) => parts,
            None => continue,
        };
        let (metric, label_text) = match series.split_once('{') {
            Some((m, rest)) => (m, rest.trim_end_matches('}')),
            None => (series, ""),
        };
        if metric != name {
            continue;
        }
        let all = labels.iter().all(|(k, v)| label_text.contains(&format!("{k}=\"{v}\"")));
        if all {
            *found.get_or_insert(0.0) += value.parse::<f64>().unwrap_or(f64::NAN);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::metric_sum;

    #[test]
    fn sums_matching_series_only() {
        let text = "# TYPE a counter\na{g=\"x\",o=\"1\"} 2\na{g=\"x\",o=\"2\"} 3\na{g=\"y\"} 10\na_b 1\n";
        assert_eq!(metric_sum(text, "a", &[("g", "x")]), Some(5.0));
        assert_eq!(metric_sum(text, "a", &[]), Some(15.0));
        assert_eq!(metric_sum(text, "a_b", &[]), Some(1.0));
        assert_eq!(metric_sum(text, "c", &[]), None);
    }
}
