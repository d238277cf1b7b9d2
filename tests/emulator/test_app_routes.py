"""Routes, response shapes (validated against the spec's schemas), HTTP-level refusals."""

from __future__ import annotations

import httpx
import orjson
import pytest
from _emulator_bodies import (
    FB,
    TINY,
    assert_schema,
    fb_body,
    new_session,
    run_op,
    submit,
)
from emulator_harness import emulator_test_client
from together_rl_emulator import EmulatorApp
from together_rl_emulator.base._catalog import CATALOG
from together_rl_emulator.base._spec import load_spec, spec_bytes


def test_every_spec_path_is_served(emulator_app: EmulatorApp) -> None:
    served = {getattr(r, "path", None) for r in emulator_app.routes}
    for path in load_spec()["paths"]:
        assert "/v1" + path in served


def test_openapi_yaml_and_healthz_need_no_auth(emulator_app: EmulatorApp) -> None:
    with emulator_test_client(emulator_app, api_key=None) as anonymous:
        r = anonymous.get("/openapi.yaml")
        assert r.status_code == 200
        assert r.content == spec_bytes()
        r = anonymous.get("/healthz")
        assert (r.status_code, r.json()) == (200, {"status": "ok"})


def test_supported_models_shape(emulator_client: httpx.Client) -> None:
    r = emulator_client.get("/v1/rl/supported-models")
    assert r.status_code == 200
    assert_schema(r.json(), "SupportedModels")
    names = {m["base_model"] for m in r.json()["data"]}
    assert {"Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct", TINY} <= names


def test_model_resources_create_and_get(emulator_client: httpx.Client) -> None:
    r = emulator_client.post(
        "/v1/rl/model-resources",
        json={"base_model": "Qwen/Qwen3-8B", "compute_config": {"num_generator_replicas": 2}},
    )
    assert r.status_code == 200, r.text
    created = r.json()
    assert_schema(created, "ModelResources")
    assert created["status"] == "MODEL_RESOURCES_STATUS_READY"
    assert created["compute_config"]["num_generator_replicas"] == 2
    r = emulator_client.get(f"/v1/rl/model-resources/{created['id']}")
    assert r.status_code == 200
    assert r.json() == created


def test_unknown_base_model_is_400(emulator_client: httpx.Client) -> None:
    r = emulator_client.post("/v1/rl/model-resources", json={"base_model": "no/such-model"})
    assert r.status_code == 400
    assert_schema(r.json(), "ErrorData")
    assert r.json()["error"]["param"] == "base_model"


@pytest.mark.parametrize(
    "body, param",
    [
        ({}, "base_model"),
        ({"base_model": 7}, "base_model"),
        ({"base_model": TINY, "surprise": 1}, "surprise"),
    ],
)
def test_model_resources_schema_violations(
    emulator_client: httpx.Client, body: dict[str, object], param: str
) -> None:
    r = emulator_client.post("/v1/rl/model-resources", json=body)
    assert r.status_code == 400, r.text
    assert param in r.json()["error"]["message"]


def test_session_lifecycle_shapes(emulator_client: httpx.Client) -> None:
    mr = emulator_client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()
    r = emulator_client.post(
        "/v1/rl/training-sessions",
        json={
            "model_resources_id": mr["id"],
            "display_name": "run-1",
            "metadata": {"wandb": {"project": "p"}},
        },
    )
    assert r.status_code == 200, r.text
    session = r.json()
    assert_schema(session, "Session")
    assert session["status"] == "TRAINING_SESSION_STATUS_RUNNING"
    assert session["display_name"] == "run-1"
    assert session["metadata"] == {"wandb": {"project": "p"}}
    assert session["base_model"] == TINY
    got = emulator_client.get(f"/v1/rl/training-sessions/{session['id']}")
    assert got.json() == session
    stopped = emulator_client.post(f"/v1/rl/training-sessions/{session['id']}/stop")
    assert stopped.status_code == 200
    assert_schema(stopped.json(), "Session")
    assert stopped.json()["status"] == "TRAINING_SESSION_STATUS_STOPPED"
    again = emulator_client.post(f"/v1/rl/training-sessions/{session['id']}/stop")
    assert again.json() == stopped.json()


