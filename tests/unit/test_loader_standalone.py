"""skillsite.loader needs only the standard library: the package folder alone, copied into an
empty folder, imports and works under ``python -I -S`` (no site-packages, no environment); and
every module of ``skillsite.agent`` imports nothing but the standard library and skillsite, even
where third-party packages are installed."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent('''
    import json, os, sys, sysconfig
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    from skillsite.loader import Catalog, SkillSession

    catalog = Catalog.open(sys.argv[1])
    hits = catalog.search("roll back a release", k=3)
    skill = catalog.load(hits[0].id)
    block = catalog.prompt(budget=2000, env={"PATH": ""})
    session = SkillSession(catalog, "approval")
    session.activate(skill.id)

    roots = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
    package = os.path.join(here, "skillsite")
    files = {name: os.path.abspath(module.__file__) for name, module in list(sys.modules.items())
             if getattr(module, "__file__", None) and name != "__main__"}
    print(json.dumps({
        "hits": [[h.id, h.score] for h in hits],
        "skill": [skill.id, skill.name, len(skill.body), len(skill.resources), skill.xml[:15]],
        "prompt": [block[:18], len(block)],
        "auth": session.authorize("Bash(git status)").outcome,
        "foreign_modules": sorted(name for name, path in files.items()
                                  if not any(path.startswith(r) for r in roots) and not path.startswith(package)),
        "skillsite_modules": sorted(name for name, path in files.items() if path.startswith(package)),
        "flags": [sys.flags.isolated, sys.flags.no_site],
    }))
''')


@pytest.fixture(scope="module")
def sharded_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog forced into search shards (#29)."""
    from skillsite.config import SiteConfig
    from skillsite.publish.build import build

    out = tmp_path_factory.mktemp("sharded") / "_site"
    assert build([REPO / "example-skills"], out, SiteConfig(shard_above=1)).ok
    assert (out / "search" / "shards.json").is_file()
    return out


@pytest.mark.parametrize("sharded", [False, True], ids=["inline-index", "sharded-index"])
def test_the_loader_runs_from_a_copy_of_the_package_folder_alone(site: Path, sharded_site: Path, tmp_path: Path,
                                                                  sharded: bool) -> None:
    site = sharded_site if sharded else site
    alone = tmp_path / "vendored"
    shutil.copytree(REPO / "skillsite", alone / "skillsite", ignore=shutil.ignore_patterns("__pycache__"))
    (alone / "use_it.py").write_text(SCRIPT, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", "-S", str(alone / "use_it.py"), str(site)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["flags"] == [1, 1]
    assert out["foreign_modules"] == []
    # only the loader and the stdlib-only modules it stands on: nothing of the build
    allowed = ("skillsite", "skillsite.loader", "skillsite.paths", "skillsite.folders", "skillsite._compat",
               "skillsite.bounded", "skillsite.agent", "skillsite.search",
               "skillsite.search.bm25", "skillsite.search.stemmer", "skillsite.search.terms",
               "skillsite.search.shard_format", "skillsite.search.shard_query")
    assert all(name in allowed or name.startswith("skillsite.agent.") for name in out["skillsite_modules"]), \
        out["skillsite_modules"]
    assert not any(name.startswith("skillsite.mcp") for name in out["skillsite_modules"])
    assert out["hits"][0][0] == "release-manager"
    assert out["skill"][0] == "release-manager" and out["skill"][2] > 0 and out["skill"][4] == "<skill_content "
    assert out["prompt"][0] == "<available_skills>" and out["prompt"][1] <= 2000
    assert out["auth"] == "allowed"

    from skillsite.loader import Catalog
    in_package = Catalog.open(site).search("roll back a release", k=3)
    assert out["hits"] == [[h.id, h.score] for h in in_package]


AGENT_SCRIPT = textwrap.dedent('''
    import importlib, json, sys
    before = set(sys.modules)          # what site and .pth files imported: not ours
    foreign = {}
    for name in sys.argv[1:]:
        known = set(sys.modules)
        importlib.import_module(name)
        new = sorted(set(sys.modules) - known)
        outside = [m for m in new if m.partition(".")[0] not in sys.stdlib_module_names
                   and m.partition(".")[0] != "skillsite"]
        if outside:
            foreign[name] = outside
    print(json.dumps({"foreign": foreign, "before": sorted(before)}))
''')


def agent_modules() -> list[str]:
    """Every module of skillsite/agent (found on disk, so a new one is covered), and the loader."""
    folder = REPO / "skillsite" / "agent"
    names = sorted(f"skillsite.agent.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__")
    return ["skillsite.agent", *names, "skillsite.loader"]


def test_every_agent_module_imports_only_the_standard_library() -> None:
    modules = agent_modules()
    assert {"skillsite.agent.fetch", "skillsite.agent.tools", "skillsite.agent.catalog_format"} <= set(modules)
    assert not any("mcp" in name for name in modules)  # the MCP server lives in skillsite.mcp
    # a plain interpreter with site-packages: yaml, mcp, jinja2 ... are importable here, so an
    # import of one of them would succeed and show up
    proc = subprocess.run([sys.executable, "-c", AGENT_SCRIPT, *modules], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert not any(name.startswith("skillsite.") for name in out["before"])
    assert out["foreign"] == {}


def test_the_import_check_sees_a_third_party_import() -> None:
    """The check above is not blind: importing the MCP server (which needs ``mcp``) is caught."""
    proc = subprocess.run([sys.executable, "-c", AGENT_SCRIPT, "skillsite.mcp.skills"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    foreign = json.loads(proc.stdout)["foreign"]["skillsite.mcp.skills"]
    assert "yaml" in foreign
