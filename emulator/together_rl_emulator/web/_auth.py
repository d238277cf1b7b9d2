"""API keys: who a bearer token is (an opaque owner id, never the key), or a 401 saying why."""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from starlette.requests import Request

from ..base import ApiError, private_dir, private_file, write_private

__all__ = ["ApiKeys", "owner_id", "owner_secret"]


def owner_id(api_key: str, secret: bytes) -> str:
    """The stable identity of an API key (never the key itself): stored as owner and created_by.
    Keyed with a server-side secret, so a `created_by` value cannot confirm a guessed key."""
    return "user-" + hmac.new(secret, api_key.encode(), hashlib.sha256).hexdigest()[:16]


def owner_secret(state_dir: str | Path | None) -> bytes:
    """A random secret, kept in the state dir (when there is one) so owner ids survive restarts."""
    if state_dir is None:
        return os.urandom(32)
    path = private_dir(state_dir) / "owner-secret"
    if path.exists():
        return bytes.fromhex(private_file(path).read_text().strip())
    secret = os.urandom(32)
    write_private(path, secret.hex())
    return secret


class ApiKeys:
    """The accepted keys, by the owner id each one stands for."""

    def __init__(self, api_keys: list[str], secret: bytes) -> None:
        if not api_keys or any(not k for k in api_keys):
            raise ValueError("at least one non-empty API key is required")
        self.owners = {owner_id(k, secret): k.encode() for k in api_keys}

    def owner_of(self, authorization: str | None) -> str | None:
        """The owner id of a valid `Authorization: Bearer <key>` header, else None."""
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        given = token.strip().encode()
        for owner, key in self.owners.items():
            if hmac.compare_digest(given, key):
                return owner
        return None

    def authenticate(self, request: Request) -> str:
        header = request.headers.get("authorization")
        owner = self.owner_of(header)
        if owner is not None:
            return owner
        scheme, _, token = (header or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                401,
                "Authorization: missing bearer token (send 'Authorization: Bearer <API key>')",
                type="authentication_error",
                param="Authorization",
                code="missing_api_key",
            )
        raise ApiError(
            401,
            "Authorization: the API key is not valid",
            type="authentication_error",
            param="Authorization",
            code="invalid_api_key",
        )
