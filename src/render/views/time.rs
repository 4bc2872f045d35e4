//! A point in time, as every view writes it.

use askama::Template;

use crate::timestamp::{format_human, format_timestamp};

/// A point in time, as `templates/_time.html` writes it: a `<time>` (which
/// the page's script shows in local time), or `—` when unknown (0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Template)]
#[template(path = "_time.html")]
pub(crate) struct Time {
    /// Milliseconds since the epoch (0: unknown).
    pub(crate) ms: i64,
}

impl Time {
    pub(crate) fn at(ms: i64) -> Time {
        Time { ms }
    }

    /// `2025-07-01T10:00:00.000Z`.
    fn machine(&self) -> String {
        format_timestamp(self.ms)
    }

    /// `2025-07-01 10:00 UTC`.
    fn human(&self) -> String {
        format_human(self.ms)
    }
}
