//! The host clock: the one place the JS face reads the time.
//!
//! The core never reads a clock; every time it needs comes from its caller. This face gives
//! it `Date.now()` wherever a JS caller leaves a time out, so the JS API is on the host clock
//! by default and a caller pins it by passing the time:
//!
//! | method                                   | time defaulted to `Date.now()`         |
//! |------------------------------------------|----------------------------------------|
//! | `addTurn`                                | `createdAt`                            |
//! | `addItem`, `itemCandidates`, `learn`     | `createdAt` of each new item           |
//! | `updateItem`, `deleteItem`, `updateWork` | `at`                                   |
//! | `listItems`, `neighbors`, `path`, `subgraph` | `now` (items past their time to live are expired) |
//! | `search`, `searchFull`                   | `now`, and `filter.now` (to that `now`) |
//! | `recall`, `recallView`                   | `now`                                  |
//! | `purge`                                  | `now`                                  |
//! | `callTool`                               | the context's `now`                    |
//! | `prepare`, `prepareBegin`                | `now` (blobs' age, the summary's date, recall) |
//! | `finish`                                 | the turn's `createdAt`                 |
//! | `retainBlobs`                            | `now`                                  |
//!
//! Search and recall take `now` too, a choice: with it, relative dates in the text ("last
//! week", "上周") are resolved against the host clock, as a user means them, and items past
//! their time to live leave the results, as their time to live promises. A caller whose
//! records carry another clock (a replayed dataset, a test) passes `now`; `time: 'off'` makes
//! search read time words as plain words.
//!
//! Timings (`prepare`'s) are not dates: they come from [`monotonic_ms`], `performance.now()`.
//!
//! Only the `#[wasm_bindgen]` methods call [`now`]: it needs a JS host, so the conversions
//! take the time as an argument and stay testable natively.

/// The host's `Date.now()` in whole milliseconds.
pub fn now() -> i64 {
    js_sys::Date::now() as i64
}

/// The host's `performance.now()` in ms (sub-millisecond, monotonic), for timings; the
/// `Date.now()` clock where a host has no `performance`.
pub fn monotonic_ms() -> f64 {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &"performance".into())
        .ok()
        .filter(|p| p.is_object())
        .and_then(|p| {
            let f = js_sys::Reflect::get(&p, &"now".into()).ok()?;
            let f: &js_sys::Function = wasm_bindgen::JsCast::dyn_ref(&f)?;
            f.call0(&p).ok()?.as_f64()
        })
        .unwrap_or_else(js_sys::Date::now)
}

/// `value`, or the host clock when it is `None`.
pub fn or_now(value: Option<i64>) -> i64 {
    value.unwrap_or_else(now)
}

/// A JS time argument in ms (a finite whole number), or the host clock when it is omitted.
/// Anything else is `INVALID_INPUT`.
pub fn time_arg(name: &str, value: Option<f64>) -> Result<i64, memdag_core::Error> {
    match value {
        None => Ok(now()),
        Some(ms) if ms.is_finite() && ms.fract() == 0.0 && ms.abs() <= 8.64e15 => Ok(ms as i64),
        Some(ms) => Err(memdag_core::Error::invalid(format!(
            "{name} must be a time in whole milliseconds, got {ms}"
        ))),
    }
}
