"""Semantic versions (semver.org 2.0.0) and npm version ranges, as node-semver reads them.

A skill's version is read loosely (``v1.0``, ``=2``, ``1.0.0-rc.1+b5``) and published in its
canonical form ``MAJOR.MINOR.PATCH[-PRERELEASE]`` (build metadata dropped).  Dependency ranges
use npm's grammar (``^1.2``, ``~1.2.3``, ``>=1 <2``, ``1.x``, ``1.2 - 2``, ``a || b``) with
node-semver's meaning, so what a catalog resolves is what an npm user expects; the parity test
(tests/integration/test_semver_parity.py) compares this module with npm's ``semver`` package.

A range is parsed as node-semver does it: whitespace is normalised, the text is split on
``||`` into comparator sets, build metadata is dropped, operators are glued to their versions,
and every token (caret, tilde, x-range, hyphen range) is desugared into primitive comparators
(``>=1.2.0 <2.0.0-0``), which are then checked.  ``str(range)`` is that desugared form, the
string node-semver's ``validRange`` prints.  As in npm, an empty range or an empty ``||`` part
(``""``, ``"1 ||"``) accepts any release, and a set that accepts anything absorbs the others.

A pre-release version satisfies a comparator set only when one of its comparators names a
pre-release of the same MAJOR.MINOR.PATCH (``1.2.3-beta.2`` satisfies ``>=1.2.3-beta.1``, not
``>=1.0.0``), unless ``include_prerelease`` is set.

Ranges come from untrusted catalogs and lock files, and some of node-semver's patterns take
quadratic time on runs such as ``vvvv...``: a range longer than :data:`MAX_RANGE_LENGTH`
characters is a RangeError (node-semver has no such limit).

Deliberate differences from node-semver: version text given to :func:`satisfies`,
:meth:`Range.matches` and the other helpers is read loosely like a skill's version (node's
``satisfies("1.2", ...)`` is false); a bad range raises :class:`RangeError` instead of matching
nothing; and a stray ``*`` inside a version (``1.2.3*``, ``>=*1.2.3``), which node-semver
deletes, is an error.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import total_ordering
from typing import Iterable

MAX_LENGTH = 256                  # node-semver refuses longer version strings
MAX_RANGE_LENGTH = 1024           # and a longer range is refused before any regex sees it
MAX_SAFE_INTEGER = 2 ** 53 - 1    # and numbers JavaScript cannot hold exactly

# JavaScript's \s (and String.prototype.trim): node-semver normalises exactly these.
# None of them is special inside a regex character class, so f"[{_WS}]" is that class.
_WS = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS_RUN = re.compile(f"[{_WS}]+")

# Pieces of the grammar (node-semver's internal/re.js, strict mode).  [0-9], never \d:
# Python's \d also matches other scripts' digits.
_NUM = r"0|[1-9][0-9]*"
_XR = rf"{_NUM}|[xX*]"
_PRE_ID = r"[0-9]*[A-Za-z-][0-9A-Za-z-]*|0|[1-9][0-9]*"
_PRE = rf"(?:{_PRE_ID})(?:\.(?:{_PRE_ID}))*"
_BUILD = r"\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*"
# A partial version: `1`, `1.2`, `1.x`, `1.2.3-pre` (node-semver also lets `v` and `=` precede one).
_PARTIAL = rf"({_XR})(?:\.({_XR})(?:\.({_XR})(?:-({_PRE}))?)?)?"

_BUILD_RE = re.compile(_BUILD)
# Where node-semver's regexes say \s* or \s+ its "safe" versions take at most or exactly ONE
# whitespace character, and so do these: the text is normalised first, but dropping build
# metadata can leave two spaces in a row (so `1.2 +b - 2` and `>= +b 1` are invalid).
_HYPHEN_RE = re.compile(rf"[{_WS}]?([v={_WS}]*{_PARTIAL})[{_WS}]-[{_WS}]([v={_WS}]*{_PARTIAL})[{_WS}]?")
# `> 1.2` -> `>1.2`, `~> 1` -> `~1`, `^ 1` -> `^1` (node's comparator, tilde and caret trims)
_GLUE_OP_RE = re.compile(rf"([{_WS}]?)([<>]?=?)[{_WS}]?([v={_WS}]*[0-9xX*])")
_GLUE_TILDE_RE = re.compile(rf"([{_WS}]?)~>?[{_WS}]")
_GLUE_CARET_RE = re.compile(rf"([{_WS}]?)\^[{_WS}]")
_CARET_RE = re.compile(rf"\^[v=]*{_PARTIAL}")
_TILDE_RE = re.compile(rf"~>?[v=]*{_PARTIAL}")
_XRANGE_RE = re.compile(rf"([<>]?=?)([v=]*){_PARTIAL}")
_PRIMITIVE_RE = re.compile(rf"([<>]?=?)v?({_NUM})\.({_NUM})\.({_NUM})(?:-({_PRE}))?")
_LOOSE_RE = re.compile(
    rf"=?[{_WS}]*[vV]?([0-9]+)(?:\.([0-9]+)(?:\.([0-9]+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?)?"
    rf"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?")
_ANY_PLAIN = re.compile(r">=0\.0\.0")      # node-semver's GTE0: the same as `*`
_ANY_PRE = re.compile(r">=0\.0\.0-0")      # ... with include_prerelease
_NULL_SET = "<0.0.0-0"                     # nothing satisfies it


class RangeError(ValueError):
    """A version range that does not parse; the message says which part and why."""


@total_ordering
@dataclass(frozen=True)
class Version:
    """A semantic version; ordered by semver precedence (build metadata ignored)."""

    major: int
    minor: int
    patch: int
    prerelease: tuple[int | str, ...] = ()
    build: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        pre = tuple(int(p) if isinstance(p, str) and p.isascii() and p.isdigit() else p for p in self.prerelease)
        object.__setattr__(self, "prerelease", pre)

    def __str__(self) -> str:
        core = f"{self.major}.{self.minor}.{self.patch}"
        return f"{core}-{'.'.join(map(str, self.prerelease))}" if self.prerelease else core

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()

    def _key(self) -> tuple:
        """Precedence (semver.org §11): a release sorts after its pre-releases; numeric
        identifiers sort numerically and before alphanumeric ones; a longer list wins a tie."""
        if not self.prerelease:
            return (self.major, self.minor, self.patch, 1, ())
        ids = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in self.prerelease)
        return (self.major, self.minor, self.patch, 0, ids)


def _identifiers(text: str | None) -> tuple[int | str, ...]:
    """Pre-release identifiers, numeric ones as ints (``rc.1`` -> ("rc", 1))."""
    if not text:
        return ()
    return tuple(int(p) if p.isdigit() else p for p in text.split("."))


def _make(major: str, minor: str | None, patch: str | None, pre: str | None, build: str | None) -> Version | None:
    numbers = [int(major), int(minor or 0), int(patch or 0)]
    if any(n > MAX_SAFE_INTEGER for n in numbers):
        return None
    return Version(*numbers, _identifiers(pre), tuple(build.split(".")) if build else ())


def parse_version(text: str) -> Version | None:
    """A version read loosely, or None: ``v1.0`` -> 1.0.0, ``=2`` -> 2.0.0, ``1.0.0-rc.1+b5``
    keeps its pre-release.  Missing minor/patch count as 0; a pre-release needs MAJOR.MINOR."""
    if not isinstance(text, str) or len(text) > MAX_LENGTH:
        return None
    m = _LOOSE_RE.fullmatch(text.strip(_WS))
    if not m:
        return None
    return _make(*m.groups())


# ---------------------------------------------------------------------------- comparators

@dataclass(frozen=True)
class Comparator:
    """A primitive comparator: ``operator`` is one of "", "<", "<=", ">", ">=" ("" = equal);
    ``version`` None is the comparator that accepts anything."""

    operator: str
    version: Version | None

    def __str__(self) -> str:
        return "" if self.version is None else f"{self.operator}{self.version}"

    def test(self, version: Version) -> bool:
        if self.version is None:
            return True
        a, b = version._key(), self.version._key()
        return {"": a == b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[self.operator]


_ANY = Comparator("", None)


def _comparator(text: str, include_prerelease: bool) -> Comparator:
    """A desugared comparator string (``>=1.2.0``, ``<2.0.0-0``, ``""``) as a Comparator."""
    if not text or (_ANY_PRE if include_prerelease else _ANY_PLAIN).fullmatch(text):
        return _ANY
    m = _PRIMITIVE_RE.fullmatch(text)
    version = _make(m.group(2), m.group(3), m.group(4), m.group(5), None) if m else None
    if m is None or version is None or len(text) - len(m.group(1)) > MAX_LENGTH:
        raise RangeError(_explain(text))
    return Comparator("" if m.group(1) == "=" else m.group(1), version)


# ---------------------------------------------------------------------------- desugaring

def _is_x(part: str | None) -> bool:
    """A missing part or a wildcard (x, X, *)."""
    return not part or part in ("x", "X", "*")


def _hyphen(m: re.Match, include_prerelease: bool) -> str:
    """``1.2 - 2.3.4`` -> ``>=1.2.0 <=2.3.4``; a partial upper bound takes all of it."""
    z = "-0" if include_prerelease else ""
    low, fM, fm, fp, fpr, high, tM, tm, tp, tpr = m.groups()
    if _is_x(fM):
        low = ""
    elif _is_x(fm):
        low = f">={fM}.0.0{z}"
    elif _is_x(fp):
        low = f">={fM}.{fm}.0{z}"
    else:
        low = f">={low}" if fpr else f">={low}{z}"
    if _is_x(tM):
        high = ""
    elif _is_x(tm):
        high = f"<{int(tM) + 1}.0.0-0"
    elif _is_x(tp):
        high = f"<{tM}.{int(tm) + 1}.0-0"
    elif tpr:
        high = f"<={tM}.{tm}.{tp}-{tpr}"
    elif include_prerelease:
        high = f"<{tM}.{tm}.{int(tp) + 1}-0"
    else:
        high = f"<={high}"
    return f"{low} {high}".strip()


def _caret(M: str, m: str | None, p: str | None, pre: str | None, z: str) -> str:
    """``^1.2.3`` -> ``>=1.2.3 <2.0.0-0``: changes that keep the left-most non-zero part."""
    if _is_x(M):
        return ""
    if _is_x(m):
        return f">={M}.0.0{z} <{int(M) + 1}.0.0-0"
    if _is_x(p):
        upper = f"{M}.{int(m) + 1}.0-0" if M == "0" else f"{int(M) + 1}.0.0-0"
        return f">={M}.{m}.0{z} <{upper}"
    low = f">={M}.{m}.{p}-{pre}" if pre else f">={M}.{m}.{p}"
    if M != "0":
        return f"{low} <{int(M) + 1}.0.0-0"
    if m != "0":
        return f"{low} <0.{int(m) + 1}.0-0"
    return f"{low} <0.0.{int(p) + 1}-0"


def _tilde(M: str, m: str | None, p: str | None, pre: str | None, z: str) -> str:
    """``~1.2.3`` -> ``>=1.2.3 <1.3.0-0``: patch-level changes (minor-level for ``~1``)."""
    if _is_x(M):
        return ""
    if _is_x(m):
        return f">={M}.0.0{z} <{int(M) + 1}.0.0-0"
    if _is_x(p):
        return f">={M}.{m}.0{z} <{M}.{int(m) + 1}.0-0"
    low = f">={M}.{m}.{p}-{pre}" if pre else f">={M}.{m}.{p}"
    return f"{low} <{M}.{int(m) + 1}.0-0"


def _xrange(token: str, op: str, prefix: str, M: str, m: str | None, p: str | None, z: str) -> str:
    """``1.x`` -> ``>=1.0.0 <2.0.0-0``, ``>1.2`` -> ``>=1.3.0``, ``<=1`` -> ``<2.0.0-0``, ``*`` -> any."""
    xM, xm = _is_x(M), _is_x(M) or _is_x(m)
    xp = xm or _is_x(p)
    if not xp:                      # a full version: a primitive comparator already
        if prefix not in ("", "v"):
            raise RangeError(f"{token!r}: a version inside a range may start with one 'v', not {prefix!r}")
        return token
    if (xM and not _is_x(m)) or (_is_x(m) and p and not _is_x(p)):
        raise RangeError(f"{token!r}: a wildcard (x, X, *) may only be followed by wildcards")
    if op == "=":
        op = ""
    if xM:
        return _NULL_SET if op in ("<", ">") else ""
    if not op:
        if xm:
            return f">={M}.0.0{z} <{int(M) + 1}.0.0-0"
        return f">={M}.{m}.0{z} <{M}.{int(m) + 1}.0-0"
    major, minor = int(M), (0 if xm else int(m))
    if op == ">":                   # >1 -> >=2.0.0, >1.2 -> >=1.3.0
        op = ">="
        major, minor = (major + 1, 0) if xm else (major, minor + 1)
    elif op == "<=":                # <=1 -> <2.0.0-0, <=1.2 -> <1.3.0-0
        op = "<"
        major, minor = (major + 1, minor) if xm else (major, minor + 1)
    return f"{op}{major}.{minor}.0{'-0' if op == '<' else z}"


def _desugar(token: str, include_prerelease: bool) -> list[str]:
    """One token of a comparator set as primitive comparator strings."""
    z = "-0" if include_prerelease else ""
    if m := _CARET_RE.fullmatch(token):
        text = _caret(*m.groups(), z)
    elif m := _TILDE_RE.fullmatch(token):
        text = _tilde(*m.groups(), z)
    elif m := _XRANGE_RE.fullmatch(token):
        op, prefix, M, minor, p, _pre = m.groups()
        text = _xrange(token, op, prefix, M, minor, p, z)
    else:
        raise RangeError(_explain(token))
    return text.split(" ") if text else [""]


def _explain(token: str) -> str:
    """Why ``token`` is not a comparator, in words."""
    op = re.match(r"[<>=~^]*", token).group()
    rest = token[len(op):]
    if token == "-":
        return "a hyphen range is 'VERSION - VERSION', alone in its part of the range"
    if op and op not in ("<", "<=", ">", ">=", "=", "~", "~>", "^"):
        return f"{token!r}: unknown operator {op!r} (use <, <=, >, >=, =, ~, ^)"
    if not rest:
        return f"{token!r}: the operator {op!r} has no version after it"
    body = rest.lstrip("v=")
    main = re.match(r"[^-+]*", body).group()
    parts = main.split(".")
    if len(parts) > 3:
        return f"{token!r}: a version has at most three numbers (MAJOR.MINOR.PATCH)"
    if not all(re.fullmatch(_XR, part) for part in parts):
        if any(re.fullmatch(r"0[0-9]+", part) for part in parts):
            return f"{token!r}: numbers may not have leading zeros"
        return f"{token!r} is not a version (expected numbers like 1.2.3, or x/* wildcards)"
    if any(part.isdigit() and int(part) > MAX_SAFE_INTEGER for part in parts):
        return f"{token!r}: a number is too big (at most {MAX_SAFE_INTEGER})"
    if body[len(main):].startswith("-") and len(parts) < 3:
        return f"{token!r}: a pre-release tag needs all three numbers (1.2.3-beta)"
    if body[len(main):].startswith("-"):
        return f"{token!r}: malformed pre-release tag (dot-separated letters, digits and hyphens)"
    return f"{token!r} is not a comparator (expected e.g. >=1.2.3, ^1.2, ~1.2.3, 1.x)"


# ---------------------------------------------------------------------------- ranges

def _parse_set(text: str, include_prerelease: bool) -> tuple[Comparator, ...]:
    """One ``||``-separated part: the comparators all of which a version must satisfy."""
    text = _BUILD_RE.sub("", text)
    if m := _HYPHEN_RE.fullmatch(text):
        text = _hyphen(m, include_prerelease)
    text = _GLUE_OP_RE.sub(r"\1\2\3", text)
    text = _GLUE_TILDE_RE.sub(r"\1~", text)
    text = _GLUE_CARET_RE.sub(r"\1^", text)
    pieces = [piece for token in text.split(" ") for piece in (_desugar(token, include_prerelease) if token else [""])]
    found = {str(c): c for c in (_comparator(piece, include_prerelease) for piece in pieces)}
    if _NULL_SET in found:
        return (found[_NULL_SET],)
    if len(found) > 1:
        found.pop("", None)
    return tuple(found.values())


def _parse_sets(raw: str, include_prerelease: bool) -> tuple[tuple[Comparator, ...], ...]:
    """Every comparator set of a range, simplified as node-semver does: null sets dropped when
    others exist, and a set that accepts anything replacing all the others."""
    sets = [_parse_set(part.strip(_WS), include_prerelease) for part in raw.split("||")]
    if len(sets) > 1:
        sets = [s for s in sets if str(s[0]) != _NULL_SET] or sets[:1]
        sets = next(([s] for s in sets if s == (_ANY,)), sets)
    return tuple(sets)


@dataclass(frozen=True)
class Range:
    """A parsed version range; build one with :func:`parse_range`."""

    text: str
    sets: tuple[tuple[Comparator, ...], ...]
    prerelease_sets: tuple[tuple[Comparator, ...], ...]  # the same range read with include_prerelease

    def __str__(self) -> str:
        """The desugared range, as node-semver's ``validRange`` prints it (``*`` for any)."""
        return "||".join(" ".join(str(c) for c in s) for s in self.sets) or "*"

    def matches(self, version: Version | str, include_prerelease: bool = False) -> bool:
        """Whether ``version`` (a Version or version text; text that is no version never
        matches) satisfies the range."""
        if isinstance(version, str):
            version = parse_version(version)
            if version is None:
                return False
        sets = self.prerelease_sets if include_prerelease else self.sets
        return any(_set_matches(s, version, include_prerelease) for s in sets)


