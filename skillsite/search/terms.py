"""What is searched and how text becomes search terms (standard library only).

One tokenizer and one set of fields serve the build (which precomputes the TF-IDF index into
``skills.json``), the loader and ``skillsite search``, so they rank identically.
"""
from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib.resources import files
from typing import Any

from skillsite.search.stemmer import stem

#: Searchable fields of a skill and the weight of one occurrence of a term in each.
SEARCH_FIELDS: dict[str, float] = {"name": 1.0, "description": 3.0, "tags": 2.0, "tools": 1.0, "triggers": 2.0}

#: The kinds of trigger that are words (``patterns`` are regular expressions, not searched).
TRIGGER_WORD_KINDS = ("phrases", "keywords", "verbs")

#: lunr.js 2.3.9's English stop words (``lunr.stopWordFilter``).
STOP_WORDS = frozenset(
    "a able about across after all almost also am among an and any are as at be because been but by can "
    "cannot could dear did do does either else ever every for from get got had has have he her hers him his "
    "how however i if in into is it its just least let like likely may me might most must my neither no nor "
    "not of off often on only or other our own rather said say says she should since so some than that the "
    "their them then there these they this tis to too twas us wants was we were what when where which while "
    "who whom why will with would yet you your".split())

#: A word of ASCII text: a run of letters and digits.
_WORD = re.compile(r"[^\W_]+")
#: Where Unicode's roadmap puts every combining mark there may be: planes 0, 1 and 14 (planes 2
#: and 3 hold ideographs only, 4 to 13 nothing, 15 and 16 private use).
_MARK_PLANES = (range(0x20000), range(0xE0000, 0xF0000))


@lru_cache(maxsize=1)
def mark_class() -> str:
    """The combining marks (Unicode category M: Mn, Mc, Me) as the inside of a regular expression's
    character class, read off :mod:`unicodedata` once: ``re`` has no ``\\p{M}``, and a word of
    Devanagari, Thai, Tamil or Bengali ("हिन्दी") holds marks that have no precomposed form."""
    category = unicodedata.category
    marks = [cp for plane in _MARK_PLANES for cp in plane if category(chr(cp))[0] == "M"]
    spans: list[list[int]] = []
    for cp in marks:
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in spans)


@lru_cache(maxsize=1)
def _marked_word() -> re.Pattern[str]:
    """A word of any text without "_": a letter or digit, then letters, digits and combining marks
    ("हिन्दी", "สวัสดี"), as ranking.js's TERM_WORD (``[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}]*``): a mark
    does not begin a word."""
    return re.compile(rf"\w[\w{mark_class()}]*")


#: The letters of the scripts written without spaces between words, as Lucene's CJK bigram filter
#: reads them: Han ideographs (with their compatibility forms and those of planes 2 and 3),
#: Hiragana, Katakana (with its half-width forms) and Hangul syllables.
CJK_LETTERS = ("\u3005-\u3007\u3021-\u3029\u3038-\u303b"  # Han's iteration marks (々) and numbers (〇)
               "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"  # kana, not their marks
               "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"  # Han
               "\uac00-\ud7a3\uff66-\uff9f")  # Hangul syllables, half-width Katakana
_CJK_RUN = re.compile(f"[{CJK_LETTERS}]+")


def words(text: str) -> list[str]:
    """The words of ``text`` (runs of letters and digits, with their marks; "_" splits), as written;
    a run of CJK letters in them cut into pairs (:func:`cjk_pairs`)."""
    if text.isascii():
        return _WORD.findall(text)
    found = _marked_word().findall(text.replace("_", " "))
    return [piece for word in found for piece in cjk_pairs(word)] if _CJK_RUN.search(text) else found


def is_term(word: str) -> bool:
    """Whether a word of :func:`words` is a search term: no stop word, and two letters or more, or
    a CJK letter alone, which is a word in Chinese ("表", "Python库"): one Latin letter is none."""
    return (len(word) > 1 or (not word.isascii() and _CJK_RUN.match(word) is not None)) and word not in STOP_WORDS


def is_cjk_letter(word: str) -> bool:
    """Whether ``word`` is one CJK letter (:data:`CJK_LETTERS`): a term of its own where it stands
    alone (:func:`is_term`), the edge of a pair where its run goes on (:func:`cjk_pairs`)."""
    return len(word) == 1 and _CJK_RUN.match(word) is not None


def cjk_pairs(word: str) -> list[str]:
    """``word`` (one of :func:`words`) with each run of CJK letters (:data:`CJK_LETTERS`) cut into
    the pairs of letters that overlap in it ("数据分析": "数据", "据分", "分析"), a run of one letter
    left as it is, and each piece between runs read again as words ("python数据": "python", "数据").
    Chinese and Japanese put no space between words, so a whole run was one term, and a query of one
    of its words found nothing; pairs need no dictionary, and find any word of two letters or more
    (Lucene's CJK bigrams).  ranking.js's cjkPairs cuts words alike."""
    pieces: list[str] = []
    at = 0
    for run in _CJK_RUN.finditer(word):
        pieces += _marked_word().findall(word[at:run.start()])
        letters = run.group()
        pieces += [letters] if len(letters) == 1 else [letters[i:i + 2] for i in range(len(letters) - 1)]
        at = run.end()
    return pieces + _marked_word().findall(word[at:]) if at else [word]


