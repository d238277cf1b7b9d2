"""What the spec is compared with: an official SDK release, one or more OpenAPI documents of
Together's (files or URLs, merged), or the spec at another git revision.

Each becomes two documents for the comparison: ours (the spec, or for an SDK release only the
facts an SDK states) and theirs, plus what is known and explained about that kind of upstream.
"""

from __future__ import annotations

import copy
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from together_rl_spec import Document, DocumentError, load_document, parse_text, wire_document

from ._sdk_surface import project_spec, sdk_document, sdk_surface

__all__ = ["SDK_EXPLAINED", "Upstream", "read_upstream", "sdk_upstream"]

#: The end of a finding's location (a JSON pointer: a property, an operation) -> why an SDK
#: release differs there although the spec is right. The one allow-list of the SDK drift: the
#: command applies it and tests/spec/test_spec_agrees_with_sdk.py checks that each entry still
#: matches.
SDK_EXPLAINED: Mapping[str, str] = {
    "/properties/payload_id": "the large-payload protocol: the SDK's hand-written layer "
    "(together/post_training/_payloads.py) sends `payload_id` through `extra_body` and reads it "
    "from the raw output; the typed params and models never declare it",
    "/schemas/OperationStatusValue": "an operation's `status` is an open string so that "
    "generated clients decode a status they do not know (the SDK's poll loop, "
    "together/post_training/_operations.py async_wait_for_operation, keeps polling on one); the "
    "known values are the `OperationStatus` enum the SDK types it with",
    "/paths/~1rl~1rollouts~1estimate/post": "published in the API reference "
    "(docs.together.ai/reference/post-training/rollouts-estimate), in no SDK release yet",
}

#: A requirement (`together==3.1.1`, `tinker>=1`): an SDK release, refused unless together==X.
_RELEASE = re.compile(r"^[A-Za-z][\w.-]*\s*(==|>=|<=|~=|!=|>|<)")
_PARAMETER = re.compile(r"\{[^}/]*\}")
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Upstream:
    """The two documents to compare, and what the report needs to know of the upstream."""

    label: str
    kind: Literal["sdk", "openapi", "revision"]
    spec: Document  # the spec as written: where a finding's `x-source` is read
    ours: Document  # the spec as compared
    theirs: Document
    explained: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def _adopt_untyped(spec: Document, sdk: Document, surface: dict[str, Any]) -> None:
    """An endpoint the SDK calls untyped states only its method and path: take the rest from
    the spec, so only its presence is compared."""
    by_key = {}
    adopted = False
    for path, item in (spec.root.get("paths") or {}).items():
        for method, operation in item.items():
            by_key[(method, _PARAMETER.sub("{}", path))] = operation
    for operation in surface["operations"]:
        if not operation.get("untyped"):
            continue
        path = operation["path"].removeprefix("/v1")
        key = (operation["method"], _PARAMETER.sub("{}", path))
        if key in by_key:
            sdk.root["paths"].setdefault(path, {})[operation["method"]] = by_key[key]
            adopted = True
    if adopted:  # what the adopted operations refer to; SDK components keep their own names
        components = sdk.root.setdefault("components", {})
        for section, entries in (spec.root.get("components") or {}).items():
            for name, entry in entries.items():
                components.setdefault(section, {}).setdefault(name, entry)


def _wire(document: Document) -> Document:
    """`document` as the wire reads it: an `x-decimal-string` integer takes its string form too
    (upstreams type those values string-or-integer)."""
    return Document(document.source, wire_document(document.root), document.read_beside)


def sdk_upstream(surface: dict[str, Any], spec: Document) -> Upstream:
    """A release's RL surface (`sdk_surface`) against the spec's SDK-stated facts."""
    projected = project_spec(_wire(spec))
    released = sdk_document(surface)
    released.root["info"]["version"] = spec.version  # semver: the bump agreeing would need
    _adopt_untyped(projected, released, surface)
    return Upstream(released.source, "sdk", spec, projected, released, SDK_EXPLAINED)


def _fetch(url: str) -> Document:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            text = answer.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        raise DocumentError(url, "fetch", f"HTTP {error.code} {error.reason}") from error
    except (urllib.error.URLError, OSError, UnicodeDecodeError) as error:
        raise DocumentError(url, "fetch", str(getattr(error, "reason", error))) from error
    return Document(url, parse_text(text, url))


def _merged(documents: list[Document]) -> tuple[Document, tuple[str, ...]]:
    """One document of several: every path item keeps its document's server URL (so each
    keeps its own form), components are united; where two documents disagree the first
    one's entry is kept, and a note says so."""
    root: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": " + ".join(d.source for d in documents), "version": ""},
        "paths": {},
        "components": {},
    }
    notes = []
    for document in documents:
        servers = document.root.get("servers")
        for path, raw_item in (document.root.get("paths") or {}).items():
            item = copy.deepcopy(raw_item)
            if servers and isinstance(item, dict):
                item.setdefault("servers", servers)
            merged_item = root["paths"].setdefault(path, item)
            if merged_item is item:
                continue
            for method in _METHODS:
                if method in item and method not in merged_item:
                    merged_item[method] = item[method]
                elif method in item and item[method] != merged_item[method]:
                    notes.append(f"{method.upper()} {path}: {document.source} differs, first kept")
        for section, entries in (document.root.get("components") or {}).items():
            kept = root["components"].setdefault(section, {})
            for name, entry in (entries or {}).items():
                if name not in kept:
                    kept[name] = entry
                elif kept[name] != entry:
                    where = f"components/{section}/{name}"
                    notes.append(f"{where}: {document.source} differs, first kept")
        if "security" in document.root:
            root.setdefault("security", document.root["security"])
    return Document(root["info"]["title"], root), tuple(notes)


def read_upstream(
    sources: list[str], spec: Document, *, cache: Path | None = None, offline: bool = False
) -> Upstream:
    """The upstream `sources` name: `together==X`; files or http(s) URLs of OpenAPI documents
    (several are merged); or a git revision of the spec (`REV`, `REV:PATH`). Raises
    DocumentError, SdkSurfaceError."""
    if not sources:
        raise DocumentError("upstream", "arguments", "give together==X, documents or a revision")
    if any(_RELEASE.match(source) for source in sources):
        if len(sources) > 1:
            raise DocumentError(" ".join(sources), "arguments", "an SDK release is compared alone")
        return sdk_upstream(sdk_surface(sources[0], cache=cache, offline=offline), spec)
    documents, revision = [], True
    for source in sources:
        if source.startswith(("http://", "https://")):
            documents.append(_fetch(source))
            revision = False
        else:
            revision = revision and not Path(source).is_file()
            documents.append(load_document(source))
    notes: tuple[str, ...] = ()
    if len(documents) == 1:
        theirs = documents[0]
    else:
        theirs, notes = _merged(documents)
    kind: Literal["openapi", "revision"] = "revision" if revision else "openapi"
    return Upstream(theirs.source, kind, spec, _wire(spec), _wire(theirs), {}, notes)
