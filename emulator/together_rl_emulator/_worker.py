"""The operation worker: one background thread executing operations in submission order.

A single FIFO across all sessions and operation kinds keeps every session's operations strictly in
submission order (an optim-step queued after three forward-backwards applies all three; a sample
queued after a weights-sync sees the new weights). For each operation: PENDING -> RUNNING,
compute, wait until `submitted_at + op_latency_ms`, then COMPLETED (the new trainer state, if
any, committed with the result) or FAILED (NON_FINITE_LOSS; or SESSION_NOT_ACTIVE if the session
stopped meanwhile, in which case nothing changes).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import orjson

from ._checkpoints import CHECKPOINT_KINDS, save_checkpoint
from ._engine import (
    NonFiniteLoss,
    OperationOutcome,
    derived_seed,
    encode_output,
    run_custom_forward_backward,
    run_forward_backward,
    run_optim_step,
    run_sample,
    run_weights_sync,
)
from ._errors import ApiError
from ._kinds import (
    CUSTOM_FORWARD_BACKWARD,
    FORWARD_BACKWARD,
    OPTIM_STEP,
    SAMPLE,
    WEIGHTS_SYNC,
    validate_operation,
)
from ._payloads import offload
from ._store import (
    ERR_SESSION_NOT_ACTIVE,
    SESSION_RUNNING,
    SessionRow,
    Store,
    TrainerUpdate,
    pass_update,
)
from ._validation import ForwardBackwardRequest

log = logging.getLogger("together_rl_emulator")

ERR_NON_FINITE = "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
ERR_INTERNAL = "TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR"
ERR_INVALID_INPUT = "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"


@dataclass
class QueuedOperation:
    operation_id: str
    session_id: str
    submitted_at: float  # wall-clock seconds (time.time()) when the POST arrived
    request: Any  # the validated request of its kind; None: reload the stored body (restart)
    kind: str
    seq: int  # the operation's global submission number (seeds unseeded samples)


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
        if item.kind in CHECKPOINT_KINDS:  # no request body to run
            self._checkpoint(item, session)
            return
        request = item.request
        if request is None:
            request = self._reload(item, session.vocab_size)
            if request is None:
                return
        try:
            if item.kind == FORWARD_BACKWARD:
                output, update = self._forward_backward(session, request)
            else:
                outcome = self._run_other(item, session, request)
                output, update = encode_output(outcome.output), outcome.update
        except NonFiniteLoss as exc:
            self._wait_until(item)
            self._store.fail_operation(item.operation_id, ERR_NON_FINITE, str(exc))
            return
        payload = None
        if item.kind in (FORWARD_BACKWARD, SAMPLE):
            member = "loss_fn_outputs" if item.kind == FORWARD_BACKWARD else "results"
            output, payload = offload(output, member, keep_empty=item.kind == SAMPLE)
        self._wait_until(item)
        self._store.commit_operation(item.operation_id, item.session_id, output, update, payload)

    def _checkpoint(self, item: QueuedOperation, session: SessionRow) -> None:
        resources = self._store.get_model_resources(None, session.body["model_resources_id"])
        output, saved = save_checkpoint(
            item.kind, item.operation_id, self._store.trainer(session), session, resources or {}
        )
        self._wait_until(item)
        self._store.commit_operation(
            item.operation_id, item.session_id, encode_output(output), None, record=saved
        )

    def _forward_backward(
        self, session: SessionRow, request: ForwardBackwardRequest
    ) -> tuple[bytes, TrainerUpdate | None]:
        state = self._store.trainer(session)
        result = run_forward_backward(state.params, request)
        if result.grads is None:
            return result.output, None
        return result.output, pass_update(state, result.grads)

    def _run_other(
        self, item: QueuedOperation, session: SessionRow, request: Any
    ) -> OperationOutcome:
        state = self._store.trainer(session)
        if item.kind == OPTIM_STEP:
            return run_optim_step(state, request)
        if item.kind == WEIGHTS_SYNC:
            return run_weights_sync(state, request)
        if item.kind == CUSTOM_FORWARD_BACKWARD:
            return run_custom_forward_backward(state, request)
        if item.kind == SAMPLE:
            seed = request.seed
            if seed is None:  # reproducible for a given --seed and submission order
                seed = derived_seed(session.policy_seed, item.seq)
            return run_sample(state, request, seed)
        raise ValueError(f"unknown operation kind {item.kind!r}")

    def _reload(self, item: QueuedOperation, vocab_size: int) -> Any:
        raw = self._store.operation_request(item.operation_id)
        try:
            if raw is None:
                raise ApiError(400, "the stored request body is missing")
            return validate_operation(item.kind, orjson.loads(raw), vocab_size)
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
