"""The asynchronous client. Every request goes through one generic call over the generated
endpoints (:meth:`AsyncClient._call`), every operation through one submit / poll / collect path;
the decisions come from :mod:`._http`, :mod:`._responses` and :mod:`._polling`; only the I/O
is here."""

# unasync: async only
# scripts/unasync.py derives _sync.py from this file (make derive): edit here, not there.
# unasync: end

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any, Generic, ParamSpec, TypeVar, Unpack

import httpx
from together_rl_client import models
from together_rl_client.api import rl
from together_rl_client.models import ModelResources as ModelResourcesInfo
from together_rl_client.models import Session as SessionInfo
from together_rl_client.types import Endpoint

from . import _bodies, _downloads, _fields, _http, _payloads, _polling, _responses, _results
from ._async_http import AsyncHTTP
from ._bodies import AdamParams, SamplingParams
from ._errors import APIStatusError, NotReadyError, OperationTimeoutError
from ._http import RequestSpec
from ._keep_alive import AsyncKeepAlive
from ._polling import DEFAULT_RESULT_TIMEOUT, OperationPoll, PollPlanner, PollPolicy
from ._responses import OperationState
from ._results import (
    CheckpointResult,
    CustomForwardBackwardResult,
    ForwardBackwardResult,
    OperationKind,
    OptimStepResult,
    SampleResult,
    WeightsSyncResult,
)
from ._retry import RetryPolicy
from ._schema import check_enum, invalid
from .losses import Loss

__all__ = [
    "AsyncCheckpointsAPI",
    "AsyncClient",
    "AsyncModelResources",
    "AsyncModelResourcesAPI",
    "AsyncOperationFuture",
    "AsyncRolloutsAPI",
    "AsyncSession",
    "AsyncSessionsAPI",
]

P = ParamSpec("P")
M = TypeVar("M")
R = TypeVar("R")
E = TypeVar("E", bound=Enum)
InfoT = TypeVar("InfoT", SessionInfo, ModelResourcesInfo)


