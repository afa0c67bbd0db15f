#!/usr/bin/env bash
# Installs the pinned third-party MCP clients once into .cache/interop/ (git-ignored):
# Node 22 (from the npm package `node`), the TypeScript SDK, the MCP Inspector CLI, the
# conformance suite and qwen-code under .cache/interop/node, and the Python `mcp` SDK in a
# venv under .cache/interop/py. Later runs find the stamp and touch no registry.
# Usage: scripts/interop/install.sh   (prints nothing but errors when already installed)
set -euo pipefail
cd "$(dirname "$0")/../.."

# Pinned client versions (the ones checked in README.md). Change one and the stamp changes,
# so the next run reinstalls.
NODE_VERSION=22.23.3
TS_SDK_VERSION=1.32.2
INSPECTOR_VERSION=2.12.0
CONFORMANCE_VERSION=0.1.16
QWEN_VERSION=0.24.4
PY_MCP_VERSION=2.3.0

CACHE=.cache/interop
STAMP="$CACHE/installed-node$NODE_VERSION-sdk$TS_SDK_VERSION-insp$INSPECTOR_VERSION-conf$CONFORMANCE_VERSION-qwen$QWEN_VERSION-py$PY_MCP_VERSION"
if [ -f "$STAMP" ]; then
  exit 0
fi

echo "== installing the interop clients into $CACHE (once)" >&2
rm -rf "$CACHE"
mkdir -p "$CACHE/node"
cat > "$CACHE/node/package.json" <<JSON
{
  "name": "mobile-mcp-interop",
  "private": true,
  "description": "Pinned MCP clients for scripts/interop.sh and scripts/conformance.sh",
  "dependencies": {
    "node": "$NODE_VERSION",
    "@modelcontextprotocol/sdk": "$TS_SDK_VERSION",
    "@modelcontextprotocol/inspector": "$INSPECTOR_VERSION",
    "@modelcontextprotocol/conformance": "$CONFORMANCE_VERSION",
    "@qwen-code/qwen-code": "$QWEN_VERSION"
  }
}
JSON
(cd "$CACHE/node" && npm install --no-audit --no-fund --loglevel=error >&2)
"$CACHE/node/node_modules/node/bin/node" --version >/dev/null

python3 -m venv "$CACHE/py"
"$CACHE/py/bin/pip" install --quiet --disable-pip-version-check "mcp==$PY_MCP_VERSION" >&2

touch "$STAMP"
echo "== installed" >&2
