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

use super::chat_class::{classify, content_words, liked_object, Class, Subject};
use super::chat_words::{IMPLIED_EVENTS, INTERJECTIONS, PAST, PEOPLE, TIME_WORDS};
use super::english::expand;
use super::text::{ironic, laughs};
use super::{voice, what_matters, when, Extracted};

/// Who said a sentence, and when.
#[derive(Debug, Clone, Copy)]
pub struct Speaker<'a> {
    /// The name items about them use ([`voice::display_name`]).
    pub name: &'a str,
    /// The turn's time (ms), against which "yesterday" resolves.
    pub at: i64,
}

/// The item one sentence states about its speaker, if it is a conversational statement (see
/// the module docs). `question` says whether the sentence ended with a question mark.
pub fn statement(sentence: &str, question: bool, who: &Speaker) -> Option<Extracted> {
    if question || laughs(sentence) || ironic(sentence) {
        return None;
    }
    let start = lead(sentence);
    let said = headline(sentence[start..].trim());
    if said.is_empty() {
        return None;
    }
    said_by(said, who).or_else(|| {
        // "My parents are visiting, so I'm repainting the spare room": the speaker's clause
        // after a connector.
        let lower = said.to_ascii_lowercase();
        [
            ", so i",
            ", and i",
            ", but i",
            " so i'",
            " so i ",
            ", because i",
            ", and we",
            ", so we",
        ]
        .iter()
        .filter_map(|c| {
            lower
                .find(c)
                .map(|at| at + c.len() - if c.ends_with('\'') { 2 } else { 1 })
        })
        .min()
        .and_then(|at| said_by(said[at..].trim(), who))
    })
}

/// A statement without the short headline that announces it: "Big news: I'm moving", "Quick
/// update - we got the keys".
fn headline(said: &str) -> &str {
    let Some(at) = said.find([':', '—', '–']) else {
        return said;
    };
    let head = &said[..at];
    let words = head.split_whitespace().count();
    let mine = head
        .to_ascii_lowercase()
        .split_whitespace()
        .any(|w| matches!(w, "i" | "i'm" | "we" | "we're" | "you"));
    if words == 0 || words > 5 || mine {
        return said;
    }
    said[at..]
        .trim_start_matches([':', '—', '–', ' ', '-'])
        .trim()
}

/// [`statement`] of a sentence without its openers.
fn said_by(said: &str, who: &Speaker) -> Option<Extracted> {
    if said.is_empty() {
        return None;
    }
    if what_matters::matters(&said.to_ascii_lowercase().replace('’', "'")) {
        return told(said, Class::Value, 1.0, who);
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
    let likes = (class == Class::Likes).then(|| liked_object(&words, verb_at));
    let share = if subject == Subject::Me { 1.0 } else { 0.9 };
    let mut e = told(&kept, class, share, who)?;
    if let Some(object) = likes.filter(|o| !o.is_empty()) {
        e = e.with("likes", object);
    }
    Some(e)
}

/// The item of a statement of `class` whose kept text is `kept`: refused when it addresses
/// the other person or says too little, else dated, retold about the speaker, and given the
/// class's confidence times `share`.
fn told(kept: &str, class: Class, share: f32, who: &Speaker) -> Option<Extracted> {
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
    if content_words(&words_of(kept)) < 2 {
        return None;
    }
    // "in October" said of a plan is the next October, which the query grammar (reading
    // "in October" as the last one) would get wrong: a plan keeps a past date unresolved.
    // So is "in June" said of what is going on ("I'm moving to Leeds in June").
    let ongoing = matches!(class, Class::Plan | Class::Activity);
    let dated = match when::find(kept, who.at) {
        Some(t) if ongoing && t.until <= who.at && t.grain == crate::time::Grain::Month => {
            kept.into()
        }
        Some(t) if class == Class::Plan && t.until <= who.at => kept.into(),
        _ => when::resolve_english(kept, who.at),
    };
    let mut text = voice::english(&dated, who.name);
    while text.ends_with(['.', '!', ',', ' ', '-', '~']) {
        text.pop();
    }
    if let Some(first) = text.chars().next().filter(|c| c.is_lowercase()) {
        text.replace_range(
            ..first.len_utf8(),
            &first.to_uppercase().collect::<String>(),
        );
    }
    let mut e = Extracted::personal(text);
    e.confidence = class.confidence() * share;
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
    if let Some(t) = when::find(said, 0).filter(|t| said[..t.start].trim().is_empty()) {
        return Some(t.end);
    }
    // What the query grammar does not read ("Last Fri", "Over the holidays"): a few words
    // of time before the subject.
    let lower = said.to_ascii_lowercase();
    let subject = [" i ", " i'", " we ", " we'", " my ", " our "]
        .iter()
        .filter_map(|s| lower.find(s))
        .min()?;
    let words: Vec<&str> = lower[..subject]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let timely = |w: &&str| TIME_WORDS.contains(w) || w.chars().all(|c| c.is_ascii_digit());
    (!words.is_empty()
        && words.len() <= 5
        && words.iter().all(timely)
        && words.iter().any(|w| {
            !matches!(
                *w,
                "on" | "in" | "at" | "the" | "a" | "an" | "so" | "and" | "then" | "also"
            )
        }))
    .then_some(subject)
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
