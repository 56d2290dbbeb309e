//! Room for an open's largest arrays, reserved so that a memory cap refuses them with an
//! error rather than an abort.
//!
//! An allocation that fails in Rust aborts, and in wasm an abort traps: the instance is dead,
//! and with it every memory the JS face opened in it. A Worker's memory is capped (128 MiB),
//! and an open of a store that does not fit meets the cap at its largest arrays: the record
//! slots, the graph's links and node arrays, the pages of int8 codes. Each is reserved here, and a
//! refusal is [`Error::Storage`] ("out of memory", with what and how large), after which the
//! open frees what it made and the instance goes on. So are the arrays an open fills a record
//! at a time (sized first, where growing one copied it into a larger one beside the old) and
//! the copies of a part's sections. Smaller allocations (a record's strings, a tree's node)
//! still abort when memory runs out between them, but no cap met one in 172 capped opens of
//! the Worker benchmark's stores (6k to 100k records, f32 and int8, caps a MiB apart up to
//! 128: `tests/bench/capped-open.mjs`): each opened or failed with STORAGE. The JS face
//! refuses values it cannot copy in with STORAGE too (`tests/node/capped-open.test.mjs`).

use alloc::format;
use alloc::vec::Vec;

use crate::error::{Error, Result};

/// Reserves room in `v` for exactly `more` further elements, or fails with
/// [`out_of_memory`] naming `what`.
pub(crate) fn reserve<T>(v: &mut Vec<T>, more: usize, what: &str) -> Result<()> {
    v.try_reserve_exact(more)
        .map_err(|_| out_of_memory(what, more.saturating_mul(core::mem::size_of::<T>())))
}

/// `n` copies of `value`, or [`out_of_memory`] naming `what`.
pub(crate) fn filled<T: Clone>(value: T, n: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, n, what)?;
    v.resize(n, value);
    Ok(v)
}

/// A copy of `bytes`, or [`out_of_memory`] naming `what`.
pub(crate) fn copied(bytes: &[u8], what: &str) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    reserve(&mut v, bytes.len(), what)?;
    v.extend_from_slice(bytes);
    Ok(v)
}

/// The error of an allocation of `bytes` for `what` that the memory refused.
pub(crate) fn out_of_memory(what: &str, bytes: usize) -> Error {
    Error::Storage {
        message: format!(
            "out of memory: opening the store needs {what} of {:.1} MiB, which could not be \
             allocated",
            bytes as f64 / 1048576.0
        ),
    }
}
