"""Validation: the two profiles, checks beyond the schema, normalised extension keys."""
from __future__ import annotations

import pytest

from support import write_skill
from skillsite.source.catalog import read_catalog
from skillsite.source.checks import published_patterns


def diag_codes(reading, severity=None) -> list[str]:
    return sorted(d.code for d in reading.diagnostics if severity is None or d.severity.value == severity)


def test_a_clean_skill_has_no_diagnostics(tmp_path):
    write_skill(tmp_path, "clean")
    reading = read_catalog([tmp_path])
    assert reading.diagnostics == () and reading.verdicts()[0]["valid"]


def test_unknown_keys_warn_in_default_and_fail_in_spec(tmp_path):
    write_skill(tmp_path, "x", "name: x\ndescription: d\nauthor: me\n")
    assert diag_codes(read_catalog([tmp_path]), "warning") == ["SK207"]
    spec = read_catalog([tmp_path], profile="spec")
    assert diag_codes(spec, "error") == ["SK207"]
    assert not spec.verdicts()[0]["valid"]
    assert spec.diagnostics[0].line == 4


def test_claude_code_keys_are_known_kept_in_extra_and_mistyped_only_warn(tmp_path):
    """Claude Code documents when_to_use, model, context and the rest: SK207 said each was unknown
    (71 'model' warnings in nine public repositories).  Not skillsite's keys: a wrong type warns."""
    write_skill(tmp_path, "cc", "name: cc\ndescription: d\nwhen_to_use: When asked.\nmodel: sonnet\neffort: high\n"
                                "context: fork\nagent: Explore\npaths: ['docs/**']\nhooks: {PreToolUse: []}\n"
                                "shell: bash\narguments: [topic]\n")
    reading = read_catalog([tmp_path])
    assert reading.diagnostics == ()
    assert list(reading.skills[0].extra) == ["agent", "arguments", "context", "effort", "hooks", "model", "paths",
                                             "shell", "when_to_use"]
    write_skill(tmp_path, "cc", "name: cc\ndescription: d\nmodel: [3]\nhooks: [x]\n")
    assert diag_codes(read_catalog([tmp_path]), "warning") == ["SK208", "SK208"]


@pytest.mark.parametrize("tags", ["tags:\n  - first\n  - null\n  - third\n", "tags: [first,\n  null, third]\n"])
def test_a_wrong_item_of_a_list_is_pointed_at_on_its_own_line(tmp_path, tags):
    """A null item of 'tags:' gave SK208 at the 'tags:' line, not the item's (the anyOf of a
    list or a string named the item in the message but placed it at its parent)."""
    write_skill(tmp_path, "t", "name: t\ndescription: d\n" + tags)
    said = [(d.code, d.line, d.col, d.message) for d in read_catalog([tmp_path]).diagnostics]
    line, column = (6, 5) if tags.startswith("tags:\n") else (5, 3)  # 'tags:' is line 4
    assert said == [("SK208", line, column, "'tags[1]' must be a string, not null")]


@pytest.mark.parametrize("written, line, column, message", [
    ("tags:\n  - first\n  - kind: second\n", 6, 5, "'tags[1]' must be a string, not mapping"),
    ("examples:\n  - [a, b]\n", 5, 5, "'examples[0]' must be a string or a mapping, not list ([\"a\", \"b\"])"),
    ("conflicts: 5\n", 4, 1, "'conflicts' must be a list of strings or a string, not integer (5)"),
])
def test_a_value_of_a_right_type_is_told_what_fails_inside_it(tmp_path, written, line, column, message):
    """A mapping item of a list was told the anyOf's message, which contradicts itself ("must be a
    string or a mapping, not mapping" for a 'tools' item without 'name').  When the value has a
    branch's type, that branch's failure is said instead, at its own line; a value of no branch's
    type is still told the types it may have ('tools' and 'parameters' are ignored whole now:
    SK234, said at the key)."""
    write_skill(tmp_path, "t", "name: t\ndescription: d\n" + written)
    said = [(d.code, d.line, d.col, d.message) for d in read_catalog([tmp_path]).diagnostics]
    assert said == [("SK208", line, column, message)]


