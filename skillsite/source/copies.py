"""Copies of one skill in a catalog: found at build time, grouped, one of each group canonical.

Real trees hold the same skill many times: in ``skills/``, ``.claude/skills/`` and
``.agents/skills/`` of one repository, in forks, in aggregators.  Two skills are copies when
their ``SKILL.md`` bytes are the same, when their bodies are (the frontmatter differs), or when
the sets of their normalised lines (name, description and body; lower-cased, punctuation and
runs of spaces folded, so a reformatted table or list is no change) have a Jaccard similarity
of at least ``threshold`` (0.9: on a hand-labelled sample of public skills, no other version,
translation or different skill sharing a name reached it), or of :data:`RENAMED_THRESHOLD` for
two skills under different names.  Other versions of one skill group too (``versions``, on by
default): two skills with the same name *and* the same description (of at least
:data:`MIN_DESCRIPTION_WORDS` words), whatever their bodies, because a reader choosing from a list
cannot tell them apart, and on that sample every such pair was one skill (copies, forks that moved
sections into ``references/``, a later release), never two skills.  Candidates come from MinHash with
one-permutation hashing (one 64-bit mix per line, ``BINS`` bins) banded for LSH (``BANDS`` of
``ROWS``), so the cost grows with the catalog, not with its pairs; each candidate is checked
with the exact Jaccard of the two line sets.  Groups are closed by union-find.

The canonical member of a group is the first by :func:`canonical_order`: one offered to models
and listed before a hidden one (the canonical stands for the group in every list), then source
order, then priority, then where the skill lives (``skills/`` before ``.claude/skills/`` before
``.agents/skills/`` before other tool folders: configurable), then the shortest id.
"""
from __future__ import annotations

import base64
import hashlib
import math
import os
import random
import re
import unicodedata
import zlib
from array import array
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

