//! What happens to a new item: dedup, conflicts, and the log.
//!
//! A new item (a caller's, or a proposal of the extractor) is compared with the *candidates*:
//! the active items of the same user and kind that share its subject and relation or object
//! (from [`super::index`]) or that a BM25 or vector search over the user's items finds close.
//! Each pair gets a [`Verdict`]:
//! - by the rules: the same single-valued relation (`residence`, `name`, ... see
//!   [`MemoryConfig`](super::MemoryConfig)) with another object **contradicts**; the same
//!   relation and object, or a cosine at or over `dedupCosine` (both have vectors), or a word
//!   overlap at or over `dedupOverlap` (see [`super::normalize::overlap`]) with the same
//!   polarity (both negated or neither) is the **same**; opposite relations (`likes` /
//!   `dislikes`) of one object **contradict**; anything else is **unrelated**;
//! - or by the host LLM, when a face supplies its judgement of a pair (`same`, `update`,
//!   `contradicts`, `unrelated`), which then replaces the rule's.
//!
//! Then, the first contradiction wins, else the first sameness, else the first update:
//! - same: the candidate is *corroborated* (one more corroboration, `lastSeen` moves, the new
//!   sources are added to its parents, importance is the larger) and no item is added;
//! - update: the candidate gets a new version with the new text;
//! - contradicts, by [`ConflictStrategy`]: `newest` adds the new item and supersedes the old
//!   one (its history kept, its validity ended); `keep` adds it and flags both; `merge` makes
//!   the LLM's merged text a new version of the old item (without one, newest wins);
//! - unrelated: the new item is added.
//!
//! Every outcome is logged on the items it touched ([`crate::item::Resolution`]).

use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use super::config::ConflictStrategy;
use super::crud::new_version;
use super::normalize::{overlap, words};
use crate::dag::Direction;
use crate::error::{Error, Result};
use crate::index::distance::normalized;
use crate::item::{Action, ItemMeta, ItemStatus, MemoryItem, NewItem, Resolution};
use crate::search::{Scope, SearchFilter, SearchMode, SearchQuery};
use crate::store::Store;
use memdag_types::Slot;

/// A proposed item: what the extractor or an LLM suggests, in the shape of a caller's.
pub type Proposal = NewItem;

/// How a new item relates to an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// They say the same thing.
    Same,
    /// The new one refines the old one: a new version of it.
    Update,
    /// They cannot both be true.
    Contradicts,
    Unrelated,
}

/// A host LLM's judgement of the new item against candidate `item`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Judged {
    pub item: String,
    pub verdict: Verdict,
    /// The merged text, for the `merge` strategy (and `update`).
    #[serde(default)]
    pub merged: Option<String>,
}

/// What adding an item did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A new item was added.
    Added,
    /// An active item said the same: it was corroborated, nothing added.
    Corroborated,
    /// A new item was added and superseded the contradicted one.
    Superseded,
    /// A new item was added; it and the contradicted one are flagged.
    Flagged,
    /// The contradicted item got the LLM's merged text as a new version.
    Merged,
    /// The candidate got the new text as a new version.
    Updated,
}

/// The result of adding an item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Learned {
    pub outcome: Outcome,
    /// The item that now holds the knowledge: the new one, or the existing one it went into.
    pub item: MemoryItem,
    /// The existing items involved: corroborated, updated, superseded or flagged.
    pub others: Vec<String>,
    /// Why, in a few words.
    pub reason: String,
}

/// Candidates looked up per signal.
const SEARCH_CANDIDATES: usize = 8;

impl Store {
    /// Adds an item through dedup and conflict handling by the rules (see the module docs).
    /// Errors: [`Error::InvalidInput`] (no kind, an empty text, a limit),
    /// [`Error::UnknownParents`] for an unknown source; nothing changes then.
    pub fn add_item(&mut self, new: NewItem) -> Result<Learned> {
        self.add_item_judged(new, &[])
    }

    /// The active items a judge (the host LLM) should compare a new item with.
    pub fn item_candidates(&self, new: &NewItem) -> Result<Vec<MemoryItem>> {
        let slots = self.candidates(new)?;
        Ok(slots
            .into_iter()
            .filter_map(|s| self.item_view(s))
            .collect())
    }

