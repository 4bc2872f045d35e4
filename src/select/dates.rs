//! `--since` / `--until`: a day or a moment → milliseconds since the epoch.
//!
//! A bare date (`2025-06-01`) and a time without an offset
//! (`2025-06-01T14:30`) are read in the local time zone (`TZ`, else the
//! system's), as a person means "since June 1st": `--since` from the start of
//! that day, `--until` through its end. An RFC 3339 time with `Z` or an
//! offset is that instant.

use std::str::FromStr;

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

/// Which end of a range a date bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// `--since`: from the start of the day or the instant (inclusive).
    Since,
    /// `--until`: through the end of the day or the instant (inclusive).
    Until,
}

/// A bound as given and as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The text given on the command line.
    pub given: String,
    /// `--since`: the first millisecond selected; `--until`: the first
    /// millisecond no longer selected.
    pub ms: i64,
    /// How it was read, for messages (`2025-06-01 00:00 local time (+02:00)`).
    pub read_as: String,
}

/// Reads `text` as a bound of `end` in the time zone `tz`.
pub fn parse(text: &str, end: End, tz: &TimeZone) -> Result<Bound, String> {
    let t = text.trim();
    let bad = || {
        format!(
            "{:?} is not a date: give YYYY-MM-DD (a day in local time), YYYY-MM-DDTHH:MM (local time) \
             or an RFC 3339 time such as 2025-06-01T14:30:00Z",
            text
        )
    };
    let out_of_range = |e: jiff::Error| format!("{text:?}: {e}");
    let local = |dt: DateTime| tz.to_timestamp(dt).map_err(out_of_range);
    let (start, next) = if t.len() == 10 {
        let day = Date::from_str(t).map_err(|_| bad())?;
        let start = local(day.to_datetime(jiff::civil::Time::midnight()))?;
        let next = local(day.tomorrow().map_err(out_of_range)?.to_datetime(jiff::civil::Time::midnight()))?;
        (start, Some(next))
    } else if let Ok(ts) = Timestamp::from_str(t) {
        (ts, None)
    } else {
        let dt = DateTime::from_str(t).map_err(|_| bad())?;
        (local(dt)?, None)
    };
    let ms = match (end, next) {
        (End::Since, _) => start.as_millisecond(),
        (End::Until, Some(next)) => next.as_millisecond(),
        // Through the instant given (timestamps are kept to the millisecond).
        (End::Until, None) => start.as_millisecond().saturating_add(1),
    };
    let zone = tz.iana_name().map_or_else(String::new, |n| format!(" {n}"));
    let read_as = match (end, next) {
        (End::Since, Some(_)) => format!("from {} (local time{zone})", show(start, tz)),
        (End::Until, Some(next)) => format!("before {} (local time{zone})", show(next, tz)),
        (End::Since, None) => format!("from {}", show(start, tz)),
        (End::Until, None) => format!("through {}", show(start, tz)),
    };
    Ok(Bound { given: text.to_string(), ms, read_as })
}

/// `2025-06-01 00:00:00+02:00`.
fn show(ts: Timestamp, tz: &TimeZone) -> String {
    let zoned = ts.to_zoned_datetime(tz.clone());
    format!("{} {}{}", zoned.date(), zoned.time(), zoned.offset())
}

/// A time for messages: `2025-06-01 14:30:00+02:00` in `tz`.
pub fn show_ms(ms: i64, tz: &TimeZone) -> String {
    match Timestamp::from_millisecond(ms) {
        Ok(ts) => show(ts, tz),
        Err(_) => ms.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central European time, without the time zone database.
    fn berlin() -> TimeZone {
        TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap()
    }

    fn ms(s: &str) -> i64 {
        Timestamp::from_str(s).unwrap().as_millisecond()
    }

    #[test]
    fn bare_dates_are_local_days() {
        let since = parse("2025-06-01", End::Since, &berlin()).unwrap();
        assert_eq!(since.ms, ms("2025-05-31T22:00:00Z"));
        let until = parse("2025-06-01", End::Until, &berlin()).unwrap();
        assert_eq!(until.ms, ms("2025-06-01T22:00:00Z"));
        assert_eq!(since.read_as, "from 2025-06-01 00:00:00+02 (local time)");
        assert_eq!(until.read_as, "before 2025-06-02 00:00:00+02 (local time)");
        // In UTC the same day starts two hours later.
        assert_eq!(parse("2025-06-01", End::Since, &TimeZone::UTC).unwrap().ms, ms("2025-06-01T00:00:00Z"));
    }

    #[test]
    fn a_day_of_23_hours_ends_where_the_next_begins() {
        let tz = berlin();
        let until = parse("2025-03-30", End::Until, &tz).unwrap();
        assert_eq!(until.ms, ms("2025-03-30T22:00:00Z"));
        assert_eq!(until.ms - parse("2025-03-30", End::Since, &tz).unwrap().ms, 23 * 3600 * 1000);
    }

    #[test]
    fn instants_are_instants() {
        let tz = TimeZone::posix("JST-9").unwrap();
        assert_eq!(parse("2025-06-01T14:30:00Z", End::Since, &tz).unwrap().ms, ms("2025-06-01T14:30:00Z"));
        assert_eq!(parse("2025-06-01T14:30:00+02:00", End::Until, &tz).unwrap().ms, ms("2025-06-01T12:30:00Z") + 1);
        assert_eq!(parse("2025-06-01T14:30:00.250Z", End::Since, &tz).unwrap().ms, ms("2025-06-01T14:30:00.250Z"));
        // Without an offset: local time.
        assert_eq!(parse("2025-06-01T14:30", End::Since, &tz).unwrap().ms, ms("2025-06-01T05:30:00Z"));
    }

    #[test]
    fn garbage_is_refused_with_what_to_give() {
        for bad in ["yesterday", "", "2025-13-01", "2025-06-31", "06/01/2025", "2025-06-01T25:00Z"] {
            let err = parse(bad, End::Since, &TimeZone::UTC).unwrap_err();
            assert!(err.contains("YYYY-MM-DD") || err.contains(bad), "{bad}: {err}");
        }
    }
}
