//! English clauses: explicit first-person statements and standing instructions. The
//! profile patterns are in `profile`, the preferences in `prefs`, what they share in
//! `values`.
//!
//! Patterns are anchored at the start of the clause (after openers such as "oh and",
//! "btw", "actually"), so a statement must be the user's own ("I live in …", "my name is …",
//! "call me …"); "my sister lives in …", "if I moved to …" and "do you like …" match nothing.
//! Matching runs on the ASCII-lower-cased clause, whose byte offsets are the original's, so
//! values keep the user's casing.

use std::string::String;
use std::sync::OnceLock;
use std::vec::Vec;

use regex::Regex;

mod prefs;
mod profile;
mod values;

use super::lexicon::{LANGUAGES, OTHERS};
use super::text::{laughs, with_tail};
use super::Extracted;
use crate::item::ItemKind;
use prefs::{about_me, allergy, diet, dislikes, has, likes, no_thing, origin};
use profile::{age, bare_name, name, residence, timezone, work};
use values::{cap, is_hypothetical, is_pronoun, is_question, strip_openers, value};

/// The items one English clause states; `rest` are the clauses after it in its sentence.
pub fn clause(raw: &str, rest: &[&str], sentence: &str, greeted: bool) -> Vec<Extracted> {
    if laughs(raw) {
        return Vec::new();
    }
    let expanded = expand(strip_openers(raw));
    let c = expanded.as_str();
    if c.is_empty() {
        return Vec::new();
    }
    if greeted {
        if let Some(n) = bare_name(c, true) {
            return std::vec![n];
        }
    }
    // Chat drops the subject: "love dark chocolate", "allergic to nuts", "live in Denver".
    let with_subject;
    let c = if drops_subject(c) {
        let mut first = c.chars();
        let head: String = first
            .next()
            .map(|f| f.to_lowercase().collect())
            .unwrap_or_default();
        with_subject = std::format!("I {head}{}", first.as_str());
        with_subject.as_str()
    } else if let Some(rest_of) = together(c) {
        with_subject = std::format!("we {rest_of}");
        with_subject.as_str()
    } else {
        c
    };
    let l = c.to_ascii_lowercase();
    if let Some(found) = remember(c, &l, rest) {
        return found;
    }
    if sentence.to_ascii_lowercase().starts_with("next time") && !l.starts_with("next time") {
        return std::vec![procedural(sentence)];
    }
    if let Some(found) = instruction(c, &l, rest) {
        return found;
    }
    if is_question(&l) || is_hypothetical(&l) {
        return Vec::new();
    }
    if let Some(found) = about_partner(c, &l) {
        return found;
    }
    if OTHERS.iter().any(|o| l.starts_with(o)) {
        return Vec::new();
    }
    let found = statement(c, &l, rest);
    if !found.is_empty() {
        return found;
    }
    embedded(c, &l, rest)
}

/// A statement inside a longer clause, after a connector: "work is crazy since I started at
/// Stripe", "ugh, long week cause I'm a nurse". Not after "if", "when", "that" or "whether"
/// (hypotheses and reported speech).
fn embedded(c: &str, l: &str, rest: &[&str]) -> Vec<Extracted> {
    const CONNECTORS: [&str; 16] = [
        " since ",
        " because ",
        " cause ",
        " cuz ",
        " coz ",
        " bc ",
        " so ",
        " and ",
        " but ",
        " as ",
        " now that ",
        " plus ",
        " also ",
        " tho ",
        " though ",
        " ever since ",
    ];
    for connector in CONNECTORS {
        for (at, _) in l.match_indices(connector) {
            let start = at + connector.len();
            let tail = &l[start..];
            if !(tail.starts_with("i ") || tail.starts_with("we ") || tail.starts_with("my name")) {
                continue;
            }
            if is_hypothetical(tail) {
                continue;
            }
            let found = statement(&c[start..], tail, rest);
            if !found.is_empty() {
                return found;
            }
        }
    }
    Vec::new()
}

