"""Generated-pattern probe: every pattern the checker accepts, matched the way
``Catalog.triggered`` matches it, stays fast on adversarial 4,000-character messages.

Patterns come from building blocks that include the nasty spellings of issue #31 (``\\N{...}``,
``\\x31``, ``\\061``, ``[\\d]``, KELVIN SIGN, Unicode digits, ``.`` and ``\\w`` next to letters).
Messages are built from each pattern's own characters: one character repeated, neighbours
alternating, all atoms in order repeated (and the same missing its last character), and
hypothesis's own pick. Matching runs in a worker process, so a runaway search is killed at the
budget instead of hanging the test run.
"""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.agent.regex_charsets import atom_set
from skillsite.agent.regex_safety import unsafe_reason
from skillsite.agent.regex_syntax import (Alt, Atom, Category, Char, CharClass, Dot, Look, Node, Repeat, Scoped,
                                          Seq, parse)
from skillsite.agent.triggers import MAX_MESSAGE_CHARS

BUDGET_SECONDS = 1.5   # per match; accepted patterns measure below 0.2 s on an idle machine
WORKER = """
import json, re, sys, time
from skillsite.agent.triggers import fired_triggers
for line in sys.stdin:
    job = json.loads(line)
    triggers = {"patterns": [job["pattern"]]}
    run = (lambda text: re.compile(job["pattern"], re.I).search(text)) if job.get("raw") else \\
        (lambda text: fired_triggers(triggers, text))
    run("warm up: the check and the compilation are not timed")
    for message in job["messages"]:
        start = time.perf_counter()
        found = run(message)
        print(json.dumps([time.perf_counter() - start, bool(found)]), flush=True)
"""


