# Shared set-up for memdag's scripts: sourced, not run.
# Installs what is missing and says what it does; every step is idempotent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/memdag-target}"
export PATH="$HOME/.cargo/bin:$PATH"
WASM_BINDGEN_VERSION=0.2.130

step() { printf '\n==> %s\n' "$*"; }

ensure_rust_targets() {
  step "rustup targets (wasm32-unknown-unknown, wasm32-wasip2)"
  rustup target add wasm32-unknown-unknown wasm32-wasip2 >/dev/null
}

ensure_wasm_bindgen() {
  if wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    return
  fi
  step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 9 minutes, once)"
  # --locked fails against this machine's registry mirror (a locked webpki-roots is missing).
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
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

ensure_node_deps() {
  if [ ! -d tests/node_modules ] || [ tests/package-lock.json -nt tests/node_modules/.package-lock.json ]; then
    step "npm ci in tests/"
    (cd tests && npm ci --no-audit --no-fund)
  fi
}
