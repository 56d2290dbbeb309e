//! The context pipeline: one call before a turn ([`Store::prepare_with`]) and one after
//! ([`Store::finish`]).
//!
//! `prepare` takes the messages the agent holds for the thread and, in one call:
//! 1. cuts oversized tool results ([`Store::compact_tool_results_for`]): the full text goes to a
//!    blob stored for the user at `now`, and the marker names it and the line to read on from
//!    ([`Store::read_blob`]); then removes the stored tool outputs past their age
//!    ([`Store::retain_blobs`]);
//! 2. counts tokens and, when the messages are over the threshold, splits them
//!    ([`crate::context::check_context_with`]) without separating a tool call from its results;
//! 3. folds the older part into the thread's running summary ([`summary`]), through the host's
//!    LLM with the previous summary in the prompt, or by the rules without one (or when it fails:
//!    the error is returned beside the result, and nothing is lost);
//! 4. recalls ([`Store::recall`]) for the thread and user.
//!
//! It returns the messages to keep, the summary, the recall block and the time of each step.
//! Budgets come from the model's `window`: the summary gets `summary_tokens` (default an
//! eighth), the recall block `recall_tokens` (an eighth), and the messages the rest. When the
//! messages pass `threshold` (default: the rest), the newest `keep_tokens` (default half the
//! rest) are kept and the older ones summarised, so compaction runs every few turns, not on
//! every one.
//!
//! Tool results are cut to `tool_limits`, capped at half the kept budget for the newest and an
//! eighth for older ones, so that a cut result can stay beside its call after a compaction.
//!
//! A host whose LLM is asynchronous (JS) runs the two halves itself: [`Store::prepare_begin`]
//! returns a [`PrepareStage`] with the prompt, the host asks its LLM, and
//! [`Store::prepare_end`] applies the answer. The core reads no clock: timings come from the
//! `clock` the host passes (milliseconds, any origin).

pub mod summary;

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::cite::AddOptions;
use crate::compact::parse_answer;
use crate::context::{check_context_with, Message, ToolResultLimits};
use crate::error::{Error, Result};
use crate::memory::extract::{ExtractQuery, ExtractReport};
use crate::recall::RecallQuery;
use crate::record::{CompactNode, NewTurn, Record};
use crate::store::Store;
use crate::tokens::TokenCounter;

pub use summary::{fallback_summary, fit_summary, summary_prompt, RunningSummary};

/// What `prepare` needs besides the messages. Every field but `thread` and `window` has a
/// default; missing serde fields take them. Recall matches the newest user message unless
/// `recall` names a query text or keywords.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PrepareOptions {
    pub thread: String,
    pub user: Option<String>,
    /// The model's context window, in tokens. Required (> 0).
    pub window: usize,
    /// Compact when the messages total more than this (default: the window less the summary
    /// and recall budgets).
    pub threshold: Option<usize>,
    /// Tokens of the newest messages kept when compacting (default: half the threshold).
    pub keep_tokens: Option<usize>,
    /// Cap of the running summary (default: an eighth of the window).
    pub summary_tokens: Option<usize>,
    /// Budget of the recall block (default: an eighth of the window; 0: no recall).
    pub recall_tokens: Option<usize>,
    pub tool_limits: ToolResultLimits,
    /// Recall knobs (weights, half-life, limits, query text); its thread, user, budget and now
    /// are set from these options.
    pub recall: Option<RecallQuery>,
    /// The host's time (ms since the epoch): the summary's date, recall's now. Faces fill in
    /// the host clock when the caller names none.
    pub now: Option<i64>,
}

/// The time each step of `prepare` took, in ms of the host's clock.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PrepareTimings {
    pub truncate_ms: f64,
    pub check_ms: f64,
    pub summarize_ms: f64,
    pub recall_ms: f64,
    pub total_ms: f64,
}

/// Who wrote the summary update of a `prepare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SummarizedBy {
    /// Nothing was compacted.
    #[default]
    None,
    Llm,
    /// The rules: no LLM was given, or it failed (see [`Prepared::llm_error`]).
    Rules,
}

