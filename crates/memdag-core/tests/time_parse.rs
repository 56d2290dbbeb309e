//! Time expressions in queries, English and Chinese, resolved against a fixed now:
//! Thursday 2024-03-14T15:00:00Z, in UTC unless a table says otherwise.
//!
//! Each table line is `query | matched | since | until | grain`, with `since` and `until` as
//! local `YYYY-MM-DD` or `YYYY-MM-DDThh:mm`; `#` starts a comment line.

use memdag_core::time::{civil, parse_time, Grain, TimeExpr};
use proptest::prelude::*;

/// 2024-03-14T15:00:00Z, a Thursday.
const NOW: i64 = 1_710_428_400_000;
const HOUR: i64 = 3_600_000;

/// A time as the local `YYYY-MM-DD`, with `Thh:mm` when it is not midnight.
fn at(ms: i64, off: i32) -> String {
    let t = (ms + i64::from(off) * 60_000).rem_euclid(civil::DAY_MS);
    let day = civil::format_day(ms, off);
    if t == 0 {
        day
    } else {
        format!("{day}T{:02}:{:02}", t / HOUR, t / 60_000 % 60)
    }
}

fn grain(name: &str) -> Grain {
    match name {
        "day" => Grain::Day,
        "week" => Grain::Week,
        "month" => Grain::Month,
        "year" => Grain::Year,
        "span" => Grain::Span,
        _ => panic!("no grain {name:?}"),
    }
}

/// Every line of `table` resolves as it says at `now` in the offset `off`.
fn check(table: &str, now: i64, off: i32) {
    let lines = table.lines().map(str::trim);
    for line in lines.filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let [query, matched, since, until, g] = cells[..] else {
            panic!("bad table line {line:?}");
        };
        let t = parse_time(query, now, off).unwrap_or_else(|| panic!("{query:?}: nothing"));
        let got = (
            t.matched.as_str(),
            at(t.since, off),
            at(t.until, off),
            t.grain,
        );
        let want = (matched, since.to_string(), until.to_string(), grain(g));
        assert_eq!(got, want, "{query:?}");
        assert_eq!(&query[t.start..t.end], t.matched, "{query:?}");
    }
}

/// Relative days and parts of days.
const ENGLISH_DAYS: &str = "
what did we do today | today | 2024-03-14 | 2024-03-15 | day
TODAY | TODAY | 2024-03-14 | 2024-03-15 | day
what's on tonight | tonight | 2024-03-14T18:00 | 2024-03-15 | span
this morning | this morning | 2024-03-14 | 2024-03-14T12:00 | span
this afternoon | this afternoon | 2024-03-14T12:00 | 2024-03-14T18:00 | span
this evening | this evening | 2024-03-14T18:00 | 2024-03-15 | span
yesterday | yesterday | 2024-03-13 | 2024-03-14 | day
last night | last night | 2024-03-13T18:00 | 2024-03-14 | span
yesterday afternoon | yesterday afternoon | 2024-03-13T12:00 | 2024-03-13T18:00 | span
the day before yesterday | the day before yesterday | 2024-03-12 | 2024-03-13 | day
day before yesterday | day before yesterday | 2024-03-12 | 2024-03-13 | day
tomorrow | tomorrow | 2024-03-15 | 2024-03-16 | day
the day after tomorrow | the day after tomorrow | 2024-03-16 | 2024-03-17 | day
earlier today | earlier today | 2024-03-14 | 2024-03-14T15:00 | span
today's special | today | 2024-03-14 | 2024-03-15 | day
# `Sunday school` is read as a Sunday (documented).
sunday school | sunday | 2024-03-10 | 2024-03-11 | day
";

