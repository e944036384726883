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
from dataclasses import replace

from skillsite.audit.declare import NEVER, Pattern, pattern, rule
from skillsite.audit.hit import Hit
from skillsite.audit.model import SeverityName
from skillsite.audit.text import Document

#: Hosts of a local or development setup: this machine, or a bare service name (``db``).
_LOCAL_HOST = re.compile(r"^(?:localhost|127\.[\d.]+|0\.0\.0\.0|[\w-]+)$", re.IGNORECASE)
_KEY_MATERIAL = re.compile(r"^[A-Za-z0-9+/=]{40,}\s*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"example|sample|dummy|fake|placeholder|your|redacted|xxxx|0000|123|abcd|test|"
                          r"password|passwd|secret|changeme|letmein|qwerty", re.I)
_REPEATED = re.compile(r"(.)\1{5,}")
#: The placeholder words that tell a line of key material (base64) apart: random base64 holds a
#: short word such as ``123``, ``test`` or ``xXxX`` by chance (one 2048-bit key in 360 within its
#: first 400 characters), a word of five letters or more about never (six of one character, as
#: :data:`_REPEATED` finds them, neither).
_MATERIAL_PLACEHOLDER = re.compile(r"example|sample|dummy|placeholder|redacted|password|passwd|secret|changeme|"
                                   r"letmein|qwerty", re.I)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values()) if text else 0.0


def placeholder(body: str) -> bool:
    """Whether the random part of a token is obviously made up."""
    return (_PLACEHOLDER.search(body) is not None or _REPEATED.search(body) is not None or entropy(body) < 3.0
            or _counts_up(body))


#: How many letters (or digits) in a row, each the one after the last, make a token's letters (or
#: digits) a count, not random: "A1B2C3D4E5F6..." holds ABCDEF.  A random token's letters or digits
#: count up so far less than once in a million tokens (none in 300,000 of 35 characters).
_COUNTED_LETTERS, _COUNTED_DIGITS = 6, 7


def _counts_up(body: str) -> bool:
    """Whether the letters of ``body`` (or its digits), read apart from the rest, count up."""
    return (_longest_count([c for c in body if c.isascii() and c.isalpha()]) >= _COUNTED_LETTERS
            or _longest_count([c for c in body if c.isascii() and c.isdigit()]) >= _COUNTED_DIGITS)


def _longest_count(chars: list[str]) -> int:
    """The longest run of ``chars`` each one code point after the one before ("9" then "0" too)."""
    longest = run = min(1, len(chars))
    for before, after in zip(chars, chars[1:]):
        run = run + 1 if ord(after) - ord(before) == 1 or (before, after) == ("9", "0") else 1
        longest = max(longest, run)
    return longest


def _token(label: str, source: str, severity: SeverityName | None = None,
           hopeless: tuple[str, str] | None = None) -> Pattern:
    """A token shape (case-sensitive) with its random part as group ``body``; ``hopeless``: its
    start and the run of token characters after it, passed over whole where the shape fails
    (no later start inside the run can succeed, and none reaches past it: see
    :func:`~skillsite.audit.text.make_gate`)."""
    return pattern(source, flags=0, detail=f": {label}", severity=severity, hopeless=hopeless, restarts=False)


#: An OpenAI key's start.  Its marker ``T3BlbkFJ`` is looked for inside the run of token characters
#: after it; a later start inside a run where an earlier one failed has less of that run to match.
_OPENAI_START = r"\bsk-(?:proj-|svcacct-|admin-)?"
#: Any run of the characters a token is made of.
_TOKEN_RUN = r"[A-Za-z0-9_-]*"


