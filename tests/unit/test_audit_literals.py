"""The literals derived from each rule's pattern (tests/data/literal_derivation.py, written into
skillsite/audit/data/literal_table.json) are sound: no match of a pattern lies where one of its literals
is missing, nor starts where none of its starts begins; and the committed table is what the
declared patterns derive today."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsite.audit import engine
from skillsite.audit.declare import Pattern
from skillsite.audit.letters import ascii_reading
from skillsite.audit.literals import Literals, literals_of
from skillsite.audit.rules import PATTERNS, RULES
from skillsite.audit.text import Document, make_document, make_gate

DATA = Path(__file__).resolve().parents[1] / "data"
FIXTURES = DATA / "audit-fixtures"
sys.path.insert(0, str(DATA))
import make_literal_table  # noqa: E402  (development time: reads the patterns with re's own parser)
from literal_derivation import anchor_choices, derive, measured_anchor, scan_char, union, white_space  # noqa: E402

EXTRACTED = [
    (r"ignore", 0, [{"ignore"}], {"ignore"}),
    (r"\b(?:curl|wget)\b\s+\S+", 0, [{"curl", "wget"}], {"curl", "wget"}),
    (r"(?i)IGNORE\s+previous", 0, [{"previous"}, {"ignore"}], {"ignore"}),
    (r"(?:ba|z)?sh -c", 0, [{"sh -c", "bash -c", "zsh -c"}], {"sh -c", "bash -c", "zsh -c"}),
    (r"gh[pousr]_\w{36}", 0, [{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}], {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}),
    (r"\d{8,10}:(?P<body>AA[\w-]{33})", 0, [{":aa"}], None),     # a digit run, then ":" and the group's start
    (r"[a-z]+(?:ab|cd|ef)[a-z]+hiya[a-z]+", 0, [{"hiya"}], None),  # ripgrep's example: the rarer literal
    (r"x(?=abc)y", 0, [{"xy"}], {"xy"}),                           # a look-ahead consumes nothing
    (r"(?P<f>\w+)\s*=\s*(?P=f)\.upper\(\)", 0, [{".upper()"}], None),  # a back-reference needs nothing
    (r"a|b*", 0, [], None),                                        # may match the empty string
    (r"(?:abc)?", 0, [], None),
    (r"[^\n]{3,}", 0, [], None),
    ("\u0418\u0413\u041d\u041e\u0420", re.IGNORECASE, [], None),   # cased letters outside ASCII end a literal
    ("\u5ffd\u7565\u6307\u4ee4", re.IGNORECASE, [{"\u5ffd\u7565\u6307\u4ee4"}], {"\u5ffd\u7565\u6307\u4ee4"}),
]


@pytest.mark.parametrize("source,flags,needs,starts", EXTRACTED)
def test_literals_are_read_from_the_pattern(source, flags, needs, starts):
    found = derive(source, flags)
    assert [set(each) for each in found.needs[:len(needs)]] == needs and (needs or not found.needs)
    assert (set(found.starts) if found.starts else None) == starts


def test_the_rarest_set_comes_first_and_a_set_a_rarer_one_implies_is_left_out():
    found = derive(r"\bsecurity\s+dump-keychain\b", re.IGNORECASE)
    assert [set(each) for each in found.needs] == [{"dump-keychain"}, {"security"}]
    assert derive(r"ignore\s+ign", 0).needs == (frozenset({"ignore"}),)


def test_white_space_is_read_as_each_character_backslash_s_matches_when_choosing_an_anchor():
    """\\s matches 29 characters in a str pattern (not only ASCII's six): an anchor choice ending
    with it holds one string for each, and the derivation of every other set leaves \\s unread."""
    assert len(white_space()) == 29 and {" ", "\n", "\t", "\x85", "\u2028", "\u3000"} <= white_space()
    assert all(re.fullmatch(r"\s", char) for char in white_space())
    assert frozenset("rm" + char for char in white_space()) in anchor_choices(r"\brm\s+-rf\b", re.IGNORECASE)
    assert anchor_choices(r"a[\s*]b", 0) == (frozenset("a" + char + "b" for char in white_space() | {"*"}),)
    assert derive(r"\bzqx\s+zqyy\b", 0).needs == (frozenset({"zqx"}), frozenset({"zqyy"}))  # not measured


def test_a_pattern_is_anchored_where_its_literals_are_measured_rarest():
    """"rm" is mostly inside words ("format", "perform"): SK663's rm is anchored with the white
    space after it, found far less often in the corpus (tests/data/literal_counts.json); a
    pattern not measured keeps the rarest set by estimate."""
    each = RULES["SK663"].patterns[0]
    assert derive(each.compiled_source, each.flags).needs[0] == frozenset("rm" + char for char in white_space())
    assert measured_anchor(r"\brm\s+--zq\b", 2, frozenset({"rm"})) is None


def test_a_large_union_is_cut_to_the_start_or_end_of_its_strings_and_exact_strings_never_are():
    """A match holding (starting with) a string holds (starts with) its start; one ending with a
    string ends with its end."""
    numbered = frozenset(f"{n:03d}-word" for n in range(100))
    assert union(numbered, frozenset(), cut=1) == frozenset(f"0{n}" for n in range(10))
    assert union(frozenset(f"{n:02d}xy" for n in range(70)), frozenset(), cut=-1) \
        == frozenset(f"{n}xy" for n in range(10))
    assert union(frozenset(f"{n:02d}xy" for n in range(70)), frozenset()) is None
    assert union(frozenset(f"{n:02d}" for n in range(70)), frozenset(), cut=1) == frozenset(f"{n}" for n in range(7))


def _plain(each: Pattern) -> re.Pattern[str]:
    """A declared pattern as its gate runs it, without the branch that passes over runs."""
    source = ascii_reading(each.source) if each.folds else each.source
    return re.compile(source, each.flags)


def _kind_path(kind: str) -> str:
    return {"skill": "SKILL.md", "markdown": "references/a.md", "code": "scripts/a.py", "text": "notes"}[kind]


def _assert_sound(each: Pattern, doc: Document) -> int:
    """Every match of the pattern in the folded text holds one literal of each set it needs, and
    starts where one of its starts begins (as the one-pass search reads the text); the count."""
    gate = each.gate
    needs = (gate.literals, *gate.also) if gate.literals else ()
    scanned = doc.scanned
    count = 0
    for match in _plain(each).finditer(doc.folded):
        window = scanned[match.start():match.end()]
        assert all(any(literal in window for literal in group) for group in needs), (each.source[:60], window)
        assert gate.starts is None or any(scanned.startswith(s, match.start()) for s in gate.starts), \
            (each.source[:60], window)
        count += 1
    return count


PREFILTERED = [each for each in PATTERNS if each.scope != "written"]
#: The patterns hypothesis cannot write examples of (a download or a decoded payload saved, then
#: run: back-references), by their index in their rule; the fixtures, the corpus and
#: test_audit_rules hold such commands.
UNGENERATED = {"SK630": (7,), "SK631": (7,)}


def _generated() -> list[Pattern]:
    skipped = {id(RULES[code].patterns[index]) for code, indexes in UNGENERATED.items() for index in indexes}
    return [each for each in PREFILTERED if id(each) not in skipped]


@pytest.mark.parametrize("each", _generated(), ids=lambda p: p.source[:40])
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_generated_match_holds_what_its_pattern_needs(each, data):
    engine.prepare()
    text = data.draw(st.from_regex(_plain(each)))
    kind = data.draw(st.sampled_from(["skill", "markdown", "code", "text"]))
    _assert_sound(each, make_document(_kind_path(kind), text))


def _fixture_documents() -> list[Document]:
    return [make_document(path.relative_to(skill).as_posix(), path.read_bytes().decode("utf-8", "replace"))
            for skill in sorted(p for p in FIXTURES.iterdir() if p.is_dir())
            for path in sorted(skill.rglob("*")) if path.is_file() and b"\x00" not in path.read_bytes()[:8192]]


def test_every_match_in_the_fixtures_holds_what_its_pattern_needs():
    engine.prepare()
    docs = _fixture_documents()
    assert sum(_assert_sound(each, doc) for each in PREFILTERED for doc in docs) > 100


def test_the_patterns_that_run_without_the_prefilter_are_those_of_the_text_as_written():
    """Invisible characters and long blobs are looked for in the text as written, which the one-pass
    search (of the folded text) does not read, and a blob has no literal: these run on every text
    their rule's ``applies`` admits."""
    unfiltered = {code for code, rule in RULES.items() for each in rule.patterns if each.gate.slot is None}
    assert unfiltered == {"SK601", "SK602", "SK603", "SK604", "SK605", "SK640"}
    assert all(each.scope == "written" for code in unfiltered for each in RULES[code].patterns)
    assert all(each.gate.literals for each in PREFILTERED)


def _literal_chars() -> set[str]:
    engine.prepare()
    return {char for each in PREFILTERED for group in (each.gate.literals, *each.gate.also) for literal in group
            for char in literal}


def test_a_literal_letter_is_found_wherever_ignorecase_matches_it():
    """Every character that IGNORECASE takes for a literal's letter reads as that letter in the
    text the search reads: folded (ı, ſ, the Kelvin sign) or, for the capital dotted I, by the scan."""
    chars = sorted(_literal_chars())
    every = "".join(chr(code) for code in range(sys.maxunicode + 1) if not 0xD800 <= code < 0xE000)
    alike = {match.group() for match in re.finditer("[" + re.escape("".join(chars)) + "]", every, re.IGNORECASE)}
    for other in alike:
        scanned = make_document("notes", other).scanned
        for char in chars:
            if re.fullmatch(re.escape(char), other, re.IGNORECASE):
                assert scanned == char or scan_char(char, True) is None, (other, char)


def test_the_capital_dotted_i_is_the_one_character_lower_makes_two_of():
    assert [code for code in range(sys.maxunicode + 1) if len(chr(code).lower()) != 1] == [0x130]
    doc = make_document("notes", "\u0130GNORE previous instructions")
    assert len(doc.scanned) == len(doc.folded) and doc.scanned.startswith("ignore")


def test_the_committed_literal_table_is_what_the_declared_patterns_derive():
    """Regenerated from the rules as they are, skillsite/audit/data/literal_table.json is unchanged (after
    changing a rule: python tests/data/make_literal_table.py)."""
    assert make_literal_table.TABLE.read_text(encoding="utf-8") == make_literal_table.render()


def test_every_filtered_pattern_runs_with_the_literals_derived_from_it():
    engine.prepare()
    for each in PREFILTERED:
        derived = derive(each.compiled_source, each.flags)
        assert (each.gate.literals, each.gate.also, each.gate.starts) == \
            (derived.needs[0], derived.needs[1:], derived.starts), each.source[:60]


def test_a_pattern_the_table_does_not_hold_needs_nothing_and_is_searched_everywhere():
    assert literals_of(r"zq\d+-unlisted", 2) == Literals()
    gate = make_gate(r"zq\d+-unlisted")
    assert gate.slot is None and gate.literals is None
    doc = make_document("notes", "a ZQ12-unlisted b zq3-unlisted")
    assert [m.group() for m in gate.finditer(doc)] == ["ZQ12-unlisted", "zq3-unlisted"]