/// `N UNIT ago`: the calendar unit N back; a few: the units 2 to 5 back.
const ENGLISH_AGO: &str = "
two days ago | two days ago | 2024-03-12 | 2024-03-13 | day
1 day ago | 1 day ago | 2024-03-13 | 2024-03-14 | day
a day ago | a day ago | 2024-03-13 | 2024-03-14 | day
3 weeks ago | 3 weeks ago | 2024-02-19 | 2024-02-26 | week
a week ago | a week ago | 2024-03-04 | 2024-03-11 | week
a month ago | a month ago | 2024-02-01 | 2024-03-01 | month
one year ago | one year ago | 2023-01-01 | 2024-01-01 | year
two years ago | two years ago | 2022-01-01 | 2023-01-01 | year
a couple of days ago | a couple of days ago | 2024-03-12 | 2024-03-13 | day
a couple weeks ago | a couple weeks ago | 2024-02-26 | 2024-03-04 | week
twelve days ago | twelve days ago | 2024-03-02 | 2024-03-03 | day
Twenty days ago | Twenty days ago | 2024-02-23 | 2024-02-24 | day
twenty-one days ago | twenty-one days ago | 2024-02-22 | 2024-02-23 | day
twenty one days ago | twenty one days ago | 2024-02-22 | 2024-02-23 | day
100 days ago | 100 days ago | 2023-12-05 | 2023-12-06 | day
a few days ago | a few days ago | 2024-03-09 | 2024-03-13 | span
several weeks ago | several weeks ago | 2024-02-05 | 2024-03-04 | span
an hour ago | an hour ago | 2024-03-14T14:00 | 2024-03-14T15:00 | span
3 hours ago | 3 hours ago | 2024-03-14T12:00 | 2024-03-14T13:00 | span
";

/// Calendar weeks, months, years and weekends; spans ending now.
const ENGLISH_UNITS_AND_SPANS: &str = "
last week | last week | 2024-03-04 | 2024-03-11 | week
the previous week | the previous week | 2024-03-07T15:00 | 2024-03-14T15:00 | span
this week | this week | 2024-03-11 | 2024-03-18 | week
next week | next week | 2024-03-18 | 2024-03-25 | week
last month | last month | 2024-02-01 | 2024-03-01 | month
this month | this month | 2024-03-01 | 2024-04-01 | month
next month | next month | 2024-04-01 | 2024-05-01 | month
last year | last year | 2023-01-01 | 2024-01-01 | year
this year | this year | 2024-01-01 | 2025-01-01 | year
next year | next year | 2025-01-01 | 2026-01-01 | year
last weekend | last weekend | 2024-03-09 | 2024-03-11 | span
this weekend | this weekend | 2024-03-16 | 2024-03-18 | span
next weekend | next weekend | 2024-03-23 | 2024-03-25 | span
over the weekend | the weekend | 2024-03-09 | 2024-03-11 | span
this past weekend | this past weekend | 2024-03-09 | 2024-03-11 | span
in the past 3 days | the past 3 days | 2024-03-11T15:00 | 2024-03-14T15:00 | span
over the last two weeks | the last two weeks | 2024-02-29T15:00 | 2024-03-14T15:00 | span
past 2 months | past 2 months | 2024-01-14T15:00 | 2024-03-14T15:00 | span
the last year | the last year | 2023-03-14T15:00 | 2024-03-14T15:00 | span
the past week | the past week | 2024-03-07T15:00 | 2024-03-14T15:00 | span
in the last 24 hours | the last 24 hours | 2024-03-13T15:00 | 2024-03-14T15:00 | span
last few days | last few days | 2024-03-11T15:00 | 2024-03-14T15:00 | span
recently | recently | 2024-03-07T15:00 | 2024-03-14T15:00 | span
what did I do lately | lately | 2024-03-07T15:00 | 2024-03-14T15:00 | span
earlier this week | earlier this week | 2024-03-11 | 2024-03-14T15:00 | span
earlier this month | earlier this month | 2024-03-01 | 2024-03-14T15:00 | span
since Monday | since Monday | 2024-03-11 | 2024-03-14T15:00 | span
since last week | since last week | 2024-03-04 | 2024-03-14T15:00 | span
since 2022 | since 2022 | 2022-01-01 | 2024-03-14T15:00 | span
";

