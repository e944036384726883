"""Secrets: hard-coded tokens and keys (SK650) and private key blocks (SK651).

Only token shapes with a fixed, documented prefix (and passwords in URLs) are matched, and a
token whose random part looks like a placeholder (``EXAMPLE``, ``xxxx``, ``password123``,
repeated or sequential characters, low entropy) is ignored, so documentation that says "tokens
look like ghp_..." or shows ``postgresql://admin:password123@db`` stays quiet.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterator

from skillsite.audit.hit import Hit
from skillsite.audit.text import Document, Gate, gate

#: (label, pattern with the random part as group "body", severity override or None)
_TOKEN_WORDS = ("akia asia agpa aida aroa aipa anpa anva", "secret", "ghp_ gho_ ghu_ ghs_ ghr_", "github_pat_", "glpat-",
                "xox", "hooks.slack.com", "aiza", "t3blbkfj", "sk-proj-", "sk-ant-", "k_live_", "sg.", "npm_",
                "pypi-", "hf_", "discord", ":aa", "://")
_TOKENS: list[tuple[str, Gate, str | None]] = [(label, gate(p, words, flags=0), sev)
                                              for words, (label, p, sev) in zip(_TOKEN_WORDS, (
    ("AWS access key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)(?P<body>[0-9A-Z]{16})\b", "medium"),
    ("AWS secret access key", r"(?i:aws_?secret_?(?:access_?)?key)[\"']?\s*[:=]\s*[\"']?(?P<body>[A-Za-z0-9/+=]{40})"
                              r"(?![A-Za-z0-9/+=])", None),
    ("GitHub token", r"\bgh[pousr]_(?P<body>[A-Za-z0-9]{36})\b", None),
    ("GitHub fine-grained token", r"\bgithub_pat_(?P<body>[A-Za-z0-9_]{82})\b", None),
    ("GitLab token", r"\bglpat-(?P<body>[A-Za-z0-9_-]{20})\b", None),
    ("Slack token", r"\bxox[baprs]-(?P<body>[0-9]{8,13}-[0-9A-Za-z-]{10,})", None),
    ("Slack webhook", r"https://hooks\.slack\.com/services/(?P<body>T[A-Z0-9]{8,}/B[A-Z0-9]{8,}/[A-Za-z0-9]{24})",
     None),
    ("Google API key", r"\bAIza(?P<body>[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])", None),
    ("OpenAI key", r"\bsk-(?:proj-|svcacct-|admin-)?(?P<body>[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})", None),
    ("OpenAI key", r"\bsk-proj-(?P<body>[A-Za-z0-9_-]{40,})", None),
    ("Anthropic key", r"\bsk-ant-(?:api|admin)\d{2}-(?P<body>[A-Za-z0-9_-]{80,})", None),
    ("Stripe live key", r"\b[sr]k_live_(?P<body>[0-9A-Za-z]{24,})\b", None),
    ("SendGrid key", r"\bSG\.(?P<body>[\w-]{22}\.[\w-]{43})\b", None),
    ("npm token", r"\bnpm_(?P<body>[A-Za-z0-9]{36})\b", None),
    ("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc(?P<body>[A-Za-z0-9_-]{50,})", None),
    ("Hugging Face token", r"\bhf_(?P<body>[A-Za-z]{34})\b", None),
    ("Discord webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/(?P<body>[\w-]{60,70})",
     None),
    ("Telegram bot token", r"(?<![\w:])\d{8,10}:(?P<body>AA[\w-]{33})(?![\w-])", None),
    # user:password@host in a URL (a connection string); starts at "://", which the search skips to
    ("password in a URL", r"://[^\s:/@\"'`<>(){}\[\]]{1,64}:(?P<body>[^\s:/@\"'`<>(){}\[\]$%]{8,128})@"
                          r"(?P<host>[\w-]+(?:\.[\w-]+)*)", None),
))]
_PRIVATE_KEY = gate(r"-----BEGIN (?:(?:RSA|DSA|EC|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----"
                          r"(?P<body>[\s\S]{0,400}?)(?:-----END|\Z)", "private key", flags=0)
#: Hosts of a local or development setup: this machine, or a bare service name (``db``).
_LOCAL_HOST = re.compile(r"^(?:localhost|127\.[\d.]+|0\.0\.0\.0|[\w-]+)$", re.IGNORECASE)
_KEY_MATERIAL = re.compile(r"^[A-Za-z0-9+/=]{40,}\s*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"example|sample|dummy|fake|placeholder|your|redacted|xxxx|0000|123|abcd|test|"
                          r"password|passwd|secret|changeme|letmein|qwerty", re.I)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values()) if text else 0.0


def placeholder(body: str) -> bool:
    """Whether the random part of a token is obviously made up."""
    return (_PLACEHOLDER.search(body) is not None or re.search(r"(.)\1{5,}", body) is not None
            or entropy(body) < 3.0)


def check_secrets(doc: Document) -> Iterator[Hit]:
    """SK650 and SK651 in one document."""
    for label, pattern, severity in _TOKENS:
        for match in pattern.finditer(doc):
            if not placeholder(match.group("body")):
                if "host" in pattern.pattern.groupindex and _LOCAL_HOST.match(match.group("host")):
                    severity = "medium"  # a password for a database on this machine or in a compose file
                yield Hit("SK650", match.start(), match.end(), f": {label}", severity=severity)  # type: ignore[arg-type]
    for match in _PRIVATE_KEY.finditer(doc):
        body = match.group("body")
        if _KEY_MATERIAL.search(body) and "..." not in body and not _PLACEHOLDER.search(body):
            yield Hit("SK651", match.start(), match.start() + 40)
