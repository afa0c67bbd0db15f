#!/usr/bin/env python3
"""Agent-task benchmark: classic (act, then list elements) vs act-and-observe.

Scripted tasks on the living virtual phone (the Shop app: transitions, late content, a
snackbar, a fling list, a keyboard-panning form, a spinner). Each task runs two ways:

- classic: every action with `observe: "none", settleTimeoutMs: 0`, then
  `mobile_list_elements_on_screen`; the agent acts by ref from the last list, and lists
  again (each call counted) while its target is not in the list yet;
- new: act and observe (defaults), selectors (`text`/`id`), `mobile_wait_for` where the
  task waits.

with and without the mid-range latency profile. Per task and way it reports tool calls,
bytes of tool results the model reads (text lengths + image base64 lengths), wall time
(time inside tool calls) and wrong-element actions, judged after each action from the
phone's own state read over adb (`dumpsys activity activities`: the resumed activity) and
at the end of the task from a `uiautomator dump` taken by the judge (fields filled, rows
shown); the judge's calls are not counted and not timed. Not a test: it prints a table
for docs/performance.md.

    scripts/agent-bench.py [--quick] [--server BIN] [--phone BIN] [--runs N] [--json FILE]

`--quick`: two tasks, no latency profile (a smoke run; exits non-zero when a task does not
reach its end state or an action hit the wrong element). Binaries default to
$CARGO_TARGET_DIR/debug (or target/debug). The Shop scenario is the virtual phone's
`living::scenario::living_state()`, served by `virtual-phone --living`; the latency profile
is `--latency 34` (a mid-range phone on SDK 34, `living::latency`). Loopback only: a private adb server on an ephemeral port with its own HOME;
every process is killed at the end, every call has a timeout.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHOP = "com.example.shop"
CALL_TIMEOUT = 30.0  # seconds per tool call
MAX_LISTS = 40
TURN_MS = 300  # --turn-ms
VERBOSE = False  # a classic agent gives up re-listing after this many lists for one target
# What each screen does when entered (living/scenario.rs): its own transition time, ms.
TRANSITION_MS = {"main": 500, "detail": 300, "checkout": 300, "share": 300, "done": 300,
                 "live": 300}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Failed(Exception):
    pass


# ---------------------------------------------------------------- processes and the judge

class Adb:
    """A private adb server on loopback with its own HOME."""

    def __init__(self):
        self.home = tempfile.mkdtemp(prefix="agent-bench-")
        self.env = dict(os.environ, HOME=self.home)
        self.port = free_port()
        self.adb = os.environ.get("ADB", "adb")
        self.run("start-server")

    def run(self, *args, serial=None, timeout=30):
        argv = [self.adb, "-P", str(self.port)] + (["-s", serial] if serial else []) + list(args)
        out = subprocess.run(argv, env=self.env, capture_output=True, timeout=timeout)
        return out.stdout.decode(errors="replace")

    def close(self):
        try:
            self.run("kill-server", timeout=10)
        finally:
            shutil.rmtree(self.home, ignore_errors=True)


class Phone:
    """One virtual phone serving the Shop scenario, connected to the private adb server."""

    def __init__(self, binary, adb, sdk):
        self.adb = adb
        port = free_port()
        while 5555 <= port <= 5585:
            port = free_port()
        self.proc = subprocess.Popen(
            [binary, "--port", str(port), "--living"]
            + (["--latency", str(sdk)] if sdk else [])
            + ["--adb-connect", str(adb.port)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=adb.env, text=True)
        self.serial = f"127.0.0.1:{port}"
        lines = []
        end = time.monotonic() + 30
        while time.monotonic() < end:
            line = self.proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "connected to" in line:
                return
        self.close()
        raise Failed(f"virtual phone did not connect: {lines}")

    def resumed(self):
        """The screen in front, judged from the phone: `detail`, `main`, … or the activity."""
        out = self.adb.run("shell", "dumpsys activity activities", serial=self.serial)
        m = re.search(r"mResumedActivity: .*? (\S+)/(\S+?)[ }]", out)
        if not m:
            return "?"
        act = m.group(2).rsplit(".", 1)[-1]
        names = {"MainActivity": "main", "DetailActivity": "detail",
                 "CheckoutActivity": "checkout", "ShareActivity": "share",
                 "DoneActivity": "done", "LiveActivity": "live"}
        return names.get(act, act) if m.group(1) == SHOP else m.group(1)

    def tree(self):
        """The phone's own uiautomator dump (text and resource-id of every node)."""
        out = self.adb.run("exec-out", "uiautomator dump /dev/tty", serial=self.serial,
                           timeout=60)
        nodes = []
        for node in re.findall(r"<node [^>]*>", out):
            attr = dict(re.findall(r'([a-z-]+)="([^"]*)"', node))
            nodes.append((attr.get("text", ""), attr.get("resource-id", "")))
        return nodes

    def close(self):
        try:
            self.adb.run("disconnect", self.serial, timeout=10)
        except Exception:
            pass
        self.proc.kill()
        self.proc.wait(timeout=10)


