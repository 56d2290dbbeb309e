//! `IndexedDbStorage`: the storage adapter of browsers (and workers), on IndexedDB.
//!
//! One database per memory, holding the object store `entries` (see [`super::schema`]).
//! Consistency: every method is one IndexedDB transaction, so each is atomic, and a write
//! resolves only on the transaction's `complete` event. `saveBatch` puts and deletes a whole
//! change set in one `readwrite` transaction with `durability: "strict"`: after it resolves the
//! set is on disk, and if it rejects (a request error such as `QuotaExceededError`, a
//! transaction error, or an abort) none of it was written. Errors are `STORAGE` with `reason`.
//!
//! When another connection asks for a newer schema (`versionchange`), this one closes itself,
//! so the upgrade is not blocked; later calls then fail with `STORAGE`.

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;
use web_sys::{Event, IdbDatabase, IdbFactory, IdbObjectStore, IdbTransaction, IdbTransactionMode};

use super::bytes::{bytes_or_undefined, own_bytes};
use super::events::{self, result};
use super::pages::{load_pages, PAGE_ENTRIES};
use super::range::range;
use super::schema::{upgrade, ENTRIES, SCHEMA_VERSION};
use super::thrown;
use crate::entries::for_each_pair;
use crate::error::throw;
use crate::memory::string;

/// A memdag storage adapter on one IndexedDB database. Open it with
/// `await IndexedDbStorage.open(name)`.
#[wasm_bindgen]
pub struct IndexedDbStorage {
    db: IdbDatabase,
    _on_version_change: Closure<dyn FnMut(Event)>,
}

/// The IndexedDB factory of the global object (a window, a worker, or Node with a polyfill).
fn factory() -> Result<IdbFactory, JsValue> {
    let idb = Reflect::get(&js_sys::global(), &"indexedDB".into())?;
    if idb.is_undefined() || idb.is_null() {
        return Err(thrown(
            "open",
            js_sys::Error::new("indexedDB is not available in this environment").into(),
        ));
    }
    Ok(idb.unchecked_into())
}

