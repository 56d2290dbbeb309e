//! Key ranges for prefixes.
//!
//! IndexedDB orders string keys by UTF-16 code units. The keys starting with `p` are exactly
//! those in `[p, succ(p))`, where `succ(p)` is `p` with its last code unit below `0xFFFF`
//! incremented and everything after it dropped. A prefix of only `0xFFFF` units (or the empty
//! prefix) has no successor: its range is unbounded above.

/// The exclusive upper bound of the keys starting with `prefix`, as UTF-16 code units, or
/// `None` when the range is unbounded above.
pub fn prefix_end(prefix: &str) -> Option<Vec<u16>> {
    let mut units: Vec<u16> = prefix.encode_utf16().collect();
    while let Some(last) = units.pop() {
        if last < 0xFFFF {
            units.push(last + 1);
            return Some(units);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn successors() {
        assert_eq!(prefix_end(""), None);
        assert_eq!(prefix_end("rec/"), Some("rec0".encode_utf16().collect()));
        assert_eq!(prefix_end("a\u{FFFF}"), Some("b".encode_utf16().collect()));
        assert_eq!(prefix_end("\u{FFFF}"), None);
        // A surrogate pair's low unit is incremented like any other unit.
        let end = prefix_end("x\u{1F600}").unwrap();
        let mut expect: Vec<u16> = "x\u{1F600}".encode_utf16().collect();
        *expect.last_mut().unwrap() += 1;
        assert_eq!(end, expect);
    }
}
