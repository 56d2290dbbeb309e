//! The arguments of the context pipeline (`prepare`, `finish`, `read-blob`) and the listings
//! (`threads`, `users`).

use std::path::PathBuf;

use super::Flags;

/// A context command.
#[derive(Debug, PartialEq)]
pub enum ContextCmd {
    Prepare(Prepare),
    Finish(Finish),
    ReadBlob {
        id: String,
        from_line: u32,
        lines: u32,
        user: Option<String>,
    },
    Threads,
    Users,
}

/// `memdag prepare`.
#[derive(Debug, PartialEq)]
pub struct Prepare {
    /// The messages file, `-` for stdin.
    pub messages: PathBuf,
    pub thread: String,
    pub user: Option<String>,
    pub window: u32,
    pub threshold: Option<u32>,
    pub keep: Option<u32>,
    pub summary_tokens: Option<u32>,
    pub recall_tokens: Option<u32>,
    /// Recall's query text.
    pub query: Option<String>,
}

/// `memdag finish`.
#[derive(Debug, PartialEq)]
pub struct Finish {
    /// The turn file, `-` for stdin.
    pub turn: PathBuf,
    pub learn: bool,
    pub cite: bool,
    pub strict_parents: bool,
}

/// Parses what follows `memdag prepare|finish|read-blob|threads|users`.
pub fn parse(
    name: &str,
    pos: &mut dyn Iterator<Item = String>,
    flags: &Flags,
) -> Result<ContextCmd, String> {
    Ok(match name {
        "prepare" => {
            let messages = pos
                .next()
                .ok_or("prepare needs a FILE of messages (- for stdin)")?;
            let thread = flags.value("--thread").ok_or("prepare needs --thread T")?;
            let window = flags
                .number("--window")?
                .filter(|&w| w > 0)
                .ok_or("prepare needs --window N (the model's context window in tokens)")?;
            ContextCmd::Prepare(Prepare {
                messages: PathBuf::from(messages),
                thread,
                user: flags.user()?,
                window,
                threshold: flags.number("--threshold")?,
                keep: flags.number("--keep")?,
                summary_tokens: flags.number("--summary-tokens")?,
                recall_tokens: flags.number("--recall-tokens")?,
                query: flags.value("--query"),
            })
        }
        "finish" => ContextCmd::Finish(Finish {
            turn: PathBuf::from(
                pos.next()
                    .ok_or("finish needs a FILE with the turn (- for stdin)")?,
            ),
            learn: !flags.has("--no-learn"),
            cite: !flags.has("--no-cite"),
            strict_parents: flags.has("--strict-parents"),
        }),
        "read-blob" => ContextCmd::ReadBlob {
            id: pos.next().ok_or("read-blob needs an ID")?,
            from_line: flags.number("--from-line")?.unwrap_or(1),
            lines: flags.number("--lines")?.unwrap_or(0),
            user: flags.user()?,
        },
        "threads" => ContextCmd::Threads,
        _ => ContextCmd::Users,
    })
}
