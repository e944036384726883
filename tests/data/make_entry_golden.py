"""Write tests/data/entry_parse_golden.json: what ``ManifestEntry.from_json`` makes of each case.

    python tests/data/make_entry_golden.py                   # writes the fingerprints
    python tests/data/make_entry_golden.py --check           # exit 1 when they are stale
    python tests/data/make_entry_golden.py --rebuild-inputs  # new real entries, same outcomes first

The cases: every entry of the example catalog and of the sample corpus (frozen, as built, in
``entry_parse_inputs.json.gz``: a build's entries change with the git history and the folder it
runs from), 4,000 of them damaged with a seeded generator (values of the wrong type or content,
removed, put into a list or mapping), every character XML 1.0 cannot hold in an id, a file path
and a child id, and lists of 100,000 items.  Each case's outcome (the entry's repr, its JSON, the
shared records it holds, ``entry_problem``; or the error's text) is written as the first 16 hex
digits of its sha256, one case a line, so that a change of outcome is a diff naming the case.
``tests/unit/test_entry_parse_parity.py`` compares today's parser with the file case by case.

The file was first written by the parser before ``ManifestEntry.from_json`` was made cheaper
(run against a checkout of it: ``PYTHONPATH=CHECKOUT python tests/data/make_entry_golden.py``).
After an intended change of outcome, run the script and read the diff.  ``--rebuild-inputs``
replaces the frozen entries with today's build and writes their fingerprints; it refuses while
the committed fingerprints are not today's parser's, so that new inputs never hide a change.
"""
from __future__ import annotations

import argparse
import copy
import gzip
import hashlib
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, NamedTuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.append(str(REPO))  # last: a checkout on PYTHONPATH (another version of the parser) comes first

import skillsite.agent.entry as entry  # noqa: E402
from skillsite.agent.errors import CatalogFormatError  # noqa: E402

GOLDEN = HERE / "entry_parse_golden.json"
INPUTS = HERE / "entry_parse_inputs.json.gz"
#: The records an entry may share with every other, by their names on the entry and in the module.
COMMON = (("visibility", "DEFAULT_VISIBILITY"), ("requirements", "NO_REQUIREMENTS"), ("triggers", "NO_TRIGGERS"),
          ("audit", "NOTHING_FOUND"))
#: Values of the wrong type, or of the right type and wrong content, put in place of any value.
HOSTILE: tuple[Any, ...] = (None, True, False, 0, 1, -1, 2**70, 1.5, "", "x", "none", "\ud800", "a\rb", "a\x00b",
                            "\ufffe", "tab\there", "\u00a0", "0" * 64, "A" * 64, [], ["x"], [1], ["x", None], [[1]],
                            [{}], {}, {"x": 1}, {"path": "p"})
DAMAGED = 4000
SEED = 20261201
#: What XML 1.0 cannot hold (and a carriage return, which it does not keep), put in ids and paths.
UNHELD = ["\r", "\x7f", "\u00a0", "\u2028", *map(chr, [*range(0x20), 0xD800, 0xDBFF, 0xDFFF, 0xFFFE, 0xFFFF])]
GROUPS = ("built", "damaged", "unheld", "huge")


class Case(NamedTuple):
    """One input of the parser, and what it is (named in a failure)."""

    group: str
    about: str
    data: Any


def read_inputs() -> list[dict[str, Any]]:
    """The frozen entries of the example catalog and the sample corpus."""
    return json.loads(gzip.decompress(INPUTS.read_bytes()))


def inputs_digest() -> str:
    """The sha256 of the frozen entries as stored (the golden file names the inputs it was written from)."""
    return hashlib.sha256(INPUTS.read_bytes()).hexdigest()


def outcome(module: ModuleType, data: Any) -> tuple[Any, ...]:
    """What ``module``'s parser makes of ``data``: the entry's repr (every field, nested records and
    their types: ``True`` is not ``1``), its JSON and which common records it holds; or the error."""
    problem = module.entry_problem(data)
    try:
        read = module.ManifestEntry.from_json(data)
    except CatalogFormatError as exc:
        return ("refused", str(exc), problem)
    shares = tuple(getattr(read, name) is getattr(module, common) for name, common in COMMON)
    return ("read", repr(read), json.dumps(read.to_json(), sort_keys=True), shares, problem)


def fingerprint(found: tuple[Any, ...]) -> str:
    """An outcome in a line: read or refused, and the first 16 hex digits of the sha256 of its repr."""
    return f"{found[0]} {hashlib.sha256(repr(found).encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value in ``value`` (keys and indexes), itself first."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += places(item, (*path, index))
    return found


def where(path: tuple[Any, ...]) -> str:
    """A path as written in a message: ``files[0].sha256``."""
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path).lstrip(".")


