"""What makes a skill's name or folder name deceptive (SK606): invisible or stray combining
characters, fullwidth or styled letters, letters of several scripts, or only letters that look
like Latin ones.  What a language writes on its own is none of those: a Japanese name mixes
three scripts, an Uzbek or Hawaiian one an apostrophe letter, a Persian one a zero-width
non-joiner, an emoji sequence zero-width joiners.  The name is read in NFC: a folder named on
macOS is decomposed (NFD), its accents combining."""
from __future__ import annotations

import unicodedata

from skillsite.audit.letters import confusables, styled

#: The scripts one writing system uses together, each with Latin, as Unicode's identifier profile
#: allows them (UTS #39, "highly restrictive"): Japanese (Han, Hiragana, Katakana), Chinese (Han,
#: Bopomofo) and Korean (Han, Hangul).  Named as :func:`script` names them: Han's ideographs are
#: "CJK ...", its iteration mark "IDEOGRAPHIC ...", the long vowel mark "KATAKANA-HIRAGANA ...".
_HAN = ("CJK", "IDEOGRAPHIC")
WRITTEN_TOGETHER = (frozenset({"LATIN", *_HAN, "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"}),
                    frozenset({"LATIN", *_HAN, "BOPOMOFO"}), frozenset({"LATIN", *_HAN, "HANGUL"}))
#: The scripts of those writing systems but Latin: a name in them is typed with fullwidth digits
#: and punctuation ("第１章", "数据（高级）").
CJK_SCRIPTS = frozenset().union(*WRITTEN_TOGETHER) - {"LATIN"}
#: A letter of no script (Unicode's Common): counted in none.
COMMON = ""
#: What the first words of a letter's Unicode name say of its script where they are no script's
#: name: the ordinal indicators (ª, º) are Latin, the micro sign Common; a "MODIFIER LETTER" is
#: Common when it is an apostrophe, a prime or a length mark (Uzbek "oʻzbekcha", Hawaiian
#: "hawaiʻi", Ukrainian "звʼязок"), not when it is a small or capital letter (a look-alike).
_NAMED = {"MASCULINE": "LATIN", "FEMININE": "LATIN", "MICRO": COMMON}
_WIDTHS = ("HALFWIDTH ", "FULLWIDTH ")
#: The scripts whose words a zero-width non-joiner may part (Persian "می‌خواهم", Indic scripts after a virama).
_NON_JOINING = frozenset({"ARABIC", "SYRIAC", "NKO", "MONGOLIAN", "DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI",
                          "ORIYA", "TAMIL", "TELUGU", "KANNADA", "MALAYALAM", "SINHALA"})
_ZWNJ, _ZWJ = "\u200c", "\u200d"
#: Variation selectors 15 and 16 (text or emoji presentation), which follow a symbol.
_PRESENTATION = "\ufe0e\ufe0f"


def script(char: str) -> str:
    """The script of a letter, from its Unicode name ('LATIN', 'CYRILLIC', ...; a halfwidth
    katakana is 'KATAKANA'), or :data:`COMMON`."""
    name = unicodedata.name(char, "UNKNOWN")
    for width in _WIDTHS:
        name = name.removeprefix(width)
    first = name.split(" ", 1)[0]
    if first == "MODIFIER":
        return "MODIFIER" if " SMALL " in name or " CAPITAL " in name else COMMON
    return _NAMED.get(first, first)


def _is_letter(char: str) -> bool:
    """A letter, or a letter-like number (Unicode's Nl: an ideographic zero, a Roman numeral)."""
    return char.isalpha() or unicodedata.category(char) == "Nl"


def _written_together(name: str, scripts: set[str]) -> bool:
    """Whether a name's ``scripts`` are those of one writing system (:data:`WRITTEN_TOGETHER`: a
    Japanese name mixes three) and, beside Latin letters, none of its others looks like a Latin
    one (the ideographic zero of "g\u3007\u3007gle" deceives; in "\u7b2c\u3007\u7ae0" it is a zero)."""
    return (any(scripts <= together for together in WRITTEN_TOGETHER)
            and ("LATIN" not in scripts or not any(c in confusables() for c in name if script(c) != "LATIN")))


def _joins_as_written(name: str, index: int) -> bool:
    """Whether the invisible character at ``index`` is one a language writes there: a zero-width
    joiner between two symbols of an emoji sequence (a presentation selector or skin tone may
    come between), or a zero-width non-joiner between two letters of a script that parts words
    with it."""
    char, before, after = name[index], name[:index].rstrip(_PRESENTATION), name[index + 1:index + 2]
    if char == _ZWJ:
        return bool(before and after) and unicodedata.category(before[-1]) in ("So", "Sk") \
            and unicodedata.category(after) == "So"
    if char == _ZWNJ:
        return bool(before and after) and script(before[-1]) == script(after) in _NON_JOINING
    return False


def _invisible(name: str) -> bool:
    """Whether a name holds a format character or a space other than " " that its language does
    not write there (:func:`_joins_as_written`)."""
    return any(unicodedata.category(c) in ("Cf", "Zs") and c != " " and not _joins_as_written(name, index)
               for index, c in enumerate(name))


def _stray_mark(name: str) -> bool:
    """Whether a name (in NFC) holds a combining mark that does not belong to the letter before
    it: one of the marks any script may take (U+0300-036F and the like, named COMBINING: NFC
    composes the usual accents of Latin, Greek and Cyrillic letters, so one left over stacks on
    a letter that has no such form), or one of another script.  The vowel signs and viramas of
    Devanagari, Thai and the like are their script's own, and words need them; an emoji's
    presentation selector follows its symbol."""
    return any(unicodedata.category(c) == "Mn" and (index == 0 or script(c) == "COMBINING"
                                                   or script(c) != script(name[index - 1]))
               and not (c in _PRESENTATION and index and unicodedata.category(name[index - 1]) == "So")
               for index, c in enumerate(name))


def _fullwidth(name: str, scripts: set[str]) -> str | None:
    """Why a name's fullwidth forms deceive: fullwidth Latin letters always; fullwidth digits and
    punctuation unless the name is written in a CJK script, whose writers type them ("第１章")."""
    if any(0xFF21 <= ord(c) <= 0xFF3A or 0xFF41 <= ord(c) <= 0xFF5A for c in name):
        return "fullwidth letters"
    if any(0xFF01 <= ord(c) <= 0xFF5E for c in name) and not scripts & CJK_SCRIPTS:
        return "fullwidth digits or punctuation outside Chinese, Japanese or Korean writing"
    return None


def confusable_reason(name: str) -> str | None:
    """Why a skill name is deceptive (mixed scripts, look-alike or invisible letters), or None."""
    if name.isascii():
        return None
    name = unicodedata.normalize("NFC", name)
    if _invisible(name) or _stray_mark(name):
        return "invisible or combining characters"
    scripts = {script(c) for c in name if _is_letter(c)} - {COMMON}
    fullwidth = _fullwidth(name, scripts)
    if fullwidth:
        return fullwidth
    if any(c in styled() for c in name):
        return "styled letters (mathematical, circled or small capital forms)"
    look_alikes = sorted({c for c in name if c in confusables()})
    if len(scripts) > 1 and not _written_together(name, scripts):
        return f"letters from several scripts ({', '.join(sorted(scripts))})"
    if look_alikes and len(look_alikes) == len({c for c in name if c.isalpha()}):
        return f"only letters that look like Latin ones ({''.join(look_alikes)})"
    return None