/// The clause with its contractions written out ("I'm" → "I am", "don't" → "do not",
/// curly apostrophes included), so the patterns need one form of each.
pub(super) fn expand(s: &str) -> String {
    const FORMS: [(&str, &str); 24] = [
        ("i'm", "i am"),
        ("im", "i am"),
        ("i've", "i have"),
        ("i'd", "i would"),
        ("i'll", "i will"),
        ("we're", "we are"),
        ("we've", "we have"),
        ("we'd", "we would"),
        ("you're", "you are"),
        ("it's", "it is"),
        ("that's", "that is"),
        ("don't", "do not"),
        ("dont", "do not"),
        ("doesn't", "does not"),
        ("didn't", "did not"),
        ("can't", "cannot"),
        ("cant", "cannot"),
        ("won't", "will not"),
        ("isn't", "is not"),
        ("aren't", "are not"),
        ("wasn't", "was not"),
        ("haven't", "have not"),
        ("i'ma", "i am going to"),
        ("ive", "i have"),
    ];
    let s = s.replace(['’', '‘', '`'], "'");
    let mut out = String::with_capacity(s.len() + 8);
    let mut word_start = 0;
    let flush = |out: &mut String, word: &str| {
        let lower = word.to_ascii_lowercase();
        match FORMS.iter().find(|(short, _)| *short == lower) {
            Some((_, long)) if word.starts_with(char::is_uppercase) => {
                let mut chars = long.chars();
                out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                out.push_str(chars.as_str());
            }
            Some((_, long)) => out.push_str(long),
            None => out.push_str(word),
        }
    };
    for (i, ch) in s.char_indices() {
        if !(ch.is_alphanumeric() || ch == '\'') {
            flush(&mut out, &s[word_start..i]);
            out.push(ch);
            word_start = i + ch.len_utf8();
        }
    }
    flush(&mut out, &s[word_start..]);
    out
}

/// "my wife and I live in Denver": what the user does with someone, as "we".
fn together(c: &str) -> Option<&str> {
    let l = c.to_ascii_lowercase();
    let rest = l.strip_prefix("my ")?;
    let at = rest.find(" and i ")?;
    (rest[..at].split_whitespace().count() <= 2).then(|| &c[3 + at + 7..])
}

/// Whether a clause opens with a verb that only the user can be the subject of here.
fn drops_subject(c: &str) -> bool {
    let l = c.to_ascii_lowercase();
    [
        "love ",
        "loving ",
        "really love ",
        "hate ",
        "really hate ",
        "live in ",
        "living in ",
        "based in ",
        "work at ",
        "work for ",
        "work as ",
        "working at ",
        "working as ",
        "allergic to ",
        "can't stand ",
        "cannot stand ",
        "moved to ",
        "just moved to ",
        "not a fan of ",
        "big fan of ",
        "huge fan of ",
        "obsessed with ",
    ]
    .iter()
    .any(|v| l.starts_with(v))
}