/// Alone: the most recent such day not after today. With last/this/next: that day of the
/// previous, current or next ISO week (weeks start on Monday).
const ENGLISH_WEEKDAYS: &str = "
on Monday | Monday | 2024-03-11 | 2024-03-12 | day
last Monday | last Monday | 2024-03-04 | 2024-03-05 | day
this Monday | this Monday | 2024-03-11 | 2024-03-12 | day
next Monday | next Monday | 2024-03-18 | 2024-03-19 | day
on Thursday | Thursday | 2024-03-14 | 2024-03-15 | day
last Thursday | last Thursday | 2024-03-07 | 2024-03-08 | day
Friday | Friday | 2024-03-08 | 2024-03-09 | day
this Friday | this Friday | 2024-03-15 | 2024-03-16 | day
the previous Friday | the previous Friday | 2024-03-08 | 2024-03-09 | day
on Sunday | Sunday | 2024-03-10 | 2024-03-11 | day
Wednesday | Wednesday | 2024-03-13 | 2024-03-14 | day
Monday morning | Monday morning | 2024-03-11 | 2024-03-11T12:00 | span
last Tuesday evening | last Tuesday evening | 2024-03-05T18:00 | 2024-03-06 | span
";

/// Month names, numeric dates and years.
const ENGLISH_DATES: &str = "
in May 2023 | May 2023 | 2023-05-01 | 2023-06-01 | month
May, 2023 | May, 2023 | 2023-05-01 | 2023-06-01 | month
May of 2022 | May of 2022 | 2022-05-01 | 2022-06-01 | month
# The most recent such month not in the future; the current one counts.
in May | May | 2023-05-01 | 2023-06-01 | month
in March | March | 2024-03-01 | 2024-04-01 | month
mid-March | March | 2024-03-01 | 2024-04-01 | month
during April | April | 2023-04-01 | 2023-05-01 | month
February | February | 2024-02-01 | 2024-03-01 | month
last May | last May | 2023-05-01 | 2023-06-01 | month
last March | last March | 2023-03-01 | 2023-04-01 | month
this May | this May | 2024-05-01 | 2024-06-01 | month
next May | next May | 2024-05-01 | 2024-06-01 | month
next February | next February | 2025-02-01 | 2025-03-01 | month
in Dec. | Dec. | 2023-12-01 | 2024-01-01 | month
May 8, 2023 | May 8, 2023 | 2023-05-08 | 2023-05-09 | day
May 8 2023 | May 8 2023 | 2023-05-08 | 2023-05-09 | day
8 May 2023 | 8 May 2023 | 2023-05-08 | 2023-05-09 | day
the 8th of May, 2023 | the 8th of May, 2023 | 2023-05-08 | 2023-05-09 | day
May 8th | May 8th | 2023-05-08 | 2023-05-09 | day
8th May | 8th May | 2023-05-08 | 2023-05-09 | day
on 8 May | 8 May | 2023-05-08 | 2023-05-09 | day
8 June | 8 June | 2023-06-08 | 2023-06-09 | day
March 3rd | March 3rd | 2024-03-03 | 2024-03-04 | day
March 20 | March 20 | 2023-03-20 | 2023-03-21 | day
Feb 29 | Feb 29 | 2024-02-29 | 2024-03-01 | day
Dec. 25 | Dec. 25 | 2023-12-25 | 2023-12-26 | day
Sept 1st | Sept 1st | 2023-09-01 | 2023-09-02 | day
on the 5th | the 5th | 2024-03-05 | 2024-03-06 | day
on the 31st | the 31st | 2024-01-31 | 2024-02-01 | day
2023-05-08 | 2023-05-08 | 2023-05-08 | 2023-05-09 | day
2023/05/08 | 2023/05/08 | 2023-05-08 | 2023-05-09 | day
2023.5.8 | 2023.5.8 | 2023-05-08 | 2023-05-09 | day
at 2023-05-08T13:56:00Z | 2023-05-08 | 2023-05-08 | 2023-05-09 | day
05/2023 | 05/2023 | 2023-05-01 | 2023-06-01 | month
2023-05 | 2023-05 | 2023-05-01 | 2023-06-01 | month
08.05.2023 | 08.05.2023 | 2023-05-08 | 2023-05-09 | day
13/05/2023 | 13/05/2023 | 2023-05-13 | 2023-05-14 | day
05/13/2023 | 05/13/2023 | 2023-05-13 | 2023-05-14 | day
05/05/2023 | 05/05/2023 | 2023-05-05 | 2023-05-06 | day
in 2022 | 2022 | 2022-01-01 | 2023-01-01 | year
In 1999 | 1999 | 1999-01-01 | 2000-01-01 | year
the year 2022 | the year 2022 | 2022-01-01 | 2023-01-01 | year
";