class Server:
    """mobile-mcp on stdio, one JSON-RPC request at a time, each bounded."""

    def __init__(self, binary, adb):
        self.proc = subprocess.Popen(
            [binary, "--adb-server", f"127.0.0.1:{adb.port}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=dict(adb.env, RUST_LOG="error", MOBILE_MCP_XCRUN="/nonexistent/xcrun"),
            text=True)
        self.next_id = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "agent-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def rpc(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        got = {}

        def read():
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    return
                msg = json.loads(line)
                if msg.get("id") == rid:
                    got["r"] = msg
                    return

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(CALL_TIMEOUT)
        if "r" not in got:
            raise Failed(f"{method} timed out or the server exited")
        if "error" in got["r"]:
            raise Failed(f"{method}: {got['r']['error']}")
        return got["r"]["result"]

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)


# ---------------------------------------------------------------- the two agents

class Agent:
    """Counts what a model would see; subclasses decide how to act and look."""

    def __init__(self, server, phone, stats):
        self.s, self.phone, self.st = server, phone, stats
        self.dev = phone.serial

    def call(self, name, **args):
        if self.st["calls"]:
            time.sleep(TURN_MS / 1000)  # the model's turn between two calls
        args["device"] = self.dev
        t0 = time.monotonic()
        r = self.s.rpc("tools/call", {"name": name, "arguments": args})
        self.st["ms"] += (time.monotonic() - t0) * 1000
        self.st["calls"] += 1
        for c in r.get("content", []):
            if c.get("type") == "text":
                self.st["bytes"] += len(c["text"].encode())
            elif c.get("type") == "image":
                self.st["bytes"] += len(c.get("data", ""))
        sc = r.get("structuredContent") or {}
        settle = sc.get("settle")
        if settle and name != "mobile_wait_for":
            self.st["settles"].append((name, settle.get("settled"), settle.get("waitedMs", 0)))
            self.st["signals"].append(settle.get("signal", "?"))
        if VERBOSE:
            first = (r.get("content") or [{}])[0].get("text", "")[:90].replace("\n", " | ")
            print(f"    {time.monotonic() - t0:7.3f}s {name} {args} -> {first!r}"
                  f" settle={settle}", flush=True)
        return r

    def judge(self, expect):
        """After an action: the phone's resumed screen against the intended one."""
        if expect is None:
            return
        got = self.phone.resumed()
        if got != expect:
            self.st["wrong"] += 1
            self.st["notes"].append(f"expected {expect}, phone shows {got}")


def matches(e, text=None, id=None):
    if text is not None and e.get("text") != text:
        return False
    if id is not None and not (e.get("identifier") or "").endswith(":id/" + id):
        return False
    return True


