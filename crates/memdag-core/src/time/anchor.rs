//! Anchors: the calendar ranges a time expression names, relative to the caller's now.
//!
//! Every range is half-open, `[since, until)` in ms, and made of whole local days in the
//! caller's offset unless it ends now. The rules, with today = the local day holding now:
//! - a day `n` days from today: `day(-1)` is yesterday; a part of a day narrows it by local
//!   hours: morning 0–12, noon 11–14, afternoon 12–18, dusk 17–20, evening and night 18–24;
//! - weeks are ISO weeks (Monday to Sunday); `week(-1)` is last week. A weekday *in* a week
//!   is that week's day (`weekday(-1, 0)` is last week's Monday, even when that is 10 days
//!   ago); a weekday alone is the most recent such day not after today (today counts);
//! - a weekend is Saturday 00:00 to Monday 00:00 of a week; the weekend alone is this week's
//!   when today is Saturday or Sunday, else last week's;
//! - months and years are calendar ones; a month without a year is the most recent one not
//!   in the future ([`Rel::Recent`]: in March, "May" is last May and "March" this one),
//!   [`Rel::Last`] the most recent one before the current month, [`Rel::This`] this year's,
//!   [`Rel::Next`] the first one after the current month; a day of a month without a year,
//!   and a day of the month alone, are the most recent such date not after today;
//! - `n` units *ago* is the whole calendar unit `n` back (3 days ago is a day, 2 weeks ago is
//!   the ISO week two back, a month ago the previous calendar month, an hour ago the previous
//!   clock hour); a *few* units ago spans the units 2 to 5 back;
//! - the *past* `n` units is rolling and ends now: `[now - n units, now)`, months and years
//!   moved by calendar arithmetic ([`civil::add_months`]); a *few* counts as 3. *Recently*
//!   is the past 7 days;
//! - *earlier* this day, week, month or year is from its start to now; *since* a range is
//!   from its start to now.

use super::civil::{self, DAY_MS, HOUR_MS};
use super::Grain;

/// A resolved range and its grain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub since: i64,
    pub until: i64,
    pub grain: Grain,
}

/// A calendar unit counted in "3 days ago" or "the past 2 weeks".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Hour,
    Day,
    Week,
    Month,
    Year,
}

/// How many units: a number (at least 1) or "a few" / "several" / 几.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Count {
    N(i64),
    Few,
}

/// Which occurrence of a named month a modifier picks (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rel {
    Recent,
    Last,
    This,
    Next,
}

/// The caller's now, with the local calendar date of today.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Now {
    pub ms: i64,
    off: i32,
    today: i64,
    year: i64,
    month: u32,
}

impl Now {
    pub fn new(ms: i64, offset_minutes: i32) -> Self {
        let today = civil::local_day(ms, offset_minutes);
        let (year, month, _) = civil::civil_from_days(today);
        Now {
            ms,
            off: offset_minutes,
            today,
            year,
            month,
        }
    }

    fn days(&self, first: i64, count: i64, grain: Grain) -> Resolved {
        let since = civil::day_start(first, self.off);
        Resolved {
            since,
            until: civil::day_start(first + count, self.off),
            grain,
        }
    }

    pub fn day(&self, delta: i64) -> Resolved {
        self.days(self.today + delta, 1, Grain::Day)
    }

    fn week_monday(&self, delta: i64) -> i64 {
        self.today - i64::from(civil::weekday(self.today)) + 7 * delta
    }

    pub fn week(&self, delta: i64) -> Resolved {
        self.days(self.week_monday(delta), 7, Grain::Week)
    }

    /// Weekday `wd` (0 = Monday) of the week `delta` weeks from this one.
    pub fn weekday_in(&self, delta: i64, wd: u32) -> Resolved {
        self.days(self.week_monday(delta) + i64::from(wd), 1, Grain::Day)
    }

    /// The most recent weekday `wd` not after today.
    pub fn weekday(&self, wd: u32) -> Resolved {
        let back = (i64::from(civil::weekday(self.today)) - i64::from(wd)).rem_euclid(7);
        self.day(-back)
    }

    pub fn weekend_in(&self, delta: i64) -> Resolved {
        self.days(self.week_monday(delta) + 5, 2, Grain::Span)
    }

    pub fn weekend(&self) -> Resolved {
        self.weekend_in(if civil::weekday(self.today) >= 5 {
            0
        } else {
            -1
        })
    }

