"""Commands whose options skillsite.audit.rules.remote_code's patterns read (base64 -d, xxd -r,
powershell -e, sh "$(curl ...)", SK635's ``>`` before a git hook's file and tee's options before
the file it writes): a line of thousands of them, or of one command's options, costs the gate's
searches steps in proportion to its length (counted with tests/regex_steps.py through each search
the gate makes), and the gates find what the patterns as they were find (SK631's base64 command is
kept here as it was)."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regex_steps import Exhausted, Steps, joined_texts, seeded_texts, steps_grow_in_proportion
from skillsite.audit.rules import RULES
from skillsite.audit.rules.remote_code import _INTERPRETER, _PIPED
from skillsite.audit.text import Gate, make_document

#: SK631's base64 command as it was: each decoding option tried in turn, the rest of the line read from each.
OLD_BASE64 = r"\b(?:base64|openssl\s+(?:base64|enc))\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b[^\n|;]*" + _PIPED


def declared(code: str, part: str) -> list:
    """The patterns of rule ``code`` whose source holds ``part``."""
    return [p for p in RULES[code].patterns if part in p.source]


#: Each pattern whose gate now passes over what a command read, with its source as it was.
BASE64 = declared("SK631", r"\b(?:base64|openssl\s+(?:base64|enc))\s+")[0]
DECODED = declared("SK631", r"xxd\s+(?:-\w+\s+)*-r")[0]
POWERSHELL = declared("SK631", "encodedcommand")[0]
INTERPRETERS = declared("SK630", _INTERPRETER + r"(?:-\w+\s+)*")
HOOKS = declared("SK635", r"\.git/hooks/")[0]
#: SK635's patterns that start with a file written by tee (its options passed over where they fail).
KEYS = declared("SK635", "authorized_keys2?[")[0]
STARTUP = next(p for p in declared("SK635", "bashrc") if p.source.startswith("(?:(?<="))
CRON = declared("SK635", "crontab")[0]
CHANGED = [(BASE64, OLD_BASE64)] + [(p, p.source) for p in (DECODED, POWERSHELL, *INTERPRETERS, HOOKS, KEYS,
                                                               STARTUP, CRON)]
IDS = ["base64", "decoded", "powershell", "sh-$(", "sh-backtick", "hooks", "keys", "startup", "cron"]


def spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def test_every_changed_pattern_is_compared():
    assert len(INTERPRETERS) == 2 and len(CHANGED) == len(IDS)
    assert all(p.gate.hopeless for p, _ in CHANGED)


#: Pieces of command lines: the commands, their options (glued to a command's name too), decoding
#: options, payloads, what a decoded file or a download is run by, files, redirections, git hooks,
#: launch agents, separators, and a capital dotted I (its lower case is two characters, so the
#: text is searched as it is, not lower-cased).
PIECES = ["base64", "openssl base64", "openssl enc", "openssl", "xxd", "powershell", "pwsh.exe", "sh", "bash",
          "python3", "-d", "-D", "--decode", "-d.", "-dx", "-r", "-x", "-a", "-e", "-enc", "-o", "-out", "-base64",
          "-xxd", "-openssl", "-sh", "-pwsh", "-powershell", "AAAAAAAAAAAAAAAAAAAAAAAA", "x", "f", "| sh", "|sh",
          "|", ";", "&&", "> f", ">", "sh f", "./f", "$(curl x", "$(", ")", "`curl x", "`", "'", '"', "1>", "1>>",
          "2>", "a/", ".git/hooks/pre-commit", "a/.git/hooks/x", "~/Library/LaunchAgents/", "tee", "tee -a",
          "systemctl --user enable", "launchctl load", "\u0130", "-tee", "tee --append", "--append", "-ap",
          "--tee", "-systemctl", "-launchctl", "--user", "enable", "load", "-crontab", "crontab", "-u", "| crontab -",
          "-schtasks", "/create", "-reg", "add", "HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run",
          "-authorized", "_keys", "authorized_keys'", ", 'a'", ".write_text", "~/.ssh/authorized_keys",
          "~/.bashrc", "/etc/profile", "/etc/crontab", "$HOME", "/.zshrc", "-TEE"]
SEPARATORS = ["", " ", " ", " ", "  ", "\t", "\n", " \n"]


def assert_found_as_before(text: str) -> None:
    """Each changed pattern, through its gate and alone, matches where the pattern as it was matches."""
    doc = make_document("scripts/run.sh", text)
    for each, old in CHANGED:
        before = spans(re.compile(old, each.flags), doc.folded)
        assert spans(re.compile(each.source, each.flags), doc.folded) == before, (text, old[:40])
        assert [m.span() for m in each.gate._matches(doc, 0, len(doc.folded))] == before, (text, old[:40])


@settings(max_examples=400, deadline=None)
@given(joined_texts(PIECES, SEPARATORS, max_size=30))
def test_the_gates_find_what_the_patterns_as_they_were_find(text):
    assert_found_as_before(text)


def test_the_gates_find_what_the_patterns_as_they_were_find_on_thousands_of_lines():
    """A seeded fuzz, larger than the property's."""
    for text in seeded_texts(631, PIECES, SEPARATORS, 3000, lengths=(1, 24)):
        assert_found_as_before(text)


