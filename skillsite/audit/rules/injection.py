"""Prompt injection (SK610-SK613): text that overrides the agent's instructions, hides actions
from the user, fakes the end of the skill's context, or turns off approvals.

Patterns run on the folded text (invisible characters removed, look-alike letters mapped to
ASCII, whitespace and line breaks between words allowed), case-insensitively, one paragraph at a
time: a phrase may be split over the lines of a paragraph, but does not run on across a blank line.
"""
from __future__ import annotations

import re
from dataclasses import replace

from skillsite.audit.declare import SPOKEN, Rule, pattern, prose, rule
from skillsite.audit.hit import Hit
from skillsite.audit.text import Document, clipped_after, clipped_before, line_bounds

#: Between words: spaces, line breaks, Markdown emphasis, quotes.
BETWEEN_WORDS = r"[\s*_`\"'>]+"
_S = BETWEEN_WORDS

#: Where rules that are a tool's, not the agent's, are said to live: "the previous rules in
#: .eslintrc" (a file: group ``file``), "in the ESLint config" (a tool's configuration).
_TOOL_RULES = re.compile(
    rf"{_S}(?:(?:defined|set|listed|configured|specified|declared|written|kept){_S})?(?:in|from|of){_S}"
    rf"(?:(?:the|this|our|that){_S})?(?:(?P<file>[\w/-]*\.(?:json|jsonc|ya?ml|toml|js|cjs|mjs|ts|ini|cfg|conf|xml)\b|"
    rf"\.[\w-]+rc\b)|[\w-]*(?:eslint|prettier|stylelint|ruff|lint|linter)(?:{_S}(?:config|configuration|file|"
    rf"settings))?\b)", re.IGNORECASE)


