//! The Markdown export: a folder a person can read and edit, and memdag can read back.
//!
//! ```text
//! README.md                         what is where
//! threads/<name>-<hash>.md          one thread: its turns in order, its working memory
//! memory/<user>-<hash>.md           one user's long-term memory items, with history
//! blobs/<id>.md                     a full tool output kept by reference
//! settings.md                       the long-term memory settings, when not the defaults
//! ```
//! A turn:
//!
//! ````text
//! <a id="r3f9a0c1e2b4d5a6f"></a>
//! ## Turn 2 · 2024-05-08 13:56
//!
//! - id: "a2"
//! - user: "ada"
//! - createdAt: "2024-05-08T13:56:00Z"
//! - parents: [a1](#r1b2c…), [x7](other-thread-1a2b3c4d.md#r9f8e…)
//! - tags: ["shared"]
//! - importance: 0.7
//!
//! ~~~input
//! the user's words, verbatim
//! ~~~
//!
//! ### Step 1 · failed
//! - tool: "deploy"
//! ~~~args
//! {"env":"prod"}
//! ~~~
//! ~~~result
//! error: pending migrations
//! ~~~
//!
//! ~~~output
//! …
//! ~~~
//!
//! ### Compact node
//! ~~~summary
//! …
//! ~~~
//! - section: "Goal"
//! ~~~section
//! …
//! ~~~
//! ````
//!
//! Values on `- key:` lines are JSON (strings quoted), except `parents` and an item's
//! `sources`, which are Markdown links whose text is the id (`\`, `[` and `]` escaped with a
//! backslash). Texts are in fences of tildes, one more than the longest run of tildes that
//! starts a line of the text, with the field as the info string, so any text reads back
//! exactly. An item is a `## Item` with `kind`, `status`, `version` and the other readable
//! fields on `- key:` lines, its text in a `text` fence, and the rest of its record
//! (history, log, supersession, validity) as JSON in a `meta` fence; what a person edits on the
//! readable lines wins over the `meta` fence. A thread's working memory is JSON in a `work`
//! fence under `## Working memory` (`## Working memory of <user>` for a user's: each user has
//! their own working memory of a thread). Vectors are not exported (the JSONL export keeps them).

use std::collections::BTreeMap;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::Value;

use super::Imported;
use crate::error::{Error, Result};
use crate::hash::Fnv;
use crate::item::{ItemKind, ItemMeta, ItemStatus};
use crate::record::{CompactNode, Record, Section, Step};
use crate::store::Store;
use crate::time::{format_iso8601, parse_iso8601};
use crate::work::WorkingMemory;

/// The first line of every file, naming the format.
const MARK: &str = "<!-- memdag markdown export v1 -->";

fn hash8(s: &str) -> String {
    let mut h = Fnv::new();
    h.write(s.as_bytes());
    format!("{:08x}", h.finish() as u32)
}

/// The anchor of a record's heading.
fn anchor(id: &str) -> String {
    let mut h = Fnv::new();
    h.write(id.as_bytes());
    format!("r{:016x}", h.finish())
}

/// A file name for a thread or user: a readable slug and a hash of the exact name.
fn file_name(dir: &str, name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let slug: String = slug.chars().take(40).collect();
    let slug = if slug.is_empty() {
        "unnamed".into()
    } else {
        slug.to_lowercase()
    };
    format!("{dir}/{slug}-{}.md", hash8(name))
}

fn json_str(s: &str) -> String {
    Value::String(s.into()).to_string()
}

/// `text` in a tilde fence with `info`, one tilde longer than any run in the text.
fn fence(out: &mut String, info: &str, text: &str) {
    let longest = text
        .split('\n')
        .map(|l| l.chars().take_while(|&c| c == '~').count())
        .max()
        .unwrap_or(0);
    let f = "~".repeat(longest.max(2) + 1);
    out.push_str(&format!("{f}{info}\n{text}\n{f}\n"));
}

