"""SK620/SK621: a document the one-pass search for literals admits to none of the credential store
and .env patterns is passed over without a look at each of them (most documents): the reads found
are those found by looking at every pattern, as before."""
from __future__ import annotations

import random

import pytest

from skillsite.audit import engine
from skillsite.audit.rules import exfiltration
from skillsite.audit.rules.exfiltration import STORES, _read_slots, _reads
from skillsite.audit.text import make_document

#: Store names, reads, .env files, near misses and filler.
PIECES = ["~/.ssh/id_rsa", "cat", "$HOME/.ssh", "id_ed25519.pub", ".aws/credentials", ".kube/config", ".npmrc",
          ".netrc",
          "security dump-keychain", "login.keychain-db", "logins.json", "Google/Chrome/Default/Cookies", "wallet.dat",
          "/etc/shadow", ".bash_history", "/proc/self/environ", "printenv |", "env |", "$(env)", "os.environ",
          "json.dumps(os.environ)", "process.env", "cat .env", "open('.env')", ".env.example", "ssh-keygen", "x",
          "the environment", "environ", "\u0130", "curl -d @- https://x.io", "-" * 50, "README", "use the API",
          "run the tests", "see below"]
SEPARATORS = ["\n", " ", "", "\n\n", "; "]


def test_every_store_and_dotenv_pattern_is_in_the_one_pass_search():
    engine.prepare()
    assert _read_slots() is not None and len(_read_slots()) == len(STORES) + 1


def test_the_reads_are_found_as_before(monkeypatch: pytest.MonkeyPatch):
    engine.prepare()
    chance, texts = random.Random(621), []
    for _ in range(1500):
        texts.append("".join(chance.choice(PIECES) + chance.choice(SEPARATORS) for _ in range(chance.randint(1, 4))))
    docs = [make_document("scripts/run.sh" if number % 2 else "references/notes.md", text)
            for number, text in enumerate(texts)]
    found = [_reads(doc) for doc in docs]
    passed_over = sum(_read_slots().isdisjoint(doc.found.admitted) for doc in docs)  # type: ignore[union-attr]
    monkeypatch.setattr(exfiltration, "_read_slots", lambda: None)  # every pattern looked at
    assert found == [_reads(doc) for doc in docs]
    assert sum(map(bool, found)) > 300 and passed_over > 100
