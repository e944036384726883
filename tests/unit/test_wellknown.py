"""Discovery archives: deterministic .tar.gz files an installer can unpack safely."""
from __future__ import annotations

import gzip
import io
import tarfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.publish.wellknown import deterministic_tar_gz, fits_ustar

SEGMENT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=70)


@settings(max_examples=60, deadline=None)
@given(members=st.dictionaries(st.lists(SEGMENT, min_size=1, max_size=4).map("/".join),
                               st.binary(max_size=1500), min_size=1, max_size=5),
       mtime=st.integers(min_value=0, max_value=8 ** 11 - 1))
def test_archives_hold_exactly_their_members_with_fixed_metadata(members, mtime):
    pairs = list(members.items())
    if not all(fits_ustar(name) for name in members):
        with pytest.raises(ValueError):
            deterministic_tar_gz(pairs, mtime)
        return
    archive = deterministic_tar_gz(pairs, mtime)
    assert archive == deterministic_tar_gz(list(reversed(pairs)), mtime)  # the order given does not matter
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        infos = tar.getmembers()
        assert [i.name for i in infos] == sorted(members)
        for info in infos:
            assert info.isreg() and info.mode == 0o644 and info.mtime == mtime
            assert (info.uid, info.gid, info.uname, info.gname) == (0, 0, "", "")
            assert tar.extractfile(info).read() == members[info.name]
    # gzip: magic, deflate, no flags (no file name), the given time or none past 32 bits
    assert archive[:4] == b"\x1f\x8b\x08\x00"
    assert archive[4:8] == (mtime if mtime < 2 ** 32 else 0).to_bytes(4, "little")
    assert gzip.decompress(archive)[257:263] == b"ustar\x00"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1,
                        max_size=90), min_size=1, max_size=5).map("/".join))
def test_fits_ustar_says_what_tarfile_accepts(name):
    info = tarfile.TarInfo(name)
    try:
        info.tobuf(format=tarfile.USTAR_FORMAT)
        accepted = True
    except ValueError:
        accepted = False
    assert fits_ustar(name) == accepted


def test_long_names_split_at_a_slash_or_fail():
    assert fits_ustar("a" * 100)
    assert fits_ustar("p" * 150 + "/" + "n" * 100)
    assert not fits_ustar("n" * 101)
    assert not fits_ustar("p" * 156 + "/n")
    with pytest.raises(ValueError):
        deterministic_tar_gz([("n" * 101, b"x")], 0)