class Classic(Agent):
    """Acts quietly, then lists elements; re-lists until its target shows; acts by ref."""

    way = "classic"
    quiet = {"observe": "none", "settleTimeoutMs": 0}

    def __init__(self, *a):
        super().__init__(*a)
        self.elements = []

    def look(self):
        r = self.call("mobile_list_elements_on_screen")
        self.elements = (r.get("structuredContent") or {}).get("elements", [])
        return self.elements

    def find(self, text=None, id=None):
        for _ in range(MAX_LISTS):
            hits = [e for e in self.elements if matches(e, text, id)]
            if hits:
                return hits[0]
            self.look()
        raise Failed(f"classic: {text or id} never showed")

    def gone(self, text):
        for _ in range(MAX_LISTS):
            if not any(matches(e, text) for e in self.elements):
                return
            self.look()
        raise Failed(f"classic: {text} never went")

    def launch(self, expect="main"):
        self.call("mobile_launch_app", packageName=SHOP, **self.quiet)
        self.judge(expect)
        self.look()

    def tap(self, expect, text=None, id=None):
        e = self.find(text, id)
        self.call("mobile_click_on_screen_at_coordinates", ref=e["ref"], **self.quiet)
        self.judge(expect)
        self.look()

    def type(self, text, expect):
        self.call("mobile_type_keys", text=text, submit=False, **self.quiet)
        self.judge(expect)
        self.look()

    def button(self, name, expect):
        self.call("mobile_press_button", button=name, **self.quiet)
        self.judge(expect)
        self.look()

    def swipe_until(self, text, expect):
        for _ in range(10):
            if any(matches(e, text) for e in self.elements):
                return
            self.call("mobile_swipe_on_screen", direction="up", **self.quiet)
            self.judge(expect)
            self.look()
        raise Failed(f"classic: {text} not reached by scrolling")

    def wait_text(self, text):
        self.find(text)

    def wait_gone(self, text):
        self.gone(text)


class New(Agent):
    """Acts and observes (defaults), names elements by selectors, waits with mobile_wait_for."""

    way = "new"

    def __init__(self, *a):
        super().__init__(*a)
        self.screen = {}
        self.at = "home"

    def acted(self, r, expect, transition=None):
        """Notes the screen's own transition time next to the settle wait it caused."""
        if expect != self.at:
            transition = TRANSITION_MS.get(expect)
        self.at = expect or self.at
        if self.st["settles"] and len(self.st["settles"][-1]) == 3:
            self.st["settles"][-1] = self.st["settles"][-1] + (transition,)
        self.seen(r)
        self.judge(expect)

    def seen(self, r):
        """Keeps the screen the change lists describe (by ref)."""
        sc = r.get("structuredContent") or {}
        ch = sc.get("changes")
        if ch is not None:
            if ch.get("newScreen"):
                self.screen = {}
            for e in ch.get("removed", []):
                self.screen.pop(e.get("ref"), None)
            for e in ch.get("added", []) + ch.get("changed", []):
                self.screen[e.get("ref")] = e
        if isinstance(sc.get("elements"), list):
            self.screen = {e.get("ref"): e for e in sc["elements"]}

    def shows(self, text=None, id=None):
        return any(matches(e, text, id) for e in self.screen.values())

    def launch(self, expect="main"):
        self.acted(self.call("mobile_launch_app", packageName=SHOP), expect)

    def tap(self, expect, text=None, id=None):
        if not self.shows(text, id):
            self.wait_text(text, id)
        sel = {"text": text} if text is not None else {"id": id}
        r = self.call("mobile_click_on_screen_at_coordinates", **sel)
        if r.get("isError"):
            raise Failed(f"new: tap {sel}: {r['content'][0]['text'][:200]}")
        # A snackbar slides in over 250 ms; the soft keyboard over 275 ms.
        self.acted(r, expect, 250 if text == "Add to cart" else
                   275 if (id or "").endswith("_input") else None)

    def type(self, text, expect):
        self.acted(self.call("mobile_type_keys", text=text, submit=False), expect)

    def button(self, name, expect):
        self.acted(self.call("mobile_press_button", button=name), expect)

    def swipe_until(self, text, expect):
        for _ in range(10):
            if self.shows(text):
                return
            # A fling runs 300 ms after the finger lifts.
            self.acted(self.call("mobile_swipe_on_screen", direction="up"), expect, 300)
        raise Failed(f"new: {text} not reached by scrolling")

    def wait_text(self, text, id=None):
        if self.shows(text, id):
            return
        sel = {"text": text} if text is not None else {"id": id}
        r = self.call("mobile_wait_for", until="exists", timeoutMs=10000, **sel)
        if r.get("isError"):
            raise Failed(f"new: wait for {sel}: {r['content'][0]['text'][:200]}")

    def wait_gone(self, text):
        r = self.call("mobile_wait_for", until="gone", text=text, timeoutMs=10000)
        if r.get("isError"):
            raise Failed(f"new: wait gone {text}: {r['content'][0]['text'][:200]}")
        self.screen = {k: e for k, e in self.screen.items() if e.get("text") != text}


