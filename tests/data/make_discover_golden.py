"""Write tests/data/discover_golden.json: what ``discover`` finds in a tree holding every feature of its walk.

    python tests/data/make_discover_golden.py           # writes the golden file
    python tests/data/make_discover_golden.py --check   # exit 1 when it is stale

The tree (made afresh in a temporary folder, inside a git repository of its own) holds
``.gitignore`` files above the source root, at its top and deeper (with negations, anchored and
``**`` rules, a deeper file re-including what an outer one ignores), names the ``exclude``
patterns match, version-control folders however a file system may spell them, tool folders, a
virtual environment and a published catalog, symbolic links inside and out of the root and of
a skill (to files and folders, broken, in a loop, to an enclosing folder), a folder and a file
of mode 000, a named pipe, names with ``@ + %``, spaces and accents and names that are not
UTF-8, nesting past ``MAX_DEPTH``, and several roots (one overriding another's skill, one that
is a skill itself, one a .gitignore above it ignores, one all left out, one missing).

``discover`` runs on it in a child process without root's right to read any file (so that mode
000 means unreadable), with and without ``exclude`` and ``stat_files``.  Everything it returns
is written: each source's fields, bundled files and the audit's listing, and every diagnostic;
paths under the temporary folder as ``$BASE``, and of each stamp its size, its modification time
(set by the script) and whether its change time and inode are those of the file's own status
(they differ from one tree to the next).  ``tests/unit/test_discover_parity.py`` compares today's
``discover`` with the file.  It was first written by ``discover`` before its walk was made
cheaper (run against a checkout: ``PYTHONPATH=CHECKOUT python tests/data/make_discover_golden.py``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GOLDEN = HERE / "discover_golden.json"
#: Every file's modification time (ns): stamps must not depend on when the tree was made.
MTIME_NS = 1_700_000_000_123_456_789
#: What the walk is asked, by name: (exclude patterns, stat_files).
RUNS = {"exclude, stat": (["excluded-*", "alpha/scripts/skip.py", "*.tmp", "hostile/*/drop me", "ex-md/SKILL.md"],
                          True),
        "plain, no stat": ([], False)}
ROOTS = ("repo/mid/src", "other", "solo", "repo/build/ignored-root", "repo/mid/all-out", "missing")


def _write(path: Path, text: str = "x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _skill(folder: Path, file: str = "SKILL.md") -> None:
    _write(folder / file, f"---\nname: {folder.name}\ndescription: d\n---\n# Body\n")


def _link(path: Path, target: str | Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def make_tree(base: Path) -> None:
    """The tree under ``base`` (folders of mode 000 left to :func:`lock`)."""
    repo = base / "repo"
    (repo / ".git").mkdir(parents=True)
    _write(repo / ".gitignore", "*.log\n!keep.log\nbuild/\n")
    _write(repo / "mid" / ".gitignore", "secret*\n/src/top-only.txt\n")
    src = repo / "mid" / "src"
    _write(src / ".gitignore", "tmp/\n*.bak\n!important.bak\ndocs/**/draft.md\n/anchored.txt\n")
    _write(src / "anchored.txt")
    _write(src / "top-only.txt")
    _tree_alpha(src)
    _tree_hostile(src)
    _tree_tools(src)
    _tree_links(base, src)
    _tree_odd(src)
    _tree_roots(base, repo)


def _tree_alpha(src: Path) -> None:
    alpha = src / "alpha"
    _skill(alpha)
    _write(alpha / ".gitignore", "!x.bak\nlocal/\n")
    for name in ("scripts/run.py", "scripts/skip.py", "notes.log", "keep.log", "x.bak", "important.bak",
                 "docs/a/b/draft.md", "docs/a/final.md", "docs/draft.md", "local/in.txt", "secret.txt",
                 "anchored.txt", "tmp", "cache.tmp", ".hidden"):
        _write(alpha / name)
    _skill(alpha / "build")
    _skill(alpha / "tmp-not" / "tmp")
    _skill(alpha / "local")
    beta = alpha / "beta"
    _skill(beta)
    _write(beta / ".gitignore", "*\n!*/\n!SKILL.md\n!kept.txt\n!.gitignore\n")
    for name in ("kept.txt", "gone.txt", "sub/kept.txt", "sub/gone.md"):
        _write(beta / name)
    _skill(beta / "deeper")
    _skill(src / "excluded-one")
    _write(src / "y.bak")
    _skill(src / "hidden-md")  # a skill whose own SKILL.md its .gitignore ignores, and one excluded
    _write(src / "hidden-md" / ".gitignore", "SKILL.md\n")
    _write(src / "hidden-md" / "notes.txt")
    _skill(src / "ex-md")
    _write(src / "ex-md" / "notes.txt")
    _skill(src / "gamma", "skill.md")
    _write(src / "gamma" / "data.txt", "gamma data\n")


def _tree_hostile(src: Path) -> None:
    hostile = src / "hostile"
    for rel in ("@scope/pkg+1 %20 é", "spa ce/ñandú", "100% done", "a+b@c"):
        _skill(hostile / rel)
        _write(hostile / rel / "a@b+c%d é.txt", "hostile\n")
        _write(hostile / rel / "drop me", "dropped\n")
        _write(hostile / rel / "sub dir" / "x y.md")
    _write(hostile / "NFD e\u0301" / "SKILL.md", "---\nname: nfd\ndescription: d\n---\n")
    os.mkdir(os.fsencode(hostile / "a+b@c") + b"/bad\xff")
    _write(Path(os.fsdecode(os.fsencode(hostile / "a+b@c") + b"/bad\xff/f.txt")))
    with open(os.fsencode(hostile / "a+b@c") + b"/bad\xfe.txt", "w") as handle:
        handle.write("bad\n")


def _tree_tools(src: Path) -> None:
    for folder in (".git", ".GIT", ".g\u200cit", "git~1", ".git::$INDEX_ALLOCATION", ".hg", "node_modules",
                   "__pycache__", ".tox", ".jj", ".git. "):
        _skill(src / folder / "inside")
    _write(src / "alpha" / ".git", "gitdir: elsewhere\n")
    _write(src / "alpha" / ".svn" / "entries")
    _write(src / "env" / "pyvenv.cfg", "home = /usr\n")
    _skill(src / "env" / "lib" / "in-venv")
    _skill(src / "conda" / "in-conda")
    (src / "conda" / "conda-meta").mkdir()
    _write(src / "site" / ".skillsite-output", "")
    _skill(src / "site" / "in-site")
    _skill(src / ".github" / "skills" / "gh")


def _tree_links(base: Path, src: Path) -> None:
    outside = base / "outside"
    _skill(outside / "ext")
    _write(outside / "file.txt")
    _link(src / "linkdir", "alpha")
    _link(src / "gamma" / "link-in.txt", "../gamma/data.txt")
    _link(src / "alpha" / "link-local", "scripts/run.py")
    _link(src / "alpha" / "link-out-skill", "../gamma/data.txt")
    _link(src / "alpha" / "link-outside", outside / "file.txt")
    _link(src / "out-link", outside / "ext")
    _link(src / "broken", "nowhere")
    _link(src / "loop1", "loop2")
    _link(src / "loop2", "loop1")
    _link(src / "alpha" / "up", "..")
    _link(src / "extlink" / "SKILL.md", outside / "ext" / "SKILL.md")
    _link(src / "hostile" / "link to @pkg", "@scope/pkg+1 %20 é")
    _link(src / "alpha" / "beta" / "gone-link.txt", "../scripts/run.py")
    _link(src / "gamma" / "fifo-link", "fifo")
    os.mkfifo(src / "gamma" / "fifo")


def _tree_odd(src: Path) -> None:
    _skill(src / "locked" / "never-seen")
    _skill(src / "gamma" / "closed" / "inner")
    _write(src / "gamma" / "closed" / "c.txt")
    _write(src / "gamma" / "no-read.txt")
    _write(src / "gamma" / "owner-only.txt")
    deep = src / "deep"
    for _ in range(102):
        deep = deep / "d"
    _skill(deep)
    _skill(src / "deep" / "d" / "d")


def _tree_roots(base: Path, repo: Path) -> None:
    _skill(base / "other" / "alpha")
    _skill(base / "other" / "delta")
    _skill(base / "solo")
    _skill(base / "solo" / "part")
    _write(base / "solo" / "ref.md")
    _skill(repo / "build" / "ignored-root" / "kept")
    _write(repo / "mid" / "all-out" / ".gitignore", "*\n")
    _skill(repo / "mid" / "all-out" / "a")
    _skill(repo / "mid" / "all-out" / "excluded-b")


MODES = {"repo/mid/src/locked": 0, "repo/mid/src/gamma/closed": 0, "repo/mid/src/gamma/no-read.txt": 0,
         "repo/mid/src/gamma/owner-only.txt": 0o600}


def settle(base: Path) -> None:
    """Every file's modification time set to :data:`MTIME_NS`, then the modes of :data:`MODES`."""
    for folder, _, files in os.walk(base):
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path) and os.path.isfile(path):
                os.utime(path, ns=(MTIME_NS, MTIME_NS))
    for rel, mode in MODES.items():
        os.chmod(base / rel, mode)


