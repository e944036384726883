"""A rebuild in a long-running process (``serve``) takes the catalog-wide checks' results of the
last build again when no skill changed what they read (an edit of a body changes none of them):
names used twice, slash commands and conflicts, Codex files, places and ids, trigger budgets,
look-alike descriptions.  An edit that changes what one of them reads (a priority, a Codex
policy, a description) is checked again, and the rebuild still equals a cold build, byte for byte."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

import pytest

from support import append_line, tree_bytes, write_skill
from skillsite.publish.build import build
from skillsite.publish.plan import BuildResult
from skillsite.publish.resident import Resident
from skillsite.source import catalog as catalog_module

#: The checks a body edit must not run again, as the catalog module names them.
KEPT_CHECKS = ("relation_diagnostics", "_name_diagnostics", "read_codex_file", "implicit_invocation_allowed",
               "_taken_place_diagnostics", "_unheld_id_diagnostics", "_folded_id_diagnostics",
               "_trigger_budget_diagnostics", "_look_alike_found")
QUIET = "policy:\n  allow_implicit_invocation: false\n"


def _dated(path: Path) -> None:
    stamp = time.time() - 60
    os.utime(path, (stamp, stamp))


def _tree(src: Path) -> None:
    """Two skills of one name (SK212), two of one slash command (SK217), two alike descriptions
    (SK219), one skill with a Codex file, and others."""
    for group in ("alpha", "beta"):
        write_skill(src, f"{group}/tool", description=f"Runs the {group} tool. Use when the {group} team asks.")
    for folder in ("my-tool", "my--tool"):
        write_skill(src, folder, description=f"Runs {folder} for its owner. Use when {folder} is named.")
    write_skill(src, "merge-ledgers", description="Merges two ledgers into one. Use when ledgers must be merged.")
    write_skill(src, "merge-ledger", description="Merges two ledgers into one. Use when ledgers must be merged now.")
    quiet = write_skill(src, "quiet", description="Answers quietly. Use when silence is wanted.")
    (quiet / "agents").mkdir()
    (quiet / "agents" / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: true\n")
    for number in range(6):
        write_skill(src, f"plain-{number}", description=f"Plain skill {number} of kelp{number}. Use when asked.")
    for path in [src, *src.rglob("*")]:
        _dated(path)


class Serving:
    """A catalog built with a resident, as ``serve`` builds it, then edited and rebuilt."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path, self.src, self.out = tmp_path, tmp_path / "src", tmp_path / "site"
        _tree(self.src)
        self.resident = Resident()
        self.rebuilt = self.rebuild([])

    def rebuild(self, changed: list[Path]) -> BuildResult:
        self.resident.saw([os.path.realpath(path) for path in changed])
        result = build([self.src], self.out, cache_dir=self.tmp_path / "cache", resident=self.resident,
                       keep_going=True)
        assert "read" in result.stages
        return result

    def edit(self, rel: str, change: Callable[[str], str]) -> BuildResult:
        path = self.src / rel
        path.write_text(change(path.read_text()))
        _dated(path)
        self.rebuilt = self.rebuild([path])
        return self.rebuilt

    def as_cold(self, name: str) -> None:
        cold = build([self.src], self.tmp_path / name, keep_going=True)
        assert [d.to_json() for d in self.rebuilt.diagnostics] == [d.to_json() for d in cold.diagnostics]
        assert tree_bytes(self.out) == tree_bytes(self.tmp_path / name)


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = dict.fromkeys(KEPT_CHECKS, 0)
    for name in KEPT_CHECKS:
        real = getattr(catalog_module, name)

        def counted(*args, real=real, name=name, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(catalog_module, name, counted)
    return calls


def test_a_body_edit_runs_no_catalog_wide_check_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    serving = Serving(tmp_path)
    codes = {d.code for d in serving.rebuilt.diagnostics}
    assert {"SK212", "SK217", "SK219"} <= codes
    calls = _counting(monkeypatch)
    append_line(serving.src / "plain-3" / "SKILL.md", "One more line.")
    serving.rebuilt = serving.rebuild([serving.src / "plain-3" / "SKILL.md"])
    assert calls == dict.fromkeys(KEPT_CHECKS, 0)
    serving.as_cold("cold")


def test_edits_of_what_the_checks_read_show_as_in_a_cold_build(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    serving = Serving(tmp_path)
    calls = _counting(monkeypatch)
    assert any(d.code == "SK217" and "/src/my-tool/" in d.path for d in serving.rebuilt.diagnostics)
    said = serving.edit("my-tool/SKILL.md", lambda text: text.replace("\n---", "\npriority: 5\n---", 1))
    # a priority decides which of two skills of one name holds it (SK212 names that one)
    assert calls["relation_diagnostics"] == 1 and calls["_name_diagnostics"] == 1
    assert any(d.code == "SK217" and "/src/my--tool/" in d.path for d in said.diagnostics)
    serving.as_cold("cold-priority")
    serving.edit("quiet/agents/openai.yaml", lambda text: QUIET)
    assert calls["implicit_invocation_allowed"] >= 1
    serving.as_cold("cold-codex")
    said = serving.edit("merge-ledger/SKILL.md", lambda text: text.replace("Merges two ledgers", "Splits a ledger"))
    assert not any(d.code == "SK219" for d in said.diagnostics)
    serving.as_cold("cold-description")
    said = serving.edit("plain-2/SKILL.md", lambda text: text.replace("skill 2 of kelp2", "skill 1 of kelp1"))
    assert any(d.code == "SK219" and "/src/plain-2/" in d.path for d in said.diagnostics)
    serving.as_cold("cold-alike")
