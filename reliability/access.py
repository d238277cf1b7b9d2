"""Access: every route but /healthz and /openapi.yaml needs a valid key; one key can neither
read, poll, mutate nor detect another key's model resources, sessions or operations (its
answers are the answers for a missing id); keys never appear in answers or logs.

`run_access(make_client)` works over any `httpx.Client` factory: in-process (Starlette
TestClient, `in_process_clients`) or over loopback (httpx to uvicorn, `loopback_clients`); the
caller checks the logs it captured with `keys_in`.
"""

from __future__ import annotations

import re
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from together_rl_contract_tests.harness import KIND_PROBE_BODIES, PROBE_BODY, wait_until_terminal
from together_rl_spec import server_path, spec_document

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

OWNER_KEY = "owner-key-7f3a9c1e5b"
INTRUDER_KEY = "intruder-key-2d8b6e4f0a"
WRONG_KEYS = ("not-a-key-5e1c9a7b3d", OWNER_KEY.upper(), OWNER_KEY + "x", OWNER_KEY[:-1])
PUBLIC = {("GET", "/healthz"), ("GET", "/openapi.yaml")}
EMULATOR_ROUTES = [("GET", "/_emulator/stats"), ("GET", "/_emulator/faults"),
                   ("POST", "/_emulator/faults"), ("DELETE", "/_emulator/faults"),
                   ("GET", "/_emulator/operations/{operation_id}"),
                   ("GET", "/_emulator/clock"), ("POST", "/_emulator/clock")]  # fmt: skip
TINY = "emulator/tiny-1k"
FB = "/v1/rl/training-sessions/{session_id}/operations/forward-backward"

ClientFactory = Callable[[str | None], httpx.Client]  # key (None: no Authorization) -> client


def spec_routes() -> list[tuple[str, str]]:
    """(METHOD, URL path template: the server's path and the operation's) of every operation of
    the installed spec."""
    routes = []
    for path, item in spec_document()["paths"].items():
        for method, op in item.items():
            if isinstance(op, dict) and "operationId" in op:
                routes.append((method.upper(), server_path() + path))
    return routes


def fb_body() -> dict[str, Any]:
    """The contract suite's probe pass, but training (not forward-only): it counts as a pass."""
    return {k: v for k, v in PROBE_BODY.items() if k != "forward_only"}


def in_process_clients(app: Any) -> ClientFactory:
    """Clients of `app` in this process (Starlette TestClient)."""

    def make(key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return TestClient(app, base_url="http://emulator.test", headers=headers)

    return make


def loopback_clients(base_url: str) -> ClientFactory:
    """httpx clients of a server on loopback."""

    def make(key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=base_url, headers=headers, timeout=30)

    return make


@dataclass
class AccessReport:
    routes_checked: int
    unauthenticated_requests: int
    cross_tenant_checks: int
    failures: list[str] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list, repr=False)  # every answer, for key leaks

    @property
    def ok(self) -> bool:
        return not self.failures


def keys_in(text: str | bytes, keys: tuple[str, ...] | None = None) -> list[str]:
    """Which of the keys used by the access run occur in `text`."""
    data = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return [k for k in (keys or (OWNER_KEY, INTRUDER_KEY, *WRONG_KEYS)) if k in data]


def _fill(template: str, ids: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: ids.get(m.group(1), "x"), template)


def _normalised(response: httpx.Response, secret_id: str, stand_in: str) -> tuple[Any, ...]:
    headers = {
        k: v for k, v in response.headers.items() if k.lower() not in ("date", "content-length")
    }
    body = response.content.replace(secret_id.encode(), b"<ID>").replace(stand_in.encode(), b"<ID>")
    return response.status_code, body, tuple(sorted(headers.items()))


