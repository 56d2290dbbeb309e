//! An LLM pass on the store: the batches of a query, the prompt of a batch, and an answer
//! learned fact by fact (see [`super`] for the contract).

use std::collections::BTreeSet;
use std::format;
use std::string::String;
use std::vec::Vec;

use super::{parse, plan, prompt, Fact, LlmBatch, LlmCost, Op, Refusal, RefusalCode, SHOWN_ITEMS};
use crate::error::{Error, Result};
use crate::item::{ItemStatus, MemoryItem, NewItem};
use crate::memory::learn::{Judged, Outcome, Verdict};
use crate::memory::{ExtractQuery, ExtractReport, ItemOrder, ItemQuery};
use crate::record::Record;
use crate::search::{Scope, SearchFilter, SearchMode, SearchQuery};
use crate::store::Store;
use crate::tokens::estimate;

/// The confidence of a fact whose answer gives none.
pub const DEFAULT_CONFIDENCE: f32 = 0.8;

impl Store {
    /// The batches of an LLM pass over the turns a query names (see [`super::plan`]).
    /// Errors as [`Store::extract`].
    pub fn llm_batches(&self, q: &ExtractQuery) -> Result<Vec<LlmBatch>> {
        let mut batches = plan(&self.extract_turns(q)?);
        for b in &mut batches {
            b.kinds.clone_from(&q.kinds);
        }
        Ok(batches)
    }

    /// The turns of a batch, oldest first: [`Error::NotFound`] for an id that is not a turn.
    fn batch_turns(&self, batch: &LlmBatch) -> Result<Vec<&Record>> {
        if batch.turns.is_empty() {
            return Err(Error::invalid("a batch needs turns"));
        }
        let mut turns = Vec::with_capacity(batch.turns.len());
        for id in &batch.turns {
            let r = self
                .get(id)
                .filter(|r| !r.is_item())
                .ok_or_else(|| Error::NotFound { id: id.clone() })?;
            turns.push(r);
        }
        turns.sort_by_key(|r| (r.created_at, r.seq));
        Ok(turns)
    }

