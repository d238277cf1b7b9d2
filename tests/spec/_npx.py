"""Run a pinned npm CLI through `npx`; a missing `npx` or npm registry is
`ci_policy.missing` (a failure under CI, a visible skip elsewhere)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ci_policy import missing

__all__ = ["run_npx"]

# npm failures that mean "could not fetch the CLI", not "the tool refused the input".
_NPM_UNREACHABLE = re.compile(r"ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|network")


def run_npx(package: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``npx --yes <package> <args>``; ``package`` carries its exact version (``name@1.2.3``)."""
    npx = shutil.which("npx")
    if npx is None:
        missing(f"npx not found: install Node.js/npm to run {package}")
    env = {
        **os.environ,
        "REDOCLY_TELEMETRY": "off",
        "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
        "NPM_CONFIG_UPDATE_NOTIFIER": "false",
        "NPM_CONFIG_FUND": "false",
    }
    result = subprocess.run(
        [npx, "--yes", package, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0 and "npm" in output and _NPM_UNREACHABLE.search(output):
        missing(f"could not fetch {package} from the npm registry:\n{output[-1500:]}")
    return result
