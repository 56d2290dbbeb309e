//! [`DirKv`]: one file per key in a directory, replaced atomically.
//!
//! A put writes `.tmp-<pid>-<n>` in the same directory, fsyncs it, renames it over the key's
//! file and fsyncs the directory, so after a crash a key holds its old or its new value,
//! never a torn one. A delete removes the file (a missing file is fine) and fsyncs the
//! directory. File names are escaped keys, see [`super::escape`].
//!
//! # Locking
//! A writer ([`DirKv::open`]) holds an exclusive lock on the file `.lock` in the directory for
//! as long as it (or a clone) lives; a reader ([`DirKv::open_read_only`]) holds a shared one.
//! So one writer at a time, and no reader while it writes (a reader listing the directory
//! could otherwise miss a segment a merge is replacing). A second opener waits about a tenth
//! of a second, then fails with [`io::ErrorKind::WouldBlock`] and a message naming the
//! directory: the CLI reports it as `BUSY`. Locks are advisory (`flock`) and released by the
//! OS when a process dies, so a `kill -9` never leaves a store locked.
//!
//! Leftover `.tmp-*` files from a crash are removed by a writer's open only: it holds the
//! exclusive lock, so no live writer's temporary file can be among them.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::escape::{escape_key, unescape_name};
use super::Kv;

const TMP_PREFIX: &str = ".tmp-";
/// The lock file; its name starts with `.`, so it is never taken for a key.
const LOCK_FILE: &str = ".lock";

/// Distinguishes temporary files of one process.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A [`Kv`] on a directory of files.
#[derive(Debug, Clone)]
pub struct DirKv {
    dir: PathBuf,
    /// The open lock file: the lock lasts as long as any clone of this handle.
    _lock: Arc<File>,
    writable: bool,
}

impl DirKv {
    /// Opens (creating it if needed) the directory `dir` for writing: takes its exclusive lock,
    /// then removes leftover temporary files. Fails with [`io::ErrorKind::WouldBlock`] while
    /// another process has the store open.
    pub fn open(dir: impl AsRef<Path>) -> io::Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| annotate(e, "create directory", &dir))?;
        let lock = lock(&dir, true)?;
        for entry in fs::read_dir(&dir).map_err(|e| annotate(e, "read directory", &dir))? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
                let _ = fs::remove_file(entry.path());
            }
        }
        Ok(DirKv {
            dir,
            _lock: Arc::new(lock),
            writable: true,
        })
    }

    /// Opens an existing store directory for reading: takes its shared lock (other readers are
    /// welcome, a writer is not). Every write through it fails.
    pub fn open_read_only(dir: impl AsRef<Path>) -> io::Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let lock = lock(&dir, false)?;
        Ok(DirKv {
            dir,
            _lock: Arc::new(lock),
            writable: false,
        })
    }

    fn check_writable(&self) -> io::Result<()> {
        if self.writable {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("store {} is open read-only", self.dir.display()),
        ))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds `key`.
    pub fn path_of(&self, key: &str) -> io::Result<PathBuf> {
        Ok(self.dir.join(escape_key(key)?))
    }

    fn sync_dir(&self) -> io::Result<()> {
        File::open(&self.dir)?.sync_all()
    }

    fn write_new(&self, tmp: &Path, value: &[u8]) -> io::Result<()> {
        let mut file = OpenOptions::new().write(true).create_new(true).open(tmp)?;
        file.write_all(value)?;
        file.sync_all()
    }
}

impl Kv for DirKv {
    fn get(&mut self, key: &str) -> io::Result<Option<Vec<u8>>> {
        let path = self.path_of(key)?;
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(annotate(e, "read", &path)),
        }
    }

    fn put(&mut self, key: &str, value: &[u8]) -> io::Result<()> {
        self.check_writable()?;
        let path = self.path_of(key)?;
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = self
            .dir
            .join(format!("{TMP_PREFIX}{}-{n}", std::process::id()));
        let written = self
            .write_new(&tmp, value)
            .and_then(|()| fs::rename(&tmp, &path));
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(annotate(e, "write", &path));
        }
        self.sync_dir()
            .map_err(|e| annotate(e, "sync directory", &self.dir))
    }

    fn delete(&mut self, key: &str) -> io::Result<()> {
        self.check_writable()?;
        let path = self.path_of(key)?;
        match fs::remove_file(&path) {
            Ok(()) => self
                .sync_dir()
                .map_err(|e| annotate(e, "sync directory", &self.dir)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(annotate(e, "remove", &path)),
        }
    }

    fn list_by_prefix(&mut self, prefix: &str) -> io::Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        for entry in
            fs::read_dir(&self.dir).map_err(|e| annotate(e, "read directory", &self.dir))?
        {
            let entry = entry?;
            let Some(key) = entry.file_name().to_str().and_then(unescape_name) else {
                continue; // temporary or foreign file
            };
            if !key.starts_with(prefix) {
                continue;
            }
            match fs::read(entry.path()) {
                Ok(bytes) => out.push((key, bytes)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {} // deleted meanwhile
                Err(e) => return Err(annotate(e, "read", &entry.path())),
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

/// How many more times a held lock is tried, [`LOCK_RETRY_PAUSE`] apart, before BUSY.
const LOCK_RETRIES: u32 = 20;
const LOCK_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(5);

/// Takes the store's lock, exclusive for a writer; fails with BUSY if it stays held for about
/// a tenth of a second.
fn lock(dir: &Path, exclusive: bool) -> io::Result<File> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| annotate(e, "open lock file", &path))?;
    let try_lock = || {
        if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        }
    };
    // A lock can look held for an instant after its holder let go: a process that forks (to
    // run an embedder command, say) while the lock file is open keeps a copy of it until the
    // child's exec closes it. So a held lock is tried again for a little while before BUSY.
    let mut taken = try_lock();
    for _ in 0..LOCK_RETRIES {
        if !matches!(taken, Err(TryLockError::WouldBlock)) {
            break;
        }
        std::thread::sleep(LOCK_RETRY_PAUSE);
        taken = try_lock();
    }
    match taken {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            format!(
                "BUSY: store {} is in use by another memdag process ({}); try again when it is done",
                dir.display(),
                if exclusive { "a reader or a writer" } else { "a writer" }
            ),
        )),
        Err(TryLockError::Error(e)) => Err(annotate(e, "lock", &path)),
    }
}

