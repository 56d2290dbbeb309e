//! The host side of the WIT `embedder` and `llm` imports, and the options of a store.
//!
//! A store gets its vectors from memdag's built-in embedder unless [`OpenOptions::embedder`]
//! plugs one in; it compacts with the extractive compactor unless it is asked for the LLM,
//! which [`OpenOptions::llm`] plugs in. [`crate::command`] runs either as a user's program.

use crate::bindings::exports::memdag::core::memory::Embeddings;

/// Text embeddings for the component (`embedder.embed`).
pub trait Embedder: Send + 'static {
    /// One vector per text, in order, all of one dimension. `Err` is a message for the user.
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, String>;
}

/// A language model for the component (`llm.complete`).
pub trait Llm: Send + 'static {
    /// The model's answer to `prompt`. `Err` is a message for the user.
    fn complete(&mut self, prompt: &str) -> Result<String, String>;
}

impl<F> Embedder for F
where
    F: FnMut(&[String]) -> Result<Vec<Vec<f32>>, String> + Send + 'static,
{
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        self(texts)
    }
}

impl<F> Llm for F
where
    F: FnMut(&str) -> Result<String, String> + Send + 'static,
{
    fn complete(&mut self, prompt: &str) -> Result<String, String> {
        self(prompt)
    }
}

/// How to open a store: its key prefix, where its vectors come from, and its LLM.
///
/// `OpenOptions::default()`: the whole kv, the built-in embedder, no LLM (compaction with
/// [`crate::Compactor::Llm`] then fails with a host error; the extractive compactor works).
pub struct OpenOptions {
    /// The key prefix of the store: `None` for the whole kv, else ending with `/`.
    pub prefix: Option<String>,
    /// Where vectors come from. [`OpenOptions::embedder`] sets it to `Host`.
    pub embeddings: Embeddings,
    /// The embedder behind `Embeddings::Host`.
    pub embedder: Option<Box<dyn Embedder>>,
    /// The LLM behind `Compactor::Llm`.
    pub llm: Option<Box<dyn Llm>>,
    /// The 32-byte key of a store encrypted at rest; `None` for a plain store.
    pub key: Option<Vec<u8>>,
    /// Open what is intact in a store that a plain open refuses as damaged (WIT
    /// `open-salvaging`); what was lost is [`crate::Memory::damage`].
    pub salvage: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            prefix: None,
            embeddings: Embeddings::Builtin,
            embedder: None,
            llm: None,
            key: None,
            salvage: false,
        }
    }
}

impl OpenOptions {
    /// The defaults; see [`OpenOptions`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens the store under `prefix` (must end with `/`).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Takes vectors from `embedder` for turns and queries that come without one.
    pub fn embedder(mut self, embedder: impl Embedder) -> Self {
        self.embedder = Some(Box::new(embedder));
        self.embeddings = Embeddings::Host;
        self
    }

    /// Uses only vectors given by the caller (no embedder at all).
    pub fn no_embeddings(mut self) -> Self {
        self.embedder = None;
        self.embeddings = Embeddings::None;
        self
    }

    /// Opens an encrypted store with its 32-byte `key` (or makes an empty store an encrypted
    /// one): every value the component writes is sealed (see memdag-core's `seal` module).
    /// A missing, wrong or unexpected key fails the open with `LOCKED`.
    pub fn key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Opens what is intact in a damaged store (see [`OpenOptions::salvage`]).
    pub fn salvaging(mut self) -> Self {
        self.salvage = true;
        self
    }

    /// Compacts with `llm` when asked for [`crate::Compactor::Llm`].
    pub fn llm(mut self, llm: impl Llm) -> Self {
        self.llm = Some(Box::new(llm));
        self
    }
}
