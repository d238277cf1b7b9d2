"""The fast YAML path builds exactly what PyYAML's safe loader builds (dates kept as text)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from together_rl_spec import _loading

REPO = Path(__file__).resolve().parents[2]

SAMPLES = [
    "openapi: 3.0.0\na: &x {b: 1, c: [1, 2.5, .inf, ~, true, 0x1F, 1_000]}\nd: *x\n",
    "openapi: 3.0.0\nbase: &b {x: 1}\nmerged: {<<: *b, y: 2}\n",  # a merge key: PyYAML's path
    "openapi: 3.0.0\nwhen: 2024-01-01\nat: 2024-01-01T10:00:00Z\nquoted: '12'\n",
    (REPO / "spec" / "openapi.yaml").read_text(encoding="utf-8"),
]


@pytest.mark.parametrize("text", SAMPLES, ids=["aliases and scalars", "merge key", "dates", "spec"])
def test_fast_yaml_builds_what_pyyaml_builds(text: str) -> None:
    expected = yaml.load(text, Loader=_loading._NoDatesLoader)
    assert _loading.parse_text(text, "sample.yaml") == expected
    assert expected.get("when", "2024-01-01") == "2024-01-01"


def test_a_custom_tag_falls_back_and_is_refused_with_its_place() -> None:
    with pytest.raises(_loading.DocumentError) as refused:
        _loading.parse_text("openapi: 3.0.0\nx: !python/object {}\n", "tagged.yaml")
    assert str(refused.value).startswith("tagged.yaml: line 2 column 4: not YAML")
