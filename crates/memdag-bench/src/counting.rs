//! A counting global allocator for native measurements of what an open holds: the bytes live
//! and the peak since a mark; and, for a test, allocations above a size refused. A binary that wants it installs it (`#[global_allocator] static
//! A: Counting = Counting;`): the `open_memory` example, and the test of the owned open's peak.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes it hands out.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Allocations larger than this fail (`usize::MAX`: none do).
static LARGEST: AtomicUsize = AtomicUsize::new(usize::MAX);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.size() > LARGEST.load(Relaxed) {
            return std::ptr::null_mut();
        }
        let live = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(live, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > LARGEST.load(Relaxed) {
            return std::ptr::null_mut();
        }
        // Counted as the new block beside the old, as a moving realloc holds both.
        let live = LIVE.fetch_add(new, Relaxed) + new;
        PEAK.fetch_max(live, Relaxed);
        let q = System.realloc(p, l, new);
        LIVE.fetch_sub(l.size(), Relaxed);
        q
    }
}

/// The bytes live now (zero unless [`Counting`] is the global allocator).
pub fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Runs `f` and returns its result with the peak of live bytes during it, above those live
/// before it.
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed).saturating_sub(before))
}

/// Runs `f` with every allocation larger than `bytes` failing, as under a memory cap that
/// leaves no room that large.
pub fn refusing_larger_than<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    LARGEST.store(bytes, Relaxed);
    let out = f();
    LARGEST.store(usize::MAX, Relaxed);
    out
}
