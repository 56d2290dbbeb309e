//! `memdag prepare`, `finish`, `read-blob`, `threads` and `users`: the context pipeline of an
//! agent loop through the component, one call before a turn and one after.
//!
//! `prepare` reads the conversation's messages as JSON (the core's message shape, read by
//! [`memdag_core::json::messages_from_json`]) and `finish` a turn in the JSON turn shape;
//! `--json` prints what the component answered in the core's JSON shapes ([`crate::shape`]).

use std::io::{Read, Write};
use std::path::Path;

use memdag_host::{finish_options, prepare_options, recall_query, Error, Group, Memory, Prepared};

use crate::args::{ContextCmd, Finish, Prepare};
use crate::{shape, Host};

/// The text of `path`, `-` being stdin.
fn read_input(path: &Path) -> Result<String, Error> {
    let mut text = String::new();
    if path == Path::new("-") {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(path)?;
    }
    Ok(text)
}

/// An input error as the core's INVALID_INPUT, the code every face gives bad input.
fn invalid(e: memdag_core::Error) -> Error {
    Error::memory(memdag_host::ErrorCode::InvalidInput, e.to_string())
}

pub fn run(
    memory: &mut Memory,
    cmd: &ContextCmd,
    host: &Host,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    match cmd {
        ContextCmd::Prepare(p) => prepare(memory, p, host, json, out),
        ContextCmd::Finish(f) => finish(memory, f, host, json, out),
        ContextCmd::ReadBlob {
            id,
            from_line,
            lines,
            user,
        } => {
            let page = memory.read_blob(id, *from_line, *lines, user.as_deref())?;
            if json {
                writeln!(out, "{}", shape::line(&shape::blob_page(&page)))?;
            } else {
                write!(out, "{}", page.text)?;
                let last = page.from_line + page.lines.saturating_sub(1);
                match page.next_line {
                    Some(next) => eprintln!(
                        "lines {}-{last} of {}; read on with --from-line {next}",
                        page.from_line, page.total_lines
                    ),
                    None => eprintln!(
                        "lines {}-{last} of {} (the end)",
                        page.from_line, page.total_lines
                    ),
                }
            }
            Ok(())
        }
        ContextCmd::Threads => groups(memory.thread_groups()?, json, out),
        ContextCmd::Users => groups(memory.user_groups()?, json, out),
    }
}

fn prepare(
    memory: &mut Memory,
    p: &Prepare,
    host: &Host,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let text = read_input(&p.messages)?;
    let messages: Vec<_> = memdag_core::json::messages_from_json(&text)
        .map_err(invalid)?
        .into_iter()
        .map(shape::message_in)
        .collect();
    let mut options = prepare_options(&p.thread, p.user.as_deref(), p.window);
    options.threshold = p.threshold;
    options.keep_tokens = p.keep;
    options.summary_tokens = p.summary_tokens;
    options.recall_tokens = p.recall_tokens;
    options.now = Some(host.now);
    options.use_llm = host.llm;
    if let Some(q) = &p.query {
        let mut recall = recall_query(&p.thread, p.user.as_deref());
        recall.query_text = Some(q.clone());
        options.recall = Some(recall);
    }
    let prepared = memory.prepare(&messages, &options)?;
    if json {
        writeln!(out, "{}", shape::line(&shape::prepared(&prepared)))?;
    } else {
        write!(out, "{}", report(&prepared, messages.len(), p.window))?;
    }
    Ok(())
}

/// What `prepare` did, for people.
fn report(p: &Prepared, given: usize, window: u32) -> String {
    let by = match p.summarized_by {
        memdag_host::SummarizedBy::None => "nothing folded".to_string(),
        memdag_host::SummarizedBy::Llm => format!("{} folded by the LLM", p.compacted),
        memdag_host::SummarizedBy::Rules => format!("{} folded by the rules", p.compacted),
    };
    let mut s = format!(
        "kept {} of {given} messages ({} tokens); {by}; summary v{} ({} tokens); recall {} tokens; {} the window of {window}\n",
        p.messages.len(),
        p.kept_tokens,
        p.summary_version,
        p.summary_tokens,
        p.recall_tokens,
        if p.fits { "fits" } else { "does not fit" },
    );
    if !p.blob_ids.is_empty() {
        s += &format!(
            "tool results cut, full text in: {}\n",
            p.blob_ids.join(", ")
        );
    }
    if !p.expired_blobs.is_empty() {
        s += &format!(
            "stored tool outputs past their age removed: {}\n",
            p.expired_blobs.join(", ")
        );
    }
    if let Some(e) = &p.llm_error {
        s += &format!("LLM: {e} (the rules wrote the summary)\n");
    }
    let t = &p.timings;
    s += &format!(
        "ms: truncate {:.2}, check {:.2}, summarize {:.2}, recall {:.2}, total {:.2}\n",
        t.truncate_ms, t.check_ms, t.summarize_ms, t.recall_ms, t.total_ms
    );
    if let Some(summary) = &p.summary {
        s += &format!("\n{summary}\n");
    }
    if !p.recall.is_empty() {
        s += &format!("\n{}\n", p.recall);
    }
    s
}

fn finish(
    memory: &mut Memory,
    f: &Finish,
    host: &Host,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let text = read_input(&f.turn)?;
    let turn = memory.parse_turn_json(text.trim(), host.now)?;
    let mut options = finish_options();
    options.learn = f.learn;
    options.learn_with_llm = f.learn && host.llm;
    options.cite = f.cite;
    options.drop_unknown_parents = !f.strict_parents;
    let done = memory.finish(&turn, options)?;
    if json {
        let value = serde_json::json!({
            "id": done.record.id,
            "parents": done.record.parents,
            "cited": done.cited,
            "dropped": done.dropped,
            "learned": done.learned.as_ref().map(shape::report),
        });
        writeln!(out, "{}", shape::line(&value))?;
    } else {
        writeln!(
            out,
            "added {} (parents: {})",
            done.record.id,
            done.record.parents.join(", ")
        )?;
        if !done.dropped.is_empty() {
            writeln!(out, "dropped unknown parents: {}", done.dropped.join(", "))?;
        }
        if let Some(r) = &done.learned {
            writeln!(out, "learned {} items from it", r.learned.len())?;
        }
    }
    Ok(())
}

fn groups(groups: Vec<Group>, json: bool, out: &mut dyn Write) -> Result<(), Error> {
    for g in groups {
        let core = memdag_core::store::Group {
            name: g.name,
            count: g.count as usize,
            newest: g.newest,
        };
        if json {
            writeln!(out, "{}", shape::line(&core))?;
        } else {
            let at = crate::show::utc(core.newest);
            writeln!(
                out,
                "{}  {} records  newest {at} UTC",
                core.name, core.count
            )?;
        }
    }
    Ok(())
}
