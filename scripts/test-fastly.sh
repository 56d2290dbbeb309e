#!/usr/bin/env bash
# The Fastly Compute example (examples/fastly-compute) under Viceroy, Fastly's local Compute
# runtime: lints and builds the app for wasm32-wasip1 and runs tests/fastly with node --test.
#
#   scripts/test-fastly.sh
#
# Installs Viceroy when it is missing (ensure_viceroy in scripts/lib.sh: a build of about 15
# CPU-minutes, once; scripts/test.sh starts it in the background at its beginning).
# Exits non-zero when the install, the lint, the build or a test fails.
source "$(dirname "$0")/lib.sh"

step "rustup target add wasm32-wasip1"
rustup target add wasm32-wasip1 >/dev/null

ensure_viceroy

step "cargo fmt --check, cargo clippy, cargo build --release --target wasm32-wasip1 (examples/fastly-compute)"
(cd examples/fastly-compute && cargo fmt --check && cargo clippy --target wasm32-wasip1 -- -D warnings &&
  cargo build --release --target wasm32-wasip1)
wasm="$CARGO_TARGET_DIR/wasm32-wasip1/release/memdag-fastly.wasm"
echo "app: $(wc -c <"$wasm") bytes raw, $(gzip -9 -c "$wasm" | wc -c) bytes gzip -9"

step "node --test tests/fastly ($(viceroy --version))"
(cd tests/fastly && VICEROY="$(command -v viceroy)" MEMDAG_FASTLY_WASM="$wasm" node --test)
