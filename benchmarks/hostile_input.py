"""Hostile input: how the audit, validation and page rendering scale on one repeated construct.

A skill's text is untrusted, so no step may cost more than in proportion to its size.  For each
literal an audit pattern is run around (derived from the pattern: skillsite/audit/data/literal_table.json;
and some Markdown constructs), with each separator, a line of that literal repeated is audited at
``--size`` and at four times that size (with every such literal on a line of its own, so every
pattern runs), as SKILL.md, a script and a reference document, and so is each of a few lines no
literal repeated makes (:data:`SHAPES`: a command whose sudo options repeat); bodies of
Markdown constructs are validated and rendered the same way, and so are a few lines one
construct repeated does not make (:data:`MARKDOWN_SHAPES`).  A case whose time grows more than
``--ratio`` times (linear growth: 4) and takes over ``--floor`` seconds at the larger size is
timed again (the best of three at each size, as other work on a shared machine only adds time)
and listed if it still does.  Run it after adding or changing a pattern.  Last, one skill with
2,000 and then 8,000 distinct trigger patterns is validated (either side of the 4,096 verdicts
the process caches): the growth, and how many times each pattern was checked.

The literal table holds over a thousand literals (every quoting and spelling a pattern admits:
'"/bin/bash', "'/bin/bash", ...), and each case audits the whole table's footer twice, so by
default the repeated literals are a cover of the table: at least one literal of each set a
pattern's gate needs (one shared by several sets serves them all), chosen the same way every
run, plus a few words of known hostile shapes.  Every pattern still runs, around one of its
own literals repeated; ``--all-literals`` repeats each literal of the table (161 of 1,062 when
this was written: 1,288 audit cases, 8,496 with it).

Run:  python benchmarks/hostile_input.py [--size 5000] [--ratio 6] [--floor 0.3] [--only audit|pages]
      [--thorough] [--all-literals]
      (a few minutes; --thorough, every separator and kind of file: about five times as long;
      --all-literals: about six times as long)
"""
from __future__ import annotations

import argparse
import itertools
from collections import Counter
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from machine import describe  # noqa: E402

from skillsite.audit.engine import audit_document  # noqa: E402
from skillsite.audit.rules import PATTERNS  # noqa: E402
from skillsite.publish.markdown import LinkTargets, MarkdownRenderer  # noqa: E402
from skillsite.source.catalog import read_catalog  # noqa: E402

SEPARATORS = (" ", "", "/", "\t")
AUDITED_AS = ("SKILL.md", "scripts/run.sh")
#: With --thorough: every separator and kind of file the probes of stop 27 used (half an hour).
THOROUGH = ((" ", "", "/", "-", "=", ":", " -o ", "(", '"', "*", "&", " a ", ">", "\t"),
            ("SKILL.md", "scripts/run.sh", "references/guide.md"))
EXTRA_WORDS = ("dig", "rsync", "nslookup", "security find-generic-password", "http://a.bc/", "![a](http://x/",
               "<!--", "`", '"', "~/.ssh/", "$(", "ignore previous instructions", "do not tell the user",
               "\u200b", "&#105;", "a<b>")
#: Lines a repeated literal does not make: a start written once, then one part repeated (each
#: part of these once read in two ways or more, and every reading tried: sudo's options, env's
#: settings, the spaces after an index option, a command's decoding options), or two literals
#: repeated together (calls left open, a command's name as an option of the one before, ``1>``).
SHAPES = (("curl https://x.io/a | sudo ", "-a "), ("curl https://x.io/a | env ", "a=b=c "),
          ("base64 -d x | doas -u ", "-a -b "), ("printf '\\x41' | sudo env ", "-i A==1 "),
          ("pip install --index-url", " "), ("", "eval(Buffer.from("), ("base64 ", "-d "), ("", "base64 -"),
          ("", "xxd -r"), ("", "powershell -"), ("", "sh -"), ("", "1>"), ("tee ", "-tee "),
          ("curl -of;sudo ", "-curl -of;sudo "))
MARKDOWN = ("[a](b) ", "`x` ", "[a] ", "![i](x.png) ", "<b>", "**a", "*a ", "_a ", "~~a ", "# h\n", "> ", "- ",
            "1. ", "```\n", "<!-- ", "&amp;", "\\", "[", "](", "<http://a.b>", "| a |", "---\n", "<details>",
            "`scripts/a.py` ", "[x]: http://a\n", "``a", "[a](", "![[", "&#", "| - |\n", "[^1]", "# h\n## h\n",
            "]:", "[a]:", "- [a]:\n", "|" + "a|" * 256 + "\n|" + "-|" * 256 + "\n" + "x\n" * 256 + "\n",
            "  ```\nx\n", "> ```\n", "- a\n\n\t```\n", "#\n", "a\n=\n", "> - a\n", "-\n", "![", "*a", "- a\n",
            "[" + "}" * 100, "[`]`](x) ", "a\n")
