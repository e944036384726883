"""Prompt injection (SK610-SK613) and instructions hidden in HTML comments (SK607).

Patterns run on the folded text (invisible characters removed, look-alike letters mapped to
ASCII, whitespace and line breaks between words allowed), case-insensitively, one paragraph at a
time: a phrase may be split over the lines of a paragraph, but does not run on across a blank line.
"""
from __future__ import annotations

import re
from typing import Iterator

from skillsite.audit.hit import Hit
from skillsite.audit.letters import ASCII_FORMS
from skillsite.audit.text import Document, Gate, clipped_after, clipped_before, gate, line_bounds

_I = re.IGNORECASE
_S = r"[\s*_`\"'>]+"  # between words: spaces, line breaks, Markdown emphasis, quotes


def _cyrillic(source: str) -> str:
    """A pattern or gate words written in Russian, as the folded text reads them: the Cyrillic
    letters that look like Latin ones are folded to those (:data:`~skillsite.audit.letters.ASCII_FORMS`)."""
    return "".join(ASCII_FORMS.get(char, char) for char in source).lower()

_OVERRIDE_WORDS = ("ignore disregard forget override bypass drop", "ignore disregard forget", "your",
                   "you", "system", "instructions", "from")
_OVERRIDE: list[Gate] = [gate(p, words, paragraphs=True) for words, p in zip(_OVERRIDE_WORDS, (
    rf"\b(?:ignore|disregard|forget|override|bypass|drop)(?:{_S}(?:all|any|each|every|the|your|of|these|those|my))*"
    rf"{_S}(?:previous|prior|above|earlier|preceding|former|original|existing|initial|system|developer|safety|"
    rf"other)(?:{_S}(?:\w+))?{_S}(?:instructions?|prompts?|rules|directions|directives|guidelines|guidance|"
    rf"messages?|guardrails|policies|constraints|commands)\b",
    rf"\b(?:ignore|disregard|forget){_S}(?:everything|all|anything){_S}(?:(?:you|that){_S})?(?:were|was|have{_S}been|"
    rf"had{_S}been|'ve{_S}been){_S}(?:told|given|instructed|taught)",
    rf"\byour{_S}(?:new|real|true|actual){_S}(?:instructions|task|role|directive|objective|purpose|goal)s?"
    rf"{_S}(?:is|are)\b",
    rf"\byou{_S}are{_S}now{_S}(?:in{_S})?(?:developer|dan|jailbreak|jailbroken|unrestricted|god|admin|root)"
    rf"{_S}mode\b",
    rf"\b(?:new|updated|override){_S}system{_S}(?:prompt|instructions?)\s*:",
    rf"\b(?:these|the{_S}following|this{_S}skill'?s?){_S}instructions{_S}(?:supersede|override|replace)"
    rf"{_S}(?:all|any|your)\b",
    rf"\bfrom{_S}now{_S}on,?{_S}(?:you{_S})?(?:ignore|disregard|forget){_S}",
))] + [
    # the same with the instructions named first: "ignore the instructions above", "forget everything so far"
    gate(rf"\b(?:ignore|disregard|forget)(?:{_S}(?:all|any|each|every|the|your|of|these|those|my))*{_S}"
         rf"(?:instructions?|prompts?|directions|directives|guidance|everything|anything){_S}(?:above|before{_S}this|"
         rf"so{_S}far|(?:that{_S})?(?:you{_S})?(?:were|have{_S}been|'ve{_S}been){_S}(?:given|told)|"
         rf"given{_S}(?:above|before|earlier|previously|to{_S}you))\b",
         "ignore disregard forget", "instruction prompt direction directive guidance everything anything",
         "above before far given told", paragraphs=True),
    # the same in Spanish, Portuguese, Italian and French: "ignora todas las instrucciones anteriores"
    gate(rf"\bignor(?:a|e|ad|en|ez|ar|er)\b(?:{_S}(?:todas|todos|toutes|tous|tutte|tutti|as|os|las|los|les|le|gli|i|"
         rf"tus|tes|vos|sus|suas|tue))*{_S}(?:instrucciones|instruções|instrucoes|instructions|istruzioni|consignes|"
         rf"indicaciones|reglas|regras|règles|regles|regole){_S}(?:anteriores|previas|prévias|precedentes|"
         rf"précédentes|precedenti|antérieures|anterieures|de{_S}arriba|ci-dessus|acima)\b",
         "ignor", "instruc instruç istruzion consigne indicacion regla regra règle regle regole", paragraphs=True),
    # German: "ignoriere alle vorherigen Anweisungen", "vergiss alle bisherigen Regeln"
    gate(rf"\b(?:ignorier(?:e|en|t)?|vergiss|vergessen{_S}sie)(?:{_S}(?:alle|die|deine|ihre|sämtliche|jegliche))*"
         rf"{_S}(?:vorherigen|bisherigen|obigen|früheren|vorigen){_S}(?:anweisungen|instruktionen|regeln|befehle)\b",
         "ignorier vergiss vergessen", "anweisung instruktion regeln befehle", paragraphs=True),
    # Chinese and Japanese: "忽略之前的所有指令", "以前の指示を無視して"
    gate(r"(?:忽略|无视|忽视|無視|忘记|忘掉)掉?你?(?:之前|以上|先前|前面|上述|此前)的?(?:所有|全部|一切)?的?"
         r"(?:指令|指示|说明|規則|规则|提示)|(?:以前|前|上記|これまで)の(?:すべての|全ての)?(?:指示|命令|ルール|プロンプト)"
         r"を(?:無視|忘れ)", "忽略 无视 忽视 無視 忘记 忘掉 忘れ", paragraphs=True),
    # Russian: "игнорируй все предыдущие инструкции", "забудь всё, что тебе говорили"
    gate(_cyrillic(rf"\b(?:(?:про)?игнорируй(?:те)?|забудь(?:те)?|не{_S}обращай(?:те)?{_S}внимани[яе]{_S}на)"
                   rf"(?:{_S}(?:все|всё|эти|свои|твои|ваши|мои|любые))*{_S}(?:предыдущие|прежние|предшествующие|"
                   rf"вышеуказанные|изначальные|системные|исходные)(?:{_S}\w+)?{_S}(?:инструкции|указания|правила|"
                   rf"команды|директивы|промпты?|ограничения)\b|\bзабудь(?:те)?{_S}вс[её],?{_S}что{_S}(?:тебе|вам)"
                   rf"{_S}(?:говорили|сказали|было{_S}сказано)"),
         _cyrillic("игнор забудь обращай"), paragraphs=True),
    # "ignore your instructions", "forget your training"
    gate(rf"\b(?:ignore|disregard|forget)(?:{_S}(?:all|any|of))*{_S}your{_S}(?:(?:previous|prior|current|original|"
         rf"existing|initial|real|core|safety){_S})?(?:instructions|rules|guidelines|programming|training|directives|"
         rf"system{_S}prompt|prompt)\b", "ignore disregard forget", "your", paragraphs=True),
]

