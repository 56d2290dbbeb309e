//! The word lists of the conversational rules ([`super::chat`]), kept as data in `words/`:
//! one entry a line, `#` starts a comment line. Lists of how people write in chat, not of
//! any conversation's content: each entry is a word class of English (or Chinese, `zh_`).

use std::ops::Deref;
use std::sync::OnceLock;
use std::vec::Vec;

/// A word list read from a data file at compile time, split into entries at first use.
pub struct Words {
    text: &'static str,
    list: OnceLock<Vec<&'static str>>,
}

impl Words {
    const fn new(text: &'static str) -> Self {
        Words {
            text,
            list: OnceLock::new(),
        }
    }
}

impl Deref for Words {
    type Target = [&'static str];

    fn deref(&self) -> &Self::Target {
        self.list.get_or_init(|| {
            self.text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .collect()
        })
    }
}

/// Words and phrases that open a chat sentence and carry nothing: "Wow,", "Yeah!", "Thanks so
/// much!", "By the way".
pub static INTERJECTIONS: Words = Words::new(include_str!("words/interjections.txt"));

/// Adverbs between a subject and its verb: "I *just* signed up", "we *finally* went".
pub static ADVERBS: Words = Words::new(include_str!("words/adverbs.txt"));

/// Verbs of a reply to the other person rather than a statement about oneself: "I agree",
/// "I bet", "I hope you …", "I can imagine".
pub static REACTIONS: Words = Words::new(include_str!("words/reactions.txt"));

/// Modal verbs: what might be, not what is.
pub static MODALS: Words = Words::new(include_str!("words/modals.txt"));

/// Irregular past tenses, for events ("I *went* to …", "we *took* the kids …").
pub static PAST: Words = Words::new(include_str!("words/past.txt"));

/// Irregular past participles after "I've": "I've *done* …", "I've *known* them for …".
pub static PARTICIPLES: Words = Words::new(include_str!("words/participles.txt"));

/// Past verbs that report, react or think rather than tell what happened.
pub static NOT_EVENTS: Words = Words::new(include_str!("words/not_events.txt"));

/// Lasting states after "I'm": "I'm married", "I'm retired", "I'm trans".
pub static STATES: Words = Words::new(include_str!("words/states.txt"));

/// Feelings after "I'm": said about a moment, they last only when they are about something
/// the speaker does ("excited to start a new job"), never about the other person.
pub static FEELINGS: Words = Words::new(include_str!("words/feelings.txt"));

/// What "I'm … about / into / on" likes: "I'm passionate about dance", "I'm into pottery".
pub static KEEN: Words = Words::new(include_str!("words/keen.txt"));

/// Pep talk: resolve and encouragement, not facts. "I won't give up", "we got this".
pub static PEP: Words = Words::new(include_str!("words/pep.txt"));

/// Words that say nothing about what happened: function words, pronouns, intensifiers and
/// the evaluations every chat is full of. A statement needs words beyond these.
pub static EMPTY: Words = Words::new(include_str!("words/empty.txt"));

/// Determiners and pronouns that point at something in front of the speakers (the other
/// person's photo, what they just said): "I love *the* necklace", "I love *that*".
pub static DEICTIC: Words = Words::new(include_str!("words/deictic.txt"));

/// People and pets: a statement whose subject is "my sister", "our dog" or "my boss Dave"
/// is about them, not the speaker ("my husband and I …" is about both, so it is kept).
pub static PEOPLE: Words = Words::new(include_str!("words/people.txt"));

/// Doing words of a moment, not of an ongoing activity: "I'm ordering beans online", "I'm
/// heading out".
pub static MOMENTARY: Words = Words::new(include_str!("words/momentary.txt"));

/// Words of a time that opens a statement, beyond what the query grammar reads ("Last Fri,
/// I …", "Over the holidays we …").
pub static TIME_WORDS: Words = Words::new(include_str!("words/time_words.txt"));

/// Regular past verbs that open a statement without its "I" ("Signed up for a class!").
pub static IMPLIED_EVENTS: Words = Words::new(include_str!("words/implied_events.txt"));

/// Chinese openers that carry nothing (对了, 其实, 顺便说一下 …).
pub static ZH_OPENERS: Words = Words::new(include_str!("words/zh_openers.txt"));
