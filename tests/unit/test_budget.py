"""The listing budget report: how many skills fit each agent's listing, and look-alike descriptions."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from skillsite.agent.budget import AGENT_BUDGETS, ListedSkill, budget_fits, claude_code_text, similar_pairs
from skillsite.cli import main
from skillsite.publish.build import build
from support import write_skill


def entry(skill_id: str, description: str, priority: int = 0, hidden: bool = False) -> dict:
    return {"id": skill_id, "name": skill_id, "description": description, "priority": priority,
            "visibility": {"hidden": hidden, "user_invocable_only": False, "always": False}}


def test_skills_are_listed_in_prompt_order_until_the_next_does_not_fit() -> None:
    entries = [entry(f"skill-{i:03}", "x" * 180, priority=i % 3) for i in range(200)]
    fits = {f.agent: f for f in budget_fits(entries, {})}
    assert set(fits) == {a.agent for a in AGENT_BUDGETS}
    claude = fits["claude-code"]
    line = len("- skill-000: " + "x" * 180 + "\n")
    assert len(claude.fit) == 8000 // line and len(claude.fit) + len(claude.cut) == claude.listed == 200
    assert claude.fit[0].startswith("skill-") and all(int(i[-3:]) % 3 == 2 for i in claude.fit)  # priority first
    assert len(fits["available_skills-30k"].fit) > len(claude.fit)


def test_only_skills_offered_to_a_model_count() -> None:
    fits = budget_fits([entry("a", "Does a."), entry("b", "Does b.", hidden=True)], {})
    assert all(f.listed == 1 and f.fit == ("a",) for f in fits)


def test_look_alike_descriptions_are_paired_with_a_score() -> None:
    entries = [entry("blob-py", "Upload, download and list Azure Storage blobs from Python with the "
                                "azure-storage-blob SDK."),
               entry("blob-ts", "Upload, download and list Azure Storage blobs from TypeScript with the "
                                "azure-storage-blob SDK."),
               entry("pdf", "Fill in PDF forms and merge PDF files."),
               entry("deploy", "Deploy a service to Kubernetes with a canary rollout."),
               entry("hidden-copy", "Fill in PDF forms and merge PDF files.", hidden=True)]
    words = ("garden soil compost pruning tomato basil orchard harvest irrigation mulch seedling greenhouse "
             "bread yeast dough oven pastry sauce broth noodle spice pickle ferment grill roast simmer").split()
    entries += [entry(f"filler-{i}", f"{words[i]} {words[(i + 7) % len(words)]} {words[(i + 13) % len(words)]}")
                for i in range(len(words))]
    pairs = similar_pairs(entries)
    assert [(a, b) for _, a, b in pairs] == [("blob-py", "blob-ts")]
    assert 0.8 <= pairs[0][0] <= 1.0


def test_budget_command_and_build_summary(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_skill(src, "one", description="Reads invoices. Use when an invoice arrives.")
    write_skill(src, "two", description="Reads invoices. Use when an invoice arrives!")
    runner = CliRunner()
    result = runner.invoke(main, ["budget", str(src), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [b["agent"] for b in report["budgets"]] == [a.agent for a in AGENT_BUDGETS]
    assert report["budgets"][0]["fit"] == 2 and report["budgets"][0]["cut"] == []
    assert report["similar"] == [{"score": 1.0, "skills": ["one", "two"]}]
    built = build([src], tmp_path / "_site")
    assert built.ok and [b["fit"] for b in built.budget] == [2, 2, 2]
    assert [(d.code, d.path.split("/")[-2]) for d in built.diagnostics if d.code == "SK219"] == [("SK219", "two")]
    text = runner.invoke(main, ["build", str(src), "-o", str(tmp_path / "_site2")])
    assert "Listing budgets (of 2 skills offered to models): claude-code (8,000 chars) 2," in text.output


def test_identical_descriptions_pair_each_with_the_first_even_in_a_small_catalog() -> None:
    """Each copy of a description is said once, paired with the first: N copies made N(N - 1)/2
    pairs, and 2,000 skills of one description took 4 GB and a minute to validate."""
    same = "Reads invoices and files them."
    pairs = similar_pairs([entry("a", same), entry("b", same), entry("c", same), entry("d", "Plans sprints.")])
    assert [(score, a, b) for score, a, b in pairs] == [(1.0, "a", "b"), (1.0, "a", "c")]
    many = similar_pairs([entry(f"s{i:04d}", same) for i in range(2000)])
    assert len(many) == 1999 and {a for _, a, _ in many} == {"s0000"}


def test_similar_pairs_are_those_an_all_pairs_comparison_finds():
    """Below the size where common terms are left out, the inverted index (which scores copies
    of a description once) finds exactly the pairs and scores that comparing every description
    with every other one finds."""
    import random

    words = ["deploy", "rollback", "release", "database", "backup", "review", "lint", "docker", "image", "test"]
    rng = random.Random(7)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 5))) for _ in range(40)]
    texts += [texts[3]] * 3 + [texts[5].upper()] * 2 + ["the and of"] * 2  # copies, and copies without terms
    entries = [{"id": f"s{i:02d}", "name": f"s{i:02d}", "description": text} for i, text in enumerate(texts)]
    expected = _pairs_from(_all_scores(entries), 0.8)  # no term is in more than common_limit(47) descriptions
    assert similar_pairs(entries) == expected and len(expected) > 10
    from skillsite.agent.budget import ListedSkill
    from skillsite.source.catalog import _similar_pairs

    listing = [ListedSkill.from_json(e) for e in entries]
    # as the build scores them, on 2 processes
    assert _similar_pairs(listing, 2) == _similar_pairs(listing, 1) == expected


def test_terms_in_more_descriptions_than_the_limit_count_in_no_score(monkeypatch):
    """Past MAX_COMMON descriptions a term is left out of the scores whatever the catalog's size
    (the work per description stays bounded): the pairs are those of an all-pairs comparison
    without it; copies still score 1."""
    import itertools

    from skillsite.agent import budget
    from skillsite.agent.budget import common_limit
    from skillsite.search.terms import tokenize

    monkeypatch.setattr(budget, "MIN_COMMON", 1)
    monkeypatch.setattr(budget, "COMMON_SHARE", 0.5)
    monkeypatch.setattr(budget, "MAX_COMMON", 3)
    assert common_limit(4) == 2 and common_limit(10) == 3 and common_limit(10**6) == 3  # not 5, not 500,000
    texts = [f"deploy {word}" for word in ("alpha", "beta", "gamma", "delta", "omega", "sigma")]
    texts += ["deploy alpha", "release rollback", "rollback release", "backup lint"]
    entries = [{"id": f"s{i:02d}", "name": f"s{i:02d}", "description": text} for i, text in enumerate(texts)]
    terms = [tokenize(text) for text in texts]
    counts = {t: sum(t in words for words in terms) for t in set(itertools.chain(*terms))}
    kept = {t for t, n in counts.items() if n <= 3}
    assert "deploy" not in kept and "releas" in kept
    expected = _pairs_from(_all_scores(entries), 0.8)  # the terms of more than 3 left out, as above
    assert similar_pairs(entries) == expected
    assert (1.0, "s00", "s06") in expected and (1.0, "s07", "s08") in expected


def _all_scores(entries: list[dict]) -> list[tuple[float, str, str]]:
    """Every pair's score by comparing every description with every other one: copies score 1,
    other pairs sum over their shared terms of at most ``common_limit`` descriptions."""
    import itertools

    from skillsite.agent.budget import DescriptionWeights, common_limit

    weights = DescriptionWeights.of([e["description"] for e in entries])
    terms, vectors = weights.terms, weights.vectors
    used = {t: sum(t in words for words in terms) for t in set(itertools.chain(*terms))}
    kept = {t for t, n in used.items() if n <= common_limit(len(entries))}
    firsts: dict[tuple[str, ...], int] = {}
    first = [firsts.setdefault(tuple(words), index) for index, words in enumerate(terms)]
    found = []
    for a, b in itertools.combinations(range(len(entries)), 2):
        if a != first[a] or (b != first[b] and first[b] != a):
            continue   # as similar_pairs pairs them: a copy with its group's first, two groups by their firsts
        if terms[a] and terms[a] == terms[b]:
            score = 1.0
        else:
            score = sum(w * vectors[b].get(t, 0.0) for t, w in vectors[a].items() if t in kept)
        found.append((score, entries[a]["id"], entries[b]["id"]))
    return found


def _pairs_from(scores: list[tuple[float, str, str]], threshold: float) -> list[tuple[float, str, str]]:
    """The pairs of :func:`_all_scores` at ``threshold``, as :func:`similar_pairs` gives them."""
    found = [(round(score, 3), a, b) for score, a, b in scores if score >= threshold]
    return sorted(found, key=lambda pair: (-pair[0], pair[1], pair[2]))


def _zipf_descriptions(count: int, seed: int) -> list[dict]:
    """Descriptions drawn from a vocabulary used as real text uses words (a few very often, most
    rarely), with some near-copies: one word changed or added."""
    import random

    rng = random.Random(seed)
    vocabulary = [f"w{rank}" for rank in range(400)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    texts: list[str] = []
    for _ in range(count):
        if texts and rng.random() < 0.3:
            words = rng.choice(texts).split()
            words[rng.randrange(len(words))] = rng.choice(vocabulary)
            texts.append(" ".join(words + rng.choices(vocabulary, weights, k=rng.randint(0, 1))))
        else:
            texts.append(" ".join(rng.choices(vocabulary, weights, k=rng.randint(3, 25))))
    return [{"id": f"s{i:03d}", "name": f"s{i:03d}", "description": text} for i, text in enumerate(texts)]


def test_the_index_of_rarer_terms_finds_every_pair_an_all_pairs_comparison_finds(real_skills) -> None:
    """A description is compared only with those sharing one of its rarer terms (the prefix
    filter of all-pairs similarity search), yet at every threshold the pairs and scores are
    exactly those of comparing everything with everything, on real descriptions and on
    descriptions whose words follow Zipf's law; and the index does leave terms out."""
    from skillsite.agent.budget import Similarity
    from skillsite.source.catalog import _similar_pairs
    from skillsite.source.discover import discover
    from skillsite.source.parse import parse_skill

    real = []
    for src in discover([real_skills.path]).sources:
        front = parse_skill(src).frontmatter or {}
        if isinstance(front.get("description"), str):
            real.append({"id": src.id, "name": src.id, "description": front["description"]})
    zipf = _zipf_descriptions(300, seed=3)
    for entries in (real[:400], zipf):  # the first 400 of the shared corpus: an all-pairs loop is slow
        scores = _all_scores(entries)
        for threshold in (0.2, 0.5, 0.8, 1.0):
            assert similar_pairs(entries, threshold) == _pairs_from(scores, threshold)
        assert len(_pairs_from(scores, 0.2)) > 10
    similarity = Similarity.of(zipf, 0.8)
    indexed = sum(len(groups) for groups in similarity.index.values())
    assert indexed < sum(map(len, similarity.vectors)) / 2 and max(similarity.unindexed) > 0.5
    from skillsite.agent.budget import ListedSkill

    listing = [ListedSkill.from_json(e) for e in zipf]
    assert _similar_pairs(listing, 2) == _pairs_from(_all_scores(zipf), 0.8)  # as the build scores them, on 2 processes


