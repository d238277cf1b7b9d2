"""Every request of the API, built one way: from an endpoint's generated ``ENDPOINT`` (its
``request_parts`` seam, its path and its request body model). No I/O here."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec

import orjson
from together_rl_client.types import Endpoint, RequestParts

from ._errors import InvalidRequestError

__all__ = ["API_PREFIX", "RequestSpec", "endpoint_request", "new_idempotency_key", "set_values"]

P = ParamSpec("P")
#: the path of the API root under the base URL (the spec's server URL ends with it)
API_PREFIX = "/v1"


@dataclass(frozen=True)
class RequestSpec:
    """One HTTP request: the generated client's :class:`RequestParts` and the body we encoded.
    ``operation`` labels it in errors (``"POST /v1/rl/training-sessions"``)."""

    method: str
    url: str
    operation: str
    params: Mapping[str, Any] | None = None
    headers: Mapping[str, str] | None = None
    content: bytes | None = None
    #: False for presigned payload URLs: the request goes out without ``Authorization``
    authenticated: bool = True

    @classmethod
    def from_parts(
        cls, parts: RequestParts, *, path: str, content: bytes | None = None
    ) -> RequestSpec:
        """From an endpoint's ``request_parts(...)`` and its ``PATH`` (for the label)."""
        # Arrays go comma-separated, as the spec (style form, explode false) says.
        params = {
            k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in parts.params.items()
        }
        return cls(
            method=parts.method,
            url=parts.url,
            operation=f"{parts.method} {API_PREFIX}{path}",
            params=params or None,
            headers=parts.headers,
            content=content,
        )


def new_idempotency_key() -> str:
    """A fresh Idempotency-Key (a uuid4): one per logical call, reused on its retries."""
    return str(uuid.uuid4())


def set_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values that are set (``None`` leaves a field or parameter to the spec's default),
    generated models turned into their wire dicts."""
    return {
        key: value.to_dict() if hasattr(value, "to_dict") else value
        for key, value in values.items()
        if value is not None
    }


def _encoded_body(model: type, values: Mapping[str, Any]) -> bytes:
    """The caller's values as the endpoint's generated request model, refused before sending
    when they do not fit it."""
    try:
        body = model.from_dict(set_values(values))  # type: ignore[attr-defined]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidRequestError(f"the options do not fit {model.__name__}: {exc!r}") from exc
    return orjson.dumps(body.to_dict())


def endpoint_request(
    endpoint: Endpoint[P, Any],
    body: Mapping[str, Any] | bytes | None,
    /,
    *args: P.args,
    **kwargs: P.kwargs,
) -> RequestSpec:
    """The request of ``endpoint``: path parameters positional (each refused when empty),
    query and header parameters by keyword (``None`` leaves one out), and ``body`` either the
    fields of its request model (checked by it) or an already encoded body."""
    for name, value in zip(endpoint.path_params, args, strict=False):
        if not value:
            raise InvalidRequestError(f"{name} must not be empty", field=name)
    parts = endpoint.request_parts(*args, **set_values(kwargs))
    if isinstance(body, Mapping):
        assert endpoint.body_model is not None, f"{endpoint.path} takes no request body"
        body = _encoded_body(endpoint.body_model, body)
    return RequestSpec.from_parts(parts, path=endpoint.path, content=body)
