//! Preference patterns: likes, dislikes, allergies, diets, origin, languages, pets and
//! other things had.

use std::sync::OnceLock;

use regex::Regex;

use super::super::lexicon::{DIETS, FILLERS};
use super::super::text::{trim_filler, with_tail};
use super::super::Extracted;
use super::values::{
    addresses_other, cap, is_pointed_at, is_pronoun, is_statement, value, value_until,
};

pub(super) fn allergy(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
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

pub(super) fn dislikes(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
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
pub(super) fn no_thing(c: &str, l: &str, remembered: bool) -> Option<Extracted> {
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

pub(super) fn diet(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
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

pub(super) fn likes(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
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
    if is_pronoun(&v) || is_pointed_at(&v) || addresses_other(&v) {
        return None;
    }
    let text = with_tail(c, rest, ", ", is_statement);
    Some(Extracted::personal(text).with("likes", v))
}

/// "I'm from Ohio", "I grew up in Lyon": where the user comes from (not where they live).
pub(super) fn origin(c: &str, l: &str, _: &[&str]) -> Option<Extracted> {
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
pub(super) fn about_me(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^my (pronouns) are (.+)$|^my (birthday) is (?:on )?(.+)$|^i (speak) (.+)$|^i am (?:currently |slowly )?(learning) (.+)$").expect("valid")
    });
    let caps = re.captures(l)?;
    let (rel, m) = (1..=7)
        .step_by(2)
        .find_map(|i| Some((caps.get(i)?.as_str(), caps.get(i + 1)?)))?;
    let v = value(&c[m.start()..m.end()]);
    let amount = [
        "a ton",
        "a lot",
        "so much",
        "lots",
        "tons",
        "a bunch",
        "a great deal",
    ];
    if v.is_empty()
        || is_pronoun(&v)
        || amount.iter().any(|a| v.to_ascii_lowercase().starts_with(a))
    {
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
pub(super) fn has(c: &str, l: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:i|we) (?:have|'ve got|have got|own)\s+((?:a|an|one|two|three|four|five|six|\d+) (?:[a-z]+ )?(?:dogs?|cats?|puppy|puppies|kittens?|kids?|children|child|sons?|daughters?|parrots?|rabbits?|hamsters?|birds?|fish|horses?|twins|grandchildren|grandkids|toddlers?|babies|baby))\b").expect("valid")
    });
    let v = cap(re, c, l, 1)?;
    let text = with_tail(c, rest, ", ", is_statement);
    Some(Extracted::personal(text).with("has", v))
}
