//! Numerals: the numbers a time expression counts with.
//!
//! English number words: `one` … `nineteen` and the tens `twenty` … `ninety`
//! ([`english_word`]); the English grammar joins a ten and a unit, `twenty one` or
//! `twenty-one`, and reads digits itself.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers() {
        assert_eq!(english_word("Twelve"), Some(12));
        assert_eq!(english_word("forty"), Some(40));
        assert_eq!(english_word("second"), None);
    }
}
