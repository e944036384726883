"""Signed builds: TUF metadata over what agents read (see :mod:`skillsite.agent.trust` for the
layout and how agents check it).

A signed build writes ``tuf/``: the chain of roots (``1.root.json`` ... ``N.root.json``, and
``root.json``, the latest), then ``timestamp.json``, ``V.snapshot.json`` and ``V.targets.json``
for the catalog's version V, whose targets pin ``skills.json`` and the other catalog-wide files
by length and sha256, and the lists in ``tuf/files/`` that give the length and sha256 of every
other published file (pages, assets, XML fragments, the sitemap...; not the skills' own files,
which ``skills.json`` pins one by one), in bins by the hash of the path so that no list grows
past :data:`FILES_PER_LIST` entries.  V grows with every published change: ``max(previous V + 1,
the time in seconds)``, so it grows even after a build that lost the previous metadata; a build that
publishes the same files again while the signatures are fresh republishes them unchanged.
The previous metadata comes from the current output (``tuf/``), else from the cache folder's
copy.  The catalog's key holds all four roles; ``rotate_from`` hands trust from the old key to
a new one with root N+1 signed by both.  Written with python-tuf's Metadata API and signed with
securesystemslib's ``CryptoSigner`` (pyca ``cryptography``); the private key is used here only,
never written anywhere.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable

from skillsite.agent.site_urls import path_of
from skillsite.agent.errors import TrustError
from skillsite.agent.trust import TUF_DIR, check_root_chain, expiry
from skillsite.agent.trust_keys import PublicKey
from skillsite.agent.verify import is_listed, published_files
from skillsite.config_sections import parse_duration

#: The catalog-wide files the targets pin (those the catalog has); the rest hangs from skills.json.
TARGET_FILES = ("skills.json", "skills.schema.json", "tuf.schema.json", "skillsite.schema.json", "available_skills.xml",
                "llms.txt", ".well-known/agent-skills/index.json", ".well-known/skills/index.json",
                ".claude-plugin/marketplace.json", "skills/index.json")
#: Where the lists of every published file's digest go, and how many files one list holds at most
#: (a catalog of up to that many files has one list, ``all.json``).
FILES_DIR = "files/"
FILES_PER_LIST = 4096
SIGNING_KEY_ENV = "SKILLSITE_SIGNING_KEY"
DEFAULT_EXPIRES = timedelta(days=30)
#: A root (the key) is valid for a year at least, twice the metadata's validity when longer,
#: and signed again once less than twice the metadata's validity is left.
ROOT_LIFETIME = timedelta(days=365)
INSTALL_HINT = "pip install 'skillsite[trust]'"


class SigningError(Exception):
    """A signed build cannot go on: a key that cannot be read, a rotation without the previous
    metadata, a key the catalog's root does not hold."""


@dataclass(frozen=True)
class SigningKey:
    """A private Ed25519 key (PEM, PKCS#8) and its public key."""

    pem: bytes = field(repr=False)
    public: PublicKey

    @classmethod
    def from_pem(cls, pem: bytes, where: str) -> SigningKey:
        """The key of a PEM text; SigningError naming ``where`` (never the text) when it is not one."""
        private = _private_key(pem, where)
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        return cls(pem, PublicKey(private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)))

    @classmethod
    def from_file(cls, path: Path) -> SigningKey:
        try:
            return cls.from_pem(Path(path).read_bytes(), str(path))
        except OSError as exc:
            raise SigningError(f"cannot read the signing key {path}: {exc.strerror}") from None


