//! The context pipeline from JS: one call before a turn (`prepare`), one after (`finish`), and
//! reading a cut tool result back (`readBlob`), over memdag-core's [`memdag_core::pipeline`].
//!
//! `prepare(messages, options)` cuts oversized tool results into blobs, splits the messages
//! without parting a tool call from its result, folds the older part into the thread's running
//! summary by the rules, and recalls. A host with an LLM runs the two halves itself:
//! `prepareBegin(messages, options)` returns a stage, a plain object whose `prompt` (when not
//! `null`) asks the LLM for the new summary; `prepareEnd(stage, answer)` takes the model's text,
//! `{ error }` when the call failed, or `null` for the rules. `PersistentMemory.prepare`
//! (pkg/pipeline.js) runs them with the memory's `complete`.
//!
//! Options are `{ thread, user, window, threshold, keepTokens, summaryTokens, recallTokens,
//! toolLimits: { recentTokens, oldTokens, recentCount }, recall, now }`: `recall` is a recall
//! query (`queryText`, `weights`, ...) whose `thread`, `user`, `budgetTokens` and `now` are
//! prepare's own. `now` defaults to the host clock (see [`crate::clock`]): without it the core
//! would give cut tool results no age and run no retention. The stage carries the options with
//! `now` filled in, so both halves use one time.
//!
//! Timings come from `performance.now()` ([`crate::clock::monotonic_ms`]). The stage records
//! when the first half ended (`readyAt`); when `prepareEnd` gets an answer, the time since then
//! (the LLM's wait) counts in `summarizeMs` and `totalMs`, which the core cannot see.
//!
//! `llmError` is the core's "CODE: message" split into `{ code, message }`, as a JS error has
//! them.

use js_sys::{Object, Reflect};
use memdag_core::blob::BlobPage;
use memdag_core::context::ToolResultLimits;
use memdag_core::pipeline::{
    FinishOptions, PrepareOptions, PrepareStage, PrepareTimings, Prepared, SummarizedBy,
};
use memdag_core::Error;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::context::{messages_from_js, MessageJs};
use crate::error::throw;
use crate::extract::llm_answer;
use crate::fields::{parse_object, parse_object_with, parse_optional, property, to_plain};
use crate::fields::{to_plain_json, with_property};
use crate::memory::{string, Memory};
use crate::recall::RecallInput;
use crate::turn::{record_to_js, turn_from_js};

/// Tool result limits as JS writes them.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct ToolLimitsInput {
    recent_tokens: Option<usize>,
    old_tokens: Option<usize>,
    recent_count: Option<usize>,
}

/// The options of `prepare` as JS writes them (see the module docs).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PrepareInput {
    thread: Option<String>,
    user: Option<String>,
    window: Option<usize>,
    threshold: Option<usize>,
    keep_tokens: Option<usize>,
    summary_tokens: Option<usize>,
    recall_tokens: Option<usize>,
    tool_limits: Option<ToolLimitsInput>,
    recall: Option<RecallInput>,
    now: Option<i64>,
}

impl PrepareInput {
    /// The core's options, `now` taken from `clock()` when missing. A missing thread or
    /// window is left empty for the core to refuse, naming it.
    pub fn into_options(self, clock: impl FnOnce() -> i64) -> PrepareOptions {
        let now = self.now.unwrap_or_else(clock);
        let d = ToolResultLimits::default();
        let l = self.tool_limits.unwrap_or_default();
        PrepareOptions {
            thread: self.thread.unwrap_or_default(),
            user: self.user,
            window: self.window.unwrap_or(0),
            threshold: self.threshold,
            keep_tokens: self.keep_tokens,
            summary_tokens: self.summary_tokens,
            recall_tokens: self.recall_tokens,
            tool_limits: ToolResultLimits {
                recent_tokens: l.recent_tokens.unwrap_or(d.recent_tokens),
                old_tokens: l.old_tokens.unwrap_or(d.old_tokens),
                recent_count: l.recent_count.unwrap_or(d.recent_count),
            },
            recall: self.recall.map(|r| r.into_query(|| now)),
            now: Some(now),
        }
    }
}

/// The first half of `prepare` as JS holds it; `options` is set beside it (the JS object the
/// caller gave, with `now`).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct StageJs {
    prompt: Option<String>,
    keep: Vec<MessageJs>,
    compact: Vec<MessageJs>,
    blob_ids: Vec<String>,
    expired_blobs: Vec<String>,
    total_tokens: usize,
    timings: PrepareTimings,
    started: f64,
    ready_at: f64,
}

