//! Learning: the memory settings, extraction queries and reports, outcomes, and purge.
//!
//! The settings' maps (ttl and half-life per kind, aliases) cross as lists of pairs; a kind or
//! alias given twice keeps its last value, as a JSON object would.

use memdag_core::erase::{PurgeQuery, Purged};
use memdag_core::memory::llm::{Refusal, RefusalCode};
use memdag_core::memory::{
    ConflictStrategy, ExtractQuery, ExtractReport, Learned, MemoryConfig, Outcome,
};

use super::items::{kind, kind_out, memory_item};
use super::query::count;
use crate::bindings::memdag::core::items as wit;

/// A WIT memory config as the core's.
pub fn config(c: wit::MemoryConfig) -> MemoryConfig {
    MemoryConfig {
        dedup_cosine: c.dedup_cosine,
        dedup_overlap: c.dedup_overlap,
        conflict: match c.conflict {
            wit::ConflictStrategy::Newest => ConflictStrategy::Newest,
            wit::ConflictStrategy::Keep => ConflictStrategy::Keep,
            wit::ConflictStrategy::Merge => ConflictStrategy::Merge,
        },
        single_valued: c.single_valued,
        opposites: c.opposites,
        equivalents: c.equivalents,
        ttl_ms: c.ttl_ms.into_iter().map(|(k, ms)| (kind(k), ms)).collect(),
        half_life_ms: c
            .half_life_ms
            .into_iter()
            .map(|(k, ms)| (kind(k), ms))
            .collect(),
        aliases: c.aliases.into_iter().collect(),
        recall_confidence: c.recall_confidence,
        blob_max_age_ms: c.blob_max_age_ms,
    }
}

/// A core memory config as the WIT one.
pub fn config_out(c: MemoryConfig) -> wit::MemoryConfig {
    wit::MemoryConfig {
        dedup_cosine: c.dedup_cosine,
        dedup_overlap: c.dedup_overlap,
        conflict: match c.conflict {
            ConflictStrategy::Newest => wit::ConflictStrategy::Newest,
            ConflictStrategy::Keep => wit::ConflictStrategy::Keep,
            ConflictStrategy::Merge => wit::ConflictStrategy::Merge,
        },
        single_valued: c.single_valued,
        opposites: c.opposites,
        equivalents: c.equivalents,
        ttl_ms: c
            .ttl_ms
            .into_iter()
            .map(|(k, ms)| (kind_out(k), ms))
            .collect(),
        half_life_ms: c
            .half_life_ms
            .into_iter()
            .map(|(k, ms)| (kind_out(k), ms))
            .collect(),
        aliases: c.aliases.into_iter().collect(),
        recall_confidence: c.recall_confidence,
        blob_max_age_ms: c.blob_max_age_ms,
    }
}

/// What adding an item did, as WIT.
pub fn learned(l: Learned) -> wit::Learned {
    wit::Learned {
        outcome: match l.outcome {
            Outcome::Added => wit::Outcome::Added,
            Outcome::Corroborated => wit::Outcome::Corroborated,
            Outcome::Superseded => wit::Outcome::Superseded,
            Outcome::Flagged => wit::Outcome::Flagged,
            Outcome::Merged => wit::Outcome::Merged,
            Outcome::Updated => wit::Outcome::Updated,
        },
        item: memory_item(l.item),
        others: l.others,
        reason: l.reason,
    }
}

/// A WIT extraction query as the core's.
pub fn extract_query(q: wit::ExtractQuery) -> ExtractQuery {
    ExtractQuery {
        ids: q.ids,
        thread: q.thread,
        user: q.user,
        kinds: q.kinds.into_iter().map(kind).collect(),
    }
}

/// A core extraction report as the WIT one.
pub fn extract_report(r: ExtractReport) -> wit::ExtractReport {
    wit::ExtractReport {
        turns: count(r.turns),
        learned: r.learned.into_iter().map(learned).collect(),
        retracted: r.retracted,
        refused: r.refused.into_iter().map(refusal).collect(),
        by_rules: r.by_rules,
        llm: r.llm.map(|c| wit::LlmCost {
            calls: count(c.calls),
            prompt_tokens: count(c.prompt_tokens),
            answer_tokens: count(c.answer_tokens),
        }),
    }
}

/// A refused LLM fact as WIT.
fn refusal(r: Refusal) -> wit::Refusal {
    wit::Refusal {
        batch: count(r.batch),
        fact: r.fact.map(count),
        code: match r.code {
            RefusalCode::NotJson => wit::RefusalCode::NotJson,
            RefusalCode::BadShape => wit::RefusalCode::BadShape,
            RefusalCode::BadFact => wit::RefusalCode::BadFact,
            RefusalCode::UnknownOp => wit::RefusalCode::UnknownOp,
            RefusalCode::UnknownSource => wit::RefusalCode::UnknownSource,
            RefusalCode::UnknownItem => wit::RefusalCode::UnknownItem,
            RefusalCode::EmptyText => wit::RefusalCode::EmptyText,
            RefusalCode::BadConfidence => wit::RefusalCode::BadConfidence,
            RefusalCode::UnknownSpeaker => wit::RefusalCode::UnknownSpeaker,
            RefusalCode::InvalidItem => wit::RefusalCode::InvalidItem,
        },
        message: r.message,
    }
}

/// A WIT purge query as the core's.
pub fn purge_query(q: wit::PurgeQuery) -> PurgeQuery {
    PurgeQuery {
        now: q.now,
        expired: q.expired,
        ended: q.ended,
        blob_max_age_ms: q.blob_max_age_ms,
        unreferenced_blobs: q.unreferenced_blobs,
    }
}

/// What a purge removed, as WIT.
pub fn purged(p: Purged) -> wit::Purged {
    wit::Purged {
        items: p.items,
        blobs: p.blobs,
    }
}
