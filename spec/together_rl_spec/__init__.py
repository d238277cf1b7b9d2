"""The API description, shipped once in the installed tree, and the one reader of it.

`openapi.yaml` beside this module is the only copy of the spec a wheel holds (in a checkout, a
link to `spec/openapi.yaml`). Every package that reads the document (the emulator, the contract
suite and its proxy, the client kit, the scripts) gets it from here: its bytes
(:func:`spec_bytes`), the parsed document (:func:`spec_document`), local `$ref`s, schemas,
enums, operations, routes (literal segments before parameters, :func:`match_route`) and the
numbers the spec states (:func:`upload_threshold_bytes`). The one `$ref` resolver,
:class:`Resolver` (JSON pointers, chains, other files beside the document, cycles reported), and
:func:`load_document` (a path or a git revision of any document) serve apidiff too. How each
one validates and judges stays its own. The wrapper reads none of it: it reads the generated
client and `_fields.py`, which `scripts/derive_fields.py` derives from here.
`python -m together_rl_spec` writes the document to stdout, for a port's build that needs it as
a file.
"""

from __future__ import annotations

from ._files import SPEC_FILE, spec_bytes
from ._loading import (
    DEFAULT_SPEC_PATH,
    Document,
    DocumentError,
    load_document,
    parse_data,
    parse_text,
)
from ._reading import (
    UPLOAD_THRESHOLD_KEYWORD,
    Route,
    enum_value,
    enum_values,
    find_operation,
    format_path,
    match_route,
    parse_document,
    resolve_ref,
    routes,
    schema,
    server_path,
    spec_document,
    upload_threshold_bytes,
)
from ._refs import ReadBeside, Resolver, escape_pointer, pointer_join

__all__ = [
    "DEFAULT_SPEC_PATH",
    "SPEC_FILE",
    "UPLOAD_THRESHOLD_KEYWORD",
    "Document",
    "DocumentError",
    "ReadBeside",
    "Resolver",
    "Route",
    "enum_value",
    "enum_values",
    "escape_pointer",
    "find_operation",
    "format_path",
    "load_document",
    "match_route",
    "parse_data",
    "parse_document",
    "parse_text",
    "pointer_join",
    "resolve_ref",
    "routes",
    "schema",
    "server_path",
    "spec_bytes",
    "spec_document",
    "upload_threshold_bytes",
]