# ---------------------------------------------------------------- the tasks

def fields(phone):
    return {rid.rsplit("/", 1)[-1]: text for text, rid in phone.tree() if rid}


def texts(phone):
    return {text for text, _ in phone.tree()}


def t_open(a):
    """Open the Shop and see its product list (late content)."""
    a.launch()
    a.wait_text("Product 1")
    return lambda p: p.resumed() == "main" and "Product 1" in texts(p)


def t_pick(a):
    """Open the Shop and pick a result (Product 3)."""
    a.launch()
    a.tap("detail", text="Product 3")
    return lambda p: p.resumed() == "detail"


def t_search(a):
    """Search: focus the search field (the keyboard pans) and type a query."""
    a.launch()
    a.tap("main", id="search_input")
    a.type("shoes", "main")
    return lambda p: fields(p).get("search_input") == "shoes"


def t_scroll(a):
    """Scroll to Product 18 (flings) and open it."""
    a.launch()
    a.wait_text("Product 1")
    a.swipe_until("Product 18", "main")
    a.tap("detail", text="Product 18")
    return lambda p: p.resumed() == "detail"


def t_snackbar(a):
    """Add to cart and wait for the snackbar to go."""
    a.launch()
    a.tap("detail", text="Product 2")
    a.tap("detail", text="Add to cart")
    a.wait_text("Added to cart")
    a.wait_gone("Added to cart")
    return lambda p: p.resumed() == "detail" and "Added to cart" not in texts(p)


def t_buy_moving(a):
    """Add to cart, then Buy now while the snackbar pushes the buttons down."""
    a.launch()
    a.tap("detail", text="Product 1")
    a.tap("detail", text="Add to cart")
    a.tap("checkout", text="Buy now")
    return lambda p: p.resumed() == "checkout"


def t_share(a):
    """Open a product and share it."""
    a.launch()
    a.tap("detail", text="Product 4")
    a.tap("share", text="Share")
    a.wait_text("Link copied")
    return lambda p: p.resumed() == "share"


def t_back(a):
    """Open a product, go back with its Back button, open another."""
    a.launch()
    a.tap("detail", text="Product 5")
    a.tap("main", text="Back")
    a.tap("detail", text="Product 6")
    return lambda p: p.resumed() == "detail"


def checkout(a):
    a.launch()
    a.tap("detail", text="Product 1")
    a.tap("checkout", text="Buy now")


