"""Keep model resources up through a phase without operations (computing rewards, say): their
expiry extended now and every ``every`` seconds, in a thread (sync) or a task (async)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable

__all__ = ["AsyncKeepAlive", "KeepAlive"]


class KeepAlive:
    """``with resources.keep_alive(): ...``: ``extend()`` on entry and every ``every`` seconds in
    a daemon thread until the block exits; ``errors`` keeps what a call raised (it goes on)."""

    def __init__(self, extend: Callable[[], object], every: float) -> None:
        self._extend = extend
        self._every = every
        self._stop = threading.Event()
        # waits ``every`` seconds; True once the block has ended (tests replace it)
        self._wait: Callable[[float], bool] = self._stop.wait
        self._thread = threading.Thread(
            target=self._run, name="together-rl-keep-alive", daemon=True
        )
        self.extensions = 0
        self.errors: list[BaseException] = []

    def __enter__(self) -> KeepAlive:
        self._extend()
        self.extensions += 1
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._wait(self._every):
            try:
                self._extend()
                self.extensions += 1
            except Exception as error:  # kept for the caller; the loop goes on
                self.errors.append(error)


class AsyncKeepAlive:
    """``async with resources.keep_alive(): ...``: the same with an asyncio task."""

    def __init__(self, extend: Callable[[], Awaitable[object]], every: float) -> None:
        self._extend = extend
        self._every = every
        self._task: asyncio.Task[None]  # started on entry
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # tests replace it
        self.extensions = 0
        self.errors: list[BaseException] = []

    async def __aenter__(self) -> AsyncKeepAlive:
        await self._extend()
        self.extensions += 1
        self._task = asyncio.create_task(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        while True:
            await self._sleep(self._every)
            try:
                await self._extend()
                self.extensions += 1
            except Exception as error:  # kept for the caller; the loop goes on
                self.errors.append(error)
