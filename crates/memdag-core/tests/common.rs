//! Helpers shared by the core's integration tests.
#![allow(dead_code)]

use memdag_core::{NewTurn, Step, Store};

/// A turn on `thread` with the given input and parents.
pub fn turn(id: &str, thread: &str, input: &str, parents: &[&str]) -> NewTurn {
    NewTurn {
        id: Some(id.into()),
        thread: thread.into(),
        user: "ada".into(),
        created_at: 1_700_000_000_000,
        input: input.into(),
        output: format!("answer to {input}"),
        steps: vec![Step {
            tool: "search".into(),
            args: "{\"q\":1}".into(),
            result: "ok".into(),
            ok: true,
        }],
        parents: parents.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    }
}

/// Applies a change set to a key-value map, as a host would.
pub fn apply(kv: &mut std::collections::BTreeMap<String, Vec<u8>>, store: &mut Store) {
    for c in store.take_changes().expect("encode") {
        match c.value {
            Some(v) => {
                kv.insert(c.key, v);
            }
            None => {
                kv.remove(&c.key);
            }
        }
    }
}
