"""Hostile skill trees give diagnostics, never a traceback or a hang, and cost time in proportion
to their size (skillsite.source: links, frontmatter, discover, knowledge, codex_interface)."""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from support import write_skill

from skillsite.audit import audit_skill
from skillsite.source import body_code, links
from skillsite.source.catalog import read_catalog
from skillsite.source.markdown_blocks import BLOCK_TOKENS, PARAGRAPH_LINES, body_markdown


def diagnostics(root: Path) -> list[tuple[str, str]]:
    return sorted((d.code, d.message) for d in read_catalog([root]).diagnostics)


def rendered_links(body: str, images: bool = False) -> list[str]:
    """The targets of the links (and images) markdown-it renders in ``body``, its blocks read as the
    page renderer reads them (:func:`~skillsite.source.markdown_blocks.body_markdown`)."""
    md = body_markdown()
    kinds = {"link_open": "href", "image": "src"} if images else {"link_open": "href"}
    return [child.attrs[kinds[child.type]] for token in md.parse(body) for child in token.children or ()
            if child.type in kinds]


def test_each_line_of_a_body_has_its_code_spans_found_once(tmp_path, monkeypatch):
    calls = []
    real = body_code.code_spans
    monkeypatch.setattr(body_code, "code_spans", lambda line: calls.append(len(line)) or real(line))
    write_skill(tmp_path, "many", body="`x` [a](nope.md) " * 3000 + "\n[b](gone.md)\n")
    found = [(d.line, d.col) for d in read_catalog([tmp_path]).diagnostics if d.code == "SK303"]
    assert len(found) == 3001
    assert found[:2] == [(5, 5), (5, 22)] and found[-1] == (6, 1)  # each link placed on its line
    assert len(calls) == 2


@pytest.mark.parametrize("value, kind", [("2020-13-45", "date"), ("2021-02-30", "date"),
                                         ("2020-01-01 25:00:00", "date"), ("9" * 5000, "integer")])
def test_a_scalar_yaml_cannot_read_is_kept_as_text(tmp_path, value, kind):
    write_skill(tmp_path, "odd", f"name: odd\ndescription: d\nmetadata:\n  released: {value}\n")
    reading = read_catalog([tmp_path])
    [diag] = [d for d in reading.diagnostics if d.code == "SK111"]
    assert f"is not a valid {kind} in YAML; kept as the text written" in diag.message
    assert reading.skills[0].frontmatter["metadata"]["released"] == value


