"""Checks across exchanges, which no single request/response pair can show:

- the same ``Idempotency-Key`` with the same body gives the same operation id;
- an operation's status never goes backwards (PENDING -> RUNNING -> COMPLETED | FAILED, and a
  terminal status never changes), and COMPLETED carries ``output``;
- the live loss probe: a completed forward-backward whose request asked for
  ``return_loss_fn_outputs`` has its loss recomputed from the returned log-probs under the
  project's definitions (``_loss_reference``); the report says which definition matched.

Exchanges are fed in the order their responses completed. Two requests in flight at once may be
answered in either order, so an operation's status is only compared with answers that had
arrived before the request was sent.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from together_rl_contract_tests import _loss_reference as ref
from together_rl_contract_tests._spec import (
    OPERATION_KINDS,
    Route,
    choices,
    enum_value,
    operation_kind,
)
from together_rl_contract_tests.proxy._exchange import Exchange, Violation

__all__ = ["LossProbe", "TrafficChecks"]

COMPLETED = enum_value("OperationStatus", "COMPLETED")
TERMINAL = (COMPLETED, enum_value("OperationStatus", "FAILED"))
#: operationIds of the forward-backward POST and of its GET.
SUBMIT_FORWARD_BACKWARD, GET_FORWARD_BACKWARD = OPERATION_KINDS[operation_kind("forward-backward")]


def _status_ranks() -> dict[str, int]:
    """Lifecycle rank of each known status, in the spec's enum order (terminal ones share one)."""
    lifecycle = [s for s in choices("OperationStatus") if s not in TERMINAL]
    ranks = {status: rank for rank, status in enumerate(lifecycle)}
    ranks.update({status: len(lifecycle) for status in TERMINAL})
    return ranks


@dataclasses.dataclass(frozen=True)
class LossProbe:
    seq: int
    operation_id: str
    loss_type: str
    observed: float
    expected: float  # the project's definition
    matched: tuple[str, ...]  # candidate definitions the observed loss matches

    @property
    def matches_project(self) -> bool:
        return ref.matches(self.observed, self.expected)


@dataclasses.dataclass
class _Seen:
    finished: float
    status: str
    seq: int