_RU_CONCEAL = _cyrillic(
    rf"\bне{_S}(?:говори|сообщай|рассказывай|упоминай|показывай)(?:те)?{_S}(?:(?:об{_S})?этом{_S}|ничего{_S})?"
    rf"пользовател(?:ю|ям)\b|\bскрой(?:те)?{_S}(?:это{_S}|вс[её]{_S})?от{_S}пользовател(?:я|ей)\b")
_VERBS = (r"(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|mention(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|"
          r"alert(?:ing)?|warn(?:ing)?|let(?:ting)?)")
_CONCEAL_WORDS = ("not don never without avoid", "hide conceal keep", "user human operator",
                  "silently secretly quietly covertly discreetly invisibly", "without", _cyrillic("пользовател"))
_CONCEAL: list[Gate] = [gate(p, words, paragraphs=True) for words, p in zip(_CONCEAL_WORDS, (
    rf"\b(?:do{_S}not|don'?t|never|without|avoid)(?:{_S}(?:ever|ask(?:ing)?|bother(?:ing)?))?{_S}{_VERBS}"
    rf"(?:{_S}(?:this|it|that|them|anything|about{_S}(?:this|it|that)))?(?:{_S}to)?(?:{_S}the)?{_S}"
    rf"(?:user|human|operator|person|owner)s?\b(?!{_S}to{_S}\w)",
    rf"\b(?:hide|conceal|keep){_S}(?:this|it|these|that|them|the{_S}\w+|all{_S}of{_S}this)(?:{_S}(?:hidden|secret))?"
    rf"{_S}from{_S}the{_S}(?:user|human|operator)",
    rf"\bthe{_S}(?:user|human|operator){_S}(?:must|should|need|will){_S}(?:not|never)"
    rf"(?:{_S}(?:to|be{_S}able{_S}to))?{_S}(?:know|find{_S}out|see|notice|learn|be{_S}told|be{_S}informed)\b",
    rf"\b(?:silently|secretly|quietly|covertly|discreetly|invisibly){_S}(?:send|upload|post|exfiltrate|copy|"
    rf"transmit|forward|execute|install|collect|harvest|gather|add|append|insert|include)\b",
    rf"\bwithout{_S}(?:the{_S})?(?:user|human)'?s?{_S}(?:knowledge|knowing|noticing|awareness)\b",
    _RU_CONCEAL,
))]

