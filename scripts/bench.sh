#!/usr/bin/env bash
# Performance of mobile-mcp against the most used peer server (@mobilenext/mobile-mcp 1.0.4),
# in one run, on the same virtual phone, through the same real adb server (private port),
# driven by the same rmcp client (crates/bench) in alternation so noise hits both.
#
# Usage: scripts/bench.sh            full run: ours (+ filter on), peer default, peer legacy;
#                                     cold start, peak RSS, binary size, criterion benches.
#        scripts/bench.sh --quick    smoke: one iteration, ours only, no peer install, no criterion.
#        scripts/bench.sh --no-criterion   full run without the criterion benches.
#        scripts/bench.sh --no-peer         full run without the peer.
#        scripts/bench.sh --baseline=BIN    also measure BIN (another mobile-mcp build, e.g. the
#                                            commit before a change) in the same rounds as ours.
#
# The peer is installed with npm into .cache/bench-peer/ on first use (never committed); if
# that fails, ours is still measured and the report says so. Its telemetry is off, it gets a
# private HOME and an ANDROID_HOME whose platform-tools/adb is /usr/bin/adb, and its adb talks
# to the private server. Its detached helper daemon is stopped by PID at the end.
#
# Output: a markdown table on stdout, target/bench/latest.md and target/bench/latest.json.
# Every wait is bounded; a trap stops the bench process group, the peer daemon and the adb server.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

