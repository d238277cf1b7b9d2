"""Wrapper benchmark: the together_rl wrapper against the official SDK (together==3.1.1).

    .venv/bin/python -m benchmarks.bench_wrapper [--quick] [--no-write]

Starts the emulator as a uvicorn subprocess on loopback (one per --op-latency-ms value) and
measures, side by side in one run:
1. polling: median time from operation completion to result in the caller's hands, and GETs per
   operation (from /_emulator/stats), at D = 20, 200, 1300 ms;
2. one 64 x 2048 GRPO request encoded and a response with loss_fn_outputs decoded: plain orjson,
   the wrapper, the generated attrs client and the official SDK's raw
   `operations.forward_backward`, all on the same wire dicts, interleaved;
3. pipelining at D = 200 ms: steps/s with submit-ahead vs strictly sequential.
Writes its section of docs/benchmarks.md between the wrapper markers, each table with the checked
facts (payload, code path) that tests/benchmarks/test_documented_figures.py recomputes. The
tables are measured by `_wrapper_polling.py`, `_wrapper_large_batch.py` and
`_wrapper_pipelining.py`, over what `_wrapper_bench_common.py` holds.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from benchmarks._report import (
    RunInfo,
    Table,
    bench_arguments,
    publish,
)
from benchmarks._wrapper_bench_common import config
from benchmarks._wrapper_large_batch import LargeBatch, large_batch_table
from benchmarks._wrapper_pipelining import pipelining, pipelining_table
from benchmarks._wrapper_polling import polling, polling_facts, polling_table

__all__ = ["checked_facts", "main"]


# --------------------------------------------------------------------------- facts check


def checked_facts(key: str, quick: bool) -> dict[str, Any]:
    """The checked facts of table `key` for a run with or without --quick, recomputed with the
    fewest repetitions that exercise every code path (for tests/benchmarks)."""
    cfg = config(quick)
    if key == "wrapper.polling":
        facts = polling_facts([polling(min(cfg["poll_ops"]), 1)], cfg["poll_ops"])
    elif key == "wrapper.large_batch":
        bench = LargeBatch()
        try:
            facts = bench.facts()
        finally:
            bench.close()
    elif key == "wrapper.pipelining":
        facts = dict(pipelining_table(pipelining(2), cfg["pipe_steps"]).facts)
    else:
        raise KeyError(key)
    return {"quick": quick, **facts}


# --------------------------------------------------------------------------- report


def main(argv: list[str] | None = None) -> int:
    parser = bench_arguments(__doc__)
    args = parser.parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts, args.quick)))
        return 0
    cfg = config(args.quick)
    command = ".venv/bin/python -m benchmarks.bench_wrapper" + (" --quick" if args.quick else "")
    built: list[tuple[Table, RunInfo]] = []
    run = RunInfo(command)
    poll = [polling(d, n) for d, n in cfg["poll_ops"].items()]
    built.append((polling_table(poll, cfg["poll_ops"]), run.finish()))
    run = RunInfo(command)
    built.append((large_batch_table(args.quick), run.finish()))
    run = RunInfo(command)
    pipe = pipelining(cfg["pipe_steps"])
    built.append((pipelining_table(pipe, cfg["pipe_steps"]), run.finish()))
    for table, _ in built:
        table.facts = {"quick": args.quick, **table.facts}
    section = "\n\n".join(
        ["## Wrapper (`together_rl`) vs the official SDK"] + [t.render(r) for t, r in built]
    )
    return publish("wrapper", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
