//! Time: calendar arithmetic and, later, time expressions in queries.
//!
//! The core never reads a clock: every function takes the caller's `now_ms` (ms since the
//! Unix epoch) and a fixed timezone offset `offset_minutes` (minutes east of UTC).
//! - [`civil`]: days from and to proleptic Gregorian dates, weekdays, starts of days, ISO
//!   weeks, months and years in an offset, month arithmetic with clamping.

pub mod civil;
