#!/usr/bin/env bash
# Checks one built mobile-mcp binary on the machine it is built for: `--version` prints
# server.json's version; on Linux no glibc symbol is newer than 2.17 (objdump -T), so it
# runs wherever manylinux2014 wheels do; on macOS the signature verifies (codesign
# --verify --strict; the release workflow signs ad hoc first); and a short MCP session
# with its demo phone works (packaging/smoke.py). Used by scripts/package-check.sh and by
# every build job of .github/workflows/release.yml.
# Usage: scripts/package/check-binary.sh BINARY
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$root/server.json")

[ "$("$bin" --version)" = "mobile-mcp $version" ] ||
  { echo "check-binary: $bin --version says '$("$bin" --version)', server.json $version" >&2; exit 1; }
echo "version: mobile-mcp $version"

case "$(uname -s)" in
  Linux)
    versions=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -u -V)
    newest=$(printf '%s\n' "$versions" | tail -1)
    echo "glibc symbol versions: $(printf '%s' "$versions" | tr '\n' ' ')"
    if [ "$(printf '%s\nGLIBC_2.17\n' "$newest" | sort -V | tail -1)" != GLIBC_2.17 ]; then
      echo "check-binary: $bin needs $newest, newer than glibc 2.17" >&2
      exit 1
    fi ;;
  Darwin)
    codesign --verify --strict --verbose=2 "$bin" ;;
esac

python3 "$root/packaging/smoke.py" "$bin"
