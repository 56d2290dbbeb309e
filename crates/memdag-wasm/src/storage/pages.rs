//! `IndexedDbStorage.loadPages`: a prefix listed a page at a time, in one transaction.
//!
//! `loadRange` reads a whole prefix with one `getAll`, so JS holds every value at once: at
//! 100k records that is the whole store (about 200 MB of `f32` vectors) beside the wasm memory
//! the open copies it into. `loadPages` hands the entries to `take` a page of at most `limit`
//! at a time, and `Memory.open` copies each page into wasm memory before the next arrives.
//!
//! **One snapshot.** Every page is read in the same `readonly` transaction, so a flush from
//! another tab (a `readwrite` transaction on the same store) waits until the listing is done
//! and is never seen half-way. Pages are driven from the requests' `success` handlers, never
//! across an `await`: the next page's requests are issued inside the handler of the last one,
//! while the transaction is active, whatever the host's microtask timing (see
//! [`super::events`]). The next page is asked for before `take` runs on this one, so
//! IndexedDB reads it while the page is copied.
//!
//! **Failure.** If `take` throws (the wasm memory is full, a value is not bytes), the
//! transaction is aborted, no later page is handed over, and `loadPages` rejects with what
//! `take` threw, unwrapped. A failed request rejects with `STORAGE`, as every method does.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use web_sys::{Event, IdbKeyRange, IdbObjectStore, IdbRequest, IdbTransaction};

use super::bytes::bytes_or_undefined;
use super::range::{prefix_end, range};
use super::thrown;

/// Entries a page holds unless the caller asks otherwise: with the core's default part of
/// 1 MiB, at most 16 MiB of values in JS at a time.
pub const PAGE_ENTRIES: u32 = 16;

/// The listing's state, shared by the `success` handler that drives it.
struct Pager {
    store: IdbObjectStore,
    tx: IdbTransaction,
    /// The prefix's key range, for the first page (`None`: every key).
    first: Option<IdbKeyRange>,
    /// The first key past the prefix, as a JS string (`None`: no bound).
    end: Option<JsValue>,
    limit: u32,
    take: Function,
    /// The handler, as the JS function each page's `getAll` request calls.
    on_page: Option<Function>,
    /// The requests of the page under way: its keys and its values.
    pending: Option<(IdbRequest, IdbRequest)>,
    /// What `take` threw, or a request that could not be issued.
    failed: Option<JsValue>,
}

impl Pager {
    /// Issues the requests of the page after `after` (the first page for `None`).
    fn request(&mut self, after: Option<&JsValue>) -> Result<(), JsValue> {
        let query: JsValue = match (after, &self.end) {
            (None, _) => self.first.clone().map_or(JsValue::NULL, Into::into),
            (Some(last), Some(end)) => {
                IdbKeyRange::bound_with_lower_open_and_upper_open(last, end, true, true)?.into()
            }
            (Some(last), None) => IdbKeyRange::lower_bound_with_open(last, true)?.into(),
        };
        let keys = self
            .store
            .get_all_keys_with_key_and_limit(&query, self.limit)?;
        let values = self.store.get_all_with_key_and_limit(&query, self.limit)?;
        // Requests of one transaction complete in order: when the values are in, so are the
        // keys.
        values.set_onsuccess(self.on_page.as_ref());
        self.pending = Some((keys, values));
        Ok(())
    }

    /// The page whose values just arrived: asks for the next if this one is full, then hands
    /// this one to `take`.
    fn arrived(&mut self) {
        let Some((keys, values)) = self.pending.take() else {
            return;
        };
        values.set_onsuccess(None);
        let keys: Array = keys.result().unwrap_or_default().unchecked_into();
        let values: Array = values.result().unwrap_or_default().unchecked_into();
        let n = keys.length();
        if n == self.limit {
            if let Err(e) = self.request(Some(&keys.get(n - 1))) {
                self.fail(thrown("loadPages", e));
                return;
            }
        }
        if n == 0 {
            return;
        }
        let page = Array::new_with_length(n);
        for i in 0..n {
            page.set(
                i,
                Array::of2(&keys.get(i), &bytes_or_undefined(values.get(i))).into(),
            );
        }
        if let Err(e) = self.take.call1(&JsValue::UNDEFINED, &page) {
            self.fail(e);
        }
    }

    /// Stops the listing with `error`: no later page is handed over.
    fn fail(&mut self, error: JsValue) {
        if let Some((_, values)) = self.pending.take() {
            values.set_onsuccess(None);
        }
        self.failed.get_or_insert(error);
        let _ = self.tx.abort();
    }
}

/// Lists `prefix` in `tx` (a `readonly` transaction on `store`), handing `take` each page of at
/// most `limit` entries, and waits for the transaction to end.
pub async fn load_pages(
    tx: IdbTransaction,
    store: IdbObjectStore,
    prefix: &str,
    take: Function,
    limit: u32,
) -> Result<(), JsValue> {
    // The empty prefix has no end: every key.
    let end = prefix_end(prefix).map(|e| JsValue::from(js_sys::JsString::from_char_code(&e)));
    let pager = Rc::new(RefCell::new(Pager {
        store,
        tx: tx.clone(),
        first: range(prefix)?,
        end,
        limit,
        take,
        on_page: None,
        pending: None,
        failed: None,
    }));
    let driving = Rc::downgrade(&pager);
    let handler = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
        if let Some(pager) = driving.upgrade() {
            pager.borrow_mut().arrived();
        }
    });
    let outcome = super::events::transaction(&tx, "loadPages");
    let started = {
        let mut p = pager.borrow_mut();
        p.on_page = Some(handler.as_ref().unchecked_ref::<Function>().clone());
        p.request(None)
    };
    if let Err(e) = started {
        let _ = tx.abort();
        let _ = outcome.wait().await;
        return Err(thrown("loadPages", e));
    }
    let ended = outcome.wait().await;
    let mut p = pager.borrow_mut();
    if let Some((_, values)) = p.pending.take() {
        values.set_onsuccess(None);
    }
    p.on_page = None;
    let failed = p.failed.take();
    drop(p);
    drop(handler);
    match failed {
        Some(e) => Err(e),
        None => ended.map(|_| ()),
    }
}
