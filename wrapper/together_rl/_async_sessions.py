"""``client.sessions``, the session handle, and the future of an operation: every operation kind
goes through one submit path (:meth:`AsyncSession._submit`) that returns a future."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Generator, Mapping, Sequence
from typing import Any, Generic, TypeVar, Unpack

from together_rl_client import models
from together_rl_client.api import rl
from together_rl_client.models import Session as SessionInfo

from . import _bodies, _fields, _http, _payloads, _results
from ._async_http import AsyncClientCore
from ._bodies import AdamParams, SamplingParams
from ._errors import OperationTimeoutError
from ._poll_plan import DEFAULT_RESULT_TIMEOUT, poll_wait
from ._polling import OperationPoll
from ._results import OperationKind, OperationState
from ._schema import enum_member, invalid
from .losses import Loss

__all__ = ["AsyncOperationFuture", "AsyncResourceAPI", "AsyncSession", "AsyncSessionsAPI"]

R = TypeVar("R")


class AsyncResourceAPI:
    """What every resource API of the client (``client.sessions``, ...) holds: the client."""

    def __init__(self, client: AsyncClientCore) -> None:
        self._client = client


class AsyncSessionsAPI(AsyncResourceAPI):
    """``client.sessions``: create, get, list, update and stop training sessions."""

    async def create(
        self,
        model_resources_id: str,
        *,
        wait: bool = True,
        timeout: float | None = 3600.0,
        **options: Unpack[_fields.SessionCreateKeywords],
    ) -> AsyncSession:
        """Start a session (``options``: the other ``SessionCreate`` fields, ``lora_config``,
        ``resume_from_checkpoint_id``, ...) and, with ``wait``, poll until it is RUNNING."""
        body = {"model_resources_id": model_resources_id, **options}
        info = await self._client._call(rl.start_training_session.ENDPOINT, body)
        if wait:
            info = await self._client._wait_ready(info, rl.get_training_session.ENDPOINT, timeout)
        return AsyncSession(self._client, info.id, info)

    async def get(self, session_id: str) -> AsyncSession:
        """A handle on the session, with its state as it is now."""
        info = await self._client._call(rl.get_training_session.ENDPOINT, None, session_id)
        return AsyncSession(self._client, session_id, info)

    async def list(
        self,
        *,
        status: Sequence[str] | None = None,
        limit: int | None = None,
        after: str | None = None,
    ) -> models.SessionsListResponse:
        """One page of sessions (newest first); pass ``after=page.meta.next_cursor`` for more."""
        item = models.ListTrainingSessionsStatusItem
        statuses = [enum_member("status", item, v) for v in status or ()]
        endpoint = rl.list_training_sessions.ENDPOINT
        return await self._client._page(endpoint, after=after, limit=limit, status=statuses or None)

    async def stop(self, session_id: str) -> SessionInfo:
        """Stop the session (its model resources keep running, and billing)."""
        return await self._client._call(rl.stop_training_session.ENDPOINT, None, session_id)

    async def update(
        self, session_id: str, **fields: Unpack[_fields.SessionUpdateKeywords]
    ) -> SessionInfo:
        """Change ``display_name`` and ``metadata`` (``None``: unchanged; ``""`` clears one)."""
        return await self._client._call(rl.update_training_session.ENDPOINT, fields, session_id)


class AsyncSession:
    """A training session (``info``: its last known state; ``async with`` stops it): a submit's
    retries share one Idempotency-Key (``idempotency_key`` or a uuid4); results come as futures."""

    def __init__(
        self, client: AsyncClientCore, session_id: str, info: SessionInfo | None = None
    ) -> None:
        self._client = client
        self.id = session_id
        self.info = info
        self._planner = client._planner(session_id)

    async def refresh(self) -> SessionInfo:
        """Fetch its state again (``info``)."""
        self.info = await self._client._call(rl.get_training_session.ENDPOINT, None, self.id)
        return self.info

    async def stop(self) -> SessionInfo:
        """Stop the session (its model resources keep running, and billing)."""
        self.info = await AsyncSessionsAPI(self._client).stop(self.id)
        return self.info

    async def update(self, **fields: Unpack[_fields.SessionUpdateKeywords]) -> SessionInfo:
        """Change ``display_name`` and ``metadata``; ``""`` clears a value."""
        self.info = await AsyncSessionsAPI(self._client).update(self.id, **fields)
        return self.info

    async def save_checkpoint(
        self, kind: str = "training", *, idempotency_key: str | None = None
    ) -> AsyncOperationFuture[_results.CheckpointResult]:
        """Save a checkpoint after every operation submitted before it: ``"training"`` (weights,
        optimizer state and step, to resume from) or ``"inference"`` (weights, to serve)."""
        if kind not in ("training", "inference"):
            raise invalid("kind", f"must be 'training' or 'inference', got {kind!r}")
        return await self._submit(_results.KINDS[f"{kind}-checkpoint"], None, idempotency_key)

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, stopped on exit of with)"

    async def forward_backward(
        self,
        samples: Sequence[Any],
        loss: Loss | Mapping[str, Any],
        *,
        forward_only: bool = False,
        return_loss_fn_outputs: bool = False,
        idempotency_key: str | None = None,
    ) -> AsyncOperationFuture[_results.ForwardBackwardResult]:
        """Submit a forward-backward pass; returns as soon as the POST is acknowledged."""
        body = _bodies.build_forward_backward(
            samples, loss, forward_only=forward_only, return_loss_fn_outputs=return_loss_fn_outputs
        )
        return await self._submit(_results.FORWARD_BACKWARD, body, idempotency_key)

    async def forward(
        self,
        samples: Sequence[Any],
        loss: Loss | Mapping[str, Any],
        *,
        return_loss_fn_outputs: bool = True,
        timeout: float | None = DEFAULT_RESULT_TIMEOUT,
        idempotency_key: str | None = None,
    ) -> _results.ForwardBackwardResult:
        """Score a batch (``forward_only``) and wait for the result, logprobs included."""
        future = await self.forward_backward(
            samples,
            loss,
            forward_only=True,
            return_loss_fn_outputs=return_loss_fn_outputs,
            idempotency_key=idempotency_key,
        )
        return await future.result(timeout=timeout)

    async def optim_step(
        self,
        adam_params: AdamParams | Mapping[str, Any] | None = None,
        *,
        muon_params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        **fields: Unpack[_fields.AdamParamsKeywords],
    ) -> AsyncOperationFuture[_results.OptimStepResult]:
        """Submit an AdamW step (an :class:`AdamParams` or its fields as keywords; unset: server
        defaults); ``.step`` is the new step; sampling sees it after :meth:`sync_weights`."""
        params = _bodies.params_from(AdamParams, adam_params, fields)
        return await self._submit(
            _results.OPTIM_STEP, _bodies.build_optim_step(params, muon_params), idempotency_key
        )

    async def sample(
        self,
        model_inputs: Sequence[Any] | Any,
        *,
        num_samples: int = 1,
        sampling_params: SamplingParams | Mapping[str, Any] | None = None,
        prompt_logprobs: bool = False,
        topk_prompt_logprobs: int = 0,
        return_routed_experts: bool = False,
        idempotency_key: str | None = None,
        **fields: Unpack[_fields.SamplingParamsKeywords],
    ) -> AsyncOperationFuture[_results.SampleResult]:
        """Submit ``num_samples`` completions of each prompt (token lists or 1-D arrays, or one)
        from the last synced weights; :class:`SamplingParams` fields as keywords or
        ``sampling_params``. ``result()[i].sequences[j]``: ``tokens``, ``logprobs``,
        ``stop_reason``, ``routed_experts_key`` (``return_routed_experts``)."""
        params = _bodies.params_from(SamplingParams, sampling_params, fields)
        body = _bodies.build_sample(
            model_inputs,
            num_samples=num_samples,
            sampling_params=params,
            prompt_logprobs=prompt_logprobs,
            topk_prompt_logprobs=topk_prompt_logprobs,
            return_routed_experts=return_routed_experts,
        )
        return await self._submit(_results.SAMPLE, body, idempotency_key)

    async def sync_weights(
        self,
        weight_sync_type: str = models.WeightSyncType.WEIGHT_SYNC_TYPE_SYNCHRONOUS.value,
        *,
        idempotency_key: str | None = None,
    ) -> AsyncOperationFuture[_results.WeightsSyncResult]:
        """Publish the trainer's weights to the sampler (``.weights_version``: their version)."""
        body = _bodies.build_weights_sync(weight_sync_type)
        return await self._submit(_results.WEIGHTS_SYNC, body, idempotency_key)

    async def custom_forward_backward(
        self,
        samples: Sequence[Any],
        gradients: Sequence[Any],
        *,
        idempotency_key: str | None = None,
    ) -> AsyncOperationFuture[_results.CustomForwardBackwardResult]:
        """Backpropagate your per-token gradients dLoss/dlogp (one array per sample, as long as
        it), accumulated like a built-in loss's."""
        body = _bodies.build_custom_forward_backward(samples, gradients)
        return await self._submit(_results.CUSTOM_FORWARD_BACKWARD, body, idempotency_key)

    async def get_forward_backward(
        self, operation_id: str
    ) -> AsyncOperationFuture[_results.ForwardBackwardResult]:
        """Re-attach to a forward-backward by id (e.g. after an ``OperationTimeoutError``)."""
        return await self._attach(_results.FORWARD_BACKWARD, operation_id)

    async def get_operation(self, kind: str, operation_id: str) -> AsyncOperationFuture[Any]:
        """Re-attach to an operation of ``kind`` (``"optim-step"``, ``"sample"``, ...) by id."""
        return await self._attach(_results.operation_kind(kind), operation_id)

    # internals: one implementation for every operation kind
    async def _attach(self, kind: OperationKind[R], operation_id: str) -> AsyncOperationFuture[R]:
        poll = self._planner.attached(kind.name, self._client._http.clock())
        future = AsyncOperationFuture(self, OperationState(operation_id, ""), poll, None, kind)
        await future._fetch()
        return future

    async def _submit(
        self, kind: OperationKind[R], body: dict[str, Any] | None, idempotency_key: str | None
    ) -> AsyncOperationFuture[R]:
        key = idempotency_key or str(uuid.uuid4())  # one per call, the same on its retries
        content = None if body is None else await self._client._operation_content(self.id, body)
        spec = _http.endpoint_request(kind.submit, content, self.id, idempotency_key=key)
        state = _results.interpret_operation(await self._client._json(spec), kind)
        # a forward-only pass, much shorter than one with a backward, is learned apart
        learned_as = kind.name + (":forward" if body and body.get("forward_only") else "")
        now, work = self._client._http.clock(), _bodies.operation_work(body)
        poll = self._planner.submitted(learned_as, now, work, state.server_done)
        future = AsyncOperationFuture(self, state, poll, key, kind)
        if state.offloaded is not None:
            await future._download()
        return future


