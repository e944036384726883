"""Audit patterns on the hostile shapes benchmarks/hostile_patterns.py found super-linear: each
place is tried a few times, not once from each of thousands of lines or words, and the findings
are those of the patterns as they were (their sources before the change are kept here)."""
from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillsite.audit.engine import audit_document
from skillsite.audit.rules import PATTERNS, RULES
from skillsite.audit.rules.exfiltration import DOTENV
from skillsite.audit import text as text_module
from skillsite.audit.text import make_document

from test_audit_long_lines import CountingPattern

#: The patterns as they were: a link definition or an index line matched from the blank lines before it.
OLD_DEFINITION = re.compile(r"(!?)\[[^\]\n]{0,200}\]\(\s*<?((?:https?:)?//[^)\s>]+)|"
                            r"^\s*\[[^\]\n]+\]:\s*<?(https?://\S+)", re.MULTILINE | re.IGNORECASE)
OLD_INDEX_LINE = re.compile(r"^\s*(?:--)?(?:extra-)?index-url\s*[= ]\s*[\"']?(https?://[^\s\"'`]+)",
                            re.MULTILINE | re.IGNORECASE)
#: rm as it was: two runs of options around the recursive one (its target ending a line, not only the text).
OLD_RM = re.compile(r"\brm\s+(?:-[a-z]+\s+|--[a-z-]+\s+)*(?:-[a-z]*r[a-z]*|--recursive)\s+"
                    r"(?:-[a-z]+\s+|--[a-z-]+\s+)*[\"']?(?:/\*?|~/?\*?|\$\{?HOME\}?/?\*?|"
                    r"/(?:usr|etc|bin|boot|var|home|lib|System|Users)/?\*?)[\"']?"
                    r"(?=\s*(?:(?m:$)|[;&|)#`]|--no-preserve-root))", re.IGNORECASE)


def definition_pattern() -> re.Pattern[str]:
    return RULES["SK622"].patterns[0].gate.pattern


def index_pattern() -> re.Pattern[str]:
    return next(p.gate.pattern for p in RULES["SK633"].patterns if "own_line" in p.source)


def test_a_link_definition_is_matched_from_its_own_line_not_from_each_blank_line_before_it():
    text = "Intro\n" + "\n" * 3 + "  \n[a]: https://x.invalid/?key=$TOKEN\n"
    assert definition_pattern().match(text, len("Intro\n")) is None   # a blank line reads itself only
    assert index_pattern().match("\n\n--index-url https://x.invalid/simple\n", 0) is None
    assert definition_pattern().match(text, text.index("[a]")) is not None


def test_a_link_definition_after_blank_lines_is_reported_where_it_was():
    text = "Intro\n\n\n[a]: https://x.invalid/?key=$TOKEN\n"
    assert [(f.code, f.line, f.column) for f in audit_document("SKILL.md", text)] == [("SK622", 2, 1)]
    found = audit_document("requirements.txt", "x\n\n \n--extra-index-url http://x.invalid/simple\n")
    assert [(f.code, f.line, f.column, f.severity) for f in found] == [("SK633", 2, 1, "high")]


PIECES = ["\n", " ", "\t", "  \n", "text", "[a]: https://x.invalid/?k=$T", "[b]:", "![i](https://x.invalid/$T)",
          "--index-url https://x.invalid/s", "index-url=http://x.invalid", "pip install y", "-i ", "x\u2029"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_a_match_from_its_own_line_starts_where_the_old_one_did(pieces):
    text = "".join(pieces)
    for old, new, group in ((OLD_DEFINITION, definition_pattern(), 3), (OLD_INDEX_LINE, index_pattern(), "own_line")):
        found = [(text_module.white_space_start(text, m.start()) if m.group(group) else m.start(), m.end())
                 for m in new.finditer(text) if m.group(group) or new is definition_pattern()]
        assert found == [m.span() for m in old.finditer(text)]


RM_PIECES = ["rm ", "-r ", "-f ", "-rf ", "-Rf ", "--recursive ", "--force ", "-x ", "/", "~", "$HOME", "/etc",
             "/*", " ", "\n", "x ", "; ", "-rm ", "'/'"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(RM_PIECES), max_size=30))
def test_rm_with_its_options_read_once_finds_what_it_found(pieces):
    text = "".join(pieces)
    found = [(f.line, f.column) for f in audit_document("scripts/run.sh", text) if f.code == "SK663"
             and f.message.startswith("destructive command: rm") and "--no-preserve-root" not in f.message]
    doc = make_document("scripts/run.sh", text)
    places = sorted({doc.position(m.start()) for m in OLD_RM.finditer(text)})
    # a rule's findings on one line are one: the first
    assert found == [place for at, place in enumerate(places) if at == 0 or places[at - 1][0] != place[0]]


