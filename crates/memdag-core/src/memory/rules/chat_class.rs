//! What a conversational statement's verb tells about the speaker ([`Class`]), read from the
//! words after its subject: the decision table of [`super::chat`]'s step 3 and the refusals
//! of its steps 4 and 5.

use std::string::String;
use std::vec::Vec;

use super::chat_words::{
    ADVERBS, DEICTIC, EMPTY, FEELINGS, KEEN, MODALS, MOMENTARY, NOT_EVENTS, PARTICIPLES, PAST, PEP,
    REACTIONS, STATES,
};
use super::lexicon::DIETS;

/// What a conversational statement tells about the speaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Something that happened: "I went to a support group yesterday".
    Event,
    /// Something going on now: "I'm learning the piano", "I've been volunteering".
    Activity,
    /// Something done regularly: "I play the violin".
    Habit,
    /// Something intended: "I'm going to a conference this month", "my goal is to adopt".
    Plan,
    /// Who the speaker is: "I'm a single parent", "I'm married".
    Identity,
    /// Something the speaker has: "I've got a guinea pig".
    Has,
    /// Something the speaker likes: "I love painting", "I'm into pottery".
    Likes,
    /// A feeling about something the speaker does: "I'm excited to start my new job".
    Feeling,
    /// What matters to the speaker: "Family time matters to me", "Dance is my passion".
    Value,
}

impl Class {
    /// The relation of an item of this class.
    pub fn relation(self) -> &'static str {
        match self {
            Class::Event => "event",
            Class::Activity => "activity",
            Class::Habit => "habit",
            Class::Plan => "plan",
            Class::Identity => "identity",
            Class::Has => "has",
            Class::Likes => "likes",
            Class::Feeling => "feeling",
            Class::Value => "value",
        }
    }

    /// How likely an item of this class is a lasting fact a careful reader would note: the
    /// share of such items, learned from two annotated conversations (LoCoMo), whose turn
    /// holds an annotated fact about the speaker (see the closing note of the issue that
    /// introduced these rules).
    pub fn confidence(self) -> f32 {
        match self {
            Class::Event => 0.8,
            Class::Activity => 0.8,
            Class::Habit => 0.75,
            Class::Plan => 0.65,
            Class::Identity => 0.85,
            Class::Has => 0.7,
            Class::Likes => 0.75,
            Class::Feeling => 0.55,
            Class::Value => 0.7,
        }
    }
}

/// Whether a word closes a statement's subject as the speaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Subject {
    /// "I …"
    Me,
    /// "we …", "my husband and I …"
    We,
    /// "my kids …", "our trip …"
    Mine,
}

