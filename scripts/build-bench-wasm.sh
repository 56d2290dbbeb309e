#!/usr/bin/env bash
# Builds the benchmark module the wasm benchmarks load (tests/bench/lib.mjs, loadBench):
# crates/memdag-bench for wasm32-unknown-unknown with the JS package's release settings
# (wasm_release_settings in lib.sh: LTO, one codegen unit, opt-level 3, SIMD), then
# wasm-bindgen --target nodejs into $CARGO_TARGET_DIR/memdag-bench-wasm. No wasm-opt: the
# module is measured as rustc built it. A build step, not a test.
source "$(dirname "$0")/lib.sh"
wasm_release_settings
step "rustup target add wasm32-unknown-unknown"
rustup target add wasm32-unknown-unknown >/dev/null
ensure_wasm_bindgen
step "cargo build -p memdag-bench --lib --release --target wasm32-unknown-unknown (the package's settings)"
cargo build -p memdag-bench --lib --release --target wasm32-unknown-unknown
out="$CARGO_TARGET_DIR/memdag-bench-wasm"
mkdir -p "$out"
wasm-bindgen --target nodejs --out-dir "$out" \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/memdag_bench.wasm"
