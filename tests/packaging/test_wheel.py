"""The distribution works from a wheel, outside this repository, with no network: build the
wheel with `make dist` in a clean copy of the sources, install it with its `conformance` and
`client-kit` extras into a fresh virtual environment from the wheelhouse `make venv` fills
(`pip install --no-index`), check that it installed no top-level package outside `together_rl*`
and one `openapi.yaml`, then, from a directory outside the repository, start
`together-rl-emulator`, run `together-rl-conformance` against it and `together-rl-client-kit`
against the wrapper's driver."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ci_policy import missing
from dist_build import REPO, copy_sources, make_dist

pytestmark = pytest.mark.slow

WHEELHOUSE = REPO / ".venv" / "wheelhouse"
KEY = "wheel-test-key-0123456789abcdef"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return {
        **env,
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _start_emulator(venv: Path, cwd: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [str(venv / "bin" / "together-rl-emulator"), "--port", "0", "--api-key", KEY],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if "listening on " in line:
            return process, line.split("listening on ", 1)[1].strip()
        if not line and process.poll() is not None:
            break
    process.kill()
    raise AssertionError("together-rl-emulator did not start from the wheel")


def test_wheel_installs_offline_and_runs_outside_the_repository(tmp_path: Path) -> None:
    if not any(WHEELHOUSE.glob("setuptools-*.whl")):
        missing(f"{WHEELHOUSE} has no wheels: `make venv` downloads them")
    venv, outside = tmp_path / "venv", tmp_path / "outside"
    outside.mkdir()
    dist = make_dist(copy_sources(tmp_path / "src"))
    pip_offline = ["--no-index", "--find-links", str(WHEELHOUSE)]
    (wheel,) = dist.glob("together_rl_toolkit-*.whl")
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, 300)
    python = str(venv / "bin" / "python")
    _run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--quiet",
            *pip_offline,
            f"{wheel}[conformance,client-kit]",
        ],
        tmp_path,
        900,
    )

    # What the distribution itself installed (its RECORD), not its dependencies.
    installed = _run(
        [
            python,
            "-c",
            "import importlib.metadata as m, json; "
            "print(json.dumps([str(f) for f in m.files('together-rl-toolkit')]))",
        ],
        outside,
        60,
    )
    files = [f for f in json.loads(installed.stdout) if not f.startswith("../")]  # scripts
    tops = {f.split("/", 1)[0] for f in files if "/" in f and ".dist-info/" not in f}
    assert tops and all(top.startswith("together_rl") for top in tops), sorted(tops)
    assert [f for f in files if f.endswith("/openapi.yaml")] == ["together_rl_spec/openapi.yaml"]

    where = _run(
        [
            python,
            "-c",
            "import together_rl_client_kit, together_rl_contract_tests, together_rl; "
            "print(together_rl_client_kit.__file__, together_rl_contract_tests.__file__, "
            "together_rl.__file__)",
        ],
        outside,
        60,
    )
    assert str(REPO) not in where.stdout and str(venv) in where.stdout

    emulator, base_url = _start_emulator(venv, outside)
    try:
        suite = _run(
            [
                str(venv / "bin" / "together-rl-conformance"),
                "--base-url",
                base_url,
                "--api-key",
                KEY,
                "--allow-mutations",
                # The scenarios of one part (the whole suite against a URL runs with the
                # external target's limits: over 5 minutes on these machines).
                "--no-schemathesis",
                "-k",
                "idempotency",
                "--quiet",
                "--report-dir",
                str(outside / "reports"),
            ],
            outside,
            600,
        )
        assert "PASSED" in suite.stdout + suite.stderr
    finally:
        emulator.kill()
        emulator.wait(30)

    driver = f"{python} -m together_rl_client_kit.drivers.wrapper"
    kit = _run(
        [str(venv / "bin" / "together-rl-client-kit"), "--driver", driver, "--format", "json"],
        outside,
        600,
    )
    assert '"exit_code": 0' in kit.stdout
