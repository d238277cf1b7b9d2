"""The operation worker: one background thread executing operations in submission order.

A single FIFO across all sessions and operation kinds keeps every session's operations strictly in
submission order (an optim-step queued after three forward-backwards applies all three; a sample
queued after a weights-sync sees the new weights). For each operation: PENDING -> RUNNING (its
start, once the ones before it are done), compute, wait until the `--timing` choice lets it
complete (`_timing.py`), then COMPLETED (the new trainer state, if any, committed with the
result) or FAILED (NON_FINITE_LOSS; or SESSION_NOT_ACTIVE if the session stopped meanwhile, in
which case nothing changes).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import orjson

from ..base import (
    ERR_INTERNAL,
    ERR_INVALID_INPUT,
    ERR_NON_FINITE,
    ERR_SESSION_NOT_ACTIVE,
    SESSION_NOT_ACTIVE,
    SESSION_RUNNING,
    ApiError,
)
from ..compute import (
    TRAINER_CHANGED,
    NonFiniteLoss,
    RoutingUnavailable,
    RunContext,
    derived_seed,
    session_fields,
)
from ..cost import Timing
from ..state import Store, offload
from ._kinds import kind_named

__all__ = ["OperationWorker", "QueuedOperation"]

log = logging.getLogger("together_rl_emulator")


@dataclass
class QueuedOperation:
    operation_id: str
    session_id: str
    submitted_at: float  # wall-clock seconds (time.time()) when the POST arrived
    request: Any  # the validated request of its kind (None for a kind without a body)
    kind: str
    seq: int  # the operation's global submission number (its place in its session seeds samples)
    stored: bool = False  # True: validate the stored body again first (re-queued on restart)


class OperationWorker:
    def __init__(self, store: Store, timing: Timing) -> None:
        self._store = store
        self.timing = timing
        self._current: str | None = None  # the operation being executed
        self._queue: collections.deque[QueuedOperation] = collections.deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._start_lock = threading.Lock()

    def ensure_started(self) -> None:
        if self._thread is not None:
            return
        with self._start_lock:
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(
                    target=self._run, name="together-rl-emulator-worker", daemon=True
                )
                self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def submit(self, item: QueuedOperation) -> None:
        with self._cond:
            self._queue.append(item)
            self._cond.notify_all()

    def wake(self) -> None:
        """Interrupt a latency wait (a session was stopped)."""
        with self._cond:
            self._cond.notify_all()

    def pending(self, session_ids: Collection[str]) -> int:
        """How many operations of these sessions wait in the queue."""
        with self._cond:
            return sum(1 for item in self._queue if item.session_id in session_ids)

    def queue_position(self, operation_id: str) -> int | None:
        """How many operations run before this one starts (0: it runs), None if not queued."""
        with self._cond:
            if operation_id == self._current:
                return 0
            ahead = 0 if self._current is None else 1
            for index, item in enumerate(self._queue):
                if item.operation_id == operation_id:
                    return ahead + index
            return None

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
                item = self._queue.popleft()
                self._current = item.operation_id
            try:
                self._execute(item)
            except Exception:  # a bug: keep the worker alive, fail the operation visibly
                log.exception("operation %s failed inside the emulator", item.operation_id)
                self._store.fail_operation(
                    item.operation_id, ERR_INTERNAL, "The emulator failed internally (a bug)."
                )
            finally:
                with self._cond:
                    self._current = None

    def _execute(self, item: QueuedOperation) -> None:
        session = self._store.get_session(None, item.session_id)
        if session is None or session.status != SESSION_RUNNING:
            self._store.fail_operation(
                item.operation_id, ERR_SESSION_NOT_ACTIVE, SESSION_NOT_ACTIVE
            )
            return
        kind = kind_named(item.kind)
        request = item.request
        if item.stored and kind.validate is not None:
            request = self._reload(item, session.vocab_size)
            if request is None:
                return
        resources_id = session.body["model_resources_id"]
        resources = self._store.get_model_resources(None, resources_id) or {}
        base_model = str(resources.get("base_model", ""))
        predicted = self.timing.predicted_seconds(base_model, kind.seconds, kind.work(request))
        started_at = time.time()
        if not self._store.mark_running(item.operation_id, started_at, predicted):
            return  # already terminal (failed by a stop)
        completes_at = self.timing.completes_at(item.submitted_at, started_at, predicted)
        state = self._store.trainer(session)
        context = RunContext(
            # The n-th operation of its session: other sessions' traffic does not move it.
            seed=derived_seed(
                session.policy_seed,
                self._store.session_operation_number(item.session_id, item.seq),
            ),
            operation_id=item.operation_id,
            session_id=session.id,
            session=session.body,
            vocab_size=session.vocab_size,
            policy_seed=session.policy_seed,
            resources=resources,
            routed_experts=lambda key: self._store.get_routed_experts(
                session.owner, key, self._store.now()
            ),
        )
        try:
            outcome = kind.run(state, request, context)
        except NonFiniteLoss as exc:
            self._wait_until(item, completes_at)
            self._store.fail_operation(item.operation_id, ERR_NON_FINITE, str(exc))
            return
        except RoutingUnavailable as exc:
            self._wait_until(item, completes_at)
            self._store.fail_operation(item.operation_id, ERR_INVALID_INPUT, str(exc))
            return
        output, payload = outcome.output, None
        if kind.result_member is not None:
            output, payload = offload(output, kind.result_member, keep_empty=kind.keep_empty)
        update = outcome.update
        fields = None
        if update is not None and update.change == TRAINER_CHANGED:
            fields = session_fields(update.state)
        self._wait_until(item, completes_at)
        self._store.commit_operation(
            item.operation_id, item.session_id, output, update, payload, fields, outcome.record
        )

    def _reload(self, item: QueuedOperation, vocab_size: int) -> Any:
        raw = self._store.operation_request(item.operation_id)
        try:
            if raw is None:
                raise ApiError(400, "the stored request body is missing")
            validate = kind_named(item.kind).validate
            assert validate is not None
            return validate(orjson.loads(raw), vocab_size, None)
        except (ApiError, orjson.JSONDecodeError) as exc:
            self._store.fail_operation(
                item.operation_id, ERR_INVALID_INPUT, f"The stored request is unusable: {exc}"
            )
            return None

    def _wait_until(self, item: QueuedOperation, deadline: float) -> None:
        """Hold the result until `deadline`, or the session stopped, or shutdown."""
        with self._cond:
            while not self._stopping:
                remaining = deadline - time.time()
                if remaining <= 0:
                    return
                session = self._store.get_session(None, item.session_id)
                if session is None or session.status != SESSION_RUNNING:
                    return
                self._cond.wait(min(remaining, 0.5))
