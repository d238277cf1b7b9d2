"""The proxy and the replay server served in a thread of this process (tests, benchmarks)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

from together_rl_emulator import serve_in_thread

from together_rl_contract_tests._spec_check import SpecJudge
from together_rl_contract_tests.proxy._body_recorder import DEFAULT_RECORD_LIMIT
from together_rl_contract_tests.proxy._cassette import CassetteWriter, read_cassette
from together_rl_contract_tests.proxy._forwarding import ValidatingProxy
from together_rl_contract_tests.proxy._replay import ReplayServer
from together_rl_contract_tests.proxy._traffic_monitor import TrafficMonitor

__all__ = ["RunningProxy", "proxy_in_thread", "replay_in_thread"]


@dataclasses.dataclass
class RunningProxy:
    base_url: str  # what TOGETHER_BASE_URL is set to (no /v1)
    monitor: TrafficMonitor
    log: list[str]  # every line the proxy printed (violations)


@contextlib.contextmanager
def proxy_in_thread(
    upstream: str,
    record: Path | None = None,
    judge: SpecJudge | None = None,
    record_limit: int = DEFAULT_RECORD_LIMIT,
) -> Iterator[RunningProxy]:
    """A proxy to ``upstream`` on a free loopback port. On exit the server stops and every
    exchange has been checked (and recorded), so ``monitor`` holds the whole run. ``judge``:
    judge by another spec document than the installed one (tests); ``record_limit``: the bytes
    kept of each body."""
    log: list[str] = []
    recorder = CassetteWriter(record) if record else None
    monitor = TrafficMonitor(recorder, log=log.append, judge=judge)
    server = serve_in_thread(ValidatingProxy(upstream, monitor, record_limit=record_limit))
    try:
        yield RunningProxy(server.base_url, monitor, log)
    finally:
        server.stop()
        monitor.close()


@contextlib.contextmanager
def replay_in_thread(
    cassette: Path, log: Callable[[str], None] | None = None
) -> Iterator[tuple[str, ReplayServer]]:
    """A replay of ``cassette`` on a free loopback port: ``(base_url, server)``."""
    replay = ReplayServer(read_cassette(cassette), log=log)
    server = serve_in_thread(replay)
    try:
        yield server.base_url, replay
    finally:
        server.stop()
