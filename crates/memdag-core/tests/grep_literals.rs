//! grep skips the slower engine for a text that holds none of the literals every match must
//! start or end with (`src/search/grep.rs`). That check must never lose a match: over text
//! that sends grep to that engine (non-ASCII, with a Unicode `\b` in the pattern), grep finds
//! what the `regex` crate finds, match for match, case-insensitive and Unicode case folding
//! included.

use memdag_core::search::GrepQuery;
use memdag_core::{NewTurn, Store};
use proptest::prelude::*;

/// Patterns with required literals at the start, the end, both or neither; in alternations,
/// classes small enough to expand and around word boundaries.
const PATTERNS: [&str; 12] = [
    r"\bfailed\b",
    r"\bcafé\b",
    r"\w+ing\b done",
    r"(?:deploy|build)s?\b",
    r"\b[bc]at\b",
    r"k\w*\b",
    r"é\b",
    r"’s\b",
    r"\b部署",
    r"\bx?y\b",
    r"\b\w+\b",
    r"ing\b|\bre",
];

/// Words that make the patterns above match, miss by a letter, or sit by non-ASCII letters.
const WORDS: [&str; 18] = [
    "failed",
    "failedx",
    "café",
    "cafés",
    "doing",
    "done",
    "deploys",
    "build",
    "cat",
    "bat",
    "Kelvin",
    "\u{212a}elvin",
    "it’s",
    "部署",
    "y",
    "xy",
    "re",
    "ßing",
];

fn text_from(picks: &[(usize, usize)]) -> String {
    let seps = [" ", "é", "’", "部", "-", "  "];
    picks
        .iter()
        .map(|&(w, s)| format!("{}{}", WORDS[w % WORDS.len()], seps[s % seps.len()]))
        .collect()
}

fn grep_spans(store: &Store, pattern: &str, case_insensitive: bool) -> Vec<(String, usize, usize)> {
    let q = GrepQuery {
        pattern: pattern.into(),
        case_insensitive,
        fields: vec!["input".into()],
        max_matches: 10_000,
        ..Default::default()
    };
    store
        .grep(&q)
        .unwrap()
        .into_iter()
        .map(|m| (m.id, m.start, m.end))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn grep_finds_what_the_regex_crate_finds(
        texts in proptest::collection::vec(
            proptest::collection::vec((0usize..64, 0usize..6), 0..12),
            1..6,
        ),
        case_insensitive in any::<bool>(),
    ) {
        let mut store = Store::new();
        let texts: Vec<String> = texts.iter().map(|t| text_from(t)).collect();
        for (i, text) in texts.iter().enumerate() {
            store
                .add_turn(NewTurn {
                    id: Some(format!("r{i}")),
                    thread: "t".into(),
                    input: text.clone(),
                    ..Default::default()
                })
                .unwrap();
        }
        for pattern in PATTERNS {
            let reference = regex::RegexBuilder::new(pattern)
                .case_insensitive(case_insensitive)
                .build()
                .unwrap();
            let expected: Vec<(String, usize, usize)> = texts
                .iter()
                .enumerate()
                .flat_map(|(i, text)| {
                    reference
                        .find_iter(text)
                        .filter(|m| !m.is_empty())
                        .map(move |m| (format!("r{i}"), m.start(), m.end()))
                })
                .collect();
            prop_assert_eq!(
                grep_spans(&store, pattern, case_insensitive),
                expected,
                "pattern {} (case-insensitive: {})",
                pattern,
                case_insensitive
            );
        }
    }
}

/// The check's own cases, each the way a user would hit it: a word grep with a curly quote
/// nearby, a case-insensitive one matching the Kelvin sign, and a text lacking the literal.
#[test]
fn literal_checks_keep_matches_by_non_ascii_text_and_case_folding() {
    let mut store = Store::new();
    for (id, input) in [
        ("quote", "the build failed, it’s red"),
        ("kelvin", "300 \u{212a}ELVIN é"),
        ("none", "nothing fails here ’"),
    ] {
        store
            .add_turn(NewTurn {
                id: Some(id.into()),
                thread: "t".into(),
                input: input.into(),
                ..Default::default()
            })
            .unwrap();
    }
    let ids = |p: &str, ci: bool| -> Vec<String> {
        grep_spans(&store, p, ci)
            .into_iter()
            .map(|(id, ..)| id)
            .collect()
    };
    assert_eq!(ids(r"\bfailed\b", false), ["quote"]);
    assert_eq!(ids(r"\bkelvin\b", true), ["kelvin"]);
    assert!(ids(r"\bkelvin\b", false).is_empty());
    assert_eq!(ids(r"\bfail\w*\b", false), ["quote", "none"]);
}
