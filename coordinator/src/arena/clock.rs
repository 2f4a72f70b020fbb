//! Wall-clock times for the arena's JSON: RFC 3339 UTC strings from monotonic instants.
//!
//! Deadlines are compared as [`Instant`]s, so a system clock adjustment cannot fire or stall
//! them; they are shown as wall-clock times by converting through one (instant, wall time) pair
//! taken once per process. No date crate is a dependency of the coordinator and the format is
//! fixed, so it is written out here (Howard Hinnant's `civil_from_days`).

use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The pair every instant is converted through, so that the times the arena shows keep the
/// order and spacing of the instants they stand for.
fn anchor() -> (Instant, SystemTime) {
    static ANCHOR: OnceLock<(Instant, SystemTime)> = OnceLock::new();
    *ANCHOR.get_or_init(|| (Instant::now(), SystemTime::now()))
}

/// `at` as an RFC 3339 UTC time with milliseconds, e.g. `2025-06-01T12:00:00.250Z`.
pub fn rfc3339(at: Instant) -> String {
    let (instant, wall) = anchor();
    let wall = if at >= instant { wall + (at - instant) } else { wall - (instant - at) };
    format_system_time(wall)
}

/// A wall-clock time as RFC 3339 UTC with milliseconds (times before 1970 show as the epoch).
pub fn format_system_time(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// (year, month, day) of the proleptic Gregorian calendar, `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64, millis: u64) -> String {
        format_system_time(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis))
    }

    #[test]
    fn formats_known_times() {
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(951_868_799, 999), "2000-02-29T23:59:59.999Z");
        assert_eq!(at(1_700_000_000, 250), "2023-11-14T22:13:20.250Z");
        assert_eq!(at(4_107_542_400, 0), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn instants_keep_their_spacing() {
        let now = Instant::now();
        let a = rfc3339(now);
        let b = rfc3339(now + Duration::from_secs(86_400));
        assert_eq!(a.len(), 24);
        assert!(b > a, "{b} should be after {a}");
        assert_eq!(&a[10..], &b[10..], "exactly one day apart");
    }
}
