"""A small, correct client of the RL API written against the driver protocol, with switches
that break it one rule at a time (the kit's mutants) or make it misbehave as a process.

    python tests/client_kit/reference_driver.py [--mutation NAME] [--misbehave KIND --at N]

Mutations (each breaks one rule): fresh-key-per-retry, caller-key-replaced,
retry-client-errors, ignore-retry-after, stop-on-unknown-status, no-upload.
Misbehaviours, at the N-th request: crash, hang, non-json, wrong-id; `silent` never declares;
`give-up-polling` (every call) polls an operation once, then hands back an error whatever it saw.
"""

from __future__ import annotations

import argparse
import email.utils
import json
import os
import sys
import time
import uuid
from typing import Any

import httpx
from together_rl_client_kit import FEATURES, _spec
from together_rl_client_kit.drivers import DriverCallError, serve_driver

__all__ = ["MUTATIONS", "main"]

MUTATIONS = {
    "fresh-key-per-retry": "same-key-on-retry",
    "caller-key-replaced": "caller-key-kept",
    "retry-client-errors": "no-retry-client-error",
    "ignore-retry-after": "honour-retry-after",
    "stop-on-unknown-status": "poll-through-unknown-status",
    "no-upload": "upload-large-body",
}
_FINAL = {400, 401, 403, 404, 422}
_MAX_RETRIES = 6
_POLL_S = 0.02
_DEADLINE_S = 60.0


