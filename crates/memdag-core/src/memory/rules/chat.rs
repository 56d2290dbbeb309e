//! Conversational statements in English: what people tell each other about themselves in
//! chat, as items about the speaker.
//!
//! The profile patterns ([`super::english`]) know a few relations by heart ("I live in …",
//! "I'm a nurse"). People in a real chat say much more, in their own words: what they did
//! ("I went to a support group yesterday"), what they keep doing ("I've been volunteering at a
//! shelter"), what they plan ("we're going camping next month"), who they are ("I'm a single
//! parent", "I'm married"), what they have and like. A sentence is such a statement when:
//! 1. it is no question, joke or eye-roll, and it does not address the other person (no
//!    "you"/"your" in what is kept);
//! 2. after openers, interjections and a vocative ("Wow, Mel!", "Thanks!", "Since we last
//!    spoke,") and a time that opens it ("Last Friday, …"), its subject is the speaker: "I",
//!    "we", "my …" / "our …", "X and I", or no subject before a past verb ("Just got back from
//!    a road trip");
//! 3. its verb tells something ([`Class`]): an event (a past verb that is no report or reaction:
//!    "went", "took", "signed up"; "I've started"), an ongoing activity ("I'm learning",
//!    "I've been running"), a habit ("I play the violin"), a plan ("I'm going to", "I want
//!    to", "my goal is to"), an identity or lasting state ("I'm a single parent", "I'm
//!    married"), something had ("I've got a dog"), a liking ("I love painting", "I'm into
//!    pottery"), or, with less confidence, a feeling about something the speaker does
//!    ("I'm excited to start my new job");
//! 4. it is none of what a reply is made of: reactions ("I agree", "I bet", "I love that", "I
//!    love the necklace": a liking of *the*, *this* or *your* thing is a compliment), modal
//!    hedges ("I might", "I'd love to"), pep talk ("I won't give up", "we got this"), a
//!    pronoun for all its object ("I made it");
//! 5. it says enough: at least two words beyond function words and evaluations.
//!
//! The item is the sentence from its subject (or opening time) on, cut before a clause that
//! turns to the other person, with its time resolved to a date ([`super::when`]) and retold
//! about the speaker ([`super::voice`]): "Yesterday I took the kids to the museum" said by
//! Melanie on 8 May 2023 is "On 7 May 2023 Melanie took the kids to the museum". Its
//! confidence comes from its class ([`Class::confidence`]).

use std::string::String;
use std::vec::Vec;

use super::chat_words::{
    ADVERBS, DEICTIC, EMPTY, FEELINGS, INTERJECTIONS, KEEN, MODALS, MOMENTARY, NOT_EVENTS,
    PARTICIPLES, PAST, PEOPLE, PEP, REACTIONS, STATES,
};
use super::english::expand;
use super::lexicon::DIETS;
use super::text::{ironic, laughs};
use super::{voice, when, Extracted};

/// Who said a sentence, and when.
#[derive(Debug, Clone, Copy)]
pub struct Speaker<'a> {
    /// The name items about them use ([`voice::display_name`]).
    pub name: &'a str,
    /// The turn's time (ms), against which "yesterday" resolves.
    pub at: i64,
}

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
        }
    }
}

/// Whether a word closes a statement's subject as the speaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Subject {
    /// "I …"
    Me,
    /// "we …", "my husband and I …"
    We,
    /// "my kids …", "our trip …"
    Mine,
}

