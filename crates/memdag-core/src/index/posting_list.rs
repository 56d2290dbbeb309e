//! One term's postings, compressed: what most of the text index's memory is.
//!
//! A posting is a doc (the record's [`Slot`]) and the term's frequency in each of the
//! [`FIELDS`] fields. Kept as structs they took 8 bytes each (a `u32` and four `u8`), 222 B a
//! record at 100k; most of those bytes were zeros (a term is mostly in one field, a few times)
//! and the high bytes of slots. Here the usual posting takes two bytes.
//!
//! ## Layout
//!
//! The postings are cut into blocks of [`BLOCK`], in doc order; every block but the last is
//! full. `bytes` holds them one after the other:
//!
//! ```text
//!   block 0:  varint    its first doc (LEB128)
//!   block k:            (its first doc is in skips[k − 1])
//!   each:     u8        W, the width of the block's gaps in bytes: 1 to 4, or 0 while the
//!                       block holds one posting
//!             n times   W bytes: the doc − the previous doc in the block, little-endian
//!                                (0 for the first)
//!                       u8: a code for the frequencies
//!             e times   u32: the frequencies of each posting whose code is 0, in order
//!   code:     the four fields' frequencies, two bits each (field f in bits 2f..2f+2), when
//!             each is 0 to 3 and one is not 0; else 0, and the frequencies are at the end
//! ```
//!
//! A fixed width per block, rather than a varint per gap, and a fixed stride, with the rare
//! large frequencies out of the way at the block's end, keep the decoding loop free of
//! branches on the data and of bounds checks. A per-gap varint took two bytes about as
//! often, and made BM25 2.5 times slower at 100k records (memdag-bench, issue 28's note).
//!
//! `skips` keeps each later block's first doc and the offset of its width byte: finding one
//! doc ([`PostingList::find`], for a hybrid candidate's missing BM25 score) is a binary search
//! and a scan of one block, where the struct list was a binary search. An append goes at the
//! end of the last block's postings (before its large frequencies, if any); one that needs a
//! wider gap re-encodes the block (at most [`BLOCK`] postings); any other edit re-encodes the
//! list from the block it starts in. Slots only grow, so adds almost always append.
//!
//! The lists live in memory only: a store keeps its records' analyses, not postings, so the
//! layout can change without a format version.

use std::boxed::Box;
use std::vec::Vec;

use super::bm25::FIELDS;
use crate::segment::put_varint;
use memdag_types::Slot;

mod extend;

/// Postings a block holds.
pub const BLOCK: usize = 64;

const _: () = assert!(
    FIELDS == 4,
    "a code holds four fields, and frequencies fit a u32"
);

/// The frequencies a code stands for, as `u32::from_le_bytes` of the four bytes.
const TF_OF_CODE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut code = 1;
    while code < 256 {
        let mut f = 0;
        while f < 4 {
            table[code] |= (((code >> (2 * f)) & 3) as u32) << (8 * f);
            f += 1;
        }
        code += 1;
    }
    table
};

/// The code of frequencies `tf` (as `u32::from_le_bytes`), or 0 when they need the four bytes.
#[inline]
fn code_of(tf: u32) -> u8 {
    let small = tf & !0x0303_0303 == 0 && tf != 0;
    let code = (tf & 3) | (tf >> 6 & 0x0c) | (tf >> 12 & 0x30) | (tf >> 18 & 0xc0);
    if small {
        code as u8
    } else {
        0
    }
}

/// Bytes the frequencies `tf` take besides their code.
fn large_bytes(tf: u32) -> usize {
    if code_of(tf) == 0 {
        4
    } else {
        0
    }
}

/// Bytes a gap of `delta` needs.
#[inline]
fn width_of(delta: u32) -> usize {
    1 + usize::from(delta > 0xff) + usize::from(delta > 0xffff) + usize::from(delta > 0xff_ffff)
}

