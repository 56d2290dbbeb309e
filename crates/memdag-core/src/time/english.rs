//! The English grammar: the scan, relative days, weekdays, and calendar weeks, months and
//! years.
//!
//! Keywords are whole words and ignore ASCII case ([`super::words`]); `|` separates choices
//! and `[ ]` marks an optional part. At each word the rules of this file, of
//! [`super::english_counts`] and of [`super::english_dates`] are tried, and the longest
//! match taken (ties to the earlier rule); the scan then goes on after it.
//! - `[the] day before yesterday`, `[the] day after tomorrow`, `today`, `yesterday`,
//!   `tomorrow`: the day. `tonight` and `last night` are the evenings of today and
//!   yesterday; `this morning|afternoon|evening` today's part of the day; `earlier today`
//!   and `earlier this week|month|year` run from the unit's start to now.
//! - `[the] [last|previous|this|next] monday|…|sunday`: alone (or after `this past`), the
//!   most recent such day not after today; with a modifier, that day of the last, this or
//!   the next ISO week: on Thursday 14 March 2024, `Monday` is the 11th, `last Monday` the
//!   4th, `next Monday` the 18th, and `last Thursday` the 7th. Plurals
//!   (`Mondays`, recurring) and abbreviations (`Mon`) are not read, so `Sunday school` is a
//!   Sunday but `Sundays` is nothing.
//! - `last|previous|this|next week|month|year|weekend`: the calendar unit; `[the] weekend`
//!   alone, and `the|this past weekend`, is the most recent weekend (this one on a Saturday
//!   or Sunday).
//! - Counts and spans (`3 days ago`, `the past two weeks`, `recently`) are in
//!   [`super::english_counts`].
//! - Any expression that names a single day may be followed by `morning`, `afternoon`,
//!   `evening` or `night` (`yesterday morning`, `last Monday night`) to narrow it.
//! - `since` before any expression makes it run from its start to now (`since Monday`).
//!
//! Dates with month names, numeric dates and years are in [`super::english_dates`].

use std::vec::Vec;

use super::anchor::{part_of_day, Now, Resolved};
use super::civil::WEEKDAY_NAMES;
use super::words::{words, Cursor};
use super::{english_counts, english_dates, Found};

type Rule = for<'w, 'a> fn(Cursor<'w, 'a>, &Now) -> Option<(Cursor<'w, 'a>, Resolved)>;

const RULES: [Rule; 9] = [
    days,
    weekday,
    calendar,
    english_counts::span,
    english_counts::ago,
    english_dates::month_first,
    english_dates::day_first,
    english_dates::numeric,
    english_dates::year,
];

/// Every English expression in `text`, leftmost-longest, none overlapping.
pub(crate) fn find(text: &str, now: &Now, out: &mut Vec<Found>) {
    let ws = words(text);
    let mut i = 0;
    while i < ws.len() {
        let here = Cursor::new(&ws, i);
        let mut hit = None;
        if ws[i].is("since") {
            hit = longest(Cursor::new(&ws, i + 1), now).map(|(end, r)| match now.since(r) {
                Some(r) => (i, end, r),
                None => (i + 1, end, r),
            });
        }
        match hit.or_else(|| longest(here, now).map(|(end, r)| (i, end, r))) {
            Some((first, end, r)) => {
                out.push(Found {
                    start: ws[first].start,
                    end: end.end(),
                    r,
                });
                i = end.i;
            }
            None => i += 1,
        }
    }
}

/// The longest match at `c` (ties to the earlier rule), narrowed by a part of the day.
fn longest<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut best: Option<(Cursor, Resolved)> = None;
    for rule in RULES {
        if let Some((end, r)) = rule(c, now) {
            if best.is_none_or(|(b, _)| end.i > b.i) {
                best = Some((end, r));
            }
        }
    }
    let (mut end, r) = best?;
    if r.grain == super::Grain::Day {
        if let Some((from, to)) = part(&mut end) {
            return Some((end, part_of_day(r, from, to)));
        }
    }
    best
}

/// `morning`, `afternoon`, `evening` or `night`, as local hours.
fn part(c: &mut Cursor) -> Option<(i64, i64)> {
    const PARTS: [(&str, i64, i64); 4] = [
        ("morning", 0, 12),
        ("afternoon", 12, 18),
        ("evening", 18, 24),
        ("night", 18, 24),
    ];
    c.eat_with(|w| PARTS.iter().find(|p| w.is(p.0)).map(|p| (p.1, p.2)))
}

fn days<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    t.eat("the");
    if t.eat("day") {
        let k = t.eat_any(&["before", "after"])?;
        return t
            .eat(["yesterday", "tomorrow"][k])
            .then(|| (t, now.day([-2, 2][k])));
    }
    let mut t = c;
    if let Some(k) = t.eat_any(&["today", "yesterday", "tomorrow"]) {
        return Some((t, now.day([0, -1, 1][k])));
    }
    if t.eat("tonight") || (t.eat("last") && t.eat("night")) {
        let delta = if c.peek()?.is("tonight") { 0 } else { -1 };
        return Some((t, part_of_day(now.day(delta), 18, 24)));
    }
    let mut t = c;
    if t.eat("this") {
        let (from, to) = part(&mut t)?;
        return Some((t, part_of_day(now.day(0), from, to)));
    }
    if t.eat("earlier") {
        let r = if t.eat("today") {
            now.day(0)
        } else {
            t.eat("this").then_some(())?;
            match t.eat_any(&["week", "month", "year"])? {
                0 => now.week(0),
                1 => now.month(0),
                _ => now.year(0),
            }
        };
        return Some((t, now.since(r)?));
    }
    None
}

fn weekday<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    let the = t.eat("the");
    let mut which = t.eat_any(&["last", "previous", "this", "next"]);
    if which == Some(2) && t.eat("past") {
        which = None;
    } else if the && which.is_none() {
        return None;
    }
    let wd = t.eat_with(|w| WEEKDAY_NAMES.iter().position(|n| w.is(n)))? as u32;
    let r = match which {
        None => now.weekday(wd),
        Some(k) => now.weekday_in([-1, -1, 0, 1][k], wd),
    };
    Some((t, r))
}

fn calendar<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    let this_past = t.eat_any(&["the", "this"]).is_some() && t.eat("past");
    if !this_past {
        t = c;
        t.eat("the");
    }
    if t.eat("weekend") {
        return Some((t, now.weekend()));
    }
    let mut t = c;
    let delta = [-1, -1, 0, 1][t.eat_any(&["last", "previous", "this", "next"])?];
    let r = match t.eat_any(&["week", "month", "year", "weekend"])? {
        0 => now.week(delta),
        1 => now.month(delta),
        2 => now.year(delta),
        _ => now.weekend_in(delta),
    };
    Some((t, r))
}
