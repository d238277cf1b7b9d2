"""``python -m together_rl_contract_tests.proxy [--upstream URL ...]`` and ``python -m
together_rl_contract_tests.proxy replay FILE`` (also ``python -m together_rl_contract_tests
proxy|replay ...``, ``together-rl-proxy``, ``together-rl-replay``).

Both listen on loopback unless ``--host`` says otherwise, print ``... listening on http://...``
when ready (as the emulator does) and run until interrupted (Ctrl-C or SIGTERM). The proxy then
writes ``reports/proxy.md`` and ``reports/proxy.junit.xml`` (see docs/proxy.md).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvicorn

from together_rl_contract_tests.proxy._body_recorder import DEFAULT_RECORD_LIMIT
from together_rl_contract_tests.proxy._cassette import CassetteWriter, read_cassette
from together_rl_contract_tests.proxy._forwarding import ValidatingProxy
from together_rl_contract_tests.proxy._replay import ReplayServer
from together_rl_contract_tests.proxy._report import summary_line, write_junit, write_markdown
from together_rl_contract_tests.proxy._traffic_monitor import TrafficMonitor

__all__ = ["main", "proxy_main", "replay_main"]

DEFAULT_PROXY_PORT = 8766
DEFAULT_REPLAY_PORT = 8767


def _listen_args(parser: argparse.ArgumentParser, port: int) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface (default 127.0.0.1; another only when given)"
    )
    parser.add_argument("--port", type=int, default=port, help=f"port (default {port}; 0 = any)")


def main(argv: Sequence[str] | None = None) -> int:
    """``replay CASSETTE ...`` runs the replay; anything else the proxy (``proxy`` optional)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "replay":
        return replay_main(args[1:])
    return proxy_main(args[1:] if args and args[0] == "proxy" else args)


def proxy_main(argv: Sequence[str] | None = None) -> int:
    """The proxy (console script ``together-rl-proxy``)."""
    parser = argparse.ArgumentParser(
        prog="together-rl-proxy",
        description="Forward to --upstream unchanged; check every exchange against the spec.",
    )
    parser.add_argument(
        "--upstream", required=True, help="server root, without /v1 (e.g. https://api.together.ai)"
    )
    _listen_args(parser, DEFAULT_PROXY_PORT)
    parser.add_argument("--record", type=Path, help="write a cassette (JSON lines, mode 0600)")
    parser.add_argument(
        "--reports",
        type=Path,
        default=Path("reports"),
        help="where proxy.md and proxy.junit.xml go (default reports/)",
    )
    parser.add_argument(
        "--max-record-mb",
        type=_positive_mb,
        default=DEFAULT_RECORD_LIMIT / 2**20,
        help="MiB kept of each body, decoded (default %(default)g); the client gets all of it",
    )
    args = parser.parse_args(argv)
    recorder = CassetteWriter(args.record) if args.record else None
    monitor = TrafficMonitor(recorder)
    proxy = ValidatingProxy(args.upstream, monitor, record_limit=int(args.max_record_mb * 2**20))
    serve(proxy, args.host, args.port, f"proxy to {args.upstream}")
    monitor.close()
    write_markdown(monitor, args.reports / "proxy.md", args.upstream)
    write_junit(monitor, args.reports / "proxy.junit.xml")
    print(summary_line(monitor), flush=True)
    print(
        f"reports: {args.reports / 'proxy.md'}, {args.reports / 'proxy.junit.xml'}"
        + (f"; cassette: {args.record}" if args.record else ""),
        flush=True,
    )
    return 0


def _positive_mb(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0 or value * 2**20 < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of MiB")
    return value


def replay_main(argv: Sequence[str] | None = None) -> int:
    """The replay server (console script ``together-rl-replay``)."""
    parser = argparse.ArgumentParser(
        prog="together-rl-replay",
        description="Serve a cassette recorded by the proxy back, with the upstream gone.",
    )
    parser.add_argument("cassette", type=Path)
    _listen_args(parser, DEFAULT_REPLAY_PORT)
    args = parser.parse_args(argv)
    exchanges = read_cassette(args.cassette)
    server = ReplayServer(exchanges)
    serve(server, args.host, args.port, f"replay of {args.cassette} ({len(exchanges)} exchanges)")
    print(f"replay: {server.replayed} requests answered, {len(server.misses)} misses", flush=True)
    return 1 if server.misses else 0


def serve(app: Any, host: str, port: int, what: str) -> None:
    """Serve ``app`` until interrupted; print the ready line with the bound port."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        server_header=False,
        date_header=False,
    )
    server = uvicorn.Server(config)

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            bound = server.servers[0].sockets[0].getsockname()[1]
            shown = f"[{host}]" if ":" in host else host
            print(
                f"together_rl_contract_tests {what} listening on http://{shown}:{bound}", flush=True
            )
        await task

    # uvicorn re-raises the signal that stopped it once it has shut down; both end up here as
    # KeyboardInterrupt, so the caller still writes its reports after Ctrl-C or SIGTERM.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
