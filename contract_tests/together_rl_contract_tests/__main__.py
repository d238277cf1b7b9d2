"""``python -m together_rl_contract_tests``: the contract suite
(``together_rl_contract_tests._cli.main``, console script ``together-rl-conformance``), or ``proxy
...`` / ``replay ...``, which are the proxy package's (``python -m
together_rl_contract_tests.proxy``)."""

import sys

if len(sys.argv) > 1 and sys.argv[1] in ("proxy", "replay"):
    from together_rl_contract_tests.proxy import main as proxy_package_main

    raise SystemExit(proxy_package_main(sys.argv[1:]))

from together_rl_contract_tests._cli import main

raise SystemExit(main())
