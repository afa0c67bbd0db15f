#!/usr/bin/env bash
# Builds mobile-mcp's packages for the machine it runs on into dist/: the npm launcher and
# this platform's npm package (tarballs), a PyPI wheel, an MCP Bundle (.mcpb), and
# dist/server.json (the repository's server.json, where the package names and the version
# live, with the bundle's SHA-256), with SHA256SUMS.
#
# The binary is built once, in release mode: on Linux with `cargo zigbuild` against glibc
# 2.17 (so it runs on any Linux with glibc 2.17 or newer), on macOS with `cargo build`.
# An unchanged tree is not rebuilt. The release workflow passes binaries built elsewhere
# with --binary PLATFORM=PATH (repeatable) and builds nothing here.
#
# Tools (cargo-zigbuild, ziglang, the mcpb CLI) are pinned and installed once into
# .cache/package/ by scripts/package/install.sh. Publishes nothing.
#
# Usage: scripts/package.sh [--binary PLATFORM=PATH]... [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

scripts/package/install.sh
TOOLS=$ROOT/.cache/package
MCPB="$TOOLS/node/node_modules/node/bin/node $TOOLS/node/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"

args=("$@")
if ! printf '%s\n' "${args[@]}" | grep -q -- '^--binary'; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) key=linux-x64 triple=x86_64-unknown-linux-gnu ;;
    Linux-aarch64) key=linux-arm64 triple=aarch64-unknown-linux-gnu ;;
    Darwin-x86_64) key=darwin-x64 triple=x86_64-apple-darwin ;;
    Darwin-arm64) key=darwin-arm64 triple=aarch64-apple-darwin ;;
    *) echo "package: no package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
  esac
  if [ "$(uname -s)" = Linux ]; then
    echo "== cargo zigbuild --release ($triple, glibc 2.17)" >&2
    # zig comes from the ziglang package in the tools' venv (`python3 -m ziglang`).
    PATH=$TOOLS/py/bin:$PATH cargo zigbuild --release --locked -p mobile-mcp --target "$triple.2.17"
  else
    echo "== cargo build --release ($triple)" >&2
    cargo build --release --locked -p mobile-mcp --target "$triple"
  fi
  args+=(--binary "$key=target/$triple/release/mobile-mcp")
fi

echo "== assembling the packages" >&2
# shellcheck disable=SC2086 # MCPB is a command with its interpreter
python3 packaging/build.py --mcpb "$MCPB" "${args[@]}"
