#!/usr/bin/env bash
# Builds the memdag WebAssembly component (wasm32-wasip2, release) and prints its size.
#
#   scripts/build-component.sh
#
# Output: $CARGO_TARGET_DIR/wasm32-wasip2/release/memdag_component.wasm, where the memdag
# host, its tests and scripts/demo.sh look for it. CARGO_TARGET_DIR defaults to
# $HOME/.cache/memdag-target (see lib.sh), one target dir shared by every build here.
source "$(dirname "$0")/lib.sh"

# RUSTUP_AUTO_INSTALL may be off, so add the target explicitly (instant when present).
step "rustup target add wasm32-wasip2"
rustup target add wasm32-wasip2 >/dev/null

# wit-bindgen + the wasm32-wasip2 target emit a component directly: no cargo-component.
step "cargo build -p memdag-component --release --target wasm32-wasip2"
cargo build -p memdag-component --release --target wasm32-wasip2

wasm="$CARGO_TARGET_DIR/wasm32-wasip2/release/memdag_component.wasm"
raw=$(wc -c <"$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
echo "built $wasm"
echo "size: $raw bytes raw, $gz bytes gzip -9"