def t_form(a):
    """Fill the checkout form's name, city and postal code (the keyboard pans the form)."""
    checkout(a)
    for fid, value in (("name_input", "Ada"), ("city_input", "Paris"), ("zip_input", "75001")):
        a.tap("checkout", id=fid)
        a.type(value, "checkout")
    want = {"name_input": "Ada", "city_input": "Paris", "zip_input": "75001"}
    return lambda p: all(fields(p).get(k) == v for k, v in want.items())


def t_order(a):
    """Fill the name, close the keyboard with BACK, place the order."""
    checkout(a)
    a.tap("checkout", id="name_input")
    a.type("Ada", "checkout")
    a.button("BACK", "checkout")
    a.tap("done", text="Place order")
    a.wait_text("Order placed")
    return lambda p: p.resumed() == "done"


def t_live(a):
    """Open the Live screen (a spinner that never stops) and read it."""
    a.launch()
    a.tap("live", text="Live")
    a.wait_text("Live now")
    return lambda p: p.resumed() == "live"


TASKS = [("open app", t_open), ("pick a result", t_pick), ("search", t_search),
         ("scroll to an item", t_scroll), ("snackbar goes", t_snackbar),
         ("buy while layout moves", t_buy_moving), ("share", t_share),
         ("go back", t_back), ("fill a form", t_form), ("place order", t_order),
         ("spinner screen", t_live)]
QUICK = ["pick a result", "snackbar goes"]


# ---------------------------------------------------------------- running

def run_one(args, adb, sdk, task, way):
    st = {"calls": 0, "bytes": 0, "ms": 0.0, "task_ms": 0.0, "wrong": 0, "settles": [], "signals": [], "notes": [],
          "ok": False}
    phone = Phone(args.phone, adb, sdk)
    server = None
    try:
        server = Server(args.server, adb)
        agent = (Classic if way == "classic" else New)(server, phone, st)
        t0 = time.monotonic()
        try:
            check = task(agent)
            st["task_ms"] = (time.monotonic() - t0) * 1000
            st["ok"] = bool(check(phone))
            if not st["ok"]:
                st["notes"].append("final state wrong")
        except Failed as e:
            st["notes"].append(str(e))
    finally:
        if server:
            server.close()
        phone.close()
    return st


def main():
    global TURN_MS, VERBOSE
    # A SIGTERM (from `timeout`) unwinds like ^C, so the phones and the adb server go too.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    tgt = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))
    ap.add_argument("--server", default=os.path.join(tgt, "debug", "mobile-mcp"))
    ap.add_argument("--phone", default=os.path.join(tgt, "debug", "virtual-phone"))
    ap.add_argument("--quick", action="store_true", help="two tasks, no latency profile")
    ap.add_argument("--runs", type=int, default=1, help="runs per task, way and profile")
    ap.add_argument("--json", help="write every run's figures here")
    ap.add_argument("--turn-ms", type=int, default=TURN_MS,
                    help="the model's turn between two tool calls (slept, not timed)")
    ap.add_argument("--only", help="run only tasks whose name contains this")
    ap.add_argument("--profile", choices=["none", "sdk34"], help="only this latency profile")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every call")
    args = ap.parse_args()
    TURN_MS, VERBOSE = args.turn_ms, args.verbose
    profiles = [("none", None), ("sdk34", 34)]
    if args.quick or args.profile:
        profiles = [p for p in profiles if p[0] == (args.profile or "none")]
    tasks = [t for t in TASKS if (not args.quick or t[0] in QUICK)
             and (not args.only or args.only in t[0])]
    adb = Adb()
    rows, failures = [], 0
    print(f"turn between calls: {TURN_MS} ms; server {args.server}")
    print(HEADER)
    try:
        for pname, lat in profiles:
            for tname, task in tasks:
                res = {}
                for way in ("classic", "new"):
                    runs = [run_one(args, adb, lat, task, way) for _ in range(args.runs)]
                    res[way] = runs
                    failures += sum(not r["ok"] for r in runs)
                rows.append((pname, tname, res))
                print_row(pname, tname, res)
    finally:
        adb.close()
    summary(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"profile": p, "task": t, "runs": r} for p, t, r in rows], f, indent=1)
    wrong = sum(r["wrong"] for _, _, res in rows for runs in res.values() for r in runs)
    if failures or wrong:
        print(f"{failures} run(s) did not reach the task's end state; "
              f"{wrong} wrong-element action(s)", file=sys.stderr)
        sys.exit(1)


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else 0


