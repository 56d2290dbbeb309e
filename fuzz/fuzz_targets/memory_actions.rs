//! Action sequences over long-term and working memory (add, update, delete, corroborate,
//! contradict, work updates, purge, forget, flush and reload): nothing panics, and after every
//! flush a reload equals the store.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::item::{ItemKind, ItemUpdate, NewItem};
use memdag_core::work::{WorkOp, WorkUpdate};
use memdag_core::{NewTurn, Store};

const WORDS: [&str; 8] = [
    "tea", "Oslo", "Berlin", "jazz", "cats", "上海", "deploy", "--region",
];
const RELATIONS: [&str; 4] = ["residence", "likes", "dislikes", "employer"];

fn dump(s: &Store) -> Vec<String> {
    let mut v: Vec<String> = s.iter().map(|r| format!("{r:?}")).collect();
    v.sort();
    // Working memory is per user and thread: every user's of every thread, and no user's.
    v.push(format!(
        "{:?}",
        s.work_threads()
            .iter()
            .flat_map(|t| [None, Some("ada"), Some("bob")].map(|u| s.working_memory(t, u)))
            .collect::<Vec<_>>()
    ));
    v
}

fuzz_target!(|data: &[u8]| {
    let mut store = Store::new();
    let mut kv: std::collections::BTreeMap<String, Vec<u8>> = Default::default();
    let mut t = 0i64;
    for chunk in data.chunks(3) {
        let (op, a, b) = (
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        );
        t += 1000;
        let user = if a & 1 == 0 { "ada" } else { "bob" };
        let word = WORDS[(a as usize >> 1) % WORDS.len()];
        let ids: Vec<String> = store.iter().map(|r| r.id.clone()).collect();
        let pick = |n: u8| ids.get(n as usize % ids.len().max(1)).cloned();
        match op % 9 {
            0 => {
                let _ = store.add_turn(NewTurn {
                    thread: format!("t{}", b % 3),
                    user: user.into(),
                    created_at: t,
                    input: format!("I live in {word} and love {}", WORDS[b as usize % 8]),
                    parents: pick(b).filter(|_| b & 1 == 1).into_iter().collect(),
                    ..NewTurn::default()
                });
            }
            1 | 2 => {
                let _ = store.add_item(NewItem {
                    kind: Some(ItemKind::ALL[b as usize % 4]),
                    user: user.into(),
                    text: format!("{user} {} {word}", RELATIONS[b as usize % 4]),
                    relation: (b & 4 == 0).then(|| RELATIONS[b as usize % 4].into()),
                    object: Some(word.into()),
                    sources: pick(a)
                        .filter(|i| !i.starts_with('m'))
                        .into_iter()
                        .collect(),
                    created_at: t,
                    ttl_ms: (b & 8 == 8).then_some(2000),
                    ..NewItem::default()
                });
            }
            3 => {
                if let Some(id) = pick(b) {
                    let _ = store.update_item(
                        &id,
                        ItemUpdate {
                            text: Some(format!("now {word}")),
                            at: t,
                            ..ItemUpdate::default()
                        },
                    );
                }
            }
            4 => {
                if let Some(id) = pick(b) {
                    let _ = store.delete_item(&id, t);
                    if b & 1 == 1 {
                        let _ = store.delete(&id);
                    }
                }
            }
            5 => {
                let ops = [
                    WorkOp::Set,
                    WorkOp::Push,
                    WorkOp::Pop,
                    WorkOp::Patch,
                    WorkOp::Remove,
                ];
                let _ = store.update_work(&WorkUpdate {
                    thread: format!("t{}", b % 3),
                    field: ["goal", "tasks", "notes"][a as usize % 3].into(),
                    op: ops[b as usize % 5],
                    value: Some(serde_json::json!({ "x": word })),
                    at: t - (b as i64 % 3) * 1500,
                    user: (b & 8 == 0).then(|| user.into()),
                });
            }
            6 => {
                let _ = store.purge(&memdag_core::erase::PurgeQuery {
                    now: t,
                    expired: true,
                    ..Default::default()
                });
                if b & 1 == 1 {
                    let _ = store.forget_user(user);
                }
            }
            7 => {
                let _ = store.extract(&memdag_core::memory::ExtractQuery {
                    user: Some(user.into()),
                    ..Default::default()
                });
            }
            _ => {
                for c in store.take_changes().expect("encodes") {
                    match c.value {
                        Some(v) => kv.insert(c.key, v),
                        None => kv.remove(&c.key),
                    };
                }
                let loaded =
                    Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).expect("loads");
                assert_eq!(dump(&loaded), dump(&store));
            }
        }
    }
});
