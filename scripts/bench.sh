#!/usr/bin/env bash
# The Mode-2 search benchmark, all of it in one go (a benchmark, not a test: never run it from
# scripts/test.sh). Prints every table:
#   1. native: `memdag-bench` (release) at each size, and LoCoMo dev evidence recall; then the
#      raw vector index against an exact scan at ef 32 to 256 (`--ann`); grep's patterns over
#      10k records (`--grep`);
#   2. wasm: the same workload in Node (wasm32 + simd128), with LoCoMo recall;
#   3. peers in that same Node run, on the same corpus and queries: hnswlib-node, hnswlib-wasm
#      (10k only), Orama (vector and full text) and MiniSearch, with memdag/peer ratios;
#   4. wasm against native, metric by metric.
# Tables 2 to 4 come from tests/bench/peers.mjs (its memdag store also gives the wasm workload
# report, so the wasm corpus is built once per size).
#
#   scripts/bench.sh [--sizes 10000,100000] [--rebuild] [--peer-text-queries N]
#
# --rebuild also times a load that rebuilds the HNSW graph (about 75 s natively and more in
# wasm at 100k: the persist-or-rebuild comparison). Whole run at the default sizes: about
# 10 minutes on 2 cores.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

sizes=10000,100000
rebuild=--no-rebuild
peer_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --rebuild) rebuild=""; shift ;;
    --peer-text-queries) peer_args+=(--peer-text-queries "$2"); shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

ensure_rust_targets
ensure_wasm_bindgen
if [ ! -d tests/bench/node_modules ] || [ tests/bench/package-lock.json -nt tests/bench/node_modules/.package-lock.json ]; then
  step "npm ci in tests/bench/ (builds hnswlib-node from source)"
  (cd tests/bench && npm ci --no-audit --no-fund)
fi

step "native: cargo run -p memdag-bench --release -- --sizes $sizes $rebuild"
cargo build -q -p memdag-bench --release
native_json="$(mktemp)"
trap 'rm -f "$native_json"' EXIT
"$CARGO_TARGET_DIR/release/memdag-bench" --sizes "$sizes" $rebuild --json > "$native_json"
echo "done (its tables print below, with the wasm run)"

step "native: the raw vector index against an exact scan (memdag-bench --ann --sizes $sizes)"
"$CARGO_TARGET_DIR/release/memdag-bench" --ann --sizes "$sizes"

step "native: grep over 10k records (memdag-bench --grep --sizes 10000)"
"$CARGO_TARGET_DIR/release/memdag-bench" --grep --sizes 10000

# memdag's rows are at the default precision (int8); a second store kept as f32 adds its raw
# index rows, so the recall int8 costs shows in the same run.
step "wasm and peers: node tests/bench/peers.mjs --sizes $sizes --precisions int8,f32"
node --expose-gc tests/bench/peers.mjs --sizes "$sizes" $rebuild --native "$native_json" \
  --precisions int8,f32 "${peer_args[@]}"
