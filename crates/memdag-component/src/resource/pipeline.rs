//! The context pipeline of the `store` resource: `prepare`, `finish`, `read-blob`,
//! `retain-blobs` and `running-summary` (the trait methods in `guest` call these).

use memdag_core::memory::ExtractQuery;

use super::{llm, MemoryStore};
use crate::bindings::exports::memdag::core::context::{
    BlobPage, Message, PrepareOptions, Prepared,
};
use crate::bindings::exports::memdag::core::memory::{FinishOptions, Finished};
use crate::bindings::memdag::core::types::{Error, NewTurn};
use crate::convert::{self, learn as cl, pipeline as cp};

/// Milliseconds on the component's monotonic clock (WASI), for `prepare`'s timings.
fn monotonic_ms(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

impl MemoryStore {
    pub(super) fn prepare_messages(
        &self,
        messages: Vec<Message>,
        options: PrepareOptions,
    ) -> Result<Prepared, Error> {
        let use_llm = options.use_llm;
        let messages = messages
            .into_iter()
            .map(convert::context::message)
            .collect();
        let options = cp::prepare_options(options);
        let start = std::time::Instant::now();
        let clock = || monotonic_ms(start);
        let mut ask = |prompt: &str| {
            crate::bindings::memdag::core::llm::complete(prompt)
                .map_err(|message| format!("LLM call failed: {message}"))
        };
        let llm: Option<&mut memdag_core::pipeline::SummaryLlm<'_>> =
            if use_llm { Some(&mut ask) } else { None };
        self.mutate(|s| s.prepare_with(messages, options, llm, &clock))
            .map(cp::prepared)
    }

    pub(super) fn finish_turn(
        &self,
        turn: NewTurn,
        options: FinishOptions,
    ) -> Result<Finished, Error> {
        let mut turns = [convert::new_turn(turn)];
        self.embed_turns(&mut turns)?;
        let [turn] = turns;
        let core_options = cp::finish_options(&options);
        let with_llm = options.learn && options.learn_with_llm;
        self.mutate(|s| {
            let mut finished = s.finish(turn, core_options)?;
            if with_llm {
                let query = ExtractQuery {
                    ids: vec![finished.record.id.clone()],
                    ..ExtractQuery::default()
                };
                finished.learned = Some(s.extract_with(&query, &mut llm)?);
            }
            Ok(Finished {
                record: convert::record(s, &finished.record),
                cited: finished.cited,
                dropped: finished.dropped,
                learned: finished.learned.map(cl::extract_report),
            })
        })
    }

    pub(super) fn read_blob_page(
        &self,
        id: String,
        from_line: u32,
        lines: u32,
        user: Option<String>,
    ) -> Result<BlobPage, Error> {
        self.with_store(|s| {
            s.read_blob_as(user.as_deref(), &id, from_line as usize, lines as usize)
                .map(cp::blob_page)
        })
    }

    pub(super) fn retain(&self, now: Option<i64>) -> Result<Vec<String>, Error> {
        let now = crate::clock::or_now(now).unwrap_or_default();
        self.mutate(|s| s.retain_blobs(now))
    }

    pub(super) fn summary_of(
        &self,
        thread: String,
        user: Option<String>,
    ) -> Result<Option<String>, Error> {
        self.with_store(|s| {
            let user = memdag_core::scope::user_scope(user.as_deref())?;
            Ok(s.running_summary(&thread, user).map(|r| r.render()))
        })
    }
}
