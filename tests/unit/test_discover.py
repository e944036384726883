"""Discovery: ids, nesting, hidden folders, symlinks, several roots, bundled files."""
from __future__ import annotations

import os

from pathlib import Path

from support import write_skill
from skillsite.source.discover import discover


def ids(found) -> list[str]:
    return [s.id for s in found.sources]


def codes(found) -> list[str]:
    return sorted(d.code for d in found.diagnostics)


def test_nested_ids_hidden_folders_and_skipped_folders(tmp_path):
    write_skill(tmp_path, "sven")
    write_skill(tmp_path, "sven/plan")
    write_skill(tmp_path, ".github/skills/gh")
    write_skill(tmp_path, "node_modules/pkg/nm")
    write_skill(tmp_path, ".git/x/inside-git")
    found = discover([tmp_path])
    assert ids(found) == [".github/skills/gh", "sven", "sven/plan"]
    by_id = {s.id: s for s in found.sources}
    assert by_id["sven/plan"].parent_id == "sven" and by_id["sven"].parent_id is None


def test_a_root_that_is_a_skill_is_named_after_its_folder(tmp_path):
    root = write_skill(tmp_path, "sven")
    write_skill(root, "plan")
    found = discover([root])
    assert ids(found) == ["sven", "sven/plan"]
    assert found.sources[1].parent_id == "sven"


def test_bundled_files_exclude_nested_skills(tmp_path):
    parent = write_skill(tmp_path, "parent")
    (parent / "scripts").mkdir()
    (parent / "scripts" / "run.py").write_text("print(1)\n")
    (parent / "README.txt").write_text("hi\n")
    child = write_skill(parent, "child")
    (child / "notes.md").write_text("child notes\n")
    found = discover([tmp_path])
    files = {s.id: [f.path for f in s.files] for s in found.sources}
    assert files == {"parent": ["README.txt", "scripts/run.py"], "parent/child": ["notes.md"]}
    assert found.sources[0].files[0].bytes == 3


def test_lowercase_skill_md_is_accepted_with_a_warning(tmp_path):
    folder = tmp_path / "lower"
    folder.mkdir()
    (folder / "skill.md").write_text("---\nname: lower\ndescription: d\n---\n")
    found = discover([tmp_path])
    assert ids(found) == ["lower"] and codes(found) == ["SK001"]


def test_exclude_globs(tmp_path):
    write_skill(tmp_path, "keep")
    write_skill(tmp_path, "drafts/wip")
    write_skill(tmp_path, "other/tmp-skill")
    found = discover([tmp_path], exclude=["drafts", "tmp-*"])
    assert ids(found) == ["keep"]


