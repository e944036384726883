"""Letters that are read as ASCII but are not ASCII: the look-alikes of other scripts, from
Unicode's table of confusable characters (UTS #39, ``data/confusables.txt``), and the styled
forms of Latin letters and digits (mathematical bold or script, circled, parenthesized,
superscript, small capitals) with combining accents.  A model reads "іgnоrе" (Cyrillic),
"𝗶𝗴𝗻𝗼𝗿𝗲", "ⓘⓖⓝⓞⓡⓔ" or "ɪɢɴᴏʀᴇ" as "ignore", so the rules match the text with those folded to
ASCII (:mod:`skillsite.audit.folding`).

The tables are built on first use, once per process.
"""
from __future__ import annotations

import functools
import unicodedata

#: Small capitals, which Unicode does not decompose.
SMALL_CAPITALS: dict[str, str] = {
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j",
    "ᴋ": "k", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ǫ": "q", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u",
    "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z",
}

#: Blocks holding styled forms of ASCII letters and digits (decomposed by NFKD), and combining accents.
STYLED_BLOCKS = (
    (0x02B0, 0x02FF),    # spacing modifier letters (superscript letters)
    (0x0300, 0x036F),    # combining diacritical marks: dropped
    (0x1D00, 0x1DBF),    # phonetic extensions: modifier (superscript) letters
    (0x2070, 0x209F),    # superscripts and subscripts
    (0x2100, 0x218F),    # letterlike symbols and number forms
    (0x2460, 0x24FF),    # circled and parenthesized letters and digits
    (0x1D400, 0x1D7FF),  # mathematical alphanumeric symbols
    (0x1F100, 0x1F1FF),  # enclosed alphanumeric supplement: squared and parenthesized letters
)
#: Negative circled and negative squared capitals (🅐, 🅰, in the last block), which Unicode does not decompose.
_NEGATIVE_CAPITALS = (0x1F150, 0x1F170)
#: Fullwidth ASCII (Ａ, ｉ), folded by its code point (:func:`skillsite.audit.folding.fold`), not by these tables.
FULLWIDTH = (0xFF01, 0xFF5E)

#: Readings a model gives that Unicode's table does not: letters it has no ASCII look-alike for
#: (Cyrillic ка, эм and komi de, Greek kappa and chi, small capital L), and the small palochka,
#: which it reads as "i" where it looks like, and stands for, an "l".
READINGS: dict[str, str] = {"к": "k", "м": "m", "Ԁ": "D", "κ": "k", "χ": "x", "ʟ": "l", "ӏ": "l"}


@functools.lru_cache(maxsize=None)
def styled() -> dict[str, str]:
    """Each styled letter or digit with its ASCII form ("" for a combining accent), small capitals included."""
    table: dict[str, str] = {}
    for first, last in STYLED_BLOCKS:
        for code in range(first, last + 1):
            char = chr(code)
            plain = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            if plain.isascii() and (any(c.isalnum() for c in plain) or unicodedata.combining(char)):
                table[char] = plain
    for first in _NEGATIVE_CAPITALS:
        table.update({chr(first + offset): chr(ord("A") + offset) for offset in range(26)})
    return {**table, **SMALL_CAPITALS}


#: The sha256 of ``data/confusables.txt`` (Unicode 13.0.0): the file is checked against it when read,
#: and a new version of it changes this module, so caches of audit results made with the old one
#: are not reused (:func:`skillsite.cache.code_scope` digests the package's code).
CONFUSABLES_SHA256 = "96f2500ec78fd96f11561d4b40237435dfece70303b1db3c0974138a333aa206"


