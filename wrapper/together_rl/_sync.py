"""The synchronous client. :mod:`._async` mirrors it line for line; both take their decisions
from :mod:`._policy` and :mod:`._core`, so only the I/O differs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
from together_rl_client.models import ModelResources, SessionsListResponse, SupportedModels
from together_rl_client.models import Session as SessionInfo

from . import _core
from ._errors import OperationTimeoutError
from ._http import RequestSpec, SyncHTTP, parse_json, resolve_config
from ._policy import PollPlanner, PollPolicy, RetryPolicy, poll_wait, readiness_interval
from ._results import ForwardBackwardResult
from ._wire import build_forward_backward
from .losses import Loss

DEFAULT_RESULT_TIMEOUT = 300.0


class Client:
    """Synchronous client of the RL training API.

    ``api_key`` defaults to ``TOGETHER_API_KEY``; ``base_url`` to ``TOGETHER_BASE_URL`` or
    ``https://api.together.ai`` (without ``/v1``). One pooled httpx client per instance; use it
    as a context manager or call :meth:`close`. ``transport`` (an httpx transport) and
    ``sleep`` are for tests and instrumentation.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        retry_policy: RetryPolicy | None = None,
        poll_policy: PollPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        key, root = resolve_config(api_key, base_url)
        self.base_url = root
        self.retry_policy = retry_policy or RetryPolicy()
        self.poll_policy = poll_policy or PollPolicy()
        self._http = SyncHTTP(
            api_key=key,
            root=root,
            policy=self.retry_policy,
            transport=transport,
            sleep=sleep,
            clock=clock,
        )
        self._planners: dict[str, PollPlanner] = {}
        self._planners_lock = threading.Lock()
        self.sessions = Sessions(self)
        self.model_resources = ModelResourcesAPI(self)

    def session(self, session_id: str) -> Session:
        """A handle on an existing session (no request is sent)."""
        return Session(self, session_id)

    def supported_models(self) -> SupportedModels:
        return _core.parse_supported_models(self._json(_core.supported_models_request()))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # internals shared by the resource classes
    def _json(self, spec: RequestSpec) -> Any:
        return parse_json(self._http.send(spec), spec.operation)

    def _planner(self, session_id: str) -> PollPlanner:
        with self._planners_lock:
            planner = self._planners.get(session_id)
            if planner is None:
                planner = self._planners[session_id] = PollPlanner(self.poll_policy)
            return planner

    def _wait_ready(
        self,
        fetch: Callable[[], Any],
        ready: Callable[[Any], bool],
        timeout: float | None,
        what: str,
        initial: Any,
    ) -> Any:
        clock, current, attempt = self._http.clock, initial, 0
        deadline = None if timeout is None else clock() + timeout
        while not ready(current):
            if deadline is not None and clock() >= deadline:
                raise TimeoutError(f"{what} not ready after {timeout} s")
            self._http.sleep(readiness_interval(attempt))
            attempt += 1
            current = fetch()
        return current


class ModelResourcesAPI:
    """``client.model_resources``: create and get model resources."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        base_model: str,
        *,
        wait: bool = True,
        timeout: float | None = 3600.0,
        **options: Any,
    ) -> ModelResources:
        """Create model resources (``options``: the other ``ModelResourcesCreate`` fields) and,
        with ``wait``, poll until READY (raising ``ResourceStateError`` on ERROR/STOPPED)."""
        spec = _core.create_model_resources_request(base_model, options)
        resources = _core.parse_model_resources(self._client._json(spec))
        if not wait:
            return resources
        return self._client._wait_ready(
            lambda: self.get(resources.id),
            _core.resources_readiness,
            timeout,
            f"model resources {resources.id}",
            resources,
        )

    def get(self, model_resources_id: str) -> ModelResources:
        spec = _core.get_model_resources_request(model_resources_id)
        return _core.parse_model_resources(self._client._json(spec))


class Sessions:
    """``client.sessions``: create, get, list and stop training sessions."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        model_resources_id: str,
        *,
        display_name: str | None = None,
        lora_config: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        resume_from_checkpoint_id: str | None = None,
        load_optimizer: bool | None = None,
        wait: bool = True,
        timeout: float | None = 3600.0,
    ) -> Session:
        """Start a session and, with ``wait``, poll until it is RUNNING."""
        options = {
            "display_name": display_name,
            "lora_config": lora_config,
            "metadata": metadata,
            "resume_from_checkpoint_id": resume_from_checkpoint_id,
            "load_optimizer": load_optimizer,
        }
        spec = _core.create_session_request(model_resources_id, options)
        info = _core.parse_session(self._client._json(spec))
        if wait:
            info = self._client._wait_ready(
                lambda: self._info(info.id),
                _core.session_readiness,
                timeout,
                f"session {info.id}",
                info,
            )
        return Session(self._client, info.id, info)

    def get(self, session_id: str) -> Session:
        return Session(self._client, session_id, self._info(session_id))

    def list(
        self,
        *,
        status: Sequence[str] | None = None,
        limit: int | None = None,
        after: str | None = None,
    ) -> SessionsListResponse:
        """One page of sessions (newest first); pass ``after=page.meta.next_cursor`` for more."""
        spec = _core.list_sessions_request(
            after=after, limit=limit, status=list(status) if status else None
        )
        return _core.parse_sessions(self._client._json(spec))

    def stop(self, session_id: str) -> SessionInfo:
        return _core.parse_session(self._client._json(_core.stop_session_request(session_id)))

    def _info(self, session_id: str) -> SessionInfo:
        return _core.parse_session(self._client._json(_core.get_session_request(session_id)))