class AsyncClient:
    """Asynchronous client of the RL training API.

    ``api_key`` defaults to ``TOGETHER_API_KEY``; ``base_url`` to ``TOGETHER_BASE_URL`` or
    ``https://api.together.ai`` (without ``/v1``). One pooled httpx client per instance; use it
    as a context manager (``async with``) or close it with :meth:`close`.
    ``transport`` (an httpx transport), ``sleep`` and ``clock`` are for tests and
    instrumentation. Operation bodies larger than ``upload_threshold`` bytes (0.5 MiB, as the
    official SDK) go through the upload protocol; ``None`` always sends them inline.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        retry_policy: RetryPolicy | None = None,
        poll_policy: PollPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        upload_threshold: int | None = _payloads.UPLOAD_THRESHOLD,
    ) -> None:
        key, root = _http.resolve_config(api_key, base_url)
        self.base_url = root
        self.retry_policy = retry_policy or RetryPolicy()
        self.poll_policy = poll_policy or PollPolicy()
        self.upload_threshold = upload_threshold
        self._uploads_supported = True
        self._http = AsyncHTTP(key, root, self.retry_policy, transport, sleep, clock)
        # A session's planner lives as long as a handle on the session (or a future of it).
        self._planners: weakref.WeakValueDictionary[str, PollPlanner] = (
            weakref.WeakValueDictionary()
        )
        self._planners_lock = threading.Lock()
        self.sessions = AsyncSessionsAPI(self)
        self.model_resources = AsyncModelResourcesAPI(self)
        self.checkpoints = AsyncCheckpointsAPI(self)
        self.rollouts = AsyncRolloutsAPI(self)

    def session(self, session_id: str) -> AsyncSession:
        """A handle on an existing session (no request is sent)."""
        return AsyncSession(self, session_id)

    async def supported_models(self) -> models.SupportedModels:
        """The base models the API can train, with their limits."""
        return await self._call(rl.get_supported_models.ENDPOINT, None)

    async def close(self) -> None:
        """Close the pooled connections."""
        await self._http.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # internals shared by the resource classes
    async def _call(
        self,
        endpoint: Endpoint[P, M],
        body: Mapping[str, Any] | bytes | None,
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> M:
        """The one way to call an endpoint: build its request (``body``: the fields of its
        request model, or the encoded body), send it with retries, read the 2xx body with its
        generated model."""
        spec = _http.endpoint_request(endpoint, body, *args, **kwargs)
        return _responses.read_body(endpoint, await self._json(spec), spec.operation)

    async def _page(self, endpoint: Endpoint[..., M], **query: Any) -> M:
        """One page of a list endpoint (``query``: its parameters; ``None`` leaves one out)."""
        return await self._call(endpoint, None, **query)

    async def _json(self, spec: RequestSpec) -> Any:
        return _http.parse_json(await self._http.send(spec), spec.operation)

    def _planner(self, session_id: str) -> PollPlanner:
        """The session's planner: one per session id while a handle on the session lives."""
        with self._planners_lock:
            planner = self._planners.get(session_id)
            if planner is None:
                planner = PollPlanner(self.poll_policy)
                self._planners[session_id] = planner
            return planner

    def _now(self) -> float:
        """The client's clock (``clock`` of the constructor)."""
        return self._http.clock()

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` on the client's ``sleep``."""
        await self._http.sleep(seconds)

    async def _operation_content(self, session_id: str, body: dict[str, Any]) -> bytes:
        """An operation's encoded body, or, above the upload threshold, the shrunk stand-in of
        the body uploaded for ``session_id`` (inline when the server has no upload protocol:
        then no later body is offered for upload either)."""
        content = _bodies.encode_body(body)
        if not self._uploads_supported or not _payloads.needs_upload(
            len(content), self.upload_threshold
        ):
            return content
        try:
            upload = await self._call(rl.create_payload_upload_url.ENDPOINT, b"", session_id)
        except APIStatusError as exc:
            if not _payloads.upload_unsupported(exc):
                raise
            self._uploads_supported = False
            return content
        await self._http.send(_payloads.upload_request(upload.upload_url, content))
        return _bodies.encode_json(_payloads.shrink_body(body, upload.payload_id))

    async def _download_file(self, url: str, path: Path, bar: Any) -> None:
        """Stream the file at ``url`` (no Authorization) to ``path``."""
        await self._http.download(_payloads.download_request(url), path, bar)

    async def _wait_ready(
        self, info: InfoT, get: Endpoint[..., InfoT], timeout: float | None
    ) -> InfoT:
        """Poll ``info``'s session or model resources (``get``) until ready (:func:`readiness`)."""
        what = f"{'session' if isinstance(info, SessionInfo) else 'model resources'} {info.id}"
        attempt = 0
        deadline = None if timeout is None else self._now() + timeout
        while not _responses.readiness(info):
            if deadline is not None and self._now() >= deadline:
                raise NotReadyError(f"{what} not ready after {timeout} s")
            await self._pause(_polling.readiness_wait(attempt))
            attempt += 1
            info = await self._call(get, None, info.id)
        return info


def _enum(label: str, enum: type[E], value: str) -> E:
    """The member of the generated ``enum`` that ``value`` names (short names expanded)."""
    return enum(check_enum(label, value, enum))


class AsyncModelResourcesAPI:
    """``client.model_resources``: create, open, get, list, stop, extend and price model
    resources (the GPUs that bill until stopped)."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self,
        base_model: str,
        *,
        wait: bool = True,
        timeout: float | None = 3600.0,
        **options: Unpack[_fields.ModelResourcesCreateKeywords],
    ) -> ModelResourcesInfo:
        """Create model resources (``options``: the other ``ModelResourcesCreate`` fields) and,
        with ``wait``, poll until READY (raising ``ResourceStateError`` on ERROR/STOPPED)."""
        body = {"base_model": base_model, **options}
        info = await self._client._call(rl.create_model_resources.ENDPOINT, body)
        if not wait:
            return info
        return await self._client._wait_ready(info, rl.get_model_resources.ENDPOINT, timeout)

    async def get(self, model_resources_id: str) -> ModelResourcesInfo:
        """The model resources as they are now."""
        return await self._client._call(rl.get_model_resources.ENDPOINT, None, model_resources_id)

    async def open(
        self,
        base_model: str,
        *,
        timeout: float | None = 3600.0,
        **options: Unpack[_fields.ModelResourcesCreateKeywords],
    ) -> AsyncModelResources:
        """Create model resources, wait until READY, and return a handle that stops them
        (``force``: their sessions too) when its ``async with`` block exits, exceptions
        included: billing stops with the block."""
        info = await self.create(base_model, timeout=timeout, **options)
        return AsyncModelResources(self._client, info.id, info)

    async def list(
        self,
        *,
        status: Sequence[str] | None = None,
        created_by: str | None = None,
        limit: int | None = None,
        after: str | None = None,
    ) -> models.ModelResourcesListResponse:
        """One page of model resources (newest first); ``after=page.meta.next_cursor`` for more."""
        statuses = [_enum("status", models.ModelResourcesStatus, v) for v in status or ()]
        return await self._client._page(
            rl.list_model_resources.ENDPOINT,
            after=after,
            limit=limit,
            status=statuses or None,
            created_by=created_by,
        )

    async def stop(self, model_resources_id: str, *, force: bool = False) -> ModelResourcesInfo:
        """Stop them (billing ends). Without ``force`` the server refuses (``ConflictError``,
        naming them) while sessions run; with it, those sessions stop too."""
        endpoint = rl.stop_model_resources.ENDPOINT
        return await self._client._call(endpoint, None, model_resources_id, force=force)

    async def extend_expiry(self, model_resources_id: str, seconds: int) -> ModelResourcesInfo:
        """Keep READY resources up at least ``seconds`` from now without any operation."""
        endpoint = rl.extend_model_resources_expiry.ENDPOINT
        return await self._client._call(endpoint, {"seconds": seconds}, model_resources_id)

    async def estimate_cost(
        self, base_model: str, **options: Unpack[_fields.ModelResourcesCreateKeywords]
    ) -> models.ModelResourcesCostEstimate:
        """The hourly price of resources created with the same arguments (nothing is created)."""
        body = {"base_model": base_model, **options}
        return await self._client._call(rl.estimate_model_resources_cost.ENDPOINT, body)


class AsyncRolloutsAPI:
    """``client.rollouts``: what rollouts would take and cost, before any resource exists."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def estimate(
        self,
        base_model: str,
        *,
        episodes: int,
        concurrency: int,
        prompt_tokens: int,
        turns: int,
        generated_tokens_per_turn: int,
        added_tokens_per_turn: int,
        **options: Unpack[_fields.RolloutEstimateRequestKeywords],
    ) -> models.RolloutEstimate:
        """The rollout-only time, generator and billed GPU-hours and price of ``episodes``
        episodes of ``turns`` turns, ``concurrency`` at a time (``options``: the other
        ``RolloutEstimateRequest`` fields: GPU type, training mode, layout, prompt sharing).
        Nothing is created; the server checks the bounds and the rules (a 400 names the field)."""
        body = {
            "base_model": base_model,
            "episodes": episodes,
            "concurrency": concurrency,
            "prompt_tokens": prompt_tokens,
            "turns": turns,
            "generated_tokens_per_turn": generated_tokens_per_turn,
            "added_tokens_per_turn": added_tokens_per_turn,
            **options,
        }
        return await self._client._call(rl.estimate_rollouts.ENDPOINT, body)


class AsyncModelResources:
    """A handle on model resources that bill until stopped: ``async with`` stops them (with
    their sessions) on exit, exceptions included. ``info`` is their last known state."""

    def __init__(
        self, client: AsyncClient, model_resources_id: str, info: ModelResourcesInfo
    ) -> None:
        self._client = client
        self.id = model_resources_id
        self.info = info

    async def refresh(self) -> ModelResourcesInfo:
        """Fetch their state again (``info``)."""
        self.info = await self._client.model_resources.get(self.id)
        return self.info

    async def stop(self, *, force: bool = True) -> ModelResourcesInfo:
        """Stop them; with ``force`` (the default here) their sessions too."""
        self.info = await self._client.model_resources.stop(self.id, force=force)
        return self.info

    async def extend_expiry(self, seconds: int) -> ModelResourcesInfo:
        """Keep them up at least ``seconds`` from now without any operation."""
        self.info = await self._client.model_resources.extend_expiry(self.id, seconds)
        return self.info

    def keep_alive(self, *, every: float = 600.0, seconds: int = 1800) -> AsyncKeepAlive:
        """A block during which the resources stay up without operations: their expiry is
        moved to ``seconds`` from now on entry and every ``every`` seconds after."""
        return AsyncKeepAlive(lambda: self.extend_expiry(seconds), every)

    async def create_session(self, **options: Any) -> AsyncSession:
        """A session on these resources (``options``: those of ``client.sessions.create``)."""
        return await self._client.sessions.create(self.id, **options)

    async def __aenter__(self) -> AsyncModelResources:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop(force=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, stopped with its sessions on exit of with)"


class AsyncSessionsAPI:
    """``client.sessions``: create, get, list, update and stop training sessions."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self,
        model_resources_id: str,
        *,
        wait: bool = True,
        timeout: float | None = 3600.0,
        **options: Unpack[_fields.SessionCreateKeywords],
    ) -> AsyncSession:
        """Start a session (``options``: the other ``SessionCreate`` fields: ``display_name``,
        ``lora_config``, ``resume_from_checkpoint_id``, ...) and, with ``wait``, poll until it is
        RUNNING."""
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
        statuses = [_enum("status", models.ListTrainingSessionsStatusItem, v) for v in status or ()]
        endpoint = rl.list_training_sessions.ENDPOINT
        return await self._client._page(endpoint, after=after, limit=limit, status=statuses or None)

    async def stop(self, session_id: str) -> SessionInfo:
        """Stop the session (its model resources keep running, and billing)."""
        return await self._client._call(rl.stop_training_session.ENDPOINT, None, session_id)

    async def update(
        self, session_id: str, **fields: Unpack[_fields.SessionUpdateKeywords]
    ) -> SessionInfo:
        """Change ``display_name`` and ``metadata`` (``wandb`` fields); ``None`` leaves a field
        unchanged, ``""`` clears it."""
        return await self._client._call(rl.update_training_session.ENDPOINT, fields, session_id)


class AsyncSession:
    """A training session: submit operations (forward-backward, optimizer steps, sampling,
    weight syncs, custom gradients, checkpoints) and collect their results through futures.
    ``info`` is its last known state; ``async with`` stops it on exit."""

    def __init__(
        self, client: AsyncClient, session_id: str, info: SessionInfo | None = None
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
        self.info = await self._client.sessions.stop(self.id)
        return self.info

    async def update(self, **fields: Unpack[_fields.SessionUpdateKeywords]) -> SessionInfo:
        """Change ``display_name`` and ``metadata``; ``""`` clears a value."""
        self.info = await self._client.sessions.update(self.id, **fields)
        return self.info

    async def save_checkpoint(
        self, kind: str = "training", *, idempotency_key: str | None = None
    ) -> AsyncOperationFuture[CheckpointResult]:
        """Save a checkpoint after every operation submitted before it: ``"training"`` (the
        weights, optimizer state and step, to resume a session from) or ``"inference"`` (the
        weights for serving or ``client.checkpoints.download``). One Idempotency-Key for every
        retry, so a retried save makes one checkpoint."""
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
    ) -> AsyncOperationFuture[ForwardBackwardResult]:
        """Submit a forward-backward pass; returns as soon as the POST is acknowledged.

        One Idempotency-Key (``idempotency_key`` or a new uuid4) is used for every retry of
        this call, so a retried POST never creates a second operation.
        """
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
    ) -> ForwardBackwardResult:
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
    ) -> AsyncOperationFuture[OptimStepResult]:
        """Submit an AdamW step on the gradients accumulated since the last step. Pass an
        :class:`AdamParams` or its fields (``learning_rate``, ``beta1``, ...) as keywords, not
        both; unset fields take the server
        defaults. The result's ``.step`` is the new trainer step. Sampling sees the new weights
        only after :meth:`sync_weights`."""
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
    ) -> AsyncOperationFuture[SampleResult]:
        """Submit a sampling request: ``num_samples`` completions of each prompt (a token list
        or 1-D numpy array; a single prompt may be passed bare) from the policy as of the last
        weights-sync. The :class:`SamplingParams` fields (``max_tokens``, ``temperature``, ...) go
        as keywords or as ``sampling_params``, not both. ``result()[i].sequences[j]`` has
        ``tokens``, ``logprobs`` (numpy) and ``stop_reason``; with ``return_routed_experts`` on a
        mixture-of-experts model also ``routed_experts_key``, which
        ``Sample.from_sequence(prompt, sequence)`` carries into the training sample."""
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
    ) -> AsyncOperationFuture[WeightsSyncResult]:
        """Publish the trainer's weights to the sampler; the result's ``.weights_version``
        is the version samples submitted afterwards use."""
        body = _bodies.build_weights_sync(weight_sync_type)
        return await self._submit(_results.WEIGHTS_SYNC, body, idempotency_key)

    async def custom_forward_backward(
        self,
        samples: Sequence[Any],
        gradients: Sequence[Any],
        *,
        idempotency_key: str | None = None,
    ) -> AsyncOperationFuture[CustomForwardBackwardResult]:
        """Backpropagate client-computed per-token gradients dLoss/dlogp (one array per
        sample, as long as the sample) and accumulate them like a built-in loss."""
        body = _bodies.build_custom_forward_backward(samples, gradients)
        return await self._submit(_results.CUSTOM_FORWARD_BACKWARD, body, idempotency_key)

    async def get_forward_backward(
        self, operation_id: str
    ) -> AsyncOperationFuture[ForwardBackwardResult]:
        """Re-attach to a forward-backward by id (e.g. after an ``OperationTimeoutError``)."""
        return await self._attach(_results.FORWARD_BACKWARD, operation_id)

    async def get_operation(self, kind: str, operation_id: str) -> AsyncOperationFuture[Any]:
        """Re-attach to an operation of ``kind`` (``"optim-step"``, ``"sample"``, ...) by id."""
        return await self._attach(_results.operation_kind(kind), operation_id)

    # internals: one implementation for every operation kind
    async def _attach(self, kind: OperationKind[R], operation_id: str) -> AsyncOperationFuture[R]:
        poll = self._planner.attached(kind.name, self._client._now())
        future = AsyncOperationFuture(self, OperationState(operation_id, ""), poll, None, kind)
        await future._fetch()
        return future

    async def _submit(
        self,
        kind: OperationKind[R],
        body: dict[str, Any] | None,
        idempotency_key: str | None,
    ) -> AsyncOperationFuture[R]:
        """POST an operation (``body`` None: a kind without a request body)."""
        key = idempotency_key or _http.new_idempotency_key()
        content = None if body is None else await self._client._operation_content(self.id, body)
        spec = _http.endpoint_request(kind.submit, content, self.id, idempotency_key=key)
        state = _responses.interpret_operation(await self._client._json(spec), kind)
        forward_only = bool(body and body.get("forward_only"))
        learned_as = _polling.duration_class(kind.name, forward_only)
        work = _bodies.operation_work(body)
        now, done = self._client._now(), state.server_done
        poll = self._planner.submitted(learned_as, now, work, done)
        future = AsyncOperationFuture(self, state, poll, key, kind)
        if state.offloaded is not None:
            await future._download()
        return future


class AsyncCheckpointsAPI:
    """``client.checkpoints``: list, get and download checkpoints."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def list(
        self,
        *,
        session_id: str | None = None,
        base_model: str | None = None,
        type: str | None = None,
        limit: int | None = None,
        after: str | None = None,
    ) -> models.CheckpointsListResponse:
        """One page (newest first); ``type``: ``CHECKPOINT_TYPE_TRAINING`` or ``_INFERENCE``."""
        checkpoint_type = None if type is None else _enum("type", models.CheckpointType, type)
        return await self._client._page(
            rl.list_checkpoints.ENDPOINT,
            after=after,
            limit=limit,
            session_id=session_id,
            base_model=base_model,
            type_=checkpoint_type,
        )

    async def get(self, checkpoint_id: str) -> models.Checkpoint:
        """One checkpoint by id."""
        return await self._client._call(rl.get_checkpoint.ENDPOINT, None, checkpoint_id)

    async def download(
        self,
        checkpoint_id: str,
        to: str | Path,
        *,
        variant: str = "CHECKPOINT_VARIANT_UNSPECIFIED",
        progress: bool | None = None,
    ) -> tuple[Path, ...]:
        """Download an inference checkpoint's files into the directory ``to`` (created if
        needed), each streamed to disk; returns their paths. ``variant``: ``..._MERGED`` (the
        full model), ``..._ADAPTER`` (LoRA only) or ``..._UNSPECIFIED`` (the checkpoint's own
        form). A progress bar is drawn on stderr when it is a terminal (``progress`` forces it
        off with False)."""
        folder = Path(to)
        folder.mkdir(parents=True, exist_ok=True)
        listing = await self._client._call(
            rl.download_checkpoint.ENDPOINT,
            None,
            checkpoint_id,
            variant=_enum("variant", models.CheckpointVariant, variant),
        )
        paths = []
        for item in listing.data:
            path = _downloads.checkpoint_file_path(folder, item.filename)
            bar = None if progress is False else _downloads.terminal_progress(item.filename)
            await self._client._download_file(item.url, path, bar)
            paths.append(path)
        return tuple(paths)


class AsyncOperationFuture(Generic[R]):
    """The pending result of one submitted operation: ``result(timeout=)`` polls on the
    session's learned schedule and returns the kind's result (an output the server offloaded is
    downloaded and merged first). Async futures are awaitable."""

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
        """Wait for the operation (at most ``timeout`` seconds; ``None``: no limit) and return
        its result; raises ``OperationFailedError`` when it failed and ``OperationTimeoutError``
        when the time is up (it keeps running: call ``result`` again, or re-attach with
        ``session.get_operation(kind, id)``)."""
        async with self._lock:
            client = self.session._client
            start = client._now()
            deadline = None if timeout is None else start + timeout
            while not self._state.terminal:
                if self._state.offloaded is not None:
                    await self._download()
                    continue
                wait = _polling.poll_wait(self._poll.next_poll_at(), client._now(), deadline)
                if wait is None:
                    remaining = 0.0 if deadline is None else max(0.0, deadline - client._now())
                    if remaining > 0:
                        await client._pause(remaining)
                    raise OperationTimeoutError(self.operation_id, client._now() - start)
                if wait > 0:
                    await client._pause(wait)
                await self._fetch()
            if self._state.failure is not None:
                raise self._state.failure
            result: R = self._state.result
            return result

    async def _fetch(self) -> None:
        """GET the operation once."""
        client = self.session._client
        sent_at = client._now()
        spec = _http.endpoint_request(self.kind.poll, None, self.session.id, self.operation_id)
        self._state = _responses.interpret_operation(await client._json(spec), self.kind)
        self._poll.observe(sent_at=sent_at, done=self._state.server_done)

    async def _download(self) -> None:
        """Download the output the server offloaded, and merge it into the inline one."""
        state, client = self._state, self.session._client
        assert state.offloaded is not None
        endpoint = rl.create_payload_download_url.ENDPOINT
        payload_id = str(state.offloaded["payload_id"])
        url = (await client._call(endpoint, b"", self.session.id, payload_id)).download_url
        output = _payloads.merge_offloaded(
            state.offloaded, await client._json(_payloads.download_request(url))
        )
        self._state = _responses.complete_operation(
            self.kind, state.operation_id, state.status, output
        )

    # unasync: async only
    def __await__(self) -> Generator[Any, None, R]:
        return self.result().__await__()

    # unasync: end

    def __repr__(self) -> str:
        name = type(self).__name__
        return (
            f"{name}(kind={self.kind.name!r}, operation_id={self.operation_id!r}, "
            f"status={self.status!r})"
        )
