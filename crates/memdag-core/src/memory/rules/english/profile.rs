//! Profile patterns: name, age, time zone, residence, job and employer.

use std::string::{String, ToString};
use std::sync::OnceLock;
use std::vec::Vec;

use regex::Regex;

use super::super::chat_words::{EMPTY, FEELINGS};
use super::super::lexicon::{DIETS, FILLERS, OCCUPATIONS};
use super::super::text::trim_filler;
use super::super::Extracted;
use super::values::{cap, is_duration, is_pronoun, value, value_until};

/// "I'm Priya": a bare name of one or two words, capitalised unless the turn opened with a
/// greeting ("hey! i'm priya").
pub(super) fn bare_name(c: &str, greeted: bool) -> Option<Extracted> {
    static BARE: OnceLock<Regex> = OnceLock::new();
    let bare = BARE.get_or_init(|| {
        Regex::new(r"^(?:i am|this is|it is)\s+([a-z]+(?: [a-z]+)?)(?: here)?$|^([a-z]+) here$")
            .expect("valid")
    });
    let c = trim_filler(c, FILLERS);
    let l = c.to_ascii_lowercase();
    // "It's Shia Labeouf!" answers a question; only a greeting introduces with "it's".
    if !greeted && (l.starts_with("this is") || l.starts_with("it is")) {
        return None;
    }
    let caps = bare.captures(&l)?;
    let m = caps.get(1).or_else(|| caps.get(2))?;
    let v = &c[m.start()..m.end()];
    let lower = v.to_ascii_lowercase();
    let capitalised = v.split(' ').all(|w| w.starts_with(char::is_uppercase));
    // "it's been tough", "I'm staying positive": a state, not a name.
    let not_a_name = OCCUPATIONS.contains(&lower.as_str())
        || DIETS.contains(&lower.as_str())
        || NOT_NAMES.contains(&lower.as_str())
        || lower.split(' ').any(|w| {
            NOT_NAMES.contains(&w)
                || EMPTY.contains(&w)
                || FEELINGS.contains(&w)
                || (!capitalised && (w.ends_with("ing") || w.ends_with("ed")))
        });
    if !(capitalised || greeted) || not_a_name {
        return None;
    }
    Some(Extracted::personal(std::format!("Name: {v}")).with("name", v))
}

/// Words that follow "I'm" without being a name.
pub(super) const NOT_NAMES: &[&str] = &[
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

pub(super) fn name(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
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

pub(super) fn age(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
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

pub(super) fn timezone(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i'm|i am|im|we're|we are) (?:on|in) ((?:eastern|pacific|central|mountain|atlantic|alaska|hawaii|gmt|utc|cet|cest|est|edt|pst|pdt|cst|cdt|mst|mdt|bst|ist|jst|kst|aest|aedt|nzst|sgt|hkt)(?:[+-]\d{1,2})?)(?: standard)?(?: time(?: ?zone)?| tz)?\b|^my time ?zone is ([a-z0-9/+_ -]+)").expect("valid")
    });
    let caps = re.captures(l)?;
    let m = caps.get(1).or_else(|| caps.get(2))?;
    let v = value(&c[m.start()..m.end()]);
    (!v.is_empty()).then(|| Extracted::personal(std::format!("Time zone: {v}")).with("timezone", v))
}

pub(super) fn residence(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
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
pub(super) fn work(c: &str, l: &str) -> Option<Vec<Extracted>> {
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
        let first = e
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        // "working on my online store", "started looking into counseling": no employer.
        let clause = first.ends_with("ing")
            || matches!(
                first.as_str(),
                "to" | "my"
                    | "our"
                    | "some"
                    | "on"
                    | "in"
                    | "hard"
                    | "out"
                    | "from"
                    | "through"
                    | "towards"
                    | "toward"
                    | "like"
                    | "so"
                    | "really"
                    | "together"
                    | "too"
                    | "late"
                    | "long"
                    | "overtime"
                    | "remotely"
                    | "there"
                    | "here"
                    | "it"
                    | "that"
                    | "this"
                    | "up"
                    | "over"
                    | "off"
                    | "around"
                    | "again"
                    | "more"
                    | "less"
            );
        (!e.is_empty()
            && !clause
            && !is_pronoun(&e)
            && !is_duration(&e)
            && e.split_whitespace().count() <= 5)
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
