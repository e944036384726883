"""Triggers: checked at build (SK214 with its line), normalised into skills.json, matched by the loader."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.agent.regex_safety import search_work
from skillsite.agent.triggers import (MAX_SKILL_WORK, fired_triggers, normalise_triggers, pattern_problem,
                                     trigger_problems)
from skillsite.loader import Catalog
from skillsite.publish.build import build
from skillsite.search.terms import search_fields
from skillsite.source.catalog import check_catalog, read_catalog
from support import write_skill

HOSTILE_PATTERNS = [
    "(a+)+$", "(a*)*b", r"(\w+\s?)*$", "(?:x+y?)+z", "(a{2,})+", "(.*a){12}",   # nested quantifiers
    r"(a)\1", "(?P<w>a)(?P=w)", "(?(1)a|b)",                                  # backreferences
    "[", "(?<name", "x" * 201,                                                 # invalid, too long
    "(a|a)*b", "(?:a|aa)+$",                                                   # alternation in a repeat
    "(a?)+", "(a?){20}b",                                                      # repeated part that can be empty
    "a*a*a*a*b", r"\s*\s*\s*x", ".*foo.*bar", r"\w+a\w+",                     # polynomial: adjacent repeats
    "(?x)(a+) +$", "(?x)(a+)#c\n+$", "(a+)(?#c)+$",                            # structure hidden by x or comments
]
SAFE_PATTERNS = [r"\bv\d+\.\d+\b", "deploy(ment)? to (prod|staging)", "(?i:roll ?back)", "[(+]+x",
                 r"\d{3,}_\w+\.sql", "(?<=#)\\d+", "a{,3}b", r"\w+\s+\w+", r"\w+(\.)\w+"]


@pytest.mark.parametrize("pattern", HOSTILE_PATTERNS)
def test_hostile_patterns_are_refused(pattern: str) -> None:
    assert pattern_problem(pattern) is not None
    assert normalise_triggers({"patterns": [pattern]})["patterns"] == []


@pytest.mark.parametrize("pattern", SAFE_PATTERNS)
def test_ordinary_patterns_are_kept(pattern: str) -> None:
    assert pattern_problem(pattern) is None
    assert normalise_triggers({"patterns": [pattern]})["patterns"] == [pattern]


def test_both_forms_normalise_to_the_four_kinds() -> None:
    assert normalise_triggers(["roll back", " ", "roll back", "hotfix"]) == {
        "phrases": ["roll back", "hotfix"], "keywords": [], "verbs": [], "patterns": []}
    assert normalise_triggers({"keywords": ["canary"], "verbs": ["deploy"], "patterns": [r"v\d+"]}) == {
        "phrases": [], "keywords": ["canary"], "verbs": ["deploy"], "patterns": [r"v\d+"]}
    assert normalise_triggers("not a list") == {"phrases": [], "keywords": [], "verbs": [], "patterns": []}


def test_a_skill_holds_the_kinds_it_declares_and_its_entry_all_four(tmp_path: Path) -> None:
    """A catalog holds one ``triggers`` dict a skill, empty for most (no list per kind); the
    manifest entry still has all four kinds."""
    write_skill(tmp_path, "plain")
    write_skill(tmp_path, "rollback", "name: rollback\ndescription: Rolls back. Use when testing.\n"
                                      "triggers: [roll back]\n")
    skills = {s.id: s for s in read_catalog([tmp_path]).skills}
    assert skills["plain"].triggers == {} and skills["rollback"].triggers == {"phrases": ["roll back"]}
    assert build([tmp_path], tmp_path / "_site").ok
    entry = Catalog.open(tmp_path / "_site").entry("rollback")
    assert entry["triggers"] == {"phrases": ["roll back"], "keywords": [], "verbs": [], "patterns": []}


def test_words_fire_whole_stemmed_and_case_blind_patterns_only_on_the_message_head() -> None:
    triggers = {"phrases": ["roll back the release"], "keywords": ["Canary"], "verbs": ["deploy"],
                "patterns": [r"\bv\d+\.\d+\b"]}
    assert fired_triggers(triggers, "Please ROLL BACK a release, we are deploying v2.1 to the canary") == [
        "roll back the release", "Canary", "deploy", r"\bv\d+\.\d+\b"]
    assert fired_triggers(triggers, "canaryfish redeployment") == []          # whole words only
    assert fired_triggers(triggers, "x" * 4000 + " v1.2") == []                # beyond the first 4,000 characters
    assert fired_triggers(triggers, "x" * 4000 + " canary") == ["Canary"]      # words are read in full


def test_chinese_and_japanese_triggers_fire_on_their_words_inside_a_sentence() -> None:
    """Written without spaces, a trigger's words are its pairs of letters (terms.cjk_pairs), and a
    CJK letter alone is a word: "Python库" needs the library, not Python alone."""
    triggers = {"phrases": ["数据分析"], "keywords": ["Python库", "人々"], "verbs": [], "patterns": []}
    assert fired_triggers(triggers, "帮我做数据分析") == ["数据分析"]
    assert fired_triggers(triggers, "write a Python script") == []
    assert fired_triggers(triggers, "推荐一个Python库") == ["Python库"]
    assert fired_triggers(triggers, "多くの人々が使う") == ["人々"]


def test_a_cjk_letter_at_a_triggers_edge_fires_where_the_messages_run_goes_on() -> None:
    """The message's run is cut into pairs: "Python库来处理" reads ``python``, ``库来``.  The
    trigger's lone letter at its end is the first letter of the pair after the Latin word, at its
    start the last letter of the pair before; a trigger of one letter fires on a pair holding it."""
    triggers = {"phrases": [], "keywords": ["Python库", "用Git", "表"], "verbs": [], "patterns": []}
    assert fired_triggers(triggers, "我需要一个Python库来处理数据") == ["Python库"]
    assert fired_triggers(triggers, "我想用Git提交代码") == ["用Git"]
    assert fired_triggers(triggers, "生成一张图表") == ["表"]
    assert fired_triggers(triggers, "我需要一个Python脚本来处理库") == []     # 库 not after Python
    assert fired_triggers(triggers, "用户Git提交") == []                      # 用 begins its run: not before Git
    assert fired_triggers(triggers, "Python3 script, git diff") == []


def test_a_crafted_message_against_a_refused_pattern_in_a_tampered_manifest_is_not_matched() -> None:
    triggers = {"phrases": [], "keywords": [], "verbs": [], "patterns": ["(a+)+$"]}
    assert fired_triggers(triggers, "a" * 3000 + "!") == []   # refused, so never run


#: accepted patterns that each may cost a sixth of a skill's budget, all matching "please deploy"
COSTLY = [rf"(\w+\s+){{0,{n}}}deploy" for n in range(30, 10, -1)]


def test_a_skills_patterns_together_cost_no_more_than_twice_what_one_may() -> None:
    """Each of 20 costly patterns is accepted alone; together only those within the skill's
    budget are kept, the others are problems, and a tampered manifest listing them all runs only
    the affordable ones."""
    assert all(pattern_problem(p) is None for p in COSTLY)
    assert all(MAX_SKILL_WORK / 8 < (search_work(p) or 0) < MAX_SKILL_WORK / 4 for p in COSTLY)
    kept = normalise_triggers({"patterns": COSTLY})["patterns"]
    assert kept == COSTLY[:len(kept)] and 4 <= len(kept) <= 7
    assert sum(search_work(p) or 0 for p in kept) <= MAX_SKILL_WORK
    problems = trigger_problems({"patterns": COSTLY + [COSTLY[0]]})
    assert [field for field, _ in problems] == [f"triggers.patterns[{i}]" for i in range(len(kept), len(COSTLY))]
    assert all("past the work they may cost together" in message for _, message in problems)
    tampered = {"phrases": [], "keywords": [], "verbs": [], "patterns": COSTLY}
    assert fired_triggers(tampered, "please deploy") == kept
    # the ordinary patterns fit together, a repeated one counted once
    assert normalise_triggers({"patterns": SAFE_PATTERNS[:1] * 3 + SAFE_PATTERNS})["patterns"] == SAFE_PATTERNS


def test_build_reports_each_bad_trigger_at_its_line(tmp_path: Path) -> None:
    write_skill(tmp_path, "bad", """\
        name: bad
        description: Has bad triggers. Use when testing.
        triggers:
          keywords: [deploy, "  ", the]
          patterns:
            - 'v\\d+'
            - '(a+)+$'
            - '(x)\\1'
        """)
    write_skill(tmp_path, "wrong-type", """\
        name: wrong-type
        description: Has triggers of the wrong type. Use when testing.
        triggers: {keywords: deploy}
        """)
    diags = check_catalog([tmp_path]).diagnostics
    found = sorted((d.path.split("/")[-2], d.code, d.severity.value, d.line) for d in diags
                   if d.code in ("SK214", "SK208", "SK234"))
    # line 5: the empty keyword (an error) and "the" (no searchable word: a warning, dropped);
    # lines 8 and 9: the two refused patterns; a keyword that is no list: the value is ignored whole
    assert found == [("bad", "SK214", "error", 5), ("bad", "SK214", "error", 8), ("bad", "SK214", "error", 9),
                     ("bad", "SK214", "warning", 5), ("wrong-type", "SK234", "warning", 4)]


def test_a_trigger_of_stop_words_only_is_dropped_with_a_warning(tmp_path: Path) -> None:
    """``C#``, ``what can you do`` and ``N+1`` are only words search leaves out: each can never
    fire.  They were SK214 errors, and the skill was left out of the catalog; now each is a warning
    at its own line, dropped, and the skill is published with the triggers that can fire."""
    write_skill(tmp_path, "dotnet-expert", """\
        name: dotnet-expert
        description: .NET development help. Use when writing .NET code.
        triggers:
          - dotnet
          - C#
          - what can you do
        """)
    write_skill(tmp_path, "database", """\
        name: database
        description: Database help. Use when queries are slow.
        triggers: {keywords: [N+1, slow query], verbs: [index]}
        """)
    reading = read_catalog([tmp_path])
    warned = sorted((d.path.split("/")[-2], d.line, d.severity.value, d.message.split(" has ")[0])
                    for d in reading.diagnostics if d.code == "SK214")
    assert warned == [("database", 4, "warning", "triggers.keywords entry 'N+1'"),
                      ("dotnet-expert", 6, "warning", "triggers entry 'C#'"),
                      ("dotnet-expert", 7, "warning", "triggers entry 'what can you do'")]
    skills = {s.id: s for s in reading.skills}
    assert skills["dotnet-expert"].triggers == {"phrases": ["dotnet"]}
    assert skills["database"].triggers == {"keywords": ["slow query"], "verbs": ["index"]}
    assert normalise_triggers(["C#", "dotnet"])["phrases"] == ["dotnet"]
    assert build([tmp_path], tmp_path / "_site").ok
    assert Catalog.open(tmp_path / "_site").entry("dotnet-expert")["triggers"]["phrases"] == ["dotnet"]


@pytest.fixture(scope="module")
def triggered_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    write_skill(src, "deploy", """\
        name: deploy
        description: Deploy a service. Use when shipping.
        triggers:
          keywords: [canary, rollout]
          verbs: [deploy]
          patterns: ['\\bv\\d+\\.\\d+\\b']
        """)
    write_skill(src, "rollback", """\
        name: rollback
        description: Roll back a release. Use when something broke.
        priority: 5
        triggers: [roll back, deploy]
        """)
    write_skill(src, "hidden-deploy", """\
        name: hidden-deploy
        description: Deploy in secret. Use never.
        hidden: true
        triggers: [deploy]
        """)
    write_skill(src, "quiet", "name: quiet\ndescription: No triggers at all. Use when testing.\n")
    out = tmp_path_factory.mktemp("site") / "_site"
    assert build([src], out).ok
    return out


def test_triggered_orders_by_triggers_fired_then_priority_and_offers_only_model_skills(triggered_site: Path) -> None:
    catalog = Catalog.open(triggered_site)
    hits = catalog.triggered("deploy the canary as v1.4")
    assert [(h.id, h.score) for h in hits] == [("deploy", 3.0), ("rollback", 1.0)]
    assert [h.id for h in catalog.triggered("please deploy")] == ["rollback", "deploy"]   # priority breaks the tie
    assert catalog.triggered("nothing relevant here") == []
    assert len(catalog.triggered("deploy canary", k=1)) == 1
    entry = catalog.entry("deploy")
    assert entry["triggers"] == {"phrases": [], "keywords": ["canary", "rollout"], "verbs": ["deploy"],
                                 "patterns": [r"\bv\d+\.\d+\b"]}


def test_search_finds_a_skill_by_its_triggers(triggered_site: Path) -> None:
    catalog = Catalog.open(triggered_site)
    assert catalog.search("rollout")[0].id == "deploy"


def test_prompt_lists_triggers_only_when_asked(triggered_site: Path) -> None:
    catalog = Catalog.open(triggered_site)
    assert "<triggers>" not in catalog.prompt()
    block = catalog.prompt(triggers=True)
    assert "<triggers>\n<trigger>canary</trigger>\n<trigger>rollout</trigger>\n<trigger>deploy</trigger>\n" \
           "</triggers>" in block
    assert "<trigger>roll back</trigger>" in block and r"\d" not in block   # patterns are not listed
    assert "hidden-deploy" not in block


#: one skill's worth of costly patterns: as many of COSTLY as fit in a skill's own budget
A_SKILLS_WORTH = normalise_triggers({"patterns": COSTLY})["patterns"]


def busy_skill(root: Path, name: str, extra: str = "") -> None:
    """A skill whose patterns take its whole budget, all firing on "please deploy"."""
    listed = "".join(f"    - '{pattern}'\n" for pattern in A_SKILLS_WORTH)
    write_skill(root, name, f"name: {name}\ndescription: Deploys the {name} service. Use when shipping it.\n"
                            f"{extra}triggers:\n  patterns:\n{listed}")


def test_the_catalogs_patterns_together_stay_within_its_cap_in_prompt_order(tmp_path: Path) -> None:
    """Ten skills each at their own budget cost more than the catalog may: in prompt order (always
    on, priority, id), the patterns past the cap are left out. The build names each skill that loses
    some (SK231, a warning, at its first pattern left out); the manifest still lists them, but the
    loader never runs them, so the work of what runs stays within MAX_CATALOG_WORK.  It counts every
    skill a model may be offered, so a skill not offered here changes nothing for the others."""
    from skillsite.agent.triggers import MAX_CATALOG_WORK

    src = tmp_path / "src"
    extra = {0: "requires:\n  env: [BUSY_TOKEN]\n", 5: "always: true\n", 9: "priority: 5\n"}
    for n in range(10):
        busy_skill(src, f"busy-{n}", extra.get(n, ""))
    busy_skill(src, "hidden-busy", "hidden: true\n")   # never run, so it costs the catalog nothing
    result = build([src], tmp_path / "_site")
    assert result.ok
    order = ["busy-5", "busy-9", *(f"busy-{n}" for n in (0, 1, 2, 3, 4, 6, 7, 8))]
    catalog = Catalog.open(tmp_path / "_site")
    assert catalog.entry("busy-8")["triggers"]["patterns"] == A_SKILLS_WORTH
    fired = {hit.id: int(hit.score) for hit in catalog.triggered("please deploy", {"BUSY_TOKEN": "1"}, k=50)}
    without_busy_0 = {hit.id: int(hit.score) for hit in catalog.triggered("please deploy", {}, k=50)}
    assert without_busy_0 == {skill_id: count for skill_id, count in fired.items() if skill_id != "busy-0"}
    counts = [fired.get(skill_id, 0) for skill_id in order]
    full = len(A_SKILLS_WORTH)
    cut = next((index for index, count in enumerate(counts) if count < full), len(order))
    assert 0 < cut < len(order) - 1 and counts[cut + 1:] == [0] * (len(order) - cut - 1)
    ran = [pattern for count in counts for pattern in A_SKILLS_WORTH[:count]]
    spent = sum(search_work(pattern) or 0 for pattern in ran)
    assert spent <= MAX_CATALOG_WORK < spent + (search_work(A_SKILLS_WORTH[counts[cut]]) or 0)
    reported = {d.path.split("/")[-2]: d for d in result.diagnostics if d.code == "SK231"}
    assert sorted(reported) == sorted(order[cut:])
    first_left_out = reported[order[cut + 1]]
    assert first_left_out.severity.value == "warning" and first_left_out.line == 6   # its first pattern
    assert f"{full} of its {full} trigger patterns" in first_left_out.message
    assert cut > 1 and reported[order[cut]].line == 6 + counts[cut]
    assert {d.path for d in check_catalog([src]).diagnostics if d.code == "SK231"} == \
        {d.path for d in reported.values()}


def test_the_first_pattern_past_the_catalogs_cap_ends_its_patterns() -> None:
    """A cheap pattern after one that does not fit does not run either: leaving a skill out (one
    not offered here) can then only let more run, never fewer."""
    from skillsite.agent.triggers import MAX_CATALOG_WORK, within_catalog_budget

    half = MAX_CATALOG_WORK // 2
    assert within_catalog_budget([[half, None], [half + 1], [1, 1]]) == [[True, False], [False], [False, False]]
    assert within_catalog_budget([[half, None], [1, 1]]) == [[True, False], [True, True]]
    assert within_catalog_budget([[half], [half], [1]]) == [[True], [True], [False]]


def counted_checks(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each trigger pattern is checked from now on (regex_safety.check still runs)."""
    import skillsite.agent.regex_safety as regex_safety

    counts: dict[str, int] = {}
    real = regex_safety.check

    def check(pattern: str, message_chars: int = regex_safety.MESSAGE_CHARS):
        counts[pattern] = counts.get(pattern, 0) + 1
        return real(pattern, message_chars)

    monkeypatch.setattr(regex_safety, "check", check)
    return counts


