"""SK635's startup file written from a here-document (``cat >> ~/.bashrc <<EOF`` and a hijacking line
in it: medium): the lines and openers of a document are read once, not again at each match (a line
of thousands of startup files written was read whole again for each), and the hits are those of the
condition as it was (kept here)."""
from __future__ import annotations

import re
import sys
from dataclasses import replace

import pytest
from hypothesis import given, settings

from regex_steps import joined_texts, seeded_texts
from skillsite.audit.hit import Hit
from skillsite.audit.rules import remote_code
from skillsite.audit.rules.remote_code import _HEREDOC, _HEREDOC_REACH, _HIJACKING, PERSISTENCE, _heredoc_hijacks
from skillsite.audit.text import Document, make_document

#: The pattern whose matches the condition judges.
STARTUP = next(p for p in PERSISTENCE.patterns if p.condition is _heredoc_hijacks)


def old_heredoc_hijacks(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """The condition as it was: the match's lines and their opener searched for from each match."""
    text = match.string
    line_start, line_end = text.rfind("\n", 0, match.start()) + 1, text.find("\n", match.end())
    heredoc = _HEREDOC.search(text, line_start, line_end if line_end >= 0 else len(text))
    if heredoc is None or line_end < 0:
        return hit
    delimiter = re.sub(r"\\(.)|['\"]", r"\1", heredoc.group(2))
    tabs = r"\t*" if heredoc.group(1) else ""
    closing = re.compile(rf"^{tabs}{re.escape(delimiter)}$", re.MULTILINE).search(
        text, line_end + 1, line_end + 1 + _HEREDOC_REACH)
    body_end = closing.start() if closing else min(len(text), line_end + 1 + _HEREDOC_REACH)
    hijack = _HIJACKING.search(text, line_end + 1, body_end)
    return replace(hit, severity="medium", end=hijack.end()) if hijack else hit


def judged(text: str, condition) -> list[Hit]:
    """Each match of the startup file pattern in ``text`` (a script) as ``condition`` judges it."""
    doc = make_document("scripts/run.sh", text)
    return [condition(doc, m, Hit("SK635", m.start(), m.end(), "", "low")) for m in STARTUP.finditer(doc)]


#: Startup files written (a tee's file on the next line too), here-document openers of every
#: quoting, their closing lines (tabs before, spaces before), hijacking lines and others, filler
#: reaching past the here-document's reach.
PIECES = ["cat <<EOF >> ~/.bashrc", "cat >> ~/.bashrc <<'EOF'", "cat <<-EOF > ~/.zshrc", "tee -a ~/.profile << \"END\"",
          "cat <<\\EOF >>$HOME/.bashrc", "cat <<E\"O\"F", "tee\n~/.bashrc <<EOF", "echo x >> ~/.bashrc", "<<", "<<<EOF",
          ">> /etc/profile", "alias ls=x", "alias sudo='x'", "function cd {", "trap 'x' DEBUG", "PROMPT_COMMAND=x",
          "export PATH=x", "EOF", "\tEOF", " EOF", "END", "E\"O\"F", "x", "#" * 1000, "\u0130",
          "cat <<-'\tEOF' >> ~/.bashrc", "\t\tEOF", "function sshx", "trap x DEBUGX", "alias -- \n ls=", "LD_PRELOAD=",
          "#" * 3990, "-" * 300]
SEPARATORS = ["\n", "\n", " ", "; ", "\n\t", ""]


def assert_judged_as_before(text: str) -> None:
    assert judged(text, _heredoc_hijacks) == judged(text, old_heredoc_hijacks), text


@settings(max_examples=400, deadline=None)
@given(joined_texts(PIECES, SEPARATORS, max_size=24))
def test_a_here_document_is_judged_as_before(text):
    assert_judged_as_before(text)


def test_a_here_document_is_judged_as_before_on_thousands_of_texts():
    """A seeded fuzz, larger than the property's; it finds hijacking here-documents."""
    medium = 0
    for text in seeded_texts(635, PIECES, SEPARATORS, 3000, lengths=(1, 20)):
        assert_judged_as_before(text)
        medium += any(hit.severity == "medium" for hit in judged(text, _heredoc_hijacks))
    assert medium > 100


@pytest.mark.parametrize("text, end", [
    ("cat >> ~/.bashrc <<'EOF'\nexport PATH=x\nalias sudo='x'\nEOF\n", "alias sudo="),
    ("cat <<-END >> ~/.zshrc\n\tEND\nalias ls=x\n", None),       # after its closing line: not in it
    ("tee\n~/.bashrc <<EOF\nalias ls=x\nEOF\n", "alias ls="),     # the match on two lines
    ("cat <<EOF >> ~/.bashrc >> ~/.profile\nalias cd=x\nEOF\n", "alias cd="),
])
def test_a_hijacking_line_in_a_here_document_is_found(text, end):
    hits = judged(text, _heredoc_hijacks)
    assert hits and all(hit.severity == ("medium" if end else "low") for hit in hits)
    assert all(hit.end == text.index(end) + len(end) for hit in hits) if end else True


class CountingText(str):
    """A text counting the characters its searches for a line break read (and splitting it reads)."""

    read = 0

    def find(self, sub, start=0, end=sys.maxsize):
        found = str.find(self, sub, start, end)
        CountingText.read += (found if found >= 0 else min(end, len(self))) - start
        return found

    def rfind(self, sub, start=0, end=sys.maxsize):
        found = str.rfind(self, sub, start, end)
        CountingText.read += min(end, len(self)) - max(found, start)
        return found

    def split(self, *args, **kwargs):
        CountingText.read += len(self)
        return str.split(self, *args, **kwargs)


class CountingPattern:
    """A compiled pattern counting the characters its searches are given to read, and its tries at one place."""

    tries = 0

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def _given(self, text: str, pos: int, endpos: int) -> None:
        CountingText.read += min(endpos, len(text)) - pos

    def search(self, text, pos=0, endpos=sys.maxsize):
        self._given(text, pos, endpos)
        return self.pattern.search(text, pos, endpos)

    def match(self, text, pos=0, endpos=sys.maxsize):
        """A try at ``pos`` counts what it is given, or without an end (a run of white space) what it
        matched and the character after."""
        found = self.pattern.match(text, pos, endpos)
        CountingText.read += min(endpos, len(text)) - pos if endpos < sys.maxsize else (found.end() - pos + 1)
        CountingPattern.tries += 1
        return found

    def finditer(self, text, pos=0, endpos=sys.maxsize):
        self._given(text, pos, endpos)
        return self.pattern.finditer(text, pos, endpos)


@pytest.mark.parametrize("shape", ["echo x >> ~/.bashrc; {}\n", "cat <<EOF{}\nalias ls=x\nEOF\n"])
def test_a_line_of_startup_files_written_is_read_a_few_times_not_once_for_each(shape, monkeypatch):
    """Before, each match read its whole line again (its start and end, and an opener in it):
    thousands of matches on a line read it thousands of times."""
    monkeypatch.setattr(remote_code, "_HEREDOC", CountingPattern(_HEREDOC))
    monkeypatch.setattr(remote_code, "_HIJACKING", CountingPattern(_HIJACKING))
    text = shape.replace("{}", " >> ~/.bashrc" * 2000)
    doc = make_document("scripts/run.sh", text)
    doc.folded = CountingText(doc.folded)
    CountingText.read = 0
    hits = [_heredoc_hijacks(doc, m, Hit("SK635", m.start(), m.end(), "", "low")) for m in STARTUP.finditer(doc)]
    assert len(hits) >= 2000 and all(hit.severity == ("medium" if "EOF" in shape else "low") for hit in hits)
    assert CountingText.read <= 3 * len(text)


#: Here-documents never closed, every line opening one: each reached 4,000 characters of the lines after.
NEVER_CLOSED = ["cat<<E >~/.bashrc\n", "cat<<E >~/.bashrc\ntrap x\n", "cat<<-'\tE' >~/.bashrc\nE\n",
                "cat<<E >~/.bashrc\nalias x=y; function cdx; trap - DEBUGX\n"]


@pytest.mark.parametrize("line", NEVER_CLOSED)
def test_here_documents_never_closed_are_not_read_again_for_each_opener(line, monkeypatch):
    """Before, each opener searched its 4,000 characters for a closing line and a hijacking line:
    2,000 openers read the text hundreds of times over.  Now what may close or hijack a document is
    found once, and each opener tries again only the few starts of a hijacking line its end may cut
    (counted as the characters each try is given: 3 to 5.4 times the text; before, 68 to 212 times)."""
    for name in ("_HEREDOC", "_HIJACKING", "_HIJACK_STARTS", "_WORD_AND_SPACE", "_TABS"):
        if hasattr(remote_code, name):   # the names the code before this change had not
            monkeypatch.setattr(remote_code, name, CountingPattern(getattr(remote_code, name)))
    text = line * (2000 * len(NEVER_CLOSED[0]) // len(line))
    doc = make_document("scripts/run.sh", text)
    doc.folded = CountingText(doc.folded)
    CountingText.read = CountingPattern.tries = 0
    hits = [_heredoc_hijacks(doc, m, Hit("SK635", m.start(), m.end(), "", "low")) for m in STARTUP.finditer(doc)]
    assert len(hits) == text.count("cat<<") and all(hit.severity == "low" for hit in hits)
    starts = len(re.findall(r"\b(?:alias|function|trap)", text))   # two tries each, and one per opener
    assert CountingText.read <= 8 * len(text) and CountingPattern.tries <= 2 * starts + text.count("cat<<")


#: Lines a here-document's 4,000 characters may end in: a hijacking line the end cuts into one
#: (``function sshx`` read as ``function ssh``), or out of one, a closing line the end cuts into one
#: (``EX`` read as ``E``; ``alias ls=x`` as the delimiter ``alias ls=``, no hijacking line then).
AT_THE_END = ["function sshx", "function ssh x", "trap x DEBUGX DEBUG", "trap 'x' DEBUG", "alias   ls=x",
              "alias -- ls=x", "alias\n\n  ls=x", "PROMPT_COMMAND=x", "LD_PRELOAD=x", "trap " + "y" * 198 + " DEBUG",
              "E", "EX", "\tE", "\t\tE", "E\nalias ls=x", "alias ls=x\nE", "alias -\t-\n ls=", "Trap\n\tx DEBUG",
              "alias ls=x"]


@pytest.mark.parametrize("opener", ["cat <<E >> ~/.bashrc\n", "cat <<-E >> ~/.bashrc\n", "cat <<-'\tE' >> ~/.bashrc\n",
                                    "cat <<'alias ls=' >> ~/.bashrc\n"])
def test_what_the_end_of_a_here_document_cuts_is_judged_as_before(opener):
    """Each of those lines put at every place across the 4,000th character, at a line's start and
    after words, after a hijacking line and not."""
    for tail in AT_THE_END:
        for before in ("", "x ", "alias ls=x\n", "trap x\n"):
            for at in range(4000 - len(before) - len(tail) - 3, 4000 - len(before) + 3):
                filler = "#" * (at - 1) + "\n"
                assert_judged_as_before(opener + filler + before + tail + "\nEOF\n")
                assert_judged_as_before(opener + "#" * at + before + tail + "\n")
