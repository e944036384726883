"""A private key block is found whatever its size and whatever follows it (SK651).  Its pattern
reads the block's first 400 characters; it used to require ``-----END`` or the end of the text
within them, so a 2048-bit RSA key (1,600 characters) with text after it, or a short document
ending with one, held no match: the key was found only in a long document, where the window
around the header ended a line later and ``\\Z`` matched the end of that window."""
from __future__ import annotations

import random
import string

import pytest

from skillsite.audit.engine import audit_document
from skillsite.audit.text import WINDOWED

FILLER = "Plain reference text about deployments and logs.\n"


def rsa_key(seed: int) -> str:
    """A PEM block the size of a 2048-bit RSA key: 1,600 characters of base64 in lines of 64."""
    chance = random.Random(seed)
    body = "".join(chance.choice(string.ascii_letters + string.digits + "+/") for _ in range(1600))
    lines = "\n".join(body[at:at + 64] for at in range(0, len(body), 64))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{lines}\n-----END RSA PRIVATE KEY-----\n"


@pytest.mark.parametrize("before, after", [("", ""), ("", FILLER * 3), (FILLER, FILLER),
                                           (FILLER * (WINDOWED // 40), FILLER * (WINDOWED // 40))])
@pytest.mark.parametrize("path", ["assets/id_rsa", "references/setup.md"])
def test_a_full_size_private_key_is_found(before, after, path):
    findings = [(f.code, f.line) for f in audit_document(path, before + rsa_key(7) + after)]
    assert findings == [("SK651", before.count("\n") + 1)]



def test_a_key_after_a_header_without_a_block_is_found():
    """A header left without its block (a template, an example cut short) does not take in the key
    after it: each block's body stops at the next header as at its own end."""
    text = "-----BEGIN RSA PRIVATE KEY-----\n...\n\n" + rsa_key(7) + FILLER * 3
    assert [(f.code, f.line) for f in audit_document("references/setup.md", text)] == [("SK651", 4)]


def test_every_random_key_is_found_and_placeholders_are_not():
    """Random base64 holds a short placeholder word (``123``, ``test``, ``your``) by chance: about
    one 2048-bit key in 360 was dropped as a placeholder.  In a line of key material only a long
    one (or a run of one character) tells a placeholder; in another line any one does."""
    found = sum(bool(audit_document("assets/id_rsa", rsa_key(seed))) for seed in range(2000))
    assert found == 2000
    lines = rsa_key(7).splitlines()
    for placeholder in (lines[1][:20] + "EXAMPLEKEY" + lines[1][30:], lines[1][:30] + "xxxxxxxxxx" + lines[1][40:]):
        assert not audit_document("assets/id_rsa", "\n".join([lines[0], placeholder, *lines[2:]]))
    assert not audit_document("assets/id_rsa", "\n".join([lines[0], "(your key here)", *lines[1:]]))
