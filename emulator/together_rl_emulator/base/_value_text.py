"""How a refusal names a value: its JSON type, and a short rendering of it."""

from __future__ import annotations

__all__ = ["json_type", "short_value"]


def json_type(value: object) -> str:
    """The JSON type name of a decoded value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def short_value(value: object) -> str:
    """A value for a message: scalars shown (strings quoted, cut at 60 chars), containers named."""
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:60] + "...")
    if value is None or isinstance(value, bool):
        return json_type(value) if value is None else str(value).lower()
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 40 else text[:40] + "..."
    return f"an {json_type(value)}" if json_type(value) in ("array", "object") else json_type(value)
