"""The recorder of the vector generator: it sends each request to the emulator, records the
exchange, and replaces what differs between runs (ids, timestamps, presigned tokens, timing)
with stable placeholders."""

from __future__ import annotations

import re
from typing import Any

import httpx

from together_rl_contract_tests._http import FORWARD_BACKWARD, TargetClient, operation_path
from together_rl_contract_tests.vectors._summary import summarise_json

__all__ = ["ID_FIELDS", "KEPT_HEADERS", "PRESIGNED_TOKEN", "TIMESTAMP", "Recorder", "normalise"]

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T[0-9:.]+(Z|[+-]\d{2}:?\d{2})?$")
ID_FIELDS = ("id", "session_id", "model_resources_id", "operation_id", "payload_id", "created_by")
PRESIGNED_TOKEN = re.compile(r"token=[A-Za-z0-9_-]+")
KEPT_HEADERS = ("retry-after", "x-should-retry", "allow")


class Recorder:
    """Sends requests and records them with server-chosen ids replaced by placeholders."""

    def __init__(self, client: TargetClient) -> None:
        self.client = client
        self.placeholders: dict[str, str] = {}
        self.counts: dict[str, int] = {}
        self.last_response: httpx.Response | None = None

    def name_id(self, value: str, kind: str) -> str:
        if value not in self.placeholders:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.placeholders[value] = f"<{kind}:{self.counts[kind]}>"
        return self.placeholders[value]

    def scrub(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub(v) for v in value]
        if isinstance(value, str):
            if TIMESTAMP.match(value):
                return "<timestamp>"
            for real, placeholder in self.placeholders.items():
                value = value.replace(real, placeholder)
            # Presigned URLs: the server's address and the random token.
            value = value.replace(self.client.target.base_url, "<base_url>")
            value = PRESIGNED_TOKEN.sub("token=<token>", value)
        return value

    def step(self, method: str, path: str, *, body: Any = None, raw: bytes | None = None,
             headers: dict[str, str] | None = None, auth: bool = True,
             summarise: bool = False) -> dict[str, Any]:  # fmt: skip
        response = self.client.request(
            method, path, json=body, content=raw, headers=headers, auth=auth
        )
        self.last_response = response
        parsed = response.json() if response.content else None
        if summarise and response.content:
            # Too large for a vector file: what a port can check of it stands in for it.
            parsed = summarise_json(response.content)
        if isinstance(parsed, dict):
            output = parsed.get("output")
            for document in (parsed, output if isinstance(output, dict) else {}):
                for field in ID_FIELDS:
                    if isinstance(document.get(field), str):
                        self.name_id(document[field], _kind(path, field))
        request: dict[str, Any] = {"method": method, "path": path, "headers": dict(headers or {})}
        if auth:
            request["headers"]["Authorization"] = "Bearer <api_key>"
        if body is not None:
            request["body"] = body
        if raw is not None:
            request["raw_body"] = raw.decode("utf-8", "replace")
        kept = {k: v for k, v in response.headers.items() if k.lower() in KEPT_HEADERS}
        return self.scrub(
            {
                "request": request,
                "response": {"status": response.status_code, "headers": kept, "body": parsed},
            }
        )

    def wait(
        self, session_id: str, operation_id: str, kind: str = FORWARD_BACKWARD
    ) -> dict[str, Any]:
        self.client.wait_for_operation(session_id, operation_id, kind=kind)
        return self.step("GET", f"{operation_path(session_id, kind)}/{operation_id}")

    def real(self, placeholder: str) -> str:
        return next(real for real, named in self.placeholders.items() if named == placeholder)

    def operation(
        self, session_id: str, kind: str, body: dict[str, Any], key: str
    ) -> list[dict[str, Any]]:
        """POST an operation (its status is racy), then its COMPLETED GET."""
        submit = normalise(
            self.step(
                "POST", operation_path(session_id, kind), body=body,
                headers={"Idempotency-Key": key},
            ),
            racy_status=True,
        )  # fmt: skip
        steps = [submit]
        if submit["response"]["status"] == 200:
            steps.append(self.wait(session_id, self.real(submit["response"]["body"]["id"]), kind))
        return steps


ALLOWED_LIST = re.compile(r"(allowed: )([A-Z, ]+)")


def _sorted_methods(text: str) -> str:
    return ", ".join(sorted(m.strip() for m in text.split(",") if m.strip()))


def normalise(step: dict[str, Any], *, racy_status: bool = False) -> dict[str, Any]:
    """Make a step deterministic: method lists sorted; a status that depends on timing hidden."""
    response = step["response"]
    if "allow" in response["headers"]:
        response["headers"]["allow"] = _sorted_methods(response["headers"]["allow"])
    error = response["body"].get("error") if isinstance(response["body"], dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        error["message"] = ALLOWED_LIST.sub(
            lambda m: m.group(1) + _sorted_methods(m.group(2)), error["message"]
        )
    if racy_status and isinstance(response["body"], dict) and "status" in response["body"]:
        # PENDING, RUNNING or already COMPLETED (with output), depending on the worker's speed.
        response["body"] = {"id": response["body"].get("id"), "status": "<status>"}
    return step


def _kind(path: str, field: str) -> str:
    if field != "id":
        return field
    if "/operations/" in path:
        return "operation_id"
    if "model-resources" in path:
        return "model_resources_id"
    return "session_id"
