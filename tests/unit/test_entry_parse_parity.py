"""``ManifestEntry.from_json`` read cheaper, and nothing else: for every entry of two built catalogs
and for thousands of malformed ones (real entries with values of the wrong type, lone surrogates,
control characters, wrong nesting put anywhere in them), today's parser gives the entry the parser
before it gave (field for field, and the same shared records) or the identical error.  The parser
before is kept verbatim as ``tests/data/entry_before.py``, the oracle of this file only."""
from __future__ import annotations

import copy
import importlib.util
import json
import random
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from skillsite.agent import entry as today
from skillsite.agent.catalog_format import RISKS
from skillsite.agent.entry import NOTHING_FOUND, AuditSummary, ManifestEntry, entry_problem
from skillsite.agent.errors import CatalogFormatError
from skillsite.agent.xml_chars import xml_forbidden, xml_unkept
from support import REPO, SAMPLE

ORACLE = REPO / "tests" / "data" / "entry_before.py"
#: The records an entry may share with every other (see ``shared``), by their names in both modules.
COMMON = (("visibility", "DEFAULT_VISIBILITY"), ("requirements", "NO_REQUIREMENTS"), ("triggers", "NO_TRIGGERS"),
          ("audit", "NOTHING_FOUND"))
#: Values of the wrong type, or of the right type and wrong content, put in place of any value.
HOSTILE: tuple[Any, ...] = (None, True, False, 0, 1, -1, 2**70, 1.5, "", "x", "none", "\ud800", "a\rb", "a\x00b",
                            "\ufffe", "tab\there", "\u00a0", "0" * 64, "A" * 64, [], ["x"], [1], ["x", None], [[1]],
                            [{}], {}, {"x": 1}, {"path": "p"})
CASES = 4000


