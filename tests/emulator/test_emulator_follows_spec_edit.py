"""A maintainer's drill: edit a copy of the emulator's spec (a default, a bound, the page size, an
added enum value) and the emulator follows with no other edit.

The package is copied with the edited `openapi.yaml` in place of its own, and a fresh interpreter
imports that copy: every fact is read from the spec at import, so nothing else needs changing.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from _edited_spec import run_on_edited_spec

SESSIONS = "/rl/training-sessions"

CHECKS = textwrap.dedent(
    """
    import time

    import numpy as np
    from starlette.testclient import TestClient

    import together_rl_emulator
    from together_rl_emulator import create_app
    from together_rl_emulator.compute._losses import compute_loss
    from together_rl_emulator.compute._trainer import InvalidParam, parse_adam_params

    assert together_rl_emulator.__file__.startswith(COPY), together_rl_emulator.__file__

    # 1. A changed default: DPPO's delta_low.
    lp, q = [np.log(np.array([0.1, 0.5]))], np.log(np.array([0.2, 0.52]))
    inputs = [{"logprobs": q, "advantages": np.array([-1.0, -1.0])}]
    implicit = compute_loss({"type": "LOSS_TYPE_DPPO"}, lp, inputs)
    explicit = compute_loss(
        {"type": "LOSS_TYPE_DPPO", "dppo_params": {"delta_low": 0.05}}, lp, inputs
    )
    assert implicit.loss == explicit.loss, (implicit.loss, explicit.loss)

    # 2. A changed bound: beta1 at most 0.5.
    try:
        parse_adam_params({"beta1": 0.6})
        raise AssertionError("beta1 0.6 accepted")
    except InvalidParam as exc:
        assert exc.param == "adam_params.beta1", exc

    app = create_app(api_keys=["k"])
    with TestClient(app, headers={"Authorization": "Bearer k"}) as client:
        lora = {"base_model": "emulator/tiny-1k", "lora_enabled": True}  # 4 sessions below
        mr = client.post("/v1/rl/model-resources", json=lora)
        sids = [
            client.post("/v1/rl/training-sessions", json={"model_resources_id": mr.json()["id"]})
            .json()["id"]
            for _ in range(4)
        ]
        ops = f"/v1/rl/training-sessions/{sids[0]}/operations"
        r = client.post(
            f"{ops}/optim-step",
            json={"adam_params": {"beta1": 0.6}},
            headers={"Idempotency-Key": "b"},
        )
        assert r.status_code == 400 and r.json()["error"]["param"] == "adam_params.beta1", r.text

        # 3. A changed page-size default.
        page = client.get("/v1/rl/training-sessions").json()
        assert (len(page["data"]), page["meta"]["limit"]) == (3, 3), page["meta"]

        # 4. An added enum value the emulator has no special meaning for.
        r = client.post(
            f"{ops}/weights-sync",
            json={"weight_sync_type": "WEIGHT_SYNC_TYPE_LAZY"},
            headers={"Idempotency-Key": "w"},
        )
        assert r.status_code == 200, r.text
        deadline = time.monotonic() + 30
        while (op := client.get(f"{ops}/weights-sync/{r.json()['id']}").json())[
            "status"
        ].endswith(("PENDING", "RUNNING")):
            assert time.monotonic() < deadline, op
            time.sleep(0.005)
        assert op["status"] == "TRAINING_OPERATION_STATUS_COMPLETED", op
    print("followed")
    """
)


def _edited_spec(spec: dict[str, Any]) -> dict[str, Any]:
    schemas = spec["components"]["schemas"]
    schemas["DPPOLossParams"]["properties"]["delta_low"]["default"] = 0.05
    beta1 = schemas["AdamParams"]["properties"]["beta1"]
    beta1.pop("exclusiveMaximum")
    beta1["maximum"] = 0.5
    for parameter in spec["paths"][SESSIONS]["get"]["parameters"]:
        if parameter.get("name") == "limit":
            parameter["schema"]["default"] = 3
    schemas["WeightSyncType"]["enum"].append("WEIGHT_SYNC_TYPE_LAZY")
    return spec


def test_the_emulator_follows_an_edited_spec(tmp_path: Path) -> None:
    assert run_on_edited_spec(tmp_path, _edited_spec, CHECKS) == "followed"
