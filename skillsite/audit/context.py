"""Where a match stands: inside a fenced example of a reference document, or in a warning.

Security guides quote the very things the rules look for ("never pipe curl into sh",
"attackers hide instructions in ...").  Such a match is demoted one level, never dropped, so a
guide cannot hide a real payload entirely.
"""
from __future__ import annotations

import re

from skillsite.audit.text import REACH, Document, clipped_after, clipped_before, line_bounds

#: The first letters of the words of :data:`_CUES`, looked ahead for before them: ``re`` has no quick
#: test of a word's first letter regardless of case, so at each word's boundary it tried all 52 words
#: in turn (a sentence around each of thousands of findings was read so: 'base64 -a -adaa -o "a"a&&a'
#: lines, 80,000 characters as SKILL.md, took 0.74 s).
_CUE_FIRST = "(?=[abcdefimnprstuvwавзинопуф])"
#: The same in Chinese, Japanese and Korean, which write no spaces between words (so no ``\b``):
#: prohibitions of running or using ("绝对不要运行", "実行しないでください", "절대 실행하지 마세요")
#: and the words of warnings and of security writing (danger, attack, malicious, phishing,
#: vulnerability, stealing, detection).  Not the words ordinary instructions use too: a bare
#: "don't" ("不要询问用户", "don't ask the user"; 不要求, "does not require"), 禁止 ("disable"),
#: 注入 ("inject"), 警告 ("ignore the warnings"), 拒绝 ("if refused"), しないで ("without doing").
_CJK_CUE_WORDS = (
    "切勿", "请勿", "請勿", "严禁", "嚴禁", "绝不", "絕不", "绝对不要", "絕對不要", "千万不要", "千萬不要", "永远不要",
    "永遠不要", "不要运行", "不要運行", "不要执行", "不要執行", "不要使用", "危险", "危險", "危険", "攻击", "攻擊",
    "攻撃", "恶意", "惡意", "悪意", "钓鱼", "釣魚", "漏洞", "脆弱", "窃取", "竊取", "可疑", "检测", "檢測", "検出",
    "検知", "絶対に", "実行しないで", "使用しないで", "してはいけない", "してはならない", "フィッシング",
    "インジェクション", "절대", "실행하지 마", "실행하지마", "사용하지 마", "사용하지마", "위험", "공격", "악성", "악의",
    "취약", "탐지")
#: Looked for only where one of their first letters stands (as :data:`_CUE_FIRST` does for the others).
_CJK_CUES = ("(?=[" + "".join(sorted({word[0] for word in _CJK_CUE_WORDS})) + "])(?:"
             + "|".join(map(re.escape, _CJK_CUE_WORDS)) + ")")
#: Words that show a sentence warns against, or describes, what it mentions.
_CUES = re.compile(
    r"\b" + _CUE_FIRST + r"(?:never|avoid|don'?t|do\s+not|must\s+not|should\s+not|shouldn'?t|can'?t|cannot|"
    r"refuse[sd]?|reject|block(?:s|ed)?|beware|warning|caution|danger(?:ous)?|unsafe|insecure|risky|"
    r"attack(?:s|er|ers)?|malicious|malware|adversar\w*|exploit\w*|phishing|injection|payloads?|threats?|red\s+flags?|"
    r"suspicious|vulnerab\w*|detect\w*|flag(?:s|ged)?|scanners?|anti-?pattern|not\s+recommended|"
    r"compromise[sd]?|steal\w*|exfiltrat\w+|bad\s+example|wrong|evil|"
    r"никогда|опасн\w*|атак\w*|злоумышленн\w*|вредоносн\w*|осторожн\w*|предупрежд\w*|инъекци\w*|уязвим\w*|"
    r"фишинг\w*)\b|❌|⚠|" + _CJK_CUES,
    re.IGNORECASE)
#: A prohibition after a match that forbids a step of the procedure, not the match itself:
#: "curl ... | sh and never skip this step", "..., do not ask the user first".  Such a cue does
#: not demote ("don't pipe remote scripts into your shell", "never use it" still do).
_OTHER_DUTY = re.compile(
    r"\b(?:never|don'?t|do\s+not|must\s+not|should\s+not|shouldn'?t)\s+(?:ever\s+)?(?:skip|forget|omit|miss|stop|"
    r"interrupt|ask|tell|inform|notify|wait|hesitate|question|doubt|worry|delay|bother|confirm|check\s+with)\b",
    re.IGNORECASE)
