//! Times in a statement resolved against the turn's date: "I went to a support group
//! yesterday", said on 8 May 2023, is learned as "… on 7 May 2023".
//!
//! The expression is found by the query grammar ([`crate::time::parse_time`]), so the two
//! read times the same way; the most specific expression of a statement is the one resolved.
//! A day becomes "on 7 May 2023", a week "in the week of 1 May 2023", a month "in May 2023", a
//! year "in 2022", a weekend "on the weekend of 6 May 2023"; any other span ("recently", "the
//! past few days") stays as the speaker said it. A preposition already before the
//! expression ("on Friday", "in May") is not repeated. Chinese statements get the date
//! after the expression: 昨天 becomes 昨天（2023年5月7日）.

use std::string::String;

use crate::time::civil::{
    civil_from_days, local_day, weekday, DAY_MS, MONTH_NAMES as MONTHS, WEEKDAY_NAMES,
};
use crate::time::{parse_time, Grain, TimeExpr};

/// The time expression of `text` said at `at` (ms, UTC), if it names one. A weekday that
/// names a thing rather than a time ("my Tuesday class") is passed over.
pub fn find(text: &str, at: i64) -> Option<TimeExpr> {
    let mut from = 0;
    loop {
        let mut t = parse_time(&text[from..], at, 0)?;
        t.start += from;
        t.end += from;
        let bare_weekday = WEEKDAY_NAMES
            .iter()
            .any(|d| t.matched.eq_ignore_ascii_case(d));
        let next = text[t.end..].trim_start();
        let names_a_thing = bare_weekday
            && next.starts_with(char::is_alphabetic)
            && ![
                "and",
                "or",
                "morning",
                "afternoon",
                "evening",
                "night",
                "to",
                "at",
                "i",
                "we",
            ]
            .iter()
            .any(|w| next.to_ascii_lowercase().starts_with(w));
        if !names_a_thing {
            return Some(t);
        }
        from = t.end;
    }
}

fn day_text(ms: i64) -> String {
    let (y, m, d) = civil_from_days(local_day(ms, 0));
    std::format!("{d} {} {y}", MONTHS[(m as usize).saturating_sub(1).min(11)])
}

/// How an English statement names the range, without its preposition.
fn english_range(t: &TimeExpr) -> Option<(&'static str, String)> {
    let (y, m, _) = civil_from_days(local_day(t.since, 0));
    let month = MONTHS[(m as usize).saturating_sub(1).min(11)];
    Some(match t.grain {
        Grain::Day => ("on", day_text(t.since)),
        Grain::Week => ("in", std::format!("the week of {}", day_text(t.since))),
        Grain::Month => ("in", std::format!("{month} {y}")),
        Grain::Year => ("in", std::format!("{y}")),
        Grain::Span => {
            let saturday = weekday(local_day(t.since, 0)) == 5;
            if saturday && t.until - t.since == 2 * DAY_MS {
                ("on", std::format!("the weekend of {}", day_text(t.since)))
            } else {
                return None;
            }
        }
    })
}

/// `text` (English) with its time expression said at `at` resolved to a date.
pub fn resolve_english(text: &str, at: i64) -> String {
    let Some(t) = find(text, at) else {
        return text.into();
    };
    let Some((preposition, range)) = english_range(&t) else {
        return text.into();
    };
    let before = &text[..t.start];
    let lower_before = before.to_ascii_lowercase();
    let has_preposition = [
        "on ", "in ", "at ", "during ", "over ", "from ", "since ", "by ", "for ", "until ",
        "till ", "before ", "after ",
    ]
    .iter()
    .any(|p| lower_before.ends_with(p));
    let at_start = before.trim().is_empty();
    let phrase = if has_preposition {
        range
    } else if at_start {
        let mut p = String::from(preposition);
        p[..1].make_ascii_uppercase();
        std::format!("{p} {range}")
    } else {
        std::format!("{preposition} {range}")
    };
    std::format!("{before}{phrase}{}", &text[t.end..])
}

/// `text` (Chinese) with the date of its time expression said at `at` after it.
pub fn resolve_chinese(text: &str, at: i64) -> String {
    let Some(t) = find(text, at) else {
        return text.into();
    };
    let (y, m, d) = civil_from_days(local_day(t.since, 0));
    let date = match t.grain {
        Grain::Day => std::format!("{y}年{m}月{d}日"),
        Grain::Week => std::format!("{y}年{m}月{d}日那周"),
        Grain::Month => std::format!("{y}年{m}月"),
        Grain::Year => std::format!("{y}年"),
        Grain::Span => return text.into(),
    };
    std::format!("{}（{date}）{}", &text[..t.end], &text[t.end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 May 2023, 13:56 UTC (a Monday).
    const AT: i64 = 1_683_554_160_000;

    #[test]
    fn days_weeks_months_and_years_become_dates() {
        assert_eq!(
            resolve_english("I went to a support group yesterday", AT),
            "I went to a support group on 7 May 2023"
        );
        assert_eq!(
            resolve_english("Last Friday I went to a workshop", AT),
            "On 5 May 2023 I went to a workshop"
        );
        assert_eq!(
            resolve_english("I painted that lake sunrise last year", AT),
            "I painted that lake sunrise in 2022"
        );
        assert_eq!(
            resolve_english("we're going camping next month", AT),
            "we're going camping in June 2023"
        );
        assert_eq!(
            resolve_english("I ran a race on Saturday", AT),
            "I ran a race on 6 May 2023"
        );
        assert_eq!(
            resolve_english("I joined a program last weekend", AT),
            "I joined a program on the weekend of 6 May 2023"
        );
        assert_eq!(
            resolve_english("I've been busy recently", AT),
            "I've been busy recently"
        );
        assert_eq!(resolve_english("no time here", AT), "no time here");
    }

    #[test]
    fn chinese_dates_follow_the_expression() {
        assert_eq!(
            resolve_chinese("我昨天去了博物馆", AT),
            "我昨天（2023年5月7日）去了博物馆"
        );
    }
}
