"""Replay: matching by method, path, query and body; Idempotency-Key values mapped one to one;
polling answered in recorded order; a miss names the nearest recorded request and what differs."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import orjson
from together_rl_contract_tests.proxy._cassette import CassetteWriter, read_cassette
from together_rl_contract_tests.proxy._exchange import Exchange
from together_rl_contract_tests.proxy._in_thread import replay_in_thread
from together_rl_contract_tests.proxy._replay import ReplayServer

FB = "/v1/rl/training-sessions/sess-1/operations/forward-backward"


def _exchange(
    seq: int, method: str, path: str, body: object = None, response: object = None,
    key: str | None = None, status: int = 200,
) -> Exchange:  # fmt: skip
    return Exchange(
        seq=seq,
        method=method,
        path=path,
        query="",
        request_headers=[("idempotency-key", key)] if key else [],
        request_body=b"" if body is None else orjson.dumps(body),
        status=status,
        response_headers=[("content-type", "application/json")],
        response_body=orjson.dumps(response),
        started=0.0,
        finished=0.0,
    )


BODY = {"samples": [{"advantages": [1.0, -1.0]}], "loss": {"type": "LOSS_TYPE_GRPO"}}
RECORDED = [
    _exchange(1, "POST", FB, BODY, {"id": "op-a", "status": "PENDING"}, key="rec-key-1"),
    _exchange(2, "POST", FB, BODY, {"id": "op-b", "status": "PENDING"}, key="rec-key-2"),
    _exchange(3, "GET", f"{FB}/op-a", None, {"id": "op-a", "status": "PENDING"}),
    _exchange(4, "GET", f"{FB}/op-a", None, {"id": "op-a", "status": "COMPLETED"}),
]


def _id(exchange: Exchange | None) -> str:
    assert exchange is not None
    return str(json.loads(exchange.response_body)["id"])


def test_idempotency_keys_are_mapped_one_to_one() -> None:
    replay = ReplayServer(RECORDED)
    reordered = {"loss": {"type": "LOSS_TYPE_GRPO"}, "samples": [{"advantages": [1.0, -1.0]}]}
    body = orjson.dumps(reordered)  # key order does not matter
    assert _id(replay.answer("POST", FB, "", body, "new-key-x")) == "op-a"
    assert _id(replay.answer("POST", FB, "", body, "new-key-x")) == "op-a"  # a retry
    assert _id(replay.answer("POST", FB, "", body, "new-key-y")) == "op-b"
    assert replay.answer("POST", FB, "", body, "new-key-z") is None  # both recorded keys bound


def test_polling_gets_the_recorded_answers_in_order_then_the_last_again() -> None:
    replay = ReplayServer(RECORDED)
    statuses = [
        json.loads(answer.response_body)["status"]
        for answer in (replay.answer("GET", f"{FB}/op-a", "", b"", None) for _ in range(4))
        if answer is not None
    ]
    assert statuses == ["PENDING", "COMPLETED", "COMPLETED", "COMPLETED"]


def test_a_miss_names_the_nearest_request_and_the_field_that_differs() -> None:
    replay = ReplayServer(RECORDED)
    changed = {"samples": [{"advantages": [1.0, -0.5]}], "loss": {"type": "LOSS_TYPE_GRPO"}}
    body = orjson.dumps(changed)
    assert replay.answer("POST", FB, "", body, "new-key") is None
    message = replay.explain_miss("POST", FB, "", body)
    assert f"nearest recorded: POST {FB} (#1)" in message
    assert "body samples[0].advantages[1]: recorded -1.0, got -0.5" in message
    other = replay.explain_miss("GET", f"{FB}/op-zzz", "", b"")
    assert f"nearest recorded: GET {FB}/op-a (#3)" in other
    assert f"path: recorded {FB}/op-a, got {FB}/op-zzz" in other


def test_a_miss_over_http_is_a_404_with_the_explanation(tmp_path: Path) -> None:
    cassette = tmp_path / "run.jsonl"
    writer = CassetteWriter(cassette)
    for exchange in RECORDED:
        writer.write(exchange)
    writer.close()
    assert [e.seq for e in read_cassette(cassette)] == [1, 2, 3, 4]
    logged: list[str] = []
    with (
        replay_in_thread(cassette, log=logged.append) as (base_url, _),
        httpx.Client(base_url=base_url) as client,
    ):
        hit = client.get(f"{FB}/op-a")
        miss = client.post(FB, json={"samples": []}, headers={"Idempotency-Key": "k"})
    assert hit.status_code == 200 and hit.json()["status"] == "PENDING"
    assert miss.status_code == 404
    error = miss.json()["error"]
    assert error["code"] == "replay_miss"
    assert "body samples: 1 items recorded, 0 now" in error["message"]
    assert logged == [f"REPLAY MISS {error['message']}"]


def test_presigned_urls_point_at_the_replay_which_serves_the_recorded_files(
    tmp_path: Path,
) -> None:
    """The cassette's URLs are redacted (they work nowhere); replay points them at itself and
    answers with the bytes recorded when the run fetched them through the proxy's relay."""
    stored = "https://bucket.example/ck/model.safetensors?X-Amz-Signature=<redacted>"
    never = "https://bucket.example/ck/manifest.json?X-Amz-Signature=<redacted>"
    files = {"data": [{"filename": "model.safetensors", "url": stored},
                      {"filename": "manifest.json", "url": never}]}  # fmt: skip
    download = _exchange(1, "GET", "/v1/rl/checkpoints/ck/download", None, files)
    weights = Exchange(
        seq=2, method="GET", path="/ck/model.safetensors", query="X-Amz-Signature=<redacted>",
        request_headers=[], request_body=b"", status=200,
        response_headers=[("content-type", "application/octet-stream")],
        response_body=b"\x00\x01weights", started=0.0, finished=0.0, url=stored,
    )  # fmt: skip
    cassette = tmp_path / "run.jsonl"
    writer = CassetteWriter(cassette)
    for exchange in (download, weights):
        writer.write(exchange)
    writer.close()
    with (
        replay_in_thread(cassette, log=lambda _line: None) as (base_url, replay),
        httpx.Client(base_url=base_url) as client,
    ):
        urls = [f["url"] for f in client.get("/v1/rl/checkpoints/ck/download").json()["data"]]
        assert urls == [f"{base_url}/_replay/presigned/0/model.safetensors",
                        f"{base_url}/_replay/presigned/1/manifest.json"]  # fmt: skip
        got = client.get(urls[0])
        missing = client.get(urls[1])
        direct = client.get("/ck/model.safetensors", params={"X-Amz-Signature": "<redacted>"})
    assert got.status_code == 200 and got.content == b"\x00\x01weights"
    assert missing.status_code == 404
    assert "never sent this request through the proxy's relay" in missing.json()["error"]["message"]
    assert direct.status_code == 404  # a relayed file is served at the replay's address only
    assert replay.replayed == 2


def test_a_status_outside_http_is_replayed_as_the_proxys_502(tmp_path: Path) -> None:
    cassette = tmp_path / "run.jsonl"
    writer = CassetteWriter(cassette)
    writer.write(_exchange(1, "GET", "/v1/rl/supported-models", None, {}, status=999))
    writer.close()
    with replay_in_thread(cassette) as (base_url, _):
        answer = httpx.get(f"{base_url}/v1/rl/supported-models")
    assert answer.status_code == 502
    assert "status 999, outside 100-599" in answer.json()["error"]["message"]
