"""The referee's fault actions, in one registry: whether the request reaches the emulator first,
what the attempt is called in a report, and what is played on the socket. The scenario schema's
`action` enum is this registry's names (filled in when the schema is loaded), so a new action is
one entry here."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from . import _spec
from ._types import Attempt, Fault

__all__ = ["FAULT_ACTIONS", "Exchange", "FaultAction", "unknown_operation_status"]


class Exchange(Protocol):
    """One attempt being answered, as the referee offers it to a fault action."""

    attempt: Attempt
    #: The emulator's answer (status, body) when the request was forwarded.
    status: int
    payload: bytes
    #: When the call began (monotonic), for faults that last a while.
    call_started: float

    @property
    def document(self) -> Any:
        """The emulator's answer as JSON (None when not forwarded, not JSON or large)."""
        ...

    async def respond(self, payload: bytes | None = None, *, cut: int | None = None) -> bool:
        """Send the emulator's answer (or ``payload`` in its place), cut after ``cut`` bytes;
        True when the connection may carry another request."""
        ...

    async def respond_status(self, fault: Fault) -> bool:
        """Send the scripted error status of ``fault``, with its Retry-After."""
        ...

    def drop(self) -> bool:
        """Close the connection without an answer."""
        ...


@dataclass(frozen=True)
class FaultAction:
    name: str
    #: Does the request reach the emulator before the fault is played?
    forwards: Callable[[Fault], bool]
    #: The attempt's name in a report.
    describe: Callable[[Fault], str]
    play: Callable[[Exchange, Fault], Awaitable[bool]]


def unknown_operation_status() -> str:
    """A status value of the spec's OperationStatus family that the spec does not list."""
    values = _spec.enum_values("OperationStatus")
    prefix = _spec.enum_value("OperationStatus", "PENDING")[: -len("PENDING")]
    candidate = prefix + "SUSPENDED_FOR_MAINTENANCE"
    assert candidate not in values
    return candidate


def _commit(fault: Fault) -> str:
    return "after commit" if fault.commit else "before commit"


def _describe_status(fault: Fault) -> str:
    after = f" retry_after={fault.retry_after}" if fault.retry_after else ""
    return f"{fault.status} {_commit(fault)}{after}"


async def _play_status(exchange: Exchange, fault: Fault) -> bool:
    return await exchange.respond_status(fault)


async def _play_drop(exchange: Exchange, fault: Fault) -> bool:
    return exchange.drop()


async def _play_truncate(exchange: Exchange, fault: Fault) -> bool:
    await exchange.respond(cut=len(exchange.payload) // 2)
    return False


async def _play_delay(exchange: Exchange, fault: Fault) -> bool:
    await asyncio.sleep(fault.delay_ms / 1000)
    return await exchange.respond()


def _operation(exchange: Exchange) -> dict[str, Any] | None:
    """The emulator's operation document, when it answered one."""
    document = exchange.document
    if exchange.status == 200 and isinstance(document, dict) and "status" in document:
        return dict(document)
    return None


async def _play_fail(exchange: Exchange, fault: Fault) -> bool:
    operation = _operation(exchange)
    if operation is None:
        return await exchange.respond()
    operation["status"] = _spec.enum_value("OperationStatus", "FAILED")
    operation.pop("output", None)
    operation["error"] = {
        "code": fault.error_code,
        "message": f"the client kit failed this operation with {fault.error_code}",
    }
    return await exchange.respond(orjson.dumps(operation))


async def _play_poll_status(exchange: Exchange, fault: Fault) -> bool:
    operation = _operation(exchange)
    if operation is None:
        return await exchange.respond()
    if fault.for_ms and time.monotonic() >= exchange.call_started + fault.for_ms / 1000:
        exchange.attempt.fault = None  # its time is over: the emulator's answer goes through
        return await exchange.respond()
    operation["status"] = (
        unknown_operation_status()
        if fault.poll_status == "unknown"
        else _spec.enum_value("OperationStatus", str(fault.poll_status))
    )
    operation.pop("output", None)
    operation.pop("error", None)
    return await exchange.respond(orjson.dumps(operation))


def _committed(fault: Fault) -> bool:
    return fault.commit


def _always(fault: Fault) -> bool:
    return True


_ACTIONS = [
    FaultAction("status", _committed, _describe_status, _play_status),
    FaultAction("drop", _committed, lambda f: f"connection dropped {_commit(f)}", _play_drop),
    FaultAction("truncate", _always, lambda f: "answer truncated", _play_truncate),
    FaultAction("delay", _always, lambda f: f"answer held {f.delay_ms} ms", _play_delay),
    FaultAction(
        "poll_status", _always, lambda f: f"answered status {f.poll_status}", _play_poll_status
    ),
    FaultAction("fail", _always, lambda f: f"answered FAILED {f.error_code}", _play_fail),
]
FAULT_ACTIONS: dict[str, FaultAction] = {action.name: action for action in _ACTIONS}
