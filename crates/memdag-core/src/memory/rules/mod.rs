//! The rule-based extractor: long-term memory items from one turn, with no LLM.
//!
//! It reads only what the user wrote (the turn's `input`) and what the tools did (its steps),
//! never the assistant's `output`, and it keeps to explicit first-person statements, so that
//! small talk, questions, hypotheticals, quotes and what the user says about other people
//! become nothing. The steps are read by [`steps`]; the text:
//! 1. quoted passages and the payload of a translate/rewrite request are dropped;
//! 2. the text is cut into sentences (`.`, `!`, `?`, `;`, `。`, `！`, `？`, `；`, new lines,
//!    keeping abbreviations such as "St.") and sentences into clauses (commas, `，`, `、`, and an
//!    English "and"/"but" followed by "I");
//! 3. each clause goes to `english` or `chinese` by its script. A clause that is a question,
//!    a hypothetical ("if", "如果"), a joke (a laughter marker), or about someone else ("my
//!    sister", "我妈") gives nothing; a clause matching a pattern gives a [`Extracted`];
//! 4. within the turn, extractions with the same relation and object, or the same text, are
//!    kept once.
//!
//! Single-valued relations (`name`, `residence`, `employer`, `job`, `age`, `timezone`,
//! `language`, `partner`) get a short templated text holding the user's own words for the
//! value ("Lives in Berlin", "住在上海浦东"); preferences, dislikes, allergies, diets and
//! standing instructions keep the user's clause and the statements after it in the sentence.
//! Relations `likes` and `dislikes` carry an object, so a later opposite statement of the same
//! object contradicts it. A retraction ("I don't mind cilantro anymore") is an extraction with
//! [`Extracted::retract`] set: it ends the matching item and adds none.

mod chat;
mod chat_class;
mod chat_words;
mod chat_zh;
mod chinese;
mod english;
mod lexicon;
pub mod steps;
mod text;
pub mod voice;
mod what_matters;
mod when;

pub use chat_class::Class;

use std::string::String;
use std::vec::Vec;

use crate::item::ItemKind;
use crate::record::Record;

/// What the extractor found in a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    pub kind: ItemKind,
    pub text: String,
    pub relation: Option<String>,
    pub object: Option<String>,
    pub task: Option<String>,
    pub tool: Option<String>,
    /// The subject, when it is not the user (a tool's name for tool items).
    pub subject: Option<String>,
    /// A retraction: end the active item with this relation and object; add nothing.
    pub retract: bool,
    /// A standing instruction ("from now on …"): a short fragment after it ("Bullet points
    /// only.") belongs to it.
    pub standing: bool,
    /// How likely it is a lasting fact about the user, 0 to 1 (see [`Class::confidence`]
    /// for conversational statements; the profile patterns, instructions and tool lessons
    /// are [`PATTERN_CONFIDENCE`]).
    pub confidence: f32,
    /// What a conversational statement tells ([`Class`]); none for the profile patterns.
    /// Its name becomes the item's tag, so that events, plans and the like can be listed.
    pub class: Option<Class>,
}

/// The confidence of an item a profile pattern, an instruction or a tool lesson gives: they
/// match explicit statements ("my name is …", "always …") or what the tools did.
pub const PATTERN_CONFIDENCE: f32 = 0.9;

/// Who is speaking in a turn, for the conversational statements.
#[derive(Debug, Clone, Copy)]
pub struct Speaker<'a> {
    /// The name items about them use ([`voice::display_name`]).
    pub name: &'a str,
}

impl Extracted {
    /// A personal item about the user.
    pub(crate) fn personal(text: impl Into<String>) -> Self {
        Extracted {
            kind: ItemKind::Personal,
            text: text.into(),
            relation: None,
            object: None,
            task: None,
            tool: None,
            subject: None,
            retract: false,
            standing: false,
            confidence: PATTERN_CONFIDENCE,
            class: None,
        }
    }

    /// With a relation and its object.
    pub(crate) fn with(mut self, relation: &str, object: impl Into<String>) -> Self {
        self.relation = Some(relation.into());
        self.object = Some(object.into());
        self
    }
}

/// The items one turn states, said by `speaker`.
pub fn extract(record: &Record, speaker: &Speaker) -> Vec<Extracted> {
    let mut out = steps::from_steps(&record.steps);
    let cleaned = text::clean(&record.input);
    // The instruction the previous sentence gave, which a fragment may complete.
    let mut standing: Option<usize> = None;
    let greeted = text::greets(&cleaned);
    let said = chat::Speaker {
        name: speaker.name,
        at: record.created_at,
    };
    for (sentence, asked) in text::sentences_marked(&cleaned) {
        let before = out.len();
        if let Some(k) = standing.take() {
            if !asked && text::is_fragment(sentence) {
                let joiner = if text::is_cjk_text(sentence) {
                    "。"
                } else {
                    ". "
                };
                out[k].text.push_str(joiner);
                out[k].text.push_str(sentence);
                standing = Some(k);
                continue;
            }
        }
        let clauses = text::clauses(sentence);
        // Said with an eye-roll, an English clause states nothing; checked once a sentence.
        let ironic = text::ironic(sentence);
        let mut first_person = false;
        for (i, clause) in clauses.iter().enumerate() {
            let rest = &clauses[i + 1..];
            let found = if text::is_chinese_clause(clause) {
                chinese::clause(clause, rest, first_person, sentence)
            } else if ironic {
                Vec::new()
            } else {
                english::clause(clause, rest, sentence, greeted)
            };
            first_person |= text::is_first_person(clause);
            for e in found {
                if e.standing {
                    standing = Some(out.len());
                }
                out.push(e);
            }
        }
        // A sentence no profile pattern matched may still tell something about the speaker.
        if out.len() == before && !ironic {
            let told = if text::is_cjk_text(sentence) {
                chat_zh::statement(sentence, asked, &said)
            } else {
                chat::statement(sentence, asked, &said)
            };
            out.extend(told);
        }
    }
    let mut kept: Vec<Extracted> = Vec::with_capacity(out.len());
    for e in out {
        let twin = kept.iter().any(|k| {
            k.kind == e.kind
                && (k.text == e.text
                    || (k.relation.is_some() && k.relation == e.relation && k.object == e.object))
        });
        if !twin {
            kept.push(e);
        }
    }
    for e in &mut kept {
        // A preference or fact kept in the user's own words is retold about them; standing
        // instructions stay as the user gave them, and templated texts ("Lives in Berlin")
        // already are about them.
        if e.kind == ItemKind::Personal && !e.standing && !e.retract && e.class.is_none() {
            e.text = about_speaker(&e.text, speaker.name);
        }
    }
    kept
}

/// A first-person text ("I love hiking", "我不吃香菜") retold about `name`; any other text as
/// it is.
fn about_speaker(text: &str, name: &str) -> String {
    let lower = text.trim_start().to_ascii_lowercase();
    let english = ["i ", "i'", "my ", "we ", "we'", "our ", "im "]
        .iter()
        .any(|p| lower.starts_with(p));
    if english {
        voice::english(text, name)
    } else if text.trim_start().starts_with('我') {
        voice::chinese(text, name)
    } else {
        String::from(text)
    }
}
