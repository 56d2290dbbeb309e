//! The host-LLM extractor's contract, with scripted LLMs: batches of a thread's turns, a prompt
//! showing the known items, add / update / supersede / none applied with history kept, bad
//! answers refused fact by fact with stable codes (the rules learning a batch whose answer is
//! refused whole), the calls and tokens counted; and the oracle replay: an LLM answering with
//! LoCoMo's annotated observations of the turns it is shown (tests/data/locomo), through which
//! memdag's own pipeline must keep at least 95% of them.

use memdag_core::item::{ItemKind, ItemStatus};
use memdag_core::json::turn_from_json;
use memdag_core::memory::llm::{self, RefusalCode};
use memdag_core::memory::{ExtractQuery, ItemQuery, Outcome};
use memdag_core::{Error, NewTurn, Store};
use serde_json::{json, Value};

const T0: i64 = 1_700_000_000_000;
const MIN: i64 = 60_000;

fn said(id: &str, thread: &str, user: &str, at: i64, input: &str) -> NewTurn {
    NewTurn {
        id: Some(id.into()),
        thread: thread.into(),
        user: user.into(),
        created_at: at,
        input: input.into(),
        ..NewTurn::default()
    }
}

fn chat() -> Store {
    let mut s = Store::new();
    let lines = [
        (
            "t1",
            "s1",
            "sam",
            "I moved to Leeds last year and I work at a bakery.",
        ),
        ("t2", "s1", "jo", "Nice! How is the bakery?"),
        (
            "t3",
            "s1",
            "sam",
            "Busy. I also started learning the cello.",
        ),
        ("t4", "s2", "sam", "Big news: I moved to York last week."),
        ("t5", "s2", "sam", "The cello lessons are now twice a week."),
        ("t6", "s2", "sam", "Still at the bakery, still loving it."),
    ];
    for (i, (id, thread, user, text)) in lines.into_iter().enumerate() {
        s.add_turn(said(id, thread, user, T0 + i as i64 * MIN, text))
            .unwrap();
    }
    s
}

fn thread(name: &str) -> ExtractQuery {
    ExtractQuery {
        thread: Some(name.into()),
        ..ExtractQuery::default()
    }
}

fn active(s: &Store, user: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .list_items(&ItemQuery {
            user: Some(user.into()),
            ..ItemQuery::default()
        })
        .unwrap()
        .into_iter()
        .map(|i| i.text)
        .collect();
    v.sort();
    v
}

/// The ids of the turns a prompt shows ("[t1] Sam, 14 November 2023: ...").
fn shown_turns(prompt: &str) -> Vec<String> {
    let at = prompt.find("\nNew turns").expect("a turns section");
    prompt[at..]
        .lines()
        .filter_map(|l| {
            l.strip_prefix('[')?
                .split_once("] ")
                .map(|(id, _)| id.into())
        })
        .collect()
}

/// The ids of the known items a prompt shows ("- m… (Sam): text"), with their texts.
fn shown_items(prompt: &str) -> Vec<(String, String)> {
    let from = prompt.find("Known items").expect("an items section");
    let to = prompt.find("\nNew turns").unwrap();
    prompt[from..to]
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("- ")?;
            let (id, rest) = rest.split_once(' ')?;
            Some((id.into(), rest.split_once("): ")?.1.into()))
        })
        .collect()
}

fn item_with(prompt: &str, words: &str) -> String {
    shown_items(prompt)
        .into_iter()
        .find(|(_, t)| t.contains(words))
        .unwrap_or_else(|| panic!("no item with {words:?} in the prompt"))
        .0
}

