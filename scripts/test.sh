#!/usr/bin/env bash
# The one test command: formatting, lints, and the whole test suite.
# Installs what it needs on a fresh machine (the Debian `adb` package for the
# virtual-phone tests; the pinned MCP clients for the interop and conformance runs,
# once, into .cache/). Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v adb >/dev/null 2>&1; then
  echo "== installing adb (Debian package)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq adb >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq adb >/dev/null
  fi
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== tests"
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi
# Doc tests (nextest does not run them).
cargo test --workspace --locked --doc

# The test build above made target/debug/mobile-mcp; the runners below use it rather than
# rebuilding it with another feature set.
export MOBILE_MCP_BIN=$PWD/target/debug/mobile-mcp

echo "== interop: Python SDK, TypeScript SDK, MCP Inspector CLI, qwen-code (stdio and HTTP)"
scripts/interop.sh

echo "== MCP conformance suite (Streamable HTTP)"
scripts/conformance.sh

if [ -x scripts/bench.sh ]; then
  echo "== benchmark smoke run (one iteration, ours only)"
  scripts/bench.sh --quick
fi
