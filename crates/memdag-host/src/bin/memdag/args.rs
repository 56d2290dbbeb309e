//! Command-line arguments, parsed by hand (see the note in Cargo.toml). The commands of
//! long-term memory and purge are parsed in [`memory`], those of working memory, the timeline
//! and the graph in [`work`].

mod memory;
mod work;

use std::path::PathBuf;

use memdag_host::{ItemKind, Scope};

pub use memory::{AddItem, ItemChange, ListItems, MemoryCmd, Purge};
pub use work::{Graph, Timeline, Work, WorkAction};

/// The usage text.
pub const USAGE: &str = "\
memdag: agent memory as a DAG of turns, run as a WebAssembly component

usage: memdag [OPTIONS] <COMMAND>

commands:
  demo                      ingest the bundled sample session (new turns only), then show
                            the recent turns of its last thread and the ancestors of its last turn
  ingest <FILE.jsonl>       add one turn per line in the JSON turn shape (id, thread, user,
                            createdAt as ISO 8601 or ms (now when missing), input or text,
                            output; optional parents, steps (ok defaults to true), tags,
                            importance, embedding); turns already stored are skipped (a turn
                            without an id gets one from its content, so a reformatted file is
                            not stored twice), and ids stored with other text are reported;
                            progress on stderr; --json for a JSON summary. --extract learns
                            memory items from each turn (by the rules, or with --llm-cmd
                            through the LLM)
  search <QUERY>            ranked search [--mode bm25|vector|hybrid] [--k N] [--thread T]
                            [--user U] [--scope all|turns|items] [--kind K]... [--now TIME]
                            [--json] and the ranking options below. A relative date in the
                            query (\"last week\", \"上周\") keeps to its range, resolved against
                            --now (default: the clock) and printed
  search --batch <FILE>     one query per line (a JSON string, or {\"id\", \"text\",
                            \"embedding\", \"thread\", \"user\", \"now\"}); prints one JSON line per
                            query with the ranked ids and scores; takes the same options, but
                            resolves relative dates only against --now or the line's now
  grep <PATTERN>            regular expression over raw logs [-i] [--field F]... [--user U]
                            [--json]
  recall                    the memory block for a new turn: --thread T --user U [--budget N]
                            [--query TEXT] [--now TIME] [--json]; recency and expiry count
                            from --now (default: the clock); it counts a use of each turn it
                            returns, so it takes the writer's lock
  compact <ID>              write the turn's compact node: with --llm-cmd, else extractive
  show <ID> [--raw]         one turn in full; --raw prints its tool log unabridged
  dag <ID> [DEPTH]          the ancestors and descendants of a turn, drawn as trees
  recent <THREAD> [N]       the N newest turns of a thread (default 10) [--user U]
  ancestors <ID> [DEPTH]    the DAG ancestors of a turn as a tree (default depth 16)
  get <ID>                  one turn in full (as show)
  delete <ID>               delete one turn; its children take over its parents
  forget-user <USER>        erase every turn of a user, the blobs only they referenced, and
                            their index entries; the store is rewritten so no file keeps them
  limits                    the limits turns are checked against, as JSON
  reindex [--batch-size N]  embed every turn again, to move to another embedding model (and
                            dimension): with --embed-cmd, N texts per call (default 64),
                            else with the built-in embedder; progress on stderr

  With --user U, show, get, dag, recent, ancestors and grep return only what U may see: U's
  own turns and those tagged \"shared\" (search, recall, timeline, graph and the memory
  commands take --user the same way). Without it they read every user's memory. An empty
  --user is an error (it names nobody), and a command that is not kept to a user refuses it.
  export --format md|jsonl|snapshot <OUT>   Markdown (a folder: one file per thread, one per
                            user's items), JSONL (the ingest format, then items; - for stdout)
                            or the binary snapshot: the whole store, every user's (it
                            refuses --user)
  import <PATH>             add what a Markdown folder, a JSONL file or a snapshot holds and the
                            store lacks (a snapshot into an empty store only)
  verify                    every damaged key and block of the store and what each held; exits
                            1 when anything is damaged; writes nothing
  salvage <SRC> <DST>       copy everything intact in the store SRC into a new store DST, and
                            list what was lost by id (SRC is only read)
  bench [...]               runs the memdag-bench binary beside this one (the benchmark; it
                            runs the core natively, not through the component)
  help                      this text

long-term memory (items learned from turns; every command takes --json):
  memory add --user U [--kind personal|procedural|tool|fact] [--subject S --relation R
             --object O] [--task T] [--tool T] [--importance X] [--source ID]... [--ttl 30d]
             <TEXT>         add an item (default kind personal): a near-duplicate corroborates
                            an active item, a contradiction supersedes it
  memory get <ID> [--user U]        one item with its versions and log
  memory update <ID> [--text T] [--subject S] [--relation R] [--object O] [--task T]
             [--tool T] [--importance X] [--ttl D|none]   a new version of the item
  memory delete <ID>        delete an item softly (status deleted, history kept)
  memory history <ID> [--user U]    every version of an item and of those it superseded
  memory list [--user U] [--kind K]... [--all] [--as-of TIME] [--since TIME --until TIME]
             [--sort created|updated|importance|uses] [--limit N --offset N]
                            the items, newest first (active only unless --all; every one
                            unless --limit); with --json one JSON array
  memory resolutions [--user U]     the log of what happened to items, newest first
  memory extract (--thread T | --user U | <ID>...) [--llm-cmd CMD]
                            learn items from turns: by the rules (English and Chinese), or
                            through the LLM
  purge [--expired] [--ended] [--blob-max-age 30d] [--unreferenced-blobs]
                            remove for good expired items (the default), superseded and
                            deleted ones, old or unreferenced tool outputs; rewrites the store

working memory, time and the entity graph:
  work show|history|clear --thread T [--user U]   U's working memory of a thread (no user's
                            without --user: working memory is per user and thread), its
                            changes, or forget it; the changes below take --user the same way
  work set|push|patch --thread T <FIELD> <VALUE>   change a field (VALUE is JSON, else a
                            string), e.g. work set --thread T goal \"ship it\"
  work pop|remove --thread T <FIELD>        drop a list's last element, or the field
  timeline [--user U | --thread T] [--since TIME --until TIME] [--offset-minutes M]
                            turns and items by day
  graph neighbors <ENTITY> [--depth N]      the entities within N edges (default 1)
  graph path <A> <B> [--max-depth N]        the shortest paths between two entities (4)
  graph export [<ENTITY>...]        the nodes and edges (all without entities)
  (--user U keeps timeline and graph to what U may see; --now TIME sets the clock of
  commands that take the time)

tools for a model:
  tools [--format openai|anthropic|mcp]     the tools' JSON Schemas (default openai)
  call-tool <NAME> <JSON> (--user U | --all-users) [--thread T]  run one tool as a model
                            would, under user U; prints its JSON answer
  mcp (--user U | --all-users) [--thread T]   serve the tools (and the records as
                            resources) to an MCP client over stdio, every tool under user U;
                            serving every user's memory must be asked for with --all-users

  TIME is ISO 8601 (2024-05-08, 2024-05-08T13:56:00Z) or ms since the epoch; a duration is
  like 90s, 15m, 12h, 30d or 2w.

ranking options of search (defaults: the core's, shown here):
  --fusion weighted|rrf     how hybrid fuses BM25 and vectors (weighted)
  --vector-weight <W>       vector share of weighted fusion, 0 to 1 (0.5)
  --rrf-k <K>               the constant of reciprocal-rank fusion (60)
  --context <B>             share of its best thread neighbour's score a turn borrows,
                            0 to 1 (0.5; 0 turns thread context off)
  --thread-scope <G>        share of the best score in its thread a turn gains, 0 to 1
                            (0.25; 0 turns it off)
  --stopwords on|off        drop English function words from the BM25 query (on)
  --derived-keys on|off     match the derived keys: user, date forms of created_at (on)
  --field-weights <LIST>    BM25F weights, e.g. input=1,output=1,compact=1,steps=0.5,keys=1
                            (fields left out keep their default)

options:
  --store <DIR>             the store directory (default ./memdag-demo-store)
  --component <PATH>        the component file; else $MEMDAG_COMPONENT, next to this binary,
                            or <cargo target dir>/wasm32-wasip2/release/memdag_component.wasm
  --embed-cmd <CMD>         vectors from a program (sh -c): {\"texts\": [...]} on its stdin,
                            a JSON array of vectors on its stdout. Default: built-in embedder
  --llm-cmd <CMD>           an LLM as a program (sh -c): the prompt on its stdin, the answer
                            on its stdout. Default: the extractive compactor
  --cmd-timeout <SECS>      how long one --embed-cmd or --llm-cmd call may run before it is
                            stopped (default 120)
  --limits <JSON>           change limits for this run, e.g. '{\"maxFieldBytes\": 1048576}'
                            (names as `memdag limits` prints them)
  --key-file <PATH>         encrypt the store at rest with this key: 32 bytes, raw or as 64 hex
                            digits (e.g. `head -c 32 /dev/urandom > memdag.key`); else
                            $MEMDAG_KEY_FILE, or $MEMDAG_KEY as 64 hex digits. A store written
                            with a key opens only with it (error LOCKED otherwise)
";

/// What to do.
#[derive(Debug, PartialEq)]
pub enum Command {
    Demo,
    Ingest {
        file: PathBuf,
        /// Learn memory items from each turn.
        extract: bool,
    },
    Search(Search),
    Grep {
        pattern: String,
        case_insensitive: bool,
        fields: Vec<String>,
        user: Option<String>,
        json: bool,
    },
    Recall {
        thread: String,
        user: Option<String>,
        budget: Option<u32>,
        query: Option<String>,
        json: bool,
    },
    Compact {
        id: String,
    },
    Show {
        id: String,
        raw: bool,
        user: Option<String>,
    },
    Dag {
        id: String,
        depth: u32,
        user: Option<String>,
    },
    Recent {
        thread: String,
        n: u32,
        /// Only what this user may see.
        user: Option<String>,
    },
    Ancestors {
        id: String,
        depth: u32,
        user: Option<String>,
    },
    Delete {
        id: String,
    },
    ForgetUser {
        user: String,
    },
    Reindex {
        batch_size: Option<u32>,
    },
    Limits,
    Memory(MemoryCmd),
    Purge(Purge),
    Work(Work),
    Timeline(Timeline),
    Graph {
        graph: Graph,
        /// Only what this user may see.
        user: Option<String>,
    },
    Tools {
        format: String,
    },
    CallTool {
        name: String,
        arguments: String,
        /// The host's user: the tool keeps to their memory. None only with `--all-users`.
        user: Option<String>,
        /// Recall's thread when the arguments name none.
        thread: Option<String>,
    },
    /// Serve the tools over MCP (stdio), under `user` (none only with `--all-users`).
    Mcp {
        user: Option<String>,
        thread: Option<String>,
    },
    Export {
        /// `md`, `jsonl` or `snapshot`.
        format: String,
        /// A directory (md), or a file; `-` is stdout (jsonl).
        out: PathBuf,
    },
    Import {
        /// A directory of Markdown, a .jsonl file, or a snapshot file.
        path: PathBuf,
    },
    /// Report the damage in the store.
    Verify,
    /// Copy what is intact in `from` into the new store `to`.
    Salvage {
        from: PathBuf,
        to: PathBuf,
    },
    Help,
}

/// A search, one query or a batch file.
#[derive(Debug, PartialEq)]
pub struct Search {
    /// The query text, or the batch file.
    pub input: SearchInput,
    pub mode: String,
    pub k: u32,
    pub thread: Option<String>,
    pub user: Option<String>,
    pub json: bool,
    pub ranking: Ranking,
    pub scope: Option<Scope>,
    pub kinds: Vec<ItemKind>,
    /// The clock relative dates resolve against (TIME); none: the host clock for one query,
    /// none at all for a batch (so a data set's "last week" is not today's).
    pub now: Option<String>,
}

/// The ranking options of a search; none keeps the core's default.
#[derive(Debug, PartialEq, Default)]
pub struct Ranking {
    /// Reciprocal-rank fusion instead of weighted.
    pub rrf: Option<bool>,
    pub vector_weight: Option<f32>,
    pub rrf_k: Option<f32>,
    pub context: Option<f32>,
    pub thread_scope: Option<f32>,
    pub stopwords: Option<bool>,
    pub derived_keys: Option<bool>,
    /// (field name, weight) pairs: input, output, compact, steps, keys.
    pub field_weights: Vec<(String, f32)>,
}

/// The BM25F fields `--field-weights` names.
pub const FIELDS: [&str; 5] = ["input", "output", "compact", "steps", "keys"];

/// Where the queries come from.
#[derive(Debug, PartialEq)]
pub enum SearchInput {
    Text(String),
    Batch(PathBuf),
}

/// Parsed arguments.
#[derive(Debug, PartialEq)]
pub struct Args {
    pub command: Command,
    pub store: PathBuf,
    pub component: Option<PathBuf>,
    pub embed_cmd: Option<String>,
    pub llm_cmd: Option<String>,
    /// Seconds one host command may run.
    pub cmd_timeout: Option<f64>,
    /// Limits to set, as JSON (the core's camelCase names).
    pub limits: Option<String>,
    /// The file holding the store's encryption key.
    pub key_file: Option<PathBuf>,
    /// Whether the output is JSON.
    pub json: bool,
    /// The clock of commands that take the time (TIME); none: the host clock.
    pub now: Option<String>,
}

/// Flags that take a value.
const VALUED: &[&str] = &[
    "--batch-size",
    "--cmd-timeout",
    "--limits",
    "--key-file",
    "--store",
    "--component",
    "--embed-cmd",
    "--llm-cmd",
    "--mode",
    "--k",
    "--thread",
    "--user",
    "--batch",
    "--budget",
    "--query",
    "--field",
    "--depth",
    "-k",
    "--fusion",
    "--vector-weight",
    "--rrf-k",
    "--context",
    "--thread-scope",
    "--stopwords",
    "--derived-keys",
    "--field-weights",
    "--scope",
    "--kind",
    "--now",
    "--subject",
    "--relation",
    "--object",
    "--task",
    "--tool",
    "--importance",
    "--source",
    "--ttl",
    "--text",
    "--as-of",
    "--since",
    "--until",
    "--sort",
    "--limit",
    "--offset",
    "--max-depth",
    "--blob-max-age",
    "--format",
    "--offset-minutes",
];
/// Flags without a value.
const SWITCHES: &[&str] = &[
    "--json",
    "--raw",
    "-i",
    "--help",
    "-h",
    "--all",
    "--extract",
    "--expired",
    "--ended",
    "--unreferenced-blobs",
    "--all-users",
];

/// Flags as given, in order, with their values.
struct Flags(Vec<(String, Option<String>)>);

impl Flags {
    fn value(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .rev()
            .find(|(f, _)| f == name)
            .and_then(|(_, v)| v.clone())
    }

    fn values(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(f, _)| f == name)
            .filter_map(|(_, v)| v.clone())
            .collect()
    }

    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(f, _)| f == name)
    }

    /// `--user U`, checked by the core's rule ([`memdag_core::scope::check_user`]): an empty
    /// or blank value names nobody, so a launcher line such as `--user "$TENANT"` with the
    /// variable unset is refused, never read as every user.
    fn user(&self) -> Result<Option<String>, String> {
        self.value("--user")
            .map(|u| match memdag_core::scope::check_user(&u) {
                Ok(_) => Ok(u),
                Err(e) => Err(format!("--user: {e}")),
            })
            .transpose()
    }

    /// The user of a command that serves an agent (`mcp`, `call-tool`): `--user U`, or every
    /// user's memory only when asked for by name with `--all-users`.
    fn agent_user(&self, command: &str) -> Result<Option<String>, String> {
        match (self.user()?, self.has("--all-users")) {
            (Some(_), true) => Err(format!("{command}: give --user U or --all-users, not both")),
            (Some(u), false) => Ok(Some(u)),
            (None, true) => Ok(None),
            (None, false) => Err(format!(
                "{command} needs --user U (every tool keeps to U's memory), or --all-users to serve every user's memory"
            )),
        }
    }

    fn real(
        &self,
        name: &str,
        range: core::ops::RangeInclusive<f32>,
    ) -> Result<Option<f32>, String> {
        self.value(name)
            .map(|s| match s.parse::<f32>() {
                Ok(x) if range.contains(&x) => Ok(x),
                _ => Err(format!(
                    "{name}: {s:?} is not a number from {} to {}",
                    range.start(),
                    range.end()
                )),
            })
            .transpose()
    }

    fn on_off(&self, name: &str) -> Result<Option<bool>, String> {
        self.value(name)
            .map(|s| match s.as_str() {
                "on" => Ok(true),
                "off" => Ok(false),
                _ => Err(format!("{name}: {s:?}: use on or off")),
            })
            .transpose()
    }

    fn ranking(&self) -> Result<Ranking, String> {
        let rrf = self
            .value("--fusion")
            .map(|f| match f.as_str() {
                "weighted" => Ok(false),
                "rrf" => Ok(true),
                _ => Err(format!("--fusion {f:?}: use weighted or rrf")),
            })
            .transpose()?;
        let mut field_weights = Vec::new();
        if let Some(list) = self.value("--field-weights") {
            for part in list.split(',').filter(|p| !p.trim().is_empty()) {
                let bad = || {
                    format!(
                        "--field-weights: {part:?} is not NAME=WEIGHT (NAME one of {})",
                        FIELDS.join(", ")
                    )
                };
                let (name, w) = part.split_once('=').ok_or_else(bad)?;
                let name = name.trim();
                let w: f32 = w.trim().parse().map_err(|_| bad())?;
                if !FIELDS.contains(&name) || !w.is_finite() || w < 0.0 {
                    return Err(bad());
                }
                field_weights.push((name.to_string(), w));
            }
        }
        Ok(Ranking {
            rrf,
            vector_weight: self.real("--vector-weight", 0.0..=1.0)?,
            rrf_k: self.real("--rrf-k", 0.0..=f32::MAX)?,
            context: self.real("--context", 0.0..=1.0)?,
            thread_scope: self.real("--thread-scope", 0.0..=1.0)?,
            stopwords: self.on_off("--stopwords")?,
            derived_keys: self.on_off("--derived-keys")?,
            field_weights,
        })
    }

    fn number(&self, name: &str) -> Result<Option<u32>, String> {
        self.value(name)
            .map(|s| {
                s.parse()
                    .map_err(|_| format!("{name}: {s:?} is not a count"))
            })
            .transpose()
    }
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut flags = Vec::new();
    let mut positional = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if VALUED.contains(&flag.as_str()) {
            let value = inline
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))?;
            let flag = if flag == "-k" { "--k".into() } else { flag };
            flags.push((flag, Some(value)));
        } else if SWITCHES.contains(&flag.as_str()) {
            flags.push((flag, None));
        } else if flag.starts_with('-') && flag.len() > 1 {
            return Err(format!("unknown option {flag}"));
        } else {
            positional.push(arg);
        }
    }
    let flags = Flags(flags);
    let command = if flags.has("--help") || flags.has("-h") {
        Command::Help
    } else {
        command(&mut positional.into_iter(), &flags)?
    };
    Ok(Args {
        command,
        store: PathBuf::from(
            flags
                .value("--store")
                .unwrap_or_else(|| "memdag-demo-store".into()),
        ),
        component: flags.value("--component").map(PathBuf::from),
        key_file: flags.value("--key-file").map(PathBuf::from),
        json: flags.has("--json"),
        now: flags.value("--now"),
        embed_cmd: flags.value("--embed-cmd"),
        llm_cmd: flags.value("--llm-cmd"),
        limits: flags.value("--limits"),
        cmd_timeout: match flags.value("--cmd-timeout") {
            None => None,
            Some(v) => Some(
                v.parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("--cmd-timeout takes seconds > 0, got {v:?}"))?,
            ),
        },
    })
}