/// Relative days, weeks, months and years.
const CHINESE_RELATIVE: &str = "
今天做了什么 | 今天 | 2024-03-14 | 2024-03-15 | day
今日 | 今日 | 2024-03-14 | 2024-03-15 | day
今晚的计划 | 今晚 | 2024-03-14T18:00 | 2024-03-15 | span
今早 | 今早 | 2024-03-14 | 2024-03-14T12:00 | span
昨天 | 昨天 | 2024-03-13 | 2024-03-14 | day
昨日 | 昨日 | 2024-03-13 | 2024-03-14 | day
昨晚 | 昨晚 | 2024-03-13T18:00 | 2024-03-14 | span
昨天下午 | 昨天下午 | 2024-03-13T12:00 | 2024-03-13T18:00 | span
前天 | 前天 | 2024-03-12 | 2024-03-13 | day
大前天 | 大前天 | 2024-03-11 | 2024-03-12 | day
明天 | 明天 | 2024-03-15 | 2024-03-16 | day
上周 | 上周 | 2024-03-04 | 2024-03-11 | week
上星期 | 上星期 | 2024-03-04 | 2024-03-11 | week
上个星期 | 上个星期 | 2024-03-04 | 2024-03-11 | week
上礼拜 | 上礼拜 | 2024-03-04 | 2024-03-11 | week
本周 | 本周 | 2024-03-11 | 2024-03-18 | week
这周 | 这周 | 2024-03-11 | 2024-03-18 | week
这个星期 | 这个星期 | 2024-03-11 | 2024-03-18 | week
下周 | 下周 | 2024-03-18 | 2024-03-25 | week
上上周 | 上上周 | 2024-02-26 | 2024-03-04 | week
上个月 | 上个月 | 2024-02-01 | 2024-03-01 | month
上月 | 上月 | 2024-02-01 | 2024-03-01 | month
本月 | 本月 | 2024-03-01 | 2024-04-01 | month
这个月 | 这个月 | 2024-03-01 | 2024-04-01 | month
下个月 | 下个月 | 2024-04-01 | 2024-05-01 | month
上个月5号 | 上个月5号 | 2024-02-05 | 2024-02-06 | day
去年 | 去年 | 2023-01-01 | 2024-01-01 | year
今年 | 今年 | 2024-01-01 | 2025-01-01 | year
前年 | 前年 | 2022-01-01 | 2023-01-01 | year
明年 | 明年 | 2025-01-01 | 2026-01-01 | year
2022年 | 2022年 | 2022-01-01 | 2023-01-01 | year
";

