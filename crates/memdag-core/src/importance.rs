//! Importance estimated at write time: what a turn that states no importance is worth to
//! later recall, from signals in the turn itself.
//!
//! A turn starts at [`DEFAULT_IMPORTANCE`] (0.5) and each signal found moves it:
//!
//! | signal | where it is looked for | weight |
//! |---|---|---|
//! | [`Signal::Remember`]: "remember that", "don't forget", "keep in mind", "from now on", "记住" | input | +0.30 |
//! | [`Signal::Correction`]: "no, …", "actually", "that's wrong", "I meant", "不对" | input | +0.20 |
//! | [`Signal::Decision`]: "we decided", "let's go with", "agreed", "决定" | input, output | +0.15 |
//! | [`Signal::ToolError`]: a step whose call failed | steps | +0.15 |
//! | [`Signal::Failure`]: the turn says it failed ("failed", "couldn't", "error:") | output | +0.10 |
//! | [`Signal::SmallTalk`]: a greeting or thanks and nothing else | input | −0.20 |
//!
//! The sum is clamped to 0.05..=1.0. The signals are phrases people type, matched on the
//! case-folded text at word boundaries (a question about remembering, "do you remember…?",
//! is not an instruction to remember). A caller's own `importance` always wins; the host LLM
//! can set it too. Recall weighs importance in every score ([`crate::recall::score`]); search
//! does when asked (`SearchQuery::importance_weight`).

use alloc::string::String;
use alloc::vec::Vec;

use crate::record::{NewTurn, DEFAULT_IMPORTANCE};

/// A reason a turn matters more (or less) than a plain exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// The user asks to remember something, or sets a standing rule.
    Remember,
    /// The user corrects the agent.
    Correction,
    /// A decision was made.
    Decision,
    /// A tool call failed.
    ToolError,
    /// The turn reports a failure.
    Failure,
    /// Only a greeting, thanks or acknowledgement.
    SmallTalk,
}

impl Signal {
    /// How far the signal moves importance.
    pub fn weight(self) -> f32 {
        match self {
            Signal::Remember => 0.30,
            Signal::Correction => 0.20,
            Signal::Decision => 0.15,
            Signal::ToolError => 0.15,
            Signal::Failure => 0.10,
            Signal::SmallTalk => -0.20,
        }
    }
}

/// The estimate for a turn: the value and the signals behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub importance: f32,
    pub signals: Vec<Signal>,
}

const REMEMBER: &[&str] = &[
    "remember that",
    "remember this",
    "remember to",
    "remember my",
    "remember me",
    "please remember",
    "don't forget",
    "dont forget",
    "do not forget",
    "keep in mind",
    "note that",
    "make a note",
    "take note",
    "for future reference",
    "from now on",
    "going forward",
    "记住",
    "别忘",
    "不要忘",
    "以后都",
    "以后请",
];

/// Openings of a message that correct the agent (matched at the start only).
const CORRECTION_OPENINGS: &[&str] = &[
    "no,", "no.", "no!", "nope", "actually", "wrong", "不对", "不是", "错了",
];

const CORRECTION: &[&str] = &[
    "that's wrong",
    "that is wrong",
    "that's not right",
    "that is not right",
    "that's not what i",
    "not what i asked",
    "not what i meant",
    "i meant",
    "as i said",
    "like i said",
    "i already said",
    "i told you",
    "you misunderstood",
    "that's incorrect",
    "that is incorrect",
    "you got it wrong",
    "try again",
    "不对",
    "搞错",
    "你理解错",
];

const DECISION: &[&str] = &[
    "we decided",
    "i decided",
    "i've decided",
    "we've decided",
    "decided to",
    "the decision is",
    "let's go with",
    "lets go with",
    "we'll go with",
    "we will go with",
    "i'll go with",
    "we agreed",
    "agreed on",
    "settled on",
    "we chose",
    "i chose",
    "决定",
    "就用",
    "选定",
];

const FAILURE: &[&str] = &[
    "failed",
    "failure",
    "couldn't",
    "could not",
    "unable to",
    "error:",
    "exception",
    "did not work",
    "didn't work",
    "失败",
    "出错",
    "报错",
];

const SMALL_TALK: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "thanks",
    "thank you",
    "thx",
    "ok",
    "okay",
    "cool",
    "great",
    "nice",
    "bye",
    "good night",
    "good morning",
    "got it",
    "sounds good",
    "谢谢",
    "好的",
    "你好",
    "再见",
];

/// Whether `needle` occurs in `hay` (both case-folded) starting and ending at word boundaries
/// (a CJK needle matches anywhere: Han text has no spaces).
fn has_phrase(hay: &str, needle: &str) -> bool {
    let cjk = needle.chars().any(|c| c as u32 >= 0x2E80);
    hay.match_indices(needle).any(|(at, _)| {
        if cjk {
            return true;
        }
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        boundary(before) && boundary(after)
    })
}

