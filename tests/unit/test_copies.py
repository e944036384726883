"""Copies of one skill: which skills group, which one stands for its group, how a copy differs."""
from __future__ import annotations

import pytest

from skillsite.agent.results import one_per_group
from skillsite.config_sections import copies_problem
from skillsite.source import copies as copies_module
from skillsite.source.copies import (Candidate, Comparisons, CopySettings, canonical_order, find_groups, fingerprint,
                                     folded_name, folder_rank, group_copies, line_changes, line_similarity,
                                     name_claim_order, normalised_lines, pair_key, same_name)
from skillsite.source.catalog import read_catalog
from support import write_skill

BODY = "\n".join(f"Step {n}: check the {word} before the release goes out, and write down what you saw."
                 for n, word in enumerate(["tests", "changelog", "version", "tags", "notes", "builds", "docs",
                                           "licences", "signatures", "mirrors", "rollbacks", "alerts"]))


def printed(name: str = "release", description: str = "Ships a release. Use when releasing.", body: str = BODY,
            raw: str = "") -> object:
    return fingerprint(name, description, body, raw or f"{name}|{description}|{body}")


def test_the_same_bytes_or_the_same_body_are_one_group() -> None:
    same = printed(raw="x")
    groups = find_groups([printed(raw="x"), same, printed(description="Other words for it.", raw="y"), printed(
        name="other", description="Does another thing entirely. Use when unsure.", body="# Other\n\nNothing alike.")])
    assert groups == [[0, 1, 2]]


def test_a_changed_line_is_a_copy_and_a_rewrite_is_not() -> None:
    lines = BODY.splitlines()
    typo = "\n".join(lines[:3] + [lines[3].replace("version", "verison")] + lines[4:])
    rewritten = "\n".join(f"Part {n}: {line[::-1]}" for n, line in enumerate(lines[:8])) + "\n" + "\n".join(lines[8:])
    prints = [printed(), printed(body=typo), printed(body=rewritten, description="Ships a release, by hand.")]
    assert line_similarity(prints[0].lines, prints[1].lines) >= 0.9 > line_similarity(prints[0].lines, prints[2].lines)
    assert find_groups(prints) == [[0, 1]]


@pytest.mark.parametrize("changed", [1, 2, 3])
def test_a_lower_similarity_finds_the_near_copies_it_asks_for(changed: int) -> None:
    """copies.similarity below 0.85 (the docs allow 0.5 to 1) grouped nothing more: the
    fingerprints' bands (16 of 8 rows) almost never meet at a line similarity of 0.76 or less.
    Bodies with ``changed`` of 12 lines rewritten, different descriptions: grouped at a threshold
    just under their similarity, not at 0.9."""
    lines = BODY.splitlines()
    body = "\n".join(lines[changed:] + [f"Another step {n}, written anew for this version." for n in range(changed)])
    prints = [printed(), printed(body=body, description="Ships a release, with its own notes.")]
    similarity = line_similarity(prints[0].lines, prints[1].lines)
    threshold = round(similarity - 0.01, 2)
    assert 0.5 <= threshold and similarity < 0.85
    assert find_groups(prints, threshold=threshold, versions=False) == [[0, 1]]
    assert find_groups(prints, threshold=0.9, versions=False) == []


def test_a_rewrite_under_the_same_name_and_description_is_another_version() -> None:
    rewritten = "# Releasing\n\nSee references/checklist.md and follow it line by line.\n"
    version = printed(name="Release", description="ships a release -- use when releasing!", body=rewritten)
    assert line_similarity(printed().lines, version.lines) < 0.3
    assert find_groups([printed(), version]) == [[0, 1]]
    assert find_groups([printed(), version], versions=False) == []
    assert find_groups([printed(), printed(name="deploy", body=rewritten)]) == []   # another name: another skill
    vague = [printed(description="Skill: release", body=BODY), printed(description="Skill: release", body=rewritten)]
    assert find_groups(vague) == []   # four words tell no skill from another
    settings = CopySettings.of({"versions": False})
    candidates = [Candidate(f"r/{n}", p, 0, 0) for n, p in enumerate([printed(), version])]
    assert group_copies(candidates, settings) == [] and group_copies(candidates, CopySettings()) == [("r/0", "r/1")]


