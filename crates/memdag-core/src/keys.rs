//! The storage keys of a memdag store: their layout, and the bound on their length.
//!
//! | key                  | value                                                     | format |
//! |----------------------|-----------------------------------------------------------|--------|
//! | `head`               | the commit: the live segments and store counters          | v2     |
//! | `seg/<gen>/<part>`   | part `<part>` of the immutable segment of generation `<gen>` | v2  |
//! | `meta`               | store counters                                            | v1     |
//! | `rec/<id>`           | one record                                                | v1     |
//! | `blob/<id>`          | one text blob                                             | v1     |
//! | `idx/hnsw/<id>`      | one vector-graph node                                     | v1     |
//!
//! `<gen>` is 16 lower-case hex digits and `<part>` a decimal number, so every key a v2 store
//! writes is at most [`MAX_KEY_LEN`] bytes, whatever the ids of its records: an id never appears
//! in a v2 key. v1 keys are only read (to migrate) and deleted.
//!
//! Keys outside these namespaces (a host's own, such as the JS package's `sync/generation`)
//! are never read, written or deleted by the core. This module depends on nothing else in the
//! core.

use alloc::format;
use alloc::string::String;

/// The key of the commit.
pub const HEAD_KEY: &str = "head";
/// The prefix of segment part keys.
pub const SEGMENT_PREFIX: &str = "seg/";
/// The v1 key of the store meta.
pub const V1_META_KEY: &str = "meta";
/// The v1 prefix of record keys.
pub const V1_RECORD_PREFIX: &str = "rec/";
/// The v1 prefix of blob keys.
pub const V1_BLOB_PREFIX: &str = "blob/";
/// The v1 prefix of vector-graph node keys.
pub const V1_HNSW_PREFIX: &str = "idx/hnsw/";
/// The v1 prefix reserved for index keys.
pub const V1_INDEX_PREFIX: &str = "idx/";

/// The largest segment generation. Generations never wrap: a store refuses a segment key above
/// it (not one memdag wrote) and stops writing before reaching it, which at one flush a
/// millisecond takes 285,000 years. It is also the largest integer a JS number holds exactly.
pub const MAX_GENERATION: u64 = (1 << 53) - 1;

/// The longest key a v2 store writes: `seg/` + 16 hex digits + `/` + up to 10 digits.
pub const MAX_KEY_LEN: usize = 4 + 16 + 1 + 10;

/// The key prefixes of the core. A host that keeps several stores in one key space under
/// prefixes of its own must not use a prefix starting with one of these: the store without a
/// prefix would take the other store's keys for its own.
pub const NAMESPACES: [&str; 4] = [
    SEGMENT_PREFIX,
    V1_RECORD_PREFIX,
    V1_BLOB_PREFIX,
    V1_INDEX_PREFIX,
];

/// The key of part `part` of the segment of generation `generation`.
pub fn segment_key(generation: u64, part: u32) -> String {
    format!("{SEGMENT_PREFIX}{generation:016x}/{part}")
}

/// The generation and part of a segment key, or `None` if `key` is not one.
/// Generations above [`MAX_GENERATION`] parse too, so that a caller can refuse them by name.
pub fn parse_segment_key(key: &str) -> Option<(u64, u32)> {
    let rest = key.strip_prefix(SEGMENT_PREFIX)?;
    let (generation, part) = rest.split_once('/')?;
    if generation.len() != 16 || part.is_empty() || part.len() > 10 {
        return None;
    }
    Some((
        u64::from_str_radix(generation, 16).ok()?,
        part.parse().ok()?,
    ))
}

/// Whether `key` belongs to a v1 store.
pub fn is_v1_key(key: &str) -> bool {
    key == V1_META_KEY
        || key.starts_with(V1_RECORD_PREFIX)
        || key.starts_with(V1_BLOB_PREFIX)
        || key.starts_with(V1_INDEX_PREFIX)
}

/// Whether `key` is one of the core's (v1 or v2), as opposed to a host's own key.
pub fn is_core_key(key: &str) -> bool {
    key == HEAD_KEY || key.starts_with(SEGMENT_PREFIX) || is_v1_key(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_keys_round_trip_and_stay_short() {
        let key = segment_key(u64::MAX, u32::MAX);
        assert_eq!(key.len(), MAX_KEY_LEN);
        assert_eq!(parse_segment_key(&key), Some((u64::MAX, u32::MAX)));
        assert_eq!(parse_segment_key("seg/0000000000000001/0"), Some((1, 0)));
        assert_eq!(parse_segment_key("seg/1/0"), None);
        assert_eq!(parse_segment_key("seg/0000000000000001/"), None);
        assert!(is_core_key("head") && is_core_key("rec/x") && !is_core_key("sync/generation"));
    }
}
