#!/usr/bin/env bash
# Third-party MCP clients against the built mobile-mcp binary, over stdio and over
# Streamable HTTP: the Python SDK, the TypeScript SDK, the MCP Inspector CLI and
# `qwen mcp list`. Each client initializes, lists the tools and calls
# mobile_list_available_devices; when the binary has `--demo` (the built-in virtual
# phone), the clients also list apps, take a screenshot (decoded, size checked) and tap.
# The HTTP server requires a bearer token, so every HTTP client also proves it sends one.
#
# The clients are pinned and installed once into .cache/interop/ (scripts/interop/install.sh);
# after that, nothing here talks to a registry. Servers listen on 127.0.0.1 only.
#
# Usage: scripts/interop.sh            (MOBILE_MCP_BIN=path to test another binary)
# Prints a client × transport table; exits 1 if any row failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

scripts/interop/install.sh || { echo "interop: installing the clients failed" >&2; exit 1; }

if [ -z "${MOBILE_MCP_BIN:-}" ]; then
  cargo build --quiet -p mobile-mcp --bin mobile-mcp || exit 1
  MOBILE_MCP_BIN=$ROOT/target/debug/mobile-mcp
fi
BIN=$(cd "$(dirname "$MOBILE_MCP_BIN")" && pwd)/$(basename "$MOBILE_MCP_BIN")

CACHE=$ROOT/.cache/interop
NODE_DIR=$CACHE/node
PY=$CACHE/py/bin/python
INSPECTOR=$NODE_DIR/node_modules/.bin/mcp-inspector
QWEN=$NODE_DIR/node_modules/.bin/qwen
# Node 22 from the npm package `node` (the newest inspector and qwen-code need it).
export PATH=$NODE_DIR/node_modules/node/bin:$PATH
# ESM imports resolve from the script's folder, so the TS client runs from the cache.
cp scripts/interop/client.mjs "$NODE_DIR/client.mjs"

WORK=$(mktemp -d)
# The clients and the demo phone write state under HOME (inspector storage, qwen
# approvals, an adb key); keep it out of the user's home.
export HOME=$WORK/home
mkdir -p "$HOME" "$WORK/logs"
unset MCP_MODEL_PAYLOAD_FILTER MOBILE_MCP_AUTH
export RUST_LOG=warn,mobile_mcp=info
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

