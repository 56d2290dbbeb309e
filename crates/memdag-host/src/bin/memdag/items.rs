//! `memdag memory ...` and `memdag purge`: long-term memory items through the component.
//!
//! Text output is one line per item (`id  [kind] text  (vN, status, ...)`); `--json` prints
//! the core's JSON shape of what the component answered ([`crate::shape`]): one value, or for
//! `memory list` one JSON array.

use std::io::Write;

use memdag_host::{
    extract_query, item_query, item_update, new_item, purge_query, resolution_query, Error,
    ExtractReport, Learned, Memory, MemoryItem,
};

use crate::args::{AddItem, ItemChange, ListItems, MemoryCmd, Purge};
use crate::{shape, show, Host};

/// `m1a2b…  [personal] Lives in Berlin  (v2, active, 1 corroboration, expires 2026-12-01 10:00)`
pub fn line(i: &MemoryItem) -> String {
    let mut notes = vec![
        format!("v{}", i.version),
        shape::status(i.status).name().into(),
    ];
    if i.corroborations > 0 {
        notes.push(format!("corroborated {}x", i.corroborations));
    }
    if let Some(at) = i.expires_at {
        notes.push(format!("expires {} UTC", show::utc(at)));
    }
    format!(
        "{}  [{}] {}  ({})",
        i.id,
        shape::kind(i.kind).name(),
        show::clip(&i.text, 80),
        notes.join(", ")
    )
}

fn print_learned(l: &Learned, json: bool, out: &mut dyn Write) -> Result<(), Error> {
    if json {
        writeln!(out, "{}", shape::line(&shape::learned(l)))?;
    } else {
        let outcome = serde_json::to_value(shape::learned(l).outcome).unwrap_or_default();
        writeln!(
            out,
            "{}: {}",
            outcome.as_str().unwrap_or("?"),
            line(&l.item)
        )?;
        if !l.others.is_empty() {
            writeln!(out, "  others: {}  ({})", l.others.join(", "), l.reason)?;
        }
    }
    Ok(())
}

fn print_report(r: &ExtractReport, json: bool, out: &mut dyn Write) -> Result<(), Error> {
    if json {
        return Ok(writeln!(out, "{}", shape::line(&shape::report(r)))?);
    }
    for l in &r.learned {
        print_learned(l, false, out)?;
    }
    for id in &r.retracted {
        writeln!(out, "retracted: {id}")?;
    }
    for f in &r.refused {
        let which = f
            .fact
            .map_or(String::from("the answer"), |i| format!("fact {i}"));
        let code = shape::refusal_code(f.code);
        writeln!(
            out,
            "refused: batch {}, {which}: {code}: {}",
            f.batch, f.message
        )?;
    }
    if !r.by_rules.is_empty() {
        writeln!(
            out,
            "learned by the rules instead: {}",
            r.by_rules.join(", ")
        )?;
    }
    if let Some(c) = r.llm {
        writeln!(
            out,
            "LLM: {} calls, {} prompt and {} answer tokens (estimated)",
            c.calls, c.prompt_tokens, c.answer_tokens
        )?;
    }
    writeln!(
        out,
        "learned {} items from {} turns",
        r.learned.len(),
        r.turns
    )?;
    Ok(())
}

/// An optional time (TIME) in ms.
fn time(memory: &mut Memory, text: &Option<String>) -> Result<Option<i64>, Error> {
    text.as_deref()
        .map(|t| memory.parse_timestamp(t))
        .transpose()
}

fn add(memory: &mut Memory, a: &AddItem, host: &Host) -> Result<Learned, Error> {
    let mut item = new_item(a.kind, &a.user, &a.text);
    item.created_at = host.now;
    let f = &a.fields;
    item.subject.clone_from(&f.subject);
    item.relation.clone_from(&f.relation);
    item.object.clone_from(&f.object);
    item.task.clone_from(&f.task);
    item.tool.clone_from(&f.tool);
    item.importance = f.importance;
    item.sources.clone_from(&a.sources);
    item.ttl_ms = f
        .ttl
        .as_deref()
        .map(|t| memory.parse_duration(t))
        .transpose()?;
    memory.add_item(&item)
}

