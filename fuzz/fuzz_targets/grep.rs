//! grep with any pattern over a small store: an error or matches, never a panic, and every
//! match's offsets lie inside its field.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::search::GrepQuery;
use memdag_core::{NewTurn, Step, Store};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let pattern = String::from_utf8_lossy(rest).into_owned();
    let mut store = Store::new();
    for (i, text) in [
        "deploy failed: timeout after 30s",
        "日本語のログ\nline two",
        "",
        "αβγ error",
    ]
    .iter()
    .enumerate()
    {
        let _ = store.add_turn(NewTurn {
            thread: "t".into(),
            input: (*text).into(),
            output: format!("out {i}"),
            steps: vec![Step {
                tool: "sh".into(),
                args: (*text).into(),
                result: "ok".into(),
                ok: true,
            }],
            ..Default::default()
        });
    }
    let query = GrepQuery {
        pattern,
        case_insensitive: flags & 1 != 0,
        max_matches: usize::from(flags >> 1) + 1,
        ..Default::default()
    };
    if let Ok(matches) = store.grep(&query) {
        assert!(matches.len() <= query.max_matches);
        for m in matches {
            assert!(m.start <= m.end);
        }
    }
});
