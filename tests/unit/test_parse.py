"""Frontmatter parsing: found line by line, YAML read safely, recoveries warned about."""
from __future__ import annotations

import re

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.loader import frontmatter_end
from skillsite.models import SourceFile
from skillsite.source import frontmatter_retries
from skillsite.source.checks import body_diagnostics
from skillsite.source.links import link_diagnostics
from skillsite.source.parse import FrontmatterError, parse_skill_bytes, read_limited, split_frontmatter


def source(name: str = "demo") -> SourceFile:
    return SourceFile(id=name, root=Path("."), dir=Path(name), skill_md=Path(name) / "SKILL.md",
                      display_path=f"{name}/SKILL.md", rel_path=f"{name}/SKILL.md", parent_id=None)


def parse(text: str | bytes, **kw):
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return parse_skill_bytes(raw, source(), **kw)


def codes(parsed) -> list[str]:
    return [d.code for d in parsed.diagnostics]


def test_plain_frontmatter_and_key_lines():
    p = parse("---\nname: demo\ndescription: Does it.\n---\n# Title\n")
    assert p.frontmatter == {"name": "demo", "description": "Does it."}
    assert p.key_lines["name"] == (2, 1) and p.key_lines["description"] == (3, 1)
    assert p.body == "# Title\n" and p.body_line == 5
    assert codes(p) == []


@pytest.mark.parametrize("text, said", [
    ("\ufeff---\nname: demo\ndescription: d\n---\nbody", []),
    ("---  \r\nname: demo\r\ndescription: d\r\n--- \r\nbody", ["SK016"]),   # npx skills finds no frontmatter
    ("---\t\nname: demo\ndescription: d\n---\nbody", ["SK016"]),
])
def test_bom_crlf_and_trailing_spaces_are_tolerated(text, said):
    p = parse(text)
    assert p.frontmatter == {"name": "demo", "description": "d"}
    assert p.body == "body"
    assert codes(p) == said


def test_dashes_inside_a_block_scalar_do_not_close_the_frontmatter():
    text = "---\nname: demo\ndescription: |\n  first part\n  ---\n  second part\nlicense: MIT\n---\nbody\n"
    p = parse(text)
    assert p.frontmatter["description"] == "first part\n---\nsecond part\n"
    assert p.frontmatter["license"] == "MIT"
    assert p.body == "body\n"


def test_dashes_inside_a_value_are_kept():
    p = parse("---\nname: demo\ndescription: before --- after\n---\n")
    assert p.frontmatter["description"] == "before --- after"


def test_a_line_starting_with_dashes_closes_the_frontmatter_and_the_rest_is_the_body():
    """'---**基础URL:**' (120 skills of AgentWorkers/skills, machine-translated whole): the frontmatter was
    never closed (SK102) or ran into the body (SK103), and the skill was left out; npx skills ends the
    frontmatter at the first line starting with '---'.  skillsite does too, with SK115 at the text."""
    p = parse("---\nname: demo\ndescription: d\n---**Base URL:** `https://x.dev`\n## Use\n")
    assert p.frontmatter == {"name": "demo", "description": "d"}
    assert p.body == "**Base URL:** `https://x.dev`\n## Use\n" and p.body_line == 4
    assert [(d.code, d.line, d.col) for d in p.diagnostics] == [("SK115", 4, 4)]
    assert "'**Base URL:** `https://x.dev`'" in p.diagnostics[0].message
    assert frontmatter_end("---\nname: demo\n---# Title\n".splitlines(keepends=True)) == 2


@pytest.mark.parametrize("fence", ["---.", "---"])
def test_dashes_after_a_line_break_agents_do_not_read_close_nothing(fence: str):
    """A review: after a U+2028 (a line break for str.splitlines, none for agents and npx skills),
    '---.' closed the frontmatter, so 'allowed-tools: Bash' after it reached agents and no check or
    audit rule.  Only a line feed comes before a closing line: here YAML reads all of it, and fails."""
    p = parse(f"---\nname: s\ndescription: Formats text.\u2028{fence}\nallowed-tools: Bash\n---\n# S\n")
    assert p.fatal and codes(p) == ["SK103"]
    assert frontmatter_end(f"---\nname: s\nd: x\u2028{fence}\nallowed-tools: Bash\n---\n".splitlines(True)) == 5


def test_the_closing_line_is_said_at_its_line_feed_count():
    p = parse('---\nname: demo\ndescription: "a\u2028b"\n---**x**\nbody\n')
    assert p.frontmatter == {"name": "demo", "description": "a\u2028b"}
    assert [(d.code, d.line) for d in p.diagnostics] == [("SK115", 4)]


def test_dashes_and_white_space_alone_close_the_frontmatter_cleanly():
    p = parse("---\nname: demo\ndescription: d\n---\u00a0\nbody\n")
    assert p.body == "body\n" and codes(p) == []


def test_the_body_starts_at_the_line_the_line_feeds_count():
    """A review: after a U+2028 in the frontmatter (a line to str.splitlines, none to editors and to
    the body's own count) every diagnostic of the body stood one line too far per U+2028."""
    p = parse('---\nname: demo\ndescription: "a\u2028 b\u2028 c"\n---\nsee [x](missing.md)\n')
    assert p.body_line == 5


def test_a_line_of_dashes_closes_the_frontmatter_as_three_do():
    p = parse("---\nname: demo\ndescription: d\n-----\nbody\n")
    assert p.body == "body\n" and p.body_line == 5 and codes(p) == []


def test_split_is_line_based():
    assert split_frontmatter("no frontmatter\n---\n") is None
    assert split_frontmatter("----\nx\n") is None