class AsyncOperationFuture(Generic[R]):
    """The pending result of one submitted operation: ``result(timeout=)`` polls on the session's
    schedule and returns the kind's result (an offloaded output downloaded first); awaitable."""

    def __init__(
        self,
        session: AsyncSession,
        state: OperationState,
        poll: OperationPoll,
        idempotency_key: str | None,
        kind: OperationKind[R],
    ) -> None:
        self.session = session
        self.kind: OperationKind[R] = kind
        self.operation_id = state.operation_id
        self.idempotency_key = idempotency_key
        self._state = state
        self._poll = poll
        self._lock = asyncio.Lock()

    def done(self) -> bool:
        """True once a terminal status has been seen (no request is sent)."""
        return self._state.terminal

    @property
    def status(self) -> str:
        """The last status seen."""
        return self._state.status

    async def result(self, timeout: float | None = DEFAULT_RESULT_TIMEOUT) -> R:
        """The result, within ``timeout`` s (``None``: no limit): ``OperationFailedError`` if it
        failed, ``OperationTimeoutError`` if the time is up (it runs on: call ``result`` again)."""
        async with self._lock:
            http = self.session._client._http
            start = http.clock()
            deadline = None if timeout is None else start + timeout
            while not self._state.terminal:
                if self._state.offloaded is not None:
                    await self._download()
                    continue
                wait = poll_wait(self._poll.next_poll_at(), http.clock(), deadline)
                if wait is None:
                    remaining = 0.0 if deadline is None else max(0.0, deadline - http.clock())
                    if remaining > 0:
                        await http.sleep(remaining)
                    raise OperationTimeoutError(self.operation_id, http.clock() - start)
                if wait > 0:
                    await http.sleep(wait)
                await self._fetch()
            if self._state.failure is not None:
                raise self._state.failure
            result: R = self._state.result
            return result

    async def _fetch(self) -> None:
        client = self.session._client
        sent_at = client._http.clock()
        spec = _http.endpoint_request(self.kind.poll, None, self.session.id, self.operation_id)
        self._state = _results.interpret_operation(await client._json(spec), self.kind)
        self._poll.observe(sent_at=sent_at, done=self._state.server_done)

    async def _download(self) -> None:
        """Download the offloaded output and merge it into the inline one."""
        state, client = self._state, self.session._client
        assert state.offloaded is not None
        endpoint = rl.create_payload_download_url.ENDPOINT
        payload_id = str(state.offloaded["payload_id"])
        url = (await client._call(endpoint, b"", self.session.id, payload_id)).download_url
        output = _payloads.merge_offloaded(
            state.offloaded, await client._json(_payloads.download_request(url))
        )
        self._state = _results.complete_operation(
            self.kind, state.operation_id, state.status, output
        )

    # unasync: async only
    def __await__(self) -> Generator[Any, None, R]:
        return self.result().__await__()

    # unasync: end

    def __repr__(self) -> str:
        where = f"operation_id={self.operation_id!r}, status={self.status!r}"
        return f"{type(self).__name__}(kind={self.kind.name!r}, {where})"
