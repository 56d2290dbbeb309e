//! The score of a long-term memory item in recall: recency, importance, use and relevance.
//!
//! `score = (w_r·recency + w_i·importance + w_a·use + w_v·relevance) / (w_r + w_i + w_a + w_v)`
//! with the weights of recall ([`RecallWeights`]), where
//! - recency is `0.5^(age / half_life)`, the age counted from the item's `lastSeen` (a
//!   corroboration makes an item fresh again), the half-life the recall's;
//! - importance is the item's own 0..1;
//! - use is `n / (n + 4)`, `n` the times recall returned it;
//! - relevance is the normalised match score (0 for an item that no query matched);
//! - and, when the settings give its kind a decay half-life, the whole is multiplied by the
//!   item's [`decay`].

use crate::item::MemoryItem;
use crate::recall::RecallWeights;

/// The `k` of `n / (n + k)`, the saturation of use counts.
const USE_HALF: f32 = 4.0;

/// The four terms of an item's score, each in 0..=1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Terms {
    pub recency: f32,
    pub importance: f32,
    pub uses: f32,
    pub relevance: f32,
}

/// The terms of `item` at `now`, with recency halving every `half_life_ms`.
pub fn terms(item: &MemoryItem, now: i64, half_life_ms: i64, relevance: f32) -> Terms {
    let seen = item.meta.last_seen.max(item.created_at);
    let age = (now - seen).max(0) as f64;
    Terms {
        recency: 0.5f64.powf(age / half_life_ms.max(1) as f64) as f32,
        importance: item.importance.clamp(0.0, 1.0),
        uses: item.uses as f32 / (item.uses as f32 + USE_HALF),
        relevance: relevance.clamp(0.0, 1.0),
    }
}

/// The weighted mean of the terms.
pub fn combine(t: Terms, w: &RecallWeights) -> f32 {
    let sum = w.recency + w.importance + w.access + w.relevance;
    if sum <= 0.0 {
        return 0.0;
    }
    (w.recency * t.recency
        + w.importance * t.importance
        + w.access * t.uses
        + w.relevance * t.relevance)
        / sum
}

/// How much of an item is left after decay, in 0..=1: `0.5^(age / h)`, where `h` is the
/// kind's half-life stretched by importance and use (`h · (1 + importance) · (1 + ln(1 + uses))`),
/// so an important or often used item fades more slowly. 1.0 when there is no half-life.
pub fn decay(item: &MemoryItem, now: i64, half_life_ms: Option<i64>) -> f32 {
    let seen = item.meta.last_seen.max(item.created_at);
    decay_of(item.importance, item.uses, seen, now, half_life_ms)
}

/// [`decay`] from its parts: importance, uses, when the item was last seen.
pub fn decay_of(importance: f32, uses: u32, seen: i64, now: i64, half_life_ms: Option<i64>) -> f32 {
    let Some(h) = half_life_ms.filter(|&h| h > 0) else {
        return 1.0;
    };
    let stretched = h as f64 * (1.0 + f64::from(importance)) * (1.0 + (1.0 + f64::from(uses)).ln());
    let age = (now - seen).max(0) as f64;
    0.5f64.powf(age / stretched) as f32
}
