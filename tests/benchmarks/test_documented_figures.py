"""Every table of docs/benchmarks.md can still be produced by the code at its command.

Each table carries a block of checked facts: its payloads (sizes, digests) and the code path of
each row (entry points, requests sent, bytes on the wire, the versions that decide the path, the
official SDK's element walk). Here every table's facts are recomputed by running its rows once,
untimed, with the documented payloads, and compared with the doc. Timings are not checked.

A failure means the documented figure no longer describes this code: rerun `make bench` (on a
quiet machine) and commit the regenerated docs/benchmarks.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from benchmarks._report import DOC, ROOT, TABLES, documented_facts

DOCUMENTED = documented_facts(DOC)
RERUN = "the documented figure no longer matches the code: rerun `make bench`"


def differences(documented: Any, current: Any, where: str = "") -> list[str]:
    """Readable paths where two JSON values differ."""
    if isinstance(documented, dict) and isinstance(current, dict):
        found = []
        for key in sorted(set(documented) | set(current)):
            if key not in current:
                found.append(f"{where}/{key}: documented {documented[key]!r}, now absent")
            elif key not in documented:
                found.append(f"{where}/{key}: not documented, now {current[key]!r}")
            else:
                found += differences(documented[key], current[key], f"{where}/{key}")
        return found
    if documented != current:
        return [f"{where}: documented {documented!r}, now {current!r}"]
    return []


def test_the_doc_has_every_table_and_no_other() -> None:
    assert sorted(DOCUMENTED) == sorted(TABLES), RERUN


def recomputed_facts(table: str, quick: bool) -> Any:
    """The table's facts from its benchmark's command in a fresh interpreter, as `make bench`
    runs it (what a process imported before changes code paths: see the official SDK's)."""
    command = [sys.executable, "-m", f"benchmarks.bench_{table.split('.')[0]}", "--facts", table]
    done = subprocess.run(
        command + (["--quick"] if quick else []),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("table", TABLES)
def test_documented_payloads_and_code_paths_are_reproduced(table: str) -> None:
    documented = DOCUMENTED.get(table)
    assert documented is not None, f"{table} is not in {DOC.name}: {RERUN}"
    current = recomputed_facts(table, bool(documented.get("quick")))
    found = differences(documented, current)
    assert not found, f"{table}: {RERUN}\n" + "\n".join(found)


def test_differences_names_each_changed_path() -> None:
    documented = {"rows": {"sdk_call": {"sdk_elements_walked": 394439, "entry": "x"}}}
    current = {"rows": {"sdk_call": {"sdk_elements_walked": 1063, "entry": "x"}}}
    assert differences(documented, current) == [
        "/rows/sdk_call/sdk_elements_walked: documented 394439, now 1063"
    ]