def _reference_end(lines: list[str]) -> int | None:
    """The rule over str.splitlines' lines: an opening line of ``---`` (trailing blanks allowed),
    closed by the next line that starts with ``---`` right after a line feed (or after a carriage
    return alone when the opening line ends with one), as npx skills reads it."""
    def fence(line: str) -> bool:
        return re.match(r"^---[ \t]*$", line.rstrip("\r\n")) is not None

    if not lines or not fence(lines[0]):
        return None
    breaks = ("\n", "\r") if lines[0].endswith("\r") else ("\n",)
    return next((i for i in range(1, len(lines)) if lines[i].startswith("---") and lines[i - 1].endswith(breaks)), -1)


def split_line_by_line(text: str) -> tuple[str, int, str, int] | None | str:
    """The frontmatter split by str.splitlines and the rule: what split_frontmatter must give (a
    closing line holding more than dashes and blanks starts the body after its ``---``)."""
    lines = text.splitlines(keepends=True)
    end = _reference_end(lines)
    assert frontmatter_end(lines) == end
    if end is None:
        return None
    if end < 0:
        return "SK102"
    frontmatter = "".join(lines[1:end]).replace("\r\n", "\n")
    def line_ends(text: str) -> int:   # LF, CRLF, a lone CR: as markdown-it counts the body's lines
        return text.replace("\r\n", "\n").replace("\r", "\n").count("\n")

    if re.match(r"^-+\s*$", lines[end]):   # the body starts after the closing line
        return frontmatter, 2, "".join(lines[end + 1:]).replace("\r\n", "\n"), line_ends("".join(lines[:end + 1])) + 1
    return (frontmatter, 2, "".join([lines[end][3:], *lines[end + 1:]]).replace("\r\n", "\n"),
            line_ends("".join(lines[:end])) + 1)


_LINE_TEXT = st.sampled_from(["---", "--- ", "---\t", " ---", "----", "-", "a: b", "", "é"])
_LINE_END = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c",
                             "\x1c", "\x1d", "\x1e", ""])


@settings(max_examples=1500, deadline=None)
@given(st.booleans(), st.lists(st.tuples(_LINE_TEXT, _LINE_END), max_size=8))
def test_split_agrees_with_splitlines_for_every_kind_of_line_break(opened: bool,
                                                                    lines: list[tuple[str, str]]) -> None:
    text = ("---\n" if opened else "") + "".join(line + end for line, end in lines)
    try:
        got: object = split_frontmatter(text)
    except FrontmatterError as exc:
        got = exc.code
    assert got == split_line_by_line(text)


def test_unclosed_frontmatter_is_an_error():
    p = parse("---\nname: demo\ndescription: d\n")
    assert p.fatal and codes(p) == ["SK102"]


def test_missing_frontmatter_is_an_error():
    p = parse("# Just markdown\n")
    assert p.fatal and codes(p) == ["SK101"]


def test_unquoted_colon_is_retried_as_a_string():
    p = parse("---\nname: demo\ndescription: Use this: when deploying\n---\n")
    assert p.frontmatter["description"] == "Use this: when deploying"
    assert codes(p) == ["SK110", "SK016"]
    assert p.diagnostics[0].line == 3


def test_a_value_going_on_at_the_start_of_the_next_lines_is_read_as_one_value():
    """A translated description written over lines that are not indented, or as a Markdown list (588
    skills of the public AgentWorkers/skills directory were left out so): YAML reads a new key
    at the start of a line and fails (SK103), so the skill was left out; it is read as its author meant,
    with SK114 at its key, and npx skills still cannot read it (SK016)."""
    p = parse("---\nname: weather\ndescription: **Google Weather API**  \n提供准确的天气数据：温度、湿度。\n"
              "Use it for hourly or daily forecasts.\n\n- Current conditions\n- It's free\n"
              "version: 1.2.0\n---\n")
    assert not p.fatal
    assert p.frontmatter["description"] == ("**Google Weather API** 提供准确的天气数据：温度、湿度。 "
                                            "Use it for hourly or daily forecasts.\n- Current conditions - It's free")
    assert p.frontmatter["version"] == "1.2.0"
    assert [(d.code, d.line) for d in p.diagnostics] == [("SK114", 3), ("SK016", 3)]
    assert "indent them under its key" in p.diagnostics[1].message


def test_a_joined_value_keeps_the_other_retries_for_the_other_keys():
    p = parse("---\nname: demo\ndescription: Use `bw` to:\n- log in, unlock\nlicense: see: LICENSE\n---\n")
    assert p.frontmatter == {"name": "demo", "description": "Use `bw` to: - log in, unlock", "license": "see: LICENSE"}
    assert [(d.code, d.line) for d in p.diagnostics][:2] == [("SK114", 3), ("SK110", 5)]


@pytest.mark.parametrize("text, read", [
    ("description: d\ntags:\n- a\n- b\n", {"tags": ["a", "b"]}),   # a block list at column 1 is YAML's own
    ("显示名称: 天气\ndescription: Weather: forecasts\n", {"显示名称": "天气"}),   # a key YAML reads, not ASCII
    ("description: Use for: balances\n作者: Bob\n", {"作者": "Bob"}),
    ('description: Use for: balances\n"q": v\n', {"q": "v"}),          # a quoted key
    ("description: Use for: balances\nauthor : me\n", {"author": "me"}),
])
def test_a_key_yaml_reads_at_the_start_of_a_line_ends_a_value(text, read):
    """A review: the join took in every line up to the next ASCII key, so a key written otherwise
    became text of the value before it ('weather 显示名称: 天气' as the name), even in frontmatters
    the colons' retry read already.  The join runs only when the other retries do not read, and a
    line YAML may read as a key ends a value.  (Each frontmatter here holds an unquoted ': ', so the
    retries run.)"""
    p = parse(f"---\nname: weather\n{text}license: see: LICENSE\n---\n")
    assert p.frontmatter["name"] == "weather" and {k: p.frontmatter[k] for k in read} == read
    assert "SK114" not in codes(p)


