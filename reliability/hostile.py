"""Hostile input: a corpus of crafted bad requests, each of which must be answered 4xx with a
JSON error body, leaving the server alive and its state unchanged.

Sent twice: in-process (Starlette TestClient: the emulator answers everything) and over loopback
(httpx to uvicorn, plus raw sockets for requests no HTTP client would send: malformed request
lines, bad Content-Length, literal `..` segments, control bytes, oversized headers). Over
loopback some malformed HTTP never reaches the emulator: uvicorn (h11) answers it with a
plain-text 400. Each case names who must answer it over loopback (`answered_by`), and each
outcome records who did.
"""

from __future__ import annotations

import logging
import socket
import time
import uuid
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from together_rl_contract_tests.harness import wait_until_terminal
from together_rl_emulator import EmulatorApp

from ._hostile_cases import (
    EMULATOR,
    FB,
    FB_GET,
    HOSTILE_KEY,
    NO_ANSWER,
    PARSER,
    RESOURCES,
    SERVED,
    SESSIONS,
    TINY,
    HostileCase,
    build_corpus,
    valid_fb_body,
)
from ._hostile_raw import build_raw_corpus

__all__ = [
    "ErrorLog",
    "Fixture",
    "HostileReport",
    "Outcome",
    "judge",
    "run_in_process",
    "run_loopback",
    "send_raw",
    "setup_fixture",
    "snapshot",
]


# ----------------------------------------------------------------------------- running
@dataclass
class Outcome:
    case: HostileCase
    status: int | None  # None: the connection was closed without an answer
    layer: str  # EMULATOR (JSON error body), PARSER (uvicorn's plain text), NO_ANSWER, SERVED
    ok: bool
    detail: str


@dataclass
class Fixture:
    model_resources_id: str
    session_id: str
    operation_id: str

    def fill(self, text: str) -> str:
        return (text.replace("{model_resources_id}", self.model_resources_id)
                .replace("{session_id}", self.session_id)
                .replace("{operation_id}", self.operation_id))  # fmt: skip


def setup_fixture(client: httpx.Client) -> Fixture:
    mr = client.post(RESOURCES, json={"base_model": TINY}).json()["id"]
    sid = client.post(SESSIONS, json={"model_resources_id": mr}).json()["id"]
    body = valid_fb_body()
    r = client.post(FB.format(session_id=sid), json=body, headers={"Idempotency-Key": "setup"})
    r.raise_for_status()
    op = r.json()["id"]
    wait_until_terminal(lambda: client.get(FB_GET.format(session_id=sid, operation_id=op)).json())
    return Fixture(mr, sid, op)


def snapshot(client: httpx.Client, fx: Fixture) -> dict[str, Any]:
    """Everything a request could have changed (the per-route request counters excepted)."""
    stats = client.get("/_emulator/stats").json()
    return {
        "sessions": client.get(SESSIONS, params={"limit": 100}).json(),
        "model_resources": client.get(f"{RESOURCES}/{fx.model_resources_id}").json(),
        "operation": client.get(
            FB_GET.format(session_id=fx.session_id, operation_id=fx.operation_id)
        ).json(),
        "operations_created": stats["operations_created"],
        "idempotent_replays": stats["idempotent_replays"],
        "session_stats": stats["sessions"],
        "queued": stats.get("queued_operations"),
    }


def judge(case: HostileCase, status: int | None, content_type: str, body: bytes,
          server_errors: list[str] | None = None, over_http: bool = True) -> Outcome:  # fmt: skip
    """Which layer answered, and whether that is the answer the case expects: in-process, always
    the emulator with a JSON 4xx; over loopback, one of `case.answered_by`."""
    if server_errors:
        return Outcome(
            case, status, EMULATOR, False, "server logged: " + " | ".join(server_errors)[:300]
        )
    expected = case.answered_by if over_http else (EMULATOR,)
    if status is None:
        return Outcome(case, None, NO_ANSWER, NO_ANSWER in expected, "connection closed, no answer")
    detail = f"{status} {content_type} {body[:160]!r}"
    if SERVED in expected:
        return Outcome(case, status, SERVED, status < 500, f"served: {detail}")
    try:
        parsed = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if (
        isinstance(error, dict)
        and isinstance(error.get("message"), str)
        and error["message"]
        and isinstance(error.get("type"), str)
    ):
        layer = EMULATOR
        ok = 400 <= status < 500 and content_type.startswith("application/json")
    else:
        # Over loopback uvicorn (h11) answers malformed HTTP itself, in plain text; in-process
        # there is no such layer, so a non-JSON answer is the emulator's and a failure.
        layer = PARSER if over_http else "unknown"
        ok = 400 <= status < 500
    return Outcome(case, status, layer, ok and layer in expected, detail)


