"""The fast paths for large bodies keep the guarantees of the plain ones: the idempotency digest
gives the same digest for the same JSON value and another for any change, and validation with
the bulk checks accepts and refuses exactly what the full JSON Schema validation does, with the
same errors. The fast decoder (`decode_fast`: number lists straight into arrays) gives the same
digests and the same validation outcomes as decoding with orjson, or declines the body."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import orjson
import pytest
from _emulator_bodies import LOSS_TYPES, fb_body
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from together_rl_emulator.base._errors import ApiError
from together_rl_emulator.base._spec import load_spec, resolve_ref
from together_rl_emulator.checking import _requests
from together_rl_emulator.checking._body_scan import MIN_LENGTH, scan_body, skeleton
from together_rl_emulator.checking._fast_decode import DecodedBody, decode_fast
from together_rl_emulator.checking._requests import validate_forward_backward
from together_rl_emulator.compute._engine import run_forward_backward
from together_rl_emulator.compute._policy_model import init_policy
from together_rl_emulator.state._idempotency import (
    DIGEST_SCHEME,
    IdempotencyGate,
    Replay,
    body_digest,
    canonical_json,
    digest,
    migrate_digests,
)
from together_rl_emulator.state._store import NewOperation, Store

VOCAB = 1_024
N = MIN_LENGTH * 2  # tokens per sample: long enough for the bulk paths


def large_body(n_samples: int = 3, length: int = N) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    samples = [
        {
            "model_input": {
                "chunks": [{"encoded_text": {"tokens": rng.integers(0, VOCAB, length).tolist()}}]
            },
            "loss_fn_inputs": {
                "target_tokens": {
                    "data": rng.integers(0, VOCAB, length).tolist(),
                    "dtype": "int64",
                },
                "logprobs": {"data": (-3 + rng.normal(0, 1, length)).tolist(), "dtype": "float32"},
                "advantages": {"data": rng.normal(0, 1, length).tolist(), "dtype": "float32"},
                "mask": {"data": [0] * 5 + [1] * (length - 5), "dtype": "int64"},
            },
        }
        for _ in range(n_samples)
    ]
    return {"samples": samples, "loss": {"type": "LOSS_TYPE_GRPO"}, "forward_only": False}


def parsed(body: dict[str, Any]) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(orjson.dumps(body))
    return value


def tensor_data(body: dict[str, Any], key: str, sample: int = 1) -> list[Any]:
    data: list[Any] = body["samples"][sample]["loss_fn_inputs"][key]["data"]
    return data


def tokens_of(body: dict[str, Any], sample: int = 1) -> list[Any]:
    tokens: list[Any] = body["samples"][sample]["model_input"]["chunks"][0]["encoded_text"][
        "tokens"
    ]
    return tokens


# ------------------------------------------------------------------ the digest
def test_same_value_same_digest_whatever_the_key_order_and_whitespace() -> None:
    body = parsed(large_body())
    reordered = json.loads(json.dumps(dict(reversed(list(body.items()))), indent=2))
    assert body_digest(reordered) == body_digest(body) == body_digest(body, scan_body(body))
    assert body_digest(body).startswith(DIGEST_SCHEME)


CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "a float by one ulp": lambda b: tensor_data(b, "logprobs").__setitem__(
        7, float(np.nextafter(tensor_data(b, "logprobs")[7], 0))
    ),
    "a float made an int": lambda b: tensor_data(b, "advantages").__setitem__(3, 1),
    "an int made a float": lambda b: tensor_data(b, "mask").__setitem__(9, 1.0),
    "an int made a bool": lambda b: tensor_data(b, "mask").__setitem__(9, True),
    "a token made a string": lambda b: tokens_of(b).__setitem__(0, str(tokens_of(b)[0])),
    "a token changed": lambda b: tokens_of(b).__setitem__(4, tokens_of(b)[4] + 1),
    "an item appended": lambda b: tensor_data(b, "logprobs").append(-1.0),
    "two items swapped": lambda b: tensor_data(b, "logprobs").reverse(),
    "a list moved to another key": lambda b: b["samples"][0]["loss_fn_inputs"].update(
        weights=b["samples"][0]["loss_fn_inputs"].pop("mask")
    ),
    "a flag flipped": lambda b: b.update(forward_only=True),
    "a sample dropped": lambda b: b["samples"].pop(),
    "a short list changed": lambda b: b["loss"].update(extra=[1.5, 2.5]),
}


@pytest.mark.parametrize("change", CHANGES)
def test_any_change_changes_the_digest(change: str) -> None:
    body = parsed(large_body())
    changed = copy.deepcopy(body)
    CHANGES[change](changed)
    assert body_digest(changed) != body_digest(body)


def test_a_record_stored_with_the_older_digest_is_migrated_once_and_replays(
    tmp_path: Any,
) -> None:
    """A state file of an older emulator: its record holds `digest(canonical_json(body))` and
    its operation that very canonical JSON as its request. Opening the gate rewrites it as the
    body's `body_digest`, so a submission compares one digest."""
    store = Store(tmp_path)
    body = parsed(large_body())
    session_body = {"id": "sess-1", "status": "TRAINING_SESSION_STATUS_RUNNING"}
    store.create_session("owner", 1, VOCAB, 0, session_body)
    canonical = canonical_json(body)
    store.insert_operation(
        NewOperation(
            "op-1", "sess-1", "owner", "forward-backward", 0.0, canonical, "key", digest(canonical)
        )
    )
    store.insert_operation(  # its request lost: kept as it is, its key refused (422), never rerun
        NewOperation("op-2", "sess-1", "owner", "forward-backward", 0.0, None, "lost", "ab12")
    )
    gate = IdempotencyGate(store)
    record = store.find_idempotency("owner", "sess-1", "forward-backward", "key")
    assert record is not None and record.body_hash == body_digest(body)
    assert migrate_digests(store) == 0  # once: nothing older is left to rewrite
    scope = ("owner", "sess-1", "forward-backward", "key")
    assert gate.begin(scope, body_digest(body)) == Replay("op-1")
    changed = copy.deepcopy(body)
    changed["forward_only"] = True
    for key, sent in (("key", changed), ("lost", body)):
        with pytest.raises(ApiError) as refused:
            gate.begin(("owner", "sess-1", "forward-backward", key), body_digest(sent))
        assert refused.value.status == 422
    store.close()


