"""The distribution works from a wheel, outside this repository, with no network: build the
wheel from a clean copy of the sources, install it with its `conformance` and `client-kit`
extras into a fresh virtual environment from the wheelhouse `make venv` fills (`pip install
--no-index`), then, from a directory outside the repository, start `together-rl-emulator`, run
`together-rl-conformance` against it and `together-rl-client-kit` against the wrapper's driver."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ci_policy import missing

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
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


def _copy_sources(target: Path) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        missing("the wheel test copies the sources git knows of: git or the checkout is missing")
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=REPO,
            capture_output=True,
            check=True,
            timeout=60,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source, copy = REPO / name, target / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)


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
    sources, dist, venv, outside = (tmp_path / n for n in ("src", "dist", "venv", "outside"))
    outside.mkdir()
    _copy_sources(sources)
    pip_offline = ["--no-index", "--find-links", str(WHEELHOUSE)]
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            *pip_offline,
            "--no-deps",
            "-w",
            str(dist),
            str(sources),
        ],
        tmp_path,
        600,
    )
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
