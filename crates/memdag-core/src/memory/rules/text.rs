//! Text handling for the extractor: cleaning, sentences, clauses, and small tests on them.

use std::string::String;
use std::vec::Vec;

use crate::search::analyzer::is_cjk;

/// Words after which a period does not end a sentence.
const ABBREVIATIONS: [&str; 12] = [
    "st", "dr", "mr", "mrs", "ms", "jr", "sr", "vs", "etc", "e.g", "i.e", "mt",
];

/// Words that ask for a text to be transformed: what follows is someone else's words.
const TRANSFORM: [&str; 12] = [
    "translate",
    "translation",
    "rewrite",
    "rephrase",
    "proofread",
    "paraphrase",
    "summarize",
    "summarise",
    "翻译",
    "改写",
    "润色",
    "校对",
];

/// The input without quoted passages and bracketed asides ("[shares a photo of …]"), and
/// without the payload of a request to translate or rewrite a text (everything after its
/// colon).
pub fn clean(input: &str) -> String {
    let lower = input.to_ascii_lowercase();
    let mut text: &str = input;
    if let Some(at) = TRANSFORM.iter().filter_map(|w| lower.find(w)).min() {
        // The request's own words stay; its payload goes.
        let after = &input[at.min(input.len())..];
        if let Some(colon) = after.find([':', '：']) {
            text = &input[..at + colon];
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut quoted = String::new();
    for c in text.chars() {
        match (quote, c) {
            (None, '"' | '“' | '「' | '『' | '«') => {
                quote = Some(match c {
                    '“' => '”',
                    '「' => '」',
                    '『' => '』',
                    '«' => '»',
                    _ => '"',
                });
            }
            (Some(end), _) if c == end => {
                quote = None;
                // "Finding Freedom." as Americans punctuate: the period ends the sentence.
                let title = quoted.trim().trim_end_matches(['.', ',', '!', '?']);
                if end != ']' && is_title(title) {
                    out.push('"');
                    out.push_str(title);
                    out.push('"');
                    out.push_str(&quoted.trim()[title.len()..]);
                } else {
                    out.push(' ');
                }
                quoted.clear();
            }
            (Some(_), _) => quoted.push(c),
            (None, '[') => quote = Some(']'),
            (None, '😂' | '🤣' | '😆' | '😜' | '🙃') => out.push_str(" lol "),
            (None, _) if is_emoji(c) => out.push(' '),
            (None, _) => out.push(c),
        }
    }
    out
}

/// Whether a quoted passage is a title ("Becoming Nicole", "Charlotte's Web") rather than
/// someone's words: at most six words, no sentence end, no first or second person.
fn is_title(quoted: &str) -> bool {
    let words: Vec<&str> = quoted.split_whitespace().collect();
    !words.is_empty()
        && words.len() <= 6
        && !quoted.contains(['.', '!', '?', '。', '！', '？', ',', '，'])
        && !words.iter().any(|w| {
            let w = w.to_lowercase();
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            matches!(
                w,
                "i" | "i'm" | "me" | "my" | "we" | "you" | "your" | "im" | "i'll"
            ) || w.starts_with("i'")
                || w.contains('我')
                || w.contains('你')
        })
}

/// Pictographs and their joiners: they end no clause and state nothing.
fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F | 0x200D | 0x2B50 | 0x2B55)
}

/// The sentences of a text, trimmed, without empty ones.
#[cfg(test)]
pub fn sentences(text: &str) -> Vec<&str> {
    sentences_marked(text).into_iter().map(|(s, _)| s).collect()
}

/// The sentences of a text, trimmed, without empty ones, each with whether it ended with a
/// question mark.
pub fn sentences_marked(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end = match c {
            '!' | '?' | ';' | '\n' | '。' | '！' | '？' | '；' | '…' => true,
            '.' => {
                let word_start = text[..i]
                    .char_indices()
                    .rev()
                    .find(|&(_, ch)| !(ch.is_alphanumeric() || ch == '.'))
                    .map_or(0, |(p, ch)| p + ch.len_utf8());
                let word = text[word_start..i].to_ascii_lowercase();
                let next_is_digit = bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
                !ABBREVIATIONS.contains(&word.as_str()) && !next_is_digit
            }
            _ => false,
        };
        if end {
            let asked = matches!(c, '?' | '？');
            let before = out.len();
            push_marked(&mut out, &text[start..i], asked);
            // "Really?!": the question mark of the run belongs to the sentence before it.
            if before == out.len() && asked {
                if let Some(last) = out.last_mut() {
                    last.1 = true;
                }
            }
            start = i + c.len_utf8();
        }
    }
    push_marked(&mut out, &text[start..], false);
    out
}

