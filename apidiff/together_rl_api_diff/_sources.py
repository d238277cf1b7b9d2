"""The kinds of source an `x-source` string names (spec/openapi.yaml's info.description says
the forms): the one reading of them, for the provenance table and the drift report."""

from __future__ import annotations

import re

__all__ = ["SOURCE_KINDS", "SOURCE_LABELS", "SOURCE_PATTERNS", "source_kind"]

#: kind -> the form of its source strings, in the order the tables count them.
SOURCE_PATTERNS: dict[str, re.Pattern[str]] = {
    # the official SDK: a file of the package and the symbol stating the rule
    "sdk": re.compile(r"^together==3\.1\.1 (together/[\w/]+\.py) ([A-Za-z_][\w.]*)$"),
    # a page of the published API reference, docs.together.ai/reference/<page>
    "reference": re.compile(r"^docs:[\w-]+(?:/[\w.-]+)+$"),
    # a guide page of the documentation, docs.together.ai/docs/<page>
    "guide": re.compile(r"^docs (?:https://)?(?:docs\.together\.ai/)?docs/[\w./-]+$"),
    # the user's document the project started from (../shared/seed/<file>)
    "seed": re.compile(r"^seed [\w.-]+$"),
    # exchange n of a cassette recorded against the live API
    "live": re.compile(r"^live (\S+)#(\d+)$"),
    # this project's own choice
    "emulator": re.compile(r"^emulator$"),
}
#: kind -> how the tables name it.
SOURCE_LABELS: dict[str, str] = {
    "sdk": "SDK (`together==3.1.1 <path> <Symbol>`)",
    "reference": "reference docs (`docs:<page>`)",
    "guide": "guides (`docs <page>`)",
    "seed": "seed (`seed <file>`)",
    "live": "live (`live <cassette>#<n>`)",
    "emulator": "emulator",
}
SOURCE_KINDS: tuple[str, ...] = tuple(SOURCE_PATTERNS)


def source_kind(source: str) -> str | None:
    """The kind of a well-formed source string (one of `SOURCE_KINDS`), else `None`."""
    for kind, pattern in SOURCE_PATTERNS.items():
        if pattern.match(source):
            return kind
    return None
