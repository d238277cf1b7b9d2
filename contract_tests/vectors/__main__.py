"""``python -m contract_tests.vectors [--check]``."""

from __future__ import annotations

import argparse
import sys

from contract_tests.vectors._generate import VECTORS_DIR, generate_all, stale_files, write_all


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m contract_tests.vectors")
    parser.add_argument("--check", action="store_true", help="exit 1 if the files are stale")
    args = parser.parse_args()
    vectors = generate_all()
    if args.check:
        stale = stale_files(vectors)
        for name in stale:
            print(f"stale: {VECTORS_DIR / name} (run python -m contract_tests.vectors)")
        return 1 if stale else 0
    for path in write_all(vectors):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
