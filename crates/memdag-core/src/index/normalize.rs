//! Normalisation of entity names and item texts, so that "Berlin", "berlin " and "ＢＥＲＬＩＮ"
//! are one entity and "I love hiking." and "i love hiking" one statement.
//!
//! An entity name is NFKC-normalised, lower-cased, stripped of surrounding punctuation and of
//! a leading English article, with runs of whitespace made one space; then the host's aliases
//! (see [`MemoryConfig::aliases`](crate::memory::MemoryConfig::aliases), themselves normalised) map it
//! to its canonical name. A text's *words* are the analyzer's terms
//! ([`crate::index::analyzer::terms`]): the same folding the index uses, CJK as bigrams.

use std::collections::{BTreeMap, BTreeSet};
use std::string::String;
use std::vec::Vec;

use unicode_normalization::UnicodeNormalization;

use crate::index::analyzer::terms;

/// The normal form of an entity name, before aliases.
pub fn entity(name: &str) -> String {
    let folded: String = name.nfkc().flat_map(char::to_lowercase).collect();
    let trimmed = folded.trim_matches(|c: char| c.is_whitespace() || is_edge_punctuation(c));
    let mut out = String::with_capacity(trimmed.len());
    for word in trimmed.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    for article in ["the ", "a ", "an "] {
        if let Some(rest) = out.strip_prefix(article) {
            if !rest.is_empty() {
                return rest.into();
            }
        }
    }
    out
}

/// The canonical form of an entity name: [`entity`], then the aliases.
pub fn canonical(name: &str, aliases: &BTreeMap<String, String>) -> String {
    let e = entity(name);
    if aliases.is_empty() {
        return e;
    }
    aliases
        .iter()
        .find(|(alias, _)| entity(alias) == e)
        .map_or(e, |(_, target)| entity(target))
}

fn is_edge_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(c, '。' | '，' | '！' | '？' | '、' | '“' | '”' | '‘' | '’')
}

/// The distinct words of a text.
pub fn words(text: &str) -> BTreeSet<String> {
    terms(text).into_iter().collect()
}

/// The share of the smaller word set found in the other: 1.0 when one text's words all occur
/// in the other, 0.0 when they share none (or either has none).
pub fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f32 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.is_empty() {
        return 0.0;
    }
    let shared = small.iter().filter(|w| large.contains(*w)).count();
    shared as f32 / small.len() as f32
}

/// The words two texts share, for explanations.
pub fn shared_words(a: &BTreeSet<String>, b: &BTreeSet<String>) -> Vec<String> {
    a.intersection(b).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_fold_width_case_space_articles_and_aliases() {
        assert_eq!(entity("  ＢＥＲＬＩＮ. "), "berlin");
        assert_eq!(entity("The   Acme  Corp"), "acme corp");
        assert_eq!(entity("上海。"), "上海");
        let aliases = BTreeMap::from([("NYC".to_string(), "New York".to_string())]);
        assert_eq!(canonical("nyc", &aliases), "new york");
        assert_eq!(canonical("Boston", &aliases), "boston");
    }

    #[test]
    fn overlap_is_the_share_of_the_smaller_set() {
        let a = words("I love hiking in the Alps");
        let b = words("i love hiking");
        assert_eq!(overlap(&a, &b), 1.0);
        assert_eq!(overlap(&words("tea"), &words("coffee")), 0.0);
        assert_eq!(overlap(&words(""), &words("coffee")), 0.0);
    }
}