#: URLs, host names and file names: "attacker.invalid" names a host, it does not warn.  Matches
#: start where a word starts, so a long word is scanned once rather than from each of its characters.
_NAMES = re.compile(r"(?<!\S)(?:\S*://\S*|\S*[\w-]\.[A-Za-z]{2,}\b\S*)")
#: The comment of a line of code (shell, Python, YAML, JavaScript, SQL ...).
_COMMENT = re.compile(r"(?:^|\s)(?:#|//|--(?=\s)|<!--|/\*|REM\b)(?!!)\s*(.*)$")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？．｡]|\n\s*\n")
_MAX_SENTENCE = 400


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence (or list item, or line) around ``text[start:end]``, as offsets."""
    low = max(0, start - _MAX_SENTENCE)
    before = text[low:start]
    line_start = text.rfind("\n", low, start) + 1 or low
    cut = low
    for match in _SENTENCE_END.finditer(before):
        cut = low + match.end()
    begin = max(cut, line_start if text[line_start:start].lstrip()[:1] in ("-", "*", "#", "|", ">") else cut)
    after = _SENTENCE_END.search(text, end, min(len(text), end + _MAX_SENTENCE))
    finish = after.start() + 1 if after else min(len(text), end + _MAX_SENTENCE)
    line_end = text.find("\n", end, finish)
    if line_end >= 0 and text[line_end + 1:line_end + 2] == "\n":
        finish = min(finish, line_end)
    return begin, finish


def _intro(doc: Document, fence: tuple[int, int]) -> str:
    """The two non-blank lines before a fenced block (its caption, e.g. 'Bad:')."""
    lines = doc.text[max(0, fence[0] - 300):fence[0]].rstrip().splitlines()
    return " ".join(line for line in lines[-2:] if line.strip())


_PLAIN_INFO = frozenset({"", "text", "txt", "output", "log", "plain", "plaintext", "none"})


def _plain(doc: Document, fence: tuple[int, int]) -> bool:
    """Whether a fenced block is plain text (no language, or text / output / log)."""
    first = doc.text[fence[0]:doc.text.find("\n", fence[0])].strip().lstrip("`~").strip().lower()
    return first.split(" ", 1)[0] in _PLAIN_INFO


def _around(text: str, start: int, end: int, lines: int) -> str:
    """The ``lines`` lines before and after ``text[start:end]`` (the match itself left out), no
    further than :data:`REACH` characters either side."""
    low, high = max(0, start - REACH), min(len(text), end + REACH)
    begin = start
    for _ in range(lines + 1):
        if begin > low:
            begin = text.rfind("\n", low, begin - 1) + 1 or low
    finish = end
    for _ in range(lines + 1):
        nxt = text.find("\n", finish + 1, high)
        finish = high if nxt < 0 else nxt
    return text[begin:start] + " " + text[end:finish]


def warns(doc: Document, start: int, end: int) -> bool:
    """Whether the sentence around ``text[start:end]`` warns against (or describes) it.

    Words inside the match itself do not count ("do not tell the user" is no warning).
    """
    fence = doc.fence_at(start)
    if doc.kind == "code" and fence is None:  # a script: only a comment can warn, and only one the match is in
        line_start, line_end = line_bounds(doc.text, start, end)
        comment = _COMMENT.search(doc.text[line_start:start])
        if comment is None:
            return False  # the command runs: a comment after it ("# never edit") changes nothing
        outside = comment.group(1) + " " + doc.text[end:line_end]
    elif fence is not None:  # a fenced block warns in its comments, and in its caption
        comment = _COMMENT.search(doc.text[end:line_bounds(doc.text, start, end)[1]])
        outside = comment.group(1) if comment else ""
        outside += " " + _intro(doc, fence)
        if _plain(doc, fence):  # sample output or prose: the lines around it describe it
            outside += " " + _around(doc.text, start, end, 2)
    else:
        begin, finish = _sentence(doc.text, start, end)
        after = _NAMES.sub(" ", doc.text[end:finish])
        return _CUES.search(_NAMES.sub(" ", doc.text[begin:start])) is not None or _cued_after(after)
    return _CUES.search(_NAMES.sub(" ", outside)) is not None


def _cued_after(after: str) -> bool:
    """Whether the rest of a sentence after a match describes or forbids it: a prohibition of
    another step of the procedure ("and never skip this step") does not count."""
    return any(_OTHER_DUTY.match(after, cue.start()) is None for cue in _CUES.finditer(after))


def in_example(doc: Document, start: int) -> bool:
    """Whether ``start`` is inside a fenced code block, or a table row, of a reference document
    (not SKILL.md): reference tables list patterns and examples, they do not instruct."""
    if not doc.is_reference:
        return False
    begin, finish = line_bounds(doc.text, start)
    return doc.fence_at(start) is not None or (
        not clipped_before(doc.text, begin) and doc.text[begin:finish].lstrip().startswith("|"))


_PRINTS = re.compile(r"\bprint\s*\(|\becho\s|\bprintf\b|console\.(?:log|info|error)|\bputs\s|Write-(?:Host|Output)|"
                     r"sys\.std(?:out|err)\.write|<<\s*['\"]?\w+|\bcat\s*<<", re.IGNORECASE)
_QUOTES = {'"': '"', "\u201c": "\u201d", "`": "`", "'": "'", "\u2018": "\u2019", "\u00ab": "\u00bb", "\u201e": "\u201c"}


def quoted(doc: Document, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` sits inside quotes or inline code on its line (mentioned, not said).
    On a line longer than :data:`REACH` before the match the quotes cannot be paired: not quoted."""
    line_start, line_end = line_bounds(doc.text, start, end)
    if clipped_before(doc.text, line_start):
        return False
    before = doc.text[line_start:start]
    after = doc.text[end:line_end]
    for opening, closing in _QUOTES.items():
        if opening == closing:
            if opening == "'" and re.search(r"\w'\w", before + after):
                continue  # apostrophes, not quotes
            if before.count(opening) % 2 == 1 and opening in after:
                return True
        elif before.rfind(opening) > before.rfind(closing) and closing in after:
            return True
    return False


def printed(doc: Document, start: int) -> bool:
    """Whether the line at ``start`` writes its text out (so it reaches the agent's context); a
    line too long to read whole (:data:`REACH`) counts as printed, so it is not demoted."""
    begin, finish = line_bounds(doc.text, start)
    return clipped_before(doc.text, begin) or clipped_after(doc.text, finish) or \
        _PRINTS.search(doc.text, begin, finish) is not None
