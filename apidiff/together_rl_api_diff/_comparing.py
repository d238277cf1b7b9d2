"""The comparison of two documents: operations by method and URL path, then everything in them.

An operation's URL path is its server URL's path joined with its path, so a document that
moves `/v1` from the server URL into its paths describes the same operations.

Parameters, bodies, responses and security per operation; schemas by `SchemaComparison`. A
change found from several operations (a shared schema's) is reported once, with all of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from together_rl_spec import Document, Resolver, pointer_join, wire_document

from ._changes import Change, DiffReport, Finding, advise_semver, change_id, judged
from ._comparing_schemas import SchemaComparison
from ._generator_hazards import added_hazards, schemas_reached
from ._judging import Position
from ._keywords import PROJECT_KEYWORDS, Keywords
from ._messages import describe
from ._schemas import SchemaViews, rule_list
from ._security import Requirement, implies, requirement, shown

__all__ = ["compare_documents"]

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_PATH_PARAMETER = re.compile(r"\{[^}/]*\}")


@dataclass
class _Operation:
    method: str
    path: str
    pointer: str
    node: dict[str, Any]
    path_item: dict[str, Any]
    title: str = ""  # a webhook's or callback's name, instead of `METHOD path`

    @property
    def label(self) -> str:
        return self.title or f"{self.method.upper()} {self.path}"


#: a webhook's or callback's request is sent by the server and read by the client: the
#: positions of a response
_REVERSED: dict[Position, Position] = {
    "request": "response",
    "response": "request",
    "operation": "operation",
}


def _reversed(findings: Iterator[Finding]) -> Iterator[Finding]:
    for finding in findings:
        yield replace(finding, position=_REVERSED[finding.position])


def _flows(scheme: dict[str, Any]) -> dict[str, Any]:
    flows = scheme.get("flows")
    return flows if isinstance(flows, dict) else {}


def _methods(item: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(item, dict):
        for method in _METHODS:
            operation = item.get(method)
            if isinstance(operation, dict):
                yield method, operation


def _server_path(servers: Any) -> str:
    """The path of the first server URL, without its trailing slash (`""` for none)."""
    first = servers[0] if isinstance(servers, list) and servers else None
    url = first.get("url") if isinstance(first, dict) else None
    return urlsplit(url).path.rstrip("/") if isinstance(url, str) else ""


class _Side:
    """One document with its resolver and schema views."""

    def __init__(self, document: Document, keywords: Keywords) -> None:
        # compared as the wire reads it: an int64 shown in one JSON form takes both
        document = Document(document.source, wire_document(document.root), document.read_beside)
        self.document = document
        self.resolver = Resolver(document.root, document.source, document.read_beside)
        self.resolver.check_references()
        self.views = SchemaViews(self.resolver, keywords)

    def follow(self, node: Any) -> Any:
        return self.resolver.follow(node)[0]

    def operations(self, prefix: str | None) -> dict[tuple[str, str], _Operation]:
        """(method, URL path with unnamed parameters) -> operation, for URL paths that contain
        `prefix` (`/rl/` finds `/rl/...` under a `/v1` server URL and `/v1/rl/...` alike)."""
        found: dict[tuple[str, str], _Operation] = {}
        for path, raw_item in (self.document.root.get("paths") or {}).items():
            item = self.follow(raw_item)
            if not isinstance(item, dict):
                continue
            for method in _METHODS:
                operation = item.get(method)
                if isinstance(operation, dict):
                    servers = operation.get("servers") or item.get("servers")
                    url_path = _server_path(servers or self.document.root.get("servers")) + str(
                        path
                    )
                    if prefix and prefix not in url_path:
                        continue
                    key = (method, _PATH_PARAMETER.sub("{}", url_path))
                    pointer = pointer_join("#/paths", str(path), method)
                    found[key] = _Operation(method, str(path), pointer, operation, item)
        return found

    def webhooks(self) -> dict[tuple[str, str], _Operation]:
        """(name, method) -> the operation of an OpenAPI 3.1 webhook."""
        found: dict[tuple[str, str], _Operation] = {}
        for name, raw_item in (self.document.root.get("webhooks") or {}).items():
            item = self.follow(raw_item)
            for method, operation in _methods(item):
                pointer = pointer_join("#/webhooks", str(name), method)
                title = f"webhook {name} {method.upper()}"
                found[(str(name), method)] = _Operation(
                    method, str(name), pointer, operation, item, title
                )
        return found

    def callbacks(self, parent: _Operation) -> dict[tuple[str, str, str], _Operation]:
        """(callback name, URL expression, method) -> the operation of one callback."""
        found: dict[tuple[str, str, str], _Operation] = {}
        for name, raw_callback in (parent.node.get("callbacks") or {}).items():
            callback = self.follow(raw_callback)
            if not isinstance(callback, dict):
                continue
            for expression, raw_item in callback.items():
                item = self.follow(raw_item)
                for method, operation in _methods(item):
                    pointer = pointer_join(
                        parent.pointer, "callbacks", str(name), str(expression), method
                    )
                    title = f"callback {name} {method.upper()} {expression}"
                    found[(str(name), str(expression), method)] = _Operation(
                        method, str(expression), pointer, operation, item, title
                    )
        return found

    def parameters(self, operation: _Operation) -> dict[tuple[str, str], tuple[str, Any]]:
        """(in, name) -> (pointer, parameter); path parameters by position, not by name."""
        by_key: dict[tuple[str, str], tuple[str, Any]] = {}
        path_names = [name.strip("{}") for name in _PATH_PARAMETER.findall(operation.path)]
        path_pointer = operation.pointer.rsplit("/", 1)[0]
        sources = (
            (operation.path_item.get("parameters"), path_pointer),
            (operation.node.get("parameters"), operation.pointer),
        )
        for listed, base in sources:
            for index, raw in enumerate(listed or []):
                parameter = self.follow(raw)
                if not isinstance(parameter, dict):
                    continue
                place, name = str(parameter.get("in", "")), str(parameter.get("name", ""))
                if place == "header":
                    name = name.lower()
                if place == "path" and name in path_names:
                    name = f"#{path_names.index(name)}"
                by_key[(place, name)] = (pointer_join(base, "parameters", index), parameter)
        return by_key

    def headers(self, response: Any) -> dict[str, tuple[str, dict[str, Any]]]:
        """lower-case name -> (name, header) of a response's headers."""
        listed = response.get("headers") if isinstance(response, dict) else None
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for name, raw in (listed or {}).items():
            header = self.follow(raw)
            if isinstance(header, dict) and str(name).lower() != "content-type":
                found[str(name).lower()] = (str(name), header)
        return found

    def security_scheme(self, name: str) -> dict[str, Any]:
        schemes = (self.document.root.get("components") or {}).get("securitySchemes") or {}
        found = self.follow(schemes.get(name, {}))
        return found if isinstance(found, dict) else {}

    def security(self, operation: _Operation) -> set[Requirement]:
        """The alternatives of the operation's security (an empty one: anonymous callers)."""
        listed = operation.node.get("security", self.document.root.get("security"))
        if not listed:
            return {frozenset()}
        return {requirement(item) for item in listed if isinstance(item, dict)}


