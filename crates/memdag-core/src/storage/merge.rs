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
        if let Some(run) = tiered_run(&segments[..older]) {
            return Some(run);
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

/// The newest run of [`FANOUT`] adjacent segments of one size class that together hold at
/// most [`MERGE_CAP`] bytes. Any such run, not only the newest segments: a merge's output lands
/// where its run was, often a class up, and the segments written after it (the flush that
/// triggered the merge is one) would otherwise keep the run below from ever being the newest.
/// Adjacent, because the merged segment takes its run's place in apply order.
fn tiered_run(older: &[SegmentInfo]) -> Option<core::ops::Range<usize>> {
    (FANOUT..=older.len())
        .rev()
        .map(|end| end - FANOUT..end)
        .find(|run| {
            let window = &older[run.clone()];
            window.iter().all(|s| s.level == window[0].level)
                && window.iter().map(|s| s.bytes).sum::<u64>() <= MERGE_CAP
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(generation: u64, level: u8, bytes: u64) -> SegmentInfo {
        SegmentInfo {
            generation,
            level,
            bytes,
            ..SegmentInfo::default()
        }
    }

    #[test]
    fn a_run_below_newer_segments_of_another_class_still_merges() {
        // What the soak found: merged outputs (class 2) behind the flush that merged them.
        let mut older: Vec<SegmentInfo> = (0..3).map(|g| seg(g, 2, 1 << 20)).collect();
        older.extend((3..11).map(|g| seg(g, 2, 1 << 20)));
        older.push(seg(11, 1, 200 << 10));
        assert_eq!(tiered_run(&older), Some(3..11));
        // The newest qualifying run wins.
        older.extend((12..20).map(|g| seg(g, 1, 200 << 10)));
        assert_eq!(tiered_run(&older), Some(12..20));
    }

    #[test]
    fn no_run_of_mixed_classes_or_over_the_cap() {
        let mixed: Vec<SegmentInfo> = (0..2 * FANOUT as u64)
            .map(|g| seg(g, (g % 2) as u8, 1 << 10))
            .collect();
        assert_eq!(tiered_run(&mixed), None);
        let big: Vec<SegmentInfo> = (0..FANOUT as u64)
            .map(|g| seg(g, 3, MERGE_CAP / 4))
            .collect();
        assert_eq!(tiered_run(&big), None);
        assert_eq!(tiered_run(&big[..FANOUT - 1]), None);
    }
}
