"""The API description, shipped once in the installed tree, and the one reader of it.

`openapi.yaml` beside this module is the only copy of the spec a wheel holds (in a checkout, a
link to `spec/openapi.yaml`). Every package that reads the document (the emulator, the contract
suite and its proxy, the client kit, the scripts) gets it from here: its bytes
(:func:`spec_bytes`), the parsed document as the wire reads it (:func:`spec_document`;
:func:`wire_document` gives an integer with `x-decimal-string` its string form too), local
`$ref`s, schemas, enums, operations, routes (one :class:`Route` per operation, literal segments
before parameters: :func:`match_route`), the server path (:func:`server_path`), the values a
client may choose (:func:`choices`, :func:`loss_types`, :func:`params_keys`) and the numbers the
spec states (:func:`upload_threshold_bytes`). One YAML loader (:func:`parse_data`) reads every
document; one `Document` type (:class:`Document`) is a document read from a file or a revision,
and the reading functions take its root mapping (:data:`SpecRoot`).
The one `$ref` resolver,
:class:`Resolver` (JSON pointers, chains, other files beside the document, cycles reported), and
:func:`load_document` (a path or a git revision of any document) serve apidiff too. How each
one validates and judges stays its own. The wrapper reads none of it: it reads the generated
client and `_fields.py`, which `scripts/derive_fields.py` derives from here.
`python -m together_rl_spec` writes the document to stdout, for a port's build that needs it as
a file.
"""

from __future__ import annotations

from . import _facts, _reading, _routes
from ._facts import *  # noqa: F403 (its __all__ is the enum facts)
from ._files import SPEC_FILE, spec_bytes
from ._loading import (
    DEFAULT_SPEC_PATH,
    Document,
    DocumentError,
    load_document,
    parse_data,
    parse_text,
)
from ._reading import *  # noqa: F403 (its __all__ is the reading API)
from ._refs import ReadBeside, Resolver, escape_pointer, pointer_join
from ._routes import *  # noqa: F403 (its __all__ is the routes and the server path)
from ._wire import DECIMAL_STRING_KEYWORD, JSON_INTEGER_KEYWORD, wire_document, wire_schema

__all__ = [
    "SPEC_FILE",
    "spec_bytes",
    "DEFAULT_SPEC_PATH",
    "Document",
    "DocumentError",
    "load_document",
    "parse_data",
    "parse_text",
    "ReadBeside",
    "Resolver",
    "escape_pointer",
    "pointer_join",
    "DECIMAL_STRING_KEYWORD",
    "JSON_INTEGER_KEYWORD",
    "wire_document",
    "wire_schema",
    *_reading.__all__,
    *_routes.__all__,
    *_facts.__all__,
]
