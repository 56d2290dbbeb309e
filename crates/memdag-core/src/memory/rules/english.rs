//! English clauses: explicit first-person statements and standing instructions.
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

use super::lexicon::{
    DIETS, FILLERS, HYPOTHETICAL, LANGUAGES, OCCUPATIONS, OPENERS, OTHERS, QUESTION_OPENERS,
};
use super::text::{laughs, trim_filler, with_tail};
use super::Extracted;
use crate::item::ItemKind;

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
        with_subject = std::format!("I {c}");
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

/// `s` without the openers that carry nothing ("oh and", "btw", "actually", ...).
fn strip_openers(s: &str) -> &str {
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

fn is_question(l: &str) -> bool {
    if l.ends_with('?') {
        return true;
    }
    let first = l
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .next();
    first.is_some_and(|w| QUESTION_OPENERS.contains(&w))
}

fn is_hypothetical(l: &str) -> bool {
    let words: Vec<&str> = l
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    matches!(
        words.first(),
        Some(&("if" | "suppose" | "imagine" | "when" | "once" | "unless" | "whether"))
    ) || words.iter().take(4).any(|w| HYPOTHETICAL.contains(w))
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
        let kind = if sequenced(&whole.to_ascii_lowercase()) {
            ItemKind::Procedural
        } else {
            ItemKind::Personal
        };
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

/// The value at the start of `s`: up to a clause word ("and", "because", ...) or a
/// preposition that starts a new phrase, without filler words at its end.
fn value(s: &str) -> String {
    value_until(s, &[])
}

fn value_until(s: &str, extra_stops: &[&str]) -> String {
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
fn is_duration(v: &str) -> bool {
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

/// A pronoun object says nothing by itself: "I love it", "I hate that".
fn is_pronoun(v: &str) -> bool {
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

/// The capture `i` of `re` on `l`, as the slice of the original `c`.
fn cap<'a>(re: &Regex, c: &'a str, l: &str, i: usize) -> Option<&'a str> {
    let caps = re.captures(l)?;
    let m = caps.get(i)?;
    Some(&c[m.start()..m.end()])
}

/// "I'm Priya": a bare name of one or two words, capitalised unless the turn opened with a
/// greeting ("hey! i'm priya").
fn bare_name(c: &str, greeted: bool) -> Option<Extracted> {
    static BARE: OnceLock<Regex> = OnceLock::new();
    let bare = BARE.get_or_init(|| {
        Regex::new(r"^(?:i am|this is|it is)\s+([a-z]+(?: [a-z]+)?)(?: here)?$|^([a-z]+) here$")
            .expect("valid")
    });
    let c = trim_filler(c, FILLERS);
    let l = c.to_ascii_lowercase();
    let caps = bare.captures(&l)?;
    let m = caps.get(1).or_else(|| caps.get(2))?;
    let v = &c[m.start()..m.end()];
    let lower = v.to_ascii_lowercase();
    let capitalised = v.split(' ').all(|w| w.starts_with(char::is_uppercase));
    let not_a_name = OCCUPATIONS.contains(&lower.as_str())
        || DIETS.contains(&lower.as_str())
        || NOT_NAMES.contains(&lower.as_str())
        || lower.split(' ').any(|w| NOT_NAMES.contains(&w));
    if !(capitalised || greeted) || not_a_name {
        return None;
    }
    Some(Extracted::personal(std::format!("Name: {v}")).with("name", v))
}

/// Words that follow "I'm" without being a name.
const NOT_NAMES: &[&str] = &[
    "a",
    "an",
    "the",
    "so",
    "very",
    "really",
    "not",
    "just",
    "fine",
    "good",
    "great",
    "ok",
    "okay",
    "well",
    "tired",
    "sorry",
    "back",
    "here",
    "there",
    "home",
    "ready",
    "done",
    "sure",
    "new",
    "busy",
    "free",
    "late",
    "early",
    "sick",
    "stuck",
    "lost",
    "bored",
    "confused",
    "curious",
    "hungry",
    "sleepy",
    "happy",
    "sad",
    "excited",
    "nervous",
    "stressed",
    "alright",
    "glad",
    "thrilled",
    "exhausted",
    "starving",
    "cold",
    "hot",
    "old",
    "young",
    "single",
    "married",
    "pregnant",
    "vegan",
    "vegetarian",
    "in",
    "on",
    "at",
    "out",
    "off",
    "up",
    "down",
    "working",
    "looking",
    "trying",
    "going",
    "thinking",
    "wondering",
    "learning",
    "feeling",
    "still",
    "also",
    "too",
    "always",
    "never",
    "currently",
    "now",
    "good",
    "american",
    "british",
    "english",
    "canadian",
    "chinese",
    "french",
    "german",
    "indian",
    "japanese",
    "korean",
    "italian",
    "spanish",
    "mexican",
    "australian",
    "irish",
    "scottish",
    "russian",
    "brazilian",
    "dutch",
    "swedish",
    "new",
    "used",
    "aware",
    "afraid",
    "allergic",
    "into",
    "from",
    "with",
    "about",
    "like",
    "kidding",
    "joking",
    "serious",
    "right",
    "wrong",
    "me",
    "it",
    "that",
    "this",
    "what",
    "who",
    "how",
    "why",
    "where",
    "when",
    "yes",
    "no",
];

fn name(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:my name is|my name's|name's|i'm called|i am called|i go by|you can call me|just call me|call me|please call me|people call me|everyone calls me|my friends call me)\s+(.+)$").expect("valid")
    });
    let v = match cap(re, c, l, 1) {
        Some(v) => value_until(v, &[" not ", " by the way"]),
        None => return bare_name(c, false),
    };
    let words = v.split_whitespace().count();
    if v.is_empty() || words > 3 || is_pronoun(&v) {
        return None;
    }
    Some(Extracted::personal(std::format!("Name: {v}")).with("name", v))
}

fn age(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i'm|i am|im|i just turned|i turned|i have just turned)\s+(\d{1,3})(?:\s*(?:years old|yrs old|yo|y/o|years))?(?: now| today| this year)?$").expect("valid")
    });
    let v = cap(re, c, l, 1)?;
    let n: u32 = v.parse().ok()?;
    (5..=120)
        .contains(&n)
        .then(|| Extracted::personal(std::format!("Age: {n}")).with("age", v))
}

