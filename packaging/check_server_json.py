#!/usr/bin/env python3
"""Validates server.json files against the MCP Registry's server.json schema.

The schema is the registry's published 2025-12-11 schema
(https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json) as the
PyPI package `skillsaw` ships it, copied byte for byte from the modelcontextprotocol/static
repository (its SCHEMA-SOURCE.md names the revision). It is read from skillsaw's installed
files; skillsaw's code is not imported or run. Each file must also name that schema in
`$schema`, and an `mcpb` package must carry its `fileSha256` in a file under a `dist` folder
(the registry requires it; the committed server.json cannot know it before the build).
A broken copy of each file is validated too and must be refused, so a validator that
accepts anything fails here.

Not for: publishing, or checking that the named packages exist.

Usage: check_server_json.py FILE [FILE ...]   (run with the venv of
scripts/package/install.sh, which has jsonschema and skillsaw)
"""

import copy
import importlib.util
import json
import sys
from pathlib import Path

import jsonschema

SCHEMA_ID = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"


def load_schema() -> dict:
    spec = importlib.util.find_spec("skillsaw")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("check_server_json: skillsaw is not installed (scripts/package/install.sh)")
    base = Path(list(spec.submodule_search_locations)[0])
    schema = json.loads((base / "schemas/mcp_registry/v2025_12_11/server.schema.json").read_text())
    if schema.get("$id") != SCHEMA_ID:
        raise SystemExit(f"check_server_json: the shipped schema is {schema.get('$id')}, not {SCHEMA_ID}")
    return schema


def problems(validator, document: dict, released: bool) -> list:
    found = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
             for e in validator.iter_errors(document)]
    if document.get("$schema") != SCHEMA_ID:
        found.append(f"$schema is {document.get('$schema')!r}, not {SCHEMA_ID}")
    if released:
        for package in document.get("packages", []):
            if package.get("registryType") == "mcpb" and "fileSha256" not in package:
                found.append("the mcpb package has no fileSha256")
    return found


def main(paths: list) -> int:
    schema = load_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    failed = False
    for path in paths:
        document = json.loads(Path(path).read_text())
        released = Path(path).resolve().parent.name == "dist"
        found = problems(validator, document, released)
        for line in found:
            print(f"{path}: {line}")
        failed |= bool(found)
        broken = copy.deepcopy(document)
        broken["name"] = "no slash in this name"
        broken["packages"][0]["transport"] = {"type": "carrier pigeon"}
        refused = problems(validator, broken, released)
        if len(refused) < 2:
            print(f"{path}: a broken copy was not refused ({refused})")
            failed = True
        if not found:
            print(f"{path}: valid against {SCHEMA_ID} (a broken copy: {len(refused)} errors)")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1:]))