/// Dates by number, counts, spans, weekdays and weekends.
const CHINESE_DATES_COUNTS_WEEKDAYS: &str = "
# A month alone: the most recent such month not in the future.
三月 | 三月 | 2024-03-01 | 2024-04-01 | month
3月 | 3月 | 2024-03-01 | 2024-04-01 | month
五月份 | 五月份 | 2023-05-01 | 2023-06-01 | month
十二月 | 十二月 | 2023-12-01 | 2024-01-01 | month
2023年5月 | 2023年5月 | 2023-05-01 | 2023-06-01 | month
二〇二三年五月 | 二〇二三年五月 | 2023-05-01 | 2023-06-01 | month
去年三月 | 去年三月 | 2023-03-01 | 2023-04-01 | month
2023年5月8日 | 2023年5月8日 | 2023-05-08 | 2023-05-09 | day
２０２３年５月８日 | ２０２３年５月８日 | 2023-05-08 | 2023-05-09 | day
5月8日 | 5月8日 | 2023-05-08 | 2023-05-09 | day
三月一号 | 三月一号 | 2024-03-01 | 2024-03-02 | day
5号 | 5号 | 2024-03-05 | 2024-03-06 | day
20号 | 20号 | 2024-02-20 | 2024-02-21 | day
三天前 | 三天前 | 2024-03-11 | 2024-03-12 | day
3天前 | 3天前 | 2024-03-11 | 2024-03-12 | day
十天前 | 十天前 | 2024-03-04 | 2024-03-05 | day
十一天前 | 十一天前 | 2024-03-03 | 2024-03-04 | day
二十天前 | 二十天前 | 2024-02-23 | 2024-02-24 | day
二十一天以前 | 二十一天以前 | 2024-02-22 | 2024-02-23 | day
两周前 | 两周前 | 2024-02-26 | 2024-03-04 | week
三个星期前 | 三个星期前 | 2024-02-19 | 2024-02-26 | week
两个月前 | 两个月前 | 2024-01-01 | 2024-02-01 | month
三个小时前 | 三个小时前 | 2024-03-14T12:00 | 2024-03-14T13:00 | span
过去24小时 | 过去24小时 | 2024-03-13T15:00 | 2024-03-14T15:00 | span
一年前 | 一年前 | 2023-01-01 | 2024-01-01 | year
几天前 | 几天前 | 2024-03-09 | 2024-03-13 | span
前几天 | 前几天 | 2024-03-09 | 2024-03-13 | span
这两天 | 这两天 | 2024-03-11T15:00 | 2024-03-14T15:00 | span
最近 | 最近 | 2024-03-07T15:00 | 2024-03-14T15:00 | span
近来 | 近来 | 2024-03-07T15:00 | 2024-03-14T15:00 | span
过去三天 | 过去三天 | 2024-03-11T15:00 | 2024-03-14T15:00 | span
最近两周 | 最近两周 | 2024-02-29T15:00 | 2024-03-14T15:00 | span
过去的一个月里 | 过去的一个月里 | 2024-02-14T15:00 | 2024-03-14T15:00 | span
自从上周 | 自从上周 | 2024-03-04 | 2024-03-14T15:00 | span
五月以来 | 五月以来 | 2023-05-01 | 2024-03-14T15:00 | span
上周一 | 上周一 | 2024-03-04 | 2024-03-05 | day
周一 | 周一 | 2024-03-11 | 2024-03-12 | day
星期一 | 星期一 | 2024-03-11 | 2024-03-12 | day
礼拜一 | 礼拜一 | 2024-03-11 | 2024-03-12 | day
周四 | 周四 | 2024-03-14 | 2024-03-15 | day
星期天 | 星期天 | 2024-03-10 | 2024-03-11 | day
这周五 | 这周五 | 2024-03-15 | 2024-03-16 | day
下周一下午 | 下周一下午 | 2024-03-18T12:00 | 2024-03-18T18:00 | span
上个礼拜三 | 上个礼拜三 | 2024-03-06 | 2024-03-07 | day
上周末 | 上周末 | 2024-03-09 | 2024-03-11 | span
这周末 | 这周末 | 2024-03-16 | 2024-03-18 | span
周末 | 周末 | 2024-03-09 | 2024-03-11 | span
# 一起 is together: the week is read, not its Monday.
上周一起吃饭 | 上周 | 2024-03-04 | 2024-03-11 | week
";

/// At 2024-03-14T20:00Z, which is Friday 2024-03-15 04:00 in UTC+8.
const EAST: &str = "
today | today | 2024-03-15 | 2024-03-16 | day
yesterday | yesterday | 2024-03-14 | 2024-03-15 | day
on Friday | Friday | 2024-03-15 | 2024-03-16 | day
this week | this week | 2024-03-11 | 2024-03-18 | week
昨天 | 昨天 | 2024-03-14 | 2024-03-15 | day
过去三天 | 过去三天 | 2024-03-12T04:00 | 2024-03-15T04:00 | span
";

/// At 2024-03-15T02:00Z, which is Thursday 2024-03-14 21:00 in UTC-5.
const WEST: &str = "
today | today | 2024-03-14 | 2024-03-15 | day
tonight | tonight | 2024-03-14T18:00 | 2024-03-15 | span
Friday | Friday | 2024-03-08 | 2024-03-09 | day
今天 | 今天 | 2024-03-14 | 2024-03-15 | day
周五 | 周五 | 2024-03-08 | 2024-03-09 | day
";

