//! Token counting: the estimator, truncation, and (feature `tiktoken`) exact counts.

use memdag_core::tokens::{estimate, Encoding, TokenCounter};
use proptest::prelude::*;

const SAMPLES: &[&str] = &[
    "The quick brown fox jumps over the lazy dog. It was not amused, and said so at length.",
    "fn main() {\n    let x = vec![1, 2, 3];\n    println!(\"{:?}\", x.iter().sum::<i32>());\n}\n",
    "error[E0689]: can't call method `div_ceil` on ambiguous numeric type `{integer}` --> src/tokens.rs:190:25",
    "我们需要在下周之前完成这个项目的第一阶段，并且确保所有的测试都能通过。",
    "今日は良い天気ですね。明日の会議は午後三時からです。",
    "Привет, как дела? Сегодня мы обсуждаем архитектуру системы хранения.",
    "{\"path\": \"/work/main/crates/memdag-core/src/store.rs\", \"line\": 42, \"ok\": true}",
    "Les développeurs ont décidé d'utiliser une structure de données immuable pour l'historique.",
    "1234567890 3.14159 2026-11-30T03:56:00Z 0xdeadbeef",
];

#[test]
fn estimate_is_deterministic_and_monotone_in_words() {
    assert_eq!(estimate(""), 0);
    assert_eq!(estimate("hello"), 2);
    assert_eq!(estimate("a b c"), 3);
    assert_eq!(estimate("中文"), 2);
    for s in SAMPLES {
        assert_eq!(estimate(s), estimate(s));
        assert!(estimate(s) > 0);
    }
}

#[test]
fn encoding_names_round_trip() {
    for e in [Encoding::Cl100kBase, Encoding::O200kBase] {
        assert_eq!(Encoding::from_name(e.name()), Some(e));
    }
    assert_eq!(Encoding::from_name("gpt2"), None);
    assert_eq!(Encoding::default(), Encoding::Cl100kBase);
}

#[test]
fn counter_uses_exact_counts_only_with_the_feature() {
    let c = TokenCounter::new(Encoding::O200kBase);
    assert_eq!(c.is_exact(), cfg!(feature = "tiktoken"));
    if !c.is_exact() {
        assert_eq!(c.count(SAMPLES[0]), estimate(SAMPLES[0]));
    }
}

/// The estimate should not undercount real BPE counts by much, and not overcount wildly.
#[cfg(feature = "tiktoken")]
#[test]
fn estimate_is_close_to_an_upper_bound() {
    for e in [Encoding::Cl100kBase, Encoding::O200kBase] {
        let c = TokenCounter::new(e);
        for s in SAMPLES {
            let (exact, est) = (c.count(s), estimate(s));
            println!(
                "{:>12} exact {exact:>3} estimate {est:>3}  {s:.40}",
                e.name()
            );
            assert!(
                est * 10 >= exact * 9,
                "{s}: estimate {est} < 0.9 x exact {exact}"
            );
            assert!(est <= exact * 3, "{s}: estimate {est} > 3 x exact {exact}");
        }
    }
}

proptest! {
    #[test]
    fn truncate_fits_and_is_a_prefix(s in "(\\PC|[a-z ]{0,12}|\\d{1,6}|\n| ){0,120}", max in 0usize..60) {
        let c = TokenCounter::default();
        let head = c.truncate(&s, max);
        prop_assert!(s.starts_with(head));
        prop_assert!(c.count(head) <= max);
        let tail = c.truncate_start(&s, max);
        prop_assert!(s.ends_with(tail));
        prop_assert!(c.count(tail) <= max);
        if c.count(&s) <= max {
            prop_assert_eq!(head, s.as_str());
            prop_assert_eq!(tail, s.as_str());
        } else if !c.is_exact() {
            // The estimator cuts in one pass and wastes at most one unit's tokens (2).
            prop_assert!(c.count(head) + 2 >= max, "head {} of {max}", c.count(head));
            prop_assert!(c.count(tail) + 2 >= max, "tail {} of {max}", c.count(tail));
        }
    }
}