#[test]
fn a_scripted_llm_adds_updates_supersedes_and_corroborates_with_history() {
    let mut s = chat();
    let mut prompts = Vec::new();
    let first = s
        .extract_with(&thread("s1"), &mut |p| {
            prompts.push(p.to_string());
            assert_eq!(shown_turns(p), ["t1", "t2", "t3"], "one thread's turns");
            assert!(p.contains("(none yet)"), "no items known yet");
            Ok(json!({"facts": [
                {"op": "add", "source": "t1", "text": "Sam lives in Leeds", "relation": "residence",
                 "object": "Leeds", "confidence": 0.9},
                {"op": "add", "source": "t1", "text": "Sam works at a bakery", "kind": "personal"},
                {"op": "add", "source": "t3", "text": "Sam is learning the cello"}
            ]})
            .to_string())
        })
        .unwrap();
    assert_eq!(first.learned.len(), 3, "{first:?}");
    assert!(first.refused.is_empty() && first.by_rules.is_empty());
    let cost = first.llm.unwrap();
    assert_eq!(cost.calls, 1);
    assert!(
        cost.prompt_tokens > 500 && cost.answer_tokens > 20,
        "{cost:?}"
    );
    let leeds = first.learned[0].item.clone();
    assert_eq!(leeds.meta.confidence, 0.9);
    assert_eq!(leeds.sources, ["t1"]);
    assert_eq!(
        first.learned[1].item.meta.confidence,
        llm::DEFAULT_CONFIDENCE
    );

    let second = s
        .extract_with(&thread("s2"), &mut |p| {
            assert!(
                p.contains("Sam lives in Leeds"),
                "the known items are shown"
            );
            let (leeds, cello, bakery) = (
                item_with(p, "Leeds"),
                item_with(p, "cello"),
                item_with(p, "bakery"),
            );
            Ok(json!({"facts": [
                {"op": "supersede", "item": leeds, "source": "t4", "text": "Sam lives in York",
                 "relation": "residence", "object": "York"},
                {"op": "update", "item": cello, "source": "t5",
                 "text": "Sam takes cello lessons twice a week"},
                {"op": "none", "item": bakery, "source": "t6"}
            ]})
            .to_string())
        })
        .unwrap();
    let outcomes: Vec<Outcome> = second.learned.iter().map(|l| l.outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::Superseded, Outcome::Updated, Outcome::Corroborated],
        "{second:?}"
    );
    assert_eq!(
        active(&s, "sam"),
        [
            "Sam lives in York",
            "Sam takes cello lessons twice a week",
            "Sam works at a bakery"
        ]
    );
    // History kept: the superseded item is still there, and the update has two versions.
    let old = s.item(&leeds.id).unwrap();
    assert_eq!(old.meta.status, ItemStatus::Superseded);
    let cello = &second.learned[1].item;
    let history = s.item_history(&cello.id).unwrap();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(history[0].text, "Sam is learning the cello");
    let bakery = &second.learned[2].item;
    assert_eq!(bakery.sources, ["t1", "t6"], "corroborated by the new turn");
    assert_eq!(bakery.meta.log.last().unwrap().by, "llm");
}

