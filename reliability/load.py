"""Load: concurrent wrapper clients (asyncio, `together_rl.AsyncClient`) on a few sessions of an
emulator subprocess, over loopback, for a bounded time.

Every HTTP exchange is recorded by a client-side transport (send and receive times, status, the
operation's id and status), which gives the latencies (POST = submit, GET = poll), the error
count, and the per-session order check: if operation A was acknowledged before B was submitted
(same session), no GET may see A still unfinished after a GET has seen B finished.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import re
import time
from dataclasses import dataclass, field

import httpx
import orjson
import together_rl
from together_rl_contract_tests.harness import TERMINAL_STATUSES, EmulatorProcess

from ._workload import TINY_MODEL, submission

LOAD_KEY = "load-key"
PIPELINE = 2  # futures each client keeps in flight
_OP_GET = re.compile(r"/training-sessions/([^/]+)/operations/forward-backward/([^/]+)$")
_OP_POST = re.compile(r"/training-sessions/([^/]+)/operations/forward-backward$")


@dataclass
class Exchange:
    method: str
    session_id: str
    operation_id: str
    sent: float
    received: float
    http_status: int
    op_status: str


@dataclass
class Recorder:
    exchanges: list[Exchange] = field(default_factory=list)
    other_errors: list[str] = field(default_factory=list)


class RecordingTransport(httpx.AsyncBaseTransport):
    def __init__(self, recorder: Recorder) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._recorder = recorder

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sent = time.monotonic()
        try:
            response = await self._inner.handle_async_request(request)
            await response.aread()
        except httpx.TransportError as exc:
            self._recorder.other_errors.append(f"{request.method} {request.url.path}: {exc!r}")
            raise
        received = time.monotonic()
        path = request.url.path
        match_get, match_post = _OP_GET.search(path), _OP_POST.search(path)
        if match_get or match_post:
            op_id, op_status = "", ""
            if response.status_code == 200:
                body = orjson.loads(response.content)
                op_id, op_status = body["id"], body["status"]
            session_id = (match_get or match_post).group(1)  # type: ignore[union-attr]
            self._recorder.exchanges.append(
                Exchange(request.method, session_id, op_id, sent, received,
                         response.status_code, op_status)
            )  # fmt: skip
        elif response.status_code >= 400:
            self._recorder.other_errors.append(f"{request.method} {path}: {response.status_code}")
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def order_violations(exchanges: list[Exchange]) -> list[str]:
    """Pairs (A before B, same session) where B was seen finished before A was seen unfinished."""
    posts = {e.operation_id: e for e in exchanges if e.method == "POST" and e.http_status == 200}
    first_done: dict[str, float] = {}
    last_pending: dict[str, float] = {}
    for e in exchanges:
        if e.http_status != 200:
            continue
        if e.op_status in TERMINAL_STATUSES:
            first_done[e.operation_id] = min(first_done.get(e.operation_id, e.received), e.received)
        else:  # the observation happened no earlier than the request was sent
            last_pending[e.operation_id] = max(last_pending.get(e.operation_id, e.sent), e.sent)
    violations: list[str] = []
    by_session: dict[str, list[Exchange]] = {}
    for post in posts.values():
        by_session.setdefault(post.session_id, []).append(post)
    for session_id, ops in by_session.items():
        ops.sort(key=lambda e: e.received)  # by acknowledgement
        acks = [e.received for e in ops]
        prefix_max: list[tuple[float, str]] = []
        best = (-1.0, "")
        for e in ops:
            pending_at = last_pending.get(e.operation_id, -1.0)
            if pending_at > best[0]:
                best = (pending_at, e.operation_id)
            prefix_max.append(best)
        for b in ops:
            done_at = first_done.get(b.operation_id)
            n_before = bisect.bisect_left(acks, b.sent)  # acknowledged before B was sent
            if done_at is None or n_before == 0:
                continue
            pending_at, a_id = prefix_max[n_before - 1]
            if pending_at > done_at:
                violations.append(f"session {session_id}: {b.operation_id} finished before {a_id}")
    return violations


@dataclass
class LoadReport:
    clients: int
    sessions: int
    duration_s: float
    operations: int
    requests: int
    errors: list[str]
    status_counts: dict[int, int]
    order_violations: list[str]
    submit_p50_ms: float
    submit_p99_ms: float
    get_p50_ms: float
    get_p99_ms: float
    result_p50_ms: float
    result_p99_ms: float
    gets_per_operation: float
    rss_start_kib: int
    rss_peak_kib: int
    server_error_lines: int

    @property
    def ok(self) -> bool:
        return (
            not self.errors
            and set(self.status_counts) == {200}
            and not self.order_violations
            and self.operations > 0
            and self.server_error_lines == 0
        )


async def _client_loop(
    session: together_rl.AsyncSession, index: int, deadline: float, results: list[float],
    errors: list[str],
) -> None:  # fmt: skip
    """Keep `PIPELINE` futures in flight until `deadline`, then collect the rest. The first
    `PIPELINE` submissions go out whatever the clock says: on a starved machine the run gets
    longer, never empty, so every client fills its pipeline at least once."""
    in_flight: list[tuple[float, together_rl.AsyncForwardBackwardFuture]] = []
    n = 0
    while time.monotonic() < deadline or n < PIPELINE or in_flight:
        try:
            if (time.monotonic() < deadline or n < PIPELINE) and len(in_flight) < PIPELINE:
                samples, loss = submission(index * 1_000_000 + n, seed=3)
                n += 1
                in_flight.append((time.monotonic(), await session.forward_backward(samples, loss)))
                continue
            submitted, future = in_flight.pop(0)
            await future.result(timeout=120)
            results.append(time.monotonic() - submitted)
        except Exception as exc:
            errors.append(f"client {index}: {type(exc).__name__}: {exc}")
            if len(errors) > 50:
                return


async def _run(base_url: str, clients: int, sessions: int, seconds: float) -> tuple[
    Recorder, list[float], list[str]
]:  # fmt: skip
    async with together_rl.AsyncClient(api_key=LOAD_KEY, base_url=base_url) as setup:
        session_ids = []
        for _ in range(sessions):  # one full-weight resource per session (it takes one)
            resources = await setup.model_resources.create(TINY_MODEL)
            session_ids.append((await setup.sessions.create(model_resources_id=resources.id)).id)
    recorder, results, errors = Recorder(), list[float](), list[str]()
    async with contextlib.AsyncExitStack() as stack:
        # Every client is built before the clock starts: building one (its connection pool and
        # TLS context) takes tens of ms of CPU, and on a loaded machine the last of 32 would
        # otherwise start after the deadline.
        sessions_of_clients = [
            (await stack.enter_async_context(together_rl.AsyncClient(
                api_key=LOAD_KEY, base_url=base_url, transport=RecordingTransport(recorder)
            ))).session(session_ids[c % sessions])
            for c in range(clients)
        ]  # fmt: skip
        deadline = time.monotonic() + seconds
        await asyncio.gather(*(
            _client_loop(session, c, deadline, results, errors)
            for c, session in enumerate(sessions_of_clients)
        ))  # fmt: skip
    return recorder, results, errors


def run_load(clients: int = 32, sessions: int = 8, seconds: float = 60.0) -> LoadReport:
    server = EmulatorProcess(api_keys=[LOAD_KEY], seed=0)
    server.start()
    try:
        rss_start = server.peak_rss_kib()
        started = time.monotonic()
        recorder, results, errors = asyncio.run(_run(server.base_url, clients, sessions, seconds))
        duration = time.monotonic() - started
        rss_peak = server.peak_rss_kib()
    finally:
        server.stop()
    ex = recorder.exchanges
    statuses: dict[int, int] = {}
    for e in ex:
        statuses[e.http_status] = statuses.get(e.http_status, 0) + 1
    posts = [e for e in ex if e.method == "POST"]
    gets = [e for e in ex if e.method == "GET"]
    log_errors = sum(1 for line in server.output if "Traceback" in line or "ERROR" in line)
    ms = 1000.0
    return LoadReport(
        clients=clients,
        sessions=sessions,
        duration_s=duration,
        operations=len(results),
        requests=len(ex),
        errors=errors + recorder.other_errors,
        status_counts=statuses,
        order_violations=order_violations(ex),
        submit_p50_ms=percentile([(e.received - e.sent) * ms for e in posts], 0.5),
        submit_p99_ms=percentile([(e.received - e.sent) * ms for e in posts], 0.99),
        get_p50_ms=percentile([(e.received - e.sent) * ms for e in gets], 0.5),
        get_p99_ms=percentile([(e.received - e.sent) * ms for e in gets], 0.99),
        result_p50_ms=percentile([r * ms for r in results], 0.5),
        result_p99_ms=percentile([r * ms for r in results], 0.99),
        gets_per_operation=len(gets) / max(1, len(posts)),
        rss_start_kib=rss_start,
        rss_peak_kib=rss_peak,
        server_error_lines=log_errors,
    )