@pytest.mark.parametrize("brk", ["\r", "\u2028", "\x85"])
def test_a_key_behind_a_line_break_yaml_reads_is_never_joined(brk: str):
    """A review: 'allowed-tools:\\rBash(curl *)' (a lone CR) is a key to npx skills' YAML reader,
    which takes no lone CR for a line break; libyaml fails there, and the join made it text of the
    description, so the grant reached agents and no check or audit rule.  No join: SK103, as before."""
    p = parse(f"---\nname: demo\ndescription: d\nallowed-tools:{brk}Bash(curl *)\n---\nbody\n")
    assert p.fatal and codes(p) == ["SK103"]


@pytest.mark.parametrize("text, joined", [
    ("description: Weather\n- Search\n作者: Bob\n", "Weather - Search"),   # a key not in ASCII ends it
    ("description: Weather\n- Search\n# note\nmore\n", None),            # a comment line ends it
])
def test_where_a_joined_value_ends(text: str, joined: str | None):
    """The join itself (no other retry reads these): a line YAML may read as a key, or a comment
    line, ends the value; text after a comment stays a YAML error."""
    p = parse(f"---\nname: demo\n{text}---\n")
    if joined is None:
        assert p.fatal and codes(p) == ["SK103"]
    else:
        assert p.frontmatter["description"] == joined and p.frontmatter["作者"] == "Bob"
        assert codes(p)[0] == "SK114"


def test_a_value_granting_tools_is_never_joined():
    """A review: 'allowed-tools: Read' then '- Bash(curl *)' was read as the tools Read, '-' and
    Bash(curl *): only prose values are joined; this stays a YAML error."""
    p = parse("---\nname: demo\ndescription: d\nallowed-tools: Read\n- Bash(curl *)\n---\n")
    assert p.fatal and codes(p) == ["SK103"]


def test_a_value_holding_a_comment_is_not_joined():
    p = parse("---\nname: demo\ndescription: d # note\nmore words\n---\n")
    assert p.fatal and codes(p) == ["SK103"]


@pytest.mark.parametrize("value", ["!!bool sometimes", "!!int many", "!!float lots"])
def test_a_tagged_value_yaml_cannot_read_is_kept_as_text_not_a_traceback(value):
    p = parse(f"---\nname: demo\ndescription: {value}\n---\n")
    assert p.frontmatter["description"] == value.split()[1]
    assert codes(p) == ["SK111", "SK016"]


def test_yaml_11_coercions_are_turned_back_into_text():
    p = parse("---\nname: yes\ndescription: d\nversion: 2.0\nmetadata:\n  updated: 2024-01-05\n  n: 1.10\n---\n")
    fm = p.frontmatter
    assert fm["name"] == "yes" and fm["version"] == "2.0"
    assert fm["metadata"] == {"updated": "2024-01-05", "n": "1.10"}
    assert codes(p) == ["SK111"] * 4
    assert [d.line for d in p.diagnostics] == [2, 4, 6, 7]



def test_sk111_says_yaml_1_1_only_of_what_yaml_1_2_reads_as_text():
    """'true' and '42' are a boolean and an integer in every YAML; 'on' and a date only in YAML 1.1."""
    p = parse("---\nname: demo\ndescription: d\nmetadata:\n  portable: true\n  build: 42\n  sync: on\n"
              "  day: 2024-01-05\n---\n")
    said = [d.message.split(";")[0] for d in p.diagnostics]
    assert said == ["'metadata.portable: true' is a boolean in YAML", "'metadata.build: 42' is an integer in YAML",
                    "'metadata.sync: on' is a boolean in YAML 1.1", "'metadata.day: 2024-01-05' is a date in YAML 1.1"]


@pytest.mark.parametrize("hint, kind", [("[message]", "a list"), ("{file}", "a mapping"),
                                        ("[a, [b, c]]", "a list"), ("[pr-number] [priority]", "not valid YAML"),
                                        ("[add|remove|list] [tagId] # x", "not valid YAML")])
def test_an_argument_hint_written_in_brackets_is_kept_as_the_text_written(hint: str, kind: str):
    """Claude Code's docs write ``argument-hint: [message]`` unquoted: a list in YAML (SK208, an
    error that failed the build of two public repositories), or no YAML at all with two brackets."""
    p = parse(f"---\nname: demo\ndescription: d\nargument-hint: {hint}\nlicense: MIT\n---\n")
    assert p.frontmatter["argument-hint"] == hint.removesuffix(" # x")
    assert p.frontmatter["license"] == "MIT"
    strict_error = ["SK016"] if kind == "not valid YAML" else []   # npx skills cannot read it
    assert [(d.code, d.line) for d in p.diagnostics] == [("SK111", 4)] + [(code, 4) for code in strict_error]
    assert kind in p.diagnostics[0].message


@pytest.mark.parametrize("hint, kept", [("[a,\n  b]", "[a, b]"), ("[issue #12] [prio]", "[issue #12] [prio]")])
def test_a_bracketed_hint_beside_an_unquoted_colon_reads_as_before(hint: str, kept: str):
    """The retry quotes ': ' values first, as it did: quoting the hint's first line too broke a flow
    list written over two lines (SK103), and a hash inside its brackets is no comment."""
    p = parse(f"---\nname: demo\ndescription: Does: a thing\nargument-hint: {hint}\n---\n")
    assert p.frontmatter["argument-hint"] == kept and p.frontmatter["description"] == "Does: a thing"
    assert "SK103" not in codes(p) and "SK110" in codes(p)


@pytest.mark.parametrize("line, kept", [("[a] [b]\t# note", "[a] [b]"),
                                        ("[issue #12] [prio]  # a note", "[issue #12] [prio]")])
def test_a_comment_after_a_bracketed_hint_stays_a_comment(line: str, kept: str):
    assert parse(f"---\nname: demo\ndescription: d\nargument-hint: {line}\n---\n").frontmatter["argument-hint"] == kept


