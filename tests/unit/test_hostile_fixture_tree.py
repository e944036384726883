"""Smoke test of the hostile fixture tree itself (tests/fixtures/make_hostile.py).

This checks the fixture, not skillsite: that the generated tree has the shape CASES.md
describes, byte for byte where it matters, and that it is deterministic.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pathlib
import re
import sys

import pytest
import yaml

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_hostile", FIXTURES / "make_hostile.py")
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ in fixtures/
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


mh = _load_generator()


def _skill_files(root: pathlib.Path) -> list[str]:
    """Relative paths of SKILL.md / skill.md files, walking without following symlinks."""
    found = []
    for dirpath, _dirnames, filenames in os.walk(root, followlinks=False):
        for name in filenames:
            path = pathlib.Path(dirpath, name)
            if name.lower() == "skill.md" and not path.is_symlink():
                found.append(path.relative_to(root).as_posix())
    return sorted(found)


def _snapshot(root: pathlib.Path) -> dict[str, str]:
    """relpath -> sha256 of content, or the link text for relative symlinks."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = pathlib.Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = os.readlink(path)
                snap[rel] = "link:" + ("<absolute>" if os.path.isabs(target) else target)
            elif path.is_file():
                snap[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return snap


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> pathlib.Path:
    base = tmp_path_factory.mktemp("hostile")
    root = mh.make_hostile_tree(base / "root")
    assert root == base / "root"
    return root


def test_static_tree_counts():
    assert len(_skill_files(mh.STATIC_DIR)) == 64


def test_skill_file_counts(tree):
    files = _skill_files(tree)
    assert len(files) == 76
    ignored = [f for f in files if f.startswith(("node_modules/", ".git/"))]
    assert ignored == [".git/x/SKILL.md", "node_modules/pkg/SKILL.md"]
    assert len(files) - len(ignored) == 74
    assert ".github/skills/hidden-dir-skill/SKILL.md" in files
    assert "lowercase-skill-md/skill.md" in files
    assert "duplicate-name/twin/SKILL.md" in files and "twin/SKILL.md" in files


def test_at_least_30_cases_all_documented(tree):
    cases_md = (mh.STATIC_DIR / "CASES.md").read_text(encoding="utf-8")
    top = sorted(p.name for p in tree.iterdir() if p.name != "CASES.md")
    assert len(top) >= 30
    for name in top:
        assert f"`{name}" in cases_md, f"{name} is not described in CASES.md"
    rows = re.findall(r"^\| (\d+) \|", cases_md, flags=re.M)
    assert [int(r) for r in rows] == list(range(1, len(rows) + 1))
    assert len(rows) >= 30
    for name in mh.GENERATED_CASES:
        assert not (mh.STATIC_DIR / name).exists(), f"{name} must only be generated"


def test_symlinks(tree):
    outside = mh.outside_dir(tree)
    links = sorted(
        pathlib.Path(d, n).relative_to(tree).as_posix()
        for d, dirs, files in os.walk(tree, followlinks=False)
        for n in dirs + files
        if pathlib.Path(d, n).is_symlink()
    )
    assert links == [
        "symlink-bundled-escape/references/abs-secret.txt",
        "symlink-bundled-escape/references/secret.txt",
        "symlink-bundled-sibling/references/borrowed.md",
        "symlink-escape",
        "symlink-loop/a/loop",
        "symlink-sibling",
    ]
    real_root = tree.resolve()
    # escapes the root, to a valid-looking skill
    esc = (tree / "symlink-escape").resolve()
    assert not esc.is_relative_to(real_root)
    assert esc == (outside / "escaped-skill").resolve()
    assert mh.OUTSIDE_MARKER in (esc / "SKILL.md").read_text(encoding="utf-8")
    # the loop points back at its own skill folder
    assert os.readlink(tree / "symlink-loop" / "a" / "loop") == ".."
    assert (tree / "symlink-loop" / "a" / "loop").resolve() == (tree / "symlink-loop").resolve()
    assert (tree / "symlink-loop" / "a" / "loop" / "a" / "loop" / "SKILL.md").is_file()
    # same skill under two ids
    assert os.readlink(tree / "symlink-sibling") == "valid-baseline"
    assert (tree / "symlink-sibling" / "SKILL.md").samefile(tree / "valid-baseline" / "SKILL.md")
    # bundled files leaving the skill
    refs = tree / "symlink-bundled-escape" / "references"
    assert not os.path.isabs(os.readlink(refs / "secret.txt"))
    assert os.path.isabs(os.readlink(refs / "abs-secret.txt"))
    for name in ("secret.txt", "abs-secret.txt"):
        target = (refs / name).resolve()
        assert not target.is_relative_to(real_root)
        assert (refs / name).read_text(encoding="utf-8") == mh.OUTSIDE_MARKER + "\n"
    borrowed = (tree / "symlink-bundled-sibling" / "references" / "borrowed.md").resolve()
    assert borrowed == (tree / "valid-baseline" / "references" / "guide.md").resolve()


def test_outside_marker_only_outside(tree):
    for dirpath, _dirs, files in os.walk(tree, followlinks=False):
        for name in files:
            path = pathlib.Path(dirpath, name)
            if path.is_symlink() or path.stat().st_size > 1024 * 1024:
                continue
            assert mh.OUTSIDE_MARKER.encode() not in path.read_bytes(), path


def test_sizes(tree):
    huge = tree / "huge-5mb" / "SKILL.md"
    assert huge.stat().st_size == mh.HUGE_SIZE == 5 * 1024 * 1024
    with huge.open("rb") as fh:
        assert fh.read(19) == b"---\nname: huge-5mb\n"
    large = (tree / "large-300k" / "SKILL.md").read_bytes()
    assert len(large) == 300 * 1024
    assert 256 * 1024 < len(large) < 1024 * 1024
    assert large.count(b"\n") < 500
    assert (tree / "empty-file" / "SKILL.md").stat().st_size == 0


def test_deep_nesting(tree):
    deep = tree.joinpath("deep", *[f"d{i}" for i in range(1, 51)], "SKILL.md")
    assert deep.is_file()
    assert len(deep.relative_to(tree).parts) == 52
    assert yaml.safe_load(deep.read_text(encoding="utf-8").split("---\n")[1])["name"] == "d50"


def test_binary_and_non_utf8(tree):
    data = (tree / "binary" / "SKILL.md").read_bytes()
    assert len(data) == 4096 and data[0] == 0 and data.count(0) >= 43
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")

    raw = (tree / "non-utf8" / "SKILL.md").read_bytes()
    assert mh.NON_UTF8_OFFSET == 35
    assert raw[35] == 0xE9 and raw.count(0xE9) == 1
    with pytest.raises(UnicodeDecodeError) as err:
        raw.decode("utf-8")
    assert err.value.start == 35
    line = raw.split(b"\n")[2]
    assert line.index(b"\xe9") + 1 == mh.NON_UTF8_COLUMN == 17
    assert raw.split(b"\n").index(line) + 1 == mh.NON_UTF8_LINE == 3


def test_byte_exact_cases(tree):
    crlf = (tree / "crlf" / "SKILL.md").read_bytes()
    assert crlf.count(b"\r\n") == crlf.count(b"\n") == 12
    assert b"\r\n" in (tree / "crlf" / "SKILL.md").read_bytes()

    assert (tree / "bom" / "SKILL.md").read_bytes().startswith(b"\xef\xbb\xbf---\n")
    lines = (tree / "frontmatter-trailing-spaces" / "SKILL.md").read_bytes().split(b"\n")
    assert lines[0] == b"---  " and lines[3] == b"---   "
    assert (tree / "yaml-tabs" / "SKILL.md").read_bytes().split(b"\n")[4] == b"\towner: x"
    raw = (tree / "control-chars-raw" / "SKILL.md").read_bytes()
    assert raw.split(b"\n")[2].index(b"\x07") + 1 == 23 and b"\x1b[31m" in raw
    dashes = (tree / "description-contains-dashes" / "SKILL.md").read_text(encoding="utf-8")
    assert dashes.splitlines()[4] == "  ---" and dashes.splitlines()[7] == "---"
    assert (tree / "frontmatter-leading-blank-line" / "SKILL.md").read_bytes().startswith(b"\n---\n")
    assert b"!!python/object/apply:os.system" in (tree / "yaml-python-tag" / "SKILL.md").read_bytes()
    assert (tree / "body-too-long" / "SKILL.md").read_text(encoding="utf-8").count("\n") == 605


@pytest.mark.parametrize(
    "folder",
    ["valid-baseline", "bom", "frontmatter-trailing-spaces", "description-contains-dashes",
     "flow-collections", "xss-frontmatter", "xml-breakout", "hidden-from-model",
     "description-max-length-1024", "name-max-length-64-" + "a" * 45],
)
def test_valid_cases_parse(tree, folder):
    text = (tree / folder / "SKILL.md").read_text(encoding="utf-8-sig")
    lines = text.splitlines()
    end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    data = yaml.safe_load("\n".join(lines[1:end]))
    assert data["name"] == folder
    assert 1 <= len(data["description"]) <= 1024


def test_deterministic(tree, tmp_path):
    again = mh.make_hostile_tree(tmp_path / "root")
    assert _snapshot(again) == _snapshot(tree)
