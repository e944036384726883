"""Exfiltration: credential stores read next to a network send (SK620, SK621), and Markdown
images or links whose URL carries variables or secrets (SK622).

Reading one named secret to call its own API is everyday code, so only stores that hold many
secrets count (SSH keys, cloud credential files, keychain dumps, browser profiles, the whole
environment); a ``.env`` file read next to a send is medium.  In a script the read and the send
may be anywhere in the file (a send that only downloads counts only near the read: it carries
out no more than its URL); in Markdown they must be within a few lines of each other.  Words about
sending ("post it to the endpoint") count only near the read, in a script too: an instruction the
script prints names what to send, a log message far from a pattern list naming a store sends nothing.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, replace
from typing import Iterator, NamedTuple

from skillsite.audit.declare import COMMANDS, Pattern, Rule, check, pattern, rule
from skillsite.audit.hit import Hit
from skillsite.audit.text import Document, Gate, make_gate, paragraph_bounds, white_space_start

CREDENTIALS_SENT = Rule(
    "SK620", "exfiltration", "high", "credentials read and data sent out in the same file",
    "Reading secrets (SSH keys, cloud credentials, keychains, browser profiles, the whole "
    "environment) next to a network send is the shape of credential theft; a .env file alone is "
    "medium.", COMMANDS)
CREDENTIAL_STORE = Rule(
    "SK621", "exfiltration", "medium", "reads a credential store",
    "SSH keys, cloud credential files, keychains and browser profiles are rarely needed by a skill; "
    "reading them is worth a look even without a send in the same file.", COMMANDS)


class Store(NamedTuple):
    """A kind of credential store: what names it, and whether it holds many secrets (then
    medium even without a send)."""

    label: str
    bulk: bool
    pattern: Pattern


_HOME = r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/[\w.-]+|/Users/[\w.-]+|/root|" \
        r"expanduser\(\s*[\"']~|Path\.home\(\)\s*/\s*[\"']|homedir\(\)\s*,\s*[\"']|os\.homedir\(\),\s*[\"'])"
STORES = (
    Store("SSH keys", False, pattern(
        rf"{_HOME}[/\\]?\.ssh\b(?![/\\](?:config|known_hosts|authorized_keys)\b|[/\\]id_\w+\.pub)")),
    Store("an SSH private key", False, pattern(r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)")),
    Store("AWS credentials", False, pattern(r"\.aws[/\\]credentials\b")),
    Store("Google Cloud credentials", False, pattern(
        r"\.config[/\\]gcloud[/\\](?:credentials|application_default_credentials|access_tokens|legacy_credentials)")),
    Store("Azure tokens", False, pattern(r"\.azure[/\\](?:accessTokens\.json|msal_token_cache)")),
    Store("the Kubernetes config", False, pattern(r"\.kube[/\\]config\b")),
    Store("Docker registry credentials", False, pattern(r"\.docker[/\\]config\.json\b")),
    Store("a credentials file", False, pattern(r"(?<![\w.\\-])\.(?:netrc|git-credentials|pypirc)\b")),
    Store("npm credentials", False, pattern(r"(?<![\w.\\-])\.npmrc\b")),
    Store("GitHub CLI tokens", False, pattern(r"\.config[/\\]gh[/\\]hosts\.yml")),
    Store("the macOS keychain", True, pattern(r"\bsecurity\s+dump-keychain\b|\blogin\.keychain(?:-db)?\b")),
    Store("the macOS keychain", False, pattern(
        r"\bsecurity\s+find-(?:generic|internet)-password\b(?![^\n]{0,2000}\s-s\s)")),
    Store("a browser profile", True, pattern(r"\b(?:logins\.json|key4\.db|cookies\.sqlite)\b")),
    Store("a browser profile", True, pattern(
        r"(?:Google[/\\]Chrome|google-chrome|chromium|BraveSoftware|Microsoft[/\\]Edge|\.mozilla[/\\]firefox|"
        r"Firefox[/\\]Profiles)[^\n]{0,80}\b(?:Cookies|Login Data|Local State|Web Data)\b")),
    Store("a crypto wallet", True, pattern(
        r"\bwallet\.dat\b|\.bitcoin[/\\]|\.ethereum[/\\]keystore|(?<!@)\bExodus[/\\]|\.electrum[/\\]|"
        r"solana[/\\]id\.json|(?<![@/.])\bMetaMask\b(?!\.(?:app\.link|io)\b)|nkbihfbeogaeaoehlefnkodbefgpgknn")),
    Store("/etc/shadow", True, pattern(r"/etc/shadow\b")),
    Store("shell history", False, pattern(r"\.(?:bash|zsh)_history\b")),
    Store("the process environment", True, pattern(r"/proc/(?:self|\d+)/environ\b")),
    Store("the whole environment", False, pattern(
        r"(?<![^\s;&|(`$])printenv\s*(?:(?m:$)|[|>;)`])|(?<![^\s;&(`])env\s*(?:\||>)|\$\(\s*(?:env|printenv)\s*\)|"
        r"json\.dumps\(\s*(?:dict\(\s*)?os\.environ\b|str\(\s*os\.environ\s*\)|dict\(\s*os\.environ\s*\)|"
        r"JSON\.stringify\(\s*process\.env\s*[,)]|Object\.(?:entries|keys|values)\(\s*process\.env\s*\)|"
        r"\bGet-ChildItem\s+env:|\bgci\s+env:|\bENV\.to_h\b")),
)
#: A command reading a .env file, and the options before the file: read once, not from each of a
#: line of command words read as options (``cat -cat -cat ...``), where it is passed over in one step.
_DOTENV_COMMAND = r"\b(?:cat|type|less|more|head|tail|base64|gzip|tar\s+\S+)\s+"
_DOTENV_OPTIONS = r"(?:-\S+\s+)*"
#: A .env file read by a call: these may start inside the options passed over (``-xopen('.env')``).
_DOTENV_CALLS = (r"open\(\s*[\"'][^\"'\n]*\.env[\"']|readFileSync\(\s*[\"'`][^\"'`\n]*\.env[\"'`]|"
                 r"Path\(\s*[\"'][^\"'\n]*\.env[\"']\s*\)\.read|Get-Content\s+[\"']?[\w./\\~$-]*\.env\b")
#: A .env file read: medium next to a send, nothing alone.
DOTENV = pattern(
    "(?:" + _DOTENV_COMMAND + _DOTENV_OPTIONS + r"[\"']?[\w./~$-]*\.env\b(?!\.example|\.sample|\.template)|"
    + _DOTENV_CALLS + ")", hopeless=(_DOTENV_COMMAND, _DOTENV_OPTIONS), beside=_DOTENV_CALLS)

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
_ENVIRONMENT = "the whole environment"
_COMMANDS = frozenset({_ENVIRONMENT, "the macOS keychain"})
#: Lines that use an SSH key the ordinary way (generate, add to the agent, connect with it).
_SSH_USE = re.compile(r"\bssh-(?:keygen|add|copy-id)\b|\bchmod\b|\bssh\s+(?:-\w+\s+)*-i\b|\bIdentityFile\b|"
                      r"\bscp\s+-i\b|GIT_SSH_COMMAND", re.IGNORECASE)
_LOCAL = re.compile(r"^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|::1)$", re.IGNORECASE)
_URL = re.compile(r"\b(?:https?|ftp|wss?)://([^/\s\"'`<>)\]:]+)", re.IGNORECASE)
#: httpie's ``http`` and ``https`` never before ``:`` or ``/`` (a URL's scheme: ``https://``,
#: ``HTTP/1.1``) nor ``-`` (``http-server``); whether they are run is read after (:func:`_httpie_run`).
_CURL_WORDS = r"\b(?:curl|wget|https?(?![:/-])|xh|aria2c)\b"
_CURL_SOURCE = _CURL_WORDS + r"[^\n]*"
#: An option of curl or wget that sends data: after white space, or quoted as an item of the argument
#: list a script runs (``subprocess.run(["curl", "-d", key, url])``, ``execFile("curl", ["-F", ...])``).
_CURL_DATA = re.compile(r"[\s\"'](?:-d|--data\S*|-F|--form|-T|--upload-file|--post-(?:data|file))\b")


#: Words about sending ("post the file to the endpoint"): searched for as the word followed by the
#: rest (a lookahead, so each word is tried), then matched inside its sentence (:func:`_sentence_send`).
_SENDING_WORD = r"\b(?:send|upload|post|transmit|forward|exfiltrate|submit|beam|report)\b"
_SENDING_REST = r"[^\n]{0,100}\bto\b[^\n]{0,40}(?:https?://|webhook|endpoint|server|remote\s+host|collector)"
_SENDING = re.compile(_SENDING_WORD + _SENDING_REST, re.IGNORECASE)
#: A dot that ends a sentence: one inside a word (a path, ``~/.aws/credentials``, a file or host
#: name) does not.  The words about sending stand in one sentence, and reach this far before what
#: they send to, which holds no dot.
_SENTENCE_END = re.compile(r"\.(?!\S)")
_SENDING_REACH = 160


class _Source(NamedTuple):
    """A pattern of network sends, and whether it is prose: words about sending data ("post the
    file to the endpoint"), not a command or a call."""

    pattern: str
    prose: bool = False


#: What sends data over the network (the first: a curl, wget or httpie command, read to the end of its line).
#: A ``\b`` all the branches of a pattern start with is written once, before them: tried once at
#: each character, not once for each branch (``/dev/tcp/`` starts where none of them can).
_SEND_SOURCES = (
    _Source(_CURL_SOURCE),
    _Source(r"\b(?:requests\.(?:post|put|patch|get|request)\s*\(|httpx\.(?:post|put|get|Client|AsyncClient)\b|"
            r"urllib\.request\b|urlopen\s*\(|http\.client\.HTTPS?Connection\b|aiohttp\.ClientSession\b|"
            r"fetch\s*\(|axios(?:\.\w+)?\s*\(|XMLHttpRequest\b|navigator\.sendBeacon\b|https?\.request\s*\()"),
    _Source(r"\b(?:nc\s+(?:-\w+\s+)*[\w.-]+\s+\d{2,5}\b|scp\s|rsync\s[^\n]{0,500}\w@[\w.-]+:|sftp\s|"
            r"Invoke-(?:WebRequest|RestMethod)\b|(?:iwr|irm)\s|socket\.(?:socket|create_connection)\b|"
            r"smtplib\.SMTP|ftplib\.FTP|nslookup\s[^\n]{0,500}\$\(|dig\s[^\n]{0,500}\$\(|Net\.WebClient\b)|/dev/tcp/"),
    _Source(r"discord(?:app)?\.com/api/webhooks|hooks\.slack\.com/|webhook\.site|requestbin|pipedream\.net|"
            r"ngrok(?:-free)?\.(?:io|app)|interact\.sh|burpcollaborator|\boast\.\w+"),
    _Source(f"{_SENDING_WORD}(?={_SENDING_REST})", prose=True),
)


@functools.lru_cache(maxsize=None)
def send_gates() -> tuple[Gate, ...]:
    """The searches for :data:`_SEND_SOURCES` (compiled on first use): each a gate needing no literal,
    so its pattern is looked for as a gate looks for one, lower-cased in the lower-cased text and
    each place confirmed, which finds what the pattern finds case-insensitively, faster.  Each is
    grouped whole, so the lowered pattern keeps its leading ``\\b``: without it, the first branch
    of ``\\brequests...|\\bhttpx...`` was tried at every character, and the search was slower."""
    return tuple(make_gate(f"(?:{source.pattern})", prefiltered=False) for source in _SEND_SOURCES)


_NEAR_LINES = 6


def _remote(segment: str) -> bool:
    """Whether a send names a host other than this machine (or names none, e.g. ``requests.post(url)``)."""
    hosts = [m.group(1) for m in _URL.finditer(segment)]
    return not hosts or any(not _LOCAL.match(h) for h in hosts)


#: A request that only fetches a URL written out (a GET with nothing a variable could fill):
#: it carries nothing out.
_FETCH_ONLY = re.compile(r"\b(?:requests|httpx)\.get\s*\(\s*[\"'][^\"'{}$%\n]*[\"']\s*(?:,\s*timeout\s*=\s*\d+\s*)?\)",
                         re.IGNORECASE)
#: What lets a curl, wget or httpie command carry more than its URL: a variable, a file (``@f``,
#: ``--body-file``), a body or a method that sends one.
_CARRIES = re.compile(r"[$`@]|--json\b|--body\S*|--method\b|--request\b|\s-X\s*[A-Z]|\b(?:POST|PUT|PATCH)\b")


class _Send(NamedTuple):
    """A network send: its folded offset, and whether it may carry data out beyond its URL (so
    counts from anywhere in a script: a call or command, not words about sending)."""

    start: int
    carries: bool


def _carries(doc: Document, curl: bool, match: re.Match[str]) -> bool:
    """Whether the send at ``match`` may carry data beyond its URL: anything but a get() of a URL
    written out, or a ``curl``, wget or httpie command with no data, file, variable, method or pipe
    into it (``cat f | http POST url``)."""
    if not curl:
        return _FETCH_ONLY.match(doc.folded, match.start()) is None
    piped = "|" in doc.folded[doc.folded.rfind("\n", 0, match.start()) + 1:match.start()]
    return piped or _CURL_DATA.search(match.group()) is not None or _CARRIES.search(match.group()) is not None


#: How much of its line before httpie's word is read to tell whether it is run (its last word, a prompt).
_BEFORE_REACH = 80
#: A prompt a documentation page shows a command after (``$ http ...``).
_PROMPT = re.compile(r"[^\S\n]*[$%][^\S\n]+")
#: An opening bracket and a quote: httpie's word is the program of an argument list
#: (``["http", ...]``, ``spawn("https", [...])``).
_PROGRAM_ITEM = re.compile(r"[\[(][^\S\n]*[\"']$")
#: The URL httpie is given (``api.example.com/x``, ``collector:8080``, ``:3000`` for localhost,
#: ``$URL``, ``https://...``).
_HTTPIE_URL = r"(?::[\d/]|[\w-]+(?:\.[\w-]+)+|localhost\b|[\w-]+:\d|\$|[a-z]+://)"
_METHOD = r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b"
#: httpie's word as the program's item of an argument list and the next item: an option, a method,
#: the URL, an f-string's ``{`` or a variable whose name ends as a URL's does (``["http", "POST", ...]``,
#: ``spawn('http', [url, ...])``; ``("http", "https")`` is a tuple of schemes, ``['http', url_scheme]``
#: a list of them).  The name is read up to 64 characters, so a long word is not read again from each
#: ``url`` in it.
_ITEM_AFTER = (r"[\"'][^\S\n]*,[^\S\n]*\[?[^\S\n]*(?:[fr]?[\"'](?:-|" + _METHOD + r"|(?P<host>" + _HTTPIE_URL
               + r")|\{)|[\w.]{0,64}(?:url|uri|endpoint)[^\S\n]*[,\])])")
_HTTPIE_ITEM = re.compile(r"https?" + _ITEM_AFTER, re.IGNORECASE)
#: httpie's options (each maybe with a value) after its word: read once for all the words inside them.
_HTTPIE_OPTIONS = r"(?:[^\S\n]+-[^\s\"']+(?:[^\S\n]+[^\s\"'-][^\s\"']*)?)*"
_HTTPIE_CHAIN = re.compile(r"https?" + _HTTPIE_OPTIONS)
#: httpie's word on a command line, its options, maybe a method, then the URL.
_HTTPIE_LINE = re.compile(r"https?" + _HTTPIE_OPTIONS + r"[^\S\n]+(?:" + _METHOD + r"[^\S\n]+)?[\"']?"
                          r"(?P<host>" + _HTTPIE_URL + ")", re.IGNORECASE)


class _Reading(NamedTuple):
    """httpie's command line read from a word: where its options end (or its URL starts), and the
    URL's host (None: no URL). A later word inside them reads the same (their words are a suffix)."""

    end: int
    host: str | None


def _httpie_line(text: str, start: int, end: int, last: _Reading | None) -> _Reading:
    """The reading of the command line from httpie's word at ``start``; ``last``, an earlier word's,
    is reused inside its options: so a line of thousands of words is read once, not once from each."""
    if last is not None and start < last.end:
        return last
    target = _HTTPIE_LINE.match(text, start, end)
    if target is not None:
        return _Reading(target.start("host"), target["host"])
    chain = _HTTPIE_CHAIN.match(text, start, end)
    return _Reading(chain.end() if chain else start + 1, None)


def _remote_host(host: str) -> bool:
    """Whether httpie's URL names another machine (not ``:3000``, localhost, 127.0.0.1...)."""
    return not (host.startswith(":") or host.lower() == "localhost" or _LOCAL.match(host))


def _httpie_run(text: str, start: int, end: int, reading: _Reading) -> bool:
    """Whether httpie's ``http`` or ``https`` at ``start`` (its line ending at ``end``, read as
    ``reading``) is run on a URL not of this machine: written in lower case, given an option, a
    method or a URL, where a command starts (:func:`_runs_httpie`).  A word of prose ("HTTP 401",
    "http requests to https://...") or of a URL is no command."""
    if not text.startswith("http", start):
        return False
    item = _HTTPIE_ITEM.match(text, start, end)
    if item is None and reading.host is None:
        return False
    low = max(0, start - _BEFORE_REACH)
    begin = text.rfind("\n", low, start) + 1 or low
    before, line_start = text[begin:start], begin == 0 or text[begin - 1] == "\n"
    if item is not None and _PROGRAM_ITEM.search(before) and (item["host"] is None or _remote_host(item["host"])):
        return True
    return reading.host is not None and _runs_httpie(before, line_start) and _remote_host(reading.host)


#: What runs the command line in the string it opens: a shell's ``-c``, a call that runs a command
#: (``os.system(f"``, ``subprocess.run("``, ``exec("``, ``spawn("``), ``eval "``, or a variable named
#: for a command (``cmd = "``); not ``echo "`` or ``log("``: a message that names a command runs nothing.
_COMMAND_STRING = re.compile(r"(?:(?<![\w-])-c|\b(?:system|popen|run|call|check_call|check_output|getoutput|"
                             r"exec\w*|eval|spawn\w*|shell_exec|passthru|proc_open)[^\S\n]*\(?|"
                             r"\b\w{0,32}(?:cmd|command)[^\S\n]*[+:]?=)[^\S\n]*[fbr]?[\"']$", re.IGNORECASE)


def _runs_httpie(before: str, line_start: bool) -> bool:
    """Whether httpie's command line after ``before`` (its line before it, from its start when
    ``line_start``) is run: a command line in a string a shell or a call runs
    (:data:`_COMMAND_STRING`: ``bash -c "http ..."``, ``os.system(f"http ...")``), or a command as
    :func:`_env_not_run` reads ``env`` (at the start of a line, maybe after a prompt, or after ``|``,
    ``;``, ``&&``, ``$(``, sudo ...), but not an option's value (``--protocol http``)."""
    if before.endswith(("\"", "'")):
        return _COMMAND_STRING.search(before) is not None
    prompt = _PROMPT.match(before) if line_start else None
    before = before[prompt.end():] if prompt else before
    if before and not before[-1].isspace():
        return before[-1] in ";&|(`{!"  # else glued to a word: ``/x/https``, ``=http``
    last = before.split()[-1:]
    return not (last and last[0].startswith("-")) and not _env_not_run(before)


#: The next word on a line that may be a send: curl, wget, xh, aria2c, a library's ``http.`` (as
#: curl, with a URL), or httpie's word in lower case given an option, a method or a URL, or as an
#: argument list's item: words that cannot be run are passed over in one search.
_CURL_ONLY = r"curl|wget|xh|aria2c|https?(?=\.)"
_HTTPIE_ONLY = (r"(?-i:https?)(?=" + _ITEM_AFTER.replace("?P<host>", "") + r"|[^\S\n]+(?:-[^\s\"']|" + _METHOD
                + r"|[\"']?" + _HTTPIE_URL + r"))")
#: Once a curl word finds no URL or data on the rest of its line, only httpie's words are looked for.
_NEXT_WORD, _NEXT_CURL, _NEXT_HTTPIE = (re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for words in (
    f"{_CURL_ONLY}|{_HTTPIE_ONLY}", _CURL_ONLY, _HTTPIE_ONLY))


def _command_send(text: str, search: re.Pattern[str], match: re.Match[str]) -> re.Match[str] | None:
    """The match of a curl, wget or httpie command (:data:`_CURL_SOURCE`) that sends, at ``match`` or
    later on its line: a curl or wget needs a URL or data (else it is prose), as does ``http.Get(``
    (a library's call); httpie's word must be run (:func:`_httpie_run`).  Else the line is searched
    on after the word (``see the http docs | http POST ...``, ``command -v curl || http POST ...``)."""
    start, end = match.start(), match.end()
    reading, carried = None, True  # carried: the rest of the line may still hold a URL or data
    while True:
        word = 5 if text[start + 4:start + 5].lower() == "s" else 4  # https or http (then no letter: \b)
        httpie = text[start:start + 4].lower() == "http" and not text.startswith(".", start + word)
        skip = start + 1
        if httpie and text.startswith("http", start):
            reading = _httpie_line(text, start, end, reading)
            if _httpie_run(text, start, end, reading):
                return match if start == match.start() else search.match(text, start, end)
            if reading.host is None or not _remote_host(reading.host):
                skip = max(skip, reading.end)  # the words inside its options read the same: no send
        elif not httpie and carried:
            found = match if start == match.start() else search.match(text, start, end)
            if found is not None and (_URL.search(found.group()) or _CURL_DATA.search(found.group())):
                return found
            carried = found is None  # none in the rest of the line: none in any later part of it
        later = _NEXT_CURL.search(text, start + 1, skip) if carried and skip > start + 1 else None
        later = later or (_NEXT_WORD if carried else _NEXT_HTTPIE).search(text, skip, end)
        if later is None:
            return None
        start = later.start()


def _sentence_send(text: str, match: re.Match[str], after: int) -> re.Match[str] | None:
    """The words about sending from ``match`` to what they send to, inside its sentence: a dot
    inside a word does not end it.  The search read each character of its windows as "no dot, or
    one inside a word" from each word: bounding the sentence first reads them as a class.  None
    before ``after``, the end of the last found (inside it, as a search finds them)."""
    start = match.start()
    if start < after:
        return None
    stop = _SENTENCE_END.search(text, start, start + _SENDING_REACH + 1)
    limit = stop.start() if stop is not None and stop.start() < start + _SENDING_REACH else len(text)
    return _SENDING.match(text, start, limit)


def _sends(doc: Document) -> list[_Send]:
    """The network sends in a document, in order.  Words about sending are marked as carrying
    nothing, so in a script too they count only near the read: a script's log message ("sent 9
    POST requests to login endpoints") is no send of a store named in its pattern list."""
    found = []
    for number, (source, send) in enumerate(zip(_SEND_SOURCES, send_gates(), strict=True)):
        after = 0  # words about sending inside the last found are part of it
        for each in send.finditer(doc):
            match = (_command_send(doc.folded, send.pattern, each) if number == 0
                     else _sentence_send(doc.folded, each, after) if source.prose else each)
            if match is None:
                continue
            after = match.end()
            text = match.group()
            if _remote(text):
                found.append(_Send(match.start(), not source.prose and _carries(doc, number == 0, match)))
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


#: What may stand before a command that runs the one after it (``sudo env | ...``): after any other
#: word, ``env`` is that word's argument, not a command.
_RUNNERS = frozenset({"sudo", "doas", "exec", "command", "builtin", "nohup", "time", "nice", "xargs", "busybox",
                      "then", "do", "else", "!", "{", "env", "timeout", "stdbuf", "setsid", "chroot", "strace"})
_LAST_WORD = re.compile(r"(\S*)\s+$")


def _env_not_run(before: str) -> bool:
    """Whether the ``env`` that follows ``before`` (the text of its line before it) is no command
    the shell runs: a file name after a redirection ("arg > env > config", a precedence order in a
    comment) or an argument of another word ("prefers JF_USER_ID env > /Users/Me"); after a
    command that runs another (``sudo``), an option, a number or an assignment it is a command."""
    if before.rstrip().endswith(("<", ">")):
        return True
    word = _LAST_WORD.search(before)
    if word is None or not word.group(1):
        return False
    last = word.group(1)
    if last.endswith(("|", ";", "&", "(", "`", "{", "!")):
        return False  # after a pipe or a list's separator: a command
    return last.lower() not in _RUNNERS and not last.startswith("-") and not last.isdigit() and "=" not in last


#: A copy of the environment assigned to a name (``env = dict(os.environ)``).
_ENV_COPY = re.compile(r"(?:^|[\s;])([A-Za-z_]\w*)\s*=\s*$", re.MULTILINE)
_ENV_KEYWORD = re.compile(r"\benv\s*=\s*$")


def _child_environment(text: str, start: int) -> bool:
    """Whether ``dict(os.environ)`` at ``start`` is a copy only changed and handed to a child process
    (``env.pop("X"); subprocess.run(..., env=env)``): each use of its name changes it or passes it
    as ``env=``.  A child inherits the environment anyway, so such a copy carries out nothing."""
    line_start = text.rfind("\n", 0, start) + 1
    name = _ENV_COPY.search(text, line_start, start)
    if name is None:
        return False
    var = re.escape(name.group(1))
    uses = re.compile(rf"(?<![\w.])({var})\b(?!\s*=(?!=))")
    allowed = re.compile(rf"{var}(?:\.(?:pop|update|setdefault)\s*\(|\s*\[[^\]\n]*\]\s*=(?!=))")
    passed = 0
    for use in uses.finditer(text):
        if _ENV_KEYWORD.search(text, max(0, use.start() - 20), use.start()):
            passed += 1
        elif not allowed.match(text, use.start()) and not text.endswith("del ", 0, use.start()):
            return False
    return passed > 0


def _not_read(match: re.Match[str]) -> bool:
    """Whether a match of the whole environment reads none of it: an ``env`` the shell does not run,
    or a copy of ``os.environ`` handed to a child process."""
    text, start = match.string, match.start()
    if match.group()[:3].lower() == "env":
        return _env_not_run(text[text.rfind("\n", 0, start) + 1:start])
    return match.group().startswith("dict") and _child_environment(text, start)


@functools.lru_cache(maxsize=None)
def _read_slots() -> frozenset[int] | None:
    """The slots in the one-pass search for literals of the store and .env patterns (None: one of
    them is not in it or needs words besides): a document that admits none of them reads no store."""
    patterns = (*(store.pattern for store in STORES), DOTENV)
    slots = frozenset(each.gate.slot for each in patterns)
    return None if None in slots or any(each.gate.words for each in patterns) else slots  # type: ignore[return-value]


def _reads(doc: Document) -> list[_Read]:
    """The credential stores a document reads (none, without a look at each pattern, where the
    one-pass search admits none of them: most documents)."""
    slots = _read_slots()
    if slots is not None and slots.isdisjoint(doc.found.admitted):
        return []
    found = []
    verdicts: dict[int, tuple[bool, bool]] = {}
    for label, bulk, store in STORES:
        for match in store.finditer(doc):
            reads, uses_ssh = _line_verdicts(doc, match.start(), verdicts)
            if label.startswith(("SSH", "an SSH")) and uses_ssh or label == _ENVIRONMENT and _not_read(match):
                continue
            if doc.kind == "code" or reads:
                found.append(_Read(match.start(), match.end(), label, bulk, False, _NEAR_LINES, True))
            elif label in _COMMANDS:  # env | curl ...: only with the send on its line
                found.append(_Read(match.start(), match.end(), label, bulk, False, 0, False))
    for match in DOTENV.finditer(doc):
        found.append(_Read(match.start(), match.end(), "a .env file", False, True, _NEAR_LINES, False))
    return sorted(found, key=lambda read: (read.start, read.end))


@check(CREDENTIALS_SENT, CREDENTIAL_STORE)
def credentials(doc: Document) -> Iterator[Hit]:
    """Each credential store read: with a send nearby SK620, alone SK621 (one per line)."""
    reads = _reads(doc)
    if not reads:
        return
    sends = _sends(doc)
    send_lines = [_line_of(doc, s.start) for s in sends]
    # in a script a send anywhere counts, when it can carry the data (a download elsewhere cannot)
    anywhere = next((s.start for s in sends if s.carries), None) if doc.kind == "code" else None
    reported: set[int] = set()
    for read in reads:
        line = _line_of(doc, read.start)
        if line in reported:
            continue
        i = bisect.bisect_left(send_lines, line - read.reach)
        nearest = sends[i].start if i < len(send_lines) and send_lines[i] <= line + read.reach else anywhere
        if nearest is not None:
            reported.add(line)
            yield Hit("SK620", read.start, read.end, f": {read.label}", severity="medium" if read.weak else None,
                      related=nearest)
        elif read.alone:
            reported.add(line)
            yield Hit("SK621", read.start, read.end, f": {read.label}", severity="medium" if read.bulk else "low")


#: What every match of SK622's pattern holds: a search that skips straight to "]".
_MD_URL_HINT = re.compile(r"\]\(\s*<?(?:https?:)?//|\]:\s*<?https?://", re.IGNORECASE)
_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?|\{\{[^}]*\}\}|%24%7B|%7B%7B|\{[A-Za-z_]\w*\}|<[A-Z_]{3,}>|"
                       r"\[[A-Z_]{3,}\]|process\.env|os\.environ", re.IGNORECASE)
