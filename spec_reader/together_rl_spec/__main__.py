"""`python -m together_rl_spec > openapi.yaml`: the installed spec, byte for byte."""

import sys

from together_rl_spec import spec_bytes

__all__: list[str] = []

sys.stdout.buffer.write(spec_bytes())