def damaged(data: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str]:
    """``data`` with one to three values replaced by hostile ones, removed, or put into a list or
    mapping; and what was done."""
    data, done = copy.deepcopy(data), []
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(places(data)[1:])
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        last, how = path[-1], rng.random()
        if how < 0.15 and isinstance(parent, dict):
            del parent[last]
            done.append(f"del {where(path)}")
        elif how < 0.25:
            parent[last] = [parent[last]] if how < 0.2 else {"x": parent[last]}
            done.append(f"{where(path)} put in a {'list' if how < 0.2 else 'mapping'}")
        else:
            parent[last] = copy.deepcopy(rng.choice(HOSTILE))
            done.append(f"{where(path)} = {parent[last]!r}")
    return data, "; ".join(done)


def unheld(base: dict[str, Any], place: str, char: str) -> dict[str, Any]:
    """``base`` with ``char`` in its id, its first file's path or a child id."""
    data = copy.deepcopy(base)
    if place == "id":
        data["id"] = f"a{char}b"
    elif place == "files":
        data["files"][0]["path"] = f"a{char}b"
    else:
        data["children"] = ["ok", f"c{char}"]
    return data


def cases(inputs: list[dict[str, Any]]) -> Iterator[Case]:
    """Every case, in the order of the golden file."""
    for data in inputs:
        yield Case("built", data["id"], data)
    rng = random.Random(SEED)
    for _ in range(DAMAGED):
        base = rng.choice(inputs)
        data, done = damaged(base, rng)
        yield Case("damaged", f"{base['id']}: {done}", data)
    base = next(data for data in inputs if data["files"])
    for place in ("id", "files", "children"):
        for char in UNHELD:
            yield Case("unheld", f"U+{ord(char):04X} in {place}", unheld(base, place, char))
    yield from huge(inputs[0])


def huge(base: dict[str, Any]) -> Iterator[Case]:
    """Lists of 100,000 items, of strings only or with one item of another type at the end."""
    for key in ("tags", "allowed-tools", "conflicts", "children"):
        for tail in ([], [7], [None]):
            yield Case("huge", f"{key}: 100,000 strings + {tail!r}", {**base, key: ["t"] * 100_000 + tail})
    yield Case("huge", "triggers: 100,000 phrases (every other one a number), 100,000 keywords",
               {**base, "triggers": {"phrases": ["p", 3] * 50_000, "keywords": ["k"] * 100_000}})


def fingerprints(inputs: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each group's fingerprints, case by case, by this process's parser."""
    found: dict[str, list[str]] = {group: [] for group in GROUPS}
    for case in cases(inputs):
        found[case.group].append(fingerprint(outcome(entry, case.data)))
    return found


def render(found: dict[str, list[str]], digest: str) -> str:
    """The golden file's text: the inputs' sha256, then each group's fingerprints, one a line."""
    groups = ",\n".join(f"{json.dumps(group)}: [\n" + ",\n".join(map(json.dumps, lines)) + "\n]"
                        for group, lines in found.items())
    about = "tests/data/make_entry_golden.py: ManifestEntry.from_json's outcome of each case (sha256, 16 hex digits)"
    return f'{{"about": {json.dumps(about)},\n"inputs_sha256": "{digest}",\n{groups}\n}}\n'


def built_entries() -> list[dict[str, Any]]:
    """Every entry of the example catalog and of the sample corpus, built now from the repository's root."""
    from skillsite.publish.build import build

    os.chdir(REPO)  # the entries' source paths are relative to the folder the build runs in
    out = Path(tempfile.mkdtemp(prefix="entry-golden-"))
    found = []
    for source in (REPO / "example-skills", HERE / "sample-corpus"):
        assert build([source], out / source.name, keep_going=True).ok, source
        found += json.loads((out / source.name / "skills.json").read_text("utf-8"))["skills"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true", help="exit 1 when the committed fingerprints are stale")
    what.add_argument("--rebuild-inputs", action="store_true", help="freeze today's built entries as the inputs")
    args = parser.parse_args()
    print(f"parser: {entry.__file__}")
    if INPUTS.exists():
        text = render(fingerprints(read_inputs()), inputs_digest())
        stale = not GOLDEN.exists() or GOLDEN.read_text(encoding="utf-8") != text
        if args.check or (args.rebuild_inputs and stale):  # new inputs are fingerprinted by an unchanged parser
            print(f"{GOLDEN.relative_to(REPO)}: {'stale' if stale else 'up to date'}")
            sys.exit(1 if stale else 0)
    elif not args.rebuild_inputs:
        sys.exit(f"{INPUTS.relative_to(REPO)} is missing: run with --rebuild-inputs")
    if args.rebuild_inputs:
        body = json.dumps(built_entries(), ensure_ascii=False, indent=0).encode("utf-8")
        INPUTS.write_bytes(gzip.compress(body, compresslevel=9, mtime=0))
        text = render(fingerprints(read_inputs()), inputs_digest())
    GOLDEN.write_text(text, encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(REPO)}: {text.count(chr(10)) - 2 * len(GROUPS) - 3} cases")

if __name__ == "__main__":
    main()
