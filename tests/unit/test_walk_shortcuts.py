"""The walk's shortcuts decide as the checks they stand in front of: the .gitignore rules' search
before ``check_file`` (:meth:`skillsite.source.ignore.Ignores.ignored`), and the first character
before :func:`~skillsite.agent.vcs_names.is_vcs_folder` (:func:`skillsite.source.discover.is_tool_folder`)."""
from __future__ import annotations

import pathspec
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillsite.agent.vcs_names import VCS_FOLDERS, is_vcs_folder
from skillsite.source.discover import is_tool_folder
from skillsite.source.ignore import TOOL_FOLDERS, Ignores

#: Lines of .gitignore files: plain names, globs, anchored and folder rules, negations, comments.
LINES = ["*.log", "!keep.log", "build/", "/top", "a/**/b", "**/c", "d/*", "!d/e", "cache/", "!*/", "*", "#x",
         "", "x y", "\\#z", "[ab].md", "f?", "!f1", "**", "s/", "!s/t", "a/", "!a/b/"]
NAMES = st.sampled_from(["a", "b", "c", "d", "e", "f1", "fx", "top", "keep.log", "x.log", "build", "cache", "s", "t",
                         "x y", "#z", "a.md", "b.md", "é"])


def reference(rules: tuple[tuple[str, str, pathspec.GitIgnoreSpec], ...], rel: str, is_dir: bool) -> bool:
    """What ``Ignores.ignored`` answers without its shortcut: ``check_file`` of each rule, deepest
    first; for a folder, of the rule's patterns with the last match winning, as git decides."""
    for root_prefix, folder, spec in reversed(rules):
        if folder and not rel.startswith(folder + "/"):
            continue
        matching = pathspec.PathSpec(spec.patterns) if is_dir else spec
        verdict = matching.check_file(root_prefix + (rel[len(folder) + 1:] if folder else rel)
                                      + ("/" if is_dir else "")).include
        if verdict is not None:
            return verdict
    return False


@settings(max_examples=400, deadline=None)
@given(files=st.lists(st.tuples(st.sampled_from(["", "mid/", "a/b/"]), st.sampled_from(["", "a", "a/b", "d"]),
                                st.lists(st.sampled_from(LINES), max_size=5)), max_size=4),
       path=st.lists(NAMES, min_size=1, max_size=4), is_dir=st.booleans())
@example(files=[("", "", ["*", "!*/"])], path=["a"], is_dir=True)   # git's whitelist idiom: no folder ignored
def test_ignored_answers_as_check_file_of_each_rule(files, path, is_dir) -> None:
    rules = tuple((prefix if not folder else "", folder, pathspec.GitIgnoreSpec.from_lines(lines))
                  for prefix, folder, lines in files)
    rel = "/".join(path)
    assert Ignores(rules).ignored(rel, is_dir) == reference(rules, rel, is_dir)


def test_every_spelling_of_a_version_control_folder_is_a_tool_folder() -> None:
    spellings = [*VCS_FOLDERS, "git~1", "GIT~1", ".GIT", ".Git", "_DARCS", ".g\u200cit", "\u200b.git", ".git.",
                 ".git ", ".git::$INDEX_ALLOCATION", ".\ufeffhg", ".ſvn", "\u212a"]
    for name in spellings:
        assert is_tool_folder(name) == (name in TOOL_FOLDERS or is_vcs_folder(name)), name
    assert all(is_tool_folder(name) for name in spellings[:-2])
    assert is_tool_folder(".ſvn") == is_vcs_folder(".ſvn")


@given(st.text(min_size=0, max_size=8))
def test_is_tool_folder_is_the_full_check(name: str) -> None:
    assert is_tool_folder(name) == (name in TOOL_FOLDERS or is_vcs_folder(name))


def test_each_version_control_name_spelled_with_any_first_character_is_told_apart() -> None:
    tails = sorted({name[1:] for name in (*VCS_FOLDERS, "git~1")})
    for code in range(0x250):
        for tail in tails:
            name = chr(code) + tail
            assert is_tool_folder(name) == (name in TOOL_FOLDERS or is_vcs_folder(name)), name
