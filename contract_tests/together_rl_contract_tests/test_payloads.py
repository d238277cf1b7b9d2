"""The large-payload protocol (the official SDK's, for bodies over 0.5 MiB): upload-url, the
presigned PUT without Authorization, the shrunk body with ``payload_id``; offloaded results
fetched through download-url and a presigned GET."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest
from together_rl_spec import upload_threshold_bytes

from together_rl_contract_tests import _training as t
from together_rl_contract_tests._http import COMPLETED, FORWARD_BACKWARD, SAMPLE, TargetClient

UPLOAD = "POST /rl/training-sessions/{session_id}/payloads/upload-url"
DOWNLOAD = "POST /rl/training-sessions/{session_id}/payloads/{payload_id}/download-url"
LARGE_PAYLOAD_BYTES = upload_threshold_bytes()  # the spec's x-upload-threshold-bytes
STAND_IN_LENGTH = 8  # the SDK cuts numeric arrays of the inline stand-in to 8 elements


def _large_forward_only_body() -> dict[str, Any]:
    """Forward-only CE over 80 x 1,024 tokens: over 0.5 MiB, and so are its per-token outputs."""
    sequences = [[(7 * i + 13 * j) % 199 + 1 for j in range(1025)] for i in range(80)]
    body = t.ce_body(sequences, forward_only=True)
    assert len(orjson.dumps(body)) > LARGE_PAYLOAD_BYTES
    return body


def _shrunk(value: Any) -> Any:
    """The SDK's inline stand-in: every numeric array cut to its first 8 elements."""
    if isinstance(value, dict):
        return {k: _shrunk(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(x, int | float) for x in value):
            return value[:STAND_IN_LENGTH]
        return [_shrunk(v) for v in value]
    return value


def _logprobs(output: dict[str, Any]) -> list[list[float]]:
    return [entry["tensors"]["logprobs"]["data"] for entry in output["loss_fn_outputs"]]


@pytest.mark.operation(UPLOAD)
def test_large_body_round_trip_equals_inline(client: TargetClient, own_session_id: str) -> None:
    body = _large_forward_only_body()
    created = client.create_upload_url(own_session_id)
    assert created["payload_id"] and created["upload_url"].startswith("http"), created
    put = client.put_presigned(created["upload_url"], orjson.dumps(body))
    assert 200 <= put.status_code < 300, f"presigned PUT without Authorization: {put.text[:300]}"
    stand_in = dict(_shrunk(body), payload_id=created["payload_id"])
    via_payload = client.completed_output(own_session_id, FORWARD_BACKWARD, stand_in)
    inline = client.completed_output(own_session_id, FORWARD_BACKWARD, body)
    assert via_payload["loss"] == pytest.approx(inline["loss"], rel=1e-9), (
        "the uploaded body, not the stand-in, must be the one run"
    )
    assert _logprobs(via_payload) == _logprobs(inline)
    assert len(_logprobs(via_payload)) == len(body["samples"])


@pytest.mark.operation(DOWNLOAD)
def test_large_result_is_offloaded_and_downloadable(
    client: TargetClient, own_session_id: str
) -> None:
    body = _large_forward_only_body()
    operation = client.run_operation(own_session_id, FORWARD_BACKWARD, body)
    assert operation["status"] == COMPLETED, operation
    output = operation["output"]
    assert "loss" in output, "loss stays inline"
    if not output.get("payload_id"):
        assert not client.target.is_emulator, "the emulator offloads outputs over 0.5 MiB"
        assert len(_logprobs(output)) == len(body["samples"]), "neither inline nor offloaded"
        pytest.skip("the server returned the large result inline (offloading is its choice)")
    merged = client.download_offloaded(own_session_id, output)
    assert merged["loss"] == output["loss"]
    rows = _logprobs(merged)
    assert [len(row) for row in rows] == [1024] * len(body["samples"]), "offloaded outputs"
    again = client.completed_output(own_session_id, FORWARD_BACKWARD, body)
    assert _logprobs(again) == rows, "forward-only passes of the same body must agree"


@pytest.mark.operation(DOWNLOAD)
@pytest.mark.emulator_only("64 x 1,024 sampled tokens: too costly for a billed target")
def test_large_sample_result_is_offloaded_and_downloadable(
    client: TargetClient, own_session_id: str
) -> None:
    body = t.sample_body([t.PROMPT], seed=5, max_tokens=1024, num_samples=64)
    operation = client.run_operation(own_session_id, SAMPLE, body)
    assert operation["status"] == COMPLETED, operation
    output = operation["output"]
    assert output.get("payload_id"), "a sample result over 0.5 MiB is offloaded by the emulator"
    assert output["results"] == [], "an offloaded sample keeps `results: []` inline"
    merged = client.download_offloaded(own_session_id, output)
    sequences = t.sequences_of(merged)
    assert len(sequences) == 1 and len(sequences[0]) == 64, "offloaded results"


@pytest.mark.operation(UPLOAD)
def test_presigned_url_needs_its_token(client: TargetClient, own_session_id: str) -> None:
    created = client.create_upload_url(own_session_id)
    forged = created["upload_url"].split("?", 1)[0] + "?token=forged"
    response = client.put_presigned(forged, orjson.dumps(t.ce_body([t.SEQUENCE_X])))
    assert 400 <= response.status_code < 500, response.text


@pytest.mark.operation(UPLOAD)
def test_unknown_or_unuploaded_payload_is_refused(
    client: TargetClient, own_session_id: str
) -> None:
    stand_in = t.ce_body([t.SEQUENCE_X], forward_only=True)
    unknown = client.submit_operation(
        own_session_id, FORWARD_BACKWARD, dict(stand_in, payload_id=f"no-such-{uuid.uuid4()}")
    )
    assert unknown.status_code == 404, unknown.text
    assert unknown.json()["error"].get("param") == "payload_id", unknown.text
    never_uploaded = client.create_upload_url(own_session_id)["payload_id"]
    empty = client.submit_operation(
        own_session_id, FORWARD_BACKWARD, dict(stand_in, payload_id=never_uploaded)
    )
    assert 400 <= empty.status_code < 500, empty.text
    assert empty.json()["error"].get("param") == "payload_id", empty.text


@pytest.mark.operation(UPLOAD)
def test_payload_belongs_to_its_session(
    client: TargetClient, own_session_id: str, fresh_session: dict[str, Any]
) -> None:
    body = t.ce_body([t.SEQUENCE_X], forward_only=True)
    payload_id = client.upload_payload(own_session_id, body)
    elsewhere = client.submit_operation(
        fresh_session["id"], FORWARD_BACKWARD, dict(body, payload_id=payload_id)
    )
    assert elsewhere.status_code == 404, elsewhere.text
    here = client.submit_operation(
        own_session_id, FORWARD_BACKWARD, dict(body, payload_id=payload_id)
    )
    assert here.status_code == 200, here.text
