"""Cursors and page URIs that name the build of the catalog their page was cut from.

A list's next page is named by where it starts (``600``).  A server that opens its catalog
again once the host published a new build cuts its lists anew, and a start given by a page of
the old build would name another place in the new one: a client following it would skip or
repeat skills.  So each start a page gives carries the build it counts in, the first hex digits
of the sha256 of the skills.json read (``600.3f9ac2e1b04d``): one of another build is refused,
with the advice to start again from the first page.  A bare start is taken as one of the build
served, as before builds were named.
"""
from __future__ import annotations

from typing import Any

from skillsite.loader import Catalog

#: Hex digits of skills.json's sha256 that name a build in a cursor.
BUILD_DIGITS = 12
#: What a client is told of a cursor of a build no longer served.
OTHER_BUILD = ("it names another build of the catalog, published anew since that page was given; "
               "start again from the first page")


class OtherBuild(ValueError):
    """A cursor that names a build other than the one served."""


def build_of(catalog: Catalog) -> str:
    """The name of the build ``catalog`` is, as cursors carry it."""
    return catalog.manifest_sha256[:BUILD_DIGITS]


def page_cursor(start: int, build: str) -> str:
    """The cursor of the page starting at ``start`` of the build ``build``."""
    return f"{start}.{build}"


def named_start_text(given: Any, build: str) -> Any:
    """The start a cursor names, as written (its list checks it), given a cursor of the build
    ``build`` or a bare start; anything not written as a cursor is given back as it is, for its
    list to refuse.  OtherBuild for a cursor of another build."""
    if not names_a_build(given):
        return given
    start, _, named = given.partition(".")
    if named != build:
        raise OtherBuild(f"{given[:60]!r}: {OTHER_BUILD}")
    return start


def names_a_build(given: Any) -> bool:
    """Whether ``given`` is written as a cursor that names a build (:func:`page_cursor`)."""
    start, dot, named = given.partition(".") if isinstance(given, str) else ("", "", "")
    return bool(dot) and start.isascii() and start.isdigit() and _is_build(named)


def _is_build(text: str) -> bool:
    """Whether ``text`` is written as a build's name is (:func:`build_of`)."""
    return len(text) == BUILD_DIGITS and all(c in "0123456789abcdef" for c in text)
