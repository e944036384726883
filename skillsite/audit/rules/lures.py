"""Lures (SK636): prose that sends the user or the agent to fetch and run what the skill does not
show.  An archive to extract with a password and run (a scanner cannot read inside an encrypted
archive, which is why malware is shipped so), and a command to copy from a paste site into a
terminal (the command is not in the skill, and its author may change it at any time): the
ClawHavoc campaign's two ways, in English and Chinese.  Command lines (``unzip -P``) are
:mod:`skillsite.audit.rules.remote_code`'s.
"""
from __future__ import annotations

import re
from dataclasses import replace

from skillsite.audit.declare import Demotion, Rule, pattern
from skillsite.audit.hit import Hit
from skillsite.audit.text import Document, paragraph_bounds

#: How far around a match its paragraph is read for an archive and for what is run (characters).
_AROUND = 400
#: An archive named in the paragraph: a file name (``x.zip``), or the word.
_ARCHIVE = re.compile(r"\.(?:zip|7z|rar)\b|\b(?:zip|archive)\b|压缩", re.IGNORECASE)
#: What is run after it: the archive's program, or an installer.
_RUN = re.compile(r"\b(?:run|runs|execute|launch|double[- ]click|install)\b|\.exe\b|\bexecutable\b|"
                  r"运行|执行|启动|双击|安装", re.IGNORECASE)
#: Where a command copied from a page goes.
_TERMINAL = re.compile(r"\b(?:terminal|shell|console|powershell|command prompt|cmd)\b|终端|命令行", re.IGNORECASE)
#: A tool that extracts an archive: ``使用 `unzip` 解压`` names the tool, not a password.
_EXTRACTOR = re.compile(r"(?:unzip|7z|7za|7-zip|tar|winrar|rar|unrar|bandizip|winzip|peazip|ditto)(?:\.exe)?",
                        re.IGNORECASE)


def _paragraph(text: str, start: int, end: int) -> str:
    """The paragraph around ``text[start:end]``, at most :data:`_AROUND` characters on either side."""
    begin, finish = paragraph_bounds(text, start, end, _AROUND)
    return text[begin:finish]


def _password(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A password for an archive the paragraph names: high when the paragraph says to run something,
    else medium (a password-protected download, as malware samples are shared); none without an
    archive (a PDF's password), nor for ``使用 `unzip` 解压`` (the tool that extracts it)."""
    if "key" in match.re.groupindex and _EXTRACTOR.fullmatch(match["key"].strip()):
        return None
    around = _paragraph(doc.folded, match.start(), match.end())
    if not _ARCHIVE.search(around):
        return None
    if _RUN.search(around):
        return replace(hit, detail=": an archive extracted with a password, then run")
    return replace(hit, detail=": an archive extracted with a password", severity="medium")


def _pasted(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A paste site's page whose command the paragraph says to run (or paste) in a terminal; else
    none (a link to a snippet to read)."""
    around = _paragraph(doc.folded, match.start(), match.end())
    if not (_RUN.search(around) or "粘贴" in around) or not _TERMINAL.search(around):
        return None
    return replace(hit, detail=f": a command to run from {match.group().rstrip('/')}")


LURE = Rule(
    "SK636", "remote-code", "high", "text lures into running a password-protected archive or a paste site's command",
    "Telling the user or the agent to extract a downloaded archive with a password and run what it holds, or to "
    "run a command copied from a paste site, fetches code the skill does not show: an encrypted archive is what "
    "scanners cannot read, and a paste can be changed after review. This is how the ClawHavoc skills delivered "
    "malware. A password-protected archive nothing says to run is medium.",
    Demotion(True, True, note=" Demoted one level inside a fenced example of a reference document, or in a "
             "sentence that warns against or describes it."),
    patterns=(
        # "extract with password `openclaw`", "x.zip (password: x)", "password-protected zip", in Chinese
        # "解压密码", "使用 `openclaw` 解压" (the key in inline code)
        pattern(r"\b(?:extract|unzip|unpack|decompress|unrar)\w{0,3}\b[^\n]{0,40}?\bpass(?:word|phrase)\b",
                condition=_password),
        pattern(r"\bpass(?:word|phrase)\b[^\n]{0,40}?\b(?:extract|unzip|unpack|decompress|unrar)",
                condition=_password),
        pattern(r"\.(?:zip|7z|rar)\b[^\n]{0,80}?\bpass(?:word|phrase)\b", condition=_password),
        pattern(r"\bpass(?:word|phrase)[\s-]{0,3}protected\b", condition=_password),
        pattern(r"解压密码|密码[^\n]{0,20}?解压|解压[^\n]{0,20}?密码", condition=_password),
        pattern(r"使用\s*`(?P<key>[^`\n]{1,40})`\s*(?:命令|密码)?\s*解压", condition=_password),
        # a paste site holding the command: anonymous, and editable after the skill is published
        pattern(r"\b(?:glot\.io/snippets|rentry\.(?:co|org)|pastebin\.com|paste\.ee|hastebin\.com|"
                r"dpaste\.(?:org|com)|controlc\.com|justpaste\.it|paste\.rs|termbin\.com|ghostbin\.\w+|"
                r"privatebin\.\w+)/", condition=_pasted),
    ))
