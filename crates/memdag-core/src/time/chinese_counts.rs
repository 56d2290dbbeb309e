//! The Chinese grammar of counts and spans: `三天前`, `过去三天`, `最近`.
//!
//! N is a count: 1 to 999 in digits or numerals, `两`, or `几` for a few
//! ([`super::numerals`]); UNIT is `小时|个小时|钟头|个钟头` (hour), `天|日` (day),
//! `周|个周|星期|个星期|礼拜|个礼拜` (week), `个月` (month) or `年` (year). `N月` is never a count of months: `3月前` is March.
//! - `N UNIT 前|之前|以前`: the calendar unit N back (`三天前`, `两个星期前`, `1年前`); with
//!   `几` the units 2 to 5 back (`几天前`); `前几天`, `前些天`, `前些日子`: a few days ago.
//! - Spans ending now, N units long: `过去|过去的|最近|最近的|近 N UNIT`, with an optional
//!   `以来|之内|以内|里|内|中|来` (`过去三天`, `最近两周`, `近一个月内`); with `几`, N is 3.
//! - `最近|近来|近期|近日` alone: the past 7 days; `这几天|这两天|这些天`: the past 3 days.

use super::anchor::{Count, Now, Resolved, Unit};
use super::chinese_lit::lit;
use super::numerals::{starts_number, zh_number};

/// A count at `p`: a number 1..=999 (`两` too), or `几` for a few.
fn count(s: &str, p: usize) -> Option<(Count, usize)> {
    if s[p..].starts_with('几') && starts_number(s, p) {
        return Some((Count::Few, p + '几'.len_utf8()));
    }
    let (n, e) = zh_number(s, p, true)?;
    (1..=999)
        .contains(&n)
        .then_some((Count::N(i64::from(n)), e))
}

fn unit(s: &str, p: usize) -> Option<(Unit, usize)> {
    const UNITS: [(&str, Unit); 14] = [
        ("个小时", Unit::Hour),
        ("小时", Unit::Hour),
        ("个钟头", Unit::Hour),
        ("钟头", Unit::Hour),
        ("个星期", Unit::Week),
        ("个礼拜", Unit::Week),
        ("个周", Unit::Week),
        ("个月", Unit::Month),
        ("星期", Unit::Week),
        ("礼拜", Unit::Week),
        ("天", Unit::Day),
        ("日", Unit::Day),
        ("周", Unit::Week),
        ("年", Unit::Year),
    ];
    lit(s, p, &UNITS.map(|u| u.0)).map(|(k, e)| (UNITS[k].1, e))
}

pub(crate) fn ago(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    let (n, e) = count(s, p)?;
    let (u, e) = unit(s, e)?;
    let (_, e) = lit(s, e, &["之前", "以前", "前"])?;
    Some((e, now.ago(u, n)))
}

pub(crate) fn span(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    // Words that are spans alone: the past 7 days (0), the past 3 days (1), a few days ago (2).
    const ALONE: [(&str, u8); 10] = [
        ("最近", 0),
        ("近来", 0),
        ("近期", 0),
        ("近日", 0),
        ("这几天", 1),
        ("这两天", 1),
        ("这些天", 1),
        ("前几天", 2),
        ("前些天", 2),
        ("前些日子", 2),
    ];
    let prefix = lit(s, p, &["过去的", "过去", "最近的", "最近", "近"]);
    let counted = prefix.and_then(|(_, e)| {
        let (n, e) = count(s, e)?;
        let (u, e) = unit(s, e)?;
        let suffix = lit(s, e, &["以来", "之内", "以内", "里", "内", "中", "来"]);
        Some((suffix.map_or(e, |(_, e)| e), now.past(u, n)))
    });
    counted.or_else(|| {
        let (k, e) = lit(s, p, &ALONE.map(|a| a.0))?;
        let r = match ALONE[k].1 {
            0 => now.recently(),
            1 => now.past(Unit::Day, Count::Few),
            _ => now.ago(Unit::Day, Count::Few),
        };
        Some((e, r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_units() {
        assert_eq!(count("几天", 0), Some((Count::Few, 3)));
        assert_eq!(count("十几天", 3), None);
        assert_eq!(count("两周", 0), Some((Count::N(2), 3)));
        assert_eq!(count("二十一天", 0), Some((Count::N(21), 9)));
        assert_eq!(count("1000天", 0), None);
        assert_eq!(count("零天", 0), None);
        assert_eq!(unit("个星期前", 0), Some((Unit::Week, 9)));
        assert_eq!(unit("月前", 0), None);
    }
}
