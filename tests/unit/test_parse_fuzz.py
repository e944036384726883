"""Property tests: the parser never raises, whatever the bytes or YAML-like text."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsite.models import SourceFile
from skillsite.source.parse import parse_skill_bytes

SOURCE = SourceFile(id="fuzz", root=Path("."), dir=Path("fuzz"), skill_md=Path("fuzz/SKILL.md"),
                    display_path="fuzz/SKILL.md", rel_path="fuzz/SKILL.md", parent_id=None)

YAML_BITS = st.sampled_from([
    "name", "description", "metadata", "tags", "version", ":", ": ", "-", "- ", "---", "...", "&a", "*a", "!!str",
    "!!python/object:os.system", "[", "]", "{", "}", ",", "'", '"', "|", ">", "#", "\n", "\r\n", "  ", "\t",
    "yes", "no", "2.0", "2024-01-01", "null", "~", "<<", "? ", "%YAML 1.2", "\ufeff", "é", "\x00", "\x85",
])


def check(raw: bytes) -> None:
    parsed = parse_skill_bytes(raw, SOURCE)
    assert parsed.fatal == (parsed.frontmatter is None)
    if parsed.fatal:
        assert any(d.severity.value == "error" for d in parsed.diagnostics)
    else:
        assert isinstance(parsed.frontmatter, dict)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048))
def test_random_bytes_never_raise(raw):
    check(raw)
    check(b"---\n" + raw + b"\n---\nbody")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(YAML_BITS | st.text(max_size=8), max_size=60))
def test_random_yaml_like_frontmatter_never_raises(bits):
    text = "".join(bits)
    check(("---\n" + text + "\n---\n# body\n").encode("utf-8", "surrogatepass"))
