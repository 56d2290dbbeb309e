//! [`Runtime`]: the compiled component with its linker, ready to open stores.

use std::path::Path;

use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::{memdag::core, Memdag};
use crate::kv::Kv;
use crate::{Error, Memory};

/// What one Wasmtime store holds: WASI for the component's std, and the `kv` backend.
pub(crate) struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    kv: Box<dyn Kv>,
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

/// The memdag component, compiled once, from which any number of stores are opened.
pub struct Runtime {
    engine: Engine,
    component: Component,
    linker: Linker<HostState>,
}

impl Runtime {
    /// Compiles the component in the file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
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
        Self::from_bytes(&bytes)
    }

    /// Compiles the component from its bytes (a binary `.wasm` component).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let engine = Engine::new(&Config::new())?;
        let component = Component::new(&engine, bytes)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        Memdag::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
        Ok(Runtime {
            engine,
            component,
            linker,
        })
    }

    /// Instantiates the component on `kv` and opens the store under `prefix` (`None` for the
    /// whole `kv`; otherwise it must end with `/`). Each call gets its own instance.
    pub fn open(&self, kv: impl Kv, prefix: Option<&str>) -> Result<Memory, Error> {
        // The component needs no files, sockets, arguments or environment; stderr is kept
        // so that a panic message reaches the terminal.
        let wasi = WasiCtx::builder().inherit_stderr().build();
        let state = HostState {
            wasi,
            table: ResourceTable::new(),
            kv: Box::new(kv),
        };
        let mut store = Store::new(&self.engine, state);
        let instance = Memdag::instantiate(&mut store, &self.component, &self.linker)?;
        Memory::open(store, instance, prefix)
    }
}
