"""What the audit reads in a skill folder, taken from discovery's walk instead of a second one
(#47): where discovery saw every file the audit reads, its listing is the audit's, stamp for
stamp and in the audit's order; where it left something out (tool folders, ignored or excluded
files, a symlinked folder, names that are not UTF-8...) the folder is listed again.  Either
way the listings a build keys the audit by are those a walk of each folder gives."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from support import EXAMPLES, write_skill
from skillsite.audit.files import audited_stamps
from skillsite.publish.state import AuditListing, audit_listings
from skillsite.source.discover import discover

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample-corpus"


def _check_every_listing(root: Path, exclude: tuple[str, ...] = ()) -> dict[str, bool]:
    """Each skill's listing as discovery gives it equals a walk's; by skill id, whether
    discovery's was taken."""
    found = discover([root], exclude)
    for source in found.sources:
        if source.audited is not None:
            assert list(source.audited) == audited_stamps(source.dir), source.id
    assert audit_listings(found.sources, jobs=2) == [AuditListing.of(s.dir) for s in found.sources]
    return {s.id: s.audited is not None for s in found.sources}


@pytest.mark.parametrize("root", [CORPUS if CORPUS.is_dir() else SAMPLE, EXAMPLES], ids=["corpus", "examples"])
def test_real_trees_are_listed_once_with_the_audit_s_listing(root):
    taken = _check_every_listing(root)
    assert taken and all(taken.values())  # real skills: discovery saw all of each


def _odd_tree(src: Path) -> None:
    """Skills holding what discovery and the audit see differently, and what both see alike."""
    def skill(name: str) -> Path:
        return write_skill(src, name, body=f"# {name}\n", frontmatter=f"name: {name}\ndescription: Does {name}.\n")

    plain = skill("plain")
    (plain / "references").mkdir()
    (plain / "references" / "b.md").write_text("b")
    (plain / "a b%+@é.md").write_text("odd name")
    (plain / "zz").mkdir()
    (plain / "zz" / "a.md").write_text("deep")
    (plain / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(plain / "run.sh", 0o755)
    (plain / ".git").mkdir()                           # both leave a .git folder out
    (plain / ".git" / "HEAD").write_text("ref")
    (plain / "inside").symlink_to(plain / "references" / "b.md")  # a symlinked file inside: both read it
    (plain / "outside").symlink_to(src / "modules" / "SKILL.md")  # leaving the folder: neither
    (plain / "broken").symlink_to(plain / "missing")
    os.mkfifo(plain / "pipe")
    nested = skill("plain/nested")                     # its own skill: in neither listing of plain's
    (nested / "n.md").write_text("n")
    (skill("modules") / "node_modules").mkdir()        # discovery leaves tool folders out; the audit reads them
    (src / "modules" / "node_modules" / "x.js").write_text("x")
    (skill("ignored") / ".gitignore").write_text("secret.txt\n")
    (src / "ignored" / "secret.txt").write_text("s")
    (skill("linked-folder") / "data").symlink_to(src / "plain" / "references")
    (skill("git-file") / ".git").write_text("gitdir: ../.git/modules/x\n")
    (skill("venv") / "env").mkdir()
    (src / "venv" / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (skill("excluded") / "drafts").mkdir()
    (src / "excluded" / "drafts" / "d.md").write_text("d")
    odd_skill_file = skill("odd-nested") / "sub"
    (odd_skill_file / "SKILL.md").mkdir(parents=True)  # a folder so named beside a skill.md: a skill for
    (odd_skill_file / "skill.md").write_text("---\nname: x\n---\n")  # both (discovery says SK021)
    (src / "alias").mkdir()                            # its SKILL.md a symlink leaving it: the audit skips it
    (src / "alias" / "SKILL.md").symlink_to(src / "plain" / "SKILL.md")
    bad = skill("bad-name")
    with open(os.path.join(os.fsencode(bad), b"caf\xe9.md"), "wb") as out:
        out.write(b"latin-1 name")


def test_what_discovery_left_out_is_listed_again_and_the_rest_is_taken(tmp_path):
    src = tmp_path / "src"
    _odd_tree(src)
    taken = _check_every_listing(src, exclude=("drafts",))
    assert {skill for skill, was in taken.items() if not was} == {
        "modules", "ignored", "linked-folder", "git-file", "venv", "excluded", "bad-name"}
    assert taken["plain"] and taken["plain/nested"] and taken["alias"]
    assert taken["odd-nested"] and taken["odd-nested/sub"]  # discovery sees its nested skill as the audit does


def test_a_skill_with_more_files_than_the_audit_lists_is_listed_again(tmp_path):
    from skillsite.source.discover import AUDIT_MAX_FILES

    folder = write_skill(tmp_path / "src", "many", body="# many\n", frontmatter="name: many\ndescription: Many.\n")
    (folder / "files").mkdir()
    for n in range(AUDIT_MAX_FILES):
        (folder / "files" / f"{n:05d}.txt").write_text("")
    assert _check_every_listing(tmp_path / "src") == {"many": False}