QUICK=0
CRITERION=1
PEER=1
BASELINE_ARGS=()
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1; CRITERION=0 ;;
    --no-criterion) CRITERION=0 ;;
    --no-peer) PEER=0 ;;
    --baseline=*) BASELINE_ARGS=(--baseline "$(realpath "${a#--baseline=}")") ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "bench: unknown argument $a" >&2; exit 2 ;;
  esac
done

PEER_VERSION=1.0.4
PEER_DIR=$ROOT/.cache/bench-peer
OUT=$ROOT/target/bench
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mobile-mcp-bench.XXXXXX")
BENCH_PID=

cleanup() {
  if [ -n "$BENCH_PID" ] && kill -0 "$BENCH_PID" 2>/dev/null; then
    kill -TERM -- "-$BENCH_PID" 2>/dev/null
    sleep 1
    kill -KILL -- "-$BENCH_PID" 2>/dev/null
  fi
  if [ -f "$WORK/peer-home/.mobilecli/daemon.pid" ]; then
    # mobilecli writes {"pid":N,...}; a bare number is accepted too.
    pid=$(grep -o '"pid": *[0-9]*' "$WORK/peer-home/.mobilecli/daemon.pid" | tr -dc 0-9)
    [ -n "$pid" ] || pid=$(tr -dc 0-9 < "$WORK/peer-home/.mobilecli/daemon.pid")
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
  fi
  if [ -f "$WORK/adb.port" ]; then
    port=$(tr -dc 0-9 < "$WORK/adb.port")
    [ -n "$port" ] && HOME=$WORK timeout 10 adb -P "$port" kill-server >/dev/null 2>&1
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Measurements use release builds; the --quick smoke run only checks that the harness
# works, so it uses the debug build the test suite already made.
if [ "$QUICK" = 1 ]; then PROFILE=debug; PROFILE_FLAG=(); else PROFILE=release; PROFILE_FLAG=(--release); fi
echo "bench: building ($PROFILE)" >&2
# Two invocations, not one: building them together would unify rmcp's features (client +
# server) and measure a different server binary from the one users build.
if [ "$QUICK" = 1 ] && [ -n "${MOBILE_MCP_BIN:-}" ]; then
  OURS=$MOBILE_MCP_BIN
else
  timeout 1800 cargo build "${PROFILE_FLAG[@]}" --quiet -p mobile-mcp || { echo "bench: build failed" >&2; exit 1; }
  OURS=$ROOT/target/$PROFILE/mobile-mcp
fi
timeout 1800 cargo build "${PROFILE_FLAG[@]}" --quiet -p mobile-mcp-bench || { echo "bench: build failed" >&2; exit 1; }
BENCH=$ROOT/target/$PROFILE/mobile-mcp-bench

# The peer, installed once.
PEER_ARGS=()
PEER_NOTE=""
if [ "$QUICK" = 0 ] && [ "$PEER" = 1 ]; then
  if [ ! -f "$PEER_DIR/node_modules/@mobilenext/mobile-mcp/package.json" ] && command -v npm >/dev/null; then
    echo "bench: installing @mobilenext/mobile-mcp@$PEER_VERSION into .cache/bench-peer" >&2
    mkdir -p "$PEER_DIR"
    [ -f "$PEER_DIR/package.json" ] || echo '{"name":"bench-peer","private":true}' > "$PEER_DIR/package.json"
    (cd "$PEER_DIR" && timeout 300 npm install --no-audit --no-fund --loglevel=error "@mobilenext/mobile-mcp@$PEER_VERSION") >&2 \
      || PEER_NOTE="npm install failed"
  fi
  if [ -f "$PEER_DIR/node_modules/@mobilenext/mobile-mcp/package.json" ] && command -v node >/dev/null; then
    PEER_ARGS=(--peer-dir "$PEER_DIR")
  else
    PEER_NOTE=${PEER_NOTE:-"not installed (no npm/node)"}
    echo "bench: the peer could not be installed ($PEER_NOTE); measuring ours only" >&2
  fi
fi

if [ "$QUICK" = 1 ]; then
  ITER=(--iters 1 --warmup 0 --cold 1 --floor-iters 5 --budget 60 --call-timeout 20)
  LIMIT=120
else
  ITER=(--iters 20 --warmup 2 --cold 10 --floor-iters 50 --budget 420)
  LIMIT=540
fi
CMD="scripts/bench.sh $*"
# setsid: the bench and every server it spawns share one process group the trap can stop.
setsid timeout -k 10 "$LIMIT" "$BENCH" --ours "$OURS" "${BASELINE_ARGS[@]}" "${PEER_ARGS[@]}" "${ITER[@]}" \
  --work "$WORK" --out "$OUT" --note "Command: \`${CMD% }\`." > "$WORK/bench.out" &
BENCH_PID=$!
wait "$BENCH_PID"
rc=$?
BENCH_PID=
if [ "$rc" != 0 ]; then
  echo "bench: mobile-mcp-bench failed (exit $rc)" >&2
  cat "$WORK/bench.out"
  exit 1
fi

{
  [ -n "$PEER_NOTE" ] && printf '\nPeer not measured: %s.\n' "$PEER_NOTE"
  size=$(stat -c %s "$OURS")
  awk -v s="$size" -v p="$OURS" 'BEGIN { printf "\nServer binary `%s`: %d bytes (%.2f MB, %.2f MiB).\n", p, s, s / 1e6, s / 1048576 }'
} >> "$OUT/latest.md"

if [ "$CRITERION" = 1 ]; then
  echo "bench: criterion benches" >&2
  CRIT=$WORK/criterion.txt
  for spec in "mobile-screenshot screenshot" "mobile-android uixml" "mcp-payload-filter filter"; do
    set -- $spec
    timeout 900 cargo bench --quiet -p "$1" --bench "$2" -- --warm-up-time 1 --measurement-time 3 2>/dev/null \
      | grep -E '^[A-Za-z0-9_/ .×-]+ +time:|thrpt:|^[a-z_]+/' >> "$CRIT" \
      || echo "$1/$2: failed or not found" >> "$CRIT"
  done
  {
    printf '\nCriterion (in-process hot paths; time and throughput, [low median high]):\n\n```\n'
    cat "$CRIT"
    printf '```\n'
  } >> "$OUT/latest.md"
fi

cat "$OUT/latest.md"
