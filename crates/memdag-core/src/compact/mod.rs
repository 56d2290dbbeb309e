//! Turn compaction: a record's tool-call loop becomes its [`CompactNode`].
//!
//! The core builds the prompt ([`prompt`]) and parses the answer ([`parse`]); the host makes
//! the LLM call (a JS callback, the WIT `llm` import, a CLI command). Without an LLM the
//! deterministic [extractive](mod@extract) compactor fills the same sections.
//!
//! A compact node has a one-sentence summary and the sections of [`SECTIONS`], in that order:
//! Goal, Constraints, Progress, Key Decisions, Next Steps, Critical Context (file paths,
//! function names, error messages). Section names stay in English so the answer can be parsed;
//! their text is in the conversation's language ([`Language`]).
//!
//! The flow in [`Store`] methods: [`Store::compaction_prompt`] → the host's LLM →
//! [`Store::apply_compaction`], which parses first and writes only a well-formed node: a
//! malformed answer is an [`Error::Host`] saying why, and the record stays as it was.
//! [`Store::compact_with`] runs the three steps with a closure as the LLM.

mod cues;
pub mod extract;
pub mod parse;
pub mod prompt;

use alloc::string::String;

use crate::error::{Error, Result};
use crate::record::{CompactNode, Record};
use crate::store::Store;
use crate::tokens::is_cjk_token;

pub use extract::extract;
pub use parse::parse_answer;
pub use prompt::build_prompt;

/// The required sections of a compact node, in order.
pub const SECTIONS: [&str; 6] = [
    "Goal",
    "Constraints",
    "Progress",
    "Key Decisions",
    "Next Steps",
    "Critical Context",
];

/// The heading of the one-sentence summary that opens an answer.
pub const SUMMARY: &str = "Summary";

/// The language a note should be written in, from the script of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// A Latin-script (or other non-CJK) conversation: the note follows the user's language.
    Latin,
    Chinese,
    Japanese,
    Korean,
}

impl Language {
    /// The instruction that names the language in the prompt.
    pub fn instruction(self) -> &'static str {
        match self {
            Language::Latin => "the same language as the user's input in the turn below",
            Language::Chinese => "Chinese (用中文撰写)",
            Language::Japanese => "Japanese (日本語で書いてください)",
            Language::Korean => "Korean (한국어로 작성하세요)",
        }
    }

    /// The word for "none" in this language, for empty sections.
    pub fn none(self) -> &'static str {
        match self {
            Language::Latin => "None",
            Language::Chinese => "无",
            Language::Japanese => "なし",
            Language::Korean => "없음",
        }
    }
}

/// Detects the language of a turn from its input and output: CJK when at least a fifth of the
/// letters are CJK characters; kana means Japanese, hangul Korean, other CJK Chinese.
pub fn detect_language(record: &Record) -> Language {
    let (mut letters, mut cjk, mut kana, mut hangul) = (0usize, 0usize, 0usize, 0usize);
    for c in record.input.chars().chain(record.output.chars()) {
        if is_cjk_token(c) {
            cjk += 1;
            letters += 1;
            match c as u32 {
                0x3040..=0x30FF => kana += 1,
                0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => hangul += 1,
                _ => {}
            }
        } else if c.is_alphabetic() {
            letters += 1;
        }
    }
    if cjk == 0 || cjk * 5 < letters {
        Language::Latin
    } else if hangul * 2 >= cjk {
        Language::Korean
    } else if kana > 0 {
        Language::Japanese
    } else {
        Language::Chinese
    }
}

/// Renders a compact node as the Markdown an LLM answer has: `## Summary`, then each section.
pub fn render(node: &CompactNode) -> String {
    let mut out = String::new();
    let mut push = |name: &str, text: &str| {
        out.push_str("## ");
        out.push_str(name);
        out.push('\n');
        out.push_str(text.trim());
        out.push_str("\n\n");
    };
    push(SUMMARY, &node.summary);
    for s in &node.sections {
        push(&s.name, &s.text);
    }
    out.truncate(out.trim_end().len());
    out
}

impl Store {
    /// The prompt asking the host's LLM to compact record `id`. With `previous` (usually the
    /// record's current compact node, or the node of the turn before), the LLM is asked to
    /// update that note rather than start afresh. [`Error::NotFound`] if `id` is unknown.
    pub fn compaction_prompt(&self, id: &str, previous: Option<&CompactNode>) -> Result<String> {
        let record = self
            .get(id)
            .ok_or_else(|| Error::NotFound { id: id.into() })?;
        Ok(build_prompt(record, previous))
    }

    /// Parses the LLM's `answer` and, only if it is well formed, makes it the compact node of
    /// record `id`. Errors: [`Error::NotFound`]; [`Error::Host`] naming what is malformed
    /// (empty answer, missing, repeated or empty sections). On error nothing changes.
    pub fn apply_compaction(&mut self, id: &str, answer: &str) -> Result<&Record> {
        if self.get(id).is_none() {
            return Err(Error::NotFound { id: id.into() });
        }
        let node = parse_answer(answer)?;
        self.set_compact(id, Some(node))?;
        self.get(id)
            .ok_or_else(|| Error::NotFound { id: id.into() })
    }

    /// Compacts record `id` with the deterministic extractive compactor (no LLM): first and
    /// last steps, errors, decisions, file paths and function names.
    pub fn compact_extractive(&mut self, id: &str) -> Result<&Record> {
        let record = self
            .get(id)
            .ok_or_else(|| Error::NotFound { id: id.into() })?;
        let node = extract(record);
        self.set_compact(id, Some(node))?;
        self.get(id)
            .ok_or_else(|| Error::NotFound { id: id.into() })
    }

    /// Builds the prompt, asks `llm` and applies its answer. An `Err` from `llm` becomes
    /// [`Error::Host`] with its message; either way a failure leaves the record unchanged.
    pub fn compact_with<F>(
        &mut self,
        id: &str,
        previous: Option<&CompactNode>,
        llm: F,
    ) -> Result<&Record>
    where
        F: FnOnce(&str) -> core::result::Result<String, String>,
    {
        let prompt = self.compaction_prompt(id, previous)?;
        let answer = llm(&prompt).map_err(|message| Error::Host {
            message: alloc::format!("LLM call failed: {message}"),
        })?;
        self.apply_compaction(id, &answer)
    }
}
