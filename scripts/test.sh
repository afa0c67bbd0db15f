#!/usr/bin/env bash
# The one test command: formatting, lints, the build without the demo feature, the docs,
# and the whole test suite.
# Installs what it needs on a fresh machine (the Debian `adb`, `tesseract-ocr`,
# `tesseract-ocr-chi-sim`, `smali` and `dexdump` packages; the pinned MCP clients for the interop and
# conformance runs and the packaging tools, once, into .cache/). Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use: `adb` (the real adb server, for the virtual-phone tests)
# and `tesseract-ocr` with `tesseract-ocr-chi-sim` (reading text back from screenshots),
# `smali` and `dexdump` (rebuilding the on-device helper and checking it, in
# crates/android/tests/helper_dex.rs).
missing=()
command -v smali >/dev/null 2>&1 || missing+=(smali)
command -v dexdump >/dev/null 2>&1 || missing+=(dexdump)
command -v adb >/dev/null 2>&1 || missing+=(adb)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
# The Simplified Chinese model, so the OCR test also reads the CJK fallback glyphs.
{ command -v tesseract >/dev/null 2>&1 && tesseract --list-langs 2>/dev/null | grep -qx chi_sim; } ||
  missing+=(tesseract-ocr-chi-sim)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]} (Debian packages)"
  sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

# The server without the virtual phone (`--no-default-features`), which no other step builds.
echo "== cargo check -p mobile-mcp --no-default-features"
cargo check -p mobile-mcp --no-default-features --locked

# The docs, private items included, with every rustdoc warning an error (broken links,
# unclosed HTML, bare URLs).
echo "== cargo doc"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items --locked

echo "== tests"
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi
# Doc tests (nextest does not run them).
cargo test --workspace --locked --doc

# The soak (ignored in the run above): the HTTP server past its idle timeout while
# clients keep arriving, sessions on two phones, kept refs, memory; SOAK_SECS (default 60).
echo "== soak"
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run -p mobile-mcp --test integration --locked --run-ignored only \
    --no-capture -E 'test(=http::soak::soak)'
else
  cargo test -p mobile-mcp --test integration --locked -- --ignored --exact http::soak::soak \
    --nocapture
fi

# The test build above made target/debug/mobile-mcp; the runners below use it rather than
# rebuilding it with another feature set.
export MOBILE_MCP_BIN=$PWD/target/debug/mobile-mcp

echo "== interop: Python SDK, TypeScript SDK, MCP Inspector CLI, qwen-code (stdio and HTTP)"
scripts/interop.sh

echo "== MCP conformance suite (Streamable HTTP)"
scripts/conformance.sh

# The STF double against STF's published API spec (Schemathesis, pinned, into .cache/).
echo "== STF double against STF's api_v1.yaml (Schemathesis)"
scripts/stf-contract.sh

# Builds the release binary once (cargo zigbuild, glibc 2.17) and proves its packages:
# npx from a loopback npm registry, uvx from the wheel, the MCP Bundle, server.json against
# the registry's schema, actionlint on the workflows (docs/packaging.md). About 5 minutes
# on an idle two-core machine, most of it the release build (fat LTO);
# MOBILE_MCP_PACKAGE_CHECK=0 skips it for a quick local run.
if [ "${MOBILE_MCP_PACKAGE_CHECK:-1}" = 1 ]; then
  echo "== packages: npm, PyPI wheel, MCP Bundle, server.json, workflows"
  scripts/package-check.sh
else
  echo "== packages: skipped (MOBILE_MCP_PACKAGE_CHECK=0)"
fi

if [ -x scripts/bench.sh ]; then
  echo "== benchmark smoke run (one iteration, ours only)"
  scripts/bench.sh --quick
fi

echo "== agent-task benchmark smoke run (2 tasks, classic vs act-and-observe)"
python3 scripts/agent-bench.py --quick
