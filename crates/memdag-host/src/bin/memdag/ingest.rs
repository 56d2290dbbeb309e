//! `memdag ingest FILE.jsonl`: one turn per line, added in batches, progress on stderr.
//!
//! Each line is one turn in the JSON turn shape, read by the component (`parse-turn-json`,
//! the core's `json` module, its one owner): a turn without a time gets the host clock's.
//! Turns whose id is already stored are skipped, so an interrupted ingest can be run again. A
//! turn without an id gets one derived from its content: `c` and 16 hex digits hashing the
//! line's JSON value (keys sorted, so spacing, key order and blank lines do not matter) and
//! how many turns with the same content came before it in the file. So a re-run skips it,
//! even of a reformatted file, and two equal turns of one file (a user who says "yes" twice)
//! stay two. Ids given by earlier versions (`l` and 16 hex digits, from the line number and
//! text) are still recognised: a turn stored under its old id is skipped too.
//!
//! A turn whose id is stored (or came earlier in the file) with other text (thread, user,
//! input, output or steps) is not added either, and it is reported: counted in the summary,
//! its ids on stderr and in the `--json` summary.
//!
//! Each batch is one `add-turns` call: all or nothing, with one embedder call for the turns
//! that bring no vector. A bad line (not UTF-8, not a turn, longer than [`MAX_LINE_BYTES`])
//! stops the ingest with its line number; the batches before it stay stored. With
//! `--extract`, each batch's turns are then learned from (by the rules, or through the LLM),
//! so memory items come with their turns.

use std::collections::HashMap;
use std::io::{BufReader, Write};
use std::path::Path;
use std::time::Instant;

use memdag_core::hash::Fnv;
use memdag_host::lines::{read_line, Line};
use memdag_host::{Error, Memory, NewTurn, Step};

use crate::{items, Host};

/// Whether and how to learn items from the ingested turns.
pub struct Learn {
    pub extract: bool,
    /// Through the LLM rather than the rules.
    pub llm: bool,
}

/// Turns per `add-turns` call.
const BATCH: usize = 256;
/// The longest line read, in bytes: far above any turn the limits let in, far below what
/// `ingest /dev/zero` would take.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// Conflicting ids listed on stderr.
const LISTED: usize = 20;

/// What a turn says, for telling a repeat from a conflict.
fn fingerprint(thread: &str, user: &str, input: &str, output: &str, steps: &[Step]) -> u64 {
    let mut h = Fnv::new();
    for part in [thread, user, input, output] {
        h.write(&(part.len() as u64).to_le_bytes());
        h.write(part.as_bytes());
    }
    for s in steps {
        for part in [&s.tool, &s.args, &s.result] {
            h.write(&(part.len() as u64).to_le_bytes());
            h.write(part.as_bytes());
        }
        h.write(&[u8::from(s.ok)]);
    }
    h.finish()
}

/// `value` as JSON text with every object's keys sorted.
fn canonical(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The content hash of a line's JSON value (see the module docs).
fn content_hash(line: &str) -> u64 {
    let mut text = String::new();
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(v) => canonical(&v, &mut text),
        // The component read the line as a turn, so it is JSON; the raw text is a fallback.
        Err(_) => text.push_str(line.trim()),
    }
    let mut h = Fnv::new();
    h.write(text.as_bytes());
    h.finish()
}

/// The id of the `occurrence`-th turn (from 0) with content hash `content` in a file.
fn content_id(content: u64, occurrence: u32) -> String {
    let mut h = Fnv::new();
    h.write(&content.to_le_bytes());
    h.write(&occurrence.to_le_bytes());
    format!("c{:016x}", h.finish())
}

/// The id earlier versions gave an id-less turn: its line number and text.
fn line_id(number: usize, line: &str) -> String {
    let mut h = Fnv::new();
    h.write(&(number as u64).to_le_bytes());
    h.write(line.as_bytes());
    format!("l{:016x}", h.finish())
}

/// What an ingest did.
#[derive(Default)]
struct Tally {
    added: usize,
    skipped: usize,
    learned: usize,
    /// Ids stored (or earlier in the file) with other text: not added.
    conflicts: Vec<String>,
}

