//! Timestamps: milliseconds since the Unix epoch, read from what a
//! transcript writes and written back as RFC 3339 (UTC). The calendar is
//! jiff's; what is read is what the client reads: JavaScript's `Date`
//! takes `YYYY-MM-DDTHH:MM:SS[.fff…][Z|±HH:MM]`, lower-case `t`/`z` and a
//! space before the time too, any number of fraction digits (the first
//! three count), no offset as UTC here (`Date` would take the machine's
//! zone), and a day past the month's end as the days after it
//! (`2025-02-31` is 3 March), which jiff's RFC 3339 parser refuses; so the
//! fields are read here and the date computed by jiff.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::Offset;

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` into milliseconds since the epoch.
/// Returns `None` for anything else (malformed timestamps exist in the wild).
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let mut v = 0i64;
        for &c in &b[r] {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + i64::from(c - b'0');
        }
        Some(v)
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, min, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if i - start < 3 {
                millis = millis * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        let digits = i - start;
        if digits == 0 {
            return None;
        }
        for _ in digits..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
            let v = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if sign == b'+' { v } else { -v }
        }
        _ => return None,
    };
    // The first of the month, by jiff (kept for the next line: a file's
    // timestamps are mostly of one month); the day, the time (a 60th second
    // included) and the offset added to it.
    let first = MONTH_START.with(|last| {
        let (y, m, ms) = last.get();
        if (y, m) == (year, month) {
            return Some(ms);
        }
        let date = DateTime::new(i16::try_from(year).ok()?, i8::try_from(month).ok()?, 1, 0, 0, 0, 0).ok()?;
        let ms = Offset::UTC.to_timestamp(date).ok()?.as_millisecond();
        last.set((year, month, ms));
        Some(ms)
    })?;
    Some(first + ((day - 1) * 86_400 + hour * 3600 + min * 60 + sec - offset_min * 60) * 1000 + millis)
}

thread_local! {
    /// The year and month last read, and its first instant in milliseconds.
    static MONTH_START: std::cell::Cell<(i64, i64, i64)> = const { std::cell::Cell::new((-1, 0, 0)) };
}

/// The instant `ms`, within what jiff represents (years -9999 to 9999).
fn instant(ms: i64) -> Timestamp {
    Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 { Timestamp::MIN } else { Timestamp::MAX })
}

/// Formats milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.fffZ`.
pub fn format_timestamp(ms: i64) -> String {
    instant(ms).strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Formats as `YYYY-MM-DD HH:MM UTC` for people.
pub fn format_human(ms: i64) -> String {
    instant(ms).strftime("%Y-%m-%d %H:%M UTC").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in ["2025-07-01T10:00:00.000Z", "1999-12-31T23:59:59.999Z", "2026-02-28T00:00:00.123Z"] {
            assert_eq!(format_timestamp(parse_timestamp(s).unwrap()), s);
        }
    }

    #[test]
    fn known_values_and_offsets() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_timestamp("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(parse_timestamp("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_timestamp("2025-07-01T10:00:00.123456Z"), parse_timestamp("2025-07-01T10:00:00.123Z"));
        assert_eq!(format_timestamp(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(format_human(1_751_364_000_123), "2025-07-01 10:00 UTC");
    }

    /// What JavaScript's `Date` reads (node 20: `new Date(s).getTime()`).
    #[test]
    fn reads_what_javascript_reads() {
        assert_eq!(parse_timestamp("2025-02-31T00:00:00Z"), Some(1_740_960_000_000), "3 March");
        assert_eq!(parse_timestamp("2025-07-01t10:00:00z"), Some(1_751_364_000_000));
        assert_eq!(parse_timestamp("2025-07-01 10:00:00Z"), Some(1_751_364_000_000));
        assert_eq!(parse_timestamp("2025-07-01T10:00:00.1234567891234Z"), Some(1_751_364_000_123));
    }

    /// The month kept from the line before is the month asked, not the last one.
    #[test]
    fn months_in_turn() {
        let jan = parse_timestamp("2025-01-31T23:59:59.999Z");
        for _ in 0..2 {
            assert_eq!(parse_timestamp("2025-01-31T23:59:59.999Z"), jan);
            assert_eq!(parse_timestamp("2025-02-01T00:00:00Z"), jan.map(|ms| ms + 1));
            assert_eq!(parse_timestamp("2024-02-01T00:00:00Z"), Some(1_706_745_600_000));
        }
    }

    #[test]
    fn rejects_garbage() {
        for s in ["", "yesterday", "2025-13-01T00:00:00Z", "2025-07-01T10:00:00.Z", "2025-07-01T10:00:00Zjunk"] {
            assert_eq!(parse_timestamp(s), None, "{s}");
        }
    }

    #[test]
    fn formats_what_jiff_cannot_hold_at_its_bounds() {
        assert_eq!(format_timestamp(i64::MAX), "9999-12-30T22:00:00.999Z", "jiff's last instant");
        assert!(format_timestamp(i64::MIN).starts_with("-9999-01-02T"), "{}", format_timestamp(i64::MIN));
    }
}
