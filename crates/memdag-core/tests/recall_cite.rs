//! Citing memories: ids the agent says it used become the new record's parents.

use memdag_core::recall::RecallQuery;
use memdag_core::{Error, NewTurn, Store};

fn turn(id: &str, parents: &[&str]) -> NewTurn {
    NewTurn {
        id: Some(id.into()),
        thread: "t".into(),
        user: "ada".into(),
        input: format!("input {id}"),
        parents: parents.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    }
}

#[test]
fn cited_ids_become_parents() {
    let mut store = Store::new();
    store.add_turn(turn("a", &[])).unwrap();
    store.add_turn(turn("b", &[])).unwrap();
    // The agent recalls, then cites what it used when it closes its turn.
    let recall = store
        .recall(&RecallQuery {
            thread: "t".into(),
            ..Default::default()
        })
        .unwrap();
    let cited: Vec<&str> = recall.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(cited, ["b", "a"]);
    let record = store.add_turn(turn("c", &cited)).unwrap();
    assert_eq!(record.parents, ["b", "a"]);
    let ancestors: Vec<&str> = store
        .ancestors("c", 5, 10)
        .unwrap()
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(ancestors, ["b", "a"]);
    assert_eq!(store.children("a"), ["c"]);
    // Citing the same id twice records one edge.
    let record = store.add_turn(turn("d", &["c", "c", "a"])).unwrap();
    assert_eq!(record.parents, ["c", "a"]);
}

#[test]
fn unknown_citations_are_listed_and_nothing_is_written() {
    let mut store = Store::new();
    store.add_turn(turn("a", &[])).unwrap();
    store.take_changes().unwrap();
    let err = store
        .add_turn(turn("c", &["a", "ghost", "phantom"]))
        .unwrap_err();
    assert_eq!(
        err,
        Error::UnknownParents {
            ids: vec!["ghost".into(), "phantom".into()]
        }
    );
    assert_eq!(err.code(), "UNKNOWN_PARENT");
    assert!(err.to_string().contains("ghost, phantom"));
    assert!(store.get("c").is_none());
    assert_eq!(store.len(), 1);
    assert!(!store.has_changes());
}
