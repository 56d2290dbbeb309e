//! One JSON turn shape for every face: the turns of `tests/data/cross-face/turns.jsonl`, read
//! with the core's JSON shape and added in order, give exactly the snapshot committed in
//! `tests/data/cross-face/snapshot.mdagexp`. The JS package (`tests/node/cross-face.test.mjs`)
//! and the WIT component under Wasmtime (`crates/memdag-host/tests/cross_face.rs`) add the same
//! lines through their own faces and must store the same bytes.

use memdag_core::json::turn_from_json;
use memdag_core::Store;

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/cross-face")
        .join(name)
}

#[test]
fn the_core_stores_the_committed_bytes() {
    let text = std::fs::read_to_string(data("turns.jsonl")).unwrap();
    let mut store = Store::new();
    for line in text.lines() {
        // `now` never applies: every line gives its time.
        store.add_turn(turn_from_json(line, -1).unwrap()).unwrap();
    }
    let c1 = store.get("c1").unwrap();
    assert!(c1.steps[0].ok, "a step's ok defaults to true");
    assert_eq!(c1.steps[0].args, r#"{"cmd":"init"}"#);
    assert!(!c1.steps[1].ok);
    assert_eq!(store.get("c3").unwrap().created_at, 1_715_173_200_000);
    assert_eq!(
        store.get("c3").unwrap().input,
        "bob's turn with text for input"
    );
    assert_eq!(store.get("c4").unwrap().created_at, 1_715_241_600_250);
    let file = store.export_snapshot().unwrap();
    let path = data("snapshot.mdagexp");
    if std::env::var_os("MEMDAG_WRITE_FIXTURES").is_some() && !path.exists() {
        std::fs::write(&path, &file).unwrap();
    }
    let expected = std::fs::read(&path).expect("the committed snapshot");
    assert_eq!(
        file, expected,
        "the core's bytes changed: a format change needs a new fixture"
    );
}
