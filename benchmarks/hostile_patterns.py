"""Hostile input built from each audit pattern itself: does any pattern cost more than in proportion to the text?

benchmarks/hostile_input.py repeats the literals a pattern's gate needs; this script reads each
pattern of ``skillsite.audit.rules.PATTERNS`` (and the regular expressions the checks and the
rules' conditions run in Python code, through the patterns that reach them) with ``re``'s own
parser, and builds from its pieces the shapes that make a backtracking engine or a scan loop
cost more than linear time:

- a sample match (each repeat at its least, each branch's first alternative) repeated on one
  line, glued and with separators (thousands of matches on a line);
- each prefix of the sample (a near miss: the pattern opens, never closes), repeated on one line,
  and repeated one a line;
- the sample cut in two at each top-level step with a line break between (a gate's trigger on the
  next line), repeated;
- each literal of the pattern, and each character of its classes, repeated glued and with separators
  (long runs without a line break, many openers with no closer);
- the sample's prefix before each open-ended repeat, then that repeat's character for the rest of
  the text (one long run that a later piece never ends), and the two repeated (runs of 64).

Each shape is audited (``skillsite.audit.engine.audit_document``) as SKILL.md and as a script at
``--size`` characters and at four times that; a shape whose time grows more than ``--ratio`` times
(linear: 4) and takes over ``--floor`` seconds at the larger size is timed again (the best of three)
and listed if it still does.  The table lists every such case, then how many shapes and cases were
tried for each rule.

Run:  python benchmarks/hostile_patterns.py [--size 20000] [--ratio 6] [--floor 0.05] [--code SK630,SK634]
      [--as SKILL.md,scripts/run.sh]   (about ten minutes at the default size on a 2-core machine)
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from machine import describe  # noqa: E402

from skillsite.audit.engine import audit_document  # noqa: E402
from skillsite.audit.rules import PATTERNS, RULES  # noqa: E402

try:  # re's parser, as tests/data/literal_derivation.py reads it (development time only)
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_parse  # type: ignore[no-redef]

SEPARATORS = ("", " ", "\t", "/", "-", "=")
AUDITED_AS = ("SKILL.md", "scripts/run.sh")
#: How many times a case that looks too slow is timed again (the fastest time counts).
RETRIES = 3
#: A character for each class escape (``\\w``, ``\\s``...) and for a class that admits none of these.
_CATEGORY = {"CATEGORY_DIGIT": "1", "CATEGORY_NOT_DIGIT": "a", "CATEGORY_SPACE": " ", "CATEGORY_NOT_SPACE": "a",
             "CATEGORY_WORD": "a", "CATEGORY_NOT_WORD": " ", "CATEGORY_LINEBREAK": "\n",
             "CATEGORY_NOT_LINEBREAK": "a"}
_TRIED = "a1 -./=_\"'x:@"


def _class_char(items: list[tuple[Any, Any]]) -> str:
    """One character a class (the items of an ``IN`` node) admits: its first item's, or for a
    negated class, the first of a few common characters it does not exclude."""
    negated = items and str(items[0][0]) == "NEGATE"
    if negated:
        pattern = re.compile(_source_of_class(items))
        return next((c for c in _TRIED if pattern.match(c)), "a")
    op, value = items[0]
    name = str(op)
    if name == "LITERAL":
        return chr(value)
    if name == "RANGE":
        return chr(value[0])
    if name == "CATEGORY":
        return _CATEGORY.get(str(value), "a")
    return "a"


def _source_of_class(items: list[tuple[Any, Any]]) -> str:
    """A class's source, rebuilt from its items (for the negated ones, tried against a few characters)."""
    parts = []
    for op, value in items:
        name = str(op)
        if name == "LITERAL":
            parts.append(re.escape(chr(value)))
        elif name == "RANGE":
            parts.append(f"{re.escape(chr(value[0]))}-{re.escape(chr(value[1]))}")
        elif name == "CATEGORY":
            parts.append({"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
                          "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w",
                          "CATEGORY_NOT_WORD": r"\W"}.get(str(value), ""))
    return "[" + ("^" if items and str(items[0][0]) == "NEGATE" else "") + "".join(parts) + "]"


