"""SK303 says why a link's target in the skill folder is not published: it names what is there
(nothing, a folder with no published file, a pipe, a file left out, a symlink leaving the folder)."""
from __future__ import annotations

import os
from pathlib import Path

from skillsite.source.catalog import read_catalog


def _reasons(src: Path) -> dict[str, str]:
    diags = [d for d in read_catalog([src]).diagnostics if d.code == "SK303"]
    return {d.message.split("'")[1]: d.message.split(" points to ", 1)[1] for d in diags}


def test_each_kind_of_unpublished_target_is_named(tmp_path):
    skill = tmp_path / "src" / "s1"
    (skill / "references").mkdir(parents=True)
    (skill / "node_modules").mkdir()
    (skill / "node_modules" / "lib.js").write_text("x\n")
    os.mkfifo(skill / "pipe")
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    (skill / "leak.md").symlink_to(outside)
    links = ["pipe", "references/", "node_modules/lib.js", "leak.md", "gone.md"]
    (skill / "SKILL.md").write_text("---\nname: s1\ndescription: Links to odd places. Use when testing.\n---\n"
                                    + " ".join(f"[{n}]({target})" for n, target in enumerate(links)) + "\n")
    assert _reasons(tmp_path / "src") == {
        "pipe": "a file that is not published with the skill (a pipe, socket or device)",
        "references/": "a folder with no file published with the skill",
        "node_modules/lib.js": "a file that is not published with the skill (ignored, excluded, in a skipped folder "
                               "or in a nested skill)",
        "leak.md": "a file that is not published with the skill (a symlink leaving the skill folder)",
        "gone.md": "a file that does not exist in the skill folder",
    }


def test_a_link_through_a_skill_folder_placeholder_is_checked_inside_the_skill(tmp_path):
    """Public skills write ``[guide]({baseDir}/references/guide.md)`` for the agent to fill in:
    SK303 said the file did not exist (45 of trailofbits/skills' 48 link warnings)."""
    skill = tmp_path / "src" / "s1"
    (skill / "references").mkdir(parents=True)
    (skill / "references" / "guide.md").write_text("# Guide\n")
    links = ["{baseDir}/references/guide.md", "${CLAUDE_SKILL_DIR}/references/guide.md#part",
             "{baseDir}/references/gone.md", "{baseDirs}/references/guide.md"]
    (skill / "SKILL.md").write_text("---\nname: s1\ndescription: Links to its folder. Use when testing.\n---\n"
                                    + " ".join(f"[{n}]({target})" for n, target in enumerate(links)) + "\n")
    assert _reasons(tmp_path / "src") == {"{baseDir}/references/gone.md": "a file that does not exist in the skill "
                                                                          "folder",
                                          "{baseDirs}/references/guide.md": "a file that does not exist in the skill "
                                                                            "folder"}
