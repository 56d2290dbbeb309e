//! Loading a store from `kv` and writing change sets through it, under a key prefix.
//!
//! After every mutation the core's change set is written through `kv` in the core's order
//! (puts before deletes, records before `meta`). Errors name the full `kv` key.

use std::collections::BTreeSet;

use memdag_core::codec::{BLOB_PREFIX, META_KEY, RECORD_PREFIX};
use memdag_core::search::persist::HNSW_PREFIX;
use memdag_core::{Change, Error as CoreError, Store};

use crate::bindings::memdag::core::kv;

/// The namespaces of the core's own keys (see `memdag_core::codec`). A prefix starting with
/// one would put a store's keys among those of the unprefixed store in the same `kv`.
const CORE_NAMESPACES: [&str; 3] = [RECORD_PREFIX, BLOB_PREFIX, "idx/"];

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

/// Loads the store under `prefix` from `kv`, with the built-in embedder on or off.
pub fn load(prefix: &str, builtin_embed: bool) -> Result<Store, CoreError> {
    let mut store = decode(prefix, list(prefix)?)?;
    store.set_auto_embed(builtin_embed);
    Ok(store)
}

/// Decodes entries (keys without the prefix); errors name the full `kv` key.
pub fn decode(prefix: &str, entries: Vec<(String, Vec<u8>)>) -> Result<Store, CoreError> {
    Store::load(entries).map_err(|e| match e {
        CoreError::CorruptData { key, reason } => CoreError::CorruptData {
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
    })
}

/// Writes a change set through `kv`, in order, stopping at the first failure.
pub fn write(prefix: &str, changes: &[Change]) -> Result<(), CoreError> {
    for change in changes {
        let key = format!("{prefix}{}", change.key);
        let outcome = match &change.value {
            Some(value) => kv::put(&key, value).map_err(|m| format!("kv put {key:?}: {m}")),
            None => kv::delete(&key).map_err(|m| format!("kv delete {key:?}: {m}")),
        };
        outcome.map_err(|message| CoreError::Storage { message })?;
    }
    Ok(())
}

/// Whether a key (without the prefix) is one of the core's.
fn is_core_key(key: &str) -> bool {
    key == META_KEY
        || [RECORD_PREFIX, BLOB_PREFIX, HNSW_PREFIX]
            .iter()
            .any(|ns| key.starts_with(ns))
}

/// Replaces everything under `prefix` with a snapshot: decodes it first (so a bad snapshot
/// writes nothing), writes its entries with `meta` last, then deletes the keys of the old
/// store that the snapshot lacks. Returns the decoded store.
pub fn import(
    prefix: &str,
    entries: Vec<(String, Vec<u8>)>,
    builtin_embed: bool,
) -> Result<Store, CoreError> {
    if let Some((key, _)) = entries.iter().find(|(k, _)| !is_core_key(k)) {
        return Err(CoreError::invalid(format!(
            "snapshot key {key:?} is not a memdag key"
        )));
    }
    let mut store = decode(prefix, entries.clone())?;
    store.set_auto_embed(builtin_embed);
    let old: Vec<String> = list(prefix)?
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| is_core_key(k))
        .collect();
    let new: BTreeSet<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    let (meta, mut changes): (Vec<_>, Vec<_>) = entries
        .iter()
        .map(|(k, v)| Change {
            key: k.clone(),
            value: Some(v.clone()),
        })
        .partition(|c| c.key == META_KEY);
    changes.extend(meta);
    changes.extend(
        old.into_iter()
            .filter(|k| !new.contains(k.as_str()))
            .map(|key| Change { key, value: None }),
    );
    write(prefix, &changes)?;
    Ok(store)
}
