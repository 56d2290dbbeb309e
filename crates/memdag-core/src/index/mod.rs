//! The indexes a store owns and keeps in step with its records: the layer below [`Store`].
//!
//! ```text
//!   search/ (queries)   recall/   memory/   tools/ ...      above the store
//!                  \       |       /
//!                      store (Store: records, DAG, these indexes)
//!                        |
//!   index/ (this layer): SearchIndex { postings, vectors + hnsw, threads }, items
//!                        |
//!   memdag-types: Record, ItemMeta, Slot, Error
//! ```
//!
//! Nothing here names [`Store`]: each index works on [`Slot`]s and records, and the store
//! calls it. Persistence goes through the source traits of [`restore`].
//!
//! - [`postings`]: the inverted index, scored with BM25F ([`bm25`]) over terms from the
//!   CJK-aware [`analyzer`], with English inflections folded by its light stemmer, its lists
//!   compressed by [`posting_list`];
//! - [`vectors`]: the store's vectors (its only copy of them, each with its inverse norm), in
//!   an incremental [`hnsw`] graph whose links are persisted (see [`restore`]), so opening a
//!   stored memory never rebuilds the graph; int8 codes ([`quant`]) are kept in pages of
//!   [`rows`];
//! - [`embed`]: the built-in lexical embedder, used when the host gives no vectors and
//!   [`SearchIndex::set_auto_embed`] is on;
//! - [`derived`]: the derived keys of a record (user, calendar forms of `created_at`), indexed
//!   beside its text; [`stopwords`]: the function words a query drops;
//! - [`threads`]: each record's thread and neighbours, for thread context;
//! - [`items`]: the indexes of long-term memory items (by relation, object and entity), over
//!   names folded by [`normalize`].
//!
//! [`Store`]: crate::Store

pub mod analyzer;
pub mod bm25;
pub mod derived;
pub mod distance;
pub mod embed;
pub mod hnsw;
pub mod items;
pub mod normalize;
pub mod posting_list;
pub mod postings;
pub mod quant;
pub mod restore;
pub mod rows;
pub mod stopwords;
pub mod threads;
pub mod topk;
pub mod vecstore;
pub mod vectors;
pub(crate) mod walk;

use std::vec::Vec;

use embed::{embed as builtin_embed, BUILTIN_DIMENSION};

use crate::error::Result;
use crate::record::Record;
use memdag_types::Slot;

/// Makes room for `more` elements past `v`'s length, growing by at least an eighth of it
/// rather than doubling. The per-record arrays of a store built by adds (postings, lengths,
/// links, vectors) otherwise held up to as much spare room as data, about 40% more on
/// average; copying an eighth more at each growth costs an add little (see issue 28's note).
pub(crate) fn reserve_eighth<T>(v: &mut Vec<T>, more: usize) {
    if v.capacity() - v.len() < more {
        v.reserve_exact(more.max(v.len() / 8).max(4));
    }
}

/// Lengthens `v` to `len` with `fill`, growing it as [`reserve_eighth`] does.
pub(crate) fn resize_eighth<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    if len > v.len() {
        reserve_eighth(v, len - v.len());
        v.resize(len, fill);
    }
}

/// A seeded xorshift generator for tests: each call `next(n)` gives a number below `n`.
#[cfg(test)]
pub(crate) fn test_rng(mut state: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    }
}

/// A plain turn for tests: id `r{seq}`, thread `t`, no user, created at `seq`, input
/// `turn {seq}`; struct update syntax changes the rest.
#[cfg(test)]
pub(crate) fn test_record(seq: u64) -> Record {
    Record {
        id: std::format!("r{seq}"),
        seq,
        thread: "t".into(),
        user: std::string::String::new(),
        created_at: seq as i64,
        input: std::format!("turn {seq}"),
        output: std::string::String::new(),
        steps: Vec::new(),
        parents: Vec::new(),
        tags: Vec::new(),
        importance: 0.5,
        compact: None,
        embedding: None,
        item: None,
    }
}

/// The search indexes of one store.
#[derive(Debug, Default)]
pub struct SearchIndex {
    pub(crate) text: postings::InvertedIndex,
    pub(crate) vectors: vectors::VectorIndex,
    /// Each record's thread and neighbours, for thread context.
    pub(crate) threads: threads::ThreadOrder,
    /// A hash of each slot's input and output, for dedup.
    content: Vec<u64>,
    /// Embed turns without an embedding with the built-in embedder.
    auto_embed: bool,
}

impl SearchIndex {
    /// Whether turns without an embedding get one from the built-in embedder.
    pub fn auto_embed(&self) -> bool {
        self.auto_embed
    }

    /// Turns the built-in embedder on or off for turns added from now on. It applies only
    /// while the store's dimension is unset or is [`BUILTIN_DIMENSION`].
    pub fn set_auto_embed(&mut self, on: bool) {
        self.auto_embed = on;
    }

    /// Checks a new record's embedding against the index, or embeds the record when
    /// auto-embedding applies, and returns the vector to index, taken out of the record: the
    /// index keeps a store's only copy of it. Called before the store changes anything; on an
    /// error the record is unchanged.
    pub(crate) fn admit(&self, record: &mut Record) -> Result<Option<Vec<f32>>> {
        match &record.embedding {
            Some(e) => {
                self.vectors.check(e)?;
                Ok(record.embedding.take())
            }
            None if self.auto_embed
                && matches!(self.vectors.dimension(), 0 | BUILTIN_DIMENSION) =>
            {
                let text = crate::record::embedding_text(&record.input, &record.output);
                Ok(builtin_embed(&text))
            }
            None => Ok(None),
        }
    }