/// "remember (that) …", "keep in mind …", "note that …": what follows, as items.
fn remember(c: &str, l: &str, rest: &[&str]) -> Option<Vec<Extracted>> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"^(?:please |pls |and |also )*(?:remember|don't forget|do not forget|keep in mind|note|make a note|take note|fyi)(?: that| this| this down)?[:,]?\s*(.*)$",
        )
        .expect("valid")
    });
    let caps = re.captures(l)?;
    let m = caps.get(1)?;
    let content = c[m.start()..].trim();
    let mut parts: Vec<&str> = Vec::new();
    if !content.is_empty() {
        parts.push(content);
    }
    parts.extend(rest.iter().copied());
    let whole = parts.join(", ");
    if whole.trim().is_empty() {
        return Some(Vec::new());
    }
    let mut found = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let p = strip_openers(part);
        let pl = p.to_ascii_lowercase();
        let said = statement(p, &pl, &parts[i + 1..]);
        if said.is_empty() {
            found.extend(no_thing(p, &pl, true));
        } else {
            found.extend(said);
        }
    }
    if found.is_empty() {
        let lower = whole.to_ascii_lowercase();
        let kind = if sequenced(&lower) {
            ItemKind::Procedural
        } else {
            ItemKind::Personal
        };
        // "Remember, just do it!": a reminder to someone else, about neither the speaker
        // nor a procedure.
        let mine = lower
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '\''))
            .any(|w| {
                matches!(
                    w,
                    "i" | "i'm" | "me" | "my" | "mine" | "we" | "our" | "us" | "i've" | "i'd"
                )
            });
        if kind == ItemKind::Personal && !mine {
            return Some(Vec::new());
        }
        found.push(Extracted {
            kind,
            ..Extracted::personal(whole)
        });
    }
    Some(found)
}

/// Whether an instruction orders steps ("run the tests before pushing"), as opposed to
/// naming a time ("never before 9am").
fn sequenced(l: &str) -> bool {
    let timed = |word: &str| {
        l.match_indices(word).all(|(at, w)| {
            let next = l[at + w.len()..].trim_start();
            next.starts_with(|c: char| c.is_ascii_digit())
                || [
                    "noon",
                    "midnight",
                    "dawn",
                    "lunch",
                    "dinner",
                    "breakfast",
                    "morning",
                    "the weekend",
                    "work",
                    "bed",
                ]
                .iter()
                .any(|t| next.starts_with(t))
        })
    };
    let ordered = [" before ", " after ", " prior to "]
        .iter()
        .any(|w| l.contains(w) && !timed(w));
    ordered
        || [" first", " then ", "next time"]
            .iter()
            .any(|w| l.contains(w))
}

fn procedural(sentence: &str) -> Extracted {
    Extracted {
        kind: ItemKind::Procedural,
        ..Extracted::personal(sentence.trim())
    }
}

/// Standing instructions: "always …", "never …", "from now on …", "don't ever …".
fn instruction(c: &str, l: &str, rest: &[&str]) -> Option<Vec<Extracted>> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"^(?:please )?(?:always|never|don't ever|do not ever|please never|from now on|going forward|moving forward|in (?:the )?future|every time|whenever you|make sure (?:you |to )?always|i (?:want|need|would like) you to (?:always|never)|(?:can|could|would|will) you (?:please )?(?:always|never|stop)|i would (?:prefer|rather|like it if) (?:you|that you|it if you)|i prefer (?:it )?(?:when|if) you|stop|quit)\b",
        )
        .expect("valid")
    });
    let trailing = [
        " from now on",
        " going forward",
        " in the future",
        " every time",
        " always",
        " moving forward",
    ]
    .iter()
    .any(|m| {
        l.trim_end_matches(|ch: char| !ch.is_alphanumeric())
            .ends_with(m)
    }) && !is_question(l);
    let marker = match re.find(l) {
        Some(m) => m,
        None if trailing => regex::Regex::new("^").expect("valid").find(l)?,
        None => return None,
    };
    let content = l[marker.end()..].trim_matches(|ch: char| !ch.is_alphanumeric());
    // "never been to one", "always here to help": what the speaker is or did, no order.
    let next = content.split_whitespace().next().unwrap_or("");
    let marker_word = marker.as_str().trim();
    if matches!(
        marker_word,
        "always" | "never" | "please never" | "stop" | "quit"
    ) && (matches!(
        next,
        "here"
            | "there"
            | "been"
            | "had"
            | "was"
            | "were"
            | "have"
            | "has"
            | "so"
            | "such"
            | "a"
            | "an"
            | "the"
            | "got"
            | "gonna"
            | "thought"
            | "knew"
            | "ever"
            | "too"
            | "quit"
            | "gave"
            | "stop"
            | "stopped"
    ) || next.ends_with("ed")
        || content.starts_with("give up")
        || addresses_the_other(content))
    {
        return None;
    }
    let said = content.split_whitespace().count()
        + rest.first().map_or(0, |r| r.split_whitespace().count());
    if said < 2 {
        return Some(Vec::new());
    }
    let whole = std::format!("{l} {}", rest.join(" ").to_ascii_lowercase());
    if let Some(lang) = reply_language(c, &whole[..l.len()]).or_else(|| {
        rest.first()
            .and_then(|r| reply_language(r, &r.to_ascii_lowercase()))
    }) {
        return Some(std::vec![lang]);
    }
    let text = with_tail(c, rest, ", ", |s| !s.ends_with('?') && !laughs(s));
    let kind = if sequenced(&text.to_ascii_lowercase()) {
        ItemKind::Procedural
    } else {
        ItemKind::Personal
    };
    Some(std::vec![Extracted {
        kind,
        standing: true,
        ..Extracted::personal(text)
    }])
}