def test_symlink_outside_the_root_is_not_followed(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    write_skill(outside, "secret")
    root.mkdir()
    os.symlink(outside / "secret", root / "secret")
    found = discover([root])
    assert ids(found) == [] and codes(found) == ["SK002", "SK013"]


def test_a_skill_md_linked_from_outside_the_root_is_never_read(tmp_path):
    """The folder is real, its SKILL.md a symlink to a file outside the root: SK002 says it is
    not followed, and nothing of it is read or published (a root that is the skill's folder too)."""
    from skillsite.publish.build import build

    root, outside = tmp_path / "root", tmp_path / "outside.md"
    outside.write_text("---\nname: leak\ndescription: Outside. Use when testing.\n---\nSECRET\n", "utf-8")
    (root / "leak").mkdir(parents=True)
    os.symlink(outside, root / "leak" / "SKILL.md")
    write_skill(root, "plain")
    found = discover([root])
    assert ids(found) == ["plain"] and codes(found) == ["SK002"]
    assert ids(discover([root / "leak"])) == [] and codes(discover([root / "leak"])) == ["SK002", "SK013"]
    assert build([root], tmp_path / "site").ok
    assert not [p for p in (tmp_path / "site").rglob("*") if p.is_file() and b"SECRET" in p.read_bytes()]


def test_symlink_loop_is_safe(tmp_path):
    skill = write_skill(tmp_path, "a")
    os.symlink("..", skill / "loop")
    found = discover([tmp_path])
    assert ids(found) == ["a"] and codes(found) == ["SK005"]


def test_links_that_lead_round_in_a_circle_are_called_loops_and_a_dangling_one_broken(tmp_path):
    """A SKILL.md linked to itself, two links to each other and a chain ending in a loop are
    loops, not 'broken'; a link to nothing is broken."""
    write_skill(tmp_path, "plain")
    for name in ("self", "mutual", "chain", "dangling"):
        (tmp_path / name).mkdir()
    os.symlink("SKILL.md", tmp_path / "self" / "SKILL.md")
    os.symlink("other", tmp_path / "mutual" / "SKILL.md")
    os.symlink("SKILL.md", tmp_path / "mutual" / "other")
    os.symlink("../mutual/SKILL.md", tmp_path / "chain" / "SKILL.md")
    os.symlink("nowhere", tmp_path / "dangling" / "SKILL.md")
    found = discover([tmp_path])
    said = {Path(d.path).relative_to(tmp_path).as_posix(): d.message for d in found.diagnostics if d.code == "SK005"}
    loop = "symlink loop (its links lead round in a circle); not followed"
    assert said == {"chain/SKILL.md": loop, "mutual/SKILL.md": loop, "mutual/other": loop, "self/SKILL.md": loop,
                    "dangling/SKILL.md": "broken symlink; not followed"}
    assert ids(found) == ["plain"]


def test_a_folder_reached_twice_is_reported_once_under_the_shortest_id(tmp_path):
    write_skill(tmp_path, "engineering/team/review")
    (tmp_path / ".codex" / "skills").mkdir(parents=True)
    os.symlink("../../engineering/team/review", tmp_path / ".codex" / "skills" / "review")
    os.symlink("engineering/team/review", tmp_path / "review")
    found = discover([tmp_path])
    assert ids(found) == ["review"]
    assert codes(found) == ["SK003", "SK003"]


def test_links_that_multiply_a_folder_stop_after_a_few_walks_of_it(tmp_path):
    """Ten links in each of five folders to the next one: a skill of 6 files and 50 links
    published 246,943 files (1.5 GB in 78 s), ten times more for each level more.  A real folder
    is listed through symlinked folders MAX_LINKED_WALKS times at most; past that, SK005 once."""
    import skillsite.source.discover as discovery

    skill = write_skill(tmp_path, "a")
    for level in range(6):
        (skill / f"d{level}").mkdir()
        (skill / f"d{level}" / "f.md").write_text(f"level {level}\n")
    for level in range(5):
        for link in range(10):
            os.symlink(f"../d{level + 1}", skill / f"d{level}" / f"to{link}")
    found = discover([tmp_path])
    files = [f.path for f in found.sources[0].files]
    assert len(files) <= 6 * (1 + discovery.MAX_LINKED_WALKS) and "d0/to0/f.md" in files
    said = [d.message for d in found.diagnostics]
    assert said and set(said) == {f"folder reached through symlinks more than {discovery.MAX_LINKED_WALKS} times; "
                                  "not followed here or further"}
    assert len(said) <= 5  # once a folder
    assert [f.path for f in discover([tmp_path]).sources[0].files] == files  # walked again in order: the same


def test_symlinked_bundled_file_leaving_the_skill_is_not_published(tmp_path):
    (tmp_path / "shared.txt").write_text("shared\n")
    skill = write_skill(tmp_path, "s")
    os.symlink("../shared.txt", skill / "shared.txt")
    found = discover([tmp_path])
    assert found.sources[0].files == () and codes(found) == ["SK007"]


def test_later_root_overrides_earlier(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    write_skill(first, "same", description="first")
    write_skill(second, "same", description="second")
    write_skill(first, "only-first")
    found = discover([first, second])
    assert ids(found) == ["only-first", "same"]
    assert found.sources[1].root == second and codes(found) == ["SK004"]


def test_fifty_deep_nesting(tmp_path):
    rel = "/".join(f"d{i}" for i in range(1, 51))
    write_skill(tmp_path, rel)
    found = discover([tmp_path])
    assert ids(found) == [rel]


def test_published_output_inside_the_sources_is_not_read(tmp_path):
    write_skill(tmp_path, "real")
    write_skill(tmp_path, "_site/skills/real")
    (tmp_path / "_site" / ".skillsite-output").write_text("")
    assert ids(discover([tmp_path])) == ["real"]


def test_display_paths_keep_the_root_as_given(tmp_path, monkeypatch):
    write_skill(tmp_path, "x")
    monkeypatch.chdir(tmp_path)
    found = discover([Path(".")])
    assert found.sources[0].display_path == os.path.join("x", "SKILL.md")


def test_a_walk_cut_short_reaches_the_same_folders_every_time(tmp_path, monkeypatch):
    """Listings are taken in the file system's order, except when too many folders stop the
    walk: then it is walked again in name order, so what is found never varies."""
    import skillsite.source.discover as discovery

    for name in ("zeta", "alpha", "mid", "beta", "omega", "gamma"):
        write_skill(tmp_path, name)
    monkeypatch.setattr(discovery, "MAX_VISITED_DIRS", 4)
    found = discover([tmp_path])
    assert [d.code for d in found.diagnostics] == ["SK008"]
    assert [s.id for s in found.sources] == ["alpha", "beta", "gamma"]  # the first folders in name order


def test_hostile_symlinks_and_overriding_roots(tmp_path):
    """Symlinks out of the root, a loop, a folder reached twice, a bundled file leaving its skill,
    and a later root overriding an earlier one's skill: each noticed, the walk unaffected by
    whether files are stat'ed."""
    from make_hostile import make_hostile_tree

    hostile = make_hostile_tree(tmp_path / "hostile")
    first, second = tmp_path / "one", tmp_path / "two"
    for root in (first, second):
        write_skill(root, "same")
        write_skill(root, f"only-{root.name}/nested/deeper")
    found = discover([hostile, first, second])
    assert {d.code for d in found.diagnostics} >= {"SK002", "SK003", "SK004", "SK005", "SK007"}
    same = next(s for s in found.sources if s.id == "same")
    assert same.root == second  # the later root wins
    names_only = discover([hostile, first, second], stat_files=False)
    assert [s.id for s in names_only.sources] == [s.id for s in found.sources]
    assert names_only.diagnostics == found.diagnostics


def test_special_files_are_skipped_with_a_diagnostic(tmp_path):
    """A pipe as SKILL.md or as a bundled file is never read (reading it would wait forever)."""
    write_skill(tmp_path, "kept")
    os.mkfifo(tmp_path / "kept" / "notes.txt")
    (tmp_path / "piped").mkdir()
    os.mkfifo(tmp_path / "piped" / "SKILL.md")
    found = discover([tmp_path])
    assert [s.id for s in found.sources] == ["kept"]
    assert [f.path for f in found.sources[0].files] == []
    assert sorted((d.code, d.path, d.message) for d in found.diagnostics) == [
        ("SK012", str(tmp_path / "kept" / "notes.txt"), "a named pipe (FIFO), not a regular file; skipped"),
        ("SK012", str(tmp_path / "piped" / "SKILL.md"), "a named pipe (FIFO), not a regular file; skipped")]


def test_tool_folders_and_virtual_environments_are_not_searched(tmp_path):
    write_skill(tmp_path, "kept")
    for folder in ("node_modules/pkg", ".git/hooks", "__pycache__/x", ".tox/py/lib"):
        write_skill(tmp_path, f"{folder}/inside")
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    write_skill(tmp_path, "env/lib/site-packages/tool/skill")
    write_skill(tmp_path, "conda/conda-meta")
    write_skill(tmp_path, "conda/pkgs/inside")
    assert [s.id for s in discover([tmp_path]).sources] == ["kept"]


def test_a_skill_in_a_folder_never_searched_is_named_and_fails_the_audit(tmp_path):
    """A pull request hid a skill from validate and the audit ("0 skills audited", exit 0) by
    naming its folder node_modules or __pycache__, or by putting a pyvenv.cfg or a catalog's
    marker beside its SKILL.md, while agents reading the folder as a skill still load it.  Each
    such SKILL.md is named (SK025) and is a high problem of the audit's report; a skill deeper
    inside such a folder (a package's) and a version-control folder's are not."""
    from skillsite.agent.site_urls import OUTPUT_MARKER
    from skillsite.audit.report import audit_paths

    for folder in ("node_modules", "__pycache__", "venv", "out", ".git", "node_modules/pkg/inside"):
        write_skill(tmp_path, folder)
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "out" / OUTPUT_MARKER).write_text("")
    found = discover([tmp_path])
    named = sorted((d.path, d.message.split(":")[0]) for d in found.diagnostics if d.code == "SK025")
    assert named == [(str(tmp_path / folder / "SKILL.md"), f"'{folder}' is never searched ({kind})")
                     for folder, kind in (("__pycache__", "a tool's folder"), ("node_modules", "a tool's folder"),
                                          ("out", "a published catalog"), ("venv", "a virtual environment"))]
    assert not found.sources
    report = audit_paths([tmp_path])
    assert sorted((p.path, p.severity, p.code) for p in report.problems) == [
        (path, "high", "SK644") for path, _ in named]


def test_a_version_control_folder_however_spelt_is_neither_searched_nor_published(tmp_path):
    """``.GIT`` is ``.git`` on macOS and Windows: a catalog publishing it would plant git's
    config and hooks in every installed copy (and the installer refuses such a path)."""
    write_skill(tmp_path, "kept")
    for name in (".GIT", ".Hg", ".git.", "GIT~1", ".g\u200cit"):
        (tmp_path / "kept" / name).mkdir()
        (tmp_path / "kept" / name / "config").write_text("[core]\n\tfsmonitor = touch /tmp/pwned\n")
        write_skill(tmp_path, f"{name}/inside")
    (tmp_path / "kept" / ".github").mkdir()
    (tmp_path / "kept" / ".github" / "ci.yml").write_text("on: push\n")
    found = discover([tmp_path])
    assert [s.id for s in found.sources] == ["kept"]
    assert [f.path for f in found.sources[0].files] == [".github/ci.yml"]


def test_what_gitignore_files_ignore_is_not_searched(tmp_path):
    """git's rules: each .gitignore applies to its folder and below, a deeper one has the last
    word, a negated pattern takes a path back; those above the root, up to the repository's
    root, apply too; a root the user names is searched even if git ignores it."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("drafts/\n*-wip\n/skills/scratch\n")
    root = repo / "skills"
    for rel in ("kept", "drafts/one", "team/drafts/two", "thing-wip", "scratch", "team/scratch",
                "team/private/hidden", "team/private/shown", "team/notes/kept-too"):
        write_skill(root, rel)
    (root / "team" / ".gitignore").write_text("private/\n!private/shown\nnotes/**/*.txt\n")
    (root / "team" / "notes" / "kept-too" / "a.txt").write_text("ignored")
    (root / "team" / "notes" / "kept-too" / "b.md").write_text("kept")
    found = discover([root])
    assert [s.id for s in found.sources] == ["kept", "team/notes/kept-too", "team/scratch"]
    assert [f.path for f in found.sources[1].files] == ["b.md"]
    (repo / ".gitignore").write_text("skills/\n")
    assert len(discover([root]).sources) == 7   # named as a source: searched all the same (but private/)
    assert len(discover([repo]).sources) == 0


NOT_SEARCHED_ALL = "no SKILL.md found in the part of this folder that was searched; "


def sk013(found) -> list[str]:
    return [d.message for d in found.diagnostics if d.code == "SK013"]


def test_no_skill_beside_a_folder_named_in_bytes_that_are_not_utf8_is_said_of_the_part_searched(tmp_path):
    """A tree whose only skill lies in a folder whose name is not UTF-8 (skipped, SK011): SK013
    says no SKILL.md was found in the part searched, not under the whole folder; a file so named
    (which cannot be a SKILL.md) leaves the message as it is."""
    root = os.fsencode(tmp_path / "src")
    os.makedirs(os.path.join(root, b"a", b"bad\xff"))
    write_skill(Path(os.fsdecode(os.path.join(root, b"a", b"bad\xff"))), "hidden")
    found = discover([tmp_path / "src"])
    assert ids(found) == [] and codes(found) == ["SK011", "SK013"]
    assert sk013(found) == [NOT_SEARCHED_ALL + "1 folder whose name is not valid UTF-8 was skipped"]
    files_only = os.fsencode(tmp_path / "files")
    os.makedirs(files_only)
    with open(os.path.join(files_only, b"notes\xff.md"), "wb") as handle:
        handle.write(b"text\n")
    assert sk013(discover([tmp_path / "files"])) == [
        "no SKILL.md found under this folder (a skill is a folder holding a SKILL.md: `skillsite new NAME` makes one)"]


def test_no_skill_above_the_depth_limit_is_said_of_the_part_searched(tmp_path):
    """A skill nested deeper than MAX_DEPTH folders is not searched for (SK008): SK013 says how
    many folders were skipped rather than that the tree holds no SKILL.md."""
    from skillsite.source.discover import MAX_DEPTH

    write_skill(tmp_path / "deep", "/".join(["d"] * (MAX_DEPTH + 1)))
    found = discover([tmp_path / "deep"])
    assert ids(found) == [] and codes(found) == ["SK008", "SK013"]
    assert sk013(found) == [NOT_SEARCHED_ALL + f"1 folder more than {MAX_DEPTH} levels deep was skipped"]


def test_no_skill_in_a_walk_cut_short_is_said_with_every_folder_left(tmp_path, monkeypatch):
    """A walk stopped at MAX_VISITED_DIRS (SK008) beside a folder named in bytes that are not
    UTF-8 (SK011): SK013 counts the folders left on the walk's stack and the skipped one."""
    import skillsite.source.discover as discovery

    for name in ("one", "two", "three", "four", "five", "six"):
        (tmp_path / name).mkdir()
    os.mkdir(os.path.join(os.fsencode(tmp_path), b"seven\xff"))
    monkeypatch.setattr(discovery, "MAX_VISITED_DIRS", 3)
    found = discover([tmp_path])
    assert codes(found) == ["SK008", "SK011", "SK013"]
    assert sk013(found) == [NOT_SEARCHED_ALL + (
        "1 folder whose name is not valid UTF-8 and 4 folders past the limit of 3 searched were skipped")]


def test_no_skill_in_a_tree_gitignored_or_excluded_says_how_many_folders_were_left_out(tmp_path):
    """A tree whose every skill folder .gitignore or ``exclude`` left out (a gitignored skills
    folder, an --exclude too broad): SK013 counts the folders each left out, where to look; files
    and tool folders (.git) left out are not counted, and nothing left out leaves the message as it is."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("skills/\nnotes.md\n")
    (repo / "notes.md").write_text("ignored, but no folder\n")
    write_skill(repo, "skills/one")
    found = discover([repo])
    assert ids(found) == [] and codes(found) == ["SK013"]
    assert sk013(found) == [NOT_SEARCHED_ALL + "1 folder was left out by .gitignore"]
    for rel in ("drafts/two", "more/three"):
        write_skill(repo, rel)
    assert sk013(discover([repo], exclude=["drafts", "more"])) == [
        NOT_SEARCHED_ALL + "2 folders were left out by exclude and 1 by .gitignore"]
    assert sk013(discover([repo], exclude=["*"])) == [NOT_SEARCHED_ALL + "3 folders were left out by exclude"]
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no skill\n")
    assert sk013(discover([tmp_path / "empty"], exclude=["*.txt"])) == [
        "no SKILL.md found under this folder (a skill is a folder holding a SKILL.md: `skillsite new NAME` makes one)"]


def test_a_folder_the_whitelist_idiom_unignores_is_searched(tmp_path):
    """git's whitelist idiom (``*``, then ``!*/``, then the files to keep) ignores no folder: the
    last pattern matching a folder has the last word (``git check-ignore -v deeper/`` names
    ``!*/``), so nested skills are found; other files stay ignored."""
    write_skill(tmp_path, "top")
    (tmp_path / "top" / ".gitignore").write_text("*\n!*/\n!SKILL.md\n", encoding="utf-8")
    write_skill(tmp_path, "top/deeper")
    write_skill(tmp_path, "top/deeper/inner")
    (tmp_path / "top" / "deeper" / "notes.txt").write_text("ignored", encoding="utf-8")
    found = discover([tmp_path])
    assert [s.id for s in found.sources] == ["top", "top/deeper", "top/deeper/inner"]
    assert [f.path for f in found.sources[1].files] == []


def test_a_later_folder_pattern_unignores_a_folder_an_earlier_name_ignores(tmp_path):
    """``build`` then ``!build/``: git keeps the folder (the last match); a file named so would stay ignored."""
    (tmp_path / ".gitignore").write_text("build\n!build/\n", encoding="utf-8")
    write_skill(tmp_path, "build")
    write_skill(tmp_path, "kept")
    assert [s.id for s in discover([tmp_path]).sources] == ["build", "kept"]


def test_a_source_folder_below_a_whitelist_gitignore_keeps_its_rules(tmp_path):
    """A source folder inside a repository whose root .gitignore is git's whitelist idiom (``*``,
    ``!*/``, ``!SKILL.md``): git does not ignore the folder (``!*/`` is the last match), so the
    rules above it still apply and a skill's other files stay ignored, as when the repository's
    root is searched (they were all bundled: the folder was taken for one git ignores).  A deeper
    .gitignore has the last word on the source folder, as on any other."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("*\n!*/\n!SKILL.md\n", encoding="utf-8")
    write_skill(repo, "skills/one")
    (repo / "skills" / "one" / "notes.txt").write_text("ignored", encoding="utf-8")
    for root, skill_id in ((repo, "skills/one"), (repo / "skills", "one")):
        found = discover([root])
        assert [(s.id, [f.path for f in s.files]) for s in found.sources] == [(skill_id, [])]
    # a deeper .gitignore has the last word on the source folder too: ``!skills/`` keeps it
    (repo / ".gitignore").write_text("skills/\n", encoding="utf-8")
    write_skill(repo, "team/skills/two")
    (repo / "team" / ".gitignore").write_text("!skills/\n*.txt\n", encoding="utf-8")
    (repo / "team" / "skills" / "two" / "notes.txt").write_text("ignored", encoding="utf-8")
    found = discover([repo / "team" / "skills"])
    assert [(s.id, [f.path for f in s.files]) for s in found.sources] == [("two", [])]


