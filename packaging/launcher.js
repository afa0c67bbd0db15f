#!/usr/bin/env node
// Starts this platform's mobile-mcp binary with the arguments, standard streams and exit
// status of this process. It is the `bin` of the npm launcher package and the `server`
// entry of the MCP Bundle (scripts/package.sh puts it in both); it is not the server and
// reads nothing but its own package's layout.
//
// - npm: the binary is in the platform package (NAME-PLATFORM-ARCH), one of the launcher's
//   exact-version optionalDependencies, of which npm installs only the one whose os/cpu
//   fit. If it is missing, one line says which package to install.
// - MCP Bundle: the binary is beside this file, in PLATFORM-ARCH/. Claude Desktop on macOS
//   unpacks bundle files without their executable bit (modelcontextprotocol/mcpb#294), so
//   the bit is set here before the start. MOBILE_MCP_DEMO=true (the bundle's "demo"
//   setting) adds --demo.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const key = `${process.platform}-${process.arch}`;

function fail(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

function bundledBinary() {
  const file = path.join(__dirname, key, "mobile-mcp");
  if (!fs.existsSync(file)) return null;
  if ((fs.statSync(file).mode & 0o111) === 0) fs.chmodSync(file, 0o755);
  return file;
}

function npmBinary() {
  const pkg = require(path.join(__dirname, "..", "package.json"));
  const platforms = Object.keys(pkg.optionalDependencies || {}).map((n) => n.slice(pkg.name.length + 1));
  const name = `${pkg.name}-${key}`;
  if (!platforms.includes(key)) {
    fail(`${pkg.name}: no build for ${key} (built for ${platforms.join(", ")}); build from source with cargo (see the README)`);
  }
  if (process.platform === "linux" && !process.report.getReport().header.glibcVersionRuntime) {
    fail(`${pkg.name}: the Linux build needs glibc 2.17 or newer, and this system's C library is not glibc (musl?); build from source with cargo (see the README)`);
  }
  try {
    return path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", "mobile-mcp");
  } catch {
    fail(`${pkg.name}: the binary for ${key} is missing: install ${name}@${pkg.version} (npm skipped it: optional dependencies turned off?)`);
  }
}

const binary = bundledBinary() || npmBinary();
const args = process.argv.slice(2);
if (process.env.MOBILE_MCP_DEMO === "true" && !args.includes("--demo")) args.push("--demo");
const child = spawn(binary, args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (err) => fail(`cannot start ${binary}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code === null ? 1 : code);
  }
});
