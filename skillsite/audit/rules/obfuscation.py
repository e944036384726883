"""Obfuscation: long encoded blobs in scripts (SK640), content that does not match its extension
(SK641), bundled executables (SK642), hidden files (SK643) and files not audited (SK644).

Data URIs (images and fonts inlined in HTML or CSS) and integrity hashes are not blobs.  Whole
files are judged from their magic bytes (:mod:`skillsite.audit.magic`).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterator

from skillsite.audit.declare import COMMANDS, NEVER, FileHead, Rule, check, pattern
from skillsite.audit.hit import Hit
from skillsite.audit.magic import EXECUTABLE_KINDS, content_kind, lfs_pointer, looks_binary
from skillsite.audit.text import CODE_SUFFIXES, MARKDOWN_SUFFIXES, Document

MIN_BLOB = 200
_SHORTEST = MIN_BLOB // 2  # characters of the shortest blob (\x escapes)
_DATA_URI = re.compile(r"data:[\w/+.-]+(?:;[\w=.-]+)*;base64,\s*$", re.IGNORECASE)
_LOWER, _UPPER, _DIGIT = re.compile("[a-z]"), re.compile("[A-Z]"), re.compile("[0-9]")


def _script_with_long_word(doc: Document) -> bool:
    """A script holding a word long enough to be a blob (a blob holds no white space)."""
    return doc.kind == "code" and max(map(len, doc.text.split()), default=0) >= _SHORTEST


def _base64(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Mixed case and digits (not a long word or path), and not a data URI."""
    blob = match.group()
    if not (_LOWER.search(blob) and _UPPER.search(blob) and _DIGIT.search(blob)):
        return None
    if _DATA_URI.search(doc.text, max(0, match.start() - 100), match.start()):
        return None
    return replace(hit, end=match.start() + 20, detail=f": {len(blob)} base64 characters")


