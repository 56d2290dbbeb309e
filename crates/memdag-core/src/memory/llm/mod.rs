//! Learning with the host's LLM: the contract between memdag and a model.
//!
//! The core builds the prompts and parses the answers; the host makes the calls (a JS
//! `complete`, the WIT `llm` import, a CLI `--llm-cmd`), as for compaction. One call sees a
//! **batch**: one thread's new turns, in time order, capped at [`BATCH_TOKENS`] estimated
//! tokens ([`plan`]), together with the current active items of the batch's users (at most
//! [`SHOWN_ITEMS`], newest first; [`prompt`]). The model answers one JSON object (optionally
//! inside a ```` ```json ```` fence) that the JSON Schema [`schema`] describes:
//!
//! ```json
//! {"facts": [
//!   {"op": "add", "source": "t41", "text": "Sam went to a pottery workshop on 7 May 2023",
//!    "kind": "personal", "confidence": 0.9},
//!   {"op": "supersede", "item": "m0123456789abcdef", "source": "t42", "text": "Sam lives in Leeds"},
//!   {"op": "update", "item": "m0fedcba987654321", "source": "t45", "text": "Jo has three kids"},
//!   {"op": "none", "item": "m00112233445566778", "source": "t49"},
//!   {"op": "add", "source": "t50", "speaker": "Jo", "text": "Jo opened a bakery"}
//! ]}
//! ```
//!
//! A fact is about its `source` turn's speaker, or about the batch's speaker it names in
//! `speaker` ("Congrats on the bakery, Jo!" tells about Jo). Each fact is one operation in
//! the spirit of Mem0's ADD / UPDATE / DELETE / NOOP, with history kept: `add` learns a new
//! item (through the rules' conflicts, and their dedup against the items the prompt did not
//! show: an item it showed that the model chose not to name is a different fact unless the
//! texts are the same, so the model decides what its words mean), `update` makes a new version
//! of an item (the old text stays in its history), `supersede` adds a new item that replaces
//! an item no longer true (the old one is superseded, with its history and validity end),
//! `none` says the fact is known as an item and corroborates it with the turn.
//!
//! **Refusal, fact by fact** ([`parse`]): an answer that is no JSON object with a `facts`
//! array is refused whole ([`RefusalCode::NotJson`], [`RefusalCode::BadShape`]) and the rules
//! learn from that batch's turns instead; a fact with an unknown field, a field of the wrong
//! type, an unknown `op`, a `source` that is not one of the batch's turns, an `item` that is
//! not an active item of that fact's user, a `speaker` who is none of the batch's, a missing
//! or empty `text`, a `confidence` outside
//! 0..=1 or a text over the store's limits is refused alone, with a [`Refusal`] naming its
//! index and a stable code, and the others are learned. Nothing a refused fact says reaches
//! the store.
//!
//! **Cost**: every call is counted with its prompt and answer tokens (the core's estimator,
//! `crate::tokens::estimate`) in [`LlmCost`], so a host can report calls and tokens per 100
//! turns.

mod learn;
mod parse;
mod prompt;

pub use learn::DEFAULT_CONFIDENCE;
pub use parse::{parse, Fact, Op, Parsed};
pub use prompt::{plan, prompt, schema, BATCH_TOKENS, SHOWN_ITEMS};

use serde::{Deserialize, Serialize};
use std::string::String;

use crate::item::ItemKind;
use std::vec::Vec;

/// The turns one LLM call learns from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LlmBatch {
    /// Its turns' ids, oldest first.
    pub turns: Vec<String>,
    /// Their estimated tokens.
    pub tokens: usize,
    /// The kinds to learn (a fact of another kind is refused); empty: personal,
    /// procedural and tool, as `ExtractQuery::kinds`.
    pub kinds: Vec<ItemKind>,
}

/// Why a fact of an LLM answer (or the whole answer) was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RefusalCode {
    /// The host's call failed, or the answer is not JSON.
    NotJson,
    /// The answer is JSON but not `{"facts": [...]}`.
    BadShape,
    /// A fact is not an object, has an unknown field or a field of the wrong type.
    BadFact,
    /// A fact's `op` is none of add, update, supersede, none.
    UnknownOp,
    /// A fact's `source` is not one of the batch's turns.
    UnknownSource,
    /// A fact names an `item` that is not an active item of its source turn's user, or
    /// update/supersede/none names none.
    UnknownItem,
    /// A fact that needs a text (add, update, supersede) has none.
    EmptyText,
    /// A fact's `confidence` is outside 0..=1.
    BadConfidence,
    /// A fact's `speaker` is none of the batch's speakers.
    UnknownSpeaker,
    /// The store refused the item (a limit, say); the message says why.
    InvalidItem,
}

impl RefusalCode {
    /// The code as written in JSON.
    pub fn name(self) -> &'static str {
        match self {
            RefusalCode::NotJson => "NOT_JSON",
            RefusalCode::BadShape => "BAD_SHAPE",
            RefusalCode::BadFact => "BAD_FACT",
            RefusalCode::UnknownOp => "UNKNOWN_OP",
            RefusalCode::UnknownSource => "UNKNOWN_SOURCE",
            RefusalCode::UnknownItem => "UNKNOWN_ITEM",
            RefusalCode::EmptyText => "EMPTY_TEXT",
            RefusalCode::BadConfidence => "BAD_CONFIDENCE",
            RefusalCode::UnknownSpeaker => "UNKNOWN_SPEAKER",
            RefusalCode::InvalidItem => "INVALID_ITEM",
        }
    }
}

/// A refused fact, or a refused answer (`fact` none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refusal {
    /// The index of the batch in its pass.
    pub batch: usize,
    /// The index of the fact in the answer's `facts`; none for the whole answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact: Option<usize>,
    pub code: RefusalCode,
    pub message: String,
}

/// What the LLM calls of a pass cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LlmCost {
    /// Calls made (one per batch).
    pub calls: usize,
    /// Estimated tokens of the prompts.
    pub prompt_tokens: usize,
    /// Estimated tokens of the answers.
    pub answer_tokens: usize,
}

impl LlmCost {
    /// This cost and `other`'s.
    pub fn plus(self, other: LlmCost) -> LlmCost {
        LlmCost {
            calls: self.calls + other.calls,
            prompt_tokens: self.prompt_tokens + other.prompt_tokens,
            answer_tokens: self.answer_tokens + other.answer_tokens,
        }
    }
}