/// Whether what follows "always" or "never" is about the other person ("always here for you",
/// "never let you down"), not an order that only mentions them in a clause of time or
/// condition ("always run the tests before you deploy").
fn addresses_the_other(content: &str) -> bool {
    let words: Vec<&str> = content.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "you" | "your" | "ya" | "u")
            && !(i > 0
                && matches!(
                    words[i - 1],
                    "before" | "after" | "when" | "whenever" | "if" | "until" | "unless" | "once"
                ))
    })
}

/// "answer in Spanish", "reply to me in French": the language to reply in.
fn reply_language(c: &str, l: &str) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"\b(?:answer|reply|respond|talk|speak|write|chat|text)(?: to me| back| with me)? (?:only |just )?in ([a-z]+)\b").expect("valid")
    });
    let caps = re.captures(l)?;
    let m = caps.get(1)?;
    if !LANGUAGES.contains(&m.as_str()) {
        return None;
    }
    let lang = &c[m.start()..m.end()];
    Some(
        Extracted::personal(std::format!("Reply in {}", title(lang))).with("language", title(lang)),
    )
}

fn title(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|f| f.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// "my wife's name is Leila", "my partner is called Sam".
fn about_partner(c: &str, l: &str) -> Option<Vec<Extracted>> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^my (?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|spouse)(?:'s name is|s name is| is called| is named| goes by)\s+(.+)$").expect("valid")
    });
    let caps = re.captures(l)?;
    let m = caps.get(1)?;
    let name = value(&c[m.start()..]);
    (!name.is_empty()).then(|| {
        std::vec![Extracted::personal(std::format!("Partner: {name}")).with("partner", name)]
    })
}

/// What one statement says about the user: usually one item, two for "a nurse at St.
/// Mary's" (a job and an employer, superseded each on its own).
fn statement(c: &str, l: &str, rest: &[&str]) -> Vec<Extracted> {
    type Rule = fn(&str, &str, &[&str]) -> Option<Extracted>;
    const FIRST: [Rule; 4] = [name, age, timezone, residence];
    const THEN: [Rule; 8] = [
        retraction, allergy, dislikes, diet, likes, has, origin, about_me,
    ];
    if let Some(e) = FIRST.iter().find_map(|rule| rule(c, l, rest)) {
        return std::vec![e];
    }
    if let Some(found) = work(c, l) {
        return found;
    }
    THEN.iter()
        .find_map(|rule| rule(c, l, rest))
        .into_iter()
        .collect()
}

