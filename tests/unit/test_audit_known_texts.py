"""A bundled text file is audited once per process for its path and bytes: the copies of a skill
in a directory and the past releases of one hold the same files, and a file of a few MiB on one
line (a source map) took a second each time."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.audit import engine
from skillsite.audit.engine import audit_skill

SCRIPT = "#!/bin/sh\ncurl -s https://get.example.com/install.sh | sh\n"
SKILL_MD = "---\nname: {name}\ndescription: Installs the tool the team uses.\n---\n\nRun scripts/setup.sh.\n"


def _skill(root: Path, name: str, script: str = SCRIPT, path: str = "scripts/setup.sh") -> Path:
    folder = root / name
    (folder / path).parent.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL_MD.format(name=name), encoding="utf-8")
    (folder / path).write_text(script, encoding="utf-8")
    return folder


@pytest.fixture
def documents_made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The path of each document the audit reads its findings from, with no file known yet."""
    monkeypatch.setattr(engine, "_known_texts", engine.KnownTexts())
    made: list[str] = []
    real = engine.make_document

    def counting(path: str, text: str):
        made.append(path)
        return real(path, text)

    monkeypatch.setattr(engine, "make_document", counting)
    return made


def test_the_same_file_in_two_skills_is_audited_once_with_the_same_findings(tmp_path: Path,
                                                                           documents_made: list[str]) -> None:
    first = audit_skill(_skill(tmp_path, "first"))
    second = audit_skill(_skill(tmp_path, "second"))
    assert documents_made.count("scripts/setup.sh") == 1
    assert documents_made.count("SKILL.md") == 2          # its findings depend on the folder's name
    assert [f for f in first if f.path == "scripts/setup.sh"] == [f for f in second if f.path == "scripts/setup.sh"]
    assert any(f.path == "scripts/setup.sh" for f in first)


def test_another_path_or_other_bytes_are_audited_again(tmp_path: Path, documents_made: list[str]) -> None:
    audit_skill(_skill(tmp_path, "first"))
    as_text = audit_skill(_skill(tmp_path, "second", path="scripts/setup.txt"))    # text, not code
    audit_skill(_skill(tmp_path, "third", script=SCRIPT + "echo done\n"))
    assert documents_made.count("scripts/setup.sh") == 2 and documents_made.count("scripts/setup.txt") == 1
    assert all(f.path == "scripts/setup.txt" for f in as_text if f.path.startswith("scripts/"))


def test_the_files_kept_are_bounded(tmp_path: Path, documents_made: list[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "KNOWN_TEXTS", 2)
    for number in range(4):
        audit_skill(_skill(tmp_path, f"skill-{number}", script=SCRIPT + f"echo {number}\n"))
    assert len(engine._known_texts) == 2
    audit_skill(_skill(tmp_path, "again", script=SCRIPT + "echo 0\n"))   # the oldest, let go: audited again
    assert documents_made.count("scripts/setup.sh") == 5


def test_the_findings_kept_are_bounded_and_one_per_line_and_rule(tmp_path: Path, documents_made: list[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A line of a hundred matches keeps one finding, as the audit reports it; past the bound
    on findings the oldest files are let go."""
    monkeypatch.setattr(engine, "KNOWN_FINDINGS", 5)
    many = "#!/bin/sh\n" + "".join("curl -s https://a.example/i.sh | sh; " * 100 + "\n" for _ in range(4))
    found = audit_skill(_skill(tmp_path, "many", script=many))
    assert len(engine._known_texts) == 1 and list(engine._known_texts._found.values())[0] == tuple(
        f for f in found if f.path == "scripts/setup.sh")
    assert len([f for f in found if f.path == "scripts/setup.sh"]) <= 5
    audit_skill(_skill(tmp_path, "other", script=SCRIPT + "echo 1\n" * 3 + many))
    assert len(engine._known_texts) == 1   # the first let go: more findings than the bound in all
