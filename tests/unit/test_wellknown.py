"""Discovery archives: deterministic .tar.gz files (a .zip when a name is too long for a tar header) an
installer can unpack safely."""
from __future__ import annotations

import gzip
import hashlib
import io
import struct
import tarfile
import zipfile
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.publish.wellknown import (ARCHIVE_LEVEL, archive_path, archive_suffix, deterministic_archive,
                                        deterministic_tar_gz, deterministic_zip, fits_ustar, zip_date_time)

SEGMENT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=70)
MEMBERS = st.dictionaries(st.lists(SEGMENT, min_size=1, max_size=4).map("/".join), st.binary(max_size=1500),
                          min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(members=MEMBERS, mtime=st.integers(min_value=0, max_value=8 ** 11 - 1))
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


#: Paths no USTAR header holds, as in Yuyz0112/public-api-skills (144 bytes, 122 after its last '/')
#: and modelstudioai/skills (263 bytes here: past the 255 a prefix and a name hold together).
OPERATION = ("references/operations/deleteApiV4ProjectsIdPackagesConanV2ConansPackageNamePackageVersion"
             "PackageUsernamePackageChannelRevisionsRecipeRevision.md")
DEEP = "raw/application-api-reference/" + "/".join(["bailian-knowledge-base-and-app-management-" + "x" * 55] * 2) \
    + "/api-bailian-2023-12-29-addcategory.md"


@settings(max_examples=60, deadline=None)
@given(members=MEMBERS, mtime=st.integers(min_value=0, max_value=8 ** 11 - 1))
def test_zips_hold_exactly_their_members_with_fixed_metadata(members, mtime):
    pairs = list(members.items())
    archive = deterministic_zip(pairs, mtime)
    assert archive == deterministic_zip(list(reversed(pairs)), mtime)  # the order given does not matter
    with zipfile.ZipFile(io.BytesIO(archive)) as unpacked:
        assert unpacked.testzip() is None and unpacked.comment == b""
        infos = unpacked.infolist()
        assert [i.filename for i in infos] == sorted(members)
        for info in infos:
            assert (info.date_time, info.create_system, info.external_attr) == (zip_date_time(mtime), 3, 0o100644 << 16)
            assert (info.compress_type, info.extra, info.comment) == (zipfile.ZIP_DEFLATED, b"", b"")
            assert unpacked.read(info) == members[info.filename]


@pytest.mark.parametrize("mtime, date_time", [
    (0, (1980, 1, 1, 0, 0, 0)),                           # before 1980: none earlier in a zip
    (315532799, (1980, 1, 1, 0, 0, 0)),
    (315532800, (1980, 1, 1, 0, 0, 0)),
    (1700000001, (2023, 11, 14, 22, 13, 20)),             # UTC, seconds even
    (4354819198, (2107, 12, 31, 23, 59, 58)),             # the last a zip holds
    (8 ** 11 - 1, (2107, 12, 31, 23, 59, 58)),            # the latest SOURCE_DATE_EPOCH a build takes
])
def test_zip_times_are_utc_clamped_to_what_a_zip_holds(mtime, date_time):
    assert zip_date_time(mtime) == date_time


@pytest.mark.parametrize("name", [OPERATION, DEEP, "n" * 101, "\u00e9" * 60, "d/" * 600 + "f"],
                         ids=["144", "263", "101", "120-utf8", "1201"])
def test_a_name_too_long_for_ustar_makes_the_archive_a_zip_holding_it_whole(name):
    assert not fits_ustar(name) and archive_suffix(["SKILL.md", name]) == ".zip"
    assert archive_path("apis", ["ok.md", name]) == ".well-known/agent-skills/archives/apis.zip"
    members = [("SKILL.md", b"skill"), (name, b"long"), ("references/caf\u00e9.md", b"short")]
    archive = deterministic_archive(members, 1700000000)
    assert archive == deterministic_zip(members, 1700000000) and archive[:4] == b"PK\x03\x04"
    with zipfile.ZipFile(io.BytesIO(archive)) as unpacked:
        assert {i.filename: unpacked.read(i) for i in unpacked.infolist()} == dict(members)


def test_archives_whose_names_all_fit_stay_tar_gz():
    members = [("SKILL.md", b"s"), ("p" * 150 + "/" + "n" * 100, b"split"), ("\u00e9" * 50, b"100 bytes")]
    assert archive_suffix(name for name, _ in members) == ".tar.gz"
    assert archive_path("apis", [name for name, _ in members]) == ".well-known/agent-skills/archives/apis.tar.gz"
    assert archive_path("apis") == ".well-known/agent-skills/archives/apis.tar.gz"
    assert deterministic_archive(members, 7) == deterministic_tar_gz(members, 7)


LOCAL, CENTRAL, END = struct.Struct("<IHHHHHIIIHH"), struct.Struct("<IHHHHHHIIIHHHHHII"), struct.Struct("<IHHHHIIH")


def test_the_zip_headers_hold_nothing_but_the_members():
    """Every field of every header, read from the bytes: the data deflated raw at ARCHIVE_LEVEL (what
    zlib makes of it, as the .tar.gz's gzip), no data descriptor, no extra field, no comment; made
    on Unix (3) by version 2.0, a regular file of mode 0644; the UTF-8 flag (2048) on the non-ASCII
    name alone; the MS-DOS time of 1700000001 in UTC (22:13:20, seconds halved)."""
    members = [("SKILL.md", b"---\nname: x\n---\n" * 9), (OPERATION, b""), ("caf\u00e9.md", b"c" * 300)]
    archive = deterministic_zip(members, 1700000001)
    dos_time, dos_date = 22 << 11 | 13 << 5 | 10, (2023 - 1980) << 9 | 11 << 5 | 14
    offset, offsets = 0, []
    for name, data in sorted(members):
        raw = name.encode("utf-8")
        flag = 0 if raw.isascii() else 2048
        deflate = zlib.compressobj(ARCHIVE_LEVEL, zlib.DEFLATED, -15)
        packed = deflate.compress(data) + deflate.flush()
        assert LOCAL.unpack_from(archive, offset) == (0x04034B50, 20, flag, 8, dos_time, dos_date, zlib.crc32(data),
                                                      len(packed), len(data), len(raw), 0)
        start = offset + LOCAL.size
        assert archive[start:start + len(raw) + len(packed)] == raw + packed
        offsets.append(offset)
        offset = start + len(raw) + len(packed)
    directory = offset
    for (name, data), at in zip(sorted(members), offsets):
        raw = name.encode("utf-8")
        local = LOCAL.unpack_from(archive, at)
        assert CENTRAL.unpack_from(archive, offset) == (0x02014B50, 3 << 8 | 20, 20, *local[2:9], len(raw), 0, 0, 0,
                                                        0, 0o100644 << 16, at)
        assert archive[offset + CENTRAL.size:offset + CENTRAL.size + len(raw)] == raw
        offset += CENTRAL.size + len(raw)
    assert END.unpack_from(archive, offset) == (0x06054B50, 0, 0, 3, 3, offset - directory, directory, 0)
    assert len(archive) == offset + END.size


def test_archives_whose_names_all_fit_keep_their_ustar_bytes():
    """The bytes a catalog's archives have had (their digests are in its indexes): a non-ASCII
    name and one split at a '/' in USTAR headers."""
    members = [("SKILL.md", b"---\nname: x\n---\n"), ("references/" + "\u00e9" * 40 + ".md", b"accents"),
               ("p" * 150 + "/" + "n" * 100, b"split")]
    raw = gzip.decompress(deterministic_tar_gz(members, 1700000000))
    assert hashlib.sha256(raw).hexdigest() == "3b5e5e4c99f3f4128982ceb3556f891ad6ad514cadbbca375ee87318b9ea7a44"
