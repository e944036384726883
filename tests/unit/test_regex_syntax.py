"""The grammar of trigger patterns: what parses, what is refused and why, and the canonical
re-emitted form that the loader runs (same matches as the pattern as written)."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.agent.regex_syntax import (Alt, Anchor, Category, Char, CharClass, Dot, Look, Range, Refused,
                                          Repeat, Scoped, Seq, emit, parse)

CANONICAL = [
    (r"\N{DIGIT ONE}+\d+x", r"1+\d+x"),
    (r"\x31\061\u0031\U00000031[1]", "1111[1]"),
    (r"(?i)K\u212a", r"(?i)K\u212a"),
    ("deploy(ment)? to (prod|staging)", r"deploy(?:ment)?\ to\ (?:prod|staging)"),
    ("(?P<n>a|b)*?c", "(?:a|b)*?c"),
    ("a{,3}b{2}c{2,}d{1,1}", "a{0,3}b{2}c{2,}d"),
    ("[]a-]", r"[\]a\-]"),
    ("[^]a-z]", r"[^\]a-z]"),
    (r"[\b\0\12\141]", r"[\x08\x00\x0aa]"),
    (r"\ é\é\n", r"\ \xe9\xe9\x0a"),
    ("(?<=#)x(?!y)", r"(?<=\#)x(?!y)"),
    ("(?as:.)", "(?as:.)"),
    ("(?si)x", "(?is)x"),
    ("a|", "a|"),
    ("((a))", "a"),
    ("(?:a|b)|c", "(?:a|b)|c"),
    ("]}", r"\]\}"),
]

REFUSED_BY_GRAMMAR = {
    r"(a)\1": "backreference",
    r"\18": "backreference",
    "(?P<w>a)(?P=w)": "backreference",
    "(?(1)a|b)": "conditional",
    "(?#note)": "comment",
    "(?x)a b": "verbose",
    "(?>a)": "atomic",
    "a*+": "possessive",
    "a**": "quantifier right after another",
    "a{1,2}{3}": "quantifier right after another",
    "a{": "bare '{'",
    "x{foo}": "bare '{'",
    "a{,}": "bare '{'",
    "a{1001}": "more than 1000",
    "a{3,2}": "minimum is above its maximum",
    "a{0}": "zero times",
    "*a": "nothing to repeat",
    "^*": "takes no characters",
    r"\b+": "takes no characters",
    "(?=a)*": "takes no characters",
    "()+": "takes no characters",
    "a(?i)b": "flags after the start",
    "(?-i:a)": "only a, i, m and s",
    "(?u)a": "only a, i, m and s",
    r"\z": "unknown escape",
    r"\N{NO SUCH NAME}": "names no single character",
    r"\x4": "incomplete escape",
    r"\U00110000": "beyond Unicode",
    r"\400": "above \\377",
    "[": "never closed",
    "(a": "never closed",
    "a)": "unbalanced",
    "[[]": "inside a class",
    "[a--z]": "'--' inside a class",
    "[a&&b]": "inside a class",
    r"[\d-z]": "bad character range",
    "[z-a]": "bad character range",
    r"[\A]": "inside a class",
    "(?<name>a)": "unknown group extension",
    "a\\": "ends with a backslash",
}


@pytest.mark.parametrize(("pattern", "canonical"), CANONICAL)
def test_patterns_are_re_emitted_in_one_canonical_spelling(pattern: str, canonical: str) -> None:
    tree = parse(pattern)
    assert emit(tree) == canonical
    assert parse(canonical) == tree


@pytest.mark.parametrize(("pattern", "reason"), sorted(REFUSED_BY_GRAMMAR.items()))
def test_what_is_outside_the_grammar_is_refused_with_its_reason(pattern: str, reason: str) -> None:
    with pytest.raises(Refused, match=re.escape(reason)):
        parse(pattern)


def test_the_tree_names_each_kind_of_part() -> None:
    tree = parse(r"(?i)^[^a-c\d](?=x)(?s:.)\w*?|\b")
    assert tree.flags == "i"
    assert tree.body == Alt((
        Seq((Anchor("^"), CharClass(True, (Range(97, 99), Category("d"))), Look("=", Char(120)),
             Scoped("s", Dot()), Repeat(Category("w"), 0, None, lazy=True))),
        Anchor("b")))


def test_refusals_say_where() -> None:
    with pytest.raises(Refused, match=r"uses a backreference \(at 3\)"):
        parse(r"(a)\1")


# Building blocks for patterns whose meaning Python itself settles: the canonical form must match
# exactly where the pattern as written does.
_PIECES = st.sampled_from([
    "a", "b", "k", "K", "1", "_", "-", " ", ".", r"\.", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S",
    r"\x31", r"\061", r"\u0031", r"\N{DIGIT ONE}", r"\u212a", r"\u017f", "é", r"\n", "[1]", r"[\d]",
    "[a-c]", "[^a]", r"[\w-]", "[]x]", r"[\]\-^]", "^", "$", r"\b", r"\B", r"\A", r"\Z",
])


def _wrap(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map("|".join).map("({})".format),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "*?", "{2}", "{1,3}", "{,2}", "{2,}"]))
        .map(lambda t: f"(?:{t[0]}){t[1]}"),
        inner.map("(?P<g>{})".format), inner.map("(?=({}))".format), inner.map("(?!{})".format),
        inner.map("(?i:{})".format), inner.map("(?s:{})".format), inner.map("(?a:{})".format),
    )


PATTERNS = st.recursive(_PIECES, _wrap, max_leaves=6)
TEXTS = st.text(st.sampled_from("abkK1_- .\n\u212a\u017fé\u0661xX"), max_size=12)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(PATTERNS, st.lists(TEXTS, min_size=1, max_size=5))
def test_the_canonical_form_matches_exactly_where_the_pattern_does(pattern: str, texts: list[str]) -> None:
    try:
        original = re.compile(pattern, re.IGNORECASE)
    except re.error:
        original = None
    try:
        tree = parse(pattern)
    except Refused:
        return  # refusing more than Python does is allowed; accepting what Python refuses is not
    assert original is not None, pattern
    canonical = re.compile(emit(tree), re.IGNORECASE)
    assert parse(emit(tree)) == tree
    for text in texts:
        found, again = original.search(text), canonical.search(text)
        assert (found and found.span()) == (again and again.span()), (pattern, emit(tree), text)
