"""Two skills of one name that are not copies of each other (SK212): the discovery indexes list
the one a group of copies would make canonical (source order, priority, then ``skills/`` before
``.claude/skills/`` before other tool folders, then the shortest id), not the first by id.
A repository keeping ``skills/foo`` and a variant in ``.claude/skills/foo`` and in
``plugins/x/skills/foo`` got the plugin's variant (``.claude`` and ``plugins`` sort first)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Callable

from skillsite.config import SiteConfig
from skillsite.publish.build import build
from skillsite.publish.resident import Resident
from skillsite.source.catalog import check_catalog
from support import REPO, tree_bytes, write_skill

#: Three different skills named foo (no two of them copies): the main one bundles a file.
VARIANTS = {
    "skills/foo": ("Formats foo files carefully for the whole team. Use when formatting foo.",
                   "# Foo\n\nThe main one, with its own words about formatting things; see notes.md.\n"),
    ".claude/skills/foo": ("A variant that lints bar files quickly. Use when linting bar.",
                           "# Foo variant\n\nSomething else entirely, different text here about linting.\n"),
    "plugins/x/skills/foo": ("Another variant that packs baz. Use when packing baz.",
                             "# Foo plugin\n\nYet another body about packing baz things up.\n"),
}


def write_variants(src: Path, places: tuple[str, ...] = tuple(VARIANTS), priority: dict[str, int] | None = None
                   ) -> None:
    """The variants at ``places``; ``skills/foo`` with a bundled ``notes.md``."""
    for place in places:
        description, body = VARIANTS[place]
        extra = f"priority: {priority[place]}\n" if priority and place in priority else ""
        folder = write_skill(src, place, f"name: foo\ndescription: {description}\n{extra}", body=body)
        if place == "skills/foo":
            (folder / "notes.md").write_text("The main one's notes.\n", encoding="utf-8")


def indexed(out: Path) -> tuple[list[dict], list[dict]]:
    """The v0.2 index's rows and the v0.1 index's."""
    v02 = json.loads((out / ".well-known/agent-skills/index.json").read_text("utf-8"))["skills"]
    v01 = json.loads((out / ".well-known/skills/index.json").read_text("utf-8"))["skills"]
    return v02, v01


def not_listed(result, src: Path) -> list[str]:
    """The skills the build said the discovery index does not list, by folder."""
    return sorted(Path(d.path).parent.relative_to(src).as_posix() for d in result.diagnostics
                  if d.code == "SK212" and "already in the discovery index" in d.message)


def test_the_main_skills_folder_keeps_the_name_over_its_variants(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "site"
    write_variants(src)
    result = build([src], out, SiteConfig(), cache_dir=tmp_path / "cache")
    assert result.ok
    v02, v01 = indexed(out)
    main = VARIANTS["skills/foo"][0]
    assert [(row["name"], row["type"], row["description"]) for row in v02] == [("foo", "archive", main)]
    assert [(row["description"], sorted(row["files"])) for row in v01] == [(main, ["SKILL.md", "notes.md"])]
    with tarfile.open(out / ".well-known/agent-skills/archives/foo.tar.gz") as archive:
        assert sorted(archive.getnames()) == ["SKILL.md", "notes.md"]
        assert archive.extractfile("SKILL.md").read() == (src / "skills/foo/SKILL.md").read_bytes()
    assert (out / ".well-known/skills/foo/SKILL.md").read_bytes() == (src / "skills/foo/SKILL.md").read_bytes()
    assert not_listed(result, src) == [".claude/skills/foo", "plugins/x/skills/foo"]


def test_priority_then_source_order_come_before_the_folder(tmp_path: Path) -> None:
    """A higher priority takes the name from skills/; an earlier source takes it from a higher priority."""
    src, out = tmp_path / "src", tmp_path / "site"
    write_variants(src, priority={".claude/skills/foo": 5})
    result = build([src], out, SiteConfig())
    assert result.ok and not_listed(result, src) == ["plugins/x/skills/foo", "skills/foo"]
    assert [row["description"] for row in indexed(out)[0]] == [VARIANTS[".claude/skills/foo"][0]]
    first, second = tmp_path / "first", tmp_path / "second"
    write_variants(first, ("plugins/x/skills/foo",))
    write_variants(second, ("skills/foo", ".claude/skills/foo"), priority={".claude/skills/foo": 5})
    assert build([first, second], out, SiteConfig()).ok
    assert [row["description"] for row in indexed(out)[0]] == [VARIANTS["plugins/x/skills/foo"][0]]


def test_copies_prefer_orders_the_folders(tmp_path: Path) -> None:
    """``copies.prefer`` putting .claude/skills/ first gives it the name."""
    src, out = tmp_path / "src", tmp_path / "site"
    write_variants(src)
    config = SiteConfig(copies={"prefer": [".claude/skills/", "skills/"]})
    assert build([src], out, config).ok
    assert [row["description"] for row in indexed(out)[0]] == [VARIANTS[".claude/skills/foo"][0]]


def test_a_rebuild_that_moves_the_name_equals_a_cold_build(tmp_path: Path) -> None:
    """The variants alone, then skills/foo added: rebuilt from the cache and inside one process
    (as ``serve`` does), skills/foo takes the name and its archive, byte for byte as a cold build."""
    src, out, cold = tmp_path / "src", tmp_path / "site", tmp_path / "cold"
    write_variants(src, (".claude/skills/foo", "plugins/x/skills/foo"))
    resident = Resident()
    assert build([src], out, SiteConfig(), cache_dir=tmp_path / "cache", resident=resident).ok
    assert [row["type"] for row in indexed(out)[0]] == ["skill-md"]
    write_variants(src, ("skills/foo",))
    resident.saw([str((src / path).resolve()) for path in ("skills", "skills/foo", "skills/foo/SKILL.md",
                                                          "skills/foo/notes.md")])
    assert build([src], out, SiteConfig(), cache_dir=tmp_path / "cache", resident=resident).ok
    assert [row["type"] for row in indexed(out)[0]] == ["archive"]
    assert build([src], cold, SiteConfig()).ok
    assert tree_bytes(out) == tree_bytes(cold)
    again = tmp_path / "again"
    assert build([src], again, SiteConfig(), cache_dir=tmp_path / "cache").ok
    assert tree_bytes(again) == tree_bytes(cold)


def holders(result, src: Path) -> list[tuple[str, str]]:
    """The catalog's SK212 warnings, as (folder said of, the skill it names as holding the name)."""
    return sorted((Path(d.path).parent.relative_to(src).as_posix(), d.message.split("'")[3])
                  for d in result.diagnostics if d.code == "SK212" and "also used by" in d.message)


