//! The arguments of `memdag work ...`, `memdag timeline` and `memdag graph ...`.

use memdag_host::WorkOp;

use super::Flags;

/// `memdag work <SUBCOMMAND> --thread T [FIELD] [VALUE]`.
#[derive(Debug, PartialEq)]
pub struct Work {
    pub thread: String,
    /// Whose working memory (`--user`; none: no user's): working memory is per user and
    /// thread.
    pub user: Option<String>,
    pub action: WorkAction,
}

/// What `memdag work` does.
#[derive(Debug, PartialEq)]
pub enum WorkAction {
    Show,
    History,
    Clear,
    /// `set`, `push` and `patch` carry a value; `pop` and `remove` none. The value is the
    /// argument as given: JSON, or else a string.
    Change {
        op: WorkOp,
        field: String,
        value: Option<String>,
    },
}

/// `memdag timeline`.
#[derive(Debug, PartialEq)]
pub struct Timeline {
    pub user: Option<String>,
    pub thread: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    /// Minutes east of UTC for the days.
    pub offset_minutes: Option<i32>,
}

/// `memdag graph <SUBCOMMAND>`.
#[derive(Debug, PartialEq)]
pub enum Graph {
    Neighbors {
        entity: String,
        depth: u32,
    },
    Path {
        from: String,
        to: String,
        max_depth: u32,
    },
    Export {
        entities: Vec<String>,
    },
}

/// Parses what follows `memdag work`.
pub fn work(pos: &mut dyn Iterator<Item = String>, flags: &Flags) -> Result<Work, String> {
    let sub = pos
        .next()
        .ok_or("work needs show, set, push, pop, patch, remove, history or clear")?;
    let thread = flags
        .value("--thread")
        .ok_or_else(|| format!("work {sub} needs --thread T"))?;
    let action = match sub.as_str() {
        "show" => WorkAction::Show,
        "history" => WorkAction::History,
        "clear" => WorkAction::Clear,
        name => {
            let op = match name {
                "set" => WorkOp::Set,
                "push" => WorkOp::Push,
                "pop" => WorkOp::Pop,
                "patch" => WorkOp::Patch,
                "remove" => WorkOp::Remove,
                other => return Err(format!("unknown work command {other:?}")),
            };
            let field = pos
                .next()
                .ok_or_else(|| format!("work {sub} needs a FIELD"))?;
            let value = match op {
                WorkOp::Pop | WorkOp::Remove => None,
                _ => Some(
                    pos.next()
                        .ok_or_else(|| format!("work {sub} needs a VALUE"))?,
                ),
            };
            WorkAction::Change { op, field, value }
        }
    };
    Ok(Work {
        thread,
        user: flags.user()?,
        action,
    })
}

/// The parsed flags of `memdag timeline`.
pub fn timeline(flags: &Flags) -> Result<Timeline, String> {
    let offset_minutes = flags
        .value("--offset-minutes")
        .map(|v| {
            v.parse::<i32>()
                .map_err(|_| format!("--offset-minutes {v:?} is not a whole number"))
        })
        .transpose()?;
    Ok(Timeline {
        user: flags.user()?,
        thread: flags.value("--thread"),
        since: flags.value("--since"),
        until: flags.value("--until"),
        offset_minutes,
    })
}

/// Parses what follows `memdag graph`.
pub fn graph(pos: &mut dyn Iterator<Item = String>, flags: &Flags) -> Result<Graph, String> {
    let sub = pos.next().ok_or("graph needs neighbors, path or export")?;
    let mut entity = |what: &str| {
        pos.next()
            .ok_or_else(|| format!("graph {sub} needs {what}"))
    };
    Ok(match sub.as_str() {
        "neighbors" => Graph::Neighbors {
            entity: entity("an ENTITY")?,
            depth: flags.number("--depth")?.unwrap_or(1),
        },
        "path" => Graph::Path {
            from: entity("two ENTITIES")?,
            to: entity("two ENTITIES")?,
            max_depth: flags.number("--max-depth")?.unwrap_or(4),
        },
        "export" => Graph::Export {
            entities: pos.collect(),
        },
        other => return Err(format!("unknown graph command {other:?}")),
    })
}
