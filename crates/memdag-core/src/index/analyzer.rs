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
//! Other words are terms as they are, with no stop words (BM25's IDF weighs common words down).
//! Terms longer than [`MAX_TERM_BYTES`] are dropped.
//!
//! The full-text index and its queries go one step further ([`analyze_index`]): English
//! inflections are folded by a light stemmer ([`stem`]), so "camped", "camping" and "camps"
//! are one term, `camp`, on both sides. [`analyze`] itself stays unstemmed: the built-in
//! embedder hashes its terms, and its vectors must not change.

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

/// The light English stemmer of the full-text index: folds the inflections of a term (plural
/// and third-person `-s`, `-es`, `-ies`; past `-ed`, `-ied`; `-ing`), so that the forms of
/// one word meet. Returns the stem as a prefix of `term` and a suffix to append (`""` or
/// `"y"`); the term itself when it is not a lower-case ASCII word of 4 letters or more.
///
/// The rules, in order; each strips only when at least 3 letters with a vowel remain:
/// 1. `-ies`, `-ied` become `-y` (`cities`, `tried`: `city`, `try`);
/// 2. else `-ing` or `-ed` (not `-eed`: `need`, `speed`) go, and a doubled final consonant
///    other than `l`, `s`, `z` is undoubled (`running`: `run`; `falling`: `fall`);
/// 3. else a final `-s` goes, but not from `-ss`, `-us`, `-is` (`class`, `bus`, `this`);
/// 4. then a final `-e` goes when 3 letters remain, so `dance`, `dances`, `danced` and
///    `dancing` all give `danc`.
///
/// It is not Porter's algorithm: derivations (`-ness`, `-ly`, `-er`) are left alone, and an
/// occasional clash (`news` and `new`) costs a little precision, which the other signals and
/// BM25's IDF absorb. Words of other languages in Latin script are folded the same way on both
/// sides, so they still match themselves; CJK terms, digits and mixed words are untouched.
pub fn stem(term: &str) -> (&str, &'static str) {
    let b = term.as_bytes();
    if b.len() < 4 || !b.iter().all(u8::is_ascii_lowercase) {
        return (term, "");
    }
    let vowel = |c: &u8| matches!(c, b'a' | b'e' | b'i' | b'o' | b'u' | b'y');
    let keeps = |n: usize| n >= 3 && b[..n].iter().any(vowel);
    let n = b.len();
    if (b.ends_with(b"ies") || b.ends_with(b"ied")) && n >= 5 {
        return (&term[..n - 3], "y");
    }
    let mut end = n;
    let suffix = if b.ends_with(b"ing") {
        3
    } else if b.ends_with(b"ed") && !b.ends_with(b"eed") {
        2
    } else {
        0
    };
    if suffix > 0 && keeps(n - suffix) {
        end = n - suffix;
        let last = b[end - 1];
        if end >= 4 && last == b[end - 2] && !vowel(&last) && !matches!(last, b'l' | b's' | b'z') {
            end -= 1;
        }
    } else if suffix == 0
        && b.ends_with(b"s")
        && !(b.ends_with(b"ss") || b.ends_with(b"us") || b.ends_with(b"is"))
        && keeps(n - 1)
    {
        end = n - 1;
    }
    if end >= 4 && b[end - 1] == b'e' {
        end -= 1;
    }
    (&term[..end], "")
}

/// The terms of the full-text index: those of [`analyze`], each through [`stem`] when `stem`
/// is set (the default of an index). Spans are those of [`analyze`].
pub fn analyze_index(text: &str, stem: bool, mut emit: impl FnMut(&str, Range<usize>)) {
    if !stem {
        return analyze(text, emit);
    }
    let mut buf = String::new();
    analyze(text, |term, span| match self::stem(term) {
        (root, "") => emit(root, span),
        (root, suffix) => {
            buf.clear();
            buf.push_str(root);
            buf.push_str(suffix);
            emit(&buf, span);
        }
    })
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
    fn the_stemmer_folds_inflections() {
        let st = |w: &str| {
            let (root, suffix) = stem(w);
            format!("{root}{suffix}")
        };
        for (words, root) in [
            (&["camp", "camps", "camped", "camping"][..], "camp"),
            (&["dance", "dances", "danced", "dancing"], "danc"),
            (&["paint", "paints", "painted", "painting"], "paint"),
            (&["run", "runs", "running"], "run"),
            (&["city", "cities"], "city"),
            (&["try", "tries", "tried"], "try"),
            (&["hike", "hikes", "hiked", "hiking"], "hik"),
            (&["box", "boxes"], "box"),
            (&["class", "classes"], "class"),
            (&["kid", "kids"], "kid"),
            (&["fall", "falls", "falling"], "fall"),
        ] {
            for w in words {
                assert_eq!(st(w), root, "{w}");
            }
        }
        // Short words, -ss/-us/-is, -eed, stems without a vowel, and non-ASCII or mixed
        // terms are kept.
        for w in [
            "is", "was", "bus", "this", "need", "speed", "thing", "string", "记忆", "café", "mp3s",
        ] {
            assert_eq!(st(w), w);
        }
    }

    #[test]
    fn the_index_analysis_stems_only_when_asked() {
        let collect = |stem: bool| {
            let mut out = Vec::new();
            analyze_index("Camping trips! 记忆系统 cities", stem, |t, _| {
                out.push(t.to_string())
            });
            out
        };
        assert_eq!(collect(false), terms("Camping trips! 记忆系统 cities"));
        assert_eq!(
            collect(true),
            ["camp", "trip", "记忆", "忆系", "系统", "city"]
        );
    }

    proptest::proptest! {
        /// On any text the index analysis gives one term per analyzer term, at the same
        /// span: the term itself, a prefix of it, or a prefix and `y`, never empty.
        #[test]
        fn stemming_keeps_terms_and_spans(
            text in "(\\PC{0,12}|[a-z]{1,12}(ies|ied|ing|ed|es|s|e)?)( [a-zA-Z'é记]{0,12}){0,6}"
        ) {
            let plain = tokens(&text);
            let mut stemmed = Vec::new();
            analyze_index(&text, true, |t, span| stemmed.push((t.to_string(), span)));
            proptest::prop_assert_eq!(plain.len(), stemmed.len());
            for (p, (t, span)) in plain.iter().zip(&stemmed) {
                proptest::prop_assert_eq!(&p.span, span);
                let root = t.strip_suffix('y').filter(|_| !p.term.starts_with(t.as_str()));
                let root = root.unwrap_or(t);
                proptest::prop_assert!(!t.is_empty() && p.term.starts_with(root), "{} {}", p.term, t);
            }
        }
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
