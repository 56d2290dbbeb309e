//! The arguments of `memdag memory ...` and `memdag purge`.
//!
//! Times (`--as-of`, `--since`, `--until`) and durations (`--ttl`, `--blob-max-age`) stay
//! text here: the component reads them after the store is open (the core's parsers), so every
//! face reads `30d` and `2024-05-08T13:56:00Z` the same way.

use memdag_host::{ItemKind, ItemOrder};

use super::Flags;

/// `memdag memory <SUBCOMMAND>`.
#[derive(Debug, PartialEq)]
pub enum MemoryCmd {
    Add(AddItem),
    Get {
        id: String,
        user: Option<String>,
    },
    Update {
        id: String,
        change: ItemChange,
    },
    Delete {
        id: String,
    },
    History {
        id: String,
        /// Only an item this user may see.
        user: Option<String>,
    },
    List(ListItems),
    Resolutions {
        user: Option<String>,
    },
    /// The settings as JSON; with `set`, change the names it gives first.
    Settings {
        set: Option<String>,
    },
    /// Learn from these turns, or a thread's or a user's (with `--llm-cmd`, through it).
    Extract {
        ids: Vec<String>,
        thread: Option<String>,
        user: Option<String>,
    },
}

/// `memdag memory add`.
#[derive(Debug, PartialEq)]
pub struct AddItem {
    pub user: String,
    pub kind: ItemKind,
    pub text: String,
    pub fields: ItemChange,
    pub sources: Vec<String>,
}

/// The fields `memory add` and `memory update` take; none leaves one as it is.
#[derive(Debug, PartialEq, Default)]
pub struct ItemChange {
    pub text: Option<String>,
    pub subject: Option<String>,
    pub relation: Option<String>,
    pub object: Option<String>,
    pub task: Option<String>,
    pub tool: Option<String>,
    pub importance: Option<f32>,
    /// A duration, or `none` to remove the expiry (update only).
    pub ttl: Option<String>,
}

/// `memdag memory list`.
#[derive(Debug, PartialEq)]
pub struct ListItems {
    pub user: Option<String>,
    pub kinds: Vec<ItemKind>,
    pub all: bool,
    pub as_of: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub order: ItemOrder,
    pub limit: Option<u32>,
    pub offset: u32,
}

/// `memdag purge`: what to remove for good.
#[derive(Debug, PartialEq)]
pub struct Purge {
    pub expired: bool,
    pub ended: bool,
    pub blob_max_age: Option<String>,
    pub unreferenced_blobs: bool,
}

/// The kind a name gives.
pub fn kind(name: &str) -> Result<ItemKind, String> {
    match name {
        "personal" => Ok(ItemKind::Personal),
        "procedural" => Ok(ItemKind::Procedural),
        "tool" => Ok(ItemKind::Tool),
        "fact" => Ok(ItemKind::Fact),
        _ => Err(format!(
            "--kind {name:?}: use personal, procedural, tool or fact"
        )),
    }
}

/// Every `--kind` given.
pub fn kinds(flags: &Flags) -> Result<Vec<ItemKind>, String> {
    flags.values("--kind").iter().map(|k| kind(k)).collect()
}

fn change(flags: &Flags) -> Result<ItemChange, String> {
    Ok(ItemChange {
        text: flags.value("--text"),
        subject: flags.value("--subject"),
        relation: flags.value("--relation"),
        object: flags.value("--object"),
        task: flags.value("--task"),
        tool: flags.value("--tool"),
        importance: flags.real("--importance", 0.0..=1.0)?,
        ttl: flags.value("--ttl"),
    })
}

/// Parses what follows `memdag memory`.
pub fn parse(pos: &mut dyn Iterator<Item = String>, flags: &Flags) -> Result<MemoryCmd, String> {
    let sub = pos.next().ok_or(
        "memory needs add, get, update, delete, history, list, resolutions, settings or extract",
    )?;
    let mut id = |what: &str| {
        pos.next()
            .ok_or_else(|| format!("memory {what} needs an ID"))
    };
    Ok(match sub.as_str() {
        "add" => {
            let user = flags.user()?.ok_or("memory add needs --user U")?;
            let text = id("add")
                .ok()
                .or_else(|| flags.value("--text"))
                .ok_or("memory add needs a TEXT")?;
            MemoryCmd::Add(AddItem {
                user,
                kind: flags
                    .value("--kind")
                    .map_or(Ok(ItemKind::Personal), |k| kind(&k))?,
                text,
                fields: change(flags)?,
                sources: flags.values("--source"),
            })
        }
        "get" => MemoryCmd::Get {
            id: id("get")?,
            user: flags.user()?,
        },
        "update" => {
            let id = id("update")?;
            let change = change(flags)?;
            if change == ItemChange::default() {
                return Err("memory update needs a field to change (--text, --object, ...)".into());
            }
            MemoryCmd::Update { id, change }
        }
        "delete" => MemoryCmd::Delete { id: id("delete")? },
        "history" => MemoryCmd::History {
            id: id("history")?,
            user: flags.user()?,
        },
        "list" => MemoryCmd::List(ListItems {
            user: flags.user()?,
            kinds: kinds(flags)?,
            all: flags.has("--all"),
            as_of: flags.value("--as-of"),
            since: flags.value("--since"),
            until: flags.value("--until"),
            order: match flags.value("--sort").as_deref() {
                None | Some("created") => ItemOrder::Created,
                Some("updated") => ItemOrder::Updated,
                Some("importance") => ItemOrder::Importance,
                Some("uses") => ItemOrder::Uses,
                Some(other) => {
                    return Err(format!(
                        "--sort {other:?}: use created, updated, importance or uses"
                    ))
                }
            },
            limit: flags.number("--limit")?,
            offset: flags.number("--offset")?.unwrap_or(0),
        }),
        "resolutions" => MemoryCmd::Resolutions {
            user: flags.user()?,
        },
        "settings" => MemoryCmd::Settings {
            set: flags.value("--set"),
        },
        "extract" => {
            let ids: Vec<String> = pos.collect();
            let (thread, user) = (flags.value("--thread"), flags.user()?);
            if ids.is_empty() && thread.is_none() && user.is_none() {
                return Err("memory extract needs --thread T, --user U or turn IDs".into());
            }
            MemoryCmd::Extract { ids, thread, user }
        }
        other => return Err(format!("unknown memory command {other:?}")),
    })
}

/// Parses the flags of `memdag purge`: expired items unless other things are named.
pub fn purge(flags: &Flags) -> Purge {
    let (ended, unreferenced_blobs) = (flags.has("--ended"), flags.has("--unreferenced-blobs"));
    let blob_max_age = flags.value("--blob-max-age");
    let other = ended || unreferenced_blobs || blob_max_age.is_some();
    Purge {
        expired: flags.has("--expired") || !other,
        ended,
        blob_max_age,
        unreferenced_blobs,
    }
}
