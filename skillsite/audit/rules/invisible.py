"""Invisible or deceptive text: tag characters, bidi controls, zero-width characters in words,
line separators and variation-selector runs (SK601-SK605), found in the text as written;
mixed-script or confusable skill names (SK606); instructions hidden in HTML comments (SK607)."""
from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import replace
from typing import Callable, Iterator

from skillsite.audit.declare import HIDDEN, SPOKEN, Pattern, Rule, SkillMd, check, pattern, rule
from skillsite.audit.hit import Hit
from skillsite.audit.letters import confusables, styled
from skillsite.audit.rules import injection
from skillsite.audit.text import Document

#: The characters of SK601-SK605, as the insides of character classes.
_TAGS = "\U000e0000-\U000e007f"
_BIDI = "\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e\u034f"
_SEPARATORS = "\u2028\u2029"
_SELECTORS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"

#: Any character SK601-SK605 look for: a document without one is not searched rule by rule.  A
#: non-ASCII character (which the search skips to) is looked back at against the class, whose
#: ranges past U+FFFF would otherwise be tested at every character.
_ANY = re.compile(f"[^\x00-\x7f](?<=[{_TAGS}{_BIDI}{_ZERO_WIDTH}{_SEPARATORS}{_SELECTORS}])")


def _invisible(doc: Document) -> frozenset[str]:
    """The characters SK601-SK605 look for that a document holds (``unusual``: one search for
    these and the folded ones; then one search of the text, remembered)."""
    return doc.remember(_ANY, lambda: frozenset(_ANY.findall(doc.text))) if doc.unusual else frozenset()


def _holding(chars: str) -> Callable[[Document], bool]:
    """Whether a document holds one of ``chars`` (a character class's inside): a rule's pattern
    of such characters runs only on a text that has one of its own, not any invisible one (the
    variation selectors of emoji are in many texts)."""
    one = re.compile(f"[{chars}]")
    return lambda doc: any(one.match(char) for char in _invisible(doc))


def _written(source: str) -> Pattern:
    """A pattern of characters, looked for in the whole text as written (not the folded copy)."""
    return pattern(source, flags=0, scope="written")


#: The tag characters of the RGI emoji tag sequences (Unicode's emoji-sequences.txt): a black
#: flag U+1F3F4, then the subdivision code in tag letters and a cancel tag U+E007F, the flags of
#: England, Scotland and Wales.  Only these three render as a flag; any other run stays hidden text.
_FLAG_BASE = "\U0001F3F4"
_FLAG_TAGS = frozenset("".join(chr(0xE0000 + ord(c)) for c in code) + "\U000E007F"
                       for code in ("gbeng", "gbsct", "gbwls"))


def _flag_tags(text: str, match: re.Match[str]) -> bool:
    """Whether a run of tag characters is, whole, the tags of an RGI flag emoji right after its black flag."""
    return match.group() in _FLAG_TAGS and match.start() > 0 and text[match.start() - 1] == _FLAG_BASE


@rule("SK601", "invisible-text", "high", "Unicode tag characters (invisible text)",
      "Tag characters U+E0000-E007F render as nothing but models read them as ASCII: a known way to "
      "smuggle instructions past a human reviewer. The flag emoji of England, Scotland and Wales (a black flag, "
      "the region's code in tag letters, a cancel tag) show as flags, and are not reported.", demotion=HIDDEN,
      patterns=(_written(f"[{_TAGS}]+"),), applies=_holding(_TAGS))
