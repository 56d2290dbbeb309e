//! Civil calendar arithmetic on millisecond timestamps.
//!
//! - Days are counted from 1970-01-01 (day 0); negative counts are days before the epoch. The
//!   calendar is the proleptic Gregorian one, extended backwards without a year zero gap (year 0
//!   is 1 BC, as in ISO 8601).
//! - A timestamp is in ms since the Unix epoch (UTC). A *local* day is the day the timestamp
//!   falls on in a fixed offset `offset_minutes` east of UTC (0 = UTC, 480 = UTC+8, -300 =
//!   UTC-5). There is no daylight saving: every local day is 24 hours in the offset given.
//! - Weekdays count from Monday: 0 = Monday … 6 = Sunday. An ISO week starts on Monday.
//! - [`add_months`] and [`add_years`] keep the local time of day and clamp the day of the
//!   month to the target month's length (Jan 31 + 1 month = Feb 29 in a leap year).
//! - [`format_day`] writes `YYYY-MM-DD`; years outside 0..=9999 get a sign and at least four
//!   digits (`-0001-12-31`, `+10000-01-01`), as ISO 8601 expanded years.
//!
//! The functions are exact for timestamps within ±8.64e15 ms (±100 million days, the range of
//! a JavaScript `Date`); far outside that their arithmetic could overflow.

use alloc::format;
use alloc::string::String;

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;
/// Milliseconds in an hour.
pub const HOUR_MS: i64 = 3_600_000;

/// Month names, January first.
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Weekday names, Monday first (index = [`weekday`]).
pub const WEEKDAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The day count since 1970-01-01 of a proleptic Gregorian date (month 1..=12, day 1..=31;
/// an out-of-range day is not checked, see [`days_in_month`]).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let (m, d) = (i64::from(month), i64::from(day));
    let y = if m <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1..=12, day 1..=31) of a day count since 1970-01-01: the inverse of
/// [`days_from_civil`], computed by eras of 400 years.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Whether `year` has a February 29.
pub fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The number of days in a month (1..=12) of a year.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The weekday of a day count: 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday).
pub fn weekday(days: i64) -> u32 {
    (days + 3).rem_euclid(7) as u32
}

/// The offset in milliseconds.
pub fn offset_ms(offset_minutes: i32) -> i64 {
    i64::from(offset_minutes) * 60_000
}

/// The local day (count since 1970-01-01) that `ms` falls on.
pub fn local_day(ms: i64, offset_minutes: i32) -> i64 {
    (ms + offset_ms(offset_minutes)).div_euclid(DAY_MS)
}

/// The timestamp at which a local day starts.
pub fn day_start(days: i64, offset_minutes: i32) -> i64 {
    days * DAY_MS - offset_ms(offset_minutes)
}

/// The start of the local day holding `ms`.
pub fn start_of_day(ms: i64, offset_minutes: i32) -> i64 {
    day_start(local_day(ms, offset_minutes), offset_minutes)
}

/// The start of the ISO week (Monday 00:00 local) holding `ms`.
pub fn start_of_week(ms: i64, offset_minutes: i32) -> i64 {
    let d = local_day(ms, offset_minutes);
    day_start(d - i64::from(weekday(d)), offset_minutes)
}

/// The start of the local month holding `ms`.
pub fn start_of_month(ms: i64, offset_minutes: i32) -> i64 {
    let (y, m, _) = civil_from_days(local_day(ms, offset_minutes));
    day_start(days_from_civil(y, m, 1), offset_minutes)
}

/// The start of the local year holding `ms`.
pub fn start_of_year(ms: i64, offset_minutes: i32) -> i64 {
    let (y, _, _) = civil_from_days(local_day(ms, offset_minutes));
    day_start(days_from_civil(y, 1, 1), offset_minutes)
}