#: Command lines in three parts: commands, their options (a later command's name glued to one), then
#: what follows them.
COMMAND_WORDS = ["base64 ", "xxd ", "openssl enc ", "powershell ", "sh ", "python ", "x", "1>", "x 1>", "tee ",
                 "x >"]
OPTION_WORDS = ["-a", "-d", "-r", "-e", "-o", "-dx", "-base64", "-xxd", "-openssl", "-sh", "-powershell", "x",
                "base64", "enc", "1>", "a/", "-tee", "--append", "-crontab", "-systemctl", "-launchctl", "-schtasks",
                "-reg", "-u"]
ENDINGS = ["-d | sh", "-r > f; sh f", "-d > f; sh f", "-e " + "A" * 24, "$(curl x)", "`curl x`", "$(curl x",
           ".git/hooks/x", "a/.git/hooks/x", "~/Library/LaunchAgents/x", "| sh", "", "x", "~/.bashrc",
           "~/.ssh/authorized_keys", "/etc/cron.d/x", "x/.git/hooks/x", "--user enable", "x;"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(COMMAND_WORDS), min_size=1, max_size=3),
       st.lists(st.tuples(st.sampled_from(OPTION_WORDS), st.sampled_from(SEPARATORS)), max_size=12),
       st.sampled_from(ENDINGS), st.sampled_from(SEPARATORS))
def test_the_gates_find_what_the_patterns_as_they_were_find_on_commands_and_options(commands, options, end, gap):
    assert_found_as_before("".join(commands) + "".join(o + s for o, s in options) + gap + end)


@pytest.mark.parametrize("text, found", [
    ("base64 -d -x -d x | sh", "base64 -d -x -d x | sh"),
    ("base64 -d\n-x -d | sh", "base64 -d\n-x -d | sh"),        # the decoding option on the options' last line
    ("base64 -d | cat\n-d | sh", ""),                          # not reaching past the pipe
    ("base64 -d x base64 -x\n-d | sh", "base64 -x\n-d | sh"),  # a later command's options run on
    ("sh $(curl x sh -x\n$(curl y)", "sh -x\n$(curl y)"),
    ("xxd -base64 -d > f; sh f", "base64 -d > f; sh f"),  # base64 among xxd's options decodes with -d
    ("xxd -openssl enc -d > f; sh f", "openssl enc -d > f; sh f"),
    ("1>1>.git/hooks/pre-commit", ">.git/hooks/pre-commit"),
    ("1>a>b/.git/hooks/x", ">a>b/.git/hooks/x"),
    ("1>1>~/Library/LaunchAgents/x", ">~/Library/LaunchAgents/"),
    ("1>1>  a/.git/hooks/x", ">  a/.git/hooks/x"),
    ("1>1>tee .git/hooks/x", "tee .git/hooks/x"),
    ("tee -a -tee\n~/.bashrc", "tee -a -tee\n~/.bashrc"),       # options on two lines
    ("tee -tee -a 1>1>  a/.git/hooks/x", ">  a/.git/hooks/x"),
    ("x >-tee .git/hooks/x", "tee .git/hooks/x"),              # no options after a '>': its tee is passed over
    ("tee -a -systemctl --user enable", "systemctl --user enable"),   # other branches among tee's options
    ("tee -launchctl load x", "launchctl load"),
    ("tee -a -crontab x", "crontab x"),
    ("tee -schtasks /create", "schtasks /create"),
    ("tee -a -reg add HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run",
     "reg add HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run"),
    ("tee -a -tee /etc/crontab", "tee -a -tee /etc/crontab"),
    ("tee -tee -x authorized_keys', 'a'", "authorized_keys', 'a'"),
])
def test_a_later_command_that_reads_more_is_still_found(text, found):
    doc = make_document("scripts/run.sh", text)
    matched = [m.group() for each, _ in CHANGED for m in each.gate._matches(doc, 0, len(doc.folded))]
    assert matched == ([found] if found else [])
    assert_found_as_before(text)


