"""Names of version-control folders, as any file system may read them (standard library only).

An installed skill must not hold one: a file under ``.git`` (its config, its hooks) runs code
on the next git command there.  A build never publishes one, and an install refuses a path
through one (:func:`~skillsite.agent.manifest_check.safe_relpath`).
"""
from __future__ import annotations

#: The folders of version-control tools.  A file written under one (git's config or hooks, an
#: .hg/hgrc) runs code on the next command there; a build never publishes one.
VCS_FOLDERS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"})
#: Characters HFS+ ignores in a name (``.g\u200cit`` is ``.git`` there), as git's own path check lists them.
_IGNORED_BY_HFS = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                                         "\u206a\u206b\u206c\u206d\u206e\u206f\ufeff"))


def is_vcs_folder(name: str) -> bool:
    """Whether a path component names a version-control folder on some file system: in any case
    (macOS, Windows), with characters HFS+ ignores, with the trailing dots and spaces Windows
    drops, with an NTFS stream after a colon (``.git::$INDEX_ALLOCATION`` is ``.git``), or as
    NTFS's short name of ``.git``."""
    plain = name.split(":", 1)[0].translate(_IGNORED_BY_HFS).rstrip(". ").casefold()
    return plain in VCS_FOLDERS or plain == "git~1"
