"""Signed catalogs as an agent checks them: TUF metadata (The Update Framework, specification
1.0), the client workflow of its section 5 for one fixed shape.

A signed catalog publishes under ``tuf/`` the four top-level roles of TUF, all held by the
catalog's key: ``N.root.json`` (the key, for each root version N: a key rotation is root N+1
signed by the old key and the new one), ``timestamp.json``, ``V.snapshot.json`` and
``V.targets.json`` (V: the catalog's version), whose targets pin ``skills.json`` and the other
catalog-wide files by length and sha256; ``skills.json`` pins everything else an agent reads
by digest.  The targets also pin ``tuf/files/``, lists of every published file's digest that
only ``skillsite verify`` reads (:mod:`.verify`).

:func:`verify_metadata` walks the root chain from the root it trusts (one listing a trusted
key, or the one it accepted before), then checks the timestamp, snapshot and targets: each
signed by its role's keys, none expired, none older than what this cache accepted before
(rollback).  What it accepted is kept in the catalog's cache folder, with the keys the chain
was anchored on (``pin.json``): trust on first use for a catalog read without trusted keys.
Signatures are checked by pyca ``cryptography`` (Ed25519) over securesystemslib's canonical
JSON, what python-tuf signs; both are imported only here, only for a signed catalog.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

from skillsite.agent.errors import FetchError, TrustError
from skillsite.agent.site_urls import TUF_DIR
from skillsite.agent.store import write_atomically
from skillsite.agent.trust_keys import PublicKey
from skillsite.bounded import too_dense

ROLES = ("root", "timestamp", "snapshot", "targets")
#: Root versions a client walks at most in one refresh (the TUF reference client's limit).
MAX_ROOT_ROTATIONS = 256
#: Signatures a metadata file carries at most: far above any role's keys, and at most as many
#: verifications (a host's flood of signatures would otherwise cost one each).
MAX_SIGNATURES = 1024
PIN_FILE = "pin.json"
INSTALL_HINT = "pip install 'skillsite[trust]'"

#: ``get(site-relative path) -> bytes``, or None when the file does not exist (HTTP 404/403).
Get = Callable[[str], "bytes | None"]


@dataclass(frozen=True)
class Target:
    """A file the signed targets pin: its length and sha256."""

    length: int
    sha256: str


@dataclass(frozen=True)
class SignedCatalog:
    """What a verification accepted: the catalog's version, when its metadata expires, the keys
    that sign it, the root version, the files its targets pin, and the snapshot's version."""

    version: int
    expires: datetime
    keys: tuple[PublicKey, ...]
    root_version: int
    targets: dict[str, Target]
    snapshot_version: int = 0

    def check(self, path: str, data: bytes) -> None:
        """TrustError unless ``data`` is the file the targets pin at ``path``."""
        target = self.targets.get(path)
        if target is None:
            raise TrustError(f"the signed metadata pins no {path}")
        if len(data) != target.length or hashlib.sha256(data).hexdigest() != target.sha256:
            raise TrustError(f"{path} is not the file the signed metadata pins (sha256 {target.sha256[:16]}..., "
                             f"{target.length} bytes): refusing it (a build published while it was read gives this "
                             "too: open the catalog again)")


class TrustStore:
    """The metadata a cache accepted for one catalog, and the keys its trust was anchored on."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def read(self, name: str) -> bytes | None:
        if self.folder is None:
            return None
        try:
            return (self.folder / name).read_bytes()
        except OSError:
            return None

    def write(self, name: str, data: bytes) -> None:
        if self.folder is not None:
            write_atomically(self.folder / name, lambda handle: handle.write(data))

    def forget(self, *names: str) -> None:
        for name in names:
            if self.folder is not None:
                (self.folder / name).unlink(missing_ok=True)

    def anchor(self) -> tuple[PublicKey, ...]:
        """The keys this cache's chain of roots started from (none: it never accepted one)."""
        try:
            pin = json.loads(self.read(PIN_FILE) or b"{}")
            return tuple(PublicKey.from_text(text) for text in pin.get("anchor", []))
        except (ValueError, TypeError, AttributeError):
            return ()

    def pin(self, anchor: tuple[PublicKey, ...], catalog: str, mode: str) -> None:
        """Remember the keys the accepted chain started from (written only when they change)."""
        data = json.dumps({"catalog": catalog, "mode": mode, "anchor": [k.text for k in anchor]}, indent=1)
        if self.read(PIN_FILE) != data.encode("utf-8"):
            self.write(PIN_FILE, data.encode("utf-8"))


