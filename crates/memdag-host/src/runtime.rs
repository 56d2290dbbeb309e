//! [`Runtime`]: the compiled component with its linker and limits, ready to open stores.

use memdag_core::hash::fnv1a;
use std::path::Path;

use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::Engine;

use crate::bindings::memdag::core::types::Verified;
use crate::bindings::MemdagPre;
use crate::instance::{new_store, HostState, Instantiator};
use crate::kv::Kv;
use crate::limits::Limits;
use crate::plugins::OpenOptions;
use crate::{Error, Memory};

/// The memdag component, compiled once, from which any number of stores are opened. Every
/// call into the component runs under the runtime's [`Limits`].
pub struct Runtime {
    engine: Engine,
    pre: MemdagPre<HostState>,
    limits: Limits,
}

impl Runtime {
    /// Compiles the component in the file at `path`, with [`Limits::DEFAULT`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::from_file_with(path, Limits::DEFAULT)
    }

    /// Compiles the component in the file at `path`, with `limits`.
    pub fn from_file_with(path: impl AsRef<Path>, limits: Limits) -> Result<Self, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::ComponentNotFound {
                    tried: vec![path.to_path_buf()],
                }
            } else {
                Error::Io(std::io::Error::new(
                    e.kind(),
                    format!("read {}: {e}", path.display()),
                ))
            }
        })?;
        Self::from_bytes_with(&bytes, limits)
    }

    /// As [`Runtime::from_file_with`], keeping the compiled code in `cache_dir` (created if
    /// needed) under a name derived from the component's bytes and the limits. A later call
    /// with the same component loads that code instead of compiling it (seconds saved for each
    /// start of a command-line tool). An unusable cache entry (another Wasmtime version,
    /// another CPU, a truncated file) is compiled afresh and replaced; a cache that cannot be
    /// written is skipped.
    ///
    /// The cache directory must be private to the user: its files are loaded as native code.
    pub fn from_file_cached(
        path: impl AsRef<Path>,
        limits: Limits,
        cache_dir: impl AsRef<Path>,
    ) -> Result<Self, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::ComponentNotFound {
                tried: vec![path.to_path_buf()],
            },
            kind => Error::Io(std::io::Error::new(
                kind,
                format!("read {}: {e}", path.display()),
            )),
        })?;
        let engine = limits.engine()?;
        let key = format!(
            "memdag-{:016x}-f{}-t{}.cwasm",
            fnv1a(&bytes),
            u8::from(limits.fuel.is_some()),
            u8::from(limits.timeout.is_some())
        );
        let cached = cache_dir.as_ref().join(key);
        // SAFETY: the file was written by `Component::serialize` below into the user's own
        // cache directory; Wasmtime checks its header, version and configuration and refuses
        // anything else, in which case the component is compiled afresh.
        let component = match unsafe { Component::deserialize_file(&engine, &cached) } {
            Ok(c) => c,
            Err(_) => {
                let component = Component::new(&engine, &bytes)?;
                if let Ok(code) = component.serialize() {
                    let _ = std::fs::create_dir_all(cache_dir.as_ref());
                    let tmp = cached.with_extension(format!("tmp{}", std::process::id()));
                    if std::fs::write(&tmp, code).is_ok() && std::fs::rename(&tmp, &cached).is_ok()
                    {
                        remove_stale(cache_dir.as_ref(), &cached);
                    }
                }
                component
            }
        };
        Self::from_component(engine, component, limits)
    }

    /// Compiles the component from its bytes (a binary `.wasm` component), with
    /// [`Limits::DEFAULT`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with(bytes, Limits::DEFAULT)
    }

    /// Compiles the component from its bytes, with `limits`.
    pub fn from_bytes_with(bytes: &[u8], limits: Limits) -> Result<Self, Error> {
        let engine = limits.engine()?;
        let component = Component::new(&engine, bytes)?;
        Self::from_component(engine, component, limits)
    }

    /// Links a compiled component.
    fn from_component(engine: Engine, component: Component, limits: Limits) -> Result<Self, Error> {
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        crate::bindings::Memdag::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
        let pre = MemdagPre::new(linker.instantiate_pre(&component)?)?;
        Ok(Runtime {
            engine,
            pre,
            limits,
        })
    }

    /// The limits every call runs under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Instantiates the component on `kv` and opens the store under `prefix` (`None` for the
    /// whole `kv`; otherwise it must end with `/`), with the built-in embedder and no LLM.
    /// Each call gets its own instance.
    pub fn open(&self, kv: impl Kv, prefix: Option<&str>) -> Result<Memory, Error> {
        let options = OpenOptions {
            prefix: prefix.map(str::to_string),
            ..OpenOptions::default()
        };
        self.open_with(kv, options)
    }

    /// Instantiates the component on `kv` and opens a store as `options` say.
    pub fn open_with(&self, kv: impl Kv, options: OpenOptions) -> Result<Memory, Error> {
        let state = HostState::new(
            Box::new(kv),
            options.embedder,
            options.llm,
            self.limits.limiter(),
        );
        Memory::open(
            Instantiator {
                engine: self.engine.clone(),
                pre: self.pre.clone(),
                limits: self.limits,
            },
            state,
            options.prefix,
            options.embeddings,
            options.key,
            options.salvage,
        )
    }

    /// What is damaged in the store under `prefix` of `kv` (sealed with `key`, if given), and
    /// what a salvaging open would hold and lose (WIT `verify`): opens and writes nothing.
    pub fn verify(
        &self,
        kv: impl Kv,
        prefix: Option<&str>,
        key: Option<&[u8]>,
    ) -> Result<Verified, Error> {
        let state = HostState::new(Box::new(kv), None, None, self.limits.limiter());
        let mut store = new_store(&self.engine, state);
        let run = (|| -> wasmtime::Result<_> {
            self.limits.arm(&mut store)?;
            let instance = self.pre.instantiate(&mut store)?;
            self.limits.arm(&mut store)?;
            instance
                .memdag_core_memory()
                .store()
                .call_verify(&mut store, prefix, key)
        })();
        match run {
            Ok(Ok(verified)) => Ok(verified),
            Ok(Err(e)) => Err(Error::Memory(e)),
            Err(e) => Err(Error::Runtime(e)),
        }
    }
}

/// Removes the cache entries of other builds of the component with the same limits.
fn remove_stale(dir: &Path, current: &Path) {
    let Some(name) = current.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let suffix = &name[name.rfind('-').unwrap_or(0)..];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let other = entry.file_name();
        let other = other.to_string_lossy();
        if other != name && other.starts_with("memdag-") && other.ends_with(suffix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
