"""Keys as people pin them (``ed25519:<base64>``), their TUF key ids, and signing durations."""
from __future__ import annotations

import base64
from datetime import timedelta

import pytest

from skillsite.agent.trust_keys import KeyFormatError, PublicKey, keys_from_environment, read_keys
from skillsite.config_sections import parse_duration, signing_problem

RAW = bytes(range(32))
TEXT = "ed25519:" + base64.b64encode(RAW).decode()


def test_a_key_reads_back_as_written_and_as_tuf_writes_it() -> None:
    key = PublicKey.from_text(TEXT)
    assert key.raw == RAW and key.text == TEXT == str(key)
    assert PublicKey.from_tuf(key.tuf_key()) == key
    assert PublicKey.from_tuf({"keytype": "rsa", "scheme": "rsassa-pss-sha256", "keyval": {"public": "00"}}) is None


def test_the_key_id_is_the_one_securesystemslib_computes() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from securesystemslib.signer import CryptoSigner

    signer = CryptoSigner(Ed25519PrivateKey.generate())
    key = PublicKey(bytes.fromhex(signer.public_key.keyval["public"]))
    assert key.keyid == signer.public_key.keyid


@pytest.mark.parametrize("text, problem", [
    ("EKj3O4lAY/VNLk766PFBEljOes9JTOW2xnIV5T3dUc8=", "does not start with 'ed25519:'"),
    ("ed25519:not base64!", "is not base64"),
    ("ed25519:" + base64.b64encode(b"short").decode(), "holds 5 bytes"),
])
def test_what_is_no_key_is_refused_saying_why(text: str, problem: str) -> None:
    with pytest.raises(KeyFormatError, match=problem):
        PublicKey.from_text(text)


def test_keys_come_comma_separated_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    other = "ed25519:" + base64.b64encode(bytes(32)).decode()
    assert read_keys([f"{TEXT}, {other},", TEXT]) == (PublicKey.from_text(TEXT), PublicKey.from_text(other))
    monkeypatch.setenv("SKILLSITE_TRUSTED_KEYS", f" {other} ,")
    assert keys_from_environment() == (PublicKey.from_text(other),)
    monkeypatch.setenv("SKILLSITE_TRUSTED_KEYS", " ")
    assert keys_from_environment() == ()
    monkeypatch.delenv("SKILLSITE_TRUSTED_KEYS")
    assert keys_from_environment() == ()


@pytest.mark.parametrize("texts", [[""], [" "], [TEXT, ""], [","], ["\n"]])
def test_a_key_given_empty_is_refused_not_dropped(texts: list[str]) -> None:
    """``--trusted-key "$(cat missing.pub)"`` gives an empty key: dropping it turned the check off."""
    with pytest.raises(KeyFormatError, match="a trusted key is empty"):
        read_keys(texts)


@pytest.mark.parametrize("text, duration", [("30d", timedelta(days=30)), ("12h", timedelta(hours=12)),
                                            ("90s", timedelta(seconds=90)), (" 2w ", timedelta(weeks=2)),
                                            ("15m", timedelta(minutes=15))])
def test_durations(text: str, duration: timedelta) -> None:
    assert parse_duration(text) == duration


@pytest.mark.parametrize("text", ["0d", "30", "1y", "-1d", "d", "1.5h"])
def test_what_is_no_duration_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration"):
        parse_duration(text)


def test_the_signing_section_of_the_configuration() -> None:
    assert signing_problem({"expires": "7d"}) is None
    assert "unknown keys: key" in signing_problem({"key": "secret.pem"})
    assert "signing.expires" in signing_problem({"expires": "soon"})
    assert "must be a mapping" in signing_problem("30d")


@pytest.mark.parametrize("texts", [[123], [b"ed25519:AAAA"], [None]])
def test_a_key_that_is_not_text_is_a_type_error_not_an_attribute_error(texts: list) -> None:
    """``trusted_keys=[123]`` raised AttributeError ('int' has no 'split') from inside the reader."""
    with pytest.raises(TypeError, match="a trusted key is text"):
        read_keys(texts)
