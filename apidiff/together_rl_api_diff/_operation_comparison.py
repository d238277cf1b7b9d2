"""Compares one operation of two documents: parameters, bodies, responses and their headers,
security, callbacks and rule lists; schemas through `SchemaComparison`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from together_rl_spec import pointer_join

from ._changes import Finding
from ._comparing_schemas import SchemaComparison
from ._document_operations import DocumentSide, Operation
from ._judging import Position
from ._schemas import rule_list
from ._security import implies, shown

__all__ = ["OperationComparison", "reversed_findings"]


#: a webhook's or callback's request is sent by the server and read by the client: the
#: positions of a response
_REVERSED: dict[Position, Position] = {
    "request": "response",
    "response": "request",
    "operation": "operation",
}


def reversed_findings(findings: Iterator[Finding]) -> Iterator[Finding]:
    for finding in findings:
        yield replace(finding, position=_REVERSED[finding.position])


def _flows(scheme: dict[str, Any]) -> dict[str, Any]:
    flows = scheme.get("flows")
    return flows if isinstance(flows, dict) else {}


class OperationComparison:
    """Compares the operations of two documents; schemas through `SchemaComparison`."""

    def __init__(self, old: DocumentSide, new: DocumentSide) -> None:
        self.old = old
        self.new = new
        self.schemas = SchemaComparison(old.views, new.views)

    def operation(self, old: Operation, new: Operation) -> Iterator[Finding]:
        yield from self._parameters(old, new)
        yield from self._request_body(old, new)
        yield from self._responses(old, new)
        yield from self._security(old, new)
        yield from self._callbacks(old, new)
        yield from self._operation_rules(old, new)

    def _operation_rules(self, old: Operation, new: Operation) -> Iterator[Finding]:
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

    def _callbacks(self, old: Operation, new: Operation) -> Iterator[Finding]:
        old_callbacks, new_callbacks = self.old.callbacks(old), self.new.callbacks(new)
        for key, callback in new_callbacks.items():
            if key not in old_callbacks:
                label = callback.label
                yield Finding("callback-added", callback.pointer, label, None, label, "operation")
            else:
                yield from reversed_findings(self.operation(old_callbacks[key], callback))
        for key, callback in old_callbacks.items():
            if key not in new_callbacks:
                label = callback.label
                yield Finding("callback-removed", callback.pointer, label, label, None, "operation")

    def _security(self, old: Operation, new: Operation) -> Iterator[Finding]:
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

    def _parameters(self, old: Operation, new: Operation) -> Iterator[Finding]:
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

    def _request_body(self, old: Operation, new: Operation) -> Iterator[Finding]:
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

    def _responses(self, old: Operation, new: Operation) -> Iterator[Finding]:
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
