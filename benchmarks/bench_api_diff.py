"""API diff of two ~450 KB specs: together-rl-api-diff vs Redocly CLI's `diff`, side by side.

The pair is built from this project's spec: copies of it under other path prefixes and schema
names (Together's public spec is about that size), and a new version with one edit of each kind
(a response enum value added, a request bound tightened, a response property removed, a request
oneOf widened, an optional request property added) in every copy. Both tools run as the
processes a maintainer runs, interleaved round by round. Writes its section of
docs/benchmarks.md between the api-diff markers.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from benchmarks._report import (
    ROOT,
    RunInfo,
    Table,
    bench_arguments,
    digest,
    interleaved,
    publish,
)

__all__ = ["build_pair", "checked_facts", "main"]

REDOCLY = "@redocly/cli@2.77.0"
TARGET_BYTES = 450_000
REPEAT = {False: 7, True: 2}
_REF = re.compile(r'"#/components/(schemas|parameters|responses|requestBodies|headers)/([^"]+)"')


def _copy(root: dict[str, Any], index: int) -> dict[str, Any]:
    """One copy: paths under /c<index>, every component and operationId renamed."""
    text = _REF.sub(lambda m: f'"#/components/{m[1]}/{m[2]}C{index}"', json.dumps(root))
    renamed = json.loads(text)
    paths = {f"/c{index}{path}": item for path, item in renamed["paths"].items()}
    for item in paths.values():
        for operation in item.values():
            if isinstance(operation, dict) and "operationId" in operation:
                operation["operationId"] += f"C{index}"
    components = {
        section: (
            {f"{name}C{index}": value for name, value in entries.items()}
            if section != "securitySchemes"
            else entries
        )
        for section, entries in renamed["components"].items()
    }
    return {"paths": paths, "components": components}


def _edit(root: dict[str, Any], index: int) -> None:
    schemas = root["components"]["schemas"]
    schemas[f"OperationErrorCodeC{index}"]["enum"].append("TRAINING_OPERATION_ERROR_CODE_PREEMPTED")
    schemas[f"AdamParamsC{index}"]["properties"]["learning_rate"]["maximum"] = 1
    schemas[f"SessionC{index}"]["properties"].pop("display_name", None)
    steps = schemas[f"OptimStepBodyC{index}"]["properties"]
    steps["adam_params"] = {"oneOf": [steps["adam_params"], {"type": "string"}]}
    schemas[f"SessionCreateC{index}"]["properties"]["labels"] = {"type": "boolean"}


def build_pair(directory: Path) -> tuple[Path, Path, int]:
    """old.yaml and new.yaml of about TARGET_BYTES each, and the number of copies."""
    spec = yaml.safe_load((ROOT / "spec" / "openapi.yaml").read_text(encoding="utf-8"))
    one = len(yaml.safe_dump(spec, sort_keys=False, width=100))
    copies = max(1, round(TARGET_BYTES / one))
    old: dict[str, Any] = {key: spec[key] for key in ("openapi", "info", "servers", "security")}
    old["paths"], old["components"] = {}, {}
    for index in range(copies):
        part = _copy(spec, index)
        old["paths"].update(part["paths"])
        for section, entries in part["components"].items():
            old["components"].setdefault(section, {}).update(entries)
    new = copy.deepcopy(old)
    new["info"]["version"] = "9.0.0"
    for index in range(copies):
        _edit(new, index)
    paths = directory / "old.yaml", directory / "new.yaml"
    for path, root in zip(paths, (old, new), strict=True):
        path.write_text(yaml.safe_dump(root, sort_keys=False, width=100), encoding="utf-8")
    return paths[0], paths[1], copies


def _redocly_command() -> list[str]:
    """The pinned CLI's own binary when npx has it cached (no npx start-up in the timing)."""
    npx = shutil.which("npx")
    if npx is None:
        raise SystemExit("npx not found: install Node.js/npm to compare with Redocly CLI")
    subprocess.run([npx, "--yes", REDOCLY, "--version"], capture_output=True, check=True)
    for binary in sorted(Path.home().glob(".npm/_npx/*/node_modules/.bin/redocly")):
        package = binary.parent.parent / "@redocly" / "cli" / "package.json"
        if package.is_file() and json.loads(package.read_text())["version"] == "2.77.0":
            return [str(binary)]
    return [npx, "--yes", REDOCLY]


def _ours(old: Path, new: Path) -> list[str]:
    return [
        str(Path(sys.executable).with_name("together-rl-api-diff")),
        str(old),
        str(new),
        "--format",
        "json",
        "--impact",
        "no",
    ]


def _runner(command: list[str]) -> Callable[[], subprocess.CompletedProcess[str]]:
    environment = {
        **os.environ,
        "REDOCLY_TELEMETRY": "off",
        "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    }

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, capture_output=True, text=True, check=False, env=environment)

    return run


