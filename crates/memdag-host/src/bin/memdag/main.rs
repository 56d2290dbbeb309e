//! `memdag`: the command-line face of the memdag component, run by Wasmtime.
//!
//! See `memdag help`. The store is a directory of files written through the component's `kv`
//! import ([`memdag_host::DirKv`]). Output goes through one buffered writer; when its reader
//! goes away (`memdag ... | head`) the command stops quietly with success.

mod args;
mod context;
mod demo;
mod export;
mod graph;
mod ingest;
mod items;
mod key;
mod lease;
mod salvage;
mod search;
mod shape;
mod show;
mod terminal;
mod tools;
mod work;

use std::io::{BufWriter, ErrorKind, Write};
use std::process::ExitCode;
use std::time::Instant;

use memdag_host::{
    locate, now_ms, recall_query, CommandEmbedder, CommandLlm, Compactor, DirKv, Embedder, Error,
    Limits, Memory, OpenOptions, Record, Runtime, ToolContext, TurnLimits,
};

use args::{Args, Command, ContextCmd, MemoryCmd, WorkAction};

/// What commands take from the host rather than the store.
pub struct Host {
    /// The clock (ms since the epoch): `--now`, else the host clock.
    pub now: i64,
    /// Whether an LLM is plugged in (`--llm-cmd`): extraction goes through it.
    pub llm: bool,
}

fn main() -> ExitCode {
    // The benchmark is another program (it runs the core natively, not through the
    // component): `memdag bench ...` runs `memdag-bench ...` from beside this binary.
    let mut raw = std::env::args().skip(1).peekable();
    if raw.peek().map(String::as_str) == Some("bench") {
        return bench(raw.skip(1).collect());
    }
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("memdag: {}\n\n{}", terminal::escape(&message), args::USAGE);
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    // Stored text never drives the terminal: its control characters are written visibly.
    let mode = if machine_output(&args) {
        terminal::Mode::Json
    } else {
        terminal::Mode::Human
    };
    let mut out = BufWriter::new(terminal::Escaping::new(stdout.lock(), mode));
    let outcome = run(args, &mut out).and_then(|()| out.flush().map_err(Error::Io));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Io(e)) if e.kind() == ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            // Whatever was printed before the error still reaches the reader.
            let _ = out.flush();
            eprintln!("memdag: error: {}", terminal::escape(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}

/// Whether a command prints JSON (or JSONL): `--json`, a tool's answer, an export to stdout,
/// the limits and the tool schemas.
fn machine_output(args: &Args) -> bool {
    args.json
        || matches!(
            args.command,
            Command::CallTool { .. }
                | Command::Export { .. }
                | Command::Limits
                | Command::Tools { .. }
        )
}

/// Runs the `memdag-bench` binary that sits beside this one with `args`.
fn bench(args: Vec<String>) -> ExitCode {
    let beside = std::env::current_exe().ok().and_then(|exe| {
        exe.parent()
            .map(|d| d.join(format!("memdag-bench{}", std::env::consts::EXE_SUFFIX)))
    });
    let Some(program) = beside.filter(|p| p.is_file()) else {
        eprintln!("memdag: bench: no memdag-bench beside this binary; build it with `cargo build --release -p memdag-bench`");
        return ExitCode::from(2);
    };
    match std::process::Command::new(&program).args(args).status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1))),
        Err(e) => {
            eprintln!("memdag: bench: {}: {e}", program.display());
            ExitCode::from(1)
        }
    }
}

