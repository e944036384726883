"""The files inside a bundled zip or tar archive, read in memory for the audit: a payload packed
in an archive that a script unpacks is as much a part of the skill as a loose file.

Nothing is extracted to disk and member names are only labels.  What is read is capped: each
archive, nested or not, to its own members and bytes, and one bundled archive with every archive
nested in it to a total (:class:`ArchiveBudget`), so a zip bomb costs at most the caps.  An
archive that cannot be read (cut short, no zip directory), or a member that is encrypted or whose
compressed data is corrupt, raises :class:`SealedMember` after yielding what was read before the
problem: what it holds cannot be seen, and extracting tools still write out what they can.  An archive inside an
archive is opened the same way, from the bytes read (:func:`members_of`).
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Iterator

from skillsite.audit.files import MAX_TEXT_BYTES, SkillFile
from skillsite.diagnostics import printable

MAX_MEMBERS = 200
MAX_ARCHIVE_BYTES = 8 * 1024 * 1024
#: What one bundled archive may make the audit read in all, the archives nested in it included
#: (each of which has the caps above of its own).
MAX_TOTAL_MEMBERS = 10 * MAX_MEMBERS
MAX_TOTAL_BYTES = 4 * MAX_ARCHIVE_BYTES
#: The largest archive opened at all, a limit of its own beside the caps on what is read from one
#: (a larger one is left out whole).
MAX_OPENED_BYTES = 4 * MAX_ARCHIVE_BYTES
#: Archives opened, by suffix: zips, and the packages of code that are zips (Python wheels, Java,
#: NuGet, editor and browser extensions).
ZIP_SUFFIXES = (".zip", ".jar", ".war", ".whl", ".nupkg", ".vsix", ".xpi", ".crx")
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz")
#: The first bytes of gzip, bzip2 and xz data (a tar inside, or one compressed file), and how to read each.
_COMPRESSED = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))
_COMPRESSED_MAGIC = tuple(magic for magic, _ in _COMPRESSED)
#: Zip-based formats that are not opened: documents, and Android apps (compiled code only).
_ZIP_FORMATS = (".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".epub", ".apk")
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def archive_kind(path: str, head: bytes) -> str | None:
    """"zip" or "tar" when the audit opens the file: by its name, or by its first bytes whatever
    its name (a zip named ``notes.txt`` is opened too); None otherwise."""
    name = path.lower()
    if name.endswith(ZIP_SUFFIXES) or head.startswith(_ZIP_MAGIC) and not name.endswith(_ZIP_FORMATS):
        return "zip"
    if name.endswith(TAR_SUFFIXES) or head.startswith(_COMPRESSED_MAGIC) or head[257:262] == b"ustar":
        return "tar"
    return None


@dataclass
class ArchiveBudget:
    """The members and bytes the audit still reads of one bundled archive and the archives nested
    in it, all together: with only the caps of each archive, a 10 KB tar.gz of 200 tar.gz of 200
    tar.gz of 200 scripts was eight million members read."""

    members: int = MAX_TOTAL_MEMBERS
    bytes: int = MAX_TOTAL_BYTES


class SealedMember(Exception):
    """A member of an archive cannot be read (encrypted, or its compressed data is corrupt)."""


def archive_members(file: SkillFile, kind: str, left_out: list[str],
                    budget: ArchiveBudget | None = None) -> Iterator[tuple[str, bytes]]:
    """(member name, first bytes) of each regular file in the archive (``kind`` from
    :func:`archive_kind`), within the caps (``budget``: a new one when None); SealedMember for one
    that cannot be read.  What the caps leave unread is said in ``left_out`` (the audit reports
    it: silence would hide it)."""
    yield from members_of(file.abspath, file.size, kind, left_out, budget or ArchiveBudget())


def members_of(source: str | bytes, size: int, kind: str, left_out: list[str],
               budget: ArchiveBudget) -> Iterator[tuple[str, bytes]]:
    """:func:`archive_members` of an archive at a path, or in bytes (one read from another
    archive, drawing on the budget of the archive it was read from)."""
    if size > MAX_OPENED_BYTES:
        left_out.append(f"archive of {size:,} bytes, over {MAX_OPENED_BYTES:,}, not opened")
        return
    members = _zip_members if kind == "zip" else _tar_members
    left = MAX_ARCHIVE_BYTES
    try:
        for count, (name, data, member_size) in enumerate(members(io.BytesIO(source) if isinstance(source, bytes)
                                                                  else source)):
            if count >= MAX_MEMBERS or left <= 0:
                left_out.append(f"members past the first {MAX_MEMBERS} or {MAX_ARCHIVE_BYTES:,} bytes not read")
                return
            if budget.members <= 0 or budget.bytes <= 0:
                left_out.append(f"members past the first {MAX_TOTAL_MEMBERS:,} or {MAX_TOTAL_BYTES:,} bytes of the "
                                "archive and those inside it not read")
                return
            if member_size > len(data):
                left_out.append(f"member '{shown_name(name)}' of {member_size:,} bytes read to {MAX_TEXT_BYTES:,} only")
            left -= len(data)
            budget.members -= 1
            budget.bytes -= len(data)
            yield name, data
    except (RuntimeError, lzma.LZMAError) as exc:  # zipfile: "is encrypted, password required"; bad LZMA data
        raise SealedMember(str(exc)[:200]) from None
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, tarfile.TarError, zlib.error,
            NotImplementedError) as exc:
        raise SealedMember(f"the archive cannot be read: {str(exc)[:160]}") from None


def shown_name(name: str) -> str:
    """A member's name as a message shows it: escaped as every text output escapes a name."""
    return printable(name)


