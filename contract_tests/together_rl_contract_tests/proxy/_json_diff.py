"""Where two JSON documents differ, as wire field paths (``samples[0].loss.type``)."""

from __future__ import annotations

from typing import Any

__all__ = ["json_differences"]


def json_differences(expected: Any, got: Any, limit: int = 5) -> list[str]:
    """Up to ``limit`` differences, each ``path: recorded X, got Y`` (or a missing/extra key)."""
    found: list[str] = []
    _walk(expected, got, "", found, limit)
    return found


def _walk(expected: Any, got: Any, path: str, found: list[str], limit: int) -> None:
    if len(found) >= limit:
        return
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in expected:
            where = f"{path}.{key}" if path else str(key)
            if key not in got:
                found.append(f"{where}: recorded, missing now")
            else:
                _walk(expected[key], got[key], where, found, limit)
            if len(found) >= limit:
                return
        for key in got:
            if key not in expected and len(found) < limit:
                found.append(f"{path + '.' if path else ''}{key}: not in the recorded request")
        return
    if isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            found.append(f"{path or 'body'}: {len(expected)} items recorded, {len(got)} now")
            return
        for index, (e, g) in enumerate(zip(expected, got, strict=True)):
            _walk(e, g, f"{path}[{index}]", found, limit)
            if len(found) >= limit:
                return
        return
    if expected != got or type(expected) is not type(got):
        found.append(f"{path or 'body'}: recorded {_short(expected)}, got {_short(got)}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