def distinct_patterns(count: int, tag: str) -> list[str]:
    """``count`` cheap patterns seen by no other test (the verdicts cache is the process's)."""
    return [rf"\bq{tag}{n}x\d+" for n in range(count)]


def test_a_skill_with_more_patterns_than_the_cache_holds_checks_each_once(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A skill's patterns go through several checks (SK214, its budget, what it publishes): past
    the 4,096 verdicts the process caches, each pass checked every pattern again."""
    patterns = distinct_patterns(4200, "skill")
    listed = "".join(f"    - '{pattern}'\n" for pattern in patterns)
    write_skill(tmp_path, "many", f"name: many\ndescription: Many patterns. Use when testing.\ntriggers:\n"
                                  f"  patterns:\n{listed}")
    counts = counted_checks(monkeypatch)
    reading = read_catalog([tmp_path])
    assert reading.skills[0].triggers["patterns"] and any(d.code == "SK214" for d in reading.diagnostics)
    assert len(counts) == len(patterns) and set(counts.values()) == {1}


def test_a_catalog_with_more_patterns_than_the_cache_holds_checks_each_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader counts every skill's patterns against the catalog's budget, then compiles those
    that run: past 4,096 distinct patterns, the compiling checked them all again."""
    from skillsite.agent.triggers import catalog_patterns

    patterns = distinct_patterns(4200, "catalog")
    skills = [(f"s{n:03d}", patterns[n * 3:n * 3 + 3]) for n in range(len(patterns) // 3)]
    counts = counted_checks(monkeypatch)
    runs = catalog_patterns(skills)
    assert len(runs) == len(skills) and sum(len(runnable) for runnable in runs.values()) > 0
    assert len(counts) == len(patterns) and set(counts.values()) == {1}


def test_a_triggers_value_ignored_whole_fires_on_nothing_and_is_kept_in_extra(tmp_path: Path) -> None:
    """A triggers list holding a {pattern: ...} mapping beside a phrase (hqman/qveris' shape) was
    SK208 and left the skill out; it is ignored whole now (SK234): the skill is published with no
    trigger (not the phrase alone, read in part), its search fields hold none, nothing fires it,
    and the value is in its entry's extra as written."""
    write_skill(tmp_path / "src", "stocks", """\
        name: stocks
        description: Stock quotes. Use when asked about markets.
        triggers:
          - quarterly earnings
          - pattern: "stock|trading"
            description: detects stock questions
        """)
    result = build([tmp_path / "src"], tmp_path / "_site")
    assert result.ok and [d.code for d in result.diagnostics] == ["SK234"]
    catalog = Catalog.open(tmp_path / "_site")
    entry = catalog.entry("stocks")
    assert entry["triggers"] == {"phrases": [], "keywords": [], "verbs": [], "patterns": []}
    assert entry["extra"] == {"triggers": ["quarterly earnings", {"pattern": "stock|trading",
                                                                 "description": "detects stock questions"}]}
    assert search_fields(entry)["triggers"] == ""
    assert catalog.triggered("quarterly earnings of stock trading") == []
