"""skillsite.loader: use a published skill catalog from an agent runtime.

Standard library only, and importing nothing else from skillsite, so an agent can
vendor this one file.  The build imports its text and XML helpers, so what the build
publishes and what the loader produces can never disagree.
"""
from __future__ import annotations

import array
import base64
import bisect
import heapq
import math
import re
import sys
from typing import Any, Iterable, Sequence

__all__ = [
    "FORMAT", "FORMAT_VERSION", "xml_text", "xml_attr", "one_line", "skill_entry_xml",
    "available_skills_xml", "skill_content_xml", "prompt_order", "MAX_LISTED_RESOURCES",
    "SEARCH_VERSION", "SEARCH_FIELDS", "STOP_WORDS", "stem", "tokenize", "search_fields",
    "build_search_section", "SearchIndex",
]

FORMAT = "skillsite-catalog"
FORMAT_VERSION = 1

# ------------------------------------------------------------------ XML prompt fragments

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(text: str) -> str:
    """Escape text for XML element content; characters XML 1.0 forbids become U+FFFD."""
    text = _XML_INVALID.sub("\ufffd", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(text: str) -> str:
    """Escape text for a double-quoted XML attribute value."""
    return xml_text(text).replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;").replace(
        "\t", "&#9;")


def one_line(text: str, limit: int = 200) -> str:
    """The first line of a description, collapsed and cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def skill_entry_xml(name: str, description: str, location: str) -> str:
    """The tier-1 ``<skill>`` entry of an ``<available_skills>`` block."""
    return (f"<skill>\n<name>{xml_text(name)}</name>\n<description>{xml_text(description)}</description>\n"
            f"<location>{xml_text(location)}</location>\n</skill>\n")


MAX_LISTED_RESOURCES = 20


def skill_content_xml(name: str, skill_id: str, body: str, base_url: str, resources: Sequence[str],
                      sub_skills: Sequence[tuple[str, str, str]]) -> str:
    """The ``<skill_content>`` fragment an agent receives when it activates a skill.

    ``resources`` are bundled file paths (at most 20 are listed, then "+N more");
    ``sub_skills`` are ``(id, name, description)`` of the direct children.
    """
    out = [f'<skill_content name="{xml_attr(name)}" id="{xml_attr(skill_id)}">\n',
           f"<base_url>{xml_text(base_url)}</base_url>\n",
           "<instructions>\n", xml_text(body.strip("\n")), "\n</instructions>\n"]
    if resources:
        out.append("<skill_resources>\n")
        out += [f"<file>{xml_text(path)}</file>\n" for path in resources[:MAX_LISTED_RESOURCES]]
        if len(resources) > MAX_LISTED_RESOURCES:
            out.append(f"<more>+{len(resources) - MAX_LISTED_RESOURCES} more</more>\n")
        out.append("</skill_resources>\n")
    if sub_skills:
        out.append("<sub_skills>\n")
        out += [f'<skill id="{xml_attr(sid)}" name="{xml_attr(sname)}">{xml_text(one_line(sdesc))}</skill>\n'
                for sid, sname, sdesc in sub_skills]
        out.append("</sub_skills>\n")
    out.append("</skill_content>\n")
    return "".join(out)


def prompt_order(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Skills offered to a model, in prompt order: ``always`` first, then priority, then id.

    Hidden and user-invocable-only skills are left out.
    """
    shown = [e for e in entries
             if not e["visibility"]["hidden"] and not e["visibility"]["user_invocable_only"]]
    return sorted(shown, key=lambda e: (not e["visibility"]["always"], -e.get("priority", 0), e["id"]))


def available_skills_xml(entries: Sequence[dict[str, Any]], locations: Sequence[str], budget: int,
                         excluded: int = 0) -> str:
    """The ``<available_skills>`` block, never longer than ``budget`` characters.

    ``entries`` are manifest entries already in prompt order, ``locations`` their
    SKILL.md URLs.  Entries are added in order until the next would not fit; a
    ``<notice>`` says how many were left out (``excluded`` counts skills removed
    earlier, e.g. as ineligible, and is reported separately).
    """
    head, tail = "<available_skills>\n", "</available_skills>\n"
    parts: list[str] = []
    used = len(head) + len(tail)
    worst_notice = len(_notice(len(entries), excluded, budget))
    for index, (entry, location) in enumerate(zip(entries, locations)):
        piece = skill_entry_xml(entry["name"], entry["description"], location)
        is_last = index == len(entries) - 1
        reserve = 0 if is_last and not excluded else worst_notice
        if used + len(piece) + reserve > budget:
            break
        parts.append(piece)
        used += len(piece)
    omitted = len(entries) - len(parts)
    notice = _notice(omitted, excluded, budget) if omitted or excluded else ""
    block = head + "".join(parts) + notice + tail
    if len(block) > budget:  # a budget too small for even the notice: the empty block
        block = head + tail if len(head + tail) <= budget else ""
    return block