fn update(memory: &mut Memory, id: &str, c: &ItemChange, host: &Host) -> Result<MemoryItem, Error> {
    let mut u = item_update(host.now);
    u.text.clone_from(&c.text);
    u.subject.clone_from(&c.subject);
    u.relation.clone_from(&c.relation);
    u.object.clone_from(&c.object);
    u.task.clone_from(&c.task);
    u.tool.clone_from(&c.tool);
    u.importance = c.importance;
    u.ttl_ms = match c.ttl.as_deref() {
        None => None,
        Some("none") => Some(0),
        Some(t) => Some(memory.parse_duration(t)?),
    };
    memory.update_item(id, &u)
}

fn list(memory: &mut Memory, l: &ListItems, host: &Host) -> Result<Vec<MemoryItem>, Error> {
    let mut q = item_query();
    q.user.clone_from(&l.user);
    q.kinds.clone_from(&l.kinds);
    q.all = l.all;
    q.as_of = time(memory, &l.as_of)?;
    q.since = time(memory, &l.since)?;
    q.until = time(memory, &l.until)?;
    q.now = Some(host.now);
    q.order = l.order;
    q.offset = l.offset;
    if l.limit.is_some() {
        q.limit = l.limit;
        return memory.list_items(&q);
    }
    // Without `--limit`, every item: page by page (a page is at most the core's 10,000).
    let mut all = Vec::new();
    loop {
        q.limit = Some(LIST_PAGE);
        let page = memory.list_items(&q)?;
        let done = page.len() < LIST_PAGE as usize;
        q.offset += page.len() as u32;
        all.extend(page);
        if done {
            return Ok(all);
        }
    }
}

/// Items a page of `memory list` without `--limit`.
const LIST_PAGE: u32 = 10_000;

/// The item `id`, or the component's not-found error.
fn existing(item: Option<MemoryItem>, id: &str) -> Result<MemoryItem, Error> {
    item.ok_or_else(|| {
        Error::memory(
            memdag_host::ErrorCode::NotFound,
            format!("no item with id {id:?}"),
        )
    })
}

/// Runs `memdag memory ...`.
pub fn run(
    memory: &mut Memory,
    cmd: &MemoryCmd,
    host: &Host,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let print = |i: &MemoryItem, out: &mut dyn Write| -> Result<(), Error> {
        if json {
            writeln!(out, "{}", shape::line(&shape::item(i)))?;
        } else {
            writeln!(out, "{}", line(i))?;
        }
        Ok(())
    };
    match cmd {
        MemoryCmd::Add(a) => print_learned(&add(memory, a, host)?, json, out)?,
        MemoryCmd::Get { id, user } => {
            let found = match user {
                Some(u) => memory.get_item_as(u, id)?,
                None => memory.get_item(id)?,
            };
            let item = existing(found, id)?;
            print(&item, out)?;
            if !json {
                for v in &item.history {
                    writeln!(
                        out,
                        "  v{} until {} UTC: {}",
                        v.version,
                        show::utc(v.valid_until),
                        v.text
                    )?;
                }
                writeln!(out, "  sources: {}", item.sources.join(", "))?;
            }
        }
        MemoryCmd::Update { id, change } => print(&update(memory, id, change, host)?, out)?,
        MemoryCmd::Delete { id } => print(&memory.delete_item(id, host.now)?, out)?,
        MemoryCmd::History { id, user } => {
            let history = match user {
                Some(u) => memory.item_history_as(u, id)?,
                None => memory.item_history(id)?,
            };
            if json {
                let entries: Vec<_> = history.iter().map(shape::history_entry).collect();
                writeln!(out, "{}", shape::line(&entries))?;
            }
            for h in history.iter().filter(|_| !json) {
                let until = h
                    .valid_until
                    .map_or("now".into(), |t| format!("{} UTC", show::utc(t)));
                writeln!(
                    out,
                    "{}  v{}  {} UTC to {until}  [{}] {}",
                    h.id,
                    h.version,
                    show::utc(h.valid_from),
                    shape::status(h.status).name(),
                    h.text
                )?;
            }
        }
        MemoryCmd::List(l) => {
            let items = list(memory, l, host)?;
            if json {
                let items: Vec<_> = items.iter().map(shape::item).collect();
                writeln!(out, "{}", shape::line(&items))?;
            } else {
                for i in &items {
                    print(i, out)?;
                }
            }
        }
        MemoryCmd::Settings { set } => {
            let mut config = shape::config(&memory.memory_config()?);
            if let Some(changes) = set {
                config = changed_config(config, changes)?;
                memory.set_memory_config(&shape::config_in(config.clone()))?;
            }
            // Printed from the settings themselves, so f32 values keep their short form.
            let text = if json {
                shape::line(&config)
            } else {
                serde_json::to_string_pretty(&config).unwrap_or_default()
            };
            writeln!(out, "{text}")?;
        }
        MemoryCmd::Resolutions { user } => {
            let mut q = resolution_query();
            q.user.clone_from(user);
            let log = memory.resolutions(&q)?;
            if json {
                let log: Vec<_> = log.iter().map(shape::logged).collect();
                writeln!(out, "{}", shape::line(&log))?;
            }
            for r in log.iter().filter(|_| !json) {
                let logged = shape::logged(r);
                let other = r
                    .other
                    .as_deref()
                    .map(|o| format!(" ({o})"))
                    .unwrap_or_default();
                let why = if r.reason.is_empty() {
                    String::new()
                } else {
                    format!(": {}", r.reason)
                };
                writeln!(
                    out,
                    "{} UTC  {}  {}{other} by {}{why}",
                    show::utc(r.at),
                    r.item,
                    logged.resolution.action.name(),
                    r.by,
                )?;
            }
        }
        MemoryCmd::Extract { ids, thread, user } => {
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            let mut q = extract_query(&ids);
            q.thread.clone_from(thread);
            q.user.clone_from(user);
            let report = if host.llm {
                memory.extract_with_llm(&q)?
            } else {
                memory.extract(&q)?
            };
            print_report(&report, json, out)?;
        }
    }
    Ok(())
}