#: What a member's damaged data raises while it is read (a bad CRC, a cut stream); extracting
#: tools still write out what they can, so the member is unseen, not absent.
_DAMAGED = (zipfile.BadZipFile, EOFError, zlib.error, tarfile.ReadError, OSError)


def _zip_members(path: str | BinaryIO) -> Iterator[tuple[str, bytes, int]]:
    """A zip's files: name, first bytes and size; SealedMember for one whose data is damaged."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.is_dir():
                try:
                    with archive.open(info) as member:
                        data = member.read(MAX_TEXT_BYTES)
                except _DAMAGED as exc:
                    raise SealedMember(f"{shown_name(info.filename)}: {str(exc)[:160]}") from None
                yield info.filename, data, info.file_size


def _tar_members(path: str | BinaryIO) -> Iterator[tuple[str, bytes, int]]:
    """A tar's files (compressed or not), name, first bytes and size; a compressed file that holds
    no tar is its one member."""
    try:
        archive = tarfile.open(path, mode="r:*") if isinstance(path, str) else tarfile.open(fileobj=path, mode="r:*")
    except (tarfile.ReadError, EOFError, OSError, zlib.error, lzma.LZMAError):  # no tar, or cut before its first header
        if not isinstance(path, str):
            path.seek(0)
        yield from _compressed_file(path)
        return
    with archive:
        try:
            for info in archive:
                if info.isfile():
                    member = archive.extractfile(info)
                    if member is not None:
                        yield info.name, member.read(MAX_TEXT_BYTES), info.size
        except _DAMAGED as exc:  # a cut or corrupt stream after the archive opened
            raise SealedMember(f"damaged data: {str(exc)[:160]}") from None


def _compressed_file(path: str | BinaryIO) -> Iterator[tuple[str, bytes, int]]:
    """The first bytes of one gzip, bzip2 or xz compressed file, named as :func:`_uncompressed_name`
    names it (its size: one more byte than read when there is more); cut short
    or corrupt, what came out before the problem, then SealedMember.  No tar could be read from it,
    so its name must not say it is one: ``payload.tar.gz`` holding a gzipped script was opened as
    a tar again, and its script was never read."""
    if isinstance(path, str):
        with open(path, "rb") as raw:
            head = raw.read(6)
    else:
        head = path.read(6)
        path.seek(0)
    opener = next((opener for magic, opener in _COMPRESSED if head.startswith(magic)), None)
    if opener is None:
        raise SealedMember("neither a tar nor a gzip, bzip2 or xz file")
    name = _uncompressed_name(os.path.basename(path)) if isinstance(path, str) else "(compressed data)"
    data, damaged = b"", None
    with opener(path, "rb") as stream:
        try:
            while len(data) < MAX_TEXT_BYTES and (chunk := stream.read1(min(65536, MAX_TEXT_BYTES - len(data)))):
                data += chunk  # a piece at a time: what came out before a cut is kept
            more = len(stream.read(1))
        except (EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
            damaged, more = exc, 0
    if data:
        yield name, data, len(data) + more
    if damaged is not None:
        raise SealedMember(f"damaged data: {str(damaged)[:160]}")


#: The suffixes a compressed file's name loses for its content's (a compressed tar's too: it holds none).
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".tgz", ".tbz2", ".tbz", ".txz", ".tar")


def _uncompressed_name(name: str) -> str:
    """The name of a compressed file's content: without its suffixes (``payload.tar.gz``,
    ``.tgz``, ``x.tar.tar.gz``: none is left that says it is a tar)."""
    while name.lower().endswith(_COMPRESSED_SUFFIXES):
        name = name[:name.rindex(".")]
    return name or "(compressed data)"