def test_stop_accepts_empty_body_with_json_content_type(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    r = emulator_client.post(
        f"/v1/rl/training-sessions/{sid}/stop",
        content=b"",
        headers={"Content-Type": "application/json", "X-Stainless-Lang": "python"},
    )
    assert r.status_code == 200, r.text


def test_resume_from_checkpoint_is_404(emulator_client: httpx.Client) -> None:
    mr = emulator_client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()
    r = emulator_client.post(
        "/v1/rl/training-sessions",
        json={"model_resources_id": mr["id"], "resume_from_checkpoint_id": "ckpt-1"},
    )
    assert r.status_code == 404
    assert r.json()["error"]["param"] == "resume_from_checkpoint_id"


def test_session_on_unknown_model_resources_is_404(emulator_client: httpx.Client) -> None:
    r = emulator_client.post("/v1/rl/training-sessions", json={"model_resources_id": "mr-nope"})
    assert r.status_code == 404
    assert_schema(r.json(), "ErrorData")


def test_list_sessions_pages_newest_first_with_status_filter(emulator_client: httpx.Client) -> None:
    ids = [new_session(emulator_client) for _ in range(5)]
    emulator_client.post(f"/v1/rl/training-sessions/{ids[1]}/stop")
    seen: list[str] = []
    after: str | None = None
    while True:
        params: dict[str, str | int] = {"limit": 2}
        if after:
            params["after"] = after
        r = emulator_client.get("/v1/rl/training-sessions", params=params)
        assert r.status_code == 200, r.text
        assert_schema(r.json(), "SessionsListResponse")
        page = r.json()
        seen += [s["id"] for s in page["data"]]
        if not page["meta"]["has_more"]:
            assert page["meta"]["next_cursor"] == ""
            break
        after = page["meta"]["next_cursor"]
    assert seen == ids[::-1]

    running = "TRAINING_SESSION_STATUS_RUNNING"
    stopped = "TRAINING_SESSION_STATUS_STOPPED"
    r = emulator_client.get("/v1/rl/training-sessions", params={"status": stopped})
    assert [s["id"] for s in r.json()["data"]] == [ids[1]]
    both = emulator_client.get(f"/v1/rl/training-sessions?status={running},{stopped}")
    assert len(both.json()["data"]) == 5
    repeated = emulator_client.get(f"/v1/rl/training-sessions?status={running}&status={stopped}")
    assert len(repeated.json()["data"]) == 5


def test_list_sessions_filters_the_sdk_sends(emulator_client: httpx.Client) -> None:
    mr = emulator_client.post("/v1/rl/model-resources", json={"base_model": TINY}).json()
    on_mr = emulator_client.post(
        "/v1/rl/training-sessions", json={"model_resources_id": mr["id"]}
    ).json()
    other = new_session(emulator_client)
    by_mr = emulator_client.get("/v1/rl/training-sessions", params={"model_resources_id": mr["id"]})
    assert [s["id"] for s in by_mr.json()["data"]] == [on_mr["id"]]
    mine = emulator_client.get("/v1/rl/training-sessions", params={"created_by": "me"})
    assert {s["id"] for s in mine.json()["data"]} == {on_mr["id"], other}
    owner = on_mr["created_by"]
    assert (
        len(emulator_client.get(f"/v1/rl/training-sessions?created_by={owner}").json()["data"]) == 2
    )
    assert emulator_client.get("/v1/rl/training-sessions?created_by=someone").json()["data"] == []


@pytest.mark.parametrize(
    "query, param",
    [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=ten", "limit"),
        ("status=TRAINING_SESSION_STATUS_NAPPING", "status"),
        ("after=sess-unknown", "after"),
        ("model_resources_id=", "model_resources_id"),
        ("status=TRAINING_SESSION_STATUS_RUNNING,", "status"),
        ("status=%20TRAINING_SESSION_STATUS_RUNNING", "status"),
    ],
)
def test_list_sessions_bad_query(emulator_client: httpx.Client, query: str, param: str) -> None:
    r = emulator_client.get(f"/v1/rl/training-sessions?{query}")
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == param


def test_forward_backward_shapes(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    r = submit(emulator_client, sid, fb_body(return_loss_fn_outputs=True), "k1")
    assert r.status_code == 200, r.text
    assert_schema(r.json(), "ForwardBackwardOperation")
    assert r.json()["status"] in (
        "TRAINING_OPERATION_STATUS_PENDING",
        "TRAINING_OPERATION_STATUS_RUNNING",
        "TRAINING_OPERATION_STATUS_COMPLETED",
    )
    op = run_op(emulator_client, sid, fb_body(return_loss_fn_outputs=True), "k1")
    assert_schema(op, "ForwardBackwardOperation")
    assert op["status"] == "TRAINING_OPERATION_STATUS_COMPLETED"
    assert op["id"] == r.json()["id"]
    # One float32 logprob per token of the one sample; weight 0 at slot 0 gives exactly 0.0;
    # the cross-entropy loss is -sum(weight * logprob) of those very values.
    (output,) = op["output"]["loss_fn_outputs"]
    logprobs = output["tensors"]["logprobs"]
    assert logprobs["dtype"] == "float32" and len(logprobs["data"]) == 4
    assert logprobs["data"][0] == 0.0 and all(x < 0 for x in logprobs["data"][1:])
    weights = fb_body()["samples"][0]["loss_fn_inputs"]["weights"]["data"]
    expected = -sum(w * x for w, x in zip(weights, logprobs["data"], strict=True))
    assert op["output"]["loss"] == pytest.approx(expected, rel=1e-6)


def test_unknown_operation_and_session_are_404(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    r = emulator_client.get(f"{FB.format(sid)}/no-such-op")
    assert r.status_code == 404
    assert_schema(r.json(), "ErrorData")
    r = emulator_client.get("/v1/rl/training-sessions/sess-nope")
    assert r.status_code == 404
    r = submit(emulator_client, "sess-nope", fb_body(), "k")
    assert r.status_code == 404
    other = new_session(emulator_client)
    op = run_op(emulator_client, sid, fb_body(), "k")
    assert emulator_client.get(f"{FB.format(other)}/{op['id']}").status_code == 404


@pytest.mark.parametrize(
    "method, path, allowed",
    [
        ("DELETE", "/v1/rl/training-sessions", {"GET", "POST"}),
        ("PUT", "/v1/rl/model-resources", {"GET", "POST"}),
        ("GET", "/v1/rl/training-sessions/s/stop", {"POST"}),
        ("DELETE", "/v1/rl/training-sessions/s", {"GET", "PATCH"}),
        ("POST", "/v1/rl/supported-models", {"GET"}),
    ],
)
def test_wrong_method_is_405_with_allow(
    emulator_client: httpx.Client, method: str, path: str, allowed: set[str]
) -> None:
    r = emulator_client.request(method, path)
    assert r.status_code == 405
    assert allowed <= {m.strip() for m in r.headers["allow"].split(",")}
    assert_schema(r.json(), "ErrorData")


@pytest.mark.parametrize(
    "path", ["/v1/nope", "/v1/rl/training-sessions/", "/v2/rl/supported-models", "/"]
)
def test_unknown_path_is_404_json(emulator_client: httpx.Client, path: str) -> None:
    r = emulator_client.get(path)
    assert r.status_code == 404
    assert_schema(r.json(), "ErrorData")


def test_body_over_limit_is_413(emulator_app_factory: object) -> None:
    app = emulator_app_factory(max_body_mb=0.01)  # type: ignore[operator]
    with emulator_test_client(app) as client:
        sid = new_session(client)
        big = fb_body(n_samples=40, length=64)
        r = submit(client, sid, big, "k")
        assert r.status_code == 413
        assert_schema(r.json(), "ErrorData")

        def chunks():  # no Content-Length: the streamed size is checked
            for _ in range(20):
                yield b" " * 1024

        r = client.post(FB.format(sid), content=chunks(), headers={"Idempotency-Key": "k2"})
        assert r.status_code == 413
        r = client.post("/v1/rl/model-resources", content=b"{" + b" " * 20000 + b"}")
        assert r.status_code == 413


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"[1, 2, 3]",
        b"null",
        b'"a string"',
        b"",
        b"[" * 5000 + b"]" * 5000,
        b'{"samples": ' + b"[" * 300 + b"]" * 300 + b"}",
        b"\xff\xfe",
    ],
)
def test_malformed_bodies_are_400(emulator_client: httpx.Client, raw: bytes) -> None:
    sid = new_session(emulator_client)
    for path, headers in [
        (FB.format(sid), {"Idempotency-Key": "k"}),
        ("/v1/rl/model-resources", {}),
        ("/v1/rl/training-sessions", {}),
    ]:
        r = emulator_client.post(
            path, content=raw, headers={"Content-Type": "application/json", **headers}
        )
        assert r.status_code == 400, (path, r.text)
        assert_schema(r.json(), "ErrorData")


def test_unknown_headers_are_ignored(emulator_client: httpx.Client) -> None:
    plain = emulator_client.get("/v1/rl/supported-models")
    r = emulator_client.get(
        "/v1/rl/supported-models",
        headers={"X-Stainless-Retry-Count": "0", "X-Whatever": "1", "Accept": "application/json"},
    )
    assert r.status_code == 200
    assert r.json() == plain.json() and r.json()["data"]


def test_validation_error_names_the_field(emulator_client: httpx.Client) -> None:
    sid = new_session(emulator_client)
    body = fb_body("LOSS_TYPE_PPO", n_samples=3)
    body["samples"][2]["loss_fn_inputs"]["advantages"]["data"].append(1.0)
    r = submit(emulator_client, sid, body, "k")
    assert r.status_code == 400
    assert r.json()["error"]["param"] == "samples[2].loss_fn_inputs.advantages"
    assert emulator_client.get("/_emulator/stats").json()["operations_created"] == {}


def test_catalog_models_are_usable(emulator_client: httpx.Client) -> None:
    for name, model in CATALOG.items():
        sid = new_session(emulator_client, base_model=name)
        body = fb_body()
        body["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"] = [
            0, model.vocab_size - 1, 5, 6,
        ]  # fmt: skip
        op = run_op(emulator_client, sid, body, f"k-{name}")
        assert op["status"] == "TRAINING_OPERATION_STATUS_COMPLETED"
        body["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"][0] = str(
            model.vocab_size
        )
        r = submit(emulator_client, sid, body, f"k2-{name}")
        assert r.status_code == 400
        assert "tokens[0]" in r.json()["error"]["param"]


def test_error_bodies_never_echo_the_key(emulator_client: httpx.Client) -> None:
    r = emulator_client.get(
        "/v1/rl/supported-models", headers={"Authorization": "Bearer secret-wrong-key"}
    )
    assert r.status_code == 401
    assert b"secret-wrong-key" not in r.content
    assert orjson.loads(r.content)["error"]["type"] == "authentication_error"
