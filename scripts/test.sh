#!/usr/bin/env bash
# Runs every memdag test: format, the layout check and lints, Rust unit and integration tests,
# the core as no_std, the component under Wasmtime and under jco, the wasm package in Node, the
# browser tests in Chromium, the Worker on workerd, the fuzz targets, and the Fastly example.
# Installs what is missing, and ends with the time each step took.
source "$(dirname "$0")/lib.sh"
started=$(date +%s)
# Suites that could not run here add a line to this file; the last line names them.
export MEMDAG_SKIPPED_FILE="$(mktemp)"
export MEMDAG_STEP_LOG="$(mktemp)"
installs_log="$(mktemp)"
viceroy_log="$(mktemp)"
trap 'rm -f "$MEMDAG_SKIPPED_FILE" "$MEMDAG_STEP_LOG" "$installs_log" "$viceroy_log"' EXIT

ensure_rust_targets
# Chromium and the npm trees come over the network and cost little CPU: they install beside
# the first builds, and the JS steps wait for them.
(
  ensure_chromium
  ensure_node_deps
  ensure_npm_tree tests/component-js "jco, preview2-shim"
  ensure_npm_tree tests/worker "miniflare with workerd"
) >"$installs_log" 2>&1 &
installs=$!
# Viceroy, for the Fastly example's tests, is a Wasmtime build of about 15 CPU-minutes when
# missing: it builds from the start at a lower priority, in the time the steps below leave a
# core idle (the browser, Node and fuzz steps), and the Fastly step waits for it.
MEMDAG_STEP_LOG='' nice -n 10 bash -c 'source scripts/lib.sh && ensure_viceroy' >"$viceroy_log" 2>&1 &
viceroy_install=$!
# A failing step ends the run: the installs (npm and its children) end with it, not after it.
kill_tree() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'kill_tree $installs; kill_tree $viceroy_install; rm -f "$MEMDAG_SKIPPED_FILE" "$MEMDAG_STEP_LOG" "$installs_log" "$viceroy_log"' EXIT
ensure_wasm_bindgen

step "cargo fmt --check"
cargo fmt --all --check

step "layout: no import circle, crates depend one way, no file over 800 lines"
python3 scripts/check-layout.py

step "cargo clippy + cargo test -p memdag-core --features tiktoken (exact token counts)"
cargo clippy -p memdag-core --all-targets --features tiktoken -- -D warnings
cargo test -p memdag-core --features tiktoken --test context_tokens --test recall_budget --test context_check

step "core builds as no_std + alloc for wasm32, and without its language parts (rules, time-text); the wasm allocator's lints"
cargo build -p memdag-core --no-default-features --target wasm32-unknown-unknown
cargo clippy -p memdag-core --no-default-features --features std -- -D warnings
# The allocator's wasm half compiles only for that target (the workspace lints its native half).
cargo clippy -p memdag-alloc --target wasm32-unknown-unknown -- -D warnings

step "build the WIT component (wasm32-wasip2)"
scripts/build-component.sh
export MEMDAG_COMPONENT="$CARGO_TARGET_DIR/wasm32-wasip2/release/memdag_component.wasm"

# Clippy lints the workspace's crates while they build for the tests: `cargo clippy` would
# first check every dependency (wasmtime among them) a second time, in check mode.
step "cargo test --workspace, linted by clippy -D warnings (unit, property, component under Wasmtime)"
RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver)" \
  CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
  cargo test --workspace --all-targets
step "cargo test --workspace --doc"
cargo test --workspace --doc
step "cargo doc for the pure crates, warnings denied (every link in the API docs resolves)"
RUSTDOCFLAGS="-D warnings" cargo doc -p memdag-types -p memdag-core -p memdag-alloc --no-deps

step "waiting for Chromium and the npm trees"
if ! wait "$installs"; then
  cat "$installs_log" >&2
  exit 1
fi

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

step "waiting for Viceroy"
if ! wait "$viceroy_install"; then
  cat "$viceroy_log" >&2
  exit 1
fi

step "the Fastly Compute example under Viceroy"
scripts/test-fastly.sh

step "done"
print_step_times
if [ -s "$MEMDAG_SKIPPED_FILE" ]; then
  step "all tests passed in $(( $(date +%s) - started )) s; SKIPPED: $(paste -sd ',' "$MEMDAG_SKIPPED_FILE")"
else
  step "all tests passed in $(( $(date +%s) - started )) s"
fi