def test_a_pattern_through_a_folder_says_nothing_of_what_it_holds(tmp_path):
    """git matches a pattern against a path itself: a deeper .gitignore's ``!*/`` or ``!team/``
    takes back folders, not the files in them, so ``*.txt`` above still ignores those
    (``git check-ignore`` names ``*.txt``; they were bundled)."""
    (tmp_path / ".gitignore").write_text("*.txt\n", encoding="utf-8")
    write_skill(tmp_path, "one/team/two")
    (tmp_path / "one" / ".gitignore").write_text("!*/\n!team/\n", encoding="utf-8")
    (tmp_path / "one" / "team" / "two" / "notes.txt").write_text("ignored", encoding="utf-8")
    (tmp_path / "one" / "team" / "two" / "notes.md").write_text("kept", encoding="utf-8")
    found = discover([tmp_path])
    assert [(s.id, [f.path for f in s.files]) for s in found.sources] == [("one/team/two", ["notes.md"])]


def test_what_a_folder_holds_is_ignored_not_the_folder(tmp_path):
    """``a/**`` matches what ``a`` holds, not ``a``: ``!a/skill/`` then takes that skill back (git
    lists a/skill/SKILL.md; nothing was found); ``**/drafts/**`` ignores a folder inside a
    ``drafts`` folder, ``drafts/drafts`` too."""
    (tmp_path / ".gitignore").write_text("a/**\n!a/skill/\n!a/skill/**\n**/drafts/**\n", encoding="utf-8")
    write_skill(tmp_path, "a/skill")
    write_skill(tmp_path, "a/other")
    write_skill(tmp_path, "drafts")
    write_skill(tmp_path, "drafts/drafts/inner")
    assert [s.id for s in discover([tmp_path]).sources] == ["a/skill", "drafts"]