/// The item one sentence states about its speaker, if it is a conversational statement (see
/// the module docs). `question` says whether the sentence ended with a question mark.
pub fn statement(sentence: &str, question: bool, who: &Speaker) -> Option<Extracted> {
    if question || laughs(sentence) || ironic(sentence) {
        return None;
    }
    let start = lead(sentence);
    let said = sentence[start..].trim();
    if said.is_empty() {
        return None;
    }
    // A time that opens the statement ("Last Friday, I went …") stays in its text.
    let subject_at = opening_time(said).unwrap_or(0);
    let body = said[subject_at..].trim_start_matches([',', ' ']);
    let (implied, body) = match implied_subject(body) {
        Some(b) => (true, b),
        None => (false, body.into()),
    };
    let words = words_of(&body);
    let (subject, verb_at) = subject_of(&words)?;
    // "my boss Dave is vegan", "our dog loves the beach": about them.
    if subject == Subject::Mine
        && words[1..verb_at]
            .iter()
            .any(|w| PEOPLE.contains(&w.trim_end_matches("'s")))
    {
        return None;
    }
    let future = when::find(&body, who.at).is_some_and(|t| t.since >= who.at);
    let class = classify(&words, subject, verb_at, future)?;
    let kept = keep(said, subject_at, implied, &body)?;
    if kept
        .to_ascii_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| {
            matches!(
                w,
                "you" | "your" | "yours" | "you're" | "you've" | "you'll" | "you'd" | "ya" | "u"
            )
        })
    {
        return None;
    }
    if content_words(&words_of(&kept)) < 2 {
        return None;
    }
    // "in October" said of a plan is the next October, which the query grammar (reading
    // "in October" as the last one) would get wrong: a plan keeps a past date unresolved.
    let dated = match when::find(&kept, who.at) {
        Some(t) if class == Class::Plan && t.until <= who.at => kept.clone(),
        _ => when::resolve_english(&kept, who.at),
    };
    let mut text = voice::english(&dated, who.name);
    while text.ends_with(['.', '!', ',', ' ', '-', '~']) {
        text.pop();
    }
    let mut e = Extracted::personal(text);
    e.confidence = class.confidence() - if subject == Subject::Me { 0.0 } else { 0.1 };
    if class == Class::Likes {
        let object = liked_object(&words, verb_at);
        if !object.is_empty() {
            return Some(e.with("likes", object));
        }
    }
    e.class = Some(class);
    Some(e)
}

/// The byte offset at which a sentence's statement starts: after interjections ("Wow!",
/// "Thanks, Mel!"), a vocative ("Caroline, …") and a mention of the last chat ("Since we last
/// spoke, …").
fn lead(sentence: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = &sentence[at..];
        let lower = rest.to_ascii_lowercase().replace('’', "'");
        let skip_gap = |from: usize| -> usize {
            let tail = &rest[from..];
            from + (tail.len()
                - tail
                    .trim_start_matches(|c: char| {
                        c.is_whitespace() || matches!(c, ',' | '!' | '.' | ':' | '-' | '–' | '—')
                    })
                    .len())
        };
        if let Some(i) = INTERJECTIONS.iter().find(|i| {
            lower.starts_with(*i)
                && lower[i.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric() && c != '\'')
        }) {
            at += skip_gap(i.len());
            continue;
        }
        if let Some(n) = since_we_spoke(&lower) {
            at += skip_gap(n);
            continue;
        }
        // A vocative: one capitalised word, then a comma or "!", that is no first person.
        let word_len = rest
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(rest.len());
        let after = rest[word_len..].chars().next();
        let word = &rest[..word_len];
        if word_len > 1
            && word.starts_with(char::is_uppercase)
            && matches!(after, Some(',' | '!'))
            && !matches!(lower[..word_len].as_ref(), "my" | "our" | "we" | "me")
        {
            at += skip_gap(word_len);
            continue;
        }
        return at;
    }
}

/// The length of an opening "since we last spoke" (or "since our last chat"), if any.
fn since_we_spoke(lower: &str) -> Option<usize> {
    let rest = lower.strip_prefix("since ")?;
    let end = rest.find([',', '-', '!', '.']).unwrap_or(rest.len());
    let clause = &rest[..end];
    let words: Vec<&str> = clause.split_whitespace().collect();
    let spoken = [
        "spoke",
        "talked",
        "chatted",
        "chat",
        "talk",
        "caught",
        "catch-up",
        "convo",
        "met",
        "saw",
        "conversation",
    ];
    (words.len() <= 5
        && words.iter().any(|w| matches!(*w, "we" | "our" | "i"))
        && words.iter().any(|w| spoken.contains(w)))
    .then_some(7 + end)
}

