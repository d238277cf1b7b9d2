"""Changes to a forward-backward body's samples, good and bad, for the property tests that
compare two ways of checking a body (not a test module)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

VOCAB = 1_024

# Token ids may be decimal strings (`TokenId`'s pattern `^[0-9]{1,19}$`): good ones, and ones
# with too many digits, signs, spaces, other digits or characters, beyond int64 or the vocabulary.
_STRING_TOKENS = (
    "7", "0", "0007", str(VOCAB - 1), str(VOCAB), "2000", "9" * 19, str(2**63 - 1), str(2**63),
    "1" * 20, "-1", "+1", " 1", "1 ", "1a", "", "\u0661", "1_0", "0x1", "1e3", "1.0",
)  # fmt: skip
_TOKENS = st.sampled_from([0, VOCAB - 1, VOCAB, -1, 2**63, 2**64, 3.0, 5, *_STRING_TOKENS])
_NUMBERS = st.sampled_from(
    [0, 1, -1, 2.5, -0.5, -0.0, VOCAB, VOCAB - 1, 2**62, 2**63 - 1, 2**63, -(2**63),
     -(2**63) - 1, 10**400, 3.4e38, 3.5e38, 1e300, float("nan"), float("inf")]
)  # fmt: skip
_KEYS = st.sampled_from(["target_tokens", "weights", "mask", "logprobs", "advantages", "extra"])


_MUTATIONS = ("token", "value", "value", "value", "drop", "add", "dtype", "shape", "sparse")
_MUTATIONS += ("longer", "chunks")


@st.composite
def mutation(draw: st.DrawFn) -> tuple[str, int, Any]:
    what = draw(st.sampled_from(_MUTATIONS))
    values = {"token": _TOKENS, "value": _NUMBERS, "add": _KEYS}.get(what, st.none())
    return what, draw(st.integers(0, 10)), draw(values)


def mutate(body: dict[str, Any], what: str, at: int, value: Any) -> None:
    samples = body["samples"]
    sample = samples[at % len(samples)]
    tokens = sample["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    inputs = sample["loss_fn_inputs"]
    key = sorted(inputs)[at % len(inputs)] if inputs else None
    length = len(tokens)
    if what == "token" and tokens:
        tokens[at % length] = value
    elif what == "value" and key is not None and inputs[key]["data"]:
        inputs[key]["data"][at % len(inputs[key]["data"])] = value
    elif what == "drop" and key is not None:
        del inputs[key]
    elif what == "add":
        dtype = "int64" if value in ("target_tokens", "mask") else "float32"
        inputs[value] = {"data": [1] * length, "dtype": dtype}
    elif what == "dtype" and key is not None:
        inputs[key]["dtype"] = "float32" if inputs[key]["dtype"] == "int64" else "int64"
    elif what == "shape" and key is not None:
        inputs[key]["shape"] = [[length], [length + 1], [1, length]][at % 3]
    elif what == "sparse" and key is not None:
        inputs[key]["sparse_col_indices"] = [0]
    elif what == "longer" and key is not None:
        inputs[key]["data"].append(1)
    elif what == "chunks":
        cut = at % (length + 1)
        sample["model_input"]["chunks"] = [
            {"encoded_text": {"tokens": tokens[:cut]}},
            {"encoded_text": {"tokens": tokens[cut:]}},
        ]
