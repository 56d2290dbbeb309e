//! The global allocator for memdag's `wasm32-unknown-unknown` builds (the JS package and the
//! wasm benchmark): dlmalloc, as in Rust's std, but growing the wasm memory in steps.
//!
//! std's allocator asks for memory with one `memory.grow` each time its free space runs out,
//! for just what that allocation needs (64 KiB pages). In V8 each grow is a call into the
//! runtime that replaces the memory's `ArrayBuffer` and accounts external memory, which can
//! start a garbage collection: about half a millisecond each, measured from JS. Opening a
//! 100k-record store grows the memory by ~440 MB, several thousand grows, and they were a third
//! of the first open's profile (`dlmalloc::sys::System::alloc` and the garbage collector).
//! A second open in the same process, with the memory already grown, took a third of the time.
//!
//! `SteppedGrowth` grows by at least a sixteenth of the memory it has, between 1 and 16 MiB,
//! so reaching 440 MB takes about 70 grows. If a step cannot be had (a capped memory, as in a
//! 128 MB Worker), it grows by just what is needed, as std does, so nothing that fit before
//! fails now. Pages grown but not yet used cost no resident memory: the host maps them lazily.
//!
//! Measured with `node tests/bench/first-open.mjs --records 100000` (a fresh Node process
//! opening 198 MiB of entries; std's allocator and three policies alternated, 2026-12-05): the
//! first open took 0.50× std's time at a sixteenth up to 16 MiB (988 against 1,994 ms), 0.52×
//! at an eighth up to 16 MiB, 0.61× at an eighth up to 4 MiB. In `run-wasm.mjs`, ingest at 10k
//! went from 2,008 to 3,021 records/s (an eighth, 16 MiB).
//!
//! Use it from a `cdylib` with
//! `#[global_allocator] static ALLOC: memdag_alloc::Allocator = memdag_alloc::Allocator::new();`.
//! `Allocator` and `SteppedGrowth` exist on that target only; elsewhere the crate holds just the
//! growth policy ([`grow_step`], [`grow_for`], tested on every target) and std's allocator stays.
#![no_std]

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod wasm;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use wasm::{Allocator, SteppedGrowth};

/// How many bytes to grow by when `needed` more are wanted and the memory holds `current`:
/// at least a sixteenth of `current`, clamped to [`MIN_STEP`, `MAX_STEP`], and never less than
/// `needed`. Kept apart from the wasm code so that it is tested on every target.
pub fn grow_step(current: usize, needed: usize) -> usize {
    (current / 16).clamp(MIN_STEP, MAX_STEP).max(needed)
}

/// Grows a memory holding `current` bytes for an allocation of `size`, through `grow` (which
/// adds that many bytes, a multiple of `page`, and returns the new region's base, or `None`):
/// by a whole [`grow_step`] if it can be had, else by just the pages `size` needs. Returns the
/// region's base and length.
pub fn grow_for(
    current: usize,
    size: usize,
    page: usize,
    mut grow: impl FnMut(usize) -> Option<usize>,
) -> Option<(usize, usize)> {
    let needed = size.div_ceil(page) * page;
    let step = grow_step(current, needed).div_ceil(page) * page;
    [step, needed]
        .into_iter()
        .find_map(|bytes| grow(bytes).map(|base| (base, bytes)))
}

/// The smallest step: 16 pages.
pub const MIN_STEP: usize = 1 << 20;
/// The largest step beyond what is needed: 16 MiB. A host may count the whole memory against
/// its limit (a Worker's 128 MB counts wasm memory), grown pages used or not, so a step may
/// overshoot what is used by up to a sixteenth (8 MiB at 128 MiB); under a memory maximum a
/// failed step falls back to the exact size anyway.
pub const MAX_STEP: usize = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_a_sixteenth_clamped_and_never_below_the_need() {
        assert_eq!(grow_step(0, 10), MIN_STEP);
        assert_eq!(grow_step(64 << 20, 10), 4 << 20);
        assert_eq!(grow_step(128 << 20, 10), 8 << 20);
        assert_eq!(grow_step(1 << 30, 10), MAX_STEP);
        assert_eq!(grow_step(64 << 20, 100 << 20), 100 << 20);
    }

    /// A fake memory of `current` bytes that cannot grow past `cap`.
    fn capped(current: &mut usize, cap: usize) -> impl FnMut(usize) -> Option<usize> + '_ {
        move |bytes| {
            let base = *current;
            (base + bytes <= cap).then(|| {
                *current += bytes;
                base
            })
        }
    }

    #[test]
    fn a_step_that_does_not_fit_under_a_cap_falls_back_to_what_is_needed() {
        const PAGE: usize = 64 << 10;
        let mut memory = 100 << 20;
        let cap = (100 << 20) + 3 * PAGE;
        // A step would be 6.25 MiB; only three pages are left, and one is needed.
        let got = grow_for(memory, 100, PAGE, capped(&mut memory, cap));
        assert_eq!(got, Some((100 << 20, PAGE)));
        assert_eq!(memory, (100 << 20) + PAGE);
        // Room for a whole step: it is taken, so the next small allocations need no grow.
        let mut memory = 100 << 20;
        let got = grow_for(memory, 100, PAGE, capped(&mut memory, 1 << 30));
        assert_eq!(got, Some((100 << 20, 6400 << 10)));
        // More than is left: nothing.
        let mut memory = 100 << 20;
        assert_eq!(
            grow_for(memory, 4 * PAGE, PAGE, capped(&mut memory, cap)),
            None
        );
        assert_eq!(memory, 100 << 20);
    }

    #[test]
    fn reaching_440_mb_from_2_mb_takes_about_70_grows() {
        let (mut memory, mut grows) = (2usize << 20, 0);
        while memory < 440 << 20 {
            memory += grow_step(memory, 64 << 10);
            grows += 1;
        }
        // 64 KiB at a time, as std grows for small allocations, would be 7,000.
        assert!((60..80).contains(&grows), "{grows} grows");
    }
}
