"""The driver process protocol: one JSON object per line over the driver's stdin and stdout.

The kit starts the driver command with `TOGETHER_BASE_URL` and `TOGETHER_API_KEY` set. The
driver's first stdout line declares it: ``{"driver": NAME, "supports": [FEATURE, ...]}``. Then
per request line ``{"id", "op", "path", "query", "body", "idempotency_key"?}`` it answers one
line ``{"id", "ok": true, "result"}`` or ``{"id", "ok": false, "error": {"status", "message"}}``.
Every wait has a timeout; whatever the driver does, :class:`DriverProcess` raises
:class:`DriverError` with the kind of misbehaviour and the tail of its stderr, never hangs.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["Declaration", "DriverError", "DriverProcess"]

_STDERR_TAIL = 20
_STDERR_SETTLE_S = 0.2
_EOF = object()


class DriverError(Exception):
    """The driver misbehaved: ``kind`` is one of crashed, hung, not-json, wrong-id,
    bad-answer, no-declaration."""

    def __init__(self, kind: str, message: str, stderr_tail: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.stderr_tail = stderr_tail

    def report(self) -> str:
        tail = self.stderr_tail.strip()
        return f"driver {self.kind}: {self.message}" + (
            "\n  stderr (last lines):\n    " + tail.replace("\n", "\n    ") if tail else ""
        )


@dataclass(frozen=True)
class Declaration:
    name: str
    supports: frozenset[str]


class DriverProcess:
    """One run of the driver command (a shell-like string, split with `shlex`)."""

    def __init__(self, command: str, env: dict[str, str], cwd: str | None = None) -> None:
        self.command = command
        self._argv = shlex.split(command)
        self._env = env
        self._cwd = cwd
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL)
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ lifecycle
    def start(self, timeout: float) -> Declaration:
        """Start the driver and read its declaration within ``timeout`` seconds."""
        try:
            self._process = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, **self._env},
                cwd=self._cwd,
                start_new_session=True,
            )
        except OSError as error:
            raise DriverError("crashed", f"cannot start {self.command!r}: {error}", "") from error
        assert self._process.stdout is not None and self._process.stderr is not None
        self._threads = [
            threading.Thread(target=self._pump_stdout, args=(self._process.stdout,), daemon=True),
            threading.Thread(target=self._pump_stderr, args=(self._process.stderr,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        try:
            line = self._next_line(timeout, "its declaration")
        except DriverError as error:
            raise DriverError(
                "no-declaration", f"never declared itself ({error.message})", error.stderr_tail
            ) from None
        declared = _parse(line)
        if (
            not isinstance(declared, dict)
            or not isinstance(declared.get("driver"), str)
            or not isinstance(declared.get("supports"), list)
            or not all(isinstance(f, str) for f in declared["supports"])
        ):
            raise DriverError(
                "no-declaration",
                'its first line is not {"driver": NAME, "supports": [FEATURE, ...]}: '
                + _clip(line),
                self._settled_tail(),
            )
        return Declaration(declared["driver"], frozenset(declared["supports"]))

    def stop(self, grace: float = 3.0) -> None:
        """Close its stdin, wait ``grace`` seconds, then kill its process group."""
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                process.kill()
            process.wait(10)
        for thread in self._threads:
            thread.join(2)

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    def _settled_tail(self) -> str:
        """The stderr tail once lines written just before the offending stdout line are in."""
        time.sleep(_STDERR_SETTLE_S)
        return self.stderr_tail()

    # ------------------------------------------------------------------ one call
    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``request`` and return the driver's answer to it (its ``id`` checked)."""
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(request).encode() + b"\n")
            self._process.stdin.flush()
        except OSError:
            raise self._crashed("its stdin is closed") from None
        line = self._next_line(timeout, f"an answer to request {request['id']}")
        answer = _parse(line)
        if answer is _NOT_JSON:
            raise DriverError(
                "not-json", f"wrote a line that is not JSON: {_clip(line)}", self._settled_tail()
            )
        if not isinstance(answer, dict) or "id" not in answer:
            raise DriverError(
                "bad-answer", f"answered without an id: {_clip(line)}", self._settled_tail()
            )
        if answer["id"] != request["id"]:
            raise DriverError(
                "wrong-id",
                f"answered id {answer['id']!r} to request {request['id']!r}: {_clip(line)}",
                self._settled_tail(),
            )
        ok = answer.get("ok")
        error = answer.get("error")
        if ok is True and "result" in answer:
            return answer
        if ok is False and isinstance(error, dict) and isinstance(error.get("message"), str):
            status = error.get("status")
            if status is None or isinstance(status, int):
                return answer
        raise DriverError(
            "bad-answer",
            'the answer is neither {"ok": true, "result"} nor {"ok": false, "error": '
            '{"status", "message"}}: ' + _clip(line),
            self._settled_tail(),
        )

    # ------------------------------------------------------------------ internals
    def _next_line(self, timeout: float, what: str) -> str:
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise DriverError(
                "hung", f"did not write {what} within {timeout:g} s", self.stderr_tail()
            ) from None
        if item is _EOF:
            raise self._crashed(f"closed its stdout before {what}")
        assert isinstance(item, str)
        return item

    def _crashed(self, what: str) -> DriverError:
        process = self._process
        code = None
        if process is not None:
            try:
                code = process.wait(2)
            except subprocess.TimeoutExpired:
                code = None
        for thread in self._threads[1:]:
            thread.join(1)
        exit_text = f"exit code {code}" if code is not None else "still running"
        return DriverError("crashed", f"{what} ({exit_text})", self.stderr_tail())

    def _pump_stdout(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self._lines.put(_EOF)

    def _pump_stderr(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._stderr.append(raw.decode("utf-8", "replace").rstrip("\r\n"))


_NOT_JSON = object()


def _parse(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return _NOT_JSON


def _clip(line: str, limit: int = 200) -> str:
    return line if len(line) <= limit else line[:limit] + "..."