class Session:
    """A training session: submit forward-backward passes, collect their results."""

    def __init__(self, client: Client, session_id: str, info: SessionInfo | None = None) -> None:
        self._client = client
        self.id = session_id
        self.info = info
        self._planner = client._planner(session_id)

    def refresh(self) -> SessionInfo:
        self.info = self._client.sessions._info(self.id)
        return self.info

    def stop(self) -> SessionInfo:
        self.info = self._client.sessions.stop(self.id)
        return self.info

    def forward_backward(
        self,
        samples: Sequence[Any],
        loss: Loss | Mapping[str, Any],
        *,
        forward_only: bool = False,
        return_loss_fn_outputs: bool = False,
        idempotency_key: str | None = None,
    ) -> ForwardBackwardFuture:
        """Submit a forward-backward pass; returns as soon as the POST is acknowledged.

        One Idempotency-Key (``idempotency_key`` or a new uuid4) is used for every retry of
        this call, so a retried POST never creates a second operation.
        """
        body = build_forward_backward(
            samples, loss, forward_only=forward_only, return_loss_fn_outputs=return_loss_fn_outputs
        )
        key = idempotency_key or _core.new_idempotency_key()
        spec = _core.forward_backward_request(self.id, body, key)
        data = self._client._json(spec)
        state = _core.interpret_operation(data)
        kind = _core.FORWARD_BACKWARD + (":forward" if forward_only else "")
        poll = self._planner.submitted(kind, self._client._http.clock())
        return ForwardBackwardFuture(self, state, poll, idempotency_key=key)

    def forward(
        self,
        samples: Sequence[Any],
        loss: Loss | Mapping[str, Any],
        *,
        return_loss_fn_outputs: bool = True,
        timeout: float | None = DEFAULT_RESULT_TIMEOUT,
        idempotency_key: str | None = None,
    ) -> ForwardBackwardResult:
        """Score a batch (``forward_only``) and wait for the result, logprobs included."""
        future = self.forward_backward(
            samples,
            loss,
            forward_only=True,
            return_loss_fn_outputs=return_loss_fn_outputs,
            idempotency_key=idempotency_key,
        )
        return future.result(timeout=timeout)

    def get_forward_backward(self, operation_id: str) -> ForwardBackwardFuture:
        """Re-attach to an operation by id (e.g. after an ``OperationTimeoutError``)."""
        state = _core.OperationState(operation_id, "")
        poll = self._planner.attached(_core.FORWARD_BACKWARD, self._client._http.clock())
        future = ForwardBackwardFuture(self, state, poll, idempotency_key=None)
        future._fetch()
        return future

    def _get_operation(self, operation_id: str) -> _core.OperationState:
        spec = _core.get_forward_backward_request(self.id, operation_id)
        return _core.interpret_operation(self._client._json(spec))


class ForwardBackwardFuture:
    """The pending result of a forward-backward submission.

    ``result(timeout=)`` polls on the session's learned schedule and returns the
    :class:`ForwardBackwardResult`, raises ``OperationFailedError`` (FAILED) or
    ``OperationTimeoutError`` (a ``TimeoutError``; the operation keeps running, call
    ``result`` again or ``session.get_forward_backward(operation_id)`` later).
    """

    def __init__(
        self,
        session: Session,
        state: _core.OperationState,
        poll: Any,
        *,
        idempotency_key: str | None,
    ) -> None:
        self.session = session
        self.operation_id = state.operation_id
        self.idempotency_key = idempotency_key
        self._state = state
        self._poll = poll
        self._lock = threading.Lock()
        if state.terminal:
            session._planner.finished(poll)

    def done(self) -> bool:
        """True once a terminal status has been seen (no request is sent)."""
        return self._state.terminal

    @property
    def status(self) -> str:
        """The last status seen."""
        return self._state.status

    def result(self, timeout: float | None = DEFAULT_RESULT_TIMEOUT) -> ForwardBackwardResult:
        with self._lock:
            http = self.session._client._http
            start = http.clock()
            deadline = None if timeout is None else start + timeout
            while not self._state.terminal:
                wait = poll_wait(self._poll.next_poll_at(), http.clock(), deadline)
                if wait is None:
                    remaining = 0.0 if deadline is None else max(0.0, deadline - http.clock())
                    if remaining > 0:
                        http.sleep(remaining)
                    self.session._planner.finished(self._poll)
                    raise OperationTimeoutError(self.operation_id, http.clock() - start)
                if wait > 0:
                    http.sleep(wait)
                self._fetch()
            return self._outcome()

    def _fetch(self) -> None:
        http = self.session._client._http
        sent_at = http.clock()
        self._state = self.session._get_operation(self.operation_id)
        self._poll.observe(sent_at=sent_at, done=self._state.terminal)
        if self._state.terminal:
            self.session._planner.finished(self._poll)

    def _outcome(self) -> ForwardBackwardResult:
        if self._state.failure is not None:
            raise self._state.failure
        assert self._state.result is not None
        return self._state.result

    def __repr__(self) -> str:
        return f"ForwardBackwardFuture(operation_id={self.operation_id!r}, status={self.status!r})"
