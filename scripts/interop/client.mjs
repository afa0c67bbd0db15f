// TypeScript SDK (@modelcontextprotocol/sdk 1.x) client for scripts/interop.sh.
//
// Usage: node client.mjs [--demo] [--token T] stdio CMD [ARGS...]
//        node client.mjs [--demo] [--token T] http URL
//
// Initializes, lists the tools, calls mobile_list_available_devices; with --demo also
// lists the demo phone's apps, takes a screenshot (decodes it and checks its size
// against the caption) and taps. Exits non-zero on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function imageSize(buf) {
  if (buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return [buf.readUInt32BE(16), buf.readUInt32BE(20)];
  }
  if (buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) { i += 1; continue; }
      const marker = buf[i + 1];
      const len = buf.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xc2) return [buf.readUInt16BE(i + 7), buf.readUInt16BE(i + 5)];
      i += 2 + len;
    }
  }
  throw new Error("not a PNG or JPEG");
}

const texts = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
function check(cond, what) { if (!cond) throw new Error(`check failed: ${what}`); }

const args = process.argv.slice(2);
let demo = false;
let token;
while (args.length && args[0].startsWith("--")) {
  const flag = args.shift();
  if (flag === "--demo") demo = true;
  else if (flag === "--token") token = args.shift();
}
const [mode, target, ...rest] = args;
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(target), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
    })
  : new StdioClientTransport({ command: target, args: rest, stderr: "inherit" });
const client = new Client({ name: "interop-ts", version: "1.0.0" });
await client.connect(transport);
console.log("server:", client.getServerVersion()?.name, "proto:", transport.protocolVersion ?? "(stdio)");
const { tools } = await client.listTools();
check(tools.some((t) => t.name === "mobile_list_available_devices"), "tool listed");
console.log("tools:", tools.length);
const devices = await client.callTool({ name: "mobile_list_available_devices", arguments: {} });
check(!devices.isError, texts(devices));
console.log("devices:", texts(devices).split("\n")[0]);
if (demo) {
  const found = devices.structuredContent?.devices ?? [];
  check(found.length > 0, `the demo phone is listed: ${texts(devices)}`);
  const device = found[0].id;
  const apps = await client.callTool({ name: "mobile_list_apps", arguments: { device } });
  check(!apps.isError && texts(apps).includes("com.example.notes"), texts(apps));
  console.log("apps: ok");
  const shot = await client.callTool({ name: "mobile_take_screenshot", arguments: { device } });
  check(!shot.isError, texts(shot));
  const images = shot.content.filter((c) => c.type === "image");
  check(images.length === 1, "one image");
  const [w, h] = imageSize(Buffer.from(images[0].data, "base64"));
  const m = texts(shot).match(/Screenshot is (\d+)x(\d+)/);
  check(m && Number(m[1]) === w && Number(m[2]) === h, `caption ${texts(shot)} vs ${w}x${h}`);
  console.log(`screenshot: ${images[0].mimeType} ${w}x${h}`);
  const tap = await client.callTool({
    name: "mobile_click_on_screen_at_coordinates",
    arguments: { device, x: 100, y: 200 },
  });
  check(!tap.isError, texts(tap));
  console.log("tap: ok");
}
await client.close();
process.exit(0);