def _crypto() -> tuple[Any, Any, Any]:
    """Ed25519 verification and canonical JSON; TrustError when the libraries are missing (a
    signed catalog is then refused, never read unchecked)."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        from securesystemslib.formats import encode_canonical
    except ImportError as exc:
        raise TrustError(f"checking a signed catalog needs the crypto libraries ({exc.name} is missing): "
                         f"{INSTALL_HINT}") from None
    return Ed25519PublicKey, InvalidSignature, encode_canonical


def expiry(signed: dict[str, Any]) -> datetime:
    """When a role's metadata expires (TUF writes ``2026-12-29T00:00:00Z``)."""
    text = signed.get("expires")
    if not isinstance(text, str) or not text.endswith("Z"):
        raise ValueError("no expiry of the form YYYY-MM-DDTHH:MM:SSZ")
    return datetime.fromisoformat(text[:-1] + "+00:00")


class _Verifier:
    """One verification of one catalog's metadata (:func:`verify_metadata`)."""

    def __init__(self, get: Get, store: TrustStore, catalog: str, now: datetime) -> None:
        self.get, self.store, self.catalog, self.now = get, store, catalog, now
        self.public_key_type, self.invalid_signature, self.canonical = _crypto()

    def fail(self, message: str, key_change: bool = False) -> TrustError:
        return TrustError(message, self.catalog, key_change=key_change)

    def parse(self, data: bytes, kind: str, name: str) -> dict[str, Any]:
        """The document of a metadata file: ``{"signed": {"_type": kind, ...}, "signatures": [...]}``."""
        if (problem := too_dense(data)) is not None:
            raise self.fail(f"{name} {problem}")
        try:
            document = json.loads(data)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python parses
            raise self.fail(f"{name} is not JSON") from None
        if not (isinstance(document, dict) and isinstance(document.get("signed"), dict)
                and isinstance(document.get("signatures"), list) and document["signed"].get("_type") == kind
                and isinstance(document["signed"].get("version"), int) and document["signed"]["version"] > 0):
            raise self.fail(f"{name} is not TUF {kind} metadata")
        return document

    def signed_by(self, document: dict[str, Any], root: dict[str, Any], role: str, name: str,
                  trusted: tuple[PublicKey, ...] = ()) -> None:
        """TrustError unless ``document`` carries valid signatures of at least ``threshold`` distinct
        keys of ``role`` in ``root`` and, with ``trusted`` keys, one of theirs (a root naming a
        trusted key proves nothing: anyone can list a public key in a root they sign).  As
        python-tuf: signatures are taken by key id, a document with two under one key id is
        refused (``Metadata.from_dict``), and only the role's key ids are looked up
        (``verify_delegate``); so a document costs at most one verification per key of the role,
        however many signatures it carries (at most :data:`MAX_SIGNATURES`)."""
        try:
            spec = root["roles"][role]
            keys = {kid: PublicKey.from_tuf(root["keys"][kid]) for kid in spec["keyids"]}
            threshold = spec["threshold"]
        except (KeyError, TypeError):
            raise self.fail(f"the trusted root has no usable '{role}' role") from None
        signatures = self.signatures(document, name)
        payload = self.payload(document["signed"], name)
        good: set[bytes] = set()
        for keyid, key in keys.items():
            signature = signatures.get(keyid)
            if key is None or signature is None or key.raw in good:
                continue
            try:
                self.public_key_type.from_public_bytes(key.raw).verify(bytes.fromhex(signature["sig"]), payload)
            except (self.invalid_signature, ValueError, TypeError, KeyError):
                continue
            good.add(key.raw)
        if not isinstance(threshold, int) or threshold < 1 or len(good) < threshold:
            signers = ", ".join(k.text for k in keys.values() if k) or "no Ed25519 key"
            raise self.fail(f"{name} is not signed by the catalog's key ({signers}): {len(good)} of "
                            f"{threshold} valid signatures; the key changed without a rotation, or the file was "
                            "altered", key_change=True)
        if trusted and not good & {k.raw for k in trusted}:
            raise self.fail(f"{name} lists a trusted key but carries no valid signature of one "
                            f"({', '.join(k.text for k in trusted)}): it was not signed by that key")

    def signatures(self, document: dict[str, Any], name: str) -> dict[str, dict[str, Any]]:
        """A document's signatures by key id (those without a text key id name no key and count for
        none); TrustError for more than :data:`MAX_SIGNATURES`, or two under one key id."""
        if len(document["signatures"]) > MAX_SIGNATURES:
            raise self.fail(f"{name} carries {len(document['signatures'])} signatures, more than "
                            f"{MAX_SIGNATURES}: refused unchecked")
        found: dict[str, dict[str, Any]] = {}
        for signature in document["signatures"]:
            keyid = signature.get("keyid") if isinstance(signature, dict) else None
            if not isinstance(keyid, str):
                continue
            if keyid in found:
                raise self.fail(f"{name} carries two signatures under key id {keyid[:16]}...: refused (TUF "
                                "metadata holds one signature per key id)")
            found[keyid] = signature
        return found

    def payload(self, signed: dict[str, Any], name: str) -> bytes:
        """The bytes a signature covers: the canonical JSON of ``signed`` (TrustError when it has
        none: a float, a string that is not Unicode, nesting too deep; nothing signs such a file)."""
        try:
            return self.canonical(signed).encode("utf-8")
        except Exception:  # securesystemslib's FormatError, UnicodeEncodeError, RecursionError: refused alike
            raise self.fail(f"{name} has no canonical JSON form (a float, a lone surrogate or deep "
                            "nesting): it cannot be signed") from None

    def unexpired(self, signed: dict[str, Any], name: str) -> None:
        try:
            expires = expiry(signed)
        except ValueError as exc:
            raise self.fail(f"{name}: {exc}") from None
        if expires <= self.now:
            raise self.fail(f"{name} expired at {signed['expires']}: the catalog was not re-signed in time "
                            "(or is being frozen on an old version)", key_change=False)

    def fetch(self, name: str) -> bytes | None:
        """A metadata file (None: not published); a transient failure is raised as is."""
        return self.get(TUF_DIR + name)


