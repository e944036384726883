"""Which catalogs must be signed, and by whom, as :meth:`skillsite.loader.Catalog.open` decides.

- Trusted keys given (``trusted_keys=``, ``--trusted-key``, ``SKILLSITE_TRUSTED_KEYS``): the
  catalog must be signed, its chain of roots starting from one of them.
- Else, once this cache accepted a signed catalog at a URL (trust on first use, as SSH's
  ``known_hosts``): that catalog must stay signed by the same key, or hand trust over by a rotation.
- Else a catalog whose ``skills.json`` says it is signed is checked (and its key remembered);
  an unsigned one is read as it always was, with the standard library alone.

Every refusal is a :class:`~skillsite.agent.errors.TrustError` raised before anything of the
catalog is used; a check that cannot run (the crypto libraries missing) refuses too, but for a
catalog read without any policy, which is read unchecked with a warning.
"""
from __future__ import annotations

import importlib
import os
import warnings
from pathlib import Path
from typing import Any

from skillsite.agent.errors import FetchError, HTTPStatusError, LoaderWarning, TrustError
from skillsite.agent.fetch import Fetcher, read_local
from skillsite.agent.manifest_check import safe_relpath
from skillsite.agent.site_urls import site_file_url
from skillsite.agent.trust import INSTALL_HINT, Get, SignedCatalog, TrustStore, verify_metadata
from skillsite.agent.trust_keys import PublicKey

#: HTTP answers that say a file is not published (a catalog without signed metadata).
ABSENT = (403, 404, 410)


def site_getter(location: str, remote: bool, fetcher: Fetcher, max_bytes: int) -> Get:
    """``get(site-relative path)`` for the catalog whose manifest is at ``location``: the file's
    bytes, or None when the site does not have it.  A path that could lead out of the site (a
    catalog's file may name it: ``../../etc/passwd``) is refused (UnsafePathError)."""
    def get(rel: str) -> bytes | None:
        safe_relpath(rel, "a site path")
        if remote:
            try:
                return fetcher.get(site_file_url(location, rel), limit=max_bytes).body
            except HTTPStatusError as exc:
                if exc.status in ABSENT:
                    return None
                raise
        path = Path(os.path.dirname(location), *rel.split("/"))
        if not path.is_file():
            return None
        return read_local(path, max_bytes)

    return get


def crypto_available() -> bool:
    """Whether the libraries that check signatures import here (the ``trust`` extra)."""
    try:
        for name in ("cryptography", "securesystemslib"):
            importlib.import_module(name)
    except ImportError:
        return False
    return True


def check_signature(manifest: dict[str, Any], raw: bytes, get: Get, store: TrustStore,
                    keys: tuple[PublicKey, ...], catalog: str) -> SignedCatalog | None:
    """The catalog's accepted signed metadata, with ``raw`` (its skills.json) checked against it;
    None for a catalog read without a policy that is not signed.  TrustError otherwise."""
    anchor = store.anchor()
    if not keys and not anchor:
        if not isinstance(manifest.get("signing"), dict):
            return None
        if not crypto_available():
            warnings.warn(LoaderWarning(f"{catalog} is signed, but its signature cannot be checked here: "
                                        f"{INSTALL_HINT}; read unchecked"), stacklevel=4)
            return None
    try:
        signed = verify_metadata(get, store, keys, catalog)
        signed.check("skills.json", raw)
    except TrustError as exc:
        # the way to accept a new key on purpose; never when the check could not run here (deleting
        # the pin would then read the catalog unchecked)
        reset = (f" (this cache trusts the key {', '.join(k.text for k in anchor)} for it since first use; to "
                 f"accept the change on purpose, delete {store.folder})") if anchor and not keys and \
            crypto_available() and exc.key_change else ""
        raise TrustError(exc.reason + reset, catalog) from None
    except FetchError as exc:
        raise TrustError(f"its signed metadata cannot be fetched: {exc}", catalog) from None
    return signed
