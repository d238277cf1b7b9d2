"""Run the embedded emulator on loopback: as a subprocess (killable, restartable on the same port
and state dir, output captured) or served by uvicorn in a thread of this process.

The one place that starts emulators for the contract suite, the vectors and the reliability
proofs (``reliability`` imports from here).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from together_rl_contract_tests._target import Target

__all__ = [
    "READY_MARKER",
    "START_TIMEOUT_S",
    "EmulatorProcess",
    "emulator_in_thread",
    "emulator_subprocess",
    "free_port",
]

READY_MARKER = "listening on http://"
START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ----------------------------------------------------------------------------- subprocess
@dataclasses.dataclass
class EmulatorProcess:
    """``python -m together_rl_emulator`` as a subprocess on a fixed port; every start's combined
    stdout/stderr is kept in ``output``."""

    api_keys: list[str]
    port: int = dataclasses.field(default_factory=free_port)
    state_dir: Path | None = None
    seed: int = 0
    extra_args: tuple[str, ...] = ()
    output: list[str] = dataclasses.field(default_factory=list)
    starts: int = 0
    process: subprocess.Popen[str] | None = None
    _reader: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "together_rl_emulator", "--host", "127.0.0.1",
               "--port", str(self.port), "--seed", str(self.seed)]  # fmt: skip
        for key in self.api_keys:
            cmd += ["--api-key", key]
        if self.state_dir is not None:
            cmd += ["--state-dir", str(self.state_dir)]
        return cmd + list(self.extra_args)

    def start(self) -> None:
        """Start and wait for the ready line (retrying while the old socket is still bound)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self._try_start(deadline):
                self.starts += 1
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the emulator subprocess did not start:\n" + self.log_tail())
            time.sleep(0.1)

    def _try_start(self, deadline: float) -> bool:
        ready = threading.Event()
        process = subprocess.Popen(
            self.command(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

        def drain() -> None:  # keeps reading, so the emulator never blocks on a full pipe
            assert process.stdout is not None
            for line in process.stdout:
                self.output.append(line)
                if READY_MARKER in line:
                    ready.set()

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        while not ready.wait(0.02):
            if process.poll() is not None:  # e.g. address still in use: try again
                reader.join(timeout=5)
                return False
            if time.monotonic() > deadline:  # alive but silent: give up
                self.process, self._reader = process, reader
                self.stop()
                return False
        self.process, self._reader = process, reader
        return True

    def kill9(self) -> None:
        """SIGKILL, no cleanup at all, and reap the process."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)

    def peak_rss_kib(self) -> int:
        """VmHWM (peak resident set) of the running process, from /proc, in KiB."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise RuntimeError("VmHWM not found in /proc/<pid>/status")

    def log_tail(self, lines: int = 40) -> str:
        return "".join(self.output[-lines:])


@contextlib.contextmanager
def emulator_subprocess(*, seed: int = 0, extra_args: tuple[str, ...] = ()) -> Iterator[Target]:
    """Run ``python -m together_rl_emulator`` with two generated keys; yield its :class:`Target`."""
    keys = [f"ct-{secrets.token_hex(8)}", f"ct-{secrets.token_hex(8)}"]
    emulator = EmulatorProcess(api_keys=keys, seed=seed, extra_args=extra_args)
    emulator.start()
    try:
        yield Target(
            base_url=emulator.base_url, api_key=keys[0], second_api_key=keys[1], is_emulator=True
        )
    finally:
        emulator.stop()


# ----------------------------------------------------------------------------- thread
# `serve_in_thread` / `serve_emulator` live in the emulator package (examples use them too).


@contextlib.contextmanager
def emulator_in_thread(app: Any) -> Iterator[str]:
    """``together_rl_emulator.serve_in_thread`` as a context manager; yields the base URL."""
    from together_rl_emulator import serve_in_thread

    server = serve_in_thread(app)
    try:
        yield server.base_url
    finally:
        server.stop()
