"""skills.json is written with a stand-in digest, beside the digest's computation, and the digest
is written over the stand-in afterwards: the bytes must be exactly json.dumps's, and the offset
exactly where the digest's text is, whatever the site's texts hold."""
from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from skillsite.manifest import DIGEST_PLACEHOLDER, manifest_bytes

REAL_DIGEST = "sha256:" + "ab" * 32


def _manifest(title: str, generated_at: str | None) -> dict:
    return {"$schema": "skills.schema.json", "format": "skillsite.skills", "format_version": 1,
            "generator": {"name": "skillsite", "version": "0"}, "generated_at": generated_at,
            "site": {"title": title, "description": f'"digest":"{DIGEST_PLACEHOLDER}"'},
            "digest": DIGEST_PLACEHOLDER, "counts": {"skills": 1},
            "skills": [{"id": "a", "name": title, "digest": DIGEST_PLACEHOLDER}], "search": None}


@settings(max_examples=300, deadline=None)
@given(st.text(), st.none() | st.text())
def test_the_digest_lands_where_json_dumps_puts_it(title, generated_at):
    data = _manifest(title, generated_at)
    payload, offset = manifest_bytes(data)
    assert payload == (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    patched = payload[:offset] + REAL_DIGEST.encode("ascii") + payload[offset + len(REAL_DIGEST):]
    assert json.loads(patched) == {**data, "digest": REAL_DIGEST}


def test_a_manifest_that_starts_with_its_digest():
    payload, offset = manifest_bytes({"digest": DIGEST_PLACEHOLDER, "skills": []})
    assert payload[offset:offset + len(DIGEST_PLACEHOLDER)] == DIGEST_PLACEHOLDER.encode("ascii")
    assert offset == len('{"digest":"')
