"""The hostile requests only a raw socket sends (loopback only): malformed request lines, bad
Content-Length and chunked framing, literal `..` segments, control bytes, oversized headers."""

# ruff: noqa: E501  (the corpus / report lines are data: one case or figure per line)

from __future__ import annotations

from ._hostile_cases import (
    EITHER,
    EMULATOR,
    NO_ANSWER,
    PARSER,
    SERVED,
    HostileCase,
    json_bytes,
    valid_fb_body,
)

__all__ = ["build_raw_corpus"]


def build_raw_corpus(host: str) -> list[HostileCase]:
    """Requests only a raw socket sends (loopback only). `{auth}` and ids are filled in later."""
    head = f"Host: {host}\r\nAuthorization: Bearer {{auth}}\r\n"

    def raw(name: str, text: str | bytes, by: str | tuple[str, ...] = PARSER) -> HostileCase:
        data = text.encode() if isinstance(text, str) else text
        answered_by = (by,) if isinstance(by, str) else by
        return HostileCase(name, "raw HTTP", raw=data, idempotency_key=False,
                           answered_by=answered_by)  # fmt: skip

    def fb_with_key(name: str, key: bytes) -> HostileCase:
        body = json_bytes(valid_fb_body())
        head_bytes = (f"POST /v1/rl/training-sessions/{{session_id}}/operations/forward-backward"
                      f" HTTP/1.1\r\n{head}Content-Type: application/json\r\n"
                      f"Content-Length: {len(body)}\r\n").encode()  # fmt: skip
        data = head_bytes + b"Idempotency-Key: " + key + b"\r\n\r\n" + body
        return HostileCase(name, "headers", raw=data, idempotency_key=False)

    fb_path = "/v1/rl/training-sessions/{session_id}/operations/forward-backward"
    return [
        fb_with_key("Idempotency-Key of spaces", b"   "),
        fb_with_key("Idempotency-Key with a tab", b"a\tb"),
        fb_with_key("Idempotency-Key non-ASCII (UTF-8)", "clé-🚀".encode()),
        fb_with_key("Idempotency-Key non-ASCII (Latin-1)", "clé".encode("latin-1")),
        fb_with_key("Idempotency-Key of 256 chars", b"k" * 256),
        raw(
            "literal .. segments to stats",
            f"GET /v1/rl/training-sessions/../../_emulator/stats HTTP/1.1\r\n{head}\r\n",
            by=EMULATOR,
        ),
        raw(
            "literal .. in session id",
            f"GET /v1/rl/training-sessions/..%2F.. HTTP/1.1\r\n{head}\r\n",
            by=EMULATOR,
        ),
        raw("garbage request line", "GARBAGE\r\n\r\n"),
        raw("HTTP/0.9 style", "GET /v1/rl/training-sessions\r\n\r\n"),
        raw(
            "unknown HTTP version (h11 serves it as HTTP/1.1)",
            f"GET /v1/rl/training-sessions HTTP/9.9\r\n{head}\r\n",
            by=SERVED,
        ),
        raw("space in path", f"GET /v1/rl/training sessions HTTP/1.1\r\n{head}\r\n"),
        raw("control byte in path", f"GET /v1/rl/training-sessions/\x01 HTTP/1.1\r\n{head}\r\n"),
        raw(
            "non-numeric Content-Length",
            f"POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: k1\r\nContent-Length: abc\r\n\r\n{{}}",
        ),
        raw(
            "negative Content-Length",
            f"POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: k2\r\nContent-Length: -5\r\n\r\n{{}}",
        ),
        raw(
            "two different Content-Lengths",
            f"POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: k3\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}",
        ),
        raw(
            "Content-Length over the limit",
            f"POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: k4\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n{{",
            by=EMULATOR,
        ),
        raw(
            "bad chunked encoding",
            f"POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: k5\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n",
        ),
        raw(
            "chunked body over the limit",
            (
                f"POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: k6\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
                + b"".join(b"10000\r\n" + b" " * 0x10000 + b"\r\n" for _ in range(5))
                + b"1\r\n{\r\n0\r\n\r\n"
            ),
            by=EMULATOR,
        ),
        raw(
            "header without colon",
            f"GET /v1/rl/training-sessions HTTP/1.1\r\n{head}NoColonHere\r\n\r\n",
        ),
        raw(
            "header name with space",
            f"GET /v1/rl/training-sessions HTTP/1.1\r\n{head}Bad Header: x\r\n\r\n",
        ),
        HostileCase(
            "raw header of 70 KB",
            "oversized headers",
            idempotency_key=False,
            raw=f"GET /v1/rl/training-sessions HTTP/1.1\r\n{head}X-Big: {'y' * 70_000}\r\n\r\n".encode(),
            answered_by=EITHER,
        ),
        HostileCase(
            "raw 500 headers of 100 bytes",
            "oversized headers",
            idempotency_key=False,
            raw=(
                f"GET /v1/rl/training-sessions HTTP/1.1\r\n{head}"
                + "".join(f"X-H{i}: {'v' * 100}\r\n" for i in range(500))
                + "\r\n"
            ).encode(),
            answered_by=EITHER,
        ),
        raw(
            "Authorization of 40 KB",
            f"GET /v1/rl/training-sessions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {'k' * 40_000}\r\n\r\n",
            by=EITHER,
        ),
        raw(
            "non-ASCII value of an unused header (RFC 9110 obs-text)",
            f"GET /v1/rl/training-sessions HTTP/1.1\r\n{head}X-Uni: ".encode()
            + "héllo🚀".encode()
            + b"\r\n\r\n",
            by=SERVED,
        ),
        raw(
            "Idempotency-Key with NUL",
            f"POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: a\x00b\r\nContent-Length: 2\r\n\r\n{{}}",
        ),
        raw(
            "missing Host",
            "GET /v1/rl/training-sessions HTTP/1.1\r\nAuthorization: Bearer {auth}\r\n\r\n",
        ),
        raw("method FOO", f"FOO /v1/rl/training-sessions HTTP/1.1\r\n{head}\r\n", EMULATOR),
        raw("TRACE", f"TRACE /v1/rl/training-sessions HTTP/1.1\r\n{head}\r\n", EMULATOR),
        raw("OPTIONS", f"OPTIONS /v1/rl/training-sessions HTTP/1.1\r\n{head}\r\n", EMULATOR),
        raw("CONNECT", f"CONNECT 127.0.0.1:22 HTTP/1.1\r\n{head}\r\n", EMULATOR),
        raw(
            "absolute URL of another host",
            f"GET http://example.com/v1/rl/training-sessions HTTP/1.1\r\n{head}\r\n",
            by=EMULATOR,
        ),
        raw(
            "truncated body (Content-Length 50, 10 sent)",
            f'POST {fb_path} HTTP/1.1\r\n{head}Idempotency-Key: k7\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{{"samples"',
            by=NO_ANSWER,  # the client shuts its side: nobody is left to answer
        ),
    ]
