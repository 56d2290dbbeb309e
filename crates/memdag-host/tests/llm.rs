//! The host-LLM extractor through the host library, on the real component under Wasmtime:
//! a scripted LLM plugged in with `OpenOptions::llm` answers add / supersede per fact, bad
//! facts are refused one by one with their codes, an answer that is no facts object has the
//! rules learn the batch, and a host with no LLM refuses the pass. Needs the built component
//! (scripts/build-component.sh).

mod common;

use std::sync::{Arc, Mutex};

use memdag_host::{
    extract_query, item_query, ItemStatus, Memory, OpenOptions, Outcome, RefusalCode,
};

use common::{runtime, turn, SharedKv};

/// A fixed "now": 2023-11-14T22:13:20Z.
const NOW: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

/// A turn of `user` saying `input` at `at`.
fn said(memory: &mut Memory, id: &str, thread: &str, user: &str, input: &str, at: i64) {
    let mut t = turn(id, thread, at, &[]);
    t.user = user.into();
    t.input = input.into();
    t.output = "Noted.".into();
    memory.add_turn(t).unwrap();
}

/// The id of the known item whose text holds `words`, as a prompt lists it ("- m… (Ada): …").
fn shown_item(prompt: &str, words: &str) -> String {
    prompt
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .find(|l| l.contains(words))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn an_llm_extracts_through_the_host_fact_by_fact_and_bad_output_is_refused() {
    let prompts = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = prompts.clone();
    let mode = Arc::new(Mutex::new("good"));
    let modes = mode.clone();
    let llm = move |prompt: &str| {
        seen.lock().unwrap().push(prompt.to_string());
        let lisbon = shown_item(prompt, "Lisbon");
        Ok(match *modes.lock().unwrap() {
            "good" => r#"```json
{"facts": [{"op": "add", "source": "t1", "text": "Ada lives in Lisbon", "relation": "residence",
            "object": "Lisbon", "confidence": 0.9}]}
```"#
                .to_string(),
            "move" => format!(
                r#"{{"facts": [
                    {{"op": "supersede", "item": "{lisbon}", "source": "t2", "text": "Ada lives in Porto",
                      "relation": "residence", "object": "Porto"}},
                    {{"op": "update", "item": "m-ghost", "source": "t2", "text": "x"}},
                    {{"op": "add", "source": "t9", "text": "x"}},
                    {{"op": "add", "source": "t2", "text": "x", "confidence": 2}},
                    {{"op": "add", "source": "t2", "speaker": "Zed", "text": "x"}}
                ]}}"#
            ),
            _ => "She lives in Lisbon, I think.".to_string(),
        })
    };
    let kv = SharedKv::default();
    let mut memory = runtime()
        .open_with(kv.clone(), OpenOptions::new().llm(llm))
        .unwrap();
    said(
        &mut memory,
        "t1",
        "a",
        "ada",
        "Just settled in Lisbon!",
        NOW - DAY,
    );

    let report = memory.extract_with_llm(&extract_query(&["t1"])).unwrap();
    assert_eq!(report.learned.len(), 1, "{report:?}");
    let item = report.learned[0].item.clone();
    assert_eq!(item.text, "Ada lives in Lisbon");
    assert_eq!(item.object.as_deref(), Some("Lisbon"));
    assert_eq!(item.sources, ["t1"]);
    assert_eq!(item.confidence, 0.9);
    let cost = report.llm.unwrap();
    assert_eq!(cost.calls, 1);
    assert!(
        cost.prompt_tokens > 500 && cost.answer_tokens > 10,
        "{cost:?}"
    );
    assert!(prompts.lock().unwrap()[0].contains("[t1] Ada"));

    // A supersede with history, three bad facts refused one by one with their codes.
    said(&mut memory, "t2", "b", "ada", "We moved to Porto.", NOW);
    *mode.lock().unwrap() = "move";
    let report = memory.extract_with_llm(&extract_query(&["t2"])).unwrap();
    assert!(
        prompts.lock().unwrap()[1].contains("Ada lives in Lisbon"),
        "known items shown"
    );
    assert_eq!(report.learned.len(), 1);
    assert_eq!(report.learned[0].outcome, Outcome::Superseded);
    let codes: Vec<(Option<u32>, RefusalCode)> =
        report.refused.iter().map(|r| (r.fact, r.code)).collect();
    assert_eq!(
        codes,
        [
            (Some(1), RefusalCode::UnknownItem),
            (Some(2), RefusalCode::UnknownSource),
            (Some(3), RefusalCode::BadConfidence),
            (Some(4), RefusalCode::UnknownSpeaker)
        ]
    );
    let old = memory.get_item(&item.id).unwrap().unwrap();
    assert_eq!(old.status, ItemStatus::Superseded);

    // An answer that is no facts object: the rules learn the batch, and say so.
    *mode.lock().unwrap() = "prose";
    said(
        &mut memory,
        "t3",
        "c",
        "ada",
        "I am allergic to peanuts.",
        NOW,
    );
    let report = memory.extract_with_llm(&extract_query(&["t3"])).unwrap();
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].code, RefusalCode::NotJson);
    assert_eq!(report.refused[0].fact, None);
    assert_eq!(report.by_rules, ["t3"]);
    assert_eq!(report.learned.len(), 1, "{report:?}");
    assert_eq!(report.learned[0].item.object.as_deref(), Some("peanuts"));
    let texts: Vec<String> = memory
        .list_items(&item_query())
        .unwrap()
        .into_iter()
        .map(|i| i.text)
        .collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts.contains(&"Ada lives in Porto".to_string()));

    // Without an LLM plugged in, asking for one is a host error, and nothing is learned.
    let before = kv.entries();
    let mut plain = runtime().open(kv.clone(), None).unwrap();
    let err = plain.extract_with_llm(&extract_query(&["t1"])).unwrap_err();
    assert_eq!(err.code(), Some("HOST"), "{err}");
    assert_eq!(kv.entries(), before);
}