def _notice(omitted: int, excluded: int, budget: int) -> str:
    reasons = []
    if omitted:
        reasons.append(f"{omitted} more skill{'s' if omitted != 1 else ''} not listed "
                       f"(prompt budget {budget} characters)")
    if excluded:
        reasons.append(f"{excluded} skill{'s' if excluded != 1 else ''} not eligible here")
    return f"<notice>{xml_text('; '.join(reasons))}; search the catalog to find them.</notice>\n"


# ------------------------------------------------------------------ search
#
# One tokenizer and one scoring model serve the build (which precomputes the index into
# skills.json["search"]), this loader and `skillsite search`, so they rank identically.
# Scoring is BM25F: per-field term counts weighted by SEARCH_FIELDS, saturated and
# length-normalised per skill at build time, quantised, and multiplied by idf at query time.
# The stemmer is lunr.js 2.3.9's Porter stemmer ported exactly (the browser's lunr index
# is stemmed by it too); see skills.schema.json, $defs/search, for the stored format.

SEARCH_VERSION = 1
SEARCH_FIELDS: dict[str, float] = {"name": 1.0, "description": 3.0, "tags": 2.0, "tools": 1.0}
BM25_K1 = 1.2
BM25_B = 0.75
WEIGHT_LEVELS = 255          # quantised weights are integers 1..255 (one byte)
PREFIX_FACTOR = 0.5          # a query word matching only a longer term's start counts this much
MIN_PREFIX = 3               # shortest query word that is prefix-matched
MAX_EXPANSIONS = 50          # most vocabulary terms one query word expands to

# lunr.js 2.3.9's English stop words (lunr.stopWordFilter)
STOP_WORDS = frozenset(
    "a able about across after all almost also am among an and any are as at be because been but by can "
    "cannot could dear did do does either else ever every for from get got had has have he her hers him his "
    "how however i if in into is it its just least let like likely may me might most must my neither no nor "
    "not of off often on only or other our own rather said say says she should since so some than that the "
    "their them then there these they this tis to too twas us wants was we were what when where which while "
    "who whom why will with would yet you your".split())

_WORD = re.compile(r"[^\W_]+")

# -- lunr.js 2.3.9 Porter stemmer, ported regex for regex.  JS `.` excludes line terminators
# and `$` means end of input; strings are UTF-16 code units (handled in stem()).
_DOT = "[^\n\r\u2028\u2029]"
_C = "[^aeiou][^aeiouy]*"
_V = "[aeiouy][aeiou]*"
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
_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
          "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
          "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al",
          "iviti": "ive", "biliti": "ble", "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_RE_2 = re.compile(f"^({_DOT}+?)({'|'.join(_STEP2)})\\Z")
_RE_3 = re.compile(f"^({_DOT}+?)({'|'.join(_STEP3)})\\Z")
_RE_4 = re.compile(f"^({_DOT}+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)\\Z")
_RE2_4 = re.compile(f"^({_DOT}+?)(s|t)(ion)\\Z")
_RE_5 = re.compile(f"^({_DOT}+?)e\\Z")
_RE_5_1 = re.compile("ll\\Z")
_LINE_END = "\n\r\u2028\u2029"


def _drop_last(w: str) -> str:
    """JS ``w.replace(/.$/, "")``."""
    return w[:-1] if w and w[-1] not in _LINE_END else w


def _porter(w: str) -> str:
    """lunr.js ``porterStemmer`` on a string of UTF-16 code units."""
    if len(w) < 3:
        return w
    first_y = w[0] == "y"
    if first_y:
        w = "Y" + w[1:]
    m = _RE_1A.match(w) or _RE2_1A.match(w)                       # step 1a
    if m:
        w = m.group(1) + m.group(2)
    m = _RE_1B.match(w)                                           # step 1b
    if m:
        if _MGR0.match(m.group(1)):
            w = _drop_last(w)
    else:
        m = _RE2_1B.match(w)
        if m and _S_V.match(m.group(1)):
            w = m.group(1)
            if _RE2_1B_2.search(w):
                w += "e"
            elif _RE3_1B_2.search(w):
                w = _drop_last(w)
            elif _RE4_1B_2.match(w):
                w += "e"
    m = _RE_1C.match(w)                                           # step 1c
    if m:
        w = m.group(1) + "i"
    for regex, table in ((_RE_2, _STEP2), (_RE_3, _STEP3)):       # steps 2 and 3
        m = regex.match(w)
        if m and _MGR0.match(m.group(1)):
            w = m.group(1) + table[m.group(2)]
    m = _RE_4.match(w)                                            # step 4
    if m:
        if _MGR1.match(m.group(1)):
            w = m.group(1)
    else:
        m = _RE2_4.match(w)
        if m and _MGR1.match(m.group(1) + m.group(2)):
            w = m.group(1) + m.group(2)
    m = _RE_5.match(w)                                            # step 5
    if m:
        s = m.group(1)
        if _MGR1.match(s) or (_MEQ1.match(s) and not _RE4_1B_2.match(s)):
            w = s
    if _RE_5_1.search(w) and _MGR1.match(w):
        w = _drop_last(w)
    if first_y:
        w = "y" + w[1:]
    return w


