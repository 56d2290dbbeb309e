#!/usr/bin/env bash
# A copy of the JS package whose wasm keeps its function names (wasm-opt -g, otherwise as
# shipped), for profiles and `tests/bench/first-open.mjs --tierup`, which name the functions V8
# optimizes during an open: `scripts/pkg-with-names.sh OUTDIR`. Builds pkg/ first (build-pkg.sh).
# A measurement aid, not a test; the package itself ships without names.
source "$(dirname "$0")/lib.sh"
out="${1:?usage: scripts/pkg-with-names.sh OUTDIR}"
"$ROOT/scripts/build-pkg.sh" >&2
rm -rf "$out"
mkdir -p "$out"
cp -r "$ROOT/pkg/." "$out/"
step "wasm-opt -g (names kept) into $out/dist/"
package_wasm_opt "$CARGO_TARGET_DIR/memdag-bindgen/memdag_wasm_bg.wasm" "$out/dist/memdag_wasm_bg.wasm" -g
