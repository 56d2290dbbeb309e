//! Issue 30, item 10: grep is bounded by work, not only by matches. The issue's pattern over a
//! store of real-looking text answers (and finds what it should), a pattern that defeats the
//! lazy DFA answers by the slower engine within its budget or with a typed error, and a
//! Unicode word boundary over non-ASCII text is searched, within a budget.

use memdag_core::search::GrepQuery;
use memdag_core::{NewTurn, Store};

/// A reproducible stream of pseudo-random numbers (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A store of `turns` turns, each about 1 KB of words drawn from a vocabulary of 5,000
/// made-up words (letters a to y, so that none is `zzz`), as real logs are: many distinct
/// words of many lengths.
fn store(turns: usize, seed: u64) -> Store {
    let mut rng = Rng(seed);
    let vocabulary: Vec<String> = (0..5000)
        .map(|_| {
            let len = 2 + rng.next() % 8;
            (0..len)
                .map(|_| (b'a' + (rng.next() % 25) as u8) as char)
                .collect()
        })
        .collect();
    let mut s = Store::new();
    for i in 0..turns {
        let mut words = |n: usize| -> String {
            (0..n)
                .map(|_| vocabulary[(rng.next() % 5000) as usize].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        s.add_turn(NewTurn {
            id: Some(format!("t{i}")),
            thread: format!("th{}", i % 10),
            input: words(90),
            output: words(90),
            ..Default::default()
        })
        .unwrap();
    }
    s
}

fn grep(s: &Store, pattern: &str) -> memdag_core::Result<Vec<String>> {
    let q = GrepQuery {
        pattern: pattern.into(),
        max_matches: 1000,
        ..Default::default()
    };
    Ok(s.grep(&q)?.into_iter().map(|m| m.id).collect())
}

#[test]
fn the_issues_pattern_answers_over_a_store_and_finds_its_match() {
    let mut s = store(1500, 7);
    let planted = (0..31)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
        + " zzz";
    s.add_turn(NewTurn {
        id: Some("planted".into()),
        thread: "x".into(),
        input: planted,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(grep(&s, r"(?:\w+\s+){30}zzz").unwrap(), ["planted"]);
    assert_eq!(
        grep(&s, r"(?i)(?:\w+\s+){30}ZZZ").unwrap(),
        ["planted"],
        "case-insensitively too"
    );
}

#[test]
fn a_pattern_that_defeats_the_lazy_dfa_is_finished_by_the_budgeted_engine_or_refused() {
    // Random a/b text makes `a[ab]{20}b` build a new DFA state at almost every byte.
    let mut rng = Rng(3);
    let mut s = Store::new();
    let ab = |rng: &mut Rng, n: usize| -> String {
        (0..n)
            .map(|_| {
                if rng.next().is_multiple_of(2) {
                    'a'
                } else {
                    'b'
                }
            })
            .collect()
    };
    for i in 0..300 {
        let input = ab(&mut rng, 4000);
        s.add_turn(NewTurn {
            id: Some(format!("ab{i}")),
            thread: "t".into(),
            input,
            ..Default::default()
        })
        .unwrap();
    }
    let found = grep(&s, "a[ab]{20}b").unwrap();
    assert_eq!(
        found.len(),
        1000,
        "the slower engine found every match up to the cap"
    );
    // The same shape with a large automaton (Unicode classes) has too small a budget on the
    // slower engine for the 1.2 MB of text the DFA gives up on: a typed error, not a stall.
    let err = grep(&s, r"a[\w&&[ab]]{20}\w{40}(?:\w\w){30}b").unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT", "{err}");
    assert!(err.to_string().contains("too costly"), "{err}");
}

#[test]
fn a_unicode_word_boundary_over_non_ascii_text_is_searched_within_a_budget() {
    let mut s = Store::new();
    s.add_turn(NewTurn {
        id: Some("zh".into()),
        thread: "t".into(),
        input: "部署 failed 了，café déploiement failed".into(),
        ..Default::default()
    })
    .unwrap();
    s.add_turn(NewTurn {
        id: Some("en".into()),
        thread: "t".into(),
        input: "nothing failedx here".into(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(grep(&s, r"\bfailed\b").unwrap(), ["zh", "zh"]);
    assert_eq!(grep(&s, r"\bcafé\b").unwrap(), ["zh"]);
    // The slower engine's budget covers bytes times automaton states: a Unicode-heavy
    // pattern over a few hundred kilobytes of non-ASCII text runs out of it.
    let mut big = Store::new();
    for i in 0..8 {
        big.add_turn(NewTurn {
            id: Some(format!("z{i}")),
            thread: "t".into(),
            input: "记忆系统的测试文本 ".repeat(3000),
            ..Default::default()
        })
        .unwrap();
    }
    let err = grep(&big, r"\b(?:\w+\s+){30}\d\b").unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    assert!(err.to_string().contains("too costly"), "{err}");
    // Text without the literal every match must end with (`zzz`) is not searched at all, so
    // the same pattern ending in it answers, finding nothing, where it too ran out of budget.
    assert!(grep(&big, r"\b(?:\w+\s+){30}zzz\b").unwrap().is_empty());
}

/// With the default features a pattern may name a Unicode property; the range the error of a
/// build without them suggests (the JS package's: `tests/node/context.test.mjs`) finds the
/// same text.
#[test]
fn a_unicode_property_class_and_the_range_suggested_instead_find_the_same_text() {
    let mut s = Store::new();
    for (id, input) in [("zh", "部署失败了 deploy"), ("en", "deploy failed")] {
        s.add_turn(NewTurn {
            id: Some(id.into()),
            thread: "t".into(),
            input: input.into(),
            ..Default::default()
        })
        .unwrap();
    }
    assert_eq!(grep(&s, r"\p{Han}+").unwrap(), ["zh"]);
    assert_eq!(grep(&s, r"[\x{4e00}-\x{9fff}]+").unwrap(), ["zh"]);
    assert_eq!(grep(&s, r"^\P{Han}+$").unwrap(), ["en"]);
}