/// "I'm not vegetarian anymore", "I no longer work at Acme": the statement it denies, to be
/// ended.
fn no_longer(c: &str, l: &str) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^i (?:am|do) not (.+?) (?:any ?more|any longer)$|^i (?:am )?no longer (.+)$")
            .expect("valid")
    });
    let caps = re.captures(l)?;
    let (m, was_be) = match (caps.get(1), caps.get(2)) {
        (Some(m), _) => (m, l.starts_with("i am")),
        (None, Some(m)) => (m, l.starts_with("i am")),
        _ => return None,
    };
    let denied = &c[m.start()..m.end()];
    if denied.starts_with("mind ") || denied.starts_with("hate ") || denied.starts_with("dislike ")
    {
        return None;
    }
    let positive = if was_be {
        std::format!("I am {denied}")
    } else {
        std::format!("I {denied}")
    };
    let found = statement(&positive, &positive.to_ascii_lowercase(), &[]);
    let e = found.into_iter().find(|e| e.relation.is_some())?;
    Some(Extracted {
        retract: true,
        text: c.trim().into(),
        ..e
    })
}

/// "I don't mind cilantro anymore", "I no longer hate olives": a dislike ends.
fn retraction(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
    if let Some(e) = no_longer(c, l) {
        return Some(e);
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^i (?:(?:actually|honestly|really|now|kind of|kinda) )*(?:don't mind|do not mind|no longer (?:hate|dislike|mind|avoid)|do not hate|do not dislike|am ok with|'m ok with|'m okay with|am okay with|'m fine with|am fine with)\s+(.+?)(?: any ?more| now| after all| these days)?$").expect("valid")
    });
    let v = value(cap(re, c, l, 1)?);
    if is_pronoun(&v) {
        return None;
    }
    Some(Extracted {
        retract: true,
        ..Extracted::personal(c.trim()).with("dislikes", v)
    })
}

#[cfg(test)]
mod tests {
    use super::values::is_duration;
    use super::*;

    fn one(s: &str) -> Vec<(Option<String>, Option<String>, String)> {
        clause(s, &[], s, false)
            .into_iter()
            .map(|e| (e.relation, e.object, e.text))
            .collect()
    }

    #[test]
    fn first_person_statements_match_and_others_do_not() {
        assert_eq!(one("I live in Denver")[0].1.as_deref(), Some("Denver"));
        assert_eq!(
            one("we finally moved to Berlin last weekend")[0]
                .1
                .as_deref(),
            Some("Berlin")
        );
        assert!(one("My sister lives in Rome").is_empty());
        assert!(one("I don't live in London").is_empty());
        assert!(one("If I moved to Tokyo").is_empty());
        assert!(one("Do you like jazz?").is_empty());
        assert!(one("lol I'm basically a professional couch potato").is_empty());
        assert_eq!(expand("I’m sure I can't"), "I am sure I cannot");
        assert_eq!(one("call me Bobby instead")[0].1.as_deref(), Some("Bobby"));
        assert_eq!(
            one("I'm a backend engineer at Shopify")[0].1.as_deref(),
            Some("backend engineer")
        );
        assert_eq!(
            one("I can't stand cilantro")[0].0.as_deref(),
            Some("dislikes")
        );
        assert!(one("I love it").is_empty());
    }

    #[test]
    fn a_duration_is_no_employer_and_a_later_at_is() {
        let found = one(
            "I've been a pharmacist for about eight years now, currently at a Walgreens in Tucson",
        );
        let employers: Vec<_> = found
            .iter()
            .filter(|f| f.0.as_deref() == Some("employer"))
            .map(|f| f.1.clone().unwrap_or_default())
            .collect();
        assert_eq!(employers, ["Walgreens"]);
        assert!(found.iter().any(|f| f.0.as_deref() == Some("job")));
        for d in [
            "about eight years",
            "3 months",
            "a while",
            "the past two years",
            "ages",
        ] {
            assert!(is_duration(d), "{d}");
        }
        for e in ["Shopify", "a startup", "the hospital", "Acme"] {
            assert!(!is_duration(e), "{e}");
        }
        assert_eq!(
            one("I work at Shopify now")[0].1.as_deref(),
            Some("Shopify")
        );
    }
}
