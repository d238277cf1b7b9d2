"""The future of one submitted operation."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from together_rl_client.api import rl

from . import _http, _payloads, _responses
from ._errors import OperationTimeoutError
from ._poll_plan import DEFAULT_RESULT_TIMEOUT, poll_wait
from ._polling import OperationPoll
from ._responses import OperationState
from ._results import OperationKind

if TYPE_CHECKING:
    from ._async_sessions import AsyncSession

__all__ = ["AsyncOperationFuture"]

R = TypeVar("R")


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
        """Wait at most ``timeout`` s (``None``: no limit) and return the result; raises
        ``OperationFailedError`` when it failed, ``OperationTimeoutError`` when the time is up
        (it keeps running: call ``result`` again, or ``session.get_operation(kind, id)``)."""
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
        self._state = _responses.interpret_operation(await client._json(spec), self.kind)
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
        self._state = _responses.complete_operation(
            self.kind, state.operation_id, state.status, output
        )

    # unasync: async only
    def __await__(self) -> Generator[Any, None, R]:
        return self.result().__await__()

    # unasync: end

    def __repr__(self) -> str:
        where = f"operation_id={self.operation_id!r}, status={self.status!r}"
        return f"{type(self).__name__}(kind={self.kind.name!r}, {where})"