/// What a statement's verb tells, from the word at `verb_at` on.
pub(super) fn classify(
    words: &[String],
    subject: Subject,
    verb_at: usize,
    future: bool,
) -> Option<Class> {
    let mut i = verb_at;
    let w = |i: usize| words.get(i).map_or("", String::as_str);
    while ADVERBS.contains(&w(i)) {
        i += 1;
    }
    let rest: Vec<&str> = words[i.min(words.len())..]
        .iter()
        .map(String::as_str)
        .collect();
    let said = rest.join(" ");
    if PEP.iter().any(|p| contains_phrase(&said, p)) || hedged(&rest) {
        return None;
    }
    let v = w(i);
    if subject == Subject::Mine {
        return possessive(words, verb_at);
    }
    if subject == Subject::We && (MODALS.contains(&v) || v == "all") {
        return None;
    }
    let next = w(i + 1);
    match v {
        "am" | "are" => be(&rest[1..], future),
        "was" | "were" => match next {
            "born" => Some(Class::Identity),
            n if n.ends_with("ing") && n.len() > 4 && !is_reaction_ing(n) => Some(Class::Event),
            "a" | "an" => Some(Class::Identity),
            _ => None,
        },
        "have" | "has" => have(&rest[1..]),
        "had" => object_ok(&rest[1..]).then_some(Class::Event),
        "do" => (next != "not" && object_ok(&rest[1..])).then_some(Class::Habit),
        "did" => (next != "not" && object_ok(&rest[1..])).then_some(Class::Event),
        "got" => got(&rest[1..]),
        "want" | "wanna" | "plan" | "intend" | "aim" | "hope" | "dream" | "plans" => {
            let to = rest.iter().position(|x| *x == "to" || *x == "of")?;
            (to <= 2
                && !rest
                    .get(to + 1)
                    .is_some_and(|x| DEICTIC.contains(x) || *x == "see"))
            .then_some(Class::Plan)
        }
        "gonna" => Some(Class::Plan),
        "love" | "like" | "enjoy" | "adore" | "prefer" => liked(&rest[1..]).then_some(Class::Likes),
        "loved" | "liked" | "enjoyed" => {
            (liked(&rest[1..]) && next.ends_with("ing")).then_some(Class::Likes)
        }
        "will" | "need" | "needs" | "gotta" | "got to" => None,
        _ if MODALS.contains(&v) || REACTIONS.contains(&v) => None,
        _ if v.ends_with("n't") || v == "not" || v == "never" || v == "no" => None,
        _ if NOT_EVENTS.contains(&v) => None,
        _ if PAST.contains(&v) || (v.ends_with("ed") && v.len() > 3 && v != "need") => {
            object_ok(&rest[1..]).then_some(Class::Event)
        }
        _ if v.chars().all(|c| c.is_ascii_alphabetic()) && !v.is_empty() => {
            (object_ok(&rest[1..]) && !v.ends_with("ing")).then_some(Class::Habit)
        }
        _ => None,
    }
}

/// Words that make a statement a guess or a wish: "maybe", "someday", "hopefully".
pub(super) fn hedged(rest: &[&str]) -> bool {
    rest.iter().take(6).any(|w| {
        matches!(
            *w,
            "maybe" | "perhaps" | "someday" | "hopefully" | "probably" | "if" | "might" | "would"
        )
    })
}

/// "I'm …": an ongoing activity, a plan, an identity, a state, a liking or a feeling.
pub(super) fn be(rest: &[&str], future: bool) -> Option<Class> {
    let w = |i: usize| rest.get(i).copied().unwrap_or("");
    let mut i = 0;
    while ADVERBS.contains(&w(i)) {
        i += 1;
    }
    let v = w(i);
    let said = rest[i.min(rest.len())..].join(" ");
    if v == "not" || v == "no" || v.is_empty() {
        return None;
    }
    if [
        "going to",
        "gonna",
        "planning",
        "about to",
        "hoping to",
        "aiming to",
        "heading",
    ]
    .iter()
    .any(|p| said.starts_with(p))
        || (said.starts_with("thinking about") || said.starts_with("thinking of"))
            && w(i + 2).ends_with("ing")
        || said.starts_with("looking forward to")
    {
        return Some(Class::Plan);
    }
    // "we're going camping next month": a plan (not "I'm going through a lot").
    if v == "going" && w(i + 1).ends_with("ing") && w(i + 1).len() > 4 {
        return Some(Class::Plan);
    }
    if KEEN.iter().any(|k| said.starts_with(k)) {
        return Some(Class::Likes);
    }
    if STATES
        .iter()
        .any(|s| said == *s || said.starts_with(&std::format!("{s} ")))
    {
        return Some(Class::Identity);
    }
    if matches!(v, "swamped" | "slammed" | "busy") && w(i + 1) == "with" {
        return Some(Class::Activity);
    }
    if v == "back" && w(i + 1) == "from" {
        return Some(Class::Event);
    }
    // "we're driving up to the lake next month": a plan.
    if future && v.ends_with("ing") && v.len() > 4 && !is_reaction_ing(v) {
        return Some(Class::Plan);
    }
    if v.ends_with("ing") && v.len() > 4 && !is_reaction_ing(v) {
        // "I'm ordering beans online" is a moment; "I'm doing keto" a diet, which the
        // profile patterns own.
        if MOMENTARY.contains(&v) || rest.get(i + 1).is_some_and(|o| DIETS.contains(o)) {
            return None;
        }
        return object_ok(&rest[i + 1..]).then_some(Class::Activity);
    }
    if matches!(v, "a" | "an") {
        return object_ok(&rest[i + 1..]).then_some(Class::Identity);
    }
    if FEELINGS.contains(&v) {
        return feeling(&rest[i + 1..]);
    }
    None
}

