#!/usr/bin/env bash
# Assembles the on-device helper (crates/android/helper/src, smali written here) into
# crates/android/helper/mobile-mcp-helper.dex with Debian's `smali` (BSD), then checks it with
# Debian's `dexdump`. The output is reproducible: the same source and smali give the same
# bytes (no timestamps in a .dex; one job so the order never depends on threads).
# Usage: scripts/build-helper.sh [OUTPUT.dex]   (default: the committed file)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-crates/android/helper/mobile-mcp-helper.dex}
for tool in smali dexdump; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "build-helper: \`$tool\` is missing (Debian package \`$tool\`)" >&2
    exit 2
  }
done
# API 24 (Android 7.0): dex format 037, the oldest release this server supports.
smali assemble --api 24 --jobs 1 --output "$out" crates/android/helper/src
dexdump "$out" >/dev/null
echo "build-helper: $out ($(wc -c <"$out") bytes)"