fn timezone(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i'm|i am|im|we're|we are) (?:on|in) ((?:eastern|pacific|central|mountain|atlantic|alaska|hawaii|gmt|utc|cet|cest|est|edt|pst|pdt|cst|cdt|mst|mdt|bst|ist|jst|kst|aest|aedt|nzst|sgt|hkt)(?:[+-]\d{1,2})?)(?: standard)?(?: time(?: ?zone)?| tz)?\b|^my time ?zone is ([a-z0-9/+_ -]+)").expect("valid")
    });
    let caps = re.captures(l)?;
    let m = caps.get(1).or_else(|| caps.get(2))?;
    let v = value(&c[m.start()..m.end()]);
    (!v.is_empty()).then(|| Extracted::personal(std::format!("Time zone: {v}")).with("timezone", v))
}

fn residence(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:(?:i|we)(?:'ve| have)? (?:(?:now|currently|still|just|finally|recently|actually|also|both|all|been) )*(?:live|living|reside|residing|stay|'m living|am living|'re living|are living|'m based|am based|'re based|are based|'m located|am located|moved|relocated|moved back|'m settled|am settled)|(?:i'm|i am|we're|we are) (?:now |currently )?(?:based|living|settled|located)|(?:just |finally |recently )?(?:moved|relocated))\s+(?:back )?(?:out of|in|to|near|at|out to|over to)\s+(.+)$").expect("valid")
    });
    static HOME: OnceLock<Regex> = OnceLock::new();
    let home = HOME.get_or_init(|| {
        Regex::new(r"^(?:i|we) (?:now )?call (.+?) home$|^home (?:for me )?is (.+)$")
            .expect("valid")
    });
    let v = match home.captures(l) {
        Some(caps) => {
            let m = caps.get(1).or_else(|| caps.get(2))?;
            &c[m.start()..m.end()]
        }
        None => cap(re, c, l, 1)?,
    };
    let place = value_until(
        v,
        &[
            " with ",
            " for ",
            " last ",
            " a few ",
            " since ",
            " after ",
            " about ",
            " in the ",
            " to be ",
            " to work",
            " the ",
            " it ",
            " it is ",
            " this ",
            " that ",
            " now ",
            " these ",
            " recently",
        ],
    );
    let place = place.trim_start_matches("the ").trim();
    if place.is_empty() || is_pronoun(place) || place.split_whitespace().count() > 5 {
        return None;
    }
    Some(Extracted::personal(std::format!("Lives in {place}")).with("residence", place))
}

