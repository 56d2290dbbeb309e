//! Merging: which run of segments a change set rewrites as one (size-tiered, see the
//! [module docs](super)), and how the tombstones of a merged run move.

use std::collections::{BTreeMap, BTreeSet};

use super::policy::{FANOUT, MERGE_CAP};
use crate::error::Result;
use crate::segment::{SegmentInfo, SegmentWriter};
use crate::store::Store;

impl Store {
    /// Carries the tombstones of merged segments into the merged one, or drops them when the
    /// merge reaches the oldest segment (nothing older is left for them to hide).
    pub(super) fn move_tombstones(
        &mut self,
        w: &mut SegmentWriter,
        generation: u64,
        run: &BTreeSet<u64>,
        bottom: bool,
    ) -> Result<()> {
        let p = &mut self.persist;
        if bottom {
            p.gone_records.retain(|_, g| !run.contains(g));
            p.gone_blobs.retain(|_, g| !run.contains(g));
            p.gone_state.retain(|_, g| !run.contains(g));
            return Ok(());
        }
        for (seq, g) in p.gone_records.iter_mut().filter(|(_, g)| run.contains(*g)) {
            *g = generation;
            w.gone_record(*seq)?;
        }
        for (id, g) in p.gone_blobs.iter_mut().filter(|(_, g)| run.contains(*g)) {
            *g = generation;
            w.gone_blob(id)?;
        }
        for (name, g) in p.gone_state.iter_mut().filter(|(_, g)| run.contains(*g)) {
            *g = generation;
            w.gone_state(name)?;
        }
        Ok(())
    }

    /// The run of segments to merge in this change set, if any. The `fresh` newest segments
    /// (just written) are never merged in the change set that writes them.
    pub(super) fn plan_merge(
        &self,
        segments: &[SegmentInfo],
        fresh: usize,
    ) -> Option<core::ops::Range<usize>> {
        let older = segments.len().checked_sub(fresh)?;
        if older >= FANOUT {
            let run = older - FANOUT..older;
            let class = segments[run.start].level;
            let bytes: u64 = segments[run.clone()].iter().map(|s| s.bytes).sum();
            if segments[run.clone()].iter().all(|s| s.level == class) && bytes <= MERGE_CAP {
                return Some(run);
            }
        }
        // A segment mostly shadowed by later ones is rewritten alone. Counting live entries
        // scans every record and node, so it is done every 16th generation only.
        if !self.persist.commit.generation.is_multiple_of(16) {
            return None;
        }
        let live = self.live_entries();
        segments[..older]
            .iter()
            .position(|s| {
                s.bytes <= MERGE_CAP
                    && s.entries >= 64
                    && live.get(&s.generation).copied().unwrap_or(0) * 2 < s.entries
            })
            .map(|i| i..i + 1)
    }

    /// Live entries per segment generation.
    fn live_entries(&self) -> BTreeMap<u64, u64> {
        let mut live: BTreeMap<u64, u64> = BTreeMap::new();
        let p = &self.persist;
        for (slot, r) in self.slots.iter().enumerate() {
            if r.is_some() {
                *live
                    .entry(p.record_home.get(slot).copied().unwrap_or(0))
                    .or_default() += 1;
            }
        }
        for node in 0..self.search.vectors.node_capacity() as u32 {
            if self.search.vectors.slot_of_node(node).is_some() {
                *live
                    .entry(p.node_home.get(node as usize).copied().unwrap_or(0))
                    .or_default() += 1;
            }
        }
        for g in p
            .blob_home
            .values()
            .chain(p.gone_records.values())
            .chain(p.gone_blobs.values())
            .chain(p.state_home.values())
            .chain(p.gone_state.values())
        {
            *live.entry(*g).or_default() += 1;
        }
        for &slot in self.access.keys() {
            if self.slot(slot).is_some() {
                *live
                    .entry(p.uses_home.get(slot as usize).copied().unwrap_or(0))
                    .or_default() += 1;
            }
        }
        live
    }
}
