"""The kit's data: what a driver may declare (`FEATURES`), a scenario and its parts, an attempt
the referee saw, and the record of one logical call. A leaf module (the standard library only):
the scenarios, the rules, the referee and the runner import it, never the other way round, and a
driver process learns `FEATURES` from it without loading the kit's validators."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["FEATURES", "Attempt", "Call", "CallRecord", "Expect", "Fault", "Scenario"]

#: What a driver may declare in `supports` besides the operationIds it can perform.
FEATURES: dict[str, str] = {
    "idempotency-key": (
        "sends one Idempotency-Key per logical operation call, the same on its retries"
    ),
    "caller-idempotency-key": "uses the caller's own idempotency_key when one is given",
    "retries": (
        "retries dropped connections, truncated answers, 429 and 5xx; never 400/401/403/404/422"
    ),
    "retry-after": "waits the Retry-After seconds of a 429/503 before retrying",
    "retry-after-http-date": "waits until the HTTP date of a Retry-After",
    "retry-after-ms": "waits the retry-after-ms milliseconds",
    "polling": "polls an operation until COMPLETED or FAILED, through any other status",
    "upload": "sends bodies over the spec's threshold through upload-url and a presigned PUT",
    "download": "completes an offloaded result through download-url and a presigned GET",
}


@dataclass(frozen=True)
class Fault:
    """What the referee does to the call's requests (``target: call``) or to the GETs that poll
    its operation (``target: poll``); ``action`` names an entry of `_faults.FAULT_ACTIONS`."""

    target: str
    action: str
    count: int = 1
    status: int | None = None
    commit: bool = False
    retry_after: str | None = None
    delay_ms: int = 0
    poll_status: str | None = None
    for_ms: int = 0
    error_code: str | None = None


@dataclass(frozen=True)
class Call:
    """One logical call the driver is asked to perform."""

    op: str
    body: dict[str, Any] | None = None
    caller_key: bool = False


@dataclass(frozen=True)
class Expect:
    """What the caller must be handed back: a result (``ok``) or an error, with the HTTP
    ``status`` and the operation ``error_code`` when given. The runner judges every field."""

    ok: bool
    status: int | None = None
    error_code: str | None = None


@dataclass(frozen=True)
class Scenario:
    id: str
    level: str
    title: str
    requires: tuple[str, ...]
    rules: tuple[str, ...]
    calls: tuple[Call, ...]
    expect: Expect
    faults: tuple[Fault, ...] = field(default=())
    source: str = ""

    def features(self) -> set[str]:
        """The driver features this scenario needs: its `requires` and the ops of its calls."""
        return set(self.requires) | {call.op for call in self.calls}


@dataclass
class Attempt:
    """One HTTP request as the referee saw it, and what it answered."""

    index: int
    call: int | None
    method: str
    path: str
    query: str
    operation_id: str | None
    path_params: dict[str, str]
    headers: dict[str, str]
    body_size: int
    body_digest: str
    arrived: float
    arrived_wall: float
    body: bytes | None = None
    answered: float | None = None
    status: int | None = None
    fault: str | None = None
    retry_after_wait: float | None = None
    upstream_json: Any = None
    answered_json: Any = None

    @property
    def key(self) -> str | None:
        return self.headers.get("idempotency-key")

    def describe(self, start: float) -> str:
        """One line for a report: when, what, what the referee did."""
        answer = "no answer" if self.status is None else str(self.status)
        fault = f" [{self.fault}]" if self.fault else ""
        key = f" key={self.key}" if self.key else ""
        return (
            f"#{self.index} +{self.arrived - start:.3f}s {self.method} {self.path}"
            f" ({self.body_size} B){key} -> {answer}{fault}"
        )


@dataclass
class CallRecord:
    """One logical call: what the kit asked, what the driver answered (or why it could not),
    what the referee saw, and what the emulator holds afterwards."""

    call: Call
    request: dict[str, Any]
    started: float
    attempts: list[Attempt]
    answer: dict[str, Any] | None = None
    #: The driver's misbehaviour (crash, hang, garbled line) that left the call unanswered.
    driver_error: str | None = None
    expected: Any = None

    def on(self, operation_id: str | None) -> list[Attempt]:
        return [a for a in self.attempts if a.operation_id == operation_id]

    def own(self) -> list[Attempt]:
        """The attempts of the call's own request (its route)."""
        return self.on(self.call.op)