@pytest.mark.parametrize("written", ["yes", "no", "on", "off", "true", "1.5", "2024-01-01"])
def test_claude_code_s_when_to_use_is_the_text_written(tmp_path, written):
    """'when_to_use: yes' was published as true (and warned 'must be a string, not boolean'):
    Claude Code appends the text to the description.  As 'description: yes' is, it is kept as
    written with SK111, whatever YAML 1.1 reads it as."""
    write_skill(tmp_path, "cc", f"name: cc\ndescription: {written}\nwhen_to_use: {written}\nmodel: {written}\n"
                                f"arguments: [{written}]\npaths: [{written}]\n")
    reading = read_catalog([tmp_path])
    said = [(d.code, d.severity.value, d.line, d.message.split(";")[0]) for d in reading.diagnostics
            if d.code != "SK016"]   # 'description: true' is no text for npx skills either: about the description
    assert {d.line for d in reading.diagnostics if d.code == "SK016"} <= {3}
    kind = said[0][3].split(" is ")[1]
    assert said == [("SK111", "warning", 3, f"'description: {written}' is {kind}"),
                    ("SK111", "warning", 4, f"'when_to_use: {written}' is {kind}"),
                    ("SK111", "warning", 5, f"'model: {written}' is {kind}"),
                    ("SK111", "warning", 6, f"'arguments[]: {written}' is {kind}"),
                    ("SK111", "warning", 7, f"'paths[]: {written}' is {kind}")]
    skill = reading.skills[0]
    assert skill.description == written
    assert skill.extra == {"arguments": [written], "model": written, "paths": [written], "when_to_use": written}


def test_extension_keys_are_understood_and_type_checked(tmp_path):
    write_skill(tmp_path, "ext", """\
        name: ext
        description: d
        version: "1.2"
        tags: [a, b]
        priority: high
        always: true
        requires: {bins: [git], env: [TOKEN], platforms: [linux, macos]}
        tools:
          - {name: git, purpose: vcs, required: true}
          - jq
        parameters: {target: {description: where, required: true}}
        """)
    reading = read_catalog([tmp_path])
    assert diag_codes(reading, "warning") == ["SK233"] and diag_codes(reading) == ["SK233"]
    bad = reading.diagnostics[0]
    assert "'priority' 'high' is not a whole number" in bad.message and bad.line == 6
    skill = reading.skills[0]
    assert skill.tags == ("a", "b") and skill.version == "1.2" and skill.always and skill.priority == 0
    assert skill.extra == {"priority": "high"}
    assert skill.requirements.bins == ("git",) and skill.requirements.platforms == ("linux", "darwin")
    assert skill.tools == ({"name": "git", "purpose": "vcs", "required": True},
                           {"name": "jq", "purpose": "", "required": False})
    assert skill.parameters == ({"name": "target", "description": "where", "required": True},)


@pytest.mark.parametrize("written, shown, kept", [("CRITICAL", "'CRITICAL'", "CRITICAL"), ("true", "true", True),
                                                  ("1.5", "1.5", 1.5), ("'7'", "'7'", "7"), ("[1]", "[1]", [1])])
def test_a_priority_that_is_no_whole_number_warns_reads_as_0_and_is_kept_in_extra(tmp_path, written, shown, kept):
    """sickn33/antigravity-awesome-skills' clean-code says 'priority: CRITICAL' (another tool's
    label): SK208, an error, failed the build of its 1,000 skills.  Now a warning saying what was
    written; the skill ranks as one without a priority, and the label is kept in the manifest's extra."""
    write_skill(tmp_path, "clean-code", f"name: clean-code\ndescription: d\npriority: {written}\nmodel: x\n")
    reading = read_catalog([tmp_path])
    assert [(d.code, d.severity.value, d.line) for d in reading.diagnostics] == [("SK233", "warning", 4)]
    assert reading.diagnostics[0].message == (f"'priority' {shown} is not a whole number; ignored (read as 0, the "
                                              "default) and kept in the manifest's extra")
    assert reading.verdicts()[0]["valid"]
    skill = reading.skills[0]
    assert skill.priority == 0 and skill.extra == {"model": "x", "priority": kept}


@pytest.mark.parametrize("written, shown, kept", [(".nan", "NaN", ".nan"), (".NaN", "NaN", ".nan"),
                                                  ("-.inf", "-Infinity", "-.inf"), (".inf", "Infinity", ".inf")])
def test_a_priority_json_has_no_number_for_is_kept_in_extra_as_yaml_writes_it(tmp_path, written, shown, kept):
    """'priority: .nan' warned that it was kept in the manifest's extra, where it was null (JSON has
    no NaN): no value at all.  It is kept as the text YAML writes it, as an infinity is."""
    write_skill(tmp_path, "p", f"name: p\ndescription: d\npriority: {written}\nother: [{written}]\n")
    reading = read_catalog([tmp_path])
    assert {(d.code, d.line) for d in reading.diagnostics} == {("SK233", 4), ("SK207", 5)}  # an infinity: 2 SK233
    assert reading.diagnostics[0].message.startswith(f"'priority' {shown} is not a whole number; ")
    assert reading.skills[0].priority == 0 and reading.skills[0].extra == {"other": [kept], "priority": kept}


