#!/usr/bin/env bash
# The Cloudflare Worker example (examples/cloudflare-worker) on real workerd through
# miniflare: builds the JS package (scripts/build-pkg.sh), installs tests/worker, and runs its
# node --test suite (every route of the example, the storage conformance suite on Durable
# Object storage, the guide's Worker snippets), which prints the bundle's gzip size.
#
#   scripts/test-worker.sh
#
# Exits non-zero when any step or test fails.
source "$(dirname "$0")/lib.sh"

scripts/build-pkg.sh

dir=tests/worker
ensure_npm_tree "$dir" "miniflare with workerd"

step "node --test $dir (workerd)"
(cd "$dir" && node --test)
