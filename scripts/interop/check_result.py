"""Checks one MCP Inspector CLI `--format json` result read from stdin.

Usage: check_result.py ok            the tool result is not an error
       check_result.py device        prints the first device id of mobile_list_available_devices
       check_result.py tools N       a tools/list result with at least N tools
       check_result.py screenshot    one image whose decoded size matches the caption
"""

import base64
import json
import re
import struct
import sys


def image_size(data: bytes) -> tuple[int, int]:
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


def main() -> int:
    mode = sys.argv[1]
    doc = json.load(sys.stdin)
    result = doc.get("result", doc)
    if mode == "tools":
        tools = result["tools"]
        assert len(tools) >= int(sys.argv[2]), len(tools)
        print(f"tools: {len(tools)}")
        return 0
    assert not result.get("isError"), result
    text = "\n".join(c.get("text", "") for c in result.get("content", []) if c["type"] == "text")
    if mode == "device":
        devices = (result.get("structuredContent") or {}).get("devices") or []
        assert devices, text
        print(devices[0]["id"])
    elif mode == "screenshot":
        images = [c for c in result["content"] if c["type"] == "image"]
        assert len(images) == 1, result["content"]
        w, h = image_size(base64.b64decode(images[0]["data"]))
        m = re.search(r"Screenshot is (\d+)x(\d+)", text)
        assert m and (int(m.group(1)), int(m.group(2))) == (w, h), (text, w, h)
        print(f"screenshot: {images[0]['mimeType']} {w}x{h}")
    else:
        print(text.splitlines()[0] if text else "ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