fn push_marked<'a>(out: &mut Vec<(&'a str, bool)>, s: &'a str, asked: bool) {
    let mut plain = Vec::new();
    push_trimmed(&mut plain, s);
    out.extend(plain.into_iter().map(|t| (t, asked)));
}

/// The clauses of a sentence: cut at commas and colons, and before an English "and", "but"
/// or "so" that starts a new first-person clause.
pub fn clauses(sentence: &str) -> Vec<&str> {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for (i, c) in sentence.char_indices() {
        if matches!(
            c,
            ',' | '，' | '、' | ':' | '：' | '(' | ')' | '（' | '）' | '—'
        ) {
            cuts.push((i, i + c.len_utf8()));
        }
    }
    let lower = sentence.to_ascii_lowercase();
    for joint in [
        " and i ", " but i ", " so i ", " and we ", " but we ", " and my ",
    ] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(joint) {
            let at = from + at;
            let word = joint.trim_start().find(' ').map_or(0, |w| w + 1);
            cuts.push((at, at + 1 + word));
            from = at + joint.len();
        }
    }
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for (cut, resume) in cuts {
        if cut >= start {
            push_trimmed(&mut out, &sentence[start..cut]);
            start = resume;
        }
    }
    push_trimmed(&mut out, &sentence[start.min(sentence.len())..]);
    out
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let mut t = s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '-' | '~' | '*'));
    // A quote mark at an edge goes unless it closes a title the sentence opened.
    while t.matches('"').count() % 2 == 1 {
        let before = t.len();
        t = t
            .strip_prefix('"')
            .or_else(|| t.strip_suffix('"'))
            .unwrap_or(t);
        if t.len() == before {
            break;
        }
        t = t.trim_matches(|c: char| c.is_whitespace() || matches!(c, '-' | '~' | '*'));
    }
    if !t.is_empty() {
        out.push(t);
    }
}

/// Whether a clause is written mostly in CJK characters.
pub fn is_cjk_text(s: &str) -> bool {
    let (mut cjk, mut letters) = (0usize, 0usize);
    for c in s.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        if is_cjk(c) {
            cjk += 1;
        }
    }
    letters > 0 && cjk * 3 >= letters
}

/// Whether a clause is Chinese: mostly CJK, or a Chinese first person with English words
/// in it ("我在 Shopee 做 data analyst").
pub fn is_chinese_clause(s: &str) -> bool {
    is_cjk_text(s) || s.trim_start().starts_with('我') || s.contains("我在") || s.contains("我是")
}

/// Whether a text opens with a greeting ("hi", "hey!", "你好").
pub fn greets(s: &str) -> bool {
    let l = s.trim_start().to_ascii_lowercase();
    [
        "hi",
        "hey",
        "hello",
        "hiya",
        "yo",
        "good morning",
        "good evening",
        "good afternoon",
        "howdy",
    ]
    .iter()
    .any(|g| l.starts_with(g) && !l[g.len()..].starts_with(|c: char| c.is_ascii_alphabetic()))
        || ["你好", "您好", "嗨", "哈喽", "大家好"]
            .iter()
            .any(|g| s.trim_start().starts_with(g))
}

/// Whether a clause speaks in the first person.
pub fn is_first_person(clause: &str) -> bool {
    let l = clause.to_ascii_lowercase();
    l.starts_with("i ")
        || l.starts_with("i'")
        || l.starts_with("we ")
        || l.contains(" i ")
        || clause.starts_with('我')
}

/// Whether a sentence is a short fragment that completes the one before ("Bullet points
/// only.", "Every time."): at most six words (twelve CJK characters), no question, no "I".
pub fn is_fragment(sentence: &str) -> bool {
    let words = if is_cjk_text(sentence) {
        sentence.chars().filter(|c| is_cjk(*c)).count().div_ceil(2)
    } else {
        sentence.split_whitespace().count()
    };
    let l = sentence.to_ascii_lowercase();
    words <= 6
        && !sentence.ends_with(['?', '？', '吗', '呢'])
        && !is_first_person(sentence)
        && !l.starts_with("thank")
        && ![
            "ok", "okay", "thanks", "cool", "great", "perfect", "nice", "谢谢", "好的",
        ]
        .iter()
        .any(|w| l.trim_matches(|c: char| !c.is_alphanumeric()) == *w)
}

/// Whether a clause laughs: a joke or an exaggeration, not a statement of fact.
pub fn laughs(clause: &str) -> bool {
    let l = clause.to_lowercase();
    let words = ["lol", "lmao", "rofl", "haha", "hahaha", "jk", "/s", "xd"];
    l.split(|c: char| !(c.is_alphanumeric() || c == '/'))
        .any(|w| words.contains(&w))
        || ['😂', '🤣', '😆', '😜', '🙃']
            .iter()
            .any(|e| clause.contains(*e))
        || ["哈哈", "开玩笑", "笑死"]
            .iter()
            .any(|w| clause.contains(w))
}

