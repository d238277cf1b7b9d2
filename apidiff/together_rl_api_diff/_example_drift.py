"""Where the spec's request examples stand against an upstream's published ones.

A published reference page shows one request example per operation: the media type's own
`examples`/`example` where the document has them, else the body its renderer builds from the
schema's field examples (each property's `example`, objects and arrays built from theirs). The
spec holds the examples it adopted with `x-source: docs:<page>`. Two findings:

- `request-example-added`: the upstream shows an example that no request example of ours for
  that operation equals (the spec is behind: adopt it, or explain it);
- `request-example-removed`: an adopted example of ours (`docs:` source) that equals none of
  the upstream's examples of an operation that has some (the page changed, or ours did).

Examples bind no one, so both are compatible for clients and servers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from together_rl_spec import Document

from ._changes import Change, change_id, judged
from ._schema_pairing import follow_ref, operation_index, resolver

__all__ = ["EXAMPLE_KINDS", "example_changes", "request_examples"]

#: The kinds of change this module reports.
EXAMPLE_KINDS = ("request-example-added", "request-example-removed")
_JSON = "application/json"
_PUBLISHED = "docs:"
_MAX_DEPTH = 12


def _media(document: Document, operation: dict[str, Any]) -> dict[str, Any]:
    body, _ = follow_ref(resolver(document), operation.get("requestBody"))
    if not isinstance(body, dict):
        return {}
    media = (body.get("content") or {}).get(_JSON)
    return media if isinstance(media, dict) else {}


def _built(document: Document, node: Any, depth: int = 0) -> Any:
    """The example a renderer builds from a schema's field examples; None when it has none."""
    node, _ = follow_ref(resolver(document), node)
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return None
    if "example" in node:
        return node["example"]
    if isinstance(node.get("examples"), list) and node["examples"]:
        return node["examples"][0]
    if isinstance(node.get("properties"), dict):
        built = {
            name: value
            for name, prop in node["properties"].items()
            if (value := _built(document, prop, depth + 1)) is not None
        }
        return built or None
    if node.get("type") == "array" or "items" in node:
        item = _built(document, node.get("items"), depth + 1)
        return None if item is None else [item]
    return None


def request_examples(
    document: Document, operation: dict[str, Any], *, build: bool
) -> dict[str, tuple[Any, str | None]]:
    """name -> (value, `x-source`) of an operation's JSON request examples; with `build`, the
    one its field examples make (named `built`) when it has none of its own."""
    media = _media(document, operation)
    found: dict[str, tuple[Any, str | None]] = {}
    for name, raw in (media.get("examples") or {}).items():
        example, _ = follow_ref(resolver(document), raw)
        if isinstance(example, dict) and "value" in example:
            found[str(name)] = (example["value"], example.get("x-source"))
    if "example" in media:
        found["example"] = (media["example"], None)
    if not found and build:
        value = _built(document, media.get("schema"))
        if value is not None:
            found["built"] = (value, None)
    return found


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _change(kind: str, where: str, operation: str, name: str, old: Any, new: Any) -> Change:
    location = f"{where}/requestBody/content/application~1json/examples/{name}"
    clients, servers = judged(kind, ["request"])
    shown = json.dumps(new if old is None else old, separators=(",", ":"))
    if len(shown) > 160:
        shown = shown[:157] + "..."
    what = "the upstream's" if old is None else "our published"
    verb = "has no equal in the spec" if old is None else "is not the upstream's any more"
    return Change(
        id=change_id(kind, location, name),
        kind=kind,
        location=location,
        operations=[operation],
        old=old,
        new=new,
        clients=clients,
        servers=servers,
        message=f"{operation}: {what} request example {name} {verb}: {shown}",
        positions=["request"],
        detail=name,
    )


def example_changes(ours: Document, theirs: Document, *, scope: str) -> Iterator[Change]:
    """The example findings of every operation both documents have within `scope`."""
    our_index = operation_index(ours)
    for key, (_, their_operation) in operation_index(theirs).items():
        method, url = key
        if scope not in url or key not in our_index:
            continue
        our_path, our_operation = our_index[key]
        shown = f"{method.upper()} {url}"
        where = "#/paths/" + our_path.replace("~", "~0").replace("/", "~1") + f"/{method}"
        upstream = request_examples(theirs, their_operation, build=True)
        adopted = request_examples(ours, our_operation, build=False)
        our_values = {_canonical(value) for value, _ in adopted.values()}
        their_values = {_canonical(value) for value, _ in upstream.values()}
        for name, (value, _) in upstream.items():
            if _canonical(value) not in our_values:
                yield _change("request-example-added", where, shown, name, None, value)
        if not upstream:
            continue
        for name, (value, source) in adopted.items():
            published = isinstance(source, str) and source.startswith(_PUBLISHED)
            if published and _canonical(value) not in their_values:
                yield _change("request-example-removed", where, shown, name, value, None)