def _send(client: httpx.Client, case: HostileCase, fx: Fixture, over_http: bool) -> Outcome:
    headers = [(k, fx.fill(v)) for k, v in case.headers]
    if case.idempotency_key:
        headers.append(("Idempotency-Key", f"hostile-{uuid.uuid4()}"))
    body = fx.fill(case.body.decode("latin-1")).encode("latin-1") if case.body is not None else None
    try:
        r = client.request(case.method, fx.fill(case.path), content=body, headers=headers)
    except (httpx.TransportError, UnicodeError) as exc:
        return Outcome(case, None, "client", False, f"not sent: {exc!r}")
    return judge(
        case, r.status_code, r.headers.get("content-type", ""), r.content, over_http=over_http
    )


def send_raw(
    host: str, port: int, data: bytes, timeout: float = 10.0
) -> tuple[int | None, str, bytes]:
    """Send bytes, read one HTTP answer (status, content type, body) or None if closed."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        chunks = []
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except (TimeoutError, ConnectionResetError):
            pass
    answer = b"".join(chunks)
    if not answer.startswith(b"HTTP/"):
        return None, "", answer
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    content_type = ""
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-type":
            content_type = value.strip()
    return status, content_type, body


class ErrorLog(logging.Handler):
    """Collects ERROR records of every logger (uvicorn's and the emulator's) during a run."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")

    def __enter__(self) -> ErrorLog:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeHandler(self)

    def since(self, mark: int) -> list[str]:
        return self.lines[mark:]


@dataclass
class HostileReport:
    mode: str
    cases: int
    by_category: dict[str, int]
    by_layer: dict[str, int]
    by_status: dict[str, int]
    failures: list[str]
    state_unchanged: bool
    state_diff: list[str]
    alive: bool

    @property
    def ok(self) -> bool:
        return not self.failures and self.state_unchanged and self.alive


def _report(mode: str, outcomes: list[Outcome], before: dict[str, Any], after: dict[str, Any],
            alive: bool) -> HostileReport:  # fmt: skip
    diff = [k for k in before if before[k] != after[k]]
    return HostileReport(
        mode=mode,
        cases=len(outcomes),
        by_category=dict(Counter(o.case.category for o in outcomes)),
        by_layer=dict(Counter(o.layer for o in outcomes)),
        by_status=dict(Counter(str(o.status) for o in outcomes)),
        failures=[f"{o.case.category} / {o.case.name}: {o.detail}" for o in outcomes if not o.ok],
        state_unchanged=not diff,
        state_diff=[f"{k}: {before[k]} -> {after[k]}"[:400] for k in diff],
        alive=alive,
    )


def run_in_process(
    app: EmulatorApp, api_key: str = HOSTILE_KEY
) -> tuple[HostileReport, list[Outcome]]:
    corpus = build_corpus()
    with TestClient(app, base_url="http://emulator.test",
                    headers={"Authorization": f"Bearer {api_key}"}) as client:  # fmt: skip
        fx = setup_fixture(client)
        before = snapshot(client, fx)
        outcomes = []
        with ErrorLog() as log:
            for case in corpus:
                mark = len(log.lines)
                outcome = _send(client, case, fx, over_http=False)
                if log.since(mark):
                    outcome = judge(case, outcome.status, "", b"", log.since(mark))
                outcomes.append(outcome)
        alive = client.get("/healthz").status_code == 200
        after = snapshot(client, fx)
    return _report("in-process", outcomes, before, after, alive), outcomes


def run_loopback(base_url: str, api_key: str = HOSTILE_KEY) -> tuple[HostileReport, list[Outcome]]:
    url = httpx.URL(base_url)
    host, port = url.host, int(url.port or 80)
    corpus = build_corpus() + build_raw_corpus(f"{host}:{port}")
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {api_key}"},
                      timeout=30) as client:  # fmt: skip
        fx = setup_fixture(client)
        before = snapshot(client, fx)
        outcomes = []
        with ErrorLog() as log:
            for case in corpus:
                mark = len(log.lines)
                if case.raw is None:
                    outcome = _send(client, case, fx, over_http=True)
                else:
                    data = fx.fill(case.raw.decode("latin-1")).replace("{auth}", api_key)
                    status, ctype, body = send_raw(host, port, data.encode("latin-1"))
                    outcome = judge(case, status, ctype, body)
                    time.sleep(0.02)  # let the server finish (and log) before the next case
                if log.since(mark):
                    outcome = judge(case, outcome.status, "", b"", log.since(mark))
                outcomes.append(outcome)
        alive = client.get("/healthz").status_code == 200
        after = snapshot(client, fx)
    return _report("loopback", outcomes, before, after, alive), outcomes
