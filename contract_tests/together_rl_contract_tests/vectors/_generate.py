"""Generate the vectors by driving an in-process emulator (seed 0) over loopback."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from together_rl_contract_tests import _training as t
from together_rl_contract_tests._emulator_process import emulator_in_thread
from together_rl_contract_tests._http import (
    CUSTOM_FORWARD_BACKWARD,
    FORWARD_BACKWARD,
    INFERENCE_CHECKPOINT,
    OPTIM_STEP,
    SAMPLE,
    TRAINING_CHECKPOINT,
    WEIGHTS_SYNC,
    TargetClient,
    operation_path,
)
from together_rl_contract_tests._provision import PROBE_BODY
from together_rl_contract_tests._target import EMULATOR_BASE_MODEL, Target
from together_rl_contract_tests.vectors._compare import Comparison, compare_vectors
from together_rl_contract_tests.vectors._near_policy import (
    CLIP_BAND_SOURCE,
    clip_band_bodies,
    cycled_log_ratios,
    near_policy,
    probe_body,
)
from together_rl_contract_tests.vectors._recorder import Recorder, normalise

VECTORS_DIR = Path(__file__).resolve().parent
API_KEY = "vectors-key"
SEED = 0
#: The spec's examples in the repository checkout (the generator runs there: `make vectors`).
EXAMPLES_DIR = Path(__file__).resolve().parents[3] / "spec" / "examples"


def _loss_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
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


def _error_vectors(rec: Recorder, session_id: str, resources_id: str) -> list[dict[str, Any]]:
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


def _idempotency_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
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


def _kind_idempotency_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
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


def _training_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
    """A seeded loop on a fresh session: what each operation kind returns, in order."""
    x = t.SEQUENCE_X
    sample = t.sample_body([t.PROMPT, (7, 200, 31, 64)], seed=2024, max_tokens=8, num_samples=2)
    score = t.ce_body([x], forward_only=True)
    sync = {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"}
    named = [
        ("sample_seeded", SAMPLE, sample),
        ("forward_only_logprobs_before", FORWARD_BACKWARD, score),
        ("forward_backward_cross_entropy", FORWARD_BACKWARD, t.ce_body([x])),
        ("custom_forward_backward", CUSTOM_FORWARD_BACKWARD, t.custom_body(x, [-0.5] * 7)),
        ("optim_step_adam", OPTIM_STEP, {"adam_params": {"learning_rate": 0.01}}),
        ("forward_only_logprobs_after_step", FORWARD_BACKWARD, score),
        ("sample_seeded_before_sync_unchanged", SAMPLE, sample),
        ("weights_sync", WEIGHTS_SYNC, sync),
        ("sample_seeded_after_sync", SAMPLE, sample),
        ("optim_step_muon_on_adamw_resources_refused", OPTIM_STEP, {"muon_params": {}}),
    ]
    return [
        {"name": name, "steps": rec.operation(session_id, kind, body, f"vec-train-{name}")}
        for name, kind, body in named
    ]


def _payload_vectors(rec: Recorder, session_id: str) -> list[dict[str, Any]]:
    upload = f"/v1/rl/training-sessions/{session_id}/payloads/upload-url"
    body = t.ce_body([t.SEQUENCE_X, t.SEQUENCE_Y], forward_only=True)
    created = rec.step("POST", upload)
    real_url = _real_url(rec, created)
    put = rec.step("PUT", real_url, raw=json.dumps(body).encode(), auth=False)
    stand_in = {
        "samples": [
            {"model_input": s["model_input"],
             "loss_fn_inputs": {k: dict(v, data=v["data"][:2]) for k, v in s["loss_fn_inputs"].items()}}  # noqa: E501
            for s in body["samples"]
        ],
        "loss": body["loss"], "forward_only": True, "return_loss_fn_outputs": True,
        "payload_id": rec.real(created["response"]["body"]["payload_id"]),
    }  # fmt: skip
    run = rec.operation(session_id, FORWARD_BACKWARD, stand_in, "vec-payload-upload")
    large = t.sample_body([t.PROMPT], seed=5, max_tokens=1024, num_samples=64)
    offloaded = rec.operation(session_id, SAMPLE, large, "vec-payload-offloaded")
    payload_id = offloaded[-1]["response"]["body"]["output"]["payload_id"]
    download = rec.step(
        "POST",
        f"/v1/rl/training-sessions/{session_id}/payloads/{rec.real(payload_id)}/download-url",
    )
    fetched = rec.step("GET", _real_url(rec, download), auth=False, summarise=True)
    return [
        {"name": "upload_then_operation_with_payload_id", "steps": [created, put, *run]},
        {"name": "offloaded_sample_result_download", "steps": [*offloaded, download, fetched]},
    ]


def _checkpoint_vectors(rec: Recorder, session_id: str, resources_id: str) -> list[dict[str, Any]]:
    """Checkpoints of the trained session (no body, as the official SDK sends them), their
    listing, a download of the inference one (the manifest; the safetensors bytes are binary),
    a resume, and the model-resource endpoints (estimate, extend, list, a refused stop)."""
    checkpoints = "/v1/rl/checkpoints"
    saves, saved_ids = [], []
    for kind, key in ((TRAINING_CHECKPOINT, "vec-training-ckpt"),
                      (INFERENCE_CHECKPOINT, "vec-inference-ckpt")):  # fmt: skip
        submit = normalise(
            rec.step("POST", operation_path(session_id, kind), headers={"Idempotency-Key": key}),
            racy_status=True,
        )
        done = rec.wait(session_id, rec.real(submit["response"]["body"]["id"]), kind)
        assert rec.last_response is not None
        saved_ids.append(str(rec.last_response.json()["output"]["checkpoint"]["id"]))
        saves.append([submit, done])
    training_id, inference_id = saved_ids
    listed = rec.step("GET", f"{checkpoints}?session_id={session_id}")
    got = rec.step("GET", f"{checkpoints}/{training_id}")
    download = rec.step(
        "GET", f"{checkpoints}/{inference_id}/download?variant=CHECKPOINT_VARIANT_MERGED"
    )
    urls = [item["url"] for item in rec.last_response.json()["data"]]  # type: ignore[union-attr]
    manifest = _without_weight_digests(
        rec.step("GET", next(u for u in urls if "manifest.json" in u), auth=False)
    )
    refused = rec.step(
        "GET", f"{checkpoints}/{training_id}/download?variant=CHECKPOINT_VARIANT_MERGED"
    )
    resumed = rec.step(
        "POST", "/v1/rl/training-sessions",
        body={"model_resources_id": resources_id, "resume_from_checkpoint_id": training_id},
    )  # fmt: skip
    resources = "/v1/rl/model-resources"
    estimate = rec.step(
        "POST", f"{resources}/estimate-cost",
        body={"base_model": EMULATOR_BASE_MODEL, "lora_enabled": True},
    )  # fmt: skip
    extend = rec.step("POST", f"{resources}/{resources_id}/extend-expiry", body={"seconds": 7200})
    listing = rec.step("GET", f"{resources}?status=MODEL_RESOURCES_STATUS_READY")
    stop_refused = rec.step("POST", f"{resources}/{resources_id}/stop")
    return [
        {"name": "training_checkpoint_no_body", "steps": saves[0]},
        {"name": "inference_checkpoint_no_body", "steps": saves[1]},
        {"name": "list_and_get_checkpoints", "steps": [listed, got]},
        {"name": "download_inference_checkpoint_manifest", "steps": [download, manifest]},
        {"name": "download_training_checkpoint_refused", "steps": [refused]},
        {"name": "resume_from_training_checkpoint", "steps": [resumed]},
        {"name": "estimate_extend_list_model_resources", "steps": [estimate, extend, listing]},
        {"name": "stop_with_running_sessions_refused", "steps": [stop_refused]},
    ]


#: Stands in for the sha256 of a weights file in a checkpoint manifest.
WEIGHTS_DIGEST = "<sha256>"


def _without_weight_digests(step: dict[str, Any]) -> dict[str, Any]:
    """``step`` (a manifest GET) with each file's ``sha256`` replaced by ``<sha256>``.

    The file holds float32 weights trained in float64: a BLAS kernel that moves the last bit of
    a weight across a float32 rounding boundary changes the digest, so it is no exact datum. The
    file's ``size`` (set by the tensor shapes alone) is kept; a port checks the digest it gets
    against the file it downloads.
    """
    for entry in step["response"]["body"].get("files", []):
        entry["sha256"] = WEIGHTS_DIGEST
    return step


def _real_url(rec: Recorder, step: dict[str, Any]) -> str:
    """The presigned URL of ``step`` (the last one sent), unscrubbed."""
    assert rec.last_response is not None
    document = rec.last_response.json()
    return str(document.get("upload_url") or document["download_url"])


def generate_all() -> dict[str, list[dict[str, Any]]]:
    """All vector files by name, generated from a fresh in-process emulator."""
    from together_rl_emulator import create_app

    app = create_app(api_keys=[API_KEY], seed=SEED)
    with emulator_in_thread(app) as base_url:
        target = Target(base_url=base_url, api_key=API_KEY, is_emulator=True)
        with TargetClient(target, retries=0) as client:
            rec = Recorder(client)
            # LoRA resources: they run up to 5 sessions at once (full-weight ones 1).
            resources_body = {"base_model": EMULATOR_BASE_MODEL, "lora_enabled": True}
            setup = [rec.step("POST", "/v1/rl/model-resources", body=resources_body)]
            resources_id = rec.real("<model_resources_id:1>")
            setup.append(
                rec.step(
                    "POST", "/v1/rl/training-sessions", body={"model_resources_id": resources_id}
                )
            )
            session_id = rec.real("<session_id:1>")
            vectors = {
                "setup.json": [{"name": "create_model_resources_and_session", "steps": setup}],
                "losses.json": _loss_vectors(rec, session_id),
                "errors.json": _error_vectors(rec, session_id, resources_id),
                "idempotency.json": _idempotency_vectors(rec, session_id)
                + _kind_idempotency_vectors(rec, session_id),
            }
            second = rec.step(
                "POST", "/v1/rl/training-sessions", body={"model_resources_id": resources_id}
            )
            training_session = rec.real("<session_id:2>")
            vectors["training.json"] = [
                {"name": "start_second_session", "steps": [second]},
                *_training_vectors(rec, training_session),
            ]
            vectors["payloads.json"] = _payload_vectors(rec, training_session)
            vectors["checkpoints.json"] = _checkpoint_vectors(rec, training_session, resources_id)
            return vectors


def render(vectors: list[dict[str, Any]]) -> str:
    return json.dumps(vectors, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def compare_files(
    vectors: dict[str, list[dict[str, Any]]], directory: Path = VECTORS_DIR
) -> dict[str, Comparison]:
    """Per file, how the file in ``directory`` compares with ``vectors`` (see ``_compare``).

    A missing file, or one not in the canonical layout of :func:`render`, disagrees.
    """
    out = {}
    for name, content in vectors.items():
        path = directory / name
        if not path.exists():
            out[name] = Comparison(differences=[f"{name}: missing"], difference_count=1)
            continue
        text = path.read_text(encoding="utf-8")
        recorded = json.loads(text)
        out[name] = compare_vectors(recorded, json.loads(render(content)))
        if text != render(recorded):
            out[name].note_difference("", "not in the layout `make vectors` writes")
    return out


def stale_files(
    vectors: dict[str, list[dict[str, Any]]], directory: Path = VECTORS_DIR
) -> list[str]:
    """The files that disagree with ``vectors``: exact data differs or a float beyond tolerance."""
    comparisons = compare_files(vectors, directory)
    return [name for name, comparison in comparisons.items() if not comparison.agree]


def write_all(
    vectors: dict[str, list[dict[str, Any]]], directory: Path = VECTORS_DIR
) -> list[Path]:
    """Write the stale files into ``directory``; a file that agrees within tolerance is left as it
    is, so that a regeneration on another machine does not rewrite the last bits of its floats."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in stale_files(vectors, directory):
        path = directory / name
        path.write_text(render(vectors[name]), encoding="utf-8")
        paths.append(path)
    return paths
