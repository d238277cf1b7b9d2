"""Stop strings: a completion ends when its text contains one of them.

The text is the completion's tokens decoded by the model's tokenizer family (`_tokenizers.py`);
matching is on UTF-8 bytes, so a stop string made of whole characters is found exactly when the
decoded text contains it, also across token boundaries. The token that completes a stop string
is the completion's last token (it is kept, as a stop token is), and its stop reason is
`STOP_REASON_STOP`. The stop string is looked for in the completion only, never in the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..base import TokenTexts

__all__ = ["StopStrings", "StopWatch"]


class StopStrings:
    """The stop strings of one sample request, for one vocabulary."""

    def __init__(self, stops: Sequence[str], texts: TokenTexts) -> None:
        self.patterns = tuple(stop.encode("utf-8") for stop in stops if stop)
        self.texts = texts
        # The bytes of the completion so far a later match can still need.
        self.keep = max((len(p) for p in self.patterns), default=1) - 1

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def watch(self, sequences: int) -> StopWatch:
        return StopWatch(self, sequences)


class StopWatch:
    """Follows `sequences` completions as they grow, a token of each at a time."""

    def __init__(self, stops: StopStrings, sequences: int) -> None:
        self.stops = stops
        self.tails = [b""] * sequences

    def step(
        self, tokens: npt.NDArray[np.int64], running: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.bool_]:
        """Appends `tokens[s]` to each running completion s; which of them now end."""
        ended = np.zeros(len(self.tails), dtype=bool)
        bytes_of, keep = self.stops.texts.bytes_of, self.stops.keep
        for s in np.flatnonzero(running):
            piece = bytes_of(int(tokens[s]))
            if not piece:
                continue
            text = self.tails[s] + piece
            if any(pattern in text for pattern in self.stops.patterns):
                ended[s] = True
            self.tails[s] = text[len(text) - keep :] if keep else b""
        return ended
