#!/usr/bin/env bash
# Builds the npm package's dist/: memdag-wasm for wasm32-unknown-unknown, wasm-bindgen --target
# web, then wasm-opt -O3 (binaryen from npm, via tests/package.json; Debian's binaryen 108
# writes modules that fail to load). Prints raw, gzip -9 and brotli sizes before and after
# wasm-opt. Idempotent: steps whose inputs did not change are skipped.
source "$(dirname "$0")/lib.sh"
root="$ROOT"
wasm_release_settings

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

# wasm-bindgen and wasm-opt run only when the module, this script or lib.sh (the settings) is
# newer than their output.
glue="$bindgen_out/memdag_wasm_bg.wasm"
if [ ! -f "$glue" ] || [ "$wasm" -nt "$glue" ] || [ "${BASH_SOURCE[0]}" -nt "$glue" ] ||
  [ "$root/scripts/lib.sh" -nt "$glue" ]; then
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
  package_wasm_opt "$glue" "$out.tmp"
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