@pytest.mark.parametrize("written", ["priority: null", "priority:", "priority: ~"])
def test_a_null_priority_is_said_as_a_null_version_or_license_is(tmp_path, written):
    """'priority:' with nothing is no whole number: SK233, a warning (the skill ranks as one without
    a priority), as 'version:' or 'license:' with nothing is read as not written (SK234, a warning);
    both kept in extra as null."""
    write_skill(tmp_path, "p", f"name: p\ndescription: d\n{written}\nversion:\n")
    reading = read_catalog([tmp_path])
    said = [(d.code, d.severity.value, d.line, d.message) for d in reading.diagnostics]
    assert said == [("SK233", "warning", 4, "'priority' null is not a whole number; ignored (read as 0, the default) "
                                            "and kept in the manifest's extra"),
                    ("SK234", "warning", 5, "'version' is empty (nothing after 'version:'); ignored, as if not "
                                            "written, and kept in the manifest's extra")]
    assert reading.skills[0].priority == 0 and reading.skills[0].extra == {"priority": None, "version": None}


@pytest.mark.parametrize("written, side", [("1.0e+300", "2**53"), ("9007199254740993", "2**53"),
                                           ("-9007199254740993", "-2**53")])
def test_a_priority_past_what_json_readers_hold_exactly_warns_and_reads_as_0(tmp_path, written, side):
    """A review's '1.0e+300' ranked as a 301-digit integer of float noise, with no warning."""
    write_skill(tmp_path, "p", f"name: p\ndescription: d\npriority: {written}\n")
    reading = read_catalog([tmp_path])
    [said] = reading.diagnostics
    assert (said.code, said.severity.value) == ("SK233", "warning") and f"is past {side}," in said.message
    assert reading.skills[0].priority == 0 and "priority" in reading.skills[0].extra


_REQUIRES = "a mapping of bins, env and platforms); ignored (no requirement read from it)"
_PLATFORMS = "one or a list of linux, darwin, macos, windows, win32); ignored (no platform read from it)"
_TOOLS = "a list of tool names or {name, purpose, required} mappings); ignored (no tool listed from it)"
_NAMES = "a list of names or a string of them); ignored (nothing required by it)"


@pytest.mark.parametrize("written, line, said, kept, bins", [
    ("requires: python3, ffmpeg\n", 4, f"'requires' 'python3, ffmpeg' is not in a shape skillsite reads ({_REQUIRES}",
     {"requires": "python3, ffmpeg"}, ()),
    ('requires: "An OpenAI API key"\n', 4, "'requires' 'An OpenAI API key' is not in a shape", {"requires":
                                                                                              "An OpenAI API key"}, ()),
    ("requires: 5\nrequires_bins: [git]\n", 4, "'requires' 5 is not in a shape", {"requires": 5}, ("git",)),
    ("requires: [node]\n", 4, "'requires' [\"node\"] is not in a shape", {"requires": ["node"]}, ()),
    ("platforms: [claude-code, cursor]\n", 4,
     f"'platforms' [\"claude-code\", \"cursor\"] is not in a shape skillsite reads ({_PLATFORMS}",
     {"platforms": ["claude-code", "cursor"]}, ()),
    ("platforms: [linux, ios]\n", 4, "'platforms' [\"linux\", \"ios\"] is not", {"platforms": ["linux", "ios"]}, ()),
    ("platforms: Linux\n", 4, "'platforms' 'Linux' is not", {"platforms": "Linux"}, ()),
    ("requires:\n  bins: [git]\n  platforms:\n    - ios\n    - android\n", 6,
     f"'requires.platforms' [\"ios\", \"android\"] is not in a shape skillsite reads ({_PLATFORMS}",
     {"requires": {"platforms": ["ios", "android"]}}, ("git",)),
    ("requires:\n  bins: [curl]\n  env:\n    - name: TOKEN\n      description: The key.\n", 6,
     f"'requires.env' [{{\"name\": \"TOKEN\", \"description\": \"The key.\"}}] is not in a shape skillsite "
     f"reads ({_NAMES}",
     {"requires": {"env": [{"name": "TOKEN", "description": "The key."}]}}, ("curl",)),
    ("requires_env: [TOKEN, {SECRET: a key}]\nrequires: {bins: git}\n", 4, "'requires_env' [\"TOKEN\", {",
     {"requires_env": ["TOKEN", {"SECRET": "a key"}]}, ("git",)),
    ('tools: "Read, Grep"\n', 4, f"'tools' 'Read, Grep' is not in a shape skillsite reads ({_TOOLS}",
     {"tools": "Read, Grep"}, ()),
    ("tools: {a: b}\n", 4, "'tools' {\"a\": \"b\"} is not in a shape", {"tools": {"a": "b"}}, ()),
])
def test_requires_platforms_or_tools_in_another_tool_s_shape_warn_and_are_ignored(tmp_path, written, line, said,
                                                                                    kept, bins):
    """AgentWorkers/skills writes 'requires: python3, ffmpeg', 'platforms: [ios, android]',
    'tools: "Read, Grep"' and 'env: [{name: TOKEN}]' (127 skills): SK208, an error, left each skill
    out, where an unknown key only warns.  Now SK234 warns; the value is ignored (a platforms list
    naming ios made no loader offer the skill) and kept in the manifest's extra, as a priority label
    is (SK233)."""
    write_skill(tmp_path, "s", "name: s\ndescription: d\n" + written)
    reading = read_catalog([tmp_path])
    assert [(d.code, d.severity.value, d.line) for d in reading.diagnostics] == [("SK234", "warning", line)]
    message = reading.diagnostics[0].message
    assert message.startswith(said) and message.endswith(" and kept in the manifest's extra"), message
    assert reading.verdicts()[0]["valid"]
    skill = reading.skills[0]
    assert skill.extra == kept and skill.tools == ()
    assert (skill.requirements.bins, skill.requirements.env, skill.requirements.platforms) == (bins, (), ())


