"""Emulators for the proofs: in a thread of this process (state inspectable) or as a subprocess
(killable with SIGKILL, restartable on the same port and state dir, output captured)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from together_rl_emulator import EmulatorApp, create_app

START_TIMEOUT_S = 60.0
READY_MARKER = "listening on http://"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ThreadServer:
    """A uvicorn-served emulator app in a daemon thread of this process."""

    app: EmulatorApp
    base_url: str
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.app.emulator.close()


def start_thread_server(**create_app_kwargs: Any) -> ThreadServer:
    app = create_app(**create_app_kwargs)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="reliability-emulator", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the in-thread emulator did not start")
        time.sleep(0.005)
    port = server.servers[0].sockets[0].getsockname()[1]
    return ThreadServer(app, f"http://127.0.0.1:{port}", server, thread)


@dataclass
class ProcessServer:
    """`python -m together_rl_emulator` as a subprocess on a fixed port; every start's combined
    stdout/stderr is kept in `output` (for the no-key-in-logs check)."""

    api_keys: list[str]
    port: int = field(default_factory=free_port)
    state_dir: Path | None = None
    seed: int = 0
    extra_args: tuple[str, ...] = ()
    output: list[str] = field(default_factory=list)
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
            if self._try_start():
                self.starts += 1
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the emulator subprocess did not start:\n" + self.log_tail())
            time.sleep(0.1)

    def _try_start(self) -> bool:
        ready = threading.Event()
        process = subprocess.Popen(
            self.command(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

        def drain() -> None:
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