def unlock(base: Path) -> None:
    """The folders of mode 000 opened again, so that the tree can be removed."""
    for rel in MODES:
        os.chmod(base / rel, 0o755)


def as_an_ordinary_user() -> list[str]:
    """A command prefix without root's right to read any file (as tests/support.py's)."""
    if os.geteuid() != 0:
        return []
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


def _stamp(stamp: tuple[int, int, int, int], path: str) -> Any:
    """A stamp as the golden file holds it: size, modification time, whether its change time and
    inode are those of the file at ``path`` (else themselves: a wrong stamp shows)."""
    if stamp == (0, 0, 0, 0):
        return "NO_STAMP"
    st = os.stat(path)
    own = (stamp[2], stamp[3]) == (st.st_ctime_ns, st.st_ino)
    return [stamp[0], stamp[1], "own" if own else [stamp[2], stamp[3]]]


def _source(src: Any) -> dict[str, Any]:
    """One discovered source, every field."""
    audited = None if src.audited is None else [
        [path, _stamp(stamp, os.path.join(src.dir, path)), executable] for path, stamp, executable in src.audited]
    return {"id": src.id, "root": str(src.root), "dir": str(src.dir), "skill_md": str(src.skill_md),
            "types": [type(src.root).__name__, type(src.dir).__name__, type(src.skill_md).__name__],
            "display_path": src.display_path, "rel_path": src.rel_path, "parent_id": src.parent_id,
            "stamp": _stamp(src.stamp, str(src.skill_md)),
            "files": [[f.path, f.abspath, _stamp((f.bytes, f.mtime_ns, f.ctime_ns, f.inode), f.abspath)]
                      for f in src.files],
            "audited": audited}


