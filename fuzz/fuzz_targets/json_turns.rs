//! Turns as JSON, any bytes: parsed or refused, and a parsed turn is added or refused with an
//! error; a store that took it writes and reloads.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::{NewTurn, Store};

fuzz_target!(|data: &[u8]| {
    let Ok(turn) = serde_json::from_slice::<NewTurn>(data) else {
        return;
    };
    let mut store = Store::new();
    if store.add_turn(turn).is_ok() {
        let changes = store.take_changes().expect("a stored turn encodes");
        let entries: Vec<(String, Vec<u8>)> = changes
            .into_iter()
            .filter_map(|c| c.value.map(|v| (c.key, v)))
            .collect();
        let loaded = Store::load(entries).expect("what was written loads");
        assert_eq!(loaded.len(), 1);
    }
});
