"""Exfiltration: credential stores read next to a network send (SK620, SK621), and Markdown
images or links whose URL carries variables or secrets (SK622).

Reading one named secret to call its own API is everyday code, so only stores that hold many
secrets count (SSH keys, cloud credential files, keychain dumps, browser profiles, the whole
environment); a ``.env`` file read next to a send is medium.  In a script the read and the send
may be anywhere in the file; in Markdown they must be within a few lines of each other.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterator

from skillsite.audit.hit import Hit
from skillsite.audit.text import Document, Gate, gate

_I = re.IGNORECASE
_HOME = r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/[\w.-]+|/Users/[\w.-]+|/root|" \
        r"expanduser\(\s*[\"']~|Path\.home\(\)\s*/\s*[\"']|homedir\(\)\s*,\s*[\"']|os\.homedir\(\),\s*[\"'])"

#: (pattern, label, bulk): bulk stores are medium even without a send.
_STORE_WORDS = (".ssh", "id_", ".aws", "gcloud", ".azure", ".kube", ".docker", ".netrc .git-credentials .pypirc",
                ".npmrc", "hosts.yml", "keychain", "find-", "logins.json key4.db cookies.sqlite",
                "chrome chromium brave edge firefox", "wallet .bitcoin .ethereum exodus .electrum solana metamask", "/etc/shadow", "_history",
                "environ", "env")
_STORES: list[tuple[Gate, str, bool]] = [(gate(p, words), label, bulk)
                                         for words, (p, label, bulk) in zip(_STORE_WORDS, (
    (rf"{_HOME}[/\\]?\.ssh\b(?![/\\](?:config|known_hosts|authorized_keys)\b|[/\\]id_\w+\.pub)", "SSH keys", False),
    (r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)", "an SSH private key", False),
    (r"\.aws[/\\]credentials\b", "AWS credentials", False),
    (r"\.config[/\\]gcloud[/\\](?:credentials|application_default_credentials|access_tokens|legacy_credentials)",
     "Google Cloud credentials", False),
    (r"\.azure[/\\](?:accessTokens\.json|msal_token_cache)", "Azure tokens", False),
    (r"\.kube[/\\]config\b", "the Kubernetes config", False),
    (r"\.docker[/\\]config\.json\b", "Docker registry credentials", False),
    (r"(?<![\w.\\-])\.(?:netrc|git-credentials|pypirc)\b", "a credentials file", False),
    (r"(?<![\w.\\-])\.npmrc\b", "npm credentials", False),
    (r"\.config[/\\]gh[/\\]hosts\.yml", "GitHub CLI tokens", False),
    (r"\bsecurity\s+dump-keychain\b|\blogin\.keychain(?:-db)?\b", "the macOS keychain", True),
    (r"\bsecurity\s+find-(?:generic|internet)-password\b(?![^\n]{0,2000}\s-s\s)", "the macOS keychain", False),
    (r"\b(?:logins\.json|key4\.db|cookies\.sqlite)\b", "a browser profile", True),
    (r"(?:Google[/\\]Chrome|google-chrome|chromium|BraveSoftware|Microsoft[/\\]Edge|\.mozilla[/\\]firefox|"
     r"Firefox[/\\]Profiles)[^\n]{0,80}\b(?:Cookies|Login Data|Local State|Web Data)\b", "a browser profile", True),
    (r"\bwallet\.dat\b|\.bitcoin[/\\]|\.ethereum[/\\]keystore|\bExodus[/\\]|\.electrum[/\\]|"
     r"solana[/\\]id\.json|MetaMask", "a crypto wallet", True),
    (r"/etc/shadow\b", "/etc/shadow", True),
    (r"\.(?:bash|zsh)_history\b", "shell history", False),
    (r"/proc/(?:self|\d+)/environ\b", "the process environment", True),
    (r"(?<![^\s;&|(`$])printenv\s*(?:$|[|>;)`])|(?<![^\s;&(`])env\s*(?:\||>)|\$\(\s*(?:env|printenv)\s*\)|"
     r"json\.dumps\(\s*(?:dict\(\s*)?os\.environ\b|str\(\s*os\.environ\s*\)|dict\(\s*os\.environ\s*\)|"
     r"JSON\.stringify\(\s*process\.env\s*[,)]|Object\.(?:entries|keys|values)\(\s*process\.env\s*\)|"
     r"\bGet-ChildItem\s+env:|\bgci\s+env:|\bENV\.to_h\b", "the whole environment", False),
))]
_DOTENV = gate(
    r"(?:\b(?:cat|type|less|more|head|tail|base64|gzip|tar\s+\S+)\s+(?:-\S+\s+)*[\"']?[\w./~$-]*\.env\b(?!\.example|"
    r"\.sample|\.template)|open\(\s*[\"'][^\"'\n]*\.env[\"']|readFileSync\(\s*[\"'`][^\"'`\n]*\.env[\"'`]|"
    r"Path\(\s*[\"'][^\"'\n]*\.env[\"']\s*\)\.read|Get-Content\s+[\"']?[\w./\\~$-]*\.env\b)", ".env")

#: In Markdown a store counts only when the line reads or moves it (prose also names files it
#: never touches: "aws configure writes ~/.aws/credentials").
_READS = re.compile(r"\b(?:cat|type|less|more|head|tail|open|read\w*|load\w*|cp|copy|tar|zip|base64|xxd|"
                    r"upload\w*|send\w*|post\w*|exfiltrat\w*|collect\w*|grab\w*|harvest\w*|steal\w*|dump\w*|"
                    r"include|attach\w*|print\w*|output|contents?|encode\w*|archive|pack|sync|extract\w*|"
                    r"scp|rsync|sftp|nc|ncat|socat)\b|[@<]\s*~|(?:^|[\s=])@\s*[~$/.\w]|<\s*[$/]",
                    re.IGNORECASE)
#: Stores named by the command that reads them (dumping the environment or the keychain): in
#: Markdown such a line reads them whatever else it says, which counts with a send on the same
#: line (``env | curl -d @- ...``, SK620); alone it is the everyday ``env | grep PATH``.
_COMMANDS = frozenset({"the whole environment", "the macOS keychain"})
#: Lines that use an SSH key the ordinary way (generate, add to the agent, connect with it).
_SSH_USE = re.compile(r"\bssh-(?:keygen|add|copy-id)\b|\bchmod\b|\bssh\s+(?:-\w+\s+)*-i\b|\bIdentityFile\b|"
                      r"\bscp\s+-i\b|GIT_SSH_COMMAND", re.IGNORECASE)
_LOCAL = re.compile(r"^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|::1)$", _I)
_URL = re.compile(r"\b(?:https?|ftp|wss?)://([^/\s\"'`<>)\]:]+)", _I)
_SENDS = [re.compile(p, _I) for p in (
    r"\b(?:curl|wget|http|https|xh|aria2c)\b[^\n]*",
    r"\brequests\.(?:post|put|patch|get|request)\s*\(|\bhttpx\.(?:post|put|get|Client|AsyncClient)\b|"
    r"\burllib\.request\b|\burlopen\s*\(|\bhttp\.client\.HTTPS?Connection\b|\baiohttp\.ClientSession\b|"
    r"\bfetch\s*\(|\baxios(?:\.\w+)?\s*\(|\bXMLHttpRequest\b|\bnavigator\.sendBeacon\b|\bhttps?\.request\s*\(",
    r"\bnc\s+(?:-\w+\s+)*[\w.-]+\s+\d{2,5}\b|/dev/tcp/|\bscp\s|\brsync\s[^\n]{0,500}\w@[\w.-]+:|\bsftp\s|"
    r"\bInvoke-(?:WebRequest|RestMethod)\b|\b(?:iwr|irm)\s|\bsocket\.(?:socket|create_connection)\b|"
    r"\bsmtplib\.SMTP|\bftplib\.FTP|\bnslookup\s[^\n]{0,500}\$\(|\bdig\s[^\n]{0,500}\$\(|\bNet\.WebClient\b",
    r"discord(?:app)?\.com/api/webhooks|hooks\.slack\.com/|webhook\.site|requestbin|pipedream\.net|"
    r"ngrok(?:-free)?\.(?:io|app)|interact\.sh|burpcollaborator|\boast\.\w+",
    r"\b(?:send|upload|post|transmit|forward|exfiltrate|submit|beam|report)\b[^.\n]{0,100}\bto\b[^.\n]{0,40}"
    r"(?:https?://|webhook|endpoint|server|remote\s+host|collector)",
)]
_NEAR_LINES = 6

_MD_URL = re.compile(r"(!?)\[[^\]\n]{0,200}\]\(\s*<?((?:https?:)?//[^)\s>]+)|^\s*\[[^\]\n]+\]:\s*<?(https?://\S+)",
                     re.MULTILINE | _I)
#: What every match of _MD_URL holds: a search that skips straight to "]".
_MD_URL_HINT = re.compile(r"\]\(\s*<?(?:https?:)?//|\]:\s*<?https?://", _I)
_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?|\{\{[^}]*\}\}|%24%7B|%7B%7B|\{[A-Za-z_]\w*\}|<[A-Z_]{3,}>|"
                       r"\[[A-Z_]{3,}\]|process\.env|os\.environ", _I)
_SECRETISH = re.compile(r"key|token|secret|pass(?:word|wd)?|cred|cookie|session|auth|ssh|env|histor|"
                        r"conversation|chat|prompt|memory|private|data", _I)


def _remote(segment: str) -> bool:
    """Whether a send names a host other than this machine (or names none, e.g. ``requests.post(url)``)."""
    hosts = [m.group(1) for m in _URL.finditer(segment)]
    return not hosts or any(not _LOCAL.match(h) for h in hosts)


def _sends(doc: Document) -> list[int]:
    """Folded offsets of the network sends in a document."""
    found = []
    for pattern in _SENDS:
        for match in pattern.finditer(doc.folded):
            if pattern is _SENDS[0] and not (_URL.search(match.group()) or re.search(
                    r"\s(?:-d|--data\S*|-F|--form|-T|--upload-file|--post-(?:data|file))\b", match.group())):
                continue  # a curl with neither a URL nor data is prose
            if _remote(match.group()):
                found.append(match.start())
    return sorted(found)


def _line_of(doc: Document, folded_offset: int) -> int:
    return bisect.bisect_right(doc.line_starts, doc.original(folded_offset))


@dataclass(frozen=True)
class _Read:
    """A credential store read: where, what, and how it counts."""

    start: int
    end: int
    label: str
    bulk: bool          # a store of many secrets: medium even alone
    weak: bool          # a .env file: medium next to a send, nothing alone
    reach: int          # how many lines away a send may be (in a script: anywhere)
    alone: bool         # reported (SK621) without a send


def _line_verdicts(doc: Document, folded_offset: int, known: dict[int, tuple[bool, bool]]) -> tuple[bool, bool]:
    """Whether the line at ``folded_offset`` reads or moves a file (:data:`_READS`), and whether it
    uses an SSH key the ordinary way; each line is read once (``known``, by line number)."""
    offset = doc.original(folded_offset)
    line, _ = doc.position(offset)
    if line not in known:
        text = doc.line_text(offset)
        known[line] = (_READS.search(text) is not None, _SSH_USE.search(text) is not None)
    return known[line]


def _reads(doc: Document) -> list[_Read]:
    """The credential stores a document reads."""
    found = []
    verdicts: dict[int, tuple[bool, bool]] = {}
    for pattern, label, bulk in _STORES:
        for match in pattern.finditer(doc):
            reads, uses_ssh = _line_verdicts(doc, match.start(), verdicts)
            if label.startswith(("SSH", "an SSH")) and uses_ssh:
                continue
            if doc.kind == "code" or reads:
                found.append(_Read(match.start(), match.end(), label, bulk, False, _NEAR_LINES, True))
            elif label in _COMMANDS:  # env | curl ...: only with the send on its line
                found.append(_Read(match.start(), match.end(), label, bulk, False, 0, False))
    for match in _DOTENV.finditer(doc):
        found.append(_Read(match.start(), match.end(), "a .env file", False, True, _NEAR_LINES, False))
    return sorted(found, key=lambda read: (read.start, read.end))


def check_credentials(doc: Document) -> Iterator[Hit]:
    """SK620 and SK621: credential stores, alone or with a send nearby."""
    reads = _reads(doc)
    if not reads:
        return
    sends = _sends(doc)
    send_lines = [_line_of(doc, s) for s in sends]
    reported: set[int] = set()
    for read in reads:
        line = _line_of(doc, read.start)
        if line in reported:
            continue
        i = bisect.bisect_left(send_lines, line - read.reach)
        if i < len(send_lines) and send_lines[i] <= line + read.reach:
            nearest: int | None = sends[i]
        else:
            nearest = sends[0] if doc.kind == "code" and sends else None
        if nearest is not None:
            reported.add(line)
            yield Hit("SK620", read.start, read.end, f": {read.label}", severity="medium" if read.weak else None,
                      related=nearest)
        elif read.alone:
            reported.add(line)
            yield Hit("SK621", read.start, read.end, f": {read.label}", severity="medium" if read.bulk else "low")


def check_markdown_urls(doc: Document) -> Iterator[Hit]:
    """SK622: an image URL with any variable, or a link URL with a secret-looking one."""
    if doc.kind not in ("skill", "markdown") or _MD_URL_HINT.search(doc.folded) is None:
        return
    for match in _MD_URL.finditer(doc.folded):
        image = match.group(1) == "!"
        url = match.group(2) or match.group(3)
        host = _URL.match("https:" + url if url.startswith("//") else url)
        if host and _LOCAL.match(host.group(1)):
            continue
        variables = [v.group() for v in _VARIABLE.finditer(url)]
        if not variables:
            continue
        query = url.split("?", 1)[1] if "?" in url else ""
        secret = any(_SECRETISH.search(v) for v in variables) or bool(query and _SECRETISH.search(query))
        in_query = bool(query and _VARIABLE.search(query))
        if secret or image and in_query:
            kind = "image" if image else "link"
            yield Hit("SK622", match.start(), match.end(), f" ({kind} URL with {variables[0]})")


def check_exfil(doc: Document) -> Iterator[Hit]:
    """SK620-SK622 in one document."""
    yield from check_credentials(doc)
    yield from check_markdown_urls(doc)
