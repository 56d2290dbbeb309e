//! [`Runtime`]: the compiled component with its linker and limits, ready to open stores.

use memdag_core::hash::fnv1a;
use std::path::Path;

use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::{memdag::core, MemdagPre};
use crate::kv::Kv;
use crate::limits::{Limits, MemoryLimiter};
use crate::plugins::{Embedder, Llm, OpenOptions};
use crate::{Error, Memory};

/// What one Wasmtime store holds: WASI for the component's std, the host's `kv`, `embedder`
/// and `llm`, and the memory limiter.
pub(crate) struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    kv: Box<dyn Kv>,
    embedder: Option<Box<dyn Embedder>>,
    llm: Option<Box<dyn Llm>>,
    pub(crate) limiter: MemoryLimiter,
}

impl HostState {
    /// Whether an LLM is plugged in.
    pub(crate) fn has_llm(&self) -> bool {
        self.llm.is_some()
    }

    /// The same plug-ins with a fresh WASI context and resource table, for a new instance.
    pub(crate) fn renewed(self) -> Self {
        let mut limiter = self.limiter;
        limiter.take_exceeded();
        HostState {
            wasi: new_wasi(),
            table: ResourceTable::new(),
            limiter,
            ..self
        }
    }
}

/// The component needs no files, sockets, arguments or environment; stderr is kept so that
/// a panic message reaches the terminal.
fn new_wasi() -> WasiCtx {
    WasiCtx::builder().inherit_stderr().build()
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl core::types::Host for HostState {}
impl core::query::Host for HostState {}
impl core::items::Host for HostState {}
impl core::work::Host for HostState {}
impl core::graph::Host for HostState {}

impl core::kv::Host for HostState {
    fn get(&mut self, key: String) -> Result<Option<Vec<u8>>, String> {
        self.kv.get(&key).map_err(|e| e.to_string())
    }

    fn put(&mut self, key: String, value: Vec<u8>) -> Result<(), String> {
        self.kv.put(&key, &value).map_err(|e| e.to_string())
    }

    fn delete(&mut self, key: String) -> Result<(), String> {
        self.kv.delete(&key).map_err(|e| e.to_string())
    }

    fn list_by_prefix(&mut self, prefix: String) -> Result<Vec<(String, Vec<u8>)>, String> {
        self.kv.list_by_prefix(&prefix).map_err(|e| e.to_string())
    }
}

impl core::embedder::Host for HostState {
    fn embed(&mut self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, String> {
        match &mut self.embedder {
            Some(e) => e.embed(&texts),
            None => Err("no embedder is plugged into this host".into()),
        }
    }
}

impl core::llm::Host for HostState {
    fn complete(&mut self, prompt: String) -> Result<String, String> {
        match &mut self.llm {
            Some(l) => l.complete(&prompt),
            None => Err("no LLM is plugged into this host (use the extractive compactor)".into()),
        }
    }
}

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
        let state = HostState {
            wasi: new_wasi(),
            table: ResourceTable::new(),
            kv: Box::new(kv),
            embedder: options.embedder,
            llm: options.llm,
            limiter: self.limits.limiter(),
        };
        Memory::open(
            crate::memory::Instantiator {
                engine: self.engine.clone(),
                pre: self.pre.clone(),
                limits: self.limits,
            },
            state,
            options.prefix,
            options.embeddings,
            options.key,
        )
    }
}

/// A new store holding `state`, limited by `limits`.
pub(crate) fn new_store(engine: &Engine, state: HostState) -> Store<HostState> {
    let mut store = Store::new(engine, state);
    store.limiter(|s| &mut s.limiter);
    store
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
