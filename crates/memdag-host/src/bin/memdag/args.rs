//! Command-line arguments, parsed by hand (see the note in Cargo.toml).

use std::path::PathBuf;

/// The usage text.
pub const USAGE: &str = "\
memdag: agent memory as a DAG of turns, run as a WebAssembly component

usage: memdag [OPTIONS] <COMMAND>

commands:
  demo                      ingest the bundled sample session (new turns only), then show
                            the recent turns of its last thread and the ancestors of its last turn
  recent <THREAD> [N]       the N newest turns of a thread (default 10)
  ancestors <ID> [DEPTH]    the DAG ancestors of a turn as a tree (default depth 16)
  get <ID>                  one turn in full
  help                      this text

options:
  --store <DIR>             the store directory (default ./memdag-demo-store)
  --component <PATH>        the component file; else $MEMDAG_COMPONENT, next to this binary,
                            or <cargo target dir>/wasm32-wasip2/release/memdag_component.wasm
";

/// What to do.
#[derive(Debug, PartialEq)]
pub enum Command {
    Demo,
    Recent { thread: String, n: u32 },
    Ancestors { id: String, depth: u32 },
    Get { id: String },
    Help,
}

/// Parsed arguments.
#[derive(Debug, PartialEq)]
pub struct Args {
    pub command: Command,
    pub store: PathBuf,
    pub component: Option<PathBuf>,
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut store = PathBuf::from("memdag-demo-store");
    let mut component = None;
    let mut positional = Vec::new();
    let mut help = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--store" => store = PathBuf::from(value("--store")?),
            "--component" => component = Some(PathBuf::from(value("--component")?)),
            "-h" | "--help" => help = true,
            f if f.starts_with('-') && f.len() > 1 => return Err(format!("unknown option {f}")),
            _ => positional.push(arg),
        }
    }
    if help {
        return Ok(Args {
            command: Command::Help,
            store,
            component,
        });
    }
    let mut pos = positional.into_iter();
    let command = match pos.next().as_deref() {
        None | Some("help") => Command::Help,
        Some("demo") => Command::Demo,
        Some("recent") => {
            let thread = pos.next().ok_or("recent needs a THREAD")?;
            Command::Recent {
                thread,
                n: number(pos.next(), 10)?,
            }
        }
        Some("ancestors") => {
            let id = pos.next().ok_or("ancestors needs an ID")?;
            Command::Ancestors {
                id,
                depth: number(pos.next(), 16)?,
            }
        }
        Some("get") => Command::Get {
            id: pos.next().ok_or("get needs an ID")?,
        },
        Some(other) => return Err(format!("unknown command {other:?}")),
    };
    if let Some(extra) = pos.next() {
        return Err(format!("unexpected argument {extra:?}"));
    }
    Ok(Args {
        command,
        store,
        component,
    })
}

fn number(arg: Option<String>, default: u32) -> Result<u32, String> {
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
                depth: 16
            }
        );
        assert_eq!(parse_str("").unwrap().command, Command::Help);
        assert_eq!(parse_str("demo --help").unwrap().command, Command::Help);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse_str("demo --store").is_err());
        assert!(parse_str("demo --frob").is_err());
        assert!(parse_str("recent").is_err());
        assert!(parse_str("recent t x").is_err());
        assert!(parse_str("get a b").is_err());
        assert!(parse_str("launch").is_err());
    }
}
