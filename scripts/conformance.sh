#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios,
# `--suite all` = active + pending) against `mobile-mcp --listen` on 127.0.0.1, twice:
# with the payload filter off and with MCP_MODEL_PAYLOAD_FILTER=1 (the filter layer must
# not change protocol behaviour). scripts/conformance-expected-failures.txt lists the
# scenarios that cannot pass here, each with its reason; any other failure, or a listed
# scenario that passes, fails the run. The suite speaks Streamable HTTP only; stdio is
# covered by scripts/interop.sh.
#
# Usage: scripts/conformance.sh        (MOBILE_MCP_BIN=path to test another binary)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

scripts/interop/install.sh || { echo "conformance: installing the suite failed" >&2; exit 1; }
if [ -z "${MOBILE_MCP_BIN:-}" ]; then
  cargo build --quiet -p mobile-mcp --bin mobile-mcp || exit 1
  MOBILE_MCP_BIN=$ROOT/target/debug/mobile-mcp
fi
BIN=$MOBILE_MCP_BIN
NODE_DIR=$ROOT/.cache/interop/node
CONFORMANCE=$NODE_DIR/node_modules/.bin/conformance
EXPECTED=$ROOT/scripts/conformance-expected-failures.txt
# The suite 0.1.14+ needs Node 22 (fs.globSync); it comes from the npm package `node`.
export PATH=$NODE_DIR/node_modules/node/bin:$PATH

WORK=$(mktemp -d)
export HOME=$WORK/home
mkdir -p "$HOME"
unset MCP_MODEL_PAYLOAD_FILTER MOBILE_MCP_AUTH
export RUST_LOG=warn,mobile_mcp=info
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

FAILED=0
SUMMARY=()
# run_pass NAME [ENV=VALUE...]
run_pass() {
  local name=$1; shift
  local log=$WORK/server-$name.log out=$WORK/conformance-$name.log url=
  # No adb server or simulator is reached: the suite never calls a mobile-mcp tool.
  env "$@" "$BIN" --listen 127.0.0.1:0 --adb-server 127.0.0.1:1 2>"$log" &
  SERVER_PID=$!
  for _ in $(seq 1 200); do
    url=$(grep -o 'listening on http://[^ ]*/mcp' "$log" 2>/dev/null | head -1 | sed 's/^listening on //')
    [ -n "$url" ] && break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "conformance: the server did not start:" >&2; cat "$log" >&2
    FAILED=1; return
  fi
  echo "== conformance ($name) against $url"
  local rc=0
  timeout 300 "$CONFORMANCE" server --url "$url" --suite all --expected-failures "$EXPECTED" >"$out" 2>&1 || rc=$?
  sed -n '/=== SUMMARY ===/,$p' "$out"
  local total expected passed
  total=$(grep -cE '^(✓|✗) [a-z0-9-]+: ' "$out")
  expected=$(sed -n '/Expected failures (in baseline)/,/^$/p' "$out" | grep -c '~ ')
  passed=$((total - expected))
  if [ "$rc" -eq 0 ]; then
    SUMMARY+=("$name|pass|$passed of $total passed, $expected expected failures")
  else
    SUMMARY+=("$name|FAIL|$total scenarios, $expected expected failures; see above (exit $rc)")
    FAILED=1
  fi
  kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=
}

run_pass filter-off
run_pass filter-on MCP_MODEL_PAYLOAD_FILTER=1

echo
printf '%-11s %-6s %s\n' pass result scenarios
for r in "${SUMMARY[@]}"; do
  IFS='|' read -r n res detail <<<"$r"
  printf '%-11s %-6s %s\n' "$n" "$res" "$detail"
done
exit $FAILED
