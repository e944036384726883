"""``ManifestEntry.from_json`` read cheaper, and nothing else: for every entry of two built catalogs
(frozen in ``tests/data/entry_parse_inputs.json.gz``) and for thousands of malformed ones (real
entries with values of the wrong type, lone surrogates, control characters, wrong nesting put
anywhere in them), today's parser gives the entry the parser before it gave (field for field, and
the same shared records) or the identical error.  What the parser before gave is kept as a
fingerprint a case in ``tests/data/entry_parse_golden.json``, written by
``tests/data/make_entry_golden.py`` (which makes the cases) run against that parser."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from skillsite.agent.catalog_format import RISKS
from skillsite.agent.entry import NOTHING_FOUND, AuditSummary, ManifestEntry, entry_problem
from skillsite.agent.xml_chars import xml_forbidden, xml_unkept

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
import make_entry_golden as golden  # noqa: E402  (the cases and their fingerprints)

#: The fields whose keys a skill chooses.
FREE_FORM = ("metadata", "extra", "parameters", "examples", "interface")


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    """The committed fingerprints, each group's in the order of its cases."""
    return json.loads(golden.GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[tuple[golden.Case, tuple[Any, ...]]]]:
    """Each group's cases with what today's parser makes of them."""
    found: dict[str, list[tuple[golden.Case, tuple[Any, ...]]]] = {group: [] for group in golden.GROUPS}
    for case in golden.cases(golden.read_inputs()):
        try:
            now = golden.outcome(golden.entry, case.data)
        except Exception as exc:  # a case that breaks the parser is named like any other that differs
            now = ("crashed", f"{type(exc).__name__}: {exc}")
        found[case.group].append((case, now))
    return found


def same_as_before(expected: dict[str, Any], outcomes: dict[str, list[tuple[golden.Case, tuple[Any, ...]]]],
                   group: str) -> None:
    """Every case of ``group`` has the fingerprint the parser before gave it; else the cases that
    differ, each with its index, what it is and what today's parser makes of it."""
    assert expected["inputs_sha256"] == golden.inputs_digest(), "the frozen inputs are not those fingerprinted"
    assert len(expected[group]) == len(outcomes[group]), "other cases than those fingerprinted"
    differ = []
    for index, ((case, now), before) in enumerate(zip(outcomes[group], expected[group])):
        if (found := golden.fingerprint(now)) != before:
            told = "read" if now[0] == "read" else f"{now[0]}: {str(now[1])[:300]}"
            differ.append(f"{group} {index} ({case.about}): {found} instead of {before}; now {told}")
    assert not differ, f"{len(differ)} cases differ:\n" + "\n".join(differ[:20])


def test_every_built_entry_reads_as_before(expected: dict[str, Any], outcomes: dict[str, Any]) -> None:
    same_as_before(expected, outcomes, "built")
    assert len(outcomes["built"]) > 50 and all(now[0] == "read" for _, now in outcomes["built"])


def test_every_malformed_entry_reads_or_is_refused_as_before(expected: dict[str, Any],
                                                             outcomes: dict[str, Any]) -> None:
    same_as_before(expected, outcomes, "damaged")
    told: dict[str, int] = {}
    for _, now in outcomes["damaged"]:
        told[now[1] if now[0] == "refused" else "read"] = told.get(now[1] if now[0] == "refused" else "read", 0) + 1
    refused = golden.DAMAGED - told["read"]
    # the damage reaches both what refuses an entry and what is read leniently, in many ways
    assert refused > golden.DAMAGED // 5 and told["read"] > golden.DAMAGED // 5, told
    problems = {re.sub(r"\(.*?\) has ", "", message).split(" '")[0] for message in told if message != "read"}
    assert len(problems) >= 15, problems


def test_unheld_characters_are_refused_as_before(expected: dict[str, Any], outcomes: dict[str, Any]) -> None:
    """Every character XML 1.0 cannot hold (and a carriage return) in an id, a file path, a child id."""
    same_as_before(expected, outcomes, "unheld")
    refused = [now[1] for _, now in outcomes["unheld"] if now[0] == "refused"]
    # most are refused (a lone surrogate as no Unicode text); a tab, a line feed, U+007F, U+00A0, U+2028
    # and, but in a file path, a carriage return are held
    assert len(refused) > 2 * len(golden.UNHELD) and sum("cannot hold" in told for told in refused) > 60, refused


def test_huge_lists_read_as_before(expected: dict[str, Any], outcomes: dict[str, Any]) -> None:
    same_as_before(expected, outcomes, "huge")
    assert {now[0] for _, now in outcomes["huge"]} == {"read", "refused"}


def test_the_frozen_inputs_hold_every_field_a_build_writes(site: Path) -> None:
    """The entries the cases start from (frozen: a build's change with the git history and the
    folder it runs in) still hold every field the example catalog's build writes, so that the
    damage reaches each (the keys of free-form mappings aside)."""
    def fields(entries: list[dict[str, Any]]) -> set[str]:
        return {".".join(step for step in path if isinstance(step, str)) for data in entries
                for path in golden.places(data) if path and path[0] not in FREE_FORM}

    built = json.loads((site / "skills.json").read_text("utf-8"))["skills"]
    missing = fields(built) - fields(golden.read_inputs())
    assert not missing, f"refresh them: python tests/data/make_entry_golden.py --rebuild-inputs ({sorted(missing)})"


def test_no_character_the_xml_checks_find_is_printable() -> None:
    """What lets the parser skip the XML checks for printable text (``str.isprintable``)."""
    for code in range(0x110000):
        char = chr(code)
        if xml_unkept(char) is not None or xml_forbidden(char) is not None:
            assert not char.isprintable(), hex(code)


# ---- what is shared now

def test_every_audit_not_well_formed_is_the_one_tampered_record() -> None:
    """An audit the loader cannot trust reads as one frozen record, ``high``, whatever was wrong
    (a catalog of many such entries holds it once, as it holds NOTHING_FOUND once)."""
    tampered = [AuditSummary.from_json(audit) for audit in ("high", None, [], {"risk": "trust-me", "findings": []},
                                                            {"risk": "none"}, {"risk": "low", "findings": [{}]})]
    assert all(audit is tampered[0] for audit in tampered)
    from skillsite.agent.entry import TAMPERED

    assert tampered[0] is TAMPERED and repr(TAMPERED) == "AuditSummary(risk='high', findings=())"
    assert AuditSummary.from_json({"risk": "none", "findings": []}) is NOTHING_FOUND
    assert [AuditSummary.from_json({"risk": risk, "findings": []}).risk for risk in RISKS] == list(RISKS)
    data = {"id": "a", "name": "a", "description": "Does a.", "sha256": "0" * 64, "files": [], "requirements": {},
            "urls": {"skill_md": "skills/a/SKILL.md", "files": "skills/a/"}, "audit": {"risk": "unknown"},
            "visibility": {"hidden": False, "user_invocable_only": False, "always": False}}
    assert ManifestEntry.from_json(data).audit is ManifestEntry.from_json({**data, "id": "b"}).audit is TAMPERED
    assert entry_problem(data) is None
