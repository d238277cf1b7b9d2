"""Proxy benchmark: the latency ``python -m together_rl_contract_tests proxy`` adds to a request.

    .venv/bin/python -m benchmarks.bench_proxy [--quick] [--no-write]

Starts the emulator and two proxies in front of it (one recording a cassette), each as a
subprocess on loopback, and times, interleaved round by round so that the load of a shared machine
falls on every path alike:
1. a small request: ``GET /v1/rl/training-sessions/{id}`` (about 300 bytes back);
2. a 64 x 2048 GRPO forward-backward ``POST`` (the body of bench_emulator's largest shape),
   re-sent with one Idempotency-Key, so the emulator answers the recorded operation each time and
   does no math while the clock runs (its work is the same direct and proxied);
and, in this process, the CPU time the proxy's checks take per exchange of each kind (spec
validation of request and response, the checks across exchanges), which run after the answer
has been sent; then the proxy's memory against a decompression bomb (``bench_proxy_bomb``).
Writes its sections of docs/benchmarks.md between the proxy markers, with the
checked facts (payloads, requests, code path) that tests/benchmarks/test_documented_figures.py
recomputes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
from together_rl_contract_tests.harness import EmulatorProcess
from together_rl_contract_tests.proxy import (
    CassetteWriter,
    Exchange,
    TrafficChecks,
    TrafficMonitor,
    ValidatingProxy,
    check_exchange,
)

from benchmarks._report import ROOT, RunInfo, Table, bench_arguments, digest, publish
from benchmarks.bench_emulator import MODEL, grpo_body
from benchmarks.bench_proxy_bomb import KEY as BOMB_KEY
from benchmarks.bench_proxy_bomb import bomb_facts, bomb_table

__all__ = ["checked_facts", "main"]

KEY = "bench-key"
BIG_SHAPE = (64, 2048)  # samples x tokens of the large request (bench_emulator's largest)
PATHS = ("direct", "proxy", "proxy --record")
KINDS = ("small", "big")
PAUSE_S = {"small": 0.01, "big": 0.5}  # before each timed request: the proxies finish checking
COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED"


def config(quick: bool) -> dict[str, int]:
    """Requests timed per path: the only difference between the full run and --quick."""
    return {"small": 50, "big": 5} if quick else {"small": 300, "big": 25}


def entry(fn: Any) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


@dataclasses.dataclass
class ProxyRun:
    """A proxy subprocess; `summary` is its exit line (`proxy: N exchanges, V violations, ...`)."""

    url: str
    arguments: list[str]
    summary: str = ""

    def violations(self) -> int:
        found = re.search(r"(\d+) violations", self.summary)
        if found is None:
            raise RuntimeError(f"the proxy printed no summary: {self.summary!r}")
        return int(found.group(1))


@contextlib.contextmanager
def proxy_process(upstream: str, record: Path | None, reports: Path) -> Iterator[ProxyRun]:
    arguments = ["--port", "0", "--reports", "REPORTS"] + (["--record", "FILE"] if record else [])
    command = [sys.executable, "-m", "together_rl_contract_tests", "proxy", "--upstream", upstream,
               "--port", "0", "--reports", str(reports)]  # fmt: skip
    if record is not None:
        command += ["--record", str(record)]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stdout is not None
    ready = process.stdout.readline()
    if "listening on" not in ready:
        process.kill()
        raise RuntimeError(f"the proxy did not start: {ready!r}")
    run = ProxyRun(ready.rsplit(" ", 1)[1].strip(), arguments)
    try:
        yield run
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=120)
        run.summary = next((x for x in out.splitlines() if x.startswith("proxy: ")), "")


@dataclasses.dataclass
class Bench:
    """The emulator, the proxies, one keep-alive client per path, a session and one completed
    64 x 2048 operation whose POST is re-sent."""

    body: bytes
    proxies: dict[str, ProxyRun]
    clients: dict[str, httpx.Client]
    session_path: str
    fb_path: str
    fb_headers: dict[str, str]
    operation_id: str
    cassette_written: bool = False  # known once the recording proxy has stopped

    def request(self, path: str, kind: str) -> Callable[[], httpx.Response]:
        client = self.clients[path]
        if kind == "small":
            return lambda: client.get(self.session_path).raise_for_status()

        def send() -> httpx.Response:
            answer = client.post(self.fb_path, content=self.body, headers=self.fb_headers)
            assert answer.json()["id"] == self.operation_id, answer.text
            return answer

        return send

    def routes(self) -> dict[str, int]:
        stats = self.clients["direct"].get("/_emulator/stats").json()
        return {route: int(n) for route, n in stats["requests"].items()}


@contextlib.contextmanager
def running() -> Iterator[Bench]:
    body = orjson.dumps(grpo_body(*BIG_SHAPE))
    emulator = EmulatorProcess(api_keys=[KEY])
    emulator.start()
    try:
        with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
            cassette = Path(tmp) / "run.jsonl"
            upstream = emulator.base_url
            proxies = {
                "proxy": stack.enter_context(proxy_process(upstream, None, Path(tmp))),
                "proxy --record": stack.enter_context(proxy_process(upstream, cassette, Path(tmp))),
            }
            urls = {"direct": upstream, **{name: p.url for name, p in proxies.items()}}
            clients = {
                name: stack.enter_context(httpx.Client(base_url=url, timeout=120,
                                                       headers={"Authorization": f"Bearer {KEY}"}))
                for name, url in urls.items()
            }  # fmt: skip
            direct = clients["direct"]
            resources = direct.post("/v1/rl/model-resources", json={"base_model": MODEL}).json()
            session = direct.post(
                "/v1/rl/training-sessions", json={"model_resources_id": resources["id"]}
            ).json()
            session_path = f"/v1/rl/training-sessions/{session['id']}"
            fb_path = f"{session_path}/operations/forward-backward"
            fb_headers = {"Idempotency-Key": str(uuid.uuid4()), "Content-Type": "application/json"}
            first = direct.post(fb_path, content=body, headers=fb_headers).json()
            while direct.get(f"{fb_path}/{first['id']}").json()["status"] != COMPLETED:
                time.sleep(0.05)
            bench = Bench(body, proxies, clients, session_path, fb_path, fb_headers,
                          first["id"])  # fmt: skip
            yield bench
            stack.close()  # stops the proxies: their summaries, the cassette closed
            bench.cassette_written = cassette.stat().st_size > 0
            for name, proxy in proxies.items():
                if proxy.violations():
                    raise RuntimeError(f"{name} reported violations: {proxy.summary}")
    finally:
        emulator.stop()


def rotated(fns: dict[str, Callable[[], object]], repeat: int, pause_s: float) -> dict[str, float]:
    """Median ms of each function, one repetition of each per round (after one untimed), the
    order rotated every round; ``pause_s`` before each call lets the proxies finish checking the
    last exchange, so each request is timed on its own. `repeat=0` runs the untimed round only."""
    names = list(fns)
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for round_ in range(repeat):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            time.sleep(pause_s)
            start = time.perf_counter()
            fns[name]()
            times[name].append(1000 * (time.perf_counter() - start))
    return {name: statistics.median(t) if t else math.nan for name, t in times.items()}


def check_ms(exchange: Exchange, repeat: int) -> float:
    """Median ms the proxy's checks (no recording) take for one such exchange, after one untimed
    pass; the exchange must pass them."""
    monitor = TrafficMonitor(log=lambda line: None)
    times = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        monitor.process(exchange)
        times.append(1000 * (time.perf_counter() - start))
    monitor.close()
    assert monitor.violations == [], monitor.violations
    return statistics.median(times[1:]) if repeat else math.nan


def exchanges(bench: Bench) -> dict[str, Exchange]:
    """One exchange of each kind, as the proxy hands it to its checks."""
    small = bench.request("direct", "small")()
    big = bench.request("direct", "big")()

    def exchange(method: str, path: str, headers: list[tuple[str, str]], body: bytes,
                 response: httpx.Response) -> Exchange:  # fmt: skip
        return Exchange(
            seq=0, method=method, path=path, query="", request_headers=headers,
            request_body=body, status=response.status_code,
            response_headers=list(response.headers.items()), response_body=response.content,
            started=0.0, finished=0.0,
        )  # fmt: skip

    big_headers = [(k.lower(), v) for k, v in bench.fb_headers.items()]
    return {
        "small": exchange("GET", bench.session_path, [], b"", small),
        "big": exchange("POST", bench.fb_path, big_headers, bench.body, big),
    }


def requests_sent(bench: Bench) -> dict[str, dict[str, Any]]:
    """Each request once per path, untimed: what reached the emulator and what came back."""
    found: dict[str, dict[str, Any]] = {}
    for path in PATHS:
        for kind in KINDS:
            before = bench.routes()
            response = bench.request(path, kind)()
            after = bench.routes()
            found.setdefault(path, {})[kind] = {
                "reached_emulator": sorted(r for r, n in after.items() if n > before.get(r, 0)),
                "status": response.status_code,
            }
    return found


def facts(bench: Bench, sent: dict[str, dict[str, Any]], repeats: dict[str, int]) -> dict[str, Any]:
    """Payloads and code path of the table (see benchmarks/_report.py); the proxies' verdicts
    are added once they have stopped (`finish_facts`)."""
    batch, length = BIG_SHAPE
    return {
        "payload": {
            "small": {"request": "GET /v1/rl/training-sessions/{session_id}", "request_bytes": 0},
            "big": {
                "shape": f"{batch} x {length}",
                "loss": "LOSS_TYPE_GRPO",
                "seed": 0,
                "request_bytes": len(bench.body),
                "request_sha256": digest(bench.body),
                "same_idempotency_key": True,
            },
        },
        "repeats": repeats,
        "pause_s": PAUSE_S,
        "requests": sent,
        "proxy": {
            "command": "python -m together_rl_contract_tests proxy --upstream EMULATOR",
            "arguments": {name: p.arguments for name, p in bench.proxies.items()},
        },
        "entry": {
            "forward": entry(ValidatingProxy._forward),
            "checks": entry(TrafficMonitor.process),
            "spec_checks": entry(check_exchange),
            "checks_across_exchanges": entry(TrafficChecks.observe),
            "record": entry(CassetteWriter.write),
        },
    }


def finish_facts(found: dict[str, Any], bench: Bench) -> dict[str, Any]:
    """Add what is known once the proxies have stopped: their violations and the cassette."""
    found["proxy"]["violations"] = {name: p.violations() for name, p in bench.proxies.items()}
    found["proxy"]["cassette_written"] = bench.cassette_written
    return found


def measure(quick: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The timings of the table and its checked facts, from one run."""
    repeats = config(quick)
    with running() as bench:
        sent = requests_sent(bench)
        timed = {
            kind: rotated({p: bench.request(p, kind) for p in PATHS}, repeats[kind], PAUSE_S[kind])
            for kind in KINDS
        }
        checks = {kind: check_ms(ex, repeats[kind]) for kind, ex in exchanges(bench).items()}
        found = facts(bench, sent, repeats)
    return {"timed": timed, "checks": checks}, finish_facts(found, bench)