class Matcher:
    """A worker process that matches patterns as the loader does, with a time limit per match."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str] = queue.Queue()
        self.matched: int | None = None   # the worker that answered once (it started up)

    def start(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True, encoding="utf-8")
            self.lines = queue.Queue()
            threading.Thread(target=self._read, args=(self.process, self.lines), daemon=True).start()
        return self.process

    @staticmethod
    def _read(process: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    def times(self, pattern: str, messages: list[str], budget: float, raw: bool = False,
              tries: int = 3) -> list[float]:
        """Seconds per message (the least of up to ``tries`` runs: a busy machine slows one run, a
        runaway pattern every run); raises TimeoutError when every run of a message overruns."""
        found: list[float] = []
        for message in messages:
            for attempt in range(tries):
                try:
                    found.append(self._time(pattern, message, budget, raw))
                    break
                except TimeoutError:
                    if attempt == tries - 1:
                        raise
        return found

    def _time(self, pattern: str, message: str, budget: float, raw: bool) -> float:
        """Seconds of one match; stops the worker and raises TimeoutError when it overruns."""
        process = self.start()
        started = process.pid
        assert process.stdin is not None
        process.stdin.write(json.dumps({"pattern": pattern, "messages": [message], "raw": raw}) + "\n")
        process.stdin.flush()
        try:
            seconds = json.loads(self.lines.get(timeout=budget + 5 * (self.matched != started)))[0]
        except queue.Empty:
            self.stop()
            raise TimeoutError(f"{pattern!r} ran over {budget} s on {message[:24]!r}... "
                               f"({len(message)} characters)") from None
        self.matched = started
        if seconds > budget:
            raise TimeoutError(f"{pattern!r} took {seconds:.2f} s on {message[:24]!r}...")
        return seconds

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture(scope="module")
def matcher() -> Iterator[Matcher]:
    worker = Matcher()
    yield worker
    worker.stop()


ATOM_TEXTS = ["a", "b", "k", "K", "x", "1", " ", "-", "_", ".", r"\.", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S",
              r"\x31", r"\061", r"\u0031", r"\N{DIGIT ONE}", r"\u212a", r"\u0661", r"\u017f", "é", "[1]", r"[\d]",
              "[a-c]", "[^a]", "[a-z0-9]", r"[\w.-]", "[ka]", "deploy", "aaaa", "abab"]
QUANTIFIERS = ["*", "+", "?", "*?", "+?", "{2}", "{1,3}", "{2,}", "{,2}", "{0,40}"]


def _combine(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(inner, min_size=2, max_size=4).map("".join),
        st.lists(inner, min_size=2, max_size=3).map("|".join).map("(?:{})".format),
        st.tuples(inner, st.sampled_from(QUANTIFIERS)).map(lambda t: f"(?:{t[0]}){t[1]}"),
        st.tuples(st.sampled_from(["(?=", "(?!", r"\b", "^", ""]), inner)
        .map(lambda t: f"{t[0]}{t[1]})" if t[0].startswith("(") else t[0] + t[1]),
    )


_LEAVES = st.one_of(st.sampled_from(ATOM_TEXTS),
                    st.tuples(st.sampled_from(ATOM_TEXTS), st.sampled_from(QUANTIFIERS)).map("".join))
PATTERNS = st.tuples(st.sampled_from(["", "", "(?i)"]), st.recursive(_LEAVES, _combine, max_leaves=8)).map("".join)
PICKS = st.text(st.sampled_from("1ak K\u212a\u0661-_.!x\ne"), min_size=1, max_size=4)


def _atoms(node: Node, flags: str) -> Iterator[tuple[Atom, str]]:
    """The atoms of a tree in order, with the flags that matter for their sets (``a s``)."""
    if isinstance(node, (Char, Dot, Category, CharClass)):
        yield node, "".join(f for f in flags if f in "as")
    elif isinstance(node, (Seq, Alt)):
        for child in node.items if isinstance(node, Seq) else node.branches:
            yield from _atoms(child, flags)
    elif isinstance(node, (Repeat, Look, Scoped)):
        yield from _atoms(node.body, flags + node.flags if isinstance(node, Scoped) else flags)


def adversarial_messages(pattern: str, pick: str) -> list[str]:
    """Messages of 4,000 characters made of the pattern's own characters."""
    tree = parse(pattern)
    samples = [chr(atom_set(atom, flags).sample()) for atom, flags in _atoms(tree.body, tree.flags)]
    size = MAX_MESSAGE_CHARS
    units = list(dict.fromkeys(samples))[:5] + [a + b for a, b in zip(samples, samples[1:]) if a != b][:4]
    run = "".join(samples) or "a"
    units += [run, run[:-1] or "a", pick]
    return [(unit * (size // len(unit) + 1))[:size] for unit in dict.fromkeys(units)]


def test_the_probe_catches_a_slow_pattern(matcher: Matcher) -> None:
    """Without the check, the pattern from issue #31 overruns even a short budget."""
    with pytest.raises(TimeoutError, match="ran over|took"):
        matcher.times(r"\N{DIGIT ONE}+\d+x", ["1" * 2000], budget=0.5, raw=True, tries=1)
    assert unsafe_reason(r"\N{DIGIT ONE}+\d+x") is not None


def test_every_accepted_generated_pattern_is_fast_on_adversarial_messages(matcher: Matcher) -> None:
    seen = {"accepted": 0, "unbounded": 0, "refused": 0, "slowest": 0.0}

    @settings(max_examples=300, deadline=None, derandomize=True, database=None)
    @given(PATTERNS, PICKS)
    def probe(pattern: str, pick: str) -> None:
        if unsafe_reason(pattern) is not None:
            seen["refused"] += 1
            return
        seen["accepted"] += 1
        seen["unbounded"] += any(q in pattern for q in ("*", "+", ",}"))
        times = matcher.times(pattern, adversarial_messages(pattern, pick), BUDGET_SECONDS)
        seen["slowest"] = max(seen["slowest"], *times)

    probe()
    print(f"\nprobe: {seen}")
    assert seen["accepted"] >= 60 and seen["unbounded"] >= 30 and seen["refused"] >= 60, seen
