//! Key ranges for prefixes.
//!
//! IndexedDB orders string keys by UTF-16 code units. The keys starting with `p` are exactly
//! those in `[p, succ(p))`, where `succ(p)` is `p` with its last code unit below `0xFFFF`
//! incremented and everything after it dropped. A prefix of only `0xFFFF` units (or the empty
//! prefix) has no successor: its range is unbounded above.

use wasm_bindgen::JsValue;
use web_sys::IdbKeyRange;

use super::thrown;

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

/// The key range of a prefix, or `None` for every key.
pub fn range(prefix: &str) -> Result<Option<IdbKeyRange>, JsValue> {
    if prefix.is_empty() {
        return Ok(None);
    }
    let lower = JsValue::from_str(prefix);
    let r = match prefix_end(prefix) {
        Some(end) => {
            let upper = JsValue::from(js_sys::JsString::from_char_code(&end));
            IdbKeyRange::bound_with_lower_open_and_upper_open(&lower, &upper, false, true)
        }
        None => IdbKeyRange::lower_bound(&lower),
    };
    r.map(Some).map_err(|e| thrown("key range", e))
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
