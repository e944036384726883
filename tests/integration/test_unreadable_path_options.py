"""Path options naming a folder or file its owner cannot open (mode 000): click's check that a
path which exists can be read stopped the command (exit 2, "... is not readable") before
skillsite looked at it, though skillsite never reads most of them (it replaces an output, a
report or a folder; it writes into a folder it need only search).  Each is now skillsite's to
judge: done, or refused in one line of its own.  Run without root's right to read any file
(setpriv), as every other user runs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO, append_line, as_an_ordinary_user, write_skill

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)


def skillsite(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``skillsite ARGS`` run as an ordinary user."""
    return subprocess.run([*as_an_ordinary_user(), sys.executable, "-m", "skillsite", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO)


def source_tree(folder: Path) -> Path:
    write_skill(folder, "greet", description="Greets the user by name. Use when asked to say hello.")
    return folder


def test_build_replaces_an_output_it_cannot_open_under_force(tmp_path: Path) -> None:
    """``build -o OUT`` with OUT of mode 000: without --force the build cannot tell whether it
    wrote OUT, and says so in one line (exit 2, OUT kept); with --force it replaces OUT, as it
    replaces any folder there, from a new folder beside it (moving the new catalog in from the
    cache folder's back folder needs OUT writable).  So does --force with a read-only OUT."""
    src, out = source_tree(tmp_path / "src"), tmp_path / "site"
    assert skillsite("build", src, "-o", out, "-q").returncode == 0
    out.chmod(0)
    refused = skillsite("build", src, "-o", out, "-q")
    assert (refused.returncode, refused.stdout) == (2, ""), refused.stderr
    assert refused.stderr == (f"skillsite: {out} cannot be opened (permission denied), so whether skillsite wrote "
                              "it cannot be told; choose another folder or pass --force to replace it\n")
    assert out.stat().st_mode & 0o777 == 0
    forced = skillsite("build", src, "-o", out, "-q", "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((out / "skills.json").read_text("utf-8"))["skills"][0]["id"] == "greet"
    append_line(src / "greet" / "SKILL.md", "An edit.")
    out.chmod(0o555)
    forced = skillsite("build", src, "-o", out, "-q", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "An edit." in (out / "skills" / "greet" / "SKILL.md").read_text("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".skillsite-cache", "site", "src"]  # nothing left beside
    append_line(src / "greet" / "SKILL.md", "Another edit.")
    again = skillsite("build", src, "-o", out, "-q")  # from the back folder again, which held an older catalog
    assert again.returncode == 0, again.stderr
    assert "Another edit." in (out / "skills" / "greet" / "SKILL.md").read_text("utf-8")


def test_a_cache_folder_it_cannot_open_is_said_as_one(tmp_path: Path) -> None:
    """``--cache-dir C`` with C of mode 000 was click's usage error (exit 2, "Directory ... is not
    readable").  ``build`` writes into its cache before any work: it says it cannot use the cache
    folder, and why (exit 3, the machine refused); ``validate``, whose cache only saves time,
    checks every skill without it, saying so in a warning (as when the cache cannot be saved, or
    when C is beneath a folder of mode 000); a command reading a catalog goes on without it."""
    from support import serve_folder

    src, out, cache = source_tree(tmp_path / "src"), tmp_path / "site", tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0)
    built = skillsite("build", src, "-o", out, "-q", "--cache-dir", cache)
    assert (built.returncode, built.stdout) == (3, "")
    assert built.stderr == (f"skillsite: cannot use the cache folder {cache}: Permission denied (EACCES); {out} was "
                            "not created (--no-cache builds without one)\n")
    for folder in (cache, cache / "validate"):
        checked = skillsite("validate", src, "--cache-dir", folder)
        assert checked.returncode == 0, checked.stderr
        assert checked.stdout.startswith("1 skill checked: 1 valid, 0 invalid; 0 errors"), checked.stdout
        assert checked.stderr == (f"skillsite: warning: cannot use the cache folder {folder}: Permission denied "
                                  "(EACCES); every skill is checked without it\n")
    assert skillsite("build", src, "-o", out, "-q", "--no-cache").returncode == 0
    url, stop = serve_folder(out)
    try:
        found = skillsite("search", "greets", "--catalog", url, "--cache-dir", cache)
    finally:
        stop()
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[0].split()[:2] == ["1.", "greet"]
    assert cache.stat().st_mode & 0o777 == 0


def test_a_knowledge_folder_it_cannot_list_is_one_it_need_only_search(tmp_path: Path) -> None:
    """``validate --knowledge-dir K``: a skill's documents are looked up in K by name, which needs
    K searched, not listed, so a K of mode 0111 serves (click refused it: exit 2).  A K of mode
    000 hides its documents: each is said to be out of reach, not missing; a document that cannot
    be read is an error too (the build published the skill without it, saying nothing)."""
    src = tmp_path / "src"
    write_skill(src, "greet", "name: greet\ndescription: Greets the user by name. Use when asked to say hello.\n"
                "knowledge: [style.md]\n")
    knowledge = tmp_path / "knowledge"
    knowledge.mkdir()
    (tmp_path / "skillsite.yml").write_text("knowledge_dir: knowledge\n", encoding="utf-8")
    (knowledge / "style.md").write_text("# House style\n\nShort sentences.\n", encoding="utf-8")
    knowledge.chmod(0o111)
    searched = skillsite("validate", src, "--knowledge-dir", knowledge, "--no-cache")
    assert searched.returncode == 0, searched.stdout + searched.stderr
    knowledge.chmod(0)
    hidden = skillsite("validate", src, "--knowledge-dir", knowledge, "--no-cache")
    assert hidden.returncode == 1, hidden.stderr
    assert hidden.stdout.splitlines()[0] == (f"{src / 'greet' / 'SKILL.md'}:4:13: error SK218 knowledge document "
                                             f"'style.md' cannot be reached in the knowledge folder {knowledge}: "
                                             "permission denied")
    knowledge.chmod(0o755)
    (knowledge / "style.md").chmod(0)
    built = skillsite("build", src, "--config", tmp_path / "skillsite.yml", "-o", tmp_path / "site", "-q", "--no-cache")
    assert built.returncode == 1
    assert built.stdout.splitlines()[0] == (f"{src / 'greet' / 'SKILL.md'}:4:13: error SK218 knowledge document "
                                            "'style.md' cannot be read (permission denied)")
    assert not (tmp_path / "site").exists()


def test_files_and_folders_it_writes_but_never_reads(tmp_path: Path) -> None:
    """What a command only writes need not be readable: ``--report R`` of validate and build and
    ``audit -o R`` replace R (mode 000) in one rename, ``keys new --out K`` refuses an existing K
    because it exists, in its own words, and ``new --dir D`` makes the skill in a D of mode 0300
    (written and searched, never listed).  click refused each first (exit 2, "... is not readable")."""
    src = tmp_path / "src"
    for n in range(48):  # five unknown keys each: more diagnostics than the text output lists
        write_skill(src, f"s{n:03d}", f"name: s{n:03d}\ndescription: Thing number {n} of many.\n"
                                      "author: me\nteam: x\ngroup: y\nlevel: 1\nstage: z\n")
    runs = {"validate": ["validate", src, "--no-cache"], "build": ["build", src, "-o", tmp_path / "site", "-q"],
            "audit": ["audit", src, "--format", "json", "-o"]}
    for name, command in runs.items():
        report = tmp_path / f"{name}.json"
        report.write_text("old\n", encoding="utf-8")
        report.chmod(0)
        done = skillsite(*command, *([] if name == "audit" else ["--report"]), report)
        assert done.returncode == 0, done.stdout + done.stderr
        report.chmod(0o600)
        assert isinstance(json.loads(report.read_text("utf-8")), dict), name
    key = tmp_path / "key.pem"
    key.write_text("mine\n", encoding="utf-8")
    key.chmod(0)
    refused = skillsite("keys", "new", "--out", key)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"skillsite: {key} exists; refusing to replace a key (choose another file)\n"
    parent = tmp_path / "skills"
    parent.mkdir()
    parent.chmod(0o300)
    made = skillsite("new", "fresh-skill", "--dir", parent)
    assert made.returncode == 0, made.stderr
    parent.chmod(0o755)
    assert (parent / "fresh-skill" / "SKILL.md").is_file()


def test_a_source_it_cannot_open_is_said_as_a_skill_problem(tmp_path: Path) -> None:
    """A SKILL.md or a source folder of mode 000 named on the command line was click's usage error
    (exit 2, "... is not readable"), while the same found beneath a folder is SK006, with its
    path: it is SK006 wherever it is (no SK013 "no SKILL.md found" for a folder that could not be
    listed), and the audit says it did not audit it (SK644).  A path beneath a folder of mode
    000 is said to be out of reach, not to be missing."""
    src = tmp_path / "src"
    for name in ("alpha", "beta"):
        write_skill(src, name, description=f"Does the {name} thing. Use when asked for {name}.")
    (src / "alpha" / "SKILL.md").chmod(0)
    (src / "beta").chmod(0)
    alpha, beta = src / "alpha" / "SKILL.md", src / "beta"
    checked = skillsite("validate", alpha, "--no-cache")
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.splitlines()[0] == f"{alpha}: error SK006 cannot read SKILL.md: Permission denied"
    for command in (["validate", beta, "--no-cache"], ["build", beta, "-o", tmp_path / "site", "-q"]):
        done = skillsite(*command)
        assert done.returncode == 1, done.stderr
        assert done.stdout.splitlines()[0] == f"{beta}: error SK006 cannot list folder: Permission denied"
        assert "SK013" not in done.stdout
    audited = skillsite("audit", beta)
    assert audited.returncode == 1, audited.stderr
    assert audited.stdout.startswith(f"{beta}:1:1: high SK644 file not audited: cannot list folder: Permission denied")
    hidden = skillsite("validate", beta / "SKILL.md")
    assert (hidden.returncode, hidden.stdout) == (2, "")
    assert hidden.stderr.endswith(f"Path '{beta / 'SKILL.md'}' cannot be reached: a folder on its way cannot be "
                                  "searched (permission denied).\n")
