"""The typed decoder of large batches (`_typed_schema.py`, `_typed_body.py`, `_typed_samples.py`,
`_typed_requests.py`) decides as the plain path does: on generated bodies, good and bad (in
their values, their schema, their JSON text), it accepts with the same arrays or refuses with
the same status, field and message (the same first bad sample), or it is unsure and leaves the
body to the plain path. Sizes are shrunk so that small bodies take it, blocks of two samples."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import msgspec
import pytest
from _emulator_bodies import FB, LOSS_TYPES, fb_body, new_session, stats, submit
from _sample_mutations import mutate, mutation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from together_rl_emulator.base._errors import ApiError
from together_rl_emulator.checking import (
    _raw_body,
    _schema_blocks,
    _typed_arrays,
    _typed_requests,
    _typed_samples,
)
from together_rl_emulator.checking._custom_requests import validate_custom_forward_backward
from together_rl_emulator.checking._requests import validate_forward_backward
from together_rl_emulator.checking._typed_requests import (
    typed_custom_forward_backward,
    typed_forward_backward,
)
from together_rl_emulator.checking._typed_schema import typed_items
from together_rl_emulator.web import _handlers
from together_rl_emulator.web._http import json_object

VOCAB = 1_024
UNSURE = "unsure"


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_typed_arrays, "BATCH", 2)
    monkeypatch.setattr(_typed_arrays, "PIECE_BYTES", 150)  # two or three samples
    monkeypatch.setattr(_typed_samples, "BLOCK", 2)


def _request(request: Any) -> Any:
    samples = [
        (
            s.tokens.dtype.str,
            s.tokens.tolist(),
            s.targets.dtype.str,
            s.targets.tolist(),
            [(k, v.dtype.str, v.tolist()) for k, v in s.inputs.items()],
            s.routed_experts_key,
        )
        for s in request.samples
    ]
    if hasattr(request, "gradients"):
        return samples, [(g.dtype.str, g.tolist()) for g in request.gradients]
    return samples, request.loss, request.forward_only, request.return_loss_fn_outputs


def _refusal(error: ApiError) -> Any:
    return ("refused", error.status, error.param, error.message, error.code, error.emulator_rule)


def plain(raw: bytes, custom: bool = False) -> Any:
    validate = validate_custom_forward_backward if custom else validate_forward_backward
    try:
        return _request(validate(json_object(raw), VOCAB, None))
    except ApiError as error:
        return _refusal(error)


def typed(raw: bytes, custom: bool = False) -> Any:
    validate = typed_custom_forward_backward if custom else typed_forward_backward
    try:
        request = validate(raw, VOCAB, lambda: json_object(raw), min_bytes=0)
    except ApiError as error:
        return _refusal(error)
    return UNSURE if request is None else _request(request)


def agree(raw: bytes, custom: bool = False) -> Any:
    """The typed decoder's verdict, checked against the plain path's."""
    verdict = typed(raw, custom)
    if verdict != UNSURE:
        assert verdict == plain(raw, custom)
    return verdict


# Changes to the body as JSON values beyond the samples' own (`_sample_mutations.mutation`).
_BODY_CHANGES = (
    lambda b: b.update(extra=1),
    lambda b: b.update(forward_only="yes"),
    lambda b: b.update(return_loss_fn_outputs=True),
    lambda b: b["loss"].update(type="LOSS_TYPE_UNSPECIFIED"),
    lambda b: b["loss"].update(type="LOSS_TYPE_NOPE"),
    lambda b: b.pop("loss"),
    lambda b: b.update(samples=[]),
    lambda b: b.update(samples={}),
    lambda b: b["samples"][-1].update(extra=1),
    lambda b: b["samples"][0].update(routed_experts_key=""),
    lambda b: b["samples"][-1].update(routed_experts_key="rk-1"),
    lambda b: b["samples"][-1]["model_input"].update(chunks=[]),
    lambda b: b["samples"][-1]["model_input"]["chunks"][0]["encoded_text"].update(tokens=[]),
    lambda b: b["samples"][0].pop("model_input"),
    lambda b: b["samples"][-1]["loss_fn_inputs"].update(x={"data": [1.0], "dtype": "float64"}),
    lambda b: b["samples"][-1]["loss_fn_inputs"].update(x={"data": 1, "dtype": "float32"}),
    lambda b: b["samples"].append([]),
)
# Changes to the JSON text.
_TEXT_CHANGES = (
    lambda t: t,
    lambda t: b"\xef\xbb\xbf" + t,
    lambda t: t + b" x",
    lambda t: t[:-2],
    lambda t: b" \n" + t.replace(b",", b" , ") + b"\n",
    lambda t: t.replace(b'{"samples"', b'{"samples":[1],"samples"', 1),
    lambda t: t.replace(b'"loss"', b'"loss":{},"loss"', 1),
    lambda t: t.replace(b'"dtype"', b'"dtype":"int64","dtype"', 1),
    lambda t: t.replace(b"]}}]", b']}}, {"a": "\\ud800"}]', 1),
    lambda t: t.replace(b"]}}]", b']}}, {"a": 1e400}]', 1),
    lambda t: t.replace(
        b"]}}]", b"]}}, [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 1
    ),
    lambda t: t.replace(b'"loss":', b'"deep":' + b"[" * 300 + b"]" * 300 + b',"loss":', 1),
    lambda t: t.replace(b"1.0", b"1.0e0"),
    lambda t: t.replace(b'"1', b'"\\u0031', 1),  # a token id's digit as a JSON escape
    lambda t: t.replace(b"[0", b"[18446744073709551616", 1),
    lambda t: b"[" + t + b"]",
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    loss_type=st.sampled_from([LOSS_TYPES[0], *LOSS_TYPES]),
    n_samples=st.integers(1, 5),
    length=st.integers(1, 4),
    seed=st.integers(0, 3),
    mutations=st.lists(mutation(), max_size=3),
    body_change=st.none() | st.sampled_from(range(len(_BODY_CHANGES))),
    text_change=st.sampled_from(range(len(_TEXT_CHANGES))),
    string_ids=st.sampled_from(["none", "all", "first", "last"]),
)
def test_typed_and_plain_paths_agree(
    loss_type: str,
    n_samples: int,
    length: int,
    seed: int,
    mutations: list[tuple[str, int, Any]],
    body_change: int | None,
    text_change: int,
    string_ids: str,
) -> None:
    body = fb_body(loss_type, n_samples=n_samples, length=length, seed=seed)
    _write_ids_as_strings(body, string_ids)
    for change in mutations:
        mutate(body, *change)
    if body_change is not None:
        _BODY_CHANGES[body_change](body)
    # The standard library writes ints of any size, NaN and Infinity (which orjson refuses).
    agree(_TEXT_CHANGES[text_change](json.dumps(body).encode()))


def _write_ids_as_strings(body: dict[str, Any], which: str) -> None:
    """The token ids of every sample, the first or the last one as decimal strings."""
    samples = {"none": [], "all": body["samples"]}.get(which)
    if samples is None:
        samples = [body["samples"][0 if which == "first" else -1]]
    for sample in samples:
        for chunk in sample["model_input"]["chunks"]:
            chunk["encoded_text"]["tokens"] = list(map(str, chunk["encoded_text"]["tokens"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_samples=st.integers(1, 5),
    length=st.integers(1, 4),
    mutations=st.lists(mutation(), max_size=2),
    gradient_change=st.sampled_from(["none", "shorter", "fewer", "string", "huge", "drop"]),
)
def test_typed_and_plain_paths_agree_on_custom_bodies(
    n_samples: int, length: int, mutations: list[tuple[str, int, Any]], gradient_change: str
) -> None:
    body = fb_body(n_samples=n_samples, length=length)
    for change in mutations:
        mutate(body, *change)
    custom: dict[str, Any] = {
        "samples": body["samples"],
        "gradients": [{"data": [0.5] * length} for _ in range(n_samples)],
    }
    gradients = custom["gradients"]
    if gradient_change == "shorter":
        gradients[-1]["data"].pop()
    elif gradient_change == "fewer":
        gradients.pop()
    elif gradient_change == "string":
        gradients[0]["data"][0] = "1"
    elif gradient_change == "huge":
        gradients[-1]["data"][0] = 10**400
    elif gradient_change == "drop":
        del custom["gradients"]
    agree(json.dumps(custom).encode(), custom=True)


def worst(n_samples: int, bad_at: int | None) -> dict[str, Any]:
    body = fb_body(n_samples=n_samples, length=4)
    if bad_at is not None:
        body["samples"][bad_at]["model_input"]["chunks"][0]["encoded_text"]["tokens"][0] = VOCAB
    return body


def test_the_typed_path_decides_a_batch_of_short_samples() -> None:
    """Not unsure: a clean batch, a bad sample (the first of two), a schema error after a bad
    value (the schema's error wins, at its index), a custom-forward-backward batch."""
    clean = worst(9, None)
    first_tokens = clean["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    assert agree(json.dumps(clean).encode())[0][0][1] == first_tokens
    body = worst(9, 4)
    body["samples"][7]["model_input"]["chunks"][0]["encoded_text"]["tokens"][1] = VOCAB
    refused = agree(json.dumps(body).encode())
    assert refused[2] == "samples[4].model_input.chunks[0].encoded_text.tokens[0]"
    body["samples"][6]["loss_fn_inputs"]["weights"]["dtype"] = "float64"
    refused = agree(json.dumps(body).encode())
    assert refused[2] == "samples[6].loss_fn_inputs.weights.dtype"
    custom = {"samples": worst(5, None)["samples"], "gradients": [{"data": [1.0] * 4}] * 5}
    assert agree(json.dumps(custom).encode(), custom=True) != UNSURE


def test_item_types_are_built_from_the_spec() -> None:
    """Tokens are the spec's TokenId (an int64 >= 0, or its decimal string of 1 to 19 ASCII
    digits), tensor dtypes its DType: a change in the spec changes what the types accept."""
    sample_type = typed_items("ForwardBackwardBody", "samples")
    assert sample_type is not None
    one = copy.deepcopy(worst(1, None)["samples"][0])
    decoded = msgspec.json.decode(json.dumps(one).encode(), type=sample_type)
    assert decoded.loss_fn_inputs["weights"].dtype == "float32"
    for good in ('"7"', '"0007"', '"9999999999999999999"'):
        text = json.dumps(one).replace('"tokens": [', '"tokens": [' + good + ",", 1).encode()
        tokens = msgspec.json.decode(text, type=sample_type).model_input.chunks[0].encoded_text
        assert tokens.tokens[0] == json.loads(good)
    bad_strings = ('"-7"', '"+7"', '" 7"', '"7 "', '"7\\n"', '""', '"7a"', '"\\u0661"', '"1_0"')
    for bad in (*bad_strings, '"12345678901234567890"', "-1", "9223372036854775808", "1.0"):
        text = json.dumps(one).replace('"tokens": [', '"tokens": [' + bad + ",", 1).encode()
        with pytest.raises(msgspec.ValidationError):
            msgspec.json.decode(text, type=sample_type)
    assert typed_items("ForwardBackwardBody", "loss") is None  # not an array


def test_string_token_ids_take_the_typed_path() -> None:
    """Decimal-string ids are decided by the typed path (not unsure): valid, outside the
    vocabulary, beyond int64 (19 digits), and refused by the schema's pattern."""
    body = worst(4, None)
    _write_ids_as_strings(body, "all")
    tokens = body["samples"][2]["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    tokens[1] = "0017"
    accepted = agree(json.dumps(body).encode())
    assert accepted != UNSURE and accepted[0][2][1][1] == 17
    path = "samples[2].model_input.chunks[0].encoded_text.tokens[1]"
    for bad, reason in (
        (str(VOCAB), "outside the vocabulary"),
        ("9" * 19, "outside the vocabulary"),
        ("-17", "decimal integers of at most 19 digits"),
        ("1" * 20, "decimal integers of at most 19 digits"),
    ):
        tokens[1] = bad
        refused = agree(json.dumps(body).encode())
        assert refused != UNSURE and refused[2] == path and reason in refused[3], refused


def test_string_token_ids_are_read_a_column_at_a_time() -> None:
    """The columnar check reads a block of decimal-string ids (no sample-by-sample fallback)
    and flags exactly the sample with an id outside the vocabulary."""
    body = worst(4, 2)
    _write_ids_as_strings(body, "all")
    sample_type = typed_items("ForwardBackwardBody", "samples")
    samples = msgspec.json.decode(json.dumps(body["samples"]).encode(), type=list[sample_type])
    rules = _typed_samples.Rules(lambda keys: True, lambda key, dtype: True)
    ok = _typed_samples._block_ok(samples, VOCAB, rules, ints_only=False)
    assert ok is not None and ok.tolist() == [True, True, False, True]


def test_a_refused_item_the_schema_accepts_hides_no_later_error() -> None:
    """The types refuse sample 0 (an int beyond int64 in a tensor, which the schema accepts as
    a number); the first schema error is in sample 1, before the unknown member: unsure."""
    body = worst(2, None)
    body["samples"][0]["loss_fn_inputs"]["weights"]["data"][0] = 2**64
    body["samples"][1]["model_input"]["chunks"][0]["encoded_text"]["tokens"] = []
    body["extra"] = 1
    raw = json.dumps(body).encode()
    assert plain(raw)[2] == "samples[1].model_input.chunks[0].encoded_text.tokens"
    assert typed(raw) == UNSURE


def test_a_body_of_long_lists_is_left_to_the_array_decoder() -> None:
    body = fb_body(n_samples=2, length=400)
    assert typed(json.dumps(body).encode()) == UNSURE


def test_behind_http_a_refused_batch_is_never_decoded_plainly_nor_digested(
    emulator_client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the app: the typed path's 400 is the plain path's, with neither a plain decode
    nor a digest of the refused body; a valid body is digested as the plain path digests it
    (the same body in another key order replays, a changed one is 422)."""
    sid = new_session(emulator_client)
    bad = worst(6, 4)
    plain_error = submit(emulator_client, sid, bad, "plain").json()
    monkeypatch.setattr(_handlers, "TYPED_DECODE_MIN_BYTES", 0)
    monkeypatch.setattr(_typed_requests, "TYPED_DECODE_MIN_BYTES", 0)
    plain_decodes: list[int] = []
    real_decode = _raw_body.decode_body

    def counted(raw: bytes, parse: Any, *, fast: bool) -> Any:
        plain_decodes.append(len(raw))
        return real_decode(raw, parse, fast=fast)

    monkeypatch.setattr(_raw_body, "decode_body", counted)
    refused = submit(emulator_client, sid, bad, "typed")
    assert refused.status_code == 400 and refused.json() == plain_error
    assert (
        plain_error["error"]["param"] == "samples[4].model_input.chunks[0].encoded_text.tokens[0]"
    )
    assert plain_decodes == []  # neither decoded plainly nor digested

    body = worst(6, None)
    first = submit(emulator_client, sid, body, "key-1").json()
    assert len(plain_decodes) == 1  # the digest of a valid body
    reordered = json.dumps(dict(reversed(list(body.items()))), indent=1).encode()
    replay = emulator_client.post(
        FB.format(sid), content=reordered,
        headers={"Idempotency-Key": "key-1", "Content-Type": "application/json"},
    )  # fmt: skip
    assert replay.status_code == 200 and replay.json()["id"] == first["id"]
    changed = worst(6, None)
    changed["samples"][5]["loss_fn_inputs"]["weights"]["data"][1] = 0.5
    assert submit(emulator_client, sid, changed, "key-1").status_code == 422
    counters = stats(emulator_client)
    assert counters["operations_created"] == {"forward-backward": 1}
    assert counters["idempotent_replays"] == {"forward-backward": 1}


def test_a_typed_decoder_failure_falls_back_to_the_plain_path() -> None:
    def broken(raw: bytes, vocab_size: int, plain: Any) -> Any:
        raise RuntimeError("a case the typed decoder did not foresee")

    raw = json.dumps(worst(3, 1)).encode()
    body = _raw_body.RawBody(raw, json_object, fast=True, typed=broken)
    with pytest.raises(ApiError) as refused:
        body.validated(validate_forward_backward, VOCAB)
    assert _refusal(refused.value) == plain(raw)


def test_an_array_with_rules_beyond_its_items_takes_the_plain_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One sample stands in for the array in the schema check: a rule on the whole array (a
    `maxItems`) would be missed, so the typed path is off."""
    body = json.dumps(worst(3, None)).encode()
    assert typed(body) != UNSURE
    spec = copy.deepcopy(_schema_blocks.load_spec())
    spec["components"]["schemas"]["ForwardBackwardBody"]["properties"]["samples"]["maxItems"] = 2
    monkeypatch.setattr(_schema_blocks, "load_spec", lambda: spec)
    assert typed(body) == UNSURE


def test_samples_of_several_chunks_are_read_a_column_at_a_time() -> None:
    """The columnar check (not the sample-by-sample one) reads a block of two-chunk samples,
    and flags exactly the sample with a token outside the vocabulary."""
    body = worst(4, None)
    for sample in body["samples"]:
        tokens = sample["model_input"]["chunks"][0]["encoded_text"]["tokens"]
        sample["model_input"]["chunks"] = [
            {"encoded_text": {"tokens": tokens[:1]}},
            {"encoded_text": {"tokens": tokens[1:]}},
        ]
    body["samples"][2]["model_input"]["chunks"][1]["encoded_text"]["tokens"][0] = VOCAB
    sample_type = typed_items("ForwardBackwardBody", "samples")
    samples = msgspec.json.decode(json.dumps(body["samples"]).encode(), type=list[sample_type])
    rules = _typed_samples.Rules(lambda keys: True, lambda key, dtype: True)
    ok = _typed_samples._block_ok(samples, VOCAB, rules, ints_only=True)
    assert ok is not None and ok.tolist() == [True, True, False, True]
    assert agree(json.dumps(body).encode())[2] == (
        "samples[2].model_input.chunks[1].encoded_text.tokens[0]"
    )