class StepCounting:
    """A compiled pattern whose searches and matches count the steps ``re`` takes (regex_steps),
    each checked to find what ``re`` finds."""

    def __init__(self, pattern: re.Pattern[str], budget: int) -> None:
        self.pattern, self.budget, self.steps = pattern, budget, 0

    def _count(self, text: str, pos: int, endpos: int | None, search: bool) -> re.Match[str] | None:
        counter = Steps(self.pattern, budget=self.budget - self.steps)
        part = text if endpos is None else text[:endpos]
        try:
            span = counter.search(part, pos) if search else counter.match(part, pos)
        finally:
            self.steps += counter.steps
        found = (self.pattern.search if search else self.pattern.match)(text, pos, len(part))
        assert span == (found.span() if found else None)
        return found

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        return self._count(text, pos, endpos, True)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        return self._count(text, pos, endpos, False)


def gate_steps(gate: Gate, text: str, budget: int = 3_000_000) -> float:
    """The steps of every search and match ``gate`` makes on ``text`` (infinite past ``budget``)."""
    counted = {name: StepCounting(getattr(gate, name), budget)
               for name in ("pattern", "candidates", "restart", "beside") if getattr(gate, name) is not None}
    doc = make_document("scripts/run.sh", text)
    try:
        list(Gate(**{**gate.__dict__, **counted})._matches(doc, 0, len(doc.folded)))
    except Exhausted:
        return float("inf")
    return sum(each.steps for each in counted.values())


#: Hostile lines: a start written once, a part repeated, an end (on the next line, so that the gate opens).
SHAPES = [
    (BASE64, "", "base64 -", "\n-d | sh"),            # each -base64 a later command among the options
    (BASE64, "base64 ", "-d ", "x | y"),               # one command: every decoding option tried in turn
    (BASE64, "", "base64 -d x ", "\n| sh"),           # commands on one segment, reading it to its end
    (DECODED, "", "xxd -", "\n-r > x; sh x"),
    (DECODED, "", "xxd -r", "\n> x; sh x"),           # glued: found in the lower-cased text only
    (DECODED, "", "base64 -", "\n-d > x; sh x"),
    (POWERSHELL, "", "powershell -", "\n-e " + "A" * 24),
    (POWERSHELL, "", "pwsh -", "\n-e " + "A" * 24),
    (INTERPRETERS[0], "", "sh -", "\n$(curl x)"),
    (INTERPRETERS[0], "", "sh $(curl x ", "\n)"),
    (INTERPRETERS[0], "", "python -", "\n$(curl x)"),
    (INTERPRETERS[1], "", "sh -", "\n`curl x`"),
    (INTERPRETERS[1], "", "bash `curl x ", "\n`"),
    (HOOKS, "", "1>", "\n.git/hooks/pre-commit"),
    (HOOKS, "", "2>>a>", "\n.git/hooks/pre-commit"),
    (STARTUP, "tee ", "-tee ", "\ntee ~/.bashrc"),     # each tee among the options read the rest of them
    (STARTUP, "", "tee -a ", "\n~/.bashrc"),
    (KEYS, "tee ", "-tee ", "\ntee ~/.ssh/authorized_keys"),
    (CRON, "tee ", "-tee ", "\ntee /etc/crontab"),
    (CRON, "tee ", "-crontab -u ", "\n/etc/crontab"),
    (HOOKS, "tee ", "-tee ", "\ntee .git/hooks/pre-commit"),
    (HOOKS, "tee ", "-systemctl ", "\n.git/hooks/pre-commit"),
    (HOOKS, "tee ", "-tee 1>", "\n.git/hooks/pre-commit"),
]


@pytest.mark.parametrize("each, start, unit, end", SHAPES)
def test_a_line_of_commands_or_options_costs_steps_in_proportion(each, start, unit, end):
    """Twice the line, at most 2.5 times the steps (each start read the rest of the line, or a
    command each of its options with the rest of the line: quadratic, or past the budget)."""
    steps_grow_in_proportion(lambda text: gate_steps(each.gate, text), lambda n: start + unit * n + end,
                             max(10, 240 // len(unit)))
