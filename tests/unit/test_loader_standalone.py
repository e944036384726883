"""loader.py works alone: copied into an empty folder and run under ``python -I -S``."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path



REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent('''
    import importlib.util, json, os, sys, sysconfig, warnings
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("loader", os.path.join(here, "loader.py"))
    loader = importlib.util.module_from_spec(spec)
    sys.modules["loader"] = loader
    spec.loader.exec_module(loader)

    catalog = loader.Catalog.open(sys.argv[1])
    hits = catalog.search("roll back a release", k=3)
    skill = catalog.load(hits[0].id)
    block = catalog.prompt(budget=2000, env={"PATH": ""})
    session = loader.SkillSession(catalog, "approval")
    session.activate(skill.id)

    roots = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
    foreign = sorted(name for name, module in list(sys.modules.items())
                     if getattr(module, "__file__", None) and name not in ("loader", "__main__")
                     and not any(os.path.abspath(module.__file__).startswith(r) for r in roots))
    print(json.dumps({
        "hits": [[h.id, h.score] for h in hits],
        "skill": [skill.id, skill.name, len(skill.body), len(skill.resources), skill.xml[:15]],
        "prompt": [block[:18], len(block)],
        "auth": session.authorize("Bash(git status)").outcome,
        "foreign_modules": foreign,
        "skillsite_imported": any(n.startswith("skillsite") for n in sys.modules),
        "flags": [sys.flags.isolated, sys.flags.no_site],
    }))
''')




def test_loader_copied_alone_runs_isolated(site: Path, tmp_path: Path) -> None:
    alone = tmp_path / "vendored"
    alone.mkdir()
    shutil.copy(REPO / "skillsite" / "loader.py", alone / "loader.py")
    (alone / "use_it.py").write_text(SCRIPT, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", "-S", str(alone / "use_it.py"), str(site)],
                          cwd=alone, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["flags"] == [1, 1]
    assert out["foreign_modules"] == [] and not out["skillsite_imported"]
    assert out["hits"][0][0] == "release-manager"
    assert out["skill"][0] == "release-manager" and out["skill"][2] > 0 and out["skill"][4] == "<skill_content "
    assert out["prompt"][0] == "<available_skills>" and out["prompt"][1] <= 2000
    assert out["auth"] == "allowed"

    from skillsite.loader import Catalog
    in_package = Catalog.open(site).search("roll back a release", k=3)
    assert out["hits"] == [[h.id, h.score] for h in in_package]
