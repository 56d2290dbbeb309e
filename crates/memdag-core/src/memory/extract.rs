//! Learning items from turns by the rules, and what every learning pass shares.
//!
//! [`Store::extract`] runs the rule-based extractor ([`super::rules`]) over the turns an
//! [`ExtractQuery`] names and learns what it proposes, turn by turn in time order, through
//! dedup and conflicts ([`super::learn`]). The host LLM's pass over the same query is in
//! [`super::llm`] ([`Store::extract_with`]); both give an [`ExtractReport`].

use std::collections::BTreeSet;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use super::learn::{Judged, Learned};
use super::llm::{LlmCost, Refusal};
use super::rules::{self, Extracted};
use crate::error::{Error, Result};
use crate::item::{ItemKind, ItemStatus, NewItem};
use crate::record::Record;
use crate::store::Store;
use memdag_types::Slot;

/// Which turns to learn from: the given ids, or every turn of a thread (and/or user).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ExtractQuery {
    pub ids: Vec<String>,
    pub thread: Option<String>,
    pub user: Option<String>,
    /// Kinds to learn; empty: personal, procedural and tool.
    pub kinds: Vec<ItemKind>,
}

/// What a learning pass did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractReport {
    /// Turns read.
    pub turns: usize,
    /// One entry per proposal learned: added, corroborated, superseded, ...
    pub learned: Vec<Learned>,
    /// Items ended by a retraction ("I don't mind cilantro anymore").
    pub retracted: Vec<String>,
    /// What of the LLM's answers was refused, fact by fact (an LLM pass only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refusal>,
    /// Turns the rules learned from because the LLM's answer for their batch was refused
    /// whole (an LLM pass only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_rules: Vec<String>,
    /// The LLM calls of the pass: how many, and their estimated tokens (an LLM pass only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmCost>,
}

impl ExtractReport {
    /// This report followed by `next`, of a later part of the same pass.
    pub fn then(mut self, next: ExtractReport) -> ExtractReport {
        self.turns += next.turns;
        self.learned.extend(next.learned);
        self.retracted.extend(next.retracted);
        self.refused.extend(next.refused);
        self.by_rules.extend(next.by_rules);
        self.llm = match (self.llm, next.llm) {
            (Some(a), Some(b)) => Some(a.plus(b)),
            (a, b) => a.or(b),
        };
        self
    }
}

impl ExtractQuery {
    pub(crate) fn kinds(&self) -> Vec<ItemKind> {
        if self.kinds.is_empty() {
            std::vec![ItemKind::Personal, ItemKind::Procedural, ItemKind::Tool]
        } else {
            self.kinds.clone()
        }
    }
}

impl Store {
    /// The turns a query names, oldest first. [`Error::NotFound`] for an unknown id or an id
    /// that is not a turn; [`Error::InvalidInput`] when it names nothing.
    pub(crate) fn extract_turns(&self, q: &ExtractQuery) -> Result<Vec<&Record>> {
        crate::scope::user_scope(q.user.as_deref())?;
        let mut turns: Vec<&Record> = Vec::new();
        for id in &q.ids {
            let r = self
                .get(id)
                .filter(|r| !r.is_item())
                .ok_or_else(|| Error::NotFound { id: id.clone() })?;
            turns.push(r);
        }
        if let Some(thread) = &q.thread {
            turns.extend(
                self.recent(thread, usize::MAX)
                    .into_iter()
                    .filter(|r| q.user.as_ref().is_none_or(|u| r.user == *u)),
            );
        } else if let Some(user) = &q.user {
            if q.ids.is_empty() {
                turns.extend(self.newest_of_user(user, usize::MAX));
            }
        }
        if q.ids.is_empty() && q.thread.is_none() && q.user.is_none() {
            return Err(Error::invalid("extract needs ids, a thread or a user"));
        }
        let mut seen = BTreeSet::new();
        turns.retain(|r| seen.insert(r.seq));
        turns.sort_by_key(|r| (r.created_at, r.seq));
        Ok(turns)
    }

    /// The name items about `user` use: their active `name` item's value, else the user id
    /// when it reads as a name ([`rules::voice::display_name`]).
    pub fn speaker_name(&self, user: &str) -> String {
        let stated = self
            .items
            .with_relation(user, "", "name")
            .into_iter()
            .filter_map(|s| self.slot(s))
            .filter(|r| {
                r.item
                    .as_ref()
                    .is_some_and(|m| m.status == ItemStatus::Active)
            })
            .max_by_key(|r| (r.created_at, r.seq))
            .and_then(|r| r.item.as_ref().and_then(|m| m.object.clone()));
        rules::voice::display_name(user, stated.as_deref())
    }

    /// What the rules find in one turn, said by its user; nothing when they are left out of
    /// the build (feature `rules`).
    #[cfg(not(feature = "rules"))]
    fn rules_of(&self, _: &Record) -> Vec<Extracted> {
        Vec::new()
    }

