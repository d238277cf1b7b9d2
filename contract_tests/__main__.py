"""``python -m contract_tests``: the contract suite (``contract_tests._cli``), or its
``proxy`` and ``replay`` subcommands (``contract_tests._proxy_cli``, which loads without the
suite's heavier imports)."""

import sys

if len(sys.argv) > 1 and sys.argv[1] in ("proxy", "replay"):
    from contract_tests._proxy_cli import proxy_main, replay_main

    command = proxy_main if sys.argv[1] == "proxy" else replay_main
    raise SystemExit(command(sys.argv[2:]))

from contract_tests._cli import main

raise SystemExit(main())