#[wasm_bindgen]
impl IndexedDbStorage {
    /// Opens the database `name`, creating it or upgrading its schema as needed.
    pub fn open(name: JsValue) -> Promise {
        future_to_promise(async move {
            let name = string("name", &name)?;
            let request = factory()?
                .open_with_u32(&name, SCHEMA_VERSION)
                .map_err(|e| thrown("open", e))?;
            let opened = events::open(&request, |req, old| {
                let db: IdbDatabase = req.result()?.unchecked_into();
                upgrade(&db, old)
            });
            let db: IdbDatabase = opened.wait().await?.unchecked_into();
            let closing = db.clone();
            let on_version_change = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                closing.close();
            });
            db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
            Ok(IndexedDbStorage {
                db,
                _on_version_change: on_version_change,
            }
            .into())
        })
    }

    /// Deletes the database `name` and everything in it. Resolves once it is gone.
    #[wasm_bindgen(js_name = deleteDatabase)]
    pub fn delete_database(name: JsValue) -> Promise {
        future_to_promise(async move {
            let name = string("name", &name)?;
            let request = factory()?
                .delete_database(&name)
                .map_err(|e| thrown("deleteDatabase", e))?;
            events::open(&request, |_, _| Ok(())).wait().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The schema version this build writes (the database's version).
    #[wasm_bindgen(getter, js_name = schemaVersion)]
    pub fn schema_version() -> u32 {
        SCHEMA_VERSION
    }

    /// Always `true`: `saveBatch` is one transaction.
    #[wasm_bindgen(getter)]
    pub fn atomic(&self) -> bool {
        true
    }

    /// The bytes under `key` as a `Uint8Array`, or `undefined`.
    pub fn load(&self, key: JsValue) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            let key = string("key", &key)?;
            let (tx, store) = begin(&db, IdbTransactionMode::Readonly, "load")?;
            let request = store.get(&key.into()).map_err(|e| thrown("load", e))?;
            events::transaction(&tx, "load").wait().await?;
            Ok(bytes_or_undefined(result(&request)))
        })
    }

    /// Puts one value.
    pub fn save(&self, key: JsValue, bytes: JsValue) -> Promise {
        let pair = Array::of2(&key, &bytes);
        self.save_batch(Array::of1(&pair).into())
    }

    /// Deletes one key. Idempotent.
    pub fn remove(&self, key: JsValue) -> Promise {
        let pair = Array::of2(&key, &JsValue::NULL);
        self.save_batch(Array::of1(&pair).into())
    }

    /// Every `[key, Uint8Array]` whose key starts with `prefix` (all for `""`), sorted by key.
    #[wasm_bindgen(js_name = loadRange)]
    pub fn load_range(&self, prefix: JsValue) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            let prefix = string("prefix", &prefix)?;
            let (tx, store) = begin(&db, IdbTransactionMode::Readonly, "loadRange")?;
            let (keys, values) = match range(&prefix)? {
                Some(r) => (store.get_all_keys_with_key(&r), store.get_all_with_key(&r)),
                None => (store.get_all_keys(), store.get_all()),
            };
            let keys = keys.map_err(|e| thrown("loadRange", e))?;
            let values = values.map_err(|e| thrown("loadRange", e))?;
            events::transaction(&tx, "loadRange").wait().await?;
            let (keys, values): (Array, Array) = (
                result(&keys).unchecked_into(),
                result(&values).unchecked_into(),
            );
            let out = Array::new_with_length(keys.length());
            for i in 0..keys.length() {
                let value = bytes_or_undefined(values.get(i));
                out.set(i, Array::of2(&keys.get(i), &value).into());
            }
            Ok(out.into())
        })
    }

    /// Every `[key, Uint8Array]` whose key starts with `prefix`, sorted by key, handed to
    /// `take(page)` a page of at most `limit` (default 16) at a time, all in one `readonly`
    /// transaction (see [`super::pages`]). `Memory.open` lists through it, copying each page
    /// into wasm memory before the next arrives. Rejects with what `take` threw, if it threw.
    #[wasm_bindgen(js_name = loadPages)]
    pub fn load_pages(&self, prefix: JsValue, take: JsValue, limit: JsValue) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            let prefix = string("prefix", &prefix)?;
            let take: js_sys::Function = take
                .dyn_into()
                .map_err(|_| throw(memdag_core::Error::invalid("take must be a function")))?;
            let limit = match limit.as_f64() {
                None if limit.is_undefined() => PAGE_ENTRIES,
                Some(n) if n >= 1.0 && n <= f64::from(u32::MAX) && n.fract() == 0.0 => n as u32,
                _ => {
                    return Err(throw(memdag_core::Error::invalid(
                        "limit must be a whole number of at least 1",
                    )))
                }
            };
            let (tx, store) = begin(&db, IdbTransactionMode::Readonly, "loadPages")?;
            load_pages(tx, store, &prefix, take, limit).await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Deletes every key starting with `prefix` (all for `""`), in one transaction.
    #[wasm_bindgen(js_name = removeRange)]
    pub fn remove_range(&self, prefix: JsValue) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            let prefix = string("prefix", &prefix)?;
            let (tx, store) = begin(&db, IdbTransactionMode::Readwrite, "removeRange")?;
            match range(&prefix)? {
                Some(r) => store.delete(&r),
                None => store.clear(),
            }
            .map_err(|e| thrown("removeRange", e))?;
            events::transaction(&tx, "removeRange").wait().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Applies a change set, any iterable of `[key, Uint8Array | null]` (`null` deletes), in
    /// order and in one transaction: all of it or, on rejection, none of it.
    #[wasm_bindgen(js_name = saveBatch)]
    pub fn save_batch(&self, changes: JsValue) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            // Read and check the whole input before the transaction starts.
            let mut ops: Vec<(String, Option<Uint8Array>)> = Vec::new();
            for_each_pair(&changes, "changes", |key, value| {
                if value.is_null() || value.is_undefined() {
                    ops.push((key, None));
                    return Ok(());
                }
                match own_bytes(&value) {
                    Some(bytes) => {
                        ops.push((key, Some(bytes)));
                        Ok(())
                    }
                    None => Err(memdag_core::Error::invalid(format!(
                        "changes: value of {key:?} must be a Uint8Array or null"
                    ))),
                }
            })?;
            if ops.is_empty() {
                return Ok(JsValue::UNDEFINED);
            }
            let (tx, store) = begin(&db, IdbTransactionMode::Readwrite, "saveBatch")?;
            let outcome = events::transaction(&tx, "saveBatch");
            for (key, value) in &ops {
                let key = JsValue::from_str(key);
                let issued = match value {
                    Some(bytes) => store.put_with_key(bytes, &key),
                    None => store.delete(&key),
                };
                if let Err(e) = issued {
                    // A request refused outright (e.g. the transaction was already aborted):
                    // abort, and report the transaction's own error when it has one.
                    let _ = tx.abort();
                    return Err(match outcome.wait().await {
                        Err(aborted) => aborted,
                        Ok(_) => thrown("saveBatch", e),
                    });
                }
            }
            outcome.wait().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Closes the connection. Later calls fail with `STORAGE`.
    pub fn close(&self) {
        self.db.close();
    }
}

/// Starts a transaction on `entries`. Writes ask for strict durability (flushed to disk
/// before `complete`); backends without the option ignore it. (web-sys has the options
/// dictionary only behind `web_sys_unstable_apis`, so the three-argument call is made here.)
fn begin(
    db: &IdbDatabase,
    mode: IdbTransactionMode,
    what: &'static str,
) -> Result<(IdbTransaction, IdbObjectStore), JsValue> {
    let tx = if mode == IdbTransactionMode::Readwrite {
        let options = js_sys::Object::new();
        Reflect::set(&options, &"durability".into(), &"strict".into())?;
        Reflect::get(db, &"transaction".into())
            .and_then(|f| f.dyn_into::<js_sys::Function>())
            .and_then(|f| f.call3(db, &ENTRIES.into(), &"readwrite".into(), &options))
            .map(JsValue::unchecked_into::<IdbTransaction>)
    } else {
        db.transaction_with_str_and_mode(ENTRIES, mode)
    }
    .map_err(|e| thrown(what, e))?;
    let store = tx.object_store(ENTRIES).map_err(|e| thrown(what, e))?;
    Ok((tx, store))
}
