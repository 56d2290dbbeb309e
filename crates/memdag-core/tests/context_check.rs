//! `check_context`: never splits a tool call from its results or a user message from its reply.

use memdag_core::context::{
    check_context, count_tokens, ContextCheck, Message, Role, MESSAGE_OVERHEAD,
};
use proptest::prelude::*;

fn words(n: usize) -> String {
    vec!["lorem"; n].join(" ")
}

/// One step of a generated conversation.
#[derive(Debug, Clone)]
enum Op {
    System(usize),
    User(usize),
    Reply(usize),
    /// An assistant message with `calls` tool calls; `answered` of them get results, in an
    /// order rotated by `rot`, each `len` words long.
    Calls {
        calls: usize,
        answered: usize,
        rot: usize,
        len: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (0usize..20).prop_map(Op::System),
        4 => (0usize..60).prop_map(Op::User),
        4 => (0usize..60).prop_map(Op::Reply),
        4 => (1usize..4, 0usize..4, 0usize..4, 0usize..200)
            .prop_map(|(calls, answered, rot, len)| Op::Calls { calls, answered: answered.min(calls), rot, len }),
    ]
}

fn build(ops: &[Op]) -> Vec<Message> {
    let mut out = Vec::new();
    let mut next_id = 0;
    for op in ops {
        match op {
            Op::System(n) => out.push(Message::new(Role::System, words(*n))),
            Op::User(n) => out.push(Message::new(Role::User, words(*n))),
            Op::Reply(n) => out.push(Message::new(Role::Assistant, words(*n))),
            Op::Calls {
                calls,
                answered,
                rot,
                len,
            } => {
                let ids: Vec<String> = (0..*calls)
                    .map(|i| format!("call{}", next_id + i))
                    .collect();
                next_id += calls;
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                out.push(Message::tool_call("calling", &refs));
                for k in 0..*answered {
                    let id = &ids[(k + rot) % calls];
                    out.push(Message::tool_result(id.clone(), words(*len)));
                }
            }
        }
    }
    out
}

/// Checks every invariant of a split; returns the cut index.
fn check_split(messages: &[Message], c: &ContextCheck) -> usize {
    let head = messages
        .iter()
        .take_while(|m| m.role == Role::System)
        .count();
    assert_eq!(
        c.to_compact.len() + c.to_keep.len(),
        messages.len(),
        "no message lost or added"
    );
    assert_eq!(
        &c.to_keep[..head],
        &messages[..head],
        "leading system messages kept"
    );
    let cut = head + c.to_compact.len();
    assert_eq!(c.to_compact.as_slice(), &messages[head..cut]);
    assert_eq!(&c.to_keep[head..], &messages[cut..]);
    let compacted_calls: Vec<&String> = c.to_compact.iter().flat_map(|m| &m.tool_calls).collect();
    let kept_calls: Vec<&String> = c.to_keep.iter().flat_map(|m| &m.tool_calls).collect();
    for m in &c.to_keep[head..] {
        if let Some(id) = &m.tool_call_id {
            assert!(
                !compacted_calls.contains(&id) || kept_calls.contains(&id),
                "result {id} kept, its call compacted"
            );
        }
    }
    for m in &c.to_compact {
        if let Some(id) = &m.tool_call_id {
            assert!(
                !kept_calls.contains(&id),
                "result {id} compacted, its call kept"
            );
        }
    }
    if let (Some(last), Some(first)) = (c.to_compact.last(), c.to_keep.get(head)) {
        assert!(
            !(last.role == Role::User && first.role == Role::Assistant),
            "user message split from its reply"
        );
    }
    assert_eq!(c.compact_tokens + c.keep_tokens, c.total_tokens);
    if !c.needs_compaction {
        assert!(c.to_compact.is_empty());
    }
    cut
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_splits_a_call_from_its_result(
        ops in prop::collection::vec(op(), 0..40),
        threshold in 0usize..3000,
        reserve in 0usize..1500,
    ) {
        let messages = build(&ops);
        let c = check_context(&messages, threshold, reserve);
        check_split(&messages, &c);
        prop_assert_eq!(c.needs_compaction, c.total_tokens > threshold);
    }
}

#[test]
fn under_the_threshold_nothing_is_compacted() {
    let messages = vec![
        Message::new(Role::User, "hi"),
        Message::new(Role::Assistant, "hello"),
    ];
    let c = check_context(&messages, 1000, 10);
    assert!(!c.needs_compaction);
    assert!(c.to_compact.is_empty());
    assert_eq!(c.to_keep, messages);
    assert_eq!(
        c.total_tokens,
        count_tokens("hi") + count_tokens("hello") + 2 * MESSAGE_OVERHEAD
    );
}

#[test]
fn keeps_the_newest_exchange_within_the_reserve() {
    let mut messages = vec![Message::new(Role::System, "be brief")];
    for i in 0..5 {
        messages.push(Message::new(Role::User, words(50)));
        messages.push(Message::tool_call("looking", &[&format!("c{i}")]));
        messages.push(Message::tool_result(format!("c{i}"), words(100)));
        messages.push(Message::new(Role::Assistant, words(30)));
    }
    let c = check_context(&messages, 100, 400);
    assert!(c.needs_compaction);
    let cut = check_split(&messages, &c);
    assert_eq!(c.to_keep[0].role, Role::System);
    assert_eq!(
        c.to_keep[1].role,
        Role::User,
        "the kept tail starts at an exchange"
    );
    assert!(c.keep_tokens - (count_tokens("be brief") + MESSAGE_OVERHEAD) <= 400);
    assert!(cut > 1 && cut < messages.len());
}

#[test]
fn an_oversized_last_exchange_is_still_kept() {
    let messages = vec![
        Message::new(Role::User, words(10)),
        Message::new(Role::Assistant, words(10)),
        Message::new(Role::User, words(500)),
        Message::new(Role::Assistant, words(500)),
    ];
    let c = check_context(&messages, 10, 5);
    check_split(&messages, &c);
    assert_eq!(c.to_compact.len(), 2);
    assert_eq!(c.to_keep.len(), 2);
}

#[test]
fn one_unsplittable_exchange_compacts_nothing() {
    let messages = vec![
        Message::new(Role::User, words(300)),
        Message::new(Role::Assistant, words(300)),
    ];
    let c = check_context(&messages, 10, 5);
    assert!(c.needs_compaction);
    assert!(c.to_compact.is_empty());
    assert_eq!(c.to_keep, messages);
}
