"""Whole files: content that does not match its extension (SK641), bundled executables
(SK642), hidden files (SK643) and files too large to audit (SK644), judged from magic bytes."""
from __future__ import annotations

from typing import Iterator

from skillsite.audit.hit import Hit
from skillsite.audit.text import CODE_SUFFIXES, MARKDOWN_SUFFIXES

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
_EXECUTABLE_KINDS = frozenset({"ELF executable", "Mach-O executable", "PE executable", "Mach-O or Java class",
                               "WebAssembly module"})
#: extension -> the kinds its content may be
_EXPECTED: dict[str, frozenset[str]] = {}
for _exts, _kinds in (
        ("png jpg jpeg gif bmp ico tif tiff webp avif heic", {"image"}), ("pdf", {"PDF"}),
        ("zip docx xlsx pptx jar whl epub odt ods odp apk nupkg vsix xpi crx", {"zip"}),
        ("gz tgz", {"gzip"}), ("bz2", {"bzip2"}), ("xz", {"xz"}), ("7z", {"7z"}), ("rar", {"rar"}),
        ("woff woff2 ttf otf", {"font"}), ("sqlite db sqlite3", {"SQLite database"}),
        ("mp3 ogg flac wav m4a", {"audio", "media", "video"}), ("mp4 mov webm mkv avi", {"video", "media"}),
        ("doc xls ppt msg", {"OLE document"}),
        ("exe dll sys scr com", {"PE executable"}), ("so o a node bin out elf", {"ELF executable"}),
        ("dylib", {"Mach-O executable", "Mach-O or Java class"}), ("class", {"Mach-O or Java class"}),
        ("wasm", {"WebAssembly module"})):
    for _ext in _exts.split():
        _EXPECTED[_ext] = frozenset(_kinds)
_HIDDEN_OK = frozenset({
    ".gitignore", ".gitattributes", ".gitkeep", ".keep", ".editorconfig", ".npmignore", ".dockerignore",
    ".prettierrc", ".prettierignore", ".eslintrc", ".eslintignore", ".nvmrc", ".node-version",
    ".python-version", ".tool-versions", ".env.example", ".env.sample", ".env.template", ".DS_Store",
    ".markdownlint.json", ".markdownlint.yaml", ".markdownlintrc", ".flake8", ".pylintrc", ".ruff.toml",
    ".npmrc.example", ".yamllint", ".yamllint.yml", ".browserslistrc", ".stylelintrc", ".babelrc",
})
_HIDDEN_FOLDERS_OK = frozenset({".github", ".vscode", ".devcontainer", ".claude-plugin", ".claude", ".cursor",
                                ".agents", ".codex", ".gemini", ".husky", ".changeset", ".storybook"})
_SCRIPT_SUFFIXES = frozenset({"sh", "bash", "zsh", "py", "js", "mjs", "cjs", "ts", "ps1", "rb", "pl", "php",
                              "bat", "cmd", "command"})
#: Extensions of text files: binary content under one of them (a zip named ``notes.txt``) is disguised.
_TEXT_SUFFIXES = frozenset({s.lstrip(".") for s in MARKDOWN_SUFFIXES | CODE_SUFFIXES} | {
    "json", "jsonl", "yaml", "yml", "toml", "csv", "tsv", "xml", "html", "htm", "css", "ini", "cfg", "conf", "log"})
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def content_kind(head: bytes) -> str | None:
    """What the first bytes of a file say it is (None: no known magic)."""
    for magic, offset, kind in _MAGIC:
        if head[offset:offset + len(magic)] == magic:
            if kind == "PE executable" and b"PE\x00\x00" not in head[:1024]:
                continue  # "MZ" alone starts plenty of text
            if kind in ("image", "font", "media") and magic in (b"BM", b"\x00\x00\x01\x00", b"\x00\x01\x00\x00", b"RIFF") \
                    and len(head) < 16:
                continue
            return kind
    if head.startswith(b"#!"):
        return "script"
    return None


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first 8 KiB (and no UTF-16 byte order mark): not text."""
    return b"\x00" in head[:8192] and not head.startswith((b"\xff\xfe", b"\xfe\xff"))


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[1].lower() if "." in name.lstrip(".") else ""


def check_file(path: str, head: bytes, size: int, executable_bit: bool) -> Iterator[Hit]:
    """SK641-SK643 for one bundled file, from its path and its first bytes."""
    suffix = _suffix(path)
    kind = content_kind(head)
    expected = _EXPECTED.get(suffix)
    if head.startswith(_LFS_POINTER):
        kind = "lfs"
    if kind in _EXECUTABLE_KINDS:
        if expected is not None and kind in expected or (not suffix and kind != "WebAssembly module"):
            yield Hit("SK642", 0, 0, f": {kind}", folded=False)
        elif kind == "Mach-O or Java class" and suffix == "class":
            yield Hit("SK642", 0, 0, ": Java class", folded=False)
        else:
            yield Hit("SK641", 0, 0, f": a {kind} named .{suffix}", folded=False)
    elif kind == "script" and expected is not None:
        yield Hit("SK641", 0, 0, f": a script named .{suffix}", folded=False)
    elif expected is not None and kind not in expected and kind != "lfs" and size > 0:
        shown = kind or ("text" if not looks_binary(head) else "unknown binary data")
        yield Hit("SK641", 0, 0, f": {shown} named .{suffix}", severity="medium", folded=False)
    elif kind is not None and kind not in ("script", "lfs") and suffix in _TEXT_SUFFIXES:
        yield Hit("SK641", 0, 0, f": {kind} named .{suffix}", severity="medium", folded=False)
    elif suffix in ("pyc", "pyo"):
        yield Hit("SK642", 0, 0, ": Python bytecode", folded=False)
    elif suffix in ("jar", "war", "apk") and kind == "zip":
        yield Hit("SK642", 0, 0, f": a compiled {'Android app' if suffix == 'apk' else 'Java archive'}", folded=False)
    parts = path.split("/")
    hidden = [p for p in parts[:-1] if p.startswith(".") and p not in _HIDDEN_FOLDERS_OK]
    name = parts[-1]
    if name.startswith(".") and not any(name == ok or name.startswith(ok + ".") for ok in _HIDDEN_OK):
        hidden.append(name)
    if hidden:
        script = kind == "script" or suffix in _SCRIPT_SUFFIXES or executable_bit or kind in _EXECUTABLE_KINDS
        yield Hit("SK643", 0, 0, f": {hidden[0]}" + (" (a script)" if script else ""),
                  severity="medium" if script else None, folded=False)
