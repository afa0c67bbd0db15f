#!/usr/bin/env python3
"""A short MCP session with a built mobile-mcp binary and its demo phone, for the release
workflow's build jobs (macOS and Linux runners with nothing but python3).

Starts `BINARY --demo`, speaks newline-delimited JSON-RPC over stdio: initialize, lists the
devices (the demo phone must be there), takes a screenshot (a JPEG must come back), prints
the server's resident memory on Linux, and closes stdin (the server must exit 0). Standard library only; not a general MCP client
(scripts/interop.sh runs the real ones).

Usage: smoke.py BINARY
"""

import base64
import json
import os
import subprocess
import sys


def main(binary: str) -> int:
    server = subprocess.Popen([binary, "--demo"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    next_id = 0

    def call(method: str, params: dict) -> dict:
        nonlocal next_id
        next_id += 1
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method,
                                       "params": params}) + "\n")
        server.stdin.flush()
        while True:
            line = server.stdout.readline()
            if not line:
                raise SystemExit(f"smoke: the server closed stdout during {method}")
            message = json.loads(line)
            if message.get("id") == next_id:
                if "error" in message:
                    raise SystemExit(f"smoke: {method}: {message['error']}")
                return message["result"]

    init = call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "smoke", "version": "0"}})
    print(f"server: {init['serverInfo']['name']} {init['serverInfo']['version']}")
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    listing = call("tools/call", {"name": "mobile_list_available_devices", "arguments": {}})
    devices = listing["structuredContent"]["devices"]
    assert devices and "Virtual" in json.dumps(devices), listing
    shot = call("tools/call", {"name": "mobile_take_screenshot",
                               "arguments": {"device": devices[0]["id"]}})
    images = [c for c in shot["content"] if c["type"] == "image"]
    assert images and base64.b64decode(images[0]["data"])[:2] == b"\xff\xd8", shot
    print(f"demo phone {devices[0]['id']}: listed, screenshot {len(images[0]['data'])} base64 bytes")
    status = f"/proc/{server.pid}/status"
    if os.path.exists(status):  # Linux: the server's memory, demo phone included
        fields = dict(line.split(":", 1) for line in open(status))
        print(f"resident: {fields['VmRSS'].strip()} (peak {fields['VmHWM'].strip()})")
    server.stdin.close()
    code = server.wait(timeout=30)
    assert code == 0, f"exit status {code}"
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1]))