def _private_key(pem: bytes, where: str) -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import load_pem_private_key
    except ImportError:
        raise SigningError(f"signing needs the crypto libraries: {INSTALL_HINT}") from None
    from cryptography.exceptions import UnsupportedAlgorithm

    try:
        private = load_pem_private_key(pem, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise SigningError(f"{where} is not an unencrypted PEM private key (make one with "
                           "`skillsite keys new`)") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise SigningError(f"{where} is not an Ed25519 key (make one with `skillsite keys new`)")
    return private


@dataclass(frozen=True)
class Signing:
    """How a build signs: its key, the key it rotates from (if any), how long signatures last."""

    key: SigningKey
    rotate_from: SigningKey | None = None
    expires: timedelta = DEFAULT_EXPIRES


def duration_text(duration: timedelta) -> str:
    """``30 days``, ``12 hours``, ``90 seconds``: a validity as people read it."""
    seconds = int(duration.total_seconds())
    for unit, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0 and seconds >= size:
            return f"{seconds // size} {unit}{'s' if seconds // size != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


@dataclass(frozen=True)
class Signed:
    """What a signed build published: the catalog's version, when it expires, its key and root version."""

    version: int
    expires: str
    key: PublicKey
    root_version: int


@dataclass(frozen=True)
class Previous:
    """The signed metadata of the catalog this build replaces: roots by version, and the last
    timestamp, snapshot and targets (None when it had none)."""

    roots: dict[int, bytes]
    files: dict[str, bytes]

    @classmethod
    def read(cls, folders: list[Path]) -> Previous:
        """The metadata of the first folder holding an intact chain of roots (an output's ``tuf/``,
        the cache's copy); SigningError when every folder holding one holds a damaged file."""
        damage = None
        for folder in folders:
            roots = {int(p.name.split(".")[0]): p.read_bytes() for p in folder.glob("*.root.json")
                     if p.name.split(".")[0].isdigit()}
            if not roots:
                continue
            documents = [*folder.glob("*.json"), *folder.glob(FILES_DIR + "*.json")]
            previous = cls(roots, {p.relative_to(folder).as_posix(): p.read_bytes() for p in documents
                                   if p.name not in {f"{n}.root.json" for n in roots}})
            found = previous.damage(folder)
            if found is None:
                return previous
            damage = damage or found
        if damage is not None:
            raise SigningError(f"{damage}: put the catalog's last tuf/ folder back (agents that trust the catalog "
                               "follow its chain of roots; a new chain would make them refuse it)")
        return cls({}, {})

    def damage(self, folder: Path) -> str | None:
        """The first file that is no TUF metadata, and why (None when all are)."""
        metadata, _, _ = _tuf()
        named = [(f"{n}.root.json", data) for n, data in sorted(self.roots.items())] + sorted(self.files.items())
        for name, data in named:
            try:
                if name.startswith(FILES_DIR):  # a list of the files a targets file pins
                    if not isinstance(json.loads(data).get("files"), dict):
                        raise ValueError("it lists no files")
                else:
                    metadata.Metadata.from_bytes(data)
            except Exception as exc:  # noqa: BLE001 - python-tuf raises DeserializationError and others
                return f"{folder / name} is damaged ({type(exc).__name__}: {str(exc)[:120]})"
        try:  # each file parses; the roots must also be a chain a client follows
            check_root_chain(self.roots, str(folder))
        except TrustError as exc:
            return f"{folder} is damaged ({exc.reason})"
        return None

    def signed(self, name: str) -> dict[str, Any] | None:
        data = self.files.get(name)
        return json.loads(data)["signed"] if data else None


def _tuf() -> Any:
    try:
        import tuf.api.metadata as metadata
        from securesystemslib.signer import CryptoSigner
        from tuf.api.serialization.json import JSONSerializer
    except ImportError:
        raise SigningError(f"signing needs python-tuf and the crypto libraries: {INSTALL_HINT}") from None
    return metadata, CryptoSigner, JSONSerializer


def _signer(key: SigningKey) -> Any:
    _, crypto_signer, _ = _tuf()
    return crypto_signer(_private_key(key.pem, "the signing key"))


def _seconds(when: datetime) -> datetime:
    return when.replace(microsecond=0)


def _root_keys(root: dict[str, Any]) -> set[PublicKey]:
    keys = (PublicKey.from_tuf(root["keys"][kid]) for kid in root["roles"]["root"]["keyids"])
    return {k for k in keys if k is not None}


def _roots(previous: Previous, signing: Signing, now: datetime) -> dict[int, bytes]:
    """The chain of roots to publish: the previous one, with a new root when there is none yet,
    when the key rotates, or when the latest one is close to expiring."""
    metadata, _, serializer = _tuf()
    lifetime = max(ROOT_LIFETIME, 4 * signing.expires)  # renewed when under 2x: never right after renewal
    chain = dict(previous.roots)
    if not chain:
        if signing.rotate_from is not None:
            raise SigningError("--rotate-from needs the catalog's previous signed metadata (its tuf/ folder in the "
                               "output folder, or the cache folder's copy): without it no client can follow the "
                               "rotation")
        return {1: _new_root(metadata, serializer, 1, signing.key, [signing.key], now + lifetime)}
    latest = max(chain)
    root = json.loads(chain[latest])["signed"]
    holders = _root_keys(root)
    if holders == {signing.key.public}:
        if expiry(root) - now < 2 * signing.expires:  # renewed by the same key
            chain[latest + 1] = _new_root(metadata, serializer, latest + 1, signing.key, [signing.key], now + lifetime)
        return chain
    old = signing.rotate_from
    if old is None or old.public not in holders:
        held = ", ".join(sorted(k.text for k in holders))
        raise SigningError(f"the catalog's signed root trusts {held}, not {signing.key.public.text}: sign with "
                           "that key, or hand trust over with --rotate-from (the old key's file) --sign-key "
                           "(the new one)")
    chain[latest + 1] = _new_root(metadata, serializer, latest + 1, signing.key, [old, signing.key], now + lifetime)
    return chain


def _new_root(metadata: Any, serializer: Any, version: int, key: SigningKey, signers: list[SigningKey],
              expires: datetime) -> bytes:
    """Root ``version``: ``key`` in all four roles, signed by each of ``signers``."""
    root = metadata.Root(version=version, expires=_seconds(expires), consistent_snapshot=True)
    public = _signer(key).public_key
    for role in ("root", "timestamp", "snapshot", "targets"):
        root.add_key(public, role)
    document = metadata.Metadata(root)
    for n, signer in enumerate(signers):
        document.sign(_signer(signer), append=n > 0)
    return document.to_bytes(serializer(compact=True))


def _targets_of(site: Path, lists: dict[str, bytes]) -> dict[str, tuple[int, str]]:
    """Length and sha256 of each catalog-wide file the output holds, and of each file list."""
    found = {}
    for rel in TARGET_FILES:
        path = site / rel
        if path.is_file():
            found[rel] = _digest(path.read_bytes())
    for name, data in lists.items():
        found[TUF_DIR + name] = _digest(data)
    return found


def file_lists(site: Path, paths: list[str], known: dict[str, tuple[int, str]] | None = None) -> dict[str, bytes]:
    """The files of ``tuf/files/`` (by name under ``tuf/``): every path's length and sha256
    (``known``: those noted when the build wrote them; the others are read), in bins by the first
    hex digits of the path's sha256, as few digits as keep each bin within
    :data:`FILES_PER_LIST` (none: one list, ``all.json``)."""
    known = known or {}
    digits = 0
    while len(paths) > FILES_PER_LIST * 16 ** digits:
        digits += 1
    bins: dict[str, dict[str, Any]] = {}
    for rel in sorted(paths):
        length, sha = known.get(rel) or _digest((site / rel).read_bytes())
        name = hashlib.sha256(rel.encode("utf-8")).hexdigest()[:digits] if digits else "all"
        bins.setdefault(name, {})[rel] = {"hashes": {"sha256": sha}, "length": length}
    return {f"{FILES_DIR}{name}.json": json.dumps({"files": files}, ensure_ascii=False,  # made in path order
                                                   separators=(",", ":")).encode("utf-8")
            for name, files in sorted(bins.items())}


def _digest(data: bytes) -> tuple[int, str]:
    """Length and sha256 (hex) of a file's bytes, as TUF pins a target."""
    return len(data), hashlib.sha256(data).hexdigest()


def _unchanged(previous: Previous, roots: dict[int, bytes], targets: dict[str, tuple[int, str]],
               signing: Signing, now: datetime) -> str | None:
    """The previous timestamp's version when it can be published again: same roots, same
    targets, and more than half of the signatures' validity left (else None)."""
    timestamp = previous.signed("timestamp.json")
    if timestamp is None or roots != previous.roots:
        return None
    version = timestamp["meta"]["snapshot.json"]["version"]
    names = ("timestamp.json", f"{version}.snapshot.json", f"{version}.targets.json")
    documents = [previous.signed(name) for name in names]
    # signed again when half the validity is gone, or when it lasts longer than now asked for
    if any(d is None or not signing.expires / 2 <= expiry(d) - now <= signing.expires for d in documents):
        return None
    pinned = {path: (info["length"], info["hashes"]["sha256"]) for path, info in documents[2]["targets"].items()}
    return str(version) if pinned == targets else None


def sign_catalog(site: Path, signing: Signing, previous: Previous, now: datetime | None = None,
                 published: list[str] | None = None, known: dict[str, tuple[int, str]] | None = None
                 ) -> tuple[dict[str, bytes], Signed]:
    """The files of ``tuf/`` (by name) signing the catalog written in ``site``, and what they say;
    ``published``: the site paths of its files (default: what the folder holds); ``known``: the
    digests of those noted as they were written."""
    now = _seconds(now or datetime.now(timezone.utc))
    roots = _roots(previous, signing, now)
    lists = file_lists(site, published_files(site) if published is None else published, known)
    targets = _targets_of(site, lists)
    kept = _unchanged(previous, roots, targets, signing, now)
    files = {f"{n}.root.json": data for n, data in roots.items()} | lists
    files["root.json"] = roots[max(roots)]
    if kept is not None:
        for name in ("timestamp.json", f"{kept}.snapshot.json", f"{kept}.targets.json"):
            files[name] = previous.files[name]
        version, expires = int(kept), previous.signed("timestamp.json")["expires"]
    else:
        last = previous.signed("timestamp.json")
        version = max((last["version"] + 1) if last else 1, int(now.timestamp()))
        files.update(_role_files(signing, version, targets, now + signing.expires))
        expires = json.loads(files["timestamp.json"])["signed"]["expires"]
    return files, Signed(version, expires, signing.key.public, max(roots))


def _role_files(signing: Signing, version: int, targets: dict[str, tuple[int, str]], expires: datetime
                ) -> dict[str, bytes]:
    """Targets, snapshot and timestamp of catalog version ``version``, signed by the catalog's key."""
    metadata, _, serializer = _tuf()
    signer, until = _signer(signing.key), _seconds(expires)
    pinned = metadata.Targets(version=version, expires=until)
    for path, (length, sha) in sorted(targets.items()):
        pinned.targets[path] = metadata.TargetFile(length, {"sha256": sha}, path)
    snapshot = metadata.Snapshot(version=version, expires=until, meta={"targets.json": metadata.MetaFile(version)})
    timestamp = metadata.Timestamp(version=version, expires=until, snapshot_meta=metadata.MetaFile(version))
    files = {}
    for name, signed in ((f"{version}.targets.json", pinned), (f"{version}.snapshot.json", snapshot),
                         ("timestamp.json", timestamp)):
        document = metadata.Metadata(signed)
        document.sign(signer)
        files[name] = document.to_bytes(serializer(compact=True))
    return files


def pinned_skill_files(entries: Iterable[Any]) -> set[str]:
    """The site paths of every skill's SKILL.md and bundled files (of its manifest entries):
    ``skills.json`` pins each by its sha256, and ``skillsite verify`` checks them there, so the
    file lists leave them out (they are most of a catalog's bytes)."""
    pinned = set()
    for entry in entries:
        folder = path_of(entry.urls.files)
        pinned.add(folder + "SKILL.md")
        pinned.update(folder + record.path for record in entry.files)
    return pinned


def sign_staging(staging: Any, signing: Signing, previous: list[Path], pinned: set[str] = frozenset()) -> Signed:
    """Sign the catalog a build wrote into ``staging`` (:class:`~skillsite.publish.staging.Staging`):
    its ``tuf/`` files, continuing the metadata of the first of ``previous`` that has some;
    ``pinned``: the files ``skills.json`` pins, left out of the file lists."""
    published = [rel for rel in staging.placed if is_listed(rel) and rel not in pinned]
    files, signed = sign_catalog(staging.path, signing, Previous.read(previous), published=published,
                                 known=staging.digests)
    for name, data in sorted(files.items()):
        staging.write(TUF_DIR + name, data)
    return signed


#: In the cache folder: the last signed metadata, one copy per signing key (``signing/<key id>/``),
#: from which a new output folder (a fresh CI checkout) continues its chain of roots.  Keyed by
#: key, not by output path: a checkout's path may move, and sibling catalogs signed by other keys
#: sharing the cache folder keep their own chains.  Earlier versions kept one copy in ``signing/``.
COPIES_DIR = "signing"


def _copy_of(cache_folder: Path, key: PublicKey) -> Path:
    return cache_folder / COPIES_DIR / hashlib.sha256(key.raw).hexdigest()[:16]


def keep_copy(site: Path, cache_folder: Path, key: PublicKey) -> None:
    """Copy the output's ``tuf/``, signed by ``key``, into the cache folder's copy for that key."""
    source, copy = site / TUF_DIR, _copy_of(cache_folder, key)
    if not source.is_dir():
        return
    fresh = copy.with_name(copy.name + ".new")
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(source, fresh)
    shutil.rmtree(copy, ignore_errors=True)
    fresh.rename(copy)


def previous_folders(out: Path, cache_folder: Path | None, signing: Signing) -> list[Path]:
    """Where the previous signed metadata may be: the current output's ``tuf/``, then the cache's
    copy for the signing key (rotating: for the old key too), then an earlier version's single
    copy when its latest root trusts one of those keys (another catalog's chain is not this one's)."""
    if cache_folder is None:
        return [out / TUF_DIR]
    keys = [signing.key.public] + ([signing.rotate_from.public] if signing.rotate_from is not None else [])
    earlier = cache_folder / COPIES_DIR
    return [out / TUF_DIR, *(_copy_of(cache_folder, key) for key in keys)] + (
        [earlier] if _latest_root_trusts(earlier, keys) else [])


def _latest_root_trusts(folder: Path, keys: list[PublicKey]) -> bool:
    """Whether the latest root in ``folder`` can be read and trusts one of ``keys``."""
    roots = sorted((number, p) for p in folder.glob("*.root.json") if (number := _root_number(p.name)) >= 0)
    if not roots:
        return False
    try:
        return not _root_keys(json.loads(roots[-1][1].read_bytes())["signed"]).isdisjoint(keys)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def resign_due(out: Path, signing: Signing, cache_folder: Path | None) -> bool:
    """Whether the published metadata must be signed again although no input changed: another
    key or rotation, a root close to expiring, or less than half of the signatures' validity left."""
    previous = Previous.read(previous_folders(out, cache_folder, signing))
    # the files as the last signing listed them: a no-op rebuild trusts the output, as unsigned ones do
    known = {path: (info["length"], info["hashes"]["sha256"]) for name, data in previous.files.items()
             if name.startswith(FILES_DIR) for path, info in json.loads(data)["files"].items()}
    try:
        files, _ = sign_catalog(out, signing, previous, published=list(known) or None, known=known)
    except SigningError:
        return True  # the build itself says why
    return any(previous.files.get(name, previous.roots.get(_root_number(name))) != data for name, data in files.items())


def _root_number(name: str) -> int:
    head = name.split(".")[0]
    return int(head) if head.isdigit() else -1


def signing_settings(signing: Signing | None) -> list[Any]:
    """What of the signing a build's output depends on (public keys and validity; never the private key)."""
    if signing is None:
        return []
    return [signing.key.public.text, signing.rotate_from.public.text if signing.rotate_from else "",
            signing.expires.total_seconds()]


def signing_hint(signing: Signing | None) -> dict[str, Any] | None:
    """skills.json's ``signing``: where the signed metadata is and which key signs it."""
    if signing is None:
        return None
    return {"format": "tuf", "metadata": TUF_DIR, "key": signing.key.public.text, "keyid": signing.key.public.keyid}


def signing_of(key_file: Path | None, rotate_from: Path | None, expires: str | None, configured: dict[str, Any],
               environment: dict[str, str]) -> Signing | None:
    """How ``skillsite build`` signs: the key of ``--sign-key`` (else the PEM text of
    ``$SKILLSITE_SIGNING_KEY``), ``--rotate-from`` and ``--expires`` (else ``signing.expires``);
    None without a key.  SigningError (ValueError for a duration) naming the flag, never the key."""
    if key_file is not None:
        key = SigningKey.from_file(key_file)
    elif environment.get(SIGNING_KEY_ENV, "").strip():
        key = SigningKey.from_pem(environment[SIGNING_KEY_ENV].encode("utf-8"), f"${SIGNING_KEY_ENV}")
    elif rotate_from is not None or expires is not None:
        raise SigningError("--rotate-from and --expires sign the catalog: give the key with --sign-key "
                           f"or ${SIGNING_KEY_ENV}")
    else:
        return None
    validity = parse_duration(expires or configured.get("expires") or "30d")
    _tuf()  # refused now when python-tuf is missing, not after the whole catalog was built
    return Signing(key, SigningKey.from_file(rotate_from) if rotate_from is not None else None, validity)


def new_key_file(path: Path) -> PublicKey:
    """Make an Ed25519 key and write it to ``path`` (PEM, PKCS#8, mode 0600; FileExistsError when
    ``path`` exists): its public key."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    except ImportError:
        raise SigningError(f"making a key needs the crypto libraries: {INSTALL_HINT}") from None
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
    except BaseException:
        os.unlink(path)
        raise
    return SigningKey.from_pem(pem, str(path)).public
