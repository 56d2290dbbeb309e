//! Items, their history and log, and learning reports as the core's types, whose serde is
//! their one JSON shape.

use memdag_core::item as core;
use memdag_core::memory as learn;
use memdag_host::{
    Action, ExtractReport, HistoryEntry, ItemKind, ItemStatus, Learned, LoggedResolution,
    MemoryItem, Outcome, Refusal, RefusalCode, Resolution,
};

pub fn kind(k: ItemKind) -> core::ItemKind {
    match k {
        ItemKind::Personal => core::ItemKind::Personal,
        ItemKind::Procedural => core::ItemKind::Procedural,
        ItemKind::Tool => core::ItemKind::Tool,
        ItemKind::Fact => core::ItemKind::Fact,
    }
}

pub fn status(s: ItemStatus) -> core::ItemStatus {
    match s {
        ItemStatus::Active => core::ItemStatus::Active,
        ItemStatus::Superseded => core::ItemStatus::Superseded,
        ItemStatus::Deleted => core::ItemStatus::Deleted,
        ItemStatus::Expired => core::ItemStatus::Expired,
    }
}

fn action(a: Action) -> core::Action {
    match a {
        Action::Added => core::Action::Added,
        Action::Corroborated => core::Action::Corroborated,
        Action::Updated => core::Action::Updated,
        Action::Superseded => core::Action::Superseded,
        Action::Flagged => core::Action::Flagged,
        Action::Merged => core::Action::Merged,
        Action::Deleted => core::Action::Deleted,
        Action::Expired => core::Action::Expired,
    }
}

fn resolution(r: &Resolution) -> core::Resolution {
    core::Resolution {
        at: r.at,
        action: action(r.action),
        other: r.other.clone(),
        source: r.source.clone(),
        by: r.by.clone(),
        reason: r.reason.clone(),
    }
}

pub fn item(i: &MemoryItem) -> core::MemoryItem {
    core::MemoryItem {
        id: i.id.clone(),
        user: i.user.clone(),
        text: i.text.clone(),
        importance: i.importance,
        created_at: i.created_at,
        sources: i.sources.clone(),
        tags: i.tags.clone(),
        uses: i.uses,
        meta: core::ItemMeta {
            kind: kind(i.kind),
            subject: i.subject.clone(),
            relation: i.relation.clone(),
            object: i.object.clone(),
            task: i.task.clone(),
            tool: i.tool.clone(),
            status: status(i.status),
            version: i.version,
            updated_at: i.updated_at,
            valid_from: i.valid_from,
            valid_until: i.valid_until,
            corroborations: i.corroborations,
            confidence: i.confidence,
            last_seen: i.last_seen,
            expires_at: i.expires_at,
            superseded_by: i.superseded_by.clone(),
            supersedes: i.supersedes.clone(),
            conflicts: i.conflicts.clone(),
            history: i
                .history
                .iter()
                .map(|v| core::ItemVersion {
                    version: v.version,
                    text: v.text.clone(),
                    importance: v.importance,
                    subject: v.subject.clone(),
                    relation: v.relation.clone(),
                    object: v.object.clone(),
                    valid_from: v.valid_from,
                    valid_until: v.valid_until,
                })
                .collect(),
            log: i.log.iter().map(resolution).collect(),
        },
    }
}

pub fn learned(l: &Learned) -> learn::Learned {
    learn::Learned {
        outcome: match l.outcome {
            Outcome::Added => learn::Outcome::Added,
            Outcome::Corroborated => learn::Outcome::Corroborated,
            Outcome::Superseded => learn::Outcome::Superseded,
            Outcome::Flagged => learn::Outcome::Flagged,
            Outcome::Merged => learn::Outcome::Merged,
            Outcome::Updated => learn::Outcome::Updated,
        },
        item: item(&l.item),
        others: l.others.clone(),
        reason: l.reason.clone(),
    }
}

pub fn report(r: &ExtractReport) -> learn::ExtractReport {
    learn::ExtractReport {
        turns: r.turns as usize,
        learned: r.learned.iter().map(learned).collect(),
        retracted: r.retracted.clone(),
        refused: r.refused.iter().map(refusal).collect(),
        by_rules: r.by_rules.clone(),
        llm: r.llm.map(|c| learn::llm::LlmCost {
            calls: c.calls as usize,
            prompt_tokens: c.prompt_tokens as usize,
            answer_tokens: c.answer_tokens as usize,
        }),
    }
}

fn refusal(r: &Refusal) -> learn::llm::Refusal {
    use learn::llm::RefusalCode as Core;
    learn::llm::Refusal {
        batch: r.batch as usize,
        fact: r.fact.map(|f| f as usize),
        code: match r.code {
            RefusalCode::NotJson => Core::NotJson,
            RefusalCode::BadShape => Core::BadShape,
            RefusalCode::BadFact => Core::BadFact,
            RefusalCode::UnknownOp => Core::UnknownOp,
            RefusalCode::UnknownSource => Core::UnknownSource,
            RefusalCode::UnknownItem => Core::UnknownItem,
            RefusalCode::EmptyText => Core::EmptyText,
            RefusalCode::BadConfidence => Core::BadConfidence,
            RefusalCode::UnknownSpeaker => Core::UnknownSpeaker,
            RefusalCode::InvalidItem => Core::InvalidItem,
        },
        message: r.message.clone(),
    }
}

pub fn history_entry(e: &HistoryEntry) -> learn::HistoryEntry {
    learn::HistoryEntry {
        id: e.id.clone(),
        version: e.version,
        text: e.text.clone(),
        subject: e.subject.clone(),
        relation: e.relation.clone(),
        object: e.object.clone(),
        importance: e.importance,
        valid_from: e.valid_from,
        valid_until: e.valid_until,
        status: status(e.status),
    }
}

pub fn logged(l: &LoggedResolution) -> learn::LoggedResolution {
    learn::LoggedResolution {
        item: l.item.clone(),
        resolution: core::Resolution {
            at: l.at,
            action: action(l.action),
            other: l.other.clone(),
            source: l.source.clone(),
            by: l.by.clone(),
            reason: l.reason.clone(),
        },
    }
}

/// A refusal code as the core writes it (`NOT_JSON`, ...).
pub fn refusal_code(code: RefusalCode) -> &'static str {
    refusal(&Refusal {
        batch: 0,
        fact: None,
        code,
        message: String::new(),
    })
    .code
    .name()
}
