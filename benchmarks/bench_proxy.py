"""Proxy benchmark: the latency ``python -m contract_tests proxy`` adds to a request.

    .venv/bin/python benchmarks/bench_proxy.py [--quick] [--no-write]

Starts the emulator and two proxies in front of it (one recording a cassette), each as a
subprocess on loopback, and times, interleaved round by round so that the load of a shared machine
falls on every path alike:
1. a small request: ``GET /v1/rl/training-sessions/{id}`` (about 300 bytes back);
2. a 64 x 2048 GRPO forward-backward ``POST`` (the body of bench_emulator's largest shape),
   re-sent with one Idempotency-Key, so the emulator answers the recorded operation each time and
   does no math while the clock runs (its work is the same direct and proxied);
and, in this process, the CPU time the proxy's checks take per exchange of each kind (spec
validation of request and response, the checks across exchanges), which run after the answer
has been sent. Writes its section of docs/benchmarks.md between the proxy markers.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_emulator import MODEL, grpo_body  # noqa: E402

from contract_tests._emulator_process import EmulatorProcess  # noqa: E402
from contract_tests._exchange import Exchange  # noqa: E402
from contract_tests._traffic_monitor import TrafficMonitor  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
START, END = "<!-- proxy:start -->", "<!-- proxy:end -->"
KEY = f"bench-{uuid.uuid4().hex}"
COMMAND = ".venv/bin/python benchmarks/bench_proxy.py"


@contextlib.contextmanager
def proxy_process(upstream: str, record: Path | None, reports: Path) -> Iterator[str]:
    command = [sys.executable, "-m", "contract_tests", "proxy", "--upstream", upstream,
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
    try:
        yield ready.rsplit(" ", 1)[1].strip()
    finally:
        process.terminate()
        process.communicate(timeout=60)


def interleaved(
    fns: dict[str, Callable[[], object]], repeat: int, pause_s: float
) -> dict[str, list[float]]:
    """Milliseconds of each function, one repetition of each per round (after one untimed),
    the order rotated every round; ``pause_s`` after each call lets the proxies finish checking
    the last exchange, so each request is timed on its own."""
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
    return times


def check_cpu_ms(method: str, path: str, headers: list[tuple[str, str]], body: bytes,
                 response: httpx.Response, repeat: int) -> float:  # fmt: skip
    """Median ms the proxy's checks (no recording) take for one such exchange."""
    monitor = TrafficMonitor(log=lambda line: None)
    exchange = Exchange(
        seq=0, method=method, path=path, query="", request_headers=headers, request_body=body,
        status=response.status_code, response_headers=list(response.headers.items()),
        response_body=response.content, started=0.0, finished=0.0,
    )  # fmt: skip
    times = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        monitor.process(exchange)
        times.append(1000 * (time.perf_counter() - start))
    monitor.close()
    assert monitor.violations == [], monitor.violations
    return statistics.median(times[1:])


def measure(quick: bool) -> dict[str, Any]:
    small_repeat, big_repeat = (50, 5) if quick else (300, 25)
    body = orjson.dumps(grpo_body(64, 2048))
    emulator = EmulatorProcess(api_keys=[KEY])
    emulator.start()
    try:
        with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
            urls = {
                "direct": emulator.base_url,
                "proxy": stack.enter_context(proxy_process(emulator.base_url, None, Path(tmp))),
                "proxy --record": stack.enter_context(
                    proxy_process(emulator.base_url, Path(tmp) / "run.jsonl", Path(tmp))
                ),
            }
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
            while direct.get(f"{fb_path}/{first['id']}").json()["status"] != (
                "TRAINING_OPERATION_STATUS_COMPLETED"
            ):
                time.sleep(0.05)

            def small(client: httpx.Client) -> Callable[[], object]:
                return lambda: client.get(session_path).raise_for_status()

            def big(client: httpx.Client) -> Callable[[], object]:
                def send() -> None:
                    answer = client.post(fb_path, content=body, headers=fb_headers)
                    assert answer.json()["id"] == first["id"], answer.text

                return send

            small_ms = interleaved({n: small(c) for n, c in clients.items()}, small_repeat, 0.01)
            big_ms = interleaved({n: big(c) for n, c in clients.items()}, big_repeat, 0.5)
            small_response = direct.get(session_path)
            big_response = direct.post(fb_path, content=body, headers=fb_headers)
    finally:
        emulator.stop()
    json_headers = [("content-type", "application/json"), ("idempotency-key", "k")]
    return {
        "body_mb": len(body) / 1e6,
        "small": small_ms,
        "big": big_ms,
        "small_repeat": small_repeat,
        "big_repeat": big_repeat,
        "small_check": check_cpu_ms("GET", session_path, [], b"", small_response, small_repeat),
        "big_check": check_cpu_ms("POST", fb_path, json_headers, body, big_response, big_repeat),
    }


def machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPUs (nproc), {cpu}, Python {platform.python_version()}"


def render(result: dict[str, Any], machine_line: str, load: tuple[float, float]) -> str:
    def row(label: str, times: dict[str, list[float]], check_ms: float) -> str:
        med = {name: statistics.median(t) for name, t in times.items()}
        return (
            f"| {label} | {med['direct']:.2f} | {med['proxy']:.2f} | "
            f"{med['proxy'] - med['direct']:+.2f} | {med['proxy --record']:.2f} | "
            f"{med['proxy --record'] - med['direct']:+.2f} | {check_ms:.3f} |"
        )

    return "\n".join([
        START,
        "## Proxy: latency added per request",
        "",
        f"Machine: {machine_line}; 1-min load average {load[0]:.2f} at the start, {load[1]:.2f}"
        f" at the end (2 CPUs shared with other work). Command: `{COMMAND}`.",
        "",
        "The emulator and two proxies in front of it (`python -m contract_tests proxy`, one with"
        " `--record`) run as subprocesses on loopback; one httpx client per path, keep-alive."
        f" Medians in ms of {result['small_repeat']} (small) and {result['big_repeat']} (64 x 2048)"
        " requests, the three paths interleaved round by round (order rotated each round) with"
        " a pause before each request (10 ms, 0.5 s) so that the proxies have finished checking"
        " the last exchange: the figures are the forwarding cost. *Small*: `GET"
        " /v1/rl/training-sessions/{id}`. *64 x 2048*: a GRPO forward-backward `POST` of"
        f" {result['body_mb']:.1f} MB, re-sent with one `Idempotency-Key` so the emulator"
        " answers the recorded operation (no math while the clock runs). *Checks* is the CPU time"
        " of the proxy's checks for one such exchange (spec validation of request and response,"
        " checks across exchanges), measured in-process; they run after the answer is sent.",
        "",
        "| request | direct | proxy | added | proxy --record | added | checks (off the path) |",
        "|---|---:|---:|---:|---:|---:|---:|",
        row("small", result["small"], result["small_check"]),
        row("64 x 2048 forward-backward", result["big"], result["big_check"]),
        "",
        END,
    ])  # fmt: skip


def write_section(section: str) -> None:
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    if START in text and END in text:
        before, rest = text.split(START, 1)
        _, after = rest.split(END, 1)
        text = before + section + after
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOC.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    result = measure(args.quick)
    section = render(result, machine(), (load_start, os.getloadavg()[0]))
    print(section)
    if not args.no_write:
        write_section(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