@rule("SK650", "secrets", "high", "hard-coded token or key",
      "A live-looking API token (AWS, GitHub, Slack, Google, OpenAI, Anthropic, Stripe ...) published "
      "in a skill is leaked; placeholders and documented example keys are ignored. An AWS key id alone is "
      "medium. Never demoted: a key in an example is leaked all the same.", demotion=NEVER, patterns=(
          _token("AWS access key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)(?P<body>[0-9A-Z]{16})\b",
                 "medium"),
          _token("AWS secret access key", r"(?i:aws_?secret_?(?:access_?)?key)[\"']?\s*[:=]\s*[\"']?"
                 r"(?P<body>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
          _token("GitHub token", r"\bgh[pousr]_(?P<body>[A-Za-z0-9]{36})\b"),
          _token("GitHub fine-grained token", r"\bgithub_pat_(?P<body>[A-Za-z0-9_]{82})\b"),
          _token("GitLab token", r"\bglpat-(?P<body>[A-Za-z0-9_-]{20})\b"),
          _token("Slack token", r"\bxox[baprs]-(?P<body>[0-9]{8,13}-[0-9A-Za-z-]{10,})"),
          _token("Slack webhook", r"https://hooks\.slack\.com/services/(?P<body>T[A-Z0-9]{8,}/B[A-Z0-9]{8,}/"
                 r"[A-Za-z0-9]{24})"),
          _token("Google API key", r"\bAIza(?P<body>[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"),
          _token("OpenAI key", _OPENAI_START + r"(?P<body>[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})",
                 hopeless=(_OPENAI_START, _TOKEN_RUN)),
          _token("OpenAI key", r"\bsk-proj-(?P<body>[A-Za-z0-9_-]{40,})"),
          _token("Anthropic key", r"\bsk-ant-(?:api|admin)\d{2}-(?P<body>[A-Za-z0-9_-]{80,})"),
          _token("Stripe live key", r"\b[sr]k_live_(?P<body>[0-9A-Za-z]{24,})\b"),
          _token("SendGrid key", r"\bSG\.(?P<body>[\w-]{22}\.[\w-]{43})\b"),
          _token("npm token", r"\bnpm_(?P<body>[A-Za-z0-9]{36})\b"),
          _token("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc(?P<body>[A-Za-z0-9_-]{50,})"),
          _token("Hugging Face token", r"\bhf_(?P<body>[A-Za-z]{34})\b"),
          _token("Discord webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/"
                 r"(?P<body>[\w-]{60,70})"),
          _token("Telegram bot token", r"(?<![\w:])\d{8,10}:(?P<body>AA[\w-]{33})(?![\w-])"),
          # user:password@host in a URL (a connection string); starts at "://", which the search skips to
          _token("password in a URL", r"://[^\s:/@\"'`<>(){}\[\]]{1,64}:(?P<body>[^\s:/@\"'`<>(){}\[\]$%]{8,128})@"
                 r"(?P<host>[\w-]+(?:\.[\w-]+)*)"),
      ))
def hard_coded_token(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Not a placeholder; a password for a database on this machine or in a compose file is medium."""
    if placeholder(match.group("body")):
        return None
    if "host" in match.re.groupindex and _LOCAL_HOST.match(match.group("host")):
        return replace(hit, severity="medium")
    return hit


@rule("SK651", "secrets", "high", "private key block",
      "A PEM or OpenSSH private key with key material in it is a leaked secret. Never demoted: a key in "
      "an example is leaked all the same.", demotion=NEVER,
      patterns=(pattern(r"-----BEGIN (?:(?:RSA|DSA|EC|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----"
                        r"(?P<body>(?:(?!-----(?:END|BEGIN))[\s\S]){0,400})(?:-----END)?", flags=0),))
def private_key(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Key material in the block (not "..." or a placeholder); reported at its first line."""
    body = match.group("body")
    if _KEY_MATERIAL.search(body) and "..." not in body and not _placeholder_key(body):
        return replace(hit, end=match.start() + 40)
    return None


def _placeholder_key(body: str) -> bool:
    """Whether a key block's body says it is a placeholder: a placeholder word in a line that is
    not key material, or a long one (:data:`_MATERIAL_PLACEHOLDER`) or a run of one character in
    one that is."""
    return any(_MATERIAL_PLACEHOLDER.search(line) or _REPEATED.search(line) if _KEY_MATERIAL.fullmatch(line)
               else _PLACEHOLDER.search(line) for line in body.splitlines())
