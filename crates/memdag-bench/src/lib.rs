//! The Mode-2 search benchmark of memdag. It is not a test: it measures and prints.
//!
//! One workload ([`workload::run_size`]) on a generated corpus: N records whose text is the
//! LoCoMo dev turns replicated (each copy suffixed ` #i`, as in PEERS.md) and whose vectors are
//! 384-d unit vectors around 200 centres (noise 0.06), from a fixed seed. The LoCoMo questions
//! are the text queries; 500 generated vectors are the vector queries. [`locomo::evaluate`]
//! measures evidence recall on the real MiniLM vectors.
//!
//! The workload reads time only through a clock closure, so it runs natively (`memdag-bench`)
//! and in wasm under Node (`tests/bench/run-wasm.mjs`, through the `wasm` module).

pub mod ann;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli_path;
pub mod corpus;
#[cfg(not(target_arch = "wasm32"))]
pub mod counting;
pub mod grep;
pub mod locomo;
pub mod memory;
pub mod observations;
pub mod prepare;
pub mod seal;
pub mod table;
pub mod workload;
pub mod zh;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

// The wasm memory grows in steps, not a page at a time (see memdag-alloc): a first open of a
// 100k-record store spent a third of its time growing it.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
#[global_allocator]
static ALLOCATOR: memdag_alloc::Allocator = memdag_alloc::Allocator::new();

pub use workload::{run_size, Options, SizeReport};
