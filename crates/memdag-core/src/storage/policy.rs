//! The merge policy's sizes: how many segments of a size class merge at once, the most one
//! merge rewrites, and the classes themselves (see [`super`]).

/// How many segments of one size class are merged at once.
pub const FANOUT: usize = 8;
/// The most bytes one merge rewrites.
pub const MERGE_CAP: u64 = 16 << 20;
/// Segments smaller than this are in size class 0; each class above is [`FANOUT`] times larger.
const CLASS_BASE: u64 = 64 << 10;

/// The size class of a segment of `bytes` bytes.
pub(super) fn size_class(bytes: u64) -> u8 {
    let mut class = 0;
    let mut bound = CLASS_BASE;
    while bytes >= bound && class < 32 {
        class += 1;
        bound = bound.saturating_mul(FANOUT as u64);
    }
    class
}
