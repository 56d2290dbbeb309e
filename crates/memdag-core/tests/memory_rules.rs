//! The rule-based extractor on phrasings written for this test (not the labelled sets): what a
//! user types should give the item it states, and nothing else; what is not a statement about
//! the user should give nothing.

use memdag_core::item::ItemKind;
use memdag_core::memory::rules::{self, Extracted, Speaker};
use memdag_core::{Record, Step};

fn extract(record: &Record) -> Vec<Extracted> {
    rules::extract(record, &Speaker { name: "Ada" })
}

fn turn(input: &str) -> Record {
    Record {
        id: "t".into(),
        seq: 0,
        thread: "t".into(),
        user: "u".into(),
        created_at: 0,
        input: input.into(),
        output: "Sure! I think you live in Paris and love jazz.".into(),
        steps: Vec::new(),
        parents: Vec::new(),
        tags: Vec::new(),
        importance: 0.5,
        compact: None,
        embedding: None,
        item: None,
    }
}

/// (input, kind, relation or "", words the item's text must hold)
const STATED: &[(&str, ItemKind, &str, &[&str])] = &[
    (
        "Always run the tests before you deploy.",
        ItemKind::Procedural,
        "",
        &["run the tests before you deploy"],
    ),
    (
        "I live in Austin.",
        ItemKind::Personal,
        "residence",
        &["Austin"],
    ),
    (
        "i live in austin tx",
        ItemKind::Personal,
        "residence",
        &["austin"],
    ),
    (
        "We just moved to Portland last month and I love it",
        ItemKind::Personal,
        "residence",
        &["Portland"],
    ),
    (
        "I'm based in Singapore, so timezones are tricky",
        ItemKind::Personal,
        "residence",
        &["Singapore"],
    ),
    (
        "since i moved to toronto the winters have been rough",
        ItemKind::Personal,
        "residence",
        &["toronto"],
    ),
    ("My name is Alice.", ItemKind::Personal, "name", &["Alice"]),
    (
        "hey! i'm priya, nice to meet you",
        ItemKind::Personal,
        "name",
        &["priya"],
    ),
    ("Please call me Sam.", ItemKind::Personal, "name", &["Sam"]),
    (
        "I work at Google as an SRE.",
        ItemKind::Personal,
        "employer",
        &["Google"],
    ),
    (
        "I'm a software engineer.",
        ItemKind::Personal,
        "job",
        &["software engineer"],
    ),
    (
        "I'm currently a student at MIT",
        ItemKind::Personal,
        "job",
        &["student"],
    ),
    (
        "I work as a high school teacher",
        ItemKind::Personal,
        "job",
        &["high school teacher"],
    ),
    ("I'm 34 years old", ItemKind::Personal, "age", &["34"]),
    (
        "I love dark chocolate.",
        ItemKind::Personal,
        "likes",
        &["dark chocolate"],
    ),
    (
        "honestly I'm obsessed with sourdough baking lately",
        ItemKind::Personal,
        "likes",
        &["sourdough"],
    ),
    (
        "I'm a huge Arsenal fan",
        ItemKind::Personal,
        "likes",
        &["Arsenal"],
    ),
    (
        "I hate olives.",
        ItemKind::Personal,
        "dislikes",
        &["olives"],
    ),
    (
        "I'm not a fan of spicy food",
        ItemKind::Personal,
        "dislikes",
        &["spicy food"],
    ),
    (
        "I'm allergic to peanuts",
        ItemKind::Personal,
        "allergy",
        &["peanuts"],
    ),
    ("I'm vegan", ItemKind::Personal, "diet", &["vegan"]),
    (
        "I have three kids",
        ItemKind::Personal,
        "has",
        &["three kids"],
    ),
    (
        "Always reply in German please.",
        ItemKind::Personal,
        "language",
        &["German"],
    ),
    (
        "From now on, don't use emojis in your answers.",
        ItemKind::Personal,
        "",
        &["emojis"],
    ),
    (
        "Never schedule meetings on Fridays for me.",
        ItemKind::Personal,
        "",
        &["Fridays"],
    ),
    (
        "Remember that my son's birthday is June 3.",
        ItemKind::Personal,
        "",
        &["June 3"],
    ),
    (
        "I'm originally from Ohio",
        ItemKind::Personal,
        "origin",
        &["Ohio"],
    ),
    ("我叫李明。", ItemKind::Personal, "name", &["李明"]),
    ("我住在北京海淀", ItemKind::Personal, "residence", &["北京"]),
    ("我在华为做测试", ItemKind::Personal, "employer", &["华为"]),
    ("我是一名护士", ItemKind::Personal, "job", &["护士"]),
    (
        "我在 Shopee 做 data analyst",
        ItemKind::Personal,
        "employer",
        &["Shopee"],
    ),
    ("我特别喜欢吃火锅", ItemKind::Personal, "likes", &["火锅"]),
    ("我不太能吃辣", ItemKind::Personal, "dislikes", &["辣"]),
    ("我对海鲜过敏", ItemKind::Personal, "allergy", &["海鲜"]),
    ("我今年三十二岁", ItemKind::Personal, "age", &["32"]),
    (
        "以后回复我请用英文",
        ItemKind::Personal,
        "language",
        &["英文"],
    ),
    ("记住，我不喝酒", ItemKind::Personal, "dislikes", &["酒"]),
    ("我来自重庆", ItemKind::Personal, "origin", &["重庆"]),
    ("我家养了一只狗", ItemKind::Personal, "has", &["一只狗"]),
    (
        "下次发版之前先跑一遍测试",
        ItemKind::Procedural,
        "",
        &["测试"],
    ),
    (
        "Next time, back up the database before migrating.",
        ItemKind::Procedural,
        "",
        &["back up"],
    ),
];

