//! memdag's vocabulary, at the bottom of its crates: what every other crate names.
//!
//! ```text
//!   memdag-host (CLI, Wasmtime host) ──► memdag-component (WIT)  ──┐
//!   memdag-bench ──────────────────────► memdag-wasm (JS)        ──┴─► memdag-core ──► memdag-types
//! ```
//!
//! - [`record`]: a turn's record, the turn a caller gives, compact nodes and steps;
//! - [`item`]: the long-term memory item a record may be, and its JSON shape;
//! - [`stored_item`]: an item's names in the storage format, apart from its JSON shape;
//! - [`error`]: the one error type with stable codes, shared by every face;
//! - [`limits`]: what a turn may hold;
//! - [`slot`]: the in-memory handle of a record that the indexes key by;
//! - [`hash`]: the frozen hashes (ids, checksums) and the in-memory word hash;
//! - [`civil`]: calendar arithmetic on millisecond timestamps.
//!
//! It depends on serde only, and builds as `no_std` + `alloc`.
#![cfg_attr(not(any(feature = "std", test)), no_std)]

extern crate alloc;

pub mod civil;
pub mod error;
pub mod hash;
pub mod item;
pub mod limits;
pub mod record;
pub mod slot;
pub mod stored_item;

pub use error::{Error, ErrorKind, Result};
pub use item::{ItemKind, ItemMeta, ItemStatus, MemoryItem, NewItem};
pub use limits::Limits;
pub use record::{embedding_text, CompactNode, NewTurn, Record, Section, Step};
pub use slot::Slot;
