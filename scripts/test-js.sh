#!/usr/bin/env bash
# Builds the npm package and runs every JS test against the built output: Node (tests/node/)
# and headless Chromium (tests/browser/): the storage-adapter suite on every adapter, persistence,
# host callbacks, failed writes, two tabs, the explorer, a check that every public name of the
# package is used by a test, and the guide's snippets (pkg/README.md). Exits non-zero on any
# failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Dev dependencies first: build-pkg.sh uses wasm-opt from binaryen in tests/node_modules.
if [ -f tests/package-lock.json ]; then
  echo "==> npm ci in tests/"
  (cd tests && npm ci --no-audit --no-fund)
else
  echo "==> npm install in tests/ (no package-lock.json)"
  (cd tests && npm install --no-audit --no-fund)
fi

echo "==> scripts/build-pkg.sh"
scripts/build-pkg.sh

echo "==> node --test tests/node/ tests/browser/"
node --test tests/node/ tests/browser/
