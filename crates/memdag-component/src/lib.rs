//! memdag as a WebAssembly component: the WIT face of `memdag-core`.
//!
//! Implements the world `memdag:core/memdag` (see `wit/`): it imports a byte-oriented `kv`
//! store, an `embedder` and an `llm` from the host, and exports the `memory` interface with
//! its `store` resource ([`resource`]) and the store-less `context` tools ([`context`]). The
//! core stays free of binding dependencies; every conversion between core and WIT types lives
//! in [`convert`].
//!
//! Build with `cargo build -p memdag-component --release --target wasm32-wasip2`; the output
//! `memdag_component.wasm` is a component.
#![warn(missing_docs)]

mod context;
mod convert;
mod embed;
mod persist;
mod resource;

#[allow(missing_docs)]
mod bindings {
    wit_bindgen::generate!({
        world: "memdag",
        path: "../../wit",
    });
}

use bindings::exports::memdag::core::memory::Guest;

/// The component's export root.
struct Component;

impl Guest for Component {
    type Store = resource::MemoryStore;
}

// The `context` export is implemented in [`context`].

bindings::export!(Component with_types_in bindings);
