#!/usr/bin/env bash
# The memdag WIT component in Node: builds it, transpiles it with jco, and runs the node --test
# suite in tests/component-js (kv, embedder and llm imports written in JS).
#
#   scripts/test-component-js.sh
#
# Exits non-zero when any step or test fails.
source "$(dirname "$0")/lib.sh"

scripts/build-component.sh
wasm="$CARGO_TARGET_DIR/wasm32-wasip2/release/memdag_component.wasm"

dir=tests/component-js
ensure_npm_tree "$dir" "jco, preview2-shim"

step "jco transpile --instantiation async -> $dir/out"
rm -rf "$dir/out"
(cd "$dir" && npx jco transpile "$wasm" -o out --instantiation async --quiet)
echo "core wasm: $(du -cb "$dir"/out/*.wasm | tail -1 | cut -f1) bytes, glue: $(wc -c <"$dir/out/memdag_component.js") bytes"

step "node --test $dir"
(cd "$dir" && node --test)
