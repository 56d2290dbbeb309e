//! Who is speaking, and their words retold about them: "I took my kids to the museum" said
//! by Melanie becomes "Melanie took their kids to the museum".
//!
//! A learned item is read later, beside other users' items and in prompts that do not show
//! who said it, so the rules write it as a statement about the speaker, naming them. The
//! name is the user's own (a `name` item), else the user id when it reads as a name
//! ([`display_name`]), else "The user".
//!
//! English: the first mention of the speaker is the name and later ones "they"/"their"/
//! "them", with the verb agreeing ("I am" → "Melanie is", a later "I was" → "they were", "I
//! love" → "Melanie loves"); "we" becomes "Melanie and others" once, then "they". Chinese has no
//! agreement: 我 becomes the name, 我们 the name and 他们.

use std::string::String;
use std::vec::Vec;

/// The name a user's items use: `name` (the user's stated name) if given, else `user` when it
/// reads as a person's name (letters, spaces, hyphens, apostrophes and dots, at most 40
/// bytes, capitalised as written or title-cased), else "The user".
pub fn display_name(user: &str, name: Option<&str>) -> String {
    if let Some(n) = name
        .map(str::trim)
        .filter(|n| !n.is_empty() && n.len() <= 60)
    {
        return n.into();
    }
    let u = user.trim();
    let reads_as_name = !u.is_empty()
        && u.len() <= 40
        && u.chars().next().is_some_and(char::is_alphabetic)
        && u.chars()
            .all(|c| c.is_alphabetic() || matches!(c, ' ' | '-' | '\'' | '.'));
    if !reads_as_name {
        return "The user".into();
    }
    u.split(' ')
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) if f.is_lowercase() => f.to_uppercase().chain(cs).collect(),
                _ => String::from(w),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words between a subject and its verb that leave the verb's form alone.
const ADVERBS: &[&str] = &[
    "just",
    "really",
    "finally",
    "recently",
    "also",
    "even",
    "actually",
    "totally",
    "still",
    "always",
    "never",
    "already",
    "now",
    "truly",
    "definitely",
    "absolutely",
    "honestly",
    "officially",
    "sometimes",
    "often",
    "usually",
    "currently",
    "kinda",
    "mostly",
    "literally",
    "seriously",
    "genuinely",
    "normally",
    "generally",
    "rarely",
    "recently",
    "lately",
    "both",
    "all",
    "once",
    "first",
    "certainly",
];

/// Verbs that keep their form after "they" but take an irregular one after a name.
const IRREGULAR_THIRD: &[(&str, &str)] = &[
    ("am", "is"),
    ("have", "has"),
    ("do", "does"),
    ("go", "goes"),
    ("don't", "doesn't"),
    ("haven't", "hasn't"),
    ("aren't", "isn't"),
];

/// Words after "I" that are no present-tense verb, so take no "-s".
const NOT_PRESENT: &[&str] = &[
    "can",
    "could",
    "will",
    "would",
    "should",
    "might",
    "must",
    "may",
    "shall",
    "was",
    "wasn't",
    "did",
    "didn't",
    "can't",
    "cannot",
    "couldn't",
    "won't",
    "wouldn't",
    "shouldn't",
    "had",
    "used",
    "gotta",
    "wanna",
    "gonna",
    "got",
    "felt",
    "made",
    "went",
    "took",
    "saw",
    "met",
    "ran",
    "bought",
    "found",
    "gave",
    "thought",
    "told",
    "began",
    "became",
    "came",
    "left",
    "knew",
    "wrote",
    "read",
    "drove",
    "flew",
    "sang",
    "swam",
    "won",
    "lost",
    "spent",
    "built",
    "taught",
    "brought",
    "caught",
    "kept",
    "sent",
    "held",
    "heard",
    "paid",
    "sold",
    "stood",
    "put",
    "let",
    "set",
    "cut",
    "hit",
    "quit",
    "shut",
    "hurt",
    "said",
    "did",
    "ate",
    "drank",
    "slept",
    "woke",
    "wore",
    "chose",
    "fell",
    "forgot",
    "got",
    "grew",
    "hung",
    "lent",
    "meant",
    "rode",
    "rose",
    "shook",
    "shot",
    "sat",
    "spoke",
    "stole",
    "swore",
    "threw",
    "understood",
    "wept",
    "won",
];

