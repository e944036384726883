"""A backslash in a skill's folder name or a bundled file's name: the loader and the installers
refuse it in a path (Windows reads it as a separator), so the build publishes neither: the skill
is an error (SK019, from validate too), the file is left out (SK020).  The build published both
before, and the catalog then failed in every agent: ``show`` and ``install`` refused, ``budget``
gave a traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.loader import Catalog
from skillsite.publish.build import build
from skillsite.source.catalog import read_catalog
from support import write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def _tree(src: Path) -> None:
    write_skill(src, "team\\tools", name="tools", description="Say what the tools do. Use when asked.")
    write_skill(src, "good", name="good", description="Say what good does. Use when asked.")
    (src / "good" / "references").mkdir()
    (src / "good" / "references" / "a\\b.md").write_text("a file named with a backslash\n")
    (src / "good" / "references" / "plain.md").write_text("a plain file\n")


def test_a_backslash_in_a_folder_or_file_name_is_never_published(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    _tree(src)
    said = [(d.code, d.severity.value) for d in read_catalog([src]).diagnostics if d.code in ("SK019", "SK020")]
    assert said == [("SK019", "error")]  # the file is left out by publishing, as SK017's are
    result = build([src], out, keep_going=True)
    assert result.ok and list(result.skipped) == ["team\\tools"]
    codes = sorted((d.code, d.path.split("/src/")[-1]) for d in result.diagnostics if d.code in ("SK019", "SK020"))
    assert codes == [("SK019", "team\\tools/SKILL.md"), ("SK020", "good/SKILL.md")]
    manifest = json.loads((out / "skills.json").read_text(encoding="utf-8"))
    assert [e["id"] for e in manifest["skills"]] == ["good"]
    assert [f["path"] for f in manifest["skills"][0]["files"]] == ["references/plain.md"]
    catalog = Catalog.open(out)  # every skill it holds loads and installs whole
    assert catalog.resource("good", "references/plain.md") == b"a plain file\n"
    catalog.install("good", tmp_path / "installed")
    assert sorted(p.name for p in (tmp_path / "installed").rglob("*") if p.is_file()) == ["SKILL.md", "plain.md"]


def test_budget_of_a_catalog_giving_a_path_that_leaves_it_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    write_skill(src, "good", name="good", description="Say what good does. Use when asked.")
    assert build([src], out).ok
    manifest = json.loads((out / "skills.json").read_text(encoding="utf-8"))
    manifest["skills"][0]["urls"]["skill_md"] = "skills/../../elsewhere/SKILL.md"
    (out / "skills.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = CliRunner().invoke(main, ["budget", "--catalog", str(out)])
    assert result.exit_code == 1 and "Traceback" not in result.output and result.exception is not None
    assert result.output.count("\n") == 1 and "escapes its folder" in result.output


def test_a_name_starting_as_a_windows_drive_or_holding_a_colon_elsewhere_is_never_published(tmp_path: Path) -> None:
    """The loader refused any path whose second character is ':' as absolute: '1:1 mapping.md' was
    published and then refused by every agent.  Then only a drive letter and ':' ('Q:A') was
    refused, and '1:1 mapping.md' installed: on Windows it is file '1' with a data stream.  Now
    a ':' anywhere is refused, and the build publishes neither such a folder (SK019) nor such a
    file (SK020)."""
    src, out = tmp_path / "src", tmp_path / "site"
    write_skill(src, "Q:A", name="qa", description="Say what qa does. Use when asked.")
    write_skill(src, "good", name="good", description="Say what good does. Use when asked.")
    (src / "good" / "1:1 mapping.md").write_text("one to one\n")
    (src / "good" / "c:notes.md").write_text("a drive's folder on Windows\n")
    (src / "good" / "plain.md").write_text("plain\n")
    result = build([src], out, keep_going=True)
    assert result.ok and list(result.skipped) == ["Q:A"]
    said = sorted((d.code, d.message) for d in result.diagnostics if d.code in ("SK019", "SK020"))
    assert [code for code, _ in said] == ["SK019", "SK020", "SK020"]
    assert "bundled file '1:1 mapping.md' cannot be written on every system ('1:1 mapping.md' holds ':'" in said[1][1]
    catalog = Catalog.open(out)
    assert [f["path"] for f in catalog.entry("good")["files"]] == ["plain.md"]
    catalog.install("good", tmp_path / "installed")
    assert sorted(p.name for p in (tmp_path / "installed").iterdir()) == ["SKILL.md", "plain.md"]


def test_a_windows_device_name_a_last_dot_or_a_hidden_skill_folder_is_never_published(tmp_path: Path) -> None:
    """Agents refuse a path with a part Windows reads as a device (``nul.txt``) or whose last dot
    or space it drops, and installers a dependency's hidden folder (``.ssh``): the build
    published them, and every agent then refused the skill or its install.  A hidden folder
    higher up, and hidden bundled files, are published."""
    src, out = tmp_path / "src", tmp_path / "site"
    for folder in ("CON/tools", ".ssh", "x/.github", "trail.", ".claude/skills/good"):
        write_skill(src, folder, name=folder.rsplit("/", 1)[-1].strip("."), description="Says what. Use when asked.")
    good = src / ".claude" / "skills" / "good"
    for name in ("nul.txt", "COM1.md", "a./b.md", "ok.md", ".env.example", "con-fig.md"):
        (good / name).parent.mkdir(parents=True, exist_ok=True)
        (good / name).write_text("x\n")
    said = [(d.code, d.severity.value) for d in read_catalog([src]).diagnostics if d.code in ("SK019", "SK020")]
    assert said == [("SK019", "error")] * 4
    result = build([src], out, keep_going=True)
    assert result.ok and sorted(result.skipped) == [".ssh", "CON/tools", "trail.", "x/.github"]
    messages = sorted(d.message for d in result.diagnostics if d.code in ("SK019", "SK020"))
    assert [m.split(" cannot")[0] for m in messages[:3]] == ["bundled file 'COM1.md'", "bundled file 'a./b.md'",
                                                           "bundled file 'nul.txt'"]
    assert "skill folder '.ssh' cannot be installed by agents: its folder '.ssh' would be hidden" in messages[3]
    assert "skill folder 'CON/tools' cannot be installed by agents: 'CON' is a Windows device name" in messages[4]
    assert "skill folder 'trail.' cannot be installed by agents: 'trail.' ends with a dot or a space" in messages[5]
    catalog = Catalog.open(out)
    assert [f["path"] for f in catalog.entry(".claude/skills/good")["files"]] == [".env.example", "con-fig.md", "ok.md"]
