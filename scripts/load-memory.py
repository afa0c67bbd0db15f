#!/usr/bin/env python3
"""Resident memory of mobile-mcp under a burst of heavy calls (issue #26, item 9).

Starts a virtual phone (`virtual-phone`, its own process) registered with a private adb
server on loopback, and the server on stdio pointed at that adb server. Then: the
server's resident memory idle after `initialize`, after a few sequential screenshots,
the peak (sampled every 10 ms, and the kernel's VmHWM) during a burst of CALLS
full-size screenshots (`maxSize` 2400, the phone's own size) sent at once, and after.
Every reply is checked (an image, no error). Not a test: it prints the figures, for
docs/performance.md.

    scripts/load-memory.py [--calls N] [--server BIN] [--phone BIN]

Defaults: 150 calls, target/debug/mobile-mcp (or $MOBILE_MCP_BIN), target/debug/virtual-phone.
Bounded: every wait has a limit, and the whole run stops after 300 s. Everything it
starts (phone, adb server, mobile-mcp) is stopped at the end, by its own PID or port.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port != 5037 and not 5555 <= port <= 5585:
            return port


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


class Adb:
    def __init__(self):
        self.home = tempfile.mkdtemp(prefix="load-memory-")
        self.env = dict(os.environ, HOME=self.home)
        self.port = free_port()
        self.adb = os.environ.get("ADB", "adb")
        self.run("start-server")

    def run(self, *args, timeout=30):
        argv = [self.adb, "-P", str(self.port)] + list(args)
        return subprocess.run(argv, env=self.env, capture_output=True, timeout=timeout)

    def close(self):
        try:
            self.run("kill-server", timeout=10)
        finally:
            shutil.rmtree(self.home, ignore_errors=True)


class Server:
    """mobile-mcp on stdio; replies are read by one thread and matched by id."""

    def __init__(self, binary, adb_port, env):
        self.proc = subprocess.Popen(
            [binary, "--adb-server", f"127.0.0.1:{adb_port}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=dict(env, RUST_LOG="error", MOBILE_MCP_XCRUN="/nonexistent/xcrun"))
        self.replies = {}
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            with self.cv:
                self.replies[msg.get("id")] = msg
                self.cv.notify_all()

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, ids, limit):
        end = time.monotonic() + limit
        with self.cv:
            while not all(i in self.replies for i in ids):
                left = end - time.monotonic()
                if left <= 0:
                    raise SystemExit(f"timed out waiting for {len(ids)} replies")
                self.cv.wait(left)
            return [self.replies.pop(i) for i in ids]

    def call(self, name, args, limit=60):
        rid = self.request("tools/call", {"name": name, "arguments": args})
        return self.wait([rid], limit)[0]

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)


def image_ok(reply):
    result = reply.get("result") or {}
    return not result.get("isError") and any(
        c.get("type") == "image" for c in result.get("content", []))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.path.join(here, "..", "target", "debug")
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=150)
    p.add_argument("--server", default=os.environ.get(
        "MOBILE_MCP_BIN", os.path.join(target, "mobile-mcp")))
    p.add_argument("--phone", default=os.path.join(target, "virtual-phone"))
    args = p.parse_args()
    signal.alarm(300)

    adb = Adb()
    phone = server = None
    try:
        port = free_port()
        phone = subprocess.Popen(
            [args.phone, "--port", str(port), "--adb-connect", str(adb.port)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=adb.env, text=True)
        serial = f"127.0.0.1:{port}"
        end = time.monotonic() + 30
        while time.monotonic() < end:
            line = phone.stdout.readline()
            if not line or "connected to" in line:
                break
        server = Server(args.server, adb.port, adb.env)
        server.wait([server.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "load-memory", "version": "1"}})], 60)
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for _ in range(100):
            r = server.call("mobile_list_available_devices", {})
            if any(d.get("id") == serial and d.get("state") == "online"
                   for d in r["result"].get("structuredContent", {}).get("devices", [])):
                break
            time.sleep(0.1)
        pid = server.proc.pid
        idle = status_kib(pid, "VmRSS")
        shot = {"device": serial, "maxSize": 2400}
        for _ in range(3):
            if not image_ok(server.call("mobile_take_screenshot", shot)):
                raise SystemExit("a warm-up screenshot failed")
        warm = status_kib(pid, "VmRSS")
        hwm_before = status_kib(pid, "VmHWM")

        peak = [warm]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], status_kib(pid, "VmRSS"))
                time.sleep(0.01)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.monotonic()
        ids = [server.request("tools/call", {"name": "mobile_take_screenshot", "arguments": shot})
               for _ in range(args.calls)]
        replies = server.wait(ids, 240)
        took = time.monotonic() - started
        stop.set()
        sampler.join()
        after = status_kib(pid, "VmRSS")
        time.sleep(2)
        settled = status_kib(pid, "VmRSS")
        hwm = status_kib(pid, "VmHWM")
        ok = sum(1 for r in replies if image_ok(r))

        print(f"server: {args.server}")
        print(f"burst: {args.calls} full-size screenshots at once, {ok} with an image, "
              f"{len(replies) - ok} failed, {took:.1f} s")
        print(f"RSS idle {mib(idle)}, after 3 screenshots {mib(warm)} (HWM {mib(hwm_before)})")
        print(f"RSS peak during the burst {mib(peak[0])} (HWM {mib(hwm)}), "
              f"added {mib(max(peak[0], hwm) - warm)}")
        print(f"RSS after the burst {mib(after)}, 2 s later {mib(settled)}")
        if ok != args.calls:
            sys.exit(1)
    finally:
        if server:
            server.close()
        if phone:
            phone.kill()
            phone.wait(timeout=10)
        adb.close()


if __name__ == "__main__":
    main()