class TrafficChecks:
    def __init__(self) -> None:
        self._ranks = _status_ranks()
        self._keys: dict[tuple[str, str], tuple[str, str, int]] = {}  # -> (digest, id, seq)
        self._statuses: dict[str, list[_Seen]] = {}
        self._loss_requests: dict[str, dict[str, Any]] = {}
        self.loss_probes: list[LossProbe] = []
        self.loss_unprobed: dict[str, int] = {}  # why a forward-backward was not probed -> count

    def observe(
        self, exchange: Exchange, route: Route, request: Any, response: Any
    ) -> list[Violation]:
        """``request``/``response``: the bodies as ``_exchange.parse_body`` gives them."""
        if exchange.status != 200 or not isinstance(response, dict):
            return []
        operation_id = response.get("id")
        if not isinstance(operation_id, str) or "/operations/" not in route.template:
            return []
        found = self._idempotency(exchange, route, operation_id)
        found += self._lifecycle(exchange, route, operation_id, response)
        if route.operation_id in (SUBMIT_FORWARD_BACKWARD, GET_FORWARD_BACKWARD):
            found += self._loss(exchange, route, operation_id, request, response)
        return found

    # ------------------------------------------------------------------------- idempotency

    def _idempotency(self, exchange: Exchange, route: Route, operation_id: str) -> list[Violation]:
        key = exchange.header("Idempotency-Key")
        if exchange.method != "POST" or key is None:
            return []
        digest = hashlib.sha256(exchange.request_body).hexdigest()
        first = self._keys.setdefault((exchange.path, key), (digest, operation_id, exchange.seq))
        if first[0] != digest or first[1] == operation_id:
            return []
        return [
            Violation(
                "idempotency",
                route.operation_id,
                "id",
                f"the same Idempotency-Key and body gave operation {first[1]} (#{first[2]}), "
                f"now {operation_id}: a retry created a second operation",
                exchange.seq,
            )
        ]

    # ------------------------------------------------------------------------- lifecycle

    def _lifecycle(
        self, exchange: Exchange, route: Route, operation_id: str, response: dict[str, Any]
    ) -> list[Violation]:
        status = response.get("status")
        found = []
        if status == COMPLETED and response.get("output") is None:
            found.append(
                Violation(
                    "lifecycle",
                    route.operation_id,
                    "output",
                    f"{COMPLETED} without output",
                    exchange.seq,
                )
            )
        if not isinstance(status, str) or status not in self._ranks:
            return found  # missing or unknown: the schema check reports it
        seen = self._statuses.setdefault(operation_id, [])
        before = [s for s in seen if s.finished <= exchange.started]
        if before:
            latest = max(before, key=lambda s: (self._ranks[s.status], s.finished))
            backwards = self._ranks[status] < self._ranks[latest.status]
            changed_terminal = latest.status in TERMINAL and status != latest.status
            if backwards or changed_terminal:
                found.append(
                    Violation(
                        "lifecycle",
                        route.operation_id,
                        "status",
                        f"operation {operation_id} went from {latest.status} (#{latest.seq}) "
                        f"back to {status}",
                        exchange.seq,
                    )
                )
        seen.append(_Seen(exchange.finished, status, exchange.seq))
        return found

    # ------------------------------------------------------------------------- loss probe

    def _loss(
        self,
        exchange: Exchange,
        route: Route,
        operation_id: str,
        request: Any,
        response: dict[str, Any],
    ) -> list[Violation]:
        if route.operation_id == SUBMIT_FORWARD_BACKWARD and isinstance(request, dict):
            if not request.get("return_loss_fn_outputs"):
                self._skip("the request did not ask for loss_fn_outputs")
            elif "payload_id" in request:
                self._skip("the request body was offloaded (payload_id)")
            else:
                self._loss_requests.setdefault(operation_id, request)
        body = self._loss_requests.get(operation_id)
        output = response.get("output")
        if body is None or response.get("status") != COMPLETED or not isinstance(output, dict):
            return []
        del self._loss_requests[operation_id]
        if "payload_id" in output:
            self._skip("the result was offloaded (payload_id)")
            return []
        try:
            probe = self._probe(exchange.seq, operation_id, body, output)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            self._skip(f"the loss could not be recomputed ({type(exc).__name__}: {exc})")
            return []
        self.loss_probes.append(probe)
        if probe.matches_project:
            return []
        matched = ", ".join(probe.matched) or "none of the candidate definitions"
        return [
            Violation(
                "loss",
                route.operation_id,
                "output.loss",
                f"{probe.observed:.6g} differs from the project's {probe.loss_type} definition "
                f"({probe.expected:.6g}) recomputed from the returned log-probs; it matches: "
                f"{matched}",
                exchange.seq,
            )
        ]

    def _probe(
        self, seq: int, operation_id: str, body: dict[str, Any], output: dict[str, Any]
    ) -> LossProbe:
        loss = body["loss"]
        returned = [out["tensors"]["logprobs"]["data"] for out in output["loss_fn_outputs"]]
        samples = ref.sample_inputs(body, returned)
        candidates = ref.candidate_losses(loss["type"], samples, loss)
        observed = float(output["loss"])
        return LossProbe(
            seq=seq,
            operation_id=operation_id,
            loss_type=loss["type"],
            observed=observed,
            expected=ref.reference_loss(loss["type"], samples, loss),
            matched=tuple(
                label for label, value in candidates.items() if ref.matches(observed, value)
            ),
        )

    def _skip(self, reason: str) -> None:
        self.loss_unprobed[reason] = self.loss_unprobed.get(reason, 0) + 1
