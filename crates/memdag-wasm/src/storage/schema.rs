//! The IndexedDB schema of a memdag database, and its upgrade path.
//!
//! A memdag database (named by the caller) holds one object store, [`ENTRIES`]: out-of-line
//! string keys (the core's keys, such as `rec/<id>` and `meta`) mapping to `Uint8Array` values
//! (the core's MessagePack envelopes). Nothing else is interpreted.
//!
//! The database version is the schema version. `onupgradeneeded` runs [`upgrade`], which
//! applies every step after the version found on disk, in order, inside the versionchange
//! transaction; a failing step aborts it and the open fails with `STORAGE`, leaving the old
//! schema untouched. A database written by a newer schema cannot be opened by this build
//! (IndexedDB's `VersionError`, surfaced as `STORAGE` with `reason: "VersionError"`).
//!
//! | version | step                                        |
//! |---------|---------------------------------------------|
//! | 1       | create the object store `entries`           |
//!
//! A new step gets the next version and a new arm in [`upgrade`]; existing steps never change.

use wasm_bindgen::JsValue;
use web_sys::IdbDatabase;

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// The object store holding every key and value.
pub const ENTRIES: &str = "entries";

/// Brings a database from schema version `old` (0 for a new one) to [`SCHEMA_VERSION`].
pub fn upgrade(db: &IdbDatabase, old: u32) -> Result<(), JsValue> {
    for version in old + 1..=SCHEMA_VERSION {
        match version {
            1 => {
                if !db.object_store_names().contains(ENTRIES) {
                    db.create_object_store(ENTRIES)?;
                }
            }
            _ => unreachable!("every version up to SCHEMA_VERSION has a step"),
        }
    }
    Ok(())
}