def _prototypes() -> dict[str, str]:
    """Each character of ``data/confusables.txt`` with the character sequence it is confusable with."""
    import hashlib
    from importlib import resources  # a dozen modules: only when the table is first needed

    raw = resources.files("skillsite.audit").joinpath("data/confusables.txt").read_bytes()
    if hashlib.sha256(raw).hexdigest() != CONFUSABLES_SHA256:
        raise RuntimeError("skillsite/audit/data/confusables.txt is not the file this version of skillsite "
                           "was made with; reinstall skillsite")
    found: dict[str, str] = {}
    for line in raw.decode("utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) == 3:
            source, target = fields[0].split(), fields[1].split()
            if len(source) == 1:
                found[chr(int(source[0], 16))] = "".join(chr(int(code, 16)) for code in target)
    return found


def _reading(char: str, prototype: str, plain: dict[str, str]) -> str | None:
    """The ASCII a look-alike reads as: its prototype, each character of it ASCII or a styled letter
    (Cyrillic "в" is like the small capital "ʙ": a "b"); None when that is not all letters and
    digits (a prototype with an accent, "c̦", is no ASCII).  Unicode's prototype "l" stands for
    "l", "I" and "1" alike: in a capital letter it is an "I" (Cyrillic "І", Greek "Ι")."""
    reading = "".join(c if c.isascii() else plain.get(c) or "\x00" for c in prototype)
    if not reading.isascii() or not reading.isalnum():
        return None
    return reading.replace("l", "I") if unicodedata.category(char) in ("Lu", "Lt") else reading


def _partner(char: str) -> str | None:
    """The other case of a non-ASCII letter, when it is one non-ASCII character (None otherwise)."""
    other = char.lower() if char.isupper() else char.upper()
    return other if other != char and len(other) == 1 and not other.isascii() and other.swapcase() == char else None


@functools.lru_cache(maxsize=None)
def confusables() -> dict[str, str]:
    """Letters, digits and a few symbols of other scripts that look like ASCII letters or digits,
    with the ASCII they read as: Unicode's look-alikes whose prototype is ASCII letters or digits
    (or whose NFKD form is: "ſ" is an "s"), and :data:`READINGS`.  Styled letters and fullwidth
    ASCII are left to their own tables."""
    plain = styled()
    table: dict[str, str] = {}
    for char, prototype in _prototypes().items():
        if char.isascii() or char in plain or FULLWIDTH[0] <= ord(char) <= FULLWIDTH[1] or \
                unicodedata.category(char).startswith("M"):
            continue  # marks sit on a letter: they are not read on their own
        decomposed = unicodedata.normalize("NFKD", char)
        reading = decomposed if decomposed.isascii() and decomposed.isalnum() else _reading(char, prototype, plain)
        if reading:
            table[char] = reading
    return {**table, **READINGS}


@functools.lru_cache(maxsize=None)
def ascii_forms() -> dict[str, str]:
    """Every non-ASCII character the rules read as ASCII, with the ASCII it stands for: the styled
    letters, the look-alikes, and the other case of a look-alike whose other case has no reading
    of its own (Cyrillic "З" reads "3", so "з" does too).  The rules match case-insensitively, and
    read so, a word written in capitals still matches the same word in small letters (the rules
    written in Russian, :attr:`~skillsite.audit.declare.Pattern.folds`, rely on it)."""
    table = {**styled(), **confusables()}
    partners = {other: reading.lower() if other.islower() else reading.upper()
                for char, reading in table.items() if (other := _partner(char)) is not None and other not in table}
    return {**table, **partners}


#: Past U+FFFF the engine tests a character against each range of a class in turn (below, against
#: all at once), so the look-alikes there are merged into few ranges: those of the supplementary
#: plane's scripts into one (U+10000 to U+1EFFF, rarely met), those among the symbols from U+1F000
#: on (where emoji are) only within their 256-character block.
_SYMBOLS = 0x1F000


def _runs(codes: list[int]) -> list[tuple[int, int]]:
    """Sorted code points as (first, last) runs: consecutive ones joined, and past U+FFFF merged
    as :data:`_SYMBOLS` says."""
    runs: list[tuple[int, int]] = []
    for code in codes:
        last = runs[-1][1] if runs else -2
        astral = 0xFFFF < last and (code < _SYMBOLS or code >> 8 == last >> 8)
        if code == last + 1 or astral:
            runs[-1] = (runs[-1][0], code)
        else:
            runs.append((code, code))
    return runs


def foldable_class() -> str:
    """A regular-expression character class (without brackets) holding every key of
    :func:`ascii_forms`: the styled blocks whole and the look-alikes in runs (:func:`_runs`), so
    it also holds characters that have no ASCII form."""
    singles = sorted(ord(c) for c in ascii_forms() if not any(first <= ord(c) <= last for first, last in STYLED_BLOCKS))
    return "".join(f"\\U{first:08x}" if first == last else f"\\U{first:08x}-\\U{last:08x}"
                   for first, last in [*STYLED_BLOCKS, *_runs(singles)])


def ascii_reading(text: str) -> str:
    """``text`` as the folded text reads it, lower-cased: each letter with an ASCII form replaced
    by it (for patterns and gate words written in another script, such as Russian)."""
    forms = ascii_forms()
    return "".join(forms.get(char, char) for char in text).lower()
