//! Numerals: the numbers a time expression counts with.
//!
//! - English number words: `one` … `nineteen` and the tens `twenty` … `ninety`
//!   ([`english_word`]); the English grammar joins a ten and a unit, `twenty one` or
//!   `twenty-one`, and reads digits itself.
//! - Digits in Chinese text: ASCII `0-9` and fullwidth `０-９`, up to four of them, and not
//!   when a fifth digit follows ([`zh_number`]).
//! - Chinese numerals up to 99: `一` … `九`, `十`, `十一` … `十九`, `二十`, `二十一` … `九十九`,
//!   with `〇`/`零` as zero; `两` is 2 only where a count is read (`两天前`), never in a month
//!   or day name. A year may be written digit by digit, `二〇二三` or `二零二三`
//!   ([`zh_year`]).
//! - A number does not start right after another numeral character ([`is_numeral`]), so the
//!   `二月` inside `十二月` or `123月` is never read on its own.

/// The value of an English number word, `one` to `nineteen` or a ten to `ninety`.
pub(crate) fn english_word(word: &str) -> Option<i64> {
    const WORDS: &str = "one two three four five six seven eight nine ten eleven twelve \
        thirteen fourteen fifteen sixteen seventeen eighteen nineteen";
    const TENS: &str = "twenty thirty forty fifty sixty seventy eighty ninety";
    let find = |list: &str| {
        list.split_whitespace()
            .position(|w| w.eq_ignore_ascii_case(word))
    };
    find(WORDS)
        .map(|i| i as i64 + 1)
        .or_else(|| find(TENS).map(|i| 20 + 10 * i as i64))
}

/// The value of a digit character, ASCII or fullwidth.
fn digit(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(c as u32 - '0' as u32),
        '０'..='９' => Some(c as u32 - '０' as u32),
        _ => None,
    }
}

/// The value of a Chinese digit character, 〇/零 to 九.
fn zh_digit(c: char) -> Option<u32> {
    "〇一二三四五六七八九"
        .chars()
        .position(|d| d == c)
        .map(|i| i as u32)
        .or((c == '零').then_some(0))
}

/// Whether `c` belongs to a number: a digit or a Chinese numeral character.
pub(crate) fn is_numeral(c: char) -> bool {
    digit(c).is_some() || zh_digit(c).is_some() || "十两百千万几".contains(c)
}

/// Whether a number may start at byte `p`: the character before is no numeral.
pub(crate) fn starts_number(s: &str, p: usize) -> bool {
    !s[..p].chars().next_back().is_some_and(is_numeral)
}

/// A number at byte `p` of `s` and the byte after it: up to four digits, or a Chinese
/// numeral up to 99 (with `liang`, also `两` = 2).
pub(crate) fn zh_number(s: &str, p: usize, liang: bool) -> Option<(u32, usize)> {
    if !starts_number(s, p) {
        return None;
    }
    let rest = &s[p..];
    let digits = rest.chars().take_while(|&c| digit(c).is_some());
    let (count, len) = digits.fold((0, 0), |(n, len), c| (n + 1, len + c.len_utf8()));
    if count > 4 {
        return None;
    }
    if count > 0 {
        let value = rest[..len]
            .chars()
            .filter_map(digit)
            .fold(0, |v, d| v * 10 + d);
        return Some((value, p + len));
    }
    if liang && rest.starts_with('两') {
        return Some((2, p + '两'.len_utf8()));
    }
    // D, 十, 十D, D十 or D十D: the first three characters and the byte after each.
    let mut cs = [('\0', p); 3];
    for (k, (i, c)) in rest.char_indices().take(3).enumerate() {
        cs[k] = (c, p + i + c.len_utf8());
    }
    let unit = |k: usize| zh_digit(cs[k].0).filter(|&d| d > 0);
    let ten = |k: usize| cs[k].0 == '十';
    let (tens, at) = if ten(0) {
        (1, 0)
    } else if ten(1) {
        (unit(0)?, 1)
    } else {
        return unit(0).map(|d| (d, cs[0].1));
    };
    Some(match unit(at + 1) {
        Some(d) => (tens * 10 + d, cs[at + 1].1),
        None => (tens * 10, cs[at].1),
    })
}

/// A year written digit by digit, `二〇二三`, at byte `p`, and the byte after it.
pub(crate) fn zh_year(s: &str, p: usize) -> Option<(i64, usize)> {
    if !starts_number(s, p) {
        return None;
    }
    let mut value = 0;
    let mut end = p;
    for c in s[p..].chars().take(4) {
        value = value * 10 + i64::from(zh_digit(c)?);
        end += c.len_utf8();
    }
    (end - p == 12).then_some((value, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers() {
        assert_eq!(english_word("Twelve"), Some(12));
        assert_eq!(english_word("forty"), Some(40));
        assert_eq!(english_word("second"), None);
        fn n(s: &str) -> Option<(u32, &str)> {
            zh_number(s, 0, true).map(|(v, e)| (v, &s[e..]))
        }
        assert_eq!(n("三天"), Some((3, "天")));
        assert_eq!(n("十月"), Some((10, "月")));
        assert_eq!(n("十二月"), Some((12, "月")));
        assert_eq!(n("二十天"), Some((20, "天")));
        assert_eq!(n("二十一日"), Some((21, "日")));
        assert_eq!(n("两周"), Some((2, "周")));
        assert_eq!(zh_number("两周", 0, false), None);
        assert_eq!(n("2023年"), Some((2023, "年")));
        assert_eq!(n("１２月"), Some((12, "月")));
        assert_eq!(n("12345"), None);
        assert_eq!(n("〇月"), None);
        assert_eq!(zh_number("十二月", 3, true), None);
        assert_eq!(zh_number("123月", 2, true), None);
        assert_eq!(zh_year("二〇二三年", 0), Some((2023, 12)));
        assert_eq!(zh_year("二零二", 0), None);
    }
}