/// At 2024-03-31T20:00Z, which is already April in UTC+8.
const EAST_NEW_MONTH: &str = "
this month | this month | 2024-04-01 | 2024-05-01 | month
上个月 | 上个月 | 2024-03-01 | 2024-04-01 | month
in April | April | 2024-04-01 | 2024-05-01 | month
";

#[test]
fn english_days_counts_units_and_spans() {
    check(ENGLISH_DAYS, NOW, 0);
    check(ENGLISH_AGO, NOW, 0);
    check(ENGLISH_UNITS_AND_SPANS, NOW, 0);
}

#[test]
fn english_weekdays_and_dates() {
    check(ENGLISH_WEEKDAYS, NOW, 0);
    check(ENGLISH_DATES, NOW, 0);
}

#[test]
fn chinese_forms() {
    check(CHINESE_RELATIVE, NOW, 0);
    check(CHINESE_DATES_COUNTS_WEEKDAYS, NOW, 0);
}

#[test]
fn offsets_east_and_west_of_utc() {
    let east = NOW + 5 * HOUR;
    check(EAST, east, 480);
    let today = parse_time("today", east, 480).unwrap();
    assert_eq!(today.since, 1_710_432_000_000); // 2024-03-14T16:00Z
    assert_eq!(today.until - today.since, civil::DAY_MS);
    assert_eq!(
        parse_time("today", east, 0).unwrap().since,
        1_710_374_400_000
    );

    let west = NOW + 11 * HOUR;
    check(WEST, west, -300);
    let today = parse_time("today", west, -300).unwrap();
    assert_eq!(today.since, 1_710_392_400_000); // 2024-03-14T05:00Z
                                                // In UTC it is already Friday there.
    assert_eq!(
        at(parse_time("Friday", west, 0).unwrap().since, 0),
        "2024-03-15"
    );

    let april = 1_711_915_200_000;
    check(EAST_NEW_MONTH, april, 480);
    assert_eq!(
        at(parse_time("in April", april, 0).unwrap().since, 0),
        "2023-04-01"
    );
}

/// Words that only look like times, and forms the grammar does not read.
const NOTHING: &str = "
nothing to resolve here
may I ask what we decided
I may go to the store
March on
the march on Washington
the top 3 may fail
3 May
Mayfair
yesterdays
wait a second
a second ago
on Mondays
one day I will
in the past
last time
the day before
the 1st thing to check
05/08/2023
1.2023.05.08
2023-05-08-17
February 30
May 32
in 1850
一周一次
这周围有什么
之前天气很好
然后天气变冷
说明天气
如今年轻人
看一下周报
以上周报的内容
日本月亮
5号楼
3号线
第3号文件
";

#[test]
fn words_that_only_look_like_times() {
    assert_eq!(parse_time("", NOW, 0), None);
    for q in NOTHING.lines().filter(|l| !l.is_empty()) {
        assert_eq!(parse_time(q, NOW, 0), None, "{q:?}");
    }
}

#[test]
fn the_most_specific_expression_wins() {
    let t = |q: &str| parse_time(q, NOW, 0).unwrap().matched;
    assert_eq!(t("last week and yesterday"), "yesterday");
    assert_eq!(t("in May 2023, on 2023-05-08"), "2023-05-08");
    assert_eq!(t("this year, in March"), "March");
    // Ties go to the first.
    assert_eq!(t("yesterday or tomorrow"), "yesterday");
    assert_eq!(t("上个月和昨天"), "昨天");
    assert_eq!(t("last week or 上周"), "last week");
    assert_eq!(t("上周 or last week"), "上周");
}

#[test]
fn byte_spans_in_cjk_and_mixed_text() {
    let q = "我们上周一开会讨论了什么";
    let t = parse_time(q, NOW, 0).unwrap();
    assert_eq!((t.start, t.end, t.matched.as_str()), (6, 15, "上周一"));
    assert_eq!(t.remainder(q), "我们开会讨论了什么");

    let q = "张三 said what about 备份 yesterday？";
    let t = parse_time(q, NOW, 0).unwrap();
    assert_eq!((t.start, t.end), (30, 39));
    assert_eq!(&q[t.start..t.end], "yesterday");
    assert_eq!(t.remainder(q), "张三 said what about 备份？");

    let q = "在2023年5月8日，我们做了什么";
    let t = parse_time(q, NOW, 0).unwrap();
    assert_eq!((t.start, t.end, t.grain), (3, 18, Grain::Day));
    assert_eq!(t.remainder(q), "我们做了什么");
}

