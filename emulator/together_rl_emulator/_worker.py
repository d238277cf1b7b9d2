"""The operation worker: one background thread executing operations in submission order.

A single FIFO across all sessions keeps every session's operations strictly in submission order.
For each operation: PENDING -> RUNNING, compute, wait until `submitted_at + op_latency_ms`, then
COMPLETED (gradients accumulated unless forward_only) or FAILED (NON_FINITE_LOSS; or
SESSION_NOT_ACTIVE if the session stopped meanwhile, in which case nothing is accumulated).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from dataclasses import dataclass

import orjson

from ._engine import NonFiniteLoss, run_forward_backward
from ._errors import ApiError
from ._store import ERR_SESSION_NOT_ACTIVE, SESSION_RUNNING, Store
from ._validation import ForwardBackwardRequest, validate_forward_backward

log = logging.getLogger("together_rl_emulator")

ERR_NON_FINITE = "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
ERR_INTERNAL = "TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR"
ERR_INVALID_INPUT = "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"


@dataclass
class QueuedOperation:
    operation_id: str
    session_id: str
    submitted_at: float  # wall-clock seconds (time.time()) when the POST arrived
    request: ForwardBackwardRequest | None  # None: reload from the stored body (after a restart)


class OperationWorker:
    def __init__(self, store: Store, op_latency_ms: int) -> None:
        self._store = store
        self._latency_s = max(0, op_latency_ms) / 1000.0
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

    def pending(self) -> int:
        with self._cond:
            return len(self._queue)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
                item = self._queue.popleft()
            try:
                self._execute(item)
            except Exception:  # a bug: keep the worker alive, fail the operation visibly
                log.exception("operation %s failed inside the emulator", item.operation_id)
                self._store.fail_operation(
                    item.operation_id, ERR_INTERNAL, "The emulator failed internally (a bug)."
                )

    def _execute(self, item: QueuedOperation) -> None:
        session = self._store.get_session(None, item.session_id)
        if session is None or session.status != SESSION_RUNNING:
            self._store.fail_operation(
                item.operation_id, ERR_SESSION_NOT_ACTIVE, "The training session is not active."
            )
            return
        if not self._store.mark_running(item.operation_id):
            return  # already terminal (failed by a stop)
        request = item.request
        if request is None:
            request = self._reload(item, session.vocab_size)
            if request is None:
                return
        params = self._store.policy(session)
        try:
            result = run_forward_backward(params, request)
        except NonFiniteLoss as exc:
            self._wait_until(item)
            self._store.fail_operation(item.operation_id, ERR_NON_FINITE, str(exc))
            return
        self._wait_until(item)
        self._store.complete_operation(
            item.operation_id, item.session_id, result.output, result.grads
        )

    def _reload(self, item: QueuedOperation, vocab_size: int) -> ForwardBackwardRequest | None:
        raw = self._store.operation_request(item.operation_id)
        try:
            if raw is None:
                raise ApiError(400, "the stored request body is missing")
            return validate_forward_backward(orjson.loads(raw), vocab_size)
        except (ApiError, orjson.JSONDecodeError) as exc:
            self._store.fail_operation(
                item.operation_id, ERR_INVALID_INPUT, f"The stored request is unusable: {exc}"
            )
            return None

    def _wait_until(self, item: QueuedOperation) -> None:
        """Hold the result until the op latency has passed, or the session stopped, or shutdown."""
        deadline = item.submitted_at + self._latency_s
        with self._cond:
            while not self._stopping:
                remaining = deadline - time.time()
                if remaining <= 0:
                    return
                session = self._store.get_session(None, item.session_id)
                if session is None or session.status != SESSION_RUNNING:
                    return
                self._cond.wait(min(remaining, 0.5))