    /// Indexes the record in `slot`; `vector` is what [`SearchIndex::admit`] returned.
    /// Returns the graph nodes whose links changed.
    /// `slots` are the store's, the record's among them.
    pub(crate) fn add(
        &mut self,
        slot: Slot,
        record: &Record,
        vector: Option<&[f32]>,
        slots: &[Option<Record>],
    ) -> Vec<u32> {
        self.text.add(slot, record);
        self.add_meta(slot, record, slots);
        match vector {
            Some(v) => self.vectors.add(slot, record.seq, v),
            None => Vec::new(),
        }
    }

    /// Indexes what is neither text nor vector: the thread order and the dedup key. `slots`
    /// as in [`SearchIndex::add`].
    pub(crate) fn add_meta(&mut self, slot: Slot, record: &Record, slots: &[Option<Record>]) {
        // Items belong to no thread, so they neither lend nor borrow thread context.
        if !record.is_item() {
            self.threads.add(slot, record, &threads::key_in(slots));
        }
        resize_eighth(&mut self.content, slot as usize + 1, 0);
        self.content[slot as usize] = content_hash(record);
    }

    /// Forgets the record that was in `slot`; `slots` are the store's (the others' records).
    /// Returns its graph node, if it had one, and the nodes whose links were repaired.
    pub(crate) fn remove(
        &mut self,
        slot: Slot,
        record: &Record,
        slots: &[Option<Record>],
    ) -> Option<(u32, Vec<u32>)> {
        self.text.remove(slot, record);
        self.threads.remove(slot, record, &threads::key_in(slots));
        self.vectors.remove(slot)
    }

    /// Forgets every record of `gone` (slot, the record that was there) at once: each posting
    /// list and the graph are edited once for all of them. Returns the graph nodes whose
    /// links were repaired.
    pub(crate) fn remove_many(&mut self, gone: &[(Slot, Record)]) -> Vec<u32> {
        self.text
            .remove_many(gone.iter().map(|(slot, r)| (*slot, r)));
        let slots: Vec<Slot> = gone.iter().map(|(slot, _)| *slot).collect();
        self.threads.remove_many(slots.iter().copied());
        self.vectors.remove_many(&slots)
    }

    /// Re-indexes the text and dedup key of the record in `slot`, which changed from `old` to
    /// `new` (its vector and thread are the caller's: see `Store::change_record`).
    pub(crate) fn change_text(&mut self, slot: Slot, old: &Record, new: &Record) {
        self.text.remove(slot, old);
        self.text.add(slot, new);
        if let Some(key) = self.content.get_mut(slot as usize) {
            *key = content_hash(new);
        }
    }

    /// The dedup key of a slot.
    pub(crate) fn content_of(&self, slot: Slot) -> u64 {
        self.content.get(slot as usize).copied().unwrap_or(0)
    }

    /// The vector index.
    pub fn vectors(&self) -> &vectors::VectorIndex {
        &self.vectors
    }

    /// The inverted index.
    pub fn text(&self) -> &postings::InvertedIndex {
        &self.text
    }

    /// Approximate heap bytes of the indexes (text, vectors and graph).
    pub fn heap_bytes(&self) -> usize {
        self.heap_parts().iter().map(|p| p.1).sum()
    }

    /// [`SearchIndex::heap_bytes`] by part (see [`postings::InvertedIndex::heap_parts`] and
    /// [`vectors::VectorIndex::heap_parts`]), with the thread order and the dedup hashes.
    pub fn heap_parts(&self) -> Vec<(&'static str, usize)> {
        let mut parts: Vec<(&'static str, usize)> = self.vectors.heap_parts().to_vec();
        parts.extend(self.text.heap_parts());
        parts.push(("threads", self.threads.heap_bytes()));
        parts.push(("dedup hashes", self.content.capacity() * 8));
        parts
    }
}

/// A word hash of a record's input and output, the identity used by dedup; 0 (never deduplicated)
/// when both are empty.
fn content_hash(r: &Record) -> u64 {
    if r.input.is_empty() && r.output.is_empty() {
        return 0;
    }
    let mut h = crate::hash::WordHash::new();
    // An item never shadows a turn that says the same words, nor a turn an item.
    h.write(&[u8::from(r.is_item())]);
    h.write(r.input.as_bytes());
    h.write(r.output.as_bytes());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_grown_an_eighth_at_a_time_keep_little_spare_room() {
        let mut v: Vec<u64> = Vec::new();
        let mut grows = 0;
        for i in 0..100_000u64 {
            let cap = v.capacity();
            reserve_eighth(&mut v, 1);
            v.push(i);
            grows += usize::from(v.capacity() != cap);
            assert!(
                v.capacity() <= v.len() + v.len() / 8 + 4,
                "{} of {}",
                v.capacity(),
                v.len()
            );
        }
        // Logarithmic all the same: about log(100k) / log(1.125) growths.
        assert!(grows < 120, "{grows}");
        let mut w: Vec<u8> = vec![1; 10];
        resize_eighth(&mut w, 5, 0);
        assert_eq!(w.len(), 10);
        resize_eighth(&mut w, 20, 7);
        assert_eq!((w.len(), w[19], w[9]), (20, 7, 1));
    }
}