def test_the_retry_quotes_only_the_hint_yaml_fails_at():
    """A line 'argument-hint: [a] [b]' inside a quoted description is text of the description: the
    retry quoted it too, changing the description (double quotes) or breaking it (single quotes)."""
    for quote in ('"', "'"):
        p = parse(f"---\nname: demo\ndescription: {quote}Run it\nargument-hint: [a] [b] then stop{quote}\n"
                  "argument-hint: [pr] [prio]\n---\n")
        assert p.frontmatter["description"] == "Run it argument-hint: [a] [b] then stop"
        assert p.frontmatter["argument-hint"] == "[pr] [prio]"
        assert [(d.code, d.line) for d in p.diagnostics if d.code == "SK111"] == [("SK111", 5)]


def test_a_hint_behind_an_anchor_or_a_tag_stays_as_yaml_reads_it():
    p = parse("---\nname: demo\ndescription: d\nmetadata:\n  x: &a [x]\nargument-hint: *a\n---\n")
    assert p.frontmatter["argument-hint"] == ["x"]   # the schema's SK208 says what is wrong
    assert "SK111" not in codes(p)


def test_an_argument_hint_listed_as_a_block_and_other_keys_in_brackets_stay_lists():
    p = parse("---\nname: demo\ndescription: d\nargument-hint:\n  - a\ntags: [x]\n---\n")
    assert p.frontmatter["argument-hint"] == ["a"] and p.frontmatter["tags"] == ["x"]
    assert "SK111" not in codes(p)


@pytest.mark.parametrize("line, key, kept", [
    ("paths: *.md", "paths", "*.md"),                                # '*' and no name: no alias at all
    ("paths: **/*.md, *.ts   # the docs", "paths", "**/*.md, *.ts"),  # the comment stays a comment
    ("paths: *docs", "paths", "*docs"),                              # an alias naming no anchor
    ("description: **Bold** does things", "description", "**Bold** does things")])
def test_an_unquoted_text_value_starting_with_a_star_is_the_text_written(line: str, key: str, kept: str):
    """Claude Code's 'paths: *.md' written unquoted: '*' starts a YAML alias, so the frontmatter
    was SK103 and the skill left out.  It is read as the text written, with SK111 saying to quote it."""
    p = parse(f"---\nname: demo\n{line}\n" + ("description: d\n" if key != "description" else "") + "---\n")
    assert not p.fatal and p.frontmatter[key] == kept
    assert [(d.code, d.line) for d in p.diagnostics] == [("SK111", 3), ("SK016", 3)]   # npx skills cannot read it
    assert p.diagnostics[0].message == (f"'{line}' is not valid YAML: a value starting with '*' names an anchor "
                                        "('&name') to repeat, and there is none; read as the text written (quote "
                                        "the value to silence this)")


def test_text_list_items_starting_with_a_star_are_the_text_written():
    p = parse("---\nname: demo\ndescription: d\npaths:\n  - *.md\n  # a note\n  - 'x'\n  - *.ts\n---\n")
    assert p.frontmatter["paths"] == ["*.md", "x", "*.ts"]
    assert [(d.code, d.line) for d in p.diagnostics if d.code == "SK111"] == [("SK111", 5), ("SK111", 8)]


@pytest.mark.parametrize("text, key, kept", [
    ("description: **Bold** does things\n  and goes on, 'quoted'\n\n  after a blank\nx: 1\n",
     "description", "**Bold** does things and goes on, 'quoted'\nafter a blank"),
    ("description: d\npaths:\n  - **/*.ts\n    and more\n  - *.md\n", "paths", ["**/*.ts and more", "*.md"]),
    # a comment ends the value, as it ends a plain one ('# TODO reword' was read as text)
    ("description: **Bold** first\n  second # TODO reword\nx: 1\n", "description", "**Bold** first second")])
def test_a_value_starting_with_a_star_over_several_lines_is_the_text_written(text: str, key: str, kept: object):
    """A plain value goes on over the lines indented past its key (or its item's dash): quoting
    only its first line left the others a YAML error, and the skill out (SK103)."""
    p = parse(f"---\nname: demo\n{text}---\n")
    assert not p.fatal and p.frontmatter[key] == kept
    said = [(d.code, d.line) for d in p.diagnostics if d.code != "SK016"]
    assert said[0] == ("SK111", 3 if key == "description" else 5)


def test_a_short_frontmatter_gets_a_retry_for_each_item_starting_with_a_star():
    """Five '- **/*.ts' items of 'paths': the retry quoted four, then gave up, and the skill was
    left out for SK103.  A frontmatter this short gets a retry for each."""
    items = "".join(f"  - **/*.{ext}\n" for ext in ("ts", "tsx", "js", "jsx", "mjs", "cjs", "vue", "svelte"))
    p = parse(f"---\nname: demo\ndescription: d\npaths:\n{items}---\n")
    assert not p.fatal
    assert p.frontmatter["paths"] == ["**/*.ts", "**/*.tsx", "**/*.js", "**/*.jsx", "**/*.mjs", "**/*.cjs",
                                      "**/*.vue", "**/*.svelte"]
    assert [d.line for d in p.diagnostics if d.code == "SK111"] == list(range(5, 13))


@pytest.mark.parametrize("count, composed", [(20_000, 1 + frontmatter_retries.MAX_BRACKETED_RETRIES), (50, 51)])
def test_a_frontmatter_is_retried_no_more_than_its_budget_allows(count: int, composed: int, monkeypatch):
    """Each retry composes the whole frontmatter again: a long one full of such items is retried
    only as often as RETRY_BUDGET_CHARS allows (at least MAX_BRACKETED_RETRIES times), then SK103
    at the first item left as written; a short one as often as it has such items."""
    calls = []
    monkeypatch.setattr(frontmatter_retries, "_compose",
                        lambda text, real=frontmatter_retries._compose: calls.append(1) or real(text))
    items = "".join(f"  - *.e{number}\n" for number in range(count))
    p = parse(f"---\nname: demo\ndescription: d\npaths:\n{items}---\n")
    assert len(calls) == composed
    if count > 50:
        first_left = 5 + frontmatter_retries.MAX_BRACKETED_RETRIES
        assert p.fatal and [(d.code, d.line) for d in p.diagnostics] == [("SK103", first_left)]
    else:
        assert not p.fatal and len(p.frontmatter["paths"]) == count


