"""Request/response vectors from the emulator with a fixed seed, for ports to other languages.

``python -m together_rl_contract_tests.vectors`` regenerates the JSON files beside this module (only
those that changed); ``python -m together_rl_contract_tests.vectors --check`` exits 1 when one is
stale. Each file is a list of exchanges ``{"name", "steps": [{"request": {...}, "response":
{"status", "headers", "body"}}]}``. Server-chosen ids and timestamps are replaced by placeholders
(``<session_id:1>``, ``<operation_id:1>``, ``<timestamp>``, ...), so the files only change when
behaviour does. "Stale" means exact data (integers, strings, keys, lengths) differs or a float
differs beyond the tolerance of :mod:`together_rl_contract_tests.vectors._compare`, which no BLAS
kernel or thread count reaches. ``README.md`` beside this module says what each field means and how
a port compares it.
"""

from together_rl_contract_tests.vectors._compare import (
    FLOAT_ABSOLUTE_TOLERANCE,
    FLOAT_RELATIVE_TOLERANCE,
    SUMMARY_BYTES_RELATIVE_TOLERANCE,
    Comparison,
    compare_vectors,
    floats_agree,
)
from together_rl_contract_tests.vectors._generate import generate_all
from together_rl_contract_tests.vectors._summary import (
    SUMMARY_KEY,
    column_projection,
    summarise_json,
)
from together_rl_contract_tests.vectors._vector_files import (
    VECTORS_DIR,
    compare_files,
    stale_files,
    write_all,
)

__all__ = [
    "FLOAT_ABSOLUTE_TOLERANCE",
    "FLOAT_RELATIVE_TOLERANCE",
    "SUMMARY_BYTES_RELATIVE_TOLERANCE",
    "SUMMARY_KEY",
    "VECTORS_DIR",
    "Comparison",
    "column_projection",
    "compare_files",
    "compare_vectors",
    "floats_agree",
    "generate_all",
    "stale_files",
    "summarise_json",
    "write_all",
]
