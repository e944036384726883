"""A .gitignore line that would make ``re`` backtrack on a hostile name (several stars in one
name, several ``**``) is matched by RE2 (skillsite.source.ignore._expression), with the answers
pathspec's own expression gives; benchmarks/hostile_gitignore.py times both."""
from __future__ import annotations

import re

import pathspec
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillsite.source.ignore import Ignores, _matches, _tests, rules_of

#: Lines whose expression holds two or more repeats without bound past its start.
BACKTRACKING = ["a*c*b", "a*c*c*c*c*b", "a" + "*c" * 12 + "*b", "k*e*p*", "!*e*.l*g", "*.*d", "a/**/b/**/c",
                "/x*y*z", "[*]*a*"]
#: Lines with at most one: ``re`` answers them (faster on the short expressions most lines make).
PLAIN = ["*.log", "build/", "/top", "**/c", "d/*", "a/**", "**/s/**/e", "a\\*b*c", "f?"]


def test_a_line_that_would_backtrack_is_matched_by_re2():
    for line in BACKTRACKING:
        (test,) = _tests(pathspec.GitIgnoreSpec.from_lines([line]))
        assert not isinstance(test[1], re.Pattern) and type(test[1]).__module__.startswith("re2"), line
    for line in PLAIN:
        (test,) = _tests(pathspec.GitIgnoreSpec.from_lines([line]))
        assert isinstance(test[1], re.Pattern), line


def test_a_hostile_name_gets_the_answer_git_gives():
    """A name of an ``a`` and 160 ``c``: ``re`` took 1.8 s over ``a*c*c*c*c*b``."""
    walk = Ignores((("", "", rules_of("a*c*c*c*c*b\n")),))
    assert not walk.ignored("x/a" + "c" * 160, False)
    assert walk.ignored("x/a" + "c" * 160 + "b", False)
    assert walk.ignored("acxcycczcb", True) and not walk.ignored("acxcycczc", True)


GLOB = st.text(alphabet="ac*/?", min_size=1, max_size=10).filter(lambda line: "*" in line)
PATH = st.text(alphabet="acb/", min_size=1, max_size=14).filter(lambda path: "//" not in path and
                                                                 not path.startswith("/") and not path.endswith("/"))


@settings(max_examples=500, deadline=None)
@given(line=GLOB, path=PATH, is_dir=st.booleans())
@example(line="a*c*c*b", path="a/acccb", is_dir=True)
@example(line="**/a/**/c", path="a/c/a/c", is_dir=False)
def test_re2_answers_as_pathspec_s_own_expression(line, path, is_dir):
    spec = rules_of(line + "\n")
    if spec is None:
        return
    for test in _tests(spec):
        own = (test[0], re.compile(test[1].pattern), test[2])   # pathspec's expression, as re reads it
        assert _matches(test, path, is_dir) == _matches(own, path, is_dir), (line, test[1].pattern)
