"""The catalog-consumer commands: ``skillsite show``, ``skillsite prompt``, ``skillsite mcp``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main





def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_show_xml_is_the_loaded_fragment(site: Path) -> None:
    result = invoke("show", "changelog", "--catalog", str(site))
    assert result.exit_code == 0, result.output
    assert result.output.startswith('<skill_content name="changelog" id="release-manager/changelog">')
    assert f"<base_url>{site / 'skills/release-manager/changelog'}/</base_url>" in result.output


def test_show_markdown_is_the_published_skill_md(site: Path) -> None:
    result = invoke("show", "release-manager/changelog", "--catalog", str(site / "skills.json"),
                    "--format", "markdown")
    assert result.exit_code == 0
    assert result.output == (site / "skills/release-manager/changelog/SKILL.md").read_text("utf-8")


def test_show_unknown_skill_exits_1(site: Path) -> None:
    result = invoke("show", "nope", "--catalog", str(site))
    assert result.exit_code == 1 and "no skill 'nope'" in result.output


def test_show_tampered_skill_exits_1_without_content(site: Path, tmp_path: Path) -> None:
    import shutil
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    (copy / "skills/test-first/SKILL.md").write_text("---\nname: test-first\ndescription: x\n---\nEvil.\n")
    result = invoke("show", "test-first", "--catalog", str(copy))
    assert result.exit_code == 1 and "Evil" not in result.output and "does not match" in result.output


def test_prompt_respects_the_budget(site: Path) -> None:
    result = invoke("prompt", "--catalog", str(site), "--budget", "900")
    assert result.exit_code == 0
    assert result.output.startswith("<available_skills>") and len(result.output) <= 900
    assert "<name>house-style</name>" in result.output and "<notice>" in result.output


def test_prompt_default_catalog_is_site_folder(site: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import shutil
    shutil.copytree(site, tmp_path / "_site")
    monkeypatch.chdir(tmp_path)
    result = invoke("prompt")
    assert result.exit_code == 0 and str(tmp_path / "_site" / "skills") in result.output


def test_bad_catalog_exits_1(tmp_path: Path) -> None:
    (tmp_path / "skills.json").write_text(json.dumps({"format": "skillsite-catalog", "format_version": 7,
                                                      "skills": []}))
    result = invoke("prompt", "--catalog", str(tmp_path))
    assert result.exit_code == 1 and "supports format_version 2" in result.output


def test_mcp_without_the_package_says_how_to_install(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")] + ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)
    result = invoke("mcp", "--catalog", str(site))
    assert result.exit_code == 2
    assert "pip install 'skillsite[mcp]'" in result.output


@pytest.mark.parametrize("spec, known, expected", [
    ("changelog", set(), ("changelog", None)),
    ("changelog@^1.2", set(), ("changelog", "^1.2")),
    ("repos/owner@repo/x", set(), ("repos/owner@repo/x", None)),            # an id with '@': no range after a '/'
    ("repos/owner@repo/x@~2.0", set(), ("repos/owner@repo/x", "~2.0")),
    ("tools@2", {"tools@2"}, ("tools@2", None)),                             # a folder called so wins
    ("tools@2", set(), ("tools", "2")),
])
def test_install_takes_ids_that_hold_an_at_sign(spec: str, known: set[str], expected: tuple[str, str | None]) -> None:
    from skillsite.cli import install_spec

    assert install_spec(spec, known) == expected


@pytest.mark.parametrize("spec, message", [("pdf@", "nothing after '@'"), ("pdf@not a range!", "pdf@not a range!")])
def test_install_refuses_a_range_that_does_not_parse(spec: str, message: str) -> None:
    import click

    from skillsite.cli import install_spec

    with pytest.raises(click.BadParameter, match=message):
        install_spec(spec, set())


def test_a_risk_error_naming_a_hostile_id_is_one_printable_line() -> None:
    """The skill id comes from the catalog: an escape sequence (a terminal title) and a newline
    (a fake "installed" line) in it must not reach the terminal raw."""
    from skillsite.agent.errors import RiskError
    from skillsite.cli.reading import loader_error_text

    text = loader_error_text(RiskError("x\x1b]0;PWNED\x07\nskillsite: installed OK", "high", "medium"))
    assert "\x1b" not in text and "\x07" not in text and "\n" not in text
    assert "--max-risk medium" in text and "pass --max-risk high" in text


@pytest.mark.parametrize("command", [("search", "x", "--catalog"), ("verify",), ("status", "--catalog")])
@pytest.mark.parametrize("seconds", ["inf", "1e300", "nan", "-inf"])
def test_a_timeout_that_no_timer_takes_is_a_usage_error(site: Path, command: tuple[str, ...], seconds: str) -> None:
    """Infinity overflowed the socket's and the timer's clocks (a traceback); NaN passed the range
    check, as it compares with no bound, and every request then "took longer than nan s"."""
    result = invoke(*command, str(site), "--timeout", seconds)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "--timeout" in result.output


def test_serve_refuses_an_interval_no_timer_takes() -> None:
    result = invoke("serve", "--interval", "nan")
    assert result.exit_code == 2 and "is not a number of seconds" in result.output


def test_the_longest_timeout_is_taken(site: Path) -> None:
    result = invoke("search", "release", "--catalog", str(site), "--timeout", "86400")
    assert result.exit_code == 0 and "changelog" in result.output


def test_the_commands_longest_wait_is_the_loaders() -> None:
    """The commands bound --timeout as the loader bounds timeout (it cannot import click's side):
    past the loader's bound, its ValueError would read as a bad trusted key."""
    from skillsite.arguments import LONGEST_WAIT
    from skillsite.loader import LONGEST_TIMEOUT

    assert LONGEST_WAIT == LONGEST_TIMEOUT


def test_the_commands_smallest_budget_is_the_empty_block_s(tmp_path) -> None:
    """prompt and tool refuse a --budget under the empty <available_skills> block, and so does
    skillsite.yml's prompt_budget: a budget of 1 to 38 published an empty available_skills.xml,
    which is no XML."""
    from skillsite.agent.prompt_xml import SMALLEST_BUDGET, available_skills_xml
    from skillsite.cli.reading import SMALLEST_BUDGET as COMMANDS_SMALLEST
    from skillsite.config import ConfigError, load_config

    assert COMMANDS_SMALLEST == SMALLEST_BUDGET == len(available_skills_xml([], [], 1000))
    (tmp_path / "skillsite.yml").write_text(f"prompt_budget: {SMALLEST_BUDGET - 1}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path / "skillsite.yml")
    assert f"'prompt_budget' must be at least {SMALLEST_BUDGET}" in refused.value.diagnostics[0].message
    (tmp_path / "skillsite.yml").write_text(f"prompt_budget: {SMALLEST_BUDGET}\n", encoding="utf-8")
    assert load_config(tmp_path / "skillsite.yml").prompt_budget == SMALLEST_BUDGET
