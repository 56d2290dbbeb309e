//! `Memory.verify` and `Memory.salvage` (and `salvageStored`): what is damaged in stored entries, and a memory of
//! everything intact in them (see memdag-core's `storage::salvage`). The reports are the core's
//! JSON shape (`memdag_core::damage`).

use memdag_core::Store;
use wasm_bindgen::prelude::*;

use crate::entries::entries_from_js;
use crate::error::throw;
use crate::fields::to_plain;
use crate::key::{cipher_of, opened_of};
use crate::memory::Memory;
use crate::stored::StoredEntries;

#[wasm_bindgen]
impl Memory {
    /// What is damaged in stored entries (as `load` takes them), what each damaged value or
    /// block held, and what a salvaging open would hold and lose: `{ intact, keys, records,
    /// items, blobs, documents, warnings, damaged, lostRecords, lostItems, lostBlobs,
    /// lostDocuments, olderVersions, detached }`. Throws `LOCKED` (a sealed store without
    /// its key) or `UNSUPPORTED_VERSION` only when nothing can be read at all. `opened` as in
    /// `load`.
    pub fn verify(entries: JsValue, key: JsValue, opened: JsValue) -> Result<JsValue, JsValue> {
        let cipher = cipher_of(&key)?;
        let opened = opened_of(&opened, &cipher)?;
        let entries = entries_from_js(&entries)?;
        let verified = match (cipher, opened) {
            (Some(c), Some(keys)) => Store::verify_host_sealed(entries, c, keys),
            (cipher, _) => Store::verify(entries, cipher),
        }
        .map_err(throw)?;
        to_plain("verified", &verified).map_err(throw)
    }

    /// A memory of everything intact in entries that `load` refuses as damaged, and what was
    /// lost: `{ memory, damage }`, `damage` as `verify` reports it. The memory's next
    /// `takeChanges()` rewrites the store whole, then deletes the old keys, damaged ones
    /// included. Throws as `verify`; `opened` as in `load`.
    pub fn salvage(entries: JsValue, key: JsValue, opened: JsValue) -> Result<JsValue, JsValue> {
        salvage_entries(entries_from_js(&entries)?, &key, &opened)
    }

    /// `salvage` from entries already copied into wasm memory (see `StoredEntries`), which it
    /// takes: `entries` is empty afterwards. Throws as `salvage`.
    #[wasm_bindgen(js_name = salvageStored)]
    pub fn salvage_stored(
        entries: &mut StoredEntries,
        key: JsValue,
        opened: JsValue,
    ) -> Result<JsValue, JsValue> {
        salvage_entries(entries.take(), &key, &opened)
    }
}

/// `Memory.salvage` of entries in wasm memory.
fn salvage_entries(
    entries: Vec<(String, Vec<u8>)>,
    key: &JsValue,
    opened: &JsValue,
) -> Result<JsValue, JsValue> {
    let cipher = cipher_of(key)?;
    let opened = opened_of(opened, &cipher)?;
    let (store, damage) = match (cipher, opened) {
        (Some(c), Some(keys)) => Store::load_salvaging_host_sealed(entries, c, keys),
        (cipher, _) => Store::load_salvaging(entries, cipher),
    }
    .map_err(throw)?;
    let damage = to_plain("damage", &damage).map_err(throw)?;
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"memory".into(), &Memory::from_store(store).into())?;
    js_sys::Reflect::set(&out, &"damage".into(), &damage)?;
    Ok(out.into())
}