_TRIGGERS = ("is not in a shape skillsite reads (a list of phrases, or a mapping of keywords, verbs and patterns, "
             "each a list of strings); ignored (no trigger read from it)")


@pytest.mark.parametrize("written, said, kept", [
    ("triggers:\n  - command: /seed\n  - pattern: find my first users\n",
     f"'triggers' [{{\"command\": \"/seed\"}}, {{\"pattern\": \"find my first users\"}}] {_TRIGGERS}",
     [{"command": "/seed"}, {"pattern": "find my first users"}]),
    ("triggers:\n  - reddit seeding\n  - command: /seed\n", "'triggers' [\"reddit seeding\", {\"command\": \"/se",
     ["reddit seeding", {"command": "/seed"}]),
    ("triggers:\n  keywords: [trending]\n  intent_patterns: ['热点|trending']\n  confidence_threshold: 0.6\n",
     "'triggers' {\"keywords\": [\"trending\"], \"intent_patterns\"",
     {"keywords": ["trending"], "intent_patterns": ["热点|trending"], "confidence_threshold": 0.6}),
    ("triggers: 'check agents, fleet status'\n", f"'triggers' 'check agents, fleet status' {_TRIGGERS}",
     "check agents, fleet status"),
    ("tools:\n  - git\n  - python3: Required. Runs the scripts.\n",
     f"'tools' [\"git\", {{\"python3\": \"Required. Runs the scripts.\"}}] is not in a shape skillsite reads ({_TOOLS}",
     ["git", {"python3": "Required. Runs the scripts."}]),
    ("tools:\n  - name: git\n    required: yes please\n", "'tools' [{\"name\": \"git\", \"required\": \"yes please\"}]",
     [{"name": "git", "required": "yes please"}]),
    ("parameters:\n  type: object\n  properties:\n    text: {type: string}\n  required:\n    - text\n",
     "'parameters' {\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"… is not in a "
     "shape skillsite reads (a list of {name, description, type, required} mappings, or a mapping of names to a "
     "mapping or a text); ignored (no parameter read from it)",
     {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    ("parameters:\n  - name: text\n  - description: the text\n", "'parameters' [{\"name\": \"text\"}, {",
     [{"name": "text"}, {"description": "the text"}]),
])
def test_triggers_tools_or_parameters_in_another_shape_warn_and_are_ignored_whole(tmp_path, written, said, kept):
    """AgentWorkers/skills writes 'triggers' as a list of {command: ...} or {pattern: ...} mappings
    (23 skills), another tool's mapping (intent_patterns, confidence_threshold) or one string, 'tools'
    items as {python3: Runs ...} and 'parameters' as a JSON Schema ('required: [text]'): SK208, an
    error, left each skill out.  SK234 warns at the key; the value is ignored whole, as if not
    written (a value read in part would publish the phrases, keywords, tools or parameters it holds
    beside what it meant), and kept in the manifest's extra.  The spec profile still refuses them."""
    write_skill(tmp_path, "s", "name: s\ndescription: d\n" + written)
    reading = read_catalog([tmp_path])
    assert [(d.code, d.severity.value, d.line, d.col) for d in reading.diagnostics] == [("SK234", "warning", 4, 1)]
    message = reading.diagnostics[0].message
    assert message.startswith(said) and message.endswith(" and kept in the manifest's extra"), message
    assert reading.verdicts()[0]["valid"]
    skill = reading.skills[0]
    key = written.split(":")[0]
    assert skill.extra == {key: kept}
    assert (skill.triggers, skill.tools, skill.parameters) == ({}, (), ())
    spec = read_catalog([tmp_path], profile="spec")
    assert [(d.code, d.severity.value, d.line) for d in spec.diagnostics] == [("SK207", "error", 4)]
    assert not spec.verdicts()[0]["valid"]


def test_a_triggers_value_ignored_whole_is_read_by_no_check(tmp_path):
    """Every reader of 'triggers' reads it through one view (read_value): a value ignored whole has
    no entry to check (an empty keyword and an unsafe pattern were SK214 errors beside SK234) and
    publishes no pattern to the catalog's budget (published_patterns, SK231)."""
    written = "triggers:\n  keywords: ['', canary]\n  patterns: ['(a+)+$', 'v\\d+']\n  intent_patterns: [deploy]\n"
    write_skill(tmp_path, "s", "name: s\ndescription: d\n" + written)
    reading = read_catalog([tmp_path])
    assert [(d.code, d.severity.value) for d in reading.diagnostics] == [("SK234", "warning")]
    fm = {"triggers": {"patterns": ["v\\d+"], "intent_patterns": ["deploy"]}}
    assert published_patterns(fm, {}) == ()
    assert [pattern for pattern, *_ in published_patterns({"triggers": {"patterns": ["v\\d+"]}}, {})] == ["v\\d+"]


@pytest.mark.parametrize("written, said, kept", [
    ("metadata:\n", "'metadata' is empty (nothing after 'metadata:'); ignored, as if not written", {"metadata": None}),
    ("metadata: API access\n", "'metadata' 'API access' is not in a shape", {"metadata": "API access"}),
    ("compatibility: [claude-code, cursor]\n", "'compatibility' [\"claude-code\", \"cursor\"] is not in a shape "
     "skillsite reads (text)", {"compatibility": ["claude-code", "cursor"]}),
    ("compatibility: {python: '>=3.10'}\n", "'compatibility' {\"python\": \">=3.10\"} is not", {"compatibility": {
        "python": ">=3.10"}}),
    ("compatibility: ''\n", "'compatibility' '' is empty", {"compatibility": ""}),
    ("license: {name: MIT}\n", "'license' {\"name\": \"MIT\"} is not in a shape", {"license": {"name": "MIT"}}),
    ("allowed-tools:\n  - Read\n  - WebFetch(domain: linear.app)\n", "'allowed-tools' [\"Read\", {\"WebFetch(domain\": "
     "\"linear.app)\"}] is not in a shape skillsite reads (a string of tools, or a list of them); ignored (no tool "
     "allowed by it)", {"allowed-tools": ["Read", {"WebFetch(domain": "linear.app)"}]}),
    ("allowed-tools:\n", "'allowed-tools' is empty", {"allowed-tools": None}),
])
def test_an_optional_key_of_the_specification_in_another_shape_warns_and_is_ignored(tmp_path, written, said, kept):
    """The specification's guide for clients skips a skill only for a missing description or YAML
    that cannot be read; 88 skills of AgentWorkers/skills were left out for a 'compatibility' list or
    mapping, or a 'metadata' string or nothing (SK208, an error), and 30 of seaworld008's for an empty
    'metadata:' or 'allowed-tools:'.  SK234 warns; the value is ignored whole (no tool allowed by an
    allowed-tools list read in part) and kept in the manifest's extra.  The spec profile still refuses."""
    write_skill(tmp_path, "s", "name: s\ndescription: d\n" + written)
    reading = read_catalog([tmp_path])
    assert [(d.code, d.severity.value, d.line) for d in reading.diagnostics] == [("SK234", "warning", 4)]
    message = reading.diagnostics[0].message
    assert message.startswith(said) and message.endswith(" and kept in the manifest's extra"), message
    skill = reading.skills[0]
    assert skill.extra == kept and skill.allowed_tools == () and skill.metadata == {}
    assert skill.license is None and skill.compatibility is None
    strict = read_catalog([tmp_path], profile="spec")
    assert "SK208" in [d.code for d in strict.diagnostics] and not strict.verdicts()[0]["valid"]


@pytest.mark.parametrize("key", ["triggers", "version", "tags", "hidden", "depends", "knowledge", "parameters"])
def test_an_optional_key_with_nothing_after_it_reads_as_not_written(tmp_path, key):
    """A generator writes 'triggers:' with no value (10 of seaworld008's skills): SK208, an error, left
    the skill out, where Claude Code reads it as not given.  SK234 warns; the key reads as not written."""
    write_skill(tmp_path, "s", f"name: s\ndescription: d\n{key}:\n")
    reading = read_catalog([tmp_path])
    assert [(d.code, d.severity.value, d.line, d.message) for d in reading.diagnostics] == [
        ("SK234", "warning", 4, f"'{key}' is empty (nothing after '{key}:'); ignored, as if not written, and kept "
                                "in the manifest's extra")]
    skill = reading.skills[0]
    assert skill.extra == {key: None} and skill.triggers == {} and skill.version is None and skill.tags == ()
    assert not skill.hidden and skill.depends == () and skill.knowledge == () and skill.parameters == ()
    assert read_catalog([tmp_path], profile="spec").diagnostics[0].severity.value == "error"


@pytest.mark.parametrize("written, priority", [("3", 3), ("-2", -2), ("2.0", 2), ("0", 0)])
def test_a_whole_number_priority_is_read_without_a_warning(tmp_path, written, priority):
    """``2.0`` is a whole number to the schema (no warning): it ranks as 2, not as 0."""
    write_skill(tmp_path, "p", f"name: p\ndescription: d\npriority: {written}\n")
    reading = read_catalog([tmp_path])
    assert reading.diagnostics == ()
    assert reading.skills[0].priority == priority and reading.skills[0].extra == {}


def test_visibility_keys(tmp_path):
    write_skill(tmp_path, "a", "name: a\ndescription: d\ndisable-model-invocation: true\n")
    write_skill(tmp_path, "b", "name: b\ndescription: d\nuser_invocable_only: true\n")
    write_skill(tmp_path, "c", "name: c\ndescription: d\nhideFromDiscovery: true\n")
    skills = {s.id: s for s in read_catalog([tmp_path]).skills}
    assert skills["a"].hidden and skills["c"].hidden and not skills["b"].hidden
    assert skills["b"].user_invocable_only


def test_name_rules_are_warnings_in_default_and_errors_in_spec(tmp_path):
    write_skill(tmp_path, "folder", "name: Other Name\ndescription: d\n")
    default = read_catalog([tmp_path])
    assert diag_codes(default, "warning") == ["SK203", "SK204"]
    assert default.skills[0].name == "Other Name"
    assert diag_codes(read_catalog([tmp_path], profile="spec"), "error") == ["SK203", "SK204"]


def test_missing_name_takes_the_folder_name(tmp_path):
    write_skill(tmp_path, "nameless", "description: d\n")
    reading = read_catalog([tmp_path])
    assert diag_codes(reading, "warning") == ["SK016", "SK202"] and reading.skills[0].name == "nameless"


def test_missing_or_empty_description_leaves_the_skill_out(tmp_path):
    write_skill(tmp_path, "none", "name: none\n")
    write_skill(tmp_path, "null", "name: null\ndescription:\n")
    write_skill(tmp_path, "blank", "name: blank\ndescription: '   '\n")
    write_skill(tmp_path, "listed", "name: listed\ndescription: [a, b]\n")
    reading = read_catalog([tmp_path])
    assert reading.skills == ()
    assert sorted(p.source.id for p in reading.left_out) == ["blank", "listed", "none", "null"]
    assert diag_codes(reading, "error") == ["SK201"] * 4
    assert not any(v["valid"] for v in reading.verdicts())


def test_a_value_yaml_reads_as_a_comment_is_said_to_be_one(tmp_path):
    """'description: # Chemistry & Drug Discovery' (14 skills of beita6969/ScienceClaw) is a key and a
    comment: the error said "'description' must be a string, not null" of a value the author sees
    written.  It now says why; an empty value, or a '#' inside a value, is said as before."""
    write_skill(tmp_path, "chem", "name: chem\ndescription: # Chemistry & Drug Discovery\nversion:\t# one\n"
                                  "license: MIT # kept\n")
    write_skill(tmp_path, "empty", "name: empty\ndescription:\n")
    said = [(d.path.split("/")[-2], d.line, d.message) for d in read_catalog([tmp_path]).diagnostics]
    hint = "the '#' after '{}:' starts a YAML comment, so the key has no value (quote a value that starts with '#')"
    assert said == [("chem", 3, "'description' must be a string, not null: " + hint.format("description")),
                    ("chem", 4, "'version' is empty (nothing after 'version:'); ignored, as if not written, and "
                                "kept in the manifest's extra: " + hint.format("version")),
                    ("empty", 3, "'description' must be a string, not null")]


def test_long_description_is_a_warning_in_default(tmp_path):
    write_skill(tmp_path, "long", description="x" * 1100)
    assert diag_codes(read_catalog([tmp_path])) == ["SK206"]
    assert read_catalog([tmp_path]).diagnostics[0].severity.value == "warning"
    assert diag_codes(read_catalog([tmp_path], profile="spec"), "error") == ["SK206"]


def test_allowed_tools_list_and_comma_string_are_normalised(tmp_path):
    write_skill(tmp_path, "lst", "name: lst\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git add:*)\n")
    write_skill(tmp_path, "csv", "name: csv\ndescription: d\nallowed-tools: Read, Write, Bash(a, b)\n")
    write_skill(tmp_path, "ok", "name: ok\ndescription: d\nallowed-tools: Read Bash(git status:*)\n")
    reading = read_catalog([tmp_path])
    skills = {s.id: s for s in reading.skills}
    assert skills["lst"].allowed_tools == ("Read", "Bash(git add:*)")
    assert skills["csv"].allowed_tools == ("Read", "Write", "Bash(a, b)")
    assert skills["ok"].allowed_tools == ("Read", "Bash(git status:*)")
    messages = {d.path.split("/")[-2]: d.message for d in reading.diagnostics if d.code == "SK211"}
    assert set(messages) == {"lst", "csv"}
    assert "'Read Bash(git add:*)'" in messages["lst"] and "'Read Write Bash(a, b)'" in messages["csv"]


def test_body_size_warnings(tmp_path):
    write_skill(tmp_path, "big", body="line\n" * 600, description="Writes long runbooks. Use for incidents.")
    write_skill(tmp_path, "wide", body=("word " * 400 + "\n") * 12, description="Formats wide tables as CSV files.")
    reading = read_catalog([tmp_path])
    by_skill = {}
    for d in reading.diagnostics:
        by_skill.setdefault(d.path.split("/")[-2], []).append(d.code)
    assert by_skill == {"big": ["SK301"], "wide": ["SK302"]}


def test_links_and_file_references(tmp_path):
    skill = write_skill(tmp_path, "linker", body="""\
# Links
[ok](references/guide.md) and `scripts/run.py` and [folder](references/)
[missing](references/nope.md) and `assets/missing.png`
[escape](../../etc/passwd) [abs](/etc/passwd) [web](https://example.com) [anchor](#links)
[sibling](../other/SKILL.md) [child](kid/SKILL.md)
```
[in code](not/checked.md)
```
""")
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("g")
    (skill / "scripts").mkdir()
    (skill / "scripts" / "run.py").write_text("r")
    write_skill(tmp_path, "other", description="Answers questions about the billing API.")
    write_skill(skill, "kid", description="Translates error messages into plain words.")
    reading = read_catalog([tmp_path])
    found = sorted((d.code, d.line, d.message.split("'")[1]) for d in reading.diagnostics)
    assert found == [("SK303", 7, "assets/missing.png"), ("SK303", 7, "references/nope.md"),
                     ("SK304", 8, "../../etc/passwd"), ("SK305", 8, "/etc/passwd")]


def test_a_link_that_leaves_the_skill_folder_only_to_come_back_is_said_as_such(tmp_path):
    """``../plain/references/x.md`` in the skill ``plain`` names its own published file (the page
    links it so), not one left unpublished: SK304 says to write the path inside (an installed
    copy's folder may have another name); one naming a missing file of it is SK303, as any link."""
    skill = write_skill(tmp_path, "plain", body="[up](../plain/references/x.md) [gone](../plain/references/no.md)\n")
    (skill / "references").mkdir()
    (skill / "references" / "x.md").write_text("x")
    found = sorted((d.code, d.message) for d in read_catalog([tmp_path]).diagnostics)
    assert [code for code, _ in found] == ["SK303", "SK304"]
    assert found[0][1].startswith("link '../plain/references/no.md' points to a file that does not exist")
    assert found[1][1].endswith("comes back by its folder's name, which an install or a catalog may change; "
                                "write 'references/x.md'")


def test_link_destinations_are_read_with_their_entities_decoded(tmp_path):
    """``&#106;avascript:`` is a javascript: URL (not a file named '&'), ``x&amp;y.md`` is ``x&y.md``."""
    skill = write_skill(tmp_path, "ent", body="""\
[script](&#106;avascript:alert(1)) [amp](references/x&amp;y.md) [up](&#x2e;&#x2e;/outside.md)
""")
    (skill / "references").mkdir()
    (skill / "references" / "x&y.md").write_text("x")
    reading = read_catalog([tmp_path])
    found = sorted((d.code, d.line, d.message.split("'")[1]) for d in reading.diagnostics)
    assert found == [("SK304", 5, "../outside.md")]


def test_duplicate_names_in_the_catalog(tmp_path):
    write_skill(tmp_path, "a/twin", description="Deploys the API service to staging.")
    write_skill(tmp_path, "b/twin", description="Reviews pull requests for security holes.")
    reading = read_catalog([tmp_path])
    assert diag_codes(reading) == ["SK212"]
    assert "a/twin" in reading.diagnostics[0].message


def test_ignore_removes_codes_and_restores_validity(tmp_path):
    write_skill(tmp_path, "x", "name: y\ndescription: d\n")
    assert not read_catalog([tmp_path], profile="spec").verdicts()[0]["valid"]
    reading = read_catalog([tmp_path], profile="spec", ignore=["SK204"])
    assert reading.diagnostics == () and reading.verdicts()[0]["valid"]


def test_hostile_values_in_messages_cannot_drive_the_terminal(tmp_path):
    write_skill(tmp_path, "x", 'name: "\\e[31mred\\x07"\ndescription: d\n')
    messages = " ".join(d.message for d in read_catalog([tmp_path]).diagnostics)
    assert "\x1b" not in messages and "\x07" not in messages and "\\x1b[31m" in messages


def test_skills_checked_by_workers_share_discovery_s_source_objects(tmp_path):
    """A worker sends each skill back with a copy of its discovered folder (paths, file list):
    the catalog keeps discovery's own, once, with or without a cache."""
    from skillsite.cache import Cache
    from skillsite.source.discover import discover
    from skillsite.workers import MIN_PARALLEL_ITEMS

    for n in range(MIN_PARALLEL_ITEMS + 4):
        folder = write_skill(tmp_path, f"s{n:02d}")
        (folder / "notes.md").write_text("notes\n")
    found = discover([tmp_path])
    for cache in (None, Cache(None, "scope")):
        reading = read_catalog([tmp_path], found=found, jobs=2, cache=cache)
        assert len(reading.skills) == len(found.sources)
        assert all(skill.source is source for skill, source in zip(reading.skills, found.sources))


def test_tags_written_as_a_list_inside_a_string_are_read_as_that_list(tmp_path):
    """Real skills write ``tags: '["development", "expert"]'``: the tags are the list it spells
    (SK228 says to write a YAML list), never '["development"' and '"expert"]'."""
    write_skill(tmp_path, "json-list", 'name: json-list\ndescription: Does a thing. Use when testing.\n'
                                     'tags: \'["development", "expert", "i18n"]\'\n')
    write_skill(tmp_path, "flow-list", "name: flow-list\ndescription: Does a thing. Use when testing.\n"
                                     "tags: \"[dev, 'ops']\"\n")
    write_skill(tmp_path, "commas", "name: commas\ndescription: Does a thing. Use when testing.\ntags: a, \"b\"\n")
    write_skill(tmp_path, "broken", "name: broken\ndescription: Does a thing. Use when testing.\n"
                                  "tags: '[\"unclosed, x]'\n")
    reading = read_catalog([tmp_path])
    tags = {s.id: s.tags for s in reading.skills}
    assert tags == {"json-list": ("development", "expert", "i18n"), "flow-list": ("dev", "ops"),
                    "commas": ("a", "b"), "broken": ("unclosed", "x")}
    sk228 = sorted(d.path.split("/")[-2] for d in reading.diagnostics if d.code == "SK228")
    assert sk228 == ["broken", "flow-list", "json-list"]
    assert all(d.line == 4 for d in reading.diagnostics if d.code == "SK228")


def test_a_skill_with_an_error_in_a_folder_named_with_a_control_character_is_invalid(tmp_path):
    """The JSON report's skill path is the one its diagnostics give (escaped), so the two match
    and the skill's error makes it invalid."""
    from skillsite.source.catalog import check_catalog

    write_skill(tmp_path, "a\nb", "name: Other Name\ndescription: d\n")
    write_skill(tmp_path, "plain", "name: plain\ndescription: d\n")
    check = check_catalog([tmp_path], profile="spec")
    verdicts = {v["id"]: v for v in check.verdicts()}
    error_paths = {d.path for d in check.diagnostics if d.severity.value == "error"}
    assert verdicts["a\nb"]["path"] in error_paths and "\\x0a" in verdicts["a\nb"]["path"]
    assert verdicts["a\nb"]["valid"] is False and verdicts["plain"]["valid"] is True


def test_sk204_quotes_the_name_as_compared_not_two_identical_strings(tmp_path):
    """A folder ' lead' and ``name: ' lead'`` read "name ' lead' differs from its folder name ' lead'":
    the name is compared, and published, without the spaces around it."""
    write_skill(tmp_path, " lead", "name: ' lead'\ndescription: Leads the way. Use when testing.\n")
    write_skill(tmp_path, "tidy", "name: 'tidy  '\ndescription: Tidies. Use when testing.\n")
    said = [d.message for d in read_catalog([tmp_path]).diagnostics if d.code == "SK204"]
    assert said == ["name 'lead' differs from its folder name ' lead' (the spaces around a name are no part of it)"]