    /// Calendar month `y`-`m`, when `y` is a four-digit year.
    pub fn month_of(&self, y: i64, m: u32) -> Option<Resolved> {
        if !(1000..=9999).contains(&y) || !(1..=12).contains(&m) {
            return None;
        }
        let (ny, nm) = civil::shift_month(y, m, 1);
        let since = civil::day_start(civil::days_from_civil(y, m, 1), self.off);
        let until = civil::day_start(civil::days_from_civil(ny, nm, 1), self.off);
        Some(Resolved {
            since,
            until,
            grain: Grain::Month,
        })
    }

    pub fn month(&self, delta: i64) -> Resolved {
        let (y, m) = civil::shift_month(self.year, self.month, delta);
        let day = civil::days_from_civil(y, m, 1);
        let (ny, nm) = civil::shift_month(y, m, 1);
        let next = civil::days_from_civil(ny, nm, 1);
        self.days(day, next - day, Grain::Month)
    }

    /// Month `m` (1..=12) picked by `rel`.
    pub fn named_month(&self, m: u32, rel: Rel) -> Option<Resolved> {
        let y = self.year;
        let y = match rel {
            Rel::This => y,
            Rel::Recent if m <= self.month => y,
            Rel::Last if m < self.month => y,
            Rel::Next if m > self.month => y,
            Rel::Next => y + 1,
            Rel::Recent | Rel::Last => y - 1,
        };
        self.month_of(y, m)
    }

    pub fn year_of(&self, y: i64) -> Option<Resolved> {
        let mut r = self.month_of(y, 1)?;
        r.until = civil::day_start(civil::days_from_civil(y + 1, 1, 1), self.off);
        r.grain = Grain::Year;
        Some(r)
    }

    pub fn year(&self, delta: i64) -> Resolved {
        let y = self.year + delta;
        let first = civil::days_from_civil(y, 1, 1);
        let next = civil::days_from_civil(y + 1, 1, 1);
        self.days(first, next - first, Grain::Year)
    }

    pub fn year_number(&self, delta: i64) -> i64 {
        self.year + delta
    }

    /// The date `y`-`m`-`d`, if it exists.
    pub fn date(&self, y: i64, m: u32, d: u32) -> Option<Resolved> {
        self.month_of(y, m)?;
        (d >= 1 && d <= civil::days_in_month(y, m))
            .then(|| self.days(civil::days_from_civil(y, m, d), 1, Grain::Day))
    }

    /// The most recent `m`-`d` not after today (February 29 looks back up to 8 years).
    pub fn recent_date(&self, m: u32, d: u32) -> Option<Resolved> {
        (0..9)
            .filter_map(|back| self.date(self.year - back, m, d))
            .find(|r| r.since <= self.ms)
    }

    /// Day `d` of the month `delta` months from this one, if it exists.
    pub fn day_of_month(&self, delta: i64, d: u32) -> Option<Resolved> {
        let (y, m) = civil::shift_month(self.year, self.month, delta);
        self.date(y, m, d)
    }

    /// The most recent day `d` of a month not after today.
    pub fn recent_day_of_month(&self, d: u32) -> Option<Resolved> {
        (0..3)
            .filter_map(|back| self.day_of_month(-back, d))
            .find(|r| r.since <= self.ms)
    }

    /// The local clock hour `delta` hours from the current one.
    fn hour(&self, delta: i64) -> Resolved {
        let off = civil::offset_ms(self.off);
        let since = (self.ms + off).div_euclid(HOUR_MS) * HOUR_MS - off + delta * HOUR_MS;
        Resolved {
            since,
            until: since + HOUR_MS,
            grain: Grain::Span,
        }
    }

    /// The calendar unit `count` units back.
    pub fn ago(&self, unit: Unit, count: Count) -> Resolved {
        let one = |n: i64| match unit {
            Unit::Hour => self.hour(-n),
            Unit::Day => self.day(-n),
            Unit::Week => self.week(-n),
            Unit::Month => self.month(-n),
            Unit::Year => self.year(-n),
        };
        match count {
            Count::N(n) => one(n),
            Count::Few => Resolved {
                since: one(5).since,
                until: one(2).until,
                grain: Grain::Span,
            },
        }
    }

