//! Keys as file names: a reversible escape that is safe on any common file system.
//!
//! Bytes `a-z`, `0-9`, `-` and `_` stand for themselves, and so does `.` except as the
//! first character (so no name is `.`, `..` or hidden). Every other byte of the key's UTF-8,
//! including `/`, `%` and upper-case letters (for case-insensitive file systems), becomes
//! `%XX` with upper-case hex. So `rec/Ab` is stored as `rec%2F%41b`.
//!
//! Names start with a letter, digit, `-`, `_` or `%`; names starting with `.` are free for
//! the adapter's own temporary files. The escape is canonical: [`unescape_name`] accepts only
//! names that [`escape_key`] produces, so foreign files in the directory are ignored.

use std::io;

/// The longest escaped name accepted, in bytes (file systems allow 255).
pub const MAX_NAME_LEN: usize = 240;

fn plain(byte: u8, first: bool) -> bool {
    matches!(byte, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_') || (byte == b'.' && !first)
}

/// The file name of `key`. Fails for an empty key or one whose name would be too long.
pub fn escape_key(key: &str) -> io::Result<String> {
    if key.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty key"));
    }
    let mut name = String::with_capacity(key.len());
    for (i, &b) in key.as_bytes().iter().enumerate() {
        if plain(b, i == 0) {
            name.push(b as char);
        } else {
            name.push('%');
            name.push(char::from(HEX[usize::from(b >> 4)]));
            name.push(char::from(HEX[usize::from(b & 0xf)]));
        }
    }
    if name.len() > MAX_NAME_LEN {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "key {key:?} is too long to store as a file name ({} bytes escaped, at most {MAX_NAME_LEN})",
                name.len()
            ),
        ));
    }
    Ok(name)
}

/// The key stored under file name `name`, or `None` if `name` is not one [`escape_key`] makes.
pub fn unescape_name(name: &str) -> Option<String> {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hi = hex_value(*bytes.get(i + 1)?)?;
            let lo = hex_value(*bytes.get(i + 2)?)?;
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let key = String::from_utf8(out).ok()?;
    // Canonical only: rejects e.g. `%61` for `a` and unescaped characters we would escape.
    (escape_key(&key).ok()? == name).then_some(key)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_separators_dots_and_case() {
        assert_eq!(escape_key("rec/Ab").unwrap(), "rec%2F%41b");
        assert_eq!(escape_key("..").unwrap(), "%2E.");
        assert_eq!(escape_key("a%b c").unwrap(), "a%25b%20c");
        assert_eq!(escape_key("meta").unwrap(), "meta");
    }

    #[test]
    fn round_trips_any_key() {
        for key in [
            "rec/0123abcd",
            "a/b/c",
            ".hidden",
            "记忆/会话",
            "x\0y",
            "%",
            "A.B",
            "-",
        ] {
            let name = escape_key(key).unwrap();
            assert!(!name.starts_with('.') && !name.contains('/') && !name.contains('\0'));
            assert_eq!(unescape_name(&name).as_deref(), Some(key), "{name}");
        }
    }

    #[test]
    fn rejects_foreign_names() {
        for name in [".tmp-1-2", "%61", "UPPER", "a/b", "%4", "%zz", "%FF", ""] {
            assert_eq!(unescape_name(name), None, "{name}");
        }
    }

    #[test]
    fn rejects_empty_and_too_long_keys() {
        assert!(escape_key("").is_err());
        assert!(escape_key(&"a".repeat(MAX_NAME_LEN)).is_ok());
        assert!(escape_key(&"a".repeat(MAX_NAME_LEN + 1)).is_err());
        assert!(escape_key(&"记".repeat(MAX_NAME_LEN / 9 + 1)).is_err());
    }
}
