//! `memdag demo`: ingest the bundled sample session and show what the store holds.

use serde::Deserialize;

use memdag_host::{CompactNode, Error, Memory, NewTurn, Section, Step};

use crate::show;

/// A sample agent session: two threads of one user, with tool calls and parents.
const SESSION: &str = include_str!("../../../data/demo-session.json");

/// One turn of the sample file: the WIT `new-turn` with defaults, in JSON.
#[derive(Deserialize)]
struct DemoTurn {
    id: String,
    thread: String,
    #[serde(default)]
    user: String,
    #[serde(default)]
    created_at: i64,
    #[serde(default)]
    input: String,
    #[serde(default)]
    output: String,
    #[serde(default)]
    steps: Vec<DemoStep>,
    #[serde(default)]
    parents: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    importance: Option<f32>,
    compact: Option<DemoCompact>,
}

#[derive(Deserialize)]
struct DemoStep {
    tool: String,
    #[serde(default)]
    args: String,
    #[serde(default)]
    result: String,
    ok: bool,
}

#[derive(Deserialize)]
struct DemoCompact {
    summary: String,
    #[serde(default)]
    sections: Vec<DemoSection>,
}

#[derive(Deserialize)]
struct DemoSection {
    name: String,
    text: String,
}

impl From<DemoTurn> for NewTurn {
    fn from(t: DemoTurn) -> Self {
        NewTurn {
            id: Some(t.id),
            thread: t.thread,
            user: t.user,
            created_at: t.created_at,
            input: t.input,
            output: t.output,
            steps: t
                .steps
                .into_iter()
                .map(|s| Step {
                    tool: s.tool,
                    args: s.args,
                    result: s.result,
                    ok: s.ok,
                })
                .collect(),
            parents: t.parents,
            tags: t.tags,
            importance: t.importance,
            compact: t.compact.map(|c| CompactNode {
                summary: c.summary,
                sections: c
                    .sections
                    .into_iter()
                    .map(|s| Section {
                        name: s.name,
                        text: s.text,
                    })
                    .collect(),
            }),
            embedding: None,
        }
    }
}

/// The bundled session, in order.
fn session() -> Vec<NewTurn> {
    let turns: Vec<DemoTurn> =
        serde_json::from_str(SESSION).expect("the bundled demo session is valid JSON");
    turns.into_iter().map(NewTurn::from).collect()
}

/// Adds the turns not yet present, then prints the last thread and the last turn's ancestry.
pub fn run(memory: &mut Memory) -> Result<(), Error> {
    let turns = session();
    let mut added = 0;
    for turn in &turns {
        let id = turn.id.as_deref().unwrap_or_default();
        if memory.get(id)?.is_some() {
            continue;
        }
        let record = memory.add_turn(turn.clone())?;
        println!("  + {}", show::line(&record));
        added += 1;
    }
    let present = turns.len() - added;
    if added == 0 {
        println!(
            "ingested nothing new: all {present} turns of the sample session are already stored"
        );
    } else {
        println!(
            "ingested {added} new turns ({present} were already stored); store now holds {}",
            memory.len()?
        );
    }

    let Some(last) = turns.last() else {
        return Ok(());
    };
    let last_id = last.id.as_deref().unwrap_or_default();
    println!("\nrecent turns of thread {:?} (newest first):", last.thread);
    for r in memory.recent(&last.thread, 5)? {
        println!("  {}", show::line(&r));
    }

    let root = memory.get(last_id)?.ok_or_else(|| {
        Error::Memory(memdag_host::MemoryError::NotFound(format!(
            "NOT_FOUND: demo turn {last_id:?} is missing"
        )))
    })?;
    let ancestors = memory.ancestors(last_id, 16, 1000)?;
    println!(
        "\nDAG ancestors of the last turn {last_id} ({} records, parents indented under children):",
        ancestors.len()
    );
    print!("{}", indent(&show::ancestor_tree(&root, &ancestors), "  "));
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
        let turns = session();
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
