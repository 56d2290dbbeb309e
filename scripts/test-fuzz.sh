#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/) for a short, bounded time: FUZZ_SECONDS each (default
# 10, about a minute in all). Needs the nightly toolchain; installs cargo-fuzz when missing.
# Without nightly it says SKIPPED (and scripts/test.sh names it in its last line).
source "$(dirname "$0")/lib.sh"
seconds="${FUZZ_SECONDS:-10}"
if ! cargo +nightly --version >/dev/null 2>&1; then
  step "SKIPPED: no nightly toolchain, so the fuzz targets do not run"
  if [ -n "${MEMDAG_SKIPPED_FILE:-}" ]; then echo "fuzz targets (no nightly)" >>"$MEMDAG_SKIPPED_FILE"; fi
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  step "installing cargo-fuzz (about 30 s, once)"
  cargo install cargo-fuzz --locked
fi
# The fuzz build (sanitizers, nightly) gets its own target dir: it shares nothing with the rest.
export CARGO_TARGET_DIR="${MEMDAG_FUZZ_TARGET_DIR:-$HOME/.cache/memdag-fuzz-target}"
step "cargo +nightly fuzz build -O"
cargo +nightly fuzz build -O
for target in $(cargo +nightly fuzz list); do
  step "fuzz $target for $seconds s"
  cargo +nightly fuzz run -O "$target" -- -max_total_time="$seconds" 2>&1 | grep -E "^Done|ERROR|SUMMARY|panicked" || true
  # libFuzzer exits non-zero on a crash; grep above only shows it, so check again.
  if ls fuzz/artifacts/"$target"/crash-* >/dev/null 2>&1; then
    echo "fuzz target $target crashed: see fuzz/artifacts/$target" >&2
    exit 1
  fi
done
