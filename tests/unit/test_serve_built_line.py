"""What ``skillsite serve`` says of each build, counted as ``skillsite build`` counts."""
from __future__ import annotations

from types import SimpleNamespace

from skillsite.publish.serve import built_line


def test_the_built_line_counts_as_build_does() -> None:
    """It said "Built 2831 skills (1 skipped, 1 errors, ...)" where build says "2,831 skills"."""
    result = SimpleNamespace(published=["a"] * 2831, skipped=["b"] * 1204, errors=1, warnings=2)
    assert built_line(result, 1.234) == "Built 2,831 skills (1,204 skipped, 1 error, 2 warnings) in 1.23 s"
    one = SimpleNamespace(published=["a"], skipped=[], errors=0, warnings=1)
    assert built_line(one, 0.5) == "Built 1 skill (0 skipped, 0 errors, 1 warning) in 0.50 s"