fn varint_len(v: u32) -> usize {
    1 + (32 - (v | 1).leading_zeros() as usize - 1) / 7
}

/// The varint at `at` and its length.
fn read_varint(bytes: &[u8], at: usize) -> (u32, usize) {
    let (mut v, mut n) = (0u32, 0);
    loop {
        let b = bytes[at + n];
        v |= u32::from(b & 0x7f) << (7 * n);
        n += 1;
        if b & 0x80 == 0 {
            return (v, n);
        }
    }
}

/// The width of the widest gap between `postings`, 0 for one posting.
fn gap_width(postings: &[(Slot, u32)]) -> usize {
    postings
        .windows(2)
        .map(|w| width_of(w[1].0 - w[0].0))
        .max()
        .unwrap_or(0)
}

/// Bytes of a block (width byte on) holding `postings`.
fn block_bytes(postings: &[(Slot, u32)]) -> usize {
    let stride = gap_width(postings) + 1;
    1 + postings.len() * stride + postings.iter().map(|p| large_bytes(p.1)).sum::<usize>()
}

/// Appends the low `width` bytes of `gap`, little-endian. Each width is a copy of a constant
/// size, which compiles to stores: a copy of a variable size is `memory.copy` in wasm, a call
/// out of the module's code for 1 to 4 bytes, made for every posting an open fills the text
/// index with.
#[inline(always)]
fn put_gap(out: &mut Vec<u8>, gap: u32, width: usize) {
    let bytes = gap.to_le_bytes();
    match width {
        0 => {}
        1 => out.push(bytes[0]),
        2 => out.extend_from_slice(&bytes[..2]),
        3 => out.extend_from_slice(&bytes[..3]),
        _ => out.extend_from_slice(&bytes),
    }
}

/// Writes a block holding `postings` (at least one), width byte on.
fn put_block(out: &mut Vec<u8>, postings: &[(Slot, u32)]) {
    let width = gap_width(postings);
    out.push(width as u8);
    let mut prev = postings[0].0;
    for &(doc, tf) in postings {
        put_gap(out, doc - prev, width);
        out.push(code_of(tf));
        prev = doc;
    }
    for &(_, tf) in postings {
        if code_of(tf) == 0 {
            out.extend_from_slice(&tf.to_le_bytes());
        }
    }
}

/// The gap in the first `W` bytes of `entry`.
#[inline(always)]
fn gap<const W: usize>(entry: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    word[..W].copy_from_slice(&entry[..W]);
    u32::from_le_bytes(word)
}

/// The frequencies of a posting with `code`, taking the next large ones when it is 0.
#[inline(always)]
fn tf_of(code: u8, large: &mut core::slice::ChunksExact<'_, u8>) -> u32 {
    if code != 0 {
        TF_OF_CODE[code as usize]
    } else {
        large
            .next()
            .map_or(0, |t| u32::from_le_bytes([t[0], t[1], t[2], t[3]]))
    }
}

/// Decodes the postings of a block whose entries (of `W` gap bytes and a code) start at
/// `at` and which ends at `end`, the first at `doc`, into `docs` and `tfs` (as many as `docs`
/// holds).
#[inline(always)]
fn unpack<const W: usize>(
    bytes: &[u8],
    (at, end): (usize, usize),
    mut doc: Slot,
    docs: &mut [Slot],
    tfs: &mut [u32],
) {
    let n = docs.len();
    let entries = &bytes[at..at + n * (W + 1)];
    let large = &bytes[at + n * (W + 1)..end];
    if large.is_empty() {
        // Every code stands for its frequencies (code 0 would stand for none): no branch.
        for ((entry, d), t) in entries.chunks_exact(W + 1).zip(docs).zip(tfs) {
            doc += gap::<W>(entry);
            *d = doc;
            *t = TF_OF_CODE[entry[W] as usize];
        }
    } else {
        let mut large = large.chunks_exact(4);
        for ((entry, d), t) in entries.chunks_exact(W + 1).zip(docs).zip(tfs) {
            doc += gap::<W>(entry);
            *d = doc;
            *t = tf_of(entry[W], &mut large);
        }
    }
}

