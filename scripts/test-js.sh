#!/usr/bin/env bash
# Builds the npm package and runs every JS test against the built output: Node (tests/node/)
# and headless Chromium (tests/browser/): the storage-adapter suite on every adapter, persistence,
# host callbacks, failed writes, two tabs, the explorer, a check that every public name of the
# package is used by a test, and the guide's snippets (pkg/README.md). Exits non-zero on any
# failure.
source "$(dirname "$0")/lib.sh"

# Dev dependencies first: build-pkg.sh uses wasm-opt from binaryen in tests/node_modules.
ensure_node_deps

step "scripts/build-pkg.sh"
scripts/build-pkg.sh

step "node --test tests/node/ tests/browser/"
node --test tests/node/ tests/browser/
