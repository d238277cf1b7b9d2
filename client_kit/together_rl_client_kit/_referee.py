"""The referee: a small HTTP/1.1 server on loopback in front of the emulator. It records every
attempt a client makes (times on the server's clock, method, path, headers, body digest,
Idempotency-Key) and plays the scenario's faults on the real socket: a 429/5xx, a connection
dropped before or after the emulator committed the request, an answer cut short, a slow answer,
an operation kept PENDING or given an unknown status, an operation FAILED with a given code
(the fault actions of `_faults.FAULT_ACTIONS`).

Raw asyncio rather than an ASGI middleware, because dropping a connection or truncating a body
needs the socket itself. Everything else is forwarded unchanged (the Host header included, so
the emulator's presigned payload URLs point back at the referee and are recorded too).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import http
import math
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

import httpx
import orjson

from . import _spec
from ._faults import FAULT_ACTIONS
from ._types import Attempt, Fault

__all__ = ["Referee"]

_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "content-encoding",
    "upgrade",
    "proxy-connection",
    "te",
    "trailer",
}
_MAX_HEAD = 64 * 1024
_KEEP_JSON = 256 * 1024
_KEEP_BODY = 64 * 1024 * 1024


@dataclass
class _Armed:
    fault: Fault
    operation_id: str
    remaining: int


@dataclass
class _State:
    attempts: list[Attempt] = field(default_factory=list)
    armed: list[_Armed] = field(default_factory=list)
    call: int | None = None
    call_started: float = 0.0


class Referee:
    """Start with :meth:`start` (returns its base URL), stop with :meth:`stop`; between, arm a
    scenario's faults with :meth:`arm`, and bracket each logical call with :meth:`begin_call`
    and :meth:`end_call` (which returns the attempts made during it)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.base_url = ""
        self._lock = threading.Lock()
        self._state = _State()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._http: httpx.AsyncClient | None = None
        self._connections: set[asyncio.StreamWriter] = set()

    # ---------------------------------------------------------------- control (any thread)
    def start(self) -> str:
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._open())
            except BaseException as error:  # reported to start()
                errors.append(error)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._close())
            loop.close()

        self._thread = threading.Thread(target=run, name="client-kit-referee", daemon=True)
        self._thread.start()
        if not ready.wait(30) or errors:
            raise RuntimeError(f"the referee did not start: {errors[0] if errors else 'timeout'}")
        return self.base_url

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(30)

    def __enter__(self) -> Referee:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def arm(self, faults: tuple[Fault, ...], operation_id: str) -> None:
        """Arm ``faults`` for the calls of a scenario whose first call is ``operation_id``."""
        with self._lock:
            self._state.armed = [
                _Armed(fault, operation_id, fault.count if fault.count > 0 else -1)
                for fault in faults
            ]

    def begin_call(self, call: int) -> None:
        with self._lock:
            self._state.call = call
            self._state.call_started = time.monotonic()

    def end_call(self) -> list[Attempt]:
        with self._lock:
            call = self._state.call
            self._state.call = None
            return [a for a in self._state.attempts if a.call == call]

    def disarm(self) -> None:
        with self._lock:
            self._state.armed = []
            self._state.call = None

    def attempts(self) -> list[Attempt]:
        with self._lock:
            return list(self._state.attempts)

    # ---------------------------------------------------------------- the server (its loop)
    async def _open(self) -> None:
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=10.0))
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=_MAX_HEAD)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._connections):
            writer.transport.abort()
        if self._http is not None:
            await self._http.aclose()
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.add(writer)
        try:
            while await self._one_request(reader, writer):
                pass
        except (
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ConnectionError,
            ValueError,
        ):
            pass
        finally:
            self._connections.discard(writer)
            writer.transport.abort()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        arrived, arrived_wall = time.monotonic(), time.time()
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        body = await _read_body(reader, headers)
        path, _, query = target.partition("?")
        matched = _spec.match_route(method, path)
        attempt = Attempt(
            index=0,
            call=None,
            method=method,
            path=path,
            query=query,
            operation_id=matched[0].operation_id if matched else None,
            path_params=matched[1] if matched else {},
            headers=headers,
            body_size=len(body),
            body_digest=hashlib.sha256(body).hexdigest(),
            arrived=arrived,
            arrived_wall=arrived_wall,
            body=body if method == "PUT" and len(body) <= _KEEP_BODY else None,
        )
        with self._lock:
            attempt.call = self._state.call
            attempt.index = len(self._state.attempts) + 1
            self._state.attempts.append(attempt)
            armed = self._take_fault(attempt)
            call_started = self._state.call_started
        keep_open = headers.get("connection", "").lower() != "close"
        return await self._answer(attempt, armed, body, target, call_started, writer) and keep_open

    def _take_fault(self, attempt: Attempt) -> Fault | None:
        for armed in self._state.armed:
            if armed.remaining == 0 or attempt.operation_id is None:
                continue
            wanted = armed.operation_id
            if armed.fault.target == "poll":
                poll = _spec.poll_route(armed.operation_id)
                wanted = poll.operation_id if poll else ""
            if attempt.operation_id != wanted:
                continue
            if armed.remaining > 0:
                armed.remaining -= 1
            return armed.fault
        return None

    async def _answer(
        self,
        attempt: Attempt,
        fault: Fault | None,
        body: bytes,
        target: str,
        call_started: float,
        writer: asyncio.StreamWriter,
    ) -> bool:
        action = None if fault is None else FAULT_ACTIONS[fault.action]
        status, headers, payload = 502, [("content-type", "application/json")], b""
        if fault is None or action is None or action.forwards(fault):
            status, headers, payload = await self._forward(attempt, body, target)
            attempt.upstream_json = _small_json(payload, headers)
        if fault is None or action is None:
            return await self._write(attempt, writer, status, headers, payload)
        attempt.fault = action.describe(fault)
        exchange = _Exchange(self, attempt, writer, status, headers, payload, call_started)
        return await action.play(exchange, fault)

    async def _forward(
        self, attempt: Attempt, body: bytes, target: str
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        assert self._http is not None
        headers = {k: v for k, v in attempt.headers.items() if k not in _HOP_BY_HOP}
        try:
            response = await self._http.request(
                attempt.method, self.upstream + target, headers=headers, content=body
            )
        except httpx.HTTPError as error:
            message = f"the client kit could not reach the emulator: {error}"
            return 502, [("content-type", "application/json")], _error_body(message)
        kept = [(k, v) for k, v in response.headers.items() if k.lower() not in _HOP_BY_HOP]
        return response.status_code, kept, response.content

    async def _write_status(
        self, attempt: Attempt, writer: asyncio.StreamWriter, fault: Fault
    ) -> bool:
        assert fault.status is not None
        headers = [("content-type", "application/json")]
        wait: float | None = None
        value = fault.retry_after
        now_wall = time.time()
        if value is not None and value.startswith("http-date:"):
            when = math.ceil(now_wall) + int(value.split(":", 1)[1])
            headers.append(("retry-after", formatdate(when, usegmt=True)))
            wait = when - now_wall
        elif value is not None and value.startswith("ms:"):
            headers.append(("retry-after-ms", value.split(":", 1)[1]))
            wait = int(value.split(":", 1)[1]) / 1000
        elif value is not None:
            headers.append(("retry-after", value))
            wait = float(value)
        attempt.retry_after_wait = wait
        message = f"the client kit answers {fault.status} to this attempt (scripted fault)"
        return await self._write(attempt, writer, fault.status, headers, _error_body(message))

    async def _write(
        self,
        attempt: Attempt,
        writer: asyncio.StreamWriter,
        status: int,
        headers: list[tuple[str, str]],
        payload: bytes,
        cut: int | None = None,
    ) -> bool:
        try:
            reason = http.HTTPStatus(status).phrase
        except ValueError:
            reason = "Unknown"
        lines = [f"HTTP/1.1 {status} {reason}"]
        lines += [f"{k}: {v}" for k, v in headers]
        lines.append(f"content-length: {len(payload)}")
        # Stamped before the bytes leave: the client cannot have the answer earlier, so a wait
        # measured from here is never longer than the one the client really made.
        attempt.answered = time.monotonic()
        attempt.status = status
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        writer.write(payload if cut is None else payload[:cut])
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        attempt.answered_json = _small_json(payload, headers) if cut is None else None
        return cut is None


@dataclass
class _Exchange:
    """One attempt being answered: what a fault action plays on (`_faults.Exchange`)."""

    referee: Referee
    attempt: Attempt
    writer: asyncio.StreamWriter
    status: int
    headers: list[tuple[str, str]]
    payload: bytes
    call_started: float

    @property
    def document(self) -> Any:
        return self.attempt.upstream_json

    async def respond(self, payload: bytes | None = None, *, cut: int | None = None) -> bool:
        sent = self.payload if payload is None else payload
        return await self.referee._write(
            self.attempt, self.writer, self.status, self.headers, sent, cut=cut
        )

    async def respond_status(self, fault: Fault) -> bool:
        return await self.referee._write_status(self.attempt, self.writer, fault)

    def drop(self) -> bool:
        self.attempt.answered = time.monotonic()
        return False


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parts: list[bytes] = []
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
    length = int(headers.get("content-length", "0") or 0)
    return await reader.readexactly(length) if length else b""


def _small_json(payload: bytes, headers: list[tuple[str, str]]) -> Any:
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
    if "json" not in content_type or len(payload) > _KEEP_JSON:
        return None
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None


def _error_body(message: str) -> bytes:
    return orjson.dumps(
        {"error": {"message": message, "type": "client_kit_fault", "param": None, "code": None}}
    )
