"""How many signatures a signed catalog's metadata costs to check: one verification per key of
the role at most, whatever a host puts in its signatures list (python-tuf's rules)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillsite.agent import trust
from skillsite.agent.errors import TrustError
from skillsite.agent.trust import TrustStore, verify_metadata
from skillsite.publish.signing import Previous, Signing, SigningKey, new_key_file, sign_catalog


class Counted:
    """Ed25519 public keys whose verifications are counted."""

    calls = 0

    def __init__(self, key: Any) -> None:
        self.key = key

    @classmethod
    def from_public_bytes(cls, raw: bytes) -> Counted:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        return cls(Ed25519PublicKey.from_public_bytes(raw))

    def verify(self, signature: bytes, data: bytes) -> None:
        Counted.calls += 1
        self.key.verify(signature, data)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[Counted]:
    real = trust._crypto()
    monkeypatch.setattr(trust, "_crypto", lambda: (Counted, real[1], real[2]))
    Counted.calls = 0
    return Counted


@pytest.fixture
def signed(tmp_path: Path) -> tuple[dict[str, bytes], SigningKey]:
    """The tuf/ files of a real signed build of a one-file catalog, and its key."""
    new_key_file(tmp_path / "key.pem")
    key = SigningKey.from_file(tmp_path / "key.pem")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "skills.json").write_text("{}")
    files, _ = sign_catalog(tmp_path / "site", Signing(key), Previous({}, {}), published=[])
    return files, key


def open_with(files: dict[str, bytes], key: SigningKey) -> trust.SignedCatalog:
    return verify_metadata(lambda rel: files.get(rel.removeprefix("tuf/")), TrustStore(None), (key.public,), "test")


def flooded(files: dict[str, bytes], signatures: list[dict[str, str]]) -> dict[str, bytes]:
    document = json.loads(files["timestamp.json"])
    document["signatures"] = signatures + document["signatures"]
    return {**files, "timestamp.json": json.dumps(document).encode()}


def test_each_key_id_is_verified_once_and_other_key_ids_never(counted: type[Counted],
                                                              signed: tuple[dict[str, bytes], SigningKey]) -> None:
    """1,000 bad signatures under the catalog's key id before the good one were each verified (a
    host's 280,000 took 31 s of CPU, then the catalog was accepted): python-tuf refuses a second
    signature under one key id, and looks up none of the key ids its role does not list."""
    files, key = signed
    open_with(files, key)
    clean = counted.calls  # the root (on its own keys, then for the trusted key), timestamp, snapshot, targets
    assert clean == 5
    counted.calls = 0
    bad = {"keyid": key.public.keyid, "sig": "00" * 64}
    with pytest.raises(TrustError, match="tuf/timestamp.json carries two signatures under key id"):
        open_with(flooded(files, [bad] * 1000), key)
    assert counted.calls == 2  # the root's, before the timestamp was read
    counted.calls = 0
    others = [{"keyid": f"{n:064x}", "sig": "00" * 64} for n in range(1000)]
    assert open_with(flooded(files, others), key).version > 0
    assert counted.calls == clean


def test_more_signatures_than_any_role_has_keys_are_refused_unchecked(counted: type[Counted],
                                                                      signed: tuple[dict[str, bytes], SigningKey]
                                                                      ) -> None:
    files, key = signed
    most = trust.MAX_SIGNATURES
    others = [{"keyid": f"{n:064x}", "sig": "00" * 64} for n in range(most)]
    with pytest.raises(TrustError, match=f"tuf/timestamp.json carries {most + 1} signatures, more than {most}"):
        open_with(flooded(files, others), key)
    assert counted.calls == 2  # the root's