@pytest.mark.parametrize("text", [
    "hooks:\n  - *.md\n",                      # not a key of text
    "metadata:\n  globs:\n    - *.md\n",        # a list nested deeper
    "tags: [x]\nnote: *.md\n",                  # an unknown key
    "paths: *.md\nother: [unclosed\n",          # a real YAML error after it: still said
    "paths: >\n  text\n*.md: x\n"])             # not a line of a text key's value
def test_a_star_elsewhere_is_still_a_yaml_error(text: str):
    p = parse(f"---\nname: demo\ndescription: d\n{text}---\n")
    assert p.fatal and codes(p) == ["SK103"]


@pytest.mark.parametrize("text, line, col", [
    ("paths: *.md\nnote: 'never closed\n", 5, 7),      # the quote that never closes
    ("paths:\n  - *.md\n  - *.ts\nkey: \"x\"\n  indented: y\n", 8, 3),   # the stray mapping
    ("paths: *.md\nnote: x\n\tindented: y\n", 6, 1)])  # the tab
def test_a_yaml_error_after_a_value_starting_with_a_star_is_said_where_it_is(text: str, line: int, col: int):
    """The value starting with '*' read as text, the YAML error past it is the fault: SK103 named the
    star's line instead, which was no fault."""
    p = parse(f"---\nname: demo\ndescription: d\n{text}---\n")
    assert p.fatal and [(d.code, d.line, d.col) for d in p.diagnostics] == [("SK103", line, col)]


@pytest.mark.parametrize("text, line, col, bracket", [
    ("tags: [a, b\nversion: x\n", 4, 7, "["),            # YAML runs on into the next key
    ("metadata: {a: b\n", 4, 11, "{"),                     # or to the end
    ("tags:\n  - [a, b\n\n# a note\nversion: x\n", 5, 5, "[")])
def test_a_flow_list_never_closed_is_said_where_it_opens(text: str, line: int, col: int, bracket: str):
    """SK103 named the next key's line (or the closing '---'), where YAML found out."""
    p = parse(f"---\nname: demo\ndescription: d\n{text}---\n")
    assert p.fatal and [(d.code, d.line, d.col) for d in p.diagnostics] == [("SK103", line, col)]
    assert p.diagnostics[0].message.endswith(f"(the '{bracket}' here is never closed)")


@pytest.mark.parametrize("quoted", ['"Fortune Teller. Triggers on: fortune."', "'It''s a teller.'  # note"])
def test_text_going_on_after_a_quoted_value_is_said_to_belong_inside_the_quotes(quoted: str):
    """A generator wrote the description's first sentence quoted and the rest on the next line (65
    skills of AgentWorkers/skills): YAML's "did not find expected key" said nothing of why."""
    p = parse(f"---\nname: demo\ndescription: {quoted}\n  算命娱乐。Fortune teller for fun.\n---\n")
    assert p.fatal and [(d.code, d.line, d.col) for d in p.diagnostics] == [("SK103", 4, 3)]
    assert p.diagnostics[0].message.endswith("(the quoted value above ends at its closing quote, and this line "
                                             "goes on after it: put the text inside the quotes)")


@pytest.mark.parametrize("after", ["  - item", "  other: x"])
def test_a_key_or_an_item_after_a_quoted_value_gets_no_such_hint(after: str):
    p = parse(f'---\nname: demo\ndescription: "d"\n{after}\n---\n')
    assert p.fatal and "closing quote" not in p.diagnostics[0].message


def test_a_line_holding_a_colon_under_a_value_starting_with_a_star_is_read_as_written():
    """A review: 'see: a: b' under such a value was published as "see: 'a: b'" (the colons' retry
    quoted it first, then the value took it in): no text may change.  The value over both lines is
    read as written, as a value on one line holding ': ' is (SK110)."""
    p = parse("---\nname: demo\ndescription: **Bold** intro\n  see: a: b\n---\n")
    assert p.frontmatter["description"] == "**Bold** intro see: a: b"
    assert [(d.code, d.line) for d in p.diagnostics] == [("SK110", 3), ("SK016", 3)]


def test_a_value_over_lines_holding_a_colon_is_read_as_one_value():
    """A plain description over indented lines, one holding ': ' (19 skills of AgentWorkers/skills):
    YAML reads a mapping there and fails; the colons' retry quoted the first line alone."""
    p = parse("---\nname: demo\ndescription: Query chain data.\n  Use for: balances, transfers.\n\n"
              "  Not for: prices.\nlicense: MIT\n---\n")
    assert p.frontmatter["description"] == "Query chain data. Use for: balances, transfers.\nNot for: prices."
    assert p.frontmatter["license"] == "MIT"
    assert [(d.code, d.line) for d in p.diagnostics] == [("SK110", 3), ("SK016", 3)]


@pytest.mark.parametrize("comment", ["# TODO: remove secret", "## Ideas", "  # indented"])
def test_a_comment_line_ends_a_value_as_yaml_reads_it(comment: str):
    """A review: a comment line between a value's lines was published as text of the value, shown to
    every model.  It ends the value, as YAML reads it; text after it at column 1 stays an error."""
    p = parse(f"---\nname: demo\ndescription: Does X\n{comment}\nUse when Y.\n---\n")
    assert p.fatal and codes(p) == ["SK103"]


@pytest.mark.parametrize("text, line, said", [
    ("tags: [a,\nb: c: d]\n", 4, "']'"),                          # closed on the line YAML failed at
    ('description: "one\u2028two"\ntags: [a, b\nversion: x\n', 4,  # a line break YAML counts, '\\n' does not
     "']' (the '[' here is never closed)")])
def test_never_closed_is_said_only_of_a_bracket_never_closed(text: str, line: int, said: str):
    p = parse(f"---\nname: demo\n{text}---\n")
    assert p.fatal and [(d.code, d.line) for d in p.diagnostics] == [("SK103", line)]
    assert p.diagnostics[0].message.endswith(said)