def test_comparisons_remembered_from_an_earlier_build_give_the_same_groups_without_comparing(monkeypatch) -> None:
    """``serve`` keeps the pairs grouping compared (#47): the next build groups alike and
    compares only the pairs it has not seen; a pair it no longer meets is not kept."""
    lines = [f"{line} (round {n})" for n in range(4) for line in BODY.splitlines()]
    typos = ["\n".join(lines[:n] + [lines[n].replace("the", "teh")] + lines[n + 1:]) for n in range(3)]
    prints = [printed(body=typo, raw=typo) for typo in typos]
    first = Comparisons(0.9)
    assert find_groups(prints, versions=False, comparisons=first) == find_groups(prints, versions=False) == [[0, 1, 2]]
    assert first.used and all(first.used.values())
    assert Comparisons.of_stored(0.9, first.to_json()).known == first.used  # as the cache stores them
    compared: list[object] = []
    real = copies_module.line_similarity
    monkeypatch.setattr(copies_module, "line_similarity", lambda a, b: compared.append(a) or real(a, b))
    again = Comparisons(0.9, first.used)
    assert find_groups(prints, versions=False, comparisons=again) == [[0, 1, 2]]
    assert compared == [] and again.used == first.used
    # what is known is taken as it is: only the pair the first build never met is compared
    assert find_groups(prints, versions=False, comparisons=Comparisons(0.9, {k: False for k in first.used})) == [[1, 2]]
    third = Comparisons(0.9, first.used)
    assert find_groups(prints[1:], versions=False, comparisons=third) == [[0, 1]]
    assert third.used and not {pair_key(prints[0], p) for p in prints} & third.used.keys()
    assert not {pair_key(p, prints[0]) for p in prints} & third.used.keys()


def test_a_remembered_comparison_is_not_taken_for_skills_renamed_by_their_folders() -> None:
    """A skill without a frontmatter name is named by its folder: renaming the folder changes its
    name (and the threshold and lines grouping compares) but not its SKILL.md, so what an earlier
    build remembered of the pair under one name must not decide it under two."""
    lines = [f"{line} (round {n})" for n in range(4) for line in BODY.splitlines()]
    typo = "\n".join(lines[:5] + [lines[5].replace("the", "teh")] + lines[6:])
    files = ("\n".join(lines), typo)   # the two SKILL.md files, never changed

    def named(first: str, second: str) -> list[object]:
        return [printed(name=first, body=files[0], raw=files[0]), printed(name=second, body=files[1], raw=files[1])]

    before = Comparisons(0.9)
    assert find_groups(named("x", "x"), versions=False, comparisons=before) == [[0, 1]]
    renamed = named("x", "y")
    assert find_groups(renamed, versions=False) == []   # 0.92 alike: under two names that is two skills
    assert find_groups(renamed, versions=False, comparisons=Comparisons(0.9, before.used)) == []
    assert pair_key(*renamed) not in before.used


def test_a_near_copy_of_any_member_joins_the_group_whatever_the_order() -> None:
    """A and B are versions of one skill (one name and description, other bodies); C is B with a
    line changed and its description reworded: C is B's near copy, not A's.  Which of A and B
    comes first (folder order) must not decide whether C joins them."""
    lines = [f"{line} (round {n})" for n in range(4) for line in BODY.splitlines()]
    other = "\n".join(f"Part {n}: {line[::-1]}" for n, line in enumerate(lines))
    near = "\n".join(lines[:5] + [lines[5].replace("the", "teh")] + lines[6:])
    a, b = printed(body=other), printed(body="\n".join(lines))
    c = printed(body=near, description="Ships a release, carefully. Use when releasing.")
    assert line_similarity(a.lines, c.lines) < 0.9 <= line_similarity(b.lines, c.lines)
    assert find_groups([a, b, c]) == find_groups([b, a, c]) == [[0, 1, 2]]


class CountedComparisons(Comparisons):
    """Comparisons that count, for each skill, the skills it was compared with."""

    def __init__(self) -> None:
        super().__init__(remember=False)
        self.compared: dict[str, set[str]] = {}

    def _compared(self, a, b) -> bool:
        self.compared.setdefault(a.name, set()).add(b.name)
        self.compared.setdefault(b.name, set()).add(a.name)
        return super()._compared(a, b)


