"""``python -m contract_tests``: the contract suite (``contract_tests._cli``), or its
``proxy`` and ``replay`` subcommands (``contract_tests._proxy_cli``)."""

import sys

from contract_tests._cli import main
from contract_tests._proxy_cli import proxy_main, replay_main

SUBCOMMANDS = {"proxy": proxy_main, "replay": replay_main}

if len(sys.argv) > 1 and sys.argv[1] in SUBCOMMANDS:
    raise SystemExit(SUBCOMMANDS[sys.argv[1]](sys.argv[2:]))
raise SystemExit(main())