def test_the_catalogs_warning_names_the_skill_the_indexes_list(tmp_path: Path) -> None:
    """The catalog's SK212 named the first skill by id (.claude/skills/foo) as holding the name the
    discovery indexes give skills/foo: it names the one they list, said of the others, whatever
    decides it (the folder, a priority, ``copies.prefer``), in ``validate`` too."""
    src, out = tmp_path / "src", tmp_path / "site"
    write_variants(src)
    result = build([src], out, SiteConfig())
    assert holders(result, src) == [(".claude/skills/foo", "skills/foo"), ("plugins/x/skills/foo", "skills/foo")]
    assert [(d.path, d.message) for d in check_catalog([src]).diagnostics if d.code == "SK212"] == \
        [(d.path, d.message) for d in result.diagnostics if d.code == "SK212" and "also used by" in d.message]
    config = SiteConfig(copies={"prefer": [".claude/skills/", "skills/"]})
    assert holders(build([src], out, config), src) == [("plugins/x/skills/foo", ".claude/skills/foo"),
                                                        ("skills/foo", ".claude/skills/foo")]
    write_variants(src, ("plugins/x/skills/foo",), priority={"plugins/x/skills/foo": 3})
    assert holders(build([src], out, SiteConfig()), src) == [(".claude/skills/foo", "plugins/x/skills/foo"),
                                                              ("skills/foo", "plugins/x/skills/foo")]


def test_a_rebuild_moves_the_catalogs_warning_as_a_cold_build(tmp_path: Path) -> None:
    """Inside one process (as ``serve`` builds), skills/foo added and then ``copies.prefer``
    changed move the warning as a cold build says it, and the outputs are the same bytes."""
    src, out = tmp_path / "src", tmp_path / "site"
    write_variants(src, (".claude/skills/foo", "plugins/x/skills/foo"))
    resident = Resident()
    first = build([src], out, SiteConfig(), cache_dir=tmp_path / "cache", resident=resident)
    assert holders(first, src) == [(".claude/skills/foo", "plugins/x/skills/foo")]  # a plugin's skills/ first
    write_variants(src, ("skills/foo",))
    resident.saw([str((src / path).resolve()) for path in ("skills", "skills/foo", "skills/foo/SKILL.md",
                                                          "skills/foo/notes.md")])
    for config, holder in ((SiteConfig(), "skills/foo"),
                           (SiteConfig(copies={"prefer": [".claude/skills/", "skills/"]}), ".claude/skills/foo")):
        warm = build([src], out, config, cache_dir=tmp_path / "cache", resident=resident)
        cold = build([src], tmp_path / "cold", config)
        assert {named for _, named in holders(warm, src)} == {holder}
        assert warm.diagnostics == cold.diagnostics
        assert tree_bytes(out) == tree_bytes(tmp_path / "cold")


