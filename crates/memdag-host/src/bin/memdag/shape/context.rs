//! Messages, `prepare` results, blob pages and the memory settings as the core's types, whose
//! serde is their one JSON shape; and the settings and messages back into the component's.

use memdag_core::blob::BlobPage as CoreBlobPage;
use memdag_core::context::{Message as CoreMessage, Role as CoreRole};
use memdag_core::memory::{ConflictStrategy as CoreConflict, MemoryConfig as CoreConfig};
use memdag_core::pipeline::{self as core, PrepareTimings};
use memdag_host::{
    BlobPage, ConflictStrategy, ItemKind, MemoryConfig, Message, Prepared, Role, SummarizedBy,
};

use super::items::kind;

/// A core message as the component's.
pub fn message_in(m: CoreMessage) -> Message {
    Message {
        role: match m.role {
            CoreRole::System => Role::System,
            CoreRole::User => Role::User,
            CoreRole::Assistant => Role::Assistant,
            CoreRole::Tool => Role::Tool,
        },
        content: m.content,
        tool_call_id: m.tool_call_id,
        tool_calls: m.tool_calls,
    }
}

/// A message of the component's as the core's.
pub fn message(m: &Message) -> CoreMessage {
    CoreMessage {
        role: match m.role {
            Role::System => CoreRole::System,
            Role::User => CoreRole::User,
            Role::Assistant => CoreRole::Assistant,
            Role::Tool => CoreRole::Tool,
        },
        content: m.content.clone(),
        tool_call_id: m.tool_call_id.clone(),
        tool_calls: m.tool_calls.clone(),
    }
}

/// What `prepare` returned, as the core's.
pub fn prepared(p: &Prepared) -> core::Prepared {
    core::Prepared {
        messages: p.messages.iter().map(message).collect(),
        summary: p.summary.clone(),
        summary_version: p.summary_version,
        summarized_by: match p.summarized_by {
            SummarizedBy::None => core::SummarizedBy::None,
            SummarizedBy::Llm => core::SummarizedBy::Llm,
            SummarizedBy::Rules => core::SummarizedBy::Rules,
        },
        compacted: p.compacted as usize,
        recall: p.recall.clone(),
        blob_ids: p.blob_ids.clone(),
        expired_blobs: p.expired_blobs.clone(),
        total_tokens: p.total_tokens as usize,
        kept_tokens: p.kept_tokens as usize,
        summary_tokens: p.summary_tokens as usize,
        recall_tokens: p.recall_tokens as usize,
        fits: p.fits,
        llm_error: p.llm_error.clone(),
        timings: PrepareTimings {
            truncate_ms: p.timings.truncate_ms,
            check_ms: p.timings.check_ms,
            summarize_ms: p.timings.summarize_ms,
            recall_ms: p.timings.recall_ms,
            total_ms: p.timings.total_ms,
        },
    }
}

/// A blob page as the core's.
pub fn blob_page(p: &BlobPage) -> CoreBlobPage {
    CoreBlobPage {
        id: p.id.clone(),
        text: p.text.clone(),
        from_line: p.from_line as usize,
        lines: p.lines as usize,
        total_lines: p.total_lines as usize,
        next_line: p.next_line.map(|n| n as usize),
    }
}

/// The component's memory settings as the core's.
pub fn config(c: &MemoryConfig) -> CoreConfig {
    CoreConfig {
        dedup_cosine: c.dedup_cosine,
        dedup_overlap: c.dedup_overlap,
        conflict: match c.conflict {
            ConflictStrategy::Newest => CoreConflict::Newest,
            ConflictStrategy::Keep => CoreConflict::Keep,
            ConflictStrategy::Merge => CoreConflict::Merge,
        },
        single_valued: c.single_valued.clone(),
        opposites: c.opposites.clone(),
        equivalents: c.equivalents.clone(),
        ttl_ms: c.ttl_ms.iter().map(|&(k, ms)| (kind(k), ms)).collect(),
        half_life_ms: c
            .half_life_ms
            .iter()
            .map(|&(k, ms)| (kind(k), ms))
            .collect(),
        aliases: c.aliases.iter().cloned().collect(),
        recall_confidence: c.recall_confidence,
        blob_max_age_ms: c.blob_max_age_ms,
    }
}

/// The core's memory settings as the component's.
pub fn config_in(c: CoreConfig) -> MemoryConfig {
    let kind_in = |k: memdag_core::item::ItemKind| match k {
        memdag_core::item::ItemKind::Personal => ItemKind::Personal,
        memdag_core::item::ItemKind::Procedural => ItemKind::Procedural,
        memdag_core::item::ItemKind::Tool => ItemKind::Tool,
        memdag_core::item::ItemKind::Fact => ItemKind::Fact,
    };
    MemoryConfig {
        dedup_cosine: c.dedup_cosine,
        dedup_overlap: c.dedup_overlap,
        conflict: match c.conflict {
            CoreConflict::Newest => ConflictStrategy::Newest,
            CoreConflict::Keep => ConflictStrategy::Keep,
            CoreConflict::Merge => ConflictStrategy::Merge,
        },
        single_valued: c.single_valued,
        opposites: c.opposites,
        equivalents: c.equivalents,
        ttl_ms: c
            .ttl_ms
            .into_iter()
            .map(|(k, ms)| (kind_in(k), ms))
            .collect(),
        half_life_ms: c
            .half_life_ms
            .into_iter()
            .map(|(k, ms)| (kind_in(k), ms))
            .collect(),
        aliases: c.aliases.into_iter().collect(),
        recall_confidence: c.recall_confidence,
        blob_max_age_ms: c.blob_max_age_ms,
    }
}
