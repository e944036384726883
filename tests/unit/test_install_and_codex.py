"""Install snippets per agent (skill pages, llms.txt) and Codex agents/openai.yaml (issue 22, part 5)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillsite.agent.entry import EntrySource, EntryUrls, ManifestEntry
from skillsite.config import SiteConfig
from skillsite.publish.build import build
from skillsite.publish.views import catalog_install_lines, install_snippets
from skillsite.source.catalog import check_catalog
from support import write_skill

CONFIG = SiteConfig(base_url="https://skills.example.com", repo_url="https://github.com/example/skills",
                    marketplace={"name": "platform-skills"})


def entry(skill_id: str = "release-manager", path: str = "skills/release-manager/SKILL.md") -> ManifestEntry:
    return ManifestEntry(id=skill_id, name=skill_id.rsplit("/", 1)[-1], description="Does a thing.",
                         sha256="0" * 64, source=EntrySource(path),
                         urls=EntryUrls(skill_md=f"skills/{skill_id}/SKILL.md", files=f"skills/{skill_id}/"))


def test_each_agent_gets_its_install_command() -> None:
    snippets = {s["label"].split(":")[0]: s["text"] for s in install_snippets(entry(), CONFIG, True)}
    assert snippets["Install with the skills CLI"] \
        == "npx skills add https://skills.example.com --skill release-manager"
    # no /plugin marketplace add of the site's URL: Claude Code then downloads marketplace.json
    # alone, and its plugin (the site's own files) cannot install
    assert not any("/plugin" in text for text in snippets.values())
    assert snippets["GitHub CLI"] == "gh skill install example/skills skills/release-manager"
    assert snippets["Gemini CLI"] == ("gemini skills install https://github.com/example/skills.git "
                                      "--path skills/release-manager")
    assert "Catalog.open(" in snippets["Load it in Python (skillsite.loader)"]


def test_an_id_holding_the_site_marker_is_left_as_it_is() -> None:
    """Without base_url the page fills in its own address where ``{site}`` marks it: the first
    marker only, as a folder named ``{site}`` is part of an id."""
    snippets = {s["label"]: s for s in install_snippets(entry("team/{site}/curly"), SiteConfig(), True)}
    loader = snippets["Load it in Python (skillsite.loader)"]
    assert loader["dynamic"] and loader["text"].count("{site}") == 2
    assert 'Catalog.open("<site-url>/skills.json").load("team/{site}/curly")' in loader["static"]
    assert snippets["Raw SKILL.md"]["static"] == "<site-url>/skills/team/{site}/curly/SKILL.md"


@pytest.mark.parametrize("skill_id", ["emoji\U0001f680", "café/naïve", 'quote"d\\x', "tab\tid"])
def test_the_python_snippet_names_the_id_as_python_reads_it(skill_id: str) -> None:
    """The snippet spelt an id beyond U+FFFF as JSON does ("\\ud83d\\ude80"), which Python reads as
    two lone surrogates: the copied command looked for another skill.  Python's own parser reads
    the literal in the snippet back as the id."""
    import ast
    import shlex

    loader = {s["label"]: s for s in install_snippets(entry(skill_id), SiteConfig(base_url="https://x.example"),
                                                       True)}["Load it in Python (skillsite.loader)"]
    program = shlex.split(loader["text"])[2]
    call = ast.parse(program).body[1].value.args[0]  # print(Catalog.open(...).load(ID).body)
    assert ast.literal_eval(call.value.args[0]) == skill_id


def test_repository_installers_need_a_repository_and_quote_odd_paths() -> None:
    labels = [s["label"] for s in install_snippets(entry(), SiteConfig(base_url="https://x.example"), True)]
    assert not any(label in ("GitHub CLI", "Gemini CLI") for label in labels)
    odd = {s["label"]: s["text"] for s in install_snippets(entry("a b", "skills/a b; rm -rf ~/SKILL.md"), CONFIG, True)}
    assert odd["GitHub CLI"] == "gh skill install example/skills 'skills/a b; rm -rf ~'"


def test_a_page_offers_npx_skills_add_only_for_a_skill_the_discovery_index_lists(tmp_path: Path) -> None:
    """Two skills named odd: the discovery index lists the first (SK212 for the other), and
    npx skills add --skill odd installs that one, so only its page offers the command; a skill
    installers skip (SK016) is not listed and not offered either. Rebuilt after a rename, the
    pages follow the index."""
    for folder in ("a", "b"):
        write_skill(tmp_path / "src", folder, f"name: odd\ndescription: Skill {folder} called odd. Use when testing.\n")
    write_skill(tmp_path / "src", "strict",
                "name: strict\ndescription: Fixture: an unquoted colon. Use when testing.\n")
    out, cache = tmp_path / "_site", tmp_path / "cache"

    def offered() -> dict[str, bool]:
        return {sid: "npx skills add" in (out / f"skills/{sid}/index.html").read_text("utf-8")
                for sid in ("a", "b", "strict")}

    assert build([tmp_path / "src"], out, CONFIG, cache_dir=cache).ok
    listed = json.loads((out / ".well-known/agent-skills/index.json").read_text())["skills"]
    assert [s["name"] for s in listed] == ["odd"] and offered() == {"a": True, "b": False, "strict": False}
    skill_md = tmp_path / "src/a/SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name: odd", "name: even"))
    assert build([tmp_path / "src"], out, CONFIG, cache_dir=cache).ok
    assert offered() == {"a": True, "b": True, "strict": False}


def test_llms_txt_tells_every_agent_how_to_install_the_catalog(tmp_path: Path) -> None:
    write_skill(tmp_path / "src", "one")
    assert build([tmp_path / "src"], tmp_path / "_site", CONFIG).ok
    text = (tmp_path / "_site/llms.txt").read_text("utf-8")
    assert "To install the whole catalog:" in text and "`npx skills add https://skills.example.com`" in text
    assert "/plugin" not in text
    # free text before the first section: llms.txt's sections (## ...) are lists of links
    assert [line for line in text.splitlines() if line.startswith("## ")] == ["## Skills"]
    assert [agent for agent, _ in catalog_install_lines(CONFIG)] == [
        "skills CLI (Claude Code, Codex, Cursor, Gemini CLI, ...)", "GitHub CLI", "Python (skillsite.loader)"]
    assert catalog_install_lines(SiteConfig()) == []   # no base URL: nothing absolute to say


def test_a_base_url_with_shell_and_markdown_characters_stays_one_word_and_one_link(tmp_path: Path) -> None:
    """A base URL may hold ';', '&', "'" and parentheses (RFC 3986 sub-delimiters): the commands
    quote it as one shell word, and llms.txt's links stay links to it (read by markdown-it-py)."""
    import shlex
    from urllib.parse import unquote

    from markdown_it import MarkdownIt

    from skillsite.publish.views import pin_snippets

    site = "https://h.example/R&D;x/it's(a)b)"
    config = SiteConfig(base_url=site + "/")
    lines = dict(catalog_install_lines(config))
    assert shlex.split(lines["skills CLI (Claude Code, Codex, Cursor, Gemini CLI, ...)"][0]) == ["npx", "skills", "add",
                                                                                                  site]
    pins = pin_snippets({"key": "ed25519:AAAA", "keyid": "k1", "metadata": "tuf/"}, config)
    assert shlex.split(pins["cli"])[4] == site and shlex.split(pins["mcp"])[3] == site
    write_skill(tmp_path / "src", "one")
    assert build([tmp_path / "src"], tmp_path / "_site", config).ok
    tokens = MarkdownIt().parse((tmp_path / "_site/llms.txt").read_text("utf-8"))
    hrefs = [t.attrGet("href") for block in tokens for t in block.children or () if t.type == "link_open"]
    assert len(hrefs) == 3 and all(unquote(h).startswith(site + "/") for h in hrefs), hrefs
    assert unquote(hrefs[-1]) == site + "/skills/one/SKILL.md"


