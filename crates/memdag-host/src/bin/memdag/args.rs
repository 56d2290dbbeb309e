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
                            importance, embedding); turns already stored are skipped; progress
                            on stderr. --extract learns memory items from each turn (by the
                            rules, or with --llm-cmd through the LLM)
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
                            [--query TEXT] [--json]; it counts a use of each turn it returns,
                            so it takes the writer's lock
  compact <ID>              write the turn's compact node: with --llm-cmd, else extractive
  show <ID> [--raw]         one turn in full; --raw prints its tool log unabridged
  dag <ID> [DEPTH]          the ancestors and descendants of a turn, drawn as trees
  recent <THREAD> [N]       the N newest turns of a thread (default 10)
  ancestors <ID> [DEPTH]    the DAG ancestors of a turn as a tree (default depth 16)
  get <ID>                  one turn in full (as show)
  delete <ID>               delete one turn; its children take over its parents
  forget-user <USER>        erase every turn of a user, the blobs only they referenced, and
                            their index entries; the store is rewritten so no file keeps them
  limits                    the limits turns are checked against, as JSON
  reindex [--batch-size N]  embed every turn again, to move to another embedding model (and
                            dimension): with --embed-cmd, N texts per call (default 64),
                            else with the built-in embedder; progress on stderr

  With --user U, show, get, dag, ancestors and grep return only what U may see: U's own
  turns and those tagged \"shared\" (search and recall take --user the same way).
  export --format md|jsonl|snapshot <OUT>   Markdown (a folder: one file per thread, one per
                            user's items), JSONL (the ingest format, then items; - for stdout)
                            or the binary snapshot
  import <PATH>             add what a Markdown folder, a JSONL file or a snapshot holds and the
                            store lacks (a snapshot into an empty store only)
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
  memory history <ID>       every version of an item and of those it superseded
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
  work show|history|clear --thread T        a thread's working memory, its changes, or
                            forget it
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
  call-tool <NAME> <JSON> [--user U] [--thread T]  run one tool as a model would, under
                            user U; prints its JSON answer
  mcp [--user U] [--thread T]   serve the tools (and the records as resources) to an MCP
                            client over stdio, every tool under user U

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
        user: String,
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
        /// The host's user: the tool keeps to their memory.
        user: Option<String>,
        /// Recall's thread when the arguments name none.
        thread: Option<String>,
    },
    /// Serve the tools over MCP (stdio), under `user`.
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
                user: flags.value("--user"),
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
            user: flags.value("--user"),
            json: flags.has("--json"),
        },
        "recall" => {
            let thread = flags.value("--thread").unwrap_or_default();
            let user = flags.value("--user").unwrap_or_default();
            if thread.is_empty() && user.is_empty() {
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
            user: flags.value("--user"),
        },
        "dag" => Command::Dag {
            id: need("dag an ID")?,
            depth: count(pos.next(), flags.number("--depth")?.unwrap_or(16))?,
            user: flags.value("--user"),
        },
        "recent" => Command::Recent {
            thread: need("recent a THREAD")?,
            n: count(pos.next(), 10)?,
        },
        "ancestors" => Command::Ancestors {
            id: need("ancestors an ID")?,
            depth: count(pos.next(), 16)?,
            user: flags.value("--user"),
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
            user: flags.value("--user"),
        },
        "tools" => Command::Tools {
            format: flags.value("--format").unwrap_or_else(|| "openai".into()),
        },
        "call-tool" => Command::CallTool {
            name: need("call-tool a NAME")?,
            arguments: pos.next().unwrap_or_default(),
            user: flags.value("--user"),
            thread: flags.value("--thread"),
        },
        "mcp" => Command::Mcp {
            user: flags.value("--user"),
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
        "reindex" => Command::Reindex {
            batch_size: flags.number("--batch-size")?,
        },
        other => return Err(format!("unknown command {other:?}")),
    };
    if let Some(extra) = pos.next() {
        return Err(format!("unexpected argument {extra:?}"));
    }
    Ok(command)
}

