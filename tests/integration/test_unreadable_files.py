"""A skill holding a file or folder this process cannot read is not whole: discovery says so of
that skill (SK006, at its SKILL.md), which is left out with --keep-going and is never published
with a hole; the rest of the catalog is.  A folder it cannot list with no skill found elsewhere
is said as itself, never as a source holding no SKILL.md."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import as_an_ordinary_user


def _skill(folder: Path, name: str, body: str = "Body.") -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Say what {name} does. Use when asked.\n"
                                     f"---\n{body}\n")


def _skillsite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*as_an_ordinary_user(), sys.executable, "-m", "skillsite", *args], capture_output=True,
                          text=True, timeout=300)


def test_a_skill_with_an_unreadable_file_is_left_out_not_published_with_a_hole(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    _skill(src / "holed", "holed", "See [the notes](references/notes.md).")
    (src / "holed" / "references").mkdir()
    notes = src / "holed" / "references" / "notes.md"
    notes.write_text("notes\n")
    _skill(src / "whole", "whole")
    notes.chmod(0)
    said = f"{src / 'holed' / 'SKILL.md'}: error SK006 cannot read 'references/notes.md': Permission denied"
    try:
        strict = _skillsite("build", str(src), "-o", str(out), "-j", "1")
        assert strict.returncode == 1 and said in strict.stdout + strict.stderr and not (out / "skills.json").exists()
        going = _skillsite("build", str(src), "-o", str(out), "-j", "1", "--keep-going")
    finally:
        notes.chmod(0o644)
    assert going.returncode == 0, going.stderr
    assert said in going.stdout + going.stderr
    assert (out / "skills" / "whole" / "SKILL.md").is_file() and not (out / "skills" / "holed").exists()


def test_validate_calls_a_skill_with_a_folder_it_cannot_list_invalid(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _skill(src / "closed", "closed", "Run `scripts/setup.sh`.")
    (src / "closed" / "scripts").mkdir()
    (src / "closed" / "scripts" / "setup.sh").write_text("echo hi\n")
    _skill(src / "open", "open")
    (src / "closed" / "scripts").chmod(0)
    try:
        checked = _skillsite("validate", str(src), "-j", "1")
    finally:
        (src / "closed" / "scripts").chmod(0o755)
    assert checked.returncode == 1
    said = f"{src / 'closed' / 'SKILL.md'}: error SK006 cannot list folder 'scripts': Permission denied"
    assert said in checked.stdout
    assert "1 valid, 1 invalid" in checked.stdout


def test_a_folder_it_cannot_list_inside_a_source_is_said_not_taken_for_an_empty_tree(tmp_path: Path) -> None:
    """A source whose own listing reads but holds a folder of mode 000 and no SKILL.md elsewhere:
    the folder is said (SK006, by its path) and the command fails as on a source it cannot list
    (exit 1), not with SK013's "no SKILL.md found" (exit 5), which nobody could know."""
    src, other = tmp_path / "src2", tmp_path / "other"
    (src / "a").mkdir(parents=True)
    _skill(other / "greet", "greet")
    (src / "a").chmod(0)
    said = f"{src / 'a'}: error SK006 cannot list folder: Permission denied"
    try:
        runs = [_skillsite("build", str(src), "-o", str(tmp_path / "site"), "-q"),
                _skillsite("validate", str(src), "--no-cache"),
                _skillsite("build", str(other), str(src), "-o", str(tmp_path / "both"), "-q")]
    finally:
        (src / "a").chmod(0o755)
    for done in runs:
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stdout.splitlines()[0] == said
        assert "SK013" not in done.stdout + done.stderr


def test_a_root_it_cannot_list_named_with_a_trailing_slash_is_not_said_empty(tmp_path: Path) -> None:
    """``discover`` given a root as a string ending in a slash (as a caller may pass a path it was
    given): a root of mode 000 is its SK006 alone, as when named without the slash."""
    root = tmp_path / "closed"
    root.mkdir()
    code = ("import json, sys; from skillsite.source.discover import discover; "
            "print(json.dumps([[d.code, d.path] for d in discover(sys.argv[1:]).diagnostics]))")
    root.chmod(0)
    try:
        runs = [subprocess.run([*as_an_ordinary_user(), sys.executable, "-c", code, given], capture_output=True,
                               text=True, timeout=300) for given in (f"{root}/", str(root))]
    finally:
        root.chmod(0o755)
    for done in runs:
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == [["SK006", str(root)]]