/// Present participles of reacting, not doing: "I'm loving this", "I'm wondering".
pub(super) fn is_reaction_ing(w: &str) -> bool {
    matches!(
        w,
        "loving"
            | "wondering"
            | "kidding"
            | "joking"
            | "dying"
            | "hoping"
            | "thinking"
            | "feeling"
            | "guessing"
            | "rooting"
            | "cheering"
            | "sending"
            | "praying"
            | "glad"
            | "telling"
            | "saying"
            | "asking"
            | "talking"
            | "curious"
    )
}

/// "I'm excited to start a new job": a feeling about what the speaker does. Not one for the
/// other person ("happy for you"), about what they said ("glad to hear"), or about nothing.
pub(super) fn feeling(rest: &[&str]) -> Option<Class> {
    let w = |i: usize| rest.get(i).copied().unwrap_or("");
    let mut i = 0;
    // "excited and thankful", "so happy and proud".
    while FEELINGS.contains(&w(i)) || matches!(w(i), "and" | "so" | "really" | "super") {
        i += 1;
    }
    match w(i) {
        "to" if w(i + 1) == "have" => Some(Class::Has),
        "to" if !matches!(w(i + 1), "hear" | "see" | "know" | "be" | "help") => {
            object_ok(&rest[i + 2.min(rest.len() - i)..]).then_some(Class::Feeling)
        }
        "about" if !DEICTIC.contains(&w(i + 1)) => {
            object_ok(&rest[i + 1..]).then_some(Class::Feeling)
        }
        _ => None,
    }
}

/// "I've …": an activity ("been volunteering"), an event ("been to Paris", "started a
/// club"), a lasting state ("been married for 5 years") or something had ("got a dog").
pub(super) fn have(rest: &[&str]) -> Option<Class> {
    let w = |i: usize| rest.get(i).copied().unwrap_or("");
    let mut i = 0;
    while ADVERBS.contains(&w(i)) {
        i += 1;
    }
    let v = w(i);
    match v {
        "been" => {
            let n = w(i + 1);
            if n == "to" {
                return object_ok(&rest[i + 2..]).then_some(Class::Event);
            }
            if STATES.contains(&n) || matches!(n, "together" | "dating") {
                return Some(Class::Identity);
            }
            if n.ends_with("ing") && n.len() > 4 && !is_reaction_ing(n) {
                return object_ok(&rest[i + 2..]).then_some(Class::Activity);
            }
            if matches!(n, "a" | "an") {
                return object_ok(&rest[i + 2..]).then_some(Class::Identity);
            }
            None
        }
        "got" | "gotten" => got(&rest[i + 1..]),
        "to" | "no" | "not" | "never" => None,
        _ if PARTICIPLES.contains(&v) || (v.ends_with("ed") && v.len() > 3) => {
            (!NOT_EVENTS.contains(&v) && object_ok(&rest[i + 1..])).then_some(Class::Event)
        }
        "a" | "an" | "two" | "three" | "four" | "five" | "some" | "lots" | "lot" | "my" => {
            object_ok(&rest[i..]).then_some(Class::Has)
        }
        _ => None,
    }
}

/// "I got a new job", "got back from a trip", "got to meet them".
pub(super) fn got(rest: &[&str]) -> Option<Class> {
    match rest.first().copied().unwrap_or("") {
        "it" | "this" | "that" | "you" | "your" | "to" if rest.len() < 3 => None,
        _ => object_ok(rest).then_some(Class::Event),
    }
}

