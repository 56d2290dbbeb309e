//! The `Memory` class: one memdag store, owned by JS.
//!
//! Every method takes `&self` and reaches the store through a `RefCell`. wasm-bindgen lets a
//! JS callback run while a method is on the stack (a getter on an input object, an iterator),
//! so a re-entrant call is possible in principle; it gets the `BUSY` error, never a panic. JS
//! input is converted before the store is borrowed, so callers' code never runs while the
//! store is held.

use core::cell::RefCell;

use js_sys::Array;
use memdag_core::cite::AddOptions;
use memdag_core::{Direction, Error, Limits, Store};
use wasm_bindgen::prelude::*;

use crate::entries::{changes_from_js, changes_to_js, entries_from_js, snapshot_to_js};
use crate::error::throw;
use crate::fields::{parse_object, to_plain};
use crate::key::{cipher_of, opened_of};
use crate::stored::StoredEntries;
use crate::turn::added_to_js;
use crate::turn::{changed_to_js, record_to_js, records_to_js, turn_from_js};

/// The memory of one agent or user: turn records linked into a DAG, kept in memory. Persist it
/// by writing `takeChanges()` to any key-value store and reopen it with `Memory.load`.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct Memory {
    store: RefCell<Store>,
    /// A reindex under way (see [`crate::reindex`]).
    job: RefCell<Option<memdag_core::Reindex>>,
}

impl Memory {
    /// A memory around an opened store.
    pub(crate) fn from_store(store: Store) -> Memory {
        Memory {
            store: RefCell::new(store),
            job: RefCell::default(),
        }
    }
}

#[wasm_bindgen]
impl Memory {
    /// An empty memory.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Rebuilds a memory from stored entries, any iterable of `[key, Uint8Array]` pairs in any
    /// order (`null` values are skipped). Throws `CORRUPT_DATA` or `UNSUPPORTED_VERSION`, with
    /// `key`, naming the first bad entry; nothing is half-loaded.
    ///
    /// `key` (a 32-byte `Uint8Array`) opens an encrypted store, and the memory then seals
    /// everything it writes; empty entries with a key make a new encrypted memory. A missing,
    /// wrong or unexpected key (a plain store) throws `LOCKED` with `key: "head"`.
    ///
    /// `opened` (an array of storage keys) is for a host that seals itself (seal v2, see
    /// `hostKey`): the keys whose values it opened, given plain. Every other value must be
    /// sealed and opens with `key`, so a plain value the host did not name is refused. The
    /// memory's `takeChanges` then returns plain values, for the host to seal (`hostSeals`).
    pub fn load(entries: JsValue, key: JsValue, opened: JsValue) -> Result<Memory, JsValue> {
        Memory::load_entries(entries_from_js(&entries)?, &key, &opened)
    }

    /// `load` from entries already copied into wasm memory (see `StoredEntries`), which it
    /// takes: `entries` is empty afterwards, whether the open succeeds or throws. Throws as
    /// `load`.
    #[wasm_bindgen(js_name = loadStored)]
    pub fn load_stored(
        entries: &mut StoredEntries,
        key: JsValue,
        opened: JsValue,
    ) -> Result<Memory, JsValue> {
        Memory::load_entries(entries.take(), &key, &opened)
    }

    /// Adds one turn and returns its record. The turn is the core's JSON turn shape (see
    /// [`crate::turn`]): `createdAt` in ms or ISO 8601, the host clock when absent; a step's
    /// `ok` true when absent. Its `parents` must already exist; otherwise it throws
    /// `UNKNOWN_PARENT` (with `ids`) and nothing is written.
    ///
    /// `options` (the core's `AddOptions`, see [`crate::cite`]): `{ dropUnknownParents: true }`
    /// adds the turn without the unknown parents instead; with options the record carries
    /// `dropped`, the parents left out.
    #[wasm_bindgen(js_name = addTurn)]
    pub fn add_turn(&self, turn: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let turn = turn_from_js(turn, self.max_field_bytes()?, crate::clock::now).map_err(throw)?;
        if options.is_undefined() || options.is_null() {
            return self.write(|s| {
                let added = s.add_turn(turn).map(|r| r.id.clone());
                changed_to_js(s, added)
            });
        }
        let options: AddOptions = parse_object("add options", options).map_err(throw)?;
        self.write(|s| {
            s.add_turn_with(turn, options)
                .and_then(|added| added_to_js(s, &added))
        })
    }

