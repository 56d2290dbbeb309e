//! Query normalisation: the function words a BM25 query drops.
//!
//! A question to a memory ("When did Caroline go to the support group?") carries words that
//! say what kind of answer is wanted (`when`, `what`, `did`) and glue (`the`, `to`). BM25's IDF
//! weighs them down but not out: in short, chatty records they still match almost every
//! record a little, and after fusion that noise pushes the records that share the query's
//! content words down. [`significant`] drops them from the query, never from the index, so a
//! record stays findable by every word it holds.
//!
//! The list is English function words (articles, pronouns, auxiliaries, question words,
//! prepositions, conjunctions, and the pieces contractions split into: `s`, `t`, `ll`, ...).
//! Content words are never on it, nor are words that double as content: `may` (the month),
//! `like`, `well`. Other scripts are untouched: a
//! CJK bigram is never a stop word. A query made only of stop words keeps them all, so
//! "what is it" still finds something. Stop words are matched before stemming
//! ([`super::analyzer::stem`]), in the analyzer's plain form.

/// Sorted, lower-case: the analyzer's output form.
const STOPWORDS: [&str; 114] = [
    "a",
    "about",
    "after",
    "again",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "both",
    "but",
    "by",
    "can",
    "could",
    "d",
    "did",
    "do",
    "does",
    "doing",
    "during",
    "each",
    "ever",
    "for",
    "from",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "ll",
    "m",
    "me",
    "might",
    "must",
    "my",
    "myself",
    "of",
    "on",
    "or",
    "our",
    "ours",
    "re",
    "s",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "too",
    "up",
    "us",
    "ve",
    "very",
    "was",
    "we",
    "were",
    "what",
    "whatever",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Whether `term` (an analyzer term: lower-case, NFKC) is a stop word.
pub fn is_stopword(term: &str) -> bool {
    term.len() <= 10 && term.is_ascii() && STOPWORDS.binary_search(&term).is_ok()
}

/// The terms of `terms` that are not stop words; all of them when every one is.
pub fn significant<'a>(terms: &[&'a str]) -> Vec<&'a str> {
    let kept: Vec<&str> = terms.iter().copied().filter(|t| !is_stopword(t)).collect();
    if kept.is_empty() {
        terms.to_vec()
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_unique() {
        for w in STOPWORDS.windows(2) {
            assert!(w[0] < w[1], "{} before {}", w[0], w[1]);
        }
    }

    #[test]
    fn drops_function_words_but_keeps_content_and_cjk() {
        assert!(is_stopword("when") && is_stopword("s") && is_stopword("did"));
        assert!(!is_stopword("may") && !is_stopword("caroline") && !is_stopword("记忆"));
        assert_eq!(
            significant(&["when", "did", "caroline", "go", "to", "the", "group"]),
            ["caroline", "go", "group"]
        );
        assert_eq!(significant(&["what", "is", "it"]), ["what", "is", "it"]);
    }
}
