//! The analyzer: turns text into index terms, for mixed CJK and alphabetic scripts.
//!
//! Pipeline, applied per UAX-29 word (`unicode-segmentation`) so that every term keeps the byte
//! range of the original text it came from (the snippet marks those ranges):
//! 1. NFKC normalization, then lower-casing (full Unicode `to_lowercase`, a close stand-in for
//!    case folding). ASCII words take a fast path with the same result.
//! 2. Words are split at apostrophes (`caroline's` gives `caroline` and `s`), as `\w+` would.
//! 3. Runs of Han, Kana and Hangul characters become overlapping character bigrams, across
//!    word boundaries when the words touch (UAX-29 makes each ideograph its own word). A run of
//!    one character gives a unigram. So "记忆系统" is indexed as 记忆, 忆系, 系统 and matches
//!    queries for "记忆" and for "系统".
//!
//! Other words are terms as they are: no stemming and no stop words (BM25's IDF weighs common
//! words down). Terms longer than [`MAX_TERM_BYTES`] are dropped.

use core::ops::Range;
use std::string::String;
use std::vec::Vec;

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// Longest term kept, in bytes; longer "words" (base64 blobs, hashes) are not searchable.
pub const MAX_TERM_BYTES: usize = 64;

/// One analyzed term and the byte range of the original text it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub term: String,
    pub span: Range<usize>,
}

/// Whether `c` belongs to a script written without spaces that we index by bigrams.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3005..=0x3007    // 々 〆 〇
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana (NFKC widens them)
        | 0x1100..=0x11FF    // Hangul Jamo
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x20000..=0x3134F  // CJK extensions B to G
    )
}

/// Calls `emit` with every term of `text` and its byte range in `text`, in text order.
pub fn analyze(text: &str, mut emit: impl FnMut(&str, Range<usize>)) {
    let mut norm = String::new();
    // The pending CJK run: characters and the original span of each.
    let mut run: Vec<(char, Range<usize>)> = Vec::new();
    let mut run_end = usize::MAX;
    for (start, word) in text.unicode_word_indices() {
        let span = start..start + word.len();
        if start != run_end && !run.is_empty() {
            flush_run(&mut run, &mut emit);
        }
        norm.clear();
        if word.is_ascii() {
            norm.extend(word.chars().map(|c| c.to_ascii_lowercase()));
        } else {
            for c in word.nfkc() {
                norm.extend(c.to_lowercase());
            }
        }
        let mut latin_start: Option<usize> = None;
        for (i, c) in norm.char_indices() {
            if is_cjk(c) {
                if let Some(s) = latin_start.take() {
                    flush_run(&mut run, &mut emit);
                    emit_word(&norm[s..i], span.clone(), &mut emit);
                }
                run.push((c, span.clone()));
            } else if latin_start.is_none() {
                flush_run(&mut run, &mut emit);
                latin_start = Some(i);
            }
        }
        if let Some(s) = latin_start {
            emit_word(&norm[s..], span.clone(), &mut emit);
        }
        run_end = span.end;
    }
    flush_run(&mut run, &mut emit);
}

/// Emits the apostrophe-separated parts of an alphabetic word.
fn emit_word(word: &str, span: Range<usize>, emit: &mut impl FnMut(&str, Range<usize>)) {
    for part in word.split(['\'', '\u{2019}', '\u{2018}']) {
        if !part.is_empty() && part.len() <= MAX_TERM_BYTES {
            emit(part, span.clone());
        }
    }
}

/// Emits the bigrams of a CJK run (a unigram for a run of one) and empties it.
fn flush_run(run: &mut Vec<(char, Range<usize>)>, emit: &mut impl FnMut(&str, Range<usize>)) {
    let mut buf = [0u8; 8];
    match run.len() {
        0 => {}
        1 => emit(run[0].0.encode_utf8(&mut buf), run[0].1.clone()),
        _ => {
            let mut term = String::with_capacity(8);
            for w in run.windows(2) {
                term.clear();
                term.push(w[0].0);
                term.push(w[1].0);
                emit(&term, w[0].1.start..w[1].1.end);
            }
        }
    }
    run.clear();
}

/// The terms of `text` with their spans, collected.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    analyze(text, |term, span| {
        out.push(Token {
            term: term.into(),
            span,
        })
    });
    out
}

/// The terms of `text`, without spans.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    analyze(text, |term, _| out.push(term.into()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_words_fold_and_split_apostrophes() {
        assert_eq!(
            terms("Caroline's LGBTQ group, Ｆｕｌｌ width!"),
            ["caroline", "s", "lgbtq", "group", "full", "width"]
        );
    }

    #[test]
    fn cjk_runs_give_bigrams() {
        assert_eq!(terms("记忆系统"), ["记忆", "忆系", "系统"]);
        assert_eq!(terms("记"), ["记"]);
        assert_eq!(
            terms("agent的记忆 memory"),
            ["agent", "的记", "记忆", "memory"]
        );
        assert_eq!(terms("メモリ"), ["メモ", "モリ"]);
        assert_eq!(terms("기억 시스템"), ["기억", "시스", "스템"]);
    }

    #[test]
    fn spans_point_into_the_original() {
        let text = "Ｈello 记忆";
        for t in tokens(text) {
            assert!(text.get(t.span.clone()).is_some(), "{t:?}");
        }
        assert_eq!(tokens(text)[1].span, 8..14);
    }
}