/// The third person singular of a present-tense verb after a name: "love" → "loves".
fn third_singular(verb: &str) -> String {
    let lower = verb.to_ascii_lowercase();
    if let Some((_, v)) = IRREGULAR_THIRD.iter().find(|(base, _)| *base == lower) {
        return (*v).into();
    }
    if NOT_PRESENT.contains(&lower.as_str())
        || lower.ends_with("ed")
        || lower.ends_with("n't")
        || !lower.chars().all(|c| c.is_ascii_alphabetic())
    {
        return verb.into();
    }
    let b = lower.as_bytes();
    let consonant_y = b.len() >= 2 && b[b.len() - 1] == b'y' && !b"aeiou".contains(&b[b.len() - 2]);
    if consonant_y {
        return std::format!("{}ies", &verb[..verb.len() - 1]);
    }
    if ["s", "sh", "ch", "x", "z", "o"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        return std::format!("{verb}es");
    }
    std::format!("{verb}s")
}

/// One word of a sentence with what follows it up to the next word.
struct Token<'a> {
    word: &'a str,
    gap: &'a str,
}

fn tokens(s: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    let b = s.as_bytes();
    // Leading punctuation goes with an empty first word.
    let word_char = |c: char| c.is_alphanumeric() || c == '\'' || c == '’';
    let first = s.find(word_char).unwrap_or(s.len());
    if first > 0 {
        out.push(Token {
            word: "",
            gap: &s[..first],
        });
        i = first;
    }
    while i < b.len() {
        let rest = &s[i..];
        let wlen = rest.find(|c: char| !word_char(c)).unwrap_or(rest.len());
        let after = &rest[wlen..];
        let glen = after.find(word_char).unwrap_or(after.len());
        out.push(Token {
            word: &rest[..wlen],
            gap: &after[..glen],
        });
        i += wlen + glen;
    }
    out
}

/// "my husband and I" / "me and my husband" as "I and my husband", so the speaker is
/// named first: "Priya and their husband".
fn speaker_first(sentence: &str) -> String {
    let lower = sentence.to_ascii_lowercase();
    for (at, _) in lower.match_indices(" and i ") {
        let head = &lower[..at];
        let from = ["my ", "our "]
            .iter()
            .filter_map(|p| {
                head.rfind(p)
                    .filter(|&f| f == 0 || head.as_bytes()[f - 1] == b' ')
            })
            .max();
        if let Some(f) = from {
            if head[f..].split_whitespace().count() <= 3 {
                return std::format!(
                    "{}I and {}{}",
                    &sentence[..f],
                    &sentence[f..at],
                    &sentence[at + 6..]
                );
            }
        }
    }
    if lower.starts_with("me and ") {
        return std::format!("I and {}", &sentence[7..]);
    }
    sentence.into()
}