def _set_matches(comparators: tuple[Comparator, ...], version: Version, include_prerelease: bool) -> bool:
    """All comparators hold; and a pre-release needs a comparator naming a pre-release of the
    same MAJOR.MINOR.PATCH (so ``^1.0.0`` never picks ``1.5.0-beta``)."""
    if not all(c.test(version) for c in comparators):
        return False
    if not version.prerelease or include_prerelease:
        return True
    core = (version.major, version.minor, version.patch)
    return any(c.version is not None and c.version.prerelease
               and (c.version.major, c.version.minor, c.version.patch) == core for c in comparators)


def parse_range(text: str) -> Range:
    """An npm semver range (``^1.2``, ``~1.2.3``, ``>=1 <2 || 3.x``, ``1 - 2``, ``*``).

    Raises :class:`RangeError` naming the part that does not parse."""
    if not isinstance(text, str):
        raise RangeError(f"a version range is text, not {type(text).__name__}")
    if len(text) > MAX_RANGE_LENGTH:
        raise RangeError(f"invalid version range {text[:40]!r}...: it is longer than {MAX_RANGE_LENGTH:,} characters")
    raw = _WS_RUN.sub(" ", text.strip(_WS))
    try:
        return Range(text, _parse_sets(raw, False), _parse_sets(raw, True))
    except RangeError as exc:
        raise RangeError(f"invalid version range {text!r}: {exc}") from None


