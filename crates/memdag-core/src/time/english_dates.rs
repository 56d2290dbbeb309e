//! The English grammar of dates: month names, numeric dates and years.
//!
//! MONTH is a month name (`January` … `December`) or an abbreviation (`Jan`, `Feb`, `Mar`,
//! `Apr`, `Jun`, `Jul`, `Aug`, `Sep`, `Sept`, `Oct`, `Nov`, `Dec`, with an optional `.`), DAY
//! is 1 to 31 with an optional ordinal suffix (`8th`, `1st`), YEAR four digits.
//! - `MONTH DAY[,] [YEAR]`, `[the] DAY [of] MONTH[,] [YEAR]`: the date; without a year, the
//!   most recent such date not after today. A date that does not exist (`February 30`) is
//!   nothing. `DAY MONTH` with an ambiguous name (below) and no year needs `the`, `of`, an
//!   ordinal, or `on` or a context word before it (`on 8 May`, `8th May`), so that `the top
//!   3 may fail` holds no date. `on the DAY` with an ordinal and no month (`on the 5th`) is
//!   the most recent such day of a month not after today; `the 1st thing` is nothing.
//! - `MONTH[,] YEAR`, `MONTH of YEAR`: the month. `[last|this|next] MONTH`: the month picked
//!   as [`super::anchor`] says; alone, the most recent such month not in the future.
//! - A month name that is also a common word, `May` and `March`, and every abbreviation,
//!   is read alone only after one of `in during since from of until till by early late mid
//!   before after through throughout around` (`in May`, `mid-March`) or with a modifier, day
//!   or year (`last May`, `March 5`): `may I ask`, `I may go`, `March on` and `the march`
//!   are nothing.
//! - Numeric dates, parts touching and one separator throughout: `YYYY-MM-DD`,
//!   `YYYY/MM/DD`, `YYYY.MM.DD`, `YYYY-MM`, `YYYY/MM`, `MM/YYYY`; `DD.MM.YYYY`; and
//!   `A/B/YYYY` or `A-B-YYYY`, read day first when A > 12, month first when B > 12, and
//!   nothing when both could be a month (`05/08/2023`) unless A = B. A run that goes on
//!   (`1.2023.05.08`, `2023-05-08-17`) is nothing: it is a version or an identifier. In a
//!   date-time (`2023-05-08T13:56:00Z`) the date is read and the time left in the text.
//! - `in|during|since|throughout|from|of|for|around YEAR` and `[the] year YEAR`, YEAR in
//!   1900..=2100: the year. The year after `in` is read even when it counts something
//!   (`in 2000 lines` is the year 2000): a year needs no unit and the grammar knows no nouns.

use super::anchor::{Now, Rel, Resolved};
use super::words::{Cursor, Word};

const ABBREVIATIONS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const CONTEXT: &str =
    "in during since from of until till by early late mid before after through throughout around";
const YEAR_CONTEXT: &str = "in during since throughout from of for around";

/// A month (1..=12) named by `w`, and whether the name needs context to be read alone.
fn month_name(w: Word) -> Option<(u32, bool)> {
    if let Some(i) = super::civil::MONTH_NAMES.iter().position(|n| w.is(n)) {
        return Some((i as u32 + 1, i == 2 || i == 4));
    }
    let i = ABBREVIATIONS.iter().position(|n| w.is(n));
    let i = i.or_else(|| w.is("sept").then_some(8))?;
    Some((i as u32 + 1, true))
}

/// A month name, with the `.` after an abbreviation.
fn month(c: &mut Cursor) -> Option<(u32, bool)> {
    let (m, ambiguous) = c.eat_with(month_name)?;
    let name = c.before()?;
    if !super::civil::MONTH_NAMES.iter().any(|n| name.is(n)) && c.touching() {
        c.eat(".");
    }
    Some((m, ambiguous))
}

/// A day of the month, `8` or `8th`, and whether it had an ordinal suffix.
fn day(c: &mut Cursor) -> Option<(u32, bool)> {
    c.eat_with(|w| {
        let digits = w.text.trim_end_matches(|ch: char| ch.is_ascii_alphabetic());
        let suffix = &w.text[digits.len()..];
        if !(suffix.is_empty()
            || ["st", "nd", "rd", "th"]
                .iter()
                .any(|s| suffix.eq_ignore_ascii_case(s)))
        {
            return None;
        }
        let d = Word { text: digits, ..w }.digits(2)?;
        (1..=31)
            .contains(&d)
            .then_some((d as u32, !suffix.is_empty()))
    })
}

fn year_number(c: &mut Cursor) -> Option<i64> {
    c.eat_with(|w| w.digits(4).filter(|y| (1000..=9999).contains(y)))
}

/// A year after an optional comma or `of`.
fn trailing_year(c: &mut Cursor, of: bool) -> Option<i64> {
    let mut t = *c;
    if !t.eat(",") && of {
        t.eat("of");
    }
    let y = year_number(&mut t)?;
    *c = t;
    Some(y)
}

