//! memdag as a WebAssembly component: the WIT face of `memdag-core`.
//!
//! Implements the world `memdag:core/memdag` (see `wit/memdag.wit`): it imports a byte-oriented
//! `kv` store from the host and exports the `memory` interface with its `store` resource. The
//! core stays free of binding dependencies; every conversion between core and WIT types lives
//! in [`convert`].
//!
//! Build with `cargo build -p memdag-component --release --target wasm32-wasip2`; the output
//! `memdag_component.wasm` is a component.
#![warn(missing_docs)]

mod convert;
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

bindings::export!(Component with_types_in bindings);
