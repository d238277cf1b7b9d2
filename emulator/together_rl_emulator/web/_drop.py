"""The `drop_after_commit` fault as an ASGI extension (the ASGI spec's "Extensions" pattern).

ASGI has no message that aborts a connection, and a server answers 500 for an app that returns
without a response. So the server layers this package owns put `DROP_CONNECTION` in
`scope["extensions"]` (`serve_with_drop`: over uvicorn in `_embedded.py`, which the CLI uses too;
in this process in `_in_process.py`), and the app, having committed the request, sends the event
`{"type": DROP_CONNECTION}` (`drop_connection`): the server then closes the connection without an
answer. The app never touches a server's internals and never raises a client library's error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["DROP_CONNECTION", "ConnectionDropped", "Drop", "drop_connection", "serve_with_drop"]

#: The extension's name in `scope["extensions"]`, and the type of the event that asks for it.
DROP_CONNECTION = "together_rl_emulator.drop_connection"


class ConnectionDropped(OSError):
    """Raised by an in-process server's `send` once it dropped the connection (the ASGI spec: a
    `send` on a closed connection raises a server-specific subclass of OSError)."""


#: How a server drops the connection of the request whose `receive` it is given.
Drop = Callable[[Receive], Awaitable[None]]


def serve_with_drop(app: ASGIApp, drop_for: Callable[[], Drop | None]) -> ASGIApp:
    """`app` behind a server layer with the extension: `drop_for()`, called as a request starts,
    says how this server drops that request's connection (None: it cannot)."""

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        drop = drop_for() if scope["type"] == "http" else None
        if drop is None:
            await app(scope, receive, send)
            return

        async def send_or_drop(message: Message) -> None:
            if message["type"] == DROP_CONNECTION:
                await drop(receive)
            else:
                await send(message)

        extensions = {**(scope.get("extensions") or {}), DROP_CONNECTION: {}}
        await app({**scope, "extensions": extensions}, receive, send_or_drop)

    return serve


async def drop_connection(scope: Scope, send: Send) -> None:
    """Ask the server to close this request's connection without an answer."""
    if DROP_CONNECTION not in (scope.get("extensions") or {}):
        raise RuntimeError(
            "drop_after_commit needs a server that can drop a connection (the ASGI extension"
            f" {DROP_CONNECTION!r}): serve the emulator with serve_in_thread / serve_emulator /"
            " the together-rl-emulator command, or in-process through InProcessTransport /"
            " AsyncInProcessTransport"
        )
    await send({"type": DROP_CONNECTION})
