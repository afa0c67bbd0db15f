#!/usr/bin/env python3
"""Assembles mobile-mcp's packages from binaries that are already built.

What it makes, in OUT (default dist/), for the platforms given with --binary:
  npm/NAME-PLATFORM-VERSION.tgz   one npm package per platform: the binary, with os/cpu
                                  (and libc) so npm installs only the fitting one
  npm/NAME-VERSION.tgz            the npm launcher: packaging/launcher.js as its bin, the
                                  platform packages as exact-version optionalDependencies,
                                  no install script (Biome's and esbuild's layout)
  pypi/DIST-VERSION-py3-none-TAG.whl  one wheel per platform with the binary as a script
                                  (what maturin's bindings = "bin" makes), so `uvx` runs it
  NAME-VERSION.mcpb               the MCP Bundle: manifest.json, packaging/launcher.js and
                                  every given binary under server/PLATFORM/
  server.json                     the repository's server.json with the bundle's SHA-256
  SHA256SUMS                      every file above

Names and the version come from the repository's server.json and nowhere else; each
package's version must equal it, and a binary that runs here must print
`mobile-mcp VERSION` for --version. Not for: building binaries (scripts/package.sh and
the release workflow do), publishing anything, or checking the packages
(scripts/package-check.sh). Standard library only, plus `npm pack` and `mcpb`.

Usage: build.py --binary PLATFORM=PATH [--binary ...] [--out DIR] [--mcpb CMD]
PLATFORM is one of linux-x64, linux-arm64, darwin-x64, darwin-arm64.
"""

import argparse
import base64
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LICENSES = ("LICENSE-MIT", "LICENSE-APACHE")

# Platform key -> npm os/cpu/libc and wheel platform tags. Linux binaries are built against
# glibc 2.17 (manylinux2014); macOS ones at Rust's default deployment targets (10.12 for
# x86_64, 11.0 for arm64).
PLATFORMS = {
    "linux-x64": {"os": "linux", "cpu": "x64", "libc": "glibc",
                  "wheel": ["manylinux_2_17_x86_64", "manylinux2014_x86_64"]},
    "linux-arm64": {"os": "linux", "cpu": "arm64", "libc": "glibc",
                    "wheel": ["manylinux_2_17_aarch64", "manylinux2014_aarch64"]},
    "darwin-x64": {"os": "darwin", "cpu": "x64", "wheel": ["macosx_10_12_x86_64"]},
    "darwin-arm64": {"os": "darwin", "cpu": "arm64", "wheel": ["macosx_11_0_arm64"]},
}
# Fixed timestamp for zip entries, so the same binaries give the same wheel and bundle.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


class PackagingError(Exception):
    pass


def host_platform() -> str:
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), platform.system())
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine())
    return f"{system}-{machine}"


def load_server_json() -> dict:
    server = json.loads((ROOT / "server.json").read_text())
    version = server["version"]
    by_type = {}
    for package in server["packages"]:
        if package.get("version") != version:
            raise PackagingError(
                f"server.json: the {package['registryType']} package has version "
                f"{package.get('version')!r}, the server {version!r}")
        by_type[package["registryType"]] = package
    for kind in ("npm", "pypi", "mcpb"):
        if kind not in by_type:
            raise PackagingError(f"server.json names no {kind} package")
    bundle_url = by_type["mcpb"]["identifier"]
    if not bundle_url.endswith(f"/v{version}/{Path(bundle_url).name}"):
        raise PackagingError(f"server.json: the bundle URL {bundle_url} is not for v{version}")
    return {"server": server, "version": version, "npm": by_type["npm"]["identifier"],
            "pypi": by_type["pypi"]["identifier"], "bundle": Path(bundle_url).name}


