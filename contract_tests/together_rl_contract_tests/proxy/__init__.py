"""The validating, recording proxy and its replay: check live traffic against the spec.

``python -m together_rl_contract_tests.proxy --upstream URL`` forwards every request unchanged and
checks each exchange against the spec (with the suite's own reading of it,
``together_rl_contract_tests._spec``); ``python -m together_rl_contract_tests.proxy replay
CASSETTE`` serves a recorded run back offline. Console scripts: ``together-rl-proxy``
(:func:`proxy_main`) and ``together-rl-replay`` (:func:`replay_main`). See docs/proxy.md.

In a process of your own: :func:`proxy_in_thread` runs the proxy (its ``monitor`` is a
:class:`TrafficMonitor`, whose ``checks`` are a :class:`TrafficChecks`), :func:`write_markdown`
and :func:`write_junit` write its report; :class:`BodyRecorder` keeps a forwarded body as it
streams, up to :data:`DEFAULT_RECORD_LIMIT` bytes unless told otherwise.
"""

from together_rl_contract_tests.proxy._body_recorder import DEFAULT_RECORD_LIMIT, BodyRecorder
from together_rl_contract_tests.proxy._cassette import CassetteWriter, read_cassette
from together_rl_contract_tests.proxy._cli import main, proxy_main, replay_main
from together_rl_contract_tests.proxy._exchange import Exchange, Violation
from together_rl_contract_tests.proxy._exchange_checks import check_exchange
from together_rl_contract_tests.proxy._forwarding import ValidatingProxy
from together_rl_contract_tests.proxy._in_thread import (
    RunningProxy,
    proxy_in_thread,
    replay_in_thread,
)
from together_rl_contract_tests.proxy._replay import ReplayServer
from together_rl_contract_tests.proxy._report import write_junit, write_markdown
from together_rl_contract_tests.proxy._traffic_checks import TrafficChecks
from together_rl_contract_tests.proxy._traffic_monitor import TrafficMonitor

__all__ = [
    "DEFAULT_RECORD_LIMIT",
    "BodyRecorder",
    "CassetteWriter",
    "Exchange",
    "ReplayServer",
    "RunningProxy",
    "TrafficChecks",
    "TrafficMonitor",
    "ValidatingProxy",
    "Violation",
    "check_exchange",
    "main",
    "proxy_in_thread",
    "proxy_main",
    "read_cassette",
    "replay_in_thread",
    "replay_main",
    "write_junit",
    "write_markdown",
]
