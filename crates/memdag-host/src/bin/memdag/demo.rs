//! `memdag demo`: ingest the bundled sample session, compact its tool loops and learn from
//! it, then show what the store holds.

use std::io::Write;

use memdag_host::{Compactor, Error, Memory, NewTurn};

use crate::{items, show};

/// A sample agent session: two threads of one user, with tool calls and parents, as a JSON
/// array of turns in the JSON turn shape.
const SESSION: &str = include_str!("../../../data/demo-session.json");

/// The bundled session's turns as JSON values, in order.
fn session() -> Vec<serde_json::Value> {
    serde_json::from_str(SESSION).expect("the bundled demo session is a JSON array")
}

/// Adds the turns not yet present, gives each new turn with tool steps its compact node (the
/// extractive compactor: the demo needs no LLM), learns long-term items from the new turns by
/// the rules, then prints the last thread and the last turn's ancestry.
pub fn run(memory: &mut Memory, now: i64, out: &mut dyn Write) -> Result<(), Error> {
    let turns = session()
        .iter()
        .map(|t| memory.parse_turn_json(&t.to_string(), now))
        .collect::<Result<Vec<NewTurn>, Error>>()?;
    let mut new_ids = Vec::new();
    for turn in &turns {
        let id = turn.id.as_deref().unwrap_or_default();
        if memory.get(id)?.is_some() {
            continue;
        }
        let record = memory.add_turn(turn.clone())?;
        writeln!(out, "  + {}", show::line(&record))?;
        if !record.steps.is_empty() {
            memory.compact(&record.id, Compactor::Extractive)?;
        }
        new_ids.push(record.id);
    }
    let added = new_ids.len();
    let present = turns.len() - added;
    if added > 0 {
        let learned = items::learn_from(memory, &new_ids, false)?;
        writeln!(
            out,
            "compacted the tool loops; learned {} long-term memory items by the rules",
            learned.learned.len()
        )?;
    }
    if added == 0 {
        writeln!(
            out,
            "ingested nothing new: all {present} turns of the sample session are already stored"
        )?;
    } else {
        writeln!(
            out,
            "ingested {added} new turns ({present} were already stored); store now holds {}",
            memory.len()?
        )?;
    }

    let Some(last) = turns.last() else {
        return Ok(());
    };
    let last_id = last.id.as_deref().unwrap_or_default();
    writeln!(
        out,
        "\nrecent turns of thread {:?} (newest first):",
        last.thread
    )?;
    for r in memory.recent(&last.thread, 5)? {
        writeln!(out, "  {}", show::line(&r))?;
    }

    let root = memory.get(last_id)?.ok_or_else(|| {
        Error::memory(
            memdag_host::ErrorCode::NotFound,
            format!("demo turn {last_id:?} is missing"),
        )
    })?;
    let ancestors = memory.ancestors(last_id, 16, 1000)?;
    writeln!(
        out,
        "\nDAG ancestors of the last turn {last_id} ({} records, parents indented under children):",
        ancestors.len()
    )?;
    write!(
        out,
        "{}",
        indent(&show::ancestor_tree(&root, &ancestors), "  ")
    )?;
    Ok(())
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_session_is_a_valid_dag() {
        // The core's parser, which the component runs for `demo`.
        let turns: Vec<memdag_core::NewTurn> = session()
            .into_iter()
            .map(|t| memdag_core::json::turn_from_value(t, 0).expect("a valid turn"))
            .collect();
        assert_eq!(turns.len(), 12);
        let mut seen: Vec<&str> = Vec::new();
        for t in &turns {
            for p in &t.parents {
                assert!(
                    seen.contains(&p.as_str()),
                    "{:?} names a later parent {p}",
                    t.id
                );
            }
            seen.push(t.id.as_deref().unwrap());
        }
        let threads: std::collections::BTreeSet<&str> =
            turns.iter().map(|t| t.thread.as_str()).collect();
        assert_eq!(threads.len(), 2);
    }
}
