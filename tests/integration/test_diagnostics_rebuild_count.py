"""A rebuild in a long-running process (``serve``) after one edit sorts its catalog's diagnostics
once (reading them), merging the few added later into them, and encodes for the state file none
when they are the last build's, only the changed skill's otherwise: the work does not grow with
every diagnostic of the catalog.
What it gives stays a cold build's, byte for byte."""
from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from support import append_line, tree_bytes, write_skill
from skillsite import diagnostics as diagnostics_module
from skillsite.diagnostics import Diagnostic
from skillsite.publish.build import build
from skillsite.publish.plan import BuildResult
from skillsite.publish.resident import Resident
from skillsite.publish.state import STATE_FILE

SKILLS = 40
MISSING_LINKS = 12   # SK303 warnings each skill's check gives: found on reading
#: Words no two descriptions share (no look-alike warnings).
WORDS = ("amber basalt cedar delta ember fjord garnet harbor indigo juniper kelp lagoon marble nectar onyx prairie "
         "quartz raven sierra tundra umber valley willow xenon yarrow zephyr").split()


def _tree(src: Path) -> None:
    """Skills with many warnings each, dated a minute ago; every fourth one with a bundled file
    older installers cannot fetch (SK014: an info publishing adds to reading's diagnostics)."""
    for number in range(SKILLS):
        links = "".join(f"See [part {n}](missing-{n}.md).\n" for n in range(MISSING_LINKS))
        topic = f"{WORDS[number % 26]} {WORDS[(number * 7 + 3) % 26]} batch{number}"
        folder = write_skill(src, f"skill-{number:02d}", body=f"# Skill {number}\n\n{links}",
                             description=f"Sorts {topic} records. Use when the {topic} ledger needs it.")
        if number % 4 == 0:
            (folder / "notes#1.md").write_text("Notes.\n")
    stamp = time.time() - 60
    for path in [src, *src.rglob("*")]:
        os.utime(path, (stamp, stamp))


class Counts:
    """How many diagnostics were given a sort key and how many encoded as JSON, since :meth:`reset`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.keys = self.encoded = 0
        order, to_json = diagnostics_module._ORDER, Diagnostic.to_json

        def counted_order(diag: Diagnostic) -> tuple:
            self.keys += 1
            return order(diag)

        def counted_to_json(diag: Diagnostic) -> dict:
            self.encoded += 1
            return to_json(diag)

        monkeypatch.setattr(diagnostics_module, "_ORDER", counted_order)
        monkeypatch.setattr(Diagnostic, "to_json", counted_to_json)

    def reset(self) -> None:
        self.keys = self.encoded = 0


def _stored_text(cache: Path) -> str:
    """The diagnostics the state file holds, as their JSON text."""
    with sqlite3.connect(cache / STATE_FILE) as db:
        return db.execute("SELECT value FROM meta WHERE name = 'diagnostics'").fetchone()[0]


class Rebuilt:
    """A build kept by a resident, then one edit rebuilt: what it counted, and where it built."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tmp_path, self.src = tmp_path, tmp_path / "src"
        self.cache, self.out = tmp_path / "cache", tmp_path / "site"
        _tree(self.src)
        self.resident = Resident()
        first = self.build()
        self.total = len(first.diagnostics)
        self.added = sum(d.code == "SK014" for d in first.diagnostics)  # by publishing, after reading
        assert self.total == SKILLS * MISSING_LINKS + self.added and self.added == SKILLS // 4
        self.counts = Counts(monkeypatch)
        self.result = self.edit("skill-07", "One more line.")

    def build(self) -> BuildResult:
        result = build([self.src], self.out, cache_dir=self.cache, resident=self.resident)
        assert result.ok and "read" in result.stages
        return result

    def edit(self, skill: str, line: str) -> BuildResult:
        """A line added to a SKILL.md, told to the resident as serve's file watcher tells it, then rebuilt."""
        skill_md = self.src / skill / "SKILL.md"
        append_line(skill_md, line)
        self.resident.saw([os.path.realpath(skill_md)])
        return self.build()

    def as_cold(self, name: str) -> None:
        """The rebuild's output, diagnostics and the state's copy of them are a cold build's."""
        cold = build([self.src], self.tmp_path / name)
        assert cold.ok
        assert [d.to_json() for d in self.result.diagnostics] == [d.to_json() for d in cold.diagnostics]
        assert _stored_text(self.cache) == json.dumps([d.to_json() for d in cold.diagnostics])
        assert tree_bytes(self.out) == tree_bytes(self.tmp_path / name)


def test_one_edit_sorts_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading sorts what it found (every diagnostic once); publishing's few are merged into them
    by bisection (a few keys each), and nothing is sorted again (each sort: every diagnostic again)."""
    rebuilt = Rebuilt(tmp_path, monkeypatch)
    assert rebuilt.counts.keys <= rebuilt.total + 16 * rebuilt.added
    rebuilt.as_cold("cold")


def test_one_edit_encodes_only_what_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The edited skill's diagnostics are encoded (its check cached, its publication's key), the
    state's copy of them all is the last one; when they change, the state's copy takes the texts
    of the others from the last save and encodes only the edited skill's, its text still the one
    a cold build's diagnostics make."""
    rebuilt = Rebuilt(tmp_path, monkeypatch)
    assert rebuilt.counts.encoded <= 2 * MISSING_LINKS
    rebuilt.as_cold("cold-1")
    rebuilt.counts.reset()
    rebuilt.result = rebuilt.edit("skill-11", "And [a new missing one](gone.md).")
    assert len(rebuilt.result.diagnostics) == rebuilt.total + 1
    assert rebuilt.counts.encoded <= 3 * (MISSING_LINKS + 1) < rebuilt.total
    rebuilt.as_cold("cold-2")


def test_one_edit_sorts_only_what_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading's sorted diagnostics are the last build's, patched with the edited skill's (a few
    keys each, by bisection) instead of sorting every one of them again; then an edit that adds
    a diagnostic and one that removes the skill's warnings both read as a cold build."""
    rebuilt = Rebuilt(tmp_path, monkeypatch)
    assert rebuilt.counts.keys < rebuilt.total // 2
    rebuilt.as_cold("cold-1")
    rebuilt.counts.reset()
    rebuilt.result = rebuilt.edit("skill-11", "And [a new missing one](gone.md).")
    assert rebuilt.counts.keys < rebuilt.total // 2
    assert len(rebuilt.result.diagnostics) == rebuilt.total + 1
    rebuilt.as_cold("cold-2")
    skill_md = rebuilt.src / "skill-11" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("(missing-", "(#missing-"))
    stamp = time.time() - 60
    os.utime(skill_md, (stamp, stamp))
    rebuilt.resident.saw([os.path.realpath(skill_md)])
    rebuilt.result = rebuilt.build()
    assert len(rebuilt.result.diagnostics) == rebuilt.total + 1 - MISSING_LINKS
    rebuilt.as_cold("cold-3")
