"""Request/response vectors from the emulator with a fixed seed, for ports to other languages.

``python -m contract_tests.vectors`` regenerates the JSON files beside this module;
``python -m contract_tests.vectors --check`` exits 1 when they are stale. Each file is a list of
exchanges ``{"name", "steps": [{"request": {...}, "response": {"status", "headers", "body"}}]}``.
Server-chosen ids and timestamps are replaced by placeholders (``<session_id>``,
``<operation_id:1>``, ``<timestamp>``, ...), so the files only change when behaviour does.
"""

from contract_tests.vectors._generate import VECTORS_DIR, generate_all, stale_files

__all__ = ["VECTORS_DIR", "generate_all", "stale_files"]
