//! One JSON turn shape for every face: the WIT component, fed the lines of
//! `tests/data/cross-face/turns.jsonl` through `add-turn-json`, stores exactly the bytes the
//! core does (the committed `tests/data/cross-face/snapshot.mdagexp`, checked by the core's
//! `tests/cross_face.rs` and the JS package's `tests/node/cross-face.test.mjs`).

mod common;

use common::runtime;
use memdag_host::{MemKv, OpenOptions};

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/cross-face")
        .join(name)
}

#[test]
fn the_component_stores_the_same_bytes_as_the_core() {
    let mut memory = runtime()
        .open_with(MemKv::default(), OpenOptions::new().no_embeddings())
        .unwrap();
    let text = std::fs::read_to_string(data("turns.jsonl")).unwrap();
    for line in text.lines() {
        memory.add_turn_json(line, -1).unwrap();
    }
    let c1 = memory.get("c1").unwrap().unwrap();
    assert!(c1.steps[0].ok, "a step's ok defaults to true");
    let entries = memory.export_snapshot().unwrap();
    let file = memory.encode_snapshot(&entries).unwrap();
    let expected = std::fs::read(data("snapshot.mdagexp")).unwrap();
    assert_eq!(file, expected);
    // And the file reads back.
    assert_eq!(memory.decode_snapshot(&file).unwrap(), entries);
    assert_eq!(
        memory.decode_snapshot(b"MDAGEXP1\x05").unwrap_err().code(),
        Some("INVALID_INPUT")
    );
}
