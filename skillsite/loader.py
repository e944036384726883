"""skillsite.loader: use a published skill catalog from an agent runtime.

Standard library only, and importing nothing else from skillsite, so an agent can
vendor this one file.  The build imports its text and XML helpers, so what the build
publishes and what the loader produces can never disagree.
"""
from __future__ import annotations

import array
import base64
import bisect
import contextlib
import functools
import gc
import hashlib
import heapq
import json
import math
import os
import re
import sys
import time
import urllib.parse
import warnings
import zlib
from dataclasses import dataclass, field as _field
from itertools import repeat as _repeat
from operator import add as _add, mul as _mul
from pathlib import Path
from types import SimpleNamespace
from typing import Any, BinaryIO, Callable, Collection, Iterable, Iterator, Mapping, NamedTuple, Sequence

__all__ = [
    "FORMAT", "FORMAT_VERSION", "xml_text", "xml_attr", "one_line", "skill_entry_xml",
    "available_skills_xml", "skill_content_xml", "frontmatter_end", "prompt_order", "offered_to_model", "MAX_LISTED_RESOURCES",
    "SEARCH_VERSION", "SEARCH_FIELDS", "STOP_WORDS", "stem", "tokenize", "search_fields",
    "build_search_section", "SearchIndex",
    # catalog access
    "Catalog", "open_catalog", "SearchResult", "SkillContent", "SubSkill", "ToolCheck", "Decision",
    "SkillSession", "POLICIES", "tool_matches", "ineligible_reasons", "current_platform", "skill_body",
    "default_cache_dir", "user_cache_root", "write_atomically", "DEFAULT_TIMEOUT", "DEFAULT_MAX_BYTES",
    "LoaderError", "FetchError", "HTTPStatusError", "RedirectError", "TooLargeError", "CatalogFormatError",
    "UnsupportedVersionError", "IntegrityError", "NotFoundError", "UnsafePathError", "DestinationExistsError",
    "MissingToolsError", "LoaderWarning", "StaleCatalogWarning", "MissingToolsWarning",
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


def offered_to_model(entry: dict[str, Any]) -> bool:
    """False for a hidden or user-invocable-only skill: it is never offered to a model."""
    return not entry["visibility"]["hidden"] and not entry["visibility"]["user_invocable_only"]


def prompt_order(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Skills offered to a model, in prompt order: ``always`` first, then priority, then id.

    Hidden and user-invocable-only skills are left out.
    """
    shown = [e for e in entries if offered_to_model(e)]
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
# Scoring is BM25F: each occurrence of a term counts its field's weight (SEARCH_FIELDS),
# divided by that field's length normalisation; the sum is saturated with k1 at build time,
# quantised to one byte, and multiplied by the term's idf at query time.
# The stemmer is lunr.js 2.3.9's Porter stemmer ported exactly (the browser's lunr index
# is stemmed by it too); see skills.schema.json, $defs/search, for the stored format.

SEARCH_VERSION = 1
SEARCH_FIELDS: dict[str, float] = {"name": 1.0, "description": 3.0, "tags": 2.0, "tools": 1.0}
BM25_K1 = 3.6                # 1.2 on the description's scale: one description occurrence
BM25_B = 0.75                # saturates as a plain BM25 term does
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
_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
          "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
          "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al",
          "iviti": "ive", "biliti": "ble", "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}


# The stemmer's regexes, compiled at the first stem (about 4 ms: most users of this module never search).
_STEMMER_SOURCES = {
    "mgr0": f"^({_C})?{_V}{_C}",
    "meq1": f"^({_C})?{_V}{_C}({_V})?\\Z",
    "mgr1": f"^({_C})?{_V}{_C}{_V}{_C}",
    "s_v": f"^({_C})?[aeiouy]",
    "re_1a": f"^({_DOT}+?)(ss|i)es\\Z",
    "re2_1a": f"^({_DOT}+?)([^s])s\\Z",
    "re_1b": f"^({_DOT}+?)eed\\Z",
    "re2_1b": f"^({_DOT}+?)(ed|ing)\\Z",
    "re2_1b_2": "(at|bl|iz)\\Z",
    "re3_1b_2": "([^aeiouylsz])\\1\\Z",
    "re4_1b_2": f"^{_C}[aeiouy][^aeiouwxy]\\Z",
    "re_1c": f"^({_DOT}+?[^aeiou])y\\Z",
    "re_2": f"^({_DOT}+?)({'|'.join(_STEP2)})\\Z",
    "re_3": f"^({_DOT}+?)({'|'.join(_STEP3)})\\Z",
    "re_4": f"^({_DOT}+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)\\Z",
    "re2_4": f"^({_DOT}+?)(s|t)(ion)\\Z",
    "re_5": f"^({_DOT}+?)e\\Z",
    "re_5_1": "ll\\Z",
}


@functools.lru_cache(maxsize=None)
def _stemmer_patterns() -> SimpleNamespace:
    return SimpleNamespace(**{name: re.compile(source) for name, source in _STEMMER_SOURCES.items()})


_LINE_END = "\n\r\u2028\u2029"


def _drop_last(w: str) -> str:
    """JS ``w.replace(/.$/, "")``."""
    return w[:-1] if w and w[-1] not in _LINE_END else w


def _porter(w: str) -> str:
    """lunr.js ``porterStemmer`` on a string of UTF-16 code units."""
    if len(w) < 3:
        return w
    rx = _stemmer_patterns()
    first_y = w[0] == "y"
    if first_y:
        w = "Y" + w[1:]
    m = rx.re_1a.match(w) or rx.re2_1a.match(w)                   # step 1a
    if m:
        w = m.group(1) + m.group(2)
    m = rx.re_1b.match(w)                                         # step 1b
    if m:
        if rx.mgr0.match(m.group(1)):
            w = _drop_last(w)
    else:
        m = rx.re2_1b.match(w)
        if m and rx.s_v.match(m.group(1)):
            w = m.group(1)
            if rx.re2_1b_2.search(w):
                w += "e"
            elif rx.re3_1b_2.search(w):
                w = _drop_last(w)
            elif rx.re4_1b_2.match(w):
                w += "e"
    m = rx.re_1c.match(w)                                         # step 1c
    if m:
        w = m.group(1) + "i"
    for regex, table in ((rx.re_2, _STEP2), (rx.re_3, _STEP3)):   # steps 2 and 3
        m = regex.match(w)
        if m and rx.mgr0.match(m.group(1)):
            w = m.group(1) + table[m.group(2)]
    m = rx.re_4.match(w)                                          # step 4
    if m:
        if rx.mgr1.match(m.group(1)):
            w = m.group(1)
    else:
        m = rx.re2_4.match(w)
        if m and rx.mgr1.match(m.group(1) + m.group(2)):
            w = m.group(1) + m.group(2)
    m = rx.re_5.match(w)                                          # step 5
    if m:
        s = m.group(1)
        if rx.mgr1.match(s) or (rx.meq1.match(s) and not rx.re4_1b_2.match(s)):
            w = s
    if rx.re_5_1.search(w) and rx.mgr1.match(w):
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


_STEMS: dict[str, str] = {}  # memo of stem(): words repeat, and the regex stemmer is slow


def _stem_memo(word: str) -> str:
    found = _STEMS.get(word)
    if found is None:
        if len(_STEMS) >= 100_000:
            _STEMS.clear()
        found = _STEMS[word] = stem(word)
    return found


def tokenize(text: str) -> list[str]:
    """Search terms of a text: lower-cased letter/digit runs (so hyphens and punctuation split),
    minus stop words and one-character words, each stemmed with :func:`stem`."""
    return [_stem_memo(w) for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in STOP_WORDS]


def search_fields(entry: dict[str, Any]) -> dict[str, str]:
    """The searchable text of a manifest entry, per field of :data:`SEARCH_FIELDS`.

    ``name`` also holds the skill folder's name when it differs; ``tools`` holds the
    names and purposes of the declared ``tools`` (``allowed-tools`` is a permission list,
    not a description: "Read Write Bash" would match every query about reading or writing).
    """
    folder = entry["id"].rsplit("/", 1)[-1]
    name = entry["name"] if folder == entry["name"] else f"{entry['name']} {folder}"
    tools = [f"{t.get('name', '')} {t.get('purpose', '')}" for t in entry.get("tools", ())]
    return {"name": name, "description": entry.get("description", ""),
            "tags": " ".join(str(t) for t in entry.get("tags", ())), "tools": " ".join(tools)}


def _field_terms(entry: dict[str, Any]) -> dict[str, list[str]]:
    """The terms of each search field of a manifest entry."""
    fields = search_fields(entry)
    return {field: tokenize(fields.get(field, "")) for field in SEARCH_FIELDS}


def _pseudo_counts(terms: dict[str, list[str]], average: dict[str, float]) -> dict[str, float]:
    """BM25F term frequencies of one skill: each occurrence counts its field's weight divided by
    the field's length normalisation ``1 - b + b * length / average length``."""
    counts: dict[str, float] = {}
    for field, weight in SEARCH_FIELDS.items():
        words = terms[field]
        if not words:
            continue
        share = weight / (1.0 - BM25_B + BM25_B * len(words) / average[field])
        for term in words:
            counts[term] = counts.get(term, 0.0) + share
    return counts


def _idf(df: int, n: int) -> float:
    """BM25 idf, never negative."""
    return round(math.log(1.0 + (n - df + 0.5) / (df + 0.5)), 4)


def _doc_typecode(doc_bytes: int) -> str:
    """The ``array`` type code of unsigned integers of ``doc_bytes`` bytes (2 or 4)."""
    if doc_bytes == 2:
        return "H"
    return "I" if array.array("I").itemsize == 4 else "L"


def _encode_postings(postings: list[tuple[int, int]], doc_bytes: int) -> str:
    """base64 of the skill indexes (little-endian, ``doc_bytes`` each) then one weight byte each."""
    docs = array.array(_doc_typecode(doc_bytes), [i for i, _ in postings])
    if sys.byteorder != "little":
        docs.byteswap()
    return base64.b64encode(docs.tobytes() + bytes(q for _, q in postings)).decode("ascii")


def build_search_section(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``search`` section of ``skills.json`` for manifest ``entries`` (in manifest order).

    Deterministic: terms sorted, postings by skill index, floats rounded.
    """
    per_skill = [_field_terms(e) for e in entries]
    n = len(per_skill)
    average = {f: (sum(len(t[f]) for t in per_skill) / n if n else 0.0) or 1.0 for f in SEARCH_FIELDS}
    top = BM25_K1 + 1.0
    postings: dict[str, list[tuple[int, int]]] = {}
    for index, terms in enumerate(per_skill):
        for term, tf in _pseudo_counts(terms, average).items():
            level = round(tf / (tf + BM25_K1) * WEIGHT_LEVELS)  # (tf * top / (tf + k1)) / top
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


def _decode_postings(data: str, doc_bytes: int, docs_count: int) -> tuple[Sequence[int], bytes]:
    """Skill indexes and weight bytes of one encoded postings list; ValueError when corrupt."""
    raw = base64.b64decode(data, validate=True)
    count, rest = divmod(len(raw), doc_bytes + 1)
    docs = array.array(_doc_typecode(doc_bytes))
    docs.frombytes(raw[:count * doc_bytes])
    if sys.byteorder != "little":
        docs.byteswap()
    if rest or (count and max(docs) >= docs_count):
        raise ValueError("corrupt search index: a postings list is truncated or names a skill it does not have")
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
        if not len(section["terms"]) == len(section["idf"]) == len(section["postings"]):
            raise ValueError("search index terms, idf and postings differ in length")
        if section["doc_bytes"] not in (2, 4) or not section["weight_unit"] > 0:
            raise ValueError("search index has an unknown doc_bytes or weight_unit")
        self.ids = list(ids)
        self.priorities = list(priorities)
        self._tags = tags
        self._terms: list[str] = section["terms"]
        self._idf: list[float] = section["idf"]
        self._encoded: list[str] = section["postings"]
        self._doc_bytes: int = section["doc_bytes"]
        self._unit: float = section["weight_unit"]
        self._decoded: dict[int, tuple[Sequence[int], bytes]] = {}
        self._tag_index: dict[str, set[int]] | None = None

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
            found = _decode_postings(self._encoded[term_index], self._doc_bytes, len(self.ids))
            self._decoded[term_index] = found
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

    def _add_term(self, scores: dict[int, float], matches: list[tuple[int, float]]) -> None:
        """Add one query term's score to ``scores``: per skill, its best-matching vocabulary term.

        The loops run inside C (map/zip over array and bytes), about 30 ns per posting.
        """
        if len(matches) == 1:
            at, factor = matches[0]
            docs, weights = self._postings(at)
            gains: Iterable[float] = map(_mul, weights, _repeat(self._idf[at] * self._unit * factor))
        else:
            best: dict[int, float] = {}
            for at, factor in matches:
                term_docs, weights = self._postings(at)
                gain = map(_mul, weights, _repeat(self._idf[at] * self._unit * factor))
                best.update(zip(term_docs, map(max, map(best.get, term_docs, _repeat(0.0)), gain)))
            docs, gains = list(best), list(best.values())
        scores.update(zip(docs, map(_add, map(scores.get, docs, _repeat(0.0)), gains)))

    def scores(self, query: str) -> dict[int, float]:
        """Score of every matching skill, by manifest index (unrounded)."""
        scores: dict[int, float] = {}
        for term in sorted(set(tokenize(query))):
            matches = self._matches(term)
            if matches:
                self._add_term(scores, matches)
        return scores

    def _with_tags(self, tags: Sequence[str]) -> set[int]:
        """Indexes of the skills that carry every one of ``tags`` (case-insensitive)."""
        if self._tag_index is None:
            self._tag_index = {}
            for doc, doc_tags in enumerate(self._tags):
                for tag in doc_tags:
                    self._tag_index.setdefault(str(tag).lower(), set()).add(doc)
        found: set[int] | None = None
        for tag in {t.lower() for t in tags}:
            docs = self._tag_index.get(tag, set())
            found = set(docs) if found is None else found & docs
        return found or set()

    def search(self, query: str, k: int = 5, tags: Sequence[str] | None = None,
               exclude: Collection[str] = ()) -> list[tuple[str, float]]:
        """The ``k`` best (skill id, score) for ``query``, best first; ties by priority, then id.

        Scores are rounded to 6 decimals before ranking.  ``tags`` keeps only skills carrying
        every one of them (case-insensitive); with tags and a query without search terms, the
        tagged skills are listed with score 0.  Skills whose ids are in ``exclude`` are never
        returned (the k best are taken from the others).
        """
        if k <= 0:
            return []
        scores = self.scores(query)
        if tags:
            allowed = self._with_tags(tags)
            if scores or tokenize(query):
                scores = {d: scores[d] for d in allowed if d in scores}
            else:
                scores = dict.fromkeys(allowed, 0.0)
        if exclude:
            scores = {d: s for d, s in scores.items() if self.ids[d] not in exclude}
        if len(scores) > k:  # only skills within rounding of the k-th best score can be in the top k
            floor = heapq.nlargest(k, scores.values())[-1] - 1e-6
            scores = {d: s for d, s in scores.items() if s >= floor}
        ranked = sorted((-round(s, 6), -self.priorities[d], self.ids[d]) for d, s in scores.items())
        return [(skill_id, -neg) for neg, _, skill_id in ranked[:k]]


# ------------------------------------------------------------------ catalog access
#
# ``Catalog.open()`` reads a published ``skills.json`` (an http(s) URL, a file, or a built
# site folder).  Everything fetched is checked against the manifest's sha256 before it is
# returned or written; remote manifests are cached on disk and revalidated with
# ETag / If-Modified-Since, and used offline (with a StaleCatalogWarning) when the server
# cannot be reached.
#
#     catalog = Catalog.open("https://skills.example.com/skills.json")
#     best = catalog.search("roll back a release")[0]
#     system_prompt += catalog.prompt(); skill = catalog.load(best.id)   # skill.xml, skill.body

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
MANIFEST_NAME = "skills.json"
USER_AGENT = f"skillsite-loader/{FORMAT_VERSION}"
_CHUNK = 64 * 1024
_HEX = frozenset("0123456789abcdef")
_SHELL_OPERATORS = (";", "&", "|", "`", "$(", ">", "<", "\n", "\r")


class LoaderError(Exception):
    """Base class of every error skillsite.loader raises."""


class FetchError(LoaderError):
    """The catalog or a file could not be fetched (network failure, timeout, refused URL).

    ``transient`` is true for failures worth retrying later (connection, timeout, HTTP
    5xx/408/429); only those fall back to a cached catalog.
    """

    def __init__(self, message: str, url: str = "", *, transient: bool = False) -> None:
        super().__init__(message)
        self.url = url
        self.transient = transient


class HTTPStatusError(FetchError):
    """The server answered with an HTTP error status."""

    def __init__(self, url: str, status: int, reason: str = "") -> None:
        text = f"HTTP {status}{' ' + reason if reason else ''} from {url}"
        super().__init__(text, url, transient=status >= 500 or status in (408, 429))
        self.status = status


class RedirectError(FetchError):
    """A redirect left ``allowed_hosts``, changed scheme to non-http(s), or downgraded https."""


class TooLargeError(FetchError):
    """A response was larger than ``max_bytes``."""


class CatalogFormatError(LoaderError):
    """The manifest is not a usable skillsite catalog (invalid JSON, wrong format, bad entries)."""


class UnsupportedVersionError(CatalogFormatError):
    """The catalog's ``format_version`` is newer than this loader understands."""

    def __init__(self, version: int, where: str) -> None:
        super().__init__(f"{where} has format_version {version}, but this loader supports format_version "
                         f"{FORMAT_VERSION} at most; upgrade skillsite (or its loader.py)")
        self.version = version
        self.supported = FORMAT_VERSION


class IntegrityError(LoaderError):
    """Content does not match the digest the manifest records; it is never returned."""

    def __init__(self, message: str, expected: str = "", actual: str = "") -> None:
        super().__init__(message)
        self.expected = expected
        self.actual = actual


class NotFoundError(LoaderError, LookupError):
    """No such skill (by id or name), or no such bundled file in a skill."""


class UnsafePathError(LoaderError, ValueError):
    """A path would escape its skill folder, the site, or the install destination."""


class DestinationExistsError(LoaderError, FileExistsError):
    """``install`` would overwrite an existing folder and ``overwrite`` was not given."""


class MissingToolsError(LoaderError):
    """``check_tools(mode="strict")``: a skill needs tools the runtime does not have."""

    def __init__(self, message: str, check: "ToolCheck") -> None:
        super().__init__(message)
        self.check = check


class LoaderWarning(UserWarning):
    """Base class of the warnings skillsite.loader issues."""


class StaleCatalogWarning(LoaderWarning):
    """The catalog could not be fetched; a cached copy is used instead."""


class MissingToolsWarning(LoaderWarning):
    """``check_tools(mode="warn")``: a skill needs tools the runtime does not have."""


# ---- results


@dataclass(frozen=True)
class SearchResult:
    """One search hit, best first."""

    id: str
    name: str
    description: str
    score: float


class SubSkill(NamedTuple):
    """A direct child skill, as listed in ``SkillContent.sub_skills``."""

    id: str
    name: str
    description: str


@dataclass(frozen=True)
class SkillContent:
    """A loaded, verified skill: what an agent receives when it activates it."""

    id: str
    name: str
    description: str
    body: str = _field(repr=False)      # the Markdown instructions, frontmatter removed
    resources: tuple[str, ...]         # bundled file paths, relative to the skill folder
    sub_skills: tuple[SubSkill, ...]
    xml: str = _field(repr=False)       # the <skill_content> fragment
    location: str                      # absolute URL or path of SKILL.md
    base_url: str                      # absolute URL or path of the skill folder (ends with / or os.sep)
    allowed_tools: tuple[str, ...]
    sha256: str
    raw: bytes = _field(repr=False)     # SKILL.md as published (verified)


@dataclass(frozen=True)
class ToolCheck:
    """Which of a skill's tools the runtime has; ``complete`` when none required is missing."""

    skill_id: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    available: tuple[str, ...]
    missing: tuple[str, ...]            # required and not available
    missing_optional: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not self.missing


# ---- fetching


def _check_url(url: str, allowed_hosts: frozenset[str] | None, previous: str | None = None) -> None:
    """Refuse non-http(s) URLs, hosts outside ``allowed_hosts`` and https-to-http redirects."""
    parts = urllib.parse.urlsplit(url)
    error = RedirectError if previous else FetchError
    if parts.scheme not in ("http", "https"):
        raise error(f"refusing {url!r}: only http and https URLs are fetched", url)
    host = (parts.hostname or "").lower()
    if not host:
        raise error(f"refusing {url!r}: no host", url)
    if allowed_hosts is not None and host not in allowed_hosts:
        what = f"redirect from {previous} to" if previous else "URL"
        raise error(f"refusing {what} {url}: host {host!r} is not in allowed_hosts "
                    f"({', '.join(sorted(allowed_hosts))})", url)
    if previous and urllib.parse.urlsplit(previous).scheme == "https" and parts.scheme != "https":
        raise error(f"refusing redirect from {previous} to {url}: it downgrades https to http", url)


def _redirect_guard(allowed_hosts: frozenset[str] | None) -> Any:
    """A redirect handler that follows a redirect only to an http(s) URL passing :func:`_check_url`.

    Built on first use: the HTTP modules cost more to import than validating a small tree,
    and the build and ``validate`` never fetch anything.
    """
    import urllib.request

    class _RedirectGuard(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
            try:
                _check_url(newurl, allowed_hosts, previous=req.full_url)
            except FetchError:
                fp.close()
                raise
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return _RedirectGuard()


class _Response(NamedTuple):
    url: str                 # the final URL, after redirects
    status: int              # 200, or 304 (not modified)
    body: bytes
    etag: str | None
    last_modified: str | None


class _Fetcher:
    """HTTP GET with a total deadline, a byte cap (also on gzip output) and guarded redirects."""

    def __init__(self, timeout: float, max_bytes: int, allowed_hosts: frozenset[str] | None) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.allowed_hosts = allowed_hosts
        import urllib.request

        self._opener = urllib.request.build_opener(_redirect_guard(allowed_hosts))

    def get(self, url: str, headers: Mapping[str, str] | None = None, limit: int | None = None) -> _Response:
        """Fetch ``url``; raises FetchError (or a subclass) on any failure."""
        import http.client
        import urllib.error
        import urllib.request

        _check_url(url, self.allowed_hosts)
        limit = self.max_bytes if limit is None else min(limit, self.max_bytes)
        deadline = time.monotonic() + self.timeout
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip",
                                                       **(headers or {})})
        try:
            response = self._opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 304:
                return _Response(exc.url or url, 304, b"", exc.headers.get("ETag"),
                                 exc.headers.get("Last-Modified"))
            raise HTTPStatusError(exc.url or url, exc.code, str(exc.reason or "")) from None
        except FetchError:
            raise
        except urllib.error.URLError as exc:
            raise FetchError(f"cannot fetch {url}: {_reason(exc.reason)}", url, transient=True) from None
        except (OSError, http.client.HTTPException) as exc:
            raise FetchError(f"cannot fetch {url}: {_reason(exc)}", url, transient=True) from None
        with response:
            body = self._read(response, url, limit, deadline)
            return _Response(response.geturl(), 200, body, response.headers.get("ETag"),
                             response.headers.get("Last-Modified"))

    def _read(self, response: Any, url: str, limit: int, deadline: float) -> bytes:
        """Read the body in chunks, enforcing the deadline and the byte cap as it goes."""
        import http.client

        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise TooLargeError(f"{url} is {int(declared):,} bytes, over the limit of {limit:,}", url)
        gzipped = response.headers.get("Content-Encoding", "").lower() == "gzip"
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzipped else None
        out: list[bytes] = []
        size = received = 0
        try:
            while True:
                if time.monotonic() > deadline:
                    raise FetchError(f"{url} took longer than {self.timeout:g} s", url, transient=True)
                chunk = response.read1(_CHUNK)
                if not chunk:
                    break
                received += len(chunk)
                piece = self._inflate(inflater, chunk, limit - size, url) if inflater else chunk
                out.append(piece)
                size += len(piece)
                if size > limit:
                    raise TooLargeError(f"{url} is over the limit of {limit:,} bytes", url)
            if declared and declared.isdigit() and received < int(declared):
                raise FetchError(f"cannot read {url}: connection closed after {received:,} of {int(declared):,} "
                                 "bytes (response truncated)", url, transient=True)
            if inflater is not None:
                out.append(inflater.flush())
        except FetchError:
            raise
        except zlib.error as exc:
            raise FetchError(f"{url}: bad gzip data ({exc})", url) from None
        except (OSError, http.client.HTTPException) as exc:
            raise FetchError(f"cannot read {url}: {_reason(exc)}", url, transient=True) from None
        return b"".join(out)

    @staticmethod
    def _inflate(inflater: Any, chunk: bytes, room: int, url: str) -> bytes:
        data = inflater.decompress(chunk, max(room, 0) + 1)
        if inflater.unconsumed_tail or len(data) > room:
            raise TooLargeError(f"{url} inflates to more than the limit", url)
        return data


def _reason(exc: object) -> str:
    import http.client

    if isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError since Python 3.10
        return "timed out"
    if isinstance(exc, http.client.IncompleteRead):
        return f"connection closed after {len(exc.partial):,} bytes (response truncated)"
    return str(getattr(exc, "strerror", None) or exc) or type(exc).__name__


def _read_local(path: Path, limit: int) -> bytes:
    """Read at most ``limit`` bytes of a local file; TooLargeError beyond."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise FetchError(f"cannot read {path}: no such file", str(path)) from None
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}", str(path)) from None
    if len(data) > limit:
        raise TooLargeError(f"{path} is over the limit of {limit:,} bytes", str(path))
    return data


# ---- on-disk cache


def user_cache_root() -> Path:
    """skillsite's folder in the user cache: ``$XDG_CACHE_HOME/skillsite`` (``~/.cache/skillsite``)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "skillsite"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "skillsite"


def default_cache_dir() -> Path:
    """``$SKILLSITE_CACHE_DIR``, else :func:`user_cache_root` + ``loader``."""
    if os.environ.get("SKILLSITE_CACHE_DIR"):
        return Path(os.environ["SKILLSITE_CACHE_DIR"])
    return user_cache_root() / "loader"


def write_atomically(path: Path, write: Callable[[BinaryIO], Any]) -> bool:
    """Make ``path`` with ``write(handle)`` in a temporary file beside it, then rename it into
    place: readers see the old file or the whole new one.  False (and nothing left behind)
    when the folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _new_private_file(path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                write(handle)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


def _new_private_file(folder: Path) -> tuple[int, str]:
    """A new empty file in ``folder`` (mode 0600, a random name starting ``.tmp-``), open for
    writing, and its path: ``tempfile.mkstemp``'s way, without importing tempfile and shutil
    (3 ms of every command that only keeps a cache file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    while True:
        tmp = os.path.join(folder, f".tmp-{os.urandom(8).hex()}")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:  # pragma: no cover - 64 random bits
            continue


class _Cache:
    """Manifests by URL (with validators) and verified files by sha256, under one folder.

    Every file name is derived from a hash, so nothing is ever written outside ``root``;
    writes go to a temporary file that is renamed into place.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _slot(self, url: str) -> Path:
        return self.root / "catalogs" / hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]

    def _object(self, sha: str) -> Path:
        return self.root / "objects" / sha[:2] / sha

    def read_manifest(self, url: str) -> tuple[bytes, dict[str, Any]] | None:
        """The cached body and its metadata, or None when absent or inconsistent."""
        slot = self._slot(url)
        try:
            meta = json.loads((slot / "meta.json").read_text("utf-8"))
            body = (slot / MANIFEST_NAME).read_bytes()
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        return body, meta

    def write_manifest(self, url: str, response: _Response) -> None:
        meta = {"url": url, "final_url": response.url, "etag": response.etag,
                "last_modified": response.last_modified, "fetched_at": time.time(),
                "sha256": hashlib.sha256(response.body).hexdigest()}
        slot = self._slot(url)
        self._write(slot / MANIFEST_NAME, response.body)
        self._write(slot / "meta.json", json.dumps(meta).encode("utf-8"))

    def touch_manifest(self, url: str, meta: dict[str, Any]) -> None:
        """Record a successful revalidation (304)."""
        self._write(self._slot(url) / "meta.json", json.dumps({**meta, "checked_at": time.time()}).encode())

    def get_object(self, sha: str) -> bytes | None:
        try:
            data = self._object(sha).read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == sha else None

    def put_object(self, sha: str, data: bytes) -> None:
        self._write(self._object(sha), data)

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        """Atomic write; a cache that cannot be written is silently skipped."""
        write_atomically(path, lambda handle: handle.write(data))


# ---- manifest checks


def _parse_manifest(body: bytes, where: str) -> dict[str, Any]:
    """Decode and check a manifest; CatalogFormatError / UnsupportedVersionError on problems."""
    try:
        data = _json_loads(body)
    except UnicodeDecodeError as exc:
        raise CatalogFormatError(f"{where} is not UTF-8 JSON ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        stripped = body.strip()
        truncated = exc.pos >= len(stripped) or (stripped[:1] == b"{" and stripped[-1:] != b"}")
        hint = "; it looks truncated" if truncated else ""
        raise CatalogFormatError(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} "
                                 f"column {exc.colno}{hint}") from None
    except RecursionError:
        raise CatalogFormatError(f"{where} nests too deeply to be a catalog") from None
    _check_manifest(data, where)
    return data


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while a manifest's hundreds of thousands of objects are created.

    Parsing a 10,000-skill manifest triggers repeated full collections otherwise, which
    cost as much as the parse itself.  Nested use is fine; the previous state is restored.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _json_loads(body: bytes) -> Any:
    with _gc_paused():
        return json.loads(body)


def _check_manifest(data: Any, where: str) -> None:
    """The top level, and the id, name and description of every entry (the rest is checked on use)."""
    if not isinstance(data, dict):
        raise CatalogFormatError(f"{where} is not a skillsite catalog: the top level is not an object")
    if data.get("format") != FORMAT:
        raise CatalogFormatError(f"{where} is not a skillsite catalog: format is {data.get('format')!r}, "
                                 f"expected {FORMAT!r}")
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CatalogFormatError(f"{where}: format_version {version!r} is not a positive integer")
    if version > FORMAT_VERSION:
        raise UnsupportedVersionError(version, where)
    skills = data.get("skills")
    if not isinstance(skills, list):
        raise CatalogFormatError(f"{where}: 'skills' is not a list")
    for index, entry in enumerate(skills):
        if not (isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]
                and isinstance(entry.get("name"), str) and isinstance(entry.get("description"), str)):
            raise CatalogFormatError(f"{where}: skills[{index}] {_entry_problem(entry) or 'is malformed'}")


def _is_hex(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and _HEX.issuperset(value)


def _entry_problem(entry: Any) -> str | None:
    """What is wrong with one manifest entry, or None."""
    if not isinstance(entry, dict):
        return "is not an object"
    for key in ("id", "name", "description"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            return f"has no {key}"
    if not _is_hex(entry.get("sha256")):
        return f"({entry['id']}) has no valid sha256"
    urls = entry.get("urls")
    if not isinstance(urls, dict) or not all(isinstance(urls.get(k), str) for k in ("skill_md", "files")):
        return f"({entry['id']}) has no urls.skill_md / urls.files"
    files = entry.get("files")
    if not isinstance(files, list) or not all(
            isinstance(f, dict) and isinstance(f.get("path"), str) and _is_hex(f.get("sha256")) for f in files):
        return f"({entry['id']}) has malformed files"
    if not isinstance(entry.get("visibility"), dict) or not isinstance(entry.get("requirements"), dict):
        return f"({entry['id']}) has no visibility / requirements"
    return None


def _safe_relpath(path: str, what: str) -> str:
    """A normalised relative POSIX path, or UnsafePathError if it could escape its folder."""
    if not isinstance(path, str) or not path or "\x00" in path or "\\" in path:
        raise UnsafePathError(f"{what} {path!r} is not a plain relative path")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise UnsafePathError(f"{what} {path!r} is absolute")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafePathError(f"{what} {path!r} escapes its folder")
    return "/".join(parts)


def _site_relative(url: str, what: str) -> str:
    """A manifest URL (relative, percent-encoded) checked to stay inside the site; trailing / kept."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme or parts.netloc or parts.query or parts.fragment:
        raise CatalogFormatError(f"{what} {url!r} is not a site-relative URL")
    decoded = urllib.parse.unquote(parts.path)
    try:
        clean = _safe_relpath(decoded, what)
    except UnsafePathError as exc:
        raise CatalogFormatError(str(exc)) from None
    return clean + ("/" if decoded.endswith("/") else "")


# ---- eligibility


def current_platform(name: str | None = None) -> str:
    """``sys.platform`` mapped to the catalog's names: linux, darwin or windows."""
    name = name or sys.platform
    if name.startswith("linux"):
        return "linux"
    if name.startswith(("win", "cygwin", "msys")):
        return "windows"
    return name


def ineligible_reasons(entry: Mapping[str, Any], env: Mapping[str, str] | None = None,
                       platform: str | None = None, _which: dict[str, bool] | None = None) -> list[str]:
    """Why a skill cannot run here (missing binaries, unset variables, other platform); [] if it can.

    Binaries are looked up with ``shutil.which`` on ``env["PATH"]``; a variable counts as set
    when it is present and non-empty in ``env`` (default ``os.environ``).
    """
    import shutil

    env = os.environ if env is None else env
    found = {} if _which is None else _which
    req = entry.get("requirements") or {}
    reasons = []
    for binary in req.get("bins") or ():
        if binary not in found:
            found[binary] = shutil.which(binary, path=env.get("PATH", os.defpath)) is not None
        if not found[binary]:
            reasons.append(f"needs '{binary}' on PATH")
    reasons += [f"needs ${name} set" for name in req.get("env") or () if not env.get(name)]
    platforms = req.get("platforms") or []
    here = current_platform(platform)
    if platforms and here not in platforms:
        reasons.append(f"runs on {', '.join(platforms)}, not {here}")
    return reasons


# ---- tool authorisation


def _split_tool(spec: str) -> tuple[str, str | None]:
    """``"Bash(git status)"`` -> ``("Bash", "git status")``; ``"Read"`` -> ``("Read", None)``."""
    spec = spec.strip()
    if spec.endswith(")") and "(" in spec:
        name, _, args = spec[:-1].partition("(")
        return name.strip(), " ".join(args.split())
    return spec, None


def tool_matches(pattern: str, request: str) -> bool:
    """Whether a tool ``request`` is covered by an allowed-tools ``pattern``.

    The rule:
    - Names compare exactly (case-sensitive).  A bare pattern (``Read``, ``Bash``) or one
      with ``(*)`` allows every use of that tool.
    - ``Name(prefix:*)`` allows a request whose argument is ``prefix`` or starts with
      ``prefix`` followed by a space, whole words only: ``Bash(git:*)`` allows
      ``Bash(git status)`` and ``Bash(git)``, never ``Bash(gitk)``.
    - ``Name(glob)`` with ``*`` elsewhere matches the argument with fnmatch rules;
      ``Name(text)`` without ``*`` matches that exact argument.
    - Whitespace in arguments is collapsed before comparing.  A request whose argument
      contains a shell operator (``; & | ` $( > <`` or a newline) never matches a
      pattern with an argument, so ``Bash(git:*)`` cannot approve ``git log; rm -rf ~``.
    """
    import fnmatch

    p_name, p_args = _split_tool(pattern)
    r_name, r_args = _split_tool(request)
    if p_name != r_name:
        return False
    if p_args is None or p_args == "*":
        return True
    if r_args is None or any(op in r_args for op in _SHELL_OPERATORS):
        return False
    if p_args.endswith(":*"):
        prefix = p_args[:-2].rstrip()
        return r_args == prefix or r_args.startswith(prefix + " ")
    if "*" in p_args:
        return fnmatch.fnmatchcase(r_args, p_args)
    return r_args == p_args


@dataclass(frozen=True)
class Decision:
    """The answer to ``SkillSession.authorize``: outcome is allowed, denied or needs-approval."""

    tool: str
    outcome: str
    reason: str

    @property
    def allowed(self) -> bool:
        return self.outcome == "allowed"


POLICIES = ("strict", "approval", "permissive")


class SkillSession:
    """Tool authorisation for an agent session that activates skills from a catalog.

    Activating a skill adds its ``allowed-tools`` to the session's allowed set.
    ``authorize(tool)`` checks, in order: tools denied at run time (denied, whatever the
    policy), tools approved at run time (allowed), the active skills' allowed tools
    (allowed), then the policy for anything else: ``strict`` denies, ``approval`` answers
    needs-approval, ``permissive`` allows.  See :func:`tool_matches` for the pattern rule.
    """

    def __init__(self, catalog: "Catalog", policy: str = "strict") -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        self.catalog = catalog
        self.policy = policy
        self._active: dict[str, tuple[str, ...]] = {}
        self._approved: list[str] = []
        self._denied: list[str] = []

    @property
    def active(self) -> tuple[str, ...]:
        return tuple(self._active)

    @property
    def allowed_tools(self) -> tuple[str, ...]:
        """The union of the active skills' allowed tools, in activation order."""
        return tuple(dict.fromkeys(t for tools in self._active.values() for t in tools))

    def activate(self, id_or_name: str) -> SkillContent:
        """Load (and verify) a skill and add its allowed tools to the session."""
        content = self.catalog.load(id_or_name)
        self._active[content.id] = content.allowed_tools
        return content

    def deactivate(self, skill_id: str) -> None:
        self._active.pop(skill_id, None)

    def approve(self, tool: str) -> None:
        """Allow a tool (or pattern) for the rest of the session."""
        self._denied = [t for t in self._denied if t != tool]
        self._approved.append(tool)

    def deny(self, tool: str) -> None:
        """Deny a tool (or pattern) for the rest of the session, whatever else allows it."""
        self._approved = [t for t in self._approved if t != tool]
        self._denied.append(tool)

    def authorize(self, tool: str) -> Decision:
        """Decide whether the agent may use ``tool`` now (e.g. ``"Read"``, ``"Bash(git status)"``)."""
        for pattern in self._denied:
            if tool_matches(pattern, tool):
                return Decision(tool, "denied", f"denied at run time ({pattern})")
        for pattern in self._approved:
            if tool_matches(pattern, tool):
                return Decision(tool, "allowed", f"approved at run time ({pattern})")
        for skill_id, patterns in self._active.items():
            for pattern in patterns:
                if tool_matches(pattern, tool):
                    return Decision(tool, "allowed", f"allowed by skill {skill_id} ({pattern})")
        scope = (f"not in the allowed-tools of the active skills ({', '.join(self._active)})"
                 if self._active else "no active skill allows it")
        if self.policy == "permissive":
            return Decision(tool, "allowed", f"{scope}; allowed by the permissive policy")
        if self.policy == "approval":
            return Decision(tool, "needs-approval", f"{scope}; the approval policy asks the user")
        return Decision(tool, "denied", f"{scope}; denied by the strict policy")


# ---- the catalog


def _classify_source(source: str | os.PathLike[str]) -> tuple[str, str]:
    """``("url", url)`` or ``("path", path of skills.json)``; refuses other URL schemes."""
    if isinstance(source, os.PathLike):
        text = os.fspath(source)
    else:
        text = str(source)
        scheme = urllib.parse.urlsplit(text).scheme.lower()
        if scheme in ("http", "https"):
            return "url", text + MANIFEST_NAME if text.endswith("/") else text
        if len(scheme) > 1 and "://" in text or scheme in ("file", "ftp", "data"):
            raise FetchError(f"refusing {text!r}: a catalog is an http(s) URL or a local path", text)
    path = Path(text).expanduser()
    return "path", os.path.abspath(path / MANIFEST_NAME if path.is_dir() else path)


class Catalog:
    """A published skill catalog: search it, load verified skills, build the prompt block.

    Make one with :meth:`Catalog.open`.  ``status`` says where the manifest came from:
    ``local``, ``fetched``, ``not-modified`` (revalidated with a 304) or ``offline``
    (the cached copy, after a StaleCatalogWarning).
    """

    def __init__(self, manifest: dict[str, Any], location: str, *, remote: bool, status: str,
                 fetcher: _Fetcher, cache: _Cache | None, max_bytes: int) -> None:
        self.manifest = manifest
        self.location = location            # the manifest's URL (final, after redirects) or absolute path
        self.remote = remote
        self.status = status
        self._fetcher = fetcher
        self._cache = cache
        self._max_bytes = max_bytes
        self._by_id = {e["id"]: e for e in manifest["skills"]}
        self._by_name: dict[str, list[str]] = {}
        for entry in manifest["skills"]:
            self._by_name.setdefault(entry["name"], []).append(entry["id"])
        self._index: Any = None
        self._valid: set[str] = set()

    # -- opening

    @classmethod
    def open(cls, source: str | os.PathLike[str], *, cache_dir: str | os.PathLike[str] | None = None,
             timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
             allowed_hosts: Iterable[str] | None = None) -> "Catalog":
        """Open a catalog from an http(s) URL of skills.json, a path to one, or a site folder.

        Remote manifests are cached under ``cache_dir`` (default :func:`default_cache_dir`)
        and revalidated with If-None-Match / If-Modified-Since.  When fetching fails with a
        transient error (network, timeout, HTTP 5xx) and a cached copy exists, that copy is
        used with a :class:`StaleCatalogWarning`.  ``timeout`` bounds each request as a
        whole, ``max_bytes`` each response; with ``allowed_hosts`` only those host names are
        contacted, redirects included.
        """
        if timeout <= 0 or max_bytes <= 0:
            raise ValueError("timeout and max_bytes must be positive")
        if isinstance(allowed_hosts, str):
            allowed_hosts = [allowed_hosts]
        hosts = None if allowed_hosts is None else frozenset(h.lower().strip() for h in allowed_hosts)
        fetcher = _Fetcher(timeout, max_bytes, hosts)
        kind, where = _classify_source(source)
        with _gc_paused():
            if kind == "path":
                manifest = _parse_manifest(_read_local(Path(where), max_bytes), where)
                return cls(manifest, where, remote=False, status="local", fetcher=fetcher, cache=None,
                           max_bytes=max_bytes)
            cache = _Cache(Path(cache_dir) if cache_dir is not None else default_cache_dir())
            manifest, final_url, status = cls._fetch_manifest(where, fetcher, cache)
            return cls(manifest, final_url, remote=True, status=status, fetcher=fetcher, cache=cache,
                       max_bytes=max_bytes)

    @staticmethod
    def _fetch_manifest(url: str, fetcher: _Fetcher, cache: _Cache) -> tuple[dict[str, Any], str, str]:
        cached = cache.read_manifest(url)
        headers: dict[str, str] = {}
        if cached:
            if cached[1].get("etag"):
                headers["If-None-Match"] = cached[1]["etag"]
            if cached[1].get("last_modified"):
                headers["If-Modified-Since"] = cached[1]["last_modified"]
        try:
            response = fetcher.get(url, headers)
        except FetchError as exc:
            if cached is None or not exc.transient:
                raise
            age = time.time() - float(cached[1].get("fetched_at", 0))
            when = f"{age / 3600:.1f} h" if age >= 3600 else f"{age / 60:.0f} min" if age >= 60 else f"{age:.0f} s"
            warnings.warn(StaleCatalogWarning(f"{exc}; using the cached copy from {when} ago"), stacklevel=3)
            return _parse_manifest(cached[0], url), cached[1].get("final_url") or url, "offline"
        if response.status == 304:
            if cached is None:
                raise HTTPStatusError(url, 304, "Not Modified to an unconditional request")
            cache.touch_manifest(url, cached[1])
            return _parse_manifest(cached[0], url), cached[1].get("final_url") or url, "not-modified"
        manifest = _parse_manifest(response.body, url)
        cache.write_manifest(url, response)
        return manifest, response.url, "fetched"

    # -- lookup

    @property
    def skills(self) -> list[dict[str, Any]]:
        """The manifest entries, in manifest order."""
        return self.manifest["skills"]

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, id_or_name: object) -> bool:
        return id_or_name in self._by_id or id_or_name in self._by_name

    def entry(self, id_or_name: str) -> dict[str, Any]:
        """The manifest entry of a skill, by id or else by (unique) name; checked on first use."""
        if id_or_name in self._by_id:
            return self._checked(self._by_id[id_or_name])
        ids = self._by_name.get(id_or_name, [])
        if len(ids) == 1:
            return self._checked(self._by_id[ids[0]])
        if ids:
            raise NotFoundError(f"name {id_or_name!r} is shared by skills {', '.join(ids)}; use an id")
        raise NotFoundError(f"no skill {id_or_name!r} in the catalog")

    def _checked(self, entry: dict[str, Any]) -> dict[str, Any]:
        """``entry``, after checking its digests, URLs, files, visibility and requirements once."""
        if entry["id"] not in self._valid:
            problem = _entry_problem(entry)
            if problem:
                raise CatalogFormatError(f"{self.location}: skill {problem}")
            self._valid.add(entry["id"])
        return entry

    def _url(self, rel: str) -> str:
        """Absolute URL or path of a site-relative URL (checked to stay inside the site)."""
        clean = _site_relative(rel, "catalog URL")
        if self.remote:
            return urllib.parse.urljoin(self.location, urllib.parse.quote(clean, safe="/"))
        path = os.path.join(os.path.dirname(self.location), *clean.rstrip("/").split("/"))
        return path + os.sep if clean.endswith("/") else path

    def skill_location(self, id_or_name: str) -> str:
        """Absolute URL (remote catalogs) or path (local ones) of a skill's SKILL.md."""
        return self._url(self.entry(id_or_name)["urls"]["skill_md"])

    # -- search

    def search(self, query: str, k: int = 5, tags: Sequence[str] | None = None, *,
               for_model: bool = False) -> list[SearchResult]:
        """The ``k`` best skills for ``query`` (optionally only with all of ``tags``), as ``skillsite search`` ranks them.

        ``for_model``: only skills that may be offered to a model, as in :meth:`prompt` (not
        hidden, not user-invocable only); use it when the results go to a model.
        """
        if self._index is None:
            try:
                with _gc_paused():
                    self._index = SearchIndex.from_manifest(self.manifest)
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise CatalogFormatError(f"{self.location}: unusable search index ({exc})") from None
        withheld = self._withheld_from_models() if for_model else frozenset()
        hits = self._index.search(query, k=k, tags=tags, exclude=withheld)
        return [SearchResult(sid, self._by_id[sid]["name"], self._by_id[sid]["description"], float(score))
                for sid, score in hits]

    def _withheld_from_models(self) -> frozenset[str]:
        return frozenset(e["id"] for e in self.manifest["skills"] if not offered_to_model(e))

    # -- content

    def _fetch_verified(self, rel: str, sha: str, size: int | None, what: str) -> bytes:
        """Bytes of a site file whose sha256 must be ``sha``; IntegrityError otherwise."""
        data = self._cache.get_object(sha) if self._cache else None
        if data is not None:
            return data
        limit = self._max_bytes if size is None else min(self._max_bytes, size + 1)
        try:
            if self.remote:
                data = self._fetcher.get(self._url(rel), limit=limit).body
            else:
                data = _read_local(Path(self._url(rel)), limit)
        except TooLargeError:
            if size is None or size >= self._max_bytes:
                raise
            raise IntegrityError(f"{what} is larger than the {size:,} bytes the catalog records; refusing it",
                                 sha) from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha:
            raise IntegrityError(f"{what} does not match the catalog: sha256 is {actual}, the manifest says {sha}; "
                                 "refusing it", sha, actual)
        if self._cache:
            self._cache.put_object(sha, data)
        return data

    def _skill_md(self, entry: Mapping[str, Any]) -> bytes:
        size = (entry.get("size") or {}).get("bytes")
        return self._fetch_verified(entry["urls"]["skill_md"], entry["sha256"],
                                    size if isinstance(size, int) else None, f"SKILL.md of {entry['id']}")

    def load(self, id_or_name: str) -> SkillContent:
        """Fetch and verify a skill's SKILL.md; its body, resources, sub-skills and XML fragment."""
        entry = self.entry(id_or_name)
        raw = self._skill_md(entry)
        body = skill_body(raw)
        base = self._url(entry["urls"]["files"])
        resources = tuple(f["path"] for f in entry["files"])
        subs = tuple(SubSkill(c, self._by_id[c]["name"], self._by_id[c]["description"])
                     for c in entry.get("children") or () if c in self._by_id)
        xml = skill_content_xml(entry["name"], entry["id"], body, base, resources, subs)
        return SkillContent(entry["id"], entry["name"], entry["description"], body, resources, subs, xml,
                            self._url(entry["urls"]["skill_md"]), base, tuple(entry.get("allowed-tools") or ()),
                            entry["sha256"], raw)

    def resource(self, skill_id: str, path: str) -> bytes:
        """A bundled file of a skill, verified; refuses paths that escape the skill folder."""
        entry = self.entry(skill_id)
        clean = _safe_relpath(path, "resource path")
        if clean == "SKILL.md":
            return self._skill_md(entry)
        record = next((f for f in entry["files"] if f["path"] == clean), None)
        if record is None:
            raise NotFoundError(f"skill {entry['id']} has no bundled file {clean!r}")
        rel = entry["urls"]["files"] + urllib.parse.quote(clean, safe="/")
        size = record.get("bytes")
        return self._fetch_verified(rel, record["sha256"], size if isinstance(size, int) else None,
                                    f"{clean} of {entry['id']}")

    def install(self, skill_id: str, dest: str | os.PathLike[str], overwrite: bool = False, *,
                children: bool = True) -> Path:
        """Write the verified skill folder (and, by default, its nested sub-skills) to ``dest``.

        Everything is fetched and verified first, written into a temporary folder beside
        ``dest`` and renamed into place; nothing is written outside ``dest``.  An existing
        ``dest`` is replaced only with ``overwrite=True`` (DestinationExistsError otherwise).
        """
        import shutil
        import tempfile

        entry = self.entry(skill_id)
        target = Path(os.path.abspath(dest))
        if (target.exists() or target.is_symlink()) and not overwrite:
            raise DestinationExistsError(f"{target} already exists; pass overwrite=True to replace it")
        files = self._install_files(entry, children)
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
        try:
            for rel, data in files.items():
                out = staging.joinpath(*rel.split("/"))
                if os.path.commonpath([os.path.realpath(out.parent), os.path.realpath(staging)]) != \
                        os.path.realpath(staging):
                    raise UnsafePathError(f"{rel!r} would be written outside {target}")
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
            _swap_in(staging, target, overwrite)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return target

    def _install_files(self, entry: Mapping[str, Any], children: bool) -> dict[str, bytes]:
        """Relative path -> verified bytes of everything ``install`` writes."""
        files = {"SKILL.md": self._skill_md(entry)}
        for record in entry["files"]:
            files[_safe_relpath(record["path"], "bundled file")] = self.resource(entry["id"], record["path"])
        if children:
            for child_id in entry.get("children") or ():
                if child_id not in self._by_id or not child_id.startswith(entry["id"] + "/"):
                    continue
                prefix = _safe_relpath(child_id[len(entry["id"]) + 1:], "sub-skill folder")
                for rel, data in self._install_files(self._by_id[child_id], True).items():
                    files[f"{prefix}/{rel}"] = data
        return files

    # -- prompt and tools

    def ineligible(self, id_or_name: str, env: Mapping[str, str] | None = None,
                   platform: str | None = None) -> list[str]:
        """Why a skill is not eligible here; [] when it is (see :func:`ineligible_reasons`)."""
        return ineligible_reasons(self.entry(id_or_name), env, platform)

    def prompt(self, budget: int = 30000, env: Mapping[str, str] | None = None, *,
               platform: str | None = None) -> str:
        """The ``<available_skills>`` block of the skills eligible here, never longer than ``budget``.

        Hidden and user-invocable-only skills are left out, ``always`` skills come first, and
        a ``<notice>`` counts the skills left out for the budget or as ineligible.
        """
        if budget < len("<available_skills>\n</available_skills>\n"):
            raise ValueError(f"a budget of {budget} characters cannot hold an <available_skills> block")
        shown = prompt_order([self._checked(e) for e in self.skills])
        which: dict[str, bool] = {}
        eligible = [e for e in shown if not ineligible_reasons(e, env, platform, which)]
        locations = [self._url(e["urls"]["skill_md"]) for e in eligible]
        return available_skills_xml(eligible, locations, budget, excluded=len(shown) - len(eligible))

    def check_tools(self, skill_id: str, available_tools: Iterable[str], mode: str = "warn") -> ToolCheck:
        """Which tools a skill needs that the runtime lacks.

        Required: the skill's ``tools`` marked required, plus the tool names of its
        ``allowed-tools`` (``Bash(git:*)`` needs ``Bash``); optional: the other ``tools``.
        A tool is available when ``available_tools`` names it, bare or with arguments.
        ``mode``: ``strict`` raises MissingToolsError, ``warn`` issues a MissingToolsWarning,
        ``ignore`` only returns the result.
        """
        if mode not in ("strict", "warn", "ignore"):
            raise ValueError(f"mode must be strict, warn or ignore, not {mode!r}")
        entry = self.entry(skill_id)
        have = {_split_tool(t)[0] for t in available_tools}
        declared = [t for t in entry.get("tools") or () if isinstance(t, dict) and t.get("name")]
        required = list(dict.fromkeys([t["name"] for t in declared if t.get("required")] +
                                      [_split_tool(a)[0] for a in entry.get("allowed-tools") or ()]))
        optional = [t["name"] for t in declared if not t.get("required") and t["name"] not in required]
        check = ToolCheck(entry["id"], tuple(required), tuple(optional),
                          tuple(t for t in required + optional if t in have),
                          tuple(t for t in required if t not in have),
                          tuple(t for t in optional if t not in have))
        if check.missing and mode != "ignore":
            message = f"skill {entry['id']} needs tools this runtime lacks: {', '.join(check.missing)}"
            if mode == "strict":
                raise MissingToolsError(message, check)
            warnings.warn(MissingToolsWarning(message), stacklevel=2)
        return check

    def session(self, policy: str = "strict") -> SkillSession:
        """A :class:`SkillSession` over this catalog."""
        return SkillSession(self, policy)


def _swap_in(staging: Path, target: Path, overwrite: bool) -> None:
    """Rename ``staging`` to ``target``, moving an existing target aside first when allowed."""
    import shutil
    import tempfile

    if not (target.exists() or target.is_symlink()):
        os.rename(staging, target)
        return
    if not overwrite:
        raise DestinationExistsError(f"{target} already exists; pass overwrite=True to replace it")
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rmdir(old)
    os.rename(target, old)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(old, target)
        raise
    if old.is_dir() and not old.is_symlink():
        shutil.rmtree(old, ignore_errors=True)
    else:
        old.unlink()


def frontmatter_end(lines: Sequence[str]) -> int | None:
    """The index of the line that closes a SKILL.md's frontmatter, found line by line.

    ``lines`` are the file's lines (after any BOM).  The first line must be ``---`` (trailing
    spaces allowed); the first later ``---`` line closes it.  None when the first line does
    not open a frontmatter; -1 when it is never closed.  The build's parser uses this too.
    """
    if not lines or not _FENCE.match(lines[0].rstrip("\r\n")):
        return None
    for index in range(1, len(lines)):
        if _FENCE.match(lines[index].rstrip("\r\n")):
            return index
    return -1


def skill_body(raw: bytes) -> str:
    """The Markdown body of a SKILL.md: the text after its closing ``---`` line (LF line ends)."""
    text = raw.decode("utf-8", errors="replace")
    text = text[1:] if text.startswith("\ufeff") else text
    lines = text.splitlines(keepends=True)
    end = frontmatter_end(lines)
    if end is None:
        return text.replace("\r\n", "\n")
    return "".join(lines[end + 1:]).replace("\r\n", "\n") if end > 0 else ""


_FENCE = re.compile(r"^---[ \t]*$")


def open_catalog(source: str | os.PathLike[str], **options: Any) -> Catalog:
    """Shorthand for :meth:`Catalog.open`."""
    return Catalog.open(source, **options)