/// The frequencies of `doc` in the block of `n` postings whose entries start at `at`, the
/// first at `first`: a scan up to it.
#[inline]
fn find_in<const W: usize>(
    bytes: &[u8],
    (first, at, n): (Slot, usize, usize),
    doc: Slot,
) -> Option<u32> {
    let entries = &bytes[at..at + n * (W + 1)];
    let mut large = bytes[at + n * (W + 1)..].chunks_exact(4);
    let mut at_doc = first;
    for entry in entries.chunks_exact(W + 1) {
        at_doc += gap::<W>(entry);
        let tf = tf_of(entry[W], &mut large);
        if at_doc >= doc {
            return (at_doc == doc).then_some(tf);
        }
    }
    None
}

/// Where a later block starts: its first doc, and the offset of its width byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Skip {
    first: Slot,
    at: u32,
}

/// The later blocks' starts, boxed: the list of a rare term (an id, a hash, a path: most of a
/// large vocabulary) has one block and no skips, and pays one pointer for them, not an empty
/// `Vec`'s three words. With the bytes, the count and the last doc, a list takes 40 bytes.
// The box is the point (one word where a `Vec` is three), so clippy's advice against a boxed
// collection does not apply.
#[allow(clippy::box_collection)]
#[derive(Debug, Clone, Default)]
struct Skips(Option<Box<Vec<Skip>>>);

impl core::ops::Deref for Skips {
    type Target = [Skip];

    #[inline]
    fn deref(&self) -> &[Skip] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl Skips {
    fn vec(&mut self) -> &mut Vec<Skip> {
        self.0.get_or_insert_with(Box::default)
    }

    fn push(&mut self, skip: Skip) {
        let skips = self.vec();
        super::reserve_eighth(skips, 1);
        skips.push(skip);
    }

    /// Keeps the first `n`; none frees the box.
    fn truncate(&mut self, n: usize) {
        match &mut self.0 {
            Some(_) if n == 0 => self.0 = None,
            Some(skips) => skips.truncate(n),
            None => {}
        }
    }

    #[cfg(test)]
    fn capacity(&self) -> usize {
        self.0.as_ref().map_or(0, |skips| skips.capacity())
    }

    fn heap_bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |skips| {
            core::mem::size_of::<Vec<Skip>>() + skips.capacity() * core::mem::size_of::<Skip>()
        })
    }
}

/// A term's postings in doc order, compressed (see the module doc). Frequencies go in and
/// out as `u32::from_le_bytes` of the four fields' bytes.
#[derive(Debug, Clone, Default)]
pub struct PostingList {
    bytes: Vec<u8>,
    skips: Skips,
    len: u32,
    /// The doc of the last posting (0 when empty).
    last: Slot,
}

