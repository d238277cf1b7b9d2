"""The vectors of single requests: each loss over the spec's examples, each refused request
with its error, and idempotent replays of every operation kind."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from together_rl_contract_tests import _training as t
from together_rl_contract_tests._http import (
    CUSTOM_FORWARD_BACKWARD,
    FORWARD_BACKWARD,
    OPTIM_STEP,
    SAMPLE,
    WEIGHTS_SYNC,
    operation_path,
)
from together_rl_contract_tests._provision import PROBE_BODY
from together_rl_contract_tests.vectors._near_policy import (
    CLIP_BAND_SOURCE,
    clip_band_bodies,
    cycled_log_ratios,
    near_policy,
    probe_body,
)
from together_rl_contract_tests.vectors._recorder import Recorder, normalise

__all__ = [
    "EXAMPLES_DIR",
    "KIND_BODIES",
    "error_vectors",
    "idempotency_vectors",
    "kind_idempotency_vectors",
    "loss_vectors",
]

#: The spec's examples in the repository checkout (the generator runs there: `make vectors`).
EXAMPLES_DIR = Path(__file__).resolve().parents[3] / "spec" / "examples"


def loss_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
    """Each valid example, then each clip-band request, with sampler log-probs near the policy's."""
    out = []
    for path in sorted((EXAMPLES_DIR / "valid").glob("forward_backward.*.json")):
        example = json.loads(path.read_text(encoding="utf-8"))
        body = copy.deepcopy(example.get("body", example))
        body["forward_only"] = True
        body["return_loss_fn_outputs"] = True
        for sample in body["samples"]:
            # Only the server issues routed-experts keys (a mixture-of-experts sample's); an
            # example's made-up key fails the pass, and these vectors are about the loss.
            sample.pop("routed_experts_key", None)
        if _has_sampler_logprobs(body):
            policy = _policy_logprobs(rec, session_id, body)
            body = near_policy(body, policy, cycled_log_ratios(body))
        steps = _forward(rec, session_id, body, path.stem)
        out.append(
            {"name": path.stem, "source": f"spec/examples/valid/{path.name}", "steps": steps}
        )
    for name, (body, log_ratios) in clip_band_bodies().items():
        body = near_policy(body, _policy_logprobs(rec, session_id, body), log_ratios)
        steps = _forward(rec, session_id, body, name)
        out.append({"name": name, "source": CLIP_BAND_SOURCE, "steps": steps})
    return out


def _has_sampler_logprobs(body: dict[str, Any]) -> bool:
    return any("logprobs" in sample["loss_fn_inputs"] for sample in body["samples"])


def _policy_logprobs(rec: Recorder, session_id: str, body: dict[str, Any]) -> list[list[float]]:
    """The policy's log-probs of every target of ``body``, from an unrecorded forward-only pass."""
    output = rec.client.completed_output(session_id, FORWARD_BACKWARD, probe_body(body))
    return [
        [float(x) for x in entry["tensors"]["logprobs"]["data"]]
        for entry in output["loss_fn_outputs"]
    ]


def _forward(
    rec: Recorder, session_id: str, body: dict[str, Any], name: str
) -> list[dict[str, Any]]:
    submit = rec.step(
        "POST",
        operation_path(session_id, FORWARD_BACKWARD),
        body=body,
        headers={"Idempotency-Key": f"vec-{name}"},
    )
    steps = [submit]
    if submit["response"]["status"] == 200:
        steps.append(rec.wait(session_id, rec.real(submit["response"]["body"]["id"])))
    return steps


