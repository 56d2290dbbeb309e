//! `memdag ingest FILE.jsonl`: one turn per line, added in batches, progress on stderr.
//!
//! Turns whose id is already stored are skipped, so an interrupted ingest can be run again. A
//! turn without an id gets one derived from its line number and text (`l` and 16 hex digits),
//! so a re-run skips it too: every turn of a file is stored once, however often the ingest was
//! interrupted (a batch is committed whole or not at all).
//! Each batch is one `add-turns` call: all or nothing, with one embedder call for the turns
//! that bring no vector. A bad line stops the ingest with its line number; the batches
//! before it stay stored.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::Instant;

use memdag_host::{Error, Memory, NewTurn};

use crate::turn_json::JsonTurn;

/// Turns per `add-turns` call.
const BATCH: usize = 256;

/// Ingests `file` into `memory`; prints a summary line on `out`.
pub fn run(memory: &mut Memory, file: &Path, out: &mut dyn Write) -> Result<(), Error> {
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
    for (n, line) in reader.lines().enumerate() {
        let line = line?;
        last_line = n + 1;
        if line.trim().is_empty() {
            continue;
        }
        let mut turn = serde_json::from_str::<JsonTurn>(&line)
            .map_err(|e| e.to_string())
            .and_then(JsonTurn::into_new_turn)
            .map_err(|e| bad_line(file, n + 1, &e))?;
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
            added += flush(memory, &mut batch, file, n + 1)?;
            progress.show(added, skipped);
        }
    }
    added += flush(memory, &mut batch, file, last_line)?;
    progress.done(added, skipped);
    writeln!(
        out,
        "ingested {added} turns ({skipped} already stored) in {:.1} s; store holds {}",
        started.elapsed().as_secs_f64(),
        memory.len()?
    )?;
    Ok(())
}

/// Adds a batch; errors name the batch's last line.
fn flush(
    memory: &mut Memory,
    batch: &mut Vec<NewTurn>,
    file: &Path,
    line: usize,
) -> Result<usize, Error> {
    if batch.is_empty() {
        return Ok(0);
    }
    let n = memory
        .add_turns(batch)
        .map_err(|e| bad_line(file, line, &format!("in the batch ending here: {e}")))?
        .len();
    batch.clear();
    Ok(n)
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
