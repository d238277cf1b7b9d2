"""The command line refuses bad values with a usage message and exit code 2 (no traceback), and
the state dir is private: the directory 0700, the secret, the database (and its WAL and
shared-memory files) and the generated API key 0600."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from emulator_harness import emulator_test_client
from together_rl_emulator import create_app
from together_rl_emulator.__main__ import parse_args, resolve_api_keys


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--max-body-mb", "nan"], "--max-body-mb"),
        (["--max-body-mb", "inf"], "--max-body-mb"),
        (["--max-body-mb", "-1"], "--max-body-mb"),
        (["--max-body-mb", "0"], "--max-body-mb"),
        (["--max-body-mb", "1e9"], "--max-body-mb"),
        (["--port", "70000"], "--port"),
        (["--port", "-1"], "--port"),
        (["--port", "eighty"], "--port"),
        (["--seed", "-3"], "--seed"),
        (["--seed", str(2**64)], "--seed"),
        (["--op-latency-ms", "-5"], "--op-latency-ms"),
        (["--log-level", "loud"], "--log-level"),
        (["--timing", "fixed", "-1"], "--timing"),
    ],
)
def test_bad_values_get_a_usage_message_and_exit_code_2(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: together-rl-emulator") and named in err
    assert "Traceback" not in err


def test_good_values_pass() -> None:
    args = parse_args(["--port", "0", "--max-body-mb", "0.5", "--seed", "7", "--log-level", "INFO"])
    assert (args.port, args.max_body_mb, args.seed, args.log_level) == (0, 0.5, 7, "info")


def test_an_unusable_state_dir_is_said_without_a_traceback(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "together_rl_emulator", "--state-dir", str(not_a_dir)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--state-dir" in done.stderr and "Traceback" not in done.stderr


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_state_files_are_private(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    old_umask = os.umask(0o022)  # the usual umask: files 0644 unless the emulator says otherwise
    try:
        keys = resolve_api_keys(None, state_dir)
        app = create_app(api_keys=keys, state_dir=state_dir)
        with emulator_test_client(app, api_key=keys[0]) as client:
            r = client.post("/v1/rl/model-resources", json={"base_model": "emulator/tiny-1k"})
            assert r.status_code == 200, r.text
            files = {p.name: _mode(p) for p in state_dir.iterdir() if p.is_file()}
        app.emulator.close()
    finally:
        os.umask(old_umask)
    assert _mode(state_dir) == 0o700
    private = ("owner-secret", "state.sqlite3", "state.sqlite3-wal", "state.sqlite3-shm", "api_key")
    for name in private:
        assert files.get(name) == 0o600, (name, oct(files.get(name, 0)), files)


def test_a_loose_state_dir_is_tightened(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    state_dir.mkdir(mode=0o755)
    (state_dir / "owner-secret").write_text(os.urandom(32).hex())
    (state_dir / "owner-secret").chmod(0o644)
    app = create_app(api_keys=["k"], state_dir=state_dir)
    app.emulator.close()
    assert _mode(state_dir) == 0o700
    assert _mode(state_dir / "owner-secret") == 0o600
    assert _mode(state_dir / "state.sqlite3") == 0o600