#[test]
fn a_fact_names_whom_it_is_about_and_a_shown_item_the_model_did_not_name_is_another_fact() {
    let mut s = chat();
    let report = s
        .extract_with(&thread("s1"), &mut |_| {
            Ok(json!({"facts": [
                {"op": "add", "source": "t2", "speaker": "Sam", "text": "Sam works at a bakery"},
                {"op": "add", "source": "t2", "text": "Jo asked about the bakery"},
                {"op": "add", "source": "t3", "speaker": "Kim", "text": "Kim plays the cello"}
            ]})
            .to_string())
        })
        .unwrap();
    let whose: Vec<(&str, &str)> = report
        .learned
        .iter()
        .map(|l| (l.item.user.as_str(), l.item.text.as_str()))
        .collect();
    assert_eq!(
        whose,
        [
            ("sam", "Sam works at a bakery"),
            ("jo", "Jo asked about the bakery")
        ],
        "Jo's turn tells about Sam"
    );
    assert_eq!(report.learned[0].item.sources, ["t2"]);
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].code, RefusalCode::UnknownSpeaker);
    assert_eq!(report.refused[0].fact, Some(2));

    // The model saw "Sam works at a bakery" and added a fact beside it: a distinct item, where
    // the rules alone would fold it in; the same text again corroborates.
    let mut rules = chat();
    rules
        .add_item(memdag_core::item::NewItem {
            kind: Some(ItemKind::Personal),
            user: "sam".into(),
            text: "Sam works at a bakery".into(),
            sources: vec!["t1".into()],
            created_at: T0,
            ..Default::default()
        })
        .unwrap();
    let by_rules = rules
        .add_item(memdag_core::item::NewItem {
            kind: Some(ItemKind::Personal),
            user: "sam".into(),
            text: "Sam works at a bakery on weekends".into(),
            sources: vec!["t6".into()],
            created_at: T0,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        by_rules.outcome,
        Outcome::Corroborated,
        "the rules fold it in"
    );
    let report = s
        .extract_with(&thread("s2"), &mut |p| {
            assert!(p.contains("Sam works at a bakery"));
            Ok(json!({"facts": [
                {"op": "add", "source": "t6", "text": "Sam works at a bakery on weekends"},
                {"op": "add", "source": "t6", "text": "Sam works at a bakery"}
            ]})
            .to_string())
        })
        .unwrap();
    let outcomes: Vec<Outcome> = report.learned.iter().map(|l| l.outcome).collect();
    assert_eq!(
        outcomes,
        [Outcome::Added, Outcome::Corroborated],
        "{report:?}"
    );
}