def tag_characters(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Says what the run spells (tag characters mirror ASCII); none for the tags of a flag emoji."""
    if _flag_tags(doc.text, match):
        return None
    shown = "".join(chr(ord(c) - 0xE0000) for c in match.group() if 0x20 <= ord(c) - 0xE0000 < 0x7F)
    spelled = shown if len(shown) <= 60 else shown[:57] + "..."
    return replace(hit, detail=f": {len(match.group())} characters spelling {spelled!r}") if spelled else hit


@rule("SK602", "invisible-text", "high", "bidirectional control characters",
      "Bidi overrides and isolates (U+202A-202E, U+2066-2069) make text display in another order than "
      "it is read (Trojan Source), so a reviewer sees something else than the agent.", demotion=HIDDEN,
      patterns=(_written(f"[{_BIDI}]+"),), applies=_holding(_BIDI))
def bidi_controls(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """Names the controls."""
    return replace(hit, detail=f" ({', '.join(sorted({f'U+{ord(c):04X}' for c in match.group()}))})")


_ZERO_WIDTH_RUNS = re.compile(f"[{_ZERO_WIDTH}]{{3,}}")


def _runs_of_three(doc: Document) -> int:
    """How many runs of three or more zero-width characters the text holds (two told as many),
    found once per document: each of its matches asks."""
    return doc.remember("zero-width runs", lambda: sum(1 for _ in itertools.islice(
        _ZERO_WIDTH_RUNS.finditer(doc.text), 2)))


#: The longest run of one zero-width character repeated that is not taken as data: it spells
#: nothing but its length, a bit or two, as runs of one or two (medium at most) already could;
#: rich-text copies leave such runs after CJK punctuation ("。\u200b\u200b\u200b").
_SHORT_REPEAT = 4


def _letter(char: str) -> bool:
    return char.isalpha() and char.isascii()


@rule("SK603", "invisible-text", "medium", "zero-width character inside a word",
      "A zero-width space or joiner inside a word splits keywords so that reviews and filters miss them; "
      "a run of them can carry hidden data (then high).", demotion=HIDDEN,
      patterns=(_written(f"[{_ZERO_WIDTH}]+"),), applies=_holding(_ZERO_WIDTH))
def zero_width(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A run of three or more (high: hidden data; medium when it repeats one character at most
    :data:`_SHORT_REPEAT` times), or one between two letters; not a byte order
    mark, nor the text's one run of three or more when it holds each character once: the list a
    script that strips them spells out (``"\\u200b\\u200c\\u200d\\ufeff"``), a few bits at most,
    where data takes many runs or a long one."""
    run, text = match.group(), doc.text
    if match.start() == 0 and run == "\ufeff":
        return None
    if len(run) > _SHORT_REPEAT and len(set(run)) == 1 or len(run) >= 3 and len(set(run)) > 1 and not (
            len(set(run)) == len(run) and _runs_of_three(doc) == 1):
        return replace(hit, detail=f": a run of {len(run)}", severity="high")
    if len(run) >= 3 and len(set(run)) == 1:  # one character a few times: residue, as runs of one or two are
        return replace(hit, detail=f": a run of {len(run)} U+{ord(run[0]):04X}")
    before = text[match.start() - 1] if match.start() else ""
    after = text[match.end()] if match.end() < len(text) else ""
    return replace(hit, detail=f" (U+{ord(run[0]):04X})") if _letter(before) and _letter(after) else None


@rule("SK604", "invisible-text", "low", "Unicode line or paragraph separator",
      "U+2028 and U+2029 break lines for some readers and not for others, so text can look like a "
      "comment or a closed string while it is not.", demotion=HIDDEN,
      patterns=(_written(f"[{_SEPARATORS}]"),), applies=_holding(_SEPARATORS))
def line_separator(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """Names the separator."""
    return replace(hit, detail=f" (U+{ord(match.group()):04X})")


@rule("SK605", "invisible-text", "high", "run of variation selectors (hidden data)",
      "Emoji use at most one variation selector; a run of them encodes bytes invisibly, a known way to "
      "hide a payload in text.", demotion=HIDDEN,
      patterns=(_written(f"[{_SELECTORS}]{{2,}}"),), applies=_holding(_SELECTORS))
def variation_selectors(doc: Document, match: re.Match[str], hit: Hit) -> Hit:
    """Says how long the run is."""
    return replace(hit, detail=f": {len(match.group())} in a row")


DECEPTIVE_NAME = Rule(
    "SK606", "invisible-text", "high", "mixed-script or confusable skill name",
    "A name that mixes alphabets or uses look-alike or styled letters impersonates another skill "
    "(homoglyph attack).", HIDDEN)


def _script(char: str) -> str:
    """The script of a letter, from its Unicode name ('LATIN', 'CYRILLIC', ...)."""
    try:
        return unicodedata.name(char).split(" ", 1)[0]
    except ValueError:
        return "UNKNOWN"


def _stray_mark(name: str) -> bool:
    """Whether a name (in NFC) holds a combining mark that does not belong to the letter before
    it: one of the marks any script may take (U+0300-036F and the like, named COMBINING: NFC
    composes the usual accents of Latin, Greek and Cyrillic letters, so one left over stacks on
    a letter that has no such form), or one of another script.  The vowel signs and viramas of
    Devanagari, Thai and the like are their script's own, and words need them."""
    return any(unicodedata.category(c) == "Mn" and (index == 0 or _script(c) == "COMBINING"
                                                   or _script(c) != _script(name[index - 1]))
               for index, c in enumerate(name))


#: Letters that show as nothing: the Hangul fillers (default-ignorable, yet letters of the Hangul
#: script, so ``pay`` + U+1160 + ``pal`` shows as "paypal") and the blank braille pattern.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")

#: Han, as :func:`_script` names it (unified and compatibility ideographs, iteration marks).
_HAN = frozenset({"CJK", "IDEOGRAPHIC"})

#: The scripts one language writes together, as UTS #39's highly restrictive profile allows them:
#: Japanese Han and kana, Chinese Han and Bopomofo, Korean Han and Hangul; with ASCII Latin letters
#: too, on the terms of :func:`_east_asian_in_latin_words`.
_WRITTEN_TOGETHER = (_HAN | {"HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"}, _HAN | {"BOPOMOFO"}, _HAN | {"HANGUL"})


def _one_east_asian_language(scripts: set[str]) -> bool:
    """Whether a name's scripts are those a Chinese, Japanese or Korean word mixes, and no other."""
    return bool(scripts) and any(scripts <= together for together in _WRITTEN_TOGETHER)


def _latin_and_one_east_asian_language(name: str, scripts: set[str]) -> bool:
    """Whether a name mixes ASCII Latin letters with the scripts of one East Asian language
    (``ai開発支援``, ``pdf转换``), as the highly restrictive profile allows.  A Latin letter beyond
    ASCII may not mix with them (``café工具``), as Chromium's display of domain names has it."""
    return "LATIN" in scripts and _one_east_asian_language(scripts - {"LATIN"}) and \
        all(c.isascii() for c in name if c.isalpha() and _script(c) == "LATIN")


#: CJK letters (Han, kana, Bopomofo, Hangul) that pass for a Latin letter, a digit or a dash, which
#: Unicode's confusables map to other CJK letters only (ㅣ to 丨, エ to 工): those Chromium's check
#: of domain names reads as Latin (七丅丆丁 t, 丫 y, 乂 x, 丩ㄐ 4, 一 -) or refuses beside other
#: scripts (ㄧ ー ノソゾン丶乀乁丿), the "Chinese font" alphabets' letters (卂乃匚乇卄ㄥ爪ㄖ卩尺丂ㄩ
#: and their Bopomofo twins ㄎㄗ), and the single strokes, dots and boxes reviews found, in
#: Hangul's compatibility and conjoining forms.
_EAST_ASIAN_LOOK_ALIKES = frozenset("七丅丆丁丫乂丩ㄐ一ㄧーノソゾン丶乀乁丿丨亅乚刂口ロエ冂凵匚乙几卂乃乇卄ㄥ爪ㄖ卩尺丂ㄩ"
                                    "ㄎㄗㄈㄇㄒㄚㄨㅇㅣㅡㄴㅁㆁㆍ\u1175\u110b\u1173\u1102\u1106〡〢〣工千山川")
#: Of those, the ones words are written with (kana, and Han letters such as 一 口 工: ログイン, 统一,
#: pdf工具), and the Hangul syllables made of look-alike letters (이, 미: 이미지): as Chromium reads
#: ン or 一, one is a look-alike beside a Latin word only alone (エnstall, to이) or in a run of
#: look-alikes inside a Latin word (g口口gle), not at the edge of a word (aiエージェント, ai이미지,
#: dnsゾーン, 山口api); and a name or a run of them apart from Latin words only with one of the
#: others (ソロ and dns-ゾーン are words, 丅口口乚 is TOOL).  Not 七 丁 乙 尺 乃 爪, which Chromium
#: and the "Chinese font" alphabet read as t, T, Z, R, B and M: gi七工具 is git工具 (and ai七天 is
#: rated high too).
_WORD_LOOK_ALIKES = frozenset("ーノソゾンロエ一口几工千山川")
#: Marks that repeat the letter before them, left out of a run of look-alikes (丅口口乚々 is still one).
_ITERATION_MARKS = frozenset("々〆〻ゝゞヽヾ")


def _syllable(char: str) -> bool:
    """Whether a character is a composed Hangul syllable."""
    return 0xAC00 <= ord(char) <= 0xD7A3


def _word_letter(char: str) -> bool:
    """Whether a look-alike is one words are written with (:data:`_WORD_LOOK_ALIKES`, a Hangul syllable)."""
    return char in _WORD_LOOK_ALIKES or _syllable(char)


def _looks_latin(char: str) -> bool:
    """Whether a CJK character passes for a Latin letter, digit or dash: one of
    :data:`_EAST_ASIAN_LOOK_ALIKES`, in any compatibility form (the Kangxi radical ⼁ for 丨), a
    CJK stroke (U+31C0-31EF: ㇑ is a bar), or a Hangul syllable made of such letters (이: ㅇ and ㅣ)."""
    if char in _EAST_ASIAN_LOOK_ALIKES or 0x31C0 <= ord(char) <= 0x31EF:
        return True
    folded, parts = unicodedata.normalize("NFKC", char), unicodedata.normalize("NFD", char)
    return folded in _EAST_ASIAN_LOOK_ALIKES or (len(parts) > 1 and all(p in _EAST_ASIAN_LOOK_ALIKES for p in parts))


#: A name cut into runs: of ASCII letters, of other letters (and letter-like numbers: 〇), of the rest.
_RUNS = re.compile(r"(?P<latin>[A-Za-z]+)|(?P<other>(?:(?![\x00-\x7f])[^\W\d_]|[\u3007\u3021-\u3029])+)|[^A-Za-z]")


def _east_asian_in_latin_words(name: str) -> bool:
    """Whether East Asian letters in a name that mixes them with Latin ones may pass for Latin
    letters (the signs and marks between them left out: a tone mark cuts no word): the letter of
    a run that touches a Latin word (``app丨e``, ``paypa丨工具``), a run of look-alikes against one
    (``エnstall``, ``payーpal``, ``g口口gle``, ``ema工丨``), or a run of look-alikes anywhere, one
    of them not a letter words are written with (``ai-丅口口乚``, ``gpt-ㄐ``).  A CJK word beside a
    Latin one is not (``pdf转word``, ``aiエージェント``, ``ai이미지``, ``excel로``)."""
    letters = "".join(c for c in name if (c.isascii() or c.isalpha() or _RUNS.fullmatch(c, 0).lastgroup)
                      and c not in _ITERATION_MARKS)
    runs = [(match.lastgroup, match.group()) for match in _RUNS.finditer(letters)]
    for index, (kind, run) in enumerate(runs):
        if kind != "other":
            continue
        touching = [run[0]] if index and runs[index - 1][0] == "latin" else []
        if index + 1 < len(runs) and runs[index + 1][0] == "latin":
            touching.append(run[-1])
        # Hangul syllables of look-alike letters pass for Latin ones alone (to이), not as a word (js미니)
        looks = all(_looks_latin(c) and (len(run) == 1 or not _syllable(c)) for c in run)
        inside = len(touching) == 2 or len(run) == 1 or not all(map(_word_letter, run))
        if (touching and looks and inside) or _look_alikes_only(run) \
                or any(_looks_latin(c) and not _word_letter(c) for c in touching):
            return True
    return False


def _look_alikes_only(letters: str) -> bool:
    """Whether ``letters`` all look like Latin ones, one of them other than the letters words are
    written with (:func:`_word_letter`)."""
    return bool(letters) and all(c in confusables() or _looks_latin(c) for c in letters) \
        and not all(map(_word_letter, letters))


def _latin_shaped(name: str) -> str:
    """A name's letters, when they all look like Latin ones (:func:`_look_alikes_only`); else ""."""
    letters = "".join(sorted({c for c in name if c.isalpha()}))
    return letters if _look_alikes_only(letters) else ""


#: The fullwidth punctuation Chinese, Japanese and Korean names are written with: brackets and
#: sentence marks.  Not the rest: a fullwidth digit, slash, dot, hyphen or bar passes for the
#: ASCII one in an id (``ツール１`` for ``ツール1``, ``日本語／データ`` for a nested folder).
_FULLWIDTH_PUNCTUATION = frozenset("\uff08\uff09\uff3b\uff3d\uff5b\uff5d\uff01\uff1f\uff0c\uff1b")


def _fullwidth_reason(name: str, east_asian: bool) -> str | None:
    """Why a name's fullwidth forms are deceptive: each passes for its ASCII twin, but for the
    brackets and sentence marks of a Chinese, Japanese or Korean name (``east_asian``:
    :func:`_one_east_asian_language`; ``データ（分析）``)."""
    fullwidth = [c for c in name if 0xFF01 <= ord(c) <= 0xFF5E]
    if any(c.isalpha() for c in fullwidth):
        return "fullwidth letters"
    allowed = _FULLWIDTH_PUNCTUATION if east_asian else frozenset()
    return "fullwidth digits or punctuation" if any(c not in allowed for c in fullwidth) else None


#: Categories of characters that show as nothing, or as no character of a name: format
#: characters (zero-width joiners, bidi marks), controls, line and paragraph separators and
#: private use.  (Not unassigned code points: what is unassigned depends on the Python, and
#: every admitted Python must audit alike.)
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Zl", "Zp", "Co"})


def _shows_as_nothing(char: str) -> bool:
    """Whether a character of a name shows as nothing (or as a space that is no space)."""
    category = unicodedata.category(char)
    return category in _INVISIBLE_CATEGORIES or (category == "Zs" and char != " ") or char in _BLANK_LETTERS


def _signs_in_words(name: str) -> str:
    """The signs of a name that look like Latin letters or digits (``〇``, ``०``, ``׀``) and are
    written against a letter, as a letter of a word is (``g〇〇gle``); not one between digits or
    on its own (``3×3``, ``∞-loop``)."""
    return "".join(sorted({c for index, c in enumerate(name) if (c in confusables() or _looks_latin(c))
                           and not c.isalpha()
                           and any(n.isalpha() for n in name[max(0, index - 1):index] + name[index + 1:index + 2])}))


def confusable_reason(name: str) -> str | None:
    """Why a skill name is deceptive (mixed scripts, look-alike or invisible letters), or None.
    The name is read in NFC: a folder named on macOS is decomposed (NFD), its accents combining."""
    if name.isascii():
        return None  # an ASCII control is no look-alike; reports show it escaped
    if any(unicodedata.normalize("NFC", c).isascii() for c in name if not c.isascii()):
        return "a character that is an ASCII one written otherwise (the Kelvin sign for K)"
    name = unicodedata.normalize("NFC", name)
    if any(map(_shows_as_nothing, name)) or _stray_mark(name):
        return "invisible or combining characters"
    scripts = {_script(c) for c in name if c.isalpha()}
    east_asian = _one_east_asian_language(scripts)
    with_latin = _latin_and_one_east_asian_language(name, scripts)
    fullwidth = _fullwidth_reason(name, east_asian or with_latin)
    if fullwidth:
        return fullwidth
    if any(c in styled() for c in name):
        return "styled letters (mathematical, circled or small capital forms)"
    if len(scripts) > 1 and not east_asian and (not with_latin or _east_asian_in_latin_words(name)):
        return f"letters from several scripts ({', '.join(sorted(scripts))})"
    if "LATIN" in scripts and (signs := _signs_in_words(name)):
        return f"signs that look like Latin letters or digits ({signs})"
    if letters := _latin_shaped(name):
        return f"only letters that look like Latin ones ({letters})"
    return None


@check(DECEPTIVE_NAME, scope="skill")
def deceptive_names(skill: SkillMd) -> Iterator[Hit]:
    """The skill's name, and the name of its folder when that differs."""
    name = skill.frontmatter.get("name") if skill.frontmatter else None
    if isinstance(name, str):
        reason = confusable_reason(name)
        if reason:
            offset = skill.key_offset("name")
            yield Hit("SK606", offset, offset + 4, f": {name!r} has {reason}", folded=False)
    folder_reason = confusable_reason(skill.folder_name)
    if folder_reason and skill.folder_name != name:
        yield Hit("SK606", 0, 0, f": folder {skill.folder_name!r} has {folder_reason}", folded=False)


_S = injection.BETWEEN_WORDS
_AGENT_DIRECTED = re.compile(
    rf"\b(?:you|assistant|agent|ai|claude|model|llm|copilot|gemini|codex|chatgpt|gpt)\b[^.\n]{{0,60}}"
    rf"\b(?:must|should|shall|will|need{_S}to|have{_S}to|always|never|are{_S}(?:to|required))\b|"
    rf"^\s*(?:note{_S}to|instructions?{_S}for|attention|important)(?:{_S}the)?{_S}"
    rf"(?:ai|assistant|agent|model|llm|claude)s?\b", re.IGNORECASE)
_COMMENT_ACTION = re.compile(
    r"\b(?:curl|wget|base64|exfiltrat\w*|upload|send|post|transmit|ssh|credential|password|token|secret|"
    r"api[_ ]?key|\.env\b|https?://|execute|run)\b", re.IGNORECASE)


#: A comment opener that starts a line (after indentation, quote and list markers): where an HTML
#: block starts, which an unclosed comment hides to the end of its container.
_BLOCK_OPENER = re.compile(r"^(?:[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t])))*[ \t]*<!--", re.MULTILINE)


def _hidden_opener(text: str, start: int, end: int) -> int | None:
    """Where the comment that ``text[start:end]`` (an opener with no closer after it) begins to
    hide text: an opener inside a line is shown as written (markdown-it makes no comment of it, in a
    code span or out of one), one that starts a line opens an HTML block hidden to the end."""
    found = _BLOCK_OPENER.search(text, text.rfind("\n", 0, start) + 1, end)
    while found is not None and found.end() - 4 < start:
        found = _BLOCK_OPENER.search(text, found.end(), end)
    return None if found is None else found.end() - 4


@rule("SK607", "invisible-text", "high", "instructions hidden in an HTML comment",
      "HTML comments do not show on rendered pages but reach the model: instructions addressed to the "
      "agent there are hidden from the people reviewing the skill.", demotion=SPOKEN,
      patterns=(pattern(r"<!--(.*?)(?:-->|\Z)", flags=re.DOTALL, scope="folded"),),
      applies=lambda doc: doc.kind in ("skill", "markdown"))
def hidden_instructions(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """A comment addressed to the agent that asks for an action, or that overrides its
    instructions or hides something from the user (SK610's and SK611's patterns).  A comment with no
    closer hides text only from an opener that starts a line (:func:`_hidden_opener`): 'a comment
    starting with `<!-- SCAN_PATHS:`' in a sentence hides nothing."""
    opener = match.start()
    if match.end() == len(match.string) and not match.group(0).endswith("-->"):  # no closer in the text
        hidden = _hidden_opener(match.string, match.start(), match.end(1))
        if hidden is None:
            return None
        opener = hidden
    inner = match.string[opener + 4:match.end(1)]
    if len(inner.strip()) < 12:
        return None
    if _AGENT_DIRECTED.search(inner) and _COMMENT_ACTION.search(inner) or any(
            p.gate.pattern.search(inner) for p in (*injection.OVERRIDE.patterns, *injection.concealment.patterns)):
        return hit if opener == match.start() else replace(hit, start=opener)  # found at the comment judged
    return None
