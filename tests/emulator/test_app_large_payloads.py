"""The large-payload protocol of the official SDK (docs/wire-facts.md §2.6), emulator side: upload
URLs, presigned PUT/GET, operations posted with `payload_id`, offloaded results."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import numpy as np
import orjson
import pytest
from _emulator_bodies import assert_schema, fb_body, new_session, stats
from _operation_kind_bodies import run_kind, sample_body, submit_kind
from emulator_harness import emulator_test_client
from together_rl_emulator.checking import _fast_decode
from together_rl_emulator.state import _payloads

UPLOAD = "/v1/rl/training-sessions/{}/payloads/upload-url"
DOWNLOAD = "/v1/rl/training-sessions/{}/payloads/{}/download-url"


def _anonymous(client: httpx.Client) -> httpx.Client:
    """A client of the same in-process app without the Authorization header (not entered as a
    context manager: its lifespan would close the app's state when it exits)."""
    return emulator_test_client(client.app, api_key=None)  # type: ignore[attr-defined]


def _upload(client: httpx.Client, sid: str, body: Any) -> str:
    r = client.post(UPLOAD.format(sid))
    assert r.status_code == 200, r.text
    assert_schema(r.json(), "PayloadUploadUrl")
    url = r.json()["upload_url"]
    assert url.startswith(str(client.base_url).rstrip("/") + "/_emulator/payloads/")
    put = _anonymous(client).put(url, content=orjson.dumps(body))
    assert put.status_code == 200, put.text
    payload_id: str = r.json()["payload_id"]
    return payload_id


def _shrunk(body: dict[str, Any], payload_id: str) -> dict[str, Any]:
    """What the SDK posts: a stand-in of the first sample's first token, plus payload_id."""
    first = body["samples"][0]
    stand_in = {
        "model_input": {"chunks": [{"encoded_text": {"tokens": [0]}}]},
        "loss_fn_inputs": {
            k: {"data": v["data"][:1], "dtype": v["dtype"]}
            for k, v in first["loss_fn_inputs"].items()
        },
    }
    out = {k: v for k, v in body.items() if k != "samples"}
    return {**out, "samples": [stand_in], "payload_id": payload_id}


def test_operation_with_payload_id_runs_the_uploaded_body(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    full = fb_body(n_samples=3, length=9, seed=4)
    inline = run_kind(emulator_client, sid, "forward-backward", {**full, "forward_only": True}, "a")
    payload_id = _upload(emulator_client, sid, full)  # the SDK uploads only {loss, samples}
    shrunk = _shrunk({**full, "forward_only": True}, payload_id)
    via_payload = run_kind(emulator_client, sid, "forward-backward", shrunk, "b")
    assert via_payload["output"]["loss"] == inline["output"]["loss"]
    # forward_only came from the inline body: nothing was accumulated.
    assert stats(emulator_client)["sessions"][sid]["accumulated_passes"] == 0

    # Idempotency hashes the uploaded body: same key + same payload is a replay, while the same
    # key with a payload holding different samples is refused.
    replay = submit_kind(emulator_client, sid, "forward-backward", shrunk, "b")
    assert replay.json()["id"] == via_payload["id"]
    other = _upload(emulator_client, sid, fb_body(n_samples=3, length=9, seed=5))
    changed = submit_kind(emulator_client, sid, "forward-backward", {**shrunk, "payload_id": other},
                          "b")  # fmt: skip
    assert changed.status_code == 422


def test_uploaded_bodies_are_decoded_like_inline_ones(
    emulator_client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An uploaded forward-backward body takes the fast decoder as an inline one does
    (`_fast_decode.py`): the same loss, a replay of the same upload, and for a bad body the
    error the inline body gets."""
    decoded: list[bool] = []

    def spy(raw: bytes, parse: Any, *, fast: bool) -> Any:
        body = _fast_decode.decode_body(raw, parse, fast=fast)
        decoded.append(body.scan.arrays_in_body)  # the fast decoder made it
        return body

    monkeypatch.setattr(_payloads, "decode_body", spy)
    monkeypatch.setattr(_fast_decode, "FAST_DECODE_MIN_BYTES", 0)
    sid = new_session(emulator_client)
    full = fb_body(n_samples=2, length=200, seed=4)
    inline = run_kind(emulator_client, sid, "forward-backward", {**full, "forward_only": True}, "a")
    shrunk = _shrunk({**full, "forward_only": True}, _upload(emulator_client, sid, full))
    via_payload = run_kind(emulator_client, sid, "forward-backward", shrunk, "b")
    assert via_payload["output"]["loss"] == inline["output"]["loss"]
    replay = submit_kind(emulator_client, sid, "forward-backward", shrunk, "b")
    assert replay.json()["id"] == via_payload["id"]
    bad = copy.deepcopy(full)
    bad["samples"][1]["loss_fn_inputs"]["weights"]["data"][150] = -1.0
    inline_error = submit_kind(emulator_client, sid, "forward-backward", bad, "c")
    shrunk_bad = _shrunk(bad, _upload(emulator_client, sid, bad))
    uploaded_error = submit_kind(emulator_client, sid, "forward-backward", shrunk_bad, "d")
    assert inline_error.status_code == uploaded_error.status_code == 400
    assert uploaded_error.json() == inline_error.json()
    assert decoded == [True, True, True]


def test_uploaded_bodies_are_validated_and_scoped(emulator_app_factory: Any) -> None:
    app = emulator_app_factory(max_body_mb=0.01)
    with emulator_test_client(app) as client:
        sid = new_session(client)
        bad = fb_body(length=3)
        bad["samples"][0]["loss_fn_inputs"]["target_tokens"]["data"][1] = 5000
        payload_id = _upload(client, sid, bad)
        r = submit_kind(client, sid, "forward-backward", _shrunk(bad, payload_id), "k")
        assert r.status_code == 400
        assert r.json()["error"]["param"] == "samples[0].loss_fn_inputs.target_tokens"

        r = submit_kind(client, sid, "sample", {**sample_body([1]), "payload_id": "payload-nope"},
                        "k")  # fmt: skip
        assert r.status_code == 404 and r.json()["error"]["param"] == "payload_id"
        # Another key cannot use it (nor see the session).
        other_sid = new_session(client, Authorization="Bearer other-key")
        r = submit_kind(client, other_sid, "forward-backward", _shrunk(bad, payload_id), "k",
                        Authorization="Bearer other-key")  # fmt: skip
        assert r.status_code == 404 and r.json()["error"]["param"] == "payload_id"
        # Issued but never uploaded.
        empty = client.post(UPLOAD.format(sid)).json()["payload_id"]
        r = submit_kind(client, sid, "forward-backward", _shrunk(bad, empty), "k2")
        assert r.status_code == 400 and r.json()["error"]["param"] == "payload_id"

        url = client.post(UPLOAD.format(sid)).json()["upload_url"]
        anonymous = _anonymous(client)
        put = anonymous.put(url, content=b"x" * 20_000)
        wrong = anonymous.put(url.replace("token=", "token=x"), content=b"{}")
        assert put.status_code == 413
        assert wrong.status_code == 404 and wrong.json()["error"]["param"] == "payload_id"
        assert client.post(UPLOAD.format("sess-nope")).status_code == 404
        assert client.post(DOWNLOAD.format(sid, "payload-nope")).status_code == 404


def test_large_results_are_offloaded_and_downloadable(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    body = fb_body(n_samples=8, length=8000, seed=1, return_loss_fn_outputs=True)
    op = run_kind(emulator_client, sid, "forward-backward", body, "fb")
    output = op["output"]
    assert_schema(op, "ForwardBackwardOperation")
    assert "loss_fn_outputs" not in output and isinstance(output["loss"], float)
    assert "metrics" in output
    r = emulator_client.post(DOWNLOAD.format(sid, output["payload_id"]))
    assert r.status_code == 200, r.text
    assert_schema(r.json(), "PayloadDownloadUrl")
    got = _anonymous(emulator_client).get(r.json()["download_url"])
    assert got.status_code == 200
    outputs = got.json()["loss_fn_outputs"]
    assert len(outputs) == 8 and len(outputs[0]["tensors"]["logprobs"]["data"]) == 8000
    # Small results stay inline.
    small = run_kind(emulator_client, sid, "forward-backward",
                     fb_body(return_loss_fn_outputs=True), "small")["output"]  # fmt: skip
    assert "payload_id" not in small and len(small["loss_fn_outputs"]) == 1
    # Another key cannot get a download URL for it.
    other = emulator_client.post(DOWNLOAD.format(sid, output["payload_id"]),
                                 headers={"Authorization": "Bearer other-key"})  # fmt: skip
    assert other.status_code == 404


def test_large_sample_results_are_offloaded(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    body = sample_body([1, 2, 3], num_samples=64, max_tokens=600, seed=2)
    op = run_kind(emulator_client, sid, "sample", body, "s")
    assert_schema(op, "SampleOperation")
    assert op["output"]["results"] == []
    url = emulator_client.post(DOWNLOAD.format(sid, op["output"]["payload_id"])).json()
    results = _anonymous(emulator_client).get(url["download_url"]).json()
    sequences = results["results"][0]["sequences"]
    assert len(sequences) == 64 and all(len(s["tokens"]) == 600 for s in sequences)
    assert np.isfinite(sequences[0]["logprobs"]).all()