@lru_cache(maxsize=1)
def _unassigned() -> re.Pattern[str]:
    """Characters Unicode had not assigned in the version the lowest admitted Python knows
    (``data/unassigned.json``, made by ``tests/data/make_unicode_table.py``).  A character below
    the first of them (all ASCII, Latin, Greek's start) is passed over at once; any other is
    looked back at against the hundreds of ranges (tried one by one, they made tokenising a
    text with a dash or an accent in it slower than the rest of the index)."""
    table = json.loads(files("skillsite.search").joinpath("data", "unassigned.json").read_text(encoding="utf-8"))
    spans = "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in table["unassigned"])
    below = table["unassigned"][0][0]
    return re.compile(f"[^\\x00-\\U{below - 1:08x}](?<=[{spans}])")


def known_only(text: str) -> str:
    """``text`` with each character assigned since Unicode 13.0 (Python 3.10's) made a space: what
    is a letter, a mark or a symbol differs from one Python to the next for those ("🫠" is a
    symbol on 3.11 and nothing on 3.10), and every admitted Python must build the same index.  For
    the characters of 13.0, Pythons 3.10 to 3.13 read the same letters, marks, symbols, lower
    case and NFC (checked over every code point when the table was made; ``.ci/run`` builds
    ``tests/data/unicode-since-13`` on two Pythons and compares the catalogs)."""
    return text if text.isascii() else _unassigned().sub(" ", text)


def folded(text: str) -> str:
    """``text`` lower-cased, then in Unicode's composed form (NFC): "cafe" + U+0301 (as a macOS
    keyboard or file name may spell it) and "café" are one word. NFC, not NFKC: it only joins
    what is one character written two ways, and leaves "ﬁ", "x²" or fullwidth letters as written.
    Composed after lower-casing: "J" + U+030C lower-cases to what composes into "ǰ".
    Characters newer than Unicode 13.0 are kept as written, and the text between them folded
    apart: how they lower-case differs from one Python to the next (a tag of Vithkuqi capitals
    was one with its lower case on 3.11 and another tag on 3.10)."""
    if text.isascii():
        return text.lower()
    pieces = _unassigned().split(text)
    if len(pieces) == 1:
        return unicodedata.normalize("NFC", text.lower())
    newer = _unassigned().findall(text)
    return "".join(unicodedata.normalize("NFC", piece.lower()) + extra for piece, extra in zip(pieces, [*newer, ""]))


def tokenize(text: str) -> list[str]:
    """Search terms of a text: its words (:func:`words`: letter/digit runs with their combining
    marks), lower-cased and composed (:func:`folded`; hyphens and punctuation split), those
    :func:`is_term` keeps, each stemmed with :func:`stem`; then its runs of symbols
    (:func:`symbol_runs`: a tag "🚀" is a term too).  A character newer than Unicode 13.0 parts
    words as a space does (:func:`known_only`)."""
    lowered = folded(known_only(text))
    terms = [stem(w) for w in words(lowered) if is_term(w)]
    return terms + symbol_runs(lowered) if not lowered.isascii() else terms


#: What continues a run of symbols: marks, modifier symbols (skin tones) and the zero-width joiner.
_SYMBOL_TAIL = frozenset(("So", "Sk", "Mn", "Mc", "Me"))


def symbol_runs(text: str) -> list[str]:
    """Runs of "other symbols" (Unicode category So: emoji, ©, ✓) in ``text``, each with the
    marks, modifier symbols and zero-width joiners after it ("❤️", "👍🏽", "👨‍👩‍👧"): terms as they
    are, unstemmed, whatever their length (ranking.js's tokenize cuts them alike)."""
    runs: list[str] = []
    start = -1
    for at, char in enumerate(text):
        category = unicodedata.category(char)
        if start < 0:
            if category == "So":
                start = at
        elif category not in _SYMBOL_TAIL and char != "\u200d":
            runs.append(text[start:at])
            start = -1
    if start >= 0:
        runs.append(text[start:])
    return runs


def search_fields(entry: dict[str, Any]) -> dict[str, str]:
    """The searchable text of a manifest entry, per field of :data:`SEARCH_FIELDS`.

    ``name`` also holds the skill folder's name when it differs; ``tools`` holds the
    names and purposes of the declared ``tools`` (``allowed-tools`` is a permission list,
    not a description: "Read Write Bash" would match every query about reading or writing);
    ``triggers`` the trigger phrases, keywords and verbs.
    """
    folder = entry["id"].rsplit("/", 1)[-1]
    name = entry["name"] if folder == entry["name"] else f"{entry['name']} {folder}"
    tools = [f"{t.get('name', '')} {t.get('purpose', '')}" for t in entry.get("tools", ())]
    return {"name": name, "description": entry.get("description", ""),
            "tags": " ".join(str(t) for t in entry.get("tags", ())), "tools": " ".join(tools),
            "triggers": " ".join(trigger_words(entry.get("triggers")))}


def trigger_words(triggers: Any) -> list[str]:
    """The phrases, keywords and verbs of a skill's normalised triggers (what search and prompts show)."""
    if not isinstance(triggers, dict):
        return []
    return [text.strip() for kind in TRIGGER_WORD_KINDS if isinstance(triggers.get(kind), list)
            for text in triggers[kind] if isinstance(text, str) and text.strip()]