# ------------------------------------------------------------------ validation
def full_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_requests, "valid_apart_from_bulk_items", lambda name, body: False)


def outcome(body: object, decoded: DecodedBody | None = None) -> tuple[str, Any]:
    """Validation's verdict on `body`, or on `decoded` as the service validates it."""
    try:
        if decoded is None:
            request = validate_forward_backward(body, VOCAB)
        else:
            request = decoded.validated(validate_forward_backward, VOCAB)
    except ApiError as error:
        return "refused", (error.status, error.param, error.message, error.code)
    return "accepted", [
        (s.tokens.tolist(), s.targets.tolist(), {k: v.tolist() for k, v in s.inputs.items()})
        for s in request.samples
    ]


MUTATIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "none": lambda b: None,
    "a bool in float data": lambda b: tensor_data(b, "logprobs").__setitem__(50, True),
    "a bool in int data": lambda b: tensor_data(b, "mask").__setitem__(0, False),
    "a string in float data": lambda b: tensor_data(b, "advantages").__setitem__(2, "1.5"),
    "a null in int data": lambda b: tensor_data(b, "target_tokens").__setitem__(9, None),
    "a list in float data": lambda b: tensor_data(b, "logprobs").__setitem__(0, [1.0]),
    "an int in float data": lambda b: tensor_data(b, "logprobs").__setitem__(3, -2),
    "a float in int64 data": lambda b: tensor_data(b, "target_tokens").__setitem__(3, 2.5),
    "an integral float in int64 data": lambda b: tensor_data(b, "mask").__setitem__(30, 1.0),
    "an int beyond int64 in data": lambda b: tensor_data(b, "mask").__setitem__(30, 2**64),
    "a float beyond float32": lambda b: tensor_data(b, "advantages").__setitem__(5, 1e300),
    "a negative token": lambda b: tokens_of(b).__setitem__(8, -1),
    "a string token": lambda b: tokens_of(b).__setitem__(8, "17"),
    "a bad string token": lambda b: tokens_of(b).__setitem__(8, "1x"),
    "a bool token": lambda b: tokens_of(b).__setitem__(8, True),
    "a token beyond int64": lambda b: tokens_of(b).__setitem__(8, 2**63),
    "a token outside the vocabulary": lambda b: tokens_of(b).__setitem__(8, VOCAB),
    "a short tensor": lambda b: tensor_data(b, "mask").pop(),
    "an empty tensor": lambda b: tensor_data(b, "mask").clear(),
    "an unknown key with strings": lambda b: b["samples"][1]["loss_fn_inputs"].update(
        notes={"data": ["a"] * N, "dtype": "float32"}
    ),
    "a skeleton error after a bulk error": lambda b: (
        tensor_data(b, "logprobs", 0).__setitem__(1, True),
        b["samples"][2].update(extra=1),
    ),
    "a bulk error after a skeleton error": lambda b: (
        b["samples"][0]["loss_fn_inputs"]["logprobs"].update(dtype="float64"),
        tensor_data(b, "logprobs", 2).__setitem__(1, True),
    ),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_bulk_checks_decide_exactly_as_the_full_schema(
    mutation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = parsed(large_body())
    MUTATIONS[mutation](body)
    fast = outcome(copy.deepcopy(body))
    full_only(monkeypatch)
    assert fast == outcome(copy.deepcopy(body))


def test_nan_from_a_lenient_decoder_takes_the_full_path() -> None:
    text = orjson.dumps(large_body()).replace(b"[-", b"[NaN,-", 1)
    body = json.loads(text)  # the standard library accepts NaN
    assert outcome(body)[0] == "refused"


def test_the_bulk_checks_cover_every_place_their_items_appear() -> None:
    """`_bulk_arrays` checks tokens at samples[].model_input.chunks[].encoded_text and tensors
    at samples[].loss_fn_inputs.*: if the spec puts a TensorData or EncodedTextChunk anywhere
    else in ForwardBackwardBody, the fast path would skip its items, so this test fails."""
    schemas = load_spec()["components"]["schemas"]
    found: list[str] = []

    def walk(node: Any, path: str, seen: frozenset[str]) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.rsplit("/", 1)[-1]
                if name in ("TensorData", "EncodedTextChunk"):
                    found.append(f"{path}:{name}")
                    return
                if name not in seen:
                    walk(resolve_ref(node), path, seen | {name})
                return
            for key, value in node.items():
                step = {"properties": "", "items": "[]", "additionalProperties": ".*"}.get(key)
                if step is None and key in ("oneOf", "anyOf", "allOf"):
                    step = ""
                if step is None:
                    continue
                if key == "properties":
                    for name, sub in value.items():
                        walk(sub, f"{path}.{name}", seen)
                elif isinstance(value, list):
                    for sub in value:
                        walk(sub, path, seen)
                else:
                    walk(value, path + step, seen)

    walk(schemas["ForwardBackwardBody"], "", frozenset({"ForwardBackwardBody"}))
    assert sorted(found) == [
        ".samples[].loss_fn_inputs.*:TensorData",
        ".samples[].model_input.chunks[].encoded_text:EncodedTextChunk",
    ]


def test_a_well_formed_large_body_skips_the_full_schema_validation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def full(name: str, body: object) -> None:
        raise AssertionError("the full schema validation ran")

    monkeypatch.setattr(_requests, "validate_schema", full)
    request = validate_forward_backward(parsed(large_body()), VOCAB)
    assert len(request.samples) == 3


# ------------------------------------------------------------------ the fast decoder
def fast(raw: bytes) -> DecodedBody:
    decoded = decode_fast(raw, min_bytes=0)
    assert decoded is not None, "the fast decoder declined the body"
    return decoded


def test_the_fast_decoder_takes_a_batch_and_decodes_its_lists_into_arrays() -> None:
    raw = orjson.dumps(large_body())
    decoded = fast(raw)
    kinds = sorted(n.kind for n in decoded.scan.lists.values())
    assert kinds == ["floats"] * 6 + ["ints"] * 9  # 3 samples: 2 float tensors, 3 int lists
    assert all(type(n.values) is np.ndarray for n in decoded.scan.lists.values())
    assert decoded.plain() == orjson.loads(raw)
    assert body_digest(decoded.value, decoded.scan) == body_digest(orjson.loads(raw))
    assert decode_fast(raw) is None  # below FAST_DECODE_MIN_BYTES: the plain decode


def test_a_fast_decoded_body_encodes_back_exactly() -> None:
    """What a state dir stores and what `plain()` reads back: the same JSON value, bit for bit
    in every number (-0.0, the shortest float texts, ints at the int64 limits)."""
    body = parsed(large_body())
    tensor_data(body, "logprobs")[:4] = [-0.0, 5e-324, 1.7976931348623157e308, 0.1]
    tokens_of(body)[:2] = [0, 2**63 - 1]
    raw = orjson.dumps(body)
    decoded = fast(raw)
    assert decoded.scan.arrays_in_body
    assert orjson.loads(decoded.encoded()) == orjson.loads(raw)
    assert decoded.encoded() == raw
    assert [str(x) for x in tensor_data(decoded.plain(), "logprobs")[:4]] == [
        "-0.0",
        "5e-324",
        "1.7976931348623157e+308",
        "0.1",
    ]


def test_the_fast_decoder_digest_ignores_key_order_and_whitespace() -> None:
    body = parsed(large_body())
    reordered = json.dumps(dict(reversed(list(body.items()))), indent=2).encode()
    decoded = fast(reordered)
    assert body_digest(decoded.value, decoded.scan) == body_digest(body)


@pytest.mark.parametrize("change", CHANGES)
def test_the_fast_decoder_digest_is_the_plain_digest(change: str) -> None:
    body = parsed(large_body())
    CHANGES[change](body)
    raw = orjson.dumps(body)
    decoded = fast(raw)
    assert body_digest(decoded.value, decoded.scan) == body_digest(orjson.loads(raw))


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_the_fast_decoder_validates_as_the_plain_decode(mutation: str) -> None:
    body = parsed(large_body())
    MUTATIONS[mutation](body)
    raw = json.dumps(body).encode()  # the standard library writes ints beyond 64 bits too
    decoded = decode_fast(raw, min_bytes=0) or DecodedBody.of(orjson.loads(raw))
    assert outcome(None, decoded) == outcome(orjson.loads(raw))
    if decoded.scan.arrays_in_body:
        plain = orjson.loads(raw)
        assert body_digest(decoded.value, decoded.scan) == body_digest(plain)


def test_integral_floats_and_short_lists_are_scanned_as_the_plain_scan_does() -> None:
    body = parsed(large_body())
    body["samples"][0]["loss_fn_inputs"]["mask"] = {"data": [1.0] * N, "dtype": "float32"}
    body["samples"][1]["loss_fn_inputs"]["mask"]["data"][3] = 1.0  # ints and a float
    body["loss"]["grpo_params"] = {"epsilon": 0.2}  # a short object, decoded whole
    raw = orjson.dumps(body)
    decoded = fast(raw)
    plain = orjson.loads(raw)
    scanned = scan_body(plain)
    assert sorted(n.kind for n in decoded.scan.lists.values()) == sorted(
        n.kind for n in scanned.lists.values()
    )
    assert body_digest(decoded.value, decoded.scan) == body_digest(plain)
    assert outcome(None, decoded) == outcome(plain)


DECLINED: dict[str, bytes] = {
    "a byte order mark": b"\xef\xbb\xbf" + orjson.dumps(large_body()),
    "a repeated key": orjson.dumps(large_body())[:-1] + b',"forward_only":true}',
    "a bracket in a string": orjson.dumps({**large_body(), "note": "[x]"}),
    "a list hidden in a number list": orjson.dumps(large_body()).replace(
        b'"tokens":[', b'"tokens":[5,[],[1,2],', 1
    ),
    "a top level that is a list": orjson.dumps([large_body()]),
    "invalid JSON": orjson.dumps(large_body())[:-1],
    "NaN": orjson.dumps(large_body()).replace(b"[-", b"[NaN,-", 1),
}


@pytest.mark.parametrize("case", DECLINED)
def test_the_fast_decoder_declines_what_it_cannot_be_sure_of(case: str) -> None:
    assert decode_fast(DECLINED[case], min_bytes=0) is None


def test_lists_below_the_scan_depth_are_decoded_whole() -> None:
    deep: Any = list(range(N))
    for _ in range(40):  # deeper than MAX_DEPTH
        deep = {"x": deep}
    body = {**parsed(large_body()), "loss": {"type": "LOSS_TYPE_GRPO", "deep": deep}}
    raw = orjson.dumps(body)
    decoded = fast(raw)
    assert decoded.plain() == body
    assert body_digest(decoded.value, decoded.scan) == body_digest(orjson.loads(raw))


ODD_ITEMS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0**53, 1e-300, True, False, None]),
    st.text(alphabet='[]{}",0a', max_size=4),
    st.sampled_from([[], [1, 2], [[]], {}, {"a": [1.5]}, [0.5] * MIN_LENGTH]),
)
LIST_PATHS = [("tokens", None), *((None, key) for key in ("target_tokens", "logprobs", "mask"))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from(LIST_PATHS), st.integers(0, N - 1), ODD_ITEMS),
        max_size=4,
    ),
    indent=st.booleans(),
    reverse=st.booleans(),
)
def test_the_fast_decoder_agrees_with_orjson_on_any_body(
    edits: list[tuple[int, tuple[str | None, str | None], int, Any]], indent: bool, reverse: bool
) -> None:
    """Odd items anywhere in the long lists, in any layout: the fast decoder declines the body,
    or it decodes the same value with the same digest and the same validation verdict."""
    body = parsed(large_body())
    for sample, (tokens, tensor), index, item in edits:
        target = tokens_of(body, sample) if tokens else tensor_data(body, str(tensor), sample)
        target[index] = copy.deepcopy(item)
    if reverse:
        body = dict(reversed(list(body.items())))
    raw = json.dumps(body, indent=2 if indent else None).encode()
    decoded = decode_fast(raw, min_bytes=0)
    if decoded is None:
        return
    plain = orjson.loads(raw)
    assert orjson.dumps(decoded.plain()) == orjson.dumps(plain)  # types too: 1 is not 1.0
    assert body_digest(decoded.value, decoded.scan) == body_digest(plain)
    assert outcome(None, decoded) == outcome(plain)


