//! memdag core: agent memory as a DAG of turn records.
//!
//! One [`Record`] per agent turn keeps the raw work log (input, tool-call steps, output) and an
//! optional compact node. Records link to the earlier records they used, forming a DAG like
//! git's. The [`Store`] keeps everything in memory and hands the host a change set of
//! key → bytes to persist (see [`codec`]).
//!
//! This crate has no binding dependencies: the JS face (`memdag-wasm`) and the WIT face
//! (`memdag-component`) convert to their own types. With `default-features = false` the record
//! and DAG types build as `no_std` + `alloc`.
//!
//! # Layers
//! Modules import downwards only (`scripts/check-layout.py` fails on a circle):
//! ```text
//!   pipeline (prepare, finish, running summary)
//!   tools  export  compact  context  work  timeline  graph  reindex  erase
//!   recall (gather, select, score)   search (queries: searcher, filter, grep)   memory
//!       │                                   │                                   │
//!       └────────────── store (Store: records, DAG, ids, dirty set) ────────────┘
//!                 │                           │
//!      storage (write, merge, choose,      index (SearchIndex: postings, vectors + hnsw,
//!      load, v1; state, values, restore)    threads; items, normalize, analyzer, bm25)
//!                 │
//!      seal ─► cipher   segment, part, commit, codec, envelope, keys
//!                 │
//!      memdag-types: Record, ItemMeta, Error, Limits, Slot, hash, civil
//! ```
//! A module that adds behaviour to [`Store`] (`impl Store` in search, memory, storage, seal
//! and the rest) sits above it; what the store holds as fields (the index, the storage state,
//! the cipher) sits below and never names it.
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

// The vocabulary lives in memdag-types; its modules keep their paths here.
pub use memdag_types::{error, hash, item, limits, record};

pub mod blob;
pub mod block;
#[cfg(feature = "std")]
mod change;
pub mod cite;
pub mod dag;
pub mod dirty;
pub mod envelope;
#[cfg(feature = "std")]
mod float;
pub mod ids;
pub mod importance;
#[cfg(feature = "std")]
pub mod index;
pub mod keys;
#[cfg(feature = "std")]
pub(crate) mod room;
pub mod scope;
mod slots;
mod sort;
#[cfg(feature = "std")]
pub mod state;
pub mod store;

#[cfg(feature = "std")]
pub mod cipher;
#[cfg(feature = "std")]
pub mod codec;
#[cfg(feature = "std")]
pub mod commit;
#[cfg(feature = "std")]
pub mod compact;
#[cfg(feature = "std")]
pub mod context;
#[cfg(feature = "std")]
pub mod damage;
#[cfg(feature = "std")]
pub mod erase;
#[cfg(feature = "std")]
pub mod export;
#[cfg(feature = "std")]
pub mod graph;
#[cfg(feature = "std")]
pub mod json;
#[cfg(feature = "std")]
pub mod memory;
#[cfg(feature = "std")]
pub mod msgpack;
#[cfg(feature = "std")]
pub mod part;
#[cfg(feature = "std")]
pub mod pipeline;
#[cfg(feature = "std")]
pub mod recall;
#[cfg(feature = "std")]
pub mod reindex;
#[cfg(feature = "std")]
pub mod retention;
#[cfg(feature = "std")]
pub mod seal;
#[cfg(feature = "std")]
pub mod search;
#[cfg(feature = "std")]
pub mod segment;
#[cfg(feature = "std")]
pub mod storage;
#[cfg(feature = "std")]
pub mod time;
#[cfg(feature = "std")]
pub mod timeline;
#[cfg(feature = "std")]
pub mod tokens;
#[cfg(feature = "std")]
pub mod tools;
#[cfg(feature = "std")]
pub mod work;

pub use dag::{Dag, Direction};
pub use error::{Error, ErrorKind, Result};
pub use item::{ItemKind, ItemMeta, ItemStatus, MemoryItem, NewItem};
pub use limits::Limits;
pub use record::{embedding_text, CompactNode, NewTurn, Record, Section, Step};
pub use store::{Slot, Store};

#[cfg(feature = "std")]
pub use codec::Change;
#[cfg(feature = "std")]
pub use reindex::{Reindex, ReindexPhase, ReindexProgress, Reindexed};
#[cfg(feature = "std")]
pub use seal::Cipher;