class _Comparison:
    """Compares the operations of two documents; schemas through `SchemaComparison`."""

    def __init__(self, old: _Side, new: _Side) -> None:
        self.old = old
        self.new = new
        self.schemas = SchemaComparison(old.views, new.views)

    def operation(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        yield from self._parameters(old, new)
        yield from self._request_body(old, new)
        yield from self._responses(old, new)
        yield from self._security(old, new)
        yield from self._callbacks(old, new)
        yield from self._operation_rules(old, new)

    def _operation_rules(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        """An operation's rule lists (`x-rules`), compared as a schema's are: without the
        entries' annotations (`x-source`)."""
        keywords = self.new.views.keywords
        for keyword in keywords.rule_lists:
            was = rule_list(old.node.get(keyword), keywords.annotations)
            now = rule_list(new.node.get(keyword), keywords.annotations)
            if was != now:
                before = was if isinstance(was, list) else []
                after = now if isinstance(now, list) else []
                removed = [entry for entry in before if entry not in after] or None
                added = [entry for entry in after if entry not in before] or None
                where = pointer_join(new.pointer, keyword)
                kind = "operation-rules-changed"
                yield Finding(kind, where, keyword, removed, added, "operation")

    def _callbacks(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        old_callbacks, new_callbacks = self.old.callbacks(old), self.new.callbacks(new)
        for key, callback in new_callbacks.items():
            if key not in old_callbacks:
                label = callback.label
                yield Finding("callback-added", callback.pointer, label, None, label, "operation")
            else:
                yield from _reversed(self.operation(old_callbacks[key], callback))
        for key, callback in old_callbacks.items():
            if key not in new_callbacks:
                label = callback.label
                yield Finding("callback-removed", callback.pointer, label, label, None, "operation")

    def _security(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        """Judged by the callers accepted: an alternative removed refuses its callers only when
        no remaining alternative accepts them (`{}` accepts everyone); one added accepts new
        callers only when no old alternative accepted them already."""
        old_security, new_security = self.old.security(old), self.new.security(new)
        where = pointer_join(new.pointer, "security")
        for alternative in sorted(new_security - old_security, key=shown):
            covered = any(implies(alternative, before) for before in old_security)
            kind = "security-alternative-added-covered" if covered else "security-alternative-added"
            label = shown(alternative)
            yield Finding(kind, where, f"security:{label}", None, label, "request")
        for alternative in sorted(old_security & new_security, key=shown):
            for name, _ in sorted(alternative):
                yield from self._security_scheme(name)
        for alternative in sorted(old_security - new_security, key=shown):
            covered = any(implies(alternative, after) for after in new_security)
            kind = (
                "security-alternative-removed-covered"
                if covered
                else "security-alternative-removed"
            )
            label = shown(alternative)
            yield Finding(kind, where, f"security:{label}", label, None, "request")

    def _security_scheme(self, name: str) -> Iterator[Finding]:
        """A scheme both versions require, but presented another way: its type, HTTP scheme
        (case-insensitive), header or query name, bearer format, OpenID Connect URL, or its
        OAuth flows and their URLs."""
        old_scheme = self.old.security_scheme(name)
        new_scheme = self.new.security_scheme(name)
        where = pointer_join("#/components/securitySchemes", name)
        for keyword in ("type", "scheme", "in", "name", "bearerFormat", "openIdConnectUrl"):
            was, now = old_scheme.get(keyword), new_scheme.get(keyword)
            if keyword == "scheme" and isinstance(was, str) and isinstance(now, str):
                same = was.lower() == now.lower()
            else:
                same = was == now
            if not same:
                yield Finding("security-scheme-changed", where, keyword, was, now, "request")
        old_flows, new_flows = _flows(old_scheme), _flows(new_scheme)
        for flow in sorted(set(old_flows) | set(new_flows)):
            flow_where = pointer_join(where, "flows", flow)
            if flow not in new_flows:
                yield Finding("security-flow-removed", flow_where, flow, flow, None, "request")
            elif flow not in old_flows:
                yield Finding("security-flow-added", flow_where, flow, None, flow, "request")
            else:
                for url in ("authorizationUrl", "tokenUrl", "refreshUrl"):
                    was, now = (old_flows[flow] or {}).get(url), (new_flows[flow] or {}).get(url)
                    if was != now:
                        detail = f"flows/{flow}/{url}"
                        yield Finding("security-scheme-changed", where, detail, was, now, "request")

    def _parameters(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        old_params, new_params = self.old.parameters(old), self.new.parameters(new)
        for key, (pointer, parameter) in new_params.items():
            label = f"{key[0]}:{parameter.get('name')}"
            if key not in old_params:
                kind = (
                    "parameter-added-required"
                    if parameter.get("required")
                    else "parameter-added-optional"
                )
                yield Finding(kind, pointer, label, None, parameter.get("name"), "request")
                continue
            old_pointer, old_parameter = old_params[key]
            del old_pointer
            if bool(old_parameter.get("required")) != bool(parameter.get("required")):
                kind = (
                    "parameter-became-required"
                    if parameter.get("required")
                    else "parameter-became-optional"
                )
                yield Finding(
                    kind,
                    pointer,
                    f"required:{label}",
                    bool(old_parameter.get("required")),
                    bool(parameter.get("required")),
                    "request",
                )
            for keyword in ("style", "explode"):
                if old_parameter.get(keyword) != parameter.get(keyword):
                    yield Finding(
                        "parameter-style-changed",
                        pointer,
                        f"{keyword}:{label}",
                        old_parameter.get(keyword),
                        parameter.get(keyword),
                        "request",
                    )
            if "schema" in old_parameter or "schema" in parameter:
                yield from self.schemas.schema(
                    old_parameter.get("schema", {}),
                    parameter.get("schema", {}),
                    "request",
                    pointer + "/schema",
                )
        for key, (pointer, parameter) in old_params.items():
            if key not in new_params:
                label = f"{key[0]}:{parameter.get('name')}"
                yield Finding(
                    "parameter-removed", pointer, label, parameter.get("name"), None, "request"
                )

    def _content(self, old: Any, new: Any, position: Position, pointer: str) -> Iterator[Finding]:
        old_content = old.get("content") or {} if isinstance(old, dict) else {}
        new_content = new.get("content") or {} if isinstance(new, dict) else {}
        for media in new_content:
            where = pointer_join(pointer, "content", media)
            if media not in old_content:
                yield Finding("media-type-added", where, f"media:{media}", None, media, position)
            else:
                old_schema = (old_content[media] or {}).get("schema", {})
                new_schema = (new_content[media] or {}).get("schema", {})
                yield from self.schemas.schema(old_schema, new_schema, position, where + "/schema")
        for media in old_content:
            if media not in new_content:
                where = pointer_join(pointer, "content", media)
                yield Finding("media-type-removed", where, f"media:{media}", media, None, position)

    def _request_body(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        old_body = self.old.follow(old.node.get("requestBody"))
        new_body = self.new.follow(new.node.get("requestBody"))
        where = pointer_join(new.pointer, "requestBody")
        if old_body is None and new_body is None:
            return
        if old_body is None:
            required = bool(new_body.get("required"))
            kind = "request-body-added-required" if required else "request-body-added-optional"
            yield Finding(kind, where, "requestBody", None, "requestBody", "request")
            return
        if new_body is None:
            yield Finding(
                "request-body-removed", where, "requestBody", "requestBody", None, "request"
            )
            return
        was, now = bool(old_body.get("required")), bool(new_body.get("required"))
        if was != now:
            kind = "request-body-became-required" if now else "request-body-became-optional"
            yield Finding(kind, where, "required", was, now, "request")
        yield from self._content(old_body, new_body, "request", where)

    def _responses(self, old: _Operation, new: _Operation) -> Iterator[Finding]:
        old_responses = {str(k).upper(): v for k, v in (old.node.get("responses") or {}).items()}
        new_responses = {str(k).upper(): v for k, v in (new.node.get("responses") or {}).items()}
        for code, response in new_responses.items():
            where = pointer_join(new.pointer, "responses", code)
            if code not in old_responses:
                success = code[:1] in ("1", "2", "3")
                kind = "response-status-added" if success else "response-error-status-added"
                yield Finding(kind, where, f"status:{code}", None, code, "response")
                continue
            old_response = self.old.follow(old_responses[code])
            new_response = self.new.follow(response)
            yield from self._content(old_response, new_response, "response", where)
            yield from self._headers(old_response, new_response, where)
        for code in old_responses:
            if code not in new_responses:
                where = pointer_join(old.pointer, "responses", code)
                yield Finding(
                    "response-status-removed", where, f"status:{code}", code, None, "response"
                )

    def _headers(self, old: Any, new: Any, pointer: str) -> Iterator[Finding]:
        """A response's headers, by name without case (`Content-Type` is not a header here)."""
        old_headers, new_headers = self.old.headers(old), self.new.headers(new)
        for key, (name, header) in new_headers.items():
            where = pointer_join(pointer, "headers", name)
            required = bool(header.get("required"))
            if key not in old_headers:
                kind = (
                    "response-header-added-required"
                    if required
                    else "response-header-added-optional"
                )
                yield Finding(kind, where, f"header:{key}", None, name, "response")
                continue
            old_header = old_headers[key][1]
            was = bool(old_header.get("required"))
            if was != required:
                kind = (
                    "response-header-became-required"
                    if required
                    else "response-header-became-optional"
                )
                yield Finding(kind, where, f"required:header:{key}", was, required, "response")
            for keyword in ("style", "explode"):
                if old_header.get(keyword) != header.get(keyword):
                    detail = f"{keyword}:header:{key}"
                    was_style, now_style = old_header.get(keyword), header.get(keyword)
                    yield Finding(
                        "response-header-style-changed",
                        where,
                        detail,
                        was_style,
                        now_style,
                        "response",
                    )
            if "schema" in old_header or "schema" in header:
                yield from self.schemas.schema(
                    old_header.get("schema", {}),
                    header.get("schema", {}),
                    "response",
                    where + "/schema",
                )
        for key, (name, _) in old_headers.items():
            if key not in new_headers:
                where = pointer_join(pointer, "headers", name)
                yield Finding(
                    "response-header-removed", where, f"header:{key}", name, None, "response"
                )


def compare_documents(
    old: Document,
    new: Document,
    *,
    paths: str | None = None,
    keywords: Keywords = PROJECT_KEYWORDS,
) -> DiffReport:
    """Every change from `old` to `new`, each judged for clients and servers; `keywords` says
    what the documents' `x-` keywords mean (this project's spec's by default)."""
    old_side, new_side = _Side(old, keywords), _Side(new, keywords)
    comparison = _Comparison(old_side, new_side)
    old_operations, new_operations = old_side.operations(paths), new_side.operations(paths)
    merged: dict[tuple[str, str, str], tuple[Finding, set[str], set[Position]]] = {}

    def record(finding: Finding, operation: str) -> None:
        key = (finding.kind, finding.location, finding.detail)
        entry = merged.setdefault(key, (finding, set(), set()))
        entry[1].add(operation)
        entry[2].add(finding.position)

    for key, new_operation in new_operations.items():
        old_operation = old_operations.get(key)
        if old_operation is None:
            record(
                Finding(
                    "operation-added",
                    new_operation.pointer,
                    "operation",
                    None,
                    new_operation.label,
                    "operation",
                ),
                new_operation.label,
            )
            continue
        for finding in comparison.operation(old_operation, new_operation):
            record(finding, new_operation.label)
    old_webhooks, new_webhooks = old_side.webhooks(), new_side.webhooks()
    for key, webhook in new_webhooks.items():
        if key not in old_webhooks:
            record(
                Finding(
                    "webhook-added", webhook.pointer, "webhook", None, webhook.label, "operation"
                ),
                webhook.label,
            )
            continue
        for finding in _reversed(comparison.operation(old_webhooks[key], webhook)):
            record(finding, webhook.label)
    for key, webhook in old_webhooks.items():
        if key not in new_webhooks:
            record(
                Finding(
                    "webhook-removed", webhook.pointer, "webhook", webhook.label, None, "operation"
                ),
                webhook.label,
            )
    for key, old_operation in old_operations.items():
        if key not in new_operations:
            record(
                Finding(
                    "operation-removed",
                    old_operation.pointer,
                    "operation",
                    old_operation.label,
                    None,
                    "operation",
                ),
                old_operation.label,
            )
    for hazard in added_hazards(old.root, new.root):
        what = f"generated clients read it wrong: {hazard.what}"
        finding = Finding(
            "generator-hazard-added", hazard.pointer, hazard.kind, None, what, "request"
        )
        schema = hazard.place.split(".")[0].removesuffix("[]")
        felt = [
            o.label
            for o in new_operations.values()
            if schema in schemas_reached(new.root, o.node, o.path_item)
        ]
        for side in hazard.sides or ("request",):
            for label in felt or [""]:
                record(replace(finding, position=side), label)
    changes = []
    for (kind, location, detail), (finding, operations, positions) in merged.items():
        ordered_positions = sorted(positions)
        clients, servers = judged(kind, ordered_positions)
        changes.append(
            Change(
                id=change_id(kind, location, detail),
                kind=kind,
                location=location,
                operations=sorted(o for o in operations if o),
                old=finding.old,
                new=finding.new,
                clients=clients,
                servers=servers,
                message=describe(finding, ordered_positions),
                positions=list(ordered_positions),
                detail=detail,
            )
        )
    changes.sort(key=lambda change: (change.location, change.kind, change.id))
    semver = advise_semver(changes, old.version, new.version)
    return DiffReport(old.source, new.source, changes, semver)
