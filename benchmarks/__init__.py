"""Benchmarks (not tests): `make bench` runs them and rewrites their tables in
docs/benchmarks.md; tests/benchmarks checks that the documented tables still match the code."""

__all__: list[str] = []