#: Lines of a command word read as an option of the one before it (``rm -rm -rm ...``), the rest of
#: the command on the next line: each start's options ran to the end of the line, from every start.
OPTION_WORDS = [("rm -", "\n/"), ("rm -", "\n--no-preserve-root"), ("mkfs -", "\n/dev/sda"), ("chmod -", "\n-R")]


@pytest.mark.parametrize(("unit", "tail"), OPTION_WORDS)
def test_a_line_of_command_words_read_as_options_is_tried_a_few_times(unit, tail):
    doc = make_document("scripts/run.sh", unit * 500 + tail)
    for each in RULES["SK663"].patterns:
        gate = each.gate
        if each.source.startswith(("\\brm\\s+", "\\bmkfs", "\\b(?:chmod")):   # a run of options passed over
            assert gate.hopeless, each.source[:60]
        pattern = CountingPattern(gate.pattern)
        candidates = CountingPattern(gate.candidates) if gate.candidates is not None else None
        list(dataclasses.replace(gate, pattern=pattern, candidates=candidates)._matches(doc, 0, len(doc.folded)))
        assert pattern.tries + (candidates.tries if candidates else 0) <= 6, each.source[:60]


#: A .env file read as it was: the options before the file read again from each command word among them.
OLD_DOTENV = re.compile(
    r"(?:\b(?:cat|type|less|more|head|tail|base64|gzip|tar\s+\S+)\s+(?:-\S+\s+)*[\"']?[\w./~$-]*\.env\b(?!\.example|"
    r"\.sample|\.template)|open\(\s*[\"'][^\"'\n]*\.env[\"']|readFileSync\(\s*[\"'`][^\"'`\n]*\.env[\"'`]|"
    r"Path\(\s*[\"'][^\"'\n]*\.env[\"']\s*\)\.read|Get-Content\s+[\"']?[\w./\\~$-]*\.env\b)", re.IGNORECASE)
#: Remove-Item as it was: the same, in both branches.
OLD_REMOVE_ITEM = re.compile(
    r"\bRemove-Item\s+(?:-\S+\s+)*(?:[\"']?(?:C:\\|~|\$HOME|\$env:USERPROFILE|/)[\"']?)\s+(?:-\S+\s+)*"
    r"-Recurse\b|\bRemove-Item\s+(?:-\S+\s+)*-Recurse\s+(?:-\S+\s+)*[\"']?(?:C:\\|~|\$HOME|/)[\"']?(?=\s|$)",
    re.IGNORECASE)


def remove_item_pattern():
    return next(p for p in RULES["SK663"].patterns if "Remove-Item" in p.source)


def counted_matches(gate, doc) -> tuple[list[tuple[int, int]], int]:
    """The gate's matches in the whole document, and how many times its patterns were tried."""
    counting = {name: CountingPattern(getattr(gate, name)) for name in ("pattern", "candidates", "beside")
                if getattr(gate, name, None) is not None}
    found = [m.span() for m in dataclasses.replace(gate, **counting)._matches(doc, 0, len(doc.folded))]
    return found, sum(each.tries for each in counting.values())


#: Command words read as the options of the one before them, the command's file on the next line.
OPTION_RUNS = [("cat -", "\ncat .env", "scripts/run.sh"), ("cat -", "\ncat .env", "SKILL.md"),
               ("tar -x -", "\ntar -x .env", "scripts/run.sh"),
               ("Remove-Item -", "\nRemove-Item -Recurse /", "scripts/run.ps1"),
               ("Remove-Item -", "x\n/ -Recurse", "scripts/run.ps1")]


@pytest.mark.parametrize(("unit", "tail", "path"), OPTION_RUNS)
def test_a_line_of_command_words_read_as_options_is_read_once(unit, tail, path):
    doc = make_document(path, unit * 2000 + tail)
    gate = (remove_item_pattern() if unit.startswith("Remove") else DOTENV).gate
    assert gate.hopeless
    found, tries = counted_matches(gate, doc)
    old = OLD_REMOVE_ITEM if unit.startswith("Remove") else OLD_DOTENV
    assert found == [m.span() for m in old.finditer(doc.folded)] and len(found) == 1
    assert tries <= 8


def test_a_call_inside_the_options_passed_over_is_found():
    text = "cat -xopen('.env') -readFileSync(`a.env`) -x -y\n"
    doc = make_document("scripts/run.py", text * 300)
    found, tries = counted_matches(DOTENV.gate, doc)
    assert found == [m.span() for m in OLD_DOTENV.finditer(doc.folded)] and len(found) == 600
    assert tries <= 4 * 600


