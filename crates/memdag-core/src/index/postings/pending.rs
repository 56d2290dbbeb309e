//! Postings held to fill the text index a list at a time: an open adds each record's stored
//! analysis ([`InvertedIndex::add_analyzed_later`]) and its term postings wait here, grouped
//! by term when flushed ([`InvertedIndex::flush`]) and appended to each list in one go
//! ([`crate::index::posting_list::PostingList::extend_sorted`]).

use std::vec::Vec;

use super::super::bm25::FIELDS;
use super::InvertedIndex;
use memdag_types::Slot;

/// Postings [`InvertedIndex::add_analyzed_later`] keeps to append a list at a time: filling
/// the index one record at a time visits a list for each posting, and the lists of a large
/// index do not stay in the cache between visits. Measured in wasm on the LoCoMo workload at
/// 10k records, posting inserts were 14.5% of an open.
#[derive(Debug)]
pub struct PendingPostings {
    /// (term, slot, frequencies) in slot order.
    postings: Vec<(u32, Slot, u32)>,
    /// Buffers of [`InvertedIndex::flush`], kept for the next flush.
    by_term: Vec<(Slot, u32)>,
    starts: Vec<u32>,
    /// Postings held before a flush.
    limit: usize,
}

impl Default for PendingPostings {
    fn default() -> Self {
        PendingPostings {
            postings: Vec::new(),
            by_term: Vec::new(),
            starts: Vec::new(),
            limit: PENDING_POSTINGS,
        }
    }
}

/// Postings held before a flush: 1.25 MB of buffers, whatever the store's size.
const PENDING_POSTINGS: usize = 1 << 16;

impl InvertedIndex {
    /// Pending postings for this index's terms, their buffers sized first, so that an open,
    /// which makes them as its memory is fullest, gets [`crate::Error::Storage`] rather than
    /// an abort when the memory refuses them (see [`crate::room`]).
    pub(crate) fn reserved_pending(&self) -> crate::Result<PendingPostings> {
        let mut pending = PendingPostings::default();
        // A record's terms may take the postings past the limit before they are flushed.
        let room = pending.limit + 1024;
        let what = "its pending postings";
        crate::room::reserve(&mut pending.postings, room, what)?;
        crate::room::reserve(&mut pending.by_term, room, what)?;
        crate::room::reserve(&mut pending.starts, self.postings.len() + 1, what)?;
        Ok(pending)
    }

    /// Indexes an analyzed record in `slot` (term ids from [`InvertedIndex::intern`]), as
    /// [`InvertedIndex::add`] would index the record itself, each term once; the term
    /// postings are left in `pending` until it is flushed ([`InvertedIndex::flush`]), here
    /// when it is full. Slots must come in increasing order, past every slot indexed.
    pub fn add_analyzed_later(
        &mut self,
        slot: Slot,
        terms: &[(u32, [u8; FIELDS])],
        len: [u32; FIELDS],
        keys: &[(u32, u8)],
        keys_len: u32,
        pending: &mut PendingPostings,
    ) {
        pending.postings.extend(
            terms
                .iter()
                .map(|&(term, tf)| (term, slot, u32::from_le_bytes(tf))),
        );
        self.add_lengths_and_keys(slot, len, keys, keys_len);
        if pending.postings.len() >= pending.limit {
            self.flush(pending);
        }
    }

    /// Gives back the spare room of every list: lists filled by runs grow by half again
    /// (see [`crate::index::posting_list::PostingList::extend_sorted`]), and derived-key
    /// lists by an eighth.
    pub fn shrink_lists(&mut self) {
        for list in &mut self.postings {
            list.shrink_to_fit();
        }
        for list in self.keys.values_mut() {
            list.shrink_to_fit();
        }
    }

    /// Appends the postings `pending` holds to their lists, a list at a time
    /// ([`crate::index::posting_list::PostingList::extend_sorted`]), and empties it.
    pub fn flush(&mut self, pending: &mut PendingPostings) {
        let PendingPostings {
            postings,
            by_term,
            starts,
            ..
        } = pending;
        if postings.is_empty() {
            return;
        }
        // A counting sort by term: postings were added in slot order, so each term's run
        // stays in slot order.
        starts.clear();
        starts.resize(self.postings.len() + 1, 0);
        for &(term, _, _) in postings.iter() {
            starts[term as usize + 1] += 1;
        }
        for t in 1..starts.len() {
            starts[t] += starts[t - 1];
        }
        by_term.clear();
        by_term.resize(postings.len(), (0, 0));
        // `starts[t]` moves along term t's run as it fills, and ends at its end: the start of
        // term t + 1's.
        for &(term, slot, tf) in postings.iter() {
            let at = &mut starts[term as usize];
            by_term[*at as usize] = (slot, tf);
            *at += 1;
        }
        let mut from = 0;
        for (list, &end) in self.postings.iter_mut().zip(starts.iter()) {
            let end = end as usize;
            if end > from {
                list.extend_sorted(&by_term[from..end]);
            }
            from = end;
        }
        postings.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::bm25::Bm25Params;
    use crate::index::test_record;

    /// Records added with their postings held and flushed in batches (of any size, with a
    /// record analyzed at once between them, as an open does for one without a stored
    /// analysis) make the index that adding them one at a time makes: the same lists, byte
    /// for byte, lengths and scores.
    #[test]
    fn postings_held_and_flushed_make_the_same_index() {
        const WORDS: [&str; 9] = [
            "kelp", "otter", "walrus", "reef", "tide", "monday", "shell", "march", "gull",
        ];
        for (seed, limit) in [
            (1u64, 1usize),
            (2, 7),
            (3, 64),
            (4, 1000),
            (5, PENDING_POSTINGS),
        ] {
            let mut next = crate::index::test_rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let mut one_by_one = InvertedIndex::default();
            let mut held = InvertedIndex::default();
            let mut pending = PendingPostings {
                limit,
                ..PendingPostings::default()
            };
            for slot in 0..700 as Slot {
                let mut r = test_record(u64::from(slot));
                let words: Vec<&str> = (0..1 + next(10))
                    .map(|_| WORDS[next(WORDS.len() as u64) as usize])
                    .collect();
                r.input = words.join(" ");
                one_by_one.add(slot, &r);
                if slot % 97 == 5 {
                    held.flush(&mut pending);
                    held.add(slot, &r);
                } else {
                    let (terms, len, keys, keys_len) = held.interned_analysis(&r);
                    held.add_analyzed_later(slot, &terms, len, &keys, keys_len, &mut pending);
                }
            }
            held.flush(&mut pending);
            assert_eq!(held.postings.len(), one_by_one.postings.len());
            for (a, b) in held.postings.iter().zip(&one_by_one.postings) {
                assert_eq!(a.postings(), b.postings(), "seed {seed}");
            }
            assert_eq!(held.doc_len, one_by_one.doc_len);
            assert_eq!(held.total_len, one_by_one.total_len);
            assert_eq!(held.docs, one_by_one.docs);
            let params = Bm25Params::default();
            for q in ["kelp otter", "monday tide", "gull"] {
                let q1 = held.query(q, false);
                let q2 = one_by_one.query(q, false);
                assert_eq!(
                    held.search(&q1, &params, 20, |_| true),
                    one_by_one.search(&q2, &params, 20, |_| true)
                );
            }
        }
    }
}
