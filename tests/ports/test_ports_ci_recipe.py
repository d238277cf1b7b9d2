"""The Go port's CI job of docs/ports-typed-clients.md, run as written: on a copy of ports/go
outside the repository, it starts the emulator, generates the client from the spec the emulator
serves, builds, runs the smoke flow and lets the kit judge the driver, leaving a JUnit report
with no failure. The block is read from the doc (after its marker), so the documented job and
the tested one cannot drift apart."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from ports_build import CACHE, REPO, build_port
from ports_registry import GO
from ports_smoke import BODY

MARKER = "<!-- go-port-ci-recipe:"


def _recipe() -> str:
    docs = (REPO / "docs" / "ports-typed-clients.md").read_text(encoding="utf-8")
    found = re.search(r"```sh\n(.*?)```", docs[docs.index(MARKER) :], re.S)
    assert found, "docs/ports-typed-clients.md: no sh block after the go-port-ci-recipe marker"
    return found.group(1)


def test_the_documented_go_port_ci_job_passes(tmp_path: Path) -> None:
    build_port(GO)  # the toolchain is there (or the test skips/fails as ci_policy says)
    shutil.copytree(
        REPO / GO.folder, tmp_path / GO.folder, ignore=shutil.ignore_patterns("rlapi", ".build")
    )
    body = tmp_path / BODY.relative_to(REPO)
    body.parent.mkdir(parents=True)
    shutil.copy(BODY, body)
    env = {**os.environ, **GO.env(), "KIT": str(REPO / ".venv" / "bin")}
    env.pop("GOFLAGS", None)
    done = subprocess.run(
        ["bash", "-c", _recipe()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert '"statuses"' in done.stdout and CACHE.is_dir()
    cases = ET.parse(tmp_path / "reports" / "client-kit-go.xml").getroot().findall(".//testcase")
    assert len(cases) >= 29
    assert [
        c.get("name") for c in cases if c.find("failure") is not None or c.find("error") is not None
    ] == []
