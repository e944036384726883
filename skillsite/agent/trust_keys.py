"""A catalog's public key as people write and pin it: ``ed25519:<base64 of the 32 raw bytes>``.

In the catalog's signed metadata (TUF, see :mod:`skillsite.agent.trust`) the same key is a TUF
key object, ``{"keytype": "ed25519", "scheme": "ed25519", "keyval": {"public": <hex>}}``, named
by its key id: the sha256 of that object's canonical JSON (what securesystemslib computes).
Standard library only: the catalog's pages show the key, and ``Catalog.open`` reads the keys it
is given, without the crypto library.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any, Iterable

PREFIX = "ed25519:"
KEY_BYTES = 32
#: The environment variable of trusted keys, comma-separated (as ``--trusted-key`` takes them).
TRUSTED_KEYS_ENV = "SKILLSITE_TRUSTED_KEYS"


class KeyFormatError(ValueError):
    """Text that is not a key of the form ``ed25519:<base64>``."""


@dataclass(frozen=True)
class PublicKey:
    """An Ed25519 public key: its 32 raw bytes."""

    raw: bytes

    @classmethod
    def from_text(cls, text: str) -> PublicKey:
        """``ed25519:<base64>`` read back; KeyFormatError naming what is wrong."""
        value = text.strip()
        if not value.startswith(PREFIX):
            raise KeyFormatError(f"key {value[:60]!r} does not start with {PREFIX!r} (write ed25519:<base64>)")
        try:
            raw = base64.b64decode(value[len(PREFIX):], validate=True)
        except (binascii.Error, ValueError):
            raise KeyFormatError(f"key {value[:60]!r} is not base64 after {PREFIX!r}") from None
        if len(raw) != KEY_BYTES:
            raise KeyFormatError(f"key {value[:60]!r} holds {len(raw)} bytes, not the {KEY_BYTES} of an Ed25519 key")
        return cls(raw)

    @classmethod
    def from_tuf(cls, key: Any) -> PublicKey | None:
        """The key of a TUF key object, or None when it is not an Ed25519 one."""
        if not (isinstance(key, dict) and key.get("keytype") == "ed25519" and key.get("scheme") == "ed25519"
                and isinstance(key.get("keyval"), dict) and isinstance(key["keyval"].get("public"), str)):
            return None
        try:
            raw = bytes.fromhex(key["keyval"]["public"])
        except ValueError:
            return None
        return cls(raw) if len(raw) == KEY_BYTES else None

    @property
    def text(self) -> str:
        """``ed25519:<base64>``: what ``skillsite keys`` prints and ``--trusted-key`` takes."""
        return PREFIX + base64.b64encode(self.raw).decode("ascii")

    def tuf_key(self) -> dict[str, Any]:
        """The TUF key object."""
        return {"keytype": "ed25519", "scheme": "ed25519", "keyval": {"public": self.raw.hex()}}

    @property
    def keyid(self) -> str:
        """The TUF key id: sha256 of the key object's canonical JSON (ASCII only, so sorted keys
        without spaces are canonical)."""
        canonical = json.dumps(self.tuf_key(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("ascii")).hexdigest()

    def __str__(self) -> str:
        return self.text


def read_keys(texts: Iterable[str]) -> tuple[PublicKey, ...]:
    """Keys from their texts (each may hold several, comma-separated), without repeats.  A text
    holding no key is a KeyFormatError: a key given empty (``--trusted-key "$(cat missing.pub)"``)
    must not turn the check off."""
    keys = []
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"a trusted key is text (ed25519:<base64>), not {type(text).__name__} {text!r}")
        parts = [part for part in text.split(",") if part.strip()]
        if not parts:
            raise KeyFormatError(f"a trusted key is empty ({text!r}): give ed25519:<base64> (was its file missing?)")
        keys += [PublicKey.from_text(part) for part in parts]
    return tuple(dict.fromkeys(keys))


def keys_from_environment() -> tuple[PublicKey, ...]:
    """The keys of :data:`TRUSTED_KEYS_ENV` (none when it is unset or empty)."""
    text = os.environ.get(TRUSTED_KEYS_ENV, "")
    return read_keys([text]) if text.strip() else ()
