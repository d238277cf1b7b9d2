"""Contains some shared types for properties"""

from collections.abc import Callable, Mapping, MutableMapping
from http import HTTPStatus
from typing import IO, Any, BinaryIO, Generic, Literal, ParamSpec, TypeVar

from attrs import define, field, frozen


class Unset:
    def __bool__(self) -> Literal[False]:
        return False


UNSET: Unset = Unset()

# The types that `httpx.Client(files=)` can accept, copied from that library.
FileContent = IO[bytes] | bytes | str
FileTypes = (
    # (filename, file (or bytes), content_type)
    tuple[str | None, FileContent, str | None]
    # (filename, file (or bytes), content_type, headers)
    | tuple[str | None, FileContent, str | None, Mapping[str, str]]
)
RequestFiles = list[tuple[str, FileTypes]]


@define
class File:
    """Contains information for file uploads"""

    payload: BinaryIO
    file_name: str | None = None
    mime_type: str | None = None

    def to_tuple(self) -> FileTypes:
        """Return a tuple representation that httpx will accept for multipart/form-data"""
        return self.file_name, self.payload, self.mime_type


T = TypeVar("T")


@define
class Response(Generic[T]):
    """A response from an endpoint"""

    status_code: HTTPStatus
    content: bytes
    headers: MutableMapping[str, str]
    parsed: T | None


@frozen
class RequestParts:
    """One request of an endpoint without its body (``api.<tag>.<endpoint>.request_parts``): for
    callers that encode and send the body themselves. ``url`` is relative to the API root and
    has its path parameters filled in; ``params`` are the query parameters that are set."""

    method: str
    url: str
    params: dict[str, Any] = field(factory=dict)
    headers: dict[str, str] = field(factory=dict)


P = ParamSpec("P")
R = TypeVar("R")


@frozen
class Endpoint(Generic[P, R]):
    """What a caller that sends requests itself needs of one endpoint
    (``api.<tag>.<endpoint>.ENDPOINT``): its method and path, ``request_parts`` (everything of
    the request but its body), the names of its path parameters (the positional arguments of
    ``request_parts``), the generated model of its JSON request body (``None`` without one),
    ``parse_response`` (the generated reader of its 2xx body, ``None`` when the spec gives it no
    JSON schema), and ``operation_kind``: the path segment after ``/operations/`` when the
    endpoint submits or polls a training operation (``"optim-step"``), else ``None``."""

    method: str
    path: str
    request_parts: Callable[P, RequestParts]
    path_params: tuple[str, ...]
    body_model: type | None
    parse_response: Callable[[Any], R] | None
    operation_kind: str | None


__all__ = [
    "UNSET",
    "Endpoint",
    "File",
    "FileTypes",
    "RequestFiles",
    "RequestParts",
    "Response",
    "Unset",
]
