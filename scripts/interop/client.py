"""Python MCP SDK (`mcp` 2.x) client for scripts/interop.sh.

Usage: client.py [--demo] [--filtered] [--token T] stdio CMD [ARGS...]
       client.py [--demo] [--filtered] [--token T] http URL

Initializes, lists the tools, calls mobile_list_available_devices; with --demo also
lists the demo phone's apps, takes a screenshot (decodes it and checks its size
against the caption) and taps. With --filtered (a server run with
MCP_MODEL_PAYLOAD_FILTER=1 and --demo) it also checks that the demo's app list, which
names vendor terms, reaches the client only in token form. Exits non-zero on the first
failure.
"""

import asyncio
import base64
import re
import struct
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG or JPEG."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", data[16:24])
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            length = struct.unpack(">H", data[i + 2 : i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                return w, h
            i += 2 + length
    raise ValueError("not a PNG or JPEG")


def texts(result) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


# A few of the filtered terms that the demo phone's app list contains.
DEMO_TERMS = ("qwen", "alibaba")


async def exercise(session: ClientSession, demo: bool, filtered: bool) -> None:
    init = await session.initialize()
    print(f"server: {init.server_info.name} {init.protocol_version}")
    tools = await session.list_tools()
    names = [t.name for t in tools.tools]
    assert "mobile_list_available_devices" in names, names
    print(f"tools: {len(names)}")
    devices = await session.call_tool("mobile_list_available_devices", {})
    assert not devices.is_error, texts(devices)
    print(f"devices: {texts(devices).splitlines()[0]}")
    if not demo:
        return
    found = (devices.structured_content or {}).get("devices") or []
    assert found, f"the demo phone is not listed: {texts(devices)}"
    device = found[0]["id"]
    apps = await session.call_tool("mobile_list_apps", {"device": device})
    assert not apps.is_error and "com.example.notes" in texts(apps), texts(apps)
    print("apps: ok")
    if filtered:
        dump = apps.model_dump_json(by_alias=True).lower()
        assert not any(t in dump for t in DEMO_TERMS), dump
        assert "__mcp_ref_" in dump, dump
        print("filter: the app list carries tokens, no terms")
    shot = await session.call_tool("mobile_take_screenshot", {"device": device})
    assert not shot.is_error, texts(shot)
    images = [c for c in shot.content if c.type == "image"]
    assert len(images) == 1, shot.content
    w, h = image_size(base64.b64decode(images[0].data))
    m = re.search(r"Screenshot is (\d+)x(\d+)", texts(shot))
    assert m and (int(m.group(1)), int(m.group(2))) == (w, h), (texts(shot), w, h)
    print(f"screenshot: {images[0].mime_type} {w}x{h}")
    tap = await session.call_tool(
        "mobile_click_on_screen_at_coordinates", {"device": device, "x": 100, "y": 200}
    )
    assert not tap.is_error, texts(tap)
    print("tap: ok")


async def main(argv: list[str]) -> int:
    demo = False
    filtered = False
    token = None
    while argv and argv[0].startswith("--"):
        flag = argv.pop(0)
        if flag == "--demo":
            demo = True
        elif flag == "--filtered":
            filtered = True
        elif flag == "--token":
            token = argv.pop(0)
    mode, target, *rest = argv
    if mode == "stdio":
        params = StdioServerParameters(command=target, args=rest)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, demo, filtered)
    else:
        import httpx2

        headers = {"Authorization": f"Bearer {token}"} if token else None
        async with httpx2.AsyncClient(headers=headers, trust_env=False, timeout=60) as http:
            async with streamable_http_client(target, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await exercise(session, demo, filtered)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
