//! `memdag export` and `memdag import`: the store as Markdown, JSONL or a snapshot, and back.
//!
//! The formats are the core's (`memdag_core::export`), reached through the component; this
//! module only moves files. Markdown is a folder (one file per thread, one per user's
//! long-term memory, blobs, settings, and a README), written under OUT/ with its paths;
//! JSONL is one file (or stdout for `-`); the snapshot is the binary `MDAGEXP1` file.
//! `import` tells them apart: a directory is Markdown, a file that opens with `MDAGEXP1` a
//! snapshot (imported only into an empty store, since a snapshot replaces what it is put
//! into), anything else JSONL.

use std::io::Write;
use std::path::{Component, Path};

use memdag_host::{Error, ErrorCode, Memory};

/// How a snapshot file opens (the core's `export::snapshot::SNAPSHOT_MAGIC`), to tell it
/// from JSONL.
const SNAPSHOT_MAGIC: &[u8] = b"MDAGEXP1";

/// Writes the store in `format` to `path`.
pub fn export(
    memory: &mut Memory,
    format: &str,
    path: &Path,
    out: &mut dyn Write,
) -> Result<(), Error> {
    match format {
        "md" => {
            let files = memory.export_markdown()?;
            for (rel, text) in &files {
                let target = safe_join(path, rel)?;
                if let Some(dir) = target.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                std::fs::write(&target, text)?;
            }
            writeln!(out, "wrote {} files under {}", files.len(), path.display())?;
        }
        "jsonl" => {
            let text = memory.export_jsonl()?;
            if path == Path::new("-") {
                out.write_all(text.as_bytes())?;
            } else {
                std::fs::write(path, &text)?;
                writeln!(
                    out,
                    "wrote {} lines to {}",
                    text.lines().count(),
                    path.display()
                )?;
            }
        }
        _ => {
            let entries = memory.export_snapshot()?;
            let file = memory.encode_snapshot(&entries)?;
            std::fs::write(path, &file)?;
            writeln!(out, "wrote {} entries to {}", entries.len(), path.display())?;
        }
    }
    Ok(())
}

/// `rel` under `root`, refusing a path that would leave it.
fn safe_join(root: &Path, rel: &str) -> Result<std::path::PathBuf, Error> {
    let rel = Path::new(rel);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Error::memory(
            ErrorCode::InvalidInput,
            format!("export path {} leaves the folder", rel.display()),
        ));
    }
    Ok(root.join(rel))
}

/// The largest file `import` reads, in bytes: the component holds it whole while it reads.
const MAX_IMPORT_BYTES: u64 = 256 << 20;

/// The bytes of `path`, if it is not over [`MAX_IMPORT_BYTES`] (a device such as
/// `/dev/zero` never ends).
fn read_capped(path: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_IMPORT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_IMPORT_BYTES {
        return Err(Error::memory(
            ErrorCode::InvalidInput,
            format!(
                "{} is larger than {} MiB: import it in parts",
                path.display(),
                MAX_IMPORT_BYTES >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// Reads `path` into the store and reports what was added.
pub fn import(
    memory: &mut Memory,
    path: &Path,
    now: i64,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let imported = if path.is_dir() {
        let mut files = Vec::new();
        collect(path, path, &mut files)?;
        files.sort();
        memory.import_markdown(&files)?
    } else {
        let bytes = read_capped(path)?;
        if bytes.starts_with(SNAPSHOT_MAGIC) {
            if memory.len()? > 0 {
                return Err(Error::memory(
                    ErrorCode::InvalidInput,
                    "a snapshot replaces a store: import it into an empty one (a new --store)",
                ));
            }
            let entries = memory.decode_snapshot(&bytes)?;
            let n = memory.import_snapshot(&entries)?;
            writeln!(out, "imported a snapshot of {n} records")?;
            return Ok(());
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::memory(
                ErrorCode::InvalidInput,
                format!("{} is not UTF-8 JSONL", path.display()),
            )
        })?;
        memory.import_jsonl(&text, now)?
    };
    if json {
        let v = serde_json::json!({
            "turns": imported.turns, "items": imported.items, "work": imported.work,
            "skipped": imported.skipped, "conflicts": imported.conflicts,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(
            out,
            "imported {} turns, {} items, {} working memories; {} already there",
            imported.turns,
            imported.items,
            imported.work,
            imported.skipped.len()
        )?;
    }
    if !imported.conflicts.is_empty() {
        let ids: Vec<String> = imported
            .conflicts
            .iter()
            .map(|id| crate::terminal::escape(id).into_owned())
            .collect();
        eprintln!(
            "import: {} records not added: their id is stored with other text (the stored one is kept): {}",
            ids.len(),
            ids.join(", ")
        );
    }
    Ok(())
}

/// Every `.md` file under `dir`, with its path relative to `root` (`/`-separated).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) -> Result<(), Error> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(root, &path, files)?;
        } else if path.extension().is_some_and(|e| e == "md") {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push((rel.join("/"), std::fs::read_to_string(&path)?));
        }
    }
    Ok(())
}
