#!/usr/bin/env bash
# Builds the npm package's dist/: memdag-wasm for wasm32-unknown-unknown, wasm-bindgen --target
# web, then wasm-opt -O3 (binaryen from npm, via tests/package.json; Debian's binaryen 108
# writes modules that fail to load). Prints raw, gzip -9 and brotli sizes before and after
# wasm-opt. Idempotent: steps whose inputs did not change are skipped.
source "$(dirname "$0")/lib.sh"
root="$ROOT"
# Settings for this build only; the workspace's release profile stays as it is for the native
# crates. wasm32-unknown-unknown already aborts on panic. Built for speed, not size: against
# opt-level z with wasm-opt -Oz, a cold open in Chromium took 0.90x (10k records) and 0.85x
# (100k), a second open in the page 0.65x and 0.49x, for 1.38 MB gzip instead of 1.08 MB
# (tests/bench/browser-ab.mjs, both builds alternated in one run, 2026-12-02).
export CARGO_PROFILE_RELEASE_LTO=true
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
export CARGO_PROFILE_RELEASE_OPT_LEVEL=3
# Fixed-width SIMD (every browser since 2021-23, Node 16.4+, workerd, Wasmtime): copying and
# normalizing vectors on open, and every distance in a search, run four lanes at a time. Opening
# a 10k store in Chromium went from 254-276 to 172-202 ms (tests/bench/browser-bench.mjs).
export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128"

wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/memdag_wasm.wasm"
bindgen_out="$CARGO_TARGET_DIR/memdag-bindgen"
dist="$root/pkg/dist"
wasm_opt="$root/tests/node_modules/.bin/wasm-opt"

step "rustup target add wasm32-unknown-unknown"
rustup target add wasm32-unknown-unknown >/dev/null

ensure_wasm_bindgen
step "$(wasm-bindgen --version)"

# binaryen's wasm-opt comes with the npm tree of tests/.
ensure_node_deps

step "cargo build -p memdag-wasm --release --target wasm32-unknown-unknown (target dir $CARGO_TARGET_DIR)"
cargo build -p memdag-wasm --release --target wasm32-unknown-unknown

# wasm-bindgen and wasm-opt run only when the module or this script is newer than their output.
glue="$bindgen_out/memdag_wasm_bg.wasm"
if [ ! -f "$glue" ] || [ "$wasm" -nt "$glue" ] || [ "${BASH_SOURCE[0]}" -nt "$glue" ]; then
  step "wasm-bindgen --target web --out-dir $bindgen_out"
  rm -rf "$bindgen_out"
  wasm-bindgen --target web --out-dir "$bindgen_out" "$wasm"
else
  step "wasm-bindgen: up to date"
fi

out="$dist/memdag_wasm_bg.wasm"
if [ ! -f "$out" ] || [ "$glue" -nt "$out" ]; then
  step "wasm-opt -O3 ($("$wasm_opt" --version)) into pkg/dist/"
  mkdir -p "$dist"
  # The features rustc enables by default for wasm32-unknown-unknown, and simd128 (above).
  # --one-caller-inline-max-function-size: binaryen inlines every function that has one
  # caller, whatever its size (default -1), which undoes the `#[inline(never)]` the core puts
  # on the steps of an open (SegmentView::parse took in the record reader, the text view and
  # the MessagePack decoders: one 22 KB function). V8 optimizes the functions a first open
  # heats up one after another on a background thread, and optimized code is used from the
  # next call on: a large function that runs once held up the small per-record ones queued
  # behind it for 60-90 ms (node --trace-wasm-compilation-times). Small one-caller functions
  # are still inlined.
  "$wasm_opt" -O3 --one-caller-inline-max-function-size=100 \
    --enable-bulk-memory --enable-mutable-globals --enable-sign-ext \
    --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue --enable-simd \
    "$glue" -o "$out.tmp"
  for f in memdag_wasm.js memdag_wasm.d.ts memdag_wasm_bg.wasm.d.ts; do
    cp "$bindgen_out/$f" "$dist/$f"
  done
  mv "$out.tmp" "$out"
else
  step "wasm-opt: up to date"
fi

sizes() {
  local f="$1" raw gz br
  raw=$(wc -c <"$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  if command -v brotli >/dev/null; then
    br="$(brotli -c -q 11 "$f" | wc -c) B"
  elif command -v node >/dev/null; then
    # Node's zlib has brotli built in; quality 11 is what the brotli CLI uses by default.
    br="$(node -e 'const z = require("zlib"); const b = require("fs").readFileSync(process.argv[1]);
      process.stdout.write(String(z.brotliCompressSync(b, { params: {
        [z.constants.BROTLI_PARAM_QUALITY]: 11, [z.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length))' "$f") B"
  else
    br="skipped (no brotli)"
  fi
  printf '  %-28s raw %8d B   gzip -9 %7d B   brotli %s\n' "$2" "$raw" "$gz" "$br"
}
# Brotli at quality 11 takes about 15 s a module here: the figures are kept beside the build
# and printed again while the package is unchanged (the JS and Worker steps both build it).
sizes_file="$bindgen_out/sizes.txt"
if [ -f "$sizes_file" ] && [ "$sizes_file" -nt "$out" ] && [ "$sizes_file" -nt "$dist/memdag_wasm.js" ]; then
  step "sizes (unchanged since they were measured)"
  cat "$sizes_file"
else
  step "sizes"
  {
    sizes "$glue" "before wasm-opt"
    sizes "$out" "after wasm-opt -O3"
    sizes "$dist/memdag_wasm.js" "JS glue"
  } | tee "$sizes_file.tmp"
  mv "$sizes_file.tmp" "$sizes_file"
fi