def test_equals_and_merge_signs_as_values_are_text(tmp_path):
    write_skill(tmp_path, "signs", "name: signs\ndescription: '='\nlicense: <<\nmetadata:\n  op: =\n")
    reading = read_catalog([tmp_path])
    assert reading.diagnostics == ()
    assert reading.skills[0].frontmatter["license"] == "<<"
    assert reading.skills[0].frontmatter["metadata"] == {"op": "="}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_symlink_to_a_pipe_is_not_followed_and_validation_ends(tmp_path):
    skill = write_skill(tmp_path, "piped")
    os.mkfifo(tmp_path / "fifo")
    (skill / "agents").mkdir()
    os.symlink("../../fifo", skill / "agents" / "openai.yaml")
    done = subprocess.run([sys.executable, "-m", "skillsite", "validate", str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SK005" in done.stdout and "neither a file nor a folder" in done.stdout


def test_nul_characters_in_declared_paths_are_diagnosed(tmp_path):
    skill = write_skill(tmp_path, "nul", 'name: nul\ndescription: d\nknowledge: ["a\\0b.md"]\n')
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yaml").write_text('interface:\n  icon_small: "a\\0.png"\n', encoding="utf-8")
    found = diagnostics(tmp_path)
    assert any(code == "SK220" and "icon_small" in message for code, message in found)
    assert any("holds a NUL character" in message for _, message in found)


def test_a_source_folder_whose_own_name_is_not_utf8_is_an_error_not_a_traceback(tmp_path):
    """Every path shown of a skill starts with the source folder as given: one whose name is not
    UTF-8 is refused with SK011 (an error) by build and validate; named from inside it, as ".",
    its skills are published."""
    root = os.path.join(os.fsencode(tmp_path), b"root\xff")
    write_skill(Path(os.fsdecode(root)), "s1")
    for command in (["build", os.fsdecode(root), "-o", str(tmp_path / "out")], ["validate", os.fsdecode(root)]):
        done = subprocess.run([sys.executable, "-m", "skillsite", *command], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 1 and "SK011" in done.stdout and "root\\xff" in done.stdout, \
            done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "skillsite", "build", ".", "-o", str(tmp_path / "out")],
                          cwd=os.fsdecode(root), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Built 1 skill " in done.stdout, done.stdout + done.stderr


def test_names_that_are_not_utf8_are_skipped_and_shown_escaped(tmp_path):
    root = os.fsencode(tmp_path)
    os.makedirs(os.path.join(root, b"bad\xff"))
    with open(os.path.join(root, b"bad\xff", b"SKILL.md"), "wb") as handle:
        handle.write(b"---\nname: bad\ndescription: d\n---\nbody\n")
    good = write_skill(tmp_path, "good")
    (good / "scripts").mkdir()
    with open(os.path.join(os.fsencode(good), b"scripts", b"x\xff.sh"), "wb") as handle:
        handle.write(b"echo hi\n")
    reading = read_catalog([tmp_path])
    assert [s.id for s in reading.skills] == ["good"]
    assert sorted(d.path.rsplit(os.sep, 1)[-1] for d in reading.diagnostics if d.code == "SK011") == \
        ["bad\\xff", "x\\xff.sh"]
    assert audit_skill(good) == []
    done = subprocess.run([sys.executable, "-m", "skillsite", "build", str(tmp_path), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Built 1 skill " in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("body", ["\\[a" * 100_000 + "] ](", "[x " + "[a\\] " * 100_000 + "\\\n](",
                                  "\\\\\\[a" * 100_000 + "] ](", "\\\\\\\\[a" * 100_000 + "] ]("])
def test_a_line_of_escaped_brackets_is_read_once(body: str) -> None:
    """A link scan started at every escaped bracket ('\\[a' repeated) and at every bracket pair
    whose close is escaped ('[a\\] ' repeated) and read on to the line's end from each: a 30 KB
    line took seconds, these lines would take minutes.  None of them holds a link."""
    assert list(links.iter_body_links(body)) == []


@pytest.mark.parametrize("body, targets", [
    ("[a](references/my file.md)", []), ("[a](references/x.md x)", []), ("[t](java\tscript:x('t'))", []),
    ('[a](references/x.md "t")', ["references/x.md"]), ("[a](references/x.md 't' )", ["references/x.md"]),
    ("[a](references/x.md (t))", ["references/x.md"]), ('[a](references/x.md\n  "t")', ["references/x.md"]),
    ("[a](<references/my file.md>)", ["references/my file.md"]), ('[a](x "t" y)', []),
    ("[a](../../s.md\u00a0)", ["../../s.md"]), ("[a](../../s.md\u3000)", ["../../s.md"]),
    ("[a](x\u00a0y)", ["x\u00a0y"]), ("[a](../../s.md#((x)))", ["../../s.md#((x))"]),
    ("[a](../../s.md#\\()", ["../../s.md#("]), ("[a](<../../s.md#\\>>)", ["../../s.md#>"]),
    ('[a](x\r\n "t")', ["x"]), ("[a](\\../..)", ["../.."]), ("[c](\\.\\./\\.\\./secret.md)", ["../../secret.md"]),
    ('> [a](../../s.md\n> "t")', ["../../s.md"]), ("> [a](../../s.md\n> )", ["../../s.md"]),
    ("[a](../../s.md\n\n)", []), ("[[](../)](\u3000)", ["", "../"]), ("[x [b](../../s.md)](z)", ["z", "../../s.md"]),
    ("[[[[[[a]]]]]](../../x)", ["../../x"]), ("[a [b [c] d] e](../../x)", ["../../x"]), ("[a\n\nb](../../x)", []),
])
def test_a_link_is_a_target_then_maybe_a_title_then_its_closing_parenthesis(body: str, targets: list[str]) -> None:
    """A link is what markdown-it's link rule reads (its own helpers find the target's end): a
    target followed by anything but a title and the closing parenthesis makes no link
    ('[a](references/my file.md)' was read as a link to 'references/my', a false SK303), and a
    target ending in a no-break space, with parentheses nested twice or escaped, was not seen
    at all by 2d3947d's pattern."""
    rendered = rendered_links(body.replace("\r\n", "\n"))
    assert len(rendered) == len([target for target in targets if target not in ("", "z")])
    assert [target for _, _, target, _ in links.iter_body_links(body)] == targets


@pytest.mark.parametrize("body", [
    'A title opens with `[text](path "` and, see [notes](../../secret.md), closes with `")`.',
    '```\n[x](y "\n```\n\n[notes](../../secret.md)\n\n```\n")\n```\n',
    '[a](x "\n\n[notes](../../secret.md)\n\n")', '- [x](y "\n- [notes](../../secret.md)\n- ")',
])
def test_a_link_inside_what_only_looks_like_a_title_is_found(body: str) -> None:
    """A "link" the renderer does not see (it starts in code, or its title crosses a block) hid the
    real link in its "title": the scan goes on from the next bracket, even inside a link."""
    rendered = rendered_links(body)
    assert "../../secret.md" in rendered
    assert "../../secret.md" in [target for _, _, target, _ in links.iter_body_links(body)]


@pytest.mark.parametrize("body", ['[a](b "' + "x" * 200_000, '[a](b "x' * 50_000, "[a](b (x" * 50_000,
                                  "[a](b 'x" * 50_000])
def test_an_unclosed_title_is_read_once(body: str) -> None:
    """A title left open is read to the next quote or parenthesis of its kind, not on to the end
    of the body from every link: none of these holds a link."""
    assert list(links.iter_body_links(body)) == []


@pytest.mark.parametrize("body, targets", [
    ("\\[a](x)", []), ("\\\\[a](x)", ["x"]), ("\\\\\\[a](x)", []), ("[a\\]b](x)", ["x"]),
    ("[x [a\\]] y](z)", ["z"]), ("\\[a [b](y)", ["y"]), ("[a](x) \\[b](y)", ["x"]),
    ("[see [note\\\nmore] here](references/a.md)", ["references/a.md"]), ("[a\\\nb](../x)", ["../x"]),
    ("x \\\\\\\\[a](../../secret.md)", ["../../secret.md"]), ("\\\\\\\\\\[a](x)", []),
    ("[a](\\&#46;\\&#46;/x)", ["&#46;&#46;/x"]), ("[a](&#46;&#46;/x)", ["../x"]), ("[a](&amp;#46;/x)", ["&#46;/x"]),
    ("[a](\\&amp;)", ["&amp;"])])
def test_backslashes_before_and_inside_a_link_are_read_as_the_renderer_reads_them(body: str,
                                                                                    targets: list[str]) -> None:
    """An escaped bracket opens no link and an escaped close ends no bracket pair, as markdown-it
    reads them ('\\[a](x)' was read as a link to x; '[x [a\\]] y](z)' was not read as one; a target's
    escapes and entities are decoded in one pass: '\\&#46;' is '&#46;', not '.'), and
    a backslash before a line end inside a link's text is a line break, not the end of the link
    ('[a\\' + line end + 'b](../x)' left the skill folder unseen)."""
    rendered = rendered_links(body)
    assert rendered == targets
    assert [target for _, _, target, _ in links.iter_body_links(body)] == targets


@pytest.mark.parametrize("body, targets", [
    ("x \\`[a](../../z)` y", ["../../z"]), ("x \\``[a](../../z)` y", []), ("x \\\\`[a](../../z)` y", []),
    ("x \\\\\\`[a](../../z)` y", ["../../z"]), ("`a\\`[a](../../z)`", ["../../z"]),
    ("`` a\\`` [a](../../z) ``", ["../../z"]), ("\\``[a](../../z)``", ["../../z"]),
])
def test_a_backslash_before_a_backtick_escapes_it_outside_code_only(body: str, targets: list[str]) -> None:
    """A backslash before a backtick run escapes its first backtick, so the run opens no code span
    of its length ('x \\`[a](../../z)` y' hid a link out of the skill folder in "code"); inside a
    span a backslash is text, so the run after it still closes the span."""
    assert rendered_links(body) == targets
    assert [target for _, _, target, _ in links.iter_body_links(body)] == targets


@pytest.mark.parametrize("body", ["x `a\n`[a](../../z)` y", "x `a\nb\n`[a](../../z)` y",
                                  "> x `a\n> `[a](../../z)`", "```` [a](../../z) `\n", "x\n```js `\n[a](../../z)\n"])
def test_a_backtick_that_pairs_across_lines_or_follows_backticks_hides_no_link(body: str) -> None:
    """markdown-it pairs a paragraph's backticks across its lines, so a line's own pair may not
    be a code span ('`[a](../../z)`' after a line ending in an open backtick is a link); and a run
    of backticks with a backtick after it on its line opens no fence.  Both hid the link."""
    assert rendered_links(body) == ["../../z"]
    assert [target for _, _, target, _ in links.iter_body_links(body)] == ["../../z"]


@pytest.mark.parametrize("body, targets", [
    ("[a `]` b](../../z)", ["../../z"]), ("[a `[` b](../../z)", ["../../z"]),
    ("`[a` b](../../y) [c](../../z)", ["../../z"]), ("[`]`](../../z)\n\n" * 3, ["../../z"] * 3),
    ("[a\n`]` b](../../z)", ["../../z"]), ("> [a `]]` b](../../z)", ["../../z"]),
    ("[docs <https://x/a`b>](../../z) run `make`", ["../../z"]), ("[![i](a`)](../../z) `", ["../../z", "a`"]),
    ("# `` [a `]` b](../../z)\n``\n", ["../../z"]), ("`` [a `]` b](../../z)\n- ``\n", ["../../z"]),
    ("a\n" * (PARAGRAPH_LINES - 1) + "`` [a `]` b](../../z)\n``\n", ["../../z"]),
])
def test_a_bracket_in_a_code_span_is_no_link_s_bracket(body: str, targets: list[str]) -> None:
    """A code span binds tighter than a link's brackets, so a bracket in one neither opens nor
    closes a link: '[a `]` b](../../z)' is a link out of the folder, which the scanner missed
    (it closed the label at the bracket in code, and read no '(' after it).  markdown-it pairs no
    backtick of an autolink or of a nested image's target, so a paragraph is paired with its
    code's brackets too (a review found links that skipping them alone missed), and its lines'
    backticks are paired line by line too: a heading, a list item's first line, or the last line
    of a paragraph cut at PARAGRAPH_LINES is inline content of its own."""
    rendered = {unquote(target) for target in rendered_links(body, images=True) if not urlsplit(target).scheme}
    assert rendered == {*targets}
    assert [target for _, _, target, _ in links.iter_body_links(body)] == targets


@pytest.mark.parametrize("body", [
    "-\n  ```\n[a](../../x)\n", "- a\n\n  ```\n  x\n     ```\n\n[a](../../x)\n",
    "- a\n\n\t```\n\tx\n  ```\n\n[a](../../x)\n", "> ```\n> x\n\n[a](../../x)\n\n```\ny\n```\n",
    "1. step\n\n   ```bash\n   run\nnot in the item\n[a](../../x)\n\n   ```\n",
    "- ```\n  ```\n  [a](../../x)\n  ```\n", "1. ~~~\n   ~~~\n   [a](../../x)\n   ~~~\n", "```|a\n-|-\n[a](../../x)\n",
    "```\nx\n```\u00a0\n```\n[a](../../x)\n```\n",
])
def test_a_fence_that_ends_with_its_list_item_or_quote_hides_no_link(body: str) -> None:
    """The scanner pairs fence lines alone: a fence in a list item or a quote that ends with it,
    or one it does not see (after a tab, a '>' or a list marker), or a table's header that starts
    like a fence, made it take the text after for code; such a body's blocks are read by
    markdown-it.  A closing marker followed by a no-break space closes nothing."""
    assert "../../x" in rendered_links(body)
    assert "../../x" in [target for _, _, target, _ in links.iter_body_links(body)]


def test_indented_code_is_code_where_markdown_it_reads_the_blocks() -> None:
    """Where markdown-it reads a body's blocks, a link in an indented code block is code too."""
    body = "\t```\n\tx\n\t```\n\n    [a](../../in-code)\n\n[b](../../x)\n"
    assert rendered_links(body) == ["../../x"]
    assert [target for _, _, target, _ in links.iter_body_links(body)] == ["../../x"]


@pytest.mark.parametrize("body", [
    "a|b\n-|-\n`x|[y](../../x)`\n", "`x|[y](../../x)`\n-|-\n", "2) `\n2) `\n`[a](../../x)`\n",
    "# `a\n- `b\n`[a](../../x)` `\n", "a `b\n2. `[a](../../x)` c\n", "x\n\n- a `b\n  2. `[a](../../x)`\n",
    "`\n---\n`\n`[a](../../x)`\n", "a `b\n> c `\n`[a](../../x)`\n", "1. `a\n2. `b\n   `[a](../../x)`\n",
])
def test_backticks_a_table_cell_or_a_list_item_parts_hide_no_link(body: str) -> None:
    """A table splits its cells at a pipe before it pairs backticks, and markdown-it pairs the
    backticks of each paragraph, heading or list item apart (a '2.' line may go on a paragraph, a
    '---' line end it): pairing backticks otherwise hid the link."""
    assert "../../x" in rendered_links(body)
    assert "../../x" in [target for _, _, target, _ in links.iter_body_links(body)]


def test_links_in_one_long_code_span_holding_a_pipe_are_read_once() -> None:
    """A code span's pipe was looked for once a link inside it, through the whole span (a table's
    row: there the pipe ends the cell, and the links are no code)."""
    body = "a|b\n-|-\n`" + "[a](../x) " * 30_000 + "| `\n"
    assert len(list(links.iter_body_links(body))) == 30_000


@pytest.mark.parametrize("body", ["Arrays cast with `[char[]](73,69,88)|%{$r+=$_}`.\n",
                                  "> `[a](../../x) | b`\n", "- `a|[b](../../x)`\n\n  c|d\n"])
def test_a_code_span_holding_a_pipe_outside_a_table_hides_its_link(body: str) -> None:
    """Only a table splits its cells at a pipe before it pairs backticks: in a paragraph, a quote or a
    list item a span holding one is code, as the page shows it.  A span holding a pipe was taken for
    no code anywhere: 'warning SK303 link '73,69,88' points to a file that does not exist' for a
    PowerShell one-liner in prose (mukul975/Anthropic-Cybersecurity-Skills)."""
    assert rendered_links(body) == []
    assert list(links.iter_body_links(body)) == []


def test_backtick_runs_of_every_length_then_pairs_hide_no_link() -> None:
    """Unclosed runs of every length, each of which looked for its close among all the runs
    after it, then pairs of single backticks (a megabyte took seconds): the link after them is
    found, and one inside a pair is not."""
    head = "".join("`" * length + "a" for length in range(2, 400))
    body = head + "`a" * 50_000 + " [a](../../x) `[b](../../y)`"
    assert [target for _, _, target, _ in links.iter_body_links(body)] == ["../../x"]
    assert rendered_links(body) == ["../../x"]


def test_a_long_line_of_fence_markers_opens_no_fence() -> None:
    """Fence markers along one line (each once read back to the line's start) open no fence:
    the link on the next line is found."""
    body = "x```" * 200_000 + "\n[a](../../x)\n   ```\n[b](../../y)\n"
    assert [target for _, _, target, _ in links.iter_body_links(body)] == ["../../x"]


@pytest.mark.parametrize("body, targets", [
    ("See [the guide][g].\n\n[g]: ../../guide.md\n", ["../../guide.md"]),
    ("See [g].\n\n[G]: <../../my guide.md> 'title'\n", ["../../my%20guide.md"]),
    ("![logo][l]\n\n> - [l]:\n>   ../../logo.png\n", ["../../logo.png"]),
    ("[a][b]\n\n[b]: ../x&amp;y.md\n", ["../x&y.md"]), ("[a][b]\n\n[b]: \\.\\./\\.\\./s.md\n", ["../../s.md"]),
    ("[g]: ../../unused.md\n", ["../../unused.md"]), ("```\n[g]: ../../code.md\n```\n[g]\n", []),
    ("[Ask]: a question they ask\n\n[Ask]\n", []), ("[a][b]\n\n[b]: https://e.com/x\n", []),
    ("- [ ] [done][d]\n\n  [d]: ../../d.md\n", ["../../d.md"]),
    ("[a][b]\n\n[b\\]c]: ../../e.md\n[b\\]c]\n", ["../../e.md"]),
    ("[r]\r\r[r]: ../../x\r", ["../../x"]), (f"[{'a' * 1001}]\n\n[{'a' * 1001}]: ../../x\n", ["../../x"]),
    ("[a b]\n\n[a\n" + " " * 1000 + "b]: ../../x\n", ["../../x"]),
    ("[r]\n\n- a\n\n  ```\n[r]: ../../x\n", ["../../x"]),
    ("[r]\n\n- | a |\n  |-|\n[r]: ../../x\n", ["../../x"]), ("[r]\n\n| a |\n|-|\n2. [r]: ../../x\n", ["../../x"]),
    ("[r]\n\n| a |\n|-|\n[r]: ../../x\n", []),
])
def test_a_link_by_reference_is_read_at_its_definition(body: str, targets: list[str]) -> None:
    """A link or image that names its target by reference ('[the guide][g]' with '[g]: ../../guide.md'
    elsewhere) left the skill folder unseen: the definitions are read by markdown-it's block rules
    as the renderer reads them (not one in code, in a table, nor '[Ask]: a question'; one after
    a fence or a table that ends with its list item is), and reported where the target is written,
    used or not: no link it renders is missed."""
    assert [target for _, _, target, _ in links.iter_body_links(body)] == targets
    rendered = {unquote(target) for target in rendered_links(body, images=True) if not urlsplit(target).scheme}
    assert rendered <= {unquote(target) for target in targets}


@pytest.mark.parametrize("body, place", [
    ("[d]: ../../x\n", (0, 1)), ("> - [d]: ../../x\n", (0, 5)), ("- [ ] [d]: ../../x\n", (0, 7)),
    ("text\n\n> - [x]\t[d]:\n>   ../../x\n", (2, 9)), ("- [X] [[d]: ../../x\n", None),
    ("- [ ] > [d]: ../../x\n", (0, 9)), ("- [x] - [ ] [d]: ../../x\n", (0, 13)), ("- [ ] 1. [d]: ../../x\n", (0, 10)),
    ("> - [X] > [d]: ../../x\n", (0, 11)), ("- [x] [x]: ../../x\n", (0, 7)),
])
def test_a_definition_is_placed_at_its_label(body: str, place: tuple[int, int] | None) -> None:
    """A definition is reported at its label's bracket, after the quote and list markers and
    task items' boxes before it: '- [ ] [d]: x' is a task item holding the definition '[d]: x',
    and its place was the box's bracket."""
    assert [found[:2] for found in links.iter_body_links(body)] == ([place] if place else [])


def test_a_nul_in_a_target_is_read_as_markdown_it_reads_it() -> None:
    """markdown-it reads NUL as U+FFFD, so '[a](../../x' + NUL + ')' is a link out of the folder."""
    assert [unquote(target) for target in rendered_links("[a](../../x\0)")] == ["../../x\ufffd"]
    assert [target for _, _, target, _ in links.iter_body_links("[a](../../x\0)")] == ["../../x\ufffd"]


def test_a_missing_file_named_by_reference_is_placed_at_its_definition(tmp_path):
    write_skill(tmp_path, "refs", body="# Refs\n\nRead [the guide][guide] first.\n\n> - item\n>\n"
                                       ">   [guide]: references/guide.md\n")
    [found] = [d for d in read_catalog([tmp_path]).diagnostics if d.code == "SK303"]
    assert "link 'references/guide.md' points to a file that does not exist" in found.message
    assert (found.line, found.col) == (11, 5)


@pytest.mark.parametrize("body", ["]:" * 300_000, "[" + "x]:" * 100_000, "\\[a]:" * 100_000,
                                  "[" * 100_000 + "a]:", "- [a]:\n" * 50_000 + "[a]"])
def test_what_looks_like_many_definitions_is_read_once(body: str) -> None:
    """Colons after brackets along one line, or as many definition-like lines, are each read back
    to their label's bracket at most: none of these holds a link out of the folder."""
    assert [target for _, _, target, _ in links.iter_body_links(body) if target.startswith("../")] == []


def test_a_target_is_decoded_once(tmp_path):
    """A target's escapes and entities are decoded in one pass, as markdown-it decodes them, and
    never again: '\\&#46;\\&#46;/x' names a file '&' (its '#' starts a fragment), and
    '&amp;#46;&amp;#46;/y' a file '&', where both were taken for links out of the folder (SK304)."""
    write_skill(tmp_path, "decoded", body="[a](\\&#46;\\&#46;/x) and [b](&amp;#46;&amp;#46;/y) and [c](&#46;&#46;/z)\n")
    found = sorted((d.code, d.col, d.message.split("'")[1]) for d in read_catalog([tmp_path]).diagnostics
                   if d.code in ("SK303", "SK304"))
    assert found == [("SK303", 1, "&"), ("SK303", 25, "&"), ("SK304", 55, "../z")]


def test_a_body_whose_lines_end_with_a_carriage_return_alone_has_its_links_placed_on_their_lines(tmp_path):
    """markdown-it reads a lone CR as a line end: links were placed as if the body were one line
    (5:23 for line 8), and a link inside a fence was not known to be code."""
    folder = tmp_path / "cr"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"---\rname: cr\rdescription: Does cr things.\r---\r# Title\r\r"
                                      b"```\r[x](in-code.md)\r```\rSee [x](missing.md) here.\r")
    reading = read_catalog([tmp_path])
    assert [(d.line, d.col) for d in reading.diagnostics if d.code == "SK303"] == [(10, 5)]
    [fences] = [d for d in reading.diagnostics if d.code == "SK016"]
    assert "carriage return alone" in fences.message and "save it with LF line ends" in fences.message


def test_a_plain_value_holding_a_colon_is_quoted_as_the_lazy_pattern_quoted_it() -> None:
    """_UNQUOTED_COLON_LINE read a value with a lazy match tried against every end of the line:
    'a: b' and 64,000 spaces then 'x' took seconds.  The value is now cut by _colon_value; over
    random lines it is what the lazy pattern gave."""
    import random
    import re

    from skillsite.source.frontmatter_retries import _UNQUOTED_COLON_LINE, _colon_value, _quote_unquoted_colons

    lazy = re.compile(r"^(\s*(?:-\s+)?[A-Za-z0-9_.-]+:[ \t]+)([^'\"\[{|>&*!#%@`\s].*?: .*?)\s*$")
    rng = random.Random(1)
    alphabet = ["a", ":", " ", "\t", "'", "#", "-", "k", "\u00a0", "\x1c", "\u2003"]
    for _ in range(20_000):
        line = "key: " + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        old, new = lazy.match(line), _UNQUOTED_COLON_LINE.match(line)
        value = _colon_value(new.group(2)) if new else None
        assert (old.group(1), old.group(2)) if old else None == ((new.group(1), value) if value is not None else None)
    long_line = "description: a: b" + " " * 64_000 + "x"
    assert _quote_unquoted_colons(long_line)[0] == "description: 'a: b" + " " * 64_000 + "x'"


def test_a_link_target_in_angle_brackets_ends_at_the_next_angle_bracket() -> None:
    """'[a](<' repeated on one line was read to the line's end from each '<' (a 1 MB body took
    three minutes to validate); CommonMark's destination holds no '<' either."""
    assert list(links.iter_body_links("[a](<" * 20_000)) == []
    assert list(links.iter_body_links("see [a](<x y.md>)\n")) == [(0, 5, "x y.md", True)]


def test_a_plain_target_is_read_as_markdown_its_helpers_read_it() -> None:
    """The shortcut for most links (a target of no parenthesis, backslash or space, then ')')
    gives what the helpers give, over every short string of the characters that matter."""
    from markdown_it.helpers import parseLinkDestination, parseLinkTitle

    chance = random.Random(7)
    checked = 0
    for _ in range(20_000):
        text = "".join(chance.choice("ab()\\<> \t\n\r\"'\u00a0#&.)") for _ in range(chance.randint(1, 10)))
        plain = links._PLAIN_TARGET.match(text)
        if plain is None:
            continue
        destination = parseLinkDestination(text, 0, len(text))
        assert destination.ok, text
        end = after = links._skip_space(text, destination.pos)
        if after > destination.pos and (title := parseLinkTitle(text, after, len(text))).ok:
            end = links._skip_space(text, title.pos)
        assert text.startswith(")", end) and (end + 1, text[:destination.pos]) == (plain.end(), plain.group(1)), text
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("budget", ["#\n" * BLOCK_TOKENS, "a\n" * PARAGRAPH_LINES + "\n"])
def test_the_links_past_a_body_s_block_budget_are_text_to_the_scanner_too(budget: str) -> None:
    """Past BLOCK_TOKENS (or PARAGRAPH_LINES) the page shows a body's lines as one code block,
    links and definitions included; the scanner, which reads such a body's blocks with the
    renderer's rules, reports the links before them only."""
    body = "[a](../../first)\n\n" + budget + "[d]: ../../x\n[b](../../y)\n[c][d]\n"
    assert rendered_links(body) == ["../../first"]
    assert [target for _, _, target, _ in links.iter_body_links(body)] == ["../../first"]


@pytest.mark.parametrize("body", [
    "[a]: ../../a\n[b]: ../../b\n" + "#\n" * ((BLOCK_TOKENS - 2) // 3) + "[l](../../y)\n",
    "- [ ] ---\n" * 30_000 + "\n[l](../../y)\n\n[z]: ../../z\n",
    "- [ ] [d]: ../../x\n\n[c][d]\n", "> [!NOTE]\n> [d]: ../../x\n\n[c][d]\n",
    "[d]: ../../x\n" + "#\n" * ((BLOCK_TOKENS - 5) // 3) + "> - [c][d]\n> - b\n>",
])
def test_the_scanner_reads_a_body_s_blocks_with_the_renderer_s_options_and_budget(body: str) -> None:
    """The link scanner's parser makes a token of each link reference definition, which the
    renderer does not: counted, it reached the block budget before the page did and missed the
    links after (a review of 02f550b).  It reads task lists and alerts as the renderer does too
    ('- [ ] [d]: x' is a task item holding a definition, and '- [ ] ---' an item's rule), and
    a budget reached on a last line with no line break cuts it without reading past the body."""
    rendered = rendered_links(body)
    assert rendered and set(rendered) <= {target for _, _, target, _ in links.iter_body_links(body)}
