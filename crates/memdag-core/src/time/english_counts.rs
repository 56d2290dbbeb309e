//! The English grammar of counts and spans: `N UNIT ago`, `the past N UNIT`, `recently`.
//!
//! N is a count ([`count`]) and UNIT is `hour|hours|day|days|week|weeks|month|months|year|
//! years`.
//! - `N UNIT ago`: the calendar unit N back (`3 weeks ago` is the ISO week three back);
//!   `a few|several UNIT ago` spans the units 2 to 5 back.
//! - `[the] past|last|previous N UNIT`, `the past|last|previous UNIT` and `past UNIT`: a span
//!   ending now, N units long (`the last week` rolls, `last week` is the calendar week);
//!   with `few`, N is 3.
//! - `recently`, `lately`: the past 7 days.
//! - There are no minutes or seconds: `a second ago` is nothing. `2 hours ago` is the clock
//!   hour two back, a span.

use super::anchor::{Count, Now, Resolved, Unit};
use super::numerals::english_word;
use super::words::Cursor;

pub(crate) fn span<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    if t.eat_any(&["recently", "lately"]).is_some() {
        return Some((t, now.recently()));
    }
    let the = t.eat("the");
    let past = t.eat_any(&["past", "last", "previous"])? == 0;
    let n = count(&mut t);
    if n.is_none() && !the && !past {
        return None;
    }
    let u = unit(&mut t)?;
    Some((t, now.past(u, n.unwrap_or(Count::N(1)))))
}

pub(crate) fn ago<'w, 'a>(c: Cursor<'w, 'a>, now: &Now) -> Option<(Cursor<'w, 'a>, Resolved)> {
    let mut t = c;
    let n = count(&mut t)?;
    let u = unit(&mut t)?;
    t.eat("ago").then(|| (t, now.ago(u, n)))
}

/// A count: `a|an|one`, `[a] couple [of]`, `[a] few`, `several`, 1 to 999 in digits, or a
/// number word up to `ninety-nine` (`twenty one` and `twenty-one` alike).
fn count(c: &mut Cursor) -> Option<Count> {
    let mut t = *c;
    let a = t.eat_any(&["a", "an"]).is_some();
    let n = if t.eat("couple") {
        t.eat("of");
        Count::N(2)
    } else if t.eat("few") || (!a && t.eat("several")) {
        Count::Few
    } else if a {
        Count::N(1)
    } else if let Some(n) = t.eat_with(|w| w.digits(3).filter(|&n| n >= 1)) {
        Count::N(n)
    } else {
        let mut n = t.eat_with(|w| english_word(w.text))?;
        if n >= 20 {
            let mut u = t;
            let hyphen = u.touching() && u.eat("-");
            if !hyphen || u.touching() {
                if let Some(d) = u.eat_with(|w| english_word(w.text).filter(|&d| d < 10)) {
                    n += d;
                    t = u;
                }
            }
        }
        Count::N(n)
    };
    *c = t;
    Some(n)
}

fn unit(c: &mut Cursor) -> Option<Unit> {
    const UNITS: [Unit; 5] = [Unit::Hour, Unit::Day, Unit::Week, Unit::Month, Unit::Year];
    let names = [
        "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years",
    ];
    c.eat_any(&names).map(|k| UNITS[k / 2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::words::words;

    fn read(text: &str) -> Option<(Count, usize)> {
        let ws = words(text);
        let mut c = Cursor::new(&ws, 0);
        count(&mut c).map(|n| (n, c.i))
    }

    #[test]
    fn counts() {
        assert_eq!(read("a day"), Some((Count::N(1), 1)));
        assert_eq!(read("An hour"), Some((Count::N(1), 1)));
        assert_eq!(read("a couple of days"), Some((Count::N(2), 3)));
        assert_eq!(read("couple days"), Some((Count::N(2), 1)));
        assert_eq!(read("a few"), Some((Count::Few, 2)));
        assert_eq!(read("several"), Some((Count::Few, 1)));
        assert_eq!(read("twenty-one"), Some((Count::N(21), 3)));
        assert_eq!(read("ninety nine"), Some((Count::N(99), 2)));
        assert_eq!(read("twenty - one"), Some((Count::N(20), 1)));
        assert_eq!(read("twelve one"), Some((Count::N(12), 1)));
        assert_eq!(read("999"), Some((Count::N(999), 1)));
        assert_eq!(read("1000"), None);
        assert_eq!(read("0"), None);
        assert_eq!(read("second"), None);
    }
}