_DELIMITERS = gate(
    r"</\s*(?:skill_content|skill|system|system_prompt|system-prompt|instructions|user_query|"
    r"available_skills|function_results|tool_result|untrusted_content)\s*>|<\s*(?:skill_content|system)\s*>|"
    r"<\|\s*(?:im_start|im_end|im_sep|endoftext|system|user|assistant|start_header_id|end_header_id|eot_id|"
    r"begin_of_text|end_of_text|start|end|channel|message|return|call)\s*\|>|\[/?INST\]|<</?SYS>>|"
    r"<(?:start|end)_of_turn>", "</ <| [inst] [/inst] <<sys>> <</sys>> _of_turn> <skill_content <system")

_DISABLE_WORDS = ("sandbox guardrail safety approval permission confirmation security", "approve",
                  "without")
_DISABLE: list[tuple[Gate, str]] = [(gate(p, words, paragraphs=True), sev) for words, (p, sev) in zip(_DISABLE_WORDS, (
    (rf"\b(?:disable|turn{_S}off|switch{_S}off|bypass|circumvent|escape|break{_S}out{_S}of|deactivate|"
     rf"get{_S}around|skip|ignore)(?:{_S}(?:the|your|all|any|its|their|every))*{_S}(?:sandbox(?:ing|es)?|"
     rf"guardrails|safety{_S}(?:checks?|filters?|measures|rules|guidelines|restrictions)|"
     rf"(?:tool{_S}|command{_S})?(?:approval|permission){_S}(?:prompts?|checks?|requests?|dialogs?|system|"
     rf"settings?|mode)|approvals|user{_S}confirmations?|security{_S}(?:checks|restrictions|policies|"
     rf"guardrails))\b", "high"),
    (rf"\b(?:auto-?approve|automatically{_S}approve|approve){_S}(?:all|every|any){_S}(?:commands?|tool{_S}calls?|"
     rf"tools?|actions?|requests?|permissions?|prompts?)\b", "high"),
    (rf"\b(?:run|execute|do|perform|proceed|continue){_S}(?:[\w-]+{_S}){{0,4}}without{_S}(?:asking|requesting)"
     rf"(?:{_S}(?:for|the|user'?s?|their|any))*{_S}(?:permission|approval|consent)\b", "medium"),
))]

_COMMENT = re.compile(r"<!--(.*?)(?:-->|\Z)", re.DOTALL)
_AGENT_DIRECTED = re.compile(
    rf"\b(?:you|assistant|agent|ai|claude|model|llm|copilot|gemini|codex|chatgpt|gpt)\b[^.\n]{{0,60}}"
    rf"\b(?:must|should|shall|will|need{_S}to|have{_S}to|always|never|are{_S}(?:to|required))\b|"
    rf"^\s*(?:note{_S}to|instructions?{_S}for|attention|important)(?:{_S}the)?{_S}"
    rf"(?:ai|assistant|agent|model|llm|claude)s?\b", _I)
_COMMENT_ACTION = re.compile(
    r"\b(?:curl|wget|base64|exfiltrat\w*|upload|send|post|transmit|ssh|credential|password|token|secret|"
    r"api[_ ]?key|\.env\b|https?://|execute|run)\b", _I)
_COMMENT_BENIGN = re.compile(r"^\s*(?:prettier|markdownlint|eslint|vale|textlint|cspell|todo|fixme|toc|"
                             r"begin|end|start|stop|section|generated|auto-?generated|do not edit|lint)", _I)