    /// The record with this id, or `undefined`. With `user`, only a record that user may see
    /// (their own, or tagged `shared`): a hidden one is `undefined` as a missing one is.
    /// Without one, any record (a store-wide read). Throws `INVALID_INPUT` for an empty or
    /// blank user: it never means every user.
    pub fn get(&self, id: &JsValue, user: &JsValue) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        let user = if user.is_undefined() || user.is_null() {
            None
        } else {
            Some(string("user", user)?)
        };
        self.read(|s| {
            s.get_as(user.as_deref(), &id)?
                .map_or(Ok(JsValue::UNDEFINED), |r| record_to_js(s, r))
        })
    }

    /// The `n` newest records of a thread, newest first; with `user`, only those that user
    /// may see. Throws `INVALID_INPUT` for an empty or blank user.
    pub fn recent(
        &self,
        thread: &JsValue,
        n: f64,
        user: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let (thread, n) = (string("thread", thread)?, count("n", Some(n))?);
        self.read(|s| records_to_js(s, &s.recent_as(user.as_deref(), &thread, n)?))
    }

    /// The `n` newest records of a user across all threads, newest first. Throws
    /// `INVALID_INPUT` for an empty or blank user.
    #[wasm_bindgen(js_name = byUser)]
    pub fn by_user(&self, user: &JsValue, n: f64) -> Result<JsValue, JsValue> {
        let (user, n) = (string("user", user)?, count("n", Some(n))?);
        self.read(|s| records_to_js(s, &s.by_user(&user, n)?))
    }

    /// The ancestors of `id`, nearest first: at most `depth` edges away and at most `limit`
    /// records (64 edges and 1,000 records when omitted; `Infinity` for no bound). With a
    /// `user`, only what that user may see (their own records and those tagged `shared`) is
    /// returned or counted, and `id` must be one of them. Throws `NOT_FOUND` for an unknown
    /// (or, with a user, invisible) id, `INVALID_INPUT` for an empty or blank user.
    pub fn ancestors(
        &self,
        id: &JsValue,
        depth: Option<f64>,
        limit: Option<f64>,
        user: Option<String>,
    ) -> Result<JsValue, JsValue> {
        self.walk(id, Direction::Ancestors, depth, limit, user)
    }

    /// The descendants of `id`, nearest first. See `ancestors`.
    pub fn descendants(
        &self,
        id: &JsValue,
        depth: Option<f64>,
        limit: Option<f64>,
        user: Option<String>,
    ) -> Result<JsValue, JsValue> {
        self.walk(id, Direction::Descendants, depth, limit, user)
    }

    /// Erases every record of `user`, the blobs only they referenced and their index
    /// entries, repairing the DAG as `delete` does; the next `takeChanges` rewrites the whole
    /// store, deleting every old key. Returns `{ records, blobs }`, the erased ids. Throws
    /// `INVALID_INPUT` for an empty user.
    #[wasm_bindgen(js_name = forgetUser)]
    pub fn forget_user(&self, user: &JsValue) -> Result<JsValue, JsValue> {
        let user = string("user", user)?;
        self.write(|s| {
            let gone = s.forget_user(&user)?;
            to_plain("forgotten", &gone)
        })
    }

    /// The limits new turns are checked against, e.g. `{ maxFieldBytes: 8388608, ... }`.
    #[wasm_bindgen(getter)]
    pub fn limits(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_plain("limits", s.limits()))
    }

    /// Changes limits for turns added from now on; names left out keep their defaults.
    /// Throws `INVALID_INPUT` for an unknown name or a limit of zero.
    #[wasm_bindgen(js_name = setLimits)]
    pub fn set_limits(&self, limits: JsValue) -> Result<(), JsValue> {
        let limits: Limits = parse_object("limits", limits).map_err(throw)?;
        self.write(|s| s.set_limits(limits))
    }

    /// A test hook: traps (a WebAssembly `unreachable`) while holding the store, as running
    /// out of wasm memory would. Used to test that a trap leaves a memory closed, not BUSY.
    #[wasm_bindgen(js_name = __trapForTests)]
    pub fn trap_for_tests(&self) {
        let _held = self.store.borrow_mut();
        #[cfg(target_arch = "wasm32")]
        core::arch::wasm32::unreachable();
        #[cfg(not(target_arch = "wasm32"))]
        panic!("trap");
    }

    /// Deletes a record and returns it. Its children take over its parents, so ancestry
    /// through it is kept. Throws `NOT_FOUND` for an unknown id.
    pub fn delete(&self, id: &JsValue) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        self.write(|s| s.delete(&id).and_then(|r| record_to_js(s, &r)))
    }

    /// Takes the changes since the last call as `[key, Uint8Array | null]` pairs (`null`:
    /// delete the key). Write them in order; if writing fails, hand them to `requeue`.
    #[wasm_bindgen(js_name = takeChanges)]
    pub fn take_changes(&self) -> Result<Array, JsValue> {
        self.write(|s| s.take_changes().map(changes_to_js))
    }

    /// Marks the keys of a change set dirty again, so the next `takeChanges` repeats them.
    pub fn requeue(&self, changes: JsValue) -> Result<(), JsValue> {
        let changes = changes_from_js(&changes)?;
        self.write(|s| {
            s.requeue(&changes);
            Ok(())
        })
    }

    /// Makes the next `takeChanges` replace the store stored under `keys` (an array of every
    /// stored key): it writes this memory whole under new generations, then its commit, then
    /// deletes the old keys. For import.
    #[wasm_bindgen(js_name = prepareToReplace)]
    pub fn prepare_to_replace(&self, keys: Vec<String>) -> Result<(), JsValue> {
        self.write(|s| {
            s.prepare_to_replace(keys.iter().map(String::as_str));
            Ok(())
        })
    }

    /// Sets the largest value a change set may hold, in bytes (default 1 MiB): 131072 for
    /// Durable Object storage.
    #[wasm_bindgen(js_name = setPartBytes)]
    pub fn set_part_bytes(&self, bytes: f64) -> Result<(), JsValue> {
        let bytes = count("bytes", Some(bytes))?;
        self.write(|s| {
            s.set_part_bytes(bytes);
            Ok(())
        })
    }

    /// The generation of the last change set taken, or of the loaded commit.
    #[wasm_bindgen(getter, js_name = storeGeneration)]
    pub fn store_generation(&self) -> Result<f64, JsValue> {
        self.read(|s| Ok(s.generation() as f64))
    }

    /// The keys to read, besides `head`, to open a store whose `head` value is `head`: for
    /// key-value stores that are cheaper to read key by key than to list. `key` as in `load`.
    #[wasm_bindgen(js_name = keysToRead)]
    pub fn keys_to_read(head: &[u8], key: JsValue) -> Result<Vec<String>, JsValue> {
        let cipher = cipher_of(&key)?;
        Store::keys_to_read_with_cipher(head, cipher.as_ref()).map_err(throw)
    }

    /// The keys a host reading key by key also reads when it opens the store whose `head`
    /// value is `head` (`key` as in `load`): the first parts of the next two generations. When
    /// any of them exists, `head` is older than a stored segment, and the host must list its
    /// keys and load them all instead, so that the newer commit is found and kept.
    #[wasm_bindgen(js_name = keysAhead)]
    pub fn keys_ahead(head: &[u8], key: JsValue) -> Result<Vec<String>, JsValue> {
        let cipher = cipher_of(&key)?;
        Store::keys_ahead_with_cipher(head, cipher.as_ref()).map_err(throw)
    }

    /// What the `load` that made this memory recovered from, as `{ code, key, message }`
    /// objects: `COMMIT_RECOVERED` when `head` was missing, unreadable or older than a whole
    /// segment and the newest commit a segment carries was opened (the next `takeChanges`
    /// writes `head` again). Empty for a memory loaded from its `head`, or new.
    #[wasm_bindgen(getter, js_name = loadWarnings)]
    pub fn load_warnings(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_plain("load warnings", &s.load_warnings()))
    }

    /// Seals this memory with `key` from now on (omitted or `null`: stores it plain) and makes
    /// the next `takeChanges` rewrite the whole store with it, then delete every older key:
    /// encrypts a plain store, changes the key, or decrypts. A crash before that change set's
    /// `head` is written leaves the stored memory as it was, under the old key.
    #[wasm_bindgen(js_name = setKey)]
    pub fn set_key(&self, key: JsValue) -> Result<(), JsValue> {
        let cipher = cipher_of(&key)?;
        self.write(|s| {
            s.set_cipher(cipher);
            Ok(())
        })
    }

    /// Whether this memory's stored values are sealed (it was loaded or set with a key).
    #[wasm_bindgen(getter)]
    pub fn encrypted(&self) -> Result<bool, JsValue> {
        self.read(|s| Ok(s.is_encrypted()))
    }

    /// Whether its host seals what this memory stores (loaded with `opened`): `takeChanges`
    /// returns plain values then. `setKey` hands the sealing back to the core.
    #[wasm_bindgen(getter, js_name = hostSeals)]
    pub fn host_seals(&self) -> Result<bool, JsValue> {
        self.read(|s| Ok(s.host_seals()))
    }

    /// Every stored key and value, as `[key, Uint8Array]` pairs: a full export.
    pub fn snapshot(&self) -> Result<Array, JsValue> {
        self.read(|s| s.snapshot().map(snapshot_to_js))
    }

    /// Whether the memory has changes that `takeChanges` has not taken yet.
    #[wasm_bindgen(getter, js_name = hasChanges)]
    pub fn has_changes(&self) -> Result<bool, JsValue> {
        self.read(|s| Ok(s.has_changes()))
    }

    /// The number of records.
    #[wasm_bindgen(getter)]
    pub fn len(&self) -> Result<usize, JsValue> {
        self.read(|s| Ok(s.len()))
    }

    /// Whether the memory holds no record.
    #[wasm_bindgen(getter, js_name = isEmpty)]
    pub fn is_empty(&self) -> Result<bool, JsValue> {
        self.read(|s| Ok(s.is_empty()))
    }
}

