//! `memdag`: the command-line face of the memdag component, run by Wasmtime.
//!
//! See `memdag help`. The store is a directory of files written through the component's `kv`
//! import ([`memdag_host::DirKv`]).

mod args;
mod demo;
mod show;

use std::process::ExitCode;
use std::time::Instant;

use memdag_host::{locate, DirKv, Error, Runtime};

use args::{Args, Command};

fn main() -> ExitCode {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("memdag: {message}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memdag: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), Error> {
    if args.command == Command::Help {
        print!("{}", args::USAGE);
        return Ok(());
    }
    let path = locate::component_path(args.component.as_deref())?;
    let started = Instant::now();
    let runtime = Runtime::from_file(&path)?;
    let verbose = args.command == Command::Demo;
    if verbose {
        println!(
            "component {} (compiled in {} ms)",
            path.display(),
            started.elapsed().as_millis()
        );
    }

    if !verbose && !args.store.is_dir() {
        // Only `demo` creates a store; a typo should not leave an empty directory behind.
        let message = format!(
            "no store at {} (run `memdag demo` first)",
            args.store.display()
        );
        return Err(Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            message,
        )));
    }
    let kv = DirKv::open(&args.store)?;
    let started = Instant::now();
    let mut memory = runtime.open(kv, None)?;
    if verbose {
        println!(
            "loaded {} records from {} in {} ms",
            memory.len()?,
            args.store.display(),
            started.elapsed().as_millis()
        );
    }

    match args.command {
        Command::Demo => demo::run(&mut memory)?,
        Command::Recent { thread, n } => {
            for r in memory.recent(&thread, n)? {
                println!("{}", show::line(&r));
            }
        }
        Command::Ancestors { id, depth } => {
            let root = memory.get(&id)?.ok_or_else(|| not_found(&id))?;
            let ancestors = memory.ancestors(&id, depth, u32::MAX)?;
            print!("{}", show::ancestor_tree(&root, &ancestors));
        }
        Command::Get { id } => {
            let record = memory.get(&id)?.ok_or_else(|| not_found(&id))?;
            print!("{}", show::full(&record));
        }
        Command::Help => unreachable!("handled above"),
    }
    Ok(())
}

/// The error `get` would give if it failed on a missing id, in the component's format.
fn not_found(id: &str) -> Error {
    Error::Memory(memdag_host::MemoryError::NotFound(format!(
        "NOT_FOUND: no record with id {id:?}"
    )))
}