/// Job and employer: "I work as a nurse at St. Mary's", "I'm a backend engineer at
/// Shopify", "started a new job at Loomly", "I'm their controller now".
fn work(c: &str, l: &str) -> Option<Vec<Extracted>> {
    static AS: OnceLock<Regex> = OnceLock::new();
    static AT: OnceLock<Regex> = OnceLock::new();
    static ROLE: OnceLock<Regex> = OnceLock::new();
    let as_re = AS.get_or_init(|| {
        Regex::new(r"^(?:i (?:now |currently |still )?work|i'm working|i am working|working)(?: full[- ]time| part[- ]time)? as (?:a |an )?(.+?)(?: (?:at|for|with) (.+))?$").expect("valid")
    });
    let at_re = AT.get_or_init(|| {
        Regex::new(r"^(?:i (?:now |currently |still |also )?(?:work|works)|i'm working|i am working|i'm employed|i am employed|i (?:just |recently |finally )?(?:joined|started(?: a new job| work| working)?|began(?: working)?|got (?:a job|hired|an offer|a position)|landed (?:a job|a role|a position)|accepted (?:a job|an offer|a position))|(?:just )?(?:joined|started(?: a new job| work| working)?|got hired|landed a job))(?: full[- ]time| part[- ]time)? (?:at|for|with|by)?\s*(.+)$").expect("valid")
    });
    let role_re = ROLE.get_or_init(|| {
        Regex::new(r"^(?:i'm|i am|im|i work as|i've been|i have been) (?:(?:now|currently|still|also|actually|just|officially|finally) )*(?:a |an |the |their |his |her |our |a new |the new |its )?((?:[a-z-]+ ){0,3}?([a-z-]+))(?: (?:at|for|with|in|of) (.+))?$").expect("valid")
    });
    // "I've been a pharmacist for about eight years now, currently at a Walgreens": a
    // duration is no employer, but an " at …" later in the clause may be.
    fn employer_of(v: &str) -> Option<String> {
        if is_duration(v) {
            let l = v.to_ascii_lowercase();
            let at = l.find(" at ")?;
            return employer_of(&v[at + 4..]);
        }
        let e = value_until(
            v,
            &[
                " as ",
                " in ",
                " for the ",
                " since ",
                " last ",
                " after ",
                ", ",
                " now ",
            ],
        );
        let e = e.strip_suffix(" now").unwrap_or(&e);
        let e = e
            .strip_prefix("a ")
            .or_else(|| e.strip_prefix("an "))
            .unwrap_or(e)
            .to_string();
        (!e.is_empty() && !is_pronoun(&e) && !is_duration(&e) && e.split_whitespace().count() <= 5)
            .then_some(e)
    }
    let job_and_employer = |job: Option<String>, employer: Option<String>| {
        let mut out = Vec::new();
        if let Some(j) = job.filter(|j| !j.is_empty()) {
            out.push(Extracted::personal(std::format!("Job: {j}")).with("job", j));
        }
        if let Some(e) = employer {
            out.push(Extracted::personal(std::format!("Works at {e}")).with("employer", e));
        }
        (!out.is_empty()).then_some(out)
    };
    static AS_A: OnceLock<Regex> = OnceLock::new();
    let as_a = AS_A
        .get_or_init(|| Regex::new(r"^as (?:a|an) ((?:[a-z-]+ ){0,2}?([a-z-]+))$").expect("valid"));
    if let Some(caps) = as_a.captures(l) {
        let head = caps.get(2).map_or("", |m| m.as_str());
        if OCCUPATIONS.contains(&head) {
            let m = caps.get(1)?;
            return job_and_employer(Some(value(&c[m.start()..m.end()])), None);
        }
    }
    let trimmed = trim_filler(c, FILLERS);
    let (c, l) = (trimmed, &l[..trimmed.len()]);
    if let Some(caps) = as_re.captures(l) {
        let job = caps.get(1).map(|m| value(&c[m.start()..m.end()]));
        let employer = caps.get(2).and_then(|m| employer_of(&c[m.start()..]));
        return job_and_employer(job, employer);
    }
    if let Some(caps) = role_re.captures(l) {
        let head = caps.get(2).map(|m| m.as_str()).unwrap_or("");
        if OCCUPATIONS.contains(&head) || OCCUPATIONS.contains(&head.trim_end_matches('s')) {
            let m = caps.get(1)?;
            let job = value(&c[m.start()..m.end()]);
            let employer = caps.get(3).and_then(|m| employer_of(&c[m.start()..]));
            return job_and_employer(Some(job), employer);
        }
    }
    static MY: OnceLock<Regex> = OnceLock::new();
    let my = MY.get_or_init(|| {
        Regex::new(r"^my (?:new |current |day )?(?:job|role|position|title|occupation|profession) is (?:a |an )?(.+)$|^i (?:do|work in) (.+?) for a living$|^i (?:work|am working) in ((?:sales|marketing|finance|tech|healthcare|education|retail|hospitality|construction|law|real estate|insurance|consulting|accounting|hr|it|engineering|design|research|government|journalism|media|nonprofits?|banking|logistics|manufacturing)(?: [a-z]+)?)$|^i am (retired|unemployed|between jobs|a stay-at-home (?:mom|dad|parent)|self-employed)$|^my (?:new |current )?(?:company|employer) is (.+)$").expect("valid")
    });
    if let Some(caps) = my.captures(l) {
        if let Some(m) = caps
            .get(1)
            .or_else(|| caps.get(2))
            .or_else(|| caps.get(3))
            .or_else(|| caps.get(4))
        {
            return job_and_employer(Some(value(&c[m.start()..m.end()])), None);
        }
        let m = caps.get(5)?;
        return job_and_employer(None, employer_of(&c[m.start()..m.end()]));
    }
    let v = cap(at_re, c, l, 1)?;
    let employer = employer_of(v)?;
    job_and_employer(None, Some(employer))
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

fn allergy(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i'm|i am|im|i'm (?:very|super|really|severely|deathly) |i am (?:very|super|really|severely) )?\s*(?:allergic to|intolerant to|intolerant of)\s+(.+)$|^i have (?:a |an )?(?:severe |bad |mild )?(.+?) allerg(?:y|ies)").expect("valid")
    });
    let caps = re.captures(l)?;
    let m = caps.get(1).or_else(|| caps.get(2))?;
    let v = value(&c[m.start()..m.end()]);
    if is_pronoun(&v) {
        return None;
    }
    let text = with_tail(c, rest, ", ", is_statement);
    Some(Extracted::personal(text).with("allergy", v))
}

