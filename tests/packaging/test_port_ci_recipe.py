"""The port author's CI recipe of docs/ports.md, run as written: the TypeScript port, copied to
a folder outside this repository, is built against the spec the emulator of the wheel serves and
judged by the wheel's kit, which leaves a JUnit report with no failure.

The block is read from docs/ports.md (after its `port-ci-recipe` marker), so the documented job
and the tested one cannot drift apart. Its only changes are a machine's with no network: pip
installs from the wheelhouse `make venv` fills, and `npm ci` becomes a copy of the port's
node_modules from this repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from ci_policy import missing
from dist_build import REPO, VENV, copy_sources, make_dist

pytestmark = pytest.mark.slow

PORT = REPO / "client_kit" / "ports" / "typescript"
MARKER = "<!-- port-ci-recipe:"


def _recipe() -> str:
    docs = (REPO / "docs" / "ports.md").read_text(encoding="utf-8")
    after = docs[docs.index(MARKER) :]
    found = re.search(r"```sh\n(.*?)```", after, re.S)
    assert found, "docs/ports.md: no sh block after the port-ci-recipe marker"
    return found.group(1)


def test_the_documented_port_ci_job_passes_the_typescript_port(tmp_path: Path) -> None:
    for tool in ("node", "npm", "curl", "make"):
        if shutil.which(tool) is None:
            missing(f"{tool} not found: the port's CI recipe cannot run")
    if not (PORT / "node_modules" / "openapi-fetch").is_dir():
        missing(f"{PORT}/node_modules is missing: `make venv` runs npm ci there")
    wheelhouse = VENV / "wheelhouse"
    if not any(wheelhouse.glob("*.whl")):
        missing(f"{wheelhouse} has no wheels: `make venv` downloads them")
    (wheel,) = make_dist(copy_sources(tmp_path / "src")).glob("together_rl_toolkit-*.whl")

    port = tmp_path / "port"
    shutil.copytree(
        PORT, port, ignore=shutil.ignore_patterns("node_modules", "dist", "api.d.ts", "facts.ts")
    )
    shutil.copy(wheel, port / wheel.name)
    recipe = _recipe()
    assert recipe.count("\nnpm ci\n") == 1
    offline = recipe.replace("\nnpm ci\n", f"\ncp -a {PORT / 'node_modules'} node_modules\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(
        WHEEL=f"./{wheel.name}",
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheelhouse),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        OPENBLAS_NUM_THREADS="1",
        PATH=os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if str(VENV) not in p),
    )
    done = subprocess.run(
        ["bash", "-c", offline], cwd=port, env=env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"

    suites = ET.parse(port / "reports" / "client-kit.xml").getroot()
    cases = suites.findall(".//testcase")
    assert len(cases) >= 29
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == [], failed
    assert [c.get("name") for c in cases if c.find("error") is not None] == []