def _role_keys(root: dict[str, Any], role: str) -> tuple[PublicKey, ...]:
    """The Ed25519 keys of one role of a root's signed part."""
    try:
        keys = (PublicKey.from_tuf(root["keys"][kid]) for kid in root["roles"][role]["keyids"])
        return tuple(k for k in keys if k is not None)
    except (KeyError, TypeError):
        return ()


#: A root as accepted: its signed part and the bytes it was read from.
Root = tuple[dict[str, Any], bytes]


def _trusted_root(v: _Verifier, trusted: tuple[PublicKey, ...]) -> tuple[Root, tuple[PublicKey, ...]]:
    """The root to start from and the keys it is anchored on: the cached one when it was anchored
    on a trusted key (or on first use, with none given), else one the catalog publishes that
    lists a trusted key and is signed by it."""
    anchor = v.store.anchor()
    cached = v.store.read("root.json")
    if cached is not None and anchor and (not trusted or set(anchor) & set(trusted)):
        document = v.parse(cached, "root", "the cached root")
        v.signed_by(document, document["signed"], "root", "the cached root")
        return (document["signed"], cached), anchor
    if cached is None and anchor and not trusted:
        raise v.fail("this cache trusted the catalog's key before, but lost its root: delete "
                     f"{v.store.folder} to trust the catalog anew")
    return _bootstrap(v, trusted)


def _bootstrap(v: _Verifier, trusted: tuple[PublicKey, ...]) -> tuple[Root, tuple[PublicKey, ...]]:
    """A first root: the latest (``root.json``) when it lists a trusted key (or, with none given,
    on first use), else the first of the chain that does, from which the chain is walked."""
    latest = v.fetch("root.json")
    if latest is None:
        raise v.fail("the catalog is not signed (no tuf/root.json)")
    document = v.parse(latest, "root", "tuf/root.json")
    v.signed_by(document, document["signed"], "root", "tuf/root.json")
    keys = _role_keys(document["signed"], "root")
    if not trusted:
        return (document["signed"], latest), keys
    if set(keys) & set(trusted):
        listed = tuple(k for k in keys if k in trusted)
        v.signed_by(document, document["signed"], "root", "tuf/root.json", listed)
        return (document["signed"], latest), listed
    for number in range(1, min(document["signed"]["version"], MAX_ROOT_ROTATIONS) + 1):
        data = v.fetch(f"{number}.root.json")
        if data is None:
            break
        older = v.parse(data, "root", f"tuf/{number}.root.json")
        listed = set(_role_keys(older["signed"], "root")) & set(trusted)
        if listed:
            anchors = tuple(k for k in trusted if k in listed)
            v.signed_by(older, older["signed"], "root", f"tuf/{number}.root.json", anchors)
            return (older["signed"], data), anchors
    raise v.fail(f"no root of the catalog lists a trusted key ({', '.join(k.text for k in trusted)}); it is signed by "
                 f"{', '.join(k.text for k in keys)}", key_change=True)