/// Why the host's LLM gave no summary, as a JS error has it.
#[derive(Debug, PartialEq, Serialize)]
struct LlmError {
    code: String,
    message: String,
}

/// The core's "CODE: message" as `{ code, message }`; a text without a code prefix is `HOST`.
fn llm_error(coded: &str) -> LlmError {
    match coded.split_once(": ") {
        Some((code, message))
            if !code.is_empty() && code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') =>
        {
            LlmError {
                code: code.into(),
                message: message.into(),
            }
        }
        _ => LlmError {
            code: "HOST".into(),
            message: coded.into(),
        },
    }
}

/// What `prepare` answers in JS.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PreparedJs {
    messages: Vec<MessageJs>,
    summary: Option<String>,
    summary_version: u32,
    summarized_by: SummarizedBy,
    compacted: usize,
    recall: String,
    blob_ids: Vec<String>,
    expired_blobs: Vec<String>,
    total_tokens: usize,
    kept_tokens: usize,
    summary_tokens: usize,
    recall_tokens: usize,
    fits: bool,
    llm_error: Option<LlmError>,
    timings: PrepareTimings,
}

impl From<Prepared> for PreparedJs {
    fn from(p: Prepared) -> Self {
        PreparedJs {
            messages: p.messages.into_iter().map(MessageJs::from).collect(),
            summary: p.summary,
            summary_version: p.summary_version,
            summarized_by: p.summarized_by,
            compacted: p.compacted,
            recall: p.recall,
            blob_ids: p.blob_ids,
            expired_blobs: p.expired_blobs,
            total_tokens: p.total_tokens,
            kept_tokens: p.kept_tokens,
            summary_tokens: p.summary_tokens,
            recall_tokens: p.recall_tokens,
            fits: p.fits,
            llm_error: p.llm_error.as_deref().map(llm_error),
            timings: p.timings,
        }
    }
}

/// The `prompt`, messages and timings of a core stage, for JS.
fn stage_to_js(stage: PrepareStage, ready_at: f64) -> StageJs {
    StageJs {
        prompt: stage.prompt,
        keep: stage.keep.into_iter().map(MessageJs::from).collect(),
        compact: stage.compact.into_iter().map(MessageJs::from).collect(),
        blob_ids: stage.blob_ids,
        expired_blobs: stage.expired_blobs,
        total_tokens: stage.total_tokens,
        timings: stage.timings,
        started: stage.started,
        ready_at,
    }
}

/// A core stage of a JS stage and its options.
fn stage_from_js(stage: StageJs, options: PrepareOptions) -> PrepareStage {
    PrepareStage {
        options,
        keep: stage.keep.into_iter().map(Into::into).collect(),
        compact: stage.compact.into_iter().map(Into::into).collect(),
        prompt: stage.prompt,
        blob_ids: stage.blob_ids,
        expired_blobs: stage.expired_blobs,
        total_tokens: stage.total_tokens,
        timings: stage.timings,
        started: stage.started,
    }
}

/// The LLM's wait, `entered - ready_at`, added to the summary step and the total; a stage from
/// another clock (negative or not finite) adds nothing.
fn add_wait(timings: &mut PrepareTimings, ready_at: f64, entered: f64) {
    let wait = entered - ready_at;
    if wait.is_finite() && wait > 0.0 {
        timings.summarize_ms += wait;
        timings.total_ms += wait;
    }
}

/// `readBlob`'s options.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct ReadBlobInput {
    from_line: Option<usize>,
    lines: Option<usize>,
    user: Option<String>,
}

/// A thread's running summary in JS: its Markdown beside its parts.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SummaryJs {
    summary: String,
    node: memdag_core::CompactNode,
    version: u32,
    updated_at: i64,
    messages: u64,
}

fn optional_user(user: &JsValue) -> Result<Option<String>, JsValue> {
    if user.is_undefined() || user.is_null() {
        Ok(None)
    } else {
        string("user", user).map(Some)
    }
}

