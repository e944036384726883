"""lunr.js 2.3.9's English Porter stemmer, ported regex for regex (standard library only).

The catalog's TF-IDF index, the loader's queries and the browser's lunr index all stem with
it, so a word means the same everywhere.  lunr.py's own stemmer differs on a final ``y``
after a vowel (``deploy`` -> ``deploi``): a term lunr.js would never look up.
JavaScript's ``.`` excludes line terminators and ``$`` means end of input; JavaScript strings
are UTF-16 code units, which :func:`stem` reproduces for characters past U+FFFF.
"""
from __future__ import annotations

import functools
import re

_DOT = "[^\n\r\u2028\u2029]"
_C = "[^aeiou][^aeiouy]*"
_V = "[aeiouy][aeiou]*"
_LINE_END = "\n\r\u2028\u2029"
_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
          "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
          "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al",
          "iviti": "ive", "biliti": "ble", "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}

_MGR0 = re.compile(f"^({_C})?{_V}{_C}")
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?\\Z")
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")
_S_V = re.compile(f"^({_C})?[aeiouy]")
_RE_1A = re.compile(f"^({_DOT}+?)(ss|i)es\\Z")
_RE2_1A = re.compile(f"^({_DOT}+?)([^s])s\\Z")
_RE_1B = re.compile(f"^({_DOT}+?)eed\\Z")
_RE2_1B = re.compile(f"^({_DOT}+?)(ed|ing)\\Z")
_RE2_1B_2 = re.compile("(at|bl|iz)\\Z")
_RE3_1B_2 = re.compile("([^aeiouylsz])\\1\\Z")
_RE4_1B_2 = re.compile(f"^{_C}[aeiouy][^aeiouwxy]\\Z")
_RE_1C = re.compile(f"^({_DOT}+?[^aeiou])y\\Z")
_RE_2 = re.compile(f"^({_DOT}+?)({'|'.join(_STEP2)})\\Z")
_RE_3 = re.compile(f"^({_DOT}+?)({'|'.join(_STEP3)})\\Z")
_RE_4 = re.compile(f"^({_DOT}+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)\\Z")
_RE2_4 = re.compile(f"^({_DOT}+?)(s|t)(ion)\\Z")
_RE_5 = re.compile(f"^({_DOT}+?)e\\Z")
_RE_5_1 = re.compile("ll\\Z")


def _drop_last(w: str) -> str:
    """JS ``w.replace(/.$/, "")``."""
    return w[:-1] if w and w[-1] not in _LINE_END else w


def _step1ab(w: str) -> str:
    """Plurals and -ed or -ing."""
    m = _RE_1A.match(w) or _RE2_1A.match(w)
    if m:
        w = m.group(1) + m.group(2)
    m = _RE_1B.match(w)
    if m:
        return _drop_last(w) if _MGR0.match(m.group(1)) else w
    m = _RE2_1B.match(w)
    if m and _S_V.match(m.group(1)):
        w = m.group(1)
        if _RE2_1B_2.search(w):
            w += "e"
        elif _RE3_1B_2.search(w):
            w = _drop_last(w)
        elif _RE4_1B_2.match(w):
            w += "e"
    return w


def _step1c_to_3(w: str) -> str:
    """A final y after a consonant, then the double and single suffixes of steps 2 and 3."""
    m = _RE_1C.match(w)
    if m:
        w = m.group(1) + "i"
    for regex, table in ((_RE_2, _STEP2), (_RE_3, _STEP3)):
        m = regex.match(w)
        if m and _MGR0.match(m.group(1)):
            w = m.group(1) + table[m.group(2)]
    return w


def _step4_5(w: str) -> str:
    """The remaining suffixes, then a final e and a double l."""
    m = _RE_4.match(w)
    if m:
        if _MGR1.match(m.group(1)):
            w = m.group(1)
    else:
        m = _RE2_4.match(w)
        if m and _MGR1.match(m.group(1) + m.group(2)):
            w = m.group(1) + m.group(2)
    m = _RE_5.match(w)
    if m:
        s = m.group(1)
        if _MGR1.match(s) or (_MEQ1.match(s) and not _RE4_1B_2.match(s)):
            w = s
    if _RE_5_1.search(w) and _MGR1.match(w):
        w = _drop_last(w)
    return w


def _porter(w: str) -> str:
    """lunr.js ``porterStemmer`` on a string of UTF-16 code units."""
    if len(w) < 3:
        return w
    first_y = w[0] == "y"
    if first_y:
        w = "Y" + w[1:]
    w = _step4_5(_step1c_to_3(_step1ab(w)))
    return "y" + w[1:] if first_y else w


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """lunr.js 2.3.9's ``lunr.stemmer`` on one lower-case word, exactly (including "deploy" -> "deploy").

    Cached: the same words come back over and over, in every skill and both indexes.
    """
    if all(ord(c) < 0x10000 for c in word):
        return _porter(word)
    units = word.encode("utf-16-le", "surrogatepass")
    wide = "".join(chr(int.from_bytes(units[i:i + 2], "little")) for i in range(0, len(units), 2))
    return _porter(wide).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
