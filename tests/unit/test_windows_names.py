"""The one rule the loader, the installers and the build share for the names of installed
folders and files (skillsite.agent.manifest_check): no part a Windows file system reads as
another file (a ':', a device name, a last dot or space), no dependency in a hidden folder."""
from __future__ import annotations

import ntpath

import pytest

from skillsite.agent.errors import UnsafePathError
from skillsite.agent.manifest_check import (path_problem, safe_relpath, skill_folder_problem,
                                            windows_name_problem)

#: Ids real skills have (and folders a hidden one may hold): valid as installed folders everywhere.
REAL_IDS = ["my-skill", "team/tools@2", "c++-style", "outils/clés", "a b/c d", ".claude/skills/pdf", "con-fig",
            "COM10", "LPT0x", "auxiliary", "prn_1.2.3", "v1.2", "日本語/説明", "CLOCK", "100%-sure"]
#: Names real bundled files have, hidden ones too: valid everywhere.
REAL_FILES = ["notes 100%.md", "résumé café.md", "a b/c d.md", ".env.example", ".github/workflows/ci.yml",
              "console.md", "nullable.md", "COM10.md", "auxiliary/readme.md", "prn_1.2.3.txt", "日本語/説明.md",
              "x+y@2.md", "a.b.c"]


@pytest.mark.parametrize("name", REAL_IDS + REAL_FILES)
def test_real_world_names_are_valid_paths(name: str) -> None:
    assert path_problem(name) is None
    assert safe_relpath(name, "bundled file") == name


@pytest.mark.parametrize("skill_id", REAL_IDS)
def test_real_world_ids_are_valid_skill_folders(skill_id: str) -> None:
    assert skill_folder_problem(skill_id) is None


@pytest.mark.parametrize("name", ["CON", "con", "Con.md", "nul.txt", "NUL.tar.gz", "aux", "PRN.json", "COM1",
                                  "com9.md", "LPT1", "lpt9.log", "COM\u00b9", "lpt\u00b3.txt", "CONIN$",
                                  "conout$.txt", "CON .txt", "nul "])
def test_windows_device_names_in_any_case_and_with_any_extension_are_refused(name: str) -> None:
    assert windows_name_problem(name) is not None
    assert path_problem(f"scripts/{name}") is not None
    with pytest.raises(UnsafePathError, match="cannot be written on every system"):
        safe_relpath(f"scripts/{name}", "bundled file")


@pytest.mark.parametrize("path, part", [("x/D:evil", "D:evil"), ("a/D:/evil.md", "D:"), ("x/D:evil.md", "D:evil.md"),
                                        ("notes.md:stream", "notes.md:stream"), ("1:1 mapping.md", "1:1 mapping.md"),
                                        ("a./b", "a."), ("dir /x.md", "dir "), ("x/readme.md.", "readme.md.")])
def test_a_colon_anywhere_or_a_last_dot_or_space_is_refused_naming_the_part(path: str, part: str) -> None:
    assert (path_problem(path) or "").startswith(f"'{part}' ")
    with pytest.raises(UnsafePathError, match="cannot be written on every system"):
        safe_relpath(path, "bundled file")


@pytest.mark.parametrize("path", ["x/D:evil.md", "a/D:/evil.md", "x/D:evil"])
def test_no_path_safe_relpath_accepts_restarts_a_windows_path_at_another_drive(path: str) -> None:
    """Each path safe_relpath accepts, joined below a Windows folder, stays below it (commonpath
    raised ValueError on ``D:evil.md``, which got through)."""
    base = r"C:\proj\.agents\skills\.app.tmp-0123"
    for accepted in ["a/b.md", "résumé café.md", "team/tools@2/x+y.md"]:
        joined = ntpath.join(base, *safe_relpath(accepted, "bundled file").split("/"))
        assert ntpath.commonpath([joined, base]) == base
    with pytest.raises(UnsafePathError):
        safe_relpath(path, "bundled file")


@pytest.mark.parametrize("skill_id", [".ssh", "x/.github", ".config", "team/.vscode", "x/.alpha.tmp-000000000000"])
def test_a_hidden_folder_is_no_dependency_s_folder(skill_id: str) -> None:
    name = skill_id.rsplit("/", 1)[-1]
    assert skill_folder_problem(skill_id) == f"its folder '{name}' would be hidden (as .ssh or .github are, " \
                                             "which other programs read)"


def test_a_skill_folder_is_refused_for_a_windows_name_anywhere_in_its_id() -> None:
    assert skill_folder_problem("CON/tools") == "'CON' is a Windows device name"
    assert skill_folder_problem(".hidden-parent/tools") is None
