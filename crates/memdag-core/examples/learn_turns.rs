//! Learns memory items from a file of turns by the rules, as `memdag ingest FILE --extract`
//! does, and prints every item as one JSON array (the shape of `memdag memory list --all
//! --json`), so the rules can be tried on a conversation without the CLI.
//!
//! ```text
//! cargo run -p memdag-core --release --example learn_turns -- TURNS.jsonl [--speaker-prefix] [--no-embed]
//! ```
//! Each line is a turn in the JSON turn shape. With `--speaker-prefix`, a turn's `text` of the
//! form `"Speaker: utterance"` becomes its input (the LoCoMo turn files). Turns and items get
//! the built-in embedder's vectors, as in the CLI, unless `--no-embed`.

use std::io::{BufRead, Write};
use std::time::Instant;

use memdag_core::json::turn_from_value;
use memdag_core::memory::{ExtractQuery, ItemQuery};
use memdag_core::Store;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a turns file");
    let rest: Vec<String> = args.collect();
    let prefixed = rest.iter().any(|a| a == "--speaker-prefix");
    let file = std::fs::File::open(&path).expect("readable");
    let mut store = Store::new();
    // As the CLI and the component: turns and items without a vector get the built-in one.
    store.set_auto_embed(!rest.iter().any(|a| a == "--no-embed"));
    let mut ids = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line.expect("utf-8");
        if line.trim().is_empty() {
            continue;
        }
        let mut v: serde_json::Value = serde_json::from_str(&line).expect("json");
        if prefixed {
            let text = v["text"].as_str().unwrap_or_default().to_string();
            let said = text.split_once(": ").map_or(text.as_str(), |(_, s)| s);
            v["input"] = said.into();
            v["output"] = "".into();
            if let Some(o) = v.as_object_mut() {
                o.remove("embedding");
                o.remove("text");
            }
        }
        let turn = turn_from_value(v, 0).expect("a turn");
        ids.push(store.add_turn(turn).expect("added").id.clone());
    }
    let started = Instant::now();
    for batch in ids.chunks(256) {
        store
            .extract(&ExtractQuery {
                ids: batch.to_vec(),
                ..ExtractQuery::default()
            })
            .expect("learned");
    }
    let took = started.elapsed().as_secs_f64();
    let items = store
        .list_items(&ItemQuery {
            all: true,
            limit: 10_000,
            ascending: true,
            ..ItemQuery::default()
        })
        .expect("listed");
    eprintln!(
        "{} turns, {} items, extract {:.0} turns/s",
        ids.len(),
        items.len(),
        ids.len() as f64 / took
    );
    let out = std::io::stdout();
    let mut out = out.lock();
    serde_json::to_writer(&mut out, &items).expect("written");
    writeln!(out).expect("written");
}
