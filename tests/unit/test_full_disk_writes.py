"""A full disk while writing a first file: the error names the file, and nothing half-made is
left to get in the way of the next try (the error of a full disk comes on close, with no name)."""
from __future__ import annotations

import errno
from pathlib import Path

import pytest

from skillsite.cache import make_cache_folder
from skillsite.source.scaffold import create_skill

pytestmark = pytest.mark.each_python


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every text file written under tmp_path fails as a full disk does (elsewhere, as ever)."""
    real = Path.write_text

    def write_text(self, *args, **kwargs):
        if str(self).startswith(str(tmp_path)):
            raise OSError(errno.ENOSPC, "No space left on device")  # as close() raises it: no file name
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


def test_a_new_skill_that_cannot_be_written_leaves_no_folder_behind(tmp_path: Path, full_disk: None) -> None:
    with pytest.raises(OSError) as raised:
        create_skill(tmp_path, "my-skill")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(tmp_path / "my-skill" / "SKILL.md")
    assert not (tmp_path / "my-skill").exists()


def test_a_cache_folder_that_cannot_be_written_is_named(tmp_path: Path, full_disk: None) -> None:
    with pytest.raises(OSError) as raised:
        make_cache_folder(tmp_path / "cache")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(tmp_path / "cache" / ".gitignore")