fn run(args: Args, out: &mut dyn Write) -> Result<(), Error> {
    if args.command == Command::Help {
        write!(out, "{}", args::USAGE)?;
        return Ok(());
    }
    // A bad key is refused before anything is opened or created.
    let key = key::resolve(args.key_file.as_deref(), |v| std::env::var(v).ok())
        .map_err(|m| Error::Io(std::io::Error::new(ErrorKind::InvalidInput, m)))?;
    let path = locate::component_path(args.component.as_deref())?;
    let started = Instant::now();
    let runtime = match cache_dir() {
        Some(dir) => Runtime::from_file_cached(&path, Limits::DEFAULT, dir)?,
        None => Runtime::from_file(&path)?,
    };
    let verbose = args.command == Command::Demo;
    if verbose {
        writeln!(
            out,
            "component {} (ready in {} ms)",
            path.display(),
            started.elapsed().as_millis()
        )?;
    }

    if let Command::Tools { format } = &args.command {
        // The schemas need no store.
        return tools::schemas(&runtime, format, out);
    }
    match &args.command {
        Command::Verify => return salvage::verify(&runtime, &args.store, key.as_deref(), out),
        Command::Salvage { from, to } => {
            return salvage::salvage(&runtime, from, to, key.as_deref(), out)
        }
        _ => {}
    }

    // Only commands that add something create a store; a typo should not leave an empty
    // directory.
    let creates = match &args.command {
        Command::Demo | Command::Ingest { .. } | Command::Import { .. } => true,
        Command::Memory(MemoryCmd::Add(_)) => true,
        Command::Context(c) => matches!(c, ContextCmd::Prepare(_) | ContextCmd::Finish(_)),
        Command::Work(w) => matches!(w.action, WorkAction::Change { .. }),
        _ => false,
    };
    if !creates && !args.store.is_dir() {
        let message = format!(
            "no store at {} (run `memdag demo` or `memdag ingest FILE` first)",
            args.store.display()
        );
        return Err(Error::Io(std::io::Error::new(ErrorKind::NotFound, message)));
    }
    // Commands that change the store take the writer's lock; the others share a reader's.
    // Recall counts a use of every record it returns, and use counts are persisted; so does
    // a tool call (recall, remember, forget).
    let writes = match &args.command {
        Command::Demo
        | Command::Ingest { .. }
        | Command::Recall { .. }
        | Command::Compact { .. }
        | Command::Delete { .. }
        | Command::ForgetUser { .. }
        | Command::Reindex { .. }
        | Command::Purge(_)
        | Command::CallTool { .. }
        | Command::Mcp { .. }
        | Command::Import { .. } => true,
        Command::Memory(m) => {
            matches!(
                m,
                MemoryCmd::Add(_)
                    | MemoryCmd::Update { .. }
                    | MemoryCmd::Delete { .. }
                    | MemoryCmd::Extract { .. }
            ) || matches!(m, MemoryCmd::Settings { set: Some(_) })
        }
        // prepare stores cut tool outputs and the running summary; finish adds the turn.
        Command::Context(c) => matches!(c, ContextCmd::Prepare(_) | ContextCmd::Finish(_)),
        Command::Work(w) => !matches!(w.action, WorkAction::Show | WorkAction::History),
        _ => false,
    };
    let mut options = OpenOptions::new();
    if let Some(key) = key {
        options = options.key(key);
    }
    let timeout = args.cmd_timeout.map_or(
        memdag_host::command::DEFAULT_TIMEOUT,
        std::time::Duration::from_secs_f64,
    );
    // A reindex reports each embedder call on stderr; the total is known once the store is open.
    let reindex_total = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    if let Some(cmd) = &args.embed_cmd {
        let mut embedder = CommandEmbedder::new(cmd).with_timeout(timeout);
        if matches!(args.command, Command::Reindex { .. }) {
            let total = reindex_total.clone();
            let mut embedded = 0u64;
            options = options.embedder(move |texts: &[String]| {
                let vectors = embedder.embed(texts)?;
                embedded += texts.len() as u64;
                let total = total.load(std::sync::atomic::Ordering::Relaxed);
                eprintln!("reindex: embedded {embedded} of {total} turns");
                Ok(vectors)
            });
        } else {
            options = options.embedder(embedder);
        }
    }
    if let Some(cmd) = &args.llm_cmd {
        options = options.llm(CommandLlm::new(cmd).with_timeout(timeout));
    }
    if let Command::Mcp { user, thread } = &args.command {
        let context = ToolContext {
            user: user.clone(),
            thread: thread.clone(),
            now: None,
        };
        return serve_mcp(&runtime, &args, options, context);
    }
    let kv = if writes {
        DirKv::open(&args.store)?
    } else {
        DirKv::open_read_only(&args.store)?
    };
    let started = Instant::now();
    let mut memory = runtime.open_with(kv, options)?;
    // A recovered commit lost nothing, but the user should know their `head` was not the
    // newest (restored from a copy, lost, or cut short).
    for w in memory.load_warnings()? {
        eprintln!("warning: {}: {} ({})", w.code, w.message, w.key);
    }
    if verbose {
        writeln!(
            out,
            "loaded {} records from {} in {} ms",
            memory.len()?,
            args.store.display(),
            started.elapsed().as_millis()
        )?;
    }

    if let Some(json) = &args.limits {
        let limits = parse_limits(json)?;
        memory.set_limits(&limits)?;
    }
    let host = Host {
        now: match &args.now {
            Some(t) => memory.parse_timestamp(t)?,
            None => now_ms(),
        },
        llm: args.llm_cmd.is_some(),
    };
    let json = args.json;

    match args.command {
        Command::Demo => demo::run(&mut memory, host.now, out)?,
        Command::Ingest { file, extract } => {
            ingest::run(&mut memory, &file, &host, extract, json, out)?
        }
        Command::Search(s) => search::run(&mut memory, &s, now_ms(), out)?,
        Command::Grep {
            pattern,
            case_insensitive,
            fields,
            user,
            json,
        } => search::grep(
            &mut memory,
            &pattern,
            case_insensitive,
            &fields,
            user,
            json,
            out,
        )?,
        Command::Recall {
            thread,
            user,
            budget,
            query,
            json,
        } => {
            let mut q = recall_query(&thread, user.as_deref());
            q.budget_tokens = budget;
            q.query_text = query;
            // The clock (or --now), as in every face: recency counts from it, and an item past
            // its time to live by then is never shown.
            q.now = Some(host.now);
            let recall = memory.recall(&q)?;
            if json {
                let items: Vec<_> = recall
                    .items
                    .iter()
                    .map(|i| serde_json::json!({ "id": i.id, "section": format!("{:?}", i.section).to_lowercase(), "score": i.score, "tokens": i.tokens }))
                    .collect();
                let value = serde_json::json!({ "block": recall.block, "tokens": recall.tokens,
                                                 "omitted": recall.omitted, "items": items,
                                                 "working": recall.working });
                writeln!(out, "{value}")?;
            } else {
                writeln!(out, "{}", recall.block)?;
                eprintln!(
                    "{} items, {} tokens, {} left out",
                    recall.items.len(),
                    recall.tokens,
                    recall.omitted
                );
            }
        }
        Command::Compact { id } => {
            let compactor = if args.llm_cmd.is_some() {
                Compactor::Llm
            } else {
                Compactor::Extractive
            };
            let record = memory.compact(&id, compactor)?;
            if let Some(c) = &record.compact {
                writeln!(out, "summary: {}", c.summary)?;
                for s in &c.sections {
                    writeln!(out, "{}: {}", s.name, s.text)?;
                }
            }
        }
        Command::Show { id, raw, user } => {
            let record = get_as(&mut memory, &id, user.as_deref())?;
            let text = if raw {
                show::raw(&record)
            } else {
                show::full(&record)
            };
            write!(out, "{text}")?;
        }
        Command::Dag { id, depth, user } => dag(&mut memory, &id, depth, user.as_deref(), out)?,
        Command::Recent { thread, n, user } => {
            let records = match &user {
                Some(u) => memory.recent_as(u, &thread, n)?,
                None => memory.recent(&thread, n)?,
            };
            for r in records {
                writeln!(out, "{}", show::line(&r))?;
            }
        }
        Command::Ancestors { id, depth, user } => {
            let root = get_as(&mut memory, &id, user.as_deref())?;
            let ancestors = match &user {
                Some(u) => memory.ancestors_as(u, &id, depth, u32::MAX)?,
                None => memory.ancestors(&id, depth, u32::MAX)?,
            };
            write!(out, "{}", show::ancestor_tree(&root, &ancestors))?;
        }
        Command::Delete { id } => {
            let gone = memory.delete(&id)?;
            writeln!(out, "deleted {}", gone.id)?;
        }
        Command::ForgetUser { user } => {
            let gone = memory.forget_user(&user)?;
            writeln!(
                out,
                "forgot {}: {} turns and items, {} blobs, {} working memories",
                user,
                gone.records.len(),
                gone.blobs.len(),
                gone.work.len()
            )?;
        }
        Command::Reindex { batch_size } => {
            let total = memory.len()?;
            reindex_total.store(total, std::sync::atomic::Ordering::Relaxed);
            let how = if args.embed_cmd.is_some() {
                "--embed-cmd"
            } else {
                "the built-in embedder"
            };
            eprintln!("reindex: embedding {total} turns with {how}");
            let done = memory.reindex(batch_size)?;
            writeln!(
                out,
                "reindexed {} turns: dimension {} -> {}",
                done.records, done.previous_dimension, done.dimension
            )?;
        }
        Command::Limits => {
            writeln!(out, "{}", limits_json(&memory.limits()?))?;
        }
        Command::Memory(m) => items::run(&mut memory, &m, &host, json, out)?,
        Command::Context(c) => context::run(&mut memory, &c, &host, json, out)?,
        Command::Purge(p) => items::purge(&mut memory, &p, &host, json, out)?,
        Command::Work(w) => work::run(&mut memory, &w, &host, json, out)?,
        Command::Timeline(t) => graph::timeline(&mut memory, &t, json, out)?,
        Command::Graph { graph: g, user } => {
            graph::run(&mut memory, &g, user, host.now, json, out)?
        }
        Command::CallTool {
            name,
            arguments,
            user,
            thread,
        } => {
            let context = ToolContext {
                user,
                thread,
                now: Some(host.now),
            };
            tools::call(&mut memory, &name, &arguments, &context, out)?
        }
        Command::Mcp { .. } => unreachable!("served above"),
        Command::Export { format, out: path } => export::export(&mut memory, &format, &path, out)?,
        Command::Import { path } => export::import(&mut memory, &path, host.now, json, out)?,
        Command::Tools { .. } | Command::Help | Command::Verify | Command::Salvage { .. } => {
            unreachable!("handled above")
        }
    }
    Ok(())
}

