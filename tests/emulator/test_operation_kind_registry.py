"""A new operation kind is one registry entry plus its semantics: the app, service and worker
follow the registry, and a kind the spec gives no request body needs no validator."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import pytest
from _emulator_bodies import new_session
from emulator_harness import emulator_test_client
from together_rl_emulator import EmulatorApp
from together_rl_emulator.base import BaseModel, _spec
from together_rl_emulator.checking import _parameters, _validation
from together_rl_emulator.compute._engine import OperationOutcome
from together_rl_emulator.compute._trainer import TrainerState
from together_rl_emulator.cost import OperationWork
from together_rl_emulator.service import _kinds
from together_rl_emulator.web import _app

OPERATIONS = "/rl/training-sessions/{session_id}/operations/"


def _spec_with_bodyless_kind(name: str) -> dict[str, Any]:
    """The installed spec plus a kind `name` shaped like optim-step but without a request body."""
    spec = copy.deepcopy(_spec.load_spec())
    submit = copy.deepcopy(spec["paths"][OPERATIONS + "optim-step"])
    submit["post"].pop("requestBody")
    submit["post"].pop("links", None)
    submit["post"]["operationId"] = "noteProgress"
    get = copy.deepcopy(spec["paths"][OPERATIONS + "optim-step/{operation_id}"])
    get["get"]["operationId"] = "getNoteProgressOperation"
    spec["paths"][OPERATIONS + name] = submit
    spec["paths"][OPERATIONS + name + "/{operation_id}"] = get
    return spec


def _note_progress(state: TrainerState, request: object, seed: int) -> OperationOutcome:
    assert request is None
    return OperationOutcome(b'{"step":"%d"}' % state.step)


def _no_gpu_time(model: BaseModel, work: OperationWork) -> float:
    return 0.0


def test_a_kind_without_a_body_is_served_from_its_registry_entry(
    monkeypatch: pytest.MonkeyPatch, emulator_app_factory: Callable[..., EmulatorApp]
) -> None:
    spec = _spec_with_bodyless_kind("note-progress")
    for module in (_spec, _app, _validation, _parameters):  # the modules that import load_spec
        monkeypatch.setattr(module, "load_spec", lambda: spec)
    kind = _kinds.OperationKind("note-progress", None, _note_progress, seconds=_no_gpu_time)
    assert (kind.submit_operation_id, kind.get_operation_id) == (
        "noteProgress",
        "getNoteProgressOperation",
    )
    assert not kind.uploadable
    monkeypatch.setitem(_kinds.KINDS, kind.name, kind)

    with emulator_test_client(emulator_app_factory()) as client:
        sid = new_session(client)
        path = f"/v1{OPERATIONS.format(session_id=sid)}note-progress"
        first = client.post(path, headers={"Idempotency-Key": "k"})
        assert first.status_code == 200, first.text
        again = client.post(path, json={}, headers={"Idempotency-Key": "k"})
        assert again.json()["id"] == first.json()["id"]  # no body and `{}` are the same request
        refused = client.post(path, json=[1], headers={"Idempotency-Key": "k2"})
        assert refused.status_code == 400, refused.text
        deadline = time.monotonic() + 30
        while (op := client.get(f"{path}/{first.json()['id']}").json())["status"].endswith(
            ("PENDING", "RUNNING")
        ):
            assert time.monotonic() < deadline, op
            time.sleep(0.005)
        assert op["status"] == "TRAINING_OPERATION_STATUS_COMPLETED", op
        assert op["output"] == {"step": "0"}


def test_a_validator_must_match_the_spec_body() -> None:
    with pytest.raises(RuntimeError, match="request body"):
        _kinds.OperationKind("optim-step", None, _note_progress, seconds=_no_gpu_time)
