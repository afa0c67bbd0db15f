#!/usr/bin/env python3
"""Starvation scenario for `mobile-mcp --listen`, run against one or more binaries.

For each binary: start it on a loopback port with a bearer token and a file-descriptor
limit of 1024 (a common default), open SILENT connections that send nothing (more than
the limit), then make one authorized `initialize` and report whether it was served or
timed out. Not a test: it prints what happens, for docs/performance.md.

    scripts/starvation.py [--silent N] [--wait SECONDS] BINARY [BINARY ...]

Loopback only. Each server is killed at the end of its run.
"""

import argparse
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time

TOKEN = "starvation-scenario-token"
FD_LIMIT = 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, limit=60.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def authorized_initialize(port, wait):
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "starvation", "version": "1"}},
    })
    started = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
        c.request("POST", "/mcp", body=body, headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": "Bearer " + TOKEN,
        })
        r = c.getresponse()
        r.read()
        return f"served: HTTP {r.status} after {time.monotonic() - started:.2f} s"
    except (socket.timeout, TimeoutError):
        return f"timed out after {wait:.0f} s"
    except OSError as e:
        return f"failed after {time.monotonic() - started:.2f} s: {e}"


def run(binary, silent, wait):
    port = free_port()
    home = tempfile.mkdtemp(prefix="starvation-home-")
    env = dict(os.environ, HOME=home, MOBILE_MCP_AUTH=TOKEN, RUST_LOG="error",
               MOBILE_MCP_XCRUN="/nonexistent/xcrun")
    env.pop("MCP_MODEL_PAYLOAD_FILTER", None)

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))

    proc = subprocess.Popen(
        [binary, "--listen", f"127.0.0.1:{port}", "--adb-server", "127.0.0.1:1"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, preexec_fn=limit)
    socks = []
    try:
        if not wait_listening(port):
            return "did not start"
        for _ in range(silent):
            try:
                socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError:
                break
        time.sleep(1.0)
        return f"{len(socks)} silent connections open; authorized initialize " + \
            authorized_initialize(port, wait)
    finally:
        for s in socks:
            s.close()
        proc.kill()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--silent", type=int, default=1100)
    ap.add_argument("--wait", type=float, default=20.0)
    ap.add_argument("binaries", nargs="+")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = a.silent + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    print(f"server fd limit {FD_LIMIT}, {a.silent} silent loopback connections, "
          f"then one authorized initialize (waits up to {a.wait:.0f} s)")
    for b in a.binaries:
        print(f"{b}: {run(b, a.silent, a.wait)}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