@pytest.mark.parametrize("loss_type", LOSS_TYPES)
def test_every_loss_computes_the_same_from_a_fast_decoded_body(loss_type: str) -> None:
    """The math sees the same arrays whichever decoder read the body."""
    raw = orjson.dumps(fb_body(loss_type, n_samples=2, length=N, return_loss_fn_outputs=True))
    decoded = fast(raw)
    assert decoded.scan.arrays_in_body
    fast_request = decoded.validated(validate_forward_backward, VOCAB)
    plain_request = validate_forward_backward(orjson.loads(raw), VOCAB)
    params = init_policy(VOCAB, 3)
    fast_result = run_forward_backward(params, fast_request)
    plain_result = run_forward_backward(params, plain_request)
    assert fast_result.output == plain_result.output
    assert fast_result.grads is not None and plain_result.grads is not None
    for name, grad in plain_result.grads.items():
        assert np.array_equal(fast_result.grads[name], grad)


def test_the_schema_view_stands_in_only_for_the_bulk_lists() -> None:
    """The lists whose items the skeleton validator skips (tokens, tensor data) become short
    stand-ins; an array anywhere else is checked by its real values."""
    body = parsed(large_body())
    body["samples"][0]["loss_fn_inputs"]["logprobs"]["sparse_crow_indices"] = [0.5] * N
    decoded = fast(orjson.dumps(body))
    tensor = decoded.value["samples"][0]["loss_fn_inputs"]["logprobs"]
    assert type(tensor["sparse_crow_indices"]) is np.ndarray  # decoded as an array
    stand_ins = {id(values) for _, values in _requests._bulk_lists(decoded.value)}
    view = skeleton(decoded.value, decoded.scan, stand_ins)
    viewed = view["samples"][0]["loss_fn_inputs"]["logprobs"]
    assert len(viewed["data"]) == MIN_LENGTH and set(viewed["data"]) == {0}
    assert viewed["sparse_crow_indices"] == [0.5] * N
    assert outcome(None, decoded) == outcome(orjson.loads(orjson.dumps(body)))