def agg(runs):
    return {k: med([r[k] for r in runs]) for k in ("calls", "bytes", "ms", "task_ms", "wrong")} | {
        "ok": all(r["ok"] for r in runs),
        "notes": sorted({n for r in runs for n in r["notes"]}),
        "settles": [s for r in runs for s in r["settles"]],
        "signals": [s for r in runs for s in r.get("signals", [])]}


HEADER = ("| profile | task | calls classic | calls new | fewer calls | bytes classic | "
          "bytes new | tool ms classic | tool ms new | task ms classic | task ms new | "
          "wrong (classic / new) | end state (classic / new) |\n"
          "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|:-:|")


def print_row(pname, tname, res):
    c, n = agg(res["classic"]), agg(res["new"])
    fewer = 100 * (1 - n["calls"] / c["calls"]) if c["calls"] else 0
    print(f"| {pname} | {tname} | {c['calls']} | {n['calls']} | {fewer:.0f}% | "
          f"{c['bytes']} | {n['bytes']} | {c['ms']:.0f} | {n['ms']:.0f} | "
          f"{c['task_ms']:.0f} | {n['task_ms']:.0f} | "
          f"{c['wrong']} / {n['wrong']} | {'ok' if c['ok'] else 'FAIL'} / "
          f"{'ok' if n['ok'] else 'FAIL'} |", flush=True)
    for way, a in (("classic", c), ("new", n)):
        for note in a["notes"]:
            print(f"  {way}: {note}", flush=True)


def summary(rows):
    print()
    for pname in sorted({p for p, _, _ in rows}):
        sub = [r for r in rows if r[0] == pname]
        fewer = [1 - agg(r["new"])["calls"] / agg(r["classic"])["calls"] for _, _, r in sub]
        wrong = sum(agg(r[w])["wrong"] for _, _, r in sub for w in ("classic", "new"))
        settles = [s[2] for _, _, r in sub for s in agg(r["new"])["settles"] if s[1]]
        ratios = [s[2] / s[3] for _, _, r in sub for s in agg(r["new"])["settles"]
                  if s[1] and len(s) > 3 and s[3]]
        unsettled = sum(1 for _, _, r in sub for s in agg(r["new"])["settles"] if not s[1])
        print(f"profile {pname}: fewer calls per task min {100 * min(fewer):.0f}% "
              f"median {100 * med(fewer):.0f}%; wrong-element actions {wrong}; "
              f"settle waits (new way, ms) median {med(settles)} max {max(settles or [0])}; "
              f"settle wait / the screen's own transition: median {med(ratios):.2f}x "
              f"max {max(ratios or [0]):.2f}x over {len(ratios)} actions; "
              f"not settled within the bound: {unsettled}")
        signals = {}
        for _, _, r in sub:
            for sig in agg(r["new"])["signals"]:
                signals[sig] = signals.get(sig, 0) + 1
        print("  settle signal: " + ", ".join(f"{k} x{v}" for k, v in sorted(signals.items())))
        by = {}
        for _, _, r in sub:
            for s in agg(r["new"])["settles"]:
                if s[1] and len(s) > 3 and s[3]:
                    by.setdefault(s[3], []).append(s[2])
        for tr in sorted(by):
            w = by[tr]
            print(f"  transition {tr} ms: settle waited median {med(w)} ms "
                  f"({med(w) / tr:.2f}x), range {min(w)}-{max(w)} ms over {len(w)} actions")


if __name__ == "__main__":
    main()
