//! IndexedDB requests and transactions as Rust futures.
//!
//! A [`Settle`] wraps a `Promise` whose `resolve`/`reject` are called by event handlers set on
//! an IndexedDB object. The handlers are Rust closures owned by the `Settle`: after the promise
//! settles, [`Settle::wait`] unsets them on the target and drops them, so nothing leaks and no
//! dropped closure can be called by a later event (an `abort` after an `error`).
//!
//! Transactions are never awaited half-way: every request of a transaction is issued in one
//! go, then the transaction's completion is awaited. So no `await` can let a transaction
//! auto-commit early, whatever the host's microtask timing (real browsers, fake-indexeddb).

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DomException, Event, IdbOpenDbRequest, IdbRequest, IdbTransaction};

use super::storage_error;

type Handler = Closure<dyn FnMut(Event)>;

/// A pending IndexedDB outcome.
pub struct Settle {
    promise: Promise,
    handlers: Vec<Handler>,
    /// Unsets the handlers on their target.
    unset: Box<dyn Fn()>,
}

impl Settle {
    /// Waits for the outcome; the value of a request, `undefined` for a transaction.
    pub async fn wait(self) -> Result<JsValue, JsValue> {
        let result = JsFuture::from(self.promise).await;
        (self.unset)();
        drop(self.handlers);
        result
    }
}

/// Builds a promise and lets `arm` make its handlers from `resolve` and `reject`.
fn settle(arm: impl FnOnce(Function, Function) -> Vec<Handler>, unset: Box<dyn Fn()>) -> Settle {
    let mut arm = Some(arm);
    let mut handlers = Vec::new();
    let promise = Promise::new(&mut |resolve, reject| {
        if let Some(arm) = arm.take() {
            handlers = arm(resolve, reject);
        }
    });
    Settle {
        promise,
        handlers,
        unset,
    }
}

/// The `error` property of an event's target (a request), if any.
fn target_error(event: &Event) -> Option<DomException> {
    let target = event.target()?;
    Reflect::get(&target, &"error".into())
        .ok()
        .and_then(|e| e.dyn_into::<DomException>().ok())
}

/// Resolves with the transaction's completion (`oncomplete`); rejects with a `STORAGE` error on
/// its first `error` (a failed request, e.g. `QuotaExceededError`) or `abort`.
pub fn transaction(tx: &IdbTransaction, what: &'static str) -> Settle {
    let arm_tx = tx.clone();
    let unset_tx = tx.clone();
    settle(
        move |resolve, reject| {
            let done = Handler::new(move |_: Event| {
                let _ = resolve.call0(&JsValue::UNDEFINED);
            });
            let reject_abort = reject.clone();
            let abort_tx = arm_tx.clone();
            let failed = Handler::new(move |event: Event| {
                let error = target_error(&event);
                let _ = reject.call1(&JsValue::UNDEFINED, &storage_error(what, error));
            });
            let aborted = Handler::new(move |_: Event| {
                let error = abort_tx.error();
                let _ = reject_abort.call1(&JsValue::UNDEFINED, &storage_error(what, error));
            });
            arm_tx.set_oncomplete(Some(done.as_ref().unchecked_ref()));
            arm_tx.set_onerror(Some(failed.as_ref().unchecked_ref()));
            arm_tx.set_onabort(Some(aborted.as_ref().unchecked_ref()));
            vec![done, failed, aborted]
        },
        Box::new(move || {
            unset_tx.set_oncomplete(None);
            unset_tx.set_onerror(None);
            unset_tx.set_onabort(None);
        }),
    )
}

/// Resolves with an open request's database; runs `upgrade` (with the old version) from
/// `onupgradeneeded`, aborting the upgrade if it fails; rejects on the request's error.
pub fn open(
    request: &IdbOpenDbRequest,
    upgrade: impl Fn(&IdbOpenDbRequest, u32) -> Result<(), JsValue> + 'static,
) -> Settle {
    let arm_req = request.clone();
    let unset_req = request.clone();
    settle(
        move |resolve, reject| {
            let ok_req = arm_req.clone();
            let done = Handler::new(move |_: Event| {
                let db = ok_req.result().unwrap_or(JsValue::UNDEFINED);
                let _ = resolve.call1(&JsValue::UNDEFINED, &db);
            });
            let err_req = arm_req.clone();
            let failed = Handler::new(move |_: Event| {
                let error = err_req.error().ok().flatten();
                let _ = reject.call1(&JsValue::UNDEFINED, &storage_error("open", error));
            });
            let up_req = arm_req.clone();
            let upgrading = Handler::new(move |event: Event| {
                let old = Reflect::get(&event, &"oldVersion".into())
                    .ok()
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0) as u32;
                if upgrade(&up_req, old).is_err() {
                    // Aborting the versionchange transaction fails the open with AbortError.
                    if let Some(tx) = up_req.transaction() {
                        let _ = tx.abort();
                    }
                }
            });
            arm_req.set_onsuccess(Some(done.as_ref().unchecked_ref()));
            arm_req.set_onerror(Some(failed.as_ref().unchecked_ref()));
            arm_req.set_onupgradeneeded(Some(upgrading.as_ref().unchecked_ref()));
            vec![done, failed, upgrading]
        },
        Box::new(move || {
            unset_req.set_onsuccess(None);
            unset_req.set_onerror(None);
            unset_req.set_onupgradeneeded(None);
        }),
    )
}

/// The result of a request whose transaction has completed.
pub fn result(request: &IdbRequest) -> JsValue {
    request.result().unwrap_or(JsValue::UNDEFINED)
}
