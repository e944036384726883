"""What a file's first bytes say it is (magic numbers), and whether they are text at all."""
from __future__ import annotations

#: (magic bytes, offset, kind)
_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x7fELF", 0, "ELF executable"), (b"\xfe\xed\xfa\xce", 0, "Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", 0, "Mach-O executable"), (b"\xce\xfa\xed\xfe", 0, "Mach-O executable"),
    (b"\xcf\xfa\xed\xfe", 0, "Mach-O executable"), (b"\xca\xfe\xba\xbe", 0, "Mach-O or Java class"),
    (b"MZ", 0, "PE executable"), (b"\x00asm", 0, "WebAssembly module"),
    (b"\x89PNG\r\n\x1a\n", 0, "image"), (b"\xff\xd8\xff", 0, "image"), (b"GIF8", 0, "image"),
    (b"BM", 0, "image"), (b"\x00\x00\x01\x00", 0, "image"), (b"II*\x00", 0, "image"), (b"MM\x00*", 0, "image"),
    (b"WEBP", 8, "image"), (b"ftypavif", 4, "image"), (b"ftypheic", 4, "image"),
    (b"%PDF", 0, "PDF"), (b"PK\x03\x04", 0, "zip"), (b"PK\x05\x06", 0, "zip"), (b"\x1f\x8b", 0, "gzip"),
    (b"BZh", 0, "bzip2"), (b"\xfd7zXZ\x00", 0, "xz"), (b"7z\xbc\xaf\x27\x1c", 0, "7z"), (b"Rar!", 0, "rar"),
    (b"wOFF", 0, "font"), (b"wOF2", 0, "font"), (b"\x00\x01\x00\x00", 0, "font"), (b"OTTO", 0, "font"),
    (b"SQLite format 3\x00", 0, "SQLite database"), (b"ID3", 0, "audio"), (b"OggS", 0, "audio"),
    (b"fLaC", 0, "audio"), (b"ftyp", 4, "video"), (b"\x1aE\xdf\xa3", 0, "video"), (b"RIFF", 0, "media"),
    (b"\xd0\xcf\x11\xe0", 0, "OLE document"),
)
#: Kinds of compiled code.
EXECUTABLE_KINDS = frozenset({"ELF executable", "Mach-O executable", "PE executable", "Mach-O or Java class",
                              "WebAssembly module"})
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def content_kind(head: bytes) -> str | None:
    """What the first bytes of a file say it is (None: no known magic)."""
    for magic, offset, kind in _MAGIC:
        if head[offset:offset + len(magic)] == magic:
            if kind == "PE executable" and b"PE\x00\x00" not in head[:1024]:
                continue  # "MZ" alone starts plenty of text
            if kind in ("image", "font", "media") \
                    and magic in (b"BM", b"\x00\x00\x01\x00", b"\x00\x01\x00\x00", b"RIFF") and len(head) < 16:
                continue
            return kind
    if head.startswith(b"#!"):
        return "script"
    return None


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first 8 KiB (and no UTF-16 byte order mark): not text."""
    return b"\x00" in head[:8192] and not head.startswith((b"\xff\xfe", b"\xfe\xff"))


def lfs_pointer(head: bytes) -> bool:
    """Whether a file is a Git LFS pointer (a text file standing in for the real content)."""
    return head.startswith(_LFS_POINTER)
