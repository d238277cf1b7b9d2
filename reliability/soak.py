"""Fault soak: the stream (forward-backward submissions interleaved with optimizer steps,
weights-syncs and training checkpoints) through the wrapper while the emulator injects faults of
every kind.

A client-side httpx transport decides, for each `/v1` request the wrapper sends, whether the
emulator should fault it (probability `fault_rate`, kind drawn uniformly from the five kinds),
and if so arms that fault on the emulator (`POST /_emulator/faults`, count 1, route = the
request's route template) just before sending the request. The faults themselves are produced by
the emulator; the transport also counts what the wrapper actually saw (429, 503, HTML 502,
dropped connections). Afterwards the run is compared with a fault-free run of the same stream.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import together_rl
from together_rl_emulator import serve_emulator

from ._workload import (
    OPTIM_EVERY,
    SYNC_EVERY,
    Comparison,
    app_session_states,
    compare,
    count_by_kind,
    reference_run,
    run_stream,
    stream,
)

FAULT_KINDS = ("http_429", "http_503", "http_502_html", "drop_after_commit", "latency")
SOAK_KEY = "soak-key"
# The wrapper's own policy, only faster: the defaults back off 0.25 s to 8 s, which would make a
# 2,000-submission soak with 30 % faults last tens of minutes. 30 retries make the chance that one
# call meets 31 faults in a row (0.3**31) negligible; 8 (the default) would not over ~6,000 calls.
SOAK_RETRY = together_rl.RetryPolicy(
    max_retries=30, initial_backoff=0.005, max_backoff=0.05, call_timeout=300.0
)

_ROUTES = (
    (re.compile(r"^/v1/rl/training-sessions/[^/]+/operations/([a-z-]+)/[^/]+$"),
     "/v1/rl/training-sessions/{{session_id}}/operations/{kind}/{{operation_id}}"),
    (re.compile(r"^/v1/rl/training-sessions/[^/]+/operations/([a-z-]+)$"),
     "/v1/rl/training-sessions/{{session_id}}/operations/{kind}"),
    (re.compile(r"^/v1/rl/training-sessions/[^/]+()$"), "/v1/rl/training-sessions/{{session_id}}"),
)  # fmt: skip


def route_key(method: str, path: str) -> str | None:
    """The emulator's route template of a request (as in its stats and fault `route`)."""
    for pattern, template in _ROUTES:
        match = pattern.match(path)
        if match:
            return f"{method} {template.format(kind=match.group(1))}"
    return None


@dataclass
class FaultCounts:
    armed: Counter[str] = field(default_factory=Counter)
    seen: Counter[str] = field(default_factory=Counter)  # as observed by the client
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class FaultArmingTransport(httpx.BaseTransport):
    """Arms an emulator fault for a `fault_rate` share of the requests it forwards."""

    def __init__(
        self, base_url: str, api_key: str, fault_rate: float, rng: random.Random,
        counts: FaultCounts, latency_ms: int = 20,
    ) -> None:  # fmt: skip
        self._inner = httpx.HTTPTransport()
        self._control = httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {api_key}"}, timeout=30
        )
        self._rate = fault_rate
        self._rng = rng
        self._counts = counts
        self._latency_ms = latency_ms

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        key = route_key(request.method, request.url.path)
        if key is not None:
            with self._counts.lock:
                self._counts.requests += 1
                kind = self._rng.choice(FAULT_KINDS) if self._rng.random() < self._rate else None
            if kind is not None:
                fault: dict[str, Any] = {"kind": kind, "count": 1, "route": key}
                if kind in ("http_429", "http_503"):
                    fault["retry_after"] = 0  # Retry-After is whole seconds; 0 keeps it short
                if kind == "latency":
                    fault["latency_ms"] = self._latency_ms
                r = self._control.post("/_emulator/faults", json=fault)
                r.raise_for_status()
                with self._counts.lock:
                    self._counts.armed[kind] += 1
        try:
            response = self._inner.handle_request(request)
        except httpx.TransportError:
            with self._counts.lock:
                self._counts.seen["connection dropped"] += 1
            raise
        if response.status_code >= 400:
            with self._counts.lock:
                self._counts.seen[f"HTTP {response.status_code}"] += 1
        return response

    def close(self) -> None:
        self._inner.close()
        self._control.close()