/// Adds what was being done, and where, to an I/O error.
fn annotate(e: io::Error, what: &str, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_kv() -> (tempfile::TempDir, DirKv) {
        let dir = tempfile::tempdir().unwrap();
        let kv = DirKv::open(dir.path().join("store")).unwrap();
        (dir, kv)
    }

    #[test]
    fn missing_key_is_none_and_delete_is_idempotent() {
        let (_d, mut kv) = temp_kv();
        assert_eq!(kv.get("rec/nope").unwrap(), None);
        kv.delete("rec/nope").unwrap();
        kv.put("rec/a", b"1").unwrap();
        kv.delete("rec/a").unwrap();
        kv.delete("rec/a").unwrap();
        assert_eq!(kv.get("rec/a").unwrap(), None);
    }

    #[test]
    fn put_replaces_and_lists_by_prefix_sorted() {
        let (_d, mut kv) = temp_kv();
        kv.put("rec/b", b"old").unwrap();
        kv.put("rec/b", b"new").unwrap();
        kv.put("rec/a", b"").unwrap();
        kv.put("meta", b"m").unwrap();
        kv.put("other/rec/c", b"c").unwrap();
        assert_eq!(kv.get("rec/b").unwrap().as_deref(), Some(&b"new"[..]));
        let listed = kv.list_by_prefix("rec/").unwrap();
        assert_eq!(
            listed,
            vec![("rec/a".into(), vec![]), ("rec/b".into(), b"new".to_vec())]
        );
        assert_eq!(kv.list_by_prefix("").unwrap().len(), 4);
        let names: Vec<String> = fs::read_dir(kv.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(
            names.iter().all(|n| !n.starts_with(TMP_PREFIX)),
            "{names:?}"
        );
    }

    #[test]
    fn ignores_foreign_files_and_cleans_temporaries() {
        let (_d, mut kv) = temp_kv();
        kv.put("rec/x", b"x").unwrap();
        fs::write(kv.dir().join("README"), b"not a key").unwrap();
        fs::write(kv.dir().join(".tmp-1-1"), b"torn").unwrap();
        assert_eq!(
            kv.list_by_prefix("").unwrap(),
            vec![("rec/x".into(), b"x".to_vec())]
        );
        let dir = kv.dir().to_path_buf();
        drop(kv);
        let kv = DirKv::open(&dir).unwrap();
        assert!(!kv.dir().join(".tmp-1-1").exists());
        assert!(kv.dir().join("README").exists());
    }

    #[test]
    fn one_writer_at_a_time_and_no_reader_beside_it() {
        let (_d, mut kv) = temp_kv();
        kv.put("head", b"h").unwrap();
        fs::write(kv.dir().join(".tmp-999-1"), b"in flight").unwrap();
        let busy = DirKv::open(kv.dir()).unwrap_err();
        assert_eq!(busy.kind(), io::ErrorKind::WouldBlock);
        assert!(busy.to_string().starts_with("BUSY"), "{busy}");
        assert_eq!(
            DirKv::open_read_only(kv.dir()).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        assert!(
            kv.dir().join(".tmp-999-1").exists(),
            "a refused open deletes no temporary file of the live writer"
        );
        let dir = kv.dir().to_path_buf();
        drop(kv);
        let mut r1 = DirKv::open_read_only(&dir).unwrap();
        let _r2 = DirKv::open_read_only(&dir).unwrap();
        assert_eq!(r1.get("head").unwrap().as_deref(), Some(&b"h"[..]));
        assert_eq!(
            r1.put("head", b"x").unwrap_err().kind(),
            io::ErrorKind::PermissionDenied
        );
        assert!(DirKv::open(&dir).is_err(), "no writer while readers read");
        drop((r1, _r2));
        DirKv::open(&dir).unwrap();
    }

    #[test]
    fn keeps_unicode_keys() {
        let (_d, mut kv) = temp_kv();
        kv.put("rec/会话-1", "值".as_bytes()).unwrap();
        assert_eq!(kv.list_by_prefix("rec/会").unwrap()[0].0, "rec/会话-1");
    }
}