/// The first half of `prepare`: the cut messages, split, and the prompt for the host's LLM.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PrepareStage {
    pub options: PrepareOptions,
    /// The messages to keep, tool results cut.
    pub keep: Vec<Message>,
    /// The older messages to fold into the summary; empty when no compaction is needed.
    pub compact: Vec<Message>,
    /// The prompt for the host's LLM, when there is something to fold.
    pub prompt: Option<String>,
    /// Blobs holding the full text of cut tool results.
    pub blob_ids: Vec<String>,
    /// Blobs removed by retention ([`Store::retain_blobs`]) during this call.
    pub expired_blobs: Vec<String>,
    pub total_tokens: usize,
    pub timings: PrepareTimings,
    /// `clock()` when the stage began.
    pub started: f64,
}

/// What `prepare` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Prepared {
    /// The messages to send, tool results cut: the leading system messages, then the newest.
    pub messages: Vec<Message>,
    /// The running summary as Markdown, if the thread has one; put it before `messages`.
    pub summary: Option<String>,
    pub summary_version: u32,
    pub summarized_by: SummarizedBy,
    /// Messages folded into the summary by this call.
    pub compacted: usize,
    /// The recall block (empty when nothing fits or recall is off).
    pub recall: String,
    /// Blobs holding the full text of the tool results cut by this call; read them back with
    /// `read_blob` from the line the marker names.
    pub blob_ids: Vec<String>,
    /// Stored tool outputs past their age that this call removed ([`crate::retention`]).
    pub expired_blobs: Vec<String>,
    /// Tokens of the messages given (after cutting tool results), of `messages`, of the
    /// summary and of the recall block.
    pub total_tokens: usize,
    pub kept_tokens: usize,
    pub summary_tokens: usize,
    pub recall_tokens: usize,
    /// Whether `messages`, the summary and the recall block fit in the window together.
    pub fits: bool,
    /// Why the host's LLM gave no usable summary (the rules wrote it instead), with its code.
    pub llm_error: Option<String>,
    pub timings: PrepareTimings,
}

/// A host LLM that answers a summary prompt synchronously: the answer, or why it failed.
pub type SummaryLlm<'a> = dyn FnMut(&str) -> core::result::Result<String, String> + 'a;

/// How [`Store::finish`] writes a turn. The defaults are what an agent loop wants: learn,
/// take the citations of the output as parents, and drop a parent that names no record rather
/// than lose the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FinishOptions {
    /// Learn long-term memory items from the turn by the rules (default true).
    pub learn: bool,
    /// Add the `[id]`s cited in the turn's output to its parents (default true).
    pub cite: bool,
    /// Add the turn without parents that name no record, reporting them (default true);
    /// false refuses the turn with `UNKNOWN_PARENT`.
    pub drop_unknown_parents: bool,
}

impl Default for FinishOptions {
    fn default() -> Self {
        FinishOptions {
            learn: true,
            cite: true,
            drop_unknown_parents: true,
        }
    }
}

/// What [`Store::finish`] wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finished {
    pub record: Record,
    /// The ids the output cited that became parents.
    pub cited: Vec<String>,
    /// Parents left out because no record has their id.
    pub dropped: Vec<String>,
    /// What was learned, when `learn` was on.
    pub learned: Option<ExtractReport>,
}

/// An error as `CODE: message`, the form every face shows.
fn coded(e: &Error) -> String {
    alloc::format!("{}: {e}", e.code())
}

/// The budgets of `options`: (threshold, keep, summary, recall).
fn budgets(o: &PrepareOptions) -> Result<(usize, usize, usize, usize)> {
    if o.window == 0 {
        return Err(Error::invalid("prepare needs a window (tokens) above 0"));
    }
    if o.thread.is_empty() {
        return Err(Error::invalid("prepare needs a thread"));
    }
    let summary = o.summary_tokens.unwrap_or(o.window / 8);
    let recall = o.recall_tokens.unwrap_or(o.window / 8);
    let rest = o.window.saturating_sub(summary + recall);
    if rest == 0 {
        return Err(Error::invalid(
            "prepare: the summary and recall budgets leave no room for messages in the window",
        ));
    }
    let threshold = o.threshold.unwrap_or(rest).min(rest);
    let keep = o.keep_tokens.unwrap_or(threshold / 2).min(threshold);
    Ok((threshold, keep, summary, recall))
}

