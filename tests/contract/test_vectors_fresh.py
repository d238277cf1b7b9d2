"""contract_tests/vectors/*.json are what `python -m contract_tests.vectors` generates now."""

from __future__ import annotations

from contract_tests.vectors import generate_all, stale_files


def test_vectors_are_fresh() -> None:
    stale = stale_files(generate_all())
    assert not stale, (
        f"stale vectors {stale}: run `make vectors` (python -m contract_tests.vectors)"
    )
