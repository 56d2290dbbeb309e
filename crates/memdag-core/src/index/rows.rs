//! Rows of `dim` values kept in pages of a fixed number of rows: the store of the int8 codes
//! of the vector index ([`super::vecstore`]).
//!
//! At 384 dimensions the codes of 100k records are 37.5 MiB. Held in one `Vec`, they need one
//! free block of that size, and an open that fills them while the stored values are still in
//! memory needs the values and the codes side by side (in a 128 MiB Worker, that is where an
//! open of 100k records failed). In pages of [`PAGE_BYTES`] at most, no allocation is larger
//! than a page: an open fills the pages as it frees the values it read them from, and each
//! page can take a hole that a freed value left. Pages are allocated fallibly, so a memory
//! cap refuses a page with [`crate::Error::Storage`] (see `crate::room`).
//!
//! A row is found by a shift and a mask: a distance reads one more pointer (the page's, from a
//! table of a few hundred) than it did from one buffer.

use alloc::vec::Vec;

use crate::error::Result;
use crate::room;

/// The most bytes a page holds; a page takes the largest power of two of rows that fits
/// (one row at least, however wide).
pub const PAGE_BYTES: usize = 256 * 1024;

/// Rows of `dim` values each, in pages of `1 << shift` rows.
#[derive(Debug, Clone, Default)]
pub struct Rows<T> {
    dim: usize,
    /// What the rows are, for the error of a page the memory refuses.
    what: &'static str,
    shift: u32,
    /// Every page before the last row's is full; pages after it are allocated but empty
    /// (reserved ahead). A page's capacity is a page at most.
    pages: Vec<Vec<T>>,
    len: usize,
}

impl<T: Copy> Rows<T> {
    /// No rows, of `dim` values each; `what` names them in the error of a page the memory
    /// refuses ("a page of its int8 vectors").
    pub fn new(dim: usize, what: &'static str) -> Self {
        let row_bytes = dim.saturating_mul(core::mem::size_of::<T>()).max(1);
        let fit = (PAGE_BYTES / row_bytes).max(1);
        Rows {
            dim,
            what,
            shift: usize::BITS - 1 - fit.leading_zeros(),
            pages: Vec::new(),
            len: 0,
        }
    }

