//! memdag as a WebAssembly component: the WIT face of `memdag-core`.
//!
//! Implements the world `memdag:core/memdag` (see `wit/`): it imports a byte-oriented `kv`
//! store, an `embedder` and an `llm` from the host, and exports the `memory` interface with
//! its `store` resource ([`resource`]) and store-less functions ([`functions`]: tool schemas,
//! the JSON turn shape, durations and timestamps), and the store-less `context` tools
//! ([`context`]). The
//! core stays free of binding dependencies; every conversion between core and WIT types lives
//! in [`convert`].
//!
//! Build with `cargo build -p memdag-component --release --target wasm32-wasip2`; the output
//! `memdag_component.wasm` is a component.
#![warn(missing_docs)]

mod clock;
mod context;
mod convert;
mod embed;
mod functions;
mod persist;
mod resource;

#[allow(missing_docs)]
mod bindings {
    wit_bindgen::generate!({
        world: "memdag",
        path: "../../wit",
    });
}

/// The component's export root.
struct Component;

// The `memory` export is implemented in [`functions`] (its free functions and the resource
// type) and [`resource`]; the `context` export in [`context`].

bindings::export!(Component with_types_in bindings);
