//! The context pipeline (`prepare`, `finish`, `read-blob`): WIT records to the core's and back.

use memdag_core::blob::BlobPage;
use memdag_core::pipeline::{FinishOptions, PrepareOptions, Prepared, SummarizedBy};

use super::context::{limits, message_out};
use super::query::{count, recall_query};
use crate::bindings::exports::memdag::core::context as wit;
use crate::bindings::exports::memdag::core::memory as witm;

/// WIT prepare options as the core's, `now` from the host's clock when none is given.
pub fn prepare_options(o: wit::PrepareOptions) -> PrepareOptions {
    let size = |v: Option<u32>| v.map(|n| n as usize);
    PrepareOptions {
        thread: o.thread,
        user: o.user,
        window: o.window as usize,
        threshold: size(o.threshold),
        keep_tokens: size(o.keep_tokens),
        summary_tokens: size(o.summary_tokens),
        recall_tokens: size(o.recall_tokens),
        tool_limits: o.tool_limits.map(limits).unwrap_or_default(),
        recall: o.recall.map(recall_query),
        now: crate::clock::or_now(o.now),
    }
}

/// A core `prepare` result as the WIT one.
pub fn prepared(p: Prepared) -> wit::Prepared {
    wit::Prepared {
        messages: p.messages.into_iter().map(message_out).collect(),
        summary: p.summary,
        summary_version: p.summary_version,
        summarized_by: match p.summarized_by {
            SummarizedBy::None => wit::SummarizedBy::None,
            SummarizedBy::Llm => wit::SummarizedBy::Llm,
            SummarizedBy::Rules => wit::SummarizedBy::Rules,
        },
        compacted: count(p.compacted),
        recall: p.recall,
        blob_ids: p.blob_ids,
        expired_blobs: p.expired_blobs,
        total_tokens: count(p.total_tokens),
        kept_tokens: count(p.kept_tokens),
        summary_tokens: count(p.summary_tokens),
        recall_tokens: count(p.recall_tokens),
        fits: p.fits,
        llm_error: p.llm_error,
        timings: wit::PrepareTimings {
            truncate_ms: p.timings.truncate_ms,
            check_ms: p.timings.check_ms,
            summarize_ms: p.timings.summarize_ms,
            recall_ms: p.timings.recall_ms,
            total_ms: p.timings.total_ms,
        },
    }
}

/// A core blob page as the WIT one.
pub fn blob_page(p: BlobPage) -> wit::BlobPage {
    wit::BlobPage {
        id: p.id,
        text: p.text,
        from_line: count(p.from_line),
        lines: count(p.lines),
        total_lines: count(p.total_lines),
        next_line: p.next_line.map(count),
    }
}

/// WIT finish options as the core's (learning through the LLM is the component's part).
pub fn finish_options(o: &witm::FinishOptions) -> FinishOptions {
    FinishOptions {
        learn: o.learn && !o.learn_with_llm,
        cite: o.cite,
        drop_unknown_parents: o.drop_unknown_parents,
    }
}