def crowd_body(n: int) -> str:
    """Skill ``n`` of :func:`crowd`'s body: 60 lines of the template and one of its own."""
    return "\n".join(f"- Step {step}: check the {step}th setting of the service first." for step in range(60)) + \
        f"\nTool {n} only."


def crowd(size: int) -> list:
    """``size`` skills of one template, each with a line, name and description of its own: 0.9
    alike, none a copy of another (different names need 0.95)."""
    return [printed(name=f"tool-{n}", description=f"Runs tool {n} of the box.", body=crowd_body(n))
            for n in range(size)]


def test_a_crowd_of_near_alike_skills_is_not_compared_pair_by_pair() -> None:
    """1,000 skills that meet in one bucket were compared pair by pair (499,500 comparisons, each
    remembered; 4,000 took 100 s and 3.9 GB to build): each is now compared with at most
    BUCKET_PEERS skills before it in a bucket, and copies within the crowd still group."""
    prints = crowd(1000)
    assert line_similarity(prints[0].lines, prints[1].lines) >= 0.9
    # tool 500 again with a line more: a near copy under one name
    prints[501] = printed(name="tool-500", description="Runs tool 500 of the box, again.",
                          body=crowd_body(500) + "\nAnd one line more.")
    comparisons = CountedComparisons()
    assert find_groups(prints, comparisons=comparisons) == [[500, 501]]
    total = sum(len(others) for others in comparisons.compared.values()) // 2
    assert total < 1000 * 999 // 2 // 4
    assert max(len(others) for others in comparisons.compared.values()) <= 2 * copies_module.BUCKET_PEERS * 16


def test_names_fold_alike_in_every_script_and_differ_where_their_letters_do() -> None:
    assert folded_name("Network 101") == folded_name("network-101") == "network101"
    assert folded_name("Café Helper") == folded_name("cafe_helper") == "cafehelper"
    assert folded_name("数据分析") == "数据分析" != folded_name("代码审查")
    assert folded_name("Анализ данных") == "анализданных"
    # two names in Chinese were one name once (nothing was left of either): a renamed copy's bar then
    assert not same_name(printed(name="数据分析"), printed(name="代码审查"))


def test_two_skills_that_share_a_name_are_no_group() -> None:
    short = "# Body\n"
    assert find_groups([printed(body=short, description="Deploys the API service."),
                        printed(body=short, description="Reviews pull requests for security holes.")]) == []
    assert find_groups([printed(body=short), printed(body=short)]) == [[0, 1]]  # same name, description, body


def test_reformatting_is_no_change() -> None:
    table = "| a | b |\n|---|---|\n| one | two |\n"
    padded = "|  a  |  b  |\n| --- | --- |\n|  one  |  two  |\n"
    assert normalised_lines("n", "d", table) == normalised_lines("n", "d", padded)


def test_ids_kept_apart_are_never_grouped() -> None:
    prints = [printed(raw="x"), printed(raw="x"), printed(raw="x")]
    assert find_groups(prints, apart=lambda i: i == 1) == [[0, 2]]


@pytest.mark.parametrize("skill_id, rank", [
    ("repo/skills/x", 0), ("repo/x", 0), ("repo/.claude/skills/x", 1), ("repo/.agents/skills/x", 2),
    ("repo/.github/skills/x", 3), ("repo/.cursor/rules/x", 3)])
def test_where_a_copy_lives_ranks_it(skill_id: str, rank: int) -> None:
    assert folder_rank(skill_id) == rank


def test_the_canonical_member_by_source_priority_folder_then_shortest_id() -> None:
    same = printed(raw="x")
    candidates = [Candidate("mirror/.agents/skills/x", same, 0, 0), Candidate("mirror/.claude/skills/x", same, 0, 0),
                  Candidate("a/very/long/path/skills/x", same, 0, 0), Candidate("b/skills/x", same, 0, 0),
                  Candidate("second/skills/x", same, 1, 0)]
    assert group_copies(candidates, CopySettings()) == [   # the whole group in that order
        ("b/skills/x", "a/very/long/path/skills/x", "mirror/.claude/skills/x", "mirror/.agents/skills/x",
         "second/skills/x")]
    preferred = [*candidates, Candidate("z/.agents/skills/x", same, 0, 5)]
    assert group_copies(preferred, CopySettings())[0][0] == "z/.agents/skills/x"   # priority first
    claude_first = CopySettings(prefer=(".claude/skills/", "skills/"))
    assert group_copies(candidates, claude_first)[0][0] == "mirror/.claude/skills/x"
    assert group_copies(candidates, CopySettings(group=False)) == []
    assert canonical_order("a/skills/x", 0, 2) < canonical_order("a/skills/x", 0, 1)