def error_vectors(rec: Recorder, session_id: str, resources_id: str) -> list[dict[str, Any]]:
    out = []
    for path in sorted((EXAMPLES_DIR / "invalid").glob("*.json")):
        example = json.loads(path.read_text(encoding="utf-8"))
        kind = path.name.split(".", 1)[0]
        if kind == "forward_backward":
            step = rec.step(
                "POST",
                operation_path(session_id, FORWARD_BACKWARD),
                body=example["body"],
                headers={"Idempotency-Key": f"vec-{path.stem}"},
            )
        elif kind == "model_resources_create":
            step = rec.step("POST", "/v1/rl/model-resources", body=example["body"])
        elif kind == "model_resources_extend_expiry":
            path_ = f"/v1/rl/model-resources/{resources_id}/extend-expiry"
            step = rec.step("POST", path_, body=example["body"])
        elif kind == "session_update":
            step = rec.step("PATCH", f"/v1/rl/training-sessions/{session_id}", body=example["body"])
        else:
            step = rec.step("POST", "/v1/rl/training-sessions", body=example["body"])
        out.append({"name": path.stem, "expected_param": example["param"], "steps": [step]})
    fb = operation_path(session_id, FORWARD_BACKWARD)
    extra = [
        (
            "malformed_json",
            [
                rec.step(
                    "POST", fb, raw=b'{"samples": [', headers={"Idempotency-Key": "vec-malformed"}
                )
            ],
        ),
        ("missing_idempotency_key", [rec.step("POST", fb, body=PROBE_BODY)]),
        ("no_auth", [rec.step("GET", "/v1/rl/supported-models", auth=False)]),
        (
            "unknown_key",
            [
                rec.step(
                    "GET",
                    "/v1/rl/supported-models",
                    auth=False,
                    headers={"Authorization": "Bearer wrong"},
                )
            ],
        ),
        ("unknown_session", [rec.step("GET", "/v1/rl/training-sessions/no-such-session")]),
        ("unknown_operation", [rec.step("GET", f"{fb}/no-such-operation")]),
        ("unknown_model_resources", [rec.step("GET", "/v1/rl/model-resources/no-such-resources")]),
        ("method_not_allowed", [rec.step("DELETE", f"/v1/rl/training-sessions/{session_id}")]),
    ]
    out += [{"name": name, "steps": [normalise(step) for step in steps]} for name, steps in extra]
    return out


def idempotency_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
    fb = operation_path(session_id, FORWARD_BACKWARD)
    changed = dict(PROBE_BODY, return_loss_fn_outputs=True)
    first = normalise(
        rec.step("POST", fb, body=PROBE_BODY, headers={"Idempotency-Key": "vec-replay"}),
        racy_status=True,
    )
    replay = normalise(
        rec.step("POST", fb, body=PROBE_BODY, headers={"Idempotency-Key": "vec-replay"}),
        racy_status=True,
    )
    done = rec.wait(session_id, rec.real(first["response"]["body"]["id"]))
    late = rec.step("POST", fb, body=PROBE_BODY, headers={"Idempotency-Key": "vec-replay"})
    conflict = rec.step("POST", fb, body=changed, headers={"Idempotency-Key": "vec-replay"})
    return [
        {"name": "replay_returns_same_operation", "steps": [first, replay, done, late]},
        {"name": "changed_body_is_422", "steps": [conflict]},
    ]


KIND_BODIES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # kind -> (body, a changed body)
    OPTIM_STEP: (
        {"adam_params": {"learning_rate": 0.01}},
        {"adam_params": {"learning_rate": 0.02}},
    ),
    SAMPLE: (
        t.sample_body([t.PROMPT], seed=11, max_tokens=6, num_samples=2),
        t.sample_body([t.PROMPT], seed=12, max_tokens=6, num_samples=2),
    ),
    WEIGHTS_SYNC: (
        {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"},
        {"weight_sync_type": "WEIGHT_SYNC_TYPE_PIPELINE"},
    ),
    CUSTOM_FORWARD_BACKWARD: (
        t.custom_body(t.SEQUENCE_X, [-1.0] * 7),
        t.custom_body(t.SEQUENCE_X, [-2.0] * 7),
    ),
}


def kind_idempotency_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
    out = []
    for kind, (body, changed) in KIND_BODIES.items():
        key = f"vec-replay-{kind}"
        steps = rec.operation(session_id, kind, body, key)
        replay = rec.step(
            "POST", operation_path(session_id, kind), body=body, headers={"Idempotency-Key": key}
        )
        conflict = rec.step(
            "POST", operation_path(session_id, kind), body=changed,
            headers={"Idempotency-Key": key},
        )  # fmt: skip
        out.append(
            {"name": f"{kind}_replay_then_changed_body", "steps": [*steps, replay, conflict]}
        )
    return out
