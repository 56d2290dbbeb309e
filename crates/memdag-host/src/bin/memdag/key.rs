//! The encryption key of the store, from `--key-file PATH`, `$MEMDAG_KEY_FILE` or `$MEMDAG_KEY`.
//!
//! A key file holds the 32 key bytes raw, or as 64 hex digits (whitespace around them is
//! ignored), e.g. made with `head -c 32 /dev/urandom > memdag.key`. `$MEMDAG_KEY` holds the
//! 64 hex digits themselves. The first of the three that is set wins; none: a plain store.

use std::path::Path;

/// The variable naming a key file.
pub const KEY_FILE_VAR: &str = "MEMDAG_KEY_FILE";
/// The variable holding the key as hex.
pub const KEY_VAR: &str = "MEMDAG_KEY";

/// The key to open the store with, if any, from the flag or the environment.
pub fn resolve(
    flag: Option<&Path>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<Vec<u8>>, String> {
    if let Some(path) = flag {
        return from_file(path).map(Some);
    }
    if let Some(path) = env(KEY_FILE_VAR).filter(|p| !p.is_empty()) {
        return from_file(Path::new(&path)).map(Some);
    }
    match env(KEY_VAR).filter(|k| !k.is_empty()) {
        Some(hex) => parse_hex(hex.trim())
            .ok_or_else(|| format!("${KEY_VAR} must be 64 hex digits (32 bytes)"))
            .map(Some),
        None => Ok(None),
    }
}

/// A key file: 32 raw bytes, or 64 hex digits.
fn from_file(path: &Path) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the key file {}: {e}", path.display()))?;
    if bytes.len() == 32 {
        return Ok(bytes);
    }
    std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| parse_hex(text.trim()))
        .ok_or_else(|| {
            format!(
                "the key file {} must hold 32 bytes, raw or as 64 hex digits ({} bytes found)",
                path.display(),
                bytes.len()
            )
        })
}

/// 64 hex digits as 32 bytes.
fn parse_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    (0..32)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_from_the_flag_then_the_file_variable_then_the_hex_variable() {
        let dir = std::env::temp_dir().join(format!("memdag-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let raw = dir.join("raw.key");
        std::fs::write(&raw, [3u8; 32]).unwrap();
        let hex = dir.join("hex.key");
        std::fs::write(&hex, format!("{}\n", "0a".repeat(32))).unwrap();
        let none = |_: &str| None;
        assert_eq!(resolve(Some(&raw), none).unwrap(), Some(vec![3; 32]));
        assert_eq!(resolve(Some(&hex), none).unwrap(), Some(vec![10; 32]));
        assert_eq!(resolve(None, none).unwrap(), None);
        let hex_path = hex.display().to_string();
        let file_var = |k: &str| (k == KEY_FILE_VAR).then(|| hex_path.clone());
        assert_eq!(resolve(None, file_var).unwrap(), Some(vec![10; 32]));
        let hex_var = |k: &str| (k == KEY_VAR).then(|| "ff".repeat(32));
        assert_eq!(resolve(None, hex_var).unwrap(), Some(vec![255; 32]));
        assert_eq!(resolve(Some(&raw), hex_var).unwrap(), Some(vec![3; 32]));
        let short = dir.join("short.key");
        std::fs::write(&short, "abcd").unwrap();
        assert!(resolve(Some(&short), none)
            .unwrap_err()
            .contains("32 bytes"));
        assert!(resolve(Some(&dir.join("missing")), none).is_err());
        assert!(resolve(None, |k: &str| (k == KEY_VAR).then(|| "zz".repeat(32))).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
