"""The list endpoints' page: `{data, meta: {has_more, limit, next_cursor}}`, newest first, the
cursor being the id of the last item of the previous page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._errors import ApiError, invalid

__all__ = ["PageRequest", "empty_page", "page_of", "unknown_cursor"]


@dataclass(frozen=True)
class PageRequest:
    """The page a list request asks for: at most `limit` items, after the cursor `after` (None:
    from the newest). A list fetches `limit + 1` items: one more says `has_more`."""

    after: str | None
    limit: int


def page_of(rows: list[dict[str, Any]] | None, request: PageRequest) -> dict[str, Any]:
    """The page of `rows` (up to `request.limit + 1` items); None, the store's answer for a cursor
    it does not know, is a 400."""
    if rows is None:
        raise unknown_cursor(request.after or "")
    page, has_more = rows[: request.limit], len(rows) > request.limit
    return {
        "data": page,
        "meta": {
            "has_more": has_more,
            "limit": request.limit,
            "next_cursor": page[-1]["id"] if has_more and page else "",
        },
    }


def empty_page(request: PageRequest) -> dict[str, Any]:
    return page_of([], request)


def unknown_cursor(after: str) -> ApiError:
    return invalid("after", f"unknown cursor {after!r}: pass a previous meta.next_cursor")