def _edits(entries: list[dict], rng) -> list[tuple[str, list[dict]]]:
    """Edits a writer makes to one description, each applied to a copy of ``entries``: a rare
    word added, a common one added, words dropped, made a copy of another, and (when there are
    copies) a copy made to differ."""
    def edited(index: int, description: str) -> list[dict]:
        changed = [dict(entry) for entry in entries]
        changed[index]["description"] = description
        return changed

    common = max({w for e in entries for w in e["description"].split()},
                 key=lambda w: sum(w in e["description"].split() for e in entries))
    pick = rng.randrange(len(entries))
    words = entries[pick]["description"].split()
    copies = [i for i, e in enumerate(entries) if any(o is not e and o["description"] == e["description"]
                                                      for o in entries)]
    found = [("a rare word added", edited(pick, entries[pick]["description"] + " zyzzyva")),
             ("a common word added", edited(pick, entries[pick]["description"] + f" {common}")),
             ("words dropped", edited(pick, " ".join(words[: max(1, len(words) // 2)]))),
             ("made a copy", edited(pick, entries[(pick + 1) % len(entries)]["description"]))]
    if copies:
        found.append(("a copy made to differ", edited(copies[0], entries[copies[0]]["description"] + " quokka")))
    return found


def test_the_pairs_of_changed_descriptions_found_again_equal_a_scoring_of_all(real_skills) -> None:
    """After one description is edited, keeping the pairs of the groups whose weights did not
    change and scoring again only the others (what serve does) gives exactly the pairs of
    scoring every description, for every kind of edit, on real descriptions and on Zipf ones;
    an edit that adds a word no other description has scores again only the few descriptions
    sharing a term it changed, and a change of the skills offered scores everything."""
    import random

    from skillsite.agent.budget import ChangedPairs, ListedSkill, Similarity
    from skillsite.source.catalog import _similar_pairs
    from skillsite.source.discover import discover
    from skillsite.source.parse import parse_skill

    real = []
    for src in discover([real_skills.path]).sources:
        front = parse_skill(src).frontmatter or {}
        if isinstance(front.get("description"), str):
            real.append({"id": src.id, "name": src.id, "description": front["description"]})
    rng = random.Random(5)
    for entries in (real[:600], _zipf_descriptions(300, seed=4)):
        before = Similarity.of(entries, 0.3)
        pairs = similar_pairs(entries, 0.3)
        assert len(pairs) >= 5
        for what, edited in _edits(entries, rng):
            after = Similarity.of(edited, 0.3)
            patched = Similarity.of(edited, 0.3, last=before)  # the weights of the unedited taken from before
            assert patched.weights.frequency == after.weights.frequency, what
            assert (patched.vectors, patched.index, patched.unindexed) == (after.vectors, after.index, after.unindexed)
            reused = sum(a is b for a, b in zip(patched.weights.vectors, before.weights.vectors))
            changed = ChangedPairs.between(before, pairs, after)
            assert changed is not None, what
            found = sorted([*changed.kept, *(p for a in changed.changed for p in changed.pairs_of(a))],
                           key=lambda pair: (-pair[0], pair[1], pair[2]))
            assert found == similar_pairs(edited, 0.3), what
            if what == "a rare word added":  # only the edited description's weights moved
                assert 1 <= len(changed.changed) < len(after.groups) / 4 and reused == len(entries) - 1, what
    hidden = [dict(entry) for entry in real[:600]]
    hidden[0]["visibility"] = {"hidden": True}
    assert ChangedPairs.between(Similarity.of(real[:600], 0.5), [], Similarity.of(hidden, 0.5)) is None

    class Kept:  # what serve keeps between builds (Resident's take and keep)
        def __init__(self) -> None:
            self.held: dict = {}

        def take(self, section: str, key: str):
            return self.held.get((section, key))

        def keep(self, section: str, key: str, made) -> None:
            self.held[(section, key)] = made

    kept = Kept()
    zipf = _zipf_descriptions(300, seed=6)
    _similar_pairs([ListedSkill.from_json(e) for e in zipf], 1, "first", kept)
    for what, edited in _edits(zipf, rng):
        listing = [ListedSkill.from_json(e) for e in edited]
        assert _similar_pairs(listing, 2, what, kept) == similar_pairs(edited, 0.8), what
        assert kept.held[("similar-scoring", "last")].key == what


def test_copies_of_one_skill_count_once_from_a_tree_and_from_its_catalog(tmp_path: Path) -> None:
    """The same skill in skills/ and .claude/skills/ is one group: models are offered its canonical
    member only, so the budget report counts it once (as the build's summary does) and pairs no
    copy with its canonical member as look-alikes."""
    src = tmp_path / "src"
    for place in ("skills", ".claude/skills"):
        write_skill(src / place, "invoices", description="Reads invoices. Use when an invoice arrives.",
                    body="# Invoices\n\nOpen the invoice, check the totals and file it under its supplier.\n")
    write_skill(src, "sprints", description="Plans sprints. Use when a sprint starts.")
    built = build([src], tmp_path / "_site")
    assert built.ok and [b["fit"] for b in built.budget] == [2, 2, 2]
    runner = CliRunner()
    for where in ([str(src)], ["--catalog", str(tmp_path / "_site")]):
        result = runner.invoke(main, ["budget", *where, "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert [(b["listed"], b["fit"]) for b in report["budgets"]] == [(2, 2)] * 3, where
        assert report["similar"] == [], where


def test_a_block_too_small_for_its_notice_gives_the_short_one() -> None:
    """A prompt_budget that holds no skill and not the full <notice> gave an empty block, and a
    model read it as a catalog without skills; the short notice still says there are some."""
    from skillsite.agent.prompt_xml import SMALLEST_BUDGET, available_skills_xml

    entries = budget_entries(3)
    locations = [f"https://x.example/{e.id}" for e in entries]
    full = available_skills_xml(entries, locations, 200)
    assert "3 more skills not listed (prompt budget 200 characters)" in full and len(full) <= 200
    short = available_skills_xml(entries, locations, 100)
    assert short == ("<available_skills>\n<notice>3 skills not listed; search the catalog.</notice>\n"
                     "</available_skills>\n")
    assert available_skills_xml(entries, locations, SMALLEST_BUDGET) == "<available_skills>\n</available_skills>\n"


def test_the_build_line_gives_the_catalogs_own_block_when_its_budget_is_not_the_default(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for name in ("one", "two"):
        write_skill(src, name, description=f"Reads {name} invoices. Use when an invoice arrives.")
    (tmp_path / "skillsite.yml").write_text("sources: [src]\nprompt_budget: 100\n", encoding="utf-8")
    text = CliRunner().invoke(main, ["build", "--config", str(tmp_path / "skillsite.yml"), "-o",
                                     str(tmp_path / "_site")])
    assert text.exit_code == 0, text.output
    assert text.output.rstrip().endswith("available_skills-30k (30,000 chars) 2, available_skills.xml (100 chars) 0")
    block = (tmp_path / "_site" / "available_skills.xml").read_text(encoding="utf-8")
    assert "<notice>2 skills not listed; search the catalog.</notice>" in block
    assert [b["agent"] for b in build([src], tmp_path / "_site2").budget] == [a.agent for a in AGENT_BUDGETS]


def budget_entries(count: int) -> list:
    from skillsite.agent.budget import listed

    return listed([entry(f"skill-{i}", "Does a thing. " * 10) for i in range(count)])


def test_claude_code_counts_when_to_use_appended_to_the_description() -> None:
    """Claude Code appends a skill's when_to_use to its description in its listing (the two cut at
    1,536 characters); Codex lists the description alone. 40 skills of 180-character lines fit
    both budgets; with 100 characters of when_to_use each, Claude Code's fits fewer."""
    plain = [entry(f"skill-{i:03}", "x" * 180) for i in range(40)]
    told = [{**e, "extra": {"when_to_use": "y" * 100, "model": "sonnet"}} for e in plain]
    before = {f.agent: len(f.fit) for f in budget_fits(plain, {})}
    after = {f.agent: len(f.fit) for f in budget_fits(told, {})}
    assert before["claude-code"] == before["codex"] == after["codex"] == 40
    assert after["claude-code"] == 8000 // len("- skill-000: " + "x" * 180 + " - " + "y" * 100 + "\n") == 26
    long = [{**e, "extra": {"when_to_use": "y" * 5000}} for e in plain[:6]]
    assert {f.agent: len(f.fit) for f in budget_fits(long, {})}["claude-code"] == 8000 // len(
        "- skill-000: " + "x" * 1535 + "\n") == 5   # cut at 1,536 characters (1,535 and '…')
    assert claude_code_text(ListedSkill.from_json(told[0])) == "x" * 180 + " - " + "y" * 100
    assert claude_code_text(ListedSkill.from_json({**plain[0], "extra": {"when_to_use": ["not", "text"]}})) == "x" * 180


def test_a_build_and_the_budget_command_count_when_to_use(tmp_path: Path) -> None:
    """From a source tree, a built catalog's manifest and the build's own summary alike."""
    src = tmp_path / "src"
    for i in range(20):
        write_skill(src, f"skill-{i:02}", f"name: skill-{i:02}\ndescription: Does thing {i}. {'x' * 200}\n"
                                          f"when_to_use: {'When asked about thing. ' * 10}\n")
    runner = CliRunner()
    fits = {b["agent"]: b["fit"] for b in json.loads(runner.invoke(main, ["budget", str(src), "--json"]).output)
            ["budgets"]}
    assert fits["codex"] == 20 and fits["claude-code"] == 17
    built = build([src], tmp_path / "_site")
    assert built.ok and {b["agent"]: b["fit"] for b in built.budget} == {**fits, "available_skills-30k": 20}
    report = runner.invoke(main, ["budget", "--catalog", str(tmp_path / "_site"), "--json"])
    assert {b["agent"]: b["fit"] for b in json.loads(report.output)["budgets"]} == fits
