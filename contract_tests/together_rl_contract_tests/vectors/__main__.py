"""``python -m together_rl_contract_tests.vectors [--check] [--directory DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from together_rl_contract_tests.vectors import FLOAT_ABSOLUTE_TOLERANCE, FLOAT_RELATIVE_TOLERANCE
from together_rl_contract_tests.vectors._generate import generate_all
from together_rl_contract_tests.vectors._vector_files import (
    VECTORS_DIR,
    compare_files,
    write_all,
)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m together_rl_contract_tests.vectors")
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if a file is stale (exact data differs, or a float beyond the tolerance)",
    )
    parser.add_argument(
        "--directory",
        type=Path,
        default=VECTORS_DIR,
        help=f"where the files are read and written (default: {VECTORS_DIR})",
    )
    args = parser.parse_args()
    vectors = generate_all()
    if not args.check:
        written = write_all(vectors, args.directory)
        for path in written:
            print(f"wrote {path}")
        print(
            f"{len(vectors) - len(written)} of {len(vectors)} files agree and are kept as they are"
        )
        return 0
    stale = False
    tolerance = f"{FLOAT_ABSOLUTE_TOLERANCE:g} + {FLOAT_RELATIVE_TOLERANCE:g} x |value|"
    for name, comparison in compare_files(vectors, args.directory).items():
        if comparison.agree:
            where = comparison.largest_float_difference_at or "-"
            print(
                f"fresh: {name} (largest float difference {comparison.largest_float_difference:.3g}"
                f" at {where}; tolerance {tolerance})"
            )
            continue
        stale = True
        print(f"stale: {args.directory / name} ({comparison.difference_count} differences; run"
              " python -m together_rl_contract_tests.vectors)")  # fmt: skip
        for difference in comparison.differences:
            print(f"  {difference}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