_SENSITIVE = re.compile(
    r"https?://|\b(?:curl|wget|upload\w*|exfiltrat\w*|credential\w*|passwords?|tokens?|secrets?|api[_ -]?keys?|"
    r"private\s+keys?|cookies?|webhook|install\w*|download\w*|base64|delete\w*|rm\s+-rf|send\s+(?:it|them|this|"
    r"that|the|all|every)|post\s+(?:it|them)|transmit\w*)\b|\.ssh\b|\.env\b|\.aws\b", re.IGNORECASE)
_CLOSING = re.compile(r"</\s*([\w-]+)\s*>")


def _passage(doc: Document, start: int, end: int) -> tuple[int, int]:
    """Where the lines around a match are in the folded text (one line on either side, each read
    no further than :data:`~skillsite.audit.text.REACH` from the match)."""
    text = doc.folded
    begin, finish = line_bounds(text, start, end)
    if begin > 0 and not clipped_before(text, begin):
        begin = line_bounds(text, begin - 1)[0]
    if finish < len(text) and not clipped_after(text, finish):
        finish = line_bounds(text, finish + 1)[1]
    return begin, finish


class _Sensitive:
    """The first sensitive word (:data:`_SENSITIVE`) in each passage of a text, for passages met
    in order: one search serves every passage up to the word it found, so a line of thousands of
    matches is not searched again for each."""

    def __init__(self, text: str):
        self.text = text
        self.searched_from = -1
        self.found: re.Match[str] | None = None

    def within(self, begin: int, finish: int) -> re.Match[str] | None:
        stale = self.found is not None and self.found.start() < begin
        if self.searched_from < 0 or begin < self.searched_from or stale:
            self.found, self.searched_from = _SENSITIVE.search(self.text, begin), begin
        return self.found if self.found is not None and self.found.end() <= finish else None


def _unopened(doc: Document, delimiters: Iterator[re.Match[str]]) -> Iterator[re.Match[str]]:
    """The delimiters that do not close an XML block opened earlier in the document (each tag's
    first opening is looked for once)."""
    first_opening: dict[str, int] = {}
    for delimiter in delimiters:
        closing = _CLOSING.fullmatch(delimiter.group())
        if closing is None:
            yield delimiter
            continue
        tag = closing.group(1).lower()
        if tag not in first_opening:
            opening = re.search(rf"<\s*{re.escape(closing.group(1))}[\s>]", doc.folded, re.IGNORECASE)
            first_opening[tag] = opening.start() if opening else len(doc.folded)
        if first_opening[tag] >= delimiter.start():
            yield delimiter


def _phrases(doc: Document) -> Iterator[Hit]:
    for pattern in _OVERRIDE:
        for match in pattern.finditer(doc):
            yield Hit("SK610", match.start(), match.end())
    for pattern in _CONCEAL:
        nearby = _Sensitive(doc.folded)
        for match in pattern.finditer(doc):
            if re.search(r"\b(?:not|never|no)\W+$", doc.folded[max(0, match.start() - 12):match.start()], re.I):
                continue  # "did not silently execute": a statement that it does not happen
            sensitive = nearby.within(*_passage(doc, match.start(), match.end()))
            yield Hit("SK611", match.start(), match.end(), f" ({sensitive.group()!r} nearby)" if sensitive else "",
                      severity="high" if sensitive else None)
    for match in _unopened(doc, _DELIMITERS.finditer(doc)):
        yield Hit("SK612", match.start(), match.end(), f": {match.group()!r}")
    for pattern, severity in _DISABLE:
        for match in pattern.finditer(doc):
            yield Hit("SK613", match.start(), match.end(), severity=severity)  # type: ignore[arg-type]


def _comments(doc: Document) -> Iterator[Hit]:
    if doc.kind not in ("skill", "markdown") or "<!--" not in doc.folded:
        return
    for match in _COMMENT.finditer(doc.folded):
        inner = match.group(1)
        if len(inner.strip()) < 12 or _COMMENT_BENIGN.search(inner):
            continue
        if _AGENT_DIRECTED.search(inner) and _COMMENT_ACTION.search(inner) or any(
                p.pattern.search(inner) for p in (*_OVERRIDE, *_CONCEAL)):
            yield Hit("SK607", match.start(), match.end())


def check_injection(doc: Document) -> Iterator[Hit]:
    """SK607 and SK610-SK613 in one document."""
    yield from _phrases(doc)
    yield from _comments(doc)
