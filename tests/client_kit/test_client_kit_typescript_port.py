"""The TypeScript port (types from openapi-typescript, calls through openapi-fetch) passes the
kit. Without node/npm or its node_modules (`make venv` installs them) it skips visibly; under
CI=true it fails instead (tests/ci_policy.py)."""

from __future__ import annotations

import shutil
import subprocess

from ci_policy import missing
from client_kit_runs import REPO, run

PORT = REPO / "client_kit" / "ports" / "typescript"


def test_typescript_port_passes_the_kit() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        missing("node/npm not found: the TypeScript port of the client kit cannot run")
    if not (PORT / "node_modules" / "openapi-fetch").is_dir():
        missing(f"{PORT}/node_modules is missing: `make venv` runs npm ci there")
    built = subprocess.run(
        ["npm", "run", "--silent", "build"], cwd=PORT, capture_output=True, text=True, timeout=300
    )
    assert built.returncode == 0, built.stdout + built.stderr
    report = run(f"node {PORT / 'dist' / 'driver.js'}")
    assert report.driver == "typescript port (openapi-fetch)"
    assert {s.id: s.message for s in report.scenarios if s.verdict != "PASS"} == {}
