#!/usr/bin/env bash
# Builds the component and the memdag host, then runs `memdag demo`.
#
#   scripts/demo.sh [--store DIR]      (default store: ./memdag-demo-store)
#
# Run it twice: the second run loads the turns from DIR and ingests nothing new.
#
# The host is a debug build: a clean release build of wasmtime takes ~15 min on 2 cores,
# while the debug build is shared with `cargo test`. The workspace Cargo.toml optimizes the
# Cranelift crates even in debug builds, so compiling the component at start takes under a
# second instead of ~14 s.
source "$(dirname "$0")/lib.sh"

scripts/build-component.sh

step "cargo build -p memdag-host (debug)"
cargo build -p memdag-host

memdag="$CARGO_TARGET_DIR/debug/memdag"
export MEMDAG_COMPONENT="$CARGO_TARGET_DIR/wasm32-wasip2/release/memdag_component.wasm"

step "memdag demo $*"
"$memdag" demo "$@"

step "done: run it again to see the store reloaded, or look around with"
echo "  $memdag recent repo-ci $*"
echo "  $memdag get t12 $*"