    /// The rolling range of the past `count` units, ending now.
    pub fn past(&self, unit: Unit, count: Count) -> Resolved {
        let n = match count {
            Count::N(n) => n,
            Count::Few => 3,
        };
        let since = match unit {
            Unit::Hour => self.ms - n * HOUR_MS,
            Unit::Day => self.ms - n * DAY_MS,
            Unit::Week => self.ms - 7 * n * DAY_MS,
            Unit::Month => civil::add_months(self.ms, -n, self.off),
            Unit::Year => civil::add_years(self.ms, -n, self.off),
        };
        Resolved {
            since,
            until: self.ms,
            grain: Grain::Span,
        }
    }

    pub fn recently(&self) -> Resolved {
        self.past(Unit::Day, Count::N(7))
    }

    /// From the start of `r` to now, if that is not empty.
    pub fn since(&self, r: Resolved) -> Option<Resolved> {
        (r.since < self.ms).then_some(Resolved {
            since: r.since,
            until: self.ms,
            grain: Grain::Span,
        })
    }
}

/// A day range narrowed to local hours `from..to` (0..=24).
pub(crate) fn part_of_day(day: Resolved, from: i64, to: i64) -> Resolved {
    Resolved {
        since: day.since + from * HOUR_MS,
        until: day.since + to * HOUR_MS,
        grain: Grain::Span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thursday 2024-03-14T15:00:00Z.
    const NOW: i64 = 1_710_428_400_000;

    fn day(r: Resolved) -> std::string::String {
        civil::format_day(r.since, 0)
    }

    #[test]
    fn weekdays_alone_and_in_weeks() {
        let now = Now::new(NOW, 0);
        assert_eq!(day(now.weekday(3)), "2024-03-14"); // today counts
        assert_eq!(day(now.weekday(4)), "2024-03-08");
        assert_eq!(day(now.weekday_in(-1, 0)), "2024-03-04");
        assert_eq!(day(now.weekday_in(1, 6)), "2024-03-24");
        assert_eq!(day(now.weekend()), "2024-03-09");
        // On a Sunday the weekend alone is the current one.
        let sunday = Now::new(NOW + 3 * DAY_MS, 0);
        assert_eq!(day(sunday.weekend()), "2024-03-16");
        assert_eq!(day(sunday.weekday_in(-1, 0)), "2024-03-04");
    }

    #[test]
    fn named_months_and_dates() {
        let now = Now::new(NOW, 0);
        let m = |m, rel| day(now.named_month(m, rel).unwrap());
        assert_eq!(m(3, Rel::Recent), "2024-03-01");
        assert_eq!(m(3, Rel::Last), "2023-03-01");
        assert_eq!(m(3, Rel::This), "2024-03-01");
        assert_eq!(m(3, Rel::Next), "2025-03-01");
        assert_eq!(m(5, Rel::Recent), "2023-05-01");
        assert_eq!(m(5, Rel::Next), "2024-05-01");
        assert_eq!(m(2, Rel::Last), "2024-02-01");
        assert_eq!(day(now.recent_date(2, 29).unwrap()), "2024-02-29");
        let later = Now::new(NOW + 365 * DAY_MS, 0); // 2025-03-14
        assert_eq!(day(later.recent_date(2, 29).unwrap()), "2024-02-29");
        assert_eq!(now.date(2023, 2, 29), None);
        assert_eq!(now.recent_date(4, 31), None);
        // March 31 is ahead and February has none: January's.
        assert_eq!(day(now.recent_day_of_month(31).unwrap()), "2024-01-31");
        assert_eq!(now.month_of(999, 1), None);
    }

    #[test]
    fn counts_spans_and_since() {
        let now = Now::new(NOW, 0);
        let week_ago = now.ago(Unit::Week, Count::N(1));
        assert_eq!(
            (day(week_ago), week_ago.grain),
            ("2024-03-04".into(), Grain::Week)
        );
        let few = now.ago(Unit::Month, Count::Few);
        assert_eq!(
            (day(few), civil::format_day(few.until, 0)),
            ("2023-10-01".into(), "2024-02-01".into())
        );
        let month = now.past(Unit::Month, Count::N(1));
        assert_eq!(
            (month.since, month.until),
            (civil::add_months(NOW, -1, 0), NOW)
        );
        assert_eq!(now.past(Unit::Day, Count::Few).since, NOW - 3 * DAY_MS);
        assert_eq!(now.since(now.day(1)), None);
        assert_eq!(
            now.since(now.day(0)).map(|r| (r.until, r.grain)),
            Some((NOW, Grain::Span))
        );
        let evening = part_of_day(now.day(0), 18, 24);
        assert_eq!(evening.until, now.day(1).since);
    }
}
