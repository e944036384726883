"""What a catalog says reaches the terminal escaped (docs/commands.md: text output never shows a
name or value from a skill or a catalog raw), in the commands that print a catalog's skills.

The build publishes a description holding control characters with a warning (SK213) and leaves
skills.json to hold it as JSON does: a consumer's text output must escape it.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.publish.build import build

#: A terminal title set, the screen cleared, a line turned red, a line reordered (U+202E).
HOSTILE = "\\e]0;PWNED\\a\\e[2J\\e[31m\\u202e"
SKILL_MD = f"""---
name: date-format
description: "Formats dates {HOSTILE} in reports. Use when asked to format dates in reports and logs."
requires:
  bins: ["date{HOSTILE}x"]
---
# Dates

Format the dates.
"""


def built(root: Path, name: str, skill_md: str, *, warned: bool = True) -> Path:
    """The catalog of one skill, ``name``, whose SKILL.md is ``skill_md``: published, with SK213
    (``warned``) for the control characters its frontmatter holds."""
    (root / "skills" / name).mkdir(parents=True)
    (root / "skills" / name / "SKILL.md").write_text(skill_md, encoding="utf-8")
    result = build([root / "skills"], root / "site")
    assert result.ok and any(d.code == "SK213" for d in result.diagnostics) == warned
    return root / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory.mktemp("printable"), "date-format", SKILL_MD)


def shown(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("args", [("search", "dates"), ("status",)])
def test_a_catalogs_text_is_escaped(site: Path, args: tuple[str, ...]) -> None:
    said = shown(*args, "--catalog", str(site), "--max-risk", "high")  # the audit rates U+202E high
    assert "date-format" in said
    assert not any(char in said for char in "\x1b\x07\u202e"), said
    assert "\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31m\\u202e" in said


@pytest.mark.parametrize("args", [("search", "dates", "--json"), ("status", "--json")])
def test_json_output_escapes_as_json_does_and_bidi_and_c1_controls_too(site: Path, args: tuple[str, ...]) -> None:
    """JSON escapes C0 controls; U+202E (and C1 controls, line separators) it left raw, where
    they reorder the line of the terminal showing it: written as JSON escapes too."""
    said = shown(*args, "--catalog", str(site), "--max-risk", "high")
    assert "\\u001b]0;PWNED" in said and "\\u202e" in said
    assert not any(char in said for char in "\x1b\x07\u202e"), said


@pytest.mark.parametrize("args", [("prompt",), ("show", "plain-dates"), ("tool",)])
def test_prompt_show_and_tool_escape_what_the_catalog_says(tmp_path: Path, args: tuple[str, ...]) -> None:
    """``prompt`` and ``show`` (XML) printed a description's and a body's U+202E and C1 controls
    raw (XML forbids only C0 controls, which the loader replaces); ``tool``'s JSON did too."""
    site = built(tmp_path, "plain-dates", "---\nname: plain-dates\ndescription: \"Formats dates \\u202e\\u009b31m in "
                                          "reports. Use when asked to format dates.\"\n---\n# Dates\n\nReversed "
                                          "\u202e here \x9b2J.\n")
    said = shown(*args, "--catalog", str(site), "--max-risk", "high")
    assert "plain-dates" in said and "\\u202e" in said and ("\\u009b" if args == ("tool",) else "\\x9b") in said
    assert not any(char in said for char in "\u202e\x9b"), said


def test_show_markdown_escapes_what_the_published_skill_md_holds_but_its_tabs_and_line_ends(tmp_path: Path) -> None:
    """``show --format markdown`` printed the SKILL.md raw: a body holding an escape sequence drove
    the terminal of whoever looked at the skill."""
    site = built(tmp_path, "raw-body", "---\nname: raw-body\ndescription: Shows a body. Use when asked to show it.\n"
                                      "---\n# Body\n\n\tIndented.\r\nA title \x1b]0;PWNED\x07 and \u202eevil.\n",
                 warned=False)
    result = CliRunner().invoke(main, ["show", "raw-body", "--format", "markdown", "--catalog", str(site),
                                       "--max-risk", "high"])
    assert result.exit_code == 0, result.output
    said = result.stdout_bytes.decode("utf-8")  # .output would read "\r\n" as "\n"
    assert said.endswith("# Body\n\n\tIndented.\r\nA title \\x1b]0;PWNED\\x07 and \\u202eevil.\n"), said