def test_a_fault_inside_a_flow_list_over_several_lines_is_said_at_its_own_line():
    p = parse("---\nname: demo\ndescription: d\ntags: [a,\n  b: c: d,\n  e]\n---\n")
    assert p.fatal and [(d.code, d.line) for d in p.diagnostics] == [("SK103", 5)]
    assert "never closed" not in p.diagnostics[0].message


PAIRED = "\\uD83D\\uDD2D"   # JSON's escape of U+1F52D, as JSON.stringify writes it with ASCII output


@pytest.mark.parametrize("text, key, at, read", [
    ('metadata: {"openclaw": {"emoji": "%s", "requires": {"bins": ["python3"]}}}\n' % PAIRED,    # a flow mapping
     "metadata.openclaw.requires", '"requires"',
     {"openclaw": {"emoji": "\U0001F52D", "requires": {"bins": ["python3"]}}}),
    ('metadata:\n  emoji: "\\ud83d\\udd2d"\n  then: x\n', "metadata.then", "then",       # lower-case hex
     {"emoji": "\U0001F52D", "then": "x"}),
    ('metadata: {a: "%s", b: "x\\uD83D\\uDE80y", c: z}\n' % PAIRED, "metadata.c", "c:",           # two on one line
     {"a": "\U0001F52D", "b": "x\U0001F680y", "c": "z"}),
    ('metadata: {a: "one %s\n  two %s", b: x}\n' % (PAIRED, PAIRED), "metadata.b", "b:",         # over two lines
     {"a": "one \U0001F52D two \U0001F52D", "b": "x"})])
def test_a_json_surrogate_pair_escape_is_the_character_it_stands_for(text: str, key: str, at: str, read: object):
    """'"\\uD83D\\uDD2D"' (valid JSON, one character for JavaScript's YAML readers and npx skills) was
    SK103 "found invalid Unicode character escape code" and the skill left out: 4 of ScienceClaw's 293.
    It reads as the character, with no warning; the keys after it keep their columns."""
    p = parse(f"---\nname: demo\ndescription: d\n{text}---\n")
    assert not p.fatal and not p.diagnostics and p.frontmatter["metadata"] == read
    line = next(number for number, written in enumerate(text.split("\n")) if at in written)
    assert p.key_lines[key] == (4 + line, text.split("\n")[line].index(at) + 1)


@pytest.mark.parametrize("description", ["d", '"d\u2028e"'])   # U+2028: YAML's lines are not the file's
@pytest.mark.parametrize("text, line, at", [
    ('metadata: {a: "%s", b: "c" "d"}\n' % PAIRED, 4, '"d"'),       # a YAML error past the value, same line
    ('metadata: {a: "%s \\q"}\n' % PAIRED, 4, "\\q"),                # inside the value, after the pair
    ('metadata: {a: "one %s\n  two", b: "c" "d"}\n' % PAIRED, 5, '"d"'),    # past a value over two lines
    ("metadata: {a: \"one %s\n  two\", b: !!binary 'A'}\n" % PAIRED, 5, "!!binary")])  # no YAML error: base64's
def test_an_error_after_a_surrogate_pair_is_said_at_its_column(description: str, text: str, line: int, at: str):
    """The pair is read as one escape two characters shorter: an error after it is still said at the
    file's line and column."""
    p = parse(f"---\nname: demo\ndescription: {description}\n{text}---\n")
    col = text.split("\n")[line - 4].index(at) + 1
    assert p.fatal and [(d.code, d.line, d.col) for d in p.diagnostics] == [("SK103", line, col)]


@pytest.mark.parametrize("value, escape, half, col", [
    ('"\\uD83D then"', "\\uD83D", "first half", 16),                 # lone high
    ('"then \\udd2d"', "\\udd2d", "second half", 21),                 # lone low
    ('"%s\\uDD2D"' % PAIRED, "\\uDD2D", "second half", 28),          # a low one after a whole pair
    ('"\\uD83D\\uD83D"', "\\uD83D", "first half", 16)])              # two high ones
def test_a_lone_surrogate_escape_is_an_error_that_says_what_is_wrong(value: str, escape: str, half: str, col: int):
    """Half a pair stands for no character: SK103 at its backslash, saying so and what to write."""
    p = parse(f"---\nname: demo\ndescription: d\nmetadata: {{a: {value}}}\n---\n")
    assert p.fatal and [(d.code, d.line, d.col) for d in p.diagnostics] == [("SK103", 4, col)]
    assert p.diagnostics[0].message.startswith(f"invalid YAML: '{escape}' is the {half} of a UTF-16 surrogate pair")
    assert p.diagnostics[0].message.endswith("write the character itself, or a '\\U0001F52D'-style escape of its "
                                             "code point")


@pytest.mark.parametrize("text, kept", [
    ("'%s'" % PAIRED, PAIRED),                                        # single-quoted: no escapes at all
    (PAIRED, PAIRED),                                                 # plain: no escapes either
    ('"\\\\uD83D\\\\uDD2D"', PAIRED)])                                # an escaped backslash, then 'u'
def test_a_surrogate_escape_outside_a_double_quoted_value_stays_the_text_written(text: str, kept: str):
    """Beside a pair that is read (so that the frontmatter needs reading again), '\\u' that is no
    escape stays as written."""
    p = parse(f'---\nname: demo\ndescription: d\nmetadata:\n  kept: {text}\n  read: "{PAIRED}"\n---\n')
    assert not p.fatal and p.frontmatter["metadata"] == {"kept": kept, "read": "\U0001F52D"}


def test_a_surrogate_pair_is_read_beside_the_other_retries():
    """An unquoted ': ' before it and a value starting with '*' after it: each read as before."""
    p = parse(f'---\nname: demo\ndescription: Astro: tools\nmetadata: {{"emoji": "{PAIRED}"}}\npaths: *.py\n---\n')
    assert not p.fatal and p.frontmatter["metadata"] == {"emoji": "\U0001F52D"} and p.frontmatter["paths"] == "*.py"
    assert [(d.code, d.line) for d in p.diagnostics] == [("SK110", 3), ("SK111", 5), ("SK016", 3)]