def stem(word: str) -> str:
    """lunr.js 2.3.9's ``lunr.stemmer`` on one lower-case word, exactly (including "deploy" -> "deploy")."""
    if word.isascii() or all(ord(c) < 0x10000 for c in word):
        return _porter(word)
    units = word.encode("utf-16-le", "surrogatepass")
    wide = "".join(chr(int.from_bytes(units[i:i + 2], "little")) for i in range(0, len(units), 2))
    out = _porter(wide)
    return out.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def tokenize(text: str) -> list[str]:
    """Search terms of a text: lower-cased letter/digit runs (so hyphens and punctuation split),
    minus stop words and one-character words, each stemmed with :func:`stem`."""
    return [stem(w) for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in STOP_WORDS]


def search_fields(entry: dict[str, Any]) -> dict[str, str]:
    """The searchable text of a manifest entry, per field of :data:`SEARCH_FIELDS`.

    ``name`` also holds the skill folder's name when it differs; ``tools`` holds the
    names and purposes of ``tools`` and the ``allowed-tools``.
    """
    folder = entry["id"].rsplit("/", 1)[-1]
    name = entry["name"] if folder == entry["name"] else f"{entry['name']} {folder}"
    tools = [f"{t.get('name', '')} {t.get('purpose', '')}" for t in entry.get("tools", ())]
    tools += [str(t) for t in entry.get("allowed-tools", ())]
    return {"name": name, "description": entry.get("description", ""),
            "tags": " ".join(str(t) for t in entry.get("tags", ())), "tools": " ".join(tools)}


def _term_counts(fields: dict[str, str]) -> tuple[dict[str, float], float]:
    """Field-weighted term frequencies of one skill, and its field-weighted length."""
    counts: dict[str, float] = {}
    length = 0.0
    for field, weight in SEARCH_FIELDS.items():
        terms = tokenize(fields.get(field, ""))
        length += weight * len(terms)
        for term in terms:
            counts[term] = counts.get(term, 0.0) + weight
    return counts, length


def _idf(df: int, n: int) -> float:
    """BM25 idf, never negative."""
    return round(math.log(1.0 + (n - df + 0.5) / (df + 0.5)), 4)


def _encode_postings(postings: list[tuple[int, int]], doc_bytes: int) -> str:
    """base64 of the skill indexes (little-endian, ``doc_bytes`` each) then one weight byte each."""
    docs = b"".join(i.to_bytes(doc_bytes, "little") for i, _ in postings)
    return base64.b64encode(docs + bytes(q for _, q in postings)).decode("ascii")


