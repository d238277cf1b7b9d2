"""``python -m together_rl_contract_tests.proxy`` (the proxy package's own entry, as
``together-rl-proxy``) and ``python -m together_rl_contract_tests replay`` (as ``make replay``) as a
user runs them: ready line, reports at exit (Ctrl-C), a cassette only its owner can read, and no key
anywhere in what they leave."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from together_rl_emulator import serve_emulator

KEY = "sk-command-test-0123456789abcdef"
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def _command(module: str, *args: str, cwd: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run ``python -m MODULE ARGS``; yield (its URL, the process) once it is ready."""
    process = subprocess.Popen(
        [sys.executable, "-m", module, *args, "--port", "0"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready = process.stdout.readline()
    assert "listening on http://127.0.0.1:" in ready, ready + (process.stderr.read() or "")
    try:
        yield ready.rsplit(" ", 1)[1].strip(), process
    finally:
        if process.poll() is None:
            process.kill()


def _interrupt(process: subprocess.Popen[str], signum: int = signal.SIGINT) -> tuple[int, str, str]:
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    return process.returncode, out, err


def test_proxy_then_replay_from_the_command_line(tmp_path: Path) -> None:
    emulator = serve_emulator(api_keys=[KEY], seed=0)
    auth = {"Authorization": f"Bearer {KEY}"}
    try:
        with _command("together_rl_contract_tests.proxy", "--upstream", emulator.base_url,
                      "--record", "run.jsonl", cwd=tmp_path) as (url, process):  # fmt: skip
            recorded = httpx.get(f"{url}/v1/rl/supported-models", headers=auth)
            refused = httpx.get(f"{url}/v1/rl/supported-models")
            code, out, err = _interrupt(process)
    finally:
        emulator.stop()
    assert recorded.status_code == 200 and refused.status_code == 401
    assert code == 0, err
    assert "proxy: 2 exchanges, 0 violations" in out
    cassette = tmp_path / "run.jsonl"
    assert stat.S_IMODE(cassette.stat().st_mode) == 0o600
    report = (tmp_path / "reports" / "proxy.md").read_text()
    junit = (tmp_path / "reports" / "proxy.junit.xml").read_text()
    assert "| `getSupportedModels` | 2 | 200: 1, 401: 1 | 0 |" in report
    assert 'name="getSupportedModels"' in junit
    for text in (cassette.read_text(), report, junit, out, err):
        assert KEY not in text

    with _command("together_rl_contract_tests", "replay", "run.jsonl", cwd=tmp_path) as (
        url,
        process,
    ):
        replayed = httpx.get(f"{url}/v1/rl/supported-models")  # no key needed
        code, out, _ = _interrupt(process, signal.SIGTERM)
    assert code == 0
    assert replayed.status_code == 200 and replayed.json() == recorded.json()
    assert "replay: 1 requests answered, 0 misses" in out


def test_the_entry_points_dispatch(capsys: pytest.CaptureFixture[str]) -> None:
    """``main`` of the proxy package: ``replay ...`` is the replay, anything else the proxy."""
    from together_rl_contract_tests import proxy

    for argv, program in ((["replay", "--help"], "together-rl-replay"),
                          (["--help"], "together-rl-proxy"),
                          (["proxy", "--help"], "together-rl-proxy")):  # fmt: skip
        with pytest.raises(SystemExit) as done:
            proxy.main(argv)
        assert done.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: {program}")