#[wasm_bindgen]
impl Memory {
    /// One call before a turn, by the rules (no LLM): see the module docs. Returns `{ messages,
    /// summary, summaryVersion, summarizedBy, compacted, recall, blobIds, expiredBlobs,
    /// totalTokens, keptTokens, summaryTokens, recallTokens, fits, llmError, timings }`. Throws
    /// `INVALID_INPUT` (no thread, no window, budgets leaving no room, a malformed message);
    /// nothing is changed then.
    pub fn prepare(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let messages = messages_from_js(messages)?;
        let options = parse_object::<PrepareInput>("prepare options", options)
            .map_err(throw)?
            .into_options(clock::now);
        self.write(|s| {
            let p = s.prepare_with(messages, options, None, &clock::monotonic_ms)?;
            to_plain("prepared", &PreparedJs::from(p))
        })
    }

    /// The first half of `prepare`: cuts tool results (storing their blobs), splits the
    /// messages and, when something must be folded into the running summary, sets the stage's
    /// `prompt` for the host's LLM. Returns the stage, to hand to `prepareEnd` as it came.
    #[wasm_bindgen(js_name = prepareBegin)]
    pub fn prepare_begin(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let messages = messages_from_js(messages)?;
        let input: PrepareInput =
            parse_object("prepare options", options.clone()).map_err(throw)?;
        let now = input.now.unwrap_or_else(clock::now);
        let core = input.into_options(|| now);
        let stage = self.write(|s| s.prepare_begin(messages, core, &clock::monotonic_ms))?;
        let js =
            to_plain("prepare stage", &stage_to_js(stage, clock::monotonic_ms())).map_err(throw)?;
        let pinned = with_property(&options, "now", &JsValue::from_f64(now as f64));
        Reflect::set(&js, &"options".into(), &pinned)?;
        Ok(js)
    }

    /// The second half of `prepare`: folds the stage's older messages into the running
    /// summary with `answer` (the LLM's text for the stage's `prompt`; `{ error }` when the
    /// call failed; `null` or omitted: the rules), then recalls. An answer that fails or does
    /// not parse is reported in `llmError` and the rules write the summary. Throws
    /// `INVALID_INPUT` for a malformed stage or answer.
    #[wasm_bindgen(js_name = prepareEnd)]
    pub fn prepare_end(&self, stage: JsValue, answer: JsValue) -> Result<JsValue, JsValue> {
        let entered = clock::monotonic_ms();
        let max = self.max_field_bytes()?;
        let options = property(&stage, "options").unwrap_or(JsValue::UNDEFINED);
        let options = parse_object::<PrepareInput>("stage.options", options)
            .map_err(throw)?
            .into_options(clock::now);
        let js: StageJs =
            parse_object_with("prepare stage", stage, max, &["options"]).map_err(throw)?;
        let answer = if answer.is_undefined() || answer.is_null() {
            None
        } else {
            Some(llm_answer(&answer)?)
        };
        let waited = answer.is_some() && js.prompt.is_some();
        let ready_at = js.ready_at;
        let core = stage_from_js(js, options);
        self.write(|s| {
            let mut p = s.prepare_end(core, answer, &clock::monotonic_ms)?;
            if waited {
                add_wait(&mut p.timings, ready_at, entered);
            }
            to_plain("prepared", &PreparedJs::from(p))
        })
    }

    /// The one call after a turn: adds `turn` with the `[id]`s its output cites as parents
    /// (`cite`), dropping parents no record has (`dropUnknownParents`) and learning items by
    /// the rules (`learn`); every option defaults to true. Returns `{ record, cited, dropped,
    /// learned }`. Throws as `addTurn` (nothing is added).
    pub fn finish(&self, turn: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let turn = turn_from_js(turn, self.max_field_bytes()?, clock::now).map_err(throw)?;
        let options: FinishOptions = parse_optional("finish options", options).map_err(throw)?;
        self.write(|s| {
            let f = s.finish(turn, options)?;
            let out = Object::new();
            let set = |name: &str, value: JsValue| {
                Reflect::set(&out, &name.into(), &value)
                    .map(|_| ())
                    .map_err(|_| Error::invalid("could not build the finish answer"))
            };
            set("record", record_to_js(s, &f.record)?)?;
            set("cited", to_plain("cited", &f.cited)?)?;
            set("dropped", to_plain("dropped", &f.dropped)?)?;
            let learned = match &f.learned {
                Some(report) => to_plain_json("extract report", report)?,
                None => JsValue::NULL,
            };
            set("learned", learned)?;
            Ok(out.into())
        })
    }

