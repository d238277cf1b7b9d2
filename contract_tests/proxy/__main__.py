"""``python -m contract_tests.proxy --upstream URL`` (the proxy) or ``python -m
contract_tests.proxy replay CASSETTE`` (the replay): :func:`contract_tests.proxy.main`."""

from contract_tests.proxy._cli import main

raise SystemExit(main())
