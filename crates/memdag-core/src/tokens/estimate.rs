//! The estimator: a deterministic token count without a vocabulary.
//!
//! Text is read as *units*, left to right; each unit costs a fixed number of tokens:
//! - a run of ASCII letters: one token per four letters, rounded up;
//! - a run of ASCII digits: one token per two digits, rounded up;
//! - one space: nothing (it joins the next word); a run of two or more: one token;
//! - a run of other ASCII whitespace (newlines, tabs, mixed with spaces): one token;
//! - any other ASCII char (punctuation): one token;
//! - a CJK char ([`is_cjk_token`]): one token;
//! - a run of other letters (accented Latin, Cyrillic, Greek, ...): one token per two;
//! - any other char (emoji, symbols): two tokens.
//!
//! On the samples of `tests/context_tokens.rs` it over-counts English prose by about 25%, code
//! and JSON by up to 60%, and non-Latin text by up to 2× for o200k_base (whose vocabulary is
//! richer there); it under-counts only digit-heavy text, by under 10%.
//!
//! Because a parse started at a unit boundary sees the same units, the count of a prefix or
//! suffix cut at a boundary is a running sum: [`prefix_end`] and [`suffix_start`] cut text to a
//! token limit in one pass.

use alloc::vec::Vec;

/// Whether `c` counts as one token on its own: a CJK ideograph, kana, hangul, or CJK or
/// full-width punctuation. Wider than the analyzer's `is_cjk` (letters only, which it cuts
/// into bigrams): punctuation costs a token but is no term.
pub fn is_cjk_token(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF       // Hangul Jamo
        | 0x2E80..=0x2FDF     // CJK radicals, Kangxi
        | 0x3000..=0x303F     // CJK symbols and punctuation
        | 0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3100..=0x31FF     // Bopomofo, Hangul compat, Katakana ext
        | 0x3400..=0x4DBF     // CJK ext A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF00..=0xFFEF     // Half-width and full-width forms
        | 0x20000..=0x2FA1F) // CJK ext B-F, compat supplement
}

/// The estimated token count of `text`; see the module docs.
pub fn estimate(text: &str) -> usize {
    units(text).map(|u| u.tokens).sum()
}

/// One unit: `start..end` in bytes, its tokens, and how many chars make one token when the
/// unit may be cut inside (letter and digit runs), else 0.
#[derive(Clone, Copy)]
struct Unit {
    start: usize,
    end: usize,
    tokens: usize,
    chars_per_token: usize,
}

fn units(text: &str) -> impl Iterator<Item = Unit> + '_ {
    let b = text.as_bytes();
    let run = move |from: usize, f: fn(u8) -> bool| {
        from + b[from..].iter().take_while(|&&x| f(x)).count()
    };
    let mut pos = 0;
    core::iter::from_fn(move || {
        let start = pos;
        let c = *b.get(start)?;
        let unit = |end: usize, tokens: usize, chars_per_token: usize| Unit {
            start,
            end,
            tokens,
            chars_per_token,
        };
        let u = if c.is_ascii_alphabetic() {
            let end = run(start, |x| x.is_ascii_alphabetic());
            unit(end, (end - start).div_ceil(4), 4)
        } else if c.is_ascii_digit() {
            let end = run(start, |x| x.is_ascii_digit());
            unit(end, (end - start).div_ceil(2), 2)
        } else if c == b' ' {
            let end = run(start, |x| x == b' ');
            unit(end, usize::from(end - start > 1), 0)
        } else if c.is_ascii_whitespace() {
            unit(run(start, |x| x.is_ascii_whitespace()), 1, 0)
        } else if c.is_ascii() {
            unit(start + 1, 1, 0)
        } else {
            let mut chars = text[start..].chars();
            let ch = chars.next()?;
            if is_cjk_token(ch) {
                unit(start + ch.len_utf8(), 1, 0)
            } else if ch.is_alphabetic() {
                let other = |d: &char| !d.is_ascii() && d.is_alphabetic() && !is_cjk_token(*d);
                let (mut end, mut n) = (start + ch.len_utf8(), 1usize);
                for d in chars.take_while(other) {
                    end += d.len_utf8();
                    n += 1;
                }
                unit(end, n.div_ceil(2), 2)
            } else {
                unit(start + ch.len_utf8(), 2, 0)
            }
        };
        pos = u.end;
        Some(u)
    })
}

/// The end of a prefix of `text` whose estimate is at most `max`: all whole units that fit,
/// plus part of the next one when it is a letter or digit run.
pub fn prefix_end(text: &str, max: usize) -> usize {
    let mut used = 0;
    for u in units(text) {
        if used + u.tokens > max {
            let chars = (max - used) * u.chars_per_token;
            return u.start
                + text[u.start..u.end]
                    .chars()
                    .take(chars)
                    .map(char::len_utf8)
                    .sum::<usize>();
        }
        used += u.tokens;
    }
    text.len()
}

/// The start of a suffix of `text` whose estimate is at most `max`, cut like [`prefix_end`].
pub fn suffix_start(text: &str, max: usize) -> usize {
    let all: Vec<Unit> = units(text).collect();
    let mut used = 0;
    for u in all.iter().rev() {
        if used + u.tokens > max {
            let chars = (max - used) * u.chars_per_token;
            return u.end
                - text[u.start..u.end]
                    .chars()
                    .rev()
                    .take(chars)
                    .map(char::len_utf8)
                    .sum::<usize>();
        }
        used += u.tokens;
    }
    0
}

/// The old name of [`is_cjk_token`].
#[deprecated(note = "named is_cjk_token: the analyzer's is_cjk is another range")]
pub fn is_cjk(c: char) -> bool {
    is_cjk_token(c)
}
