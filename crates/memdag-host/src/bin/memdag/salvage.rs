//! `memdag verify` and `memdag salvage SRC DST`: what is damaged in a store, and a copy of
//! everything intact into a new one (see memdag-core's `storage::salvage`).

use std::io::{ErrorKind, Write};
use std::path::Path;

use memdag_host::{Damage, DamagedBlock, DirKv, Error, OpenOptions, Runtime};

fn io_error(kind: ErrorKind, message: String) -> Error {
    Error::Io(std::io::Error::new(kind, message))
}

fn no_store(path: &Path) -> Error {
    io_error(
        ErrorKind::NotFound,
        format!("no store at {}", path.display()),
    )
}

/// Prints what is damaged in the store at `path`; fails (exit 1) when anything is.
pub fn verify(
    runtime: &Runtime,
    path: &Path,
    key: Option<&[u8]>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    if !path.is_dir() {
        return Err(no_store(path));
    }
    let v = runtime.verify(DirKv::open_read_only(path)?, None, key)?;
    for w in &v.warnings {
        writeln!(out, "warning: {}: {} ({})", w.code, w.message, w.key)?;
    }
    let holds = format!(
        "{} keys; {} records, {} items, {} blobs, {} documents intact",
        v.keys, v.records, v.items, v.blobs, v.documents
    );
    if v.intact {
        writeln!(out, "{}: intact ({holds})", path.display())?;
        return Ok(());
    }
    let n = v.damage.damaged.len();
    let what = if n == 1 {
        "value or block"
    } else {
        "values or blocks"
    };
    writeln!(
        out,
        "{}: DAMAGED: {n} damaged {what} ({holds})",
        path.display()
    )?;
    report(&v.damage, out)?;
    Err(io_error(
        ErrorKind::InvalidData,
        format!(
            "the store at {} is damaged: `memdag salvage {} NEW_DIR` copies everything intact",
            path.display(),
            path.display()
        ),
    ))
}

/// Copies everything intact in the store `from` into the new store `to`, and prints what was
/// lost. `from` is only read; `to` must not exist or be empty.
pub fn salvage(
    runtime: &Runtime,
    from: &Path,
    to: &Path,
    key: Option<&[u8]>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    if !from.is_dir() {
        return Err(no_store(from));
    }
    let occupied = std::fs::read_dir(to).is_ok_and(|mut d| d.next().is_some());
    if occupied {
        return Err(io_error(
            ErrorKind::AlreadyExists,
            format!("{} is not empty: salvage writes a new store", to.display()),
        ));
    }
    let options = |salvage: bool| {
        let o = if salvage {
            OpenOptions::new().salvaging()
        } else {
            OpenOptions::new()
        };
        match key {
            Some(k) => o.key(k.to_vec()),
            None => o,
        }
    };
    let mut source = runtime.open_with(DirKv::open_read_only(from)?, options(true))?;
    let damage = source.damage().cloned().unwrap_or_else(empty_damage);
    let entries = source.export_snapshot()?;
    let mut target = runtime.open_with(DirKv::open(to)?, options(false))?;
    let records = target.import_snapshot(&entries)?;
    writeln!(
        out,
        "salvaged {} into {}: {records} records and items",
        from.display(),
        to.display()
    )?;
    if damage.damaged.is_empty() {
        writeln!(out, "nothing was damaged")?;
    } else {
        report(&damage, out)?;
    }
    Ok(())
}

fn empty_damage() -> Damage {
    Damage {
        damaged: Vec::new(),
        lost_records: Vec::new(),
        lost_items: Vec::new(),
        lost_blobs: Vec::new(),
        lost_documents: Vec::new(),
        older_versions: Vec::new(),
        detached: Vec::new(),
    }
}

/// Every damaged value and block, what it held, and what was lost by id.
fn report(d: &Damage, out: &mut dyn Write) -> Result<(), Error> {
    for b in &d.damaged {
        writeln!(out, "  {}: {}", place(b), b.reason)?;
        let held = held(b);
        if !held.is_empty() {
            writeln!(out, "    held {held}")?;
        }
    }
    let list = |name: &str, ids: &[String], out: &mut dyn Write| -> Result<(), Error> {
        if !ids.is_empty() {
            writeln!(out, "{name} ({}): {}", ids.len(), ids.join(", "))?;
        }
        Ok(())
    };
    list("lost records", &d.lost_records, out)?;
    list("lost items", &d.lost_items, out)?;
    list("lost blobs", &d.lost_blobs, out)?;
    list("lost documents", &d.lost_documents, out)?;
    list("older versions kept", &d.older_versions, out)?;
    for (record, parent) in &d.detached {
        writeln!(out, "detached: {record} no longer cites the lost {parent}")?;
    }
    Ok(())
}

fn place(b: &DamagedBlock) -> String {
    match b.block {
        Some(n) => format!("{} block {n}", b.key),
        None => b.key.clone(),
    }
}

/// What a damaged block held, as far as its bytes tell.
fn held(b: &DamagedBlock) -> String {
    let mut parts = Vec::new();
    // The lost ones are listed in full below; a few name the block here.
    let few = |ids: &[String]| match ids.len() {
        0..=6 => ids.join(", "),
        n => format!("{} and {} more", ids[..5].join(", "), n - 5),
    };
    if !b.records.is_empty() {
        parts.push(format!("records {}", few(&b.records)));
    }
    if !b.items.is_empty() {
        parts.push(format!("items {}", few(&b.items)));
    }
    let range = match (b.after_seq, b.before_seq) {
        (Some(a), Some(z)) => format!("sequence numbers {} to {}", a + 1, z.saturating_sub(1)),
        (Some(a), None) => format!("sequence numbers from {}", a + 1),
        (None, Some(z)) => format!("sequence numbers below {z}"),
        (None, None) => "unknown sequence numbers".into(),
    };
    if b.ids_known {
        parts.push(format!("all at {range}"));
    } else {
        parts.push(format!("and records unread, at {range}"));
    }
    parts.join("; ")
}
