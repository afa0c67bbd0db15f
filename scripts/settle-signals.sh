#!/usr/bin/env bash
# Times the candidate settle signals on the virtual phone through the real adb server:
# the composed-frame list hashed on the phone (`dumpsys SurfaceFlinger --frametimeline -all
# | sha1sum`, Android 12+), the frame hashed on the phone (`screencap | sha1sum`), the raw frame pulled
# (`exec-out screencap`), and the UI tree (`exec-out uiautomator dump /dev/tty`); with
# and without the mid-range latency profile. Usage: scripts/settle-signals.sh [N]
set -euo pipefail
N=${1:-20}
BIN=${CARGO_TARGET_DIR:-target}/debug/virtual-phone
PORT=$((20000 + RANDOM % 20000))
ADBP=$((40000 + RANDOM % 20000))
tmp=$(mktemp -d)
trap 'kill $PHONE 2>/dev/null || true; HOME=$tmp adb -P $ADBP kill-server >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
run() { # label, state json
  echo "$2" >"$tmp/state.json"
  "$BIN" --port "$PORT" --state "$tmp/state.json" >/dev/null &
  PHONE=$!
  sleep 0.5
  HOME=$tmp adb -P $ADBP connect 127.0.0.1:$PORT >/dev/null
  local s="127.0.0.1:$PORT"
  for sig in "shell:dumpsys SurfaceFlinger --frametimeline -all | sha1sum" "exec-out:dumpsys SurfaceFlinger --frametimeline -all" "shell:screencap | sha1sum" "exec-out:screencap" "exec-out:uiautomator dump /dev/tty"; do
    local kind=${sig%%:*} cmd=${sig#*:}
    local bytes=0 t0 t1
    t0=$(date +%s%N)
    for _ in $(seq "$N"); do
      if [ "$kind" = shell ]; then
        bytes=$(HOME=$tmp adb -P $ADBP -s "$s" shell "$cmd" | wc -c)
      else
        # shellcheck disable=SC2086
        bytes=$(HOME=$tmp adb -P $ADBP -s "$s" exec-out $cmd | wc -c)
      fi
    done
    t1=$(date +%s%N)
    printf '%s | %s | %d ms | %d bytes\n' "$1" "$cmd" $(((t1 - t0) / N / 1000000)) "$bytes"
  done
  HOME=$tmp adb -P $ADBP disconnect "$s" >/dev/null
  kill $PHONE; wait $PHONE 2>/dev/null || true
}
run "no profile" '{}'
run "mid-range profile (SDK 34)" '{"living": {"latency": {"sdk": 34}}}'