def _hex(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    return replace(hit, end=match.start() + 20, detail=f": {len(match.group())} hex characters")


ENCODED_BLOB = Rule(
    "SK640", "obfuscation", "medium", "long encoded blob in a script",
    "Hundreds of base64 or hex characters in a script are a payload nobody can review; ship the "
    "data as a file or the source it was made from.", COMMANDS, patterns=(
        pattern(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{%d,}={0,2}(?![A-Za-z0-9+/=_-])" % MIN_BLOB, flags=0,
                scope="written", condition=_base64),
        pattern(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){%d,}(?![0-9A-Fa-f])|(?:\\x[0-9A-Fa-f]{2}){%d,}"
                % (MIN_BLOB // 2, MIN_BLOB // 8), flags=0, scope="written", condition=_hex),
    ), applies=_script_with_long_word)

DISGUISED = Rule(
    "SK641", "obfuscation", "high", "file content does not match its extension",
    "An executable or script named like an image or a document is disguised (so is an archive or an "
    "image named like a text file); content that is not what its extension claims is at least "
    "misleading.", NEVER)
COMPILED = Rule(
    "SK642", "obfuscation", "medium", "bundled executable or compiled code",
    "Compiled programs (ELF, Mach-O, PE) and bytecode cannot be reviewed from the skill's sources.", NEVER)

#: extension -> the kinds its content may be
_EXPECTED: dict[str, frozenset[str]] = {ext: frozenset(kinds) for exts, kinds in (
    ("png jpg jpeg gif bmp ico tif tiff webp avif heic", {"image"}), ("pdf", {"PDF"}),
    ("zip docx xlsx pptx jar whl epub odt ods odp apk nupkg vsix xpi crx", {"zip"}),
    ("gz tgz", {"gzip"}), ("bz2", {"bzip2"}), ("xz", {"xz"}), ("7z", {"7z"}), ("rar", {"rar"}),
    ("woff woff2 ttf otf", {"font"}), ("sqlite db sqlite3", {"SQLite database"}),
    ("mp3 ogg flac wav m4a", {"audio", "media", "video"}), ("mp4 mov webm mkv avi", {"video", "media"}),
    ("doc xls ppt msg", {"OLE document"}),
    ("exe dll sys scr com", {"PE executable"}), ("so o a node bin out elf", {"ELF executable"}),
    ("dylib", {"Mach-O executable", "Mach-O or Java class"}), ("class", {"Mach-O or Java class"}),
    ("wasm", {"WebAssembly module"})) for ext in exts.split()}
#: Extensions of text files: binary content under one of them (a zip named ``notes.txt``) is disguised.
_TEXT_SUFFIXES = frozenset({s.lstrip(".") for s in MARKDOWN_SUFFIXES | CODE_SUFFIXES} | {
    "json", "jsonl", "yaml", "yml", "toml", "csv", "tsv", "xml", "html", "htm", "css", "ini", "cfg", "conf", "log"})


@check(DISGUISED, COMPILED, scope="file")
def content_type(file: FileHead) -> Iterator[Hit]:
    """What the first bytes say against what the extension claims: compiled code where it is
    expected (or named as nothing) is SK642, anything else that is not what it claims SK641."""
    suffix, kind = file.suffix, content_kind(file.head)
    expected = _EXPECTED.get(suffix)
    if lfs_pointer(file.head):
        kind = "lfs"
    if kind in EXECUTABLE_KINDS:
        if expected is not None and kind in expected or (not suffix and kind != "WebAssembly module"):
            yield Hit("SK642", 0, 0, f": {kind}", folded=False)
        elif kind == "Mach-O or Java class" and suffix == "class":
            yield Hit("SK642", 0, 0, ": Java class", folded=False)
        else:
            yield Hit("SK641", 0, 0, f": a {kind} named .{suffix}", folded=False)
    elif kind == "script" and expected is not None:
        yield Hit("SK641", 0, 0, f": a script named .{suffix}", folded=False)
    elif expected is not None and kind not in expected and kind != "lfs" and file.size > 0:
        shown = kind or ("text" if not looks_binary(file.head) else "unknown binary data")
        yield Hit("SK641", 0, 0, f": {shown} named .{suffix}", severity="medium", folded=False)
    elif kind is not None and kind not in ("script", "lfs") and suffix in _TEXT_SUFFIXES:
        yield Hit("SK641", 0, 0, f": {kind} named .{suffix}", severity="medium", folded=False)
    elif suffix in ("pyc", "pyo"):
        yield Hit("SK642", 0, 0, ": Python bytecode", folded=False)
    elif suffix in ("jar", "war", "apk") and kind == "zip":
        yield Hit("SK642", 0, 0, f": a compiled {'Android app' if suffix == 'apk' else 'Java archive'}", folded=False)


HIDDEN_FILE = Rule(
    "SK643", "obfuscation", "low", "hidden file",
    "Dotfiles do not show in most file listings; a hidden script is medium.", NEVER)

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


@check(HIDDEN_FILE, scope="file")
def hidden_files(file: FileHead) -> Iterator[Hit]:
    """A dotfile, or a file in a dot-folder, other than the usual configuration (a script: medium)."""
    parts = file.path.split("/")
    hidden = [p for p in parts[:-1] if p.startswith(".") and p not in _HIDDEN_FOLDERS_OK]
    name = parts[-1]
    if name.startswith(".") and not any(name == ok or name.startswith(ok + ".") for ok in _HIDDEN_OK):
        hidden.append(name)
    if hidden:
        kind = content_kind(file.head)
        script = kind == "script" or file.suffix in _SCRIPT_SUFFIXES or file.executable or kind in EXECUTABLE_KINDS
        yield Hit("SK643", 0, 0, f": {hidden[0]}" + (" (a script)" if script else ""),
                  severity="medium" if script else None, folded=False)


#: Reported by the engine, which reads the files.
NOT_AUDITED = Rule(
    "SK644", "obfuscation", "low", "file not audited",
    "Files over 1 MiB, files that cannot be read, folders that cannot be listed and what an archive holds past "
    "its first 200 members, 8 MiB or a member's first MiB are not scanned; review "
    "them by hand (what cannot be read or listed is reported high: it could hide anything).", NEVER)