DOTENV_PIECES = ["cat ", "tar ", "-x ", "-cat ", "-tar ", "-xopen('a.env') ", "open('", "a.env", ".env", "'", "`",
                 ".env.example", " ", "\n", "\n\n", "Get-Content ", "-Get-Content .env ", "readFileSync(`.env`",
                 "Path('.env').read", "-Path('x.env').read ", "type ", "\"", "x", "/"]
REMOVE_PIECES = ["Remove-Item ", "-Remove-Item ", "-Recurse ", "-Force ", "-x ", "/ ", "~ ", "C:\\ ", "'/' ", "$HOME ",
                 " ", "\n", "x ", "-Recurse", "/"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(DOTENV_PIECES), max_size=30), st.sampled_from(["scripts/run.sh", "SKILL.md"]))
@example(["a.env", "cat ", "-cat ", "-x ", "a.env"], "scripts/run.sh")   # a run found inside a word: no start
def test_a_dotenv_read_with_its_options_read_once_finds_what_it_found(pieces, path):
    doc = make_document(path, "".join(pieces))
    assert [m.span() for m in DOTENV.finditer(doc)] == [m.span() for m in OLD_DOTENV.finditer(doc.folded)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(REMOVE_PIECES), max_size=30))
def test_remove_item_with_its_options_read_once_finds_what_it_found(pieces):
    doc = make_document("scripts/run.ps1", "".join(pieces))
    assert [m.span() for m in remove_item_pattern().finditer(doc)] == \
        [m.span() for m in OLD_REMOVE_ITEM.finditer(doc.folded)]


def hostile_patterns():
    """benchmarks/hostile_patterns.py, as a module."""
    spec = importlib.util.spec_from_file_location(
        "hostile_patterns", Path(__file__).resolve().parents[2] / "benchmarks" / "hostile_patterns.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_runs_each_open_ended_repeat_to_the_end_of_the_text():
    """The shape its docstring promises: the sample up to an open-ended repeat, then the repeat's
    character for the rest of the text.  It built runs of 64 only, each repeated, so it never saw
    SK630's ``iex`` followed by thousands of spaces (cubic: 77 s at 2,000)."""
    bench = hostile_patterns()
    runs = 0
    for each in PATTERNS:
        pieces = bench.Pieces(each.compiled_source, each.flags)
        texts = {head + bench.text_of(unit, 1000) + tail for _, head, unit, tail in bench.shapes(pieces)}
        for prefix, char in pieces.runs:
            assert prefix + char * 1000 in texts, (each.source[:60], prefix, char)
            runs += 1
    assert runs > 100


#: SK650's OpenAI key as it was: a line of "sk-" read to its end from each of them, looking for the marker.
OLD_OPENAI_KEY = re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?(?P<body>[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})")
#: A key of that shape (made up, random-looking: not a placeholder).
OPENAI_KEY = "sk-proj-Zq8xW2vB7nM4kL9pR3tY6uH1jG5fD0sAT3BlbkFJQw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc"


def openai_key_pattern():
    return next(p for p in RULES["SK650"].patterns if "T3BlbkFJ" in p.source)


@pytest.mark.parametrize("unit", ["sk-", "sk-proj-", "sk-x"])
def test_a_line_of_openai_key_starts_is_read_once(unit):
    """A line of thousands of key starts with no marker, and a marker on the next line (the
    benchmark's SK650 #111, 19x at 4x the text): each start read the rest of the line."""
    doc = make_document("SKILL.md", unit * 3000 + "\nAAAT3BlbkFJAAA\n" + OPENAI_KEY + "\n")
    gate = openai_key_pattern().gate
    assert gate.hopeless
    found, tries = counted_matches(gate, doc)
    assert found == [m.span() for m in OLD_OPENAI_KEY.finditer(doc.folded)] and len(found) == 1
    assert tries <= 4


OPENAI_PIECES = ["sk-", "sk-proj-", "sk-admin-", "proj-", "x", "Zq8xW2vB7n", "M4kL9pR3tY", "T3BlbkFJ", "-", "_", " ",
                 "\n", "sksk-", ".", OPENAI_KEY]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(OPENAI_PIECES), max_size=30), st.sampled_from(["scripts/run.sh", "SKILL.md"]))
@example(["sk-", "Zq8xW2vB7n", "M4kL9pR3tY", "T3BlbkFJ", "sk-", "Zq8xW2vB7n", "M4kL9pR3tY"], "SKILL.md")
def test_an_openai_key_passed_over_by_runs_finds_what_it_found(pieces, path):
    doc = make_document(path, "".join(pieces))
    assert [m.span() for m in openai_key_pattern().finditer(doc)] == \
        [m.span() for m in OLD_OPENAI_KEY.finditer(doc.folded)]
