"""`together-rl-emulator` / `python -m together_rl_emulator`: serve the emulator with uvicorn."""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import secrets
import sqlite3
import sys
from pathlib import Path

import uvicorn

from .base import private_dir, private_file, write_private
from .cost import Timing
from .web import create_app, uvicorn_config

__all__ = ["SWITCH_INTERVAL_S", "main", "parse_args", "resolve_api_keys"]

ENV_KEYS = "TOGETHER_RL_EMULATOR_API_KEYS"
KEY_FILE = "api_key"
# How long a thread holds the GIL while another waits for it (CPython's default is 5 ms). The
# worker computes an operation on the CPU the moment the one ahead completes, just as a client's
# GET for that one arrives; at 5 ms that answer waited up to 5 ms a time for the GIL (the real
# service computes on GPUs and answers at once). This process runs only the emulator, so it
# sets the interval for itself; an emulator embedded in another process leaves that process's.
SWITCH_INTERVAL_S = 0.0005
# The largest --max-body-mb: a body is held in memory whole, and checking it costs about 15
# times its size at its peak (docs/benchmarks.md, the worst legal body).
MAX_BODY_MB_LIMIT = 1024.0
MAX_SEED = 2**63 - 1


def _port(text: str) -> int:
    value = _whole_number(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535 (0: any free port), got {text!r}")
    return value


def _whole_number(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}")
    return int(text)


def _seed(text: str) -> int:
    value = _whole_number(text)
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SEED}, got {text!r}")
    return value


def _body_megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of megabytes, got {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= MAX_BODY_MB_LIMIT:
        raise argparse.ArgumentTypeError(
            f"must be a number of megabytes > 0 and <= {MAX_BODY_MB_LIMIT:g}, got {text!r}"
        )
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="together-rl-emulator",
        description="A local emulator of Together AI's RL training API (forward-backward).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=_port, default=8765, help="port (default 8765; 0 = any free)"
    )
    parser.add_argument(
        "--api-key",
        action="append",
        dest="api_keys",
        metavar="KEY",
        help=f"accepted bearer key (repeatable); default: ${ENV_KEYS} (comma-separated), "
        "else a generated key kept in the state dir",
    )
    parser.add_argument("--state-dir", type=Path, help="persist state here (default: in memory)")
    parser.add_argument("--seed", type=_seed, default=0, help="seed of the session policies")
    parser.add_argument(
        "--timing",
        nargs="+",
        metavar="MODE",
        help="how long operations take: 'realistic' (from their work, on the GPU model), "
        "'fixed MS' (no sooner than MS ms after the POST) or 'none' (the default)",
    )
    parser.add_argument(
        "--op-latency-ms",
        type=_whole_number,
        help="the same as --timing fixed MS",
    )
    parser.add_argument(
        "--max-body-mb",
        type=_body_megabytes,
        default=64.0,
        help=f"request body limit (MB, at most {MAX_BODY_MB_LIMIT:g}; default 64)",
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        type=str.lower,
        choices=list(uvicorn.config.LOG_LEVELS),
        help="uvicorn log level (default warning)",
    )
    args = parser.parse_args(argv)
    if args.op_latency_ms is not None and args.timing is not None:
        parser.error("--op-latency-ms is --timing fixed MS: give one of them")
    try:
        args.timing = (
            Timing.parse(args.timing)
            if args.timing is not None
            else Timing("fixed", args.op_latency_ms)
            if args.op_latency_ms
            else Timing()
        )
    except ValueError as exc:
        parser.error(f"--timing: {exc}")
    return args


def resolve_api_keys(cli_keys: list[str] | None, state_dir: Path | None) -> list[str]:
    """--api-key, else the environment, else a key kept in the state dir, else a new key.

    A new key is printed once (never logged); with a state dir it is stored there (mode 0600)
    and reused on restart.
    """
    if cli_keys:
        return [k for k in cli_keys if k]
    env = [k.strip() for k in os.environ.get(ENV_KEYS, "").split(",") if k.strip()]
    if env:
        return env
    key_path = state_dir / KEY_FILE if state_dir is not None else None
    if key_path is not None and key_path.exists():
        stored = private_file(key_path).read_text().strip()
        if stored:
            print(f"together-rl-emulator: using the API key stored in {key_path}", flush=True)
            return [stored]
    key = "emu-" + secrets.token_urlsafe(24)
    if key_path is not None:
        private_dir(key_path.parent)
        write_private(key_path, key + "\n")
    where = f" (kept in {key_path})" if key_path is not None else ""
    print(f"together-rl-emulator: generated API key{where}: {key}", flush=True)
    return [key]


async def _serve(server: uvicorn.Server, host: str) -> None:
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started:
        port = server.servers[0].sockets[0].getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        print(f"together-rl-emulator listening on http://{shown}:{port}", flush=True)
    await task


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        keys = resolve_api_keys(args.api_keys, args.state_dir)
        app = create_app(
            api_keys=keys,
            seed=args.seed,
            timing=args.timing,
            state_dir=args.state_dir,
            max_body_mb=args.max_body_mb,
        )
    except (OSError, sqlite3.Error) as exc:  # an unusable --state-dir: said, no traceback
        print(f"together-rl-emulator: error: --state-dir {args.state_dir}: {exc}", file=sys.stderr)
        return 2
    server = uvicorn.Server(uvicorn_config(app, args.host, args.port, args.log_level))
    asyncio.run(_serve(server, args.host))
    return 0


if __name__ == "__main__":
    sys.exit(main())
