# Shared set-up for memdag's scripts: sourced, not run.
# Installs what is missing and says what it does; every step is idempotent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/memdag-target}"
export PATH="$HOME/.cargo/bin:$PATH"
WASM_BINDGEN_VERSION=0.2.130
# Fastly's local Compute runtime, which runs tests/fastly (see ensure_viceroy).
VICEROY_VERSION=0.22.0

# Each step is printed and, when MEMDAG_STEP_LOG names a file (scripts/test.sh sets it),
# recorded there with its start time, so that the run can end with each step's time.
step() {
  printf '\n==> %s\n' "$*"
  if [ -n "${MEMDAG_STEP_LOG:-}" ]; then printf '%s\t%s\n' "$(date +%s.%N)" "$*" >>"$MEMDAG_STEP_LOG"; fi
}

# The time of each step recorded in MEMDAG_STEP_LOG (from its start to the next one's), and
# the whole.
print_step_times() {
  [ -n "${MEMDAG_STEP_LOG:-}" ] && [ -s "$MEMDAG_STEP_LOG" ] || return 0
  printf '\n==> time of each step (s)\n'
  awk -F '\t' -v end="$(date +%s.%N)" '
    { t[NR] = $1; name[NR] = $2 }
    END { for (i = 1; i <= NR; i++) { next_t = (i < NR) ? t[i + 1] : end; printf "%7.1f  %s\n", next_t - t[i], name[i] }
          printf "%7.1f  in all\n", end - t[1] }' "$MEMDAG_STEP_LOG"
}

# The release settings of the wasm the JS package ships (scripts/build-pkg.sh), for this
# shell: also those of the benchmark module (scripts/build-bench-wasm.sh), so that the wasm
# benchmarks measure the code that ships, and the two builds share their dependencies'
# artifacts. The workspace's release profile stays as it is for the native crates.
# Built for speed, not size: against opt-level z with wasm-opt -Oz, a cold open in Chromium
# took 0.90x (10k records) and 0.85x (100k), a second open in the page 0.65x and 0.49x, for
# 1.38 MB gzip instead of 1.08 MB (tests/bench/browser-ab.mjs, both builds alternated in one
# run, 2026-12-02). wasm32-unknown-unknown already aborts on panic.
wasm_release_settings() {
  export CARGO_PROFILE_RELEASE_LTO=true
  export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
  export CARGO_PROFILE_RELEASE_OPT_LEVEL=3
  # Fixed-width SIMD (every browser since 2021-23, Node 16.4+, workerd, Wasmtime): copying
  # and normalizing vectors on open, and every distance in a search, run four lanes at a
  # time. Opening a 10k store in Chromium went from 254-276 to 172-202 ms
  # (tests/bench/browser-bench.mjs).
  export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128"
}

# wasm-opt as the JS package runs it: `package_wasm_opt IN OUT [FLAG...]` (scripts/
# pkg-with-names.sh adds -g). Needs ensure_node_deps
# (binaryen from npm, via tests/package.json; Debian's binaryen 108 writes modules that fail to
# load). The features rustc enables by default for wasm32-unknown-unknown, and simd128.
# --one-caller-inline-max-function-size: binaryen inlines every function that has one caller,
# whatever its size (default -1), which undid the `#[inline(never)]` the core puts on the steps
# of an open (SegmentView::parse took in the record reader, the text view and the MessagePack
# decoders: one 22 KB function). V8 optimizes the functions a first open heats up one after
# another on a background thread, and optimized code is used from the next call on: a large
# function that ran once held up the small per-record ones queued behind it for 60-90 ms
# (node --trace-wasm-compilation-times). Small one-caller functions are still inlined. A first
# open of 10k records: 0.90x in Node (first-open.mjs), 0.88x in Chromium (browser-ab.mjs).
package_wasm_opt() {
  "$ROOT/tests/node_modules/.bin/wasm-opt" -O3 --one-caller-inline-max-function-size=100 \
    --enable-bulk-memory --enable-mutable-globals --enable-sign-ext \
    --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue --enable-simd \
    "${@:3}" "$1" -o "$2"
}

ensure_rust_targets() {
  step "rustup targets (wasm32-unknown-unknown, wasm32-wasip2)"
  rustup target add wasm32-unknown-unknown wasm32-wasip2 >/dev/null
}

ensure_wasm_bindgen() {
  if wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    return
  fi
  step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes, once)"
  # Only the `wasm-bindgen` binary, without the test runner's TLS stack, as a debug build with
  # no debug info: its output is the same bytes, it runs in about 3 s instead of 1, and it
  # builds in about 110 CPU-s instead of about 9 minutes on two cores.
  # --locked fails against this machine's registry mirror (a locked webpki-roots is missing).
  CARGO_PROFILE_DEV_DEBUG=false cargo install --debug wasm-bindgen-cli \
    --version "$WASM_BINDGEN_VERSION" --no-default-features --bin wasm-bindgen
}

ensure_viceroy() {
  if viceroy --version 2>/dev/null | grep -q " $VICEROY_VERSION\$"; then
    return
  fi
  step "installing viceroy $VICEROY_VERSION (about 15 CPU-minutes, once)"
  # No registry this machine reaches ships a Viceroy binary, so it is built. Its cost is
  # Wasmtime's: a release build (of 0.16.5) took 36 minutes here. A debug build without debug
  # info, with only the compiler crates optimized (as the workspace's dev profile does: the
  # host found unoptimized Cranelift 20 times slower), took 15 CPU-minutes and compiles the app
  # at start in about 12 CPU-s; at opt-level 1 it took 13.5 CPU-minutes and 19 CPU-s a start.
  # Its own temporary target dir (not CARGO_TARGET_DIR): it builds beside the workspace's
  # builds without waiting for their lock, and leaves 1.7 GB of artifacts behind it otherwise.
  local opt=()
  for crate in cranelift-codegen cranelift-assembler-x64 regalloc2 wasmtime-internal-cranelift \
    wasmparser wasmtime-environ; do
    opt+=(--config "profile.dev.package.$crate.opt-level=2")
  done
  env -u CARGO_TARGET_DIR cargo install viceroy --version "$VICEROY_VERSION" --locked --debug \
    --config profile.dev.debug=false "${opt[@]}"
}

ensure_chromium() {
  # A CJK font, so pages and screenshots show Chinese text rather than empty boxes.
  if [ -x /usr/bin/chromium ] && [ -d /usr/share/fonts/truetype/wqy ]; then
    return
  fi
  step "installing Debian chromium and a CJK font (about 90 s, once)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-wqy-zenhei >/dev/null
}

# `npm ci` in DIR unless its tree is installed from the current lockfile; WHAT says what for.
ensure_npm_tree() {
  local dir="$1" what="${2:-}"
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    step "npm ci in $dir${what:+ ($what)}"
    (cd "$dir" && npm ci --no-audit --no-fund)
  fi
}

ensure_node_deps() {
  ensure_npm_tree tests "playwright-core, binaryen, the MCP SDK"
}