def test_an_alias_to_an_anchor_is_still_an_alias():
    p = parse("---\nname: demo\ndescription: &d Does a thing\nwhen_to_use: *d\n---\n")
    assert p.frontmatter["when_to_use"] == "Does a thing" and "SK111" not in codes(p)


def test_quoted_values_and_other_keys_are_not_coerced():
    p = parse("---\nname: 'yes'\ndescription: d\npriority: 3\nalways: true\n---\n")
    assert p.frontmatter == {"name": "yes", "description": "d", "priority": 3, "always": True}
    assert codes(p) == []


def test_duplicate_keys_warn_and_the_last_wins():
    p = parse("---\nname: demo\ndescription: first\ndescription: second\n---\n")
    assert p.frontmatter["description"] == "second"
    assert codes(p) == ["SK112", "SK016"]
    assert p.diagnostics[0].line == 4
    assert "line 3" in p.diagnostics[0].message



@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85", "\r"])
def test_lines_are_the_file_s_after_a_break_only_yaml_counts(brk: str):
    """YAML breaks lines at U+2028, U+2029, NEL and a lone CR too; a diagnostic's line is the
    file's (LF only), as editors and file:line links count them."""
    p = parse(f'---\nname: demo\ndescription: "first{brk}second"\nname: again\nlicense: [a, {brk}b]\n---\n')
    assert p.key_lines["description"] == (3, 1) and p.key_lines["name"] == (4, 1)
    assert p.key_lines["license"] == (5, 1)
    duplicate = next(d for d in p.diagnostics if d.code == "SK112")
    assert (duplicate.line, duplicate.col) == (4, 1) and "line 2" in duplicate.message


def test_a_control_character_is_placed_at_its_character_after_wide_ones():
    """The YAML reader's position counts bytes in libyaml: the place is the character's own."""
    p = parse("---\nname: demo\ndescription: éééé\x07x\nlicense: MIT\n---\nbody\n")
    error = next(d for d in p.diagnostics if d.code == "SK103")
    assert (error.line, error.col) == (3, 18) and "U+0007" in error.message

def test_flow_collections_are_fine():
    p = parse("---\nname: demo\ndescription: d\ntags: [a, b]\nmetadata: {owner: x}\n---\n")
    assert p.frontmatter["tags"] == ["a", "b"] and p.frontmatter["metadata"] == {"owner": "x"}


def test_aliases_repeating_a_long_text_are_bounded_by_characters_not_only_nodes():
    """4,000 aliases of one 20 KB text, under the node bound: a 36 KB SKILL.md published an 80 MB
    skills.json and page, which the loader then refused to read for every skill of the catalog."""
    text = ("---\nname: demo\ndescription: d\nlong: &x " + "y" * 20_000 + "\nexamples: ["
            + ", ".join(["*x"] * 4000) + "]\n---\n")
    p = parse(text)
    assert p.fatal and codes(p) == ["SK108"]
    assert "values hold more than 2,097,152 characters" in p.diagnostics[0].message
    assert not parse(text.replace(", ".join(["*x"] * 4000), ", ".join(["*x"] * 50))).fatal


def test_billion_laughs_fails_fast():
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        levels.append(f"{cur}: &{cur} [{', '.join('*' + prev for _ in range(9))}]")
    text = "---\nname: demo\ndescription: d\n" + "\n".join(levels) + "\n---\n"
    p = parse(text)
    assert p.fatal and codes(p) == ["SK108"]


def test_python_tags_are_refused_and_never_run(tmp_path):
    marker = tmp_path / "pwned"
    text = f"---\nname: demo\ndescription: !!python/object/apply:os.system ['touch {marker}']\n---\n"
    p = parse(text)
    assert p.fatal and codes(p) in (["SK113"], ["SK103"])
    assert not marker.exists()


@pytest.mark.parametrize("yaml_text,kind", [("- a\n- b\n", "a list"), ("just text\n", "a single value")])
def test_frontmatter_must_be_a_mapping(yaml_text, kind):
    p = parse(f"---\n{yaml_text}---\n")
    assert p.fatal and codes(p) == ["SK104"] and kind in p.diagnostics[0].message


@pytest.mark.parametrize("text, where, message", [
    ("description: d\nmetadata:\n  a: b\nmore words\nlicense: MIT\n", (6, 1),
     "while scanning a simple key, could not find expected ':'"),
    ("description: \"unclosed\nlicense: MIT\n", (3, 14),
     "while scanning a quoted scalar, found unexpected end of stream"),
    ("description: d\n\tlicense: MIT\n", (4, 1), "while scanning a plain scalar, found a tab character that violates "
                                                 "indentation"),
])
def test_a_yaml_error_names_one_line_the_one_it_stands_at(text, where, message):
    """'4:1: error SK103 invalid YAML: while scanning a simple key, could not find expected ':' (line 5)':
    the diagnostic stood at where the construct starts and its message named where YAML found the problem,
    two lines for one fault.  It now names none and stands at the fault: the construct's start when YAML
    only found out past it (the line without ':', the quote never closed), else where YAML found it
    (the tab, not the plain scalar before it)."""
    p = parse(f"---\nname: demo\n{text}---\nbody\n")
    assert codes(p) == ["SK103"] and p.diagnostics[0].message == f"invalid YAML: {message}"
    assert (p.diagnostics[0].line, p.diagnostics[0].col) == where


def test_syntax_error_has_a_line():
    p = parse("---\nname: demo\ndescription: \"unclosed\n---\n")
    assert p.fatal and codes(p) == ["SK103"] and p.diagnostics[0].line >= 3