/// `memdag mcp`: opens the store under a reader's lock that ends with the open, then serves
/// with the store locked per request (see [`lease`]).
fn serve_mcp(
    runtime: &Runtime,
    args: &Args,
    options: OpenOptions,
    context: ToolContext,
) -> Result<(), Error> {
    let limits = args.limits.as_deref().map(parse_limits).transpose()?;
    let lease = lease::Lease::new(args.store.clone());
    lease.hold(false)?;
    let opened = runtime
        .open_with(lease.kv(), options)
        .and_then(|mut memory| {
            if let Some(l) = &limits {
                memory.set_limits(l)?;
            }
            Ok(memory)
        });
    let head = lease.head();
    lease.release();
    tools::mcp(tools::McpHost {
        memory: opened?,
        lease,
        head: head?,
        context,
        limits,
    })
}

/// Where compiled components are kept: `$MEMDAG_CACHE_DIR` (empty turns the cache off), else
/// `$XDG_CACHE_HOME/memdag`, else `$HOME/.cache/memdag`.
fn cache_dir() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    match std::env::var_os("MEMDAG_CACHE_DIR") {
        Some(d) if d.is_empty() => None,
        Some(d) => Some(PathBuf::from(d)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(|d| PathBuf::from(d).join("memdag"))
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/memdag"))),
    }
}

