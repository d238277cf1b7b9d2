"""Which `x-` extension keywords of a schema mean something: configuration, not code.

`rules` state a rule a client must follow (compared as `rule-*`), `rule_lists` are lists of
such rules (compared as one rule, each entry without its annotation keys), `defaults` name a
default the server applies (compared like `default`), `annotations` state nothing on the wire
(never a change). Any other `x-` keyword that changes is reported as `extension-changed`, not
judged. `PROJECT_KEYWORDS` is this project's spec's; `--keywords FILE` reads another (YAML or
JSON with the same four lists).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from together_rl_spec import DocumentError

__all__ = ["PROJECT_KEYWORDS", "Keywords", "load_keywords"]


@dataclass(frozen=True)
class Keywords:
    rules: tuple[str, ...] = ()
    rule_lists: tuple[str, ...] = ()
    defaults: tuple[str, ...] = ()
    annotations: tuple[str, ...] = ()

    def known(self, keyword: str) -> bool:
        return keyword in (*self.rules, *self.rule_lists, *self.defaults, *self.annotations)


#: the extension keywords of `spec/openapi.yaml` (docs/api-changes.md explains each)
PROJECT_KEYWORDS = Keywords(
    rules=(
        "x-input-dtypes",
        "x-exclusive-inputs",
        "x-tensor-length",
        "x-required-inputs",
        "x-requires-inputs-when-positive",
        "x-at-least",
    ),
    rule_lists=("x-rules",),
    defaults=("x-server-default",),
    # x-stainless-empty-object: the Stainless generator's hint in Together's own documents
    # x-known-values: the enum an open string's known values are in (generators' constants);
    # x-decimal-string and x-json-integer are read before comparing (`wire_document`)
    annotations=(
        "x-source",
        "x-should-retry",
        "x-upstream-differs",
        "x-stainless-empty-object",
        "x-known-values",
        "x-decimal-string",
        "x-json-integer",
    ),
)

_FIELDS = ("rules", "rule_lists", "defaults", "annotations")


def load_keywords(path: Path) -> Keywords:
    """A keywords file: a mapping of some of `rules`, `rule_lists`, `defaults`, `annotations`
    to lists of `x-` keywords. DocumentError names the file and the bad entry."""
    source = str(path)
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise DocumentError(source, "file", str(error).splitlines()[0]) from error
    if not isinstance(loaded, dict):
        raise DocumentError(source, "document", "not a mapping of keyword lists")
    unknown = sorted(set(map(str, loaded)) - set(_FIELDS))
    if unknown:
        raise DocumentError(source, unknown[0], f"unknown entry (expected one of {_FIELDS})")
    lists: dict[str, tuple[str, ...]] = {}
    for field in _FIELDS:
        value = loaded.get(field) or []
        if not isinstance(value, list) or not all(
            isinstance(k, str) and k.startswith("x-") for k in value
        ):
            raise DocumentError(source, field, "not a list of `x-` keywords")
        lists[field] = tuple(value)
    return Keywords(**lists)