def run_access(make_client: ClientFactory) -> AccessReport:
    report = AccessReport(0, 0, 0)
    fail = report.failures.append
    owner, intruder = make_client(OWNER_KEY), make_client(INTRUDER_KEY)
    anonymous = make_client(None)

    def keep(r: httpx.Response) -> httpx.Response:
        report.bodies.append(r.content + repr(dict(r.headers)).encode())
        return r

    # The owner's resources: model resources, a session with one operation, a spare session.
    mr = keep(owner.post("/v1/rl/model-resources", json={"base_model": TINY})).json()["id"]
    sid = keep(owner.post("/v1/rl/training-sessions", json={"model_resources_id": mr})).json()["id"]
    r = keep(
        owner.post(
            FB.format(session_id=sid), json=fb_body(), headers={"Idempotency-Key": "shared-key"}
        )
    )
    op = r.json()["id"]
    # let it finish, so the owner's state is stable from here on
    wait_until_terminal(lambda: owner.get(f"{FB.format(session_id=sid)}/{op}").json())
    ids = {"model_resources_id": mr, "session_id": sid, "operation_id": op}
    owner_stats_before = keep(owner.get("/_emulator/stats")).json()["sessions"]

    # 1. Every route but the public ones refuses a missing or wrong key with a JSON 401.
    routes = spec_routes() + EMULATOR_ROUTES
    for method, template in routes:
        report.routes_checked += 1
        path = _fill(template, ids)
        attempts: list[tuple[str, httpx.Client, dict[str, str]]] = [
            ("no Authorization", anonymous, {})
        ]
        attempts += [
            (f"key {k[:6]}...", anonymous, {"Authorization": f"Bearer {k}"}) for k in WRONG_KEYS
        ]
        attempts += [("bearer without a token", anonymous, {"Authorization": "Bearer"}),
                     ("Basic scheme", anonymous, {"Authorization": f"Basic {OWNER_KEY}"}),
                     ("key without scheme", anonymous, {"Authorization": OWNER_KEY}),
                     ("X-Api-Key header", anonymous, {"X-Api-Key": OWNER_KEY})]  # fmt: skip
        for label, client, headers in attempts:
            report.unauthenticated_requests += 1
            if "Idempotency-Key" not in headers and "/operations/" in template and method == "POST":
                headers = {**headers, "Idempotency-Key": str(uuid.uuid4())}
            r = keep(
                client.request(method, path, json={} if method == "POST" else None, headers=headers)
            )
            error = (
                r.json().get("error", {})
                if r.headers.get("content-type", "").startswith("application/json")
                else {}
            )
            if r.status_code != 401 or not error.get("message"):
                fail(f"{method} {template} with {label}: {r.status_code} {r.content[:120]!r}")
    for method, path in PUBLIC:
        r = keep(anonymous.request(method, path))
        if r.status_code != 200:
            fail(f"public {method} {path} without a key: {r.status_code}")
    anonymous.close()
    owner_after_401s = keep(owner.get("/_emulator/stats")).json()["sessions"]
    if owner_after_401s != owner_stats_before:
        fail("unauthenticated requests changed the owner's sessions")

    # 2. The intruder sees the owner's ids exactly as missing ones (same status, body, headers).
    def same_as_missing(label: str, call: Callable[[str], httpx.Response], secret: str,
                        stand_in: str, allowed: tuple[int, ...] = (400, 404)) -> None:  # fmt: skip
        report.cross_tenant_checks += 1
        theirs, missing = keep(call(secret)), keep(call(stand_in))
        if theirs.status_code not in allowed:
            fail(f"{label}: the intruder got {theirs.status_code} {theirs.content[:160]!r}")
        if _normalised(theirs, secret, stand_in) != _normalised(missing, secret, stand_in):
            fail(
                f"{label}: differs from a missing id: {theirs.status_code} {theirs.content[:160]!r}"
                f" vs {missing.status_code} {missing.content[:160]!r}"
            )

    missing_mr, missing_sid, missing_op = (
        f"mr-{uuid.uuid4()}",
        f"sess-{uuid.uuid4()}",
        str(uuid.uuid4()),
    )
    i_mr = keep(intruder.post("/v1/rl/model-resources", json={"base_model": TINY})).json()["id"]
    i_sid = keep(
        intruder.post("/v1/rl/training-sessions", json={"model_resources_id": i_mr})
    ).json()["id"]
    key = iter(range(10**6))
    same_as_missing(
        "GET model resources", lambda x: intruder.get(f"/v1/rl/model-resources/{x}"), mr, missing_mr
    )
    same_as_missing(
        "start a session on them",
        lambda x: intruder.post("/v1/rl/training-sessions", json={"model_resources_id": x}),
        mr,
        missing_mr,
    )
    same_as_missing(
        "GET session", lambda x: intruder.get(f"/v1/rl/training-sessions/{x}"), sid, missing_sid
    )
    same_as_missing(
        "stop session",
        lambda x: intruder.post(f"/v1/rl/training-sessions/{x}/stop"),
        sid,
        missing_sid,
    )
    same_as_missing(
        "submit forward-backward",
        lambda x: intruder.post(
            FB.format(session_id=x), json=fb_body(), headers={"Idempotency-Key": f"i-{next(key)}"}
        ),
        sid,
        missing_sid,
    )
    same_as_missing(
        "submit an invalid body",
        lambda x: intruder.post(
            FB.format(session_id=x), content=b"{", headers={"Idempotency-Key": f"i-{next(key)}"}
        ),
        sid,
        missing_sid,
    )
    same_as_missing(
        "submit without Idempotency-Key",
        lambda x: intruder.post(FB.format(session_id=x), json=fb_body()),
        sid,
        missing_sid,
    )
    same_as_missing(
        "replay the owner's Idempotency-Key",
        lambda x: intruder.post(
            FB.format(session_id=x), json=fb_body(), headers={"Idempotency-Key": "shared-key"}
        ),
        sid,
        missing_sid,
    )
    same_as_missing(
        "poll the operation",
        lambda x: intruder.get(f"{FB.format(session_id=sid)}/{op}".replace(sid, x)),
        sid,
        missing_sid,
    )
    same_as_missing(
        "poll it under an own session",
        lambda x: intruder.get(f"{FB.format(session_id=i_sid)}/{x}"),
        op,
        missing_op,
    )
    same_as_missing(
        "list with after=",
        lambda x: intruder.get("/v1/rl/training-sessions", params={"after": x}),
        sid,
        missing_sid,
    )
    same_as_missing(
        "list by model resources",
        lambda x: intruder.get("/v1/rl/training-sessions", params={"model_resources_id": x}),
        mr,
        missing_mr,
        allowed=(200,),
    )
    # The other operation kinds and the large-payload routes, on the owner's session.
    for kind, op_body in KIND_PROBE_BODIES.items():  # a valid body of every other kind
        base = "/v1/rl/training-sessions/{}/operations/" + kind

        def submit(x: str, base: str = base, op_body: dict[str, Any] = op_body) -> httpx.Response:
            headers = {"Idempotency-Key": f"i-{next(key)}"}
            return intruder.post(base.format(x), json=op_body, headers=headers)

        def poll(x: str, base: str = base) -> httpx.Response:
            return intruder.get(base.format(x) + f"/{op}")

        same_as_missing(f"submit {kind}", submit, sid, missing_sid)
        own = keep(submit(i_sid))
        if own.status_code != 200:  # else the checks above would prove nothing about ownership
            fail(f"{kind} on the intruder's own session: {own.status_code} {own.content[:160]!r}")
        same_as_missing(f"poll a {kind} operation", poll, sid, missing_sid)
    same_as_missing(
        "ask for a payload upload URL",
        lambda x: intruder.post(f"/v1/rl/training-sessions/{x}/payloads/upload-url"),
        sid,
        missing_sid,
    )
    payload = str(uuid.uuid4())
    same_as_missing(
        "ask for a payload download URL",
        lambda x: intruder.post(f"/v1/rl/training-sessions/{x}/payloads/{payload}/download-url"),
        sid,
        missing_sid,
    )

    listed = keep(intruder.get("/v1/rl/training-sessions", params={"limit": 100})).json()["data"]
    if {s["id"] for s in listed} != {i_sid}:
        fail(f"the intruder's list holds {[s['id'] for s in listed]}, expected only {i_sid}")
    intruder_stats = keep(intruder.get("/_emulator/stats")).json()["sessions"]
    if set(intruder_stats) != {i_sid}:
        fail(f"the intruder's stats show sessions {sorted(intruder_stats)}")
    # The same Idempotency-Key on the intruder's own session is a new operation, not a replay.
    r = keep(
        intruder.post(
            FB.format(session_id=i_sid), json=fb_body(), headers={"Idempotency-Key": "shared-key"}
        )
    )
    if r.status_code != 200 or r.json()["id"] == op:
        fail(
            f"the owner's Idempotency-Key on the intruder's session: {r.status_code}"
            f" {r.content[:120]!r}"
        )

    # 3. Nothing of the owner's changed.
    session = keep(owner.get(f"/v1/rl/training-sessions/{sid}")).json()
    if session["status"] != "TRAINING_SESSION_STATUS_RUNNING":
        fail(f"the owner's session is {session['status']} after the intruder's attempts")
    owner_stats = keep(owner.get("/_emulator/stats")).json()["sessions"]
    if owner_stats[sid]["accumulated_passes"] != 1 or set(owner_stats) != {sid}:
        fail(f"the owner's sessions changed: {owner_stats}")
    owner.close()
    intruder.close()
    for body in report.bodies:
        leaked = keys_in(body)
        if leaked:
            fail(f"an answer contains the key(s) {leaked}: {body[:160]!r}")
            break
    return report


def counters_reveal_other_keys(make_client: ClientFactory) -> list[str]:
    """What the intruder's /_emulator/stats reveals of the owner's activity (empty: nothing)."""
    owner, intruder = make_client(OWNER_KEY), make_client(INTRUDER_KEY)
    before = intruder.get("/_emulator/stats").json()
    mr = owner.post("/v1/rl/model-resources", json={"base_model": TINY}).json()["id"]
    sid = owner.post("/v1/rl/training-sessions", json={"model_resources_id": mr}).json()["id"]
    owner.post(FB.format(session_id=sid), json=fb_body(), headers={"Idempotency-Key": "k"})
    owner.post(FB.format(session_id=sid), json=fb_body(), headers={"Idempotency-Key": "k"})
    after = intruder.get("/_emulator/stats").json()
    owner.close()
    intruder.close()
    return [f"{name}: {before[name]} -> {after[name]}"
            for name in ("requests", "operations_created", "idempotent_replays")
            if before.get(name) != after.get(name)]  # fmt: skip
