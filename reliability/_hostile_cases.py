"""The hostile corpus an HTTP client can send: malformed and truncated JSON, wrong types at every
node of a valid body, missing and unknown fields, NaN/Infinity, huge numbers, deep nesting,
bodies over the limit, hostile ids, bad headers and content types, bad methods and queries. Each
case names the layer that must answer it (`HostileCase.answered_by`)."""

# ruff: noqa: E501  (the corpus / report lines are data: one case or figure per line)

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EITHER",
    "EMULATOR",
    "FB",
    "FB_GET",
    "HOSTILE_KEY",
    "JSON_CT",
    "MAX_BODY_MB",
    "NO_ANSWER",
    "PARSER",
    "RESOURCES",
    "SERVED",
    "SESSION",
    "SESSIONS",
    "TINY",
    "HostileCase",
    "build_corpus",
    "json_bytes",
    "valid_fb_body",
]

HOSTILE_KEY = "hostile-key"
MAX_BODY_MB = 0.25  # the hostile app's body limit (262,144 bytes)
TINY = "emulator/tiny-1k"
FB = "/v1/rl/training-sessions/{session_id}/operations/forward-backward"
FB_GET = FB + "/{operation_id}"
SESSION = "/v1/rl/training-sessions/{session_id}"
SESSIONS = "/v1/rl/training-sessions"
RESOURCES = "/v1/rl/model-resources"
JSON_CT = (("Content-Type", "application/json"),)
EMULATOR, PARSER, NO_ANSWER, SERVED = "emulator", "uvicorn", "closed", "served"
EITHER = (EMULATOR, PARSER)


@dataclass(frozen=True)
class HostileCase:
    name: str
    category: str
    method: str = "POST"
    path: str = FB
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = JSON_CT
    idempotency_key: bool = True  # add a fresh valid Idempotency-Key (on forward-backward POSTs)
    raw: bytes | None = None  # a whole HTTP/1.1 request: loopback only, sent on a raw socket
    # Who must answer over loopback (in-process it is always the emulator, with a JSON 4xx):
    # EMULATOR (JSON 4xx), PARSER (uvicorn's h11 refuses malformed HTTP: plain-text 400),
    # NO_ANSWER (the client went away first), SERVED (valid HTTP after all: any answer but a
    # 5xx, state unchanged). Several: any of them (e.g. oversized headers: see `build_corpus`).
    answered_by: tuple[str, ...] = ("emulator",)