def satisfies(version: str, range_text: str, *, include_prerelease: bool = False) -> bool:
    """Whether version text satisfies a range (RangeError when the range does not parse)."""
    return parse_range(range_text).matches(version, include_prerelease)


def max_satisfying(versions: Iterable[str], range_text: str) -> str | None:
    """The highest of ``versions`` (text, returned as given) in the range, or None; the
    first of equal versions wins.  RangeError when the range does not parse."""
    rng = parse_range(range_text)
    best: tuple[Version, str] | None = None
    for text in versions:
        version = parse_version(text)
        if version is not None and rng.matches(version) and (best is None or best[0] < version):
            best = (version, text)
    return best[1] if best else None


def sort_versions(versions: Iterable[str]) -> list[str]:
    """Version texts in ascending precedence (ties by text, so the order never depends on the
    input's); text that is not a version is left out."""
    parsed = [(v, text) for text in versions if (v := parse_version(text)) is not None]
    return [text for _, text in sorted(parsed, key=lambda pair: (pair[0]._key(), pair[1]))]


def split_dependency(text: str) -> tuple[str, str]:
    """``"name"`` -> (name, "*"); ``"name@^1.2"`` -> (name, "^1.2").  Ids are folder paths and
    real ones hold '@' (``owner@repo/x``): the range follows the last '@', and a last part after
    '@' that holds a '/' is part of the id (``owner@repo/x@^1.2`` is ``owner@repo/x`` at ``^1.2``;
    an id whose last part after '@' is no range is written with one: ``at@home@*``).  Real folder
    names hold spaces too: a name or id may hold them inside, not at either end.

    Raises ValueError (RangeError when the range does not parse) for anything else."""
    head, at, tail = text.strip().rpartition("@")
    name, at, range_text = (text.strip(), "", "") if not at or "/" in tail else (head, at, tail)
    if not name or name != name.strip(_WS):
        raise ValueError(f"dependency {text!r} is not `name` or `name@range`")
    if not at:
        return name, "*"
    if not range_text.strip():
        raise ValueError(f"dependency {text!r} has nothing after '@' (write `{name}` or `{name}@RANGE`)")
    parse_range(range_text)
    return name, range_text

