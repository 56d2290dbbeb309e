//! The vectors an open reads from a v2 store's segments ([`SegmentVectors`]): in place in the
//! chunks' VECTORS and CODES blocks, or, for an open that frees each part once read (see
//! [`super::owned`]), the codes from the one buffer they were moved into ([`CodePool`]),
//! which the vector index then takes whole.

use std::vec::Vec;

use crate::index::restore::VectorSource;
use crate::index::rows::Rows;
use crate::record::Record;
use crate::segment::{read_f32s, SegmentView};
use memdag_types::Slot;

/// The codes of every chunk, moved out of the chunks into pages of rows ([`Rows`]): chunk
/// `c`'s coded vector `i` is row `first_row[c] + i`. A restore takes the rows as the vector
/// index's codes (see [`crate::index::vecstore::NodeVectors::adopt_codes`]).
pub(super) struct CodePool {
    pub codes: Rows<i8>,
    pub first_row: Vec<u32>,
}

/// Marks a vector index as one of a chunk's CODES (format v6), not its VECTORS.
pub(super) const CODED: u32 = 1 << 31;

/// The vectors of a v2 store: each loaded record's (chunk, vector index) in slot order,
/// `u32::MAX` for none, [`CODED`] set for codes, read straight from the chunks' blocks.
pub(super) struct SegmentVectors<'a> {
    pub views: &'a [SegmentView<'a>],
    pub at: Vec<(u32, u32)>,
    pub count: usize,
    /// The commit's steps, for codes.
    pub steps: Option<crate::index::quant::Quantizer>,
    /// The chunks' codes, when they were moved out of them.
    pub pool: Option<CodePool>,
}

impl SegmentVectors<'_> {
    /// The pool row of coded vector `vx` of chunk `vi`.
    fn pool_row(&self, vi: u32, vx: u32) -> Option<u32> {
        let pool = self.pool.as_ref()?;
        Some(pool.first_row.get(vi as usize)? + (vx & !CODED))
    }
}

impl VectorSource for SegmentVectors<'_> {
    fn count(&self) -> usize {
        self.count
    }

    /// Not inlined, here and in the other per-record steps of opening: V8 runs a function's
    /// first calls unoptimized and optimizes it for later calls, so the work of one record
    /// must be a call of its own to be optimized within one open.
    #[inline(never)]
    fn read(&self, slot: Slot, _: &Record, out: &mut Vec<f32>) -> bool {
        match self.at.get(slot as usize) {
            Some(&(_, u32::MAX)) | None => false,
            Some(&(vi, vx)) if vx & CODED == 0 => {
                read_f32s(self.views[vi as usize].vector_bytes(vx as usize), out);
                true
            }
            Some(_) => match (self.codes(slot), &self.steps) {
                (Some((codes, inv_norm)), Some(q)) if codes.len() == q.dim() => {
                    let at = out.len();
                    q.dequantize(codes, out);
                    let scale = q.inverse_norm(codes) / inv_norm;
                    out[at..].iter_mut().for_each(|x| *x *= scale);
                    true
                }
                _ => false,
            },
        }
    }

    #[inline(never)]
    fn codes(&self, slot: Slot) -> Option<(&[i8], f32)> {
        match self.at.get(slot as usize) {
            Some(&(vi, vx)) if vx != u32::MAX && vx & CODED != 0 => {
                let (codes, inv_norm) = self.views[vi as usize].codes((vx & !CODED) as usize);
                let Some(pool) = &self.pool else {
                    // Empty when moved to a pool the restore has taken.
                    return (!codes.is_empty()).then_some((codes, inv_norm));
                };
                let row = self.pool_row(vi, vx)? as usize;
                Some((pool.codes.get(row)?, inv_norm))
            }
            _ => None,
        }
    }

    fn steps(&self) -> Option<&[f32]> {
        self.steps.as_ref().map(|q| q.steps())
    }

    fn has_pool(&self) -> bool {
        self.pool.is_some()
    }

    fn code_row(&self, slot: Slot) -> Option<u32> {
        match self.at.get(slot as usize) {
            Some(&(vi, vx)) if vx != u32::MAX && vx & CODED != 0 => self.pool_row(vi, vx),
            _ => None,
        }
    }

    fn pool(&mut self, take: bool) -> Option<Rows<i8>> {
        match take {
            true => self.pool.take().map(|p| p.codes),
            false => self.pool.as_ref().map(|p| p.codes.clone()),
        }
    }
}