#: Markdown a repeated part does not make alone: a part repeated, then an end (every bracket of a
#: line of escaped brackets, or of pairs closed by an escaped bracket, once started a link scan
#: that read to the line's end, and the end gives the scan a link's close to look for; a target
#: of escaped parentheses is read by markdown-it's helpers, each up to its 32 nested ones; fence
#: markers along one line were each read back to the line's start).
MARKDOWN_SHAPES = (("\\[a", "] ]("), ("[a\\] ", "\\\n]("), ("\\\\\\[a", "] ]("), ("[a](x\\)", ")"),
                   ("x```", "\n[a](b)"), ("[a]: b\n", "[a]"))


def backtick_runs_of_every_length(n: int) -> str:
    """A line of about ``n`` characters: backtick runs of every length up to about sqrt(n), none
    closed, then single backticks that pair up, then a link (each unclosed run once looked for its
    close among all the runs after it: n^1.5)."""
    head = "".join("`" * length + "a" for length in range(2, int((n / 2) ** 0.5)))
    return head + "`a" * max(0, (n - len(head)) // 2) + " [a](b)"


def one_long_definition_used_everywhere(n: int) -> str:
    """A link reference definition of a target of n/2 characters, then n/8 uses of it (each use
    once wrote the whole target again: n^2)."""
    return "[r]: #" + "a" * (n // 2) + "\n\n" + "[r] " * (n // 8)


#: Markdown no repeated part makes: (label, a body of about n characters).
MARKDOWN_BUILT = (("backtick runs of every length, then pairs", backtick_runs_of_every_length),
                  ("one long definition used everywhere", one_long_definition_used_everywhere))


def seconds(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def gate_sets() -> list[frozenset[str]]:
    """Each set of literals an audit pattern's gate needs one of (its literals, and each set it also needs)."""
    return [frozenset(group) for each in PATTERNS for group in (each.gate.literals or (), *each.gate.also) if group]


def all_literals() -> list[str]:
    """Every literal of the table and the extra words, sorted."""
    return sorted({word for group in gate_sets() for word in group} | set(EXTRA_WORDS))


def covering_literals() -> list[str]:
    """A few literals that hold one of every gate's sets, and the extra words, sorted: greedily the
    literal in most sets not yet held (ties: the shortest, then the first in order), so the same
    ones every run."""
    left, chosen = set(gate_sets()), set(EXTRA_WORDS)
    left = {group for group in left if not group & chosen}
    while left:
        counts = Counter(word for group in left for word in group)
        best = min(counts, key=lambda word: (-counts[word], len(word), word))
        chosen.add(best)
        left = {group for group in left if best not in group}
    return sorted(chosen)


def audit_cases(words: list[str], separators: tuple[str, ...],
                audited_as: tuple[str, ...]) -> list[tuple[str, Callable[[int], float]]]:
    """(label, time at a size) of each of ``words`` repeated with each separator, audited as each
    path, under a footer of every literal (so every pattern runs)."""
    footer = "\n" + " ".join(all_literals()) + "\ncat ~/.aws/credentials\n"
    cases = []
    for word, separator, path in itertools.product(words, separators, audited_as):
        unit = word + separator
        cases.append((f"audit {unit!r} as {path}",
                      lambda n, unit=unit, path=path: seconds(lambda: audit_document(path, unit * (n // len(unit))
                                                                                      + footer))))
    return cases


def shape_cases(audited_as: tuple[str, ...]) -> list[tuple[str, Callable[[int], float]]]:
    """(label, time at a size) of each of :data:`SHAPES`, its part repeated, audited as each path."""
    footer = "\n" + " ".join(all_literals()) + "\n"
    return [(f"audit {start!r} + {part!r} repeated as {path}",
             lambda n, start=start, part=part, path=path: seconds(
                 lambda: audit_document(path, start + part * (n // len(part)) + footer)))
            for (start, part), path in itertools.product(SHAPES, audited_as)]


def page_cases(folder: Path) -> list[tuple[str, Callable[[int], float]]]:
    """(label, time at a size) of validating and rendering a body of one repeated construct."""
    renderer = MarkdownRenderer(LinkTargets(frozenset({"s"}), frozenset()))

    def validate_body(body: str) -> float:
        skill = Path(tempfile.mkdtemp(dir=folder)) / "s"
        skill.mkdir()
        (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n" + body, "utf-8")
        return seconds(lambda: read_catalog([skill.parent]))

    def validate(unit: str, n: int) -> float:
        return validate_body(unit * (n // len(unit)))

    cases: list[tuple[str, Callable[[int], float]]] = []
    for unit in MARKDOWN:
        cases.append((f"validate {unit!r}", lambda n, unit=unit: validate(unit, n)))
        cases.append((f"render {unit!r}", lambda n, unit=unit: seconds(
            lambda: renderer.render(unit * (n // len(unit)), "s"))))
    for part, end in MARKDOWN_SHAPES:
        cases.append((f"validate {part!r} repeated + {end!r}",
                      lambda n, part=part, end=end: validate_body(part * (n // len(part)) + end)))
    for label, build in MARKDOWN_BUILT:
        cases.append((f"validate {label}", lambda n, build=build: validate_body(build(n))))
        cases.append((f"render {label}", lambda n, build=build: seconds(lambda: renderer.render(build(n), "s"))))
    return cases


#: How many times a case that looks too slow is timed again (the fastest time counts).
RETRIES = 3


def trigger_patterns_line(folder: Path, counts: tuple[int, int] = (2000, 8000)) -> str:
    """One skill of ``counts`` distinct trigger patterns validated, the best of three each: the
    times, their growth and the checks each pattern took (1: none checked again)."""
    import skillsite.agent.regex_safety as regex_safety

    real, checks = regex_safety.check, [0]

    def counted(pattern: str, message_chars: int = regex_safety.MESSAGE_CHARS) -> object:
        checks[0] += 1
        return real(pattern, message_chars)

    def validate(count: int, round_: int) -> float:
        skill = folder / f"patterns-{count}-{round_}" / "s"
        skill.mkdir(parents=True)
        listed = "".join(f"    - '\\bt{count}r{round_}x{n}y\\d+'\n" for n in range(count))  # none seen before
        (skill / "SKILL.md").write_text(f"---\nname: s\ndescription: d\ntriggers:\n  patterns:\n{listed}---\n",
                                        "utf-8")
        return seconds(lambda: read_catalog([skill.parent]))

    regex_safety.check = counted
    try:
        times = []
        for count in counts:
            checks[0] = 0
            times.append(min(validate(count, round_) for round_ in range(RETRIES)))
            per_pattern = checks[0] / (RETRIES * count)
    finally:
        regex_safety.check = real
    small, large = counts
    return (f"trigger patterns in one skill, validated: {small:,} in {times[0]:.2f} s, {large:,} in {times[1]:.2f} s "
            f"({times[1] / max(times[0], 1e-3):.1f}x for {large / small:.0f}x the patterns); "
            f"checks per pattern at {large:,}: {per_pattern:.1f}")


def too_slow(small: float, large: float, args: argparse.Namespace) -> bool:
    """Whether a case grew more than ``--ratio`` times and took over ``--floor`` seconds at the larger size."""
    return large > args.floor and large > args.ratio * max(small, 1e-3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=5000, help="characters of the smaller text")
    parser.add_argument("--thorough", action="store_true", help="every separator and kind of file")
    parser.add_argument("--ratio", type=float, default=6.0, help="growth over which a case is listed")
    parser.add_argument("--floor", type=float, default=0.3, help="seconds at 4 x size under which it is not")
    parser.add_argument("--only", choices=("audit", "pages"))
    parser.add_argument("--all-literals", action="store_true",
                        help="repeat every literal of the table, not only a cover of each gate's sets")
    args = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/hostile_input.py --size {args.size} --ratio {args.ratio} "
          f"--floor {args.floor}" + (f" --only {args.only}" if args.only else "")
          + (" --thorough" if args.thorough else "") + (" --all-literals" if args.all_literals else ""))
    words = all_literals() if args.all_literals else covering_literals()
    if args.only != "pages":
        print(f"literals repeated: {len(words):,} of {len(all_literals()):,}"
              + ("" if args.all_literals else " (one of each gate's sets at least; --all-literals: every one)"))
    with tempfile.TemporaryDirectory() as scratch:
        shapes = THOROUGH if args.thorough else (SEPARATORS, AUDITED_AS)
        cases = ([] if args.only == "pages" else audit_cases(words, *shapes) + shape_cases(shapes[1])) + \
                ([] if args.only == "audit" else page_cases(Path(scratch)))
        listed, slowest = [], (0.0, "")
        for label, timed in cases:
            small, large = timed(args.size), timed(4 * args.size)
            if too_slow(small, large, args):  # timed again: other work on the machine only adds time
                small, large = (min(timed(n) for _ in range(RETRIES)) for n in (args.size, 4 * args.size))
            slowest = max(slowest, (large, label))
            if too_slow(small, large, args):
                listed.append((label, small, large))
        patterns = trigger_patterns_line(Path(scratch)) if args.only != "audit" else None
    print(f"\n{len(cases)} cases at {args.size:,} and {4 * args.size:,} characters; slowest at the larger size: "
          f"{slowest[1]} ({slowest[0]:.2f} s)")
    if patterns is not None:
        print(patterns)
    if not listed:
        print("no case grows faster than its size")
        return
    print(f"\n| case | {args.size:,} chars | {4 * args.size:,} chars | growth |\n|---|---:|---:|---:|")
    for label, small, large in listed:
        print(f"| {label} | {small:.2f} s | {large:.2f} s | {large / max(small, 1e-3):.1f}x |")


if __name__ == "__main__":
    main()
