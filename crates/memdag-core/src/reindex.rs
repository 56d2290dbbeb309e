//! Changing the embedding model: re-embedding every record, so the store's dimension can change.
//!
//! The first vector fixes a store's dimension, and a vector of any other length is refused, so
//! moving to another embedding model needs every record embedded again. A reindex runs in
//! three steps, so a face whose embedder is asynchronous (a JS `fetch`) can drive it:
//!
//! 1. [`Store::begin_reindex`] lists the live records, oldest first, in a [`Reindex`] job;
//! 2. [`Store::reindex_batch`] gives the [embedding texts](crate::record::embedding_text) of
//!    the next records and [`Reindex::supply`] takes their vectors, batch after batch; the
//!    job's [`Reindex::done`] and [`Reindex::total`] are the progress;
//! 3. [`Store::finish_reindex`] checks that every vector is usable, then swaps them all in
//!    and rebuilds the vector graph.
//!
//! The store stays usable between steps, and nothing changes until the last one, which either
//! replaces every vector or changes nothing. A record deleted during the job is skipped; a
//! record added during it (embedded with the old model) makes the finish fail, because the
//! store would mix two models: run the reindex again. [`Store::reindex`] runs all three steps
//! with a synchronous embedder, as the WIT component and the CLI do.
//!
//! The finished store's next change set is a full rewrite: every record's stored vector and
//! every graph node changed.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::dirty::Touched;
use crate::error::{Error, Result};
use crate::index::distance::check_storable;
use crate::index::vectors::VectorIndex;
use crate::record::embedding_text;
use crate::store::Store;

/// How many texts [`Store::reindex`] gives the embedder at once, unless told otherwise.
pub const DEFAULT_REINDEX_BATCH: usize = 64;

/// An embedder for [`Store::reindex`]: texts in, one vector per text out.
pub type Embed<'a> = dyn FnMut(&[String]) -> Result<Vec<Vec<f32>>> + 'a;

/// A reindex under way: which records to embed, and the vectors embedded so far.
#[derive(Debug, Clone)]
pub struct Reindex {
    /// The records to embed, oldest first.
    ids: Vec<String>,
    /// How many of `ids` were handed out by [`Store::reindex_batch`].
    handed_out: usize,
    /// The ids of the last batch handed out, waiting for their vectors.
    waiting: Vec<String>,
    /// The vectors received, by record id.
    vectors: Vec<(String, Vec<f32>)>,
    /// Records deleted before their turn came: nothing to embed.
    skipped: usize,
    /// The dimension of the new vectors, 0 before the first.
    dimension: usize,
    /// The store's next sequence number when the job began: anything at or above it is new.
    began_at_seq: u64,
}

/// Where a reindex is: which phase, and how far through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReindexProgress {
    /// `"embedding"` while vectors are fetched, `"indexing"` while the graph is rebuilt.
    pub phase: ReindexPhase,
    pub done: usize,
    pub total: usize,
}

/// The two phases of a reindex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReindexPhase {
    Embedding,
    Indexing,
}

/// What a finished reindex did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reindexed {
    /// Records that got a new vector.
    pub records: usize,
    /// The store's dimension before and after (0: the store had no vectors).
    pub previous_dimension: usize,
    pub dimension: usize,
}

impl Reindex {
    /// Records in the job.
    pub fn total(&self) -> usize {
        self.ids.len()
    }

    /// Records embedded or skipped so far.
    pub fn done(&self) -> usize {
        self.vectors.len() + self.skipped
    }

    /// Whether every record of the job has its vector (or was skipped).
    pub fn is_complete(&self) -> bool {
        self.done() == self.total()
    }

    /// The dimension of the new vectors, 0 before the first batch was supplied.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Takes the vectors of the batch [`Store::reindex_batch`] last handed out, one per text
    /// and in order. They must all have one length, the same for the whole job, and be
    /// finite and not zero; otherwise [`Error::InvalidInput`] and the job is as it was. An
    /// empty vector means the record gets none (the built-in embedder has none for a text
    /// without words); a face whose host embedder returned one refuses it before this.
    pub fn supply(&mut self, vectors: Vec<Vec<f32>>) -> Result<()> {
        if vectors.len() != self.waiting.len() {
            return Err(Error::invalid(format!(
                "reindex: {} vectors for a batch of {} texts",
                vectors.len(),
                self.waiting.len()
            )));
        }
        let mut dimension = self.dimension;
        for v in vectors.iter().filter(|v| !v.is_empty()) {
            if dimension == 0 {
                dimension = v.len();
            }
            if v.len() != dimension {
                return Err(Error::invalid(format!(
                    "reindex: a vector has {} dimensions, the others {dimension}",
                    v.len()
                )));
            }
            check_storable(v)?;
        }
        self.dimension = dimension;
        let ids = core::mem::take(&mut self.waiting);
        self.vectors.extend(ids.into_iter().zip(vectors));
        Ok(())
    }
}