/// Whether a sentence is said with an eye-roll, so that what it "states" is not meant:
/// "oh yeah i just LOVE waiting on hold 🙄", "yeah right, I adore Mondays". A shouted verb
/// alone ("I LOVE this band") is enthusiasm; after "just" it is the sarcastic idiom.
pub fn ironic(sentence: &str) -> bool {
    let l = sentence.to_lowercase();
    let l = l.trim_start();
    // "oh yeah" and "oh sure" open plain statements too ("oh yeah, we went to the beach");
    // they roll eyes at a liking ("oh yeah, I just love Mondays").
    let liking = ["love", "adore", "enjoy", "like"]
        .iter()
        .any(|w| l.contains(w));
    ['🙄', '😒', '😑'].iter().any(|e| sentence.contains(*e))
        || ["yeah right", "oh great", "oh joy", "sure, i just"]
            .iter()
            .any(|p| l.starts_with(p))
        || (liking && ["oh yeah", "oh sure"].iter().any(|p| l.starts_with(p)))
        || ["just LOVE", "just ADORE", "just ENJOY", "SO much fun"]
            .iter()
            .any(|p| sentence.contains(p))
}

/// The clauses after a match that still state something (not a question, not a request),
/// joined back to the matched clause: the text of a preference or an instruction.
pub fn with_tail(
    clause: &str,
    rest: &[&str],
    joiner: &str,
    is_statement: impl Fn(&str) -> bool,
) -> String {
    let mut text = String::from(clause);
    for next in rest {
        if !is_statement(next) || text.len() + next.len() > 200 {
            break;
        }
        text.push_str(joiner);
        text.push_str(next);
    }
    text
}

/// `s` without trailing words that carry no content (`now`, `instead`, `please`, ...), and
/// without trailing punctuation.
pub fn trim_filler<'a>(s: &'a str, fillers: &[&str]) -> &'a str {
    let mut t = s.trim_end_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation());
    loop {
        let lower = t.to_ascii_lowercase();
        let Some(f) = fillers.iter().find(|f| {
            lower.ends_with(*f)
                && (lower.len() == f.len() || lower.as_bytes()[lower.len() - f.len() - 1] == b' ')
        }) else {
            return t;
        };
        t = t[..t.len() - f.len()]
            .trim_end_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eye_rolls_and_the_sarcastic_idiom_are_ironic_and_plain_enthusiasm_is_not() {
        assert!(ironic("oh yeah i just LOVE waiting on hold for 2 hours 🙄"));
        assert!(ironic("Yeah right, I adore Mondays"));
        assert!(ironic("i just LOVE when the build breaks"));
        assert!(!ironic("I LOVE this band!!"));
        assert!(!ironic("I just love dark chocolate"));
        assert!(!ironic("oh and I live in Oslo"));
    }

    #[test]
    fn sentences_keep_abbreviations_and_decimals() {
        assert_eq!(
            sentences("Hi! I'm Priya. I work at St. Mary's. It costs 3.5 euros"),
            [
                "Hi",
                "I'm Priya",
                "I work at St. Mary's",
                "It costs 3.5 euros"
            ]
        );
        assert_eq!(sentences("我叫王磊。你好！"), ["我叫王磊", "你好"]);
    }

    #[test]
    fn clauses_cut_at_commas_and_first_person_joints() {
        assert_eq!(
            clauses("I tried it again and I actually don't mind it, really"),
            ["I tried it again", "I actually don't mind it", "really"]
        );
        assert_eq!(clauses("我叫王磊，住在上海"), ["我叫王磊", "住在上海"]);
    }

    #[test]
    fn quotes_and_translation_payloads_are_dropped() {
        assert_eq!(clean("Translate: I live in Madrid."), "Translate");
        assert_eq!(clean("he said \"I live in Madrid\" ok"), "he said   ok");
        assert_eq!(
            clean("把这句话翻译成英文：我住在西安"),
            "把这句话翻译成英文"
        );
        assert_eq!(
            clean("I loved \"Becoming Nicole\" so much [shares a photo of a dog]"),
            "I loved \"Becoming Nicole\" so much  "
        );
    }

    #[test]
    fn a_question_mark_marks_its_sentence() {
        assert_eq!(
            sentences_marked("I went to Rome. Have you been?! It was great"),
            [
                ("I went to Rome", false),
                ("Have you been", true),
                ("It was great", false)
            ]
        );
    }

    #[test]
    fn fillers_are_trimmed_from_the_end() {
        assert_eq!(trim_filler("Bobby instead, ", &["instead", "now"]), "Bobby");
        assert_eq!(
            trim_filler("Berlin now please", &["please", "now"]),
            "Berlin"
        );
        assert_eq!(trim_filler("Snow", &["now"]), "Snow");
    }
}
