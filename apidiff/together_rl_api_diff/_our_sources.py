"""Our rule's `x-source` for a change of the drift comparison: the place in the spec as
written that a change's location names (an upstream path or parameter index read as ours), and
the source of the keyword the change is about there."""

from __future__ import annotations

from typing import Any

from together_rl_spec import Document

from ._changes import Change
from ._schema_pairing import follow_ref, operation_index, resolver

__all__ = ["OurSources"]

#: Changes the comparison locates at the old document's (our) operation, not the new one's.
_OUR_POINTER_KINDS = frozenset(
    {"operation-removed", "parameter-removed", "response-status-removed"}
)
#: The keyword of our rule a change is about, where its detail does not say it.
_KEYWORD_OF_KIND = {
    "enum": "enum",
    "pattern": "pattern",
    "additional-properties": "additionalProperties",
    "property-became": "required",
    "parameter-became": "required",
    "request-body-became": "required",
}


class OurSources:
    """Reads, for a change, the `x-source` of our rule at its place in the spec as written."""

    def __init__(self, spec: Document, ours: Document, theirs: Document) -> None:
        """`spec` as written, `ours` and `theirs` as compared."""
        self.spec = spec.root
        self.theirs = theirs.root
        self._spec_refs = resolver(spec)
        self._their_refs = resolver(theirs)
        our_operations = operation_index(ours)
        # (their path, method) -> our path
        self.paths = {
            (their_path, method): our_operations[(method, url)][0]
            for (method, url), (their_path, _) in operation_index(theirs).items()
            if (method, url) in our_operations
        }

    def _tokens(self, change: Change) -> list[str]:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in change.location.split("/")[1:]]
        if len(tokens) < 2 or tokens[0] != "paths" or change.kind in _OUR_POINTER_KINDS:
            return tokens
        their_path = tokens[1]
        method = tokens[2] if len(tokens) > 2 else ""
        our_path = self.paths.get((their_path, method))
        if our_path is None:
            return tokens
        if "parameters" in tokens[2:4]:
            index = tokens.index("parameters", 2)
            item = self.theirs["paths"][their_path]
            base = item[method] if index == 3 else item
            tokens[index + 1] = self._our_parameter(base, tokens[index + 1], our_path, method)
        tokens[1] = our_path
        return tokens

    def _our_parameter(self, base: dict[str, Any], index: str, our_path: str, method: str) -> str:
        """Our operation's index of the parameter at `index` of theirs (same `in` and name)."""
        try:
            theirs = follow_ref(self._their_refs, base["parameters"][int(index)])[0]
        except (KeyError, IndexError, ValueError):
            return index
        listed = (self.spec["paths"][our_path].get(method) or {}).get("parameters") or []
        for position, raw in enumerate(listed):
            ours = follow_ref(self._spec_refs, raw)[0]
            if (ours.get("in"), str(ours.get("name")).lower()) == (
                theirs.get("in"),
                str(theirs.get("name")).lower(),
            ):
                return str(position)
        return index

    def _walk(self, tokens: list[str]) -> list[dict[str, Any]]:
        """The node of each token on the way to the place, each `$ref` followed (deepest last;
        `{}` for a list)."""
        nodes: list[dict[str, Any]] = []
        node: Any = self.spec
        for token in tokens:
            node = follow_ref(self._spec_refs, node)[0]
            if isinstance(node, dict) and token not in node:
                node = next(
                    (
                        member
                        for member in (
                            follow_ref(self._spec_refs, m)[0] for m in node.get("allOf") or []
                        )
                        if isinstance(member, dict) and token in member
                    ),
                    node,
                )
            if not isinstance(node, dict | list):
                return nodes
            try:
                node = node[int(token)] if isinstance(node, list) else node[token]
            except (KeyError, IndexError, ValueError):
                return nodes
            node = follow_ref(self._spec_refs, node)[0]
            nodes.append(node if isinstance(node, dict) else {})
        return nodes

    def source(self, change: Change, *, upstream_only: bool) -> str | None:
        """Our rule's `x-source` at the change's place; for a change only the upstream has
        (`upstream_only`), only where we state the same keyword otherwise."""
        keyword = next(
            (kw for prefix, kw in _KEYWORD_OF_KIND.items() if change.kind.startswith(prefix)),
            change.detail
            if change.kind.startswith(("bound-", "rule-", "default-", "operation-rules-"))
            else None,
        )
        if upstream_only and keyword is None:
            return None  # something only upstream has: no rule of ours
        tokens = self._tokens(change)
        if change.kind == "property-renamed":
            tokens[-1] = str(change.old)  # the location names the upstream's property
        nodes = self._walk(tokens)
        if len(nodes) < len(tokens):  # the place is not ours
            return None
        place = nodes[-1]
        # the object holding the place: past `properties` for a property
        above = 3 if len(tokens) > 1 and tokens[-2] == "properties" else 2
        parent = nodes[-above] if len(nodes) >= above else {}
        if keyword is None and change.kind.startswith("property-"):
            # a property's own rules, else the `required` that lists it
            found = _source_in(place, None)
            if found is None and tokens[-1] in (parent.get("required") or []):
                found = _source_in(parent, "required")
            return found
        if keyword == "required":
            return _source_in(place, keyword) or _source_in(parent, keyword)
        if change.kind.startswith("operation-rules-"):
            return _source_in(parent, keyword)  # the place is the list, its holder the operation
        if keyword is not None and keyword not in place and tokens[-2:-1] in (["oneOf"], ["anyOf"]):
            # the variant's index is the upstream's: ours is the member that has the rule
            holder = nodes[-3] if len(nodes) >= 3 else {}
            members = [follow_ref(self._spec_refs, m)[0] for m in holder.get(tokens[-2]) or []]
            having = [m for m in members if isinstance(m, dict) and keyword in m]
            place = having[0] if len(having) == 1 else place
        return _source_in(place, keyword)


def _source_in(node: dict[str, Any], keyword: str | None) -> str | None:
    if keyword == "x-rules" and isinstance(node.get("x-rules"), list):
        found = sorted({str(e.get("x-source")) for e in node["x-rules"] if isinstance(e, dict)})
        return "; ".join(found) or None
    source = node.get("x-source")
    if keyword is not None and keyword not in node:
        return None  # we have no such rule here
    if isinstance(source, str):
        return source
    if isinstance(source, dict):
        if keyword is not None:
            value = source.get(keyword)
            return value if isinstance(value, str) else None
        return "; ".join(sorted({str(value) for value in source.values()})) or None
    return None
