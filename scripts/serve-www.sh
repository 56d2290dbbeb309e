#!/usr/bin/env bash
# Builds the npm package and serves the repository root on 127.0.0.1, so the memory explorer
# (www/) can load ../pkg/. Prints the URL; Ctrl-C stops it. PORT=8080 picks the port.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ ! -d tests/node_modules ]; then (cd tests && npm ci --no-audit --no-fund); fi
scripts/build-pkg.sh
exec node --input-type=module -e "
  import { serve } from '$root/tests/browser/static-server.mjs';
  const { url } = await serve('$root', Number(process.env.PORT ?? 0));
  console.log('memdag explorer: ' + url + '/www/');
"