def test_non_utf8_reports_the_byte_offset():
    raw = b"---\nname: demo\ndescription: caf\xe9\n---\n"
    p = parse(raw)
    assert p.fatal and codes(p) == ["SK105"]
    assert "byte offset 31" in p.diagnostics[0].message and p.diagnostics[0].line == 3


def test_binary_and_empty_files():
    assert codes(parse(b"\x89PNG\r\n\x1a\n\x00\x00")) == ["SK109"]
    assert codes(parse(b"")) == ["SK100"]
    assert codes(parse(b"  \n\n")) == ["SK100"]


def test_size_limits():
    body = "x" * (300 * 1024)
    p = parse(f"---\nname: demo\ndescription: d\n---\n{body}")
    assert not p.fatal and codes(p) == ["SK107"]
    p = parse(f"---\nname: demo\ndescription: d\n---\n{body}", max_bytes=200 * 1024)
    assert p.fatal and codes(p) == ["SK106"]


def test_deep_nesting_is_bounded():
    p = parse("---\nname: demo\ndescription: d\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n")
    assert p.fatal and codes(p) == ["SK108"]


def test_merge_keys_are_refused():
    p = parse("---\nbase: &b {name: demo}\n<<: *b\ndescription: d\n---\n")
    assert p.fatal and codes(p) == ["SK113"]


def test_read_limited_reads_whole_files_and_stops_past_the_limit(tmp_path):
    small, big = tmp_path / "small", tmp_path / "big"
    small.write_bytes(b"x" * 100)
    big.write_bytes(b"y" * 5000)
    assert read_limited(small, 100) == (b"x" * 100, 100)      # exactly the limit: all of it
    data, size = read_limited(big, 1000)
    assert data == b"y" * 1001 and size == 5000                # one byte past the limit says too big
    (tmp_path / "empty").write_bytes(b"")
    assert read_limited(tmp_path / "empty", 10) == (b"", 0)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_read_limited_reads_past_the_size_fstat_gave(tmp_path):
    """A FIFO has size 0, like a file that grows after fstat: the rest is read, not cut off."""
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    keep_open = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer open without blocking
    try:
        content = b"---\ndescription: d\n---\nbody\n"
        writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.write(writer, content)
        os.close(writer)
        assert read_limited(fifo, 1000) == (content, len(content))
        assert read_limited(fifo, 1000) == (b"", 0)   # no writer left: end of file at once, no hang
    finally:
        os.close(keep_open)


@pytest.mark.parametrize("raw, expected", [
    ("---\nname: a\n---\nbody\n".encode("utf-16"), ("SK105", 1, 1, "the file is UTF-16")),
    ("---\nname: a\n---\nbody\n".encode("utf-16-be").join([b"\xfe\xff", b""]), ("SK105", 1, 1, "the file is UTF-16")),
    (b"---\nname: a\n---\nline\nbo\x00dy\n", ("SK109", 5, 3, "NUL bytes (first at byte offset 23)")),
    (b"---\nname: a\n---\n\xffbody\n", ("SK105", 4, 1, "byte 0xff at byte offset 16")),
])
def test_a_file_that_is_not_utf8_text_is_said_where_and_why(raw: bytes, expected) -> None:
    from skillsite.source.parse import decode_skill_md

    with pytest.raises(FrontmatterError) as caught:
        decode_skill_md(raw)
    code, line, col, words = expected
    assert (caught.value.code, caught.value.line, caught.value.col) == (code, line, col)
    assert words in caught.value.message


def test_a_binary_value_where_text_is_wanted_is_called_binary_data():
    p = parse("---\nname: demo\ndescription: !!binary aGVsbG8=\n---\n")
    said = next(d for d in p.diagnostics if d.code == "SK111")
    assert "is binary data in YAML 1.1" in said.message and p.frontmatter["description"] == "aGVsbG8="


def test_a_surrogate_pair_read_by_pyyaml_own_reader_is_no_traceback(monkeypatch):
    """A review: where PyYAML has no libyaml (its pure-Python reader, the module's fallback), JSON's
    pair escape is read as two lone surrogates, and counting the description's UTF-16 units raised."""
    import yaml
    monkeypatch.setattr(frontmatter_retries, "_Loader", yaml.SafeLoader)
    p = parse('---\nname: demo\ndescription: "Stars \\uD83D\\uDD2D"\n---\n')
    assert p.frontmatter["description"] == "Stars \ud83d\udd2d"
    assert not p.fatal


@pytest.mark.parametrize("values, fix", [
    ("".join(f'k{number}: "\\uD83D\\uDD2D"\n' for number in range(70)),
     "write the characters themselves, not their escapes"),
    ("paths:\n" + "  - *.md\n" * 70, "quote such values")])
def test_a_value_past_the_retries_is_said_to_be_past_them(values: str, fix: str):
    """A review: past the readings a frontmatter may have (70 values that need one each, after a 4 KB
    description), a valid pair got libyaml's 'invalid Unicode character escape code' and nothing more."""
    p = parse("---\nname: demo\ndescription: " + "word " * 800 + "\n" + values + "---\n")
    assert p.fatal and codes(p) == ["SK103"]
    assert p.diagnostics[0].message.endswith(f"(the frontmatter was read again for each such value, as many times "
                                             f"as one may be; {fix})")


def test_a_body_starting_on_the_closing_line_is_said_at_the_file_s_columns():
    """The body's first line starts after the closing '---' (SK115): a link of it was said three
    columns to the left of where the file holds it."""
    p = parse("---\nname: demo\ndescription: d\n---See [x](missing.md).\n[y](gone.md)\n")
    assert p.body_column == 4 and parse("---\nname: demo\ndescription: d\n---\nbody\n").body_column == 1
    said = [(d.code, d.line, d.col) for d in link_diagnostics(p, frozenset())]
    assert said == [("SK303", 4, 8), ("SK303", 5, 1)]
    long = parse("---\nname: demo\ndescription: d\n---# Title\n" + "line\n" * 600)
    assert [(d.code, d.line, d.col) for d in body_diagnostics(long)] == [("SK301", 4, 4)]