    /// What the rules find in one turn, said by its user.
    #[cfg(feature = "rules")]
    fn rules_of(&self, t: &Record) -> Vec<Extracted> {
        let name = self.speaker_name(&t.user);
        rules::extract(t, &rules::Speaker { name: &name })
    }

    /// What the rules propose for the turns a query names, without learning it.
    pub fn propose(&self, q: &ExtractQuery) -> Result<Vec<NewItem>> {
        let kinds = q.kinds();
        let mut out = Vec::new();
        for t in self.extract_turns(q)? {
            for e in self.rules_of(t) {
                if kinds.contains(&e.kind) && !e.retract {
                    out.push(proposal(t, e));
                }
            }
        }
        Ok(out)
    }

    /// Learns items from turns by the rules (see the module docs). Errors as
    /// [`Store::add_item`]; every proposal is checked before the first is written.
    pub fn extract(&mut self, q: &ExtractQuery) -> Result<ExtractReport> {
        let kinds = q.kinds();
        let mut steps: Vec<(String, Extracted, NewItem)> = Vec::new();
        let turns = self.extract_turns(q)?;
        let count = turns.len();
        for t in turns {
            for e in self.rules_of(t) {
                if kinds.contains(&e.kind) {
                    let p = proposal(t, e.clone());
                    steps.push((t.id.clone(), e, p));
                }
            }
        }
        for (_, _, p) in &steps {
            self.limits().check_item(p)?;
        }
        let mut report = ExtractReport {
            turns: count,
            ..ExtractReport::default()
        };
        for (turn, e, p) in steps {
            if e.retract {
                report.retracted.extend(self.retract(&p, &turn)?);
            } else {
                report.learned.push(self.add_item(p)?);
            }
        }
        Ok(report)
    }

    /// Ends the active items a retraction names: the user's items of the same relation (or
    /// an equivalent one, so "I don't mind cilantro anymore" ends an allergy too) and object.
    fn retract(&mut self, p: &NewItem, turn: &str) -> Result<Vec<String>> {
        let (Some(object), Some(relation)) = (&p.object, &p.relation) else {
            return Ok(Vec::new());
        };
        let config = self.memory_config();
        let object = self.items.canonical(object);
        let subject = p
            .subject
            .as_deref()
            .map(|s| self.items.canonical(s))
            .unwrap_or_default();
        let slots: Vec<Slot> = self
            .items
            .with_object(&p.user, &subject, &object)
            .into_iter()
            .filter(|&s| {
                self.slot(s).and_then(|r| r.item.as_ref()).is_some_and(|m| {
                    m.status == ItemStatus::Active
                        && m.relation
                            .as_deref()
                            .is_some_and(|r| r == relation || config.are_equivalent(r, relation))
                })
            })
            .collect();
        let mut ended = Vec::new();
        for s in slots {
            let reason = std::format!("retracted in turn {turn}");
            self.set_status(
                s,
                ItemStatus::Superseded,
                p.created_at,
                None,
                "rule",
                &reason,
            )?;
            ended.extend(self.slot(s).map(|r| r.id.clone()));
        }
        Ok(ended)
    }

    /// Learns proposals (an LLM's, parsed) with the judgements given for some of their
    /// candidates: `judged[i]` are those of `proposals[i]` (missing: judged by the rules).
    /// Every proposal is checked before the first is written.
    pub fn learn(
        &mut self,
        proposals: Vec<NewItem>,
        judged: &[Vec<Judged>],
    ) -> Result<ExtractReport> {
        for p in &proposals {
            if p.kind.is_none() {
                return Err(Error::invalid("a proposal needs a kind"));
            }
            self.limits().check_item(p)?;
            if let Some(s) = p.sources.iter().find(|s| self.slot_of(s).is_none()) {
                return Err(Error::UnknownParents {
                    ids: std::vec![s.clone()],
                });
            }
        }
        let turns: BTreeSet<&String> = proposals.iter().flat_map(|p| &p.sources).collect();
        let mut report = ExtractReport {
            turns: turns.len(),
            ..ExtractReport::default()
        };
        for (i, p) in proposals.into_iter().enumerate() {
            let j = judged.get(i).map(Vec::as_slice).unwrap_or(&[]);
            report.learned.push(self.add_item_judged(p, j)?);
        }
        Ok(report)
    }
}

/// A rule extraction as a proposal from turn `t`.
fn proposal(t: &Record, e: Extracted) -> NewItem {
    NewItem {
        kind: Some(e.kind),
        user: t.user.clone(),
        text: e.text,
        subject: e.subject,
        relation: e.relation,
        object: e.object,
        task: e.task,
        tool: e.tool,
        confidence: Some(e.confidence),
        tags: e
            .class
            .map(|c| std::vec![c.relation().into()])
            .unwrap_or_default(),
        created_at: t.created_at,
        sources: std::vec![t.id.clone()],
        ..NewItem::default()
    }
}
