//! The Chinese grammar of dates: years, months and days by number.
//!
//! M is a month 1..=12 and D a day 1..=31, in digits or numerals but never `两`
//! ([`super::numerals`]); a year is four digits (`2023年`), four numeral digits (`二〇二三年`)
//! or relative: `大前年` `前年` `去年` `今年` `明年` `后年` (-3 to +2).
//! - `YEAR`, `YEAR M月`, `YEAR M月 D日|号`: that year, month or date (`2023年5月8日`,
//!   `去年三月`, `今年5月8号`). `月份` is read as `月` (`三月份`). A date that does not exist
//!   falls back to its month (`2023年2月30日` reads `2023年2月`).
//! - `M月` and `M月 D日|号` without a year: the most recent such month not in the future and
//!   the most recent such date not after today (`三月`, `3月`, `5月8日`).
//! - `D号` alone: the most recent day D of a month not after today (`5号`), but not before a
//!   character that makes it a number of something (`5号楼`, `3号线`, `8号床` …, see
//!   [`day_alone`]) nor after `第` (`第3号文件`). `D日` alone is not read: `三日` is as
//!   often *three days*.
//! - Two-digit years (`23年`) are not read: `3年` and `23年` are as often durations.

use super::anchor::{Now, Rel, Resolved};
use super::chinese_lit::lit;
use super::numerals::{zh_number, zh_year};

/// A day `D日` or `D号` at `p`: the day and the byte after it.
pub(crate) fn day_part(s: &str, p: usize) -> Option<(u32, usize)> {
    let (d, e) = zh_number(s, p, false)?;
    let (_, e) = lit(s, e, &["日", "号"])?;
    (1..=31).contains(&d).then_some((d, e))
}

/// A month `M月` or `M月份` at `p`: the month and the byte after it.
fn month_part(s: &str, p: usize) -> Option<(u32, usize)> {
    let (m, e) = zh_number(s, p, false)?;
    let (_, e) = lit(s, e, &["月份", "月"])?;
    (1..=12).contains(&m).then_some((m, e))
}

/// A year at `p`: its number, whether it was relative (and then its offset), and its end.
fn year_part(s: &str, p: usize, now: &Now) -> Option<(i64, Option<i64>, usize)> {
    const YEARS: [(&str, i64); 6] = [
        ("大前年", -3),
        ("前年", -2),
        ("去年", -1),
        ("今年", 0),
        ("明年", 1),
        ("后年", 2),
    ];
    if let Some((k, e)) = lit(s, p, &YEARS.map(|y| y.0)) {
        let delta = YEARS[k].1;
        return Some((now.year_number(delta), Some(delta), e));
    }
    let digits = zh_number(s, p, false)
        .map(|(y, e)| (i64::from(y), e))
        .filter(|(y, _)| (1000..=9999).contains(y));
    let (y, e) = digits.or_else(|| zh_year(s, p))?;
    let (_, e) = lit(s, e, &["年"])?;
    Some((y, None, e))
}

pub(crate) fn year_first(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    let (y, relative, e) = year_part(s, p, now)?;
    if let Some((m, e)) = month_part(s, e) {
        let day = day_part(s, e).and_then(|(d, e)| Some((now.date(y, m, d)?, e)));
        if let Some((r, e)) = day {
            return Some((e, r));
        }
        return Some((e, now.month_of(y, m)?));
    }
    let r = match relative {
        Some(delta) => now.year(delta),
        None => now.year_of(y)?,
    };
    Some((e, r))
}

pub(crate) fn month_first(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    let (m, e) = month_part(s, p)?;
    let day = day_part(s, e).and_then(|(d, e)| Some((now.recent_date(m, d)?, e)));
    if let Some((r, e)) = day {
        return Some((e, r));
    }
    Some((e, now.named_month(m, Rel::Recent)?))
}

/// `D号` alone, unless the next character makes it a number of something or `第` (an
/// ordinal) comes before it.
pub(crate) fn day_alone(s: &str, p: usize, now: &Now) -> Option<(usize, Resolved)> {
    const COUNTED: &str = "楼线房院门车机位桌床口窗店馆厅柜箱码字球屋间厂站台";
    let (d, e) = zh_number(s, p, false)?;
    let (_, e) = lit(s, e, &["号"])?;
    let ordinal = s[..p].ends_with('第');
    if !(1..=31).contains(&d) || ordinal || s[e..].starts_with(|c: char| COUNTED.contains(c)) {
        return None;
    }
    Some((e, now.recent_day_of_month(d)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts() {
        assert_eq!(day_part("8日", 0), Some((8, 4)));
        assert_eq!(day_part("三十一号", 0), Some((31, 12)));
        assert_eq!(day_part("32号", 0), None);
        assert_eq!(day_part("两号", 0), None);
        assert_eq!(month_part("十二月份", 0), Some((12, 12)));
        assert_eq!(month_part("13月", 0), None);
        let now = Now::new(1_710_428_400_000, 0);
        assert_eq!(year_part("二零二三年", 0, &now), Some((2023, None, 15)));
        assert_eq!(year_part("去年", 0, &now), Some((2023, Some(-1), 6)));
        assert_eq!(year_part("23年", 0, &now), None);
        assert_eq!(day_alone("8号床", 0, &now), None);
        assert!(day_alone("8号的会", 0, &now).is_some());
    }
}