/// `sentence`, said by `name` in the first person, retold in the third person (English).
pub fn english(sentence: &str, name: &str) -> String {
    let sentence = speaker_first(sentence);
    let toks = tokens(&sentence);
    let mut out = String::with_capacity(sentence.len() + name.len() * 2);
    // Whether the speaker was named yet; the second and later mentions are pronouns.
    let mut named = false;
    // Set after a subject: the next verb agrees with a name ("sing") or with "they" ("plur").
    let mut agree: Option<bool> = None;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let w = t.word.replace('’', "'");
        let lower = w.to_ascii_lowercase();
        let sentence_start = out.trim().is_empty()
            || out
                .trim_end()
                .ends_with(['.', '!', '?', ':', ';', '-', '—', '(']);
        let cap = |s: &str| -> String {
            if sentence_start {
                let mut c = s.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect())
                    .unwrap_or_default()
            } else {
                s.into()
            }
        };
        let subject = |named: &mut bool| -> (String, bool) {
            if *named {
                (cap("they"), false)
            } else {
                *named = true;
                (name.into(), true)
            }
        };
        let word: String = match lower.as_str() {
            "i" => {
                let (s, singular) = subject(&mut named);
                // "I and my husband celebrated", "Biscuit and I went", "my sister and I
                // went": a plural subject, whose verb keeps its form; not "I love painting
                // and I was happy", two clauses.
                let is = |at: usize, w: &str| toks[at].word.eq_ignore_ascii_case(w);
                let plural = toks
                    .get(i + 1)
                    .is_some_and(|n| n.word.eq_ignore_ascii_case("and"))
                    || (i >= 2
                        && is(i - 1, "and")
                        && (i == 2 || (i == 3 && (is(0, "my") || is(0, "our")))));
                if !plural {
                    agree = Some(singular);
                }
                s
            }
            "i'm" | "im" => {
                let (s, singular) = subject(&mut named);
                std::format!("{s} {}", if singular { "is" } else { "are" })
            }
            "i've" => {
                let (s, singular) = subject(&mut named);
                std::format!("{s} {}", if singular { "has" } else { "have" })
            }
            "i'd" => std::format!("{} would", subject(&mut named).0),
            "i'll" => std::format!("{} will", subject(&mut named).0),
            "we" | "we're" | "we've" | "we'll" | "we'd" => {
                let s = if named {
                    cap("they")
                } else {
                    named = true;
                    std::format!("{name} and others")
                };
                match lower.as_str() {
                    "we're" => std::format!("{s} are"),
                    "we've" => std::format!("{s} have"),
                    "we'll" => std::format!("{s} will"),
                    "we'd" => std::format!("{s} would"),
                    _ => s,
                }
            }
            "my" | "our" => {
                if named {
                    cap("their")
                } else {
                    named = true;
                    std::format!("{name}'s")
                }
            }
            "me" | "us" => {
                if named {
                    "them".into()
                } else {
                    named = true;
                    name.into()
                }
            }
            "myself" | "ourselves" => "themself".into(),
            "mine" | "ours" => "theirs".into(),
            _ => match agree.take() {
                Some(singular) if ADVERBS.contains(&lower.as_str()) => {
                    agree = Some(singular);
                    w.clone()
                }
                Some(true) => third_singular(&w),
                Some(false) => match lower.as_str() {
                    "am" => "are".into(),
                    "was" => "were".into(),
                    _ => w.clone(),
                },
                None => w.clone(),
            },
        };
        out.push_str(&word);
        out.push_str(t.gap);
        i += 1;
    }
    out
}

/// `sentence`, said by `name` in the first person, retold about them (Chinese): 我们 becomes
/// the name and 他们 ("Name他们"), 我 the name.
pub fn chinese(sentence: &str, name: &str) -> String {
    let we = std::format!("{name}他们");
    let home = std::format!("{name}家");
    sentence
        .replace("我们家", &home)
        .replace("我家", &home)
        .replace("我们", &we)
        .replace("咱们", &we)
        .replace('我', name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_speaker_is_named_once_then_a_pronoun_and_verbs_agree() {
        assert_eq!(
            english("I took my kids to the museum", "Melanie"),
            "Melanie took their kids to the museum"
        );
        assert_eq!(
            english("I'm swamped with the kids & work", "Melanie"),
            "Melanie is swamped with the kids & work"
        );
        assert_eq!(
            english("I really love painting and I was so happy", "Mel"),
            "Mel really loves painting and they were so happy"
        );
        assert_eq!(
            english("My kids love nature", "Ana"),
            "Ana's kids love nature"
        );
        assert_eq!(
            english("I've been volunteering at a shelter", "Jon"),
            "Jon has been volunteering at a shelter"
        );
        assert_eq!(
            english("We're thinking about going camping", "Mel"),
            "Mel and others are thinking about going camping"
        );
        assert_eq!(english("I do my best", "Jo"), "Jo does their best");
        assert_eq!(english("I carry a bag", "Jo"), "Jo carries a bag");
        assert_eq!(
            english("My husband and I love hiking", "Ana"),
            "Ana and their husband love hiking"
        );
        assert_eq!(
            english("me and my sister went", "Ana"),
            "Ana and their sister went"
        );
        assert_eq!(english("I watch films", "Jo"), "Jo watches films");
        assert_eq!(
            english("Biscuit and I have been going", "Ana"),
            "Biscuit and Ana have been going"
        );
    }

    #[test]
    fn names_come_from_the_name_item_or_a_name_like_user_id() {
        assert_eq!(display_name("caroline", None), "Caroline");
        assert_eq!(display_name("u_1234", None), "The user");
        assert_eq!(display_name("ada@example.com", None), "The user");
        assert_eq!(display_name("u_1234", Some("Priya")), "Priya");
        assert_eq!(display_name("王磊", None), "王磊");
    }

    #[test]
    fn chinese_first_person_becomes_the_name() {
        assert_eq!(
            chinese("我昨天带我们家孩子去了博物馆", "王磊"),
            "王磊昨天带王磊家孩子去了博物馆"
        );
    }
}
