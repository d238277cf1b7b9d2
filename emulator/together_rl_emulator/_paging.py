"""The list endpoints' page: `{data, meta: {has_more, limit, next_cursor}}`, newest first, the
cursor being the id of the last item of the previous page."""

from __future__ import annotations

from typing import Any

from ._errors import ApiError, invalid

__all__ = ["empty_page", "page_of", "unknown_cursor"]


def page_of(rows: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """The page of `rows`, fetched as up to `limit + 1` items so that one more says `has_more`."""
    page, has_more = rows[:limit], len(rows) > limit
    return {
        "data": page,
        "meta": {
            "has_more": has_more,
            "limit": limit,
            "next_cursor": page[-1]["id"] if has_more and page else "",
        },
    }


def empty_page(limit: int) -> dict[str, Any]:
    return page_of([], limit)


def unknown_cursor(after: str) -> ApiError:
    return invalid("after", f"unknown cursor {after!r}: pass a previous meta.next_cursor")
