//! The JS face of memdag: a thin wasm-bindgen binding over `memdag-core`.
//!
//! It exports the [`Memory`] class, with camelCase methods. Records cross as plain JS
//! objects, change sets as `[key, Uint8Array | null]` pairs, and every core error as a JS
//! `Error` carrying the core's stable `code` (see [`error`]). The core stays free of binding
//! dependencies; all conversion lives here, one concept per module:
//!
//! - [`memory`]: the `Memory` class and its `RefCell`-guarded store;
//! - [`turn`]: new turns in (the core's JSON turn shape), records out;
//! - [`cite`]: the ids a reply cites, and turns whose unknown parents are dropped;
//! - [`export`]: the binary snapshot, JSONL and Markdown exports and imports;
//! - [`search`]: BM25, vector and hybrid search (relative dates resolved), grep, the built-in
//!   embedder switch;
//! - [`recall`]: the Mode-1 recall block and the text it matches;
//! - [`items`]: long-term memory items (add through dedup and conflicts, versions, soft
//!   delete, history, listings, the resolution log, the settings);
//! - [`extract`]: learning items from turns, by the rules or through the host's LLM in steps;
//! - [`work`]: working memory, the structured state of a thread;
//! - [`timeline`], [`graph`], [`purge`]: turns and items by day, the entity graph, purging
//!   what expired;
//! - [`tools`]: tool schemas for OpenAI, Anthropic and MCP, and calling a tool;
//! - [`compact`]: compaction prompts, LLM answers and the extractive compactor;
//! - [`context`]: token counts, context checks, tool-result cuts and blobs;
//! - [`pipeline`]: one call before a turn (`prepare`, or its halves for a host's LLM), one
//!   after (`finish`), cut tool results read back by line, blob retention, running summaries;
//! - [`listing`]: threads, users and children, for tools;
//! - [`reindex`]: moving to another embedding model, batch by batch;
//! - [`storage`]: the IndexedDB storage adapter (`IndexedDbStorage`);
//! - [`entries`]: change sets and stored entries;
//! - [`stored`]: stored values handed to wasm one at a time for an open (`StoredEntries`);
//! - [`key`]: encryption keys, and the keys a host opened itself;
//! - [`host_key`]: the v2 key a host seals with (`Memory.hostKey`);
//! - [`clock`]: the host clock, the default of every time a caller leaves out;
//! - [`error`]: core errors as JS `Error`s;
//! - [`fields`]: JS values in and out: unknown properties refused, sizes checked before
//!   copying, JSON values, plain objects.
//!
//! Build the npm package with `scripts/build-pkg.sh`; its sources live in `pkg/`.
#![warn(missing_docs)]

pub mod cite;
pub mod clock;
pub mod compact;
pub mod context;
pub mod entries;
pub mod error;
pub mod export;
pub mod extract;
pub mod fields;
pub mod graph;
pub mod host_key;
pub mod items;
pub mod key;
pub mod listing;
pub mod memory;
pub mod pipeline;
pub mod purge;
pub mod recall;
pub mod reindex;
pub mod salvage;
pub mod search;
pub mod storage;
pub mod stored;
pub mod timeline;
pub mod tools;
pub mod turn;
pub mod work;

// The wasm memory grows in steps, not a page at a time (see memdag-alloc): a first open of a
// 100k-record store spent a third of its time growing it.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
#[global_allocator]
static ALLOCATOR: memdag_alloc::Allocator = memdag_alloc::Allocator::new();

pub use memory::Memory;
