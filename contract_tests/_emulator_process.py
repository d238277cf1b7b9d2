"""Start the embedded emulator as a subprocess on a free loopback port, and stop it."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

from contract_tests._target import Target

READY_MARKER = "listening on "
START_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def emulator_subprocess(*, seed: int = 0, extra_args: tuple[str, ...] = ()) -> Iterator[Target]:
    """Run ``python -m together_rl_emulator`` with two generated keys; yield its :class:`Target`."""
    port = free_port()
    keys = [f"ct-{secrets.token_hex(8)}", f"ct-{secrets.token_hex(8)}"]
    command = [
        sys.executable, "-m", "together_rl_emulator",
        "--host", "127.0.0.1", "--port", str(port),
        "--api-key", keys[0], "--api-key", keys[1],
        "--seed", str(seed), *extra_args,
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        base_url = _wait_until_listening(process, port)
        yield Target(base_url=base_url, api_key=keys[0], second_api_key=keys[1], is_emulator=True)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_listening(process: subprocess.Popen[str], port: int) -> str:
    assert process.stdout is not None
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if READY_MARKER in line:
                found.set()
        # keep draining so the emulator never blocks on a full pipe

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if found.wait(0.05) or _port_open(port):
            return f"http://127.0.0.1:{port}"
        if process.poll() is not None:
            break
    output = "".join(lines[-40:])
    raise RuntimeError(f"the emulator did not start (exit code {process.poll()}):\n{output}")


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def emulator_in_thread(app: Any) -> Iterator[str]:
    """Serve an ASGI app (the emulator, or a broken variant of it) with uvicorn in a thread."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