impl Store {
    /// Starts a reindex of every live record (see the module docs).
    pub fn begin_reindex(&self) -> Reindex {
        Reindex {
            ids: self.iter().map(|r| r.id.clone()).collect(),
            handed_out: 0,
            waiting: Vec::new(),
            vectors: Vec::new(),
            skipped: 0,
            dimension: 0,
            began_at_seq: self.next_seq,
        }
    }

    /// The embedding texts of the job's next `n` records (fewer at the end, none when all were
    /// handed out). Records deleted meanwhile are skipped. [`Error::InvalidInput`] when the
    /// previous batch has not been supplied yet.
    pub fn reindex_batch(&self, job: &mut Reindex, n: usize) -> Result<Vec<String>> {
        if !job.waiting.is_empty() {
            return Err(Error::invalid(format!(
                "reindex: the previous batch of {} texts still waits for its vectors",
                job.waiting.len()
            )));
        }
        let mut texts = Vec::new();
        while texts.len() < n.max(1) && job.handed_out < job.ids.len() {
            let id = &job.ids[job.handed_out];
            job.handed_out += 1;
            match self.get(id) {
                Some(r) => {
                    texts.push(embedding_text(&r.input, &r.output));
                    job.waiting.push(id.clone());
                }
                None => job.skipped += 1,
            }
        }
        Ok(texts)
    }

    /// Swaps in the job's vectors and rebuilds the vector graph; `progress` is called as the
    /// graph grows. Changes nothing and fails with [`Error::InvalidInput`] when the job is not
    /// complete or records were added since it began.
    pub fn finish_reindex(
        &mut self,
        job: Reindex,
        progress: &mut dyn FnMut(ReindexProgress),
    ) -> Result<Reindexed> {
        if !job.is_complete() {
            return Err(Error::invalid(format!(
                "reindex: {} of {} records have their vectors",
                job.done(),
                job.total()
            )));
        }
        let added = self.iter().filter(|r| r.seq >= job.began_at_seq).count();
        if added > 0 {
            return Err(Error::invalid(format!(
                "reindex: {added} records were added while it ran, with the old model; \
                 run the reindex again"
            )));
        }
        let previous_dimension = self.search.vectors.dimension();
        // Checked before anything changes (`supply` checked them, so this cannot fail).
        let mut fresh: Vec<(memdag_types::Slot, Option<Vec<f32>>)> = Vec::new();
        for (id, vector) in job.vectors {
            let Some(slot) = self.slot_of(&id) else {
                continue; // deleted after its batch was embedded
            };
            let vector = if vector.is_empty() {
                None
            } else {
                check_storable(&vector)?;
                Some(vector)
            };
            fresh.push((slot, vector));
        }
        crate::sort::sort_by_key(&mut fresh, |(slot, ..)| *slot);
        let total = fresh.len();
        // The new vectors are kept as the old ones were; int8 steps are trained anew on them.
        let mut index = VectorIndex::default();
        index.set_settings(self.search.vectors.settings());
        for (done, (slot, vector)) in fresh.into_iter().enumerate() {
            let Some(r) = self.slots.get_mut(slot) else {
                continue;
            };
            // The new index keeps the only copy of each vector.
            if let Some(vector) = &vector {
                index.add(slot, r.seq, vector);
            }
            r.embedding = None;
            if done % 1024 == 1023 {
                progress(ReindexProgress {
                    phase: ReindexPhase::Indexing,
                    done: done + 1,
                    total,
                });
            }
        }
        progress(ReindexProgress {
            phase: ReindexPhase::Indexing,
            done: total,
            total,
        });
        // With no vector at all (an empty store, or texts the embedder had none for), the
        // dimension is unset again, so the next vector fixes it.
        self.search.vectors = index;
        self.dirty.mark(Touched::Counters);
        self.persist.force_full_rewrite();
        Ok(Reindexed {
            records: total,
            previous_dimension,
            dimension: self.search.vectors.dimension(),
        })
    }

    /// Re-embeds every record with `embed` (texts in, one vector per text out), `batch` texts
    /// at a time, reporting progress after each batch and while the graph is rebuilt. An
    /// error from `embed` ends the reindex with nothing changed.
    pub fn reindex(
        &mut self,
        batch: usize,
        embed: &mut Embed<'_>,
        progress: &mut dyn FnMut(ReindexProgress),
    ) -> Result<Reindexed> {
        let mut job = self.begin_reindex();
        loop {
            let texts = self.reindex_batch(&mut job, batch)?;
            if texts.is_empty() {
                break;
            }
            job.supply(embed(&texts)?)?;
            progress(ReindexProgress {
                phase: ReindexPhase::Embedding,
                done: job.done(),
                total: job.total(),
            });
        }
        self.finish_reindex(job, progress)
    }

    /// Re-embeds every record with the built-in embedder (see [`crate::index::embed`]), e.g.
    /// to leave a host model and go back to working with no configuration.
    pub fn reindex_builtin(&mut self) -> Result<Reindexed> {
        self.reindex(
            DEFAULT_REINDEX_BATCH,
            &mut |texts| {
                texts
                    .iter()
                    .map(|t| Ok(crate::search::builtin_embed(t).unwrap_or_default()))
                    .collect()
            },
            &mut |_| {},
        )
    }
}
