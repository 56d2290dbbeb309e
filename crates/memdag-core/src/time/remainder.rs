//! The remainder: a query with its time expression taken out, for a text search of the rest.
//!
//! [`TimeExpr::remainder`] removes `text[start..end]` and then:
//! - up to two words right before it from `in on at during from since over within for of
//!   around by the` (English, whole words, any case: "what did we do *in the* past 3 days"
//!   is left as "what did we do"), or one of `自从 在 于 从 自` (Chinese), but not the `在` that
//!   ends `现在 存在 实在 所在 自在 好在 潜在 内在 外在 健在`;
//! - a possessive right after it: `'s` or `’s` ("yesterday's plan" leaves "plan") or `的`
//!   ("昨天的会议" leaves "会议");
//! - joins the two sides with one space when either side had whitespace at the cut, and with
//!   none before closing punctuation (`. , ! ? ; : ) ] }` and their fullwidth forms) or in
//!   Chinese text; then collapses whitespace runs to one
//!   space, and trims whitespace and the separators `, ; : ， 、 ；` at both ends.
//!
//! A `TimeExpr` whose span does not fit `text` (made for another text) leaves the text tidied
//! but whole.

use std::string::String;

use super::TimeExpr;

const PREPOSITIONS: &str = "in on at during from since over within for of around by the";
const ZH_PREPOSITIONS: [&str; 5] = ["自从", "在", "于", "从", "自"];
const ZAI_WORDS: &str = "现存实所自好潜内外健";
/// Punctuation that takes no space before it.
const CLOSING: &str = ".,!?;:)]}。，！？；：、）】";

impl TimeExpr {
    /// `text` without this expression, its dangling preposition and its possessive.
    pub fn remainder(&self, text: &str) -> String {
        let parts = (self.start <= self.end)
            .then(|| Some((text.get(..self.start)?, text.get(self.end..)?)))
            .flatten();
        let Some((left, right)) = parts else {
            return tidy(text);
        };
        let cut_space =
            left.ends_with(char::is_whitespace) || right.starts_with(char::is_whitespace);
        let left = strip_prepositions(left);
        let right = strip_possessive(right.trim_start());
        let mut out = String::from(left);
        if cut_space && !left.is_empty() && !right.starts_with(|c: char| CLOSING.contains(c)) {
            out.push(' ');
        }
        out.push_str(right);
        tidy(&out)
    }
}

/// `left` without up to two trailing prepositions (or one Chinese one).
fn strip_prepositions(left: &str) -> &str {
    let mut left = left.trim_end();
    for _ in 0..2 {
        let word_start = left
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphabetic())
            .last()
            .map(|(i, _)| i);
        let Some(i) = word_start else { break };
        let boundary = !left[..i].ends_with(|c: char| c.is_alphanumeric());
        if !boundary
            || !PREPOSITIONS
                .split_whitespace()
                .any(|p| left[i..].eq_ignore_ascii_case(p))
        {
            break;
        }
        left = left[..i].trim_end();
    }
    for p in ZH_PREPOSITIONS {
        if let Some(rest) = left.strip_suffix(p) {
            if p != "在" || !rest.ends_with(|c: char| ZAI_WORDS.contains(c)) {
                return rest.trim_end();
            }
        }
    }
    left
}

/// `right` without a leading possessive.
fn strip_possessive(right: &str) -> &str {
    for p in ["'s", "’s", "'S", "’S"] {
        if let Some(rest) = right.strip_prefix(p) {
            if !rest.starts_with(|c: char| c.is_alphanumeric()) {
                return rest;
            }
        }
    }
    right.strip_prefix('的').unwrap_or(right)
}

/// Whitespace runs collapsed to one space, trimmed with the separators at both ends.
fn tidy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let trim = |c: char| c.is_whitespace() || ",;:，、；".contains(c);
    String::from(out.trim_matches(trim))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_tidies() {
        assert_eq!(strip_prepositions("notes from the "), "notes");
        assert_eq!(
            strip_prepositions("what about it in the of "),
            "what about it in"
        );
        assert_eq!(strip_prepositions("a din"), "a din");
        assert_eq!(strip_prepositions("我在"), "我");
        assert_eq!(strip_prepositions("现在"), "现在");
        assert_eq!(strip_prepositions("Since"), "");
        assert_eq!(strip_possessive("'s plan"), " plan");
        assert_eq!(strip_possessive("'sun"), "'sun");
        assert_eq!(strip_possessive("的会议"), "会议");
        assert_eq!(tidy(" , a \t b\n ;"), "a b");
        assert_eq!(tidy("，我们、"), "我们");
    }
}