/// The length of a time expression that opens a statement ("Last Friday,", "Yesterday"),
/// if one does and a subject follows it.
fn opening_time(said: &str) -> Option<usize> {
    let t = when::find(said, 0)?;
    if !said[..t.start].trim().is_empty() {
        return None;
    }
    Some(t.end)
}

/// A statement that leaves out its "I" before a past verb or a plan ("Just got back from a
/// road trip", "Gonna continue my studies"), with its "I" restored.
fn implied_subject(body: &str) -> Option<String> {
    let mut words = body
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase);
    let first = words.next()?;
    let second = words.next().unwrap_or_default();
    // Only past forms that are no imperative: "Put it on my calendar" asks.
    let event = |w: &str| IMPLIED_EVENTS.contains(&w);
    let opens = if first == "just" {
        event(&second)
    } else if first == "been" {
        second.ends_with("ing") && !matches!(second.as_str(), "thinking" | "wondering")
    } else if first == "gonna" {
        second != "be"
    } else {
        event(&first)
    };
    if !opens {
        return None;
    }
    let mut chars = body.chars();
    let head: String = chars.next()?.to_lowercase().collect();
    let subject = if first == "been" { "I've" } else { "I" };
    Some(std::format!("{subject} {head}{}", chars.as_str()))
}

/// Regular past verbs that open a statement without its "I" ("Signed up for a class!").
const IMPLIED_EVENTS: &[&str] = &[
    "signed",
    "started",
    "finished",
    "joined",
    "visited",
    "booked",
    "moved",
    "adopted",
    "painted",
    "tried",
    "picked",
    "played",
    "attended",
    "volunteered",
    "launched",
    "opened",
    "graduated",
    "passed",
    "completed",
    "celebrated",
    "hosted",
    "organized",
    "organised",
    "traveled",
    "travelled",
    "walked",
    "hiked",
    "baked",
    "cooked",
    "watched",
    "learned",
    "learnt",
    "entered",
    "applied",
    "landed",
    "bought",
    "ran",
    "went",
    "took",
    "made",
    "got",
    "met",
    "saw",
    "spent",
];