def check_binary(key: str, path: Path, version: str) -> None:
    if not path.is_file():
        raise PackagingError(f"{key}: {path} is not a file")
    if key != host_platform():
        return  # built for another machine; the release workflow runs it there
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=True)
    if out.stdout.strip() != f"mobile-mcp {version}":
        raise PackagingError(
            f"{path} --version says {out.stdout.strip()!r}, server.json {version!r}")


def common_fields(meta: dict, description: str) -> dict:
    server = meta["server"]
    return {
        "version": meta["version"],
        "description": description,
        "license": "MIT OR Apache-2.0",
        "repository": {"type": "git", "url": f"git+{server['repository']['url']}.git"},
        "homepage": server["repository"]["url"],
    }


def npm_pack(folder: Path, out: Path) -> Path:
    for name in LICENSES:
        shutil.copy(ROOT / name, folder / name)
    result = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(out)],
                            cwd=folder, capture_output=True, text=True, check=True)
    return out / json.loads(result.stdout)[0]["filename"]


def npm_platform_package(meta: dict, key: str, binary: Path, work: Path, out: Path) -> Path:
    spec = PLATFORMS[key]
    folder = work / f"npm-{key}"
    (folder / "bin").mkdir(parents=True)
    target = folder / "bin" / "mobile-mcp"
    shutil.copy(binary, target)
    target.chmod(0o755)
    package = {"name": f"{meta['npm']}-{key}",
               **common_fields(meta, f"The mobile-mcp binary for {key}; installed by {meta['npm']}"),
               "os": [spec["os"]], "cpu": [spec["cpu"]], "files": ["bin/", *LICENSES]}
    if "libc" in spec:
        package["libc"] = [spec["libc"]]
    (folder / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    (folder / "README.md").write_text(
        f"# {package['name']}\n\nThe `mobile-mcp` binary for {key}. Install "
        f"[{meta['npm']}](../{meta['npm']}) instead; it picks this package on {key}.\n")
    return npm_pack(folder, out)


def npm_launcher(meta: dict, work: Path, out: Path) -> Path:
    folder = work / "npm-launcher"
    (folder / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / "launcher.js", folder / "bin" / "mobile-mcp.js")
    (folder / "bin" / "mobile-mcp.js").chmod(0o755)
    name = meta["npm"]
    package = {
        "name": name,
        **common_fields(meta, meta["server"]["description"]),
        "mcpName": meta["server"]["name"],
        "bin": {name: "bin/mobile-mcp.js", "mobile-mcp": "bin/mobile-mcp.js"},
        "files": ["bin/", *LICENSES],
        "engines": {"node": ">=18"},
        # Every platform, so the same launcher works wherever one of them is published.
        "optionalDependencies": {f"{name}-{key}": meta["version"] for key in PLATFORMS},
    }
    (folder / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    shutil.copy(ROOT / "packaging" / "README-package.md", folder / "README.md")
    return npm_pack(folder, out)


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def write_zip(path: Path, entries: list) -> None:
    """entries: (name, bytes, unix mode)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = (0o100000 | mode) << 16
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)


def wheel(meta: dict, key: str, binary: Path, out: Path) -> Path:
    dist = re.sub(r"[-_.]+", "_", meta["pypi"]).lower()
    version = meta["version"]
    tags = [f"py3-none-{tag}" for tag in PLATFORMS[key]["wheel"]]
    info = f"{dist}-{version}.dist-info"
    readme = (ROOT / "packaging" / "README-package.md").read_text()
    metadata = "\n".join([
        "Metadata-Version: 2.4",
        f"Name: {meta['pypi']}",
        f"Version: {version}",
        f"Summary: {meta['server']['description']}",
        f"Project-URL: Source, {meta['server']['repository']['url']}",
        "License-Expression: MIT OR Apache-2.0",
        *(f"License-File: {name}" for name in LICENSES),
        "Description-Content-Type: text/markdown",
        "",
        # The MCP Registry finds the server's name in the package's description.
        readme + f"\n<!-- mcp-name: {meta['server']['name']} -->\n",
    ])
    wheel_file = "\n".join(["Wheel-Version: 1.0", "Generator: mobile-mcp packaging/build.py",
                            "Root-Is-Purelib: false", *(f"Tag: {t}" for t in tags), ""])
    entries = [(f"{dist}-{version}.data/scripts/mobile-mcp", binary.read_bytes(), 0o755),
               (f"{info}/METADATA", metadata.encode(), 0o644),
               (f"{info}/WHEEL", wheel_file.encode(), 0o644)]
    entries += [(f"{info}/licenses/{name}", (ROOT / name).read_bytes(), 0o644) for name in LICENSES]
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data, _ in entries)
    record += f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode(), 0o644))
    path = out / f"{dist}-{version}-py3-none-{'.'.join(PLATFORMS[key]['wheel'])}.whl"
    write_zip(path, entries)
    return path


def bundle(meta: dict, binaries: dict, work: Path, out: Path, mcpb: list) -> Path:
    folder = work / "mcpb"
    (folder / "server").mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / "launcher.js", folder / "server" / "launch.js")
    for key, binary in binaries.items():
        (folder / "server" / key).mkdir()
        target = folder / "server" / key / "mobile-mcp"
        shutil.copy(binary, target)
        target.chmod(0o755)
    for name in LICENSES:
        shutil.copy(ROOT / name, folder / name)
    server = meta["server"]
    manifest = json.loads((ROOT / "packaging" / "manifest.json").read_text())
    manifest.update({
        "name": meta["npm"],
        "display_name": server["title"],
        "version": meta["version"],
        "description": server["description"],
        "repository": {"type": "git", "url": server["repository"]["url"]},
        "homepage": server["repository"]["url"],
    })
    manifest["compatibility"]["platforms"] = sorted({PLATFORMS[k]["os"] for k in binaries})
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    subprocess.run([*mcpb, "validate", str(folder / "manifest.json")], check=True,
                   stdout=sys.stderr)
    path = out / meta["bundle"]
    subprocess.run([*mcpb, "pack", str(folder), str(path)], check=True, stdout=sys.stderr)
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", action="append", required=True, metavar="PLATFORM=PATH")
    parser.add_argument("--out", default=str(ROOT / "dist"))
    parser.add_argument("--mcpb", default="mcpb", help="the mcpb command")
    args = parser.parse_args()

    binaries = {}
    for item in args.binary:
        key, _, path = item.partition("=")
        if key not in PLATFORMS or not path:
            parser.error(f"--binary {item}: PLATFORM=PATH, PLATFORM one of {', '.join(PLATFORMS)}")
        binaries[key] = Path(path).resolve()
    try:
        meta = load_server_json()
        for key, path in binaries.items():
            check_binary(key, path, meta["version"])
        out = Path(args.out).resolve()
        if out.exists():
            shutil.rmtree(out)
        (out / "npm").mkdir(parents=True)
        (out / "pypi").mkdir()
        made = []
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            for key, path in binaries.items():
                made.append(npm_platform_package(meta, key, path, work, out / "npm"))
                made.append(wheel(meta, key, path, out / "pypi"))
            made.append(npm_launcher(meta, work, out / "npm"))
            bundle_path = bundle(meta, binaries, work, out, args.mcpb.split())
            made.append(bundle_path)
        server = meta["server"]
        for package in server["packages"]:
            if package["registryType"] == "mcpb":
                package["fileSha256"] = sha256(bundle_path)
        (out / "server.json").write_text(json.dumps(server, indent=2) + "\n")
        made.append(out / "server.json")
        sums = "".join(f"{sha256(p)}  {p.relative_to(out)}\n" for p in sorted(made))
        (out / "SHA256SUMS").write_text(sums)
    except (PackagingError, subprocess.CalledProcessError, KeyError, OSError) as err:
        print(f"package: {err}", file=sys.stderr)
        return 1
    for path in sorted(made):
        print(f"{path.relative_to(out)}  {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