def _facts(
    old: Path, new: Path, copies: int, ours: subprocess.CompletedProcess[str]
) -> dict[str, Any]:
    report = json.loads(ours.stdout)
    kinds: dict[str, int] = {}
    for change in report["changes"]:
        kinds[change["kind"]] = kinds.get(change["kind"], 0) + 1
    return {
        "payload": {
            "copies_of_spec": copies,
            "old_bytes": old.stat().st_size,
            "new_bytes": new.stat().st_size,
            "old_sha256": digest(old.read_bytes()),
            "new_sha256": digest(new.read_bytes()),
        },
        "ours": {
            "command": "together-rl-api-diff OLD NEW --format json --impact no",
            "entry": "together_rl_api_diff.compare_documents",
            "changes": kinds,
            "required_bump": report["semver"]["required_bump"],
        },
        "redocly": {"command": f"npx --yes {REDOCLY} diff OLD NEW"},
    }


def checked_facts(key: str, quick: bool) -> dict[str, Any]:
    if key != "api_diff.versus_redocly":
        raise KeyError(key)
    with tempfile.TemporaryDirectory() as scratch:
        old, new, copies = build_pair(Path(scratch))
        ours = _runner(_ours(old, new))()
        return {"quick": quick, **_facts(old, new, copies, ours)}


def _contrast(ours: dict[str, Any], redocly: str) -> str:
    """How each tool reports two changes of copy 0: a shared schema's removed property, and
    `X -> oneOf[X, Y]` in a request."""
    removed = next(
        c
        for c in ours["changes"]
        if c["location"] == "#/components/schemas/SessionC0/properties/display_name"
    )
    widened = next(
        c
        for c in ours["changes"]
        if c["kind"] == "variant-added"
        and c["location"].startswith("#/components/schemas/OptimStepBodyC0")
    )
    lines = redocly.splitlines()
    at = [i for i, line in enumerate(lines) if "`oneOf` of `adam_params` was added" in line]
    rated = lines[at[0] - 1].split()[1] if at else "?"
    return (
        f"On copy 0: `Session.display_name` removed (a schema {len(removed['operations'])} "
        f"operations return) is one change with its {len(removed['operations'])} operations "
        f"here, and {redocly.count('Property `display_name` of `SessionC0` was removed')} "
        "line(s) under one operation in Redocly's report; the request's "
        f"`adam_params: X -> oneOf[X, string]` is clients {widened['clients']}, servers "
        f"{widened['servers']} here, and `{rated}` in Redocly's."
    )


def _redocly_summary(output: str) -> str:
    majors = output.count("✖ major")
    minors = output.count("✔ minor")
    patches = output.count("· patch")
    return f"{majors} major, {minors} minor, {patches} patch lines"


def main(argv: list[str] | None = None) -> int:
    args = bench_arguments(__doc__).parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts, args.quick)))
        return 0
    run = RunInfo(
        ".venv/bin/python -m benchmarks.bench_api_diff" + (" --quick" if args.quick else "")
    )
    with tempfile.TemporaryDirectory() as scratch:
        old, new, copies = build_pair(Path(scratch))
        ours, redocly = (
            _runner(_ours(old, new)),
            _runner([*_redocly_command(), "diff", str(old), str(new)]),
        )
        figures = interleaved({"ours": ours, "redocly": redocly}, REPEAT[args.quick])
        ours_done, redocly_done = ours(), redocly()
        found = _facts(old, new, copies, ours_done)
        contrast = _contrast(json.loads(ours_done.stdout), redocly_done.stdout)
    changes = sum(found["ours"]["changes"].values())
    table = Table(
        key="api_diff.versus_redocly",
        title="API diff: two 450 KB specs, together-rl-api-diff vs Redocly CLI `diff`",
        payload=(
            f"old.yaml {found['payload']['old_bytes']:,} B and new.yaml "
            f"{found['payload']['new_bytes']:,} B: {copies} copies of spec/openapi.yaml under "
            "other path prefixes and schema names; in every copy of new.yaml a response enum "
            "value added, a request bound tightened, a response property removed, a request "
            "`X -> oneOf[X, Y]` and an optional request property added."
        ),
        columns=["tool", "wall time (ms)", "what it reports"],
        rows=[
            [
                "`together-rl-api-diff OLD NEW --format json`",
                f"{figures['ours']:.0f}",
                f"{changes} changes, each judged for clients and servers; semver "
                f"{found['ours']['required_bump']}",
            ],
            [
                f"`redocly diff OLD NEW` ({REDOCLY})",
                f"{figures['redocly']:.0f}",
                f"{_redocly_summary(redocly_done.stdout + redocly_done.stderr)} (exit "
                f"{redocly_done.returncode})",
            ],
        ],
        facts={"quick": args.quick, **found},
        notes=[
            f"Medians of {REPEAT[args.quick]} runs of each command as a process (interpreter or "
            "Node start-up included), interleaved round by round after one untimed round; "
            "Redocly's own binary from the npx cache, so npx's start-up is not counted. The goal "
            "is under 1 s, and faster than Redocly on the same pair.",
            contrast,
        ],
        align="l r l",
    )
    section = "## API diff (`together-rl-api-diff`)\n\n" + table.render(run.finish())
    return publish("api-diff", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
