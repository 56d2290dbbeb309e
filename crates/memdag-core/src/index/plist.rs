//! One term's postings list, kept as columns: the docs (`u32` slots, sorted) and a frequency
//! code a posting, with the rare frequencies a code cannot say set apart.
//!
//! A posting was a `(doc, [tf; FIELDS])` pair of 8 bytes. Nearly every posting has the term
//! in one field only, a few times, so one byte says it:
//!
//! ```text
//!   code = field << 6 | tf      the term occurs tf times (1..=63) in `field` alone
//!   code = 0                    anything else: the frequencies are in `exceptions`, by doc
//! ```
//!
//! So a posting takes 5 bytes, and reading one needs no decoding chain: the doc is read as it
//! was, and the code turns into the same frequency bits with a shift. Denser codings were
//! measured and rejected (issue 28's note): a varint per posting or blocks of bit- or
//! byte-packed doc deltas took a posting to 1-2 bytes but made BM25 at 100k records 1.25-1.5x
//! slower natively and about 2x slower in wasm.

use std::vec::Vec;

use super::bm25::FIELDS;
use memdag_types::Slot;

/// A term's postings, sorted by doc (see the module doc).
#[derive(Debug, Default, Clone)]
pub struct PostingList {
    docs: Vec<Slot>,
    codes: Vec<u8>,
    /// The frequencies of the postings whose code is 0, sorted by doc.
    exceptions: Vec<(Slot, [u8; FIELDS])>,
}

/// The frequencies of a posting as a little-endian `u32`, field 0 in the low byte.
#[inline]
pub fn tf_bits(tf: [u8; FIELDS]) -> u32 {
    u32::from_le_bytes(tf)
}

/// The code of frequencies `tf`, 0 when it needs an exception.
fn code_of(tf: [u8; FIELDS]) -> u8 {
    let mut fields = tf.iter().enumerate().filter(|(_, &t)| t > 0);
    match (fields.next(), fields.next()) {
        (Some((f, &t)), None) if t < 64 => (f as u8) << 6 | t,
        _ => 0,
    }
}

impl PostingList {
    /// The number of postings (the term's document frequency).
    #[inline]
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no doc has the term.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Heap bytes held, spare room included, and the list itself.
    pub fn heap_bytes(&self) -> usize {
        self.docs.capacity() * 4
            + self.codes.capacity()
            + self.exceptions.capacity() * 8
            + core::mem::size_of::<Self>()
    }

    /// Makes room for `n` more postings.
    pub fn reserve(&mut self, n: usize) {
        self.docs.reserve_exact(n);
        self.codes.reserve_exact(n);
    }

    /// Adds the posting of `doc` where it belongs; a doc already there is left as it is.
    /// An append when `doc` is past the last one (nearly always: slots only grow).
    pub fn insert(&mut self, doc: Slot, tf: [u8; FIELDS]) {
        let at = match self.docs.last() {
            Some(&last) if last >= doc => match self.docs.binary_search(&doc) {
                Ok(_) => return,
                Err(at) => at,
            },
            _ => self.docs.len(),
        };
        super::reserve_eighth(&mut self.docs, 1);
        super::reserve_eighth(&mut self.codes, 1);
        let code = code_of(tf);
        self.docs.insert(at, doc);
        self.codes.insert(at, code);
        if code == 0 {
            let e = self.exceptions.partition_point(|x| x.0 < doc);
            self.exceptions.insert(e, (doc, tf));
        }
    }

    /// Calls `f` with each posting's doc and [`tf_bits`], in doc order.
    #[inline(always)]
    pub fn for_each(&self, mut f: impl FnMut(Slot, u32)) {
        let mut e = 0;
        for (&doc, &code) in self.docs.iter().zip(&self.codes) {
            let bits = if code != 0 {
                u32::from(code & 63) << (8 * (code >> 6))
            } else {
                e += 1;
                self.exceptions.get(e - 1).map_or(0, |x| tf_bits(x.1))
            };
            f(doc, bits);
        }
    }

    /// The frequencies of `doc`, if it has the term.
    pub fn get(&self, doc: Slot) -> Option<[u8; FIELDS]> {
        let at = self.docs.binary_search(&doc).ok()?;
        match self.codes[at] {
            0 => self
                .exceptions
                .binary_search_by_key(&doc, |x| x.0)
                .ok()
                .map(|e| self.exceptions[e].1),
            code => Some((u32::from(code & 63) << (8 * (code >> 6))).to_le_bytes()),
        }
    }

