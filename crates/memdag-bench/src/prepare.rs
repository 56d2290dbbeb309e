//! `prepare` at size: the context pipeline's one call before a turn
//! ([`Store::prepare_with`]), timed on a built workload store.
//!
//! The conversation is the workload user's, in one of its threads: a system message, then 10
//! turns of four messages (a request, an assistant tool call, its result, a reply), the tool
//! outputs 40 lines (about 1,000 tokens) and every third one oversized (400 lines, about
//! 10,000 tokens), and a new request: 42 messages, about 38,000 tokens. The window is 8,000
//! tokens, so every call cuts the tool outputs into blobs, splits the messages, folds the
//! older ones into the running summary by the rules (no LLM), and recalls with the request as
//! query text. The calls repeat on one store, each after the one before wrote its
//! summary update, as an agent's turns do.

use memdag_core::context::{Message, Role};
use memdag_core::pipeline::PrepareOptions;
use memdag_core::recall::RecallQuery;
use memdag_core::Store;

/// Timed `prepare` calls (after one warm-up).
pub const PREPARE_CALLS: usize = 50;
/// The model window of the timed calls, in tokens.
pub const WINDOW: usize = 8000;

fn message(role: Role, content: String) -> Message {
    Message {
        role,
        content,
        ..Message::default()
    }
}

/// The conversation `prepare` gets (see the module docs).
pub fn conversation() -> Vec<Message> {
    let mut out = vec![message(Role::System, "You are a deploy agent.".into())];
    for turn in 1..=10 {
        let call = format!("call-{turn}");
        let lines = if turn % 3 == 0 { 400 } else { 40 };
        let log: String = (0..lines)
            .map(|i| {
                format!("turn {turn} line {i}: step ok, artifact /srv/app/build-{turn}-{i}.tar\n")
            })
            .collect();
        out.push(message(
            Role::User,
            format!("Turn {turn}: deploy service {turn} to staging."),
        ));
        out.push(Message {
            role: Role::Assistant,
            content: format!("Running the deploy script for service {turn}."),
            tool_calls: vec![call.clone()],
            ..Message::default()
        });
        out.push(Message {
            role: Role::Tool,
            content: log,
            tool_call_id: Some(call),
            ..Message::default()
        });
        out.push(message(
            Role::Assistant,
            format!("Service {turn} is deployed."),
        ));
    }
    out.push(message(
        Role::User,
        "What did we decide about the canary for the last deploy?".into(),
    ));
    out
}

/// The times of [`PREPARE_CALLS`] `prepare` calls (after one warm-up) on `store` for thread
/// `thread` of user `user` at time `now`, in ms of `clock`. Panics unless every call compacts
/// and fits: the benchmark must time what it says.
pub fn prepare_times(
    store: &mut Store,
    thread: &str,
    user: &str,
    now: i64,
    clock: &dyn Fn() -> f64,
) -> Vec<f64> {
    let messages = conversation();
    let request = messages.last().map(|m| m.content.clone());
    let mut times = Vec::with_capacity(PREPARE_CALLS);
    for call in 0..=PREPARE_CALLS {
        let options = PrepareOptions {
            thread: thread.into(),
            user: Some(user.into()),
            window: WINDOW,
            recall: Some(RecallQuery {
                query_text: request.clone(),
                ..RecallQuery::default()
            }),
            now: Some(now),
            ..PrepareOptions::default()
        };
        let input = messages.clone();
        let t = clock();
        let p = store
            .prepare_with(input, options, None, clock)
            .expect("prepare");
        let ms = clock() - t;
        assert!(p.fits && p.compacted > 0, "prepare compacts and fits");
        if call > 0 {
            times.push(ms);
        }
    }
    times
}
