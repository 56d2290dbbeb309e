//! Every chunk's records in one array ([`ChunkRecords`]), from which an open takes the
//! chosen versions in place into the store's slots.
//!
//! An open decodes each chunk's records, then keeps the newest version of each sequence
//! number, in sequence order, as the store's slots. With one array per chunk, the slots were
//! a second array beside them (16 MiB more at 100k records in wasm, the largest transient of
//! an open). Here the chunks' records lie in one array, chunk after chunk, and the chosen
//! ones are moved to its front along the cycles of their permutation (as the codes are in
//! [`crate::index::vecstore::NodeVectors::adopt_codes`]); the versions not chosen are
//! dropped from its end. The array becomes the slots.

use std::vec::Vec;

use crate::error::Result;
use crate::record::Record;
use crate::room;
use crate::segment::SegmentView;

/// Every chunk's records in one array, chunk after chunk: chunk `c`'s are
/// `all[first[c]..first[c + 1]]`.
#[derive(Default)]
pub(super) struct ChunkRecords {
    all: Vec<Record>,
    /// Where each chunk's records start in `all`, and the end of the last chunk's.
    first: Vec<usize>,
}

impl ChunkRecords {
    /// Room for `records` records of `chunks` chunks, reserved fallibly (see [`crate::room`]).
    pub fn with_capacity(records: usize, chunks: usize) -> Result<Self> {
        let mut all = Vec::new();
        room::reserve(&mut all, records, "its records")?;
        let mut first = Vec::with_capacity(chunks + 1);
        first.push(0);
        Ok(ChunkRecords { all, first })
    }

    /// Appends the next chunk's records (emptying `records`).
    pub fn push_chunk(&mut self, records: &mut Vec<Record>) {
        self.all.append(records);
        self.first.push(self.all.len());
    }

    /// Chunk `c`'s records (none past the last chunk).
    pub fn of(&self, c: usize) -> &[Record] {
        match (self.first.get(c), self.first.get(c + 1)) {
            (Some(&start), Some(&end)) => &self.all[start..end],
            _ => &[],
        }
    }

    /// Takes the records out of every view, in order, freeing each view's array as it goes.
    pub fn from_views(views: &mut [SegmentView]) -> Result<Self> {
        let total = views.iter().map(|v| v.records.len()).sum();
        let mut records = ChunkRecords::with_capacity(total, views.len())?;
        for view in views.iter_mut() {
            records.push_chunk(&mut view.records);
            view.records = Vec::new();
        }
        Ok(records)
    }

    /// The records at the places `chosen` names (chunk, index in the chunk), in that order, in
    /// the array they are in: reordered in place, the others dropped. `chosen` names each
    /// place once (as `load::choose_records` does).
    pub fn take(mut self, chosen: &[(u32, u32)]) -> Result<Vec<Record>> {
        let total = self.all.len();
        let first = &self.first;
        let picked = chosen
            .iter()
            .map(|&(vi, ri)| first[vi as usize] + ri as usize);
        let all = &mut self.all;
        let gathered = crate::sort::gather_by(total, picked, |a, b| all.swap(a, b))
            .map_err(|_| room::out_of_memory("the records' places", total * 5))?;
        debug_assert!(gathered, "a place chosen twice");
        self.all.truncate(chosen.len());
        Ok(self.all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any choice of places, in any order, comes out as those records in that order,
        /// whatever the chunks' sizes.
        #[test]
        fn the_chosen_records_come_out_in_order(
            sizes in proptest::collection::vec(0usize..30, 0..6),
            picks in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..60),
        ) {
            let mut records = ChunkRecords::with_capacity(0, sizes.len()).unwrap();
            let mut seq = 0;
            let mut places = Vec::new();
            for (c, &size) in sizes.iter().enumerate() {
                let mut chunk: Vec<Record> = (0..size).map(|_| { seq += 1; crate::index::test_record(seq) }).collect();
                places.extend((0..size as u32).map(|i| (c as u32, i)));
                records.push_chunk(&mut chunk);
                proptest::prop_assert!(chunk.is_empty());
            }
            // A choice of distinct places, in the order `picks` draws them.
            let mut chosen = Vec::new();
            for p in picks {
                if places.is_empty() { break; }
                chosen.push(places.swap_remove(p as usize % places.len()));
            }
            let want: Vec<u64> = chosen
                .iter()
                .map(|&(c, i)| records.of(c as usize)[i as usize].seq)
                .collect();
            let taken = records.take(&chosen).unwrap();
            let got: Vec<u64> = taken.iter().map(|r| r.seq).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