def codex_skill(root: Path, name: str, yaml_text: str, files: dict[str, str] | None = None) -> Path:
    folder = write_skill(root, name)
    (folder / "agents").mkdir()
    (folder / "agents/openai.yaml").write_text(yaml_text, "utf-8")
    for rel, text in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, "utf-8")
    return folder


def test_codex_yaml_is_checked_against_its_documented_fields(tmp_path: Path) -> None:
    (tmp_path / "outside.svg").write_text("<svg/>", "utf-8")
    codex_skill(tmp_path, "good", 'interface:\n  display_name: "Good"\n'
                                  '  short_description: "Twenty-five characters or more"\n'
                                  '  icon_small: ./assets/icon.svg\npolicy:\n  allow_implicit_invocation: false\n',
                {"assets/icon.svg": "<svg/>"})
    codex_skill(tmp_path, "bad", 'interface:\n  short_description: "Too short"\n  brand_color: blue\n'
                                 '  icon_large: ../../outside.svg\n  colour: red\npolicy:\n'
                                '  allow_implicit_invocation: "yes"\n')
    diags = [d for d in check_catalog([tmp_path]).diagnostics if d.code == "SK220"]
    assert all(d.path.endswith("bad/agents/openai.yaml") and d.severity.value == "warning" for d in diags)
    found = sorted((d.line, d.message.split("'")[1]) for d in diags)
    assert found == [(1, "interface"), (2, "interface.short_description"), (3, "interface.brand_color"),
                     (4, "interface.icon_large"), (7, "policy.allow_implicit_invocation")]


