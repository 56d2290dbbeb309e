#!/usr/bin/env bash
# Prints the release wasm sizes of both faces, raw and gzip -9 after wasm-opt -Oz: the JS
# package with and without the `tiktoken` feature, and the WIT component. A measurement,
# not a test. Output goes to $CARGO_TARGET_DIR/sizes/. These are the smallest builds; the
# package scripts/build-pkg.sh ships is built for speed (opt-level 3, SIMD) and is larger.
source "$(dirname "$0")/lib.sh"
ensure_rust_targets
ensure_wasm_bindgen
ensure_node_deps
export CARGO_PROFILE_RELEASE_LTO=true CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 CARGO_PROFILE_RELEASE_OPT_LEVEL=z
wasm_opt="$ROOT/tests/node_modules/.bin/wasm-opt"
out="$CARGO_TARGET_DIR/sizes"
mkdir -p "$out"

row() {
  printf '| %-34s | %9d | %9d |\n' "$1" "$(wc -c <"$2")" "$(gzip -9 -c "$2" | wc -c)"
}

opt() {
  "$wasm_opt" -Oz --enable-bulk-memory --enable-mutable-globals --enable-sign-ext \
    --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue "$1" -o "$2"
}

echo "| build                              |   raw (B) |  gzip (B) |"
echo "|---|---|---|"
for features in "" "tiktoken"; do
  step "memdag-wasm ${features:-default features}" >&2
  cargo build -q -p memdag-wasm --release --target wasm32-unknown-unknown ${features:+--features $features} >&2
  name="pkg${features:+-$features}"
  wasm-bindgen --target web --out-dir "$out/$name" "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/memdag_wasm.wasm"
  opt "$out/$name/memdag_wasm_bg.wasm" "$out/$name/opt.wasm"
  row "JS package${features:+ + $features}, wasm-opt -Oz" "$out/$name/opt.wasm"
done
step "memdag-component" >&2
cargo build -q -p memdag-component --release --target wasm32-wasip2 >&2
comp="$CARGO_TARGET_DIR/wasm32-wasip2/release/memdag_component.wasm"
row "WIT component (wasip2), as built" "$comp"