def _not_a_tools_rules(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Not rules (guidelines, policies...) the sentence places in a file ("ignore all previous
    rules defined in .eslintrc"); placed in a linter's configuration, medium.  Instructions and
    prompts always count, and so does "your config" (the agent's own)."""
    noun = match.group().rsplit(None, 1)[-1].lower()
    placed = None if noun.startswith(("instruction", "prompt", "message")) else _TOOL_RULES.match(
        doc.folded, match.end())
    if placed is None:
        return hit
    return None if placed.group("file") else replace(hit, severity="medium")


OVERRIDE = Rule(
    "SK610", "prompt-injection", "high", "text tries to override the agent's instructions",
    "Phrases such as 'ignore previous instructions' or 'your new instructions are' hijack the agent "
    "that loads the skill.", SPOKEN, patterns=(
        pattern(rf"\b(?:ignore|disregard|forget|override|bypass|drop)(?:{_S}(?:all|any|each|every|the|your|of|these|"
                rf"those|my))*{_S}(?:previous|prior|above|earlier|preceding|former|original|existing|initial|system|"
                rf"developer|safety|other)(?:{_S}(?:\w+))?{_S}(?:instructions?|prompts?|rules|directions|directives|"
                rf"guidelines|guidance|messages?|guardrails|policies|constraints|commands)\b",
                scope="paragraphs", condition=_not_a_tools_rules),
        prose(rf"\b(?:ignore|disregard|forget){_S}(?:everything|all|anything){_S}(?:(?:you|that){_S})?(?:were|was|"
              rf"have{_S}been|had{_S}been|'ve{_S}been){_S}(?:told|given|instructed|taught)"),
        prose(rf"\byour{_S}(?:new|real|true|actual){_S}(?:instructions|task|role|directive|objective|purpose|goal)s?"
              rf"{_S}(?:is|are)\b"),
        prose(rf"\byou{_S}are{_S}now{_S}(?:in{_S})?(?:developer|dan|jailbreak|jailbroken|unrestricted|god|admin|root)"
              rf"{_S}mode\b"),
        prose(rf"\b(?:new|updated|override){_S}system{_S}(?:prompt|instructions?)\s*:"),
        prose(rf"\b(?:these|the{_S}following|this{_S}skill'?s?){_S}instructions{_S}(?:supersede|override|replace)"
              rf"{_S}(?:all|any|your)\b"),
        prose(rf"\bfrom{_S}now{_S}on,?{_S}(?:you{_S})?(?:ignore|disregard|forget){_S}"),
        # the same with the instructions named first: "ignore the instructions above", "forget everything so far"
        prose(rf"\b(?:ignore|disregard|forget)(?:{_S}(?:all|any|each|every|the|your|of|these|those|my))*{_S}"
              rf"(?:instructions?|prompts?|directions|directives|guidance|everything|anything){_S}"
              rf"(?:above|before{_S}this|"
              rf"so{_S}far|(?:that{_S})?(?:you{_S})?(?:were|have{_S}been|'ve{_S}been){_S}(?:given|told)|"
              rf"given{_S}(?:above|before|earlier|previously|to{_S}you))\b"),
        # the same in Spanish, Portuguese, Italian and French: "ignora todas las instrucciones anteriores"
        prose(rf"\bignor(?:a|e|ad|en|ez|ar|er)\b(?:{_S}(?:todas|todos|toutes|tous|tutte|tutti|as|os|las|los|les|le|gli|"
              rf"i|tus|tes|vos|sus|suas|tue))*{_S}(?:instrucciones|instruções|instrucoes|instructions|istruzioni|"
              rf"consignes|indicaciones|reglas|regras|règles|regles|regole){_S}(?:anteriores|previas|prévias|"
              rf"precedentes|précédentes|precedenti|antérieures|anterieures|de{_S}arriba|ci-dessus|acima)\b"),
        # German: "ignoriere alle vorherigen Anweisungen", "vergiss alle bisherigen Regeln"
        prose(rf"\b(?:ignorier(?:e|en|t)?|vergiss|vergessen{_S}sie)(?:{_S}(?:alle|die|deine|ihre|sämtliche|jegliche))*"
              rf"{_S}(?:vorherigen|bisherigen|obigen|früheren|vorigen){_S}"
              rf"(?:anweisungen|instruktionen|regeln|befehle)\b"),
        # Chinese and Japanese: "忽略之前的所有指令", "以前の指示を無視して", "以前の指示をすべて無視して",
        # "これまでの指示は無視して"
        prose(r"(?:忽略|无视|忽视|無視|忘记|忘掉)掉?你?(?:之前|以上|先前|前面|上述|此前)的?(?:所有|全部|一切)?的?"
              r"(?:指令|指示|说明|規則|规则|提示)|(?:以前|前|上記|これまで)の(?:すべての|全ての)?(?:指示|命令|ルール|プロンプト)"
              r"[をは](?:すべて|全て|全部|一切)?(?:無視|忘れ)"),
        # Russian: "игнорируй все предыдущие инструкции", "забудь всё, что тебе говорили"
        prose(rf"\b(?:(?:про)?игнорируй(?:те)?|забудь(?:те)?|не{_S}обращай(?:те)?{_S}внимани[яе]{_S}на)"
              rf"(?:{_S}(?:все|всё|эти|свои|твои|ваши|мои|любые))*{_S}(?:предыдущие|прежние|предшествующие|"
              rf"вышеуказанные|изначальные|системные|исходные)(?:{_S}\w+)?{_S}(?:инструкции|указания|правила|"
              rf"команды|директивы|промпты?|ограничения)\b|\bзабудь(?:те)?{_S}вс[её],?{_S}что{_S}(?:тебе|вам)"
              rf"{_S}(?:говорили|сказали|было{_S}сказано)", folds=True),
        # "ignore your instructions", "forget your training"
        prose(rf"\b(?:ignore|disregard|forget)(?:{_S}(?:all|any|of))*{_S}your{_S}(?:(?:previous|prior|current|original|"
              rf"existing|initial|real|core|safety){_S})?(?:instructions|rules|guidelines|programming|training|"
              rf"directives|system{_S}prompt|prompt)\b"),
    ))

_VERBS = (r"(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|mention(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|"
          r"alert(?:ing)?|warn(?:ing)?)")
_SENSITIVE = re.compile(
    r"https?://|\b(?:curl|wget|upload\w*|exfiltrat\w*|credential\w*|passwords?|tokens?|secrets?|api[_ -]?keys?|"
    r"private\s+keys?|cookies?|webhook|install\w*|download\w*|base64|delete\w*|rm\s+-rf|send\s+(?:it|them|this|"
    r"that|the|all|every)|post\s+(?:it|them)|transmit\w*)\b|\.ssh\b|\.env\b|\.aws\b", re.IGNORECASE)
_DENIED = re.compile(r"\b(?:not|never|no)\W+$", re.IGNORECASE)
#: A modal verb after a subject other than the agent, right before "silently ...": "code that skips the
#: null check will silently insert", "any integration relying on `X` will silently transmit".  The agent,
#: you, we or it ("Claude will silently upload", "it may quietly send") are still told.
_OTHER_WILL = re.compile(r"(?<![\w'])(?![`'\"(]*(?:you|we|i|it|agent|assistant|claude|model|ai|skill|codex|gemini)\b)"
                         r"[\w`'\"().-]+\s+(?:will|would|may|might|could|can|does|did)\s+$", re.IGNORECASE)


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


@rule("SK611", "prompt-injection", "medium", "text tells the agent to hide actions from the user",
      "A skill that asks the agent not to tell the user what it does removes the user's only oversight; "
      "high when the same passage sends data, handles credentials, installs or deletes.", demotion=SPOKEN,
      patterns=(
          prose(rf"\b(?:do{_S}not|don'?t|never|without|avoid)(?:{_S}(?:ever|ask(?:ing)?|bother(?:ing)?))?{_S}{_VERBS}"
                rf"(?:{_S}(?:this|it|that|them|anything|about{_S}(?:this|it|that)))?(?:{_S}to)?(?:{_S}the)?{_S}"
                rf"(?:user|human|operator|person|owner)s?\b(?!{_S}to{_S}\w)"),
          # "don't let the user know", not "don't let users build labs" (let them do it)
          prose(rf"\b(?:do{_S}not|don'?t|never)(?:{_S}ever)?{_S}let(?:ting)?(?:{_S}the)?{_S}"
                rf"(?:user|human|operator|person|owner)s?{_S}(?:know|see|notice|find{_S}out|learn|reali[sz]e)\b"),
          prose(rf"\b(?:hide|conceal|keep){_S}(?:this|it|these|that|them|the{_S}\w+|all{_S}of{_S}this)"
                rf"(?:{_S}(?:hidden|secret))?{_S}from{_S}the{_S}(?:user|human|operator)"),
          prose(rf"\bthe{_S}(?:user|human|operator){_S}(?:must|should|need|will){_S}(?:not|never)"
                rf"(?:{_S}(?:to|be{_S}able{_S}to))?{_S}"
                rf"(?:know|find{_S}out|see|notice|learn|be{_S}told|be{_S}informed)\b"),
          prose(rf"\b(?:silently|secretly|quietly|covertly|discreetly|invisibly){_S}(?:send|upload|post|exfiltrate|"
                rf"copy|transmit|forward|execute|install|collect|harvest|gather|add|append|insert|include)\b"),
          prose(rf"\bwithout{_S}(?:the{_S})?(?:user|human)'?s?{_S}(?:knowledge|knowing|noticing|awareness)\b"),
          # Russian: "не говори пользователю", "скрой это от пользователя"
          prose(rf"\bне{_S}(?:говори|сообщай|рассказывай|упоминай|показывай)(?:те)?{_S}(?:(?:об{_S})?этом{_S}|"
                rf"ничего{_S})?пользовател(?:ю|ям)\b|\bскрой(?:те)?{_S}(?:это{_S}|вс[её]{_S})?от{_S}"
                rf"пользовател(?:я|ей)\b", folds=True),
      ))
def concealment(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Not "did not silently execute" (a statement that it does not happen), nor what something
    other than the agent "will silently insert" (a bug described); high with a sensitive word in
    the lines around it."""
    if _DENIED.search(doc.folded[max(0, match.start() - 12):match.start()]):
        return None
    if match.group()[:1].lower() == "s" and _OTHER_WILL.search(doc.folded, max(0, match.start() - 60), match.start()):
        return None
    nearby = doc.remember(_Sensitive, lambda: _Sensitive(doc.folded))
    sensitive = nearby.within(*_passage(doc, match.start(), match.end()))
    return replace(hit, detail=f" ({sensitive.group()!r} nearby)", severity="high") if sensitive else hit


_CLOSING = re.compile(r"</\s*([\w-]+)\s*>")


def _first_opening(doc: Document, tag: str) -> int:
    """Where the document first opens the XML block ``tag`` (its length when it never does)."""
    opening = re.search(rf"<\s*{re.escape(tag)}[\s>]", doc.folded, re.IGNORECASE)
    return opening.start() if opening else len(doc.folded)


@rule("SK612", "prompt-injection", "high", "fake context or chat-template delimiter",
      "Closing tags such as </skill_content> or </system>, or tokens such as <|im_start|>, try to end "
      "the skill's context and speak as the system or another role.", demotion=SPOKEN,
      patterns=(pattern(
          r"</\s*(?:skill_content|skill|system|system_prompt|system-prompt|instructions|user_query|"
          r"available_skills|function_results|tool_result|untrusted_content)\s*>|<\s*(?:skill_content|system)\s*>|"
          r"<\|\s*(?:im_start|im_end|im_sep|endoftext|system|user|assistant|start_header_id|end_header_id|eot_id|"
          r"begin_of_text|end_of_text|start|end|channel|message|return|call)\s*\|>|\[/?INST\]|<</?SYS>>|"
          r"<(?:start|end)_of_turn>"),))
def fake_delimiter(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Not a closing tag of an XML block the document opened before it (each tag's first opening
    is looked for once per document)."""
    closing = _CLOSING.fullmatch(match.group())
    if closing is not None:
        tag = closing.group(1)
        if doc.remember((_first_opening, tag.lower()), lambda: _first_opening(doc, tag)) < match.start():
            return None
    return replace(hit, detail=f": {match.group()!r}")


#: A modal verb after a subject other than the agent ("root user on Linux will disable sandbox", in a
#: flag's help): what a program does, stated, not the agent told to do it.
_STATED = re.compile(r"\b(?!you\b|we\b)\w+\s+(?:will|would|may|might|could|can|won't|wouldn't|can't|cannot)"
                     r"(?:\s+(?:also|then|not))?\s+$",
                     re.IGNORECASE)


#: What says that turning a check off is not called for, right before the words that turn it off
#: ("a failing hook is not a reason to disable security checks").
_NO_REASON = re.compile(rf"\bno(?:t{_S}a)?{_S}(?:good{_S})?reason{_S}to{_S}$", re.IGNORECASE)


#: A list item of a reference that documents a command-line option, up to the start of
#: its description: "- `--yolo`: Automatically approve all tool calls." (a table row is an example already).
_OPTION_ENTRY = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s*(?:\*\*)?`-{1,2}[\w-]+[^`\n]*`(?:\*\*)?"
                           r"(?:\s*(?:,|/|\(|\)|\*\*|`-{1,2}[\w-]+`))*\s*(?::|\||\u2014|\u2013|-)\s*$", re.MULTILINE)
#: A sentence right after the match that only warns ("... bypass permission checks. Use extreme caution.").
_CAUTION_NEXT = re.compile(r"[^.!?\n]{0,200}[.!?]\s+(?:\*\*)?(?:(?:use|exercise|proceed\s+with)\s+"
                           r"(?:extreme\s+|great\s+|extra\s+)?caution|be\s+(?:very\s+|extremely\s+)?careful)\b",
                           re.IGNORECASE)


def stated_not_asked(doc: Document, match: re.Match[str], hit: Hit) -> Hit | None:
    """Medium, not high, for what a program is said to do (a modal verb after its subject), or
    what is said to be no reason to do (the words before the match, not a cue anywhere in the
    sentence: "there is no reason to tell the user" after a request hides it, it does not warn),
    for what an option is documented to do in a reference's list of options, and for a sentence
    the next one warns against."""
    before = doc.folded[max(0, match.start() - 40):match.start()]
    line_start = line_bounds(doc.folded, match.start())[0]
    if doc.is_reference and match.start() - line_start < 200 and _OPTION_ENTRY.match(
            doc.folded, line_start, match.start()):
        return replace(hit, detail=" (what an option does, in a reference)", severity="medium")
    if _CAUTION_NEXT.match(doc.folded, match.end()):
        return replace(hit, detail=" (warned against)", severity="medium")
    if _STATED.search(before):
        return replace(hit, detail=" (stated of a program, not asked of the agent)", severity="medium")
    if _NO_REASON.search(before):
        return replace(hit, detail=" (said to be no reason to)", severity="medium")
    return hit


DISABLE_APPROVALS = Rule(
    "SK613", "prompt-injection", "high", "text tells the agent to turn off approvals or the sandbox",
    "Asking the agent to disable confirmations, the sandbox or safety checks lets everything after "
    "it run unreviewed.", SPOKEN, patterns=(
        prose(rf"\b(?:disable|turn{_S}off|switch{_S}off|bypass|circumvent|escape|break{_S}out{_S}of|deactivate|"
              rf"get{_S}around|skip|ignore)(?:{_S}(?:the|your|all|any|its|their|every))*{_S}(?:sandbox(?:ing|es)?\b"
              rf"(?!{_S}(?:testing|tests?|orgs?|refresh(?:es)?|issues|errors|problems|validation|deployments?)\b)|"
              rf"guardrails|safety{_S}(?:checks?|filters?|measures|rules|guidelines|restrictions)|"
              rf"(?:tool{_S}|command{_S})?(?:approval|permission){_S}(?:prompts?|checks?|requests?|dialogs?|system|"
              rf"settings?|mode)|approvals|user{_S}confirmations?|security{_S}(?:checks|restrictions|policies|"
              rf"guardrails))\b"),
        prose(rf"\b(?:auto-?approve|automatically{_S}approve|approve){_S}(?:all|every|any){_S}(?:commands?|"
              rf"tool{_S}calls?|tools?|actions?|requests?|permissions?|prompts?)\b"),
        prose(rf"\b(?:run|execute|do|perform|proceed|continue){_S}(?:[\w-]+{_S}){{0,4}}without{_S}(?:asking|requesting)"
              rf"(?:{_S}(?:for|the|user'?s?|their|any))*{_S}(?:permission|approval|consent)\b",
              severity="medium"),
    ), condition=stated_not_asked)