#[test]
fn bad_facts_are_refused_alone_with_their_codes_and_nothing_else_changes() {
    let mut s = chat();
    s.extract_with(&thread("s1"), &mut |_| {
        Ok(r#"{"facts": [{"op": "add", "source": "t1", "text": "Sam lives in Leeds"}]}"#.into())
    })
    .unwrap();
    let jo_item = s
        .add_item(memdag_core::item::NewItem {
            kind: Some(ItemKind::Personal),
            user: "jo".into(),
            text: "Jo likes tea".into(),
            created_at: T0,
            ..Default::default()
        })
        .unwrap()
        .item
        .id;
    let before = active(&s, "sam");
    let long = "x".repeat(200_000);
    let report = s
        .extract_with(&thread("s2"), &mut |p| {
            let leeds = item_with(p, "Leeds");
            Ok(json!({"facts": [
                {"op": "add", "source": "t4", "text": "Sam moved to York"},
                {"op": "add", "source": "t1", "text": "a turn of another batch"},
                {"op": "replace", "source": "t4", "text": "x"},
                {"op": "update", "item": "m-ghost", "source": "t4", "text": "x"},
                {"op": "update", "item": jo_item, "source": "t4", "text": "Jo's item, Sam's turn"},
                {"op": "supersede", "item": leeds, "source": "t4", "text": " "},
                {"op": "add", "source": "t5", "text": "x", "confidence": 1.5},
                {"op": "add", "source": "t5", "text": "x", "mood": "happy"},
                {"op": "add", "source": "t5", "text": "x", "kind": "opinion"},
                {"op": "add", "source": "t5", "text": long},
                {"op": "add", "source": "t6", "text": "Sam still loves the bakery", "kind": "fact"},
                7
            ]})
            .to_string())
        })
        .unwrap();
    let refused: Vec<(Option<usize>, RefusalCode)> =
        report.refused.iter().map(|r| (r.fact, r.code)).collect();
    assert_eq!(
        refused,
        [
            (Some(1), RefusalCode::UnknownSource),
            (Some(2), RefusalCode::UnknownOp),
            (Some(3), RefusalCode::UnknownItem),
            (Some(4), RefusalCode::UnknownItem),
            (Some(5), RefusalCode::EmptyText),
            (Some(6), RefusalCode::BadConfidence),
            (Some(7), RefusalCode::BadFact),
            (Some(8), RefusalCode::BadFact),
            (Some(9), RefusalCode::InvalidItem),
            (Some(10), RefusalCode::BadFact),
            (Some(11), RefusalCode::BadFact),
        ],
        "{:#?}",
        report.refused
    );
    assert!(report
        .refused
        .iter()
        .all(|r| r.batch == 0 && !r.message.is_empty()));
    assert_eq!(report.learned.len(), 1, "only the good fact");
    let mut after = before.clone();
    after.push("Sam moved to York".into());
    after.sort();
    assert_eq!(active(&s, "sam"), after);
    assert_eq!(
        active(&s, "jo"),
        ["Jo likes tea"],
        "another user's item untouched"
    );
    assert_eq!(s.item(&jo_item).unwrap().meta.version, 1);
    assert_eq!(RefusalCode::UnknownSource.name(), "UNKNOWN_SOURCE");
    let as_json = serde_json::to_value(&report.refused[0]).unwrap();
    assert_eq!(as_json["code"], "UNKNOWN_SOURCE");
    assert_eq!(as_json["fact"], 1);
}

#[test]
fn an_answer_refused_whole_or_a_failed_call_has_the_rules_learn_the_batch() {
    for answer in [
        Ok("Sure! Sam lives in Leeds.".to_string()),
        Ok(r#"{"items": []}"#.to_string()),
        Err(Error::Host {
            message: "model unavailable".into(),
        }),
    ] {
        let mut s = chat();
        let mut rules = chat();
        let by_rules = rules.extract(&thread("s1")).unwrap();
        assert!(!by_rules.learned.is_empty(), "the rules learn from s1");
        let code = match &answer {
            Ok(a) if a.starts_with('{') => RefusalCode::BadShape,
            _ => RefusalCode::NotJson,
        };
        let report = s
            .extract_with(&thread("s1"), &mut |_| answer.clone())
            .unwrap();
        assert_eq!(report.refused.len(), 1);
        assert_eq!(report.refused[0].code, code);
        assert_eq!(report.refused[0].fact, None);
        assert_eq!(report.by_rules, ["t1", "t2", "t3"]);
        assert_eq!(report.llm.unwrap().calls, 1);
        assert_eq!(
            active(&s, "sam"),
            active(&rules, "sam"),
            "as the rules alone"
        );
    }
}

#[test]
fn batches_follow_threads_and_the_token_cap() {
    let mut s = Store::new();
    let long = "I have been restoring an old boat with my brother every weekend. ".repeat(40);
    for i in 0..12 {
        let thread = if i % 2 == 0 { "a" } else { "b" };
        s.add_turn(said(&format!("t{i}"), thread, "sam", T0 + i * MIN, &long))
            .unwrap();
    }
    let batches = s
        .llm_batches(&ExtractQuery {
            user: Some("sam".into()),
            ..ExtractQuery::default()
        })
        .unwrap();
    let threads: Vec<&str> = batches
        .iter()
        .map(|b| s.get(&b.turns[0]).unwrap().thread.as_str())
        .collect();
    for b in &batches {
        assert!(b
            .turns
            .iter()
            .all(|t| s.get(t).unwrap().thread == threads_of(&s, b)));
    }
    assert!(batches.len() > 2, "cut by tokens: {batches:?}");
    assert!(batches
        .iter()
        .all(|b| b.tokens <= llm::BATCH_TOKENS || b.turns.len() == 1));
    assert_eq!(threads.first(), Some(&"a"));
    assert_eq!(threads.last(), Some(&"b"), "thread a, then thread b");
    let all: usize = batches.iter().map(|b| b.turns.len()).sum();
    assert_eq!(all, 12);
    let mut calls = 0;
    let report = s
        .extract_with(
            &ExtractQuery {
                user: Some("sam".into()),
                ..ExtractQuery::default()
            },
            &mut |p| {
                calls += 1;
                assert!(llm::schema().to_string().len() > 100 && p.contains("\"facts\""));
                Ok(r#"{"facts": []}"#.into())
            },
        )
        .unwrap();
    assert_eq!(calls, batches.len());
    assert_eq!(report.llm.unwrap().calls, batches.len());
    assert_eq!(report.turns, 12);
    assert!(report.learned.is_empty());
}

fn threads_of(s: &Store, b: &llm::LlmBatch) -> String {
    s.get(&b.turns[0]).unwrap().thread.clone()
}

// ---- the oracle replay -------------------------------------------------------------------

/// LoCoMo observations (tests/data/locomo: sessions 1 to 4 of conversation 30).
struct Observation {
    speaker: String,
    fact: String,
    evidence: Vec<String>,
}

fn locomo() -> (Store, Vec<Observation>) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/locomo");
    let mut s = Store::new();
    for line in std::fs::read_to_string(format!("{dir}/conv-30.turns.jsonl"))
        .unwrap()
        .lines()
    {
        s.add_turn(turn_from_json(line, 0).unwrap()).unwrap();
    }
    let obs = std::fs::read_to_string(format!("{dir}/conv-30.observations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Observation {
                speaker: v["speaker"].as_str().unwrap().into(),
                fact: v["fact"].as_str().unwrap().into(),
                evidence: v["evidence"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e.as_str().unwrap().into())
                    .collect(),
            }
        })
        .collect();
    (s, obs)
}

/// The oracle's answer to a prompt: every observation not yet answered that cites a turn the
/// prompt shows, added from the speaker's own turn among them (else the first shown).
fn oracle(
    prompt: &str,
    obs: &[Observation],
    answered: &mut [bool],
    users: &dyn Fn(&str) -> String,
) -> String {
    let shown = shown_turns(prompt);
    let mut facts = Vec::new();
    for (o, done) in obs.iter().zip(answered.iter_mut()) {
        let here: Vec<&String> = o.evidence.iter().filter(|e| shown.contains(e)).collect();
        if *done || here.is_empty() {
            continue;
        }
        *done = true;
        let source = here
            .iter()
            .find(|e| users(e) == o.speaker)
            .unwrap_or(&here[0]);
        let speaker = (users(source) != o.speaker).then_some(&o.speaker);
        facts.push(json!({"op": "add", "source": source, "speaker": speaker, "text": o.fact}));
    }
    json!({ "facts": facts }).to_string()
}

#[test]
fn the_oracle_replay_keeps_what_the_annotators_found() {
    let (mut s, obs) = locomo();
    let user_of: std::collections::BTreeMap<String, String> =
        s.iter().map(|r| (r.id.clone(), r.user.clone())).collect();
    let users = |id: &str| user_of.get(id).cloned().unwrap_or_default();
    let mut answered = vec![false; obs.len()];
    let q = ExtractQuery {
        ids: user_of.keys().cloned().collect(),
        ..ExtractQuery::default()
    };
    let report = s
        .extract_with(&q, &mut |p| Ok(oracle(p, &obs, &mut answered, &users)))
        .unwrap();
    assert!(report.refused.is_empty(), "{:?}", report.refused);
    assert!(answered.iter().all(|a| *a), "every observation was shown");
    let cost = report.llm.unwrap();
    assert_eq!(cost.calls, 4, "one call a session");
    // Integrity: an active item of the observation's speaker, citing one of its turns, says
    // it (the same text: what the oracle gave, unless the pipeline merged or replaced it).
    let items = s
        .list_items(&ItemQuery {
            limit: 10_000,
            ..ItemQuery::default()
        })
        .unwrap();
    let kept = obs
        .iter()
        .filter(|o| {
            items.iter().any(|i| {
                i.user == o.speaker
                    && i.text == o.fact
                    && i.sources.iter().any(|src| o.evidence.contains(src))
            })
        })
        .count();
    let integrity = kept as f64 / obs.len() as f64;
    eprintln!(
        "oracle replay: integrity {integrity:.3} ({kept}/{}), {} calls, {} prompt and {} answer tokens for {} turns",
        obs.len(),
        cost.calls,
        cost.prompt_tokens,
        cost.answer_tokens,
        report.turns
    );
    assert!(
        integrity >= 0.95,
        "oracle-replay integrity {integrity:.3} ({kept}/{})",
        obs.len()
    );
}
