"""Two submissions to one session at the same moment: the worker runs them in the order they
were stored (and numbered), the order a restart re-queues them in. Large bodies are checked in
worker threads, so two of them can be stored and queued side by side."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
import together_rl_emulator.web._handlers as handlers
from _emulator_bodies import fb_body, new_session, submit
from emulator_harness import LiveEmulator

PATIENCE_S = 1.0  # how long the first insert waits for the other enqueue (never, when ordered)


def test_concurrent_submissions_run_in_their_stored_order(
    live_emulator: LiveEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first POST to be stored pauses between its insert and its enqueue until the other
    is queued (or a second passes): the other must not be numbered and queued meanwhile."""
    monkeypatch.setattr(handlers, "THREADPOOL_BODY_BYTES", 0)  # every body in a worker thread
    service = live_emulator.app.emulator.service
    insert, enqueue = service.store.insert_operation, service.worker.submit
    other_queued, first_seq, queued = threading.Event(), [], []

    def pausing_insert(op: Any) -> Any:
        row = insert(op)
        if not first_seq:
            first_seq.append(row.seq)
            other_queued.wait(PATIENCE_S)
        return row

    def recorded_enqueue(item: Any) -> None:
        queued.append(item.seq)
        enqueue(item)
        if item.seq not in first_seq:
            other_queued.set()

    monkeypatch.setattr(service.store, "insert_operation", pausing_insert)
    monkeypatch.setattr(service.worker, "submit", recorded_enqueue)
    with httpx.Client(
        base_url=live_emulator.base_url, headers=live_emulator.headers(), timeout=30
    ) as client:
        session_id = new_session(client)

        def post(key: str) -> httpx.Response:
            return submit(client, session_id, fb_body(seed=len(key)), key)

        threads = [threading.Thread(target=post, args=(key,)) for key in ("a", "bb")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(queued) == 2 and queued == sorted(queued), queued