/// Ingests `file` into `memory`; prints a summary line (JSON with `json`) on `out`.
pub fn run(
    memory: &mut Memory,
    file: &Path,
    host: &Host,
    extract: bool,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let learn = Learn {
        extract,
        llm: host.llm,
    };
    let mut reader = BufReader::new(std::fs::File::open(file).map_err(|e| {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", file.display()),
        ))
    })?);
    let started = Instant::now();
    let mut progress = Progress::new(file);
    let mut batch: Vec<NewTurn> = Vec::with_capacity(BATCH);
    // Each id of the file so far, with what its turn says.
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut occurrences: HashMap<u64, u32> = HashMap::new();
    let mut tally = Tally::default();
    let (mut number, mut bytes) = (0usize, Vec::new());
    loop {
        match read_line(&mut reader, &mut bytes, MAX_LINE_BYTES)? {
            Line::End => break,
            Line::TooLong => {
                return Err(bad_line(
                    file,
                    number + 1,
                    &format!("the line is longer than {} MiB", MAX_LINE_BYTES >> 20),
                ))
            }
            Line::Read => number += 1,
        }
        let line = std::str::from_utf8(&bytes)
            .map_err(|e| bad_line(file, number, &format!("the line is not UTF-8 ({e})")))?;
        if line.trim().is_empty() {
            continue;
        }
        let mut turn = memory
            .parse_turn_json(line, host.now)
            .map_err(|e| bad_line(file, number, &e.to_string()))?;
        if turn.id.is_none() {
            if memory.get(&line_id(number, line))?.is_some() {
                tally.skipped += 1;
                continue;
            }
            let content = content_hash(line);
            let occurrence = occurrences.entry(content).or_insert(0);
            turn.id = Some(content_id(content, *occurrence));
            *occurrence += 1;
        }
        let id = turn.id.clone().expect("set above");
        let says = fingerprint(
            &turn.thread,
            &turn.user,
            &turn.input,
            &turn.output,
            &turn.steps,
        );
        let before = match seen.get(&id) {
            Some(&f) => Some(f),
            None => memory
                .get(&id)?
                .map(|r| fingerprint(&r.thread, &r.user, &r.input, &r.output, &r.steps)),
        };
        if let Some(said) = before {
            tally.skipped += 1;
            if said != says {
                tally.conflicts.push(id);
            }
            continue;
        }
        seen.insert(id, says);
        batch.push(turn);
        if batch.len() == BATCH {
            let (n, l) = flush(memory, &mut batch, &learn, file, number)?;
            (tally.added, tally.learned) = (tally.added + n, tally.learned + l);
            progress.show(tally.added, tally.skipped);
        }
    }
    let (n, l) = flush(memory, &mut batch, &learn, file, number)?;
    (tally.added, tally.learned) = (tally.added + n, tally.learned + l);
    progress.done(tally.added, tally.skipped);
    report(memory, file, &tally, &learn, started, json, out)
}

/// The summary on `out`, and the conflicts on stderr.
fn report(
    memory: &mut Memory,
    file: &Path,
    tally: &Tally,
    learn: &Learn,
    started: Instant,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let conflicts = &tally.conflicts;
    if !conflicts.is_empty() {
        let listed: Vec<String> = conflicts
            .iter()
            .take(LISTED)
            .map(|id| crate::terminal::escape(id).into_owned())
            .collect();
        let more = conflicts.len().saturating_sub(LISTED);
        eprintln!(
            "ingest {}: {} turns not added: their id is stored with other text (the stored turn is kept): {}{}",
            file.display(),
            conflicts.len(),
            listed.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        );
    }
    let stored = memory.len()?;
    let seconds = started.elapsed().as_secs_f64();
    if json {
        let mut v = serde_json::json!({
            "added": tally.added, "skipped": tally.skipped, "conflicts": conflicts,
            "stored": stored, "seconds": seconds,
        });
        if learn.extract {
            v["learned"] = tally.learned.into();
        }
        writeln!(out, "{v}")?;
        return Ok(());
    }
    let items = if learn.extract {
        format!("; learned {} memory items", tally.learned)
    } else {
        String::new()
    };
    let conflicting = if conflicts.is_empty() {
        String::new()
    } else {
        format!(
            ", {} of them with other text than the stored turn",
            conflicts.len()
        )
    };
    writeln!(
        out,
        "ingested {} turns ({} already stored{conflicting}) in {seconds:.1} s{items}; store holds {stored}",
        tally.added, tally.skipped,
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