impl Memory {
    /// Runs `f` on the store, or fails with `BUSY` if a call is already using it.
    fn try_read<T>(&self, f: impl FnOnce(&Store) -> Result<T, Error>) -> Result<T, Error> {
        let store = self.store.try_borrow().map_err(|_| Error::Busy)?;
        f(&store)
    }

    /// Runs `f` on the store mutably, or fails with `BUSY` if a call is already using it.
    fn try_write<T>(&self, f: impl FnOnce(&mut Store) -> Result<T, Error>) -> Result<T, Error> {
        let mut store = self.store.try_borrow_mut().map_err(|_| Error::Busy)?;
        f(&mut store)
    }

    fn walk(
        &self,
        id: &JsValue,
        direction: Direction,
        depth: Option<f64>,
        limit: Option<f64>,
        user: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let (id, depth, limit) = walk_args(id, depth, limit)?;
        self.read(|s| {
            s.walk_as(user.as_deref(), &id, direction, depth, limit)
                .and_then(|r| records_to_js(s, &r))
        })
    }

    /// The reindex job slot, or `BUSY` if a call is using it.
    pub(crate) fn job(
        &self,
    ) -> Result<core::cell::RefMut<'_, Option<memdag_core::Reindex>>, JsValue> {
        self.job.try_borrow_mut().map_err(|_| throw(Error::Busy))
    }

    /// The longest string a JS input may hold (`limits.maxFieldBytes`), checked before it is
    /// copied into wasm memory.
    pub(crate) fn max_field_bytes(&self) -> Result<usize, JsValue> {
        self.read(|s| Ok(s.limits().max_field_bytes))
    }

    pub(crate) fn read<T>(&self, f: impl FnOnce(&Store) -> Result<T, Error>) -> Result<T, JsValue> {
        self.try_read(f).map_err(throw)
    }

    pub(crate) fn write<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, Error>,
    ) -> Result<T, JsValue> {
        self.try_write(f).map_err(throw)
    }
}

