//! UTC timestamps in the two shapes the store writes.

use jiff::Timestamp;
use std::time::SystemTime;

fn timestamp(t: SystemTime) -> Timestamp {
    // Out of jiff's range (years outside -9999..=9999) only with a broken clock.
    Timestamp::try_from(t).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// ISO 8601 in the shape JavaScript's `toISOString` writes (`2026-11-22T10:15:00.123Z`), as the
/// VS Code extension stores `last_updated`.
pub fn iso_now() -> String {
    iso(SystemTime::now())
}

pub fn iso(t: SystemTime) -> String {
    // Always three fraction digits, as `toISOString`: the extension compares these as text.
    format!("{:.3}", timestamp(t))
}

/// A timestamp usable in a file name on every platform (`20261122-101500`).
pub fn file_stamp(t: SystemTime) -> String {
    timestamp(t).strftime("%Y%m%d-%H%M%S").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn known_instants() {
        assert_eq!(iso(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(iso(t), "2024-02-29T12:34:56.789Z");
        assert_eq!(file_stamp(t), "20240229-123456");
        let t = UNIX_EPOCH + Duration::from_secs(4_102_444_799);
        assert_eq!(iso(t), "2099-12-31T23:59:59.000Z");
        // Sub-millisecond digits are cut, never rounded up into the next second.
        let t = UNIX_EPOCH + Duration::from_nanos(1_709_210_096_999_900_000);
        assert_eq!(iso(t), "2024-02-29T12:34:56.999Z");
    }
}
