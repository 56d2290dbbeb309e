//! The conversational rules on sentences written for this test in the style of casual chat
//! between friends (no conversation of the benchmark is quoted): what a speaker tells about
//! themself becomes an item naming them, with its time resolved; replies, reactions,
//! compliments, questions and pep talk become nothing.

use memdag_core::item::ItemKind;
use memdag_core::memory::rules::{self, Extracted, Speaker};
use memdag_core::Record;

/// 8 May 2023, 13:56 UTC (a Monday).
const AT: i64 = 1_683_554_160_000;

fn said(input: &str) -> Vec<Extracted> {
    let r = Record {
        id: "t".into(),
        seq: 0,
        thread: "t".into(),
        user: "priya".into(),
        created_at: AT,
        input: input.into(),
        output: String::new(),
        steps: Vec::new(),
        parents: Vec::new(),
        tags: Vec::new(),
        importance: 0.5,
        compact: None,
        embedding: None,
        item: None,
    };
    rules::extract(&r, &Speaker { name: "Priya" })
}

fn texts(input: &str) -> Vec<String> {
    said(input).into_iter().map(|e| e.text).collect()
}

/// (what the speaker wrote, the item's text)
const TOLD: &[(&str, &str)] = &[
    (
        "omg guess what, I adopted a rescue greyhound on Saturday!",
        "Priya adopted a rescue greyhound on 6 May 2023",
    ),
    (
        "Hey Sam! Just got back from a week of hiking in Scotland. Exhausted but happy.",
        "Priya just got back from a week of hiking in Scotland",
    ),
    (
        "Since we last talked, I've been taking evening classes in welding.",
        "Priya has been taking evening classes in welding",
    ),
    (
        "We're driving up to the lake house next month, can't wait.",
        "Priya and others are driving up to the lake house in June 2023, can't wait",
    ),
    (
        "Yesterday I finally handed in my thesis",
        "On 7 May 2023 Priya finally handed in their thesis",
    ),
    (
        "I'm a night-shift nurse so my sleep is all over the place.",
        "Priya is a night-shift nurse so their sleep is all over the place",
    ),
    (
        "My husband and I celebrated our tenth anniversary last week.",
        "Priya and their husband celebrated their tenth anniversary in the week of 1 May 2023",
    ),
    (
        "I've been married for twelve years now.",
        "Priya has been married for twelve years now",
    ),
    (
        "Honestly I'm really into bouldering these days.",
        "Priya is really into bouldering these days",
    ),
    (
        "I volunteer at the food bank every Sunday morning.",
        "Priya volunteers at the food bank every Sunday morning",
    ),
    (
        "I'm going to run my first half marathon in October!",
        "Priya is going to run their first half marathon in October",
    ),
    (
        "I want to open a little bakery one day.",
        "Priya wants to open a little bakery one day",
    ),
    (
        "I've got two cats and a very loud parrot.",
        "Priya has got two cats and a very loud parrot",
    ),
    (
        "I love baking sourdough on lazy weekends.",
        "Priya loves baking sourdough on lazy weekends",
    ),
    (
        "Last Thurs I finally took my nephew to the aquarium.",
        "Last Thurs Priya finally took their nephew to the aquarium",
    ),
    (
        "Oh yeah, we went to the flea market recently.",
        "Priya and others went to the flea market recently",
    ),
    (
        "Yep, I knitted it in my Tuesday class yesterday!",
        "Priya knitted it in their Tuesday class on 7 May 2023",
    ),
    (
        "Board games night matters a lot to me.",
        "Board games night matters a lot to Priya",
    ),
    (
        "Swimming helps me clear my head after a long shift.",
        "Swimming helps Priya clear their head after a long shift",
    ),
    (
        "Woodworking is my happy place.",
        "Woodworking is Priya's happy place",
    ),
    (
        "Running has kept me going through a rough winter.",
        "Running has kept Priya going through a rough winter",
    ),
    (
        "Jazz piano really speaks to me.",
        "Jazz piano really speaks to Priya",
    ),
    (
        "Big news: I'm moving to Leeds in June!",
        "Priya is moving to Leeds in June",
    ),
    (
        "My parents are visiting, so I'm repainting the spare room.",
        "Priya is repainting the spare room",
    ),
    (
        "Rex and I have been going to agility classes.",
        "Rex and Priya have been going to agility classes",
    ),
    (
        "I really love painting and I was so happy to finish one.",
        "Priya really loves painting, they were so happy to finish one",
    ),
    (
        "I just finished reading \"The Overstory.\" Loved it.",
        "Priya just finished reading \"The Overstory\"",
    ),
];

#[test]
fn what_a_speaker_tells_about_themself_is_told_about_them() {
    let mut failed = Vec::new();
    for (input, want) in TOLD {
        let got = texts(input);
        if !got.iter().any(|t| t == want) {
            failed.push(format!("{input:?}\n   gave {got:?}\n   want {want:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Replies, reactions, compliments on the other person's things, questions, greetings,
/// hedges, pep talk and what others did.
const NOTHING: &[&str] = &[
    "Hey! How have you been?",
    "That's amazing, congrats!!",
    "I love that for you",
    "Love the new haircut!",
    "I love the colours in this one",
    "I'm so happy for you, you deserve it",
    "I'm so glad you had a good time",
    "I totally agree, family comes first",
    "I bet the view was incredible",
    "I'd love to see more of your photos",
    "I can't wait to hear all about it",
    "I won't give up, no matter what",
    "We got this!",
    "We can do it together",
    "I might try that sometime",
    "Maybe I'll take up painting someday",
    "Thanks so much, that means a lot",
    "What made you pick that colour?",
    "You should totally enter it in a competition",
    "My sister just moved to Lisbon",
    "My boss is vegan and hates spicy food",
    "I made it!",
    "I'm off to bed, talk soon!",
    "lol I'm basically a professional nap taker",
    "I'm excited!",
    "I know right",
    "I hope you feel better soon",
    "Remember, just keep going!",
    "Always here for you",
    "It means so much to me",
    "Your advice really helped me a lot",
    "Love having you around, thanks for everything",
    "I painted it because it was calming",
];

#[test]
fn replies_reactions_and_pep_talk_state_nothing() {
    let mut failed = Vec::new();
    for input in NOTHING {
        let got = texts(input);
        if !got.is_empty() {
            failed.push(format!("{input:?} gave {got:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn an_item_is_personal_with_a_class_tag_and_its_confidence() {
    let found = said("Last Friday I signed up for a pottery class");
    assert_eq!(found.len(), 1);
    let e = &found[0];
    assert_eq!(e.kind, ItemKind::Personal);
    assert_eq!(e.class.map(|c| c.relation()), Some("event"));
    assert!(e.confidence > 0.5 && e.confidence < 1.0);
    let liked = said("I'm passionate about restoring old furniture");
    assert_eq!(liked[0].relation.as_deref(), Some("likes"));
    assert_eq!(liked[0].object.as_deref(), Some("restoring old furniture"));
}

#[test]
fn chinese_chat_statements_name_the_speaker() {
    let got = texts("我上周末去了一趟杭州，看了西湖");
    assert_eq!(got, ["Priya上周末去了一趟杭州，看了西湖"]);
    assert_eq!(
        texts("我们打算明年搬到成都"),
        ["Priya他们打算明年（2024年）搬到成都"]
    );
    for s in [
        "你最近怎么样？",
        "我也是！",
        "哈哈哈太好笑了",
        "加油，你一定可以的",
    ] {
        assert!(texts(s).is_empty(), "{s}");
    }
}