def test_a_name_two_skills_use_goes_as_a_canonical_member_is_chosen() -> None:
    """The discovery indexes' order for SK212 (two different skills of one name) is
    :func:`canonical_order`'s: skills/ before .claude/skills/ and a plugin's longer id, whatever
    the ids' sort order; an earlier source and a higher priority first."""
    skills = [(".claude/skills/foo", 0, 0), ("plugins/x/skills/foo", 0, 0), ("skills/foo", 0, 0)]
    assert name_claim_order(skills) == [2, 1, 0]
    assert name_claim_order(skills, (".claude/skills/", "skills/")) == [0, 2, 1]
    assert name_claim_order([("skills/foo", 1, 0), (".claude/skills/foo", 0, 0)]) == [1, 0]
    assert name_claim_order([("skills/foo", 0, 0), (".claude/skills/foo", 0, 3)]) == [1, 0]


def test_a_member_offered_to_models_stands_for_its_group_before_a_hidden_one() -> None:
    """The canonical member stands for its group in every list and listing: a hidden one would
    hide its visible copies everywhere."""
    same = printed(raw="x")
    hidden_first = [Candidate("b/skills/x", same, 0, 5, offered=False), Candidate("b/.claude/skills/x", same, 1, 0)]
    assert group_copies(hidden_first, CopySettings()) == [("b/.claude/skills/x", "b/skills/x")]


def test_a_copy_says_how_many_lines_it_adds_and_removes() -> None:
    assert line_changes([b"a", b"b", b"c"], [b"a", b"c", b"d", b"e"]) == (2, 1)


def test_search_shows_a_group_once_at_its_best_members_place() -> None:
    ranked = [("copy", 0.9), ("other", 0.8), ("canonical", 0.7), ("copy2", 0.6), ("last", 0.5)]
    copy_of = {"copy": "canonical", "copy2": "canonical"}
    assert one_per_group(ranked, copy_of, lambda _: True, 5) == [("canonical", 0.9), ("other", 0.8), ("last", 0.5)]
    assert one_per_group(ranked, copy_of, lambda sid: sid != "canonical", 2) == [("copy", 0.9), ("other", 0.8)]


def test_the_copies_section_of_the_configuration() -> None:
    assert copies_problem({"group": True, "similarity": 0.95, "prefer": ["skills/"], "apart": ["a/b"]}) is None
    assert "unknown keys: threshold" in copies_problem({"threshold": 0.9})
    assert "from 0.5 to 1" in copies_problem({"similarity": 2})
    assert "ending with '/'" in copies_problem({"prefer": ["skills"]})
    assert copies_problem({"versions": False}) is None
    assert "'copies.versions' must be true or false" in copies_problem({"versions": "no"})


def test_copies_are_one_info_line_each_and_no_name_clash(tmp_path) -> None:
    for where in ("repo/skills", "repo/.claude/skills", "repo/.agents/skills"):
        write_skill(tmp_path, f"{where}/release", body=BODY, name="release", description="Ships a release.")
    write_skill(tmp_path, "other/release", body="# Other\n\nA different skill.", description="Releases a hostage.")
    reading = read_catalog([tmp_path])
    # in canonical order: the next best stands for the group when the first is refused
    assert reading.copies == (("repo/skills/release", "repo/.claude/skills/release", "repo/.agents/skills/release"),)
    codes = sorted((d.code, d.path.split("/SKILL.md")[0]) for d in reading.diagnostics if d.code in ("SK212", "SK229"))
    assert codes == [("SK212", f"{tmp_path}/repo/skills/release"), ("SK229", f"{tmp_path}/repo/.agents/skills/release"),
                     ("SK229", f"{tmp_path}/repo/.claude/skills/release")]
