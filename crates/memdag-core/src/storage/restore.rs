//! Restoring a loaded store's search indexes from what its segments (or a v1 store's records)
//! hold, shared by the loaders of every format.

use std::vec::Vec;

use crate::error::Result;
use crate::index::postings::{InvertedIndex, PendingPostings};
use crate::index::restore::{GraphSource, VectorSource};
use crate::record::Record;
use crate::store::Store;
use memdag_types::Slot;

/// The vectors of a v1 store, in its decoded records (how many have one).
pub(super) struct RecordVectors(pub(super) usize);

impl VectorSource for RecordVectors {
    fn count(&self) -> usize {
        self.0
    }

    fn read(&self, _: Slot, record: &Record, out: &mut Vec<f32>) -> bool {
        match &record.embedding {
            Some(e) => {
                out.extend_from_slice(e);
                true
            }
            None => false,
        }
    }
}

/// Restores the search indexes of a loaded store (see [`crate::index::SearchIndex::restore`]).
/// Afterwards a record whose vector the index took holds none, and one whose stored vector
/// the index refused (of another dimension, say) holds it, so no vector is kept twice or lost.
/// Fails with [`crate::Error::Storage`] when the memory refuses the indexes' largest arrays
/// (see [`crate::room`]).
pub(super) fn restore_search(
    store: &mut Store,
    dimension: usize,
    vectors: &mut dyn VectorSource,
    graph: &dyn GraphSource,
    text: InvertedIndex,
    stored_text: &mut dyn FnMut(Slot, &mut InvertedIndex, &mut PendingPostings) -> bool,
) -> Result<Vec<u32>> {
    let mut search = core::mem::take(&mut store.search);
    let inserted = search.restore(&store.slots, dimension, vectors, graph, text, stored_text)?;
    let mut buffer = Vec::new();
    for (slot, r) in store.slots.live_mut() {
        if search.vectors.node_of(slot).is_some() {
            r.embedding = None;
        } else if r.embedding.is_none() {
            buffer.clear();
            if vectors.read(slot, r, &mut buffer) {
                r.embedding = Some(buffer.clone());
            }
        }
    }
    store.search = search;
    Ok(inserted)
}