SERVER_PIDS=()
cleanup() {
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

DEMO=()
DEMO_FLAG=()
if "$BIN" --help 2>/dev/null | grep -q -- '--demo'; then
  DEMO=(--demo)
  DEMO_FLAG=(--demo)
fi

# start_http NAME [ENV=VALUE...] — a --listen server on a free port; sets URL. Its
# clients, one after the other, use the one demo phone, and not every client ends its
# session: they share the phone on purpose (--share-devices; no leases).
start_http() {
  local name=$1; shift
  local log=$WORK/logs/server-$name.log
  env "$@" "$BIN" "${DEMO[@]}" --share-devices --listen 127.0.0.1:0 2>"$log" &
  SERVER_PIDS+=($!)
  URL=
  for _ in $(seq 1 200); do
    URL=$(grep -o 'listening on http://[^ ]*/mcp' "$log" 2>/dev/null | head -1 | sed 's/^listening on //')
    [ -n "$URL" ] && return 0
    sleep 0.1
  done
  echo "interop: the $name server did not start:" >&2
  cat "$log" >&2
  return 1
}

TOKEN=interop-$RANDOM-$RANDOM-$RANDOM
start_http main MOBILE_MCP_AUTH="$TOKEN" || exit 1
HTTP_URL=$URL
start_http filtered MOBILE_MCP_AUTH="$TOKEN" MCP_MODEL_PAYLOAD_FILTER=1 || exit 1
FILTERED_URL=$URL

ROWS=()
FAILED=0
# t COMMAND... — one client process, with a deadline.
t() { timeout 120 "$@"; }
# row CLIENT TRANSPORT COMMAND... — runs a check (a command or a function whose client
# processes run under `t`), logs it, records pass/fail.
row() {
  local client=$1 transport=$2; shift 2
  local log=$WORK/logs/$client-$transport.log
  local start=$SECONDS
  if "$@" >"$log" 2>&1; then
    ROWS+=("$client|$transport|pass|$((SECONDS - start))s")
  else
    ROWS+=("$client|$transport|FAIL|$((SECONDS - start))s")
    FAILED=1
    echo "---- $client over $transport failed; its output:" >&2
    tail -40 "$log" >&2
  fi
}

# --- Python SDK and TypeScript SDK
row python stdio t "$PY" scripts/interop/client.py "${DEMO_FLAG[@]}" stdio "$BIN" "${DEMO[@]}"
row python http t "$PY" scripts/interop/client.py "${DEMO_FLAG[@]}" --token "$TOKEN" http "$HTTP_URL"
if [ ${#DEMO[@]} -gt 0 ]; then
  row python http+filter t "$PY" scripts/interop/client.py --demo --filtered --token "$TOKEN" http "$FILTERED_URL"
fi
row typescript stdio t node "$NODE_DIR/client.mjs" "${DEMO_FLAG[@]}" stdio "$BIN" "${DEMO[@]}"
row typescript http t node "$NODE_DIR/client.mjs" "${DEMO_FLAG[@]}" --token "$TOKEN" http "$HTTP_URL"

# --- MCP Inspector CLI (one method per run)
inspector_stdio() {
  local out=$WORK/inspector-stdio.json
  t "$INSPECTOR" --cli -q --format json "$BIN" "${DEMO[@]}" --method tools/list --strict >"$out" || return 1
  "$PY" scripts/interop/check_result.py tools 20 <"$out" || return 1
  t "$INSPECTOR" --cli -q --format json "$BIN" "${DEMO[@]}" \
    --method tools/call --tool-name mobile_list_available_devices >"$out" || return 1
  if [ ${#DEMO[@]} -gt 0 ]; then
    # Each run starts its own server (and demo phone), so only the listing is checked here.
    "$PY" scripts/interop/check_result.py device <"$out" || return 1
  else
    "$PY" scripts/interop/check_result.py ok <"$out" || return 1
  fi
}
inspector_http() {
  local out=$WORK/inspector-http.json
  local auth=(--header "Authorization: Bearer $TOKEN")
  t "$INSPECTOR" --cli -q --format json "$HTTP_URL" "${auth[@]}" --method tools/list --strict >"$out" || return 1
  "$PY" scripts/interop/check_result.py tools 20 <"$out" || return 1
  t "$INSPECTOR" --cli -q --format json "$HTTP_URL" "${auth[@]}" \
    --method tools/call --tool-name mobile_list_available_devices >"$out" || return 1
  if [ ${#DEMO[@]} -eq 0 ]; then
    "$PY" scripts/interop/check_result.py ok <"$out"
    return
  fi
  local device
  device=$("$PY" scripts/interop/check_result.py device <"$out") || return 1
  t "$INSPECTOR" --cli -q --format json "$HTTP_URL" "${auth[@]}" \
    --method tools/call --tool-name mobile_list_apps --tool-arg "device=$device" >"$out" || return 1
  "$PY" scripts/interop/check_result.py ok <"$out" || return 1
  t "$INSPECTOR" --cli -q --format json "$HTTP_URL" "${auth[@]}" \
    --method tools/call --tool-name mobile_take_screenshot --tool-arg "device=$device" >"$out" || return 1
  "$PY" scripts/interop/check_result.py screenshot <"$out" || return 1
  t "$INSPECTOR" --cli -q --format json "$HTTP_URL" "${auth[@]}" \
    --method tools/call --tool-name mobile_click_on_screen_at_coordinates \
    --tool-arg "device=$device" x=100 y=200 >"$out" || return 1
  "$PY" scripts/interop/check_result.py ok <"$out"
}
row inspector stdio inspector_stdio
row inspector http inspector_http

# --- qwen-code: `qwen mcp list` must show both servers Connected (it exits 0 either way).
qwen_list() {
  local transport=$1 project=$WORK/qwen-$1
  mkdir -p "$project/.qwen"
  if [ "$transport" = stdio ]; then
    "$PY" - "$project/.qwen/settings.json" "$BIN" "${DEMO[@]}" <<'PY'
import json, sys
path, cmd, *args = sys.argv[1:]
json.dump({"mcpServers": {"mobile": {"command": cmd, "args": args}}}, open(path, "w"))
PY
  else
    "$PY" - "$project/.qwen/settings.json" "$HTTP_URL" "$TOKEN" <<'PY'
import json, sys
path, url, token = sys.argv[1:]
json.dump({"mcpServers": {"mobile": {"httpUrl": url,
           "headers": {"Authorization": f"Bearer {token}"}}}}, open(path, "w"))
PY
  fi
  (
    cd "$project" || exit 1
    # qwen-code 0.24 connects project servers only once approved.
    t "$QWEN" mcp approve --all >/dev/null || exit 1
    t "$QWEN" mcp list | tee /dev/stderr | grep 'mobile: .* - Connected' >/dev/null
  )
}
row qwen stdio qwen_list stdio
row qwen http qwen_list http

# --- Summary
echo
printf '%-11s %-12s %-6s %s\n' client transport result time
printf '%-11s %-12s %-6s %s\n' ----------- ------------ ------ ----
for r in "${ROWS[@]}"; do
  IFS='|' read -r c t res secs <<<"$r"
  printf '%-11s %-12s %-6s %s\n' "$c" "$t" "$res" "$secs"
done
if [ ${#DEMO[@]} -gt 0 ]; then
  echo "(demo phone: list apps, screenshot and tap exercised; inspector over stdio lists the phone only)"
else
  echo "(this binary has no --demo: only initialize, tools/list and mobile_list_available_devices)"
fi
exit $FAILED