fn is_statement(s: &str) -> bool {
    let l = strip_openers(s).to_ascii_lowercase();
    !is_question(&l) && !laughs(s) && !l.starts_with("what") && !l.starts_with("any")
}

fn dislikes(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^i (?:(?:really|absolutely|just|totally|truly|honestly|seriously|genuinely|also|still|kinda|kind of) )*(?:hate|dislike|detest|loathe|despise|can't stand|cannot stand|can not stand|cannot bear|don't like|do not like|do not really like|don't eat|do not eat|don't drink|do not drink|never eat|never drink|can't eat|cannot eat|can't have|cannot have|do not do|avoid|am not a fan of|'m not a fan of|'m not into|am not into|'m not big on|am not big on|am (?:afraid|scared|terrified) of|try to avoid|try not to eat|stay away from|am not into)\s+(.+)$").expect("valid")
    });
    match cap(re, c, l, 1) {
        Some(v) => {
            let v = value(v);
            if is_pronoun(&v) {
                return None;
            }
            let text = with_tail(c, rest, ", ", is_statement);
            Some(Extracted::personal(text).with("dislikes", v))
        }
        None => no_thing(c, l, false),
    }
}

/// "no cilantro in anything please": a standing dislike. Outside a "remember", it needs a
/// word saying it is meant for good ("in anything", "ever", "please", "for me").
fn no_thing(c: &str, l: &str, remembered: bool) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^no ([a-z][a-z -]*?)(?: (?:in anything|in my food|at all|ever|for me|please|whatsoever))+$|^no ([a-z][a-z -]*)$").expect("valid")
    });
    let caps = re.captures(l)?;
    let (m, strong) = match (caps.get(1), caps.get(2)) {
        (Some(m), _) => (m, true),
        (None, Some(m)) => (m, false),
        _ => return None,
    };
    if !(strong || remembered) {
        return None;
    }
    let v = value(&c[m.start()..m.end()]);
    let filler = [
        "problem",
        "worries",
        "thanks",
        "idea",
        "way",
        "rush",
        "clue",
        "thank you",
        "need",
        "one",
        "big deal",
    ];
    if v.is_empty() || filler.iter().any(|f| v.eq_ignore_ascii_case(f)) {
        return None;
    }
    Some(Extracted::personal(c.trim()).with("dislikes", v))
}

