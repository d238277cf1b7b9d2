"""``python -m together_rl_contract_tests.proxy --upstream URL`` (the proxy) or ``python -m
together_rl_contract_tests.proxy replay CASSETTE`` (the replay):
:func:`together_rl_contract_tests.proxy.main`."""

from together_rl_contract_tests.proxy._cli import main

raise SystemExit(main())