    /// Drops the postings of `docs` (sorted and without repeats); returns how many it dropped.
    pub fn remove_sorted(&mut self, docs: &[Slot]) -> usize {
        let before = self.docs.len();
        if let [doc] = docs {
            if let Ok(at) = self.docs.binary_search(doc) {
                self.docs.remove(at);
                self.codes.remove(at);
            }
        } else {
            // Both sorted: one pass drops them all, where a removal per posting cost a purge
            // of 10k items 15% of its time.
            let gone = |d: Slot, next: &mut usize| {
                while docs.get(*next).is_some_and(|&g| g < d) {
                    *next += 1;
                }
                docs.get(*next) == Some(&d)
            };
            let mut next = 0;
            let mut keep = 0;
            for i in 0..self.docs.len() {
                if !gone(self.docs[i], &mut next) {
                    self.docs[keep] = self.docs[i];
                    self.codes[keep] = self.codes[i];
                    keep += 1;
                }
            }
            self.docs.truncate(keep);
            self.codes.truncate(keep);
        }
        let mut next = 0;
        self.exceptions.retain(|x| {
            while docs.get(next).is_some_and(|&g| g < x.0) {
                next += 1;
            }
            docs.get(next) != Some(&x.0)
        });
        before - self.docs.len()
    }

    /// The postings, decoded.
    pub fn to_vec(&self) -> Vec<(Slot, [u8; FIELDS])> {
        let mut out = Vec::with_capacity(self.len());
        self.for_each(|doc, bits| out.push((doc, bits.to_le_bytes())));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tf_strategy() -> impl Strategy<Value = [u8; FIELDS]> {
        prop_oneof![
            ((0..FIELDS), 1u8..=70).prop_map(|(f, t)| {
                let mut tf = [0; FIELDS];
                tf[f] = t;
                tf
            }),
            proptest::array::uniform4(0u8..=255),
        ]
    }

    proptest! {
        /// Any sequence of inserts and removals leaves the list what a sorted `Vec` holds.
        #[test]
        fn matches_a_sorted_vec(
            ops in proptest::collection::vec((0u32..3, 0u32..5000, tf_strategy()), 0..300),
            probes in proptest::collection::vec(0u32..5100, 0..40),
        ) {
            let mut list = PostingList::default();
            let mut model: Vec<(Slot, [u8; FIELDS])> = Vec::new();
            for (op, doc, tf) in ops {
                if op < 2 {
                    list.insert(doc, tf);
                    if let Err(at) = model.binary_search_by_key(&doc, |p| p.0) {
                        model.insert(at, (doc, tf));
                    }
                } else {
                    let mut gone: Vec<Slot> =
                        model.iter().map(|p| p.0).filter(|d| d % 7 == doc % 7).collect();
                    gone.truncate(1 + doc as usize % 3);
                    let dropped = list.remove_sorted(&gone);
                    model.retain(|p| !gone.contains(&p.0));
                    prop_assert_eq!(dropped, gone.len());
                }
                prop_assert_eq!(list.len(), model.len());
            }
            prop_assert_eq!(list.to_vec(), model.clone());
            for doc in probes.into_iter().chain(model.iter().map(|p| p.0)) {
                let want = model.binary_search_by_key(&doc, |p| p.0).ok().map(|i| model[i].1);
                prop_assert_eq!(list.get(doc), want);
            }
        }
    }

    #[test]
    fn a_posting_in_one_field_takes_a_code_and_others_an_exception() {
        assert_eq!(code_of([0, 0, 3, 0]), 2 << 6 | 3);
        assert_eq!(code_of([63, 0, 0, 0]), 63);
        assert_eq!(code_of([64, 0, 0, 0]), 0);
        assert_eq!(code_of([1, 1, 0, 0]), 0);
        assert_eq!(code_of([0; FIELDS]), 0);
        let mut list = PostingList::default();
        list.insert(5, [0, 0, 0, 9]);
        list.insert(9, [2, 0, 1, 0]);
        list.insert(7, [200, 0, 0, 0]);
        assert_eq!(list.exceptions.len(), 2);
        assert_eq!(
            list.to_vec(),
            vec![(5, [0, 0, 0, 9]), (7, [200, 0, 0, 0]), (9, [2, 0, 1, 0])]
        );
        assert_eq!(list.remove_sorted(&[7]), 1);
        assert_eq!(list.get(9), Some([2, 0, 1, 0]));
        assert_eq!(list.exceptions.len(), 1);
    }
}
