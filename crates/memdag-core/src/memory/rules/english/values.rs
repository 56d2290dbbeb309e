//! The pieces every English pattern shares: openers, questions and hypotheticals, the value
//! a pattern captures (up to a clause word), durations, pronouns and pointed-at objects.

use std::string::String;
use std::vec::Vec;

use regex::Regex;

use super::super::lexicon::{FILLERS, HYPOTHETICAL, OPENERS, QUESTION_OPENERS};
use super::super::text::{laughs, trim_filler};

/// `s` without the openers that carry nothing ("oh and", "btw", "actually", ...).
pub(super) fn strip_openers(s: &str) -> &str {
    let mut t = s.trim();
    loop {
        let l = t.to_ascii_lowercase();
        let Some(o) = OPENERS.iter().find(|o| {
            l.starts_with(*o)
                && l[o.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric())
        }) else {
            return t;
        };
        t = t[o.len()..].trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ':' | '!' | '.' | '-')
        });
    }
}

pub(super) fn is_question(l: &str) -> bool {
    if l.ends_with('?') {
        return true;
    }
    let first = l
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .next();
    first.is_some_and(|w| QUESTION_OPENERS.contains(&w))
}

pub(super) fn is_hypothetical(l: &str) -> bool {
    let words: Vec<&str> = l
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    matches!(
        words.first(),
        Some(&("if" | "suppose" | "imagine" | "when" | "once" | "unless" | "whether"))
    ) || words.iter().take(4).any(|w| HYPOTHETICAL.contains(w))
}

/// The value at the start of `s`: up to a clause word ("and", "because", ...) or a
/// preposition that starts a new phrase, without filler words at its end.
pub(super) fn value(s: &str) -> String {
    value_until(s, &[])
}

pub(super) fn value_until(s: &str, extra_stops: &[&str]) -> String {
    let l = s.to_ascii_lowercase();
    let mut end = l.len();
    let stops = [
        " and ",
        " but ",
        " so ",
        " because ",
        " cause ",
        " since ",
        " which ",
        " who ",
        " when ",
        " while ",
        " though ",
        " although ",
        " if ",
        " as i ",
        " where ",
        " - ",
        " the more ",
        " lol",
        " haha",
        " btw",
    ];
    for stop in stops.iter().chain(extra_stops) {
        if let Some(at) = l.find(stop) {
            end = end.min(at);
        }
    }
    trim_filler(&s[..end], FILLERS).trim().into()
}

/// "about eight years", "3 months", "a while", "ages": how long, not what or where.
pub(super) fn is_duration(v: &str) -> bool {
    let l = v.trim().to_ascii_lowercase();
    let words: Vec<&str> = l.split_whitespace().take(5).collect();
    let unit = |w: &str| {
        ["year", "month", "week", "day", "decade", "hour"]
            .iter()
            .any(|u| w.trim_matches(|c: char| !c.is_alphabetic()).starts_with(u))
    };
    let amount = |w: &str| {
        w.chars().all(|c| c.is_ascii_digit())
            || [
                "a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "fifteen", "twenty", "thirty", "few", "couple", "several",
                "many",
            ]
            .contains(&w)
    };
    let hedge = [
        "about", "around", "over", "nearly", "almost", "roughly", "like", "the", "past", "last",
        "a",
    ];
    let rest: Vec<&str> = words
        .iter()
        .copied()
        .skip_while(|w| hedge.contains(w))
        .collect();
    matches!(
        words.first(),
        Some(&("ages" | "years" | "months" | "decades" | "a while" | "awhile" | "forever"))
    ) || l.starts_with("a while")
        || l.starts_with("a long time")
        || rest.first().is_some_and(|w| unit(w))
        || (rest.len() >= 2 && amount(rest[0]) && unit(rest[1]))
        || (rest.first().is_some_and(|w| amount(w))
            && rest.get(1).is_some_and(|w| *w == "of")
            && rest.get(2).is_some_and(|w| unit(w)))
}

/// An object that points at something in front of the speakers, the other person's photo
/// or what they just said: "(I) love *the* necklace", "love *your* dedication", "love *how*
/// you did it", "love *seeing* that". Liking it is a compliment, not a preference; and "Love
/// and acceptance …" is a noun, not a verb.
pub(super) fn is_pointed_at(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    let first = l.split_whitespace().next().unwrap_or("");
    matches!(
        first,
        "the"
            | "your"
            | "yours"
            | "this"
            | "that"
            | "these"
            | "those"
            | "how"
            | "seeing"
            | "hearing"
            | "and"
            | "all"
            | "what"
            | "when"
            | "his"
            | "her"
            | "their"
            | "ur"
    )
}

/// A pronoun object says nothing by itself: "I love it", "I hate that".
pub(super) fn is_pronoun(v: &str) -> bool {
    let first = v
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(
        first.as_str(),
        "it" | "this"
            | "that"
            | "them"
            | "these"
            | "those"
            | "you"
            | "your"
            | "yours"
            | "one"
            | "him"
            | "her"
            | "everything"
            | "nothing"
            | "something"
            | "anything"
            | "when"
            | "how"
            | "what"
            | "the idea"
            | "to"
    ) || v.is_empty()
}

/// The capture `i` of `re` on `l`, as the slice of the original `c`.
pub(super) fn cap<'a>(re: &Regex, c: &'a str, l: &str, i: usize) -> Option<&'a str> {
    let caps = re.captures(l)?;
    let m = caps.get(i)?;
    Some(&c[m.start()..m.end()])
}

pub(super) fn is_statement(s: &str) -> bool {
    let l = strip_openers(s).to_ascii_lowercase();
    !is_question(&l) && !laughs(s) && !l.starts_with("what") && !l.starts_with("any")
}

/// Whether a value names the other person: "(love) having you in my corner".
pub(super) fn addresses_other(v: &str) -> bool {
    v.to_ascii_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| matches!(w, "you" | "your" | "yours" | "you're" | "ya" | "u"))
}