class Pieces:
    """What a pattern is built from, read from its parse tree: a sample match, split at its
    top-level steps; its literals; a character of each class; and, before each open-ended repeat,
    the sample up to it with the repeat's character."""

    def __init__(self, source: str, flags: int) -> None:
        self.literals: set[str] = set()
        self.chars: set[str] = set()
        self.runs: list[tuple[str, str]] = []   # (sample before an open-ended repeat, its character)
        tree = sre_parse.parse(source, flags & ~re.VERBOSE)
        self.steps = [self._sample([node]) for node in tree]
        self._runs([*tree], "")

    @property
    def sample(self) -> str:
        return "".join(self.steps)

    def _sample(self, nodes: Any) -> str:
        """The shortest-looking match of ``nodes``: each repeat at its least (once when it may be
        none: its pieces show), each branch's first alternative; literals and class characters noted."""
        out = []
        literal = []
        for op, value in nodes:
            name = str(op)
            if name != "LITERAL" and literal:
                self._literal("".join(literal))
                literal = []
            if name == "LITERAL":
                literal.append(chr(value))
                out.append(chr(value))
            elif name == "NOT_LITERAL":
                out.append("a" if chr(value) != "a" else "b")
            elif name == "IN":
                char = _class_char(value)
                self.chars.add(char)
                if re.match(_source_of_class(value), "\n"):
                    self.chars.add("\n")   # a class of white space (or a negated one): blank lines too
                out.append(char)
            elif name == "ANY":
                out.append("a")
            elif name == "SUBPATTERN":
                out.append(self._sample(value[-1]))
            elif name == "BRANCH":
                alternatives = [self._sample(each) for each in value[1]]
                out.append(alternatives[0])
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, _high, body = value
                out.append(self._sample(body) * max(1, min(low, 3)))
            elif name == "ATOMIC_GROUP":
                out.append(self._sample(value))
            elif name == "ASSERT":
                if value[0] >= 0:  # a look-ahead: what follows must hold it
                    self._sample(value[1])
            elif name == "GROUPREF":
                out.append("a")
        if literal:
            self._literal("".join(literal))
        return "".join(out)

    def _literal(self, text: str) -> None:
        if text.strip():
            self.literals.add(text)

    def _runs(self, nodes: list[Any], before: str) -> None:
        """The sample up to each open-ended repeat of a character (``[^\\n]*``, ``\\S+``...) with that character."""
        for index, (op, value) in enumerate(nodes):
            name = str(op)
            prefix = before + "".join(self._sample([node]) for node in nodes[:index])
            if name in ("MAX_REPEAT", "MIN_REPEAT") and value[1] >= 200:
                body = [*value[2]]
                if len(body) == 1 and str(body[0][0]) in ("IN", "NOT_LITERAL", "ANY", "LITERAL"):
                    self.runs.append((prefix, self._sample(body)))
                else:
                    self._runs(body, prefix)
            elif name == "SUBPATTERN":
                self._runs([*value[-1]], prefix)
            elif name == "BRANCH":
                for each in value[1]:
                    self._runs([*each], prefix)


def shapes(pieces: Pieces) -> Iterator[tuple[str, str, str, str]]:
    """(name, head, unit, tail) of each hostile shape: ``head`` once, ``unit`` repeated to the size,
    then ``tail`` once."""
    sample, steps = pieces.sample, [s for s in pieces.steps if s]
    for separator in SEPARATORS:
        yield f"sample+{separator!r}", "", sample + separator, ""
    for cut in range(1, len(steps)):
        opened = "".join(steps[:cut])
        yield f"prefix {cut}/{len(steps)} ' '", "", opened + " ", ""
        yield f"prefix {cut}/{len(steps)} glued", "", opened, ""
        yield f"prefix {cut}/{len(steps)} a line", "", opened + "\n", ""
        rest = "".join(steps[cut:])
        yield f"prefix {cut}/{len(steps)} ' ', the rest on the next line", "", opened + " ", "\n" + rest
        yield f"prefix {cut}/{len(steps)} glued, the rest on the next line", "", opened, "\n" + rest
        yield f"split {cut}/{len(steps)} at a line break", "", opened + "\n" + "".join(steps[cut:]) + " ", ""
    for literal in sorted(pieces.literals):
        for separator in ("", " ", "\n"):
            yield f"literal {literal[:20]!r}+{separator!r}", "", literal + separator, ""
        yield f"literal {literal[:20]!r}+' ', the sample on the next line", "", literal + " ", "\n" + sample
    for char in sorted(pieces.chars):
        yield f"class char {char!r}", "", char, ""
    for prefix, char in pieces.runs:
        yield f"run of {char!r} after {prefix[-20:]!r} to the end", prefix, char, ""
        yield f"runs of 64 {char!r} after {prefix[-20:]!r}", "", prefix + char * 64, ""
        yield f"run of {char!r} then the sample", "", char, sample