#: Where a copy lives, best first: the default of ``copies.prefer`` in ``skillsite.yml``.
DEFAULT_PREFER = ("skills/", ".claude/skills/", ".agents/skills/")
DEFAULT_THRESHOLD = 0.9
#: Two skills under different names must share more: in the shared corpus every pair of
#: different names at 0.9 to 0.95 was two skills (create- and update-specification, the keys and
#: the secrets of a vault), while renamed copies in public mirrors share 0.95 and more.
RENAMED_THRESHOLD = 0.95
#: A body this short is no evidence on its own: equal short bodies group only under equal names.
MIN_BODY_WORDS = 25
#: A description this short (``Skill: testing``) does not tell one skill's versions from another skill.
MIN_DESCRIPTION_WORDS = 5
BINS, BANDS, ROWS = 128, 16, 8
_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_NAME_LETTERS = re.compile(r"[^a-z0-9]+")
_WORD_LETTERS = re.compile(r"[\W_]+")
_WORDS = re.compile(r"\w+")
_PUNCTUATION = bytes.maketrans(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", b" " * 32)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What grouping reads of one skill (made once from its SKILL.md, kept by its sha256)."""

    name: str
    raw_sha: str          # of SKILL.md's bytes
    body_sha: str         # of the body, trailing spaces and line ends normalised (a short one with its name
                          # and description)
    lines: array          # sorted crc32s of the normalised non-empty lines of name, description and body
    bands: array          # the LSH band keys of the lines' MinHash signature
    about_sha: str = ""   # of the folded name and the description's words ("": a description too short to tell)


    def to_json(self) -> list[Any]:
        return [self.name, self.raw_sha, self.body_sha, base64.b64encode(self.lines.tobytes()).decode("ascii"),
                list(self.bands), self.about_sha]

    @classmethod
    def from_json(cls, data: list[Any]) -> Fingerprint:
        name, raw_sha, body_sha, lines, bands, about_sha = data
        return cls(name, raw_sha, body_sha, array("I", base64.b64decode(lines)), array("q", bands), about_sha)


@dataclass(frozen=True)
class CopySettings:
    """``copies`` of ``skillsite.yml``: whether to group, the least line similarity of two
    copies, where copies are best kept (folders, best first), ids never grouped, and whether
    other versions of a skill (same name and description) group with it."""

    group: bool = True
    similarity: float = DEFAULT_THRESHOLD
    prefer: tuple[str, ...] = DEFAULT_PREFER
    apart: frozenset[str] = frozenset()
    versions: bool = True

    @classmethod
    def of(cls, configured: Mapping[str, Any] | None) -> CopySettings:
        value = configured or {}
        return cls(value.get("group", True), float(value.get("similarity", DEFAULT_THRESHOLD)),
                   tuple(value.get("prefer", DEFAULT_PREFER)), frozenset(value.get("apart", ())),
                   value.get("versions", True))


def normalised_lines(name: str, description: str, body: str) -> list[bytes]:
    """The lines similarity reads: lower-cased, ASCII punctuation as spaces, runs of spaces folded."""
    text = f"{name}\n{description}\n{body}".lower().encode("utf-8", "surrogatepass").translate(_PUNCTUATION)
    return [b" ".join(words) for line in text.splitlines() if (words := line.split())]


def fingerprint(name: str, description: str, body: str, raw_sha: str) -> Fingerprint:
    """The fingerprint of a skill from its name, description, body and the sha256 of its SKILL.md."""
    lines = sorted({zlib.crc32(line) for line in normalised_lines(name, description, body)})
    flat = "\n".join(map(str.rstrip, body.strip().splitlines()))
    # a short body says little: the same one counts under the same name and description only (its
    # words counted up to that many, not all split: split at most that many times, fewer pieces only when fewer words)
    if len(body.split(None, MIN_BODY_WORDS)) < MIN_BODY_WORDS:
        flat = f"{name}\n{description}\n{flat}"
    return Fingerprint(name, raw_sha, hashlib.sha256(flat.encode("utf-8", "surrogatepass")).hexdigest(),
                       array("I", lines), _band_keys(lines), about_digest(name, description))


def about_digest(name: str, description: str) -> str:
    """What a reader of a list sees of a skill, folded (``Network 101`` is ``network-101``; case,
    punctuation and spacing of the description are no difference): its name and description's
    digest, or "" when the description has fewer than :data:`MIN_DESCRIPTION_WORDS` words."""
    words = _WORDS.findall(description.lower())
    if len(words) < MIN_DESCRIPTION_WORDS:
        return ""
    folded = folded_name(name) or name.lower().strip()
    return hashlib.sha256(f"{folded}\n{' '.join(words)}".encode("utf-8", "surrogatepass")).hexdigest()


def _probes() -> list[list[int]]:
    """For each bin, where to borrow a value when it stays empty (fixed: signatures are stable)."""
    chooser = random.Random(46)
    return [[chooser.randrange(BINS) for _ in range(64)] for _ in range(BINS)]


_PROBES = _probes()


def _signature(hashes: Iterable[int]) -> list[int]:
    """One-permutation MinHash (Li, Owen and Zhang) with densification (Shrivastava): each line's
    hash mixed once, its top bits choosing a bin that keeps the least of the rest."""
    shift = 64 - (BINS.bit_length() - 1)
    low, empty = (1 << shift) - 1, 1 << 64
    bins = [empty] * BINS
    for value in hashes:
        mixed = (value * _GOLDEN) & _MASK64
        at, rest = mixed >> shift, mixed & low
        if rest < bins[at]:
            bins[at] = rest
    filled = [v for v in bins if v != empty]
    if not filled or len(filled) == BINS:
        return bins
    least = min(filled)   # what a bin takes when none of its probes is filled
    signature = bins.copy()
    for i, v in enumerate(bins):
        if v != empty:
            continue
        for n, j in enumerate(_PROBES[i]):  # the first filled bin among its probes (a loop: no generator a bin)
            if bins[j] != empty:
                signature[i] = bins[j] + n + 1
                break
        else:
            signature[i] = least
    return signature


def _band_keys(lines: Sequence[int], rows: int = ROWS) -> array:
    """A key per band of ``rows`` rows of the signature (the band's number in the high bits):
    ``BANDS`` bands of ``ROWS``, each fingerprint's own; fewer rows for a lower threshold."""
    signature = _signature(lines)
    return array("q", (zlib.crc32(array("Q", signature[b * rows:(b + 1) * rows]).tobytes()) | (b << 32)
                       for b in range(BINS // rows)))


#: The most skills before it in one bucket a skill is compared with.  A bucket holds the distinct
#: skills that share a band (identical ones are bucketed once); real ones hold a few (the corpus:
#: two at most), but thousands of near-alike skills under different names, none a copy of another,
#: would otherwise be compared pair by pair (and each pair remembered).  Copies close together in
#: such a crowd still group; one further from its original than this can be missed.
BUCKET_PEERS = 64

#: The lowest threshold the fingerprints' own bands serve: two skills sharing 0.85 of their lines
#: meet in a bucket with a chance of 0.99 (1 - (1 - 0.85^8)^16 for 16 bands of 8 rows).
BANDED_THRESHOLD = 0.85


def band_rows(threshold: float) -> int:
    """The rows per band that make a pair at ``threshold`` meet in a bucket almost surely
    (a chance of 0.35 per band, ``BINS // rows`` bands): 8 (the fingerprints' own bands) from
    ``BANDED_THRESHOLD`` up, 2 at 0.5."""
    if threshold >= BANDED_THRESHOLD:
        return ROWS
    return max(2, round(math.log(0.35) / math.log(threshold)))


class _Groups:
    """Union-find over skill numbers; a group's root is its least number."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)


def line_similarity(a: array, b: array) -> float:
    """Jaccard similarity of two sorted line-hash sets."""
    if not a and not b:
        return 1.0
    common = len(set(a).intersection(b))
    return common / (len(a) + len(b) - common)


def folded_name(name: str) -> str:
    """A name as grouping compares it: lower-case letters and digits only, accents dropped
    (``Network 101`` and ``network-101`` are ``network101``, ``Café`` is ``cafe``); letters of
    every script are kept, so two different names in Chinese stay two names."""
    lowered = name.lower()
    if lowered.isascii():
        return _NAME_LETTERS.sub("", lowered)
    bare = "".join(c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c))
    return _WORD_LETTERS.sub("", bare)


def same_name(a: Fingerprint, b: Fingerprint) -> bool:
    """Whether two skills have one name, written alike or not (``Network 101``, ``network-101``)."""
    return folded_name(a.name) == folded_name(b.name)


def pair_key(a: Fingerprint, b: Fingerprint) -> str:
    """What a comparison is remembered by: 128 bits of each SKILL.md's sha256 (a crafted file that
    takes another's place in a pair costs 2**64 tries) and 64 bits of the two names' (a skill
    without a frontmatter name is named by its folder, which a rename changes, not the file)."""
    names = hashlib.sha256(f"{a.name}\0{b.name}".encode("utf-8", "surrogatepass")).hexdigest()
    return a.raw_sha[:32] + b.raw_sha[:32] + names[:16]


class Comparisons:
    """Whether two skills' lines are alike enough to group them (the ``threshold`` under one
    name, :data:`RENAMED_THRESHOLD` under two), remembered by :func:`pair_key`: ``known`` gives
    those of an earlier build (``serve`` keeps them, the cache stores them), :attr:`used` those of
    this one (None: nothing is remembered)."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, known: Mapping[str, bool] | None = None,
                 remember: bool = True):
        self.threshold = threshold
        self.known = known or {}
        self.used: dict[str, bool] | None = {} if remember else None

    @classmethod
    def of_stored(cls, threshold: float, stored: dict[str, list[str]] | None) -> Comparisons:
        """Comparisons that know those :meth:`to_json` gave (None: none)."""
        known = dict.fromkeys((stored or {}).get("alike", ()), True)
        known.update(dict.fromkeys((stored or {}).get("unlike", ()), False))
        return cls(threshold, known)

    def to_json(self) -> dict[str, list[str]]:
        """This build's answers as the cache stores them: the pairs alike and those unlike, each
        sorted (the same answers, the same value)."""
        used = self.used or {}
        return {"alike": sorted(k for k, v in used.items() if v), "unlike": sorted(k for k, v in used.items() if not v)}

    @property
    def learned(self) -> bool:
        """Whether this build's answers differ from the ``known`` ones (some compared anew, or
        some known left unused): what is worth storing again."""
        return self.used is not None and self.used.keys() != self.known.keys()

    def alike(self, a: Fingerprint, b: Fingerprint) -> bool:
        if self.used is None:
            return self._compared(a, b)
        key = pair_key(a, b)
        found = self.used.get(key)
        if found is None:
            found = self.known.get(key)
            if found is None:
                found = self._compared(a, b)
            self.used[key] = found
        return found

    def _compared(self, a: Fingerprint, b: Fingerprint) -> bool:
        least = self.threshold if same_name(a, b) else max(self.threshold, RENAMED_THRESHOLD)
        return line_similarity(a.lines, b.lines) >= least


def find_groups(prints: Sequence[Fingerprint], threshold: float = DEFAULT_THRESHOLD,
                apart: Callable[[int], bool] = lambda _: False, versions: bool = True,
                comparisons: Comparisons | None = None) -> list[list[int]]:
    """The groups of copies among ``prints`` (indexes, ascending; singletons left out); with
    ``versions``, skills of one name and description group whatever their bodies
    (``comparisons``: those remembered, of ``threshold``)."""
    comparisons = comparisons or Comparisons(threshold, remember=False)
    groups = _Groups(len(prints))
    members = [i for i in range(len(prints)) if not apart(i)]
    _exact(prints, members, groups, versions)
    variants = _variants(prints, members, groups)
    rows = band_rows(threshold)
    # a lower threshold than the fingerprints' bands serve: bands of fewer rows, made for it
    keys = [p.bands for p in prints] if rows == ROWS else \
        {i: _band_keys(prints[i].lines, rows) for i in variants}
    failed: set[tuple[int, int]] = set()
    for band in range(BINS // rows):
        for bucket in _shared_buckets(keys, variants, band):
            for at, i in enumerate(bucket[1:], start=1):
                for j in bucket[max(0, at - BUCKET_PEERS):at]:
                    if groups.find(j) == groups.find(i) or (j, i) in failed:
                        continue
                    if comparisons.alike(prints[i], prints[j]):
                        groups.join(i, j)
                    else:
                        failed.add((j, i))
    found: dict[int, list[int]] = {}
    for i in members:
        found.setdefault(groups.find(i), []).append(i)
    return [g for g in found.values() if len(g) > 1]


def _shared_buckets(keys: Sequence[array] | Mapping[int, array], variants: Sequence[int], band: int
                    ) -> list[list[int]]:
    """The ``variants`` that share their key of ``band`` with another, by key, each bucket in
    order and the buckets in the order of their first member.  Most keys are held by one skill:
    those make no list (a list for each key of each band, every build, would be most of what a
    rebuild gives the garbage collector to walk)."""
    first: dict[int, int] = {}
    shared: dict[int, list[int]] = {}
    for i in variants:
        key = keys[i][band]
        if key not in first:
            first[key] = i
        elif key in shared:
            shared[key].append(i)
        else:
            shared[key] = [first[key], i]
    return sorted(shared.values())


def _variants(prints: Sequence[Fingerprint], members: Sequence[int], groups: _Groups) -> list[int]:
    """One member of each exact group per distinct set of band keys: a near copy of any version
    in a group meets that version in a bucket, whichever member came first, while the many
    identical copies a public directory holds are bucketed once."""
    seen: set[tuple[int, bytes]] = set()
    variants = []
    for i in members:
        key = (groups.find(i), prints[i].bands.tobytes())
        if key not in seen:
            seen.add(key)
            variants.append(i)
    return variants


def _exact(prints: Sequence[Fingerprint], members: Sequence[int], groups: _Groups, versions: bool) -> None:
    """Same SKILL.md bytes, or the same body (a short one only under the same name and description),
    or (``versions``) the same name and description: one group."""
    first: dict[tuple[str, str], int] = {}
    for i in members:
        for key in exact_keys(prints[i], versions):
            if key in first:
                groups.join(first[key], i)
            else:
                first[key] = i


def exact_keys(p: Fingerprint, versions: bool) -> list[tuple[str, str]]:
    """What puts two skills in one group whatever else they hold, when they share it: their
    SKILL.md bytes, their bodies and (``versions``) their names and descriptions."""
    keys = [("raw", p.raw_sha), ("body", p.body_sha)]
    if versions and p.about_sha:
        keys.append(("about", p.about_sha))
    return keys


def folder_rank(skill_id: str, prefer: Sequence[str] = DEFAULT_PREFER) -> int:
    """Where a skill lives, as ``prefer`` orders it: ``skills/`` (or any folder that is no tool
    folder) first, then ``.claude/skills/``, ``.agents/skills/``, then other tool folders."""
    parts = skill_id.split("/")[:-1]
    tool = next((i for i, part in enumerate(parts) if part.startswith(".")), None)
    if tool is None:
        place = "skills/"
    else:
        place = "/".join(parts[tool:tool + 2]) + "/" if parts[tool + 1:tool + 2] == ["skills"] else parts[tool] + "/"
    return prefer.index(place) if place in prefer else len(prefer)


def canonical_order(skill_id: str, source: int, priority: int, prefer: Sequence[str] = DEFAULT_PREFER,
                    offered: bool = True, listed: bool = True) -> tuple[bool, bool, int, int, int, int, str]:
    """The key that puts a group's canonical member first: offered to models (a hidden canonical
    would hide its group), listed on the site (one only people invoke before one hidden from every
    list, which would take the group out of the site's lists), source order, priority (higher
    first), where it lives (:func:`folder_rank`), the shortest id, then the id."""
    return (not offered, not listed, source, -priority, folder_rank(skill_id, prefer), len(skill_id), skill_id)


def source_places(roots: Sequence[Path | str], held: Iterable[Path]) -> dict[Path, int]:
    """Each root of ``held`` (the roots skills were found under) to its place in ``roots`` (the
    sources, in order; one not among them after all of them): the source order of
    :func:`canonical_order`."""
    order = {os.path.abspath(root): n for n, root in enumerate(roots)}
    return {root: order.get(os.path.abspath(root), len(order)) for root in set(held)}


def name_claim_order(skills: Sequence[tuple[str, int, int]], prefer: Sequence[str] = DEFAULT_PREFER) -> list[int]:
    """The positions of ``skills`` (each its id, source order and priority) in the order they take
    a name two of them use (SK212: the discovery indexes list one skill under each name): the
    order of a group's canonical member (:func:`canonical_order`), ``skills/`` before a variant in
    ``.claude/skills/`` or a plugin.  Visibility aside: two skills of one name are two skills, each
    listed as itself, and installers install a skill hidden from models all the same."""
    return sorted(range(len(skills)), key=lambda i: canonical_order(*skills[i], prefer))


#: What is said of a copy published beside the member standing for its group (info).
COPY_CODE = "SK229"


def copy_message(canonical: str, count: int) -> str:
    """What SK229 says of a copy published beside ``canonical``, the member standing for its group
    of ``count`` published copies."""
    return (f"a copy of skill '{canonical}' ({count} copies): published at its own address, listed and offered "
            "as that one")


def line_changes(canonical: Sequence[bytes], copy: Sequence[bytes]) -> tuple[int, int]:
    """Lines a copy adds to the canonical member and removes from it (as multisets of normalised lines)."""
    ours, theirs = Counter(canonical), Counter(copy)
    return sum((theirs - ours).values()), sum((ours - theirs).values())


@dataclass(frozen=True, slots=True)
class Candidate:
    """A kept skill as grouping sees it: its id, fingerprint, source order, priority, whether
    it is offered to models (neither hidden nor user-invocable only) and whether the site lists it."""

    id: str
    fingerprint: Fingerprint
    source: int
    priority: int
    offered: bool = True
    listed: bool = True


def group_copies(skills: Sequence[Candidate], settings: CopySettings, comparisons: Comparisons | None = None
                 ) -> list[tuple[str, ...]]:
    """The groups of copies among ``skills``: each a tuple of ids in :func:`canonical_order` (the
    canonical member first, then the next best, which stands for the group when the catalog-wide
    checks refuse the first), groups in the order of their canonical ids; none when grouping is off (``comparisons``: of
    ``settings.similarity``, remembered)."""
    if not settings.group:
        return []
    groups = find_groups([s.fingerprint for s in skills], settings.similarity, lambda i: skills[i].id in settings.apart,
                         settings.versions, comparisons)
    ordered = []
    for members in groups:
        ranked = sorted(members, key=lambda i: canonical_order(skills[i].id, skills[i].source, skills[i].priority,
                                                                settings.prefer, skills[i].offered, skills[i].listed))
        ordered.append(tuple(skills[i].id for i in ranked))
    return sorted(ordered)
