"""The walk's shortcuts decide as the checks they stand in front of: the .gitignore rules' search
before ``check_file`` (:meth:`skillsite.source.ignore.Ignores.ignored`)."""
from __future__ import annotations

import pathspec
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.source.ignore import Ignores

#: Lines of .gitignore files: plain names, globs, anchored and folder rules, negations, comments.
LINES = ["*.log", "!keep.log", "build/", "/top", "a/**/b", "**/c", "d/*", "!d/e", "cache/", "!*/", "*", "#x",
         "", "x y", "\\#z", "[ab].md", "f?", "!f1", "**", "s/", "!s/t", "a/", "!a/b/"]
NAMES = st.sampled_from(["a", "b", "c", "d", "e", "f1", "fx", "top", "keep.log", "x.log", "build", "cache", "s", "t",
                         "x y", "#z", "a.md", "b.md", "é"])


def reference(rules: tuple[tuple[str, str, pathspec.GitIgnoreSpec], ...], rel: str, is_dir: bool) -> bool:
    """What ``Ignores.ignored`` answered before its shortcut: ``check_file`` of each rule, deepest first."""
    for root_prefix, folder, spec in reversed(rules):
        if folder and not rel.startswith(folder + "/"):
            continue
        verdict = spec.check_file(root_prefix + (rel[len(folder) + 1:] if folder else rel) + ("/" if is_dir else "")
                                  ).include
        if verdict is not None:
            return verdict
    return False


@settings(max_examples=400, deadline=None)
@given(files=st.lists(st.tuples(st.sampled_from(["", "mid/", "a/b/"]), st.sampled_from(["", "a", "a/b", "d"]),
                                st.lists(st.sampled_from(LINES), max_size=5)), max_size=4),
       path=st.lists(NAMES, min_size=1, max_size=4), is_dir=st.booleans())
def test_ignored_answers_as_check_file_of_each_rule(files, path, is_dir) -> None:
    rules = tuple((prefix if not folder else "", folder, pathspec.GitIgnoreSpec.from_lines(lines))
                  for prefix, folder, lines in files)
    rel = "/".join(path)
    assert Ignores(rules).ignored(rel, is_dir) == reference(rules, rel, is_dir)
