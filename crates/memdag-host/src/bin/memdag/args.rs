//! Command-line arguments, parsed by hand (see the note in Cargo.toml). The commands of
//! long-term memory and purge are parsed in [`memory`], those of working memory, the timeline
//! and the graph in [`work`].

mod context;
mod memory;
mod usage;
mod work;

use std::path::PathBuf;

use memdag_host::{ItemKind, Scope};

pub use context::{ContextCmd, Finish, Prepare};
pub use memory::{AddItem, ItemChange, ListItems, MemoryCmd, Purge};
pub use usage::USAGE;
pub use work::{Graph, Timeline, Work, WorkAction};

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
    /// The context pipeline and the listings.
    Context(ContextCmd),
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
    "--window",
    "--threshold",
    "--keep",
    "--summary-tokens",
    "--recall-tokens",
    "--from-line",
    "--lines",
    "--set",
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
    "--no-learn",
    "--no-cite",
    "--strict-parents",
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
        "prepare" | "finish" | "read-blob" | "threads" | "users" => {
            Command::Context(context::parse(&name, pos, flags)?)
        }
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
        Command::Context(c) => matches!(c, ContextCmd::Prepare(_) | ContextCmd::ReadBlob { .. }),
        Command::Memory(m) => !matches!(
            m,
            MemoryCmd::Update { .. } | MemoryCmd::Delete { .. } | MemoryCmd::Settings { .. }
        ),
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
