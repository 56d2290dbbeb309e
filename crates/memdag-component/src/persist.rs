//! Loading a store from `kv` and writing change sets through it, under a key prefix.
//!
//! After every mutation the core's change set is written through `kv` in the core's order
//! (segment parts, then the commit `head`, then deletions; see `memdag_core::storage`), so a
//! failure or a trap at any point leaves the store as it was before or after that change set.
//! Errors name the full `kv` key.

use memdag_core::damage::{Damage, Verified};
use memdag_core::keys::{is_core_key, NAMESPACES as CORE_NAMESPACES};
use memdag_core::{Change, Cipher, Error as CoreError, Store};

use crate::bindings::memdag::core::kv;

/// A prefix is empty, or ends with `/` and does not start with a core namespace.
pub fn check_prefix(prefix: &str) -> Result<(), CoreError> {
    if prefix.is_empty() {
        return Ok(());
    }
    if !prefix.ends_with('/') {
        return Err(CoreError::invalid(format!(
            "prefix {prefix:?} must end with '/'"
        )));
    }
    if let Some(ns) = CORE_NAMESPACES.iter().find(|ns| prefix.starts_with(*ns)) {
        return Err(CoreError::invalid(format!(
            "prefix {prefix:?} must not start with {ns:?}, a namespace of memdag's own keys"
        )));
    }
    if prefix.chars().any(char::is_control) {
        return Err(CoreError::invalid(
            "prefix must not contain control characters",
        ));
    }
    Ok(())
}

/// Every entry under `prefix`, keys without it.
fn list(prefix: &str) -> Result<Vec<(String, Vec<u8>)>, CoreError> {
    let entries = kv::list_by_prefix(prefix).map_err(|message| CoreError::Storage {
        message: format!("kv list-by-prefix {prefix:?}: {message}"),
    })?;
    Ok(entries
        .into_iter()
        .filter_map(|(key, value)| {
            // The host promises the prefix; anything else is not ours.
            key.strip_prefix(prefix).map(|k| (k.to_string(), value))
        })
        .collect())
}

/// Loads the store under `prefix` from `kv`, with the built-in embedder on or off, opening
/// sealed values with `cipher` (see `memdag_core::seal`).
pub fn load(
    prefix: &str,
    builtin_embed: bool,
    cipher: Option<&Cipher>,
) -> Result<Store, CoreError> {
    let mut store = decode(prefix, list(prefix)?, cipher)?;
    store.set_auto_embed(builtin_embed);
    Ok(store)
}

/// Opens what is intact in the store under `prefix` (see `Store::load_salvaging`).
pub fn load_salvaging(
    prefix: &str,
    builtin_embed: bool,
    cipher: Option<&Cipher>,
) -> Result<(Store, Damage), CoreError> {
    let (mut store, damage) =
        Store::load_salvaging(list(prefix)?, cipher.cloned()).map_err(|e| prefixed(prefix, e))?;
    store.set_auto_embed(builtin_embed);
    Ok((store, damage))
}

/// What is damaged in the store under `prefix` (see `Store::verify`).
pub fn verify(prefix: &str, cipher: Option<&Cipher>) -> Result<Verified, CoreError> {
    Store::verify(list(prefix)?, cipher.cloned()).map_err(|e| prefixed(prefix, e))
}

/// Decodes entries (keys without the prefix); errors name the full `kv` key.
pub fn decode(
    prefix: &str,
    entries: Vec<(String, Vec<u8>)>,
    cipher: Option<&Cipher>,
) -> Result<Store, CoreError> {
    // The entries are the host's copies, made for this open: sealed values open in place.
    Store::load_owned(entries, cipher.cloned(), None::<Vec<String>>)
        .map_err(|e| prefixed(prefix, e))
}

/// `e` with its key made the full `kv` key.
fn prefixed(prefix: &str, e: CoreError) -> CoreError {
    match e {
        CoreError::CorruptData { key, reason } => CoreError::CorruptData {
            key: format!("{prefix}{key}"),
            reason,
        },
        CoreError::Locked { key, reason } => CoreError::Locked {
            key: format!("{prefix}{key}"),
            reason,
        },
        CoreError::UnsupportedVersion {
            key,
            found,
            supported,
        } => CoreError::UnsupportedVersion {
            key: format!("{prefix}{key}"),
            found,
            supported,
        },
        other => other,
    }
}

/// Writes a change set through `kv`, in order. A failed put stops it with the error: the
/// commit (`head`, the last put) was not written, so the store is as it was. Deletions come
/// after the commit and only remove keys it no longer names: one that fails leaves an orphan,
/// which the next load finds and a later change set deletes, so it is not an error.
pub fn write(prefix: &str, changes: &[Change]) -> Result<(), CoreError> {
    for change in changes {
        let key = format!("{prefix}{}", change.key);
        match &change.value {
            Some(value) => kv::put(&key, value).map_err(|m| CoreError::Storage {
                message: format!("kv put {key:?}: {m}"),
            })?,
            None => {
                let _ = kv::delete(&key);
            }
        }
    }
    Ok(())
}

/// Replaces everything under `prefix` with a snapshot: decodes it first (so a bad snapshot
/// writes nothing), then writes it whole under new generations, commits, and deletes the old
/// store's keys (see `Store::prepare_to_replace`). Returns the decoded store.
pub fn import(
    prefix: &str,
    entries: Vec<(String, Vec<u8>)>,
    builtin_embed: bool,
    cipher: Option<&Cipher>,
) -> Result<Store, CoreError> {
    if let Some((key, _)) = entries.iter().find(|(k, _)| !is_core_key(k)) {
        return Err(CoreError::invalid(format!(
            "snapshot key {key:?} is not a memdag key"
        )));
    }
    let mut store = decode(prefix, entries, cipher)?;
    store.set_auto_embed(builtin_embed);
    let old: Vec<String> = list(prefix)?.into_iter().map(|(k, _)| k).collect();
    store.prepare_to_replace(old.iter().map(String::as_str));
    let changes = store.take_changes()?;
    write(prefix, &changes)?;
    Ok(store)
}
