//! The Chinese grammar: the scan, relative days, weeks and months, weekdays, guards.
//!
//! Chinese has no spaces, so every character position is tried, with the rules of this file,
//! of [`super::chinese_counts`] and of [`super::chinese_dates`]; the longest match is taken
//! (ties to the earlier rule) and the scan goes on after it.
//! - Days: `大前天` `前天` `昨天|昨日|昨儿` `今天|今日|今儿` `明天|明日|明儿` `后天` `大后天`
//!   (-3 to +3); `今早|今晨` this morning, `今晚|今夜` tonight, `昨晚|昨夜` last night,
//!   `明早` `明晚`. A day may be followed by a part of it: `早上|早晨|上午` (0–12), `中午`
//!   (11–14), `下午` (12–18), `傍晚` (17–20), `晚上|夜里|夜间` (18–24): `昨天下午`, `周一晚上`.
//! - Weeks: `上上|上|这|本|下|下下` + optional `个` + `周|星期|礼拜` is that ISO week
//!   (`上周`, `上个星期`, `这礼拜`, `下周`); followed by a weekday `一`…`六`, `日`, `天` (not
//!   `周天`) it is that day of the week (`上周一`, `这个星期五`), by `末` its weekend (`上周末`).
//!   A weekday or `周末` alone (`周一`, `星期天`, `礼拜三`, `周末`) is the most recent one not
//!   after today, as in English.
//! - Months: `上上个月` `上个月|上月` `本月|这个月|这月` `下个月|下月`, optionally with a day
//!   `5号`/`5日` of that month (`上个月5号`).
//! - Counts and spans (`三天前`, `过去三天`, `最近`) are in [`super::chinese_counts`].
//! - Since: `自从 X` and `X 以来|至今|到现在` run from X's start to now (`自从上周`,
//!   `五月以来`).
//! - A word is not read where its first character ends another word (`之前天气`, `然后天气`,
//!   `说明天气`, `如今年轻人`, `看一下周报`, `日本月`, `过去年轻时`; `马上周末` reads `周末`, not `上周末`), nor `周` where
//!   it starts one (`这周围`, `周年`, `周期`), nor weekday `一` before `起|次|些|样|直|般|切|
//!   共|定|同|道|块` (`上周一起`, `一个星期一次`). The guard is a short list per character
//!   ([`joins_before`]), not a lexicon: it also blocks the rare true reading (`经过去年`, *through
//!   last year*, loses `去年` to `过去`). `最近` as *nearest* (`离这里最近`) cannot be told from
//!   *recently* and is read as recently.
//!
//! Years, months and days by number are in [`super::chinese_dates`].

use super::chinese_lit::lit;
use std::vec::Vec;

use super::anchor::{part_of_day, Now, Resolved};
use super::numerals::{is_numeral, starts_number};
use super::{chinese_counts, chinese_dates, Found, Grain};
use crate::index::analyzer::is_cjk;

type Rule = fn(&str, usize, &Now) -> Option<(usize, Resolved)>;

const RULES: [Rule; 9] = [
    days,
    week,
    weekday,
    month,
    chinese_counts::ago,
    chinese_counts::span,
    chinese_dates::year_first,
    chinese_dates::month_first,
    chinese_dates::day_alone,
];
const PARTS: [(&str, i64, i64); 9] = [
    ("早上", 0, 12),
    ("早晨", 0, 12),
    ("上午", 0, 12),
    ("中午", 11, 14),
    ("下午", 12, 18),
    ("傍晚", 17, 20),
    ("晚上", 18, 24),
    ("夜里", 18, 24),
    ("夜间", 18, 24),
];

/// Every Chinese expression in `text`, leftmost-longest, none overlapping.
pub(crate) fn find(text: &str, now: &Now, out: &mut Vec<Found>) {
    let mut p = 0;
    while let Some(c) = text[p..].chars().next() {
        let mut hit = None;
        if is_cjk(c) || is_numeral(c) {
            if let Some((_, q)) = lit(text, p, &["自从"]) {
                hit = longest(text, q, now).map(|(e, r)| match now.since(r) {
                    Some(r) => (p, e, r, true),
                    None => (q, e, r, false),
                });
            }
            hit = hit.or_else(|| longest(text, p, now).map(|(e, r)| (p, e, r, false)));
        }
        let Some((start, mut end, mut r, since)) = hit else {
            p += c.len_utf8();
            continue;
        };
        if let Some((_, e)) = lit(text, end, &["以来", "至今", "到现在"]) {
            if since {
                end = e;
            } else if let Some(s) = now.since(r) {
                (r, end) = (s, e);
            }
        }
        out.push(Found { start, end, r });
        p = end;
    }
}

/// The longest match at byte `p` (ties to the earlier rule), narrowed by a part of the day.
fn longest(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    if joins_before(s, p) {
        return None;
    }
    let mut best: Option<(usize, Resolved)> = None;
    for rule in RULES {
        if let Some((e, r)) = rule(s, p, now) {
            if best.is_none_or(|(b, _)| e > b) {
                best = Some((e, r));
            }
        }
    }
    let (e, r) = best?;
    if r.grain == Grain::Day {
        if let Some((k, e)) = lit(s, e, &PARTS.map(|p| p.0)) {
            return Some((e, part_of_day(r, PARTS[k].1, PARTS[k].2)));
        }
    }
    best
}