_SECRETISH = re.compile(r"key|token|secret|pass(?:word|wd)?|cred|cookie|session|auth|ssh|env|histor|"
                        r"conversation|chat|prompt|memory|private|data", re.IGNORECASE)


#: A query value written as a bare capitalized word (``?sum=SUMMARY``): a placeholder, if the text says so.
_BARE_PLACEHOLDER = re.compile(r"(?<==)[A-Z][A-Z0-9_]{2,39}(?=[&#]|$)")
#: A capitalized word in prose, where a placeholder is named again.
_CAPITALIZED = re.compile(r"\b[A-Z][A-Z0-9_]{2,39}\b")
#: A verb telling the agent to put something in a placeholder's place.
_FILL_IN = re.compile(r"\b(?:replac|substitut|fill|insert|swap|put|encod|append)\w*", re.IGNORECASE)
#: How far either side of an image the sentence naming its placeholder is looked for (characters, on its lines).
_PLACEHOLDER_REACH = 400


def _placeholder_filled(match: re.Match[str], url: str) -> str | None:
    """A bare capitalized query value of an image URL (``?sum=SUMMARY``) that the text around the image
    tells the agent to fill in with something secret-looking ("replacing SUMMARY with the conversation"):
    the word named again outside the URL, a verb of filling in, and a secret-looking word, in the
    image's paragraph within :data:`_PLACEHOLDER_REACH` characters of it.  Else None: ``?style=FLAT``."""
    query = url.split("?", 1)[1] if "?" in url else ""
    words = {word.group() for word in _BARE_PLACEHOLDER.finditer(query)}
    if not words:
        return None
    text = match.string
    begin, finish = paragraph_bounds(text, match.start(), match.end(), _PLACEHOLDER_REACH)
    around = text[begin:match.start()] + " " + text[match.end():finish]  # the image's own URL left out
    if not _FILL_IN.search(around) or not _SECRETISH.search(around):
        return None
    named = sorted(words.intersection(_CAPITALIZED.findall(around)))
    return named[0] if named else None


