//! Appending a run of postings to a list a block at a time ([`PostingList::extend_sorted`]):
//! how an open fills the text index, a list at a time (see
//! [`crate::index::postings::PendingPostings`]).

use super::{PostingList, BLOCK};
use memdag_types::Slot;

impl PostingList {
    /// Appends `postings`, sorted by doc and distinct, as [`PostingList::insert`] of each in
    /// turn would (the same bytes), a block at a time: the last block is encoded once more
    /// with the postings that fill it, and the rest go in as whole blocks. For filling many
    /// lists at once ([`crate::index::postings::PendingPostings`]), where inserting a posting at a
    /// time costs a visit to its list for each. A posting not past the list's last doc is
    /// inserted alone, in its place.
    pub fn extend_sorted(&mut self, postings: &[(Slot, u32)]) {
        let mut rest = postings;
        while let Some(&(doc, tf)) = rest.first() {
            if self.len != 0 && doc <= self.last {
                self.insert(doc, tf);
                rest = &rest[1..];
            } else {
                break;
            }
        }
        if rest.is_empty() {
            return;
        }
        // By half again: a list filled by runs grows a few times (copied about three times
        // in all) and is shrunk to fit after. Doubling held 1 MiB more at the peak of a 100k
        // open (189 against 188 MiB, `examples/open_memory`).
        let more = rest.len() * 2 + 8;
        if self.bytes.capacity() - self.bytes.len() < more {
            self.bytes.reserve_exact(more.max(self.bytes.len() / 2));
        }
        let held = self.len as usize % BLOCK;
        if held != 0 {
            let taken = (BLOCK - held).min(rest.len());
            self.refill_last_block(&rest[..taken]);
            rest = &rest[taken..];
        }
        for block in rest.chunks(BLOCK) {
            self.append_block(block);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn tf(fields: [u8; 4]) -> u32 {
        u32::from_le_bytes(fields)
    }

    proptest::proptest! {
    /// Postings appended in runs of any length (some not past the end) make the list
    /// that inserting them one at a time makes, byte for byte.
    #[test]
    fn extending_by_runs_is_inserting_one_at_a_time(
        docs in proptest::collection::vec(0u32..5_000, 0..500),
        cuts in proptest::collection::vec(0usize..150, 0..12),
        big in 0u8..8,
    ) {
        let postings: Vec<(Slot, u32)> = docs
            .iter()
            .map(|&d| (d, tf([1 + (d % 3) as u8, 0, 0, if d % 7 == 0 { big * 30 } else { 0 }])))
            .collect();
        let mut inserted = PostingList::default();
        let mut extended = PostingList::default();
        let mut at = 0usize;
        for cut in cuts.iter().copied().chain([usize::MAX]) {
            let end = at.saturating_add(cut).min(postings.len());
            let mut run: Vec<(Slot, u32)> = postings[at..end].to_vec();
            run.sort_unstable();
            run.dedup_by_key(|p| p.0);
            for &(d, t) in &run {
                inserted.insert(d, t);
            }
            extended.extend_sorted(&run);
            at = end;
        }
        proptest::prop_assert_eq!(extended.postings(), inserted.postings());
        proptest::prop_assert_eq!(&extended.bytes, &inserted.bytes);
        proptest::prop_assert_eq!(&extended.skips[..], &inserted.skips[..]);
        proptest::prop_assert_eq!((extended.len, extended.last), (inserted.len, inserted.last));
    }
    }
}