fn count(arg: Option<String>, default: u32) -> Result<u32, String> {
    match arg {
        None => Ok(default),
        Some(s) => s.parse().map_err(|_| format!("{s:?} is not a count")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Args, String> {
        parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn parses_commands_and_flags() {
        let a = parse_str("demo --store /tmp/x").unwrap();
        assert_eq!(a.command, Command::Demo);
        assert_eq!(a.store, PathBuf::from("/tmp/x"));
        let a = parse_str("--component=c.wasm recent 周末计划 3").unwrap();
        assert_eq!(
            a.command,
            Command::Recent {
                thread: "周末计划".into(),
                n: 3
            }
        );
        assert_eq!(a.component, Some(PathBuf::from("c.wasm")));
        assert_eq!(
            parse_str("ancestors t12").unwrap().command,
            Command::Ancestors {
                id: "t12".into(),
                depth: 16,
                user: None
            }
        );
        assert_eq!(parse_str("").unwrap().command, Command::Help);
        assert_eq!(parse_str("demo --help").unwrap().command, Command::Help);
    }

    #[test]
    fn parses_search_and_friends() {
        let a = parse_str("search deploy --mode bm25 --k 3 --user lin --json").unwrap();
        assert_eq!(
            a.command,
            Command::Search(Search {
                input: SearchInput::Text("deploy".into()),
                mode: "bm25".into(),
                k: 3,
                thread: None,
                user: Some("lin".into()),
                json: true,
                ranking: Ranking::default(),
                scope: None,
                kinds: Vec::new(),
                now: None,
            })
        );
        let a =
            parse_str("search boots --scope items --kind procedural --kind tool --now 5").unwrap();
        let Command::Search(s) = a.command else {
            panic!("not a search")
        };
        assert_eq!(s.scope, Some(Scope::Items));
        assert_eq!(s.kinds, [ItemKind::Procedural, ItemKind::Tool]);
        assert_eq!(s.now.as_deref(), Some("5"));
        let a = parse_str(
            "search --batch q.jsonl --fusion rrf --rrf-k 30 --vector-weight 0.3 --context 0 --thread-scope 0 \
             --stopwords off --derived-keys off --field-weights steps=0,keys=2",
        )
        .unwrap();
        let Command::Search(s) = a.command else {
            panic!("not a search")
        };
        assert_eq!(
            s.ranking,
            Ranking {
                rrf: Some(true),
                vector_weight: Some(0.3),
                rrf_k: Some(30.0),
                context: Some(0.0),
                thread_scope: Some(0.0),
                stopwords: Some(false),
                derived_keys: Some(false),
                field_weights: vec![("steps".into(), 0.0), ("keys".into(), 2.0)],
            }
        );
        let a = parse_str("search --batch q.jsonl --mode vector -k 5 --json").unwrap();
        assert!(matches!(
            a.command,
            Command::Search(Search {
                input: SearchInput::Batch(_),
                k: 5,
                ..
            })
        ));
        let a = parse_str("compact t3 --llm-cmd ./fake.sh").unwrap();
        assert_eq!(a.llm_cmd.as_deref(), Some("./fake.sh"));
        assert_eq!(a.cmd_timeout, None);
        let a = parse_str("compact t3 --llm-cmd ./fake.sh --cmd-timeout 2.5").unwrap();
        assert_eq!(a.cmd_timeout, Some(2.5));
        assert!(parse_str("compact t3 --cmd-timeout 0").is_err());
        assert!(parse_str("compact t3 --cmd-timeout soon").is_err());
        assert_eq!(
            parse_str("show t3 --raw").unwrap().command,
            Command::Show {
                id: "t3".into(),
                raw: true,
                user: None
            }
        );
        assert_eq!(
            parse_str("reindex --batch-size 8").unwrap().command,
            Command::Reindex {
                batch_size: Some(8)
            }
        );
        assert_eq!(
            parse_str("reindex").unwrap().command,
            Command::Reindex { batch_size: None }
        );
        assert_eq!(
            parse_str("forget-user mallory").unwrap().command,
            Command::ForgetUser {
                user: "mallory".into()
            }
        );
        assert_eq!(
            parse_str("delete t3").unwrap().command,
            Command::Delete { id: "t3".into() }
        );
        let a = parse_str("limits --limits {\"maxTags\":3}").unwrap();
        assert_eq!(a.command, Command::Limits);
        assert_eq!(a.limits.as_deref(), Some("{\"maxTags\":3}"));
        assert!(matches!(
            parse_str("recall --thread main --budget 300")
                .unwrap()
                .command,
            Command::Recall {
                budget: Some(300),
                ..
            }
        ));
    }

    #[test]
    fn parses_memory_work_graph_and_tools() {
        let a = parse_str("memory add --user ada --kind tool --tool kubectl --source t1 --source t2 --ttl 90s flaky").unwrap();
        let Command::Memory(MemoryCmd::Add(add)) = a.command else {
            panic!("not memory add")
        };
        assert_eq!(
            (add.user.as_str(), add.kind, add.text.as_str()),
            ("ada", ItemKind::Tool, "flaky")
        );
        assert_eq!(add.sources, ["t1", "t2"]);
        assert_eq!(add.fields.ttl.as_deref(), Some("90s"));
        let a = parse_str("memory list --kind fact --all --sort uses --limit 5 --json").unwrap();
        assert!(a.json);
        let Command::Memory(MemoryCmd::List(list)) = a.command else {
            panic!("not memory list")
        };
        assert_eq!(
            (list.kinds, list.all, list.order, list.limit),
            (
                vec![ItemKind::Fact],
                true,
                memdag_host::ItemOrder::Uses,
                Some(5)
            )
        );
        assert_eq!(
            parse_str("memory extract t1 t2").unwrap().command,
            Command::Memory(MemoryCmd::Extract {
                ids: vec!["t1".into(), "t2".into()],
                thread: None,
                user: None
            })
        );
        let a =
            parse(["work", "set", "--thread", "T", "goal", "ship it"].map(String::from)).unwrap();
        assert_eq!(
            a.command,
            Command::Work(Work {
                thread: "T".into(),
                user: None,
                action: WorkAction::Change {
                    op: memdag_host::WorkOp::Set,
                    field: "goal".into(),
                    value: Some("ship it".into())
                }
            })
        );
        assert!(matches!(
            parse_str("work pop --thread T tasks").unwrap().command,
            Command::Work(Work {
                action: WorkAction::Change { value: None, .. },
                ..
            })
        ));
        assert_eq!(
            parse_str("graph path ada germany --max-depth 3")
                .unwrap()
                .command,
            Command::Graph {
                graph: Graph::Path {
                    from: "ada".into(),
                    to: "germany".into(),
                    max_depth: 3
                },
                user: None
            }
        );
        let Command::Purge(p) = parse_str("purge").unwrap().command else {
            panic!("not purge")
        };
        assert!(p.expired && !p.ended);
        let Command::Purge(p) = parse_str("purge --ended").unwrap().command else {
            panic!("not purge")
        };
        assert!(!p.expired && p.ended);
        assert_eq!(
            parse_str("tools --format anthropic").unwrap().command,
            Command::Tools {
                format: "anthropic".into()
            }
        );
        assert!(matches!(
            parse_str("ingest f.jsonl --extract").unwrap().command,
            Command::Ingest { extract: true, .. }
        ));
        for bad in [
            "memory add x",
            "memory add --user ada",
            "memory update m1",
            "memory list --sort size",
            "memory extract",
            "memory frob",
            "work set --thread T goal",
            "work show",
            "graph path a",
            "search x --scope everything",
            "memory add --user a --kind idea x",
        ] {
            assert!(parse_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse_str("demo --store").is_err());
        assert!(parse_str("demo --frob").is_err());
        assert!(parse_str("recent").is_err());
        assert!(parse_str("recent t x").is_err());
        assert!(parse_str("get a b").is_err());
        assert!(parse_str("launch").is_err());
        assert!(parse_str("search x --mode fuzzy").is_err());
        assert!(parse_str("search").is_err());
        assert!(parse_str("recall").is_err());
        assert!(parse_str("search x --k many").is_err());
        assert!(parse_str("search x --fusion max").is_err());
        assert!(parse_str("search x --vector-weight 1.5").is_err());
        assert!(parse_str("search x --context -1").is_err());
        assert!(parse_str("search x --stopwords maybe").is_err());
        assert!(parse_str("search x --field-weights body=1").is_err());
        assert!(parse_str("search x --field-weights keys=-1").is_err());
    }
}