fn command(pos: &mut impl Iterator<Item = String>, flags: &Flags) -> Result<Command, String> {
    let mut need = |what: &str| pos.next().ok_or_else(|| format!("needs {what}"));
    let name = match need("a command") {
        Ok(n) => n,
        Err(_) => return Ok(Command::Help),
    };
    let command = match name.as_str() {
        "help" => Command::Help,
        "demo" => Command::Demo,
        "ingest" => Command::Ingest {
            file: PathBuf::from(need("ingest a FILE")?),
            extract: flags.has("--extract"),
        },
        "search" => {
            let input = match flags.value("--batch") {
                Some(file) => SearchInput::Batch(PathBuf::from(file)),
                None => SearchInput::Text(need("search a QUERY (or --batch FILE)")?),
            };
            let mode = flags.value("--mode").unwrap_or_else(|| "hybrid".into());
            if !["bm25", "vector", "hybrid"].contains(&mode.as_str()) {
                return Err(format!("--mode {mode:?}: use bm25, vector or hybrid"));
            }
            Command::Search(Search {
                input,
                mode,
                k: flags.number("--k")?.unwrap_or(10),
                thread: flags.value("--thread"),
                user: flags.user()?,
                json: flags.has("--json"),
                ranking: flags.ranking()?,
                scope: match flags.value("--scope").as_deref() {
                    None => None,
                    Some("all") => Some(Scope::All),
                    Some("turns") => Some(Scope::Turns),
                    Some("items") => Some(Scope::Items),
                    Some(other) => {
                        return Err(format!("--scope {other:?}: use all, turns or items"))
                    }
                },
                kinds: memory::kinds(flags)?,
                now: flags.value("--now"),
            })
        }
        "grep" => Command::Grep {
            pattern: need("grep a PATTERN")?,
            case_insensitive: flags.has("-i"),
            fields: flags.values("--field"),
            user: flags.user()?,
            json: flags.has("--json"),
        },
        "recall" => {
            let thread = flags.value("--thread").unwrap_or_default();
            let user = flags.user()?;
            if thread.is_empty() && user.is_none() {
                return Err("recall needs --thread T or --user U".into());
            }
            Command::Recall {
                thread,
                user,
                budget: flags.number("--budget")?,
                query: flags.value("--query"),
                json: flags.has("--json"),
            }
        }
        "compact" => Command::Compact {
            id: need("compact an ID")?,
        },
        "show" | "get" => Command::Show {
            id: need(&format!("{name} an ID"))?,
            raw: flags.has("--raw"),
            user: flags.user()?,
        },
        "dag" => Command::Dag {
            id: need("dag an ID")?,
            depth: count(pos.next(), flags.number("--depth")?.unwrap_or(16))?,
            user: flags.user()?,
        },
        "recent" => Command::Recent {
            thread: need("recent a THREAD")?,
            n: count(pos.next(), 10)?,
            user: flags.user()?,
        },
        "ancestors" => Command::Ancestors {
            id: need("ancestors an ID")?,
            depth: count(pos.next(), 16)?,
            user: flags.user()?,
        },
        "delete" => Command::Delete {
            id: need("delete an ID")?,
        },
        "forget-user" => Command::ForgetUser {
            user: need("forget-user a USER")?,
        },
        "limits" => Command::Limits,
        "memory" => Command::Memory(memory::parse(pos, flags)?),
        "purge" => Command::Purge(memory::purge(flags)),
        "work" => Command::Work(work::work(pos, flags)?),
        "timeline" => Command::Timeline(work::timeline(flags)?),
        "graph" => Command::Graph {
            graph: work::graph(pos, flags)?,
            user: flags.user()?,
        },
        "tools" => Command::Tools {
            format: flags.value("--format").unwrap_or_else(|| "openai".into()),
        },
        "call-tool" => Command::CallTool {
            name: need("call-tool a NAME")?,
            arguments: pos.next().unwrap_or_default(),
            user: flags.agent_user("call-tool")?,
            thread: flags.value("--thread"),
        },
        "mcp" => Command::Mcp {
            user: flags.agent_user("mcp")?,
            thread: flags.value("--thread"),
        },
        "export" => {
            let format = flags.value("--format").unwrap_or_else(|| "md".into());
            if !matches!(format.as_str(), "md" | "jsonl" | "snapshot") {
                return Err(format!(
                    "unknown export format {format:?}: md, jsonl or snapshot"
                ));
            }
            Command::Export {
                format,
                out: PathBuf::from(need("export --format md|jsonl|snapshot an OUT path")?),
            }
        }
        "import" => Command::Import {
            path: PathBuf::from(need(
                "import a PATH (a Markdown folder, a .jsonl, a snapshot)",
            )?),
        },
        "verify" => Command::Verify,
        "salvage" => Command::Salvage {
            from: PathBuf::from(need("salvage a SRC store and a DST")?),
            to: PathBuf::from(need("salvage SRC a DST (a new store)")?),
        },
        "reindex" => Command::Reindex {
            batch_size: flags.number("--batch-size")?,
        },
        other => return Err(format!("unknown command {other:?}")),
    };
    if let Some(extra) = pos.next() {
        return Err(format!("unexpected argument {extra:?}"));
    }
    if flags.has("--user") && !takes_user(&command) {
        return Err(format!(
            "{name} does not take --user (it is not kept to one user's memory)"
        ));
    }
    if flags.has("--all-users")
        && !matches!(command, Command::CallTool { .. } | Command::Mcp { .. })
    {
        return Err(format!(
            "{name} does not take --all-users (only mcp and call-tool do)"
        ));
    }
    Ok(command)
}

/// Whether a command keeps to one user's memory with `--user` (the others refuse the flag,
/// rather than ignore it).
fn takes_user(command: &Command) -> bool {
    match command {
        Command::Search(_)
        | Command::Grep { .. }
        | Command::Recall { .. }
        | Command::Show { .. }
        | Command::Dag { .. }
        | Command::Recent { .. }
        | Command::Ancestors { .. }
        | Command::Work(_)
        | Command::Timeline(_)
        | Command::Graph { .. }
        | Command::CallTool { .. }
        | Command::Mcp { .. } => true,
        Command::Memory(m) => !matches!(m, MemoryCmd::Update { .. } | MemoryCmd::Delete { .. }),
        _ => false,
    }
}

fn count(arg: Option<String>, default: u32) -> Result<u32, String> {
    match arg {
        None => Ok(default),
        Some(s) => s.parse().map_err(|_| format!("{s:?} is not a count")),
    }
}

#[cfg(test)]
mod tests;