/// The first day of the month `months` after (or before, if negative) year/month.
pub fn shift_month(year: i64, month: u32, months: i64) -> (i64, u32) {
    let index = year * 12 + i64::from(month) - 1 + months;
    (index.div_euclid(12), (index.rem_euclid(12) + 1) as u32)
}

/// `ms` moved by `months` calendar months in the offset, keeping the local time of day and
/// clamping the day to the target month (Mar 31 - 1 month = Feb 28 or 29).
pub fn add_months(ms: i64, months: i64, offset_minutes: i32) -> i64 {
    let day = local_day(ms, offset_minutes);
    let time = ms - day_start(day, offset_minutes);
    let (y, m, d) = civil_from_days(day);
    let (y, m) = shift_month(y, m, months);
    let d = d.min(days_in_month(y, m));
    day_start(days_from_civil(y, m, d), offset_minutes) + time
}

/// `ms` moved by `years` calendar years (Feb 29 + 1 year = Feb 28).
pub fn add_years(ms: i64, years: i64, offset_minutes: i32) -> i64 {
    add_months(ms, years.saturating_mul(12), offset_minutes)
}

/// The local day holding `ms` as `YYYY-MM-DD`.
pub fn format_day(ms: i64, offset_minutes: i32) -> String {
    let (y, m, d) = civil_from_days(local_day(ms, offset_minutes));
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}")
    } else {
        format!("{y:+05}-{m:02}-{d:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_days_across_eras() {
        for days in (-800_000..800_000).step_by(97) {
            let (y, m, d) = civil_from_days(days);
            assert!((1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m));
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(days_from_civil(0, 2, 29)), (0, 2, 29));
    }

    #[test]
    fn weekdays_and_starts() {
        // 2024-03-14T15:00:00Z is a Thursday.
        let now = 1_710_428_400_000;
        assert_eq!(weekday(local_day(now, 0)), 3);
        assert_eq!(format_day(start_of_week(now, 0), 0), "2024-03-11");
        assert_eq!(format_day(start_of_month(now, 0), 0), "2024-03-01");
        assert_eq!(format_day(start_of_year(now, 0), 0), "2024-01-01");
        // In UTC+10 it is already Friday the 15th, 01:00.
        assert_eq!(format_day(now, 600), "2024-03-15");
        assert_eq!(start_of_day(now, 600), 1_710_424_800_000);
        // In UTC-16 it is still Wednesday the 13th.
        assert_eq!(format_day(now, -960), "2024-03-13");
        assert_eq!(weekday(-4), 6); // 1969-12-28, a Sunday
    }

    #[test]
    fn month_arithmetic_clamps() {
        let jan31 = days_from_civil(2024, 1, 31) * DAY_MS + 5 * HOUR_MS;
        assert_eq!(format_day(add_months(jan31, 1, 0), 0), "2024-02-29");
        assert_eq!(add_months(jan31, 1, 0) % DAY_MS, 5 * HOUR_MS);
        assert_eq!(format_day(add_months(jan31, -2, 0), 0), "2023-11-30");
        let leap = days_from_civil(2024, 2, 29) * DAY_MS;
        assert_eq!(format_day(add_years(leap, 1, 0), 0), "2025-02-28");
        assert_eq!(format_day(add_years(leap, -4, 0), 0), "2020-02-29");
        assert_eq!(shift_month(2024, 1, -1), (2023, 12));
        assert_eq!(shift_month(2024, 12, 13), (2026, 1));
    }

    #[test]
    fn formats_expanded_years() {
        assert_eq!(format_day(0, 0), "1970-01-01");
        assert_eq!(
            format_day(days_from_civil(-1, 12, 31) * DAY_MS, 0),
            "-0001-12-31"
        );
        assert_eq!(
            format_day(days_from_civil(10_000, 1, 1) * DAY_MS, 0),
            "+10000-01-01"
        );
        assert!(is_leap_year(2000) && !is_leap_year(1900) && is_leap_year(0));
    }
}
