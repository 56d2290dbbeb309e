#!/usr/bin/env bash
# The Fastly Compute example (examples/fastly-compute) under Viceroy: builds the app for
# wasm32-wasip1 and runs tests/fastly with node --test.
#
#   scripts/test-fastly.sh
#
# Needs `viceroy` (cargo install viceroy --version 0.16.5 --locked: a full Wasmtime build that
# took 36 minutes here on 2 busy cores, so it is installed only when asked:
# MEMDAG_INSTALL_VICEROY=1). Without it the script checks that the app compiles, says so, and
# exits 0.
# Exits non-zero when the build or a test fails.
source "$(dirname "$0")/lib.sh"

step "rustup target add wasm32-wasip1"
rustup target add wasm32-wasip1 >/dev/null

viceroy="$(command -v viceroy || true)"
if [ -z "$viceroy" ] && [ "${MEMDAG_INSTALL_VICEROY:-0}" = 1 ]; then
  step "cargo install viceroy 0.16.5 (a full Wasmtime build, 15 to 40 minutes, once)"
  cargo install viceroy --version 0.16.5 --locked
  viceroy="$(command -v viceroy)"
fi
if [ -z "$viceroy" ]; then
  # Nothing runs the app: checking that it compiles is enough, and costs half a release build.
  step "cargo check --target wasm32-wasip1 (examples/fastly-compute)"
  (cd examples/fastly-compute && cargo check --target wasm32-wasip1)
  step "SKIPPED: viceroy is not installed: the app compiles, its tests do not run (MEMDAG_INSTALL_VICEROY=1 installs it)"
  # scripts/test.sh names every skipped suite in its last line.
  if [ -n "${MEMDAG_SKIPPED_FILE:-}" ]; then echo "Fastly tests (no viceroy)" >>"$MEMDAG_SKIPPED_FILE"; fi
  exit 0
fi

step "cargo build --release --target wasm32-wasip1 (examples/fastly-compute)"
(cd examples/fastly-compute && cargo build --release --target wasm32-wasip1)
wasm="$CARGO_TARGET_DIR/wasm32-wasip1/release/memdag-fastly.wasm"
echo "app: $(wc -c <"$wasm") bytes raw, $(gzip -9 -c "$wasm" | wc -c) bytes gzip -9"

step "node --test tests/fastly ($("$viceroy" --version))"
(cd tests/fastly && VICEROY="$viceroy" MEMDAG_FASTLY_WASM="$wasm" node --test)