/// The lower-cased words of a text with contractions written out ("I'm" → "i", "am").
fn words_of(text: &str) -> Vec<String> {
    expand(text)
        .to_ascii_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// The speaker as the subject: which, and the index of the word after it.
fn subject_of(words: &[String]) -> Option<(Subject, usize)> {
    let w = |i: usize| words.get(i).map_or("", String::as_str);
    match w(0) {
        "i" => Some((Subject::Me, 1)),
        "we" => Some((Subject::We, 1)),
        "me" if w(1) == "and" => {
            let verb = (2..words.len().min(6)).find(|&i| is_verb_like(w(i)))?;
            Some((Subject::We, verb))
        }
        "my" | "our" => {
            // "my husband and I", "my kids and I": the speaker with others.
            if let Some(and) = (2..words.len().min(5)).find(|&i| w(i) == "and" && w(i + 1) == "i") {
                return Some((Subject::We, and + 2));
            }
            let verb = (2..words.len().min(6)).find(|&i| is_verb_like(w(i)))?;
            Some((Subject::Mine, verb))
        }
        _ => {
            // "Mel and I went …"
            let and = (1..words.len().min(4)).find(|&i| w(i) == "and" && w(i + 1) == "i")?;
            Some((Subject::We, and + 2))
        }
    }
}

/// Whether a word can be the verb after a possessive subject ("my kids *are*", "our trip
/// *got*").
fn is_verb_like(w: &str) -> bool {
    matches!(
        w,
        "is" | "are" | "was" | "were" | "has" | "have" | "had" | "love" | "loves" | "got"
    ) || PAST.contains(&w)
        || (w.ends_with("ed") && w.len() > 3)
}

/// What a statement's verb tells, from the word at `verb_at` on.
fn classify(words: &[String], subject: Subject, verb_at: usize, future: bool) -> Option<Class> {
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
fn hedged(rest: &[&str]) -> bool {
    rest.iter().take(6).any(|w| {
        matches!(
            *w,
            "maybe" | "perhaps" | "someday" | "hopefully" | "probably" | "if" | "might" | "would"
        )
    })
}

/// "I'm …": an ongoing activity, a plan, an identity, a state, a liking or a feeling.
fn be(rest: &[&str], future: bool) -> Option<Class> {
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
fn is_reaction_ing(w: &str) -> bool {
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
fn feeling(rest: &[&str]) -> Option<Class> {
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
fn have(rest: &[&str]) -> Option<Class> {
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
fn got(rest: &[&str]) -> Option<Class> {
    match rest.first().copied().unwrap_or("") {
        "it" | "this" | "that" | "you" | "your" | "to" if rest.len() < 3 => None,
        _ => object_ok(rest).then_some(Class::Event),
    }
}

/// "my kids are …", "our trip got …", "my goal is to …".
fn possessive(words: &[String], verb_at: usize) -> Option<Class> {
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
fn liked(rest: &[&str]) -> bool {
    let first = rest.first().copied().unwrap_or("");
    !first.is_empty() && !DEICTIC.contains(&first) && content_words_of(rest) >= 1
}

/// The object of a liking, for its relation: the words after the verb, up to a clause word.
fn liked_object(words: &[String], verb_at: usize) -> String {
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
fn object_ok(rest: &[&str]) -> bool {
    let Some(first) = rest.first() else {
        return false;
    };
    if matches!(
        *first,
        "it" | "that" | "this" | "them" | "so" | "too" | "you" | "there"
    ) && rest
        .get(1)
        .is_none_or(|w| EMPTY.contains(w) || matches!(*w, "because" | "for" | "with"))
    {
        return false;
    }
    content_words_of(rest) >= 1
}

fn content_words_of(words: &[&str]) -> usize {
    words
        .iter()
        .filter(|w| !EMPTY.contains(w) && w.len() > 1)
        .count()
}

fn content_words(words: &[String]) -> usize {
    words
        .iter()
        .filter(|w| !EMPTY.contains(&w.as_str()) && w.len() > 1)
        .count()
}

fn contains_phrase(said: &str, phrase: &str) -> bool {
    said.match_indices(phrase).any(|(at, _)| {
        let before = said[..at].chars().next_back();
        let after = said[at + phrase.len()..].chars().next();
        before.is_none_or(|c| c == ' ') && after.is_none_or(|c| !c.is_alphanumeric())
    })
}

/// The text kept for the item: from the statement's start (its opening time included) to
/// the end of the sentence, cut before a clause that turns to the other person.
fn keep(said: &str, subject_at: usize, implied: bool, body: &str) -> Option<String> {
    let text = if implied {
        let time = said[..subject_at].trim();
        if time.is_empty() {
            body.into()
        } else {
            std::format!("{time} {body}")
        }
    } else {
        said.into()
    };
    let lower = text.to_ascii_lowercase();
    let mut end = text.len();
    for cut in [" - ", " – ", " — ", "; ", ", but ", ", and you", ", so "] {
        for (at, _) in lower.match_indices(cut) {
            let tail = &lower[at..];
            if tail
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .any(|w| w.starts_with("you") || w == "u" || w == "ya")
            {
                end = end.min(at);
            }
        }
    }
    let kept = text[..end].trim();
    // Long sentences stop at a clause boundary before 200 bytes.
    let kept = if kept.len() > 200 {
        let mut cut = 200;
        while !kept.is_char_boundary(cut) {
            cut -= 1;
        }
        let head = &kept[..cut];
        let boundary = head
            .rfind([',', ';', '-', '—'])
            .filter(|&b| b > 40)
            .unwrap_or(cut);
        kept[..boundary].trim()
    } else {
        kept
    };
    (!kept.is_empty()).then(|| kept.into())
}
