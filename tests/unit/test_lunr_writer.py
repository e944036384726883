"""The fast lunr writer gives exactly the bytes lunr.py writes (lunr.py is the reference)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from skillsite.search import lunr_index as index, lunr_reference as reference


def _entry(ref: str, name: str, description: str, tags: list[str], tools: list[dict]) -> dict:
    return {"id": ref, "name": name, "description": description, "tags": tags, "tools": tools}


def _both(entries: list[dict]) -> tuple[bytes, bytes]:
    return reference.lunr_json(reference.build_lunr(entries)), index.lunr_bytes(entries)


def test_the_example_catalog_index_is_lunr_py_s(site):
    entries = json.loads((site / "skills.json").read_bytes())["skills"]
    reference, ours = _both(entries)
    assert ours == reference
    assert json.loads(ours)["fieldVectors"]


def test_edge_cases_match_lunr_py():
    entries = [
        _entry("a", "pdf-tools", "Read and write PDF files -- merge, split; the a an of", ["pdf", "docs"], []),
        _entry("b/c", "c", "   ", [], [{"name": "Bash", "purpose": "run it"}]),
        _entry("d", "d", "Café — naïve façade 日本語 ＡＢＣ emoji 🎉 ‐dash\u00a0nbsp\u2003em-space", ["x-y"], []),
        _entry("e", "e", "deploy deploying deployed deploys ---- -- - ... !!! (x) [y]", [], []),
        _entry("f", "f", "", [], []),
        _entry("g", "g", "l'été, l’intelligence, rock'n'roll, v2.0, well‐known, emoji🎉🎉party, _private", ["it's"], []),
    ]
    reference, ours = _both(entries)
    assert ours == reference


def test_real_skills_index_is_lunr_py_s(real_skills):
    from skillsite.source.catalog import read_catalog
    from skillsite.publish.manifest import skill_entry
    from skillsite.config import SiteConfig

    reading = read_catalog([real_skills.path])
    entries = [skill_entry(s, [], "0" * 64, [], SiteConfig(), str(real_skills.path)).to_json()
               for s in reading.skills]
    assert len(entries) == real_skills.skills - real_skills.left_out
    reference, ours = _both(entries)
    assert ours == reference


# Any character a SKILL.md can hold: lone surrogates cannot come out of strict UTF-8 decoding, and
# PyYAML rejects them as escapes.
_CHARACTERS = "abcxyz AEIOU-_.,;:!?'\"()[]\t\n\u00a0\u2003\u2010\u2019éßİ日🎉0123456789"
_text = st.text(alphabet=st.sampled_from(list(_CHARACTERS)) | st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_text, _text, st.lists(_text, max_size=3)), min_size=1, max_size=8))
def test_random_documents_match_lunr_py(docs):
    entries = [_entry(f"s{i}", name or f"s{i}", description, tags, [])
               for i, (name, description, tags) in enumerate(docs)]
    reference, ours = _both(entries)
    assert ours == reference


def test_the_stop_words_are_lunr_s():
    from lunr.stop_word_filter import WORDS

    from skillsite.search.terms import STOP_WORDS

    assert STOP_WORDS == frozenset(WORDS)


@pytest.mark.parametrize("text, indexed", [
    ("Deploy to AWS/GCP/Azure.", "Deploy to AWS/GCP/Azure. AWS GCP Azure"),
    ("edit mcp.json (CI/CD) snake_case", "edit mcp.json mcp json (CI/CD) CI CD snake_case snake case"),
    ("user's guide, 100% done, n+1, v1.2.3, x-y.z", "user's user guide, 100% done, n+1, v1.2.3, v1 x-y.z"),
    ("business-growth café/thé", "business-growth café/thé café thé"),
    ("l'été l’intelligence rock'n'roll", "l'été été l’intelligence intelligence rock'n'roll rock roll"),
    ("v2.0 well‐known emoji🎉🎉party", "v2.0 v2 well‐known well known emoji🎉🎉party emoji party 🎉🎉"),
    ("it's (done) «bonjour» ready🚀", "it's (done) «bonjour» ready🚀 🚀"),
])
def test_a_word_joined_by_punctuation_is_indexed_with_its_parts(text: str, indexed: str) -> None:
    """After a word (as lunr cuts text: at spaces and hyphens), the words `skillsite search` cuts
    it into (terms.words: two characters or more, no stop word) unless that is the trimmed word
    itself: "été" in "l'été", "v2" in "v2.0" are terms of the CLI, so the page must hold them too."""
    assert index.with_word_parts(text) == indexed


def test_word_parts_of_a_huge_word_are_read_once() -> None:
    """A 200,000-letter word with no punctuation (a hostile description) comes back as it is; the
    first pattern backtracked over it once per letter."""
    word = "a" * 200_000
    assert index.with_word_parts(f"{word}.") == f"{word}."
    assert index.with_word_parts("ab/" * 50_000) == " ".join(["ab/" * 50_000] + ["ab"] * 50_000)