fn diet(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i'm|i am|im|as|i've been|i have been|i went|i've gone|we're|we are) (?:(?:a|an|now|still|strictly|fully|mostly|also|pretty much|basically) )*([a-z -]+)$").expect("valid")
    });
    static ON: OnceLock<Regex> = OnceLock::new();
    let on = ON.get_or_init(|| {
        Regex::new(r"^(?:i|we) (?:am |are )?(?:on a |on an |follow a |keep |eat |eat only |only eat )([a-z -]+?)(?: diet)?$").expect("valid")
    });
    let v = cap(re, c, l, 1).or_else(|| cap(on, c, l, 1))?;
    let v = trim_filler(v, FILLERS);
    let lower = v.to_ascii_lowercase();
    let diet = DIETS
        .iter()
        .find(|d| lower == **d || lower.starts_with(&std::format!("{d} ")))?;
    let text = with_tail(c, rest, ", ", is_statement);
    Some(Extracted::personal(text).with("diet", &v[..diet.len()]))
}

fn likes(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    static FAV: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i|we) (?:(?:really|absolutely|just|totally|truly|honestly|seriously|genuinely|also|still|do|so|kinda|kind of|always|definitely|actually|now|usually|generally|personally|mostly|much|very much) )*(?:love|like|enjoy|adore|prefer|dig|am obsessed with|'m obsessed with|'m a (?:big |huge |massive )?fan of|am a (?:big |huge |massive )?fan of|'m (?:really |big |super )?into|am (?:really |big |super )?into|'m addicted to|am addicted to|'m crazy about|am crazy about|can't get enough of|cannot get enough of|'m passionate about|am passionate about|am a sucker for|am a big believer in|(?:usually|mostly|always|normally|typically) (?:drink|eat|order|take|listen to|watch|read|play|go for))\s+(.+)$|^(?:i'm|i am) (?:a )?(?:big |huge |massive |die-hard |lifelong )?(.+?) fan$").expect("valid")
    });
    let fav = FAV.get_or_init(|| {
        Regex::new(r"^my (?:absolute |all[- ]time )?favou?rite(?: [a-z]+){0,2} (?:is|are|has to be|would be)\s+(.+)$").expect("valid")
    });
    let v = re
        .captures(l)
        .and_then(|caps| caps.get(1).or_else(|| caps.get(2)))
        .map(|m| &c[m.start()..m.end()])
        .or_else(|| cap(fav, c, l, 1))?;
    let v = value_until(
        v,
        &[" over ", " rather than ", " more than ", " better than "],
    );
    if is_pronoun(&v) {
        return None;
    }
    let text = with_tail(c, rest, ", ", is_statement);
    Some(Extracted::personal(text).with("likes", v))
}

/// "I'm from Ohio", "I grew up in Lyon": where the user comes from (not where they live).
fn origin(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i'm|i am|im) (?:originally )?from\s+(.+)$|^i (?:grew up|was born(?: and raised)?) in\s+(.+)$").expect("valid")
    });
    let caps = re.captures(l)?;
    let m = caps.get(1).or_else(|| caps.get(2))?;
    let place = value_until(&c[m.start()..m.end()], &[" originally", " but ", " now"]);
    if place.is_empty() || is_pronoun(&place) || place.split_whitespace().count() > 4 {
        return None;
    }
    Some(Extracted::personal(std::format!("From {place}")).with("origin", place))
}

/// "my pronouns are they/them", "my birthday is May 2", "I speak Dutch", "I'm learning
/// piano".
fn about_me(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^my (pronouns) are (.+)$|^my (birthday) is (?:on )?(.+)$|^i (speak) (.+)$|^i am (?:currently |slowly )?(learning) (.+)$").expect("valid")
    });
    let caps = re.captures(l)?;
    let (rel, m) = (1..=7)
        .step_by(2)
        .find_map(|i| Some((caps.get(i)?.as_str(), caps.get(i + 1)?)))?;
    let v = value(&c[m.start()..m.end()]);
    if v.is_empty() || is_pronoun(&v) {
        return None;
    }
    let relation = match rel {
        "speak" => "speaks",
        other => other,
    };
    let text = with_tail(c, rest, ", ", is_statement);
    Some(Extracted::personal(text).with(relation, v))
}

/// "I have two dogs", "I've got a cat".
fn has(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i|we) (?:have|'ve got|have got|own)\s+((?:a|an|one|two|three|four|five|six|\d+) (?:[a-z]+ )?(?:dogs?|cats?|puppy|puppies|kittens?|kids?|children|child|sons?|daughters?|parrots?|rabbits?|hamsters?|birds?|fish|horses?|twins|grandchildren|grandkids|toddlers?|babies|baby))\b").expect("valid")
    });
    let v = cap(re, c, l, 1)?;
    let text = with_tail(c, rest, ", ", is_statement);
    Some(Extracted::personal(text).with("has", v))
}

#[cfg(test)]
mod tests {
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