    /// Values a row holds.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no row is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn page_rows(&self) -> usize {
        1 << self.shift
    }

    fn page_len(&self) -> usize {
        self.page_rows() * self.dim
    }

    /// Row `n`'s page, and where the row starts in it.
    #[inline]
    fn place(&self, n: usize) -> (usize, usize) {
        (n >> self.shift, (n & (self.page_rows() - 1)) * self.dim)
    }

    /// Row `n`, or `None` past the end.
    #[inline]
    pub fn get(&self, n: usize) -> Option<&[T]> {
        if n >= self.len {
            return None;
        }
        let (page, at) = self.place(n);
        self.pages.get(page)?.get(at..at + self.dim)
    }

    /// Row `n`. Panics past the rows held, as indexing a slice does. The distance of every
    /// candidate a walk scores reads a row: one page lookup and one slice, no more checks.
    #[inline]
    pub fn row(&self, n: usize) -> &[T] {
        let (page, at) = self.place(n);
        &self.pages[page][at..at + self.dim]
    }

    /// Page `page`, made (empty) when it is the next one; pages are made in order.
    fn page_mut(&mut self, page: usize) -> Result<&mut Vec<T>> {
        if page == self.pages.len() {
            room::reserve(&mut self.pages, 1, self.what)?;
            self.pages.push(Vec::new());
        }
        Ok(&mut self.pages[page])
    }

    /// The page that row `self.len` goes into, allocated (fallibly) if it is not yet, with
    /// room for `rows` more rows (all within the page). A page grows by doubling up to a
    /// page, so that a small index does not hold a whole page; a full page is exactly one.
    fn room_for(&mut self, rows: usize) -> Result<&mut Vec<T>> {
        let (page_len, dim, what) = (self.page_len(), self.dim, self.what);
        let p = self.page_mut(self.len >> self.shift)?;
        let need = p.len() + rows * dim;
        if p.capacity() < need {
            let grown = (p.capacity() * 2).clamp(need, page_len.max(need));
            room::reserve(p, grown - p.len(), what)?;
        }
        Ok(p)
    }

    /// Allocates the room that `more` rows beyond those held need, failing with
    /// [`crate::Error::Storage`] when the memory refuses a page (the room made stays).
    pub fn try_reserve(&mut self, more: usize) -> Result<()> {
        let end = self.len.saturating_add(more);
        let mut row = self.len;
        while row < end {
            let page = row >> self.shift;
            let page_end = ((page + 1) << self.shift).min(end);
            let need = (page_end - (page << self.shift)) * self.dim;
            let what = self.what;
            let p = self.page_mut(page)?;
            if p.capacity() < need {
                room::reserve(p, need - p.len(), what)?;
            }
            row = page_end;
        }
        Ok(())
    }

    /// Appends a row of `dim` values; aborts when the memory refuses a page, as `Vec` does.
    pub fn push(&mut self, row: &[T]) {
        self.push_with(|page| page.extend_from_slice(row));
    }

    /// Appends the row that `fill` appends to the buffer it is given (exactly `dim` values).
    pub fn push_with(&mut self, fill: impl FnOnce(&mut Vec<T>)) {
        let dim = self.dim;
        let page = self.room_for(1).unwrap_or_else(|_| {
            alloc::alloc::handle_alloc_error(
                core::alloc::Layout::array::<T>(dim).expect("a row's layout"),
            )
        });
        let before = page.len();
        fill(page);
        debug_assert_eq!(page.len() - before, dim);
        self.len += 1;
    }

    /// Appends rows given back to back (`values.len()` a multiple of `dim`), page by page,
    /// failing with [`crate::Error::Storage`] when the memory refuses a page (the rows of
    /// the pages it filled stay).
    pub fn try_extend(&mut self, values: &[T]) -> Result<()> {
        if self.dim == 0 {
            return Ok(());
        }
        let mut rest = values;
        while rest.len() >= self.dim {
            let room_rows = self.page_rows() - (self.len & (self.page_rows() - 1));
            let take = room_rows.min(rest.len() / self.dim);
            let (now, later) = rest.split_at(take * self.dim);
            self.room_for(take)?.extend_from_slice(now);
            self.len += take;
            rest = later;
        }
        Ok(())
    }

    /// Swaps rows `a` and `b` (both held).
    pub fn swap(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        let ((pl, al), (ph, ah)) = (self.place(a.min(b)), self.place(a.max(b)));
        let dim = self.dim;
        if pl == ph {
            let (before, after) = self.pages[pl].split_at_mut(ah);
            before[al..al + dim].swap_with_slice(&mut after[..dim]);
        } else {
            let (before, after) = self.pages.split_at_mut(ph);
            before[pl][al..al + dim].swap_with_slice(&mut after[0][ah..ah + dim]);
        }
    }

    /// Keeps the first `rows` rows, freeing the pages no longer needed (and any reserved
    /// ahead) and the unused end of the last one.
    pub fn truncate_and_shrink(&mut self, rows: usize) {
        let rows = rows.min(self.len);
        let pages = rows.div_ceil(self.page_rows().max(1));
        self.pages.truncate(pages);
        self.pages.shrink_to_fit();
        let (page_rows, dim) = (self.page_rows(), self.dim);
        if let Some(last) = self.pages.last_mut() {
            let in_last = rows - (pages - 1) * page_rows;
            last.truncate(in_last * dim);
            last.shrink_to_fit();
        }
        self.len = rows;
    }

    /// Bytes held, with the pages' unused room.
    pub fn heap_bytes(&self) -> usize {
        self.pages.capacity() * core::mem::size_of::<Vec<T>>()
            + self
                .pages
                .iter()
                .map(|p| p.capacity() * core::mem::size_of::<T>())
                .sum::<usize>()
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.len).map(|n| self.row(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_page_is_the_largest_power_of_two_of_rows_that_fits() {
        assert_eq!(Rows::<i8>::new(384, "").page_rows(), 512);
        assert_eq!(Rows::<i8>::new(256, "").page_rows(), 1024);
        assert_eq!(Rows::<f32>::new(384, "").page_rows(), 128);
        // A row wider than a page still gets a page of its own.
        assert_eq!(Rows::<i8>::new(PAGE_BYTES * 3, "").page_rows(), 1);
        assert_eq!(
            Rows::<i8>::new(0, "").page_rows(),
            PAGE_BYTES.next_power_of_two()
        );
    }

    /// A few rows hold about what they need, not a page.
    #[test]
    fn a_small_index_holds_no_whole_page() {
        let mut rows = Rows::<i8>::new(384, "rows");
        for i in 0..10 {
            rows.push(&[i as i8; 384]);
        }
        assert!(rows.heap_bytes() <= 16 * 384 + 64, "{}", rows.heap_bytes());
        assert_eq!(rows.row(9), &[9i8; 384][..]);
    }

    proptest! {
        /// Rows pushed one by one, extended in runs, swapped and truncated read back as the
        /// same rows in one `Vec` would, across page boundaries.
        #[test]
        fn rows_read_back_as_one_buffer_would(
            dim in 1usize..700,
            runs in proptest::collection::vec(0usize..1500, 1..5),
            swaps in proptest::collection::vec((0usize..5000, 0usize..5000), 0..40),
            keep in 0usize..6000,
            reserved in 0usize..3000,
        ) {
            let mut rows = Rows::<i8>::new(dim, "rows");
            rows.try_reserve(reserved).unwrap();
            let room = rows.heap_bytes();
            let mut flat: Vec<i8> = Vec::new();
            let mut next = 0u32;
            for (i, &run) in runs.iter().enumerate() {
                let values: Vec<i8> = (0..run * dim)
                    .map(|_| { next = next.wrapping_mul(1103515245).wrapping_add(12345); (next >> 16) as i8 })
                    .collect();
                if i % 2 == 0 {
                    rows.try_extend(&values).unwrap();
                } else {
                    for row in values.chunks_exact(dim) {
                        rows.push(row);
                    }
                }
                flat.extend_from_slice(&values);
            }
            let n = flat.len() / dim;
            prop_assert_eq!(rows.len(), n);
            if n <= reserved {
                // Rows within the room reserved take no more.
                prop_assert_eq!(rows.heap_bytes(), room);
            }
            for &(a, b) in &swaps {
                if n == 0 { break; }
                let (a, b) = (a % n, b % n);
                rows.swap(a, b);
                if a != b {
                    let (low, high) = (a.min(b), a.max(b));
                    let (before, after) = flat.split_at_mut(high * dim);
                    before[low * dim..(low + 1) * dim].swap_with_slice(&mut after[..dim]);
                }
            }
            let keep = keep.min(n);
            rows.truncate_and_shrink(keep);
            flat.truncate(keep * dim);
            prop_assert_eq!(rows.len(), keep);
            let read: Vec<i8> = rows.iter().flatten().copied().collect();
            prop_assert_eq!(read, flat);
            prop_assert!(rows.get(keep).is_none());
            // Room is a page at most beyond the rows held.
            prop_assert!(rows.heap_bytes() <= keep * dim + PAGE_BYTES + 64 * rows.pages.len() + 64);
        }
    }
}