def test_a_gitignore_line_pathspec_cannot_read_matches_nothing(tmp_path):
    """``!`` alone, a ``\\`` at the end and ``[z-a]`` (pathspec refuses each) match nothing, as
    in git; the file's other lines still apply (discovery stopped with a traceback)."""
    write_skill(tmp_path, "one")
    (tmp_path / ".gitignore").write_text("!\n\\\n[z-a]\n*.txt\n", encoding="utf-8")
    (tmp_path / "one" / "notes.txt").write_text("ignored", encoding="utf-8")
    (tmp_path / "one" / "notes.md").write_text("kept", encoding="utf-8")
    found = discover([tmp_path])
    assert [(s.id, [f.path for f in s.files]) for s in found.sources] == [("one", ["notes.md"])]


def test_a_source_folder_is_decided_as_the_walk_decides_a_folder(tmp_path):
    """``a/**`` ignores what ``a`` holds, not ``a``: named as a source, ``a`` keeps the rules above
    it, as when the repository is searched (they were dropped, as for a folder git ignores, and
    what they ignore was bundled); a folder above the source that git ignores still drops them."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("a/**\n!a/one/\n!a/one/SKILL.md\n", encoding="utf-8")
    write_skill(repo, "a/one")
    (repo / "a" / "one" / "notes.txt").write_text("ignored", encoding="utf-8")
    for root, skill_id in ((repo, "a/one"), (repo / "a", "one"), (repo / "a" / "one", "one")):
        found = discover([root])
        assert [(s.id, [f.path for f in s.files]) for s in found.sources] == [(skill_id, [])], root
    (repo / ".gitignore").write_text("/b/\n*.txt\n", encoding="utf-8")
    write_skill(repo, "b/two")
    (repo / "b" / "two" / "notes.txt").write_text("named: kept", encoding="utf-8")
    assert [[f.path for f in s.files] for s in discover([repo / "b" / "two"]).sources] == [["notes.txt"]]


def test_a_folder_named_skill_md_is_said_and_a_skill_md_file_beside_it_is_read(tmp_path):
    """A folder named SKILL.md is a mistake: it is said (SK021), and the lowercase skill.md beside
    it makes the folder a skill (the folder of that name then holds no bundled file: its place is
    the published SKILL.md's).  The folder's skill used to vanish with nothing said but SK013."""
    write_skill(tmp_path, "p", body="# P\n").joinpath("SKILL.md").rename(tmp_path / "p" / "skill.md")
    (tmp_path / "p" / "SKILL.md").mkdir()
    (tmp_path / "p" / "SKILL.md" / "notes.md").write_text("notes\n")
    (tmp_path / "alone" / "SKILL.md").mkdir(parents=True)
    found = discover([tmp_path])
    assert [s.id for s in found.sources] == ["p"] and found.sources[0].skill_md.name == "skill.md"
    said = sorted((d.code, Path(d.path).relative_to(tmp_path).as_posix()) for d in found.diagnostics)
    assert said == [("SK001", "p/skill.md"), ("SK021", "alone/SKILL.md"), ("SK021", "p/SKILL.md")]


def test_a_skill_file_in_another_case_is_said_not_skipped_in_silence(tmp_path):
    """``Skill.md`` or ``SKILL.MD`` makes no skill (agents look for SKILL.md), but the folder was
    left out with nothing said but SK013: SK023 names the file.  Beside a SKILL.md it is a
    bundled file, and nothing is said."""
    write_skill(tmp_path, "titled", body="# T\n").joinpath("SKILL.md").rename(tmp_path / "titled" / "Skill.md")
    write_skill(tmp_path, "shouting", body="# S\n").joinpath("SKILL.md").rename(tmp_path / "shouting" / "SKILL.MD")
    write_skill(tmp_path, "fine", body="# F\n").joinpath("Skill.md").write_text("notes\n")
    (tmp_path / "folder" / "Skill.md").mkdir(parents=True)
    found = discover([tmp_path])
    assert [s.id for s in found.sources] == ["fine"]
    said = sorted((d.code, Path(d.path).relative_to(tmp_path).as_posix(), d.message) for d in found.diagnostics)
    assert said == [("SK023", "shouting/SKILL.MD", "file is named 'SKILL.MD'; a skill's file is 'SKILL.md' (or "
                                                   "'skill.md'), so this folder is not read as a skill"),
                    ("SK023", "titled/Skill.md", "file is named 'Skill.md'; a skill's file is 'SKILL.md' (or "
                                                 "'skill.md'), so this folder is not read as a skill")]