def seconds(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def text_of(unit: str, size: int) -> str:
    return unit * max(1, size // max(1, len(unit)))


def in_range(number: int, patterns: str) -> bool:
    """Whether pattern ``number`` is in ``--patterns`` ('' all of them; '10-20': 10 to 20 included)."""
    if not patterns:
        return True
    low, _, high = patterns.partition("-")
    return int(low) <= number <= int(high or low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=20000, help="characters of the smaller text")
    parser.add_argument("--ratio", type=float, default=6.0, help="growth over which a case is listed")
    parser.add_argument("--floor", type=float, default=0.05, help="seconds at 4 x size under which it is not")
    parser.add_argument("--code", default="", help="only the patterns of these rules (comma-separated)")
    parser.add_argument("--patterns", default="", help="only these patterns, by number (as '10-20')")
    parser.add_argument("--verbose", action="store_true", help="print each pattern as it is started")
    parser.add_argument("--as", dest="paths", default=",".join(AUDITED_AS), help="paths each text is audited as")
    args = parser.parse_args()
    codes = {c for c in args.code.split(",") if c}
    paths = [p for p in args.paths.split(",") if p]
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/hostile_patterns.py --size {args.size} --ratio {args.ratio} --floor {args.floor}"
          + (f" --code {args.code}" if codes else "") + f" --as {','.join(paths)}")
    owner = {id(p): rule.code for rule in RULES.values() for p in rule.patterns}
    seen: set[tuple[str, str, str]] = set()
    tried: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])   # code -> patterns, shapes, cases
    listed, slowest = [], (0.0, "")
    for number, each in enumerate(PATTERNS):
        code = owner.get(id(each), "check")
        if codes and code not in codes or not in_range(number, args.patterns):
            continue
        if args.verbose:
            print(f"  pattern #{number} ({code}): {each.source[:70]!r}", flush=True)
        tried[code][0] += 1
        for name, head, unit, tail in shapes(Pieces(each.compiled_source, each.flags)):
            if (head, unit, tail) in seen:
                continue
            seen.add((head, unit, tail))
            tried[code][1] += 1
            for path in paths:
                tried[code][2] += 1

                def timed(n: int, head: str = head, unit: str = unit, tail: str = tail, path: str = path) -> float:
                    text = head + text_of(unit, n) + tail
                    return seconds(lambda: audit_document(path, text))

                small, large = timed(args.size), timed(4 * args.size)
                if large > args.floor and large > args.ratio * max(small, 1e-3):
                    small, large = (min(timed(n) for _ in range(RETRIES)) for n in (args.size, 4 * args.size))
                label = f"{code} #{number} {name}: {(head + unit)[:40]!r} as {path}"
                slowest = max(slowest, (large, label))
                if large > args.floor and large > args.ratio * max(small, 1e-3):
                    listed.append((label, small, large))
                    print(f"  slow: {label}: {small:.3f} s -> {large:.3f} s", flush=True)
    print(f"\nslowest at {4 * args.size:,} characters: {slowest[1]} ({slowest[0]:.2f} s)")
    print(f"\n| case | {args.size:,} chars | {4 * args.size:,} chars | growth |\n|---|---:|---:|---:|")
    for label, small, large in listed:
        print(f"| {label} | {small:.3f} s | {large:.3f} s | {large / max(small, 1e-3):.1f}x |")
    if not listed:
        print("| (no case grows faster than its size) | | | |")
    print("\n| rule | patterns | shapes | cases |\n|---|---:|---:|---:|")
    for code in sorted(tried):
        patterns, count, cases = tried[code]
        print(f"| {code} | {patterns} | {count} | {cases} |")
    total = [sum(column) for column in zip(*tried.values())] if tried else [0, 0, 0]
    print(f"| all | {total[0]} | {total[1]} | {total[2]} |")


if __name__ == "__main__":
    main()