/// A JS string argument. Anything else is `INVALID_INPUT`. (Arguments are taken as `JsValue`
/// because wasm-bindgen's glue for `&str` does not check the type: a number passed there
/// corrupts the call instead of failing cleanly.)
pub(crate) fn string(name: &str, value: &JsValue) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| throw(Error::invalid(format!("{name} must be a string"))))
}

/// A JS count argument as `usize`: a non-negative whole number, `Infinity` or omitted for
/// unbounded. Anything else is `INVALID_INPUT`.
/// The id, depth and limit of a walk; an omitted depth or limit takes the core's default.
fn walk_args(
    id: &JsValue,
    depth: Option<f64>,
    limit: Option<f64>,
) -> Result<(String, usize, usize), JsValue> {
    use memdag_core::dag::{DEFAULT_WALK_DEPTH, DEFAULT_WALK_LIMIT};
    Ok((
        string("id", id)?,
        depth.map_or(Ok(DEFAULT_WALK_DEPTH), |d| count("depth", Some(d)))?,
        limit.map_or(Ok(DEFAULT_WALK_LIMIT), |l| count("limit", Some(l)))?,
    ))
}

pub(crate) fn count(name: &str, n: Option<f64>) -> Result<usize, JsValue> {
    count_of(name, n).map_err(throw)
}

