"""Letters that are read as ASCII but are not ASCII: the look-alikes of other scripts, and the
styled forms of Latin letters and digits (mathematical bold or script, circled, parenthesized,
superscript, small capitals) with combining accents.  A model reads "𝗶𝗴𝗻𝗼𝗿𝗲", "ⓘⓖⓝⓞⓡⓔ" or
"ɪɢɴᴏʀᴇ" as "ignore", so the rules match the text with those folded to ASCII
(:mod:`skillsite.audit.text`).
"""
from __future__ import annotations

import unicodedata

#: Letters of other scripts that look like ASCII letters (the common homoglyphs).
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "ӏ": "l",
    "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t", "ս": "u", "ѵ": "v", "ԝ": "w",
    "х": "x", "у": "y", "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K",
    "М": "M", "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "ԁ".upper(): "D",
    # Greek
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "τ": "t", "υ": "u", "χ": "x", "Α": "A",
    "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X",
    # Latin look-alikes and dotless letters
    "ı": "i", "ɡ": "g", "ʟ": "l", "ɑ": "a", "ſ": "s",
}

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


def _styled() -> dict[str, str]:
    """Each styled letter or digit with its ASCII form ("" for a combining accent)."""
    table: dict[str, str] = {}
    for first, last in STYLED_BLOCKS:
        for code in range(first, last + 1):
            char = chr(code)
            plain = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            if plain.isascii() and (any(c.isalnum() for c in plain) or unicodedata.combining(char)):
                table[char] = plain
    for first in _NEGATIVE_CAPITALS:
        table.update({chr(first + offset): chr(ord("A") + offset) for offset in range(26)})
    return table


#: Styled letters and digits, small capitals and combining accents, with their ASCII forms.
STYLED: dict[str, str] = {**_styled(), **SMALL_CAPITALS}
#: Every non-ASCII character the rules read as ASCII, with the ASCII it stands for.
ASCII_FORMS: dict[str, str] = {**STYLED, **CONFUSABLES}


def foldable_class() -> str:
    """A regular-expression character class (without brackets) holding every key of
    :data:`ASCII_FORMS`: whole blocks as ranges (a class of a few ranges is searched far faster
    than one of a thousand), so it also holds characters that have no ASCII form."""
    ranges = "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in STYLED_BLOCKS)
    singles = "".join(c for c in {**SMALL_CAPITALS, **CONFUSABLES}
                      if not any(first <= ord(c) <= last for first, last in STYLED_BLOCKS))
    return ranges + singles


def ascii_reading(text: str) -> str:
    """``text`` as the folded text reads it, lower-cased: each letter with an ASCII form replaced
    by it (for patterns and gate words written in another script, such as Russian)."""
    return "".join(ASCII_FORMS.get(char, char) for char in text).lower()
