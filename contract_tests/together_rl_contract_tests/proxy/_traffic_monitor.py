"""What the proxy does with each finished exchange, off the request path: check it against the spec
and against the exchanges before it, print its violations, record it to the cassette, count it.

An answer that broke HTTP (``Exchange.defects``) is recorded and its defects printed and kept,
but not judged against the spec: its body is not what the upstream meant to send. Requests the
proxy relayed to presigned URLs are recorded and counted, not judged: they are not the API's.

Exchanges are processed one at a time, in the order their responses completed, by one worker
thread, so the client has its answer before any of this runs.
"""

from __future__ import annotations

import collections
import dataclasses
import queue
import sys
import threading
from collections.abc import Callable

from together_rl_contract_tests._spec import find_route
from together_rl_contract_tests._spec_check import SpecJudge
from together_rl_contract_tests.proxy._cassette import CassetteWriter
from together_rl_contract_tests.proxy._exchange import Exchange, Violation, parse_body
from together_rl_contract_tests.proxy._exchange_checks import check_exchange
from together_rl_contract_tests.proxy._traffic_checks import TrafficChecks

__all__ = ["Defect", "TrafficMonitor"]


@dataclasses.dataclass(frozen=True)
class Defect:
    """How one answer broke HTTP, or what of it the record could not keep."""

    seq: int
    target: str  # "METHOD path?query" (redacted)
    what: str

    def line(self) -> str:
        return f"DEFECT #{self.seq} {self.target}: {self.what}"


def _print_to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class TrafficMonitor:
    def __init__(
        self,
        recorder: CassetteWriter | None = None,
        log: Callable[[str], None] = _print_to_stderr,
        judge: SpecJudge | None = None,
    ) -> None:
        self.recorder = recorder
        self.log = log
        self.judge = judge
        self.checks = TrafficChecks()
        self.violations: list[Violation] = []
        #: Breaches only of rules of this project's choice (``x-source: emulator``): the live
        #: API was never asked, so they are differences, never violations.
        self.differences: list[Violation] = []
        #: operation id -> status code -> count
        self.by_operation: dict[str, collections.Counter[int]] = {}
        #: "METHOD path" of requests to routes the spec does not have -> count
        self.outside_spec: collections.Counter[str] = collections.Counter()
        self.exchanges = 0
        self.defects: list[Defect] = []
        self.relayed = 0  # requests relayed to presigned URLs
        self._queue: queue.Queue[Exchange | None] = queue.Queue()
        self._worker = threading.Thread(target=self._run, name="proxy-checks", daemon=True)
        self._worker.start()

    def submit(self, exchange: Exchange) -> None:
        self._queue.put(exchange)

    def close(self) -> None:
        """Process what is queued, then stop (and close the cassette)."""
        self._queue.put(None)
        self._worker.join()
        if self.recorder is not None:
            self.recorder.close()

    def _run(self) -> None:
        while (exchange := self._queue.get()) is not None:
            try:
                self.process(exchange)
            except Exception as exc:  # a checker bug must never take the proxy down
                self.log(f"proxy: could not check exchange #{exchange.seq}: {exc!r}")

    def process(self, exchange: Exchange) -> None:
        self.exchanges += 1
        if self.recorder is not None:
            self.recorder.write(exchange)
        for what in exchange.defects:
            defect = Defect(exchange.seq, exchange.target, what)
            self.defects.append(defect)
            self.log(defect.line())
        if exchange.url is not None:
            self.relayed += 1
            return
        route = find_route(exchange.method, exchange.path)
        if route is None:
            self.outside_spec[f"{exchange.method} {exchange.path}"] += 1
            return
        self.by_operation.setdefault(route.operation_id, collections.Counter())[
            exchange.status
        ] += 1
        if exchange.defects:
            return
        request, response = parse_body(exchange.request_body), parse_body(exchange.response_body)
        found = check_exchange(exchange, route, request, response, self.judge)
        found += self.checks.observe(exchange, route, request, response)
        for violation in found:
            self.log(violation.line())
        self.violations += [v for v in found if not v.difference]
        self.differences += [v for v in found if v.difference]
