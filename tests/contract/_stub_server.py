"""A loopback HTTP server answering every GET the same way, and the secret key the contract
suite's CLI tests send to it (not a test module)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["KEY", "http_server"]

KEY = "sk-conformance-SECRET-0123456789abcdef"


@contextmanager
def http_server(status: int, content_type: str, body: Callable[[str], bytes]) -> Iterator[str]:
    """A loopback server answering every GET with ``status`` and ``body(authorization)``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            payload = body(self.headers.get("Authorization", ""))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