@pytest.fixture(scope="module")
def before() -> ModuleType:
    """The parser before, imported from its copy (beside today's modules it imports)."""
    spec = importlib.util.spec_from_file_location("entry_before", ORACLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["entry_before"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def entries(site: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Every entry of the example catalog and of the sample corpus of real skills, as built."""
    from skillsite.publish.build import build

    corpus = tmp_path_factory.mktemp("parity") / "_site"
    assert build([SAMPLE], corpus, keep_going=True).ok
    found = [e for s in (site, corpus) for e in json.loads((s / "skills.json").read_text("utf-8"))["skills"]]
    assert len(found) > 50
    return found


def outcome(module: ModuleType, data: Any) -> tuple[Any, ...]:
    """What ``module``'s parser makes of ``data``: the entry's repr (every field, nested records and
    their types: ``True`` is not ``1``), its JSON and which common records it holds; or the error."""
    problem = module.entry_problem(data)
    try:
        entry = module.ManifestEntry.from_json(data)
    except CatalogFormatError as exc:
        return ("refused", str(exc), problem)
    shares = tuple(getattr(entry, name) is getattr(module, common) for name, common in COMMON)
    return ("read", repr(entry), json.dumps(entry.to_json(), sort_keys=True), shares, problem)


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


def damaged(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``data`` with one to three values replaced by hostile ones, removed, or put into a list or mapping."""
    data = copy.deepcopy(data)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(places(data)[1:])
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        last, how = path[-1], rng.random()
        if how < 0.15 and isinstance(parent, dict):
            del parent[last]
        elif how < 0.25:
            parent[last] = [parent[last]] if how < 0.2 else {"x": parent[last]}
        else:
            parent[last] = copy.deepcopy(rng.choice(HOSTILE))
    return data


def test_every_built_entry_reads_as_before(before: ModuleType, entries: list[dict[str, Any]]) -> None:
    for data in entries:
        now = outcome(today, data)
        assert now == outcome(before, data), data["id"]
        assert now[0] == "read"


def test_every_malformed_entry_reads_or_is_refused_as_before(before: ModuleType,
                                                             entries: list[dict[str, Any]]) -> None:
    rng = random.Random(20261201)
    told: dict[str, int] = {}
    for case in range(CASES):
        data = damaged(rng.choice(entries), rng)
        now = outcome(today, data)
        assert now == outcome(before, data), (case, data)
        told[now[1] if now[0] == "refused" else "read"] = told.get(now[1] if now[0] == "refused" else "read", 0) + 1
    refused = CASES - told["read"]
    # the damage reaches both what refuses an entry and what is read leniently, in many ways
    assert refused > CASES // 5 and told["read"] > CASES // 5, told
    problems = {re.sub(r"\(.*?\) has ", "", message).split(" '")[0] for message in told if message != "read"}
    assert len(problems) >= 15, problems


@pytest.mark.parametrize("value", ["id", "files", "children"])
def test_unheld_characters_are_refused_as_before(before: ModuleType, entries: list[dict[str, Any]],
                                                 value: str) -> None:
    """Every character XML 1.0 cannot hold (and a carriage return) in an id, a file path, a child id."""
    base = next(e for e in entries if e["files"])
    for char in ["\r", "\x7f", "\u00a0", "\u2028", *map(chr, [*range(0x20), 0xD800, 0xDBFF, 0xDFFF, 0xFFFE, 0xFFFF])]:
        data = copy.deepcopy(base)
        if value == "id":
            data["id"] = f"a{char}b"
        elif value == "files":
            data["files"][0]["path"] = f"a{char}b"
        else:
            data["children"] = ["ok", f"c{char}"]
        assert outcome(today, data) == outcome(before, data), repr(char)


def test_no_character_the_xml_checks_find_is_printable() -> None:
    """What lets the parser skip the XML checks for printable text (``str.isprintable``)."""
    for code in range(0x110000):
        char = chr(code)
        if xml_unkept(char) is not None or xml_forbidden(char) is not None:
            assert not char.isprintable(), hex(code)


def test_huge_lists_read_as_before(before: ModuleType, entries: list[dict[str, Any]]) -> None:
    base = entries[0]
    for key in ("tags", "allowed-tools", "conflicts", "children"):
        for tail in ([], [7], [None]):
            data = {**base, key: ["t"] * 100_000 + tail}
            assert outcome(today, data) == outcome(before, data), (key, tail)
    data = {**base, "triggers": {"phrases": ["p", 3] * 50_000, "keywords": ["k"] * 100_000}}
    assert outcome(today, data) == outcome(before, data)


# ---- what is shared now

def test_every_audit_not_well_formed_is_the_one_tampered_record(before: ModuleType) -> None:
    """An audit the loader cannot trust reads as one frozen record, ``high``, whatever was wrong
    (a catalog of many such entries holds it once, as it holds NOTHING_FOUND once)."""
    tampered = [AuditSummary.from_json(audit) for audit in ("high", None, [], {"risk": "trust-me", "findings": []},
                                                            {"risk": "none"}, {"risk": "low", "findings": [{}]})]
    assert all(audit is tampered[0] for audit in tampered)
    from skillsite.agent.entry import TAMPERED

    assert tampered[0] is TAMPERED and repr(TAMPERED) == repr(before.AuditSummary("high"))
    assert AuditSummary.from_json({"risk": "none", "findings": []}) is NOTHING_FOUND
    assert [AuditSummary.from_json({"risk": risk, "findings": []}).risk for risk in RISKS] == list(RISKS)
    data = {"id": "a", "name": "a", "description": "Does a.", "sha256": "0" * 64, "files": [], "requirements": {},
            "urls": {"skill_md": "skills/a/SKILL.md", "files": "skills/a/"}, "audit": {"risk": "unknown"},
            "visibility": {"hidden": False, "user_invocable_only": False, "always": False}}
    assert ManifestEntry.from_json(data).audit is ManifestEntry.from_json({**data, "id": "b"}).audit is TAMPERED
    assert entry_problem(data) is None