impl Store {
    /// The first half of `prepare` (see the module docs): cuts tool results (storing their
    /// blobs), splits the messages, and builds the summary prompt when there is something to
    /// fold. [`Error::InvalidInput`] for a zero window, an empty thread or budgets that leave
    /// no room; nothing is changed then.
    pub fn prepare_begin(
        &mut self,
        messages: Vec<Message>,
        options: PrepareOptions,
        clock: &dyn Fn() -> f64,
    ) -> Result<PrepareStage> {
        let (threshold, keep_tokens, summary_cap, _) = budgets(&options)?;
        crate::scope::user_scope(options.user.as_deref())?;
        let counter = TokenCounter::default();
        let started = clock();
        let mut messages = messages;
        // A cut result must fit in the part kept after a compaction, beside its call and the
        // newest messages: the recent limit is at most half of it, the older one an eighth.
        let limits = ToolResultLimits {
            recent_tokens: options.tool_limits.recent_tokens.min(keep_tokens / 2),
            old_tokens: options.tool_limits.old_tokens.min(keep_tokens / 8),
            recent_count: options.tool_limits.recent_count,
        };
        let (blob_ids, expired_blobs) = match options.now {
            Some(now) => {
                let user = options.user.as_deref();
                let ids =
                    self.compact_tool_results_for(&counter, &mut messages, &limits, user, now)?;
                (ids, self.retain_blobs(now)?)
            }
            None => (
                self.compact_tool_results(&counter, &mut messages, &limits)?,
                Vec::new(),
            ),
        };
        let t1 = clock();
        let check = check_context_with(&counter, &messages, threshold, keep_tokens);
        let (keep, compact) = if check.needs_compaction && !check.to_compact.is_empty() {
            (check.to_keep, check.to_compact)
        } else {
            (messages, Vec::new())
        };
        let prompt = (!compact.is_empty()).then(|| {
            let previous = self
                .running_summary(&options.thread, options.user.as_deref())
                .map(|s| s.node);
            summary_prompt(&counter, previous.as_ref(), &compact, summary_cap)
        });
        let t2 = clock();
        Ok(PrepareStage {
            options,
            keep,
            compact,
            prompt,
            blob_ids,
            expired_blobs,
            total_tokens: check.total_tokens,
            timings: PrepareTimings {
                truncate_ms: t1 - started,
                check_ms: t2 - t1,
                ..PrepareTimings::default()
            },
            started,
        })
    }

