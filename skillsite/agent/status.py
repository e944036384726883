"""Whether each skill of a catalog is offered here, and why not (standard library only).

A skill is ``hidden`` (never offered to a model), ``user-only`` (reached only by its slash
command), a ``copy`` of another skill (offered as that one, its group's canonical member),
``ineligible`` (its requirements are not met here, a skill it conflicts with is on, or a skill
it needs is ineligible), or ``eligible``.  Conflicts hold both ways: declaring ``conflicts:
[b]`` in ``a`` keeps ``a`` off while ``b`` is on, and ``b`` off while ``a`` is.  A skill is *on*
when it is ``always`` on and its own requirements are met, or when the runtime lists it as
active.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from skillsite.agent.catalog_format import above, offered_to_model
from skillsite.agent.eligibility import ineligible_reasons, with_dependencies
from skillsite.agent.entry import CODEX_POLICY, ManifestEntry, Visibility

STATES = ("eligible", "ineligible", "hidden", "user-only", "copy")


@dataclass(frozen=True)
class SkillStatus:
    """One skill's state on this machine, with the reasons (plain sentences) behind it."""

    id: str
    name: str
    state: str
    reasons: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "state": self.state, "reasons": list(self.reasons)}


def conflict_pairs(entries: Sequence[ManifestEntry]) -> dict[str, set[str]]:
    """Every skill's conflicting skills, in both directions, by id."""
    ids = {e.id for e in entries}
    related: dict[str, set[str]] = {}
    for entry in entries:
        for other in entry.conflicts:
            if other in ids and other != entry.id:
                related.setdefault(entry.id, set()).add(other)
                related.setdefault(other, set()).add(entry.id)
    return related


def requirement_reasons(entries: Sequence[ManifestEntry], env: Mapping[str, str] | None,
                        platform: str | None) -> dict[str, list[str]]:
    """Why each skill's requirements are not met here ([] when they are), by id."""
    which: dict[str, bool] = {}
    return {e.id: ineligible_reasons(e, env, platform, which) for e in entries}


def conflict_reasons(entries: Sequence[ManifestEntry], unmet: Mapping[str, list[str]],
                     active: Iterable[str] = ()) -> dict[str, list[str]]:
    """Why each skill is kept off by a conflicting skill that is on, by id.

    A skill is on when the runtime lists it as active, or when it is ``always`` on, offered to
    models and its requirements are met.  Of two conflicting skills that are both on, the
    active one, then the one with the higher priority, then the smaller id, stays on.
    """
    by_id = {e.id: e for e in entries}
    active_ids = set(active)
    on = {sid: ("active" if sid in active_ids else "always on") for sid, e in by_id.items()
          if sid in active_ids or (e.visibility.always and offered_to_model(e) and not unmet.get(sid))}

    def rank(sid: str) -> tuple[bool, int, str]:
        return (sid not in active_ids, -by_id[sid].priority, sid)

    reasons: dict[str, list[str]] = {}
    for sid, others in conflict_pairs(entries).items():
        reasons[sid] = [f"conflicts with '{other}', which is {on[other]}" for other in sorted(others)
                        if other in on and (sid not in on or rank(other) < rank(sid))]
    return reasons


def risk_reasons(entries: Sequence[ManifestEntry], max_risk: str) -> dict[str, list[str]]:
    """Why a skill's audit risk keeps it off (above ``max_risk``), by id."""
    return {e.id: [f"the catalog's audit rates it {e.risk} risk, above the highest risk allowed ({max_risk})"]
            for e in entries if above(e.risk, max_risk)}


def ineligibility(entries: Sequence[ManifestEntry], env: Mapping[str, str] | None = None,
                  platform: str | None = None, active: Iterable[str] = (), max_risk: str = "high"
                  ) -> dict[str, list[str]]:
    """Why each skill cannot be offered here ([] when it can), by id: unmet requirements, an
    audit risk above ``max_risk``, a conflicting skill that is on, a skill it needs that is
    ineligible (for any of these reasons) or missing."""
    unmet = requirement_reasons(entries, env, platform)
    for sid, reasons in risk_reasons(entries, max_risk).items():
        unmet[sid] = unmet[sid] + reasons
    # a skill is on only when what it needs is eligible too (else it is not offered at all)
    conflicts = conflict_reasons(entries, with_dependencies(entries, unmet), active)
    return with_dependencies(entries, {sid: reasons + conflicts.get(sid, []) for sid, reasons in unmet.items()})


def hidden_reason(visibility: Visibility) -> str:
    """Why a hidden skill is hidden, naming the key the skill used (older catalogs do not record it)."""
    key = visibility.hidden_by
    if key is None:
        return "it is hidden from models (hidden, hideFromDiscovery or disable-model-invocation)"
    where = "models" if visibility.listed else "models and from the catalog's listings"
    said = f"{key}: false in agents/openai.yaml" if key == CODEX_POLICY else f"{key}: true"
    return f"it is hidden from {where} ({said})"


def catalog_status(entries: Sequence[ManifestEntry], env: Mapping[str, str] | None = None,
                   platform: str | None = None, active: Iterable[str] = (), max_risk: str = "high"
                   ) -> list[SkillStatus]:
    """Every skill's :class:`SkillStatus`, sorted by id."""
    blocked = ineligibility(entries, env, platform, active, max_risk)
    statuses = []
    for entry in sorted(entries, key=lambda e: e.id):
        reasons = blocked[entry.id]
        if entry.visibility.hidden:
            state, reasons = "hidden", [hidden_reason(entry.visibility)] + reasons
        elif entry.visibility.user_invocable_only:
            how = ("by its slash command" if entry.visibility.user_invocable
                   else "but it says user-invocable: false, so it has no slash command either")
            state, reasons = "user-only", [f"only a user can invoke it, {how}"] + reasons
        elif entry.visibility.copy_of is not None:
            state, reasons = "copy", [f"it is a copy of skill '{entry.visibility.copy_of}', offered to models as "
                                      "that one"] + reasons
        else:
            state = "ineligible" if reasons else "eligible"
        statuses.append(SkillStatus(entry.id, entry.name, state, reasons))
    return statuses
