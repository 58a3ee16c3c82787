//! UTC timestamps without a date-time dependency: the store needs only "now" in two formats.

use std::time::{SystemTime, UNIX_EPOCH};

struct Utc {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    millis: u32,
}

fn utc(t: SystemTime) -> Utc {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    Utc {
        year,
        month,
        day,
        hour: (rem / 3600) as u32,
        minute: (rem % 3600 / 60) as u32,
        second: (rem % 60) as u32,
        millis: d.subsec_millis(),
    }
}

/// ISO 8601 in the shape JavaScript's `toISOString` writes (`2026-11-22T10:15:00.123Z`), as the
/// VS Code extension stores `last_updated`.
pub fn iso_now() -> String {
    iso(SystemTime::now())
}

pub fn iso(t: SystemTime) -> String {
    let u = utc(t);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        u.year, u.month, u.day, u.hour, u.minute, u.second, u.millis
    )
}

/// A timestamp usable in a file name on every platform (`20261122-101500`).
pub fn file_stamp(t: SystemTime) -> String {
    let u = utc(t);
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        u.year, u.month, u.day, u.hour, u.minute, u.second
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_instants() {
        assert_eq!(iso(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(iso(t), "2024-02-29T12:34:56.789Z");
        assert_eq!(file_stamp(t), "20240229-123456");
        let t = UNIX_EPOCH + Duration::from_secs(4_102_444_799);
        assert_eq!(iso(t), "2099-12-31T23:59:59.000Z");
    }
}
