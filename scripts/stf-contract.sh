#!/usr/bin/env bash
# The STF double against STF's published contract: Schemathesis (pinned, installed once
# into .cache/stf-contract/, git-ignored) generates requests from fixtures/stf/api_v1.yaml
# (STF's lib/units/api/swagger/api_v1.yaml, see fixtures/stf/SOURCES.md) for the operations
# the double serves and checks every answer: status codes and bodies as the spec declares
# them, content types, 405 for undeclared methods, authentication enforced, schema-valid
# requests accepted and invalid ones refused. Bounded: a few examples per operation, a
# fixed seed, deterministic generation, a time budget.
# Usage: scripts/stf-contract.sh   (builds the double if needed; loopback only)
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
CACHE=.cache/stf-contract
STAMP="$CACHE/installed-schemathesis$SCHEMATHESIS_VERSION"
if [ ! -f "$STAMP" ]; then
  echo "== installing Schemathesis $SCHEMATHESIS_VERSION into $CACHE (once)" >&2
  rm -rf "$CACHE/py"
  mkdir -p "$CACHE"
  python3 -m venv "$CACHE/py"
  "$CACHE/py/bin/pip" install -q "schemathesis==$SCHEMATHESIS_VERSION"
  touch "$STAMP"
fi

cargo build -q -p stf-double
WORK=$(mktemp -d)
TOKEN=contract-$RANDOM-$RANDOM
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

target/debug/stf-double --token "$TOKEN" --phones 2 >"$WORK/double.out" 2>"$WORK/double.err" &
PID=$!
URL=
for _ in $(seq 1 100); do
  URL=$(sed -n 's/^listening on //p' "$WORK/double.out" 2>/dev/null | head -1)
  [ -n "$URL" ] && break
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "stf-contract: the double did not start:" >&2
  cat "$WORK/double.err" >&2
  exit 1
fi

# The token as STF's accessTokenAuth scheme (an apiKey in the authorization header), so
# Schemathesis also checks that requests without it are refused; serials of the double's
# phones, so device operations reach a device and not only 404.
cat >"$WORK/schemathesis.toml" <<TOML
[auth.openapi.accessTokenAuth]
api_key = "Bearer $TOKEN"

[parameters]
serial = "STF-PHONE-1"
TOML

# The operations the double serves (see testkit/stf-double/src/lib.rs).
OPS='^(getUser|getDevices|getDeviceBySerial|getUserDevices|addUserDevice|addUserDeviceV2|getUserDeviceBySerial|deleteUserDeviceBySerial|remoteConnectUserDeviceBySerial|remoteDisconnectUserDeviceBySerial|addAdbPublicKey)$'

echo "== Schemathesis $SCHEMATHESIS_VERSION against the STF double ($URL)"
# Run from the temporary folder, where Schemathesis keeps its example database.
ROOT=$PWD
(cd "$WORK" && "$ROOT/$CACHE/py/bin/schemathesis" --config-file schemathesis.toml run "$ROOT/fixtures/stf/api_v1.yaml" \
  --url "$URL/api/v1" \
  --include-operation-id-regex "$OPS" \
  --checks all \
  --max-examples 10 \
  --generation-deterministic \
  --max-time 60 \
  --request-timeout 10 \
  --no-color)
