"""Shared use: probes of what one API key (or a stranger) could do to another, or to the server,
through the test-only routes, the presigned URLs, integer and query parsing, the command line,
the state dir's files and one body of the largest legal size.

Each probe is a named check in a family (`clock`, `stats`, `oracle`, `integers`, `query`,
`command line`, `files`, `seeds`, `large body`) that holds or fails with a detail. The fast set
runs in `make test`; the long run (`python -m reliability shared`) adds the timing of another
key's checkpoint against a missing id and the worst legal body (29 MB).
"""

# ruff: noqa: E501  (probe names and details are data)

from __future__ import annotations

import os
import re
import stat
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from together_rl_contract_tests.harness import wait_until_terminal
from together_rl_emulator import create_app

from ._large_body import large_body_probes
from ._probes import OPS, OWNER, RESOURCES, SESSIONS, STRANGER, TINY, Probe, session_on

__all__ = ["OWNER", "STRANGER", "Probe", "SharedUseReport", "run_shared_use"]

AS_STRANGER = {"Authorization": f"Bearer {STRANGER}"}
ANONYMOUS = {"Authorization": ""}


@dataclass
class SharedUseReport:
    probes: list[Probe] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(p.held for p in self.probes)

    @property
    def by_family(self) -> dict[str, str]:
        tried, held = (
            Counter(p.family for p in self.probes),
            Counter(p.family for p in self.probes if p.held),
        )
        return {family: f"{held[family]}/{n}" for family, n in tried.items()}

    @property
    def failures(self) -> list[str]:
        return [f"{p.family}: {p.name}: {p.detail}" for p in self.probes if not p.held]


def _client(app: Any, key: str = OWNER) -> TestClient:
    return TestClient(
        app, base_url="http://emulator.test", headers={"Authorization": f"Bearer {key}"}
    )


