"""Whether recorded vectors still hold: exact data exactly, floats within a stated tolerance.

The emulator computes in float64 with numpy; the last bits of a result depend on the BLAS kernel
(``OPENBLAS_CORETYPE``), the CPU's SIMD paths and the thread count. What that can do to a vector:

- a float64 value drifts by a few ulps: measured, at most 1.8e-15 (relative 2.6e-16) over the
  65,536 log-probs of the offloaded sample between ``OPENBLAS_CORETYPE`` unset and ``=Haswell``
  on these machines (and not at all between 1 and 2 threads);
- a value the emulator returns as float32 (forward-backward log-probs) is the float64 one rounded:
  it is identical unless the drift crosses a float32 rounding midpoint (a chance of about 1e-8
  per value), and then it moves by one float32 ulp, at most 2^-23 = 1.2e-7 relative;
- such a log-prob feeds the sampler log-probs the generator sends (rounded to 6 decimals,
  ``_near_policy``), which then move by at most 1.5e-6 on values of magnitude above 5
  (3e-7 relative), and the loss by about as much relatively.

So floats agree when ``|recorded - generated| <= FLOAT_ABSOLUTE_TOLERANCE +
FLOAT_RELATIVE_TOLERANCE * max(|recorded|, |generated|)``, with 1e-6 relative (8 float32 ulps, a
billion float64 drifts) and 1e-9 absolute (for values near 0). A change of behaviour a vector is
there to catch (a loss that mixes up its bounds, a changed default) moves values by far more.

- Integers, strings, booleans, null, object keys and list lengths: equal. (Sampled tokens are
  integers drawn by comparing a uniform number with a cumulative sum of probabilities: a drift
  changes one only when a draw lands within about 1e-15 of a boundary, a chance of about 1e-13
  per token. That is not proven impossible, only negligible.)
- ``bytes`` of a ``<summary>`` (the size of a large body as served): within
  ``SUMMARY_BYTES_RELATIVE_TOLERANCE`` of the recorded size: the body holds floats in their
  shortest round-trip form, whose length can change when their last bits do.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from together_rl_contract_tests.vectors._summary import SUMMARY_KEY

__all__ = [
    "FLOAT_ABSOLUTE_TOLERANCE",
    "FLOAT_RELATIVE_TOLERANCE",
    "SUMMARY_BYTES_RELATIVE_TOLERANCE",
    "Comparison",
    "compare_vectors",
    "floats_agree",
]

FLOAT_RELATIVE_TOLERANCE = 1e-6
FLOAT_ABSOLUTE_TOLERANCE = 1e-9
SUMMARY_BYTES_RELATIVE_TOLERANCE = 0.1
#: How many disagreements a comparison lists (the first ones, in document order).
MAX_LISTED = 20


@dataclasses.dataclass
class Comparison:
    """The outcome of :func:`compare_vectors`."""

    #: Where the two disagree beyond tolerance, with both values (at most ``MAX_LISTED``).
    differences: list[str] = dataclasses.field(default_factory=list)
    #: How many places disagree (may exceed the length of ``differences``).
    difference_count: int = 0
    #: The largest ``|recorded - generated|`` among floats that agree, and where it is.
    largest_float_difference: float = 0.0
    largest_float_difference_at: str = ""

    @property
    def agree(self) -> bool:
        return self.difference_count == 0

    def note_difference(self, path: str, why: str) -> None:
        self.difference_count += 1
        if len(self.differences) < MAX_LISTED:
            self.differences.append(f"{path or '<root>'}: {why}")


def floats_agree(recorded: float, generated: float) -> bool:
    """Whether two floats of a vector agree within the vectors' tolerance."""
    if math.isnan(recorded) or math.isnan(generated):
        return math.isnan(recorded) and math.isnan(generated)
    if math.isinf(recorded) or math.isinf(generated):
        return recorded == generated
    scale = max(abs(recorded), abs(generated))
    bound = FLOAT_ABSOLUTE_TOLERANCE + FLOAT_RELATIVE_TOLERANCE * scale
    return abs(recorded - generated) <= bound


def _kind(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value) if value is None else "bool"
    return type(value).__name__


def _by_name(items: list[Any]) -> dict[str, Any]:
    """``items`` keyed by their ``name`` when each is an object with a distinct string name."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    if (
        not items
        or not all(isinstance(name, str) for name in names)
        or len(set(names)) < len(names)
    ):
        return {}
    return {f"[name={name}]": item for name, item in zip(names, items, strict=True)}


def _walk(recorded: Any, generated: Any, path: str, out: Comparison) -> None:
    if _kind(recorded) != _kind(generated):
        out.note_difference(path, f"recorded {recorded!r}, generated {generated!r}")
    elif isinstance(recorded, dict):
        missing, extra = (
            sorted(set(recorded) - set(generated)),
            sorted(set(generated) - set(recorded)),
        )
        if missing or extra:
            out.note_difference(path, f"keys only recorded {missing}, only generated {extra}")
        for key in sorted(set(recorded) & set(generated)):
            step = key if key.startswith("[") else f".{key}" if path else key
            _walk(recorded[key], generated[key], f"{path}{step}", out)
    elif isinstance(recorded, list) and _by_name(recorded) and _by_name(generated):
        # A list of named exchanges: match them by name, so one inserted vector is one difference.
        _walk(_by_name(recorded), _by_name(generated), path, out)
        common = {item["name"] for item in recorded} & {item["name"] for item in generated}
        if [i["name"] for i in recorded if i["name"] in common] != [
            i["name"] for i in generated if i["name"] in common
        ]:
            out.note_difference(path, "the named entries are in another order")
    elif isinstance(recorded, list):
        if len(recorded) != len(generated):
            out.note_difference(path, f"recorded {len(recorded)} items, generated {len(generated)}")
        for index, (old, new) in enumerate(zip(recorded, generated, strict=False)):
            _walk(old, new, f"{path}[{index}]", out)
    elif isinstance(recorded, float):
        if not floats_agree(recorded, generated):
            out.note_difference(
                path, f"recorded {recorded!r}, generated {generated!r} (beyond tolerance)"
            )
        elif abs(recorded - generated) > out.largest_float_difference:
            out.largest_float_difference = abs(recorded - generated)
            out.largest_float_difference_at = path
    elif path.endswith(f"{SUMMARY_KEY}.bytes") and isinstance(recorded, int):
        if abs(recorded - generated) > SUMMARY_BYTES_RELATIVE_TOLERANCE * recorded:
            out.note_difference(path, f"recorded {recorded} bytes, generated {generated}")
    elif recorded != generated:
        out.note_difference(path, f"recorded {recorded!r}, generated {generated!r}")


def compare_vectors(recorded: Any, generated: Any, *, path: str = "") -> Comparison:
    """Compare a recorded vector document with a freshly generated one (see the module doc)."""
    out = Comparison()
    _walk(recorded, generated, path, out)
    return out