def test_a_codex_yaml_that_is_no_mapping_is_said_of_the_file_not_of_frontmatter(tmp_path: Path) -> None:
    """Its reader is the frontmatter's, whose words it gave: an empty file "must be a mapping with at
    least a description", and a list was "frontmatter is a list"."""
    codex_skill(tmp_path, "empty", "")
    codex_skill(tmp_path, "listed", "- a\n- b\n")
    said = sorted(d.message for d in check_catalog([tmp_path]).diagnostics if d.code == "SK220")
    assert said == ["agents/openai.yaml is a list, not a mapping of keys to values",
                    "agents/openai.yaml is empty; it must be a mapping of keys to values"]


def test_a_codex_yaml_too_big_to_read_or_with_a_merge_key_is_said_of_the_file(tmp_path: Path) -> None:
    """The other reader's messages that named the frontmatter: its values' size, and merge keys."""
    codex_skill(tmp_path, "merged", "base: &b {x: 1}\ninterface:\n  <<: *b\n")
    codex_skill(tmp_path, "aliased", "a: &a [" + ", ".join(["'" + "x" * 1000 + "'"] * 50) + "]\n"
                + "".join(f"k{n}: *a\n" for n in range(100)))
    said = sorted(d.message for d in check_catalog([tmp_path]).diagnostics if d.code == "SK220")
    assert len(said) == 2 and "frontmatter" not in " ".join(said), said
    assert said[0].startswith("agents/openai.yaml's values hold more than ")
    assert said[1] == "agents/openai.yaml: YAML merge keys ('<<') are not supported"


def test_codex_interface_is_in_the_manifest_and_on_the_page(tmp_path: Path) -> None:
    codex_skill(tmp_path / "src", "good", 'interface:\n  display_name: "Good <b>tool</b>"\n'
                                          '  short_description: "Twenty-five characters or more"\n'
                                          '  icon_small: ./assets/icon.svg\n  brand_color: "#112233"\n',
                {"assets/icon.svg": "<svg/>"})
    assert build([tmp_path / "src"], tmp_path / "_site").ok
    manifest = json.loads((tmp_path / "_site/skills.json").read_text("utf-8"))
    assert manifest["skills"][0]["interface"] == {"display_name": "Good <b>tool</b>", "brand_color": "#112233",
                                                  "short_description": "Twenty-five characters or more",
                                                  "icon_small": "assets/icon.svg"}
    page = (tmp_path / "_site/skills/good/index.html").read_text("utf-8")
    assert ('<img class="codex-icon" src="assets/icon.svg" alt="" width="20" height="20"> '
            "<strong>Good &lt;b&gt;tool&lt;/b&gt;</strong> — Twenty-five characters or more") in page


def test_an_icon_the_catalog_does_not_publish_is_neither_named_nor_shown(tmp_path: Path) -> None:
    """An icon that is a file of the skill but excluded (or ignored) is not in the catalog: the
    manifest and the page would name a missing file.  SK220 says why it is left out."""
    codex_skill(tmp_path / "src", "good", 'interface:\n  display_name: "Good"\n'
                                          '  icon_small: ./assets/icon.svg\n  icon_large: art/big.png\n',
                {"assets/icon.svg": "<svg/>", "art/big.png": "png"})
    config = SiteConfig(exclude=["**/assets/**"])
    result = build([tmp_path / "src"], tmp_path / "_site", config)
    assert result.ok and not (tmp_path / "_site/skills/good/assets/icon.svg").exists()
    manifest = json.loads((tmp_path / "_site/skills.json").read_text("utf-8"))
    assert manifest["skills"][0]["interface"] == {"display_name": "Good", "icon_large": "art/big.png"}
    assert 'src="assets/icon.svg"' not in (tmp_path / "_site/skills/good/index.html").read_text("utf-8")
    diags = [d for d in result.diagnostics if d.code == "SK220"]
    assert [(d.line, d.message) for d in diags] == [
        (3, "agents/openai.yaml: 'interface.icon_small' './assets/icon.svg' is not published with the skill "
            "(excluded or ignored)")]