    /// The items a batch's prompt shows: for each of its users, the active items that match
    /// its turns' words, then the newest, at most [`SHOWN_ITEMS`] in all.
    fn shown_items(&self, turns: &[&Record]) -> Result<Vec<MemoryItem>> {
        let users: BTreeSet<&str> = turns.iter().map(|t| t.user.as_str()).collect();
        let per_user = (SHOWN_ITEMS / users.len().max(1)).max(1);
        let mut shown: Vec<MemoryItem> = Vec::new();
        for user in users {
            let said: String = turns
                .iter()
                .filter(|t| t.user == user)
                .map(|t| t.input.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let mut mine: Vec<MemoryItem> = Vec::new();
            if !said.trim().is_empty() {
                let q = SearchQuery {
                    text: said,
                    mode: SearchMode::Bm25,
                    k: per_user / 2,
                    filter: SearchFilter {
                        user: Some(user.into()),
                        scope: Scope::Items,
                        ..SearchFilter::default()
                    },
                    context: 0.0,
                    thread_scope: 0.0,
                    snippets: false,
                    ..SearchQuery::default()
                };
                for hit in self.search(&q)? {
                    if let Some(i) = self.item(&hit.id) {
                        if i.meta.status == ItemStatus::Active && i.user == user {
                            mine.push(i);
                        }
                    }
                }
            }
            let newest = self.list_items(&ItemQuery {
                user: Some(user.into()),
                order: ItemOrder::Updated,
                limit: per_user,
                ..ItemQuery::default()
            })?;
            for i in newest {
                if mine.len() >= per_user {
                    break;
                }
                if i.user == user && !mine.iter().any(|m| m.id == i.id) {
                    mine.push(i);
                }
            }
            shown.extend(mine);
        }
        Ok(shown)
    }

    /// The prompt of a batch (see [`super::prompt`]): the instructions and schema, the known
    /// items of its users and its turns.
    pub fn llm_prompt(&self, batch: &LlmBatch) -> Result<String> {
        let turns = self.batch_turns(batch)?;
        let items = self.shown_items(&turns)?;
        Ok(prompt(&turns, &items, &|user| self.speaker_name(user)))
    }

    /// Learns the LLM's `answer` to the prompt of batch number `index` (none: the call
    /// failed, `failure` says how): fact by fact, each refused alone when it breaks the
    /// contract; an answer refused whole has the rules learn from the batch's turns. The
    /// report counts the call with the estimated tokens of `prompt` and `answer`. Errors:
    /// those of [`Store::extract`] for the batch's turns; a refused fact is no error.
    pub fn learn_llm(
        &mut self,
        index: usize,
        batch: &LlmBatch,
        prompt: &str,
        answer: std::result::Result<&str, &str>,
    ) -> Result<ExtractReport> {
        let turns: Vec<(String, String, i64)> = self
            .batch_turns(batch)?
            .iter()
            .map(|t| (t.id.clone(), t.user.clone(), t.created_at))
            .collect();
        let cost = LlmCost {
            calls: 1,
            prompt_tokens: estimate(prompt),
            answer_tokens: answer.map_or(0, estimate),
        };
        let parsed = match answer {
            Ok(a) => parse(a, index, &batch.turns),
            Err(failure) => super::Parsed {
                refused: std::vec![Refusal {
                    batch: index,
                    fact: None,
                    code: RefusalCode::NotJson,
                    message: format!("the LLM call failed: {failure}"),
                }],
                whole: true,
                ..super::Parsed::default()
            },
        };
        if parsed.whole {
            let mut report = self.extract(&ExtractQuery {
                ids: batch.turns.clone(),
                kinds: batch.kinds.clone(),
                ..ExtractQuery::default()
            })?;
            report.refused = parsed.refused;
            report.by_rules.clone_from(&batch.turns);
            report.llm = Some(cost);
            return Ok(report);
        }
        let mut report = ExtractReport {
            turns: turns.len(),
            refused: parsed.refused,
            llm: Some(cost),
            ..ExtractReport::default()
        };
        let kinds = ExtractQuery {
            kinds: batch.kinds.clone(),
            ..ExtractQuery::default()
        }
        .kinds();
        let shown = shown_ids(prompt);
        for fact in parsed.facts {
            let Some((_, source_user, at)) = turns.iter().find(|(id, _, _)| *id == fact.source)
            else {
                continue;
            };
            let user = match &fact.speaker {
                None => source_user,
                Some(name) => match turns.iter().map(|(_, u, _)| u).find(|u| {
                    u.eq_ignore_ascii_case(name) || self.speaker_name(u).eq_ignore_ascii_case(name)
                }) {
                    Some(u) => u,
                    None => {
                        report.refused.push(Refusal {
                            batch: index,
                            fact: Some(fact.index),
                            code: RefusalCode::UnknownSpeaker,
                            message: format!("speaker {name:?} is none of the batch's speakers"),
                        });
                        continue;
                    }
                },
            };
            if !kinds.contains(&fact.kind) {
                report.refused.push(Refusal {
                    batch: index,
                    fact: Some(fact.index),
                    code: RefusalCode::BadFact,
                    message: format!("kind {} was not asked for", fact.kind.name()),
                });
                continue;
            }
            let at = *at;
            let user = user.clone();
            match self.learn_fact(&fact, &user, at, &shown) {
                Ok(learned) => report.learned.push(learned),
                Err((code, message)) => report.refused.push(Refusal {
                    batch: index,
                    fact: Some(fact.index),
                    code,
                    message,
                }),
            }
        }
        report.refused.sort_by_key(|r| r.fact);
        Ok(report)
    }

    /// One fact of an answer, learned; or why it was refused (the store unchanged then).
    fn learn_fact(
        &mut self,
        fact: &Fact,
        user: &str,
        at: i64,
        shown: &[String],
    ) -> std::result::Result<crate::memory::Learned, (RefusalCode, String)> {
        let item = match &fact.item {
            Some(id) => {
                let known = self
                    .item(id)
                    .filter(|i| i.user == user && i.meta.status == ItemStatus::Active);
                if known.is_none() {
                    return Err((
                        RefusalCode::UnknownItem,
                        format!("item {id:?} is not an active item of {user:?}"),
                    ));
                }
                known
            }
            None => None,
        };
        let new = NewItem {
            kind: Some(fact.kind),
            user: user.into(),
            text: fact
                .text
                .clone()
                .unwrap_or_else(|| item.as_ref().map(|i| i.text.clone()).unwrap_or_default()),
            subject: fact.subject.clone(),
            relation: fact.relation.clone(),
            object: fact.object.clone(),
            confidence: Some(fact.confidence.unwrap_or(DEFAULT_CONFIDENCE)),
            created_at: at,
            sources: std::vec![fact.source.clone()],
            ..NewItem::default()
        };
        if let Err(e) = self.limits().check_item(&new) {
            return Err((RefusalCode::InvalidItem, e.to_string()));
        }
        let invalid = |e: Error| (RefusalCode::InvalidItem, e.to_string());
        match (fact.op, item) {
            (Op::Add, _) => {
                let judged = self.distinct_from_shown(&new, shown);
                self.add_item_by(new, &judged, "llm").map_err(invalid)
            }
            (Op::Supersede, Some(old)) => {
                let judged = [Judged {
                    item: old.id,
                    verdict: Verdict::Contradicts,
                    merged: None,
                }];
                self.add_item_by(new, &judged, "llm").map_err(invalid)
            }
            (Op::Update, Some(old)) => {
                let slot = self.slot_of(&old.id).expect("an active item");
                let text = Some(new.text.clone());
                self.fold_into(
                    slot,
                    new,
                    text,
                    Outcome::Updated,
                    "llm",
                    "refined by the LLM",
                )
                .map_err(invalid)
            }
            (Op::None, Some(old)) => {
                let slot = self.slot_of(&old.id).expect("an active item");
                self.fold_into(
                    slot,
                    new,
                    None,
                    Outcome::Corroborated,
                    "llm",
                    "the LLM knows it as this item",
                )
                .map_err(invalid)
            }
            (_, None) => Err((RefusalCode::UnknownItem, "no item named".into())),
        }
    }

    /// Learns items from the turns a query names through a synchronous LLM (`llm(prompt)
    /// -> answer`), batch by batch, each batch's prompt showing what the ones before it
    /// learned (see [`super`]). A failing call or an answer refused whole has the rules learn
    /// from that batch; the report says so. Errors as [`Store::extract`].
    pub fn extract_with(
        &mut self,
        q: &ExtractQuery,
        llm: &mut dyn FnMut(&str) -> Result<String>,
    ) -> Result<ExtractReport> {
        let mut report = ExtractReport::default();
        for (i, batch) in self.llm_batches(q)?.into_iter().enumerate() {
            let prompt = self.llm_prompt(&batch)?;
            let answer = llm(&prompt);
            let failure = answer.as_ref().err().map(|e| e.to_string());
            let answer = match (&answer, &failure) {
                (Ok(a), _) => Ok(a.as_str()),
                (Err(_), Some(f)) => Err(f.as_str()),
                (Err(_), None) => Err(""),
            };
            let part = self.learn_llm(i, &batch, &prompt, answer)?;
            report = report.then(part);
        }
        Ok(report)
    }
}

/// The ids of the known items a prompt shows ("- <id> (<speaker>): <text>").
fn shown_ids(prompt: &str) -> Vec<String> {
    let Some(from) = prompt.find("\nKnown items") else {
        return Vec::new();
    };
    let to = prompt[from..]
        .find("\nNew turns")
        .map_or(prompt.len(), |t| from + t);
    prompt[from..to]
        .lines()
        .filter_map(|l| {
            l.strip_prefix("- ")?
                .split_once(" (")
                .map(|(id, _)| id.into())
        })
        .collect()
}
