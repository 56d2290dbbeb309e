//! Markdown import, any text: refused with an error or imported; an imported store writes and
//! reloads, and its own export imports back to the same files.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::Store;

const MARK: &str = "<!-- memdag markdown export v1 -->\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Two files from one input: a thread file and a memory file, both with the mark.
    let (a, b) = text.split_at(
        text.char_indices()
            .nth(text.chars().count() / 2)
            .map_or(text.len(), |(i, _)| i),
    );
    let files = vec![
        ("threads/a-00000000.md".to_string(), format!("{MARK}{a}")),
        ("memory/u-00000000.md".to_string(), format!("{MARK}{b}")),
    ];
    let mut store = Store::new();
    if store.import_markdown(&files).is_err() {
        assert!(store.is_empty(), "a refused import adds nothing");
        return;
    }
    let exported = store.export_markdown();
    let mut again = Store::new();
    again.import_markdown(&exported).expect("an export imports");
    assert_eq!(
        again.export_markdown(),
        exported,
        "export, import, export is stable"
    );
    let changes = store.take_changes().expect("an imported store encodes");
    let entries: Vec<(String, Vec<u8>)> = changes
        .into_iter()
        .filter_map(|c| c.value.map(|v| (c.key, v)))
        .collect();
    let loaded = Store::load(entries).expect("what was written loads");
    assert_eq!(loaded.len(), store.len());
});
