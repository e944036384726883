"""A skill whose dependency is ineligible here is ineligible too, with the reason down the chain
(skillsite.agent.eligibility.with_dependencies, used by skill_status, the prompt and
Catalog.ineligible).  Manifests are untrusted: a cycle or a missing skill never loops."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillsite.agent.catalog_format import FORMAT, WHOLE_FORMAT_VERSION
from skillsite.agent.eligibility import MAX_REASON, with_dependencies
from skillsite.agent.entry import ManifestEntry
from skillsite.agent.status import catalog_status, ineligibility
from skillsite.loader import Catalog

SHA = "0" * 64


def entry_json(sid: str, needs: tuple[str, ...] = (), bins: tuple[str, ...] = ()) -> dict[str, Any]:
    """A manifest entry as a build writes it, reduced to what eligibility reads."""
    return {"id": sid, "name": sid.rsplit("/", 1)[-1], "description": f"Does {sid}.", "sha256": SHA,
            "urls": {"page": f"skills/{sid}/", "skill_md": f"skills/{sid}/SKILL.md", "xml": "",
                    "files": f"skills/{sid}/"},
            "files": [], "visibility": {"hidden": False, "user_invocable_only": False, "always": False},
            "requirements": {"bins": list(bins), "env": [], "platforms": []},
            "dependencies": [{"name": d, "id": d, "version": "*", "resolved": None} for d in needs]}


def entries(*specs: tuple[str, tuple[str, ...], tuple[str, ...]]) -> list[ManifestEntry]:
    return [ManifestEntry.from_json(entry_json(sid, needs, bins)) for sid, needs, bins in specs]


MISSING = "no-such-program-skillsite-test"
ENV: dict[str, str] = {"PATH": ""}


def test_an_ineligible_dependency_makes_its_dependents_ineligible_down_the_chain() -> None:
    chain = entries(("a", ("b",), ()), ("b", ("c",), ()), ("c", (), (MISSING,)), ("d", (), ()))
    reasons = ineligibility(chain, ENV, "linux")
    assert reasons["c"] == [f"needs '{MISSING}' on PATH"]
    assert reasons["b"] == [f"needs c, which is ineligible: needs '{MISSING}' on PATH"]
    assert reasons["a"] == [f"needs b, which is ineligible: needs c, which is ineligible: needs '{MISSING}' on PATH"]
    assert reasons["d"] == []
    states = {s.id: s.state for s in catalog_status(chain, ENV, "linux")}
    assert states == {"a": "ineligible", "b": "ineligible", "c": "ineligible", "d": "eligible"}


def test_own_reasons_come_first_then_one_per_ineligible_dependency() -> None:
    found = with_dependencies(entries(("a", ("b", "c", "d"), ()), ("b", (), ()), ("c", (), ()), ("d", (), ())),
                              {"a": ["own"], "b": ["b is off"], "c": [], "d": ["d is off", "and more"]})
    assert found["a"] == ["own", "needs b, which is ineligible: b is off", "needs d, which is ineligible: d is off"]


def test_a_dependency_missing_from_the_catalog_is_a_reason() -> None:
    assert ineligibility(entries(("a", ("gone",), ())), ENV, "linux")["a"] \
        == ["needs gone, which is not in this catalog"]


def test_cycles_of_one_two_and_three_skills_end_and_do_not_depend_on_order() -> None:
    for specs in ([("a", ("a",), (MISSING,))],
                  [("a", ("b",), ()), ("b", ("a",), (MISSING,))],
                  [("a", ("b",), ()), ("b", ("c",), ()), ("c", ("a",), (MISSING,))]):
        forward = ineligibility(entries(*specs), ENV, "linux")
        backward = ineligibility(entries(*reversed(specs)), ENV, "linux")
        assert all(forward[sid] for sid in forward), forward   # every member of the cycle is off
        assert {sid: sorted(r) for sid, r in forward.items()} == {sid: sorted(r) for sid, r in backward.items()}
    assert ineligibility(entries(("a", ("b",), ()), ("b", ("a",), ())), ENV, "linux") == {"a": [], "b": []}


def test_a_long_chain_keeps_each_reason_short() -> None:
    ids = [f"s{i:04d}" for i in range(2000)]
    chain = entries(*[(sid, (ids[i + 1],) if i + 1 < len(ids) else (), (MISSING,) if i + 1 == len(ids) else ())
                      for i, sid in enumerate(ids)])
    reasons = ineligibility(chain, ENV, "linux")
    assert all(len(r) == 1 and len(r[0]) <= MAX_REASON for r in reasons.values())
    assert reasons[ids[0]][0].startswith(f"needs {ids[1]}, which is ineligible: needs {ids[2]}")


def test_the_loader_follows_dependencies_in_status_prompt_and_ineligible(tmp_path: Path) -> None:
    """Catalog.ineligible follows the chain of one skill; skill_status and the prompt the whole catalog."""
    skills = [entry_json("a", ("b",)), entry_json("b", ("c",)), entry_json("c", (), (MISSING,)), entry_json("d")]
    manifest = {"format": FORMAT, "format_version": WHOLE_FORMAT_VERSION, "skills": skills}
    (tmp_path / "skills.json").write_text(json.dumps(manifest), "utf-8")
    catalog = Catalog.open(tmp_path)
    assert catalog.ineligible("a", ENV, platform="linux") == [
        f"needs b, which is ineligible: needs c, which is ineligible: needs '{MISSING}' on PATH"]
    assert catalog.ineligible("d", ENV, platform="linux") == []
    states = {s.id: (s.state, s.reasons) for s in catalog.skill_status(ENV, platform="linux")}
    assert states["b"] == ("ineligible", [f"needs c, which is ineligible: needs '{MISSING}' on PATH"])
    assert states["d"] == ("eligible", [])
    prompt = catalog.prompt(env=ENV, platform="linux")
    assert "<name>d</name>" in prompt and "<name>a</name>" not in prompt


def test_names_no_system_can_hold_are_never_found_and_quoted_escaped() -> None:
    """A catalog may name any requirement: a NUL or a lone surrogate makes the skill ineligible,
    with a reason that can be printed, instead of an error out of the lookup."""
    from skillsite.agent.eligibility import ineligible_reasons

    data = entry_json("odd", bins=("a\x00b", "\ud800", "/" * 5000 + "x"))
    data["requirements"]["env"] = ["\ud800", "A\x00B"]
    reasons = ineligible_reasons(ManifestEntry.from_json(data))   # the real environment and PATH
    assert reasons == ["needs 'a\x00b' on PATH", "needs '\\ud800' on PATH", f"needs '{'/' * 5000}x' on PATH",
                       "needs $\\ud800 set", "needs $A\x00B set"]
    assert all(reason.encode("utf-8") for reason in reasons)