fn link_text(id: &str) -> String {
    id.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

impl Store {
    /// The store as Markdown files, `(path, text)` in path order (see the module docs).
    pub fn export_markdown(&self) -> Vec<(String, String)> {
        let records = self.export_order();
        let mut file_of: BTreeMap<&str, String> = BTreeMap::new();
        for r in &records {
            let f = if r.is_item() {
                file_name("memory", &r.user)
            } else {
                file_name("threads", &r.thread)
            };
            file_of.insert(&r.id, f);
        }
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        let mut numbers: BTreeMap<String, usize> = BTreeMap::new();
        for r in &records {
            let path = file_of[r.id.as_str()].clone();
            let out = files.entry(path.clone()).or_insert_with(|| {
                if r.is_item() {
                    format!(
                        "{MARK}\n# Long-term memory of {}\n\n- user: {}\n",
                        r.user,
                        json_str(&r.user)
                    )
                } else {
                    format!(
                        "{MARK}\n# Thread {}\n\n- thread: {}\n",
                        r.thread,
                        json_str(&r.thread)
                    )
                }
            });
            let n = numbers.entry(path.clone()).or_default();
            *n += 1;
            let links = |ids: &[String]| -> String {
                ids.iter()
                    .map(|p| {
                        let target = match file_of.get(p.as_str()) {
                            Some(f) if *f == path => format!("#{}", anchor(p)),
                            Some(f) => format!("{}#{}", relative(&path, f), anchor(p)),
                            None => format!("#{}", anchor(p)),
                        };
                        format!("[{}]({target})", link_text(p))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push_str(&format!("\n<a id=\"{}\"></a>\n", anchor(&r.id)));
            match &r.item {
                None => write_turn(out, r, *n, &links),
                Some(meta) => write_item(out, r, meta, &links),
            }
        }
        for wm in self.all_work() {
            let path = file_name("threads", &wm.thread);
            let out = files.entry(path).or_insert_with(|| {
                format!(
                    "{MARK}\n# Thread {}\n\n- thread: {}\n",
                    wm.thread,
                    json_str(&wm.thread)
                )
            });
            if wm.user.is_empty() {
                out.push_str("\n## Working memory\n\n");
            } else {
                out.push_str(&format!("\n## Working memory of {}\n\n", wm.user));
            }
            fence(
                out,
                "work",
                &serde_json::to_string_pretty(&wm).unwrap_or_default(),
            );
        }
        for id in self.blob_ids() {
            let mut out = format!("{MARK}\n# Tool output {id}\n\n- blob: {}\n\n", json_str(id));
            fence(&mut out, "blob", self.blob(id).unwrap_or_default());
            files.insert(format!("blobs/{id}.md"), out);
        }
        let config = self.memory_config();
        if config != crate::memory::MemoryConfig::default() {
            let mut out = format!("{MARK}\n# Long-term memory settings\n\n");
            fence(
                &mut out,
                "settings",
                &serde_json::to_string_pretty(&config).unwrap_or_default(),
            );
            files.insert("settings.md".into(), out);
        }
        let mut readme = format!(
            "{MARK}\n# memdag memory export\n\n{} turns in {} threads, {} long-term memory items.\nEach file under `threads/` is one thread, each under `memory/` one user's long-term memory. Edit the texts inside the `~~~` fences; `memdag import` reads the folder back.\n\n",
            self.iter().filter(|r| !r.is_item()).count(),
            self.thread_groups().len(),
            self.iter().filter(|r| r.is_item()).count(),
        );
        for path in files.keys() {
            readme.push_str(&format!("- [{path}]({path})\n"));
        }
        files.insert("README.md".into(), readme);
        files.into_iter().collect()
    }

    /// Reads Markdown files written by [`Store::export_markdown`] (and edited by a person)
    /// into the store; see [`Store::import_records`]. A file that is not one is skipped; a
    /// malformed one is [`Error::InvalidInput`] naming the file and line, and nothing is
    /// added.
    pub fn import_markdown(&mut self, files: &[(String, String)]) -> Result<Imported> {
        let mut records = Vec::new();
        let mut work = Vec::new();
        let mut extra = Extra::default();
        for (path, text) in files {
            if !text.starts_with(MARK) || path.ends_with("README.md") {
                continue;
            }
            parse_file(path, text, &mut records, &mut work, &mut extra)?;
        }
        if let Some(config) = extra.settings {
            self.set_memory_config(config)?;
        }
        for text in extra.blobs {
            self.put_blob(text)?;
        }
        self.import_records(records, work)
    }
}

/// The path of `to` from the folder of `from` (both relative to the export root).
fn relative(from: &str, to: &str) -> String {
    let from_dir = from.rsplit_once('/').map_or("", |(d, _)| d);
    let to_dir = to.rsplit_once('/').map_or("", |(d, _)| d);
    let name = to.rsplit_once('/').map_or(to, |(_, n)| n);
    if from_dir == to_dir {
        name.into()
    } else {
        format!("../{to}")
    }
}

fn write_turn(out: &mut String, r: &Record, n: usize, links: &dyn Fn(&[String]) -> String) {
    let iso = format_iso8601(r.created_at);
    let shown = iso.get(..16).unwrap_or(&iso).replace('T', " ");
    out.push_str(&format!("## Turn {n} · {shown}\n\n"));
    out.push_str(&format!("- id: {}\n", json_str(&r.id)));
    out.push_str(&format!("- user: {}\n", json_str(&r.user)));
    out.push_str(&format!("- createdAt: {}\n", json_str(&iso)));
    if !r.parents.is_empty() {
        out.push_str(&format!("- parents: {}\n", links(&r.parents)));
    }
    if !r.tags.is_empty() {
        out.push_str(&format!("- tags: {}\n", Value::from(r.tags.clone())));
    }
    out.push_str(&format!(
        "- importance: {}\n",
        crate::json::shortest(r.importance)
    ));
    out.push('\n');
    if !r.input.is_empty() {
        fence(out, "input", &r.input);
    }
    for (i, s) in r.steps.iter().enumerate() {
        let status = if s.ok { "ok" } else { "failed" };
        out.push_str(&format!("\n### Step {} · {status}\n", i + 1));
        out.push_str(&format!("- tool: {}\n", json_str(&s.tool)));
        if !s.args.is_empty() {
            fence(out, "args", &s.args);
        }
        if !s.result.is_empty() {
            fence(out, "result", &s.result);
        }
    }
    if !r.output.is_empty() {
        out.push('\n');
        fence(out, "output", &r.output);
    }
    if let Some(c) = &r.compact {
        out.push_str("\n### Compact node\n");
        fence(out, "summary", &c.summary);
        for s in &c.sections {
            out.push_str(&format!("- section: {}\n", json_str(&s.name)));
            fence(out, "section", &s.text);
        }
    }
}

fn write_item(out: &mut String, r: &Record, meta: &ItemMeta, links: &dyn Fn(&[String]) -> String) {
    out.push_str(&format!(
        "## Item · {} · {} · v{}\n\n",
        meta.kind.name(),
        meta.status.name(),
        meta.version
    ));
    out.push_str(&format!("- id: {}\n", json_str(&r.id)));
    out.push_str(&format!("- kind: {}\n", json_str(meta.kind.name())));
    out.push_str(&format!("- status: {}\n", json_str(meta.status.name())));
    out.push_str(&format!(
        "- createdAt: {}\n",
        json_str(&format_iso8601(r.created_at))
    ));
    for (key, value) in [
        ("subject", &meta.subject),
        ("relation", &meta.relation),
        ("object", &meta.object),
        ("task", &meta.task),
        ("tool", &meta.tool),
    ] {
        if let Some(v) = value {
            out.push_str(&format!("- {key}: {}\n", json_str(v)));
        }
    }
    if !r.parents.is_empty() {
        out.push_str(&format!("- sources: {}\n", links(&r.parents)));
    }
    if !r.tags.is_empty() {
        out.push_str(&format!("- tags: {}\n", Value::from(r.tags.clone())));
    }
    out.push_str(&format!(
        "- importance: {}\n",
        crate::json::shortest(r.importance)
    ));
    out.push('\n');
    fence(out, "text", &r.input);
    let mut rest = serde_json::to_value(meta).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut rest {
        for k in [
            "kind", "status", "subject", "relation", "object", "task", "tool",
        ] {
            o.remove(k);
        }
    }
    fence(
        out,
        "meta",
        &serde_json::to_string_pretty(&rest).unwrap_or_default(),
    );
}

/// What a parse finds besides records: blobs and settings.
#[derive(Default)]
struct Extra {
    blobs: Vec<String>,
    settings: Option<crate::memory::MemoryConfig>,
}

/// What a parse is filling in.
enum Open {
    None,
    Turn(Record),
    Item(Record, BTreeMap<String, Value>),
}

fn parse_file(
    path: &str,
    text: &str,
    records: &mut Vec<Record>,
    work: &mut Vec<WorkingMemory>,
    extra: &mut Extra,
) -> Result<()> {
    let lines: Vec<&str> = text.split('\n').collect();
    let bad = |i: usize, why: &str| Error::invalid(format!("{path} line {}: {why}", i + 1));
    let mut thread = String::new();
    let mut user = String::new();
    let mut open = Open::None;
    let mut pending_section: Option<String> = None;
    let mut in_compact = false;
    let mut i = 0;
    let close = |open: &mut Open, records: &mut Vec<Record>| -> Result<()> {
        match core::mem::replace(open, Open::None) {
            Open::None => {}
            Open::Turn(r) => records.push(r),
            Open::Item(mut r, fields) => {
                let meta = r.item.as_mut().expect("an item");
                let text_field = |k: &str| fields.get(k).and_then(Value::as_str).map(String::from);
                if let Some(k) = text_field("kind").and_then(|k| ItemKind::parse(&k)) {
                    meta.kind = k;
                }
                if let Some(s) = text_field("status").and_then(|s| ItemStatus::parse(&s)) {
                    meta.status = s;
                }
                meta.subject = text_field("subject");
                meta.relation = text_field("relation");
                meta.object = text_field("object");
                meta.task = text_field("task");
                meta.tool = text_field("tool");
                records.push(r);
            }
        }
        Ok(())
    };
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("## ") {
            close(&mut open, records)?;
            in_compact = false;
            if rest.starts_with("Turn") {
                open = Open::Turn(Record {
                    id: String::new(),
                    seq: records.len() as u64,
                    thread: thread.clone(),
                    user: String::new(),
                    created_at: 0,
                    input: String::new(),
                    output: String::new(),
                    steps: Vec::new(),
                    parents: Vec::new(),
                    tags: Vec::new(),
                    importance: crate::record::DEFAULT_IMPORTANCE,
                    compact: None,
                    embedding: None,
                    item: None,
                });
            } else if rest.starts_with("Item") {
                open = Open::Item(
                    Record {
                        id: String::new(),
                        seq: records.len() as u64,
                        thread: String::new(),
                        user: user.clone(),
                        created_at: 0,
                        input: String::new(),
                        output: String::new(),
                        steps: Vec::new(),
                        parents: Vec::new(),
                        tags: Vec::new(),
                        importance: crate::record::DEFAULT_IMPORTANCE,
                        compact: None,
                        embedding: None,
                        item: Some(Box::default()),
                    },
                    BTreeMap::new(),
                );
            }
            i += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("### ") {
            if let (Some(status), Open::Turn(r)) = (rest.strip_prefix("Step "), &mut open) {
                let ok = !status.trim_end().ends_with("failed");
                r.steps.push(Step {
                    ok,
                    ..Step::default()
                });
                in_compact = false;
            } else if let ("Compact node", Open::Turn(r)) = (rest.trim(), &mut open) {
                r.compact = Some(CompactNode::default());
                in_compact = true;
            }
            i += 1;
            continue;
        }
        if let Some((key, value)) = line.strip_prefix("- ").and_then(|l| l.split_once(": ")) {
            let json =
                || serde_json::from_str::<Value>(value).map_err(|_| bad(i, "a value is not JSON"));
            let string = || -> Result<String> {
                json()?
                    .as_str()
                    .map(String::from)
                    .ok_or_else(|| bad(i, "expected a JSON string"))
            };
            match (&mut open, key) {
                (Open::None, "thread") => thread = string()?,
                (Open::None, "user") => user = string()?,
                (Open::Turn(r), "id") | (Open::Item(r, _), "id") => r.id = string()?,
                (Open::Turn(r), "user") => r.user = string()?,
                (Open::Turn(r), "createdAt") | (Open::Item(r, _), "createdAt") => {
                    let s = string()?;
                    r.created_at =
                        parse_iso8601(&s).ok_or_else(|| bad(i, "createdAt is not ISO 8601"))?;
                }
                (Open::Turn(r), "parents") | (Open::Item(r, _), "sources") => {
                    r.parents = link_ids(value)
                }
                (Open::Turn(r), "tags") | (Open::Item(r, _), "tags") => {
                    r.tags = serde_json::from_value(json()?)
                        .map_err(|_| bad(i, "tags must be a list of strings"))?;
                }
                (Open::Turn(r), "importance") | (Open::Item(r, _), "importance") => {
                    r.importance = json()?
                        .as_f64()
                        .ok_or_else(|| bad(i, "importance must be a number"))?
                        as f32;
                }
                (Open::Turn(r), "tool") => {
                    if let Some(s) = r.steps.last_mut() {
                        s.tool = string()?;
                    }
                }
                (Open::Turn(_), "section") => pending_section = Some(string()?),
                (Open::Item(_, fields), k) => {
                    fields.insert(k.into(), json()?);
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if line.starts_with("~~~") {
            let f: String = line.chars().take_while(|&c| c == '~').collect();
            let info = line[f.len()..].trim().to_string();
            let end = (i + 1..lines.len())
                .find(|&j| lines[j] == f)
                .ok_or_else(|| bad(i, "a fence is not closed"))?;
            let body = lines[i + 1..end].join("\n");
            match (&mut open, info.as_str()) {
                (Open::Turn(r), "input") => r.input = body,
                (Open::Turn(r), "output") => r.output = body,
                (Open::Turn(r), "args") => {
                    if let Some(s) = r.steps.last_mut() {
                        s.args = body;
                    }
                }
                (Open::Turn(r), "result") => {
                    if let Some(s) = r.steps.last_mut() {
                        s.result = body;
                    }
                }
                (Open::Turn(r), "summary") if in_compact => {
                    if let Some(c) = r.compact.as_mut() {
                        c.summary = body;
                    }
                }
                (Open::Turn(r), "section") if in_compact => {
                    if let Some(c) = r.compact.as_mut() {
                        c.sections.push(Section {
                            name: pending_section.take().unwrap_or_default(),
                            text: body,
                        });
                    }
                }
                (Open::Item(r, _), "text") => r.input = body,
                (Open::Item(r, fields), "meta") => {
                    let mut v: Value = serde_json::from_str(&body)
                        .map_err(|_| bad(i, "the meta fence is not JSON"))?;
                    if let Value::Object(o) = &mut v {
                        for (k, value) in fields.iter() {
                            o.insert(k.clone(), value.clone());
                        }
                        o.entry("kind").or_insert_with(|| Value::from("fact"));
                    }
                    let meta: ItemMeta =
                        serde_json::from_value(v).map_err(|e| bad(i, &format!("meta: {e}")))?;
                    r.item = Some(Box::new(meta));
                }
                (_, "blob") => extra.blobs.push(body),
                (_, "settings") => {
                    extra.settings = Some(
                        serde_json::from_str(&body)
                            .map_err(|e| bad(i, &format!("settings: {e}")))?,
                    );
                }
                (_, "work") => {
                    let wm: WorkingMemory = serde_json::from_str(&body)
                        .map_err(|e| bad(i, &format!("working memory: {e}")))?;
                    work.push(wm);
                }
                _ => {}
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    close(&mut open, records)?;
    Ok(())
}

/// The ids of a line of Markdown links `[id](target), …`, unescaping the link texts.
fn link_ids(value: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '[' {
            continue;
        }
        let mut id = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => id.extend(chars.next()),
                ']' => break,
                other => id.push(other),
            }
        }
        ids.push(id);
        // Skip the target.
        if chars.peek() == Some(&'(') {
            for c in chars.by_ref() {
                if c == ')' {
                    break;
                }
            }
        }
    }
    ids
}
