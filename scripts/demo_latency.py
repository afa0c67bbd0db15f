#!/usr/bin/env python3
"""Median latency of a few tools against `mobile-mcp --demo` (the virtual phone over direct TCP).

Usage: scripts/demo_latency.py [BINARY] [CALLS]   (default target/release/mobile-mcp, 20 calls)

A measurement, not a test: it prints medians and asserts nothing about time. Everything stays on
loopback; the server and its phone stop when the script closes the server's stdin.
"""
import json
import statistics
import subprocess
import sys
import time

binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/mobile-mcp"
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 20
server = subprocess.Popen([binary, "--demo"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL)
next_id = 0


def call(method, params):
    global next_id
    next_id += 1
    server.stdin.write((json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method,
                                    "params": params}) + "\n").encode())
    server.stdin.flush()
    while True:
        line = server.stdout.readline()
        if not line:
            sys.exit("the server closed its output")
        message = json.loads(line)
        if message.get("id") == next_id:
            return message


try:
    call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "demo-latency", "version": "1"}})
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.flush()
    listed = call("tools/call", {"name": "mobile_list_available_devices", "arguments": {}})
    device = listed["result"]["structuredContent"]["devices"][0]["id"]
    for name in ["mobile_get_orientation", "mobile_list_apps", "mobile_take_screenshot"]:
        samples = []
        for i in range(calls + 2):
            start = time.perf_counter()
            result = call("tools/call", {"name": name, "arguments": {"device": device}})["result"]
            elapsed = (time.perf_counter() - start) * 1e3
            if result.get("isError"):
                sys.exit(f"{name} failed: {result['content']}")
            if i >= 2:
                samples.append(elapsed)
        print(f"{name}: median {statistics.median(samples):.2f} ms "
              f"(min {min(samples):.2f}, max {max(samples):.2f}, n={len(samples)})")
finally:
    server.stdin.close()
    server.wait(timeout=10)