fn any_phrase(hay: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| has_phrase(hay, n))
}

/// Whether `text` (case-folded, trimmed) is only small talk: a greeting, thanks or an
/// acknowledgement, with punctuation and at most a name or "so much" around it.
fn is_small_talk(text: &str) -> bool {
    let words: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c.is_whitespace() || c as u32 >= 0x2E80 {
                c
            } else {
                ' '
            }
        })
        .collect();
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.is_empty() || words.chars().count() > 24 {
        return false;
    }
    SMALL_TALK.iter().any(|s| {
        words == *s
            || words
                .strip_prefix(s)
                .is_some_and(|rest| rest.starts_with(' ') && rest.split_whitespace().count() <= 2)
    })
}

/// Estimates the importance of `turn` from its own text and steps (its `importance` field is
/// not read).
pub fn estimate(turn: &NewTurn) -> Estimate {
    let input = turn.input.trim().to_lowercase();
    let output = turn.output.to_lowercase();
    let mut signals = Vec::new();
    if any_phrase(&input, REMEMBER) && !asks_whether_remembered(&input) {
        signals.push(Signal::Remember);
    }
    if CORRECTION_OPENINGS.iter().any(|o| input.starts_with(o)) || any_phrase(&input, CORRECTION) {
        signals.push(Signal::Correction);
    }
    if any_phrase(&input, DECISION) || any_phrase(&output, DECISION) {
        signals.push(Signal::Decision);
    }
    if turn.steps.iter().any(|s| !s.ok) {
        signals.push(Signal::ToolError);
    }
    if any_phrase(&output, FAILURE) {
        signals.push(Signal::Failure);
    }
    if signals.is_empty() && turn.steps.is_empty() && is_small_talk(&input) {
        signals.push(Signal::SmallTalk);
    }
    let sum: f32 = signals.iter().map(|s| s.weight()).sum();
    Estimate {
        importance: (DEFAULT_IMPORTANCE + sum).clamp(0.05, 1.0),
        signals,
    }
}

/// "Do you remember…?", "can you remember…?": a question about memory, not an instruction.
fn asks_whether_remembered(input: &str) -> bool {
    let question = input.trim_end().ends_with('?');
    question
        && [
            "do you remember",
            "can you remember",
            "did you remember",
            "don't you remember",
        ]
        .iter()
        .any(|p| input.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Step;

    fn turn(input: &str, output: &str) -> NewTurn {
        NewTurn {
            thread: "t".into(),
            input: input.into(),
            output: output.into(),
            ..NewTurn::default()
        }
    }

    #[test]
    fn a_plain_exchange_keeps_the_default() {
        let e = estimate(&turn(
            "What's the weather in Paris tomorrow?",
            "Sunny, 21°C.",
        ));
        assert_eq!(e.importance, DEFAULT_IMPORTANCE);
        assert!(e.signals.is_empty());
    }

    #[test]
    fn signals_raise_and_small_talk_lowers() {
        let remember = estimate(&turn("Please remember that I'm vegetarian.", "Noted."));
        assert_eq!(remember.signals, [Signal::Remember]);
        assert!(remember.importance > 0.75);
        let question = estimate(&turn("Do you remember what I said about Paris?", "Yes."));
        assert!(question.signals.is_empty(), "{:?}", question.signals);
        let fix = estimate(&turn(
            "No, I meant the staging cluster, not prod.",
            "Sorry.",
        ));
        assert_eq!(fix.signals, [Signal::Correction]);
        let decided = estimate(&turn("Which db?", "We decided to go with Postgres."));
        assert_eq!(decided.signals, [Signal::Decision]);
        let mut failing = turn("deploy it", "The deploy failed: permission denied.");
        failing.steps.push(Step {
            tool: "sh".into(),
            args: "deploy".into(),
            result: "EACCES".into(),
            ok: false,
        });
        let f = estimate(&failing);
        assert_eq!(f.signals, [Signal::ToolError, Signal::Failure]);
        assert!((f.importance - 0.75).abs() < 1e-6);
        for chat in ["thanks!", "Thank you so much", "ok", "好的", "Hi Ada"] {
            let e = estimate(&turn(chat, "You're welcome."));
            assert_eq!(e.signals, [Signal::SmallTalk], "{chat}");
            assert!(e.importance < DEFAULT_IMPORTANCE);
        }
        assert!(estimate(&turn("thanks, now deploy the api to staging", ""))
            .signals
            .is_empty());
        assert_eq!(
            estimate(&turn("记住我对花生过敏", "")).signals,
            [Signal::Remember]
        );
    }

    #[test]
    fn phrases_match_at_word_boundaries() {
        assert!(!has_phrase("the agreed-upon snowfall", "no "));
        assert!(!has_phrase("unfailed", "failed"));
        assert!(has_phrase("it failed.", "failed"));
        assert!(!has_phrase("nobody decided to", "i decided"));
    }
}
