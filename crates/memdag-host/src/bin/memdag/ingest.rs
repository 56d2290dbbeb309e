//! `memdag ingest FILE.jsonl`: one turn per line, added in batches, progress on stderr.
//!
//! Each line is one turn in the JSON turn shape, read by the component (`parse-turn-json`,
//! the core's `json` module, its one owner): a turn without a time gets the host clock's.
//! Turns whose id is already stored are skipped, so an interrupted ingest can be run again. A
//! turn without an id gets one derived from its line number and text (`l` and 16 hex digits),
//! so a re-run skips it too: every turn of a file is stored once, however often the ingest was
//! interrupted (a batch is committed whole or not at all).
//! Each batch is one `add-turns` call: all or nothing, with one embedder call for the turns
//! that bring no vector. A bad line stops the ingest with its line number; the batches
//! before it stay stored. With `--extract`, each batch's turns are then learned from (by the
//! rules, or through the LLM), so memory items come with their turns.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::Instant;

use memdag_host::{Error, Memory, NewTurn};

use crate::{items, Host};

/// Whether and how to learn items from the ingested turns.
pub struct Learn {
    pub extract: bool,
    /// Through the LLM rather than the rules.
    pub llm: bool,
}

/// Turns per `add-turns` call.
const BATCH: usize = 256;

/// Ingests `file` into `memory`; prints a summary line on `out`.
pub fn run(
    memory: &mut Memory,
    file: &Path,
    host: &Host,
    extract: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let learn = Learn {
        extract,
        llm: host.llm,
    };
    let reader = BufReader::new(std::fs::File::open(file).map_err(|e| {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", file.display()),
        ))
    })?);
    let started = Instant::now();
    let mut progress = Progress::new(file);
    let mut batch: Vec<NewTurn> = Vec::with_capacity(BATCH);
    let mut seen = HashSet::new();
    let (mut added, mut skipped, mut last_line) = (0usize, 0usize, 0usize);
    let mut learned = 0usize;
    for (n, line) in reader.lines().enumerate() {
        let line = line?;
        last_line = n + 1;
        if line.trim().is_empty() {
            continue;
        }
        let mut turn = memory
            .parse_turn_json(&line, host.now)
            .map_err(|e| bad_line(file, n + 1, &e.to_string()))?;
        if turn.id.is_none() {
            let mut h = memdag_core::hash::Fnv::new();
            h.write(&(n as u64 + 1).to_le_bytes());
            h.write(line.as_bytes());
            turn.id = Some(format!("l{:016x}", h.finish()));
        }
        if let Some(id) = &turn.id {
            if !seen.insert(id.clone()) || memory.get(id)?.is_some() {
                skipped += 1;
                continue;
            }
        }
        batch.push(turn);
        if batch.len() == BATCH {
            let (n, l) = flush(memory, &mut batch, &learn, file, n + 1)?;
            (added, learned) = (added + n, learned + l);
            progress.show(added, skipped);
        }
    }
    let (n, l) = flush(memory, &mut batch, &learn, file, last_line)?;
    (added, learned) = (added + n, learned + l);
    progress.done(added, skipped);
    let items = if learn.extract {
        format!("; learned {learned} memory items")
    } else {
        String::new()
    };
    writeln!(
        out,
        "ingested {added} turns ({skipped} already stored) in {:.1} s{items}; store holds {}",
        started.elapsed().as_secs_f64(),
        memory.len()?
    )?;
    Ok(())
}

/// Adds a batch, then learns from it if asked; errors name the batch's last line. Returns
/// the turns added and the items learned.
fn flush(
    memory: &mut Memory,
    batch: &mut Vec<NewTurn>,
    learn: &Learn,
    file: &Path,
    line: usize,
) -> Result<(usize, usize), Error> {
    if batch.is_empty() {
        return Ok((0, 0));
    }
    let added = memory
        .add_turns(batch)
        .map_err(|e| bad_line(file, line, &format!("in the batch ending here: {e}")))?;
    batch.clear();
    if !learn.extract {
        return Ok((added.len(), 0));
    }
    let ids: Vec<String> = added.into_iter().map(|r| r.id).collect();
    let report = items::learn_from(memory, &ids, learn.llm).map_err(|e| {
        bad_line(
            file,
            line,
            &format!("learning from the batch ending here (its turns are stored): {e}"),
        )
    })?;
    Ok((ids.len(), report.learned.len()))
}

fn bad_line(file: &Path, n: usize, message: &str) -> Error {
    Error::Io(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("{}:{n}: {message}", file.display()),
    ))
}

/// Progress on stderr: a line at most every half second, and a last one when done.
struct Progress {
    started: Instant,
    last: Instant,
    name: String,
}

impl Progress {
    fn new(file: &Path) -> Self {
        let now = Instant::now();
        Progress {
            started: now,
            last: now,
            name: file.display().to_string(),
        }
    }

    fn show(&mut self, added: usize, skipped: usize) {
        if self.last.elapsed().as_millis() < 500 {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        eprintln!(
            "ingest {}: {added} added, {skipped} skipped, {:.0} turns/s",
            self.name,
            added as f64 / secs
        );
    }

    fn done(&mut self, added: usize, skipped: usize) {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        eprintln!(
            "ingest {}: done, {added} added, {skipped} skipped, {:.0} turns/s",
            self.name,
            added as f64 / secs
        );
    }
}
