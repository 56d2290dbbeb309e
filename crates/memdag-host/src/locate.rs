//! Finding `memdag_component.wasm` without embedding it (the host builds without it).

use std::env;
use std::path::{Path, PathBuf};

use crate::Error;

/// The file name cargo gives the component.
pub const COMPONENT_FILE: &str = "memdag_component.wasm";
/// Where the component lies under a cargo target directory.
pub const TARGET_SUBPATH: &str = "wasm32-wasip2/release/memdag_component.wasm";
/// The environment variable naming the component file.
pub const ENV_COMPONENT: &str = "MEMDAG_COMPONENT";

/// The component file to use, by the first rule that applies:
///
/// 1. `explicit` (e.g. `--component PATH`), which must exist;
/// 2. `$MEMDAG_COMPONENT`, which must exist;
/// 3. the first existing file of [`candidates`]: next to the running executable, under the
///    cargo target directory the executable was built in, `$CARGO_TARGET_DIR`, and
///    `$HOME/.cache/memdag-target` (the default of `scripts/build-component.sh`).
///
/// [`Error::ComponentNotFound`] lists every path tried.
pub fn component_path(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    let named = explicit
        .map(Path::to_path_buf)
        .or_else(|| env::var_os(ENV_COMPONENT).map(PathBuf::from));
    if let Some(path) = named {
        return if path.is_file() {
            Ok(path)
        } else {
            Err(Error::ComponentNotFound { tried: vec![path] })
        };
    }
    let tried = candidates();
    match tried.iter().find(|p| p.is_file()) {
        Some(p) => Ok(p.clone()),
        None => Err(Error::ComponentNotFound { tried }),
    }
}

/// The default places of the component, most specific first.
pub fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(exe_dir) = env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        out.push(exe_dir.join(COMPONENT_FILE));
        // <target>/debug/memdag, <target>/release/memdag or <target>/debug/deps/<test>.
        for target in exe_dir.ancestors().skip(1).take(2) {
            out.push(target.join(TARGET_SUBPATH));
        }
    }
    if let Some(dir) = env::var_os("CARGO_TARGET_DIR") {
        out.push(PathBuf::from(dir).join(TARGET_SUBPATH));
    }
    if let Some(home) = env::var_os("HOME") {
        out.push(
            PathBuf::from(home)
                .join(".cache/memdag-target")
                .join(TARGET_SUBPATH),
        );
    }
    out.dedup();
    out
}
