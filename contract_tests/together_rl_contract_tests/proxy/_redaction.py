"""What the proxy removes before an exchange is kept anywhere: the caller's key in every encoding a
client might use, and the credentials of presigned URLs.

The key is whatever the caller sent as a credential (``Authorization``, ``Proxy-Authorization``,
``X-Api-Key``, cookie values, the user and password of Basic auth, query parameters such as
``api_key``), searched in each of the forms it can take on the wire: as sent, percent-encoded
(any hex case, ``+`` for a space, twice encoded), JSON-escaped (``\\/``, ``\\u00XX``), those
escapes mixed character by character, and inside base64 at each of its three alignments.
Presigned URLs keep their host, path and harmless parameters; the values of the parameters that
grant access are redacted wherever a URL appears (a body, a header such as ``Location``, a query
string, nested percent-encoded in another URL).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from urllib.parse import parse_qsl, quote, quote_plus

__all__ = [
    "REDACTED",
    "URL_CREDENTIAL_PARAMETERS",
    "Redactor",
    "key_pattern",
    "key_variants",
    "presigned_urls",
    "redact_presigned",
]

REDACTED = "<redacted>"
_REDACTED_BYTES = REDACTED.encode()

#: Query parameters whose value grants access: the emulator's ``token``, S3/R2 and GCS
#: signatures and credentials, CloudFront's signed URLs, Azure's SAS signature.
URL_CREDENTIAL_PARAMETERS = (
    "token", "signature", "sig", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    "x-goog-signature", "x-goog-credential", "awsaccesskeyid", "googleaccessid", "key-pair-id",
    "policy",
)  # fmt: skip
_NAMES = "|".join(re.escape(name) for name in URL_CREDENTIAL_PARAMETERS)
#: ``?token=v`` / ``&token=v`` as sent, percent-encoded inside another URL (``%3Ftoken%3Dv``) or
#: JSON-escaped (``\u0026token=v``); the value ends where the parameter does in that form.
_CREDENTIAL = re.compile(
    rb"((?:[?&;]|%3[fF]|%26|\\u0026)(?:" + _NAMES.encode() + rb")(?:=|%3[dD]))"
    rb"(?:(?!%26|\\u0026)[^&;\"'\s<>\\])*",
    re.IGNORECASE,
)
#: An absolute URL, also as a JSON encoder may escape it (``\/``, ``\u0026``), or redacted.
_URL = re.compile(rb"https?:(?:\\?/){2}(?:[^\s\"'<>\\]|\\/|\\u0026|<redacted>)+", re.IGNORECASE)
#: Query parameters a client may carry its key in.
_KEY_PARAMETERS = frozenset({"api_key", "apikey", "api-key", "key", "access_token", "auth"})
_SECRET_HEADERS = ("authorization", "proxy-authorization", "x-api-key")
_MIN_SECRET = 8  # shorter values are not keys, and replacing them would mangle ordinary text


def presigned_urls(data: bytes) -> list[tuple[int, int, str]]:
    """Each absolute URL in ``data`` that carries a credential parameter: ``(start, end, url)``,
    the URL with JSON escapes undone."""
    found = []
    for match in _URL.finditer(data):
        if _CREDENTIAL.search(match.group()):
            url = match.group().replace(b"\\/", b"/").replace(b"\\u0026", b"&")
            found.append((match.start(), match.end(), url.decode("latin-1")))
    return found


def redact_presigned(data: bytes) -> bytes:
    """``data`` with the value of every credential parameter of a URL replaced by ``<redacted>``."""
    if b"=" not in data and b"%" not in data:  # (a search for "%3" is slow over digits)
        return data
    return _CREDENTIAL.sub(rb"\1" + _REDACTED_BYTES, data)


def key_pattern(secret: str) -> re.Pattern[bytes]:
    """``secret`` with each character that is not a letter or digit in any of its escaped forms,
    mixed as a client's encoder mixes them: as is, ``%XX`` (either case, or encoded twice as
    ``%25XX``), ``\\uXXXX`` (either case), ``\\/`` for ``/``, ``+`` for a space."""
    parts = []
    for char in secret:
        if char.isascii() and char.isalnum():
            parts.append(re.escape(char.encode()))
            continue
        raw = char.encode()
        forms = [re.escape(raw)]
        for hexed in (
            "".join(f"%(?:25)?{b:02x}" for b in raw),
            "".join(f"%(?:25)?{b:02X}" for b in raw),
        ):
            forms.append(hexed.encode())
        if char.isascii():
            forms.append(rb"(?i:\\u00" + f"{ord(char):02x}".encode() + rb")")
        if char == "/":
            forms.append(rb"\\/")
        if char == " ":
            forms.append(rb"\+")
        parts.append(b"(?:" + b"|".join(forms) + b")")
    return re.compile(b"".join(parts))


def key_variants(secret: str) -> set[bytes]:
    """The forms ``secret`` can take in a request or an answer (see the module's docstring)."""
    return _escaped_forms(secret) | _base64_forms(secret)


def _escaped_forms(secret: str) -> set[bytes]:
    forms = {secret, quote(secret, safe=""), quote(secret, safe="/"), quote_plus(secret)}
    forms |= {quote(form, safe="") for form in list(forms)}  # encoded twice
    forms |= {_lower_hex(form) for form in list(forms) if "%" in form}
    escaped = json.dumps(secret)[1:-1]
    forms |= {escaped, escaped.replace("/", "\\/")}
    forms.add("".join(c if c.isalnum() else f"\\u{ord(c):04x}" for c in secret))
    forms.add("".join(c if c.isalnum() else f"\\u{ord(c):04X}" for c in secret))
    return {form.encode() for form in forms if len(form) >= _MIN_SECRET}


def _base64_forms(secret: str) -> set[bytes]:
    """The key's bytes in base64 at each alignment a longer text (``user:key``) may give it."""
    raw, forms = secret.encode(), set()
    for offset in range(3):
        aligned = raw[offset:][: (len(raw) - offset) // 3 * 3]
        for encoded in (base64.b64encode(aligned), base64.urlsafe_b64encode(aligned)):
            if len(encoded) >= _MIN_SECRET:
                forms.add(encoded)
    return forms


def _anchor(secret: str) -> bytes:
    runs = re.findall(rb"[A-Za-z0-9]+", secret.encode()) or [b""]
    return max(runs, key=len)


def _lower_hex(encoded: str) -> str:
    return re.sub("%[0-9A-F]{2}", lambda hexed: hexed[0].lower(), encoded)


class Redactor:
    """Removes one request's credentials (and every presigned URL's) from what is kept."""

    def __init__(self, secrets: set[str]) -> None:
        kept = sorted({s for s in secrets if len(s) >= _MIN_SECRET}, key=len, reverse=True)
        #: Per secret: a run of its letters and digits, which every escaped form keeps as is
        #: (a body without it holds none of them; base64 is searched apart), and its forms.
        self._escaped = [
            (_anchor(secret), sorted(_escaped_forms(secret), key=len, reverse=True),
             key_pattern(secret))
            for secret in kept
        ]  # fmt: skip
        self._base64 = sorted(
            {form for secret in kept for form in _base64_forms(secret)}, key=len, reverse=True
        )

    @classmethod
    def for_request(cls, headers: list[tuple[str, str]], query: str) -> Redactor:
        """The credentials in a request's headers and query string."""
        secrets: set[str] = set()
        for name, value in headers:
            name = name.lower()
            if name in _SECRET_HEADERS:  # the token after a scheme covers the whole value
                scheme, _, token = value.strip().partition(" ")
                secrets.add(token.strip() or scheme)
                if scheme.lower() == "basic":
                    secrets |= _basic_credentials(token.strip())
            elif name == "cookie":
                secrets |= {v.strip() for _, _, v in (c.partition("=") for c in value.split(";"))}
        for name, value in parse_qsl(query, keep_blank_values=True):
            if name.lower() in _KEY_PARAMETERS:
                secrets.add(value)
        return cls({s for s in secrets if s})

    def bytes(self, data: bytes) -> bytes:
        for anchor, forms, pattern in self._escaped:
            if anchor not in data:
                continue
            for form in forms:
                if form in data:
                    data = data.replace(form, _REDACTED_BYTES)
            data = pattern.sub(_REDACTED_BYTES, data)  # the escapes mixed
        for form in self._base64:
            if form in data:
                data = data.replace(form, _REDACTED_BYTES)
        return redact_presigned(data)

    def text(self, text: str) -> str:
        return self.bytes(text.encode("latin-1", "replace")).decode("latin-1")

    def headers(self, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(name, self.text(value)) for name, value in headers]


def _basic_credentials(token: str) -> set[str]:
    try:
        user, _, password = base64.b64decode(token, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return set()
    return {f"{user}:{password}", user, password}