def table(result: dict[str, Any], found: dict[str, Any], quick: bool) -> Table:
    timed, checks = result["timed"], result["checks"]
    repeats, big = found["repeats"], found["payload"]["big"]

    def row(label: str, kind: str) -> list[str]:
        t = timed[kind]
        return [
            label,
            f"{t['direct']:.2f}",
            f"{t['proxy']:.2f}",
            f"{t['proxy'] - t['direct']:+.2f}",
            f"{t['proxy --record']:.2f}",
            f"{t['proxy --record'] - t['direct']:+.2f}",
            f"{checks[kind]:.3f}",
        ]

    return Table(
        key="proxy.latency",
        title="Proxy: latency added per request",
        payload="*small*: `GET /v1/rl/training-sessions/{id}` (no body); *64 x 2048*: a GRPO "
        f"forward-backward `POST` of {big['request_bytes'] / 1e6:.1f} MB ({big['shape']} samples "
        "x tokens, seed 0, bench_emulator's body), re-sent with one `Idempotency-Key` so the "
        "emulator answers the recorded operation (no math while the clock runs). The emulator "
        "(`python -m together_rl_emulator`) and two proxies in front of it (`python -m "
        "together_rl_contract_tests proxy`, one with `--record`) as subprocesses on 127.0.0.1; "
        "one httpx client per path, keep-alive.",
        columns=[
            "request",
            "direct",
            "proxy",
            "added",
            "proxy --record",
            "added",
            "checks (off the path)",
        ],
        rows=[row("small", "small"), row("64 x 2048 forward-backward", "big")],
        facts={"quick": quick, **found},
        notes=[
            f"Medians in ms of {repeats['small']} (small) and {repeats['big']} (64 x 2048) "
            "requests per path, the three paths interleaved in one run, round by round (order "
            "rotated each round, after one untimed round), with a pause before each request "
            f"({PAUSE_S['small'] * 1000:.0f} ms, {PAUSE_S['big']} s) so that the proxies have "
            "finished checking the last exchange: the figures are the forwarding cost. *Checks* "
            "is the CPU time of the proxy's checks for one such exchange (spec validation of "
            "request and response, checks across exchanges), measured in-process after the "
            "timed requests; they run after the answer is sent. The proxies reported 0 "
            "violations."
        ],
    )


def checked_facts(key: str, quick: bool) -> dict[str, Any]:
    """The table's facts for a run with or without --quick, from one untimed pass."""
    if key == BOMB_KEY:
        return bomb_facts(quick)
    if key != "proxy.latency":
        raise KeyError(key)
    repeats = config(quick)
    with running() as bench:
        sent = requests_sent(bench)
        for exchange in exchanges(bench).values():
            check_ms(exchange, 0)
        found = facts(bench, sent, repeats)
    return {"quick": quick, **finish_facts(found, bench)}


def main(argv: list[str] | None = None) -> int:
    args = bench_arguments(__doc__).parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts, args.quick)))
        return 0
    run = RunInfo(".venv/bin/python -m benchmarks.bench_proxy" + (" --quick" if args.quick else ""))
    result, found = measure(args.quick)
    heading = "## Validating proxy (`python -m together_rl_contract_tests proxy`)"
    section = heading + "\n\n" + table(result, found, args.quick).render(run.finish())
    publish("proxy", section, args.no_write)
    bomb, bomb_run = bomb_table(args.quick)
    return publish("proxy-bomb", bomb.render(bomb_run), args.no_write)


if __name__ == "__main__":
    sys.exit(main())