fn count_of(name: &str, n: Option<f64>) -> Result<usize, Error> {
    match n {
        None => Ok(usize::MAX),
        Some(n) if n == f64::INFINITY => Ok(usize::MAX),
        Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(n as usize),
        Some(n) => Err(Error::invalid(format!(
            "{name} must be a whole number >= 0, got {n}"
        ))),
    }
}

impl Memory {
    /// The memory of stored entries, opened with `key` (and the keys a host opened itself) as
    /// `Memory.load` says.
    fn load_entries(
        entries: Vec<(String, Vec<u8>)>,
        key: &JsValue,
        opened: &JsValue,
    ) -> Result<Memory, JsValue> {
        let cipher = cipher_of(key)?;
        let opened = opened_of(opened, &cipher)?;
        // The entries are copies made for this open: sealed values are opened in place.
        let store = Store::load_owned(entries, cipher, opened).map_err(throw)?;
        Ok(Memory::from_store(store))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reentrant_call_is_busy_not_a_panic() {
        let memory = Memory::new();
        let held = memory.store.borrow_mut();
        assert_eq!(memory.try_read(|s| Ok(s.len())), Err(Error::Busy));
        assert_eq!(memory.try_write(|s| Ok(s.len())), Err(Error::Busy));
        drop(held);
        assert_eq!(memory.try_read(|s| Ok(s.len())), Ok(0));
        let shared = memory.store.borrow();
        assert_eq!(memory.try_write(|s| Ok(s.len())), Err(Error::Busy));
        assert_eq!(memory.try_read(|s| Ok(s.len())), Ok(0));
        drop(shared);
    }

    #[test]
    fn counts_are_whole_and_non_negative() {
        assert_eq!(count_of("n", Some(3.0)), Ok(3));
        assert_eq!(count_of("n", Some(0.0)), Ok(0));
        assert_eq!(count_of("n", None), Ok(usize::MAX));
        assert_eq!(count_of("n", Some(f64::INFINITY)), Ok(usize::MAX));
        for bad in [-1.0, 1.5, f64::NAN, f64::NEG_INFINITY] {
            assert_eq!(
                count_of("n", Some(bad)).map_err(|e| e.code()),
                Err("INVALID_INPUT")
            );
        }
    }
}