@dataclass
class SoakReport:
    submissions: int  # forward-backward submissions
    sessions: int
    fault_rate: float
    requests: int
    faults_armed: dict[str, int]
    faults_seen: dict[str, int]
    faults_left_armed: int
    expected_operations: dict[str, int]  # per kind: what the stream submitted
    operations_created: dict[str, int]  # per kind: the emulator's counter
    idempotent_replays: dict[str, int]
    accumulated_passes: list[int]
    expected_passes: list[int]
    steps: list[int]  # per session: optimizer steps applied
    expected_steps: list[int]
    weights_versions: list[int]
    expected_weights_versions: list[int]
    results_returned: dict[str, int]  # per kind: futures that returned their result
    errors: list[str]
    comparison: Comparison
    duration_s: float

    @property
    def ok(self) -> bool:
        return (
            not self.errors
            and self.operations_created == self.expected_operations
            and self.results_returned == self.expected_operations
            and self.accumulated_passes == self.expected_passes
            and self.steps == self.expected_steps
            and self.weights_versions == self.expected_weights_versions
            and self.faults_left_armed == 0
            and self.comparison.identical
        )


def run_soak(
    n_submissions: int = 2000, n_sessions: int = 4, fault_rate: float = 0.3, seed: int = 7,
    optim_every: int = OPTIM_EVERY, sync_every: int = SYNC_EVERY,
) -> SoakReport:  # fmt: skip
    started = time.monotonic()
    steps = stream(n_submissions, n_sessions, optim_every, sync_every)
    ref_states, ref_outcome = reference_run(steps, n_sessions, seed)
    server = serve_emulator(api_keys=[SOAK_KEY], seed=0)
    counts = FaultCounts()
    rng = random.Random(seed)
    try:
        # The sessions are created before the faults start: session creation takes no
        # Idempotency-Key, so a dropped answer there could legitimately create a second session.
        faulty = [False]

        def client() -> together_rl.Client:
            transport: httpx.BaseTransport
            if faulty[0]:
                transport = FaultArmingTransport(server.base_url, SOAK_KEY, fault_rate, rng, counts)
            else:
                transport = httpx.HTTPTransport()
            faulty[0] = True  # the first client (setup) is fault-free, the drivers are not
            return together_rl.Client(
                api_key=SOAK_KEY, base_url=server.base_url, retry_policy=SOAK_RETRY,
                transport=transport,
            )  # fmt: skip

        session_ids, outcome = run_stream(client, steps, n_sessions, seed)
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {SOAK_KEY}"}
        ) as http:
            left = len(http.get("/_emulator/faults").json()["faults"])
            http.delete("/_emulator/faults")
            stats = http.get("/_emulator/stats").json()
        states = app_session_states(server.app, session_ids)
    finally:
        server.stop()
    expected = count_by_kind(steps)
    return SoakReport(
        submissions=n_submissions,
        sessions=n_sessions,
        fault_rate=fault_rate,
        requests=counts.requests,
        faults_armed=dict(counts.armed),
        faults_seen=dict(counts.seen),
        faults_left_armed=left,
        expected_operations=expected,
        operations_created={k: stats["operations_created"].get(k, 0) for k in expected},
        idempotent_replays={k: stats["idempotent_replays"].get(k, 0) for k in expected},
        accumulated_passes=[stats["sessions"][sid]["accumulated_passes"] for sid in session_ids],
        expected_passes=[s.accumulated_passes for s in ref_states],
        steps=[int(stats["sessions"][sid]["step"]) for sid in session_ids],
        expected_steps=[s.step for s in ref_states],
        weights_versions=[int(stats["sessions"][sid]["weights_version"]) for sid in session_ids],
        expected_weights_versions=[s.weights_version for s in ref_states],
        results_returned=outcome.returned_by_kind(),
        errors=outcome.errors,
        comparison=compare(states, ref_states, outcome, ref_outcome),
        duration_s=time.monotonic() - started,
    )
