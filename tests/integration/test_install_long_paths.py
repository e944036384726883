"""A skill with a bundled path too long for a USTAR tar header (SK010), installed from a built
catalog: the loader fetches each file by its manifest path, whole; a destination where the file
system cannot hold that path is an InstallError naming it, and nothing is left behind."""
from __future__ import annotations

import errno
from pathlib import Path

import pytest

from support import write_skill
from skillsite.loader import Catalog, InstallError
from skillsite.publish.build import build

pytestmark = pytest.mark.each_python  # runs on the lowest admitted Python too (.ci/run)

#: 1,255 bytes: five folders and a file name of 250 bytes each (255 is what most file systems take).
LONG = "/".join(["d" * 200] * 5) + "/" + "f" * 246 + ".txt"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    skill = write_skill(tmp_path / "src", "apis", "name: apis\ndescription: d\n")
    (skill / LONG).parent.mkdir(parents=True)
    (skill / LONG).write_text("far down\n")
    out = tmp_path / "site"
    result = build([tmp_path / "src"], out)
    assert result.ok and [d.code for d in result.diagnostics] == ["SK010"]
    return out


def test_an_install_gets_the_file_under_its_whole_long_path(site: Path, tmp_path: Path) -> None:
    dest = tmp_path / "installed" / "apis"
    Catalog.open(site).install("apis", dest)
    assert sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file()) == ["SKILL.md", LONG]
    assert (dest / LONG).read_text() == "far down\n"


def test_a_path_the_file_system_cannot_hold_there_is_an_install_error(site: Path, tmp_path: Path) -> None:
    """Twelve folders of 250 bytes: the destination can be made, the long file's path in it would
    pass the 4,096 bytes Linux takes (one of its folders does)."""
    parent = tmp_path.joinpath(*["e" * 250] * 12)
    with pytest.raises(InstallError) as caught:
        Catalog.open(site).install("apis", parent / "apis")
    assert caught.value.errno == errno.ENAMETOOLONG
    assert str(caught.value).startswith(f"cannot install apis into {parent / 'apis'}: ")
    assert "/" + "d" * 200 in str(caught.value) and str(caught.value).endswith(": File name too long")
    assert not parent.exists() or list(parent.iterdir()) == []
