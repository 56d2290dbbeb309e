//! Words: the tokens the English grammar reads, with their byte spans in the text.
//!
//! - A word is a maximal run of alphanumeric characters that are not CJK (Han, kana, Hangul)
//!   (so `Mayfair`, `yesterdays` and `2023` are single words, and `May2023` is one word that
//!   names nothing). English keywords match whole words only, ignoring ASCII case. A `T`
//!   between digits starts a new word, so the date of `2023-05-08T13:56` stands alone.
//! - Every other character that is not whitespace is a token of its own: punctuation such as
//!   `-` `/` `,` `.` and each CJK character, so an English expression never runs across
//!   Chinese text but may touch it (`在May 2023`).
//! - Numeric dates need their parts to touch ([`Cursor::touching`]): `2023-05-08` is a date,
//!   `2023 - 05 - 08` is not.

use std::vec::Vec;

use crate::index::analyzer::is_cjk;

/// One token and its byte span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

impl Word<'_> {
    pub fn is(&self, keyword: &str) -> bool {
        self.text.eq_ignore_ascii_case(keyword)
    }

    /// The value of a word of ASCII digits, at most `max_len` of them.
    pub fn digits(&self, max_len: usize) -> Option<i64> {
        let t = self.text;
        (t.len() <= max_len && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    }
}

/// The tokens of `text`, in order.
pub(crate) fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut run: Option<usize> = None;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let in_word = c.is_alphanumeric() && !is_cjk(c);
        // The `T` of a date-time starts a word of its own: `2023-05-08` `T13`.
        let date_time = matches!(c, 'T' | 't')
            && run.is_some()
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        if date_time {
            if let Some(s) = run.replace(i) {
                out.push(Word {
                    text: &text[s..i],
                    start: s,
                    end: i,
                });
            }
            continue;
        }
        if in_word {
            run.get_or_insert(i);
            continue;
        }
        if let Some(s) = run.take() {
            out.push(Word {
                text: &text[s..i],
                start: s,
                end: i,
            });
        }
        if !c.is_whitespace() {
            let end = i + c.len_utf8();
            out.push(Word {
                text: &text[i..end],
                start: i,
                end,
            });
        }
    }
    if let Some(s) = run {
        out.push(Word {
            text: &text[s..],
            start: s,
            end: text.len(),
        });
    }
    out
}

/// A position in a token list that grammar rules move forward; copies are cheap, so a rule
/// that fails simply drops its copy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor<'w, 'a> {
    pub words: &'w [Word<'a>],
    pub i: usize,
}

impl<'w, 'a> Cursor<'w, 'a> {
    pub fn new(words: &'w [Word<'a>], i: usize) -> Self {
        Cursor { words, i }
    }

    pub fn peek(&self) -> Option<Word<'a>> {
        self.words.get(self.i).copied()
    }

    /// The token before the cursor's position.
    pub fn before(&self) -> Option<Word<'a>> {
        self.i
            .checked_sub(1)
            .and_then(|j| self.words.get(j).copied())
    }

    pub fn next(&mut self) -> Option<Word<'a>> {
        let w = self.peek()?;
        self.i += 1;
        Some(w)
    }

    /// Takes the next token when it is `keyword`.
    pub fn eat(&mut self, keyword: &str) -> bool {
        let hit = self.peek().is_some_and(|w| w.is(keyword));
        self.i += usize::from(hit);
        hit
    }

    /// Takes the next token when it is one of `keywords`, giving its index there.
    pub fn eat_any(&mut self, keywords: &[&str]) -> Option<usize> {
        let w = self.peek()?;
        let k = keywords.iter().position(|k| w.is(k))?;
        self.i += 1;
        Some(k)
    }

    /// Takes the next token when `f` accepts it.
    pub fn eat_with<T>(&mut self, f: impl FnOnce(Word<'a>) -> Option<T>) -> Option<T> {
        let v = f(self.peek()?)?;
        self.i += 1;
        Some(v)
    }

    /// Whether the next token starts right where the previous one ended.
    pub fn touching(&self) -> bool {
        match (self.before(), self.peek()) {
            (Some(a), Some(b)) => a.end == b.start,
            _ => false,
        }
    }

    /// The byte after the last token taken.
    pub fn end(&self) -> usize {
        self.before().map_or(0, |w| w.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words_punctuation_and_cjk() {
        let ws = words("In May, 2023-05-08 在Mayfair 8th");
        let texts: Vec<&str> = ws.iter().map(|w| w.text).collect();
        assert_eq!(
            texts,
            ["In", "May", ",", "2023", "-", "05", "-", "08", "在", "Mayfair", "8th"]
        );
        let at = ws[8];
        assert_eq!((at.start, at.end), (19, 22));
        assert_eq!(ws[3].digits(4), Some(2023));
        assert_eq!(ws[3].digits(2), None);
        let mut c = Cursor::new(&ws, 3);
        c.next();
        assert!(c.touching());
        assert_eq!(c.end(), 12);
        let texts: Vec<&str> = words("2023-05-08T13:56 at5t3 T1")
            .iter()
            .map(|w| w.text)
            .collect();
        assert_eq!(
            texts,
            ["2023", "-", "05", "-", "08", "T13", ":", "56", "at5", "t3", "T1"]
        );
    }
}
