"""Drivers of the client kit written in Python: `python -m together_rl_client_kit.drivers.wrapper`
(this project's wrapper, `together_rl`) and `python -m together_rl_client_kit.drivers.official_sdk`
(the official SDK `together==3.1.1`). `serve_driver` is the protocol loop they share, for a port
author's own Python driver."""

from __future__ import annotations

from ._protocol import DriverCallError, serve_driver

__all__ = ["DriverCallError", "serve_driver"]
