"""Checkpoints, resume, session updates and model resources through the wrapper against the
emulator (sync and async, in-process and over loopback), and the billing-safe context managers:
a session or model resources opened with `with` are stopped on exit, exceptions included."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import safetensors.numpy
from together_rl import (
    AsyncClient,
    CheckpointResult,
    ConflictError,
    InvalidRequestError,
    Sample,
    losses,
)
from wrapper_helpers import Api, Emulator, connect, start_session

TINY = "emulator/tiny-1k"
STOPPED_RESOURCES = "MODEL_RESOURCES_STATUS_STOPPED"
STOPPED_SESSION = "TRAINING_SESSION_STATUS_STOPPED"


def _train(api: Api, session: Any) -> None:
    batch = [Sample.from_completion([1, 2, 3], [4, 5], weights=1.0)]
    api.result(api.call(session.forward_backward, batch, losses.CrossEntropy()))
    api.result(api.call(session.optim_step, learning_rate=0.05))


def test_save_list_get_download_and_resume(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
    tmp_path: Path,
) -> None:
    api = connect(api_factory, mode, emulator_factory(where))
    client = api.client
    session = start_session(api)
    _train(api, session)
    saved = api.result(api.call(session.save_checkpoint))
    assert isinstance(saved, CheckpointResult) and saved.step == 1
    exported = api.result(api.call(session.save_checkpoint, "inference"))
    assert exported.registration is not None and "model" in exported.registration
    with pytest.raises(InvalidRequestError):
        api.call(session.save_checkpoint, "optimizer")

    page = api.call(client.checkpoints.list, session_id=session.id)
    assert [c.id for c in page.data] == [exported.id, saved.id]
    assert api.call(client.checkpoints.get, saved.id).type_.value == "CHECKPOINT_TYPE_TRAINING"
    paths = api.call(
        client.checkpoints.download, exported.id, tmp_path / "out",
        variant="CHECKPOINT_VARIANT_MERGED",
    )  # fmt: skip
    assert [p.name for p in paths] == ["model.safetensors", "manifest.json"]
    manifest = json.loads(paths[1].read_text())
    assert manifest["files"][0]["size"] == paths[0].stat().st_size
    assert set(safetensors.numpy.load_file(str(paths[0]))) == set(manifest["tensors"])

    resources = api.call(client.model_resources.create, TINY)
    resumed = api.call(
        client.sessions.create, model_resources_id=resources.id,
        resume_from_checkpoint_id=saved.id,
    )  # fmt: skip
    assert str(resumed.info.step) == "1"
    updated = api.call(session.update, display_name="renamed", metadata={"wandb": {"project": "p"}})
    assert updated.display_name == "renamed"


def test_model_resources_list_extend_estimate_and_stop(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    api = connect(api_factory, mode, emulator_factory("inproc"))
    client = api.client
    estimate = api.call(client.model_resources.estimate_cost, TINY, lora_enabled=True)
    # LoRA trainer (1 GPU) + the default generator replica (1 GPU), USD 4.00 per GPU-hour
    assert (estimate.currency, estimate.price_per_hour) == ("USD", 8.0)
    session = start_session(api)
    resources_id = session.info.model_resources_id
    extended = api.call(client.model_resources.extend_expiry, resources_id, 7200)
    assert extended.expires_at is not None
    with pytest.raises(ConflictError, match=session.id):
        api.call(client.model_resources.stop, resources_id)
    stopped = api.call(client.model_resources.stop, resources_id, force=True)
    assert stopped.status.value == STOPPED_RESOURCES
    listed = api.call(client.model_resources.list, status=[STOPPED_RESOURCES])
    assert [r.id for r in listed.data] == [resources_id]


def test_with_blocks_stop_sessions_and_resources_even_on_errors(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    api = connect(api_factory, mode, emulator_factory("inproc"))
    client = api.client
    opened: dict[str, Any] = {}

    def run_sync() -> None:
        with client.model_resources.open(TINY, lora_enabled=True) as resources:
            opened["resources"] = resources
            with resources.create_session() as session:
                opened["session"] = session
                raise RuntimeError("the training loop crashed")

    async def run_async() -> None:
        assert isinstance(client, AsyncClient)
        async with await client.model_resources.open(TINY, lora_enabled=True) as resources:
            opened["resources"] = resources
            async with await resources.create_session() as session:
                opened["session"] = session
                raise RuntimeError("the training loop crashed")

    with pytest.raises(RuntimeError, match="crashed"):
        if mode == "sync":
            run_sync()
        else:
            api.run(run_async())
    assert "stopped" in repr(opened["resources"]) and "stopped" in repr(opened["session"])
    session_info = api.call(client.sessions.get, opened["session"].id).info
    assert session_info.status.value == STOPPED_SESSION
    resources_info = api.call(client.model_resources.get, opened["resources"].id)
    assert resources_info.status.value == STOPPED_RESOURCES


def test_keep_alive_holds_idle_resources_up(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    """Resources idle past their inactive_timeout stop, unless a keep_alive block runs: it
    extends their expiry at once and then every `every` seconds. The emulator's clock moves
    only when the test says, and the keep-alive's waits are the test's: no real time passes."""
    emulator = emulator_factory("inproc")
    api = connect(api_factory, mode, emulator)
    client = api.client

    def advance(seconds: float) -> None:
        r = emulator._control.post("/_emulator/clock", json={"advance_seconds": seconds})
        assert r.status_code == 200, r.text

    held = api.call(client.model_resources.open, TINY, inactive_timeout=300)
    idle = api.call(client.model_resources.open, TINY, inactive_timeout=300)
    waits = 3  # each wait of the keep-alive loop moves the emulator clock by `every` (200 s)
    keeper: Any = held.keep_alive(every=200, seconds=300)
    if mode == "async":

        async def hold() -> None:
            parked = asyncio.Event()

            async def fake_sleep(seconds: float) -> None:
                nonlocal waits
                if waits == 0:
                    parked.set()
                    await asyncio.Event().wait()  # until the block ends and cancels the loop
                waits -= 1
                advance(seconds)

            keeper._sleep = fake_sleep
            async with keeper:
                await parked.wait()

        api.run(hold())
    else:
        stopped = threading.Event()

        def fake_wait(seconds: float) -> bool:
            nonlocal waits
            if waits == 0:
                stopped.set()
                return True  # as if the block had ended: the loop stops
            waits -= 1
            advance(seconds)
            return False

        keeper._wait = fake_wait
        with keeper:
            assert stopped.wait(timeout=60)
    # 3 x 200 s passed, twice the inactive_timeout: only the held resources are still up.
    assert keeper.extensions == 1 + 3 and not keeper.errors
    ready = "MODEL_RESOURCES_STATUS_READY"
    assert api.call(client.model_resources.get, held.id).status.value == ready
    assert api.call(client.model_resources.get, idle.id).status.value == STOPPED_RESOURCES
