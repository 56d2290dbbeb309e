//! The agent's store in the Fastly KV store: loading it from the keys under its prefix, and
//! writing a change set in the core's order (segment parts first, the commit key `head`
//! last), so a write cut short leaves the store as it was before or after it.

use fastly::kv_store::KVStoreError;
use fastly::KVStore;
use memdag_core::{Error as CoreError, Store};

/// A storage error of the KV store, as the core's `STORAGE`.
pub fn storage(what: &str, e: KVStoreError) -> CoreError {
    CoreError::Storage {
        message: format!("kv {what}: {e}"),
    }
}

/// Loads the store under `prefix`: `head`, the keys it names and the two keys ahead of it
/// (3 + parts lookups), or every key of the prefix, page by page, when there is no readable
/// `head` (format v1, or a commit the core recovers from its segments) or a key ahead exists
/// (a segment newer than `head`, see `Store::keys_ahead`).
pub fn load(kv: &KVStore, prefix: &str) -> Result<Store, CoreError> {
    let mut entries = Vec::new();
    if let Some(head) = lookup(kv, &format!("{prefix}head"))? {
        let plan = match (Store::keys_to_read(&head), Store::keys_ahead(&head)) {
            (Ok(named), Ok(ahead)) => Some((named, ahead)),
            (Err(CoreError::CorruptData { .. }), _) | (_, Err(CoreError::CorruptData { .. })) => {
                None
            }
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        if let Some((named, ahead)) = plan {
            let mut newer = false;
            for key in &ahead {
                newer |= lookup(kv, &format!("{prefix}{key}"))?.is_some();
            }
            if !newer {
                for key in named {
                    if let Some(value) = lookup(kv, &format!("{prefix}{key}"))? {
                        entries.push((key, value));
                    }
                }
                entries.push(("head".to_string(), head));
                let mut store = Store::load(entries)?;
                store.set_auto_embed(true);
                return Ok(store);
            }
        }
    }
    for page in kv.build_list().prefix(prefix).iter() {
        for key in page.map_err(|e| storage("list", e))?.keys() {
            match kv.lookup(key) {
                Ok(mut found) => {
                    let name = key.strip_prefix(prefix).unwrap_or(key).to_string();
                    entries.push((name, found.take_body_bytes()));
                }
                // Deleted between the list and the lookup.
                Err(KVStoreError::ItemNotFound) => {}
                Err(e) => return Err(storage("lookup", e)),
            }
        }
    }
    let mut store = Store::load(entries)?;
    store.set_auto_embed(true);
    Ok(store)
}

/// The value of `key`, or `None`.
fn lookup(kv: &KVStore, key: &str) -> Result<Option<Vec<u8>>, CoreError> {
    match kv.lookup(key) {
        Ok(mut found) => Ok(Some(found.take_body_bytes())),
        Err(KVStoreError::ItemNotFound) => Ok(None),
        Err(e) => Err(storage("lookup", e)),
    }
}

/// Writes the store's change set in the core's order.
pub fn write(kv: &KVStore, prefix: &str, store: &mut Store) -> Result<(), CoreError> {
    for change in store.take_changes()? {
        let key = format!("{prefix}{}", change.key);
        match change.value {
            Some(bytes) => kv.insert(&key, bytes).map_err(|e| storage("insert", e))?,
            None => match kv.delete(&key) {
                Ok(()) | Err(KVStoreError::ItemNotFound) => {}
                Err(e) => return Err(storage("delete", e)),
            },
        }
    }
    Ok(())
}