def child(base: str) -> None:
    """Run in the child: what ``discover`` finds under ``base``, every run, as JSON on stdout."""
    sys.path.append(str(REPO))  # last: a checkout on PYTHONPATH (another version of discover) comes first
    from skillsite.source.discover import discover
    os.chdir(base)
    found = {}
    for name, (exclude, stat_files) in RUNS.items():
        roots = [Path(base) / root for root in ROOTS] + ["solo/part/", "repo/mid/src/alpha"]
        result = discover(roots, exclude, stat_files=stat_files)
        found[name] = {"sources": [_source(s) for s in result.sources],
                       "diagnostics": [d.to_json() for d in result.diagnostics]}
    text = json.dumps(found, ensure_ascii=True, indent=1)
    print(text.replace(json.dumps(base)[1:-1], "$BASE"))


def render() -> str:
    """The golden file's text: ``discover`` run on a fresh tree."""
    with tempfile.TemporaryDirectory(prefix="discover-golden-") as made:
        base = Path(made).resolve()
        make_tree(base)
        settle(base)
        os.chmod(base, 0o755)
        try:
            done = subprocess.run([*as_an_ordinary_user(), sys.executable, __file__, "--child", str(base)],
                                  capture_output=True, text=True, timeout=600)
        finally:
            unlock(base)
    if done.returncode:
        raise SystemExit(f"discover failed in the child ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the golden file is stale")
    parser.add_argument("--child", metavar="BASE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    sys.path.insert(0, str(HERE))  # run as a script, or loaded by a test that only renders
    from golden_file import write_or_check

    write_or_check(GOLDEN, render(), args.check, str(GOLDEN.relative_to(REPO)))


if __name__ == "__main__":
    main()