def test_verify_checks_the_legacy_copies_against_the_skill_listed(tmp_path: Path) -> None:
    """``skillsite verify`` took the legacy index's copies under a shared name for the last skill of
    that name by id, and failed a genuine signed catalog: they are the listed one's, whatever its
    place; a copy changed still fails."""
    src = tmp_path / "src"
    write_variants(src, ("skills/foo",))
    write_skill(src, "zzz/skills/foo", f"name: foo\ndescription: {VARIANTS['skills/foo'][0]}\n",
                body="# Zzz\n\nSame description, another body.\n")
    write_skill(src, "zzz/skills/bar", "name: bar\ndescription: A bar skill. Use when barring.\n")
    write_skill(src, "bar", "name: bar\ndescription: Another bar skill. Use when barring.\n")
    out, verify = _signed_build(tmp_path, src)
    listed = {VARIANTS["skills/foo"][0], "Another bar skill. Use when barring."}  # bar, skills/foo: not last by id
    assert {row["description"] for row in indexed(out)[1]} == listed
    checked = verify(out)
    assert checked.returncode == 0 and "all hold" in checked.stdout, checked.stdout
    (out / ".well-known/skills/foo/notes.md").write_text("changed\n", encoding="utf-8")
    checked = verify(out)
    assert checked.returncode == 1 and "FAILED .well-known/skills/foo/notes.md" in checked.stdout


def _signed_build(tmp_path: Path, src: Path) -> tuple[Path, Callable[[Path], subprocess.CompletedProcess[str]]]:
    """``src`` built and signed into tmp_path/site, and a ``skillsite verify`` of a site with its key."""
    key, out = tmp_path / "k.pem", tmp_path / "site"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SKILLSITE_SIGNING_KEY", None)

    def skillsite(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True,
                              timeout=300, env=env, cwd=tmp_path)

    public = skillsite("keys", "new", "--out", str(key)).stdout.split()[-1]
    assert skillsite("build", str(src), "-o", str(out), "--sign-key", str(key), "--no-cache", "-q").returncode == 0
    return out, lambda site: skillsite("verify", str(site), "--trusted-key", public)


def test_verify_refuses_the_other_skills_genuine_copy_under_a_shared_name(tmp_path: Path) -> None:
    """Two skills named foo with one description: the build copies skills/foo into the legacy index.
    The other one's SKILL.md served there matches a manifest entry (a review found verify passing
    it once the holder was looked up by the copy itself): the signed file lists pin what was written."""
    src = tmp_path / "src"
    write_variants(src, ("skills/foo",))
    write_skill(src, ".claude/skills/foo", f"name: foo\ndescription: {VARIANTS['skills/foo'][0]}\n",
                body="# Other\n\nThe same description, another body.\n")
    out, verify = _signed_build(tmp_path, src)
    assert verify(out).returncode == 0
    copy = out / ".well-known/skills/foo/SKILL.md"
    copy.write_bytes((out / "skills/.claude/skills/foo/SKILL.md").read_bytes())
    checked = verify(out)
    assert checked.returncode == 1 and "FAILED .well-known/skills/foo/SKILL.md" in checked.stdout, checked.stdout


def test_verify_takes_the_copies_of_the_skill_whose_every_file_they_are(tmp_path: Path) -> None:
    """Two skills named baz with one SKILL.md and different scripts: the legacy copies are the
    listed skill's (skills/baz), which the first entry by id (.claude/skills/baz) is not; a genuine
    catalog verifies."""
    src = tmp_path / "src"
    for place, script in (("skills/baz", "echo listed\n"), (".claude/skills/baz", "echo variant\n")):
        write_skill(src, place, "name: baz\ndescription: A baz skill. Use when bazzing.\n", body="# Baz\n")
        (src / place / "scripts").mkdir()
        (src / place / "scripts/run.sh").write_text(script, encoding="utf-8")
    out, verify = _signed_build(tmp_path, src)
    assert (out / ".well-known/skills/baz/scripts/run.sh").read_text(encoding="utf-8") == "echo listed\n"
    checked = verify(out)
    assert checked.returncode == 0 and "all hold" in checked.stdout, checked.stdout