def valid_fb_body() -> dict[str, Any]:
    def tensor(data: list[Any], dtype: str) -> dict[str, Any]:
        return {"data": data, "dtype": dtype}

    return {
        "samples": [
            {
                "model_input": {"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]},
                "loss_fn_inputs": {
                    "target_tokens": tensor([2, 3, 4], "int64"),
                    "logprobs": tensor([0.0, -1.5, -2.25], "float32"),
                    "advantages": tensor([0.0, 1.0, 1.0], "float32"),
                    "reference_logprobs": tensor([0.0, -1.25, -2.0], "float32"),
                    "mask": tensor([0, 1, 1], "int64"),
                },
            }
        ],
        "loss": {
            "type": "LOSS_TYPE_GRPO",
            "grpo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2, "beta": 0.1},
        },
        "return_loss_fn_outputs": True,
    }


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every node of a JSON value (lists: only their first element, to keep the corpus small)."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list) and value:
        yield from _paths(value[0], (*path, 0))


def _replaced(body: Any, path: tuple[Any, ...], new: Any) -> Any:
    out = copy.deepcopy(body)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return out


def _deleted(body: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(body)
    node = out
    for step in path[:-1]:
        node = node[step]
    del node[path[-1]]
    return out


def _label(path: tuple[Any, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def _wrong_values(path: tuple[Any, ...], value: Any) -> list[Any]:
    """Values that break the spec at this node, whatever else the body holds."""
    last = path[-1] if path else None
    if isinstance(value, dict):
        return ["an object expected", 42, [], None]
    if isinstance(value, list):
        return ["a list expected", 42, {}, None]
    if isinstance(value, bool):
        return ["true", 1, None]
    if isinstance(value, str):
        wrong: list[Any] = [42, None, [], {}]
        if last == "dtype":
            wrong.append("float64")
        if last == "type":
            wrong.append("LOSS_TYPE_NOPE")
        return wrong
    if isinstance(value, int) and ("tokens" in path or "target_tokens" in path):
        return ["x", -1, 1.5, None, True, 10**20, 99_999, "99999"]
    if isinstance(value, int):  # mask entries (any number is a valid mask value: non-zero = in)
        return ["x", None, True, [], {}]
    return ["x", None, True, [], {}]  # float leaves


def json_bytes(value: Any) -> bytes:
    # The standard library, not orjson: it encodes integers beyond 64 bits (the corpus has some).
    return json.dumps(value, separators=(",", ":")).encode()


def _fb(name: str, category: str, body: bytes, **kw: Any) -> HostileCase:
    return HostileCase(f"forward-backward: {name}", category, body=body, **kw)


def build_corpus() -> list[HostileCase]:
    cases: list[HostileCase] = []
    valid = valid_fb_body()
    valid_bytes = json_bytes(valid)

    # --- malformed and truncated JSON
    malformed = [b"{", b"}", b"[", b"{]", b'{"samples": [', b'{"samples": }', b'{"a" 1}',
                 b"{'samples': []}", b'{"samples": [],}', b"{/* comment */}", b'{"a": "\\x"}',
                 b'{"a": "\xff\xfe"}', b"\xef\xbb\xbf{}", b"\x00\x00", b"nul", b"tru", b'"unterminated',
                 b"{}{}", b'{"samples": [] } trailing', b"\x1f\x8b\x08\x00", b"   ", b""]  # fmt: skip
    for i, raw in enumerate(malformed):
        cases.append(_fb(f"malformed JSON #{i} {raw[:16]!r}", "malformed JSON", raw))
    for cut in (1, 2, 10, 25, 50, 100, 200, len(valid_bytes) // 2, len(valid_bytes) - 1):
        cases.append(_fb(f"truncated at byte {cut}", "truncated JSON", valid_bytes[:cut]))
    for top in (b"null", b"[]", b"[{}]", b'"samples"', b"42", b"true", b"{}"):
        cases.append(_fb(f"top-level {top.decode()}", "wrong types", top))
    for raw in (b"{", b"[1,", b"null", b'"x"'):
        cases.append(HostileCase(f"model-resources: {raw!r}", "malformed JSON", path=RESOURCES,
                                 body=raw, idempotency_key=False))  # fmt: skip
        cases.append(HostileCase(f"sessions: {raw!r}", "malformed JSON", path=SESSIONS,
                                 body=raw, idempotency_key=False))  # fmt: skip
        cases.append(HostileCase(f"stop: {raw!r}", "malformed JSON", path=SESSION + "/stop",
                                 body=raw if raw != b"null" else b"[1]", idempotency_key=False))  # fmt: skip

    # --- wrong types everywhere, and missing required fields
    for path, value in _paths(valid):
        if not path:
            continue
        for wrong in _wrong_values(path, value):
            cases.append(_fb(f"{_label(path)} = {json_bytes(wrong).decode()[:24]}", "wrong types",
                             json_bytes(_replaced(valid, path, wrong))))  # fmt: skip
    for path in (("samples",), ("loss",), ("loss", "type"), ("samples", 0, "model_input"),
                 ("samples", 0, "loss_fn_inputs", "target_tokens"),
                 ("samples", 0, "loss_fn_inputs", "logprobs", "dtype"),
                 ("samples", 0, "loss_fn_inputs", "advantages", "data")):  # fmt: skip
        cases.append(
            _fb(f"missing {_label(path)}", "missing field", json_bytes(_deleted(valid, path)))
        )
    for where, body in (("top", {**valid, "unexpected": 1}),
                        ("tensor", _replaced(valid, ("samples", 0, "loss_fn_inputs", "mask", "extra"), 1)),
                        ("loss params", _replaced(valid, ("loss", "grpo_params", "gamma"), 1.0)),
                        ("empty samples", {**valid, "samples": []}),
                        # A foreign params object is ignored, but must still be well formed.
                        ("bad foreign params", {**valid, "loss": {"type": "LOSS_TYPE_GRPO",
                                                 "cross_entropy_params": {"x": 1}}}),
                        ("tensor length", _replaced(valid, ("samples", 0, "loss_fn_inputs",
                                                    "advantages", "data"), [1.0])),
                        ("weights and mask", _replaced(valid, ("samples", 0, "loss_fn_inputs",
                                                       "weights"), {"data": [1, 1, 1], "dtype": "float32"})),
                        ):  # fmt: skip
        cases.append(_fb(f"semantic: {where}", "wrong types", json_bytes(body)))
    resource_bad = [{"base_model": 5}, {"base_model": ""}, {"base_model": "no/such-model"},
                    {"base_model": None}, {}, {"base_model": TINY, "inactive_timeout": -1},
                    {"base_model": TINY, "inactive_timeout": "60"}, {"base_model": TINY, "lora_enabled": "yes"},
                    {"base_model": TINY, "compute_config": {"gpu_type": "TPU"}},
                    {"base_model": TINY, "compute_config": {"num_generator_replicas": -1}},
                    {"base_model": TINY, "optimizer_config": "adam"}, {"base_model": TINY, "extra": True},
                    {"base_model": [TINY]}]  # fmt: skip
    for body in resource_bad:
        cases.append(HostileCase(f"model-resources: {json_bytes(body).decode()[:48]}", "wrong types",
                                 path=RESOURCES, body=json_bytes(body), idempotency_key=False))  # fmt: skip
    session_bad = [{"model_resources_id": 5}, {"model_resources_id": ""}, {"model_resources_id": None},
                   {}, {"model_resources_id": "{model_resources_id}", "display_name": 5},
                   {"model_resources_id": "{model_resources_id}", "lora_config": {"rank": 0}},
                   {"model_resources_id": "{model_resources_id}", "lora_config": {"dropout": 2}},
                   {"model_resources_id": "{model_resources_id}", "metadata": {"x": 1}},
                   {"model_resources_id": "{model_resources_id}", "load_optimizer": "yes"},
                   {"model_resources_id": "{model_resources_id}", "resume_from_checkpoint_id": ""},
                   {"model_resources_id": "{model_resources_id}", "unknown": 1}]  # fmt: skip
    for body in session_bad:
        cases.append(HostileCase(f"sessions: {json_bytes(body).decode()[:48]}", "wrong types",
                                 path=SESSIONS, body=json_bytes(body), idempotency_key=False))  # fmt: skip

    # --- NaN / Infinity literals, huge numbers, deep nesting
    text = valid_bytes.decode()
    for literal in ("NaN", "Infinity", "-Infinity", "nan", "inf", "1e400", "-1e400"):
        cases.append(_fb(f"logprob literal {literal}", "NaN/Infinity",
                         text.replace("-1.5", literal, 1).encode()))  # fmt: skip
        cases.append(_fb(f"advantage literal {literal}", "NaN/Infinity",
                         text.replace('"advantages":{"data":[0.0', f'"advantages":{{"data":[{literal}', 1).encode()))  # fmt: skip
    for huge in ("18446744073709551616", "9223372036854775808", "-9223372036854775809",
                 "1e20", "1e308", "123456789012345678901234567890"):  # fmt: skip
        cases.append(_fb(f"token {huge}", "huge numbers",
                         text.replace('"tokens":[1,', f'"tokens":[{huge},', 1).encode()))  # fmt: skip
        cases.append(_fb(f"target token {huge}", "huge numbers",
                         text.replace('"target_tokens":{"data":[2,', f'"target_tokens":{{"data":[{huge},', 1).encode()))  # fmt: skip
    for huge in ("1e308", "-1e308", "1e30"):
        cases.append(_fb(f"clip threshold {huge}", "huge numbers",
                         text.replace('"clip_low_threshold":0.8', f'"clip_low_threshold":{huge}').encode()))  # fmt: skip
    for depth in (300, 1100, 100_000):
        cases.append(_fb(f"nested arrays x{depth}", "deep nesting", b"[" * depth + b"]" * depth))
        nested = b'{"a":' * depth + b"1" + b"}" * depth
        cases.append(_fb(f"nested objects x{depth}", "deep nesting", nested))
        cases.append(_fb(f"nested tokens x{depth}", "deep nesting",
                         text.replace('"tokens":[1,2,3]', '"tokens":' + "[" * depth + "1" + "]" * depth).encode()))  # fmt: skip

    # --- bodies over the limit (the hostile app accepts 262,144 bytes)
    limit = int(MAX_BODY_MB * 1024 * 1024)
    big_tokens = ",".join(["1"] * (limit // 2 + 10))
    big = text.replace('"tokens":[1,2,3]', f'"tokens":[{big_tokens}]').encode()
    cases.append(_fb("body over the limit", "body over limit", big))
    cases.append(_fb("whitespace over the limit", "body over limit", b" " * (limit + 1) + b"{}"))
    cases.append(HostileCase("model-resources over the limit", "body over limit", path=RESOURCES,
                             body=b'{"base_model": "' + b"x" * limit + b'"}', idempotency_key=False))  # fmt: skip
    cases.append(HostileCase("sessions over the limit", "body over limit", path=SESSIONS,
                             body=b'{"model_resources_id": "' + b"x" * limit + b'"}', idempotency_key=False))  # fmt: skip

    # --- hostile ids in paths and bodies
    ids = ["%2e%2e%2f%2e%2e%2fetc%2fpasswd", "..%2F..%2F_emulator%2Fstats", "%2e%2e",
           "1'%20OR%20'1'%3D'1", "x%27%3B%20DROP%20TABLE%20sessions%3B--", "%22%20OR%201%3D1--",
           "s%C3%A9ssion-%F0%9F%9A%80", "%E2%80%AE" + "evil", "%00", "sess-%00-x", "%0d%0aX-Injected:%201",
           "%25", "%20", "x" * 4000, "%ff%fe", "sess-" + str(uuid.UUID(int=0))]  # fmt: skip
    for bad in ids:
        short = bad[:32]
        cases.append(HostileCase(f"GET session {short}", "hostile ids", "GET", f"{SESSIONS}/{bad}",
                                 headers=(), idempotency_key=False))  # fmt: skip
        cases.append(HostileCase(f"GET model resources {short}", "hostile ids", "GET",
                                 f"{RESOURCES}/{bad}", headers=(), idempotency_key=False))  # fmt: skip
        cases.append(HostileCase(f"GET operation {short}", "hostile ids", "GET",
                                 FB_GET.replace("{operation_id}", bad), headers=(), idempotency_key=False))  # fmt: skip
        cases.append(HostileCase(f"POST forward-backward to {short}", "hostile ids", "POST",
                                 FB.replace("{session_id}", bad), body=valid_bytes))  # fmt: skip
        cases.append(HostileCase(f"POST stop {short}", "hostile ids", "POST",
                                 f"{SESSIONS}/{bad}/stop", idempotency_key=False))  # fmt: skip
    for bad_id in ("' OR '1'='1", "../../etc/passwd", "mr-\u202e\u0000", "\ud800", "🚀" * 100):
        body = json_bytes({"model_resources_id": bad_id})
        cases.append(HostileCase(f"sessions: model_resources_id {bad_id[:12]!r}", "hostile ids",
                                 path=SESSIONS, body=body, idempotency_key=False))  # fmt: skip

    # --- headers: Idempotency-Key, oversized
    for key_value in ("", "a" * 256, "key with spaces"):
        cases.append(_fb(f"Idempotency-Key {key_value[:12]!r}", "headers", valid_bytes,
                         headers=(*JSON_CT, ("Idempotency-Key", key_value)), idempotency_key=False))  # fmt: skip
    cases.append(_fb("no Idempotency-Key", "headers", valid_bytes, idempotency_key=False))
    # The emulator accepts at most 100 headers and 16 KiB of them (431 beyond). Over loopback,
    # uvicorn's h11 refuses (plain-text 400) a header block that is still incomplete after 16 KiB
    # have been read: whether a 20-70 KB block arrives in one read or more depends on the socket,
    # so the answer is the emulator's 431 or uvicorn's 400; a 1 MB block is always uvicorn's.
    cases.append(_fb("valid body, header of 20 KB", "oversized headers", valid_bytes,
                     headers=(*JSON_CT, ("X-Big", "y" * 20_000)), answered_by=EITHER))  # fmt: skip
    cases.append(HostileCase("GET with a 1 MB header", "oversized headers", "GET", SESSIONS,
                             headers=(("X-Big", "y" * 1_000_000),), idempotency_key=False,
                             answered_by=(PARSER,)))  # fmt: skip
    cases.append(HostileCase("GET with a 20 KB header", "oversized headers", "GET", SESSIONS,
                             headers=(("X-Big", "y" * 20_000),), idempotency_key=False,
                             answered_by=EITHER))  # fmt: skip
    cases.append(HostileCase("GET with 17 headers of 1,000 bytes", "oversized headers", "GET",
                             SESSIONS, headers=tuple((f"X-H{i}", "v" * 1000) for i in range(17)),
                             idempotency_key=False, answered_by=EITHER))  # fmt: skip
    cases.append(_fb("valid body, 101 small headers", "oversized headers", valid_bytes,
                     headers=(*JSON_CT, *((f"X-H{i}", "v") for i in range(101)))))  # fmt: skip

    # --- content types (a valid JSON body with a non-JSON media type)
    for media in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                  "application/xml", "application/octet-stream"):  # fmt: skip
        cases.append(_fb(f"Content-Type {media}", "content types", valid_bytes,
                         headers=(("Content-Type", media),)))  # fmt: skip
    cases.append(_fb("form body", "content types", b"samples=1&loss=2",
                     headers=(("Content-Type", "application/x-www-form-urlencoded"),)))  # fmt: skip
    cases.append(_fb("UTF-16 JSON", "content types", valid_bytes.decode().encode("utf-16"),
                     headers=(("Content-Type", "application/json; charset=utf-16"),)))  # fmt: skip

    # --- bad methods
    for route in (RESOURCES, f"{RESOURCES}/{{model_resources_id}}", "/v1/rl/supported-models",
                  SESSIONS, SESSION, SESSION + "/stop", FB, FB_GET):  # fmt: skip
        for method in ("PUT", "PATCH", "DELETE"):
            if (method, route) == ("PATCH", SESSION):  # updateTrainingSession
                continue
            cases.append(HostileCase(f"{method} {route}", "bad methods", method, route, b"{}",
                                     idempotency_key=False))  # fmt: skip
    cases.append(HostileCase("GET forward-backward collection", "bad methods", "GET", FB,
                             headers=(), idempotency_key=False))  # fmt: skip
    cases.append(HostileCase("POST supported-models", "bad methods", "POST", "/v1/rl/supported-models",
                             b"{}", idempotency_key=False))  # fmt: skip

    # --- query parameters
    for query in ("limit=0", "limit=101", "limit=abc", "limit=-1", "limit=1.5", "limit=1e2",
                  "limit=99999999999999999999", "status=BOGUS", "status=TRAINING_SESSION_STATUS_RUNNING,NOPE",
                  "after=sess-unknown", "limit=1&limit=2"):  # fmt: skip
        cases.append(HostileCase(f"list ?{query}", "query", "GET", f"{SESSIONS}?{query}",
                                 headers=(), idempotency_key=False))  # fmt: skip
    cases.append(HostileCase("unknown route", "bad methods", "GET", "/v1/rl/nothing-here",
                             headers=(), idempotency_key=False))  # fmt: skip
    return cases