class ReferenceClient:
    def __init__(self, mutation: str | None, give_up_polling: bool = False) -> None:
        self.mutation = mutation
        self.give_up_polling = give_up_polling
        self.root = os.environ["TOGETHER_BASE_URL"].rstrip("/")
        self.http = httpx.Client(
            headers={"authorization": f"Bearer {os.environ['TOGETHER_API_KEY']}"},
            timeout=httpx.Timeout(30.0, connect=5.0),
        )
        statuses = _spec.enum_values("OperationStatus")
        self.completed = _spec.enum_value("OperationStatus", "COMPLETED")
        self.failed = _spec.enum_value("OperationStatus", "FAILED")
        self.known = set(statuses)

    # ------------------------------------------------------------------ one request, retried
    def send(
        self,
        method: str,
        url: str,
        *,
        body: Any = None,
        key: str | None = None,
        auth: bool = True,
        raw: bytes | None = None,
    ) -> Any:
        for attempt in range(_MAX_RETRIES + 1):
            headers: dict[str, str] = {}
            if key is not None:
                headers["idempotency-key"] = (
                    str(uuid.uuid4())
                    if (self.mutation == "fresh-key-per-retry" and attempt > 0)
                    else key
                )
            content = (
                raw
                if raw is not None
                else (json.dumps(body).encode() if body is not None else None)
            )
            if content is not None:
                headers["content-type"] = "application/json"
            try:
                response = self._request(method, url, headers, content, auth)
            except httpx.TransportError as error:
                if attempt == _MAX_RETRIES:
                    raise DriverCallError(None, f"{method} {url}: {error}") from error
                time.sleep(self._backoff(attempt, None))
                continue
            status = response.status_code
            retryable = status in (408, 409, 429) or status >= 500
            if self.mutation == "retry-client-errors" and status in _FINAL and attempt < 2:
                retryable = True
            if status < 300:
                return response.json() if response.content else {}
            if not retryable or attempt == _MAX_RETRIES:
                raise DriverCallError(status, f"{method} {url}: {status} {response.text[:300]}")
            time.sleep(self._backoff(attempt, response))
        raise AssertionError("unreachable")

    def _request(
        self, method: str, url: str, headers: dict[str, str], content: bytes | None, auth: bool
    ) -> httpx.Response:
        if auth:
            return self.http.request(method, url, headers=headers, content=content)
        with httpx.Client(timeout=30.0) as bare:
            return bare.request(method, url, headers=headers, content=content)

    def _backoff(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None and self.mutation != "ignore-retry-after":
            ms = response.headers.get("retry-after-ms")
            if ms is not None:
                return float(ms) / 1000
            after = response.headers.get("retry-after")
            if after is not None:
                if after.strip().isdigit():
                    return float(after)
                when = email.utils.parsedate_to_datetime(after).timestamp()
                return max(0.0, when - time.time())
        return min(0.02 * 2**attempt, 2.0)

    # ------------------------------------------------------------------ calls
    def perform(self, request: dict[str, Any]) -> Any:
        op, params = request["op"], request.get("path", {})
        route = _spec.route(op)
        url = self.root + route.path(params)
        poll = _spec.poll_route(op)
        if poll is None:
            return self.send(
                route.method, url, body=request.get("body") if route.method != "GET" else None
            )
        key = request.get("idempotency_key")
        if key is None or self.mutation == "caller-key-replaced":
            key = str(uuid.uuid4())
        body = self._maybe_upload(params, request.get("body") or {})
        operation = self.send("POST", url, body=body, key=key)
        deadline = time.monotonic() + _DEADLINE_S
        polled = 0
        while True:
            if self.give_up_polling and polled == 1:
                raise DriverCallError(None, "gave up waiting for the operation after one GET")
            status = operation.get("status")
            if status == self.completed:
                return self._complete(params, operation.get("output") or {})
            if status == self.failed:
                error = operation.get("error") or {}
                raise DriverCallError(
                    None, f"operation failed: {error.get('code')}: {error.get('message')}"
                )
            if self.mutation == "stop-on-unknown-status" and status not in self.known:
                raise DriverCallError(None, f"unexpected operation status {status}")
            if time.monotonic() > deadline:
                raise DriverCallError(None, "the operation did not finish in time")
            time.sleep(_POLL_S)
            operation = self.send(
                "GET", self.root + poll.path({**params, "operation_id": operation["id"]})
            )
            polled += 1

    def _maybe_upload(self, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        encoded = json.dumps(body, separators=(",", ":")).encode()
        if self.mutation == "no-upload" or len(encoded) <= _spec.upload_threshold_bytes():
            return body
        upload = _spec.route("createPayloadUploadUrl")
        where = self.send("POST", self.root + upload.path(params))
        self.send("PUT", where["upload_url"], raw=encoded, auth=False)
        return {**body, "samples": body["samples"][:1], "payload_id": where["payload_id"]}

    def _complete(self, params: dict[str, str], output: dict[str, Any]) -> dict[str, Any]:
        if "payload_id" not in output:
            return output
        download = _spec.route("createPayloadDownloadUrl")
        where = self.send(
            "POST", self.root + download.path({**params, "payload_id": output["payload_id"]})
        )
        fetched = self.send("GET", where["download_url"], auth=False)
        return {**{k: v for k, v in output.items() if k != "payload_id"}, **fetched}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mutation", choices=sorted(MUTATIONS))
    parser.add_argument(
        "--misbehave",
        choices=["crash", "hang", "non-json", "wrong-id", "silent", "give-up-polling"],
    )
    parser.add_argument("--at", type=int, default=1)
    args = parser.parse_args()
    if args.misbehave == "silent":
        print("starting up, but never declaring", file=sys.stderr, flush=True)
        time.sleep(3600)
    client = ReferenceClient(args.mutation, give_up_polling=args.misbehave == "give-up-polling")
    seen = 0

    def perform(request: dict[str, Any]) -> Any:
        nonlocal seen
        seen += 1
        if args.misbehave not in (None, "give-up-polling") and seen == args.at:
            print(
                f"reference driver: misbehaving ({args.misbehave}) at request {seen}",
                file=sys.stderr,
                flush=True,
            )
            if args.misbehave == "crash":
                os._exit(3)
            if args.misbehave == "hang":
                time.sleep(3600)
            if args.misbehave == "non-json":
                os.write(1, b"this is not JSON\n")
                time.sleep(3600)
            if args.misbehave == "wrong-id":
                answer = {"id": request["id"] + 1, "ok": True, "result": {}}
                os.write(1, (json.dumps(answer) + "\n").encode())
                time.sleep(3600)
        return client.perform(request)

    name = "reference" + (f" ({args.mutation})" if args.mutation else "")
    supports = ["forwardBackward", "getTrainingSession", *FEATURES]
    return serve_driver(name, supports, perform, lambda e: DriverCallError(None, repr(e)))


if __name__ == "__main__":
    sys.exit(main())