def _updated_root(v: _Verifier, start: Root) -> tuple[Root, bool]:
    """The newest root reachable from ``start``: each N+1 signed by N's root keys and by its own
    (section 5.3); and whether the other roles' keys changed on the way."""
    (root, data), changed = start, False
    for _ in range(MAX_ROOT_ROTATIONS):
        name = f"{root['version'] + 1}.root.json"
        try:
            newer = v.fetch(name)
        except FetchError as exc:
            if not exc.transient:
                raise
            break  # offline: the cached metadata decides, while it has not expired
        if newer is None:
            break
        document = v.parse(newer, "root", f"tuf/{name}")
        v.signed_by(document, root, "root", f"tuf/{name} (by the keys of root {root['version']})")
        v.signed_by(document, document["signed"], "root", f"tuf/{name}")
        if document["signed"]["version"] != root["version"] + 1:
            raise v.fail(f"tuf/{name} holds root version {document['signed']['version']}")
        changed |= any(_role_keys(document["signed"], r) != _role_keys(root, r) for r in ROLES[1:])
        root, data = document["signed"], newer
    v.unexpired(root, f"root {root['version']}")
    return (root, data), changed


def _timestamp(v: _Verifier, root: dict[str, Any]) -> dict[str, Any]:
    """The newest timestamp, never older than the one accepted before (section 5.4); offline,
    the one accepted before, while it has not expired."""
    before = _cached_signed(v, root, "timestamp")
    try:
        data = v.fetch("timestamp.json")
    except FetchError as exc:
        if not exc.transient or before is None:
            raise
        data, current = None, before
    else:
        if data is None:
            raise v.fail("the catalog is not signed (no tuf/timestamp.json)")
        document = v.parse(data, "timestamp", "tuf/timestamp.json")
        v.signed_by(document, root, "timestamp", "tuf/timestamp.json")
        current = document["signed"]
    if before is not None:
        _not_older(v, current["version"], before["version"], "catalog version")
        _not_older(v, _meta_version(v, current, "snapshot.json"), _meta_version(v, before, "snapshot.json"),
                   "snapshot version")
    v.unexpired(current, "tuf/timestamp.json")
    if data is not None:
        v.store.write("timestamp.json", data)
    return current


def _versioned(v: _Verifier, root: dict[str, Any], role: str, version: int) -> dict[str, Any]:
    """``V.<role>.json`` of the version its parent names: from the cache when it holds that
    version, else fetched (sections 5.5 and 5.6)."""
    name = f"{version}.{role}.json"
    before = _cached_signed(v, root, role)
    if before is not None and before["version"] == version:
        current = before
    else:
        data = v.fetch(name)
        if data is None:
            raise v.fail(f"tuf/{name} is missing")
        document = v.parse(data, role, f"tuf/{name}")
        v.signed_by(document, root, role, f"tuf/{name}")
        current = document["signed"]
        if current["version"] != version:
            raise v.fail(f"tuf/{name} holds {role} version {current['version']}")
        if before is not None:
            _not_older(v, version, before["version"], f"{role} version")
        v.store.write(f"{role}.json", data)
    v.unexpired(current, f"tuf/{name}")
    return current


def _cached_signed(v: _Verifier, root: dict[str, Any], role: str) -> dict[str, Any] | None:
    """The signed part of the role's metadata this cache accepted, checked again (None: none)."""
    data = v.store.read(f"{role}.json")
    if data is None:
        return None
    try:
        document = v.parse(data, role, f"the cached {role}")
        v.signed_by(document, root, role, f"the cached {role}")
    except TrustError:
        return None  # keys rotated since, or the cache file is damaged: start from the catalog's
    return document["signed"]


def _accepted_root_version(v: _Verifier) -> int:
    """The version of the root this cache accepted last (0: none, or a damaged file).  A root found
    anew (the trusted keys are not those the cache was anchored on) is held to it too: a host
    serving the roots from before a rotation to a client given the retired key is a rollback."""
    data = v.store.read("root.json")
    if data is None:
        return 0
    try:
        document = v.parse(data, "root", "the cached root")
        v.signed_by(document, document["signed"], "root", "the cached root")
    except TrustError:
        return 0
    return document["signed"]["version"]