#[test]
fn remainder_drops_the_expression_and_its_preposition() {
    let r = |q: &str| parse_time(q, NOW, 0).unwrap().remainder(q);
    assert_eq!(r("what did we do in the past 3 days"), "what did we do");
    assert_eq!(
        r("notes from May 2023 about backups"),
        "notes about backups"
    );
    assert_eq!(
        r("what did ada say about backups yesterday?"),
        "what did ada say about backups?"
    );
    assert_eq!(r("Yesterday, what did I say"), "what did I say");
    assert_eq!(r("yesterday's plan"), "plan");
    assert_eq!(
        r("what changed since   Monday  in the repo"),
        "what changed in the repo"
    );
    assert_eq!(r("during last week the deploy failed"), "the deploy failed");
    assert_eq!(r("我在上周讨论了什么"), "我讨论了什么");
    assert_eq!(r("昨天的会议记录"), "会议记录");
    assert_eq!(r("从上个月开始的bug"), "开始的bug");
    // The 在 of 现在 is not a preposition.
    assert_eq!(r("现在上周的任务"), "现在任务");
    assert_eq!(r("today"), "");
    // A span that is not the text's leaves the text whole, tidied.
    let t = parse_time("yesterday", NOW, 0).unwrap();
    assert_eq!(t.remainder("ab"), "ab");
    assert_eq!(t.remainder("  a   b "), "a b");
}

#[test]
fn out_of_range_inputs_give_none() {
    assert_eq!(parse_time("today", i64::MAX, 0), None);
    assert_eq!(parse_time("today", i64::MIN, 0), None);
    assert_eq!(parse_time("today", NOW, 24 * 60 + 1), None);
    assert!(parse_time("today", NOW, -24 * 60).is_some());
}

#[test]
fn time_expr_round_trips_with_a_lower_case_grain() {
    let e: TimeExpr = parse_time("today", NOW, 0).unwrap();
    let bytes = rmp_serde::to_vec_named(&e).unwrap();
    assert_eq!(rmp_serde::from_slice::<TimeExpr>(&bytes).unwrap(), e);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("grain") && text.contains("day") && !text.contains("Day"));
}

/// Pieces of time expressions, glued at random into text that nearly parses.
const PIECES: &str = "May may 8 8th 2023 - / . , the last past next this ago days week a couple \
    of few twenty one since in Monday morning today yesterday T 上 周 一 个 月 年 号 日 天 前 几 两 \
    十 最近 过去 自从 以来 的 在 末 5 ３ 二〇二三 早上 下午 小时 é 🙂";

fn checked(text: &str, now: i64, off: i32) -> Result<(), TestCaseError> {
    if let Some(t) = parse_time(text, now, off) {
        prop_assert!(t.since < t.until, "{:?} {:?}", text, t);
        prop_assert!(text.is_char_boundary(t.start) && text.is_char_boundary(t.end));
        prop_assert_eq!(&text[t.start..t.end], t.matched.as_str());
        prop_assert!(t.remainder(text).len() <= text.len());
    }
    Ok(())
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(
        text in any::<String>(),
        now in -8_640_000_000_000_000i64..=8_640_000_000_000_000,
        off in -1440i32..=1440,
    ) {
        checked(&text, now, off)?;
    }

    #[test]
    fn never_panics_on_time_like_text(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..14),
        spaced in any::<bool>(),
        now in -8_640_000_000_000_000i64..=8_640_000_000_000_000,
        off in -1440i32..=1440,
    ) {
        let pieces: Vec<&str> = PIECES.split_whitespace().collect();
        let chosen: Vec<&str> = picks.iter().map(|i| *i.get(&pieces)).collect();
        let text = chosen.join(if spaced { " " } else { "" });
        checked(&text, now, off)?;
        checked(&text, NOW, 0)?;
    }
}
