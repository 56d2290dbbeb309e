//! What one component instance is made of: the state its Wasmtime store holds
//! ([`HostState`]: WASI, the host's kv, embedder and LLM, the memory limiter) and how to make
//! one again ([`Instantiator`]). Below both [`crate::Runtime`], which makes the first, and
//! [`crate::Memory`], which renews an instance after a trap.

use wasmtime::component::ResourceTable;
use wasmtime::{Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::{memdag::core, MemdagPre};
use crate::kv::Kv;
use crate::limits::{Limits, MemoryLimiter};
use crate::plugins::{Embedder, Llm};

/// What a [`Memory`] needs to instantiate the component again.
pub(crate) struct Instantiator {
    pub engine: Engine,
    pub pre: MemdagPre<HostState>,
    pub limits: Limits,
}

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
    /// The state of a new instance: the host's kv and plug-ins, and the limiter.
    pub(crate) fn new(
        kv: Box<dyn Kv>,
        embedder: Option<Box<dyn Embedder>>,
        llm: Option<Box<dyn Llm>>,
        limiter: MemoryLimiter,
    ) -> Self {
        HostState {
            wasi: new_wasi(),
            table: ResourceTable::new(),
            kv,
            embedder,
            llm,
            limiter,
        }
    }

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

/// A new store holding `state`, limited by `limits`.
pub(crate) fn new_store(engine: &Engine, state: HostState) -> Store<HostState> {
    let mut store = Store::new(engine, state);
    store.limiter(|s| &mut s.limiter);
    store
}