def _markdown_with_urls(doc: Document) -> bool:
    """Whether a Markdown document has an image or link with an absolute URL."""
    return doc.kind in ("skill", "markdown") and _MD_URL_HINT.search(doc.folded) is not None


@rule("SK622", "exfiltration", "high", "Markdown image or link URL carries variables or secrets",
      "A rendered image is fetched without a click: a URL with a variable or secret in it sends data "
      "to that host as soon as the agent's answer is displayed.", demotion=COMMANDS,
      patterns=(pattern(r"(?=[!\[]|^[^\S\n]*\[)(?:(!?)\[[^\]\n]{0,200}\]\(\s*<?((?:https?:)?//[^)\s>]+)|"
                        r"^[^\S\n]*\[[^\]\n]+\]:\s*<?(https?://\S+))", flags=re.MULTILINE | re.IGNORECASE),),
      applies=_markdown_with_urls)
def variable_url(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """An image URL with any variable in its query, or a link or image URL with a secret-looking one.

    The pattern runs on the lines around "](" and the URLs (a match's "[" is on the line of its
    "](" or ":", its URL there or on the next line holding text), not the whole text; its first
    lookahead, which each of its matches meets, turns most other places down in one step."""
    image = match.group(1) == "!"
    url = match.group(2) or match.group(3)
    host = _URL.match("https:" + url if url.startswith("//") else url)
    if host and _LOCAL.match(host.group(1)):
        return None
    variables = [v.group() for v in _VARIABLE.finditer(url)]
    if not variables:
        placeholder = _placeholder_filled(match, url) if image else None
        return None if placeholder is None else replace(hit, detail=f" (image URL with {placeholder})")
    query = url.split("?", 1)[1] if "?" in url else ""
    secret = any(_SECRETISH.search(v) for v in variables) or bool(query and _SECRETISH.search(query))
    in_query = bool(query and _VARIABLE.search(query))
    if secret or image and in_query:
        start = hit.start if match.group(3) is None else white_space_start(match.string, match.start())
        return replace(hit, start=start, detail=f" ({'image' if image else 'link'} URL with {variables[0]})")
    return None
