#!/usr/bin/env bash
# The package's size with and without the core's language parts (features `rules` and
# `time-text`: the extractor's rules and lexicons, dates in words): memdag-wasm built for
# wasm32-unknown-unknown as scripts/build-pkg.sh builds it, wasm-bindgen, then wasm-opt -O3, raw and gzip -9.
# Builds twice (about 2 x 3 min); prints one line per build.
source "$(dirname "$0")/lib.sh"
wasm_release_settings
ensure_node_deps
ensure_wasm_bindgen
wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/memdag_wasm.wasm"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for build in without with; do
  if [ "$build" = with ]; then flags=(); else flags=(--no-default-features); fi
  step "cargo build -p memdag-wasm --release ${flags[*]}"
  cargo build -p memdag-wasm --release --target wasm32-unknown-unknown "${flags[@]}"
  wasm-bindgen --target web --out-dir "$out/$build" "$wasm"
  package_wasm_opt "$out/$build/memdag_wasm_bg.wasm" "$out/$build.wasm"
  raw=$(stat -c %s "$out/$build.wasm")
  gz=$(gzip -9 -c "$out/$build.wasm" | wc -c)
  echo "language parts $build: $raw bytes raw, $gz bytes gzip -9 (after wasm-opt -O3)" | tee -a "$out/sizes"
done
step "sizes"
cat "$out/sizes"
