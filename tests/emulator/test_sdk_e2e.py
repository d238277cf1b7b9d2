"""The official SDK `together==3.1.1` against the emulator over loopback: its raw resource methods
for every endpoint and all seven loss types, and its hand-written SessionClient/Trainer layer."""

from __future__ import annotations

import math
import uuid
from typing import Any

import httpx
import pytest
from _emulator_bodies import FB, LOSS_TYPES, TINY, fb_body, stats, wait_sdk_operation
from ci_policy import import_required
from emulator_harness import COMPLETED, LiveEmulator

together = import_required("together", "3.1.1")
from together import NotFoundError, Together, UnprocessableEntityError  # noqa: E402
from together.post_training import ModelResourcesClient  # noqa: E402


def _wait(sdk: Together, session_id: str, operation_id: str) -> Any:
    retrieve = sdk.post_training.operations.retrieve_forward_backward
    return wait_sdk_operation(retrieve, session_id, operation_id)


def test_raw_resource_methods_cover_every_endpoint(sdk: Together) -> None:
    pt = sdk.post_training
    models = pt.supported_models.get()
    assert TINY in {m.base_model for m in models.data}

    mr = pt.model_resources.create(base_model=TINY, lora_enabled=True)  # two sessions below
    assert mr.status == "MODEL_RESOURCES_STATUS_READY"
    assert pt.model_resources.retrieve(mr.id).id == mr.id

    session = pt.sessions.create(model_resources_id=mr.id, display_name="sdk")
    assert session.status == "TRAINING_SESSION_STATUS_RUNNING"
    assert session.resources_id == mr.id
    assert pt.sessions.retrieve(session.id).display_name == "sdk"
    second = pt.sessions.create(model_resources_id=mr.id)
    page = pt.sessions.list(limit=1, status=["TRAINING_SESSION_STATUS_RUNNING"])
    assert [s.id for s in page.data] == [second.id]
    assert page.meta is not None and page.meta.has_more
    rest = pt.sessions.list(limit=1, after=page.meta.next_cursor)
    assert [s.id for s in rest.data] == [session.id]

    body = fb_body(return_loss_fn_outputs=True)
    op = pt.operations.forward_backward(
        session.id,
        idempotency_key=str(uuid.uuid4()),
        loss=body["loss"],
        samples=body["samples"],
        return_loss_fn_outputs=True,
    )
    done = _wait(sdk, session.id, op.id)
    assert done.status == COMPLETED
    assert done.output is not None
    assert done.output.loss_fn_outputs is not None
    assert done.output.loss_fn_outputs[0].tensors["logprobs"].dtype == "float32"

    stopped = pt.sessions.stop(second.id)
    assert stopped.status == "TRAINING_SESSION_STATUS_STOPPED"
    with pytest.raises(NotFoundError):
        pt.sessions.retrieve("sess-missing")


@pytest.mark.parametrize("loss_type", LOSS_TYPES)
def test_raw_forward_backward_every_loss_type(sdk: Together, loss_type: str) -> None:
    pt = sdk.post_training
    mr = pt.model_resources.create(base_model=TINY)
    session = pt.sessions.create(model_resources_id=mr.id)
    body = fb_body(loss_type, n_samples=2, length=5)
    op = pt.operations.forward_backward(
        session.id, idempotency_key=str(uuid.uuid4()), loss=body["loss"], samples=body["samples"]
    )
    done = _wait(sdk, session.id, op.id)
    assert done.status == COMPLETED, done
    assert done.output is not None and math.isfinite(done.output.loss)
    with httpx.Client(base_url=sdk.base_url.copy_with(path="/"), headers=_auth(sdk)) as http:
        served = http.get(f"{FB.format(session.id)}/{op.id}").json()["output"]
    assert done.output.loss == served["loss"]  # the SDK parsed the served number exactly
    assert done.output.metrics == served["metrics"]


def _auth(sdk: Together) -> dict[str, str]:
    return {"Authorization": f"Bearer {sdk.api_key}"}


def test_sdk_idempotency_reuse_is_not_retried(sdk: Together) -> None:
    pt = sdk.post_training
    mr = pt.model_resources.create(base_model=TINY)
    session = pt.sessions.create(model_resources_id=mr.id)
    a, b = fb_body(seed=1), fb_body(seed=2)
    pt.operations.forward_backward(
        session.id, idempotency_key="k", loss=a["loss"], samples=a["samples"]
    )
    with pytest.raises(UnprocessableEntityError):
        pt.operations.forward_backward(
            session.id, idempotency_key="k", loss=b["loss"], samples=b["samples"]
        )


def test_session_client_and_trainer_end_to_end(live_emulator: LiveEmulator) -> None:
    resources = ModelResourcesClient.create(
        api_key=live_emulator.api_key, base_url=live_emulator.base_url, base_model=TINY
    )
    try:
        session = resources.create_session(display_name="trainer-e2e", interval=0.01)
        with session:
            trainer = session.trainer
            grpo = fb_body("LOSS_TYPE_GRPO", n_samples=2, length=6)
            result = trainer.forward_backward(
                samples=grpo["samples"], loss=grpo["loss"], interval=0.01
            )
            assert math.isfinite(result.loss)
            assert "loss/kl_ref/mean" in (result.metrics or {})

            ce = fb_body("LOSS_TYPE_CROSS_ENTROPY", n_samples=2, length=6)
            scored = trainer.forward(samples=ce["samples"], loss=ce["loss"], interval=0.01)
            outputs = scored.loss_fn_outputs or []
            assert len(outputs) == 2
            assert outputs[0].tensors["logprobs"].data[0] == 0.0  # weight 0 at slot 0

            with httpx.Client(base_url=live_emulator.base_url) as http:
                counters = stats(http, **live_emulator.headers())
            assert counters["sessions"][session.session_id]["accumulated_passes"] == 1
        raw = Together(api_key=live_emulator.api_key, base_url=live_emulator.base_url)
        with raw:
            stopped = raw.post_training.sessions.retrieve(session.session_id)
        assert stopped.status == "TRAINING_SESSION_STATUS_STOPPED"  # the `with` stopped it
    finally:
        resources.detach()
