"""Discovery archives: skillsite's USTAR writer makes exactly the stream tarfile makes."""
from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.wellknown import deterministic_tar_gz, fits_ustar, ustar_name


def tarfile_stream(members: list[tuple[str, Path]], mtime: int) -> bytes:
    """The reference: the standard library's writer in USTAR format, with our fixed fields."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, source in sorted(members):
            data = source.read_bytes()
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


SEGMENT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=70)


@settings(max_examples=60, deadline=None)
@given(members=st.dictionaries(st.lists(SEGMENT, min_size=1, max_size=4).map("/".join),
                               st.binary(max_size=1500), min_size=1, max_size=5),
       mtime=st.integers(min_value=0, max_value=8 ** 11 - 1))
def test_archives_hold_the_stream_tarfile_writes(tmp_path_factory, members, mtime):
    folder = tmp_path_factory.mktemp("members")
    pairs = []
    for i, (name, data) in enumerate(members.items()):
        path = folder / str(i)
        path.write_bytes(data)
        pairs.append((name, path))
    try:
        expected = tarfile_stream(pairs, mtime)
    except ValueError:   # a name USTAR cannot hold: ours refuses it too
        assert not all(fits_ustar(name) for name in members)
        with pytest.raises(ValueError):
            deterministic_tar_gz(pairs, mtime)
        return
    assert all(fits_ustar(name) for name in members)
    archive = deterministic_tar_gz(pairs, mtime)
    assert gzip.decompress(archive) == expected
    # gzip header time: the given one (not the clock), or none when it needs more than 32 bits
    assert archive[4:8] == (mtime if mtime < 2 ** 32 else 0).to_bytes(4, "little")
    # gzip magic, deflate, no flags: no file name or comment (isal's deflate or zlib's behind it)
    assert archive[:4] == b"\x1f\x8b\x08\x00"


def test_long_names_split_at_a_slash_or_fail():
    assert ustar_name("a" * 100) == (b"", b"a" * 100)
    assert ustar_name("p" * 150 + "/" + "n" * 100) == (b"p" * 150, b"n" * 100)
    with pytest.raises(ValueError):
        ustar_name("n" * 101)
    assert not fits_ustar("p" * 156 + "/n")
