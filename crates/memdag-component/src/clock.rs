//! The host's clock, read through WASI (`wasi:clocks/wall-clock`): the "now" of every read
//! that filters by time or expiry when the caller names none, as in the JS package and the
//! CLI. The core never reads a clock; the component's conversions fill it in.

/// Milliseconds since the Unix epoch, by the host's wall clock (0 if it reads before 1970).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `now`, or the host's clock when the caller gave none.
pub fn or_now(now: Option<i64>) -> Option<i64> {
    Some(now.unwrap_or_else(now_ms))
}
