"""Reliability proofs of the toolkit : fault soak, crash loop, load, hostile input,
access isolation and schemathesis in negative mode.

Each proof is a function returning a report dataclass (the figures), used twice: with small
parameters by the fast tests in ``tests/reliability`` (``make test``) and with the long parameters
by ``python -m reliability`` (``make reliability``), which writes the figures into
``docs/reliability.md``.
"""
