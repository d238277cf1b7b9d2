"""One HTTP exchange as the proxy saw it, with secrets already removed."""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson

from together_rl_contract_tests._spec_check import Rule

__all__ = [
    "NOT_JSON",
    "NO_BODY",
    "SECRET_HEADERS",
    "Exchange",
    "Violation",
    "json_body",
    "parse_body",
    "public_headers",
]

#: Headers never kept (in memory past forwarding, in a cassette, a report or a log).
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"}
)


def public_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``headers`` (lower-cased names) without the secret ones."""
    return [(n.lower(), v) for n, v in headers if n.lower() not in SECRET_HEADERS]


@dataclasses.dataclass
class Exchange:
    seq: int
    method: str
    path: str
    query: str
    request_headers: list[tuple[str, str]]  # public only
    request_body: bytes
    status: int
    response_headers: list[tuple[str, str]]  # public only
    response_body: bytes  # decoded (Content-Encoding undone)
    started: float  # monotonic, when the request reached the proxy
    finished: float  # monotonic, when the response was complete
    #: How the answer broke HTTP or what of it the record could not keep, each named (a body cut
    #: short, a corrupt compressed stream, a status outside 100-599, no answer at all).
    defects: list[str] = dataclasses.field(default_factory=list)
    #: For a request the proxy relayed to a presigned URL: that URL, its credentials redacted.
    url: str | None = None

    def header(self, name: str, *, response: bool = False) -> str | None:
        for n, v in self.response_headers if response else self.request_headers:
            if n == name.lower():
                return v
        return None

    @property
    def target(self) -> str:
        return f"{self.method} {self.path}" + (f"?{self.query}" if self.query else "")


@dataclasses.dataclass(frozen=True)
class Violation:
    """A way an exchange (or a sequence of them) departs from the spec or the API's promises."""

    check: str  # e.g. "request", "response", "status-order", "idempotency", "loss"
    operation: str  # operation id, or the request line for routes the spec lacks
    field: str | None  # wire path of the field, e.g. "output.loss" or "header Retry-After"
    message: str
    seq: int
    #: The rules of the spec broken, with their sources (empty: not a rule with a source).
    rules: tuple[Rule, ...] = ()

    @property
    def difference(self) -> bool:
        """A breach only of rules that are this project's choice (``x-source: emulator``): the
        live API was never asked, so it is reported as a difference, never as a violation."""
        return bool(self.rules) and all(rule.is_emulator_choice for rule in self.rules)

    def line(self) -> str:
        where = f" {self.field}:" if self.field else ""
        kind = "DIFFERENCE" if self.difference else "VIOLATION"
        text = f"{kind} [{self.check}] {self.operation} (#{self.seq}){where} {self.message}"
        if self.difference:
            text += "; rule: " + "; ".join(rule.describe() for rule in self.rules)
        return text


def json_body(body: bytes) -> Any:
    """The body parsed as JSON; raises ValueError when it is not JSON."""
    return orjson.loads(body)


NO_BODY = object()  # an empty body
NOT_JSON = object()  # a body that is not JSON


def parse_body(body: bytes) -> Any:
    """The body parsed as JSON, or ``NO_BODY`` / ``NOT_JSON``."""
    if not body.strip():
        return NO_BODY
    try:
        return orjson.loads(body)
    except ValueError:
        return NOT_JSON
