"""Installs of one skill into one folder from several processes at once: each raises only the
loader's own errors, the folder ends up complete, and nothing is left beside it."""
from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from support import tree_bytes
from skillsite.loader import Catalog, DestinationExistsError, LoaderError

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

PROCESSES = 6
ROUNDS = 12


def _install(args: tuple[str, str, bool]) -> str:
    """One install in a process of its own: "ok", or the name of what it raised."""
    site, dest, overwrite = args
    try:
        Catalog.open(site).install("release-manager", dest, overwrite=overwrite)
    except LoaderError as exc:
        return type(exc).__name__
    except BaseException as exc:  # noqa: BLE001 - what the test looks for
        return f"foreign {type(exc).__name__}: {exc}"
    return "ok"


@pytest.mark.parametrize("overwrite", [False, True])
def test_concurrent_installs_raise_only_loader_errors_and_leave_nothing_behind(site: Path, tmp_path: Path,
                                                                              overwrite: bool) -> None:
    expected = tmp_path / "expected"
    Catalog.open(site).install("release-manager", expected)
    outcomes: list[str] = []
    # spawn, not fork: the test process may run threads (a browser driver) a fork could catch mid-lock
    with multiprocessing.get_context("spawn").Pool(PROCESSES) as pool:
        for round_ in range(ROUNDS):
            dest = tmp_path / f"round-{round_}" / "release-manager"
            outcomes += pool.map(_install, [(str(site), str(dest), overwrite)] * PROCESSES)
            assert tree_bytes(dest) == tree_bytes(expected)
            assert [p.name for p in dest.parent.iterdir()] == ["release-manager"]
    allowed = {"ok"} if overwrite else {"ok", DestinationExistsError.__name__}
    assert set(outcomes) <= allowed, sorted(set(outcomes) - allowed)
    assert outcomes.count("ok") >= ROUNDS


def test_a_destination_the_machine_refuses_is_an_install_error(site: Path, tmp_path: Path) -> None:
    import errno

    from skillsite.loader import InstallError

    dest = tmp_path / ("x" * 256)   # one byte past what the file system takes (a 250-byte name is fine)
    with pytest.raises(InstallError) as caught:
        Catalog.open(site).install("release-manager", dest)
    assert caught.value.errno == errno.ENAMETOOLONG
    assert str(caught.value).startswith(f"cannot install release-manager into {dest}: ")
    assert list(tmp_path.iterdir()) == []


def test_a_file_where_the_destination_s_folder_must_be_is_named_as_the_cause(site: Path, tmp_path: Path) -> None:
    """``mkdir`` says "File exists" (EEXIST) for a file in the way of a folder to make; the install
    names the cause: that file is not a directory (ENOTDIR), as build and validate do."""
    import errno

    from skillsite.loader import InstallError

    (tmp_path / "skills").write_text("a file, not a folder\n")
    with pytest.raises(InstallError) as caught:
        Catalog.open(site).install("release-manager", tmp_path / "skills" / "release-manager")
    assert caught.value.errno == errno.ENOTDIR
    assert "Not a directory" in str(caught.value) and f"{tmp_path}/skills" in str(caught.value)


@pytest.mark.parametrize("link, errno_name, cause", [
    ("nowhere", "ENOENT", "a broken symbolic link (to 'nowhere', which does not exist) where a folder must be"),
    ("skills", "ELOOP", "a symbolic link loop (its links lead round in a circle) where a folder must be"),
])
def test_a_symbolic_link_leading_nowhere_where_the_destination_s_folder_must_be_is_named(
        site: Path, tmp_path: Path, link: str, errno_name: str, cause: str) -> None:
    """``mkdir`` says "File exists" (EEXIST) for a link that leads nowhere, though nothing is
    there to list: the install says it is a broken link (or a loop) and names it."""
    import errno

    from skillsite.loader import InstallError

    (tmp_path / "skills").symlink_to(link)
    for dest in (tmp_path / "skills" / "release-manager", tmp_path / "skills" / "deeper" / "release-manager"):
        with pytest.raises(InstallError) as caught:
            Catalog.open(site).install("release-manager", dest)
        assert caught.value.errno == getattr(errno, errno_name)
        assert str(caught.value) == f"cannot install release-manager into {dest}: {tmp_path}/skills: {cause}"
    assert [p.name for p in tmp_path.iterdir()] == ["skills"] and (tmp_path / "skills").is_symlink()


def test_a_destination_that_is_a_broken_symbolic_link_is_named_as_one_and_replaced_with_overwrite(
        site: Path, tmp_path: Path) -> None:
    """Nothing is there to list, so "already exists" alone misleads: the link is named as broken."""
    dest = tmp_path / "release-manager"
    dest.symlink_to("gone")
    with pytest.raises(DestinationExistsError) as caught:
        Catalog.open(site).install("release-manager", dest)
    assert str(caught.value) == (f"{dest} already exists as a broken symbolic link (to 'gone', which does not exist); "
                                 "pass overwrite=True to replace it")
    Catalog.open(site).install("release-manager", dest, overwrite=True)
    assert dest.is_dir() and not dest.is_symlink() and (dest / "SKILL.md").is_file()
