//! Time: calendar arithmetic, and the time expressions of queries resolved to ranges.
//!
//! The core never reads a clock: every function takes the caller's `now_ms` (ms since the
//! Unix epoch) and a fixed timezone offset `offset_minutes` (minutes east of UTC, 0 = UTC).
//! - [`civil`]: days from and to proleptic Gregorian dates, weekdays, starts of days, ISO
//!   weeks, months and years in an offset, month arithmetic with clamping.
//! - [`iso`]: ISO 8601 times, read and written the same way by every face.
//! - [`duration`]: durations as people write them (`90s`, `30d`), for time to live.
//! - [`parse_time`]: the most specific time expression in a user's or agent's query,
//!   English or Chinese, as a half-open range `[since, until)`, with no model involved; and
//!   [`TimeExpr::remainder`], the query without it, for a text search of the rest.
//!
//! What the grammar accepts, in English (`english.rs`, `english_counts.rs`,
//! `english_dates.rs`) and in Chinese (`chinese.rs`, `chinese_counts.rs`, `chinese_dates.rs`),
//! and how each form resolves (`anchor.rs`), is specified in the docs of those private
//! modules. In short:
//! - days: `today`, `yesterday`, `the day before yesterday`, `tomorrow`, `tonight`, `this
//!   morning`, weekdays (`Monday`, `last Friday`), dates (`May 8, 2023`, `8 May`, `May 8th`,
//!   `2023-05-08`), `3 days ago`; `今天` `昨天` `前天` `大前天` `明天`, `周一` `上周三`,
//!   `5月8日` `2023年5月8日` `5号`, `三天前`;
//! - weeks, months, years: `last week`, `this month`, `next year`, `2 weeks ago`, `in May`,
//!   `May 2023`, `05/2023`, `in 2022`; `上周` `本月` `去年` `两个月前` `三月` `2023年5月`;
//! - spans: `last weekend`, `in the past 3 days`, `over the last two weeks`, `recently`,
//!   `earlier this week`, `since Monday`, a part of a day (`yesterday evening`); `上周末`
//!   `过去三天` `最近两周` `最近` `昨天下午` `上周以来`.
//!
//! Choosing among expressions: each language's grammar reads the text left to right and takes
//! the longest expression at each position (`May 8, 2023` rather than `May`, `上周一` rather
//! than `上周`), with no two overlapping. Of all expressions found, the one with the smallest
//! range wins; ties go to the one that starts first, then to the longer one. A range that
//! would be empty (`earlier this week` at Monday 00:00) is not a candidate.
//!
//! `parse_time` gives `None` for a text with nothing to resolve, for `now_ms` beyond ±8.64e15
//! (the range of a JavaScript `Date`), and for offsets beyond ±24 hours. It never panics and
//! its span is always on character boundaries of the text.

use std::string::{String, ToString};
use std::vec::Vec;

use serde::{Deserialize, Serialize};

pub use memdag_types::civil;
pub mod duration;
pub mod iso;

pub use duration::{format_duration, parse_duration};
pub use iso::{format_iso8601, parse_iso8601};

#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod anchor;
#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod chinese;
#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod chinese_counts;
#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod chinese_dates;
#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod chinese_lit;
#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod english;
#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod english_counts;
#[cfg_attr(not(feature = "time-text"), allow(dead_code))]
mod english_dates;
mod numerals;
mod remainder;
mod words;

/// Largest `|now_ms|` accepted: 100 million days, the range of a JavaScript `Date`.
pub const MAX_NOW_MS: i64 = 8_640_000_000_000_000;

/// How much time an expression names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Grain {
    /// One local day.
    Day,
    /// One ISO week, Monday to Sunday.
    Week,
    /// One calendar month.
    Month,
    /// One calendar year.
    Year,
    /// Any other range: a part of a day, a weekend, a few days, a span ending now.
    Span,
}

/// A time expression found in a text and the range it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeExpr {
    /// Start of the range, inclusive, ms since the epoch.
    pub since: i64,
    /// End of the range, exclusive, ms since the epoch; always after `since`.
    pub until: i64,
    /// The expression as it appears in the text, `text[start..end]`.
    pub matched: String,
    /// Byte offset of the expression in the text.
    pub start: usize,
    /// Byte offset just after the expression.
    pub end: usize,
    pub grain: Grain,
}

/// One expression a grammar found: its byte span and range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found {
    pub start: usize,
    pub end: usize,
    pub r: anchor::Resolved,
}

/// The most specific time expression in `text`, resolved against `now_ms` in the timezone
/// `offset_minutes` east of UTC (see the module docs for the forms and the choice).
pub fn parse_time(text: &str, now_ms: i64, offset_minutes: i32) -> Option<TimeExpr> {
    if now_ms.unsigned_abs() > MAX_NOW_MS as u64 || offset_minutes.unsigned_abs() > 24 * 60 {
        return None;
    }
    // Without feature `time-text` the parsers are not called, so they are not linked in.
    #[cfg(feature = "time-text")]
    let found = {
        let now = anchor::Now::new(now_ms, offset_minutes);
        let mut found = Vec::new();
        english::find(text, &now, &mut found);
        chinese::find(text, &now, &mut found);
        found
    };
    #[cfg(not(feature = "time-text"))]
    let found: Vec<Found> = {
        let _ = text;
        Vec::new()
    };
    let best = found
        .into_iter()
        .filter(|f| f.r.since < f.r.until && f.start < f.end)
        .min_by_key(|f| (f.r.until - f.r.since, f.start, usize::MAX - f.end))?;
    Some(TimeExpr {
        since: best.r.since,
        until: best.r.until,
        matched: text[best.start..best.end].to_string(),
        start: best.start,
        end: best.end,
        grain: best.r.grain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_nows_and_offsets_resolve_without_overflow() {
        let queries = [
            "today",
            "next year",
            "in 2022",
            "last May",
            "the past 999 years",
            "999 years ago",
            "2023-05-08",
            "去年三月",
            "999年前",
            "5号",
            "Feb 29",
            "since last week",
        ];
        for now in [MAX_NOW_MS, -MAX_NOW_MS, 0, -1] {
            for off in [-24 * 60, 0, 24 * 60] {
                for q in queries {
                    if let Some(t) = parse_time(q, now, off) {
                        assert!(t.since < t.until, "{q} {now} {off}");
                    }
                }
            }
        }
        assert_eq!(parse_time("today", MAX_NOW_MS + 1, 0), None);
    }

    #[test]
    fn smallest_range_then_first_then_longest() {
        let now = 1_710_428_400_000;
        let t = parse_time("this month, yesterday or today", now, 0).unwrap();
        assert_eq!((t.matched.as_str(), t.grain), ("yesterday", Grain::Day));
        // Equal ranges: the first. A leap year is longer, so 2023 beats 2024 wherever it is.
        let t = parse_time("2023年, last year", now, 0).unwrap();
        assert_eq!(t.matched, "2023年");
        let t = parse_time("this year or last year", now, 0).unwrap();
        assert_eq!(t.matched, "last year");
    }
}
