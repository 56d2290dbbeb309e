//! The recall block never exceeds its token budget, whatever the store and the query.

use std::collections::BTreeSet;

use memdag_core::recall::RecallQuery;
use memdag_core::tokens::{Encoding, TokenCounter};
use memdag_core::{CompactNode, NewTurn, Section, Step, Store};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "deploy",
    "kiwi",
    "error:",
    "src/lib.rs",
    "构建失败",
    "ok",
    "{\"a\":1}",
    "flamingo",
    "\n",
    "  ",
    "données",
    "🙂",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..40).prop_map(|w| w.join(" "))
}

#[derive(Debug, Clone)]
struct Spec {
    thread: u8,
    user: u8,
    input: String,
    output: String,
    steps: Vec<(String, bool)>,
    parents: Vec<usize>,
    compact: Option<String>,
    importance: f32,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0u8..4,
        0u8..3,
        text(),
        text(),
        prop::collection::vec((text(), any::<bool>()), 0..4),
        prop::collection::vec(any::<usize>(), 0..3),
        prop::option::of(text()),
        0.0f32..=1.0,
    )
        .prop_map(
            |(thread, user, input, output, steps, parents, compact, importance)| Spec {
                thread,
                user,
                input,
                output,
                steps,
                parents,
                compact,
                importance,
            },
        )
}

fn build(specs: &[Spec]) -> Store {
    let mut store = Store::new();
    for (i, s) in specs.iter().enumerate() {
        let parents = if i == 0 {
            vec![]
        } else {
            s.parents.iter().map(|p| format!("r{}", p % i)).collect()
        };
        store
            .add_turn(NewTurn {
                id: Some(format!("r{i}")),
                thread: format!("t{}", s.thread),
                user: format!("u{}", s.user),
                created_at: i as i64 * 60_000,
                input: s.input.clone(),
                output: s.output.clone(),
                steps: s
                    .steps
                    .iter()
                    .map(|(r, ok)| Step {
                        tool: "tool".into(),
                        args: r.clone(),
                        result: r.repeat(3),
                        ok: *ok,
                    })
                    .collect(),
                parents,
                importance: Some(s.importance),
                compact: s.compact.as_ref().map(|c| CompactNode {
                    summary: c.clone(),
                    sections: vec![Section {
                        name: "Progress".into(),
                        text: c.repeat(2),
                    }],
                }),
                ..Default::default()
            })
            .unwrap();
    }
    store
}

proptest! {
    // Exact BPE counting is slow in debug builds: fewer cases with the tiktoken feature.
    #![proptest_config(ProptestConfig::with_cases(if cfg!(feature = "tiktoken") { 64 } else { 256 }))]

    #[test]
    fn the_block_never_exceeds_the_budget(
        specs in prop::collection::vec(spec(), 0..40),
        budget in 0usize..700,
        thread in 0u8..5,
        user in 0u8..4,
        keywords in prop::collection::vec(prop::sample::select(WORDS), 0..3),
        o200k in any::<bool>(),
        item_tokens in 0usize..300,
    ) {
        let mut store = build(&specs);
        let encoding = if o200k { Encoding::O200kBase } else { Encoding::Cl100kBase };
        let q = RecallQuery {
            thread: format!("t{thread}"),
            user: Some(format!("u{user}")),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            budget_tokens: budget,
            encoding,
            item_tokens,
            ..Default::default()
        };
        let r = store.recall(&q).unwrap();
        let counted = TokenCounter::new(encoding).count(&r.block);
        prop_assert!(r.tokens <= budget, "{} > {budget}", r.tokens);
        prop_assert_eq!(counted, r.tokens);
        prop_assert_eq!(r.block.is_empty(), r.items.is_empty());
        let mut ids = BTreeSet::new();
        for item in &r.items {
            prop_assert!(ids.insert(item.id.clone()), "duplicate {}", item.id);
            let id_tag = format!("[{}]", item.id);
            prop_assert!(item.text.starts_with(&id_tag));
            prop_assert!(r.block.contains(&item.text));
        }
    }
}