    /// [`Store::add_item`] with the host LLM's judgements of some candidates (from
    /// [`Store::item_candidates`]); a judgement replaces the rule's verdict for its pair.
    pub fn add_item_judged(&mut self, new: NewItem, judged: &[Judged]) -> Result<Learned> {
        let by = if judged.is_empty() { "rule" } else { "llm" };
        self.add_item_by(new, judged, by)
    }

    /// [`Store::add_item_judged`], logged as decided `by` (`rule` or `llm`). A judged item
    /// that is no candidate (an LLM saw it and named it) is judged too, if it is an active
    /// item of the same user.
    pub(crate) fn add_item_by(
        &mut self,
        new: NewItem,
        judged: &[Judged],
        by: &str,
    ) -> Result<Learned> {
        let kind = new
            .kind
            .ok_or_else(|| Error::invalid("an item needs a kind"))?;
        self.limits().check_item(&new)?;
        let config = self.memory_config();
        let at = new.created_at;
        let mut cands = self.candidates(&new)?;
        for j in judged {
            let Some(slot) = self.slot_of(&j.item) else {
                continue;
            };
            let active_mine = self.slot(slot).is_some_and(|r| {
                r.user == new.user
                    && r.item
                        .as_ref()
                        .is_some_and(|m| m.status == ItemStatus::Active)
            });
            if active_mine && !cands.contains(&slot) {
                cands.push(slot);
            }
        }
        let mut contradicted: Vec<(Slot, String)> = Vec::new();
        let mut same: Option<(Slot, String)> = None;
        let mut update: Option<(Slot, Option<String>)> = None;
        let mut merge_text: Option<String> = None;
        for slot in cands {
            let Some(id) = self.slot(slot).map(|r| r.id.clone()) else {
                continue;
            };
            let (verdict, reason) = match judged.iter().find(|j| j.item == id) {
                Some(j) => {
                    if j.verdict == Verdict::Contradicts && merge_text.is_none() {
                        merge_text.clone_from(&j.merged);
                    }
                    if j.verdict == Verdict::Update && update.is_none() {
                        update = Some((slot, j.merged.clone()));
                    }
                    (j.verdict, String::from("judged by the host LLM"))
                }
                None => self.rule_verdict(&new, slot, &config),
            };
            match verdict {
                Verdict::Contradicts => contradicted.push((slot, reason)),
                Verdict::Same if same.is_none() => same = Some((slot, reason)),
                _ => {}
            }
        }
        let meta = ItemMeta {
            kind,
            ..ItemMeta::default()
        };
        let source = new.sources.first().cloned();
        if !contradicted.is_empty() {
            let reason = contradicted[0].1.clone();
            let strategy = config.conflict;
            if strategy == ConflictStrategy::Merge {
                if let Some(text) = merge_text {
                    let (slot, _) = contradicted[0];
                    return self.fold_into(slot, new, Some(text), Outcome::Merged, by, &reason);
                }
            }
            let reason = if strategy == ConflictStrategy::Merge {
                std::format!("{reason}; no merged text from an LLM, so the newest wins")
            } else {
                reason
            };
            let slot = self.insert_item(new, meta)?;
            let new_id = self.slot(slot).expect("inserted").id.clone();
            let others: Vec<String> = contradicted
                .iter()
                .filter_map(|(s, _)| self.slot(*s).map(|r| r.id.clone()))
                .collect();
            let keep_both = strategy == ConflictStrategy::Keep;
            let (outcome, action) = if keep_both {
                (Outcome::Flagged, Action::Flagged)
            } else {
                (Outcome::Superseded, Action::Added)
            };
            for (old, _) in &contradicted {
                if keep_both {
                    let new_id = new_id.clone();
                    let reason = reason.clone();
                    self.change_record(*old, None, |r| {
                        let m = r.item.as_mut().expect("an item");
                        m.conflicts.push(new_id.clone());
                        m.log.push(Resolution {
                            at,
                            action: Action::Flagged,
                            other: Some(new_id),
                            source: None,
                            by: by.into(),
                            reason,
                        });
                    })?;
                } else {
                    self.set_status(
                        *old,
                        ItemStatus::Superseded,
                        at,
                        Some(new_id.clone()),
                        by,
                        &reason,
                    )?;
                }
            }
            let log_others = others.clone();
            let log_reason = reason.clone();
            self.change_record(slot, None, |r| {
                let m = r.item.as_mut().expect("an item");
                if keep_both {
                    m.conflicts = log_others.clone();
                } else {
                    m.supersedes = log_others.clone();
                }
                m.log.push(Resolution {
                    at,
                    action,
                    other: log_others.first().cloned(),
                    source,
                    by: by.into(),
                    reason: log_reason,
                });
            })?;
            return Ok(Learned {
                outcome,
                item: self.item_view(slot).expect("inserted"),
                others,
                reason,
            });
        }
        if let Some((slot, reason)) = same {
            return self.fold_into(slot, new, None, Outcome::Corroborated, by, &reason);
        }
        if let Some((slot, text)) = update {
            let text = text.unwrap_or_else(|| new.text.clone());
            return self.fold_into(
                slot,
                new,
                Some(text),
                Outcome::Updated,
                by,
                "a refinement of it",
            );
        }
        let slot = self.insert_item(new, meta)?;
        self.change_record(slot, None, |r| {
            r.item.as_mut().expect("an item").log.push(Resolution {
                at,
                action: Action::Added,
                other: None,
                source,
                by: by.into(),
                reason: String::new(),
            });
        })?;
        Ok(Learned {
            outcome: Outcome::Added,
            item: self.item_view(slot).expect("inserted"),
            others: Vec::new(),
            reason: String::new(),
        })
    }

