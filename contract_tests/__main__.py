"""``python -m contract_tests``: see ``contract_tests._cli``."""

from contract_tests._cli import main

raise SystemExit(main())
