"""How a locked skill stands against its catalog (skillsite.agent.outdated)."""
from __future__ import annotations

from skillsite.agent.install_plan import REQUEST, Ask
from skillsite.agent.lockfile import Lock, LockedSkill
from skillsite.agent.outdated import locked_asks, skill_state

D1, D2, D3 = ("sha256:" + c * 64 for c in "123")


def lib(version: str | None = "1.1.0", digest: str = D1, **changes) -> LockedSkill:
    return LockedSkill("site/skills.json", version, digest, ".agents/skills/lib", **changes)


def state(locked: LockedSkill, published, installed, asks=(Ask(REQUEST, "^1.1.0"),)):
    return skill_state("lib", locked, list(asks), published, installed)


def test_update_in_range_newer_out_of_range_and_up_to_date() -> None:
    s = state(lib(), {"1.1.0": D1, "1.2.0": D2, "2.0.0": D3}, D1)
    assert (s.status, s.version, s.wanted, s.latest) == ("update-available", "1.1.0", "1.2.0", "2.0.0")
    s = state(lib(), {"1.1.0": D1, "2.0.0": D3}, D1)
    assert (s.status, s.wanted, s.latest) == ("newer-out-of-range", "1.1.0", "2.0.0")
    assert state(lib(), {"1.0.0": D2, "1.1.0": D1}, D1).status == "up-to-date"
    assert state(lib(), {"1.1.0": D1, "1.2.0-rc.1": D2}, D1).status == "newer-out-of-range"


def test_the_same_version_with_another_digest_is_tampered() -> None:
    s = state(lib(), {"1.1.0": D2, "1.2.0": D3}, D1)
    assert s.status == "tampered"
    assert D2 in s.detail and D1 in s.detail and "refusing it" in s.detail


def test_local_changes_and_a_missing_folder() -> None:
    assert state(lib(), {"1.1.0": D1}, D3).status == "modified"
    assert state(lib(), {"1.1.0": D1}, None).status == "missing"


def test_a_skill_or_release_the_catalog_no_longer_has() -> None:
    assert state(lib(), None, D1).status == "not-in-catalog"
    s = state(lib(), {"1.2.0": D2}, D1)
    assert s.status == "not-in-catalog" and "1.1.0" in s.detail


def test_a_skill_without_versions_is_compared_by_digest() -> None:
    assert state(lib(version=None), {"": D1}, D1, ()).status == "up-to-date"
    assert state(lib(version=None), {"": D2}, D1, ()).status == "update-available"
    assert state(lib(version=None), {"1.0.0": D2}, D1, ()).status == "update-available"


def test_every_locked_range_counts() -> None:
    lock = Lock({"lib": lib(requested="^1"), "app": LockedSkill("s", "2.0.0", D2, "app", {"lib": "<1.2"}),
                 "tool": LockedSkill("s", None, D3, "tool", {"lib": "*"})})
    asks = locked_asks(lock, "lib")
    assert [(a.who, a.range) for a in asks] == [(REQUEST, "^1"), ("app@2.0.0", "<1.2"), ("tool", "*")]
    s = state(lock.skills["lib"], {"1.1.0": D1, "1.1.5": D2, "1.3.0": D3}, D1, asks)
    assert (s.status, s.wanted) == ("update-available", "1.1.5")
    assert s.to_json()["ranges"][1] == {"range": "<1.2", "asked_by": "app@2.0.0"}


def test_a_skill_whose_catalog_could_not_be_read_says_why_and_what_its_folder_says() -> None:
    from skillsite.agent.outdated import PROBLEMS, unchecked_state

    s = unchecked_state("lib", lib(), [Ask(REQUEST, "^1.1.0")], "https://x.test/skills.json", "timed out", D1)
    assert (s.status, s.version, s.wanted, s.latest) == ("could-not-check", "1.1.0", None, None)
    assert s.detail == "its catalog https://x.test/skills.json could not be read: timed out" and s.status in PROBLEMS
    gone = unchecked_state("lib", lib(), [], "site/skills.json", "no such file", None)
    assert gone.detail.endswith("; missing: nothing is installed at .agents/skills/lib")


def test_a_locked_version_outside_its_ranges_wants_the_release_inside_them() -> None:
    """lib locked at 1.2.0 though installed with ~1.1 (a dependent's install moved it there): an
    update brings it back to 1.1.1, so it is not up to date."""
    s = state(lib(version="1.2.0", digest=D2), {"1.1.1": D1, "1.2.0": D2}, D2, (Ask(REQUEST, "~1.1"),))
    assert (s.status, s.wanted) == ("update-available", "1.1.1")
    assert "1.2.0 is outside the locked ranges; 1.1.1 satisfies every one" in s.detail