def _run(
    c: httpx.Client,
    session: str,
    kind: str,
    body: Any,
    key: str,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    r = c.post(
        OPS.format(session, kind), json=body, headers={"Idempotency-Key": key, **(headers or {})}
    )
    assert r.status_code == 200, r.text
    path = OPS.format(session, kind) + "/" + r.json()["id"]
    op: dict[str, Any] = wait_until_terminal(lambda: c.get(path, headers=headers).json(), what=path)
    return op


def _refused(r: httpx.Response, param: str) -> tuple[bool, str]:
    body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
    got = body.get("error", {}).get("param")
    return r.status_code == 400 and got == param, f"{r.status_code} param={got}"


def _shape(r: httpx.Response, value: str) -> tuple[int, str]:
    return r.status_code, r.text.replace(value, "<id>")


FB_BODY = {
    "samples": [{
        "model_input": {"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]},
        "loss_fn_inputs": {"target_tokens": {"data": [2, 3, 4], "dtype": "int64"},
                           "weights": {"data": [0.0, 1.0, 1.0], "dtype": "float32"}},
    }],
    "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"},
}  # fmt: skip


def _sample_body(num_samples: int = 1, **params: Any) -> dict[str, Any]:
    return {"model_inputs": [{"chunks": [{"encoded_text": {"tokens": [1, 2, 3]}}]}],
            "num_samples": num_samples, "sampling_params": {"max_tokens": 8, **params}}  # fmt: skip


# ----------------------------------------------------------------------------- families
def clock_probes(app: Any) -> Iterator[Probe]:
    c = _client(app)
    mine, _ = session_on(c, inactive_timeout=300)
    theirs, _ = session_on(c, AS_STRANGER, inactive_timeout=300)
    c.post("/_emulator/clock", json={"advance_seconds": 7200})
    status = c.get(f"{RESOURCES}/{theirs}", headers=AS_STRANGER).json()["status"]
    yield Probe(
        "clock", "a key's move leaves another key's resources up", status.endswith("READY"), status
    )
    own = c.get(f"{RESOURCES}/{mine}").json()["status"]
    yield Probe("clock", "a key's move expires its own resources", own.endswith("STOPPED"), own)
    for value in (1e308, -1, 10**9, "3600", True, None):
        held, detail = _refused(
            c.post("/_emulator/clock", json={"advance_seconds": value}), "advance_seconds"
        )
        yield Probe("clock", f"advance_seconds {value!r} refused", held, detail)
    r = c.post(
        SESSIONS,
        json={"model_resources_id": c.post(RESOURCES, json={"base_model": TINY}).json()["id"]},
    )
    yield Probe(
        "clock",
        "sessions can still be created after the refused moves",
        r.status_code == 200,
        str(r.status_code),
    )


def stats_probes() -> Iterator[Probe]:
    app = create_app(api_keys=[OWNER, STRANGER], timing="fixed 2000")
    try:
        c = _client(app)
        _, session = session_on(c)
        for key in ("a", "b", "c"):
            c.post(
                OPS.format(session, "forward-backward"),
                json=FB_BODY,
                headers={"Idempotency-Key": key},
            )
        theirs = c.get("/_emulator/stats", headers=AS_STRANGER).json()["queued_operations"]
        mine = c.get("/_emulator/stats").json()["queued_operations"]
        yield Probe(
            "stats",
            "queued operations are counted per key",
            theirs == 0 and mine >= 2,
            f"mine {mine}, theirs {theirs}",
        )
    finally:
        app.emulator.close()


def oracle_probes(app: Any, timing_reps: int) -> Iterator[Probe]:
    c = _client(app)
    _, session = session_on(c)
    _run(c, session, "inference-checkpoint", None, "ckpt")
    checkpoint = c.get("/v1/rl/checkpoints").json()["data"][0]["id"]
    missing_ckpt = "ckpt-" + "0" * (len(checkpoint) - 5)
    url = c.get(
        f"/v1/rl/checkpoints/{checkpoint}/download", params={"variant": "CHECKPOINT_VARIANT_MERGED"}
    ).json()["data"][0]["url"]
    for label, bad in (
        ("wrong", url.replace("token=", "token=x")),
        ("missing", re.sub(r"\?token=[^&]*", "", url)),
    ):
        got = c.get(bad, headers=ANONYMOUS)
        like = c.get(bad.replace(checkpoint, missing_ckpt), headers=ANONYMOUS)
        yield Probe(
            "oracle",
            f"checkpoint file URL, {label} token: answered like a missing id",
            _shape(got, checkpoint) == _shape(like, missing_ckpt),
            f"{got.status_code} vs {like.status_code}",
        )
    upload = c.post(f"{SESSIONS}/{session}/payloads/upload-url").json()
    payload, purl = upload["payload_id"], upload["upload_url"]
    missing_payload = "payload-" + "0" * (len(payload) - 8)
    for method in ("GET", "PUT"):
        bad = purl.replace("token=", "token=x")
        got = c.request(method, bad, headers=ANONYMOUS, content=b"{}" if method == "PUT" else None)
        like = c.request(
            method,
            bad.replace(payload, missing_payload),
            headers=ANONYMOUS,
            content=b"{}" if method == "PUT" else None,
        )
        yield Probe(
            "oracle",
            f"payload URL {method}, wrong token: answered like a missing id",
            _shape(got, payload) == _shape(like, missing_payload),
            f"{got.status_code} vs {like.status_code}",
        )
    theirs = c.get(f"/v1/rl/checkpoints/{checkpoint}", headers=AS_STRANGER)
    like = c.get(f"/v1/rl/checkpoints/{missing_ckpt}", headers=AS_STRANGER)
    yield Probe(
        "oracle",
        "another key's checkpoint: answered like a missing id",
        _shape(theirs, checkpoint) == _shape(like, missing_ckpt),
        f"{theirs.status_code} vs {like.status_code}",
    )
    if timing_reps:
        times: dict[str, list[float]] = {"theirs": [], "missing": []}
        for _ in range(timing_reps):
            for label, value in (("theirs", checkpoint), ("missing", missing_ckpt)):
                start = time.perf_counter()
                c.get(f"/v1/rl/checkpoints/{value}", headers=AS_STRANGER)
                times[label].append((time.perf_counter() - start) * 1000)
        theirs_ms, missing_ms = (
            statistics.median(times["theirs"]),
            statistics.median(times["missing"]),
        )
        yield Probe(
            "oracle",
            "another key's checkpoint takes as long to 404 as a missing id (median)",
            theirs_ms <= 1.5 * missing_ms + 1.0,
            f"{theirs_ms:.2f} ms vs {missing_ms:.2f} ms over {timing_reps}",
        )


def integer_probes(app: Any) -> Iterator[Probe]:
    c = _client(app)
    cases = [
        (RESOURCES, {"base_model": TINY, "inactive_timeout": 3600.0}, "inactive_timeout"),
        (RESOURCES, {"base_model": TINY, "compute_config": {"num_generator_replicas": 1e300}}, "compute_config.num_generator_replicas"),
        ("/v1/rl/rollouts/estimate", {"base_model": "Qwen/Qwen3-8B", "episodes": 100, "concurrency": 1e300, "prompt_tokens": 1e300,
                                      "turns": 1, "added_tokens_per_turn": 1e300, "generated_tokens_per_turn": 1e300}, "concurrency"),
    ]  # fmt: skip
    for path, body, param in cases:
        held, detail = _refused(c.post(path, json=body), param)
        yield Probe("integers", f"{param} {orjson.dumps(body).decode()[:60]} refused", held, detail)
    _, session = session_on(c)
    r = c.post(
        OPS.format(session, "sample"),
        json=_sample_body(seed="9223372036854775808"),
        headers={"Idempotency-Key": "s"},
    )
    held, detail = _refused(r, "sampling_params.seed")
    yield Probe("integers", "a string seed above int64 refused", held, detail)
    r = c.post("/v1/rl/rollouts/estimate", json={"base_model": "Qwen/Qwen3-8B", "episodes": 10_000_000, "concurrency": 1,
                                                  "prompt_tokens": 2**63 - 1, "turns": 1024, "added_tokens_per_turn": 2**63 - 1,
                                                  "generated_tokens_per_turn": 2**63 - 1})  # fmt: skip
    finite = r.status_code == 400 or b"null" not in r.content
    yield Probe(
        "integers",
        "no answer carries a non-finite number (largest integers)",
        finite,
        f"{r.status_code} {r.text[:80]}",
    )


def query_probes(app: Any) -> Iterator[Probe]:
    c = _client(app)
    held, detail = _refused(c.get(RESOURCES, params={"limt": 5}), "limt")
    yield Probe("query", "?limt=5 refused", held, detail)
    _, session = session_on(c)
    before = c.get("/_emulator/stats").json()["operations_created"]
    r = c.post(
        OPS.format(session, "forward-backward"),
        params={"forward_only": "true"},
        json=FB_BODY,
        headers={"Idempotency-Key": "q"},
    )
    held, detail = _refused(r, "forward_only")
    after = c.get("/_emulator/stats").json()["operations_created"]
    yield Probe(
        "query",
        "?forward_only=true on a POST refused, nothing run",
        held and before == after,
        detail,
    )


def command_line_probes() -> Iterator[Probe]:
    for args in (["--max-body-mb", "nan"], ["--port", "70000"], ["--port", "-1"], ["--seed", "-1"]):
        done = subprocess.run(
            [sys.executable, "-m", "together_rl_emulator", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        held = done.returncode == 2 and "usage:" in done.stderr and "Traceback" not in done.stderr
        yield Probe("command line", " ".join(args), held, f"exit {done.returncode}")


def file_probes() -> Iterator[Probe]:
    with tempfile.TemporaryDirectory() as tmp:
        state_dir = Path(tmp) / "state"
        old = os.umask(0o022)
        try:
            app = create_app(api_keys=[OWNER], state_dir=state_dir)
            session_on(_client(app))
            modes = {
                p.name: stat.S_IMODE(p.stat().st_mode) for p in state_dir.iterdir() if p.is_file()
            }
            app.emulator.close()
        finally:
            os.umask(old)
        mode = stat.S_IMODE(state_dir.stat().st_mode)
        yield Probe("files", "the state dir is 0700", mode == 0o700, oct(mode))
        for name in ("owner-secret", "state.sqlite3", "state.sqlite3-wal", "state.sqlite3-shm"):
            yield Probe(
                "files", f"{name} is 0600", modes.get(name) == 0o600, oct(modes.get(name, 0))
            )


def seed_probes() -> Iterator[Probe]:
    def samples(busy: bool) -> list[Any]:
        app = create_app(api_keys=[OWNER, STRANGER])
        try:
            c = _client(app)
            if busy:
                _, theirs = session_on(c, AS_STRANGER)
                _run(c, theirs, "sample", _sample_body(), "t", AS_STRANGER)
            _, session = session_on(c)
            op = _run(c, session, "sample", _sample_body(num_samples=2), "s")
            return [s["tokens"] for r in op["output"]["results"] for s in r["sequences"]]
        finally:
            app.emulator.close()

    held = samples(False) == samples(True)
    yield Probe("seeds", "an unseeded sample does not depend on another key's traffic", held)


def run_shared_use(
    *, timing_reps: int = 0, large_samples: int = 20_000, slow: bool = True
) -> SharedUseReport:
    """Every family; `timing_reps` > 0 adds the timing probe, `slow` the subprocess and large-body ones."""
    report = SharedUseReport()
    app = create_app(api_keys=[OWNER, STRANGER])
    try:
        families: list[tuple[str, Callable[[], Iterator[Probe]]]] = [
            ("clock", lambda: clock_probes(app)), ("stats", stats_probes),
            ("oracle", lambda: oracle_probes(app, timing_reps)),
            ("integers", lambda: integer_probes(app)), ("query", lambda: query_probes(app)),
            ("files", file_probes), ("seeds", seed_probes),
        ]  # fmt: skip
        if slow:
            families += [("command line", command_line_probes),
                         ("large body", lambda: large_body_probes(large_samples))]  # fmt: skip
        for name, family in families:
            try:
                report.probes.extend(family())
            except Exception as exc:  # a probe that crashed did not hold
                report.probes.append(Probe(name, "ran to the end", False, repr(exc)[:200]))
    finally:
        app.emulator.close()
    return report