    /// Lines of a blob (a cut tool result's full text), from `fromLine` (counted from 1; the
    /// line a truncation marker names) for `lines` lines (default and most 2,000): `{ id, text,
    /// fromLine, lines, totalLines, nextLine }`; pages read one after another concatenate to
    /// the exact text. With `user`, only a blob stored for them or referenced by a record they
    /// may see. Throws `NOT_FOUND` for a missing (or, with a user, another user's) blob.
    #[wasm_bindgen(js_name = readBlob)]
    pub fn read_blob(&self, id: &JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        let o: ReadBlobInput = parse_optional("read options", options).map_err(throw)?;
        self.read(|s| {
            let page: BlobPage = s.read_blob_as(
                o.user.as_deref(),
                &id,
                o.from_line.unwrap_or(1),
                o.lines.unwrap_or(0),
            )?;
            to_plain("blob page", &page)
        })
    }

    /// Removes the stored tool outputs older than the memory setting `blobMaxAgeMs` at `now`
    /// (default the host clock) that no record references; returns their ids.
    #[wasm_bindgen(js_name = retainBlobs)]
    pub fn retain_blobs(&self, now: Option<f64>) -> Result<Vec<String>, JsValue> {
        let now = clock::time_arg("now", now).map_err(throw)?;
        self.write(|s| s.retain_blobs(now))
    }

    /// The running summary `prepare` keeps for `thread` and `user` (omitted: no user's), as
    /// `{ summary, node, version, updatedAt, messages }`, or `undefined`.
    #[wasm_bindgen(js_name = runningSummary)]
    pub fn running_summary(&self, thread: &JsValue, user: &JsValue) -> Result<JsValue, JsValue> {
        let thread = string("thread", thread)?;
        let user = optional_user(user)?;
        self.read(|s| match s.running_summary(&thread, user.as_deref()) {
            None => Ok(JsValue::UNDEFINED),
            Some(r) => to_plain_json(
                "running summary",
                &SummaryJs {
                    summary: r.render(),
                    node: r.node,
                    version: r.version,
                    updated_at: r.updated_at,
                    messages: r.messages,
                },
            ),
        })
    }

    /// Forgets the running summary of `thread` for `user`, so the next compaction starts a new
    /// one; returns whether there was one.
    #[wasm_bindgen(js_name = clearRunningSummary)]
    pub fn clear_running_summary(&self, thread: &JsValue, user: &JsValue) -> Result<bool, JsValue> {
        let thread = string("thread", thread)?;
        let user = optional_user(user)?;
        self.write(|s| Ok(s.clear_running_summary(&thread, user.as_deref())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_llm_error_splits_into_code_and_message() {
        assert_eq!(
            llm_error("HOST: host callback failed: boom"),
            LlmError {
                code: "HOST".into(),
                message: "host callback failed: boom".into()
            }
        );
        assert_eq!(llm_error("INVALID_INPUT: x: y").code, "INVALID_INPUT");
        assert_eq!(llm_error("no code here").code, "HOST");
        assert_eq!(llm_error("Lower: case").message, "Lower: case");
    }

    #[test]
    fn the_llm_wait_counts_in_summarize_and_total() {
        let mut t = PrepareTimings {
            summarize_ms: 1.0,
            total_ms: 3.0,
            ..PrepareTimings::default()
        };
        add_wait(&mut t, 10.0, 25.0);
        assert_eq!((t.summarize_ms, t.total_ms), (16.0, 18.0));
        add_wait(&mut t, 30.0, 25.0);
        add_wait(&mut t, f64::NAN, 25.0);
        assert_eq!((t.summarize_ms, t.total_ms), (16.0, 18.0));
    }

    #[test]
    fn options_take_the_clock_and_the_default_limits() {
        let o = PrepareInput {
            thread: Some("t".into()),
            window: Some(1000),
            tool_limits: Some(ToolLimitsInput {
                old_tokens: Some(9),
                ..ToolLimitsInput::default()
            }),
            ..PrepareInput::default()
        }
        .into_options(|| 42);
        assert_eq!(o.now, Some(42));
        assert_eq!(o.tool_limits.old_tokens, 9);
        assert_eq!(
            o.tool_limits.recent_tokens,
            ToolResultLimits::default().recent_tokens
        );
        let pinned = PrepareInput {
            now: Some(7),
            ..PrepareInput::default()
        };
        assert_eq!(pinned.into_options(|| panic!("not read")).now, Some(7));
    }
}