/// Whether the character at `p` ends a word with the one before it (see the module docs).
fn joins_before(s: &str, p: usize) -> bool {
    let (Some(prev), Some(first)) = (s[..p].chars().next_back(), s[p..].chars().next()) else {
        return false;
    };
    let words = match first {
        '前' => "之以提目面眼当空跟从事向往生先",
        '后' => "然之以最随此今往背落先事午前过稍而其日",
        '明' => "说光文表证发声分简鲜透聪阐英标注查指讲写",
        '今' => "如至迄现古当",
        '上' => "马早晚路线网桌身手楼面以加之",
        '下' => "一以如底地手天乡",
        '本' => "日基根成资版剧课样账书原记",
        '去' => "过失出进回上下",
        '近' => "附接最靠将邻贴亲临就远",
        _ => "",
    };
    words.contains(prev)
}

fn days(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    const DAYS: [(&str, i64); 13] = [
        ("大前天", -3),
        ("大后天", 3),
        ("前天", -2),
        ("昨天", -1),
        ("昨日", -1),
        ("昨儿", -1),
        ("今天", 0),
        ("今日", 0),
        ("今儿", 0),
        ("明天", 1),
        ("明日", 1),
        ("明儿", 1),
        ("后天", 2),
    ];
    const PARTS_OF_DAYS: [(&str, i64, i64, i64); 8] = [
        ("今早", 0, 0, 12),
        ("今晨", 0, 0, 12),
        ("明早", 1, 0, 12),
        ("今晚", 0, 18, 24),
        ("今夜", 0, 18, 24),
        ("昨晚", -1, 18, 24),
        ("昨夜", -1, 18, 24),
        ("明晚", 1, 18, 24),
    ];
    if let Some((k, e)) = lit(s, p, &DAYS.map(|d| d.0)) {
        return Some((e, now.day(DAYS[k].1)));
    }
    let (k, e) = lit(s, p, &PARTS_OF_DAYS.map(|d| d.0))?;
    let (_, delta, from, to) = PARTS_OF_DAYS[k];
    Some((e, part_of_day(now.day(delta), from, to)))
}

/// `星期`, `礼拜` or `周` (not starting another word) at `p`: its index and end.
fn week_word(s: &str, p: usize) -> Option<(usize, usize)> {
    let (k, e) = lit(s, p, &["星期", "礼拜", "周"])?;
    let starts_word = s[e..].starts_with(|c: char| "围边年期到全密转岁长游".contains(c));
    (k != 2 || !starts_word).then_some((k, e))
}

/// A weekday character after a week word `k` at `p`: 0 = Monday … 6 = Sunday, and its end.
fn weekday_char(s: &str, p: usize, k: usize) -> Option<(u32, usize)> {
    let c = s[p..].chars().next()?;
    let wd = "一二三四五六日天".chars().position(|d| d == c)?;
    let end = p + c.len_utf8();
    let word = c == '一' && s[end..].starts_with(|n: char| "起次些样直般切共定同道块".contains(n));
    let zhou_tian = wd == 7 && k == 2;
    (!word && !zhou_tian).then_some((wd.min(6) as u32, end))
}

fn week(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    let (k, e) = lit(s, p, &["上上", "下下", "上", "下", "这", "本"])?;
    let delta = [-2, 2, -1, 1, 0, 0][k];
    let e = lit(s, e, &["个"]).filter(|_| k < 5).map_or(e, |(_, e)| e);
    let (w, e) = week_word(s, e)?;
    if let Some((wd, e)) = weekday_char(s, e, w) {
        return Some((e, now.weekday_in(delta, wd)));
    }
    match lit(s, e, &["末"]) {
        Some((_, e)) => Some((e, now.weekend_in(delta))),
        None => Some((e, now.week(delta))),
    }
}

fn weekday(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    if !starts_number(s, p) {
        return None;
    }
    let (w, e) = week_word(s, p)?;
    if let Some((wd, e)) = weekday_char(s, e, w) {
        return Some((e, now.weekday(wd)));
    }
    lit(s, e, &["末"]).map(|(_, e)| (e, now.weekend()))
}

fn month(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    const MONTHS: [(&str, i64); 8] = [
        ("上上个月", -2),
        ("上个月", -1),
        ("上月", -1),
        ("本月", 0),
        ("这个月", 0),
        ("这月", 0),
        ("下个月", 1),
        ("下月", 1),
    ];
    let (k, e) = lit(s, p, &MONTHS.map(|m| m.0))?;
    let delta = MONTHS[k].1;
    let day = chinese_dates::day_part(s, e);
    if let Some((r, e)) = day.and_then(|(d, e)| Some((now.day_of_month(delta, d)?, e))) {
        return Some((e, r));
    }
    Some((e, now.month(delta)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards() {
        assert!(joins_before("之前天气", 3));
        assert!(!joins_before("前天", 0));
        assert!(!joins_before("我前天", 3));
        assert_eq!(week_word("周围", 0), None);
        assert_eq!(week_word("星期年", 0), Some((0, 6)));
        assert_eq!(weekday_char("一起", 0, 2), None);
        assert_eq!(weekday_char("一下午", 0, 2), Some((0, 3)));
        assert_eq!(weekday_char("天", 0, 2), None);
        assert_eq!(weekday_char("天", 0, 0), Some((6, 3)));
        assert_eq!(lit("上个月", 0, &["上月", "上个月"]), Some((1, 9)));
    }
}