def build_search_section(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``search`` section of ``skills.json`` for manifest ``entries`` (in manifest order).

    Deterministic: terms sorted, postings by skill index, floats rounded.
    """
    counted = [_term_counts(search_fields(e)) for e in entries]
    n = len(counted)
    avg_length = (sum(length for _, length in counted) / n) if n else 1.0
    top = BM25_K1 + 1.0
    postings: dict[str, list[tuple[int, int]]] = {}
    for index, (counts, length) in enumerate(counted):
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * length / (avg_length or 1.0))
        for term, tf in counts.items():
            level = round(tf * top / (tf + norm) / top * WEIGHT_LEVELS)
            postings.setdefault(term, []).append((index, min(WEIGHT_LEVELS, max(1, level))))
    terms = sorted(postings)
    doc_bytes = 2 if n <= 0x10000 else 4
    return {
        "version": SEARCH_VERSION,
        "model": "bm25f",
        "fields": dict(SEARCH_FIELDS),
        "k1": BM25_K1,
        "b": BM25_B,
        "docs": n,
        "doc_bytes": doc_bytes,
        "weight_unit": round(top / WEIGHT_LEVELS, 9),
        "terms": terms,
        "idf": [_idf(len(postings[t]), n) for t in terms],
        "postings": [_encode_postings(postings[t], doc_bytes) for t in terms],
    }


def _decode_postings(data: str, doc_bytes: int) -> tuple[Sequence[int], bytes]:
    """Skill indexes and weight bytes of one encoded postings list."""
    raw = base64.b64decode(data)
    count = len(raw) // (doc_bytes + 1)
    docs = array.array("H" if doc_bytes == 2 else ("I" if array.array("I").itemsize == 4 else "L"))
    docs.frombytes(raw[:count * doc_bytes])
    if sys.byteorder != "little":
        docs.byteswap()
    return docs, raw[count * doc_bytes:]


class SearchIndex:
    """The precomputed search index of a catalog, ready to answer queries.

    Build it with :meth:`from_manifest`; :meth:`search` ranks skills by BM25F score, ties
    broken by priority (higher first) and then id.
    """

    def __init__(self, section: dict[str, Any], ids: Sequence[str], priorities: Sequence[int],
                 tags: Sequence[Sequence[str]]) -> None:
        if section.get("docs") != len(ids):
            raise ValueError(f"search index covers {section.get('docs')} skills, the manifest has {len(ids)}")
        self.ids = list(ids)
        self.priorities = list(priorities)
        self._tags = tags
        self._terms: list[str] = section["terms"]
        self._idf: list[float] = section["idf"]
        self._encoded: list[str] = section["postings"]
        self._doc_bytes: int = section["doc_bytes"]
        self._unit: float = section["weight_unit"]
        self._decoded: dict[int, tuple[Sequence[int], bytes]] = {}

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any]) -> "SearchIndex":
        """The index of a parsed ``skills.json``; computed from its entries when it has none
        (or one in a newer format than this loader reads)."""
        skills = manifest.get("skills") or []
        section = manifest.get("search")
        if not isinstance(section, dict) or section.get("version") != SEARCH_VERSION:
            section = build_search_section(skills)
        return cls(section, [s["id"] for s in skills], [int(s.get("priority") or 0) for s in skills],
                   [s.get("tags") or () for s in skills])

    def __len__(self) -> int:
        return len(self.ids)

    def _postings(self, term_index: int) -> tuple[Sequence[int], bytes]:
        found = self._decoded.get(term_index)
        if found is None:
            found = self._decoded[term_index] = _decode_postings(self._encoded[term_index], self._doc_bytes)
        return found

    def _matches(self, term: str) -> list[tuple[int, float]]:
        """Vocabulary terms a query term matches, as (term index, factor): itself, or else
        (when it is not in the vocabulary) the terms it begins, at PREFIX_FACTOR."""
        at = bisect.bisect_left(self._terms, term)
        if at < len(self._terms) and self._terms[at] == term:
            return [(at, 1.0)]
        if len(term) < MIN_PREFIX:
            return []
        found = []
        while at < len(self._terms) and self._terms[at].startswith(term) and len(found) < MAX_EXPANSIONS:
            found.append((at, PREFIX_FACTOR))
            at += 1
        return found

    def scores(self, query: str) -> dict[int, float]:
        """Score of every matching skill index (unrounded)."""
        scores: dict[int, float] = {}
        for term in sorted(set(tokenize(query))):
            best: dict[int, float] = {}
            matches = self._matches(term)
            if len(matches) == 1:
                at, factor = matches[0]
                scale = self._idf[at] * self._unit * factor
                docs, weights = self._postings(at)
                for doc, weight in zip(docs, weights):
                    scores[doc] = scores.get(doc, 0.0) + scale * weight
                continue
            for at, factor in matches:
                scale = self._idf[at] * self._unit * factor
                docs, weights = self._postings(at)
                for doc, weight in zip(docs, weights):
                    value = scale * weight
                    if value > best.get(doc, 0.0):
                        best[doc] = value
            for doc, value in best.items():
                scores[doc] = scores.get(doc, 0.0) + value
        return scores

    def search(self, query: str, k: int = 5, tags: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` best (skill id, score) for ``query``, best first; ties by priority, then id.

        ``tags`` keeps only skills carrying every one of them (case-insensitive); with tags and
        a query without search terms, the tagged skills are listed with score 0.
        """
        scores = self.scores(query)
        if tags:
            wanted = {t.lower() for t in tags}
            candidates = scores if scores or tokenize(query) else dict.fromkeys(range(len(self.ids)), 0.0)
            scores = {d: s for d, s in candidates.items() if wanted <= {str(t).lower() for t in self._tags[d]}}
        best = heapq.nsmallest(max(k, 0), ((-round(s, 6), -self.priorities[d], self.ids[d]) for d, s in scores.items()))
        return [(skill_id, -neg) for neg, _, skill_id in best]
