#!/usr/bin/env bash
# Runs every memdag test: format and lints, Rust unit and integration tests, the core as
# no_std, the component under Wasmtime and under jco, the wasm package in Node, the browser
# tests in Chromium, the Worker on workerd, and the Fastly example. Installs what is missing.
source "$(dirname "$0")/lib.sh"
started=$(date +%s)
# Suites that could not run here add a line to this file; the last line names them.
export MEMDAG_SKIPPED_FILE="$(mktemp)"
trap 'rm -f "$MEMDAG_SKIPPED_FILE"' EXIT

ensure_rust_targets
ensure_wasm_bindgen
ensure_chromium
ensure_node_deps

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo clippy + cargo test -p memdag-core --features tiktoken (exact token counts)"
cargo clippy -p memdag-core --all-targets --features tiktoken -- -D warnings
cargo test -p memdag-core --features tiktoken --test context_tokens --test recall_budget --test context_check

step "core builds as no_std + alloc for wasm32"
cargo build -p memdag-core --no-default-features --target wasm32-unknown-unknown

step "build the WIT component (wasm32-wasip2)"
scripts/build-component.sh
export MEMDAG_COMPONENT="$CARGO_TARGET_DIR/wasm32-wasip2/release/memdag_component.wasm"

step "cargo test --workspace (unit, property, component under Wasmtime)"
cargo test --workspace

step "JS package in Node and the browser tests in Chromium"
scripts/test-js.sh

step "the component in Node through jco"
scripts/test-component-js.sh

step "the MCP server under the official TypeScript SDK client (memdag mcp)"
node --test tests/mcp/

step "the Cloudflare Worker on workerd (miniflare)"
scripts/test-worker.sh

step "the fuzz targets, briefly (cargo +nightly fuzz)"
scripts/test-fuzz.sh

step "the Fastly Compute example (under Viceroy where installed)"
scripts/test-fastly.sh

if [ -s "$MEMDAG_SKIPPED_FILE" ]; then
  step "all tests passed in $(( $(date +%s) - started )) s; SKIPPED: $(paste -sd ',' "$MEMDAG_SKIPPED_FILE")"
else
  step "all tests passed in $(( $(date +%s) - started )) s"
fi
