//! The turn record: one agent turn, the unit memdag stores.
//!
//! A turn is an input, the tool-call loop ([`Step`]s), and an output. The raw log is the
//! source of truth; the optional [`CompactNode`] is a summary of the tool loop for recall.
//! Thread and user are plain attributes: storage is never split by thread.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One call in the tool-call loop of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Step {
    /// The tool's name.
    pub tool: String,
    /// The arguments as the agent wrote them (usually JSON text).
    pub args: String,
    /// What the tool returned, or its error message.
    pub result: String,
    /// Whether the call succeeded.
    pub ok: bool,
}

/// One named section of a compact node, e.g. "Goal" or "Next Steps".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Section {
    pub name: String,
    pub text: String,
}

/// A summary of a turn's tool-call loop, written by an LLM or the extractive compactor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct CompactNode {
    /// A short summary of the turn.
    pub summary: String,
    /// Named sections, in order.
    pub sections: Vec<Section>,
}

/// A stored turn. Built by the store from a [`NewTurn`]; never constructed half-valid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Unique id: given by the caller or derived from the content and a counter.
    pub id: String,
    /// Insertion sequence number, unique in the store; breaks ties of `created_at`.
    pub seq: u64,
    pub thread: String,
    pub user: String,
    /// Milliseconds since the Unix epoch, as given by the caller. The core never reads a clock.
    pub created_at: i64,
    pub input: String,
    pub output: String,
    pub steps: Vec<Step>,
    /// The earlier records this turn used. Every parent existed when the turn was added.
    pub parents: Vec<String>,
    pub tags: Vec<String>,
    /// How much the turn matters, 0.0 to 1.0 (default 0.5).
    pub importance: f32,
    pub compact: Option<CompactNode>,
    /// A vector given by the host, or none. A record held by a `memdag_core::Store` has none here
    /// once the store's vector index holds its vector (the store's only copy of it): read it
    /// with `memdag_core::Store::embedding`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
    /// Set when the record is a long-term memory item rather than a turn (see
    /// [`crate::item`]): its `input` is the item's text and its `parents` its sources.
    /// Stored under the names of [`crate::stored_item`], not the JSON shape's.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::stored_item::boxed"
    )]
    pub item: Option<alloc::boxed::Box<crate::item::ItemMeta>>,
}

/// The text a turn is embedded from: its input and output, joined by a newline. The one rule
/// for every embedder: the built-in one, a host's through any face, and a reindex.
pub fn embedding_text(input: &str, output: &str) -> alloc::string::String {
    let mut text = alloc::string::String::with_capacity(input.len() + 1 + output.len());
    text.push_str(input);
    text.push('\n');
    text.push_str(output);
    text
}

/// The tag that marks a record as shared: visible to every user, not only its own.
pub const SHARED_TAG: &str = "shared";

impl Record {
    /// Whether this record is a long-term memory item, not a turn.
    pub fn is_item(&self) -> bool {
        self.item.is_some()
    }

    /// Whether a read on behalf of `user` may see this record: every record for `None` (a
    /// store-wide read), else the user's own records and those tagged [`SHARED_TAG`]. The
    /// entry points check a named user with `memdag_core::scope::user_scope` first, so an empty
    /// name never gets here; if it did, it would see only records without a user.
    pub fn visible_to(&self, user: Option<&str>) -> bool {
        match user {
            None => true,
            Some(u) => self.user == u || self.tags.iter().any(|t| t == SHARED_TAG),
        }
    }
}

/// What a caller gives to add a turn. Every field but `thread` has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct NewTurn {
    /// A caller-chosen id; when absent the store derives one.
    pub id: Option<String>,
    pub thread: String,
    pub user: String,
    pub created_at: i64,
    pub input: String,
    pub output: String,
    pub steps: Vec<Step>,
    pub parents: Vec<String>,
    pub tags: Vec<String>,
    pub importance: Option<f32>,
    pub compact: Option<CompactNode>,
    pub embedding: Option<Vec<f32>>,
}

/// The default importance of a turn that does not state one.
pub const DEFAULT_IMPORTANCE: f32 = 0.5;

/// Longest id accepted from a caller, in bytes.
pub const MAX_ID_LEN: usize = 256;

/// The words before a blob id in a truncation marker (see
/// `memdag_core::context::compact_tool_result`): how a record references a blob.
pub const BLOB_REFERENCE: &str = "; full text in blob ";

/// The words after the blob id in a truncation marker, before the line to read on from.
pub const MORE_FROM_LINE: &str = "; more from line ";

/// The blob ids referenced by truncation markers anywhere in `text`.
pub fn blob_references(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices(BLOB_REFERENCE)
        .filter_map(move |(at, _)| {
            let rest = &text[at + BLOB_REFERENCE.len()..];
            let id = rest.get(..17)?;
            let well_formed = id.starts_with('b')
                && id[1..].bytes().all(|b| b.is_ascii_hexdigit())
                && (rest[17..].starts_with(']') || rest[17..].starts_with(MORE_FROM_LINE));
            well_formed.then_some(id)
        })
}

impl Record {
    /// The blob ids this record references, from its output, input and tool results.
    pub fn blob_references(&self) -> impl Iterator<Item = &str> {
        [self.input.as_str(), self.output.as_str()]
            .into_iter()
            .chain(self.steps.iter().map(|s| s.result.as_str()))
            .flat_map(blob_references)
    }
}