    /// The second half of `prepare`: folds the stage's older messages into the running
    /// summary with `answer` (the host LLM's answer to the stage's prompt; `None` without an
    /// LLM, `Some(Err)` when the call failed), then recalls. A malformed or failed answer is
    /// reported in [`Prepared::llm_error`] and the rules write the update instead.
    pub fn prepare_end(
        &mut self,
        stage: PrepareStage,
        answer: Option<core::result::Result<String, String>>,
        clock: &dyn Fn() -> f64,
    ) -> Result<Prepared> {
        let o = &stage.options;
        let (_, _, summary_cap, recall_budget) = budgets(o)?;
        let counter = TokenCounter::default();
        let user = o.user.as_deref();
        let t0 = clock();
        let mut llm_error = None;
        let mut summarized_by = SummarizedBy::None;
        let mut current = self.running_summary(&o.thread, user);
        if !stage.compact.is_empty() {
            let previous = current.as_ref().map(|s| &s.node);
            let from_llm: Option<CompactNode> = match answer {
                None => None,
                Some(Err(message)) => {
                    llm_error = Some(coded(&Error::Host { message }));
                    None
                }
                Some(Ok(text)) => match parse_answer(&text) {
                    Ok(node) => Some(node),
                    Err(e) => {
                        llm_error = Some(coded(&e));
                        None
                    }
                },
            };
            summarized_by = if from_llm.is_some() {
                SummarizedBy::Llm
            } else {
                SummarizedBy::Rules
            };
            let mut node = from_llm.unwrap_or_else(|| fallback_summary(previous, &stage.compact));
            fit_summary(&counter, &mut node, summary_cap);
            let before = current.take().unwrap_or_default();
            let next = RunningSummary {
                node,
                version: before.version + 1,
                updated_at: o.now.unwrap_or(before.updated_at),
                messages: before.messages + stage.compact.len() as u64,
            };
            self.put_running_summary(&o.thread, user, &next)?;
            current = Some(next);
        }
        let t1 = clock();
        let recall = if recall_budget > 0 {
            let mut q = o.recall.clone().unwrap_or_default();
            if q.query_text.is_none() && q.keywords.is_empty() {
                // Match what the user just asked, when the caller names nothing to match.
                q.query_text = stage
                    .keep
                    .iter()
                    .rev()
                    .find(|m| m.role == crate::context::Role::User)
                    .map(|m| m.content.clone());
            }
            q.thread = o.thread.clone();
            q.user = o.user.clone();
            q.budget_tokens = recall_budget;
            q.now = o.now;
            self.recall(&q)?.block
        } else {
            String::new()
        };
        let t2 = clock();
        let summary = current.as_ref().map(RunningSummary::render);
        let kept_tokens: usize = stage.keep.iter().map(|m| m.tokens(&counter)).sum();
        let summary_tokens = summary.as_deref().map_or(0, |s| counter.count(s));
        let recall_tokens = counter.count(&recall);
        let mut timings = stage.timings;
        timings.summarize_ms = t1 - t0;
        timings.recall_ms = t2 - t1;
        timings.total_ms = timings.truncate_ms + timings.check_ms + (t2 - t0);
        Ok(Prepared {
            fits: kept_tokens + summary_tokens + recall_tokens <= o.window,
            messages: stage.keep,
            summary,
            summary_version: current.as_ref().map_or(0, |s| s.version),
            summarized_by,
            compacted: stage.compact.len(),
            recall,
            blob_ids: stage.blob_ids,
            expired_blobs: stage.expired_blobs,
            total_tokens: stage.total_tokens,
            kept_tokens,
            summary_tokens,
            recall_tokens,
            llm_error,
            timings,
        })
    }

    /// `prepare` in one call, for hosts whose LLM answers synchronously: `llm` gets the
    /// summary prompt and returns the answer or why it failed; `None` uses the rules.
    pub fn prepare_with(
        &mut self,
        messages: Vec<Message>,
        options: PrepareOptions,
        llm: Option<&mut SummaryLlm<'_>>,
        clock: &dyn Fn() -> f64,
    ) -> Result<Prepared> {
        let stage = self.prepare_begin(messages, options, clock)?;
        let asked = clock();
        let answer = match (&stage.prompt, llm) {
            (Some(prompt), Some(llm)) => Some(llm(prompt)),
            _ => None,
        };
        // The LLM's wait is part of summarising.
        let waited = clock() - asked;
        let mut prepared = self.prepare_end(stage, answer, clock)?;
        prepared.timings.summarize_ms += waited;
        prepared.timings.total_ms += waited;
        Ok(prepared)
    }

    /// The one call after a turn: adds `turn` with the memories the agent used as its
    /// parents, and learns long-term memory items from it (see [`FinishOptions`]). With
    /// `cite`, the `[id]`s its output cites (records its user may see, [`Store::cited`]) join
    /// the parents it names. Errors as [`Store::add_turn`] (nothing is added) and
    /// [`Store::extract`] (the turn stays added; the error says what failed).
    pub fn finish(&mut self, mut turn: NewTurn, options: FinishOptions) -> Result<Finished> {
        let user = (!turn.user.is_empty()).then_some(turn.user.as_str());
        let cited = if options.cite {
            self.cited(&turn.output, user)?
        } else {
            Vec::new()
        };
        for id in &cited {
            if !turn.parents.contains(id) {
                turn.parents.push(id.clone());
            }
        }
        let added = self.add_turn_with(
            turn,
            AddOptions {
                drop_unknown_parents: options.drop_unknown_parents,
            },
        )?;
        let learned = if options.learn {
            Some(self.extract(&ExtractQuery {
                ids: alloc::vec![added.record.id.clone()],
                ..ExtractQuery::default()
            })?)
        } else {
            None
        };
        Ok(Finished {
            record: added.record,
            cited,
            dropped: added.dropped,
            learned,
        })
    }
}
