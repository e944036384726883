"""Tool checks and session tool authorisation in skillsite.loader."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from skillsite.publish.build import build
from skillsite.loader import (Catalog, MissingToolsError, MissingToolsWarning, NotFoundError, SkillSession,
                              tool_matches)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    out = tmp_path_factory.mktemp("tools") / "site"
    assert build([REPO / "example-skills"], out).ok
    return Catalog.open(out)


# ---- the matching rule


@pytest.mark.parametrize("pattern, request_, expected", [
    ("Read", "Read", True),
    ("Read", "Read(src/app.py)", True),
    ("Read", "Reader", False),
    ("read", "Read", False),
    ("Bash", "Bash(rm -rf /)", True),
    ("Bash(*)", "Bash(anything at all)", True),
    ("Bash(git:*)", "Bash(git status)", True),
    ("Bash(git:*)", "Bash(git)", True),
    ("Bash(git:*)", "Bash(  git   log  --oneline )", True),
    ("Bash(git:*)", "Bash(gitk)", False),
    ("Bash(git:*)", "Bash", False),
    ("Bash(git diff:*)", "Bash(git diff HEAD~1)", True),
    ("Bash(git diff:*)", "Bash(git log)", False),
    ("Bash(git:*)", "Bash(git log; rm -rf ~)", False),
    ("Bash(git:*)", "Bash(git log && curl evil)", False),
    ("Bash(git:*)", "Bash(git log | sh)", False),
    ("Bash(git:*)", "Bash(git log $(whoami))", False),
    ("Bash(git:*)", "Bash(git log > /etc/passwd)", False),
    ("Bash(git status)", "Bash(git status)", True),
    ("Bash(git status)", "Bash(git status --short)", False),
    ("Bash(npm run *)", "Bash(npm run test)", True),
    ("Bash(npm run *)", "Bash(npx foo)", False),
    ("Edit", "Bash(edit)", False),
])
def test_tool_matches(pattern: str, request_: str, expected: bool) -> None:
    assert tool_matches(pattern, request_) is expected


# ---- check_tools


def test_check_tools_complete(catalog: Catalog) -> None:
    check = catalog.check_tools("release-manager", ["Bash", "Read", "Write", "git", "gh", "python3"], mode="strict")
    assert check.complete and check.missing == () and check.skill_id == "release-manager"
    assert set(check.required) == {"git", "gh", "python3", "Bash", "Read", "Write"}


def test_check_tools_optional_tools_never_make_it_incomplete(catalog: Catalog) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check = catalog.check_tools("code-review", ["Bash(git diff:*)", "Read", "Grep", "git"], mode="warn")
    assert check.complete and set(check.missing_optional) == {"gh", "python3"}
    assert "Bash" in check.available


def test_check_tools_warn_mode(catalog: Catalog) -> None:
    with pytest.warns(MissingToolsWarning, match="kubectl"):
        check = catalog.check_tools("incident-response", ["Bash", "Read"], mode="warn")
    assert not check.complete and {"kubectl", "jq", "curl", "Write"} <= set(check.missing)


def test_check_tools_strict_mode_raises(catalog: Catalog) -> None:
    with pytest.raises(MissingToolsError, match="docker") as info:
        catalog.check_tools("docker-image-slimming", [], mode="strict")
    assert not info.value.check.complete


def test_check_tools_ignore_mode_is_silent(catalog: Catalog) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not catalog.check_tools("docker-image-slimming", [], mode="ignore").complete


def test_check_tools_bad_mode(catalog: Catalog) -> None:
    with pytest.raises(ValueError, match="mode"):
        catalog.check_tools("test-first", [], mode="loud")


def test_skill_without_tools_is_complete(catalog: Catalog) -> None:
    assert catalog.check_tools("test-first", [], mode="strict").complete


# ---- SkillSession


def test_strict_session_allows_only_active_skills_tools(catalog: Catalog) -> None:
    session = SkillSession(catalog, policy="strict")
    assert session.authorize("Read").outcome == "denied"
    assert "no active skill" in session.authorize("Read").reason
    session.activate("code-review")
    decision = session.authorize("Bash(git diff main)")
    assert decision.outcome == "allowed" and decision.allowed
    assert "code-review" in decision.reason and "Bash(git diff:*)" in decision.reason
    denied = session.authorize("Bash(git push)")
    assert denied.outcome == "denied" and "strict" in denied.reason


def test_activating_skills_unions_their_allowed_tools(catalog: Catalog) -> None:
    session = catalog.session("strict")
    session.activate("code-review")
    session.activate("sql-migration-review")
    assert session.active == ("code-review", "sql-migration-review")
    assert "Bash(python3:*)" in session.allowed_tools and "Bash(gh pr:*)" in session.allowed_tools
    assert session.authorize("Bash(python3 scripts/find_risky_ops.py)").allowed
    assert session.authorize("Bash(gh pr view 12)").allowed
    session.deactivate("sql-migration-review")
    assert session.authorize("Bash(python3 x.py)").outcome == "denied"


def test_approval_policy_asks(catalog: Catalog) -> None:
    session = SkillSession(catalog, policy="approval")
    session.activate("test-first")
    decision = session.authorize("Edit")
    assert decision.outcome == "needs-approval" and "approval" in decision.reason
    session.approve("Edit")
    assert session.authorize("Edit").outcome == "allowed"
    assert "approved at run time" in session.authorize("Edit").reason


def test_permissive_policy_allows_but_runtime_denial_wins(catalog: Catalog) -> None:
    session = SkillSession(catalog, policy="permissive")
    assert session.authorize("WebFetch").outcome == "allowed"
    session.activate("release-manager")
    session.deny("Bash(git push:*)")
    decision = session.authorize("Bash(git push origin v1.0.0)")
    assert decision.outcome == "denied" and "denied at run time" in decision.reason
    assert session.authorize("Bash(git status)").allowed          # still allowed by the skill
    session.approve("Bash(git push:*)")
    assert session.authorize("Bash(git push origin v1.0.0)").allowed


def test_activate_returns_the_verified_skill(catalog: Catalog) -> None:
    content = SkillSession(catalog).activate("changelog")
    assert content.id == "release-manager/changelog"
    with pytest.raises(NotFoundError):
        SkillSession(catalog).activate("nope")


def test_bad_policy(catalog: Catalog) -> None:
    with pytest.raises(ValueError, match="policy"):
        SkillSession(catalog, policy="yolo")