pub(crate) fn month_first<'w, 'a>(
    c: Cursor<'w, 'a>,
    now: &Now,
) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    let rel = t.eat_any(&["last", "this", "next"]);
    let (m, ambiguous) = month(&mut t)?;
    if rel.is_none() {
        let mut u = t;
        if let Some((d, _)) = day(&mut u) {
            if let Some(y) = trailing_year(&mut u, false) {
                return Some((u, now.date(y, m, d)?));
            }
            return Some((u, now.recent_date(m, d)?));
        }
        if let Some(y) = trailing_year(&mut u, true) {
            return Some((u, now.month_of(y, m)?));
        }
        if ambiguous && !after_context(c) {
            return None;
        }
    }
    let rel = rel.map_or(Rel::Recent, |k| [Rel::Last, Rel::This, Rel::Next][k]);
    Some((t, now.named_month(m, rel)?))
}

/// Whether the word before `c` (or before a `-` touching it, as in `mid-March`) is one that
/// makes an ambiguous month name a month.
fn after_context(c: Cursor) -> bool {
    let mut b = c;
    if b.before().is_some_and(|w| w.is("-")) && b.touching() {
        b.i -= 1;
        if !b.touching() {
            return false;
        }
    }
    b.before()
        .is_some_and(|w| CONTEXT.split_whitespace().any(|k| w.is(k)))
}

pub(crate) fn day_first<'w, 'a>(
    c: Cursor<'w, 'a>,
    now: &Now,
) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    let the = t.eat("the");
    let (d, ordinal) = day(&mut t)?;
    let after_day = t;
    let of = t.eat("of");
    let Some((m, ambiguous)) = month(&mut t) else {
        // `on the 5th`: the most recent 5th of a month not after today.
        let on_the = the && ordinal && c.before().is_some_and(|w| w.is("on"));
        return Some((after_day, now.recent_day_of_month(d).filter(|_| on_the)?));
    };
    if let Some(y) = trailing_year(&mut t, false) {
        return Some((t, now.date(y, m, d)?));
    }
    // `the top 3 may fail` holds no date.
    let on = c.before().is_some_and(|w| w.is("on"));
    if ambiguous && !(the || ordinal || of || on || after_context(c)) {
        return None;
    }
    Some((t, now.recent_date(m, d)?))
}

/// A numeric date: up to three runs of at most four digits joined by one touching separator.
pub(crate) fn numeric<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    const SEPARATORS: [&str; 3] = ["-", "/", "."];
    let joined = |t: &Cursor| -> Option<usize> {
        let mut u = *t;
        let sep = (u.touching()).then(|| u.eat_any(&SEPARATORS)).flatten()?;
        (u.touching() && u.peek()?.digits(4).is_some()).then_some(sep)
    };
    // The run must not go on to the left either.
    let first = c.peek()?;
    if let [.., prev, sep] = &c.words[..c.i] {
        let touching = prev.end == sep.start && sep.end == first.start;
        if touching && SEPARATORS.contains(&sep.text) && prev.digits(4).is_some() {
            return None;
        }
    }
    let mut t = c;
    let mut parts = [(0i64, 0usize); 3];
    let mut n = 0;
    let mut sep = None;
    loop {
        let w = t.next()?;
        parts[n] = (w.digits(4)?, w.text.len());
        n += 1;
        match joined(&t) {
            Some(s) if n < 3 && sep.is_none_or(|p| p == s) => {
                sep = Some(s);
                t.next();
            }
            Some(_) => return None,
            None => break,
        }
    }
    let sep = sep?;
    let r = match (n, parts[0], parts[1], parts[2]) {
        (3, (y, 4), (m, 1..=2), (d, 1..=2)) => now.date(y, m as u32, d as u32),
        (3, (a, 1..=2), (b, 1..=2), (y, 4)) => {
            let (d, m) = match sep {
                2 => (a, b),
                _ if a > 12 || a == b => (a, b),
                _ if b > 12 => (b, a),
                _ => return None,
            };
            now.date(y, m as u32, d as u32)
        }
        (2, (y, 4), (m, 1..=2), _) if sep < 2 => now.month_of(y, m as u32),
        (2, (m, 1..=2), (y, 4), _) if sep == 1 => now.month_of(y, m as u32),
        _ => None,
    }?;
    Some((t, r))
}

pub(crate) fn year<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    t.eat("the");
    if !t.eat("year") {
        t = c;
        let context = c
            .before()
            .is_some_and(|w| YEAR_CONTEXT.split_whitespace().any(|k| w.is(k)));
        context.then_some(())?;
    }
    let y = t.eat_with(|w| w.digits(4).filter(|y| (1900..=2100).contains(y)))?;
    Some((t, now.year_of(y)?))
}
