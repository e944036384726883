"""`skillsite validate` as a user runs it: formats, exit codes, summary."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from support import EXAMPLES, write_skill


def run(*args: str, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    import os

    full_env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True, text=True,
                          env=full_env, cwd=cwd, timeout=120)


def broken_tree(tmp_path):
    write_skill(tmp_path, "good")
    write_skill(tmp_path, "warned", "name: warned\ndescription: d\nauthor: me\n")
    write_skill(tmp_path, "broken", "name: broken\n")
    return tmp_path


def test_examples_are_clean_under_strict():
    result = run("validate", str(EXAMPLES), "--strict")
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("13 skills checked: 13 valid, 0 invalid")


def test_text_format_and_exit_code(tmp_path):
    result = run("validate", str(broken_tree(tmp_path)))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].endswith("broken/SKILL.md:1:1: error SK201 required key 'description' is missing")
    assert ":4:1: warning SK207 unknown key 'author'" in lines[1]
    assert lines[-1] == ("3 skills checked: 2 valid, 1 invalid (1 with no readable frontmatter or description); "
                         "1 error, 1 warning, 0 info")
    assert result.stderr == ""


def test_the_summary_does_not_say_an_invalid_skill_a_build_leaves_out_is_kept(tmp_path):
    """'model: sonnet' under the spec profile: validate said '1 invalid (0 left out)' while
    'build --keep-going' left the skill out (every invalid skill is left out).  What the count in
    parentheses counts is named, and said only when some skill has no frontmatter or description."""
    write_skill(tmp_path, "s", "name: s\ndescription: d\nmodel: sonnet\n")
    checked = run("validate", str(tmp_path), "--profile", "spec", "--no-cache")
    assert checked.returncode == 1
    assert checked.stdout.splitlines()[-1] == "1 skill checked: 0 valid, 1 invalid; 1 error, 0 warnings, 0 info"
    assert json.loads(run("validate", str(tmp_path), "--profile", "spec", "--no-cache", "--format", "json")
                      .stdout)["summary"]["left_out"] == 0   # the JSON counts what it counted
    built = run("build", str(tmp_path), "--profile", "spec", "--keep-going", "--no-cache", "-o", str(tmp_path / "o"))
    assert built.returncode == 1 and "every skill has errors" in built.stdout + built.stderr


def test_strict_fails_on_warnings(tmp_path):
    write_skill(tmp_path, "warned", "name: warned\ndescription: d\nauthor: me\n")
    assert run("validate", str(tmp_path)).returncode == 0
    assert run("validate", str(tmp_path), "--strict").returncode == 1
    assert run("validate", str(tmp_path), "--strict", "--ignore", "SK207").returncode == 0


def test_max_bytes_of_the_configuration_applies_as_in_build(tmp_path):
    """skillsite.yml's max_bytes: validate said the SKILL.md valid (its --max-bytes default won)
    where build refused it as SK106; --max-bytes still overrides it."""
    write_skill(tmp_path / "skills", "long", body="x" * 600)
    (tmp_path / "skillsite.yml").write_text("sources: [skills]\nmax_bytes: 200\n", encoding="utf-8")
    result = run("validate", cwd=tmp_path)
    assert result.returncode == 1 and " error SK106 file is " in result.stdout, result.stdout
    assert run("validate", "--max-bytes", "4096", cwd=tmp_path).returncode == 0
    built = run("build", "-o", "site", cwd=tmp_path)
    assert built.returncode == 1 and " error SK106 file is " in built.stdout


def test_one_skill_md_is_checked_as_in_its_tree(tmp_path):
    """The example's changelog (depends on house-style) and prod-db-restore (conflicts with
    sql-migration-review), each given alone in a git work tree and in a configuration's source:
    valid, as in the whole tree, where they were SK223 (an error) and SK215; only they are reported."""
    import shutil

    shutil.copytree(EXAMPLES, tmp_path / "ex")
    files = ["ex/release-manager/changelog/SKILL.md", "ex/prod-db-restore/SKILL.md"]
    alone = run("validate", files[0], "--no-cache", cwd=tmp_path)
    assert alone.returncode == 1 and " SK223 " in alone.stdout   # no tree known: the skill alone
    (tmp_path / ".git").mkdir()
    in_git = run("validate", *files, "--no-cache", cwd=tmp_path)
    assert in_git.returncode == 0, in_git.stdout
    assert in_git.stdout == "2 skills checked: 2 valid, 0 invalid; 0 errors, 0 warnings, 0 info\n"
    (tmp_path / ".git").rmdir()
    (tmp_path / "skillsite.yml").write_text("sources: [ex]\n", encoding="utf-8")
    in_source = run("validate", files[0], "--format", "json", "--no-cache", cwd=tmp_path)
    data = json.loads(in_source.stdout)
    assert in_source.returncode == 0 and data["diagnostics"] == []
    assert [s["id"] for s in data["skills"]] == ["release-manager/changelog"]   # the id a build gives it


def test_a_skill_md_below_the_work_tree_s_top_is_named_from_the_current_folder(tmp_path):
    """Checked in its whole work tree, named from the current folder as a linter names it (it
    was named by its absolute path, the tree's top being above the current folder)."""
    (tmp_path / ".git").mkdir()
    write_skill(tmp_path / "skills", "foo", "name: foo\ndescription: Does foo.\n", body="See [x](missing.md).\n")
    write_skill(tmp_path / "skills", "bar", "name: bar\ndescription: Does bar.\nauthor: me\n")
    below = run("validate", "foo/SKILL.md", "--no-cache", cwd=tmp_path / "skills")
    assert below.stdout.splitlines()[0].startswith("foo/SKILL.md:"), below.stdout
    assert " SK303 " in below.stdout and "bar" not in below.stdout
    inside = json.loads(run("validate", "SKILL.md", "--no-cache", "--format", "json",
                            cwd=tmp_path / "skills" / "foo").stdout)
    assert [(s["id"], s["path"]) for s in inside["skills"]] == [("skills/foo", "SKILL.md")]
    assert [d["path"] for d in inside["diagnostics"]] == ["SKILL.md"]
    outside = run("validate", "../bar/SKILL.md", "--no-cache", cwd=tmp_path / "skills" / "foo")
    assert f"{tmp_path / 'skills' / 'bar' / 'SKILL.md'}:4:1: warning SK207" in outside.stdout   # not under it


def test_json_format(tmp_path):
    result = run("validate", str(broken_tree(tmp_path)), "--format", "json")
    data = json.loads(result.stdout)
    assert set(data) == {"skills", "diagnostics", "summary"}
    assert [(s["id"], s["valid"]) for s in data["skills"]] == [("broken", False), ("good", True), ("warned", True)]
    assert all(s["path"].endswith("/SKILL.md") for s in data["skills"])
    assert set(data["diagnostics"][0]) == {"code", "severity", "message", "path", "line", "col"}
    assert data["summary"]["errors"] == 1 and data["summary"]["by_code"] == {"SK201": 1, "SK207": 1}


def test_github_format_is_automatic_in_actions(tmp_path):
    result = run("validate", str(broken_tree(tmp_path)), env={"GITHUB_ACTIONS": "true"})
    first = result.stdout.splitlines()[0]
    assert first.startswith("::error file=") and ",line=1,col=1,title=SK201::SK201 required key" in first
    assert "::warning file=" in result.stdout


def test_usage_errors_exit_2(tmp_path):
    assert run("validate", str(tmp_path / "missing")).returncode == 2
    assert run("validate", str(tmp_path), "--ignore", "NOPE1").returncode == 2
    assert run("validate", str(tmp_path), "--format", "xml").returncode == 2


def test_exclude(tmp_path):
    broken_tree(tmp_path)
    assert run("validate", str(tmp_path), "--exclude", "broken").returncode == 0


def test_spec_profile(tmp_path):
    write_skill(tmp_path, "warned", "name: warned\ndescription: d\nauthor: me\n")
    result = run("validate", str(tmp_path), "--profile", "spec")
    assert result.returncode == 1 and "error SK207" in result.stdout


def test_a_long_list_of_diagnostics_is_summarised_per_code_and_written_whole(tmp_path):
    for n in range(110):
        words = " ".join(hashlib.sha256(f"{n}-{k}".encode()).hexdigest()[:8] for k in range(4))
        write_skill(tmp_path / "src", f"s{n:03d}",
                    f"name: s{n:03d}\ndescription: Handles {words}.\nauthor: me\nteam: x\n")
    write_skill(tmp_path / "src", "broken", "name: broken\n")
    report = tmp_path / "report.json"
    result = run("validate", str(tmp_path / "src"), "--report", str(report))
    lines = result.stdout.splitlines()
    assert result.returncode == 1
    assert lines[0] == (f"221 diagnostics, too many to list: per code, the count and the first 3; all of them are in "
                        f"{report} (or pass --all)")
    assert lines[1] == "SK201 (error, 1): description missing or empty"
    assert lines[3] == "SK207 (warning, 220): unknown frontmatter key"
    assert lines[4].endswith("s000/SKILL.md:4:1: warning SK207 unknown key 'author'; kept in the manifest's "
                             "extra but not understood")
    assert len(lines) == 1 + 2 + 4 + 1
    assert len(json.loads(report.read_text())["diagnostics"]) == 221
    assert len(run("validate", str(tmp_path / "src"), "--all").stdout.splitlines()) == 222
    assert len(json.loads(run("validate", str(tmp_path / "src"), "--format", "json").stdout)["diagnostics"]) == 221
    assert len(run("validate", str(tmp_path / "src"), "--format", "github").stdout.splitlines()) == 222  # + summary


def test_a_report_whose_folder_is_a_file_names_that_cause(tmp_path):
    """--report under a regular file: the folder cannot be made because a file is in its place
    (ENOTDIR), not because something 'exists'."""
    keys = "".join(f"key{n:03d}: x\n" for n in range(201))
    write_skill(tmp_path / "src", "many", f"name: many\ndescription: Many keys. Use when testing.\n{keys}")
    (tmp_path / "afile").write_text("x")
    result = run("validate", str(tmp_path / "src"), "--report", str(tmp_path / "afile" / "report.json"))
    first = result.stdout.splitlines()[0]
    assert f"no report file ({tmp_path / 'afile'}: Not a directory (ENOTDIR))" in first, first
    assert "EEXIST" not in result.stdout


def test_a_path_given_that_is_a_symlink_loop_is_called_one(tmp_path):
    """A path on the command line whose links lead round in a circle is said to be a loop, not
    a path that 'does not exist' (as discovery says of one inside a tree)."""
    import os

    os.symlink("self", tmp_path / "self")
    os.symlink("other", tmp_path / "one")
    os.symlink("one", tmp_path / "other")
    for command, path in (("validate", "self"), ("validate", "one"), ("build", "other"), ("audit", "self")):
        result = run(command, path, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert f"'{path}' is a symlink loop (its links lead round in a circle)" in result.stderr, result.stderr
    missing = run("validate", "nowhere", cwd=tmp_path)
    assert missing.returncode == 2 and "'nowhere' does not exist" in missing.stderr


def test_validate_says_the_bundled_files_a_build_would_not_publish(tmp_path):
    """A bundled index.html (SK009) and heartbeat.md beside HEARTBEAT.md (SK022) made 'build --strict'
    fail while 'validate --strict' said 0 warnings and exited 0: a CI gate on validate let the build
    fail.  Validate says the warnings the build says, with its verdict cache too: a file bundled
    after a run is said in the next, whose SKILL.md verdict comes from the cache."""
    src, cache = tmp_path / "src", tmp_path / "cache"
    write_skill(src, "wallet", body="See [heartbeat](HEARTBEAT.md).\n")
    for name in ("index.html", "heartbeat.md", "HEARTBEAT.md"):
        (src / "wallet" / name).write_text("x\n", encoding="utf-8")
    write_skill(src, "released", "name: released\ndescription: d\nversion: 1.0.0\n")
    (src / "released" / "versions.json").write_text("{}\n", encoding="utf-8")

    def said(*args: str) -> tuple[int, list[str]]:
        result = run(*args)
        lines = (result.stdout + result.stderr).splitlines()
        return result.returncode, sorted(line.split(" ", 1)[1] for line in lines if " warning SK" in line)

    build = said("build", str(src), "-o", str(tmp_path / "site"), "--strict")
    first = said("validate", str(src), "--strict", "--cache-dir", str(cache))
    assert build[0] == first[0] == 1 and sorted(w.split(" ")[1] for w in first[1]) == ["SK009", "SK009", "SK022"]
    assert first[1] == build[1] and any("'versions.json'" in w for w in first[1])
    (src / "released" / "Versions.json").write_text("{}\n", encoding="utf-8")
    again = said("validate", str(src), "--strict", "--cache-dir", str(cache))
    assert again[0] == 1 and len(again[1]) == 4 and any("'Versions.json'" in w for w in again[1])
    (src / "wallet" / "index.html").unlink()
    (src / "wallet" / "heartbeat.md").unlink()
    (src / "released" / "versions.json").unlink()
    (src / "released" / "Versions.json").unlink()
    assert said("validate", str(src), "--strict", "--cache-dir", str(cache)) == (0, [])
