//! Action-sequence fuzzing of the store and its DAG: any sequence of adds and deletes keeps
//! the invariants, and the persisted change sets always reload to the same store.

mod common;

use common::apply;
use memdag_core::{NewTurn, Store};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
enum Action {
    /// Add a turn whose parents are picked from existing ids by these indexes; `ghost` adds an unknown parent.
    Add {
        thread: u8,
        parents: Vec<prop::sample::Index>,
        ghost: bool,
    },
    Delete(prop::sample::Index),
    /// Persist the change set so far.
    Flush,
}

fn arb_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => (0u8..3, prop::collection::vec(any::<prop::sample::Index>(), 0..3), prop::bool::weighted(0.1))
            .prop_map(|(thread, parents, ghost)| Action::Add { thread, parents, ghost }),
        2 => any::<prop::sample::Index>().prop_map(Action::Delete),
        1 => Just(Action::Flush),
    ]
}

fn check_invariants(store: &Store) {
    for r in store.iter() {
        for p in &r.parents {
            assert!(store.get(p).is_some(), "{} has missing parent {p}", r.id);
            assert!(
                store.children(p).contains(&r.id),
                "children index lacks {p} -> {}",
                r.id
            );
        }
        for c in store.children(&r.id) {
            assert!(store.get(c).unwrap().parents.contains(&r.id));
        }
        let ancestors = store.ancestors(&r.id, usize::MAX, usize::MAX).unwrap();
        assert!(
            ancestors.iter().all(|a| a.id != r.id),
            "cycle through {}",
            r.id
        );
        assert!(
            ancestors.iter().all(|a| a.seq < r.seq),
            "an ancestor is younger than {}",
            r.id
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn any_action_sequence_keeps_the_dag_valid_and_reloads(actions in prop::collection::vec(arb_action(), 1..40)) {
        let mut store = Store::new();
        let mut kv = BTreeMap::new();
        for action in actions {
            let ids: Vec<String> = store.iter().map(|r| r.id.clone()).collect();
            match action {
                Action::Add { thread, parents, ghost } => {
                    let mut ps: Vec<String> = if ids.is_empty() { vec![] } else { parents.iter().map(|i| ids[i.index(ids.len())].clone()).collect() };
                    if ghost { ps.push("ghost".into()); }
                    let before = store.len();
                    let result = store.add_turn(NewTurn { thread: format!("t{thread}"), input: "x".into(), parents: ps, ..Default::default() });
                    prop_assert_eq!(result.is_err(), ghost);
                    prop_assert_eq!(store.len(), before + usize::from(!ghost));
                }
                Action::Delete(i) => {
                    if !ids.is_empty() {
                        store.delete(&ids[i.index(ids.len())]).unwrap();
                    }
                }
                Action::Flush => apply(&mut kv, &mut store),
            }
            check_invariants(&store);
        }
        apply(&mut kv, &mut store);
        let loaded = Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
        prop_assert_eq!(loaded.len(), store.len());
        for r in store.iter() {
            prop_assert_eq!(loaded.get(&r.id), Some(r));
        }
        check_invariants(&loaded);
    }
}