/// Inputs that state nothing about the user (a retraction may end an item, but adds none).
const NOTHING: &[&str] = &[
    "I'll always be here for you.",
    "Never let your dreams go.",
    "What's the weather in Paris?",
    "Do you like jazz?",
    "If I moved to Berlin, what would rent cost?",
    "My brother lives in Madrid.",
    "My boss hates meetings.",
    "I don't live in London anymore, but where should I stay there?",
    "Translate to French: I love cheese and I live in Lyon.",
    "He said \"I'm allergic to cats\" and left.",
    "lol I'm literally a potato today",
    "I'd love a coffee right now",
    "I might move to Denver next year",
    "Can you remind me what my name is?",
    "thanks!",
    "Is it true that you live in the cloud?",
    "我妈妈住在上海。",
    "如果我去日本，需要签证吗？",
    "你喜欢吃火锅吗？",
    "我不住在广州。",
    "哈哈我就是个吃货",
    "帮我翻译：我住在西安。",
    "今天好累啊",
];

#[test]
fn statements_give_their_item() {
    let mut failed = Vec::new();
    for (input, kind, relation, words) in STATED {
        let found = extract(&turn(input));
        let ok = found.iter().any(|e| {
            e.kind == *kind
                && (relation.is_empty() || e.relation.as_deref() == Some(*relation))
                && words
                    .iter()
                    .all(|w| e.text.to_lowercase().contains(&w.to_lowercase()))
        });
        if !ok {
            failed.push(format!("{input:?} gave {found:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn non_statements_give_nothing() {
    let mut failed = Vec::new();
    for input in NOTHING {
        let found: Vec<_> = extract(&turn(input))
            .into_iter()
            .filter(|e| !e.retract)
            .collect();
        if !found.is_empty() {
            failed.push(format!("{input:?} gave {found:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn the_assistant_output_is_never_read() {
    assert!(extract(&turn("ok")).is_empty());
}

#[test]
fn a_tool_fix_is_learned_from_the_steps() {
    let mut t = turn("book it");
    t.steps = vec![
        Step {
            tool: "book".into(),
            args: r#"{"date":"tomorrow"}"#.into(),
            result: "error: date must be YYYY-MM-DD".into(),
            ok: false,
        },
        Step {
            tool: "book".into(),
            args: r#"{"date":"2024-05-02"}"#.into(),
            result: "booked".into(),
            ok: true,
        },
    ];
    let found = extract(&t);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, ItemKind::Tool);
    assert_eq!(found[0].tool.as_deref(), Some("book"));
    assert!(found[0].text.contains("date"));
}

#[test]
fn an_eye_rolled_love_is_no_preference() {
    assert!(extract(&turn(
        "oh yeah i just LOVE waiting on hold with my bank for 2 hours 🙄"
    ))
    .is_empty());
    assert!(!extract(&turn("I just love dark chocolate")).is_empty());
}

#[test]
fn a_past_home_is_something_that_happened_not_a_residence() {
    let found = extract(&turn("I lived in Tokyo for two years back in college."));
    assert!(found
        .iter()
        .all(|e| e.relation.as_deref() != Some("residence")));
    assert_eq!(
        found.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(),
        ["Ada lived in Tokyo for two years back in college"]
    );
}

#[test]
fn an_order_with_a_condition_on_the_listener_is_an_instruction_and_pep_talk_is_not() {
    // The "you" of a condition is the agent being told when to do it.
    for (input, text) in [
        (
            "Always run the tests before you deploy.",
            "Always run the tests before you deploy",
        ),
        (
            "Never push when you are unsure.",
            "Never push when you are unsure",
        ),
    ] {
        let found = extract(&turn(input));
        assert_eq!(
            found.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(),
            [text],
            "{input}"
        );
    }
    // Said of the listener, it is encouragement: nothing to remember.
    for input in [
        "Never give up on your dreams.",
        "Always remember you are loved.",
    ] {
        assert!(extract(&turn(input)).is_empty(), "{input}");
    }
}
