//! dlmalloc over a wasm memory that grows in steps (see the crate docs).

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::{Cell, UnsafeCell};
use core::ptr;

use dlmalloc::Dlmalloc;

use crate::grow_for;

const PAGE: usize = 64 * 1024;

/// dlmalloc's source of memory: first the free end of the initial memory, which the linker
/// marks, then `memory.grow`, by [`crate::grow_step`].
pub struct SteppedGrowth {
    initial_given: Cell<bool>,
}

extern "C" {
    // Both defined by wasm-ld: where the heap starts and where the initial memory ends.
    static __heap_base: u8;
    static __heap_end: u8;
}

impl SteppedGrowth {
    /// The initial memory past the data and the stack, once (an empty range after that).
    fn initial_heap(&self) -> Option<(*mut u8, usize)> {
        if self.initial_given.replace(true) {
            return None;
        }
        // Only the addresses of the linker's symbols are taken, never their contents.
        let (base, end) = (
            ptr::addr_of!(__heap_base) as usize,
            ptr::addr_of!(__heap_end) as usize,
        );
        (base != 0 && end > base).then(|| (base as *mut u8, end - base))
    }
}

/// Grows the memory by `bytes` (a multiple of the page); the base of the new region, or `None`.
fn grow(bytes: usize) -> Option<usize> {
    let previous = wasm32::memory_grow(0, bytes / PAGE);
    (previous != usize::MAX).then(|| previous * PAGE)
}

// SAFETY: every region returned is memory nothing else uses (the initial memory past the linker's
// heap base, given once, or fresh pages from `memory.grow`), owned by dlmalloc from then on;
// nothing is ever given back (a wasm memory cannot shrink), which the methods below say.
unsafe impl dlmalloc::Allocator for SteppedGrowth {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        if let Some((base, len)) = self.initial_heap().filter(|&(_, len)| len >= size) {
            return (base, len, 0);
        }
        let current = wasm32::memory_size(0) * PAGE;
        match grow_for(current, size, PAGE, grow) {
            // The last page of a 4 GiB memory: keep the region's end from wrapping to 0.
            Some((base, bytes)) if base.wrapping_add(bytes) == 0 => {
                (base as *mut u8, bytes - 16, 0)
            }
            Some((base, bytes)) => (base as *mut u8, bytes, 0),
            None => (ptr::null_mut(), 0, 0),
        }
    }

    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        ptr::null_mut()
    }

    fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
        false
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        PAGE
    }
}

/// The global allocator: one dlmalloc over [`SteppedGrowth`].
pub struct Allocator(UnsafeCell<Dlmalloc<SteppedGrowth>>);

// SAFETY: wasm32-unknown-unknown without the `atomics` feature runs one thread, so the
// allocator is never entered twice at once (std's own wasm allocator relies on the same).
#[cfg(not(target_feature = "atomics"))]
unsafe impl Sync for Allocator {}

impl Allocator {
    /// An allocator that has not grown the memory yet.
    pub const fn new() -> Self {
        Allocator(UnsafeCell::new(Dlmalloc::new_with_allocator(
            SteppedGrowth {
                initial_given: Cell::new(false),
            },
        )))
    }
}

impl Default for Allocator {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: each method forwards to dlmalloc with the layout's size and alignment, as its own
// `GlobalDlmalloc` does; exclusive access holds on one thread (above).
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).malloc(layout.size(), layout.align())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).calloc(layout.size(), layout.align())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        (*self.0.get()).free(ptr, layout.size(), layout.align())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size)
    }
}
