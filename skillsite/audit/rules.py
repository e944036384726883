"""The audit rules: stable SK6xx codes, categories, default severities and the reason for each.

Codes are stable (suppressions and CI configurations name them); never renumber.  A finding
inside a fenced code example of a reference document, or in a sentence that warns against the
thing, is demoted one level unless the rule says it is never demoted.
"""
from __future__ import annotations

from skillsite.audit.model import Rule

_DEMOTION = (" Demoted one level inside a fenced example of a reference document, in a sentence that"
             " warns against or describes it, or quoted (in quotes or inline code: for commands, only in"
             " reference documents).")
_SPOKEN = (" Demoted one level inside a fenced example of a reference document, in a sentence that warns"
           " against or describes it, when quoted, or in a script's data that the script does not print.")
_NEVER = " Never demoted: the characters hide text whatever the sentence says."


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {rule.code: rule for rule in rules}


#: Every audit rule by code.
RULES: dict[str, Rule] = _rules(
    # invisible or deceptive text
    Rule("SK601", "invisible-text", "high", "Unicode tag characters (invisible text)",
         "Tag characters U+E0000-E007F render as nothing but models read them as ASCII: a known way to "
         "smuggle instructions past a human reviewer." + _NEVER, demotable=False),
    Rule("SK602", "invisible-text", "high", "bidirectional control characters",
         "Bidi overrides and isolates (U+202A-202E, U+2066-2069) make text display in another order than "
         "it is read (Trojan Source), so a reviewer sees something else than the agent." + _NEVER,
         demotable=False),
    Rule("SK603", "invisible-text", "medium", "zero-width character inside a word",
         "A zero-width space or joiner inside a word splits keywords so that reviews and filters miss them; "
         "a run of them can carry hidden data (then high)." + _NEVER, demotable=False),
    Rule("SK604", "invisible-text", "low", "Unicode line or paragraph separator",
         "U+2028 and U+2029 break lines for some readers and not for others, so text can look like a "
         "comment or a closed string while it is not." + _NEVER, demotable=False),
    Rule("SK605", "invisible-text", "high", "run of variation selectors (hidden data)",
         "Emoji use at most one variation selector; a run of them encodes bytes invisibly, a known way to "
         "hide a payload in text." + _NEVER, demotable=False),
    Rule("SK606", "invisible-text", "high", "mixed-script or confusable skill name",
         "A name that mixes alphabets or uses look-alike or styled letters impersonates another skill "
         "(homoglyph attack)." + _NEVER, demotable=False),
    Rule("SK607", "invisible-text", "high", "instructions hidden in an HTML comment",
         "HTML comments do not show on rendered pages but reach the model: instructions addressed to the "
         "agent there are hidden from the people reviewing the skill." + _SPOKEN),
    # prompt injection
    Rule("SK610", "prompt-injection", "high", "text tries to override the agent's instructions",
         "Phrases such as 'ignore previous instructions' or 'your new instructions are' hijack the agent "
         "that loads the skill." + _SPOKEN),
    Rule("SK611", "prompt-injection", "medium", "text tells the agent to hide actions from the user",
         "A skill that asks the agent not to tell the user what it does removes the user's only oversight; "
         "high when the same passage sends data, handles credentials, installs or deletes." + _SPOKEN),
    Rule("SK612", "prompt-injection", "high", "fake context or chat-template delimiter",
         "Closing tags such as </skill_content> or </system>, or tokens such as <|im_start|>, try to end "
         "the skill's context and speak as the system or another role." + _SPOKEN),
    Rule("SK613", "prompt-injection", "high", "text tells the agent to turn off approvals or the sandbox",
         "Asking the agent to disable confirmations, the sandbox or safety checks lets everything after "
         "it run unreviewed." + _SPOKEN),
    # exfiltration
    Rule("SK620", "exfiltration", "high", "credentials read and data sent out in the same file",
         "Reading secrets (SSH keys, cloud credentials, keychains, browser profiles, the whole "
         "environment) next to a network send is the shape of credential theft; a .env file alone is "
         "medium." + _DEMOTION),
    Rule("SK621", "exfiltration", "medium", "reads a credential store",
         "SSH keys, cloud credential files, keychains and browser profiles are rarely needed by a skill; "
         "reading them is worth a look even without a send in the same file." + _DEMOTION),
    Rule("SK622", "exfiltration", "high", "Markdown image or link URL carries variables or secrets",
         "A rendered image is fetched without a click: a URL with a variable or secret in it sends data "
         "to that host as soon as the agent's answer is displayed." + _DEMOTION),
    # remote code and supply chain
    Rule("SK630", "remote-code", "high", "download piped into a shell or interpreter",
         "curl | sh runs whatever the host serves at that moment, unverified; a well-known project's "
         "installer over HTTPS is medium." + _DEMOTION),
    Rule("SK631", "remote-code", "high", "runs a decoded or assembled payload",
         "Decoding base64 or hex (or assembling strings) and executing the result hides what runs from "
         "every reviewer." + _DEMOTION),
    Rule("SK632", "remote-code", "medium", "package installed from an unpinned git ref",
         "A branch or a missing ref installs whatever is pushed next; pin a commit (40 hex digits) or a "
         "release version." + _DEMOTION),
    Rule("SK633", "remote-code", "medium", "package installed from a URL or an untrusted index",
         "Installing from a bare URL or an extra index skips the registry's pinning; over plain HTTP or "
         "with --trusted-host anyone on the path can swap the code (then high)." + _DEMOTION),
    Rule("SK634", "remote-code", "high", "reverse shell: hands a shell on this machine to a remote host",
         "A shell wired to a network connection (bash -i >& /dev/tcp/..., nc -e /bin/sh, socat exec:, "
         "a TCP client feeding Invoke-Expression) lets whoever listens run any command, with the "
         "agent's access." + _DEMOTION),
    # obfuscation
    Rule("SK640", "obfuscation", "medium", "long encoded blob in a script",
         "Hundreds of base64 or hex characters in a script are a payload nobody can review; ship the "
         "data as a file or the source it was made from." + _DEMOTION),
    Rule("SK641", "obfuscation", "high", "file content does not match its extension",
         "An executable or script named like an image or a document is disguised (so is an archive or an "
         "image named like a text file); content that is not what its extension claims is at least "
         "misleading.", demotable=False),
    Rule("SK642", "obfuscation", "medium", "bundled executable or compiled code",
         "Compiled programs (ELF, Mach-O, PE) and bytecode cannot be reviewed from the skill's sources.",
         demotable=False),
    Rule("SK643", "obfuscation", "low", "hidden file",
         "Dotfiles do not show in most file listings; a hidden script is medium.", demotable=False),
    Rule("SK644", "obfuscation", "low", "file not audited",
         "Files over 1 MiB, and files that cannot be read, are not scanned; review them by hand.",
         demotable=False),
    # secrets
    Rule("SK650", "secrets", "high", "hard-coded token or key",
         "A live-looking API token (AWS, GitHub, Slack, Google, OpenAI, Anthropic, Stripe ...) published "
         "in a skill is leaked; placeholders and documented example keys are ignored. An AWS key id alone is "
         "medium. Never demoted: a key in an example is leaked all the same.", demotable=False),
    Rule("SK651", "secrets", "high", "private key block",
         "A PEM or OpenSSH private key with key material in it is a leaked secret. Never demoted: a key in "
         "an example is leaked all the same.", demotable=False),
    # over-broad permissions and destructive commands
    Rule("SK660", "permissions", "medium", "allowed-tools grants unrestricted shell",
         "`Bash` without a command pattern (or `Bash(*)`, or `*` for every tool) pre-approves every shell "
         "command, and so does a pattern that starts with a shell, an interpreter or a wrapper "
         "(`Bash(sudo:*)`, `Bash(python3 *)`, `Bash(env:*)`); list the commands the skill needs, e.g. "
         "`Bash(git status:*)`.", demotable=False),
    Rule("SK661", "permissions", "low", "allowed-tools grants unrestricted file writes",
         "`Write` or `Edit` without a path pattern pre-approves writing anywhere.", demotable=False),
    Rule("SK662", "permissions", "high", "runs an agent with permission checks disabled",
         "--dangerously-skip-permissions, --yolo, an approval policy of never or a full-access sandbox "
         "let every later command run without the user's consent." + _DEMOTION),
    Rule("SK663", "permissions", "high", "destructive command",
         "rm -rf of / or ~, mkfs, dd onto a device or a fork bomb destroy the user's machine or data."
         + _DEMOTION),
    # audit configuration
    Rule("SK690", "configuration", "medium", "suppression without a reason; not applied",
         "Every silenced finding needs a written reason, so reviewers can judge it later.", demotable=False),
    Rule("SK691", "configuration", "low", "suppression matches no finding",
         "A stale suppression would silently hide a future finding; remove it.", demotable=False),
    Rule("SK692", "configuration", "medium", "malformed suppression",
         "audit.ignore entries are mappings with code, skill and reason.", demotable=False),
)