/// Learns from the turns just ingested, by the rules or through the LLM.
pub fn learn_from(memory: &mut Memory, ids: &[String], llm: bool) -> Result<ExtractReport, Error> {
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let q = extract_query(&ids);
    if llm {
        memory.extract_with_llm(&q)
    } else {
        memory.extract(&q)
    }
}

/// Runs `memdag purge`.
pub fn purge(
    memory: &mut Memory,
    p: &Purge,
    host: &Host,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let mut q = purge_query(host.now);
    q.expired = p.expired;
    q.ended = p.ended;
    q.unreferenced_blobs = p.unreferenced_blobs;
    q.blob_max_age_ms = p
        .blob_max_age
        .as_deref()
        .map(|d| memory.parse_duration(d))
        .transpose()?;
    let gone = memory.purge(&q)?;
    if json {
        writeln!(out, "{}", shape::line(&shape::purged(&gone)))?;
    } else {
        writeln!(
            out,
            "purged {} items and {} blobs; the store was rewritten",
            gone.items.len(),
            gone.blobs.len()
        )?;
        for id in gone.items.iter().chain(&gone.blobs) {
            writeln!(out, "  {id}")?;
        }
    }
    Ok(())
}

/// `config` with the names of the JSON object `changes` set: a name the settings do not have,
/// or a value of the wrong type, is INVALID_INPUT (the core's range checks follow when the
/// settings are stored).
fn changed_config(
    config: memdag_core::memory::MemoryConfig,
    changes: &str,
) -> Result<memdag_core::memory::MemoryConfig, Error> {
    let invalid = |message: String| Error::memory(memdag_host::ErrorCode::InvalidInput, message);
    let serde_json::Value::Object(mut current) = serde_json::to_value(&config).unwrap_or_default()
    else {
        return Err(invalid("the settings are not a JSON object".into()));
    };
    let serde_json::Value::Object(given) =
        serde_json::from_str(changes).map_err(|e| invalid(format!("--set: not JSON: {e}")))?
    else {
        return Err(invalid("--set takes a JSON object of settings".into()));
    };
    for (name, value) in given {
        if !current.contains_key(&name) {
            let names: Vec<&str> = current.keys().map(String::as_str).collect();
            return Err(invalid(format!(
                "--set: no setting {name:?} (settings: {})",
                names.join(", ")
            )));
        }
        current.insert(name, value);
    }
    serde_json::from_value(serde_json::Value::Object(current))
        .map_err(|e| invalid(format!("--set: {e}")))
}