def _meta_version(v: _Verifier, signed: dict[str, Any], name: str) -> int:
    try:
        version = signed["meta"][name]["version"]
    except (KeyError, TypeError):
        raise v.fail(f"{signed.get('_type')} metadata names no {name} version") from None
    if not isinstance(version, int):
        raise v.fail(f"{signed.get('_type')} metadata names no {name} version")
    return version


def _not_older(v: _Verifier, version: int, before: int, what: str) -> None:
    if version < before:
        raise v.fail(f"rollback: the catalog offers {what} {version}, older than {before}, which this cache "
                     "accepted before")


def _targets(v: _Verifier, signed: dict[str, Any]) -> dict[str, Target]:
    found = {}
    for path, info in (signed.get("targets") or {}).items():
        try:
            found[path] = Target(int(info["length"]), str(info["hashes"]["sha256"]))
        except (KeyError, TypeError, ValueError):
            raise v.fail(f"the signed targets describe {path!r} without a length and sha256") from None
    return found


def verify_metadata(get: Get, store: TrustStore, trusted: tuple[PublicKey, ...], catalog: str,
                    now: datetime | None = None) -> SignedCatalog:
    """Check a catalog's signed metadata, as the TUF client workflow does, and keep what was
    accepted in ``store``.  ``trusted``: the keys the catalog must be signed by (its chain of
    roots followed from the first root listing one); none: the keys this cache accepted before,
    or those the catalog publishes on first use.  TrustError naming ``catalog`` and the reason."""
    v = _Verifier(get, store, catalog, now or datetime.now(timezone.utc))
    start, anchor = _trusted_root(v, trusted)
    (root, root_bytes), rotated = _updated_root(v, start)
    _not_older(v, root["version"], _accepted_root_version(v), "root version")
    if rotated:
        store.forget("timestamp.json", "snapshot.json", "targets.json")  # section 5.3.11
    if store.read("root.json") != root_bytes:
        store.write("root.json", root_bytes)
    timestamp = _timestamp(v, root)
    snapshot = _versioned(v, root, "snapshot", _meta_version(v, timestamp, "snapshot.json"))
    targets = _versioned(v, root, "targets", _meta_version(v, snapshot, "targets.json"))
    store.pin(anchor, catalog, "keys" if trusted else "first use")
    expires = min(expiry(timestamp), expiry(snapshot), expiry(targets))
    return SignedCatalog(targets["version"], expires, _role_keys(root, "targets"), root["version"],
                         _targets(v, targets), snapshot["version"])


def check_root_chain(roots: Mapping[int, bytes], where: str) -> None:
    """TrustError unless ``roots`` (by version) are a chain a client follows from version 1: each
    root TUF metadata of its own version, signed by its own root keys and by those of the one
    before.  Their expiry aside: what signs the next build renews a root near its end."""
    v = _Verifier(lambda name: None, TrustStore(None), where, datetime.now(timezone.utc))
    before: dict[str, Any] | None = None
    for version in range(1, max(roots, default=0) + 1):
        name = f"{TUF_DIR}{version}.root.json"
        if version not in roots:
            raise v.fail(f"{name} is missing from the chain of roots")
        document = v.parse(roots[version], "root", name)
        if document["signed"]["version"] != version:
            raise v.fail(f"{name} holds root version {document['signed']['version']}")
        v.signed_by(document, document["signed"], "root", name)
        if before is not None:
            v.signed_by(document, before, "root", f"{name} (by the keys of root {version - 1})")
        before = document["signed"]


def verify_root_chain(get: Get, catalog: str, now: datetime | None = None) -> int:
    """Check every root the catalog publishes, from ``1.root.json`` (signed by its own keys) to
    the newest (each signed by the one before): the version of the newest.  TrustError naming the
    root that fails."""
    v = _Verifier(get, TrustStore(None), catalog, now or datetime.now(timezone.utc))
    first = v.fetch("1.root.json")
    if first is None:
        raise v.fail("the catalog publishes no tuf/1.root.json")
    document = v.parse(first, "root", "tuf/1.root.json")
    v.signed_by(document, document["signed"], "root", "tuf/1.root.json")
    (root, _), _ = _updated_root(v, (document["signed"], first))
    return root["version"]