impl PostingList {
    /// Number of postings (the term's document frequency).
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Heap bytes held, with the list itself.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.skips.heap_bytes() + core::mem::size_of::<Self>()
    }

    /// Gives back the room the list does not use.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        if let Some(skips) = self.skips.0.as_mut() {
            skips.shrink_to_fit();
        }
    }

    fn blocks(&self) -> usize {
        if self.len == 0 {
            0
        } else {
            self.skips.len() + 1
        }
    }

    /// Block `k`'s first doc, the offset of its width byte, and its number of postings.
    #[inline]
    fn block_start(&self, k: usize) -> (Slot, usize, usize) {
        let n = (self.len as usize - k * BLOCK).min(BLOCK);
        match k.checked_sub(1) {
            Some(s) => (self.skips[s].first, self.skips[s].at as usize, n),
            None => {
                let (first, at) = read_varint(&self.bytes, 0);
                (first, at, n)
            }
        }
    }

    /// Decodes block `k` into the front of `docs` and `tfs`; returns its number of postings.
    #[inline(always)]
    fn unpack_block(&self, k: usize, docs: &mut [Slot; BLOCK], tfs: &mut [u32; BLOCK]) -> usize {
        let (first, at, n) = self.block_start(k);
        let end = self
            .skips
            .get(k)
            .map_or(self.bytes.len(), |s| s.at as usize);
        let bytes = &self.bytes[..];
        let (docs, tfs) = (&mut docs[..n], &mut tfs[..n]);
        let span = (at + 1, end);
        match bytes[at] {
            0 => unpack::<0>(bytes, span, first, docs, tfs),
            1 => unpack::<1>(bytes, span, first, docs, tfs),
            2 => unpack::<2>(bytes, span, first, docs, tfs),
            3 => unpack::<3>(bytes, span, first, docs, tfs),
            _ => unpack::<4>(bytes, span, first, docs, tfs),
        }
        n
    }

    /// Calls `f(docs, tfs)` with each block's postings decoded, in doc order: a hot caller
    /// loops over arrays, as it did over the structs, apart from the decoding.
    #[inline]
    pub fn for_each_block(&self, mut f: impl FnMut(&[Slot], &[u32])) {
        let mut docs = [0 as Slot; BLOCK];
        let mut tfs = [0u32; BLOCK];
        for k in 0..self.blocks() {
            let n = self.unpack_block(k, &mut docs, &mut tfs);
            f(&docs[..n], &tfs[..n]);
        }
    }

    /// The postings from block `k` on.
    fn postings_from(&self, k: usize) -> Vec<(Slot, u32)> {
        let mut out = Vec::with_capacity(self.len().saturating_sub(k * BLOCK));
        let mut docs = [0 as Slot; BLOCK];
        let mut tfs = [0u32; BLOCK];
        for b in k..self.blocks() {
            let n = self.unpack_block(b, &mut docs, &mut tfs);
            out.extend(docs[..n].iter().copied().zip(tfs[..n].iter().copied()));
        }
        out
    }

    /// Every posting, in doc order.
    #[cfg(test)]
    pub fn postings(&self) -> Vec<(Slot, u32)> {
        self.postings_from(0)
    }

    /// The block `doc` would be in.
    fn block_of(&self, doc: Slot) -> usize {
        self.skips.partition_point(|s| s.first <= doc)
    }

    /// The frequencies of `doc`, if it has a posting: a scan of its block up to it.
    pub fn find(&self, doc: Slot) -> Option<u32> {
        if self.len == 0 || doc > self.last {
            return None;
        }
        let (first, at, n) = self.block_start(self.block_of(doc));
        let bytes = &self.bytes[..];
        let start = (first, at + 1, n);
        match bytes[at] {
            0 => find_in::<0>(bytes, start, doc),
            1 => find_in::<1>(bytes, start, doc),
            2 => find_in::<2>(bytes, start, doc),
            3 => find_in::<3>(bytes, start, doc),
            _ => find_in::<4>(bytes, start, doc),
        }
    }

    /// Appends the posting of `doc`, which must be past the last one.
    fn push(&mut self, doc: Slot, tf: u32) {
        if (self.len as usize).is_multiple_of(BLOCK) {
            self.append_block(&[(doc, tf)]);
            return;
        }
        let k = self.skips.len();
        let (_, width_at, n) = self.block_start(k);
        let width = usize::from(self.bytes[width_at]);
        let delta = doc - self.last;
        if width > 0 && width_of(delta) <= width {
            // After the block's entries, before its large frequencies.
            let end = width_at + 1 + n * (width + 1);
            let code = code_of(tf);
            super::reserve_eighth(&mut self.bytes, width + 1 + large_bytes(tf));
            if end == self.bytes.len() {
                put_gap(&mut self.bytes, delta, width);
                self.bytes.push(code);
            } else {
                let entry = &delta.to_le_bytes()[..width];
                self.bytes
                    .splice(end..end, entry.iter().copied().chain([code]));
            }
            if code == 0 {
                self.bytes.extend_from_slice(&tf.to_le_bytes());
            }
            self.len += 1;
            self.last = doc;
        } else {
            // The block's second posting, or a gap wider than its others: the block
            // again, at its new width.
            self.refill_last_block(&[(doc, tf)]);
        }
    }

    /// Encodes the last block once more with `more` added: postings past the last one, no
    /// more than the block has room for. On the stack, not in a Vec: filling a list
    /// re-encodes each block at least once (at its second posting), and an open fills every
    /// list.
    fn refill_last_block(&mut self, more: &[(Slot, u32)]) {
        let k = self.skips.len();
        let (_, width_at, _) = self.block_start(k);
        let (mut docs, mut tfs) = ([0 as Slot; BLOCK], [0u32; BLOCK]);
        let n = self.unpack_block(k, &mut docs, &mut tfs);
        let mut block = [(0 as Slot, 0u32); BLOCK];
        for (p, (&d, &t)) in block.iter_mut().zip(docs[..n].iter().zip(&tfs[..n])) {
            *p = (d, t);
        }
        block[n..n + more.len()].copy_from_slice(more);
        let block = &block[..n + more.len()];
        self.bytes.truncate(width_at);
        super::reserve_eighth(&mut self.bytes, block_bytes(block));
        put_block(&mut self.bytes, block);
        self.len += more.len() as u32;
        self.last = block[block.len() - 1].0;
    }

    /// Puts the posting `(doc, tf)` in its place: an append when `doc` is the newest (slots
    /// only grow, so nearly always), else an edit of the list from its block; a doc already
    /// there is left as it is.
    pub fn insert(&mut self, doc: Slot, tf: u32) {
        if self.len == 0 || doc > self.last {
            self.push(doc, tf);
        } else {
            self.edit_from(doc, |tail| {
                if let Err(at) = tail.binary_search_by_key(&doc, |p| p.0) {
                    tail.insert(at, (doc, tf));
                }
            });
        }
    }

    /// Removes the postings of `docs` (sorted, distinct); absent docs are ignored.
    pub fn remove_sorted(&mut self, docs: &[Slot]) {
        let Some(&first) = docs.first() else { return };
        if self.len == 0 || first > self.last {
            return;
        }
        self.edit_from(first, |tail| {
            let mut next = 0;
            tail.retain(|p| {
                while docs.get(next).is_some_and(|&d| d < p.0) {
                    next += 1;
                }
                docs.get(next) != Some(&p.0)
            });
        });
    }

    /// Decodes the list from the block `doc` would be in, lets `edit` change those postings
    /// (keeping them sorted and distinct), and encodes them again in place of the old ones.
    fn edit_from(&mut self, doc: Slot, edit: impl FnOnce(&mut Vec<(Slot, u32)>)) {
        let k = self.block_of(doc);
        let mut tail = self.postings_from(k);
        edit(&mut tail);
        // The doc before block k: the list's last if nothing follows it.
        let before = match k.checked_sub(1) {
            Some(prev) if tail.is_empty() => {
                let (mut docs, mut tfs) = ([0 as Slot; BLOCK], [0u32; BLOCK]);
                let n = self.unpack_block(prev, &mut docs, &mut tfs);
                docs[n - 1]
            }
            _ => 0,
        };
        let at = k.checked_sub(1).map_or(0, |s| self.skips[s].at as usize);
        self.bytes.truncate(at);
        self.skips.truncate(k.saturating_sub(1));
        self.len = (k * BLOCK) as u32;
        self.last = before;
        for block in tail.chunks(BLOCK) {
            self.append_block(block);
        }
    }

    /// Appends `block` (1 to [`BLOCK`] postings past the last) as a new block: the list's
    /// length must be a whole number of blocks.
    fn append_block(&mut self, block: &[(Slot, u32)]) {
        let first = block[0].0;
        let head = if self.len == 0 { varint_len(first) } else { 0 };
        super::reserve_eighth(&mut self.bytes, head + block_bytes(block));
        if self.len == 0 {
            put_varint(&mut self.bytes, u64::from(first));
        } else {
            self.skips.push(Skip {
                first,
                at: self.bytes.len() as u32,
            });
        }
        put_block(&mut self.bytes, block);
        self.len += block.len() as u32;
        self.last = block[block.len() - 1].0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    fn tf(fields: [u8; FIELDS]) -> u32 {
        u32::from_le_bytes(fields)
    }

    fn list_of(postings: &[(Slot, u32)]) -> PostingList {
        let mut list = PostingList::default();
        for &(doc, tf) in postings {
            list.insert(doc, tf);
        }
        list
    }

    #[test]
    fn codes_stand_for_small_frequencies_and_only_those() {
        for t in 0..=u8::MAX {
            for f in 0..FIELDS {
                let mut fields = [0u8; FIELDS];
                fields[f] = t;
                fields[(f + 1) % FIELDS] = 1;
                let code = code_of(tf(fields));
                if t <= 3 {
                    assert_eq!(TF_OF_CODE[code as usize], tf(fields), "{fields:?}");
                } else {
                    assert_eq!(code, 0, "{fields:?}");
                }
            }
        }
        assert_eq!(code_of(0), 0, "no frequency at all takes the four bytes");
    }

    #[test]
    fn the_usual_posting_takes_two_bytes() {
        let mut list = PostingList::default();
        list.insert(3, tf([1, 0, 0, 0]));
        assert_eq!(list.bytes.len(), 3, "first doc, width 0, code");
        list.insert(5, tf([0, 0, 3, 0]));
        assert_eq!(
            list.bytes.len(),
            2 + 2 * 2,
            "width 1: a gap and a code each"
        );
        list.insert(200, tf([2, 1, 0, 0]));
        assert_eq!(list.bytes.len(), 2 + 3 * 2);
        list.insert(201, tf([0, 0, 0, 255])); // past two bits: four bytes at the end
        assert_eq!(list.bytes.len(), 2 + 4 * 2 + 4);
        list.insert(202, tf([0, 1, 0, 0])); // goes before them
        assert_eq!(list.bytes.len(), 2 + 5 * 2 + 4);
        list.insert(70_000, tf([1, 0, 0, 0])); // a gap of three bytes widens the block
        assert_eq!(list.bytes.len(), 2 + 6 * 4 + 4);
        assert_eq!(
            list.postings(),
            vec![
                (3, tf([1, 0, 0, 0])),
                (5, tf([0, 0, 3, 0])),
                (200, tf([2, 1, 0, 0])),
                (201, tf([0, 0, 0, 255])),
                (202, tf([0, 1, 0, 0])),
                (70_000, tf([1, 0, 0, 0])),
            ]
        );
    }

    /// A list filled by runs, as an open fills it, keeps no spare room once shrunk: its
    /// postings and skips take what they hold.
    #[test]
    fn a_list_filled_by_runs_and_shrunk_holds_no_spare_room() {
        let postings: Vec<(Slot, u32)> = (0..1000u32)
            .map(|i| (i * i, tf([(i % 3) as u8, (i % 17) as u8, 0, 1])))
            .collect();
        let mut list = PostingList::default();
        for run in postings.chunks(77) {
            list.extend_sorted(run);
        }
        assert!(
            list.bytes.capacity() > list.bytes.len(),
            "grown by half again"
        );
        list.shrink_to_fit();
        assert_eq!(list.postings(), postings);
        assert_eq!(list.bytes.capacity(), list.bytes.len());
        assert_eq!(list.skips.capacity(), list.skips.len());
    }

    /// What a term's list costs before its first posting: a large vocabulary is mostly lists
    /// of one or two postings.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_list_takes_forty_bytes_and_its_one_block_no_skips() {
        assert_eq!(core::mem::size_of::<PostingList>(), 40);
        let mut list = PostingList::default();
        for doc in 0..BLOCK as Slot {
            list.insert(doc * 3, tf([1, 0, 0, 0]));
        }
        assert!(list.skips.0.is_none(), "one block needs no skips");
        list.insert(1000, tf([1, 0, 0, 0]));
        assert_eq!(list.skips.len(), 1);
        list.remove_sorted(&[1000]);
        assert!(
            list.skips.0.is_none(),
            "back to one block, the skips are freed"
        );
        assert_eq!(list.heap_bytes(), list.bytes.capacity() + 40);
    }

    #[test]
    fn the_largest_gaps_and_slots_round_trip() {
        let postings = [
            (0, tf([1, 0, 0, 0])),
            (u32::MAX - 1, tf([0, 0, 0, 9])),
            (u32::MAX, tf([1, 1, 1, 1])),
        ];
        let list = list_of(&postings);
        assert_eq!(list.postings(), postings);
        assert_eq!(list.find(u32::MAX), Some(tf([1, 1, 1, 1])));
        assert_eq!(list.find(7), None);
    }

    #[derive(Debug, Clone)]
    enum Action {
        Insert(Slot, u32),
        Remove(Vec<Slot>),
    }

    fn action() -> impl proptest::strategy::Strategy<Value = Action> {
        use proptest::prelude::*;
        // Mostly appends past the end, as a store makes them; some edits in the middle; gaps
        // of every width.
        let doc = prop_oneof![0u32..400, 0u32..100_000, Just(u32::MAX), any::<u32>()];
        let freq = prop_oneof![4 => 0u8..4, 1 => 4u8..20, 1 => Just(255u8)];
        prop_oneof![
            6 => (doc, proptest::array::uniform4(freq))
                .prop_map(|(d, fields)| Action::Insert(d, tf(fields))),
            1 => proptest::collection::vec(0u32..400, 0..40).prop_map(|mut docs| {
                docs.sort_unstable();
                docs.dedup();
                Action::Remove(docs)
            }),
        ]
    }

    proptest::proptest! {
        /// Any sequence of inserts and removals leaves the list the sorted map of docs to
        /// frequencies it models: by decoding, by `find` of every doc and its neighbours,
        /// and by length; and its bytes are those of the same postings appended in order.
        #[test]
        fn a_list_stays_its_model(actions in proptest::collection::vec(action(), 0..400)) {
            let mut list = PostingList::default();
            let mut model = std::collections::BTreeMap::new();
            for a in actions {
                match a {
                    Action::Insert(doc, tf) => {
                        list.insert(doc, tf);
                        model.entry(doc).or_insert(tf);
                    }
                    Action::Remove(docs) => {
                        list.remove_sorted(&docs);
                        for d in docs {
                            model.remove(&d);
                        }
                    }
                }
            }
            let want: Vec<(Slot, u32)> = model.iter().map(|(&doc, &tf)| (doc, tf)).collect();
            proptest::prop_assert_eq!(&list.postings(), &want);
            proptest::prop_assert_eq!(list.len(), model.len());
            proptest::prop_assert_eq!(list.last, want.last().map_or(0, |p| p.0));
            for &doc in model.keys() {
                for near in [doc.wrapping_sub(1), doc, doc.wrapping_add(1)] {
                    proptest::prop_assert_eq!(list.find(near), model.get(&near).copied());
                }
            }
            let fresh = list_of(&want);
            proptest::prop_assert_eq!(&list.skips[..], &fresh.skips[..]);
            proptest::prop_assert_eq!(&list.bytes, &fresh.bytes);
        }
    }
}
