"""``python -m contract_tests``: the contract suite (``contract_tests._cli.main``, console script
``together-rl-conformance``), or ``proxy ...`` / ``replay ...``, which are the proxy package's
(``python -m contract_tests.proxy``)."""

import sys

if len(sys.argv) > 1 and sys.argv[1] in ("proxy", "replay"):
    from contract_tests.proxy import main as proxy_package_main

    raise SystemExit(proxy_package_main(sys.argv[1:]))

from contract_tests._cli import main

raise SystemExit(main())