/// `--limits JSON`: the core's JSON shape of limits; names left out keep their defaults.
fn parse_limits(json: &str) -> Result<TurnLimits, Error> {
    let l: memdag_core::Limits = serde_json::from_str(json).map_err(|e| {
        Error::Io(std::io::Error::new(
            ErrorKind::InvalidInput,
            format!("--limits: {e}"),
        ))
    })?;
    Ok(TurnLimits {
        max_field_bytes: l.max_field_bytes as u64,
        max_turn_bytes: l.max_turn_bytes as u64,
        max_name_bytes: l.max_name_bytes as u64,
        max_tags: l.max_tags as u64,
        max_tag_bytes: l.max_tag_bytes as u64,
        max_parents: l.max_parents as u64,
        max_steps: l.max_steps as u64,
        max_sections: l.max_sections as u64,
        max_dimension: l.max_dimension as u64,
    })
}

/// The component's limits in the core's JSON shape.
fn limits_json(l: &TurnLimits) -> String {
    let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    let core = memdag_core::Limits {
        max_field_bytes: n(l.max_field_bytes),
        max_turn_bytes: n(l.max_turn_bytes),
        max_name_bytes: n(l.max_name_bytes),
        max_tags: n(l.max_tags),
        max_tag_bytes: n(l.max_tag_bytes),
        max_parents: n(l.max_parents),
        max_steps: n(l.max_steps),
        max_sections: n(l.max_sections),
        max_dimension: n(l.max_dimension),
    };
    serde_json::to_string(&core).unwrap_or_default()
}

/// The record `id`, if `user` (when named) may see it: their own, or tagged `shared`.
fn get_as(memory: &mut Memory, id: &str, user: Option<&str>) -> Result<Record, Error> {
    match user {
        Some(u) => memory.get_as(u, id)?,
        None => memory.get(id)?,
    }
    .ok_or_else(|| not_found(id))
}

/// `memdag dag ID`: the ancestors, then the descendants, each as a tree.
fn dag(
    memory: &mut Memory,
    id: &str,
    depth: u32,
    user: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let root = get_as(memory, id, user)?;
    let (ancestors, descendants) = match user {
        Some(u) => (
            memory.ancestors_as(u, id, depth, u32::MAX)?,
            memory.descendants_as(u, id, depth, u32::MAX)?,
        ),
        None => (
            memory.ancestors(id, depth, u32::MAX)?,
            memory.descendants(id, depth, u32::MAX)?,
        ),
    };
    writeln!(
        out,
        "ancestors ({}), parents under children:",
        ancestors.len()
    )?;
    write!(out, "{}", show::ancestor_tree(&root, &ancestors))?;
    writeln!(
        out,
        "\ndescendants ({}), children under parents:",
        descendants.len()
    )?;
    write!(out, "{}", show::descendant_tree(&root, &descendants))?;
    Ok(())
}

/// The error `get` would give if it failed on a missing id, in the component's format.
fn not_found(id: &str) -> Error {
    Error::memory(
        memdag_host::ErrorCode::NotFound,
        format!("no record with id {id:?}"),
    )
}