    /// Folds a new item into an existing one: a corroboration (`text` none) or a new version
    /// with `text`. New sources join the parents unless one descends from the item (that
    /// would make a cycle).
    pub(crate) fn fold_into(
        &mut self,
        slot: Slot,
        new: NewItem,
        text: Option<String>,
        outcome: Outcome,
        by: &str,
        reason: &str,
    ) -> Result<Learned> {
        let missing: Vec<String> = new
            .sources
            .iter()
            .filter(|s| self.slot_of(s).is_none())
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(Error::UnknownParents { ids: missing });
        }
        if let Some(t) = &text {
            if t.trim().is_empty() {
                return Err(Error::invalid("a merged text must not be empty"));
            }
        }
        let id = self.slot(slot).expect("candidate").id.clone();
        let below: Vec<String> = self
            .walk_as(None, &id, Direction::Descendants, 64, 10_000)?
            .into_iter()
            .map(|r| r.id.clone())
            .collect();
        let at = new.created_at;
        let action = match outcome {
            Outcome::Merged => Action::Merged,
            Outcome::Updated => Action::Updated,
            _ => Action::Corroborated,
        };
        let mut added_parents = Vec::new();
        let vector = if text.is_some() {
            new.embedding.clone()
        } else {
            None
        };
        let reason = String::from(reason);
        let source = new.sources.first().cloned();
        self.change_record(slot, vector, |r| {
            if let Some(t) = text {
                new_version(r, at);
                r.input = t;
            }
            for s in &new.sources {
                if *s != r.id && !r.parents.contains(s) && !below.contains(s) {
                    r.parents.push(s.clone());
                    added_parents.push(s.clone());
                }
            }
            r.importance = r.importance.max(new.importance.unwrap_or(0.0));
            let m = r.item.as_mut().expect("an item");
            if outcome == Outcome::Corroborated {
                m.corroborations += 1;
                m.confidence = corroborated(m.confidence, new.confidence.unwrap_or(1.0));
            }
            m.last_seen = m.last_seen.max(at);
            m.log.push(Resolution {
                at,
                action,
                other: None,
                source,
                by: by.into(),
                reason: reason.clone(),
            });
        })?;
        if !added_parents.is_empty() {
            self.link_parents(&id, &added_parents);
        }
        Ok(Learned {
            outcome,
            item: self.item_view(slot).expect("live"),
            others: std::vec![id],
            reason,
        })
    }

    /// The active items of the new item's user and kind worth comparing with it.
    fn candidates(&self, new: &NewItem) -> Result<Vec<Slot>> {
        let Some(kind) = new.kind else {
            return Ok(Vec::new());
        };
        let index = &self.items;
        let probe = ItemMeta {
            kind,
            subject: new.subject.clone(),
            relation: new.relation.clone(),
            object: new.object.clone(),
            ..ItemMeta::default()
        };
        let t = index.triple(&probe);
        let mut slots: Vec<Slot> = Vec::new();
        if let Some(rel) = &t.relation {
            slots.extend(index.with_relation(&new.user, &t.subject, rel));
        }
        if let Some(obj) = &t.object {
            slots.extend(index.with_object(&new.user, &t.subject, obj));
        }
        let same_kind = |slot: Slot| {
            self.slot(slot).is_some_and(|r| {
                r.item
                    .as_ref()
                    .is_some_and(|m| m.kind == kind && m.status == ItemStatus::Active)
            })
        };
        let vector = new
            .embedding
            .as_ref()
            .filter(|e| e.len() == self.search.vectors.dimension())
            .and_then(|e| normalized(e).ok());
        match vector {
            // With a vector, the nearest of the user's own items of this kind, by an exact
            // scan of them: a user's items are few next to the store's turns, and a graph
            // search filtered down to them would visit the whole graph.
            Some(q) => {
                let q = self.search.vectors.query(&q);
                let mut near: Vec<(f32, Slot)> = self
                    .items_by_user
                    .get(&new.user)
                    .into_iter()
                    .flatten()
                    .map(|c| c.2)
                    .filter(|&s| same_kind(s))
                    .filter_map(|s| self.search.vectors.similarity_to(s, &q).map(|sim| (sim, s)))
                    .collect();
                near.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                slots.extend(near.into_iter().take(SEARCH_CANDIDATES).map(|(_, s)| s));
            }
            None if !new.text.trim().is_empty() => {
                let q = SearchQuery {
                    text: new.text.clone(),
                    mode: SearchMode::Bm25,
                    k: SEARCH_CANDIDATES,
                    filter: SearchFilter {
                        // An item of no user is compared with items of no user: the
                        // candidates are kept to its user below, and "" is no scope.
                        user: (!new.user.is_empty()).then(|| new.user.clone()),
                        scope: Scope::Items,
                        kinds: std::vec![kind],
                        ..SearchFilter::default()
                    },
                    context: 0.0,
                    thread_scope: 0.0,
                    snippets: false,
                    ..SearchQuery::default()
                };
                for hit in self.search(&q)? {
                    slots.extend(self.slot_of(&hit.id));
                }
            }
            None => {}
        }
        let mut seen = std::collections::BTreeSet::new();
        slots.retain(|&s| {
            seen.insert(s)
                && self.slot(s).is_some_and(|r| {
                    r.user == new.user
                        && r.item
                            .as_ref()
                            .is_some_and(|m| m.kind == kind && m.status == ItemStatus::Active)
                })
        });
        Ok(slots)
    }

    /// The rules' verdict on a new item against the item in `slot`, with the reason.
    /// The judgements of an item the host LLM added, against the items its prompt showed:
    /// a shown item the rules would call the same is a distinct fact (the model saw it and
    /// did not name it) unless the texts are equal; conflicts stay the rules'.
    pub(crate) fn distinct_from_shown(&self, new: &NewItem, shown: &[String]) -> Vec<Judged> {
        let config = self.memory_config();
        let Ok(cands) = self.candidates(new) else {
            return Vec::new();
        };
        let norm = |t: &str| {
            t.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let text = norm(&new.text);
        cands
            .into_iter()
            .filter_map(|slot| {
                let r = self.slot(slot)?;
                if !shown.contains(&r.id) || norm(&r.input) == text {
                    return None;
                }
                let (verdict, _) = self.rule_verdict(new, slot, &config);
                (verdict == Verdict::Same).then(|| Judged {
                    item: r.id.clone(),
                    verdict: Verdict::Unrelated,
                    merged: None,
                })
            })
            .collect()
    }

    fn rule_verdict(
        &self,
        new: &NewItem,
        slot: Slot,
        config: &super::MemoryConfig,
    ) -> (Verdict, String) {
        let Some(r) = self.slot(slot) else {
            return (Verdict::Unrelated, String::new());
        };
        let Some(meta) = &r.item else {
            return (Verdict::Unrelated, String::new());
        };
        let index = &self.items;
        let old = index.triple(meta);
        let probe = ItemMeta {
            subject: new.subject.clone(),
            relation: new.relation.clone(),
            object: new.object.clone(),
            ..ItemMeta::default()
        };
        let t = index.triple(&probe);
        if t.subject == old.subject {
            if let (Some(rel), Some(old_rel)) = (&t.relation, &old.relation) {
                let same_object = t.object.is_some() && t.object == old.object;
                if rel == old_rel || (same_object && config.are_equivalent(rel, old_rel)) {
                    if t.object == old.object {
                        return (Verdict::Same, std::format!("same {rel} and value"));
                    }
                    if config.is_single_valued(rel) {
                        return (
                            Verdict::Contradicts,
                            std::format!("a new value of {rel}, which holds one at a time"),
                        );
                    }
                    if let (Some(a), Some(b)) = (&t.object, &old.object) {
                        // "hiking" and "hiking in the alps": one is the other, said again.
                        let (wa, wb) = (words(a), words(b));
                        if overlap(&wa, &wb) >= 1.0 {
                            return (Verdict::Same, std::format!("same {rel}, {a} and {b}"));
                        }
                        return (Verdict::Unrelated, String::new());
                    }
                } else if same_object && config.are_opposites(rel, old_rel) {
                    return (
                        Verdict::Contradicts,
                        std::format!("{rel} contradicts {old_rel} of the same thing"),
                    );
                } else {
                    // Two statements of different relations are two items, however alike
                    // their words ("Name: Wang Lei" and "Lives in ...").
                    return (Verdict::Unrelated, String::new());
                }
            }
        }
        if negated(&new.text) != negated(&r.input) {
            return (Verdict::Unrelated, String::new());
        }
        // The existing item's vector is in the index (`similarity` is none when it has none).
        if let Some(e) = &new.embedding {
            if let Ok(q) = normalized(e) {
                if let Some(cos) = self.search.vectors.similarity(slot, &q) {
                    if cos >= config.dedup_cosine {
                        return (Verdict::Same, std::format!("cosine {cos:.2}"));
                    }
                    return (Verdict::Unrelated, String::new());
                }
            }
        }
        let share = overlap(&words(&new.text), &words(&r.input));
        if share >= config.dedup_overlap {
            return (
                Verdict::Same,
                std::format!("{:.0}% of the words", share * 100.0),
            );
        }
        (Verdict::Unrelated, String::new())
    }
}

/// The confidence of an item said again by a source of confidence `by`: the chance that not
/// both are wrong, `1 − (1 − c)(1 − by)`, each clamped to 0..=1.
pub(crate) fn corroborated(c: f32, by: f32) -> f32 {
    let (c, by) = (c.clamp(0.0, 1.0), by.clamp(0.0, 1.0));
    1.0 - (1.0 - c) * (1.0 - by)
}

/// Whether a statement is negated: an English negation word or a Chinese negation character.
pub(crate) fn negated(text: &str) -> bool {
    let lower = text.to_lowercase();
    let english = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| {
            matches!(
                w,
                "not"
                    | "no"
                    | "never"
                    | "don't"
                    | "dont"
                    | "doesn't"
                    | "didn't"
                    | "isn't"
                    | "aren't"
                    | "wasn't"
                    | "won't"
                    | "can't"
                    | "cannot"
                    | "nor"
                    | "neither"
                    | "hate"
                    | "dislike"
                    | "stop"
                    | "avoid"
            ) || w.ends_with("n't")
        });
    english
        || ["不", "没", "别", "勿", "讨厌", "无"]
            .iter()
            .any(|n| text.contains(n))
}
