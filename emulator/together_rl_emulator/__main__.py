"""`together-rl-emulator` / `python -m together_rl_emulator`: serve the emulator with uvicorn."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
from pathlib import Path

import uvicorn

from ._app import create_app
from ._embedded import uvicorn_config
from ._timing import Timing

__all__ = ["SWITCH_INTERVAL_S", "main", "parse_args", "resolve_api_keys"]

ENV_KEYS = "TOGETHER_RL_EMULATOR_API_KEYS"
KEY_FILE = "api_key"
# How long a thread holds the GIL while another waits for it (CPython's default is 5 ms). The
# worker computes an operation on the CPU the moment the one ahead completes, just as a client's
# GET for that one arrives; at 5 ms that answer waited up to 5 ms a time for the GIL (the real
# service computes on GPUs and answers at once). This process runs only the emulator, so it
# sets the interval for itself; an emulator embedded in another process leaves that process's.
SWITCH_INTERVAL_S = 0.0005


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="together-rl-emulator",
        description="A local emulator of Together AI's RL training API (forward-backward).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any free)")
    parser.add_argument(
        "--api-key",
        action="append",
        dest="api_keys",
        metavar="KEY",
        help=f"accepted bearer key (repeatable); default: ${ENV_KEYS} (comma-separated), "
        "else a generated key kept in the state dir",
    )
    parser.add_argument("--state-dir", type=Path, help="persist state here (default: in memory)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the session policies")
    parser.add_argument(
        "--timing",
        nargs="+",
        metavar="MODE",
        help="how long operations take: 'realistic' (from their work, on the GPU model), "
        "'fixed MS' (no sooner than MS ms after the POST) or 'none' (the default)",
    )
    parser.add_argument(
        "--op-latency-ms",
        type=int,
        help="the same as --timing fixed MS",
    )
    parser.add_argument("--max-body-mb", type=float, default=64.0, help="request body limit (MB)")
    parser.add_argument("--log-level", default="warning", help="uvicorn log level")
    args = parser.parse_args(argv)
    if args.op_latency_ms is not None and args.op_latency_ms < 0:
        parser.error("--op-latency-ms must be >= 0")
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
    if args.max_body_mb <= 0:
        parser.error("--max-body-mb must be > 0")
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
        stored = key_path.read_text().strip()
        if stored:
            print(f"together-rl-emulator: using the API key stored in {key_path}", flush=True)
            return [stored]
    key = "emu-" + secrets.token_urlsafe(24)
    if key_path is not None:
        key_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(key + "\n")
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
    keys = resolve_api_keys(args.api_keys, args.state_dir)
    app = create_app(
        api_keys=keys,
        seed=args.seed,
        timing=args.timing,
        state_dir=args.state_dir,
        max_body_mb=args.max_body_mb,
    )
    server = uvicorn.Server(uvicorn_config(app, args.host, args.port, args.log_level))
    asyncio.run(_serve(server, args.host))
    return 0


if __name__ == "__main__":
    sys.exit(main())