/// "my kids are …", "our trip got …", "my goal is to …".
pub(super) fn possessive(words: &[String], verb_at: usize) -> Option<Class> {
    let noun: Vec<&str> = words[1..verb_at].iter().map(String::as_str).collect();
    let rest: Vec<&str> = words[verb_at..].iter().map(String::as_str).collect();
    let head = noun.last().copied().unwrap_or("");
    let v = rest.first().copied().unwrap_or("");
    if matches!(head, "goal" | "dream" | "plan" | "plans" | "aim" | "hope") && v == "is" {
        return (rest.get(1) == Some(&"to")).then_some(Class::Plan);
    }
    if matches!(v, "is" | "are" | "was" | "were") {
        // "my new business is open", not "my fam's been awesome".
        return (content_words_of(&rest[1..]) >= 2).then_some(Class::Identity);
    }
    object_ok(&rest[1..]).then_some(Class::Event)
}

/// What a liking is of: not the other person's things nor what they just said ("I love
/// *the* necklace", "I love *that*", "I love *how* …").
pub(super) fn liked(rest: &[&str]) -> bool {
    let first = rest.first().copied().unwrap_or("");
    !first.is_empty() && !DEICTIC.contains(&first) && content_words_of(rest) >= 1
}

/// The object of a liking, for its relation: the words after the verb, up to a clause word.
pub(super) fn liked_object(words: &[String], verb_at: usize) -> String {
    let mut i = verb_at;
    while words
        .get(i)
        .is_some_and(|w| ADVERBS.contains(&w.as_str()) || matches!(w.as_str(), "am" | "a"))
    {
        i += 1;
    }
    let skip = words.get(i).map_or(0, |w| {
        KEEN.iter()
            .find(|k| k.split(' ').next() == Some(w.as_str()))
            .map_or(1, |k| k.split(' ').count())
    });
    let object: Vec<&str> = words[(i + skip).min(words.len())..]
        .iter()
        .map(String::as_str)
        .take_while(|w| {
            !matches!(
                *w,
                "and" | "but" | "because" | "so" | "since" | "when" | "it" | "which"
            )
        })
        .take(4)
        .collect();
    object.join(" ")
}

/// Whether what follows a verb is an object that says something: not nothing, not a lone
/// pronoun ("I made it", "I did that"), and at least one word beyond function words.
pub(super) fn object_ok(rest: &[&str]) -> bool {
    let Some(first) = rest.first() else {
        return false;
    };
    if matches!(
        *first,
        "it" | "that" | "this" | "them" | "so" | "too" | "you" | "there"
    ) {
        // "I made it in pottery class yesterday": the pronoun's phrase says what it was.
        let place = rest
            .get(1)
            .is_some_and(|w| matches!(*w, "in" | "at" | "during" | "from" | "on" | "with" | "for"))
            && content_words_of(&rest[2..]) >= 1;
        let said = rest
            .get(1)
            .is_some_and(|w| !EMPTY.contains(w) && !matches!(*w, "because" | "cause" | "since"));
        if !(place || said) {
            return false;
        }
    }
    content_words_of(rest) >= 1
}

pub(super) fn content_words_of(words: &[&str]) -> usize {
    words
        .iter()
        .filter(|w| !EMPTY.contains(w) && w.len() > 1)
        .count()
}

pub(super) fn content_words(words: &[String]) -> usize {
    words
        .iter()
        .filter(|w| !EMPTY.contains(&w.as_str()) && w.len() > 1)
        .count()
}

pub(super) fn contains_phrase(said: &str, phrase: &str) -> bool {
    said.match_indices(phrase).any(|(at, _)| {
        let before = said[..at].chars().next_back();
        let after = said[at + phrase.len()..].chars().next();
        before.is_none_or(|c| c == ' ') && after.is_none_or(|c| !c.is_alphanumeric())
    })
}
